"""Where a statement of Turtle, TriG or JSON-LD is written: the line and column of its subject,
predicate and object.

pyoxigraph parses these syntaxes but gives no positions. For the triples a run's findings name
(a clean run never comes here) the text is walked once more, by a tokenizer that knows the
syntax's structure, not by a second RDF parser: Turtle's and TriG's subjects and
predicate-object lists (``;``, ``,``), ``[ ]``, ``( )``, triple terms ``<<( )>>``, reified
triples ``<< >>`` and annotations, ``GRAPH { }``, directives (``@prefix``, ``PREFIX``,
``@base``), every literal form and comments; JSON-LD's node objects, their keys and values. A
prefixed name or an absolute IRI is resolved here; a term whose meaning takes more (a literal, a
relative or escaped IRI, a JSON-LD key or value a context defines) is confirmed by parsing just
that token with pyoxigraph, with the document's prefixes or contexts in scope. The text is known
to parse (the run read it), so the walk is lenient; it is linear in the text, and a walk that
finds everything it was asked for stops there. What it cannot tell (an anonymous blank node's
identity, a nesting deeper than :data:`MAX_DEPTH`) is left to the caller's fallback.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any, NamedTuple

import pyoxigraph as ox

from ..ground.graph import name as term_name
from ..ground.namespaces import RDF, RDF_TYPE

# The syntaxes walked here (the loaders' format names).
SYNTAXES = ("turtle", "trig", "jsonld")
# Nesting ([ ], ( ), << >>, JSON objects and arrays) the walk follows; deeper, it stops.
MAX_DEPTH = 200

_TYPE = ox.NamedNode(RDF_TYPE)
_FIRST = ox.NamedNode(RDF + "first")
_NIL = ox.NamedNode(RDF + "nil")
_S, _P = "urn:tg-trace:position:s", "urn:tg-trace:position:p"
_ABSOLUTE = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")


class Node(NamedTuple):
    """A term as written: its kind, where its text starts and ends (byte offsets), and the part
    a reader's eye goes to (a literal's quoted text without its tag or datatype, a JSON-LD
    value object's value)."""

    kind: str
    start: int
    end: int
    mark_start: int
    mark_end: int


def _node(kind: str, start: int, end: int, mark_end: int | None = None) -> Node:
    return Node(kind, start, end, start, end if mark_end is None else mark_end)


class Span(NamedTuple):
    """Where a term is written: its line (from 1) and the characters [start, end) it takes on
    that line (to the line's end when it runs on)."""

    line: int
    start: int
    end: int


class Written(NamedTuple):
    """One statement as written: its terms' names (as reports name them; None for an anonymous
    blank node) and where each is written."""

    subject: str | None
    predicate: str | None
    object: str | None
    spans: tuple[Span, Span, Span]


# How a walk ends early, unwinding its recursion: built-in exceptions (every exception class of
# the package is an error a user can act on), raised by the walk alone and caught by _walk.
def _abort() -> ValueError:
    """The walk cannot go on (a nesting past the bound, text it does not know)."""
    return ValueError("the walk cannot go on")


def _done() -> StopIteration:
    """Everything asked for is found."""
    return StopIteration()


class _Lines:
    """Line numbers and columns of byte offsets, counted as the walk goes (offsets asked in
    about increasing order: linear in the text)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at, self.line = data, 0, 1
        self.memo: dict[int, int] = {}

    def line_of(self, offset: int) -> int:
        known = self.memo.get(offset)
        if known is not None:
            return known
        data = self.data
        if offset >= self.at:
            self.line += data.count(b"\n", self.at, offset)
        else:
            self.line -= data.count(b"\n", offset, self.at)
        self.at = offset
        if len(self.memo) > 4096:
            self.memo.clear()
        self.memo[offset] = self.line
        return self.line

    def span(self, start: int, end: int) -> Span:
        data = self.data
        first = data.rfind(b"\n", 0, start) + 1
        stop = data.find(b"\n", start, end)
        end = end if stop == -1 else stop
        column = len(data[first:start].decode("utf-8", "replace"))
        return Span(self.line_of(start), column, column + len(data[start:end].decode("utf-8", "replace")))


Emit = Callable[[Node, Node, Node, Any], None]
# (subject, if known yet; scope; where the text starts and ends) -> whether nothing written there is asked for.
Skip = Callable[[Node | None, Any, int, int], bool]

# ----------------------------------------------------------------------------------- Turtle, TriG

_NC = rb"A-Za-z0-9_\-\x80-\xff"
_PLX = rb"%[0-9A-Fa-f]{2}|\\[_~.\-!$&'()*+,;=/?#@%]"
_LOCAL = rb"(?:[" + _NC + rb":]|" + _PLX + rb")(?:(?:[" + _NC + rb".:]|" + _PLX + rb")*(?:[" + _NC + rb":]|" + _PLX + rb"))?"
_PREFIX = rb"[A-Za-z\x80-\xff](?:[" + _NC + rb".]*[" + _NC + rb"])?"
_TURTLE_TOKEN = re.compile(
    rb"(?:[ \t\r\n]++|#[^\r\n]*+)*+(?:"  # white space and comments, then one token
    rb'(?P<string>"""(?:[^"\\]++|\\.|"(?!""))*+"""|\'\'\'(?:[^\'\\]++|\\.|\'(?!\'\'))*+\'\'\''
    rb'|"(?:[^"\\\r\n]++|\\.)*+"|\'(?:[^\'\\\r\n]++|\\.)*+\')'
    rb"|(?P<open><<\(|<<|\{\||\[|\(|\{)|(?P<close>\)>>|>>|\|\}|\]|\)|\})"
    rb'|(?P<iri><(?:[^<>"{}|^`\\\x00-\x20]++|\\[uU][0-9A-Fa-f]{4,8})*+>)'
    rb"|(?P<at>@[A-Za-z][A-Za-z0-9\-]*)|(?P<hat>\^\^)"
    rb"|(?P<number>[+-]?(?:[0-9]+\.[0-9]*[eE][+-]?[0-9]+|\.?[0-9]+[eE][+-]?[0-9]+|[0-9]*\.[0-9]+|[0-9]+))"
    rb"|(?P<bnode>_:[" + _NC + rb"](?:[" + _NC + rb".]*[" + _NC + rb"])?)"
    rb"|(?P<pname>(?:" + _PREFIX + rb")?:(?:" + _LOCAL + rb")?)"
    rb"|(?P<word>[A-Za-z]+)|(?P<punct>[.;,~]))",
    re.S)
# The rest of a statement, to its terminating "." (or a TriG block's "}"): strings, IRIs and
# comments whole, a "." inside a name or a number passed ("ex:a.b", "1.5", ".5"). It stops
# short at "{" (an annotation) and "~" (a reifier), which the walk then reads.
_STATEMENT_REST = re.compile(
    rb'(?:[^."\'<#{}~\\]++|\\.|"""(?:[^"\\]++|\\.|"(?!""))*+"""|\'\'\'(?:[^\'\\]++|\\.|\'(?!\'\'))*+\'\'\''
    rb'|"(?:[^"\\\r\n]++|\\.)*+"|\'(?:[^\'\\\r\n]++|\\.)*+\'|<(?:[^<>"{}|^`\\\x00-\x20]++|\\[uU][0-9A-Fa-f]{4,8})*+>'
    rb"|<<|#[^\r\n]*+|\.(?=[0-9])|(?<=[" + _NC + rb"%])\.(?=[" + _NC + rb":%]))*+",
    re.S)
_TRAILING = re.compile(rb"(?:[ \t\r\n]++|#[^\r\n]*+)*+\Z")
# Terms a scope keeps resolved (predicates, datatypes, the subjects of the statements at hand).
_CACHED = 1 << 16
# Tokens whose text the walk reads (the others it only spans).
_READ = frozenset(("open", "close", "punct", "word", "at", "hat"))
_LOCAL_ESCAPE = re.compile(rb"\\(.)")


class _TurtleScope:
    """The prefixes and base in force, and the terms resolved under them."""

    def __init__(self, prefixes: dict[bytes, str], base: str | None) -> None:
        self.prefixes, self.base = prefixes, base
        self.cache: dict[tuple[str, bytes], Any] = {}
        self._head: bytes | None = None

    def with_prefix(self, name: bytes, iri: str | None) -> _TurtleScope:
        prefixes = dict(self.prefixes)
        if iri is not None:
            prefixes[name] = iri
        else:
            prefixes.pop(name, None)
        return _TurtleScope(prefixes, self.base)

    def with_base(self, iri: str | None) -> _TurtleScope:
        return _TurtleScope(self.prefixes, iri)

    def term(self, data: bytes, node: Node) -> Any:
        """The pyoxigraph term a written term stands for; None when it is anonymous or cannot be told."""
        kind = node.kind
        if kind == "a":
            return _TYPE
        if kind == "first":
            return _FIRST
        if kind == "nil":
            return _NIL
        if kind in ("anon", "list"):
            return None
        raw = data[node.start:node.end]
        key = (kind, raw)
        if key in self.cache:
            return self.cache[key]
        value = self._term(kind, raw)
        if len(self.cache) >= _CACHED:
            self.cache.clear()  # a subject's term is asked again only in its own statement
        self.cache[key] = value
        return value

    def _term(self, kind: str, raw: bytes) -> Any:
        try:
            if kind == "iri" and b"\\" not in raw:
                text = raw[1:-1].decode("utf-8")
                if _ABSOLUTE.match(text):
                    return ox.NamedNode(text)
            elif kind == "pname":
                prefix, _, local = raw.partition(b":")
                namespace = self.prefixes.get(prefix)
                if namespace is None:
                    return None
                if b"\\" in local:
                    local = _LOCAL_ESCAPE.sub(rb"\1", local)
                return ox.NamedNode(namespace + local.decode("utf-8"))
            elif kind == "bnode":
                return ox.BlankNode(raw[2:].decode("utf-8"))
        except (ValueError, UnicodeDecodeError):
            return None
        return self._parsed(raw)

    def _parsed(self, raw: bytes) -> Any:
        """The object of ``<s> <p> RAW .`` as pyoxigraph reads it under this scope."""
        if self._head is None:
            head = [b"@base <%s> .\n" % self.base.encode() if self.base else b""]
            head += [b"@prefix %s: <%s> .\n" % (name, iri.encode()) for name, iri in self.prefixes.items()]
            self._head = b"".join(head)
        document = self._head + b"<%s> <%s> %s .\n" % (_S.encode(), _P.encode(), raw)
        try:
            return next(iter(ox.parse(document, format=ox.RdfFormat.TURTLE))).object
        except (SyntaxError, ValueError, StopIteration):
            return None

    def iri(self, raw: bytes) -> str | None:
        term = self.term(raw, _node("iri", 0, len(raw)))
        return term.value if isinstance(term, ox.NamedNode) else None


class _TurtleWalk:
    """Turtle's and TriG's grammar, emitting each (subject, predicate, object) as written."""

    def __init__(self, data: bytes, trig: bool, emit: Emit, skip: Skip | None = None) -> None:
        self.data, self.trig, self.emit, self.skip = data, trig, emit, skip
        self.scope = _TurtleScope({}, None)
        self.pos = 3 if data.startswith(b"\xef\xbb\xbf") else 0
        self.depth = self.silent = 0
        self.kind: str | None = None
        self.text = b""
        self.start = self.end = 0
        self.advance()

    def advance(self) -> None:
        found = _TURTLE_TOKEN.match(self.data, self.pos)
        if found is None:
            if _TRAILING.match(self.data, self.pos) is None:
                raise _abort()
            self.kind, self.text, self.start = None, b"", self.pos
            return
        kind = found.lastgroup or ""  # one token group always matches
        self.start, self.end = found.span(kind)
        self.pos, self.kind = self.end, kind
        self.text = found.group(kind) if kind in _READ else b""

    def _is(self, kind: str, text: bytes) -> bool:
        return self.kind == kind and self.text == text

    def _expect(self, kind: str, text: bytes) -> int:
        if not self._is(kind, text):
            raise _abort()
        end = self.end
        self.advance()
        return end

    def _deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _abort()

    def document(self) -> None:
        while self.kind is not None:
            self.statement()

    def statement(self) -> None:
        kind, text = self.kind, self.text
        if kind == "at" and text in (b"@prefix", b"@base", b"@version"):
            self.directive(text[1:].upper())
            self._expect("punct", b".")
            return
        if kind == "word" and text.upper() in (b"PREFIX", b"BASE", b"VERSION"):
            self.directive(text.upper())
            return
        if self.trig and kind == "word" and text.upper() == b"GRAPH":
            self.advance()
            self.wrapped(self.term())
            return
        if self.trig and self._is("open", b"{"):
            self.wrapped(None)
            return
        if not self.triples(top=True):
            self._expect("punct", b".")

    def directive(self, which: bytes) -> None:
        self.advance()
        if which == b"VERSION":
            self.advance()  # the version's string
            return
        name = None
        if which == b"PREFIX":
            if self.kind != "pname":
                raise _abort()
            name = self.data[self.start:self.end - 1]
            self.advance()
        if self.kind != "iri":
            raise _abort()
        iri = self.scope.iri(self.data[self.start:self.end])
        self.advance()
        self.scope = self.scope.with_prefix(name, iri) if name is not None else self.scope.with_base(iri)

    def term(self) -> Node:
        """A graph name: an IRI, a prefixed name, a blank node."""
        if self.kind in ("iri", "pname", "bnode"):
            node = _node(self.kind, self.start, self.end)
            self.advance()
            return node
        if self._is("open", b"["):
            return self.blank_node()
        raise _abort()

    def wrapped(self, _label: Node | None) -> None:
        self._expect("open", b"{")
        while not self._is("close", b"}"):
            if self.kind is None:
                raise _abort()
            self.triples(top=False)
            if self._is("punct", b"."):
                self.advance()
        self.advance()

    def _at_end(self) -> bool:
        return self.kind is None or self._is("punct", b".") or (self.kind == "close" and self.text in (b"}", b"]"))

    def triples(self, top: bool) -> bool:
        """One subject's triples; True when it named a graph (TriG) rather than stating triples."""
        kind, text = self.kind, self.text
        if kind == "open" and text == b"[":
            subject = self.blank_node()
            if self.trig and top and self._is("open", b"{"):
                self.wrapped(subject)
                return True
            if not self._at_end():
                self.predicate_objects(subject)
            return False
        if kind == "open" and text == b"<<":
            subject = self.reified()
            if not self._at_end():
                self.predicate_objects(subject)
            return False
        if kind == "open" and text == b"(":
            self.predicate_objects(self.collection())
            return False
        if kind in ("iri", "pname", "bnode"):
            subject = _node(kind, self.start, self.end)
            self.advance()
            if self.trig and top and self._is("open", b"{"):
                self.wrapped(subject)
                return True
            if self.skip is not None and self._passed(subject):
                return True
            self.predicate_objects(subject)
            return False
        raise _abort()

    def _passed(self, subject: Node) -> bool:
        """Whether the rest of ``subject``'s statement was passed over whole, at the speed of one
        regular expression, because ``skip`` says nothing in it is asked for (its terminating
        ``.`` passed too). A statement with an annotation or a reifier is walked: their subjects
        are others."""
        assert self.skip is not None
        end = _STATEMENT_REST.match(self.data, self.start).end()  # type: ignore[union-attr]  # matches the empty text
        stop = self.data[end:end + 1]
        if stop not in (b".", b"}", b"") or not self.skip(subject, self.scope, subject.start, end):
            return False
        self.pos = end + 1 if stop == b"." else end
        self.advance()
        return True

    def predicate_objects(self, subject: Node) -> None:
        while True:
            kind = self.kind
            if kind == "word" and self.text == b"a":
                verb = _node("a", self.start, self.end)
            elif kind in ("iri", "pname"):
                verb = _node(kind, self.start, self.end)
            else:
                return
            self.advance()
            self.objects(subject, verb)
            if not self._is("punct", b";"):
                return
            while self._is("punct", b";"):
                self.advance()

    def objects(self, subject: Node, verb: Node) -> None:
        while True:
            node = self.object()
            if not self.silent:
                self.emit(subject, verb, node, self.scope)
            reifier: Node | None = None
            while True:
                if self._is("punct", b"~"):
                    at = self.start
                    self.advance()
                    if self.kind in ("iri", "pname", "bnode"):
                        reifier = _node(self.kind, self.start, self.end)
                        self.advance()
                    else:
                        reifier = _node("anon", at, at + 1)
                elif self._is("open", b"{|"):
                    at = self.start
                    self.advance()
                    self.predicate_objects(reifier or _node("anon", at, at + 2))
                    self._expect("close", b"|}")
                    reifier = None
                else:
                    break
            if not self._is("punct", b","):
                return
            self.advance()

    def object(self) -> Node:
        kind, text, start = self.kind, self.text, self.start
        if kind in ("iri", "pname", "bnode"):
            node = _node(kind, start, self.end)
            self.advance()
            return node
        if kind == "string":
            end = mark = self.end
            self.advance()
            if self.kind == "at":
                end = self.end
                self.advance()
            elif self.kind == "hat":
                self.advance()
                end = self.end
                self.advance()
            return _node("literal", start, end, mark)
        if kind == "number" or (kind == "word" and text in (b"true", b"false")):
            node = _node("literal", start, self.end)
            self.advance()
            return node
        if kind == "open":
            if text == b"[":
                return self.blank_node()
            if text == b"(":
                return self.collection()
            if text == b"<<(":
                return self.triple_term()
            if text == b"<<":
                return self.reified()
        raise _abort()

    def blank_node(self) -> Node:
        start = self.start
        self._deeper()
        self.advance()
        if self._is("close", b"]"):
            end = self.end
            self.advance()
            self.depth -= 1
            return _node("anon", start, end)
        node = _node("anon", start, start + 1)
        self.predicate_objects(node)
        self._expect("close", b"]")
        self.depth -= 1
        return node

    def collection(self) -> Node:
        start = self.start
        self._deeper()
        self.advance()
        items = 0
        while not self._is("close", b")"):
            item = self.object()
            if not self.silent:
                # Each item is the rdf:first of a list node of its own, written nowhere.
                self.emit(_node("anon", item.start, item.start),
                          Node("first", item.start, item.end, item.mark_start, item.mark_end), item, self.scope)
            items += 1
        end = self._expect("close", b")")
        self.depth -= 1
        return _node("list" if items else "nil", start, end)

    def _inner_triple(self) -> None:
        """A triple term's or reified triple's subject, predicate and object: spanned, not stated."""
        self.silent += 1
        self.object()
        if not (self.kind in ("iri", "pname") or self._is("word", b"a")):
            raise _abort()
        self.advance()
        self.object()
        self.silent -= 1

    def triple_term(self) -> Node:
        start = self.start
        self._deeper()
        self.advance()
        self._inner_triple()
        end = self._expect("close", b")>>")
        self.depth -= 1
        return _node("triple", start, end)

    def reified(self) -> Node:
        """``<< s p o ~ r >>``: its reifier (the triple it reifies is stated with rdf:reifies,
        which is written nowhere)."""
        start = self.start
        self._deeper()
        self.advance()
        self._inner_triple()
        node = None
        if self._is("punct", b"~"):
            self.advance()
            if self.kind in ("iri", "pname", "bnode"):
                node = _node(self.kind, self.start, self.end)
                self.advance()
        end = self._expect("close", b">>")
        self.depth -= 1
        return node or _node("anon", start, end)


# ------------------------------------------------------------------------------------- JSON-LD

_JSON_TOKEN = re.compile(
    rb'[ \t\r\n]*(?:(?P<string>"(?:[^"\\]++|\\.)*+")|(?P<punct>[{}\[\]:,])|(?P<atom>-?[0-9][0-9.eE+\-]*|true|false|null))',
    re.S)
# A JSON value's text up to its next bracket, strings whole; a node reference; a string's text.
_JSON_JUMP = re.compile(rb'(?:[^"\[\]{}]++|"(?:[^"\\]++|\\.)*+")*+')
_JSON_FLAT = rb'(?:[^"\[\]{}]++|"(?:[^"\\]++|\\.)*+"'


def _nested(levels: int) -> bytes:
    """JSON text whose brackets are matched, nested at most ``levels`` deep."""
    inner = _JSON_FLAT + rb")*+"
    for _ in range(levels):
        inner = _JSON_FLAT + rb"|\[" + inner + rb"\]|\{" + inner + rb"\})*+"
    return inner


# A value, and the rest of an object to its "}", nested no deeper than four levels.
_JSON_VALUE = re.compile(rb"\[" + _nested(3) + rb"\]|\{" + _nested(3) + rb"\}")
_JSON_REST = re.compile(_nested(4) + rb"\}")
_REFERENCE = re.compile(rb'\{\s*+"@id"\s*+:\s*+"(?:[^"\\]++|\\.)*+"\s*+\}')


def _string(raw: bytes) -> str:
    """The text of a JSON string token."""
    if b"\\" not in raw:
        return raw[1:-1].decode("utf-8", "replace")
    text = json.loads(raw)
    return text if isinstance(text, str) else ""


# Keywords whose value holds no statement of the node it is in (walked for structure only).
_OTHER_KEYWORDS = frozenset(("@reverse", "@included", "@nest", "@index", "@language", "@direction", "@set"))


class _JsonScope:
    """The JSON-LD contexts in force (their text, outermost first) and what they define."""

    def __init__(self, data: bytes, contexts: tuple[tuple[int, int], ...]) -> None:
        self.data, self.contexts = data, contexts
        self.cache: dict[tuple[str, bytes, bytes], Any] = {}
        self.terms: set[str] = set()
        self.plain = True  # no default language or direction: a key's string is a plain literal
        self.known = True  # every context is an object read here
        for start, end in contexts:
            try:
                context = json.loads(data[start:end])
            except ValueError:
                context = None
            for item in context if isinstance(context, list) else [context]:
                if isinstance(item, dict):
                    self.terms.update(item)
                    self.plain = self.plain and "@language" not in item and "@direction" not in item
                elif item is not None:
                    self.known = False

    def within(self, start: int, end: int) -> _JsonScope:
        return _JsonScope(self.data, (*self.contexts, (start, end)))

    def _document(self, subject: bytes, key: bytes, value: bytes) -> bytes:
        contexts = b",".join(self.data[s:e] for s, e in self.contexts)
        return b'{"@context": [%s], "@id": %s, %s: %s}' % (contexts, subject, key, value)

    def _parsed(self, subject: bytes, key: bytes, value: bytes, want: str) -> Any:
        cache_key = (want, key if want != "subject" else subject, value if want == "object" else b"")
        if cache_key in self.cache:
            return self.cache[cache_key]
        found = None
        try:
            for triple in ox.parse(self._document(subject, key, value), format=ox.RdfFormat.JSON_LD):
                if want == "subject" or (isinstance(triple.subject, ox.NamedNode) and triple.subject.value == _S):
                    found = getattr(triple, want)
                    break
        except (SyntaxError, ValueError):
            found = None
        self.cache[cache_key] = found
        return found

    def _own(self, text: str) -> bool:
        """Whether a string means itself (an absolute IRI whose prefix no context defines)."""
        head = text.split(":", 1)[0]
        return self.known and _ABSOLUTE.match(text) is not None and text not in self.terms and head not in self.terms

    def subject(self, raw: bytes) -> Any:
        text = json.loads(raw)
        if not isinstance(text, str):
            return None
        if text.startswith("_:"):
            return ox.BlankNode(text[2:]) if text[2:] else None
        if self._own(text) and "\\" not in text:
            try:
                return ox.NamedNode(text)
            except ValueError:
                return None
        return self._parsed(raw, b'"%s"' % _P.encode(), b'{"@value": "x"}', "subject")

    def predicate(self, raw: bytes) -> Any:
        text = json.loads(raw)
        if text == "@type":
            return _TYPE
        if self._own(text):
            try:
                return ox.NamedNode(text)
            except ValueError:
                return None
        return self._parsed(b'"%s"' % _S.encode(), raw, b'{"@value": "x"}', "predicate")

    def object(self, key: bytes, raw: bytes) -> Any:
        if raw[:1] == b'"' and self.plain and key != b'"@type"' and self._own(json.loads(key)):
            return ox.Literal(json.loads(raw))
        return self._parsed(b'"%s"' % _S.encode(), key, raw, "object")


class _JsonWalk:
    """JSON-LD's node objects: each key's values as statements of the node's ``@id``."""

    def __init__(self, data: bytes, emit: Emit, skip: Skip | None = None) -> None:
        self.data, self.emit, self.skip = data, emit, skip
        self.pos = 3 if data.startswith(b"\xef\xbb\xbf") else 0
        self.depth = self.silent = 0
        self.kind: str | None = None
        self.text = b""
        self.start = self.end = self.last = 0
        self.advance()

    def advance(self) -> None:
        self.last = self.end  # where the token passed ends
        found = _JSON_TOKEN.match(self.data, self.pos)
        if found is None or found.lastgroup is None:
            if self.data[self.pos:self.pos + 64].strip():
                raise _abort()
            self.kind, self.text = None, b""
            return
        self.kind, self.start, self.end = found.lastgroup, found.start(found.lastgroup), found.end()
        self.pos = self.end
        self.text = found.group(found.lastgroup) if self.kind == "punct" else b""

    def _punct(self, text: bytes) -> bool:
        return self.kind == "punct" and self.text == text

    def _value_end(self, closing: bool = False) -> int | None:
        """Where the value at the cursor ends (``closing``: where the object the cursor is in
        ends, past its "}"), its brackets matched at the speed of one regular expression; None
        when it holds a node of its own (an ``@id`` in it other than a reference, ``{"@id": ...}``)."""
        data, pos = self.data, self.start
        flat = (_JSON_REST if closing else _JSON_VALUE).match(data, pos)
        if flat is not None:  # nested no deeper than JSON-LD's expanded values: one match
            pos = flat.end()
        else:
            depth, last = 0, -1 if closing else 0
            while True:
                pos = _JSON_JUMP.match(data, pos).end()  # type: ignore[union-attr]  # matches the empty text
                bracket = data[pos:pos + 1]
                if not bracket:
                    return None
                depth += 1 if bracket in b"[{" else -1
                pos += 1
                if depth == last:
                    break
        text = data[self.start:pos]
        if b'"@id"' in text and text.count(b'"@id"') != len(_REFERENCE.findall(text)):
            return None
        return pos

    def _jumped(self, subject: Node | None, start: int, scope: _JsonScope, closing: bool = False) -> bool:
        """Whether the value at the cursor (``closing``: the rest of the object it is in) was
        passed over whole, because ``skip`` says nothing written there is asked for and it holds
        no node of its own."""
        if self.skip is None or self.silent or (self.kind != "punct" and not closing):
            return False
        end = self._value_end(closing)
        if end is None or not self.skip(subject, scope, start, end):
            return False
        self.end = self.pos = end
        self.advance()
        return True

    def _deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _abort()

    def document(self) -> None:
        self.value(_JsonScope(self.data, ()))

    def value(self, scope: _JsonScope) -> list[tuple[str, Node]]:
        """The value at the cursor, as (kind, node) items: "node" (a node object: its ``@id``,
        or anonymous), "value" (a value object or a bare JSON value) or "list"."""
        if self._punct(b"{"):
            return [self.object(scope)]
        if self._punct(b"["):
            self._deeper()
            self.advance()
            items: list[tuple[str, Node]] = []
            while not self._punct(b"]"):
                if self.kind is None:
                    raise _abort()
                items += self.value(scope)
                if self._punct(b","):
                    self.advance()
            self.advance()
            self.depth -= 1
            return items
        if self.kind in ("string", "atom"):
            node = _node("value", self.start, self.end)
            self.advance()
            return [] if self.data[node.start:node.end] == b"null" else [("value", node)]
        raise _abort()

    def _skipped(self) -> None:
        """A value that states nothing of its node (a context, reverse properties): walked, not emitted."""
        self.silent += 1
        self.value(_JsonScope(self.data, ()))
        self.silent -= 1

    def object(self, scope: _JsonScope) -> tuple[str, Node]:
        start = self.start
        self._deeper()
        self.advance()
        subject: Node | None = None
        members: list[tuple[Node, list[tuple[str, Node]], _JsonScope]] = []
        special: dict[str, Node] = {}
        while not self._punct(b"}"):
            if self.kind != "string":
                raise _abort()
            key = _node("key", self.start, self.end)
            name = _string(self.data[key.start:key.end])
            self.advance()
            if not self._punct(b":"):
                raise _abort()
            self.advance()
            at = self.start
            if not name.startswith("@") and self._jumped(subject, key.start, scope):
                pass  # a value of a node nothing is asked of, holding no node of its own
            elif name == "@context":
                self._skipped()
                scope = scope.within(at, self.last)
            elif name == "@id":
                items = self.value(scope)
                if items and items[0][0] == "value":
                    subject = _node("id", items[0][1].start, items[0][1].end)
                    if not special and self._jumped(subject, key.start, scope, closing=True):
                        self.depth -= 1  # the rest of a node nothing is asked of, passed whole
                        return self._node_of(subject, start, members)
            elif name in ("@value", "@list", "@set"):
                self._skipped()
                special[name] = _node(name, at, self.last)
            elif name in ("@graph", "@included"):
                self.value(scope)
            elif name.startswith("@") and name != "@type":
                self._skipped()
            else:
                members.append((key, self.value(scope), scope))
            if self._punct(b","):
                self.advance()
        end = self.end
        self.advance()
        self.depth -= 1
        if "@value" in special:
            mark = special["@value"]
            return "value", Node("valueobject", start, end, mark.start, mark.end)
        if "@list" in special or "@set" in special:
            return "list", _node("list", start, end)
        return self._node_of(subject, start, members)

    def _node_of(self, subject: Node | None, start: int,
                 members: list[tuple[Node, list[tuple[str, Node]], _JsonScope]]) -> tuple[str, Node]:
        """A node object read: its statements emitted, and the node as a value."""
        node = subject if subject is not None else _node("anon", start, start + 1)
        if not self.silent:
            for key, items, member_scope in members:
                for _, item in items:
                    self.emit(node, key, item, member_scope)
        return "node", node


# --------------------------------------------------------------------------------------- walking


def _walk(data: bytes, syntax: str, emit: Emit, skip: Skip | None = None) -> None:
    """Walk the text, calling ``emit`` for each statement, until it ends, ``emit`` raises
    ``_done()`` or the walk cannot go on; a Turtle or TriG statement that ``skip`` says holds
    nothing asked for is passed over, and so is a JSON-LD value that holds no node of its own."""
    try:
        if syntax == "jsonld":
            _JsonWalk(data, emit, skip).document()
        else:
            _TurtleWalk(data, syntax == "trig", emit, skip).document()
    except (StopIteration, ValueError, RecursionError):  # _done(), _abort(), and the same from the text
        pass


def _term(data: bytes, node: Node, scope: Any, key: Node | None = None) -> Any:
    """The term a written node stands for under its scope (None: anonymous, or not told); an
    object's, a JSON-LD value, is read with the key ``key`` it is the value of."""
    if isinstance(scope, _TurtleScope):
        return scope.term(data, node)
    kind, raw = node.kind, data[node.start:node.end]
    if kind == "key":
        return scope.predicate(raw)
    if kind in ("anon", "list"):
        return None
    if kind == "id":
        return scope.subject(raw)
    return scope.object(data[key.start:key.end], raw) if key is not None else None


def locate(data: bytes, syntax: str, wanted: set[tuple]) -> dict[tuple, int]:
    """The line of each wanted (subject, predicate, object) of pyoxigraph terms: the line its
    predicate is written on (the statement's own, in a subject's list of them); and of each
    (subject, None, None): the line its subject is first written on. A triple of an anonymous
    blank node is matched by its predicate and object among those of anonymous subjects."""
    subjects = {key[0] for key in wanted}
    exact: dict[tuple, set] = {}
    for s, p, o in wanted:
        if p is not None:
            exact.setdefault((s, p), set()).add(o)
    anonymous = {key for key in wanted if key[1] is not None and isinstance(key[0], ox.BlankNode)}
    anonymous_predicates = {key[1] for key in anonymous}
    found: dict[tuple, int] = {}
    pending = set(wanted)
    guessed: dict[tuple, tuple[int, int]] = {}  # by an anonymous term: (triple line, subject line)
    lines = _Lines(data)
    last: list[Any] = [None, None]  # the last subject node walked, and its term

    def place(key: tuple, line: int) -> None:
        if key in pending:
            found[key] = line
            pending.discard(key)
            if not pending:
                raise _done()

    def emit(subject: Node, predicate: Node, obj: Node, scope: Any) -> None:
        if last[0] is not subject:
            last[0], last[1] = subject, _term(data, subject, scope)
        s = last[1]
        if s is None:
            if anonymous:
                guess(subject, predicate, obj, scope)
            return
        if s not in subjects:
            return
        p = _term(data, predicate, scope)
        objects = exact.get((s, p))
        if objects:
            value = _term(data, obj, scope, predicate)
            if value is not None and value in objects:
                place((s, p, value), lines.line_of(predicate.start))
            elif value is None:
                for o in objects:
                    if isinstance(o, ox.BlankNode) and (s, p, o) not in guessed:
                        guessed[(s, p, o)] = (lines.line_of(predicate.start), 0)
        place((s, None, None), lines.line_of(subject.start))

    def guess(subject: Node, predicate: Node, obj: Node, scope: Any) -> None:
        p = _term(data, predicate, scope)
        if p not in anonymous_predicates:
            return
        value = _term(data, obj, scope, predicate)
        for key in anonymous:
            if key[1] == p and key not in guessed and (value == key[2] or (value is None and isinstance(key[2], ox.BlankNode))):
                guessed[key] = (lines.line_of(predicate.start), lines.line_of(subject.start))

    def skip(subject: Node | None, scope: Any, _start: int, _end: int) -> bool:
        if subject is None or anonymous:
            return False
        if last[0] is not subject:
            last[0], last[1] = subject, _term(data, subject, scope)
        return last[1] not in subjects

    _walk(data, syntax, emit, skip)
    return _with_guesses(found, pending, guessed)


def _with_guesses(found: dict[tuple, int], pending: set[tuple], guessed: dict[tuple, tuple[int, int]]) -> dict[tuple, int]:
    """The lines found, and for what was not found, the lines guessed by an anonymous term."""
    for key, (line, subject_line) in guessed.items():
        if key in pending:
            found[key] = line
        if subject_line and (key[0], None, None) in pending:
            found.setdefault((key[0], None, None), subject_line)
    return found


def written(data: bytes, syntax: str, asked: Mapping[int, Collection[str] | None] | Iterable[int],
            span: int = 1) -> dict[int, list[Written]]:
    """The statements whose subject or predicate is written on each line asked for, with their
    terms named and placed; ``span`` lines after each are read too (a statement's object may
    follow on the next lines). ``asked`` may name, for each line, the subjects asked about
    (their names, as reports give them): then only their statements, and an anonymous blank
    node's, are read (a minified JSON-LD file is one line)."""
    wanted: dict[int, Collection[str] | None] = dict(asked) if isinstance(asked, Mapping) else dict.fromkeys(asked)
    if not wanted:
        return {}
    last_line = max(wanted) + span
    out: dict[int, list[Written]] = {}
    lines = _Lines(data)
    ordered = sorted(wanted)
    last: list[Any] = [None, None]  # the last subject node asked about, and its name

    def named(subject: Node, scope: Any) -> str | None:
        if last[0] is not subject:
            term = _term(data, subject, scope)
            last[0], last[1] = subject, None if term is None else term_name(term)
        return last[1]

    def about(numbers: Iterable[int], subject: Node, scope: Any) -> list[int]:
        """The lines asked for, of ``numbers``, that ask about ``subject``."""
        found = []
        for number in numbers:
            subjects = wanted.get(number, ())
            if subjects is None:
                found.append(number)
            elif subjects:
                name = named(subject, scope)
                if (name in subjects) if name is not None else any(s.startswith("_:") for s in subjects):
                    found.append(number)
        return found

    def emit(subject: Node, predicate: Node, obj: Node, scope: Any) -> None:
        line = lines.line_of(predicate.start)
        if line > last_line and syntax != "jsonld":  # JSON-LD's come when their node ends, nested ones first
            raise _done()
        at = about({line, lines.line_of(subject.start)}, subject, scope)
        if not at:
            return
        s, p = named(subject, scope), _term(data, predicate, scope)
        o = _term(data, obj, scope, predicate)
        entry = Written(s, None if p is None else term_name(p), None if o is None else term_name(o),
                        (lines.span(subject.mark_start, subject.mark_end),
                         lines.span(predicate.mark_start, predicate.mark_end), lines.span(obj.mark_start, obj.mark_end)))
        for number in at:
            out.setdefault(number, []).append(entry)

    def asks(first: int, last: int) -> list[int]:
        at = bisect_left(ordered, first)
        return ordered[at:bisect_right(ordered, last)] if at < len(ordered) and ordered[at] <= last else []

    def skip(subject: Node | None, scope: Any, start: int, end: int) -> bool:
        # A statement is asked for by its subject's line too: a JSON-LD key's subject may be
        # unknown yet (written after it), and then it is walked.
        if subject is None:
            return False
        first = lines.line_of(start)
        if first > last_line and syntax != "jsonld":
            raise _done()
        numbers = [*asks(first, lines.line_of(end)), *asks(*[lines.line_of(subject.start)] * 2)]
        return not about(numbers, subject, scope)

    _walk(data, syntax, emit, skip)
    return out
