"""mkdocs hooks that generate the reference pages from the package's own files.

Hooks (``hooks:`` in mkdocs.yml) are used rather than the mkdocs-gen-files
plugin: they need no extra package, generated pages enter mkdocs' file list
like any other (so ``--strict`` checks their links and anchors), and the same
hooks can fill in directives in hand-written pages and swap in the diagrams.
Nothing generated is written to docs/: a page cannot go stale in the checkout.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
# mkdocs undoes any change to sys.path made while it imports this file, so the
# packages the hooks use are imported here, once; their submodules are then
# found through the packages themselves.
sys.path.insert(0, str(HERE))
try:
    import tgtrace  # noqa: F401
except ImportError:
    # A plain checkout without `pip install -e .`: build from the source tree.
    sys.path.insert(0, str(ROOT / "validators"))
    import tgtrace  # noqa: F401
import sitegen  # noqa: E402,F401

log = logging.getLogger("mkdocs.plugins.tgdocs")
_state: dict = {}


def _reset_caches() -> None:
    """``mkdocs serve`` rebuilds in one process; re-read the files each time."""
    from tgtrace import rules
    from tgtrace.ground import resources

    for function in (resources.ontology_graph, resources.shapes_graph, rules.all_rules):
        function.cache_clear()


def _optional(module: str, name: str):
    try:
        imported = __import__(module, fromlist=[name])
    except ImportError as error:
        log.warning("%s is not available (%s); the pages that need it are incomplete", module, error)
        return None
    return getattr(imported, name, None)


def on_config(config):
    from sitegen.site import Site, SiteError

    _reset_caches()
    try:
        site = Site(root=ROOT)
        site.check()
    except (SiteError, FileNotFoundError, ValueError) as error:
        raise PluginError(f"docs: {error}") from None
    _state.clear()
    _state["site"] = site
    # The class pages depend on the ontology and the rule pages on the shapes, so the nav lists them here.
    _expand_nav(config["nav"], {"classes/index.md": ("Classes", ["classes/index.md", *site.class_pages()]),
                                "rules/index.md": ("Rules", ["rules/index.md", {"Rule pages": site.rule_pages()}])})
    return config


def _expand_nav(nav, sections) -> None:
    for index, item in enumerate(nav or []):
        if isinstance(item, dict):
            for title, value in item.items():
                if isinstance(value, str) and value in sections:
                    item[title] = sections[value][1]
                elif isinstance(value, list):
                    _expand_nav(value, sections)
        elif isinstance(item, str) and item in sections:
            title, pages = sections[item]
            if isinstance(pages[-1], dict):
                # In a section of its own: the index, then its pages as a subsection.
                nav[index:index + 1] = pages
            else:
                nav[index] = {title: pages}


def on_files(files, config):
    from sitegen.context import SiteError
    from sitegen.diagrams import DiagramError
    from sitegen.faults import FaultError

    site = _state["site"]
    lint = _optional("tgtrace.api", "lint")
    render = _optional("tgtrace.formats", "render")
    severity = _optional("tgtrace", "Severity")
    cli = _optional("tgtrace.cli", "main")
    # A rule's page shows its finding whatever its severity (the text report lists from warning).
    shown = {"show": severity.INFO} if severity else {}
    try:
        pages = site.pages(
            lint=lint,
            render=(lambda report: render(report, "text", **shown)) if render else None,
            cli_main=cli,
        )
        downloads = site.downloads()
    except (SiteError, FaultError, DiagramError) as error:
        raise PluginError(f"docs: {error}") from None
    for src_uri, content in {**pages, **downloads}.items():
        existing = files.get_file_from_path(src_uri)
        if existing is not None:
            raise PluginError(f"docs: {src_uri} is generated; remove the copy under docs/")
        files.append(File.generated(config, src_uri, content=content))
    return files


def on_page_markdown(markdown, page, config, files):
    from sitegen.context import SiteError
    from sitegen.diagrams import DiagramError

    try:
        return _state["site"].expand(markdown, page.file.src_uri)
    except (SiteError, DiagramError) as error:
        raise PluginError(f"docs: {error}") from None


def on_page_content(html, page, config, files):
    from sitegen.context import DIAGRAM_MARK

    site = _state["site"]
    if DIAGRAM_MARK not in html:
        return html
    for key, svg in site.diagrams.items():
        html = html.replace(f"{DIAGRAM_MARK}{key}<", f"{svg}<")
    if DIAGRAM_MARK in html:
        raise PluginError(f"docs: {page.file.src_uri} names a diagram that was not drawn")
    return html


def on_post_page(output, page, config):
    # The site must work from a local folder with no network: refuse any page
    # that would load a script, style, font or image from elsewhere.
    from sitegen.offline import remote_assets

    remote = remote_assets(output)
    if remote:
        raise PluginError(f"docs: {page.file.src_uri} loads remote assets: {', '.join(sorted(remote)[:5])}")
    return output

