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
from tgtrace.rules.help import example_trace, fault_example


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


def build_example(rule, examples: Path, lint=None, render=None, fault=None) -> FaultExample:
    """Apply ``fault`` (the rule's example, ``rule.fault``, unless given) and describe the focus
    node before and after, as the rule's help does (``tgtrace.rules.help.fault_example``).

    ``lint`` (``tgtrace.api.lint``) is run on the failing trace when given; the
    example is refused unless it reports ``rule.code`` on the fault's focus.
    """
    fault = fault or rule.fault
    if not example_trace(examples, fault.trace).is_file():
        raise FaultError(f"fault trace {fault.trace!r} has no N-Quads file under examples/")
    try:
        example = fault_example(fault, examples)
    except (SyntaxError, OSError, ValueError) as error:
        raise FaultError(f"{rule.code}: the fault's update does not apply to {fault.trace}: {error}") from None
    report = ""
    if lint is not None:
        report = _lint_failing(rule, list(example.after), lint, render, fault.trace, fault.focus)
    return FaultExample(
        code=rule.code,
        trace=fault.trace,
        update=fault.sparql.strip(),
        focus=fault.focus,
        fixed=example.fixed,
        fixed_marks=list(example.fixed_marks),
        failing=example.failing,
        failing_marks=list(example.failing_marks),
        report=report,
        changed=len(example.removed) + len(example.added),
    )


def _lint_failing(rule, quads, lint, render, trace_name: str, focus: str) -> str:
    with tempfile.TemporaryDirectory(prefix="tgdocs-fault-") as folder:
        broken = Path(folder) / Path(trace_name).with_suffix(".nq").name
        ox.serialize(quads, output=str(broken), format=ox.RdfFormat.N_QUADS)
        try:
            report = lint(str(broken), select=[rule.code])
        except Exception as error:  # the page cannot be written without the linter's verdict
            raise FaultError(f"{rule.code}: the linter failed on the failing example: {error!r}") from error
        hits = [f for f in report.findings if f.rule == rule.code and f.focus == focus]
        if not hits:
            seen = ", ".join(sorted({f"{f.rule} on {f.focus}" for f in report.findings})) or "nothing"
            raise FaultError(
                f"{rule.code}: the failing example does not fire on {focus} (the linter reported {seen})"
            )
        if render is None:
            return "\n".join(str(f) for f in hits)
        report.findings = hits
        text = render(report)
        # The temporary folder means nothing to a reader; show the example's own name.
        return text.replace(str(broken), f"{Path(trace_name).stem}-broken.nq")
