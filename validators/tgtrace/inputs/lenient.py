"""N-Quads and N-Triples read without validating each IRI every time, and checked afterwards.

pyoxigraph's strict parser validates every IRI it reads, at every occurrence: at a million
triples that is about a fifth of a lint's CPU. Its lenient parser (``lenient=True``) skips
exactly these checks in these two formats (oxttl's lexer and line-format parser):

- an IRI's syntax (RFC 3987: scheme, characters, percent escapes, host, port);
- a language tag's syntax (BCP 47);
- a raw line break inside a string;
- a UTF-16 surrogate pair written as two ``\\u`` escapes (strict refuses each half);
- ``rdf:langString`` or ``rdf:dirLangString`` as the datatype of a literal with no language.

Anything else it reads as the strict parser does, so on an input the strict parser accepts both
give the same quads. And each lenient acceptance leaves a mark on a term: an IRI or a language tag
that does not validate, a literal holding a line break or typed ``rdf:langString`` without a
language, or a character beyond the Basic Multilingual Plane (what a surrogate pair decodes to; the
bytes then tell whether it was written so). So after a lenient reading each *distinct* term is
checked once (:func:`suspicion`), and where a check fails the input is read again strictly, which
refuses it with the strict parser's own message and line, as reading it strictly in the first place
would have. Where the strict reading passes (a line break that was escaped), the graph stands.
"""

from __future__ import annotations

import mmap
import re
from collections import deque
from enum import Enum
from itertools import chain, filterfalse
from pathlib import Path
from typing import Any

import pyoxigraph as ox

from ..ground.graph import ReadTerms
from ..ground.namespaces import RDF


class Suspicion(Enum):
    """What the terms of a lenient reading say about whether the strict parser would refuse it."""

    NONE = "every term validates"
    ESCAPES = "a term holds a character a pair of \\u escapes may have written: the bytes tell"
    TERMS = "a term may be one the strict parser refuses"


_LANGUAGE_ONLY = frozenset({RDF + "langString", RDF + "dirLangString"})
_BEYOND_BMP = re.compile("[\U00010000-\U0010ffff]")
# A \u escape of a UTF-16 surrogate (D800 to DFFF): the lenient parser joins a pair of them.
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_Literal, _NamedNode, _Triple = ox.Literal, ox.NamedNode, ox.Triple


def suspicion(read: ReadTerms) -> Suspicion:
    """What the distinct terms a lenient reading gave say; each IRI and language tag is validated
    once here."""
    iris: set[str] = set()  # those not among read.iris: datatypes, graph names, in triple terms
    languages: set[str] = set()
    texts: list[str] = []  # the literals' values
    pending: list[Any] = list(read.others)
    while pending:
        term = pending.pop()
        kind = type(term)
        if kind is _Literal:
            value = term.value
            if "\n" in value or "\r" in value:  # written raw, or escaped: only a strict reading tells
                return Suspicion.TERMS
            texts.append(value)
            language = term.language
            if language is not None:
                languages.add(language)
            else:
                datatype = term.datatype.value
                if datatype in _LANGUAGE_ONLY:
                    return Suspicion.TERMS
                iris.add(datatype)
        elif kind is _NamedNode:
            iris.add(term.value)
        elif kind is _Triple:
            pending += (term.subject, term.predicate, term.object)
    try:
        # pyoxigraph's own constructors validate as its strict parser does (oxiri, oxilangtag).
        deque(map(_NamedNode, chain(read.iris, iris)), maxlen=0)
        deque((_Literal("", language=language) for language in languages), maxlen=0)
    except ValueError:
        return Suspicion.TERMS
    # isascii() reads a flag: only the rare text beyond ASCII is searched.
    if any(map(_BEYOND_BMP.search, filterfalse(str.isascii, chain(read.iris, iris, texts)))):
        return Suspicion.ESCAPES
    return Suspicion.NONE


def escapes_surrogates(source: bytes | Path | None) -> bool:
    """Whether the input's bytes hold a ``\\u`` escape of a surrogate; a file that cannot be
    mapped, or no bytes to look at, counts as one (the input is then read strictly)."""
    if source is None:
        return True
    if isinstance(source, bytes):
        return _SURROGATE_ESCAPE.search(source) is not None
    try:
        with open(source, "rb") as handle, mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            return _SURROGATE_ESCAPE.search(mapped) is not None
    except (OSError, ValueError):  # not a regular file, or empty
        return True
