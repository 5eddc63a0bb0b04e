"""SHACL 4.4, string-based constraint components: sh:minLength, sh:maxLength, sh:pattern,
sh:languageIn, sh:uniqueLang."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pyoxigraph as ox

from ...ground.graph import is_iri
from ..component import Native, component, param, per_value, true

# The shapes reader compiles each sh:pattern once to check it: the engine compiles it alike.
from ..shapes import compile_pattern

if TYPE_CHECKING:
    from collections.abc import Sequence

    from ...ground.graph import Node
    from ..component import CompilerLike, Context, Params, Results, ValueTest
    from ..shapes import Shape

_Literal = ox.Literal


def _lexical(value: Node) -> str | None:
    """The string SHACL's string-based components read: a literal's form or an IRI; None for blank nodes."""
    if type(value) is _Literal:
        return value.value
    if is_iri(value):
        return value  # type: ignore[return-value]  # a str: is_iri checked it (and is no TypeGuard)
    return None


@per_value("MinLengthConstraintComponent", "minLength")
def _min_length(ctx: Context, params: Params) -> ValueTest:
    n = int(param(params, "minLength"))
    return lambda graph, v: (text := _lexical(v)) is not None and len(text) >= n


@per_value("MaxLengthConstraintComponent", "maxLength")
def _max_length(ctx: Context, params: Params) -> ValueTest:
    n = int(param(params, "maxLength"))
    return lambda graph, v: (text := _lexical(v)) is not None and len(text) <= n


def pattern_ok(regex: re.Pattern[str], value: Node) -> bool:
    text = _lexical(value)  # SHACL: sh:pattern fails on blank nodes (and triple terms)
    return text is not None and regex.search(text) is not None


def _pattern_compiled(params: Params, compiler: CompilerLike) -> str:
    regex = compile_pattern(param(params, "pattern"), param(params, "flags"))
    return f"{compiler.bind(pattern_ok)}({compiler.bind(regex)}, v)"


@per_value("PatternConstraintComponent", "pattern", "flags", compiled=_pattern_compiled)
def _pattern(ctx: Context, params: Params) -> ValueTest:
    regex = compile_pattern(param(params, "pattern"), param(params, "flags"))
    return lambda graph, v: pattern_ok(regex, v)


def _lang_matches(tag: str, range_: str) -> bool:
    # SPARQL langMatches: basic filtering (RFC 4647), "*" matches any tag.
    tag, range_ = tag.lower(), range_.lower()
    if range_ == "*":
        return bool(tag)
    return tag == range_ or tag.startswith(range_ + "-")


@per_value("LanguageInConstraintComponent", "languageIn")
def _language_in(ctx: Context, params: Params) -> ValueTest:
    ranges = [str(r) for r in param(params, "languageIn")]
    return lambda graph, v: type(v) is _Literal and bool(v.language) and \
        any(_lang_matches(v.language, r) for r in ranges)  # type: ignore[arg-type]  # not empty: checked first


@component("UniqueLangConstraintComponent", "uniqueLang", value_only=True)
def _unique_lang(ctx: Context, shape: Shape, focus: Node, values: Sequence[Node], params: Params) -> Results:
    if not true(param(params, "uniqueLang")):
        return
    seen: dict[str, int] = {}
    for v in values:
        if type(v) is _Literal and v.language:
            tag = v.language.lower()
            seen[tag] = seen.get(tag, 0) + 1
    for _tag, count in seen.items():
        if count > 1:
            yield None, None


# The section's components, for SHACL Core's table (shacl/core/).
COMPONENTS: tuple[Native, ...] = (_min_length, _max_length, _pattern, _language_in, _unique_lang)
