"""Each rule's failing example: a real trace, broken by the rule's own SPARQL Update.

The fixed version is the trace as TrustGraph emitted it; the failing version is
the same trace after ``tgl:fault``'s update. The build lints the failing
version and refuses to show an example that the rule does not report.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

import pyoxigraph as ox

from .traces import to_turtle


class FaultError(RuntimeError):
    pass


@dataclass
class FaultExample:
    code: str
    trace: str  # file name under examples/
    update: str
    focus: str
    fixed: str  # Turtle, as emitted
    fixed_marks: list[int]  # lines the update removes from
    failing: str  # Turtle, after the update
    failing_marks: list[int]  # lines the update adds
    report: str  # what the linter printed for the failing trace, this rule only
    changed: int  # how many quads the update changed


def _source(examples: Path, name: str) -> Path:
    """The N-Quads form of an example; a fault may name the trace by any of its files."""
    path = examples / name
    if path.suffix != ".nq":
        path = path.with_suffix(".nq")
    if not path.is_file():
        raise FaultError(f"fault trace {name!r} has no N-Quads file under examples/")
    return path


def build_example(rule, examples: Path, lint=None, render=None) -> FaultExample:
    """Apply ``rule.fault`` and describe the focus node before and after.

    ``lint`` (``tgtrace.api.lint``) is run on the failing trace when given; the
    example is refused unless it reports ``rule.code`` on the fault's focus.
    """
    fault = rule.fault
    source = _source(examples, fault.trace)
    # File order, so the snippets read as the emitter wrote them; the store
    # (which iterates in index order) only applies the update.
    before = list(ox.parse(path=str(source), format=ox.RdfFormat.N_QUADS))
    store = ox.Store()
    store.extend(before)
    # The shapes write the update with $this for the focus and predeclared
    # prefixes; Fault.sparql is the runnable form the tests apply too.
    update = getattr(fault, "sparql", fault.update)
    try:
        store.update(update)
    except (SyntaxError, OSError, ValueError) as error:
        raise FaultError(f"{rule.code}: the fault's update does not apply to {fault.trace}: {error}") from None
    after_set = set(store)
    before_set = set(before)
    removed = [q for q in before if q not in after_set]
    added = sorted((q for q in after_set if q not in before_set), key=str)
    after = [q for q in before if q in after_set] + added
    if not removed and not added:
        raise FaultError(f"{rule.code}: the fault's update changes nothing in {fault.trace}")

    # The focus node and every node the update touched, in the order the emitter wrote them.
    subjects = [ox.NamedNode(fault.focus)] if not fault.focus.startswith("_:") else []
    for quad in removed + added:
        if quad.subject not in subjects:
            subjects.append(quad.subject)
    wanted = set(subjects)

    def describe(quads, marks):
        chosen = [q.triple for q in quads if q.subject in wanted]
        chosen.sort(key=lambda t: subjects.index(t.subject))  # stable: file order within a subject
        return to_turtle(chosen, highlight={(q.subject, q.predicate, q.object) for q in marks})

    fixed, fixed_marks = describe(before, removed)
    failing, failing_marks = describe(after, added)

    report = ""
    if lint is not None:
        report = _lint_failing(rule, after, lint, render, fault.trace)
    return FaultExample(
        code=rule.code,
        trace=fault.trace,
        update=update.strip(),
        focus=fault.focus,
        fixed=fixed,
        fixed_marks=fixed_marks,
        failing=failing,
        failing_marks=failing_marks,
        report=report,
        changed=len(removed) + len(added),
    )


def _lint_failing(rule, quads, lint, render, trace_name: str) -> str:
    with tempfile.TemporaryDirectory(prefix="tgdocs-fault-") as folder:
        broken = Path(folder) / Path(trace_name).with_suffix(".nq").name
        ox.serialize(quads, output=str(broken), format=ox.RdfFormat.N_QUADS)
        try:
            report = lint(str(broken), select=[rule.code])
        except Exception as error:  # the page cannot be written without the linter's verdict
            raise FaultError(f"{rule.code}: the linter failed on the failing example: {error!r}") from error
        hits = [f for f in report.findings if f.rule == rule.code and f.focus == rule.fault.focus]
        if not hits:
            seen = ", ".join(sorted({f"{f.rule} on {f.focus}" for f in report.findings})) or "nothing"
            raise FaultError(
                f"{rule.code}: the failing example does not fire on {rule.fault.focus} (the linter reported {seen})"
            )
        if render is None:
            return "\n".join(str(f) for f in hits)
        report.findings = hits
        text = render(report)
        # The temporary folder means nothing to a reader; show the example's own name.
        return text.replace(str(broken), f"{Path(trace_name).stem}-broken.nq")
