"""The vocabulary is written once: each concept below is defined in one module and read everywhere
else (the package and the docs generator), so that two faces never name a thing two ways.

Each check reads the code's syntax (``ast``): a definition is a function of that name, a module-level
assignment of that name, or a literal of that shape; it may stand in its home module alone.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "validators" / "tgtrace"
SOURCES = sorted([*PACKAGE.rglob("*.py"), *(ROOT / "docs" / "gen").rglob("*.py")])
NAMESPACE_NAMES = {"TG", "PROV", "RDF", "RDFS", "XSD", "OWL", "SH", "SKOS", "DCTERMS", "DC", "TGSH", "TGL"}

# concept -> its home module (relative to the repository root)
HOMES = {
    "the IRI shorteners (CURIEs, short IRIs, local names, a name within a session)": "validators/tgtrace/tracemodel/naming.py",
    "the prefix table": "validators/tgtrace/tracemodel/naming.py",
    "the UUID pattern": "validators/tgtrace/tracemodel/naming.py",
    "rdf:type": "validators/tgtrace/ground/namespaces.py",
    "the pattern names and their titles": "validators/tgtrace/tracemodel/traces.py",
    "the bounds of pull, lint -C and watch": "validators/tgtrace/ground/limits.py",
}
_SHORTENERS = {"short_iri", "curie", "shorten", "local_name", "within_session", "iri_tail", "short", "_short",
               "compact_iri", "shorten_iri"}
_UUID_TEXT = re.compile(r"\[0-9a-f(?:A-F)?\]\{8\}-", re.I)
_PATTERN_NAMES = {"graphrag", "docrag", "react", "plan-then-execute", "supervisor"}


def _names_patterns(texts: set) -> bool:
    # The trace model's spellings (an example's file is graph-rag or document-rag: another name).
    return len(texts & _PATTERN_NAMES) >= 3 and bool(texts & {"graphrag", "docrag"})


def _found(sources: list[Path] = SOURCES, root: Path = ROOT) -> dict[str, set[str]]:
    """concept -> the modules that define it."""
    found: dict[str, set[str]] = {concept: set() for concept in HOMES}
    for path in sources:
        name, tree = path.relative_to(root).as_posix(), ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):  # noqa: PLR1702  (one walk, every kind of definition)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in _SHORTENERS:
                found["the IRI shorteners (CURIEs, short IRIs, local names, a name within a session)"].add(name)
            elif isinstance(node, ast.Dict):
                # A table of prefixes: two namespaces or more as its values.
                if sum(isinstance(v, ast.Name) and v.id in NAMESPACE_NAMES for v in node.values) >= 2:
                    found["the prefix table"].add(name)
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
                if _names_patterns(keys):
                    found["the pattern names and their titles"].add(name)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                if _UUID_TEXT.search(node.value):
                    found["the UUID pattern"].add(name)
                if node.value.endswith("22-rdf-syntax-ns#type"):
                    found["rdf:type"].add(name)
            elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and isinstance(node.left, ast.Name) \
                    and node.left.id == "RDF" and isinstance(node.right, ast.Constant) and node.right.value == "type":
                found["rdf:type"].add(name)
            elif isinstance(node, ast.Tuple) and _names_patterns(
                    {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}):
                found["the pattern names and their titles"].add(name)
            elif isinstance(node, ast.keyword) and node.arg == "default" and isinstance(node.value, ast.Constant) \
                    and isinstance(node.value.value, (int, float)) and not isinstance(node.value.value, bool) \
                    and node.value.value in _BOUND_DEFAULTS:
                found["the bounds of pull, lint -C and watch"].add(name)
    return found


def _bound_defaults() -> set:
    from tgtrace.ground import limits

    return set(limits.BOUNDS.values())


_BOUND_DEFAULTS = _bound_defaults()


@pytest.mark.parametrize("concept", sorted(HOMES))
def test_each_concept_is_defined_in_its_home_module_alone(concept):
    where = _found()[concept] - {HOMES[concept]}
    assert not where, f"{concept} is defined in {sorted(where)}; read it from {HOMES[concept]}"


def test_each_home_defines_its_concept():
    found = _found()
    for concept, home in HOMES.items():
        if concept != "the bounds of pull, lint -C and watch":  # limits.py states its defaults plainly
            assert home in found[concept], (concept, home)


@pytest.mark.parametrize("text, concept", [
    ("def short_iri(iri):\n    return iri\n", "the IRI shorteners (CURIEs, short IRIs, local names, a name within a session)"),
    ("P = {'tg': TG, 'prov': PROV}\n", "the prefix table"),
    ("U = r'[0-9a-f]{8}-[0-9a-f]{4}'\n", "the UUID pattern"),
    ("T = RDF + 'type'\n", "rdf:type"),
    ("N = ('graphrag', 'docrag', 'react')\n", "the pattern names and their titles"),
])
def test_the_check_catches_a_second_definition(tmp_path, text, concept):
    extra = tmp_path / "extra.py"
    extra.write_text(text)
    assert _found([extra], tmp_path)[concept] == {"extra.py"}
