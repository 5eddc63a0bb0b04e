"""One build of the site: the generated pages, the downloads, and the directives hand-written pages use.

Every fact on these pages is read from the package (``tgtrace``): the ontology
and shapes it loads, its rule registry, its rule explanations and its CLI, and
from the example traces the tests lint. Nothing here restates a term, a rule
or a pattern by hand. Each kind of page is a module of ``sitegen.pages``.
"""

from __future__ import annotations

import re
from pathlib import Path

from .context import Context, SiteError
from .pages import (
    changes,
    classes,
    cli,
    components,
    explore,
    namespaces,
    patterns,
    predicates,
    releases,
    rules,
    trace_changes,
)

_DIRECTIVE = re.compile(r"<!--\s*tgdocs:([a-z-]+)((?:\s+[^\s>]+)*)\s*-->")
DIRECTIVES = {**classes.DIRECTIVES, **patterns.DIRECTIVES, **rules.DIRECTIVES, **explore.DIRECTIVES,
              **cli.DIRECTIVES, **trace_changes.DIRECTIVES}


class Site:
    """Everything generated for one build."""

    def __init__(self, root: Path):
        self.context = Context(root)
        self._downloads: dict[str, bytes] | None = None

    @property
    def diagrams(self) -> dict[str, str]:
        """The SVG of each diagram drawn so far, by the key its placeholder names."""
        return self.context.diagrams

    def class_pages(self) -> list[str]:
        return classes.page_list(self.context)

    def rule_pages(self) -> list[str]:
        return rules.page_list()

    def check(self) -> None:
        """Stop the build when a page could not say what it must."""
        problems = rules.check(self.context)
        if not self.context.traces:
            problems.append(f"no example traces (*.nq) under {self.context.examples_dir}")
        problems += patterns.check(self.context)
        problems += releases.check(self.context)
        problems += trace_changes.check(self.context)
        if problems:
            raise SiteError("; ".join(problems))

    def pages(self, lint=None, render=None, cli_main=None) -> dict[str, str]:
        """Every generated page by its path under docs/; ``lint``, ``render`` and ``cli_main`` are the linter's."""
        context = self.context
        pages = {
            **classes.pages(context),
            **predicates.pages(context),
            **namespaces.pages(context, self.downloads()),
            **patterns.pages(context),
            **rules.pages(context, lint, render),
            **components.pages(context),
            **releases.pages(context),
            **trace_changes.pages(context),
            **changes.pages(context),
            **explore.pages(context),
        }
        if cli_main is not None:
            pages.update(cli.pages(context, cli_main))
        return pages

    def downloads(self) -> dict[str, bytes]:
        if self._downloads is None:
            self._downloads = namespaces.downloads()
        return self._downloads

    def expand(self, markdown: str, src: str) -> str:
        """Fill in each ``<!-- tgdocs:NAME ARGS -->`` of a hand-written page."""

        def replace(match):
            name, args = match.group(1), match.group(2).split()
            directive = DIRECTIVES.get(name)
            if directive is None:
                raise SiteError(f"{src}: unknown directive tgdocs:{name}")
            options = dict(a.split("=", 1) for a in args if "=" in a)
            return directive(self.context, [a for a in args if "=" not in a], options, src)

        return _DIRECTIVE.sub(replace, markdown)
