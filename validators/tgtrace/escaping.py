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

This module sits at the ground floor: the loaders (input errors) and the formats both use it.
"""

from __future__ import annotations

import json
import re

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


def printable(text, lines: bool = False) -> str:
    """``text`` with every unsafe character escaped (``\\x1b``, ``\\n``, ``\\u202e``); line breaks
    and tabs kept with ``lines`` (for formats whose own escaping carries them safely). None is ''."""
    if text is None:
        return ""
    text = str(text)
    if text.isprintable():  # nearly every string: one scan in C (unsafe characters are not printable)
        return text
    pattern = _UNSAFE_IN_LAYOUT if lines else UNSAFE
    return pattern.sub(_escape, text) if pattern.search(text) else text


def message(text, limit: int = MESSAGE_LIMIT) -> str:
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


def json_text(document, indent: int | None = 2) -> str:
    """``document`` as JSON whose bytes hold no unsafe character: JSON escapes C0 controls itself,
    and the rest (C1, bidi, separators, lone surrogates, U+FFFE/F) become ``\\u`` escapes, which
    can only stand inside strings, so every value reads back exactly."""
    return safe_json(json.dumps(document, indent=indent, ensure_ascii=False))


def safe_json(text: str) -> str:
    """A JSON text (from json.dumps) with its unsafe characters, which only strings hold, as
    ``\\u`` escapes."""
    if text.isascii():  # json.dumps escaped every ASCII control: a scan in C, no regex
        return text.replace("\x7f", "\\u007f")
    return _UNSAFE_IN_JSON.sub(_json_escape, text) if _UNSAFE_IN_JSON.search(text) else text


def safe_layout(text: str) -> str:
    """A whole rendered output (text, Markdown, XML, HTML, SVG) with any unsafe character left
    in it escaped, its own line breaks and tabs kept: the last guard before bytes are written."""
    if text.isascii() and not text.encode("ascii").translate(None, _SAFE_ASCII):
        return text  # a whole report in ASCII, checked in C
    return printable(text, lines=True)
