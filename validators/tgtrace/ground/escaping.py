"""The one rule for input text that reaches any output: file names, parser messages, IRIs,
literals, on standard error and in every format.

A trace is written by whoever controls the traced system or the pull request, so nothing it
says may act on the reader of a report: no control character retitles, recolours or clears a
terminal or starts a forged line (a GitHub workflow command on standard error), no bidi
control makes a value display as something it is not, nothing makes an XML report
ill-formed or a file name that is not UTF-8 fail to encode. Such characters are shown as
escapes: ``\\x1b``, ``\\n``, ``\\u202e``; a byte of a file name that is not UTF-8 (which
Python hands over as a lone surrogate) as ``\\xff``. In JSON documents they are JSON's own
``\\u`` escapes, so a consumer still reads the exact value.

A secret (the gateway's token) is concealed here too: once :func:`conceal` has registered it,
every text that passes the last guard of an output (:func:`printable`, :func:`safe_json`,
:func:`safe_layout`, :func:`safe_rdf`) shows ``***`` in its place, whatever the peer that
echoed it wanted.

This module sits at the ground floor: the loaders (input errors) and the formats both use it.
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote

# C0 controls, DEL and C1 controls; the bidi controls (embeddings, overrides, isolates and the
# marks: U+061C, U+200E/F, U+202A-E, U+2066-9); the line and paragraph separators, which some
# viewers break lines at; lone surrogates (never encodable); U+FFFE and U+FFFF (not XML 1.0).
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")
# The same, but for line breaks and tabs: for a whole rendered output, whose own layout is made
# of them (every piece of input in it was made printable before).
_UNSAFE_IN_LAYOUT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
                               "\ud800-\udfff\ufffe\uffff]")
# In a JSON text from json.dumps, C0 controls inside strings are already escaped; those left are
# the document's own layout.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")
# ASCII a whole output may hold raw: the printable characters, line feed and tab.
_SAFE_ASCII = bytes(range(0x20, 0x7F)) + b"\n\t"
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Longest run of input text echoed in a one-line message (a 16 MiB IRI in a parser's message).
MESSAGE_LIMIT = 2000


# The forms of each secret concealed in every output (raw, URL-quoted, JSON-escaped).
_SECRETS: list[str] = []
# A secret this short would garble every output it was concealed in, and hides nothing.
_SHORTEST_SECRET = 4
CONCEALED = "***"


def conceal(secret: str | None) -> None:
    """Never show ``secret`` in any output from now on (this process's outputs)."""
    if not secret or len(secret) < _SHORTEST_SECRET:
        return
    for form in (secret, quote(secret, safe=""), json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]):
        if form not in _SECRETS:
            _SECRETS.append(form)
    _SECRETS.sort(key=len, reverse=True)  # a longer form first: it may hold a shorter one


def forget_secrets() -> None:
    """Show again what :func:`conceal` registered: for a process that runs one command after another
    (a test suite), where a token of one is no secret of the next."""
    _SECRETS.clear()


def redact(text: str) -> str:
    """``text`` with every registered secret replaced by ``***``."""
    for secret in _SECRETS:
        if secret in text:
            text = text.replace(secret, CONCEALED)
    return text


def _escape(match: re.Match) -> str:
    char = match.group()
    named = _NAMED.get(char)
    if named is not None:
        return named
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if 0xDC80 <= code <= 0xDCFF:
        # A byte of a file name that is not UTF-8 (Python's surrogateescape): shown as that byte.
        return f"\\x{code - 0xDC00:02x}"
    return f"\\u{code:04x}"


def printable(text: object, lines: bool = False) -> str:
    """``text`` with every unsafe character escaped (``\\x1b``, ``\\n``, ``\\u202e``); line breaks
    and tabs kept with ``lines`` (for formats whose own escaping carries them safely). None is ''."""
    if text is None:
        return ""
    text = str(text)
    if _SECRETS:
        text = redact(text)
    if text.isprintable():  # nearly every string: one scan in C (unsafe characters are not printable)
        return text
    pattern = _UNSAFE_IN_LAYOUT if lines else UNSAFE
    return pattern.sub(_escape, text) if pattern.search(text) else text


def message(text: object, limit: int = MESSAGE_LIMIT) -> str:
    """A one-line message that may quote input (a parser's, an OS error's): printable, and
    bounded by eliding the middle, so that the start (what is wrong) and the end (often the
    position) both survive."""
    shown = printable(text)
    if len(shown) <= limit:
        return shown
    half = (limit - 1) // 2
    return f"{shown[:half]}…{shown[len(shown) - half:]}"


def bounded(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, marked with an ellipsis when cut."""
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _json_escape(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_text(document: object, indent: int | None = 2) -> str:
    """``document`` as JSON whose bytes hold no unsafe character: JSON escapes C0 controls itself,
    and the rest (C1, bidi, separators, lone surrogates, U+FFFE/F) become ``\\u`` escapes, which
    can only stand inside strings, so every value reads back exactly."""
    return safe_json(json.dumps(document, indent=indent, ensure_ascii=False))


def safe_json(text: str) -> str:
    """A JSON text (from json.dumps) with its unsafe characters, which only strings hold, as
    ``\\u`` escapes."""
    if _SECRETS:
        text = redact(text)
    if text.isascii():  # json.dumps escaped every ASCII control: a scan in C, no regex
        return text.replace("\x7f", "\\u007f")
    return _UNSAFE_IN_JSON.sub(_json_escape, text) if _UNSAFE_IN_JSON.search(text) else text


def safe_layout(text: str) -> str:
    """A whole rendered output (text, Markdown, XML, HTML, SVG) with any unsafe character left
    in it escaped, its own line breaks and tabs kept: the last guard before bytes are written."""
    if _SECRETS:
        text = redact(text)
    if text.isascii() and not text.encode("ascii").translate(None, _SAFE_ASCII):
        return text  # a whole report in ASCII, checked in C
    return printable(text, lines=True)


def _rdf_escape(match: re.Match) -> str:
    return f"\\u{ord(match.group()):04X}"


def safe_rdf(text: str) -> str:
    """An N-Quads, N-Triples or TriG document with every unsafe character left in it written as
    the syntax's own ``\\uXXXX`` escape, which reads back as the same character: in those
    syntaxes such a character can only stand inside an IRI or a string, where the escape is
    allowed (the writer keeps blank node labels and prefixed names free of them). The layout's
    line breaks and tabs stay."""
    if _SECRETS:
        text = redact(text)
    if text.isascii():  # the writer escaped every ASCII control inside terms already
        return text
    return _UNSAFE_IN_LAYOUT.sub(_rdf_escape, text) if _UNSAFE_IN_LAYOUT.search(text) else text


def holds_secret(text: str) -> bool:
    """Whether ``text`` holds a registered secret."""
    return any(secret in text for secret in _SECRETS)


def has_unsafe(text: str) -> bool:
    """Whether ``text`` holds a character no output may show raw."""
    return not text.isprintable() and UNSAFE.search(text) is not None


# Turtle's own escapes for what a string or an IRI quotes: the escapes of a string (ECHAR), and
# any other unsafe character as \uXXXX (UCHAR, read back as itself in strings and IRIs alike).
_TURTLE_ECHAR = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f"}
_TURTLE_STRING = re.compile('[\\\\"]|' + UNSAFE.pattern)
# What an IRIREF cannot hold raw (Turtle 1.1, [18]), beside the unsafe characters.
_TURTLE_IRI = re.compile('[\x00-\x20<>"{}|^`\\\\]|' + UNSAFE.pattern)


def _turtle_escape(match: re.Match) -> str:
    char = match.group()
    named = _TURTLE_ECHAR.get(char)
    if named is not None:
        return named
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        # Not a character (a byte of a file name that is not UTF-8): shown as that byte, as text.
        return _escape(match).replace("\\", "\\\\")
    return f"\\u{code:04x}"


def turtle_string(text: object) -> str:
    """``text`` as a Turtle string literal ("..."), every unsafe character escaped."""
    return '"' + _TURTLE_STRING.sub(_turtle_escape, str(text)) + '"'


def _uchar(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\u{0xFFFD if 0xD800 <= code <= 0xDFFF else code:04x}"  # a lone surrogate is no character


def turtle_iri(iri: str) -> str:
    """``iri`` as a Turtle IRI (<...>), every character an IRIREF cannot hold raw as a \\u escape."""
    return "<" + _TURTLE_IRI.sub(_uchar, iri) + ">"


def safe_turtle(text: str) -> str:
    """A whole Turtle document with any unsafe character left in it as a \\u escape (input text
    only stands in its strings and IRIs, where the escape reads back as the character); its own
    line breaks and tabs kept."""
    if text.isascii() and not text.encode("ascii").translate(None, _SAFE_ASCII):
        return text
    return _UNSAFE_IN_LAYOUT.sub(_uchar, text)
