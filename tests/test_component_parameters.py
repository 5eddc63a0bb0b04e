"""A malformed component parameter is refused when the shapes are read, never a rule silently off.

For every parameter of every component the packaged engine is given (``rules.components.PACKAGED``:
SHACL Core's and TrustGraph's), a contributor's copy of the shapes gets one constraint whose value
for that parameter is malformed (``sh:minCount "two"``, a ``sh:pattern`` that is no regular
expression, a boolean switch written ``"yes"``), the component's other parameters well-formed.
``tg-trace check`` reports it as K034 on the file and line of the value, and ``tg-trace lint``
refuses the shapes with that one line (exit 2): the reader's error and check's finding for every
parameter, the command for two here and for every parameter with the slow tests (a process each).
A component added to a table without a malformed value here fails the coverage test.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import rdflib
from conftest import ROOT
from tgtrace.ground.namespaces import SH, TGL
from tgtrace.ground.resources import read_turtle, shapes_paths
from tgtrace.rules import selfcheck
from tgtrace.rules.components import PACKAGED
from tgtrace.shacl.shapes import PARAMETER_KINDS, ParameterError, ShapesModel

XSD = "http://www.w3.org/2001/XMLSchema#"
SHAPE = "[ sh:path tg:query ]"
# A well-formed value of each SHACL Core parameter, as Turtle, for a component's other parameters.
GOOD = {
    "class": "tg:Question", "datatype": f"<{XSD}string>", "nodeKind": "sh:IRI", "minCount": "1", "maxCount": "1",
    "minLength": "1", "maxLength": "9", "qualifiedMinCount": "1", "qualifiedMaxCount": "2",
    "minExclusive": "1", "minInclusive": "1", "maxExclusive": "9", "maxInclusive": "9",
    "pattern": '"^a"', "flags": '"i"', "languageIn": '( "en" )', "uniqueLang": "true",
    "equals": "tg:query", "disjoint": "tg:query", "lessThan": "tg:query", "lessThanOrEquals": "tg:query",
    "not": SHAPE, "and": f"( {SHAPE} )", "or": f"( {SHAPE} )", "xone": f"( {SHAPE} )", "node": SHAPE,
    "property": SHAPE, "qualifiedValueShape": SHAPE, "qualifiedValueShapesDisjoint": "false",
    "closed": "true", "ignoredProperties": "( rdf:type )", "hasValue": "tg:Question", "in": "( 1 2 )",
    "path": "tg:query",
}
# A malformed value of each, as Turtle: what its component cannot read. sh:hasValue takes any term.
MALFORMED = {
    "class": '"tg:Question"', "datatype": '"xsd:string"', "nodeKind": "sh:Anything", "minCount": '"two"',
    "maxCount": "-1", "minLength": "1.5", "maxLength": '"9"', "qualifiedMinCount": '"one"',
    "qualifiedMaxCount": "-2", "minExclusive": "tg:Question", "minInclusive": "[ ]", "maxExclusive": "tg:query",
    "maxInclusive": "[ ]", "pattern": '"(unclosed"', "flags": '"g"', "languageIn": '( tg:Question )',
    "uniqueLang": '"yes"', "equals": '"tg:query"', "disjoint": "[ ]", "lessThan": "1", "lessThanOrEquals": '"x"',
    "not": '"a shape"', "and": SHAPE, "or": '( "a shape" )', "xone": "tg:Question", "node": "1",
    "property": "tgsh:no-such-property-shape", "qualifiedValueShape": '"x"',
    "qualifiedValueShapesDisjoint": '"no"', "closed": '"true"', "ignoredProperties": '( "rdf:type" )',
    "in": '"1 2"', "path": '"tg:query"',
}
# The project's own parameters, by their declaration's sh:datatype or sh:nodeKind: (good, malformed).
DECLARED = {XSD + "boolean": ("true", '"yes"'), XSD + "integer": ("3", '"three"'),
            XSD + "string": ('"x"', "tg:Question"),
            SH + "IRI": ("<urn:graph:retrieval>", '"urn:graph:retrieval"')}
MARK = "# the malformed value"


def _declared() -> dict[str, str]:
    """Each declared parameter of the packaged shapes -> its sh:datatype or sh:nodeKind."""
    graph = read_turtle(shapes_paths())
    found = {}
    for parameter in graph.objects(None, rdflib.URIRef(SH + "parameter")):
        kind = graph.value(parameter, rdflib.URIRef(SH + "datatype")) or \
            graph.value(parameter, rdflib.URIRef(SH + "nodeKind"))
        found[str(graph.value(parameter, rdflib.URIRef(SH + "path")))] = str(kind) if kind is not None else ""
    return found


DECLARATIONS = _declared()


def _turtle(parameter: str, malformed: bool) -> str:
    if parameter.startswith(SH):
        local = parameter.removeprefix(SH)
        return MALFORMED[local] if malformed else GOOD[local]
    good, bad = DECLARED[DECLARATIONS[parameter]]
    return bad if malformed else good


def _name(parameter: str) -> str:
    return "sh:" + parameter.removeprefix(SH) if parameter.startswith(SH) else "tgl:" + parameter.removeprefix(TGL)


# (component, parameter) for every parameter of every component the packaged engine runs, and
# sh:property (the engine's own) and sh:path.
CASES = sorted({(iri, parameter) for iri, native in PACKAGED.constraints.items() for parameter in native.parameters}
               | {(SH + "PropertyConstraintComponent", SH + "property"), ("", SH + "path")})


def _copy_with(tmp_path: Path, component: str, parameter: str) -> tuple[Path, Path, int]:
    """A copy of the shapes whose agent.ttl ends with one constraint malformed in ``parameter``."""
    folder = tmp_path / "shapes"
    shutil.copytree(ROOT / "shapes", folder)
    native = PACKAGED.constraints.get(component)
    others = [p for p in (native.parameters if native else ()) if p != parameter]
    lines = ["", "tgsh:malformed-parameter a sh:NodeShape ;", "    sh:targetClass tg:Question ;",
             "    sh:property ["]
    if parameter != SH + "path":
        lines.append("        sh:path tg:query ;")
    lines += [f"        {_name(p)} {_turtle(p, False)} ;" for p in others]
    lines.append(f"        {_name(parameter)} {_turtle(parameter, True)} {MARK}")
    lines.append("    ] .")
    path = folder / "agent.ttl"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "\n".join(lines) + "\n", encoding="utf-8")
    line = next(n for n, ln in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if MARK in ln)
    return folder, path, line


def _run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    environment = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    environment.update(env)
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], capture_output=True, text=True,
                          env=environment, timeout=300)


def test_every_parameter_has_a_malformed_value():
    # A component added to a table (or a parameter declared) without a case here fails.
    assert CASES
    missing = [p for _, p in CASES if p.startswith(SH) and (p.removeprefix(SH) not in GOOD or
                                                           p.removeprefix(SH) not in MALFORMED and p != SH + "hasValue")]
    missing += [p for _, p in CASES if not p.startswith(SH) and DECLARATIONS.get(p) not in DECLARED]
    assert not missing, f"parameters with no malformed value here: {missing}"
    # What the reader checks of SHACL Core is what the tables' components read, and no more.
    core = {p.removeprefix(SH) for _, p in CASES if p.startswith(SH)} - {"path"}
    assert core == set(PARAMETER_KINDS), core ^ set(PARAMETER_KINDS)


MALFORMABLE = [c for c in CASES if c[1] != SH + "hasValue"]
IDS = [_name(p) for _, p in MALFORMABLE]


@pytest.mark.slow  # `tg-trace check` on a copy of the shapes for each parameter
@pytest.mark.parametrize(("component", "parameter"), MALFORMABLE, ids=IDS)
def test_a_malformed_parameter_is_a_check_finding_on_its_line(tmp_path, component, parameter):
    folder, path, line = _copy_with(tmp_path, component, parameter)
    files = sorted(folder.glob("*.ttl"))
    # The same copy, well-formed, reads: the value alone is at fault.
    good = path.read_text(encoding="utf-8").replace(f"{_turtle(parameter, True)} {MARK}",
                                                    f"{_turtle(parameter, False)} {MARK}")
    (tmp_path / "good.ttl").write_text(good, encoding="utf-8")
    ShapesModel(read_turtle([*(f for f in files if f != path), tmp_path / "good.ttl"]))

    with pytest.raises(ParameterError) as raised:
        ShapesModel(read_turtle(files), files)
    assert (raised.value.file, raised.value.line) == (str(path), line), raised.value
    assert _name(parameter) in raised.value.what
    # What lint prints: the one line.
    assert raised.value.one_line() == f"{path}:{line}: {raised.value.what}"

    found = selfcheck.findings(selfcheck.problems(shapes=files, reasoner=False), shapes=files)
    assert [(f.rule, f.file, f.line) for f in found] == [("K034", str(path), line)], found


def _lint_refuses(tmp_path: Path, component: str, parameter: str) -> None:
    folder, path, line = _copy_with(tmp_path, component, parameter)
    files = sorted(folder.glob("*.ttl"))
    with pytest.raises(ParameterError) as raised:
        ShapesModel(read_turtle(files), files)
    lint = _run("lint", str(ROOT / "examples" / "graph-rag.nq"), env={"TG_TRACE_SHAPES": str(folder)})
    assert lint.returncode == 2, lint.stdout + lint.stderr
    assert lint.stderr.splitlines() == [f"tg-trace: {path}:{line}: {raised.value.what}"]


def test_lint_refuses_a_malformed_parameter_with_one_line(tmp_path):
    _lint_refuses(tmp_path, SH + "MinCountConstraintComponent", SH + "minCount")
    _lint_refuses(tmp_path / "declared", TGL + "JSONTextConstraintComponent", TGL + "jsonText")


# The command itself for every parameter: a process each, so with the slow tests.
@pytest.mark.slow
@pytest.mark.parametrize(("component", "parameter"), MALFORMABLE, ids=IDS)
def test_lint_refuses_every_malformed_parameter(tmp_path, component, parameter):
    _lint_refuses(tmp_path, component, parameter)


def test_has_value_takes_any_term(tmp_path):
    # sh:hasValue's value is any term: an IRI, a literal, a blank node.
    for value in ("tg:Question", '"two"', "[ ]"):
        text = f"""@prefix sh: <{SH}> . @prefix tg: <https://trustgraph.ai/ns/> .
            <urn:s> a sh:NodeShape ; sh:targetClass tg:Question ; sh:property [ sh:path tg:query ; sh:hasValue {value} ] ."""
        ShapesModel(rdflib.Graph().parse(data=text, format="turtle"))


def test_check_names_the_malformed_parameter_in_every_format(tmp_path):
    folder, path, line = _copy_with(tmp_path, SH + "MinCountConstraintComponent", SH + "minCount")
    check = _run("check", "--no-reasoner", env={"TG_TRACE_SHAPES": str(folder)})
    assert check.returncode == 1, check.stderr
    assert check.stdout.startswith(f"{path}:{line}: K034 error a blank node shape in tgsh:malformed-parameter"), check.stdout
    assert 'sh:minCount "two" is not a non-negative xsd:integer' in check.stdout
