"""The findings on the examples, the mutation suite, the rules' faults and the
benchmark corpora equal the recorded ones (tests/findings_record.py made the
record before the rule engine was restructured around constraint components)."""

from __future__ import annotations

import pytest
from findings_record import all_cases, as_of_record, missing_rules, read_record

pytest.importorskip("trustgraph.provenance", reason="the corpus is built by the real emitter (trustgraph-base)")

RECORDED = read_record()


@pytest.fixture(scope="module")
def corpora(tmp_path_factory):
    return tmp_path_factory.mktemp("corpora")


CASES = list(all_cases(None))  # names only; corpus cases get their folder at run time
RE_RECORD = "python tests/findings_record.py --new-rules records it (changing nothing recorded)"


def test_record_covers_every_rule():
    missing = missing_rules(RECORDED)
    assert not missing, f"the findings record lacks the rules {missing}: {RE_RECORD}"


def test_record_covers_every_case():
    assert sorted(name for name, _ in CASES) == sorted(RECORDED), f"a case is new or gone: {RE_RECORD}"


def as_recorded(row: list) -> list:
    """Two deliberate differences. V003 now names the deprecated predicate as the path and the
    focus as the value, as a SHACL-SPARQL node validator reports ?path; it named the predicate
    as the value. C004's path is now prov:wasDerivedFrom, the link it judges (it was a path of
    any length, which SHACL results cannot name, and which made pySHACL test every ancestor of
    every Analysis), so its line is that link's (it was the Analysis's first line; compared
    without the line by :func:`c004_without_line`). File, rule, severity, focus, trace and
    message are unchanged."""
    if row[2] == "C004":
        assert row[6] == "http://www.w3.org/ns/prov#wasDerivedFrom"
        return row[:6] + [None] + row[7:]
    if row[2] == "V003":
        file, line, rule, severity, focus, trace, path, value, message = row
        return [file, line, rule, severity, focus, trace, None, path, message]
    return row


# Faulty graphs (a loop back to the Question, a link retargeted across a supervisor's sub-agents)
# in which a node lies under several Questions. The trace a finding names used to be the
# farthest Question an upward search met from that node, often a sub-agent's Question and not a
# root; it is now the root whose trace reaches the node, computed once for the whole graph in
# linear time. Only the trace column of these cases differs.
TRACE_MEMBERSHIP_CHANGED = {
    "mutation:468:orchestrator-react-graphrag-tool:loop:af78c87f-1532-55aa-ae35-94d5aa43a25a",
    "mutation:1156:supervisor:retarget-link:f-0932-5892-9702-451b88596555/i1/thought",
    "mutation:1271:supervisor:retarget-link:b-1505-5eda-aa3b-7c37306aed4e/i1/thought",
    "mutation:1304:supervisor:retarget-link:b-1505-5eda-aa3b-7c37306aed4e/i2/thought",
    "mutation:1337:supervisor:retarget-link:e8-f902-5f3a-82ff-7e61d4e506f0/synthesis",
    "mutation:1339:supervisor:retarget-link:e8-f902-5f3a-82ff-7e61d4e506f0/synthesis",
    "mutation:1364:supervisor:loop:c5d169e8-f902-5f3a-82ff-7e61d4e506f0",
    "fault:C022",
}


# A supervisor whose Finding lost its link to the sub-agent's Conclusion: that Conclusion is no
# longer taken for a second answer of the trace (S003): a Conclusion below another agent Question
# than the root is a sub-agent's, linked or not (TrustGraph 2.11.1 derives the Finding from the
# Decomposition when it does not know the Conclusion). The broken link itself is still reported.
S003_SUB_AGENT_ANSWER = {
    "mutation:1237:supervisor:cut-link:e8-f902-5f3a-82ff-7e61d4e506f0/finding/0",
    "mutation:1238:supervisor:dangling-link:e8-f902-5f3a-82ff-7e61d4e506f0/finding/0",
    "mutation:1239:supervisor:retarget-link:e8-f902-5f3a-82ff-7e61d4e506f0/finding/0",
    "mutation:1329:supervisor:cut-link:e8-f902-5f3a-82ff-7e61d4e506f0/finding/1",
    "mutation:1330:supervisor:dangling-link:e8-f902-5f3a-82ff-7e61d4e506f0/finding/1",
    "mutation:1331:supervisor:retarget-link:e8-f902-5f3a-82ff-7e61d4e506f0/finding/1",
    "fault:C023",
}


def ordered(rows) -> list:
    return sorted(rows, key=lambda r: [str(x) for x in r])


def placed_on_their_triple(row: list) -> bool:
    """A finding of a rule over several predicates (no path; D001 to D003) now names the line of
    the triple that holds its value, and one on an undeclared or deprecated predicate (its focus
    as the value) the line of the focus's triple with that predicate: each named its focus's
    first line. Compared without the line."""
    rule, focus, path, value = row[2], row[4], row[-3], row[-2]  # with or without the trace column
    return (path is None and value is not None) or value == focus or rule == "V003"


def c004_without_line(rows) -> list:
    return ordered(r[:1] + [None] + r[2:] if r[2] == "C004" or placed_on_their_triple(r) else r for r in rows)


@pytest.mark.parametrize("name", [name for name, _ in CASES])
def test_findings_equal_the_record(name, corpora):
    run = dict(all_cases(corpora))[name]
    found = ordered(as_of_record(as_recorded(row)) for row in run())
    recorded = RECORDED[name]
    if name in S003_SUB_AGENT_ANSWER:
        assert any(r[2] == "S003" for r in recorded)  # the exception is still needed
        recorded = [r for r in recorded if r[2] != "S003"]
    if name in TRACE_MEMBERSHIP_CHANGED:
        assert found != recorded  # the exception is still needed
        without_trace = lambda rows: ordered(r[:5] + r[6:] for r in rows)  # noqa: E731
        found, recorded = without_trace(found), without_trace(recorded)
    assert c004_without_line(found) == c004_without_line(recorded)
