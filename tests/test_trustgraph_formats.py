"""What TrustGraph itself writes (export frames, socket envelopes, tg-query-graph lines, knowledge
cores, tg-dump-msgpack lines, .tgx bundles) lints as the trace it came from.

The fixtures in tests/data/trustgraph-formats/ were written by TrustGraph 2.11.1's own code
(examples/generate_formats.py); where trustgraph-flow and trustgraph-cli are installed the script is
run again and must reproduce them, and faults are injected into the examples before TrustGraph's
writers serialise them.
"""

from __future__ import annotations

import gzip
import io
import json
import re
import shlex
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import msgpack
import pyoxigraph as ox
import pytest
import tgtrace
from click.testing import CliRunner
from tgtrace.cli import main
from tgtrace.inputs.loaders import InputError, load
from tgtrace.inputs.losses import TABLE, loss_of, table
from tgtrace.rules import all_rules

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
FIXTURES = ROOT / "tests" / "data" / "trustgraph-formats"
DOC = ROOT / "docs" / "trustgraph-outputs.md"
SUFFIX_FORMATS = {".frames.jsonl": "frames", ".envelopes.jsonl": "envelopes", ".query.jsonl": "triples",
                  ".msgpack": "kgcore", ".dump.jsonl": "dump", ".tgx": "tgx"}
FIXTURE_FILES = sorted(p.name for p in FIXTURES.iterdir() if p.name != "README.md")


def _split(name: str) -> tuple[str, str]:
    for suffix, fmt in SUFFIX_FORMATS.items():
        if name.endswith(suffix):
            return name[: -len(suffix)], fmt
    raise AssertionError(f"{name}: not a format fixture")


def _pairs(report) -> set[tuple[str, str]]:
    return {(f.rule, f.focus) for f in report.findings}


def _writers():
    """TrustGraph's own writers, where trustgraph-flow and trustgraph-cli 2.11.1 are installed."""
    pytest.importorskip("trustgraph.gateway.dispatch.serialize", reason="trustgraph-flow 2.11.1 is not installed")
    pytest.importorskip("trustgraph.cli.get_kg_core", reason="trustgraph-cli 2.11.1 is not installed")
    sys.path.insert(0, str(ROOT))
    from examples import generate_formats
    return generate_formats


def test_every_format_has_fixtures_for_every_example():
    names = {p.stem for p in EXAMPLES.glob("*.json") if not p.name.endswith(".events.json")}
    written = {_split(n) for n in FIXTURE_FILES}
    for name in names:
        wanted = set(SUFFIX_FORMATS.values()) - ({"envelopes"} if name == "extraction" else set())
        assert {fmt for base, fmt in written if base == name} == wanted, name


def test_the_script_reproduces_the_fixtures():
    generate_formats = _writers()
    files = generate_formats.render_all()
    assert sorted(files) == FIXTURE_FILES
    stale = [n for n, content in files.items() if not generate_formats.same(n, (FIXTURES / n).read_bytes(), content)]
    assert not stale, f"run python examples/generate_formats.py: {stale}"


@pytest.mark.parametrize("name", FIXTURE_FILES)
def test_a_clean_example_lints_as_the_example_through_every_format(name):
    base, fmt = _split(name)
    expected = _pairs(tgtrace.lint(EXAMPLES / f"{base}.json", fail_on="never"))
    report = tgtrace.lint(FIXTURES / name, fail_on="never")
    loss = loss_of(fmt)
    notices = [f for f in report.findings if f.rule == "I001"]
    if loss.lossy:
        expected = {(r, f) for r, f in expected if r not in loss.silent} | {("I001", str(FIXTURES / name))}
        assert len(notices) == 1
        assert all(code in notices[0].message for code in loss.silent + tuple(code for code, _ in loss.unseen))
        assert all(what in notices[0].message for what in loss.lost)
    else:
        assert not notices
    assert _pairs(report) == expected
    assert report.traces.keys() == tgtrace.lint(EXAMPLES / f"{base}.json", fail_on="never").traces.keys()


def test_query_output_is_a_set_not_a_stream(tmp_path):
    """The supervisor's lines in any order (the store's, reversed) lint clean, as its wire JSON does."""
    lines = (FIXTURES / "supervisor.query.jsonl").read_bytes().splitlines(keepends=True)
    for order, arranged in (("store", lines), ("reversed", lines[::-1])):
        path = tmp_path / f"{order}.jsonl"
        path.write_bytes(b"".join(arranged))
        report = tgtrace.lint(path, fail_on="never")
        assert not [f for f in report.findings if f.severity >= tgtrace.Severity.WARNING], order
        assert load(str(path))[0].events is None


def test_streams_stay_streams():
    """Export frames and envelopes are what the services emitted, in order: linted trace by trace."""
    for name in ("supervisor.frames.jsonl", "supervisor.envelopes.jsonl", "graph-rag.frames.jsonl"):
        assert load(str(FIXTURES / name))[0].events is not None, name


def test_formats_are_chosen_by_content(tmp_path):
    """Renamed without their extensions (and piped in), every format is still recognised."""
    for name in ("supervisor.msgpack", "supervisor.tgx", "supervisor.query.jsonl", "supervisor.frames.jsonl",
                 "supervisor.dump.jsonl", "supervisor.envelopes.jsonl"):
        copy = tmp_path / name.split(".")[1]
        copy.write_bytes((FIXTURES / name).read_bytes())
        assert _pairs(tgtrace.lint(copy, fail_on="never")) - {("I001", str(copy))} == \
            _pairs(tgtrace.lint(FIXTURES / name, fail_on="never")) - {("I001", str(FIXTURES / name))}, name
    piped = subprocess.run([sys.executable, "-m", "tgtrace.cli", "lint", "-", "--format", "json"],
                           input=(FIXTURES / "plan-then-execute.msgpack").read_bytes(), capture_output=True)
    assert piped.returncode == 0, piped.stderr
    assert json.loads(piped.stdout)["summary"]["traces"] == 1


def test_a_bundle_puts_trace_entities_back_in_their_graphs():
    quads = list(load(str(FIXTURES / "extraction.tgx"))[0].quads())
    graphs = {q.graph_name.value for q in quads if isinstance(q.graph_name, ox.NamedNode)}
    assert graphs == {"urn:graph:source", "urn:trustgraph:collection:default"}
    typed = {q.subject for q in quads if q.predicate.value.endswith("#type") and q.object.value.startswith(
        "https://trustgraph.ai/ns/")}
    assert all(q.graph_name.value == "urn:graph:source" for q in quads if q.subject in typed)
    retrieval = list(load(str(FIXTURES / "graph-rag.tgx"))[0].quads())
    assert {q.graph_name.value for q in retrieval} == {"urn:graph:retrieval"}


# ---------------------------------------------------------------------------
# Faults injected before TrustGraph's writers serialise the trace.
# ---------------------------------------------------------------------------

def _tg_term(term):
    from trustgraph.schema import BLANK, IRI, LITERAL, TRIPLE, Term, Triple
    if isinstance(term, ox.NamedNode):
        return Term(type=IRI, iri=term.value)
    if isinstance(term, ox.BlankNode):
        return Term(type=BLANK, id=term.value)
    if isinstance(term, ox.Literal):
        datatype = term.datatype.value if term.datatype and not term.language else ""
        return Term(type=LITERAL, value=term.value, language=term.language or "",
                    datatype="" if datatype.endswith("#string") else datatype)
    return Term(type=TRIPLE, triple=Triple(s=_tg_term(term.subject), p=_tg_term(term.predicate),
                                           o=_tg_term(term.object)))


def _emissions_of(nquads: bytes, like: list):
    """The faulty trace as one emission of the service that wrote the example."""
    from trustgraph.schema import Triple
    triples = [Triple(s=_tg_term(q.subject), p=_tg_term(q.predicate), o=_tg_term(q.object),
                      g=q.graph_name.value if isinstance(q.graph_name, ox.NamedNode) else None)
               for q in ox.parse(nquads, format=ox.RdfFormat.N_QUADS)]
    return [type(like[0])(like[0].explain_id, triples, like[0].channel)]


FAULTS = sorted(code for code, rule in all_rules().items() if rule.fault is not None)
# Rules a lossy format still judges whose recipe's fault is wrong whatever was lost ("done" is no
# termination reason with any datatype): found through every format.
SEEN_THROUGH_LOSSES = {"T001", "S012"}


@pytest.mark.parametrize("code", FAULTS)
def test_a_fault_is_found_through_every_format(code, tmp_path):
    generate_formats = _writers()
    from examples.generate import EXAMPLES as BUILDERS
    rule = all_rules()[code]
    base = rule.fault.trace.removesuffix(".nq")
    emissions = _emissions_of(rule.fault.apply(EXAMPLES), BUILDERS[base]())
    for fmt in generate_formats.written_formats(base, emissions):
        path = tmp_path / f"{base}{generate_formats.FORMAT_SUFFIXES[fmt]}"
        path.write_bytes(generate_formats.WRITERS[fmt](base, emissions))
        report = tgtrace.lint(path, fail_on="never", select=["ALL", code])
        found = [f for f in report.findings if f.rule == code and f.focus == rule.fault.focus]
        loss = loss_of(fmt)
        if code in loss.silent:
            assert not [f for f in report.findings if f.rule == code], (fmt, "a silenced rule spoke")
            continue
        if not found and code in dict(loss.unseen) and code not in SEEN_THROUGH_LOSSES:
            continue  # a fault the format's loss hides, which its notice names
        assert found, f"{code} not found on {rule.fault.focus} through {fmt}: {sorted(_pairs(report))}"
        _assert_placed(found[0], path, fmt)


def _bundle_of_update(update: str, tmp_path: Path) -> tgtrace.Report:
    """The ReAct example with ``update`` applied, written by TrustGraph's own workspace export and linted."""
    generate_formats = _writers()
    from examples.generate import EXAMPLES as BUILDERS
    store = ox.Store()
    store.load(path=str(EXAMPLES / f"{REACT}.nq"), format=ox.RdfFormat.N_QUADS)
    store.update(update)
    emissions = _emissions_of(store.dump(format=ox.RdfFormat.N_QUADS), BUILDERS[REACT]())
    path = tmp_path / f"{REACT}.tgx"
    path.write_bytes(generate_formats.WRITERS["tgx"](REACT, emissions))
    return tgtrace.lint(path, fail_on="never")


REACT = "orchestrator-react-multi-iteration"
FINAL = "urn:trustgraph:agent:33a7dbc8-ce5b-58b6-91c6-ff32961e9c7d/final"
REASON = ("DELETE {{ GRAPH ?g {{ <{final}> tg:terminationReason ?old }} }} "
          "INSERT {{ GRAPH ?g {{ <{final}> tg:terminationReason {value} }} }} "
          "WHERE {{ GRAPH ?g {{ <{final}> tg:terminationReason ?old }} }}")
PREFIXES = "PREFIX tg: <https://trustgraph.ai/ns/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> "


def test_a_bundle_is_judged_on_what_it_kept(tmp_path):
    """A bundle loses datatypes, which can only hide a fault: an agent ending with termination reason
    "done" gets T001 from its .tgx as from every other format, on the bundle's line."""
    report = _bundle_of_update(PREFIXES + REASON.format(final=FINAL, value='"done"'), tmp_path)
    (found,) = [f for f in report.findings if f.rule == "T001"]
    assert found.focus == FINAL and found.value == "done"
    _assert_placed(found, tmp_path / f"{REACT}.tgx", "tgx")
    assert [f.rule for f in report.findings if f.rule == "I001"] == ["I001"]


def test_a_bundle_cannot_show_a_datatype_and_its_notice_says_so(tmp_path):
    """An accepted reason written with a datatype is T001's in the trace; the bundle dropped the
    datatype, so its T001 stays quiet there and the notice names that fault among those it cannot show."""
    typed = REASON.format(final=FINAL, value='"final-answer"^^xsd:token')
    assert "T001" in {f.rule for f in tgtrace.lint(_faulty_nquads(PREFIXES + typed, tmp_path), fail_on="never").findings}
    report = _bundle_of_update(PREFIXES + typed, tmp_path)
    assert not [f for f in report.findings if f.rule == "T001"]
    (notice,) = [f for f in report.findings if f.rule == "I001"]
    assert "a termination reason written with a datatype or language tag (T001)" in notice.message


def _faulty_nquads(update: str, tmp_path: Path) -> Path:
    store = ox.Store()
    store.load(path=str(EXAMPLES / f"{REACT}.nq"), format=ox.RdfFormat.N_QUADS)
    store.update(update)
    path = tmp_path / f"{REACT}.nq"
    path.write_bytes(store.dump(format=ox.RdfFormat.N_QUADS))
    return path


def _assert_placed(finding, path: Path, fmt: str) -> None:
    """The finding's place holds its focus: a line of the file, a record of the core, a line of a member."""
    assert finding.line, finding
    focus = finding.focus
    if fmt == "kgcore":
        records = list(msgpack.Unpacker(io.BytesIO(path.read_bytes()), raw=False))
        assert focus in json.dumps(records[finding.line - 1]), finding
    elif fmt == "tgx":
        bundle, member = finding.file.split(":", 1)
        assert bundle == str(path) and member.startswith("knowledge/"), finding
        with tarfile.open(path, "r:gz") as archive:
            lines = archive.extractfile(member).read().splitlines()
        assert focus in lines[finding.line - 1].decode(), finding
    else:
        assert focus in path.read_bytes().splitlines()[finding.line - 1].decode(), finding


# ---------------------------------------------------------------------------
# Hostile variants: one line, exit 2, nothing written.
# ---------------------------------------------------------------------------

def _bundle(members: list[tuple[str, bytes]], kind=tarfile.REGTYPE) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size, info.type = len(data), kind
            archive.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _bomb() -> bytes:
    # A member of 32 MiB of newlines: gzip shrinks it about a thousand times.
    out = io.BytesIO()
    with gzip.GzipFile(fileobj=out, mode="wb", compresslevel=1) as zipped:
        info = tarfile.TarInfo("knowledge/default/triples.nq")
        info.size = 32 << 20
        zipped.write(info.tobuf(format=tarfile.GNU_FORMAT))
        block = b"\n" * (1 << 20)
        for _ in range(32):
            zipped.write(block)
        zipped.write(b"\0" * (2 * tarfile.BLOCKSIZE))  # the archive's end
    return out.getvalue()


NQ = b"<urn:q> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <https://trustgraph.ai/ns/Question> <urn:g> .\n"
CORE = (FIXTURES / "graph-rag.msgpack").read_bytes()
HOSTILE = [
    ("truncated.msgpack", CORE[: len(CORE) // 2], "is truncated"),
    ("garbage.msgpack", b"\x92\xa1t\xc1", "is not msgpack"),
    ("deep.msgpack", b"\x92\xa1t" + b"\x91" * 5000, "record 1"),
    ("record.msgpack", msgpack.packb(["t", "no body"]), "needs a body"),
    ("empty-core.msgpack", b"", "empty"),
    ("frame.jsonl", json.dumps({"metadata": {"id": "x", "root": "x", "collection": "c"}}).encode() + b"\n",
     "export frame has no 'triples'"),
    ("frame-string.jsonl", json.dumps({"metadata": {}, "triples": "x"}).encode() + b"\n", "of type str"),
    ("envelope.jsonl", json.dumps({"id": "1", "response": "boom", "complete": False}).encode() + b"\n",
     "'response' must be an object"),
    ("dump.jsonl", b'["t", {"m": {}}]\n', "needs a body"),
    ("dotdot.tgx", _bundle([("knowledge/../../etc/triples.nq", NQ)]), "outside the bundle"),
    ("absolute.tgx", _bundle([("/knowledge/default/triples.nq", NQ)]), "outside the bundle"),
    ("control.tgx", _bundle([("knowledge/a\x1b[2J/triples.nq", NQ)]), "control characters"),
    ("link.tgx", _bundle([("knowledge/default/triples.nq", b"")], kind=tarfile.SYMTYPE), "not a regular file"),
    ("bomb.tgx", _bomb, "decompression bomb"),
    ("config-only.tgx", _bundle([("manifest.json", b"{}")]), "holds no knowledge"),
    ("not-gzip.tgx", b"not a bundle", "not a readable .tgx"),
    ("truncated.tgx", (FIXTURES / "graph-rag.tgx").read_bytes()[:400], "not a readable .tgx"),
    ("bad-nquads.tgx", _bundle([("knowledge/default/triples.nq", NQ + b'<urn:a> <urn:b> "x .\n')]),
     "triples.nq:2"),
]


@pytest.mark.parametrize("name,content,words", HOSTILE, ids=[c[0] for c in HOSTILE])
def test_a_hostile_variant_is_one_line_exit_2(name, content, words, tmp_path):
    path = tmp_path / name
    path.write_bytes(content() if callable(content) else content)
    before = sorted(p.name for p in tmp_path.iterdir())
    with pytest.raises(InputError) as caught:
        tgtrace.lint(path)
    message = str(caught.value)
    assert "\n" not in message and name in message and words in message, message
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # nothing extracted beside it


def test_hostile_variants_exit_2_on_the_command_line(tmp_path):
    chosen = [case for case in HOSTILE if case[0] in ("truncated.msgpack", "bomb.tgx")]
    for name, content, words in chosen:
        path = tmp_path / name
        path.write_bytes(content() if callable(content) else content)
        result = subprocess.run([sys.executable, "-m", "tgtrace.cli", "lint", str(path)], capture_output=True,
                                timeout=120, cwd=tmp_path)
        err = result.stderr.decode()
        assert result.returncode == 2 and len(err.strip().splitlines()) == 1 and words in err, err
        assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(case[0] for case in chosen)


# ---------------------------------------------------------------------------
# The loss table, and the page that documents it.
# ---------------------------------------------------------------------------

def test_the_loss_table_names_real_rules_and_every_format():
    codes = set(all_rules())
    assert set(table()) == set(SUFFIX_FORMATS.values())
    for fmt, entries in table().items():
        for loss in entries:
            assert set(loss.silent) <= codes, (fmt, set(loss.silent) - codes)
            unseen = {code for code, _ in loss.unseen}
            assert unseen <= codes and not unseen & set(loss.silent), (fmt, unseen)
            assert not unseen or loss.lossy, fmt
            assert bool(loss.silent) == loss.lossy, fmt  # a lossless format silences nothing
    assert loss_of("tgx", "2.11.1").lossy and not loss_of("frames").lossy
    with open(TABLE, "rb") as handle:
        assert tomllib.load(handle)["format"]


def test_the_page_documents_the_loss_table():
    rows = {}
    for line in DOC.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] in table():
            rows[cells[0]] = cells[1:]
    assert set(rows) == set(table())
    for fmt, entries in table().items():
        for loss in entries:
            release, lost, silent, unseen = rows[fmt]
            assert release == loss.release
            assert lost == ("; ".join(loss.lost) if loss.lost else "nothing")
            assert silent == (", ".join(loss.silent) if loss.silent else "none")
            assert unseen == ("; ".join(f"{code}: {fault}" for code, fault in loss.unseen) or "nothing")


def _page_commands() -> list[str]:
    blocks = re.findall(r"```sh\n(.*?)```", DOC.read_text(), re.S)
    return [line.strip() for block in blocks for line in block.splitlines() if line.strip().startswith("tg-trace ")]


def test_the_pages_commands_run(monkeypatch):
    commands = _page_commands()
    assert len(commands) == 6
    monkeypatch.chdir(ROOT)
    for command in commands:
        result = CliRunner().invoke(main, shlex.split(command)[1:])
        assert result.exit_code == 0, (command, result.output[-800:])
        assert "trace" in result.output, command


def test_messages_saved_as_one_json_array_lint_as_their_lines(tmp_path):
    """A client that saved the frames (or envelopes, or core records) it received as one JSON array."""
    for name in ("supervisor.frames.jsonl", "supervisor.envelopes.jsonl", "supervisor.dump.jsonl"):
        messages = [json.loads(line) for line in (FIXTURES / name).read_text().splitlines() if line.strip()]
        path = tmp_path / (name.split(".")[1] + ".json")
        path.write_text(json.dumps(messages, indent=1))
        assert _pairs(tgtrace.lint(path, fail_on="never")) == _pairs(tgtrace.lint(EXAMPLES / "supervisor.json",
                                                                                   fail_on="never")), name


def test_a_bundles_nquads_read_alone_are_judged_as_the_bundle(tmp_path):
    """triples.nq taken out of a .tgx (every quad in urn:trustgraph:collection:<c>, the quoted edges
    dropped) gets no false S010/S019: the same findings and notice as the bundle it came from."""
    for bundle in sorted(FIXTURES.glob("*.tgx")):
        with tarfile.open(bundle, "r:gz") as archive:
            member = next(m for m in archive.getmembers() if m.name.endswith("triples.nq"))
            extracted = tmp_path / f"{bundle.stem}.nq"
            extracted.write_bytes(archive.extractfile(member).read())
        alone, whole = tgtrace.lint(extracted), tgtrace.lint(bundle)
        assert _pairs(alone) - {("I001", str(extracted))} == _pairs(whole) - {("I001", str(bundle))}, bundle.name
        assert [f.rule for f in alone.findings].count("I001") == 1
        assert not {f.rule for f in alone.findings} & {"S010", "S019"}


def test_an_extended_header_bomb_is_refused_before_it_is_read(tmp_path):
    """A 511 KiB bundle whose PAX header declares 512 MiB: tarfile would read that header whole
    before any member; the declared size is checked first."""
    import gzip
    import tarfile
    import tracemalloc

    for kind in (tarfile.XHDTYPE, tarfile.GNUTYPE_LONGNAME):
        info = tarfile.TarInfo("././@PaxHeader")
        header = info._create_header({**info.get_info(), "size": 512 << 20, "type": kind},
                                     tarfile.USTAR_FORMAT, "utf-8", "surrogateescape")
        bundle = tmp_path / "bomb.tgx"
        with gzip.open(bundle, "wb") as out:
            out.write(header)
            for _ in range(512):
                out.write(bytes(1 << 20))
        assert bundle.stat().st_size < 600_000
        tracemalloc.start()
        try:
            with pytest.raises(InputError, match="declares an extended tar header of 536,870,912 bytes"):
                tgtrace.lint(bundle)
            assert tracemalloc.get_traced_memory()[1] < 64 << 20
        finally:
            tracemalloc.stop()
        result = subprocess.run([sys.executable, "-m", "tgtrace.cli", "lint", str(bundle)], capture_output=True,
                                text=True, timeout=120)
        assert result.returncode == 2 and len(result.stderr.splitlines()) == 1, result.stderr


def test_a_core_cut_anywhere_in_a_record_is_refused_naming_it(tmp_path):
    import msgpack

    data = (FIXTURES / "graph-rag.msgpack").read_bytes()
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    ends = []
    for _ in unpacker:
        ends.append(unpacker.tell())
    start, end = ends[-2], ends[-1]
    core = tmp_path / "cut.msgpack"
    for cut in range(start + 1, end):
        core.write_bytes(data[:cut])
        with pytest.raises(InputError, match=f"record {len(ends)} ends before its last byte"):
            tgtrace.lint(core)
    core.write_bytes(data)
    assert tgtrace.lint(core).traces
