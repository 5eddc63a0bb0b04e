"""The package's layering, written down as data and checked against its import graph.

The floors run from the ground up: a module imports only from its own floor or
below, never upward, and the import graph has no cycle. Every import counts:
at the top of a module, inside a function body, and ``importlib.import_module``
of a module name written as a string. A module the contract does not place
fails, and so does a module it places that no longer exists. CONTRIBUTING.md's
map of the layers names every module on its floor. Beside the floors: the ground
floor names nothing of TrustGraph's namespace, the generic engines import nothing
of TrustGraph, and the docs generator reads the package's public interfaces only.
"""

from __future__ import annotations

import ast
import graphlib
import re
from pathlib import Path

import pytest
from conftest import ROOT

PACKAGE = ROOT / "validators" / "tgtrace"

# The floors, lowest first: each is a subpackage, and a module's floor is the subpackage its path
# lies in. The package root is the top floor and holds only the entry points (FACES).
FLOORS: tuple[str, ...] = ("ground", "tracemodel", "inputs", "shacl", "rules", "run", "views", "cluster",
                           "formats", "")
FACES = ("", "api", "cli", "testing", "pytest_plugin")

# Upward imports the contract allows, each with why.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("formats.sarif", ""): "SARIF names the tool's version, which is written once, as tgtrace.__version__ "
                           "(tests/test_release_engineering.py checks it against pyproject.toml)",
}


def floor_of(module: str) -> str:
    """A module's floor, read from its path: the subpackage it lies in, or the root ('')."""
    head = module.split(".")[0]
    return head if head in FLOORS else ""


def module_files(package: Path) -> dict[str, Path]:
    """Every module of the package by its name relative to the package ('' for the package itself)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def _constants(tree: ast.Module) -> dict[str, str]:
    """The module-level names bound to a string (a module name kept for a lazy import)."""
    return {target.id: node.value.value for node in tree.body if isinstance(node, ast.Assign)
            and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
            for target in node.targets if isinstance(target, ast.Name)}


def _imported(node: ast.AST, constants: dict[str, str]) -> list[tuple[str, list[str]]]:
    """(module, names imported from it) for an import statement or an import_module call."""
    if isinstance(node, ast.Import):
        return [(alias.name, []) for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        return [("." * node.level + (node.module or ""), [alias.name for alias in node.names])]
    if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "import_module"
            and node.args):
        argument = node.args[0]
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            return [(argument.value, [])]
        if isinstance(argument, ast.Name) and argument.id in constants:
            return [(constants[argument.id], [])]
    return []


def _absolute(name: str, module: str, is_package: bool, root: str) -> str | None:
    """A module name relative to the package, or None for a module outside it."""
    if name.startswith("."):
        level = len(name) - len(name.lstrip("."))
        base = module.split(".") if module else []
        if not is_package:
            base = base[:-1]
        base = base[:len(base) - (level - 1)] if level > 1 else base
        rest = name.lstrip(".")
        return ".".join(p for p in (*base, *(rest.split(".") if rest else ())) if p)
    if name == root:
        return ""
    if name.startswith(root + "."):
        return name[len(root) + 1:]
    return None


def import_graph(package: Path) -> dict[str, set[str]]:
    """Each module of the package and the package modules it imports anywhere in its code."""
    files = module_files(package)
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        constants = _constants(tree)
        targets = set()
        for node in ast.walk(tree):
            for name, names in _imported(node, constants):
                target = _absolute(name, module, path.name == "__init__.py", package.name)
                if target is None:
                    continue
                for imported in names or [""]:
                    candidate = f"{target}.{imported}".strip(".") if imported else target
                    # ``from . import cli`` imports a module; ``from .graph import term`` a name of one.
                    while candidate not in files and candidate:
                        candidate = candidate.rpartition(".")[0]
                    if candidate != module:
                        targets.add(candidate)
        graph[module] = targets
    return graph


def violations(graph: dict[str, set[str]], floors: tuple[str, ...], exceptions: dict[tuple[str, str], str],
               faces: tuple[str, ...] = FACES) -> list[str]:
    """What breaks the contract, one line each: a root module that is no entry point, upward
    imports, cycles."""
    level = {name: n for n, name in enumerate(floors)}

    def floor(module: str) -> str:
        head = module.split(".")[0]
        return head if head in level and head else ""

    problems = [f"{m}: a module of the package root, which holds only the entry points {sorted(faces)}"
                for m in sorted(graph) if floor(m) == "" and m not in faces]
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            if level[floor(target)] > level[floor(module)] and (module, target) not in exceptions:
                problems.append(f"{module or '__init__'} ({floor(module) or 'root'}) imports "
                                f"{target or '__init__'} ({floor(target) or 'root'}), a floor above it")
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        # graphlib lists a cycle from each imported module to the one importing it.
        problems.append("import cycle: " + " -> ".join(m or "__init__" for m in reversed(error.args[1])))
    problems += [f"exception {a} -> {b}: no such import" for a, b in exceptions if b not in graph.get(a, ())]
    return problems


def test_the_package_keeps_its_import_contract():
    problems = violations(import_graph(PACKAGE), FLOORS, EXCEPTIONS)
    assert not problems, "\n".join(problems)


def _package(tmp_path: Path, modules: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for name, text in {"": "", **modules}.items():
        path = root.joinpath(*name.split(".")).with_suffix(".py") if name else root / "__init__.py"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize("modules, expected", [
    ({"low.a": "def f():\n    from ..high import b\n", "high.b": ""}, "low.a (low) imports high.b (high), a floor above it"),
    ({"low.a": "import importlib\nNAME = 'pkg.high.b'\nimportlib.import_module(NAME)\n", "high.b": ""},
     "low.a (low) imports high.b (high), a floor above it"),
    ({"low.a": "from .other import x\n", "low.other": "def g():\n    from .a import y\n"}, "import cycle: "),
    ({"low.a": "", "stray": ""}, "stray: a module of the package root"),
    ({"low.a": "from ..face import z\n", "face": ""}, "low.a (low) imports face (root), a floor above it"),
])
def test_the_contract_catches_what_breaks_it(tmp_path, modules, expected):
    floors = ("low", "high", "")
    problems = violations(import_graph(_package(tmp_path, {"low": "", "high": "", **modules})), floors, {},
                          faces=("", "face"))
    assert any(p.startswith(expected) for p in problems), problems


# The SHACL floor (the shapes reader, the default engine, its components and their registry, XSD's
# lexical forms, paths, SHACL-SPARQL, the pySHACL reference) knows graphs and shapes, not TrustGraph:
# TrustGraph's semantics reach it as components registered from rules/components.py, and the
# packaged rules and the ontology's declarations as arguments from their caller (run.lint.packaged_engine).


def test_the_shacl_floor_imports_nothing_of_trustgraph():
    files = module_files(PACKAGE)
    graph = import_graph(PACKAGE)
    found = [f"{module} imports {target}" for module in files if floor_of(module) == "shacl"
             for target in graph[module] if floor_of(target) == "tracemodel"]
    assert not found, "\n".join(found)


# The ground floor knows graphs: a term of TrustGraph's namespace (a class such as tg:Question, a link
# such as tg:thought) is TrustGraph's trace model, which reaches the trace graph as data from above.
TG_NAMESPACE = "https://trustgraph.ai/ns/"


def trustgraph_terms(path: Path) -> list[str]:
    """Where a module names TrustGraph's namespace: imports it by name or writes an IRI in it."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and any(alias.name == "TG" for alias in node.names):
            found.append(f"{path.name}:{node.lineno}: imports TG")
        elif isinstance(node, ast.Attribute) and node.attr == "TG":
            found.append(f"{path.name}:{node.lineno}: reads TG")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and TG_NAMESPACE in node.value:
            found.append(f"{path.name}:{node.lineno}: writes {node.value!r}")
    return found


def test_the_ground_floor_names_nothing_of_trustgraph():
    files = module_files(PACKAGE)
    # namespaces.py spells every namespace the package uses, TrustGraph's too: it names no term of it.
    found = [line for module, path in files.items() if floor_of(module) == "ground" and module != "ground.namespaces"
             for line in trustgraph_terms(path)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("text", [
    'from .namespaces import PROV, TG\nQUESTION = TG + "Question"\n',
    'QUESTION = "https://trustgraph.ai/ns/Question"\n',
    'from . import namespaces\nQUESTION = namespaces.TG + "Question"\n',
])
def test_the_ground_floor_check_catches_a_trustgraph_class(tmp_path, text):
    module = tmp_path / "graph.py"
    module.write_text(text)
    assert trustgraph_terms(module)


def test_contributing_maps_every_module_on_its_floor():
    text = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    bullets = dict(re.findall(r"^- \*\*(\w+)\*\*(.*?)(?=^- \*\*|^\S|\Z)", text, re.M | re.S))
    names = [floor or "faces" for floor in FLOORS]
    assert list(bullets) == names, "CONTRIBUTING.md's map of the layers names the contract's floors in order"
    files = module_files(PACKAGE)
    for floor, name in zip(FLOORS, names):
        named = set(re.findall(r"`([\w/]+(?:\.py|/))`", bullets[name]))
        placed = {_file_name(m) for m in files if floor_of(m) == floor}
        assert placed == named, f"{name}: CONTRIBUTING.md names {sorted(named - placed)} that are not on the floor, " \
                                f"and leaves out {sorted(placed - named)}"


def _file_name(module: str) -> str:
    path = module_files(PACKAGE)[module].relative_to(PACKAGE)
    return f"{path.parent}/" if path.name == "__init__.py" and module else str(path)


# What the docs generator (docs/gen, run by the mkdocs hooks) may read of the package: these modules,
# and of each only what it defines under a name without a leading underscore (where it declares
# ``__all__``, only the names listed there). Anything else is an internal that may change unseen.
DOCS_PUBLIC = ("", "ground.namespaces", "tracemodel.naming", "ground.resources", "rules.help", "shacl.shapes", "rules",
               "tracemodel.vocabulary", "tracemodel.generations", "tracemodel.traces", "rules.bundle", "inputs.loaders", "api",
               "views.traces", "views.audit", "views.diff", "formats", "formats.diagram", "formats.diff", "formats.listshow",
               "cli", "run.options")
DOCS_GEN = ROOT / "docs" / "gen"


def _docs_imports(tree: ast.Module, root: str) -> list[tuple[int, str, list[str]]]:
    """(line, module, names) of every import of the package: statements, and calls that name a
    module and one of its names as strings (the hooks' optional imports)."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and len(node.args) >= 2 and all(
                isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.args[:2]):
            found.append((node.lineno, node.args[0].value, [node.args[1].value]))
        elif isinstance(node, ast.Import | ast.ImportFrom) and not getattr(node, "level", 0):
            found += [(node.lineno, name, names) for name, names in _imported(node, {})]
    return [(line, name, names) for line, name, names in found if name == root or name.startswith(root + ".")]


def _defined(path: Path) -> set[str]:
    """The names a module offers: its ``__all__`` if it declares one, else what it defines."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, ast.AnnAssign) else []
        for target in targets:
            if isinstance(target, ast.Name) and target.id == "__all__":
                return set(ast.literal_eval(node.value))  # type: ignore[union-attr]
            if isinstance(target, ast.Name):
                names.add(target.id)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
    return names


def private_reads(package: Path, public: tuple[str, ...], sources: list[Path]) -> list[str]:
    """Where the sources read a module outside the public list, or a name its module does not offer."""
    files = module_files(package)
    problems = []
    for source in sources:
        for line, name, names in _docs_imports(ast.parse(source.read_text(encoding="utf-8")), package.name):
            module = _absolute(name, "", True, package.name)
            where = f"{source.name}:{line}: {name}"
            submodules = [n for n in names if f"{module}.{n}".strip(".") in files]
            if module not in public and (not names or len(submodules) < len(names)):
                problems.append(f"{where} is not a public module")
                continue
            for imported in names:
                if imported in submodules:
                    if f"{module}.{imported}".strip(".") not in public:
                        problems.append(f"{where}.{imported} is not a public module")
                elif imported.startswith("_") or imported not in _defined(files[module]):
                    problems.append(f"{where} does not offer {imported}")
    return problems


def test_the_docs_generator_reads_public_interfaces_only():
    problems = private_reads(PACKAGE, DOCS_PUBLIC, sorted(DOCS_GEN.rglob("*.py")))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("text, expected", [
    ("from pkg.inner import NAMES\n", "gen.py:1: pkg.inner is not a public module"),
    ("from pkg.low import _hidden\n", "gen.py:1: pkg.low does not offer _hidden"),
    ("from pkg.low import imported\n", "gen.py:1: pkg.low does not offer imported"),
    ("from pkg.listed import unlisted\n", "gen.py:1: pkg.listed does not offer unlisted"),
    ("from pkg import inner\n", "gen.py:1: pkg.inner is not a public module"),
    ("optional('pkg.low', '_hidden')\n", "gen.py:1: pkg.low does not offer _hidden"),
])
def test_the_docs_check_catches_a_private_read(tmp_path, text, expected):
    package = _package(tmp_path, {"low": "from .inner import imported\ndef offered(): ...\n_hidden = 1\n",
                                  "listed": "__all__ = ['offered']\ndef offered(): ...\ndef unlisted(): ...\n",
                                  "inner": "NAMES = ()\n"})
    source = tmp_path / "gen.py"
    source.write_text(text + "from pkg.low import offered\nfrom pkg.listed import offered\n")
    assert private_reads(package, ("", "low", "listed"), [source]) == [expected]
