"""The docs site documents exactly what exists: every term and rule has its page,
and no page names a term or rule that is gone.

The inventory is read here straight from the ontology and the rule registry,
not from the page generator, and checked against the built HTML.
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
import rdflib
import rdflib.compare
from docs_support import ROOT, built_site, read_pages, resolve
from rdflib import OWL, RDF, RDFS
from tgtrace import rules
from tgtrace.ground import resources
from tgtrace.ground.namespaces import TG
from tgtrace.rules import bundle

# Slow: builds the docs site (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

PATTERN_PAGES = (
    "graphrag",
    "document-rag",
    "react",
    "plan-then-execute",
    "supervisor",
    "sub-traces",
    "extraction-provenance",
)
# A CURIE in the tg: namespace as it appears in page text.
TG_CURIE = re.compile(r"(?<![\w/#.-])tg:([A-Za-z_][A-Za-z0-9_-]*)")


def _local(iri) -> str:
    return str(iri)[len(TG):]


def _declared(kind) -> set[str]:
    graph = resources.ontology_graph()
    return {_local(s) for s in graph.subjects(RDF.type, kind) if isinstance(s, rdflib.URIRef) and str(s).startswith(TG)}


@pytest.fixture(scope="module")
def site():
    return built_site()


@pytest.fixture(scope="module")
def pages(site):
    return read_pages(site)


@pytest.fixture(scope="module")
def inventory() -> dict[str, set[str]]:
    classes = _declared(OWL.Class) | _declared(RDFS.Class)
    predicates = _declared(OWL.ObjectProperty) | _declared(OWL.DatatypeProperty) | _declared(OWL.AnnotationProperty)
    datatypes = _declared(RDFS.Datatype)
    graph = resources.ontology_graph()
    individuals = {
        _local(s)
        for cls in classes
        for s in graph.subjects(RDF.type, rdflib.URIRef(TG + cls))
        if isinstance(s, rdflib.URIRef) and str(s).startswith(TG)
    }
    assert classes and predicates, "the ontology declares no tg: class or predicate"
    return {"classes": classes, "predicates": predicates, "datatypes": datatypes, "individuals": individuals}


def _text(page) -> str:
    return " ".join(page.text)


def test_every_class_has_its_page(pages, inventory):
    missing = []
    for name in sorted(inventory["classes"]):
        page = pages.get(f"classes/{name}.html")
        if page is None or f"tg:{name}" not in _text(page):
            missing.append(name)
    assert not missing, f"classes without a page: {missing}"


def test_every_predicate_and_datatype_has_its_entry(pages, inventory):
    page = pages["predicates.html"]
    missing = sorted(n for n in inventory["predicates"] | inventory["datatypes"] if n not in page.ids)
    assert not missing, f"predicates or datatypes without an entry on predicates.html: {missing}"


def test_every_named_value_has_its_entry(pages, inventory):
    graph = resources.ontology_graph()
    missing = []
    for name in sorted(inventory["individuals"]):
        owners = [_local(c) for c in graph.objects(rdflib.URIRef(TG + name), RDF.type) if str(c).startswith(TG)]
        if not any(name in pages.get(f"classes/{owner}.html", _Empty).ids for owner in owners):
            missing.append(name)
    assert not missing, f"named values without an entry on their class page: {missing}"


class _Empty:
    ids: set = set()


def test_every_rule_has_its_page_and_a_row_in_the_index(pages):
    linked = _linked("rules/index.html", pages["rules/index.html"])
    all_rules = rules.all_rules()
    assert all_rules, "the shapes define no rule"
    missing, unnamed, unlinked = [], [], []
    for code, rule in all_rules.items():
        page = pages.get(f"rules/{code}/index.html")
        if page is None:
            missing.append(code)
            continue
        text = _text(page)
        if rule.name not in text or code not in text:
            unnamed.append(code)
        if f"rules/{code}/index.html" not in linked:
            unlinked.append(code)
    assert not missing, f"rules without a page: {missing}"
    assert not unnamed, f"rule pages that do not give the rule's code and name: {unnamed}"
    assert not unlinked, f"rules the index does not link to: {unlinked}"


def test_rule_pages_match_the_linters_help_links(pages):
    """Each finding links to DOCS_BASE + rules/CODE/, a stable address: the rule's page, served
    as rules/CODE/index.html."""
    for rule in rules.all_rules().values():
        assert rule.help_uri == f"{rules.DOCS_BASE}rules/{rule.code}/"
        page = rule.help_uri[len(rules.DOCS_BASE):] + "index.html"
        assert page in pages, f"{rule.code}: {rule.help_uri} names a page the site does not have"


def test_every_pattern_has_its_page(pages):
    for slug in PATTERN_PAGES:
        page = pages.get(f"patterns/{slug}.html")
        assert page is not None, f"no page for the {slug} pattern"
        text = _text(page)
        assert "examples/" in text, f"the {slug} page shows no example trace"


def test_no_page_names_a_term_that_does_not_exist(pages, inventory):
    known = set().union(*inventory.values())
    # A rule's page shows the misspelt term its failing example writes (tg:Conclusoin), and the
    # linter's finding naming it.
    misspelt = {code: set(re.findall(r"tg:(\w+)", rule.fault.update)) - known
                for code, rule in rules.all_rules().items() if rule.fault is not None}
    unknown = defaultdict(set)
    for name, page in pages.items():
        shown = misspelt.get(name.split("/")[1], set()) if name.startswith("rules/") else set()
        for match in TG_CURIE.finditer(_text(page)):
            if match.group(1) not in known | shown:
                unknown[match.group(1)].add(name)
        for url in page.links:
            found = re.search(r"(?:^|/)classes/([^/#]+)\.html", url)
            if found and found.group(1) not in inventory["classes"] and found.group(1) != "index":
                unknown[found.group(1)].add(name)
    report = {term: sorted(where)[:5] for term, where in sorted(unknown.items())}
    assert not unknown, f"pages name tg: terms the ontology does not declare: {report}"


def test_no_page_names_a_rule_that_does_not_exist(pages):
    codes = set(rules.all_rules())
    letters = "".join(sorted({family[0].upper() for family in rules.families()}))
    code_pattern = re.compile(rf"\b[{letters}]\d{{3}}\b")
    unknown = defaultdict(set)
    for name, page in pages.items():
        for code in code_pattern.findall(_text(page)):
            if code not in codes:
                unknown[code].add(name)
        for url in page.links:
            found = re.search(r"rules/(?:index\.html)?#([a-z]\d{3})$", url)
            if found and found.group(1).upper() not in codes:
                unknown[found.group(1).upper()].add(name)
    report = {code: sorted(where)[:5] for code, where in sorted(unknown.items())}
    assert not unknown, f"pages name rule codes that do not exist: {report}"


def test_downloads_hold_the_ontology_and_the_shapes(site):
    downloads = site / "downloads"
    reference = resources.ontology_graph()
    for name, fmt in (("trustgraph.ttl", "turtle"), ("trustgraph.nt", "nt"), ("trustgraph.rdf", "xml"), ("trustgraph.jsonld", "json-ld")):
        graph = rdflib.Graph().parse(downloads / name, format=fmt)
        assert rdflib.compare.isomorphic(graph, reference), f"downloads/{name} is not the ontology"
    shapes = sorted(p.name for p in (downloads / "shapes").glob("*.ttl"))
    assert shapes == sorted(p.name for p in resources.shapes_paths())
    for path in resources.shapes_paths():
        assert (downloads / "shapes" / path.name).read_bytes() == path.read_bytes()
        # A module names itself and its imports relative to its own place: read both from one.
        base = "https://example.org/shapes/" + path.name
        graph = rdflib.Graph().parse(downloads / "shapes" / path.name, format="turtle", publicID=base)
        assert rdflib.compare.isomorphic(graph, rdflib.Graph().parse(path, format="turtle", publicID=base)), path.name
    assert (downloads / bundle.BUNDLE_NAME).read_bytes() == bundle.bundle_turtle()
    assert (downloads / bundle.EXPANDED_NAME).read_bytes() == bundle.expanded_turtle()


ONTOLOGY_DOWNLOADS = {f"downloads/trustgraph.{suffix}" for suffix in ("ttl", "jsonld", "rdf", "nt")}


def _linked(name, page) -> set[str]:
    return {resolve(name, url)[0] for url in page.links if not url.startswith(("http:", "https:", "#"))}


def test_class_pages_link_the_ontology_downloads(pages):
    class_pages = [name for name in pages if name.startswith("classes/") and name != "classes/index.html"]
    assert class_pages
    missing = {name: sorted(ONTOLOGY_DOWNLOADS - _linked(name, pages[name])) for name in class_pages}
    assert not any(missing.values()), {k: v for k, v in missing.items() if v}


def test_rule_reference_links_the_shapes_and_the_ontology(pages, site):
    shapes = {f"downloads/shapes/{path.name}" for path in resources.shapes_paths()}
    linked = _linked("rules/index.html", pages["rules/index.html"])
    assert ONTOLOGY_DOWNLOADS | shapes <= linked
    assert all((site / target).is_file() for target in ONTOLOGY_DOWNLOADS | shapes)


def test_cli_reference_is_the_commands_own_help(pages):
    from click.testing import CliRunner
    from tgtrace.cli import main

    text = _text(pages["cli.html"])
    for name, command in sorted(main.commands.items()):
        if command.hidden:
            continue
        result = CliRunner().invoke(main, [name, "--help"], terminal_width=88)
        assert result.exit_code == 0
        # Every option the command declares is on the page.
        for option in command.params:
            for flag in getattr(option, "opts", []):
                if flag.startswith("--"):
                    assert flag in text, f"cli.html does not show {name} {flag}"
        assert f"tg-trace {name}" in text


def test_generated_pages_are_not_committed():
    generated = ["classes", "rules", "predicates.md", "namespaces.md", "cli.md", "patterns/index.md"]
    present = [g for g in generated if (ROOT / "docs" / g).exists()]
    assert not present, f"generated pages must not be kept under docs/: {present}"


def test_trace_models_page_shows_every_model_and_release(site, pages):
    """"Trace models by release": each generation the linter names, each example release with the
    trace model the linter infers for it, and each compared pattern drawn in every model that has it."""
    from tgtrace.tracemodel.generations import GENERATIONS

    page = pages.get("releases.html")
    assert page is not None, "no Trace models by release page"
    text = _text(page)
    for generation in GENERATIONS:
        assert f"TrustGraph {generation.releases}" in text, generation.releases
    folders = sorted(p.name for p in (ROOT / "examples" / "releases").iterdir() if p.is_dir())
    assert folders
    for folder in folders:
        assert f"examples/releases/{folder}/" in text or f" {folder} " in f" {text} ", folder
    html = (site / "releases.html").read_text(encoding="utf-8")
    graph_rag = html[html.index('id="graphrag"'):html.index('id="document-rag"')]
    # One drawing per trace model: every release line writes GraphRAG.
    assert graph_rag.count("<svg") == len(GENERATIONS)
    # Older traces link steps by prov:wasGeneratedBy; the drawings show it.
    assert "prov:wasGeneratedBy" in graph_rag


def test_the_docs_list_every_registered_output_format(pages):
    from tgtrace.formats import FORMATS

    ci, linting = (" ".join(_text(pages[name]).split()) for name in ("ci.html", "linting.html"))
    for name, registered in FORMATS.items():
        assert f"{name} {registered.help}" in ci, f"ci.html's table of formats leaves out {name}"
    listed = re.search(r"--format is one of (.*?) \(", linting)
    assert listed and re.findall(r"[\w-]+", listed.group(1).replace(" and ", " ")) == list(FORMATS)
