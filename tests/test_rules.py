"""Every rule fires on a faulty copy of a real trace, on the right node, and the reference engine agrees (slow)."""

import io

import pytest
import tgtrace
from conftest import EXAMPLES
from tgtrace.ground.resources import shapes_paths
from tgtrace.rules import all_rules, families, model, selfcheck
from tgtrace.run.settings import Settings, SettingsError

RULES = all_rules()
# Rules of opt-in families run only when selected by name, code or prefix, never by default.
OPT_IN = {code for code, rule in RULES.items() if families()[rule.family].opt_in}


def lint_bytes(data: bytes, engine: str, code: str):
    # Every rule that runs by default, and the rule itself (which may belong to an opt-in family).
    return tgtrace.lint(io.BytesIO(data), engine=engine, input_format="nquads", fail_on="never",
                        select=["ALL", code])


def test_every_rule_is_valid_as_tg_trace_check_judges_it():
    assert len(RULES) >= 50
    problems = selfcheck.rule_problems(model(), shapes_paths())
    assert not problems, [p.text for p in problems]


# Every fault of every rule: its example (tgl:fault) and each further fault it catches.
FAULTS = [(code, index) for code, rule in sorted(RULES.items()) for index in range(len(rule.faults))]


def fault_id(case) -> str:
    code, index = case
    return code if index == 0 else f"{code}-{index + 1}"


def faulty(case) -> bytes:
    code, index = case
    fault = RULES[code].faults[index]
    data = fault.apply(EXAMPLES)
    original = (EXAMPLES / fault.trace).read_bytes()
    assert sorted(data.splitlines()) != sorted(original.splitlines()), f"{code}: the fault changed nothing"
    return data


@pytest.mark.parametrize("case", FAULTS, ids=fault_id)
def test_fault_fires(case):
    code, index = case
    rule = RULES[code]
    fault = rule.faults[index]
    fast = lint_bytes(faulty(case), "fast", code)
    fired = {(f.rule, f.focus) for f in fast}
    assert (code, fault.focus) in fired, f"{code} did not fire on {fault.focus}: {sorted(fired)}"
    finding = next(f for f in fast if f.rule == code and f.focus == fault.focus)
    assert finding.severity == rule.severity and finding.family == rule.family
    assert finding.line, "a finding in N-Quads carries the line of its triple"


# The reference engine (pySHACL) gives the same verdict on every fault: the shapes mean what the
# default engine does. Slow: pySHACL takes about a second a trace.
@pytest.mark.slow
@pytest.mark.parametrize("case", FAULTS, ids=fault_id)
def test_reference_engine_agrees_on_the_fault(case):
    code, _ = case
    data = faulty(case)
    fast = {(f.rule, f.focus) for f in lint_bytes(data, "fast", code)}
    assert fast == {(f.rule, f.focus) for f in lint_bytes(data, "shacl", code)}


@pytest.mark.parametrize("case", FAULTS, ids=fault_id)
def test_fault_target_is_clean_before_the_fault(case):
    code, index = case
    fault = RULES[code].faults[index]
    report = tgtrace.lint(EXAMPLES / fault.trace, fail_on="never", select=["ALL", code])
    assert (code, fault.focus) not in {(f.rule, f.focus) for f in report}


def test_every_rule_has_its_example():
    assert all(rule.fault is not None for rule in RULES.values() if rule.shape)


def test_select_and_ignore_expand_codes_prefixes_and_families():
    def chosen(select=None, ignore=None):
        return Settings().merge(select=select, ignore=ignore).codes

    assert chosen(["M001"]) == {"M001"}
    assert chosen(["termination"]) == {c for c, r in RULES.items() if r.family == "termination"}
    assert chosen(["C01"]) == {c for c in RULES if c.startswith("C01")}
    assert chosen(["all"]) == set(RULES) - OPT_IN and chosen() == set(RULES) - OPT_IN
    for code in OPT_IN:
        assert chosen([code]) == {code} and code in chosen([RULES[code].family]) and code in chosen(["all", code])
    assert "V001" not in chosen(None, ["vocabulary"])
    with pytest.raises(SettingsError, match=r"--select: unknown rule code 'X999'"):
        chosen(["X999"])
    with pytest.raises(SettingsError, match=r"did you mean C004\?"):
        chosen(["C0044"])
