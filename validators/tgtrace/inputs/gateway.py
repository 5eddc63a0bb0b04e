"""The one module that talks to a running TrustGraph: its API gateway, over websockets.

Two conversations: the request socket (``/api/v1/socket``: authenticate with the first frame,
then ask the flow's ``triples`` service for a collection's stored triples, streamed in
batches) and the flow's live export (``/api/v1/flow/{flow}/export/triples``: one frame per
message of the flow's triples-store queue). Wire triples become quads through the wire
loader; everything past that is the ordinary pipeline.

A small client of our own rather than TrustGraph's SDK: the SDK pulls in every pub/sub
client (pulsar, kafka, ...), too heavy for a linter, and its export client misreads frames
in 2.11.1. ``websockets`` is what TrustGraph's own CLI uses.

The token is sent to the gateway and nowhere else. The request socket carries it in its first
frame; TrustGraph 2.11.1's export endpoints read it only from the URL's query string
(``gateway/endpoint/socket.py``: no header, no first frame), so the export's URL holds it and is
never shown, and a redirect (which would carry that URL into an error) is never followed. The
token (and a password in the URL) is registered with ``escaping.conceal``: whatever the gateway
echoes, no output of this process shows it.

Every conversation is bounded (``limits``): an idle timeout counts only progress, an overall
deadline holds whatever the peer keeps sending, a frame larger than ``max_frame`` is refused by
the socket before it is read, and a large frame is decoded as it is read, one triple at a time.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import re
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

# ijson: decodes a large frame one triple at a time (json.loads would hold the whole frame as
# Python objects, ten times its size); its C backend (yajl) is as fast as json on large frames.
import ijson
import pyoxigraph as ox
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus, WebSocketException
from websockets.uri import parse_uri

from ..ground.errors import TgTraceError
from ..ground.escaping import conceal, safe_json
from ..ground.limits import DEADLINE, IDLE_TIMEOUT, MAX_FRAME, PULL_LIMIT
from ..ground.namespaces import RDF_TYPE
from ..ground.network import loopback
from ..tracemodel.traces import DEFAULT_GRAPH_CLASSES, EXPLAIN_GRAPHS, LINKS
from .base import InputError
from .wire import WireError, triples_to_quads

if TYPE_CHECKING:
    from decimal import Decimal

DEFAULT_URL = "http://localhost:8888/"
DEFAULT_WORKSPACE = "default"
DEFAULT_FLOW = "default"
# A trace's links (tracemodel.traces.LINKS) may point to a node stored in another graph than the
# explainability graphs (extraction's tg:Document sits in the default graph): the linter reports
# such a link dangling unless the node is fetched too.
DEFAULT_LIMIT = PULL_LIMIT
BATCH_SIZE = 1000
# A frame up to this size is decoded whole (json is fastest, and its objects, about ten times the
# frame, are a few megabytes at most); a larger one is decoded as it is read, one triple at a time.
WHOLE_FRAME = 1 << 20
# Triples converted to quads at a time while a large frame is decoded.
_CHUNK = 1000


class GatewayError(InputError):
    """The gateway could not be reached, refused us, or answered with something unusable:
    one line naming the gateway (never the token)."""

    def __init__(self, where: str, problem: str) -> None:
        # What the gateway or the user sent (an error message, a collection's name) is escaped by InputError.
        super().__init__(where, None, problem)


class Unreachable(GatewayError):
    """No connection, or a connection lost: what a watch waits out and a pull reports."""


class Closed(Unreachable):
    """The gateway went away in the middle of a conversation."""


class Oversized(Unreachable):
    """The gateway sent a frame larger than the connection's maximum: the socket refused it (and
    is closed), without reading it."""


_USERINFO = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*://)?[^/?#@]*@")


def shown_url(url: str) -> str:
    """A URL as it may be printed: no user, password, query or fragment, whatever its shape."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc.rpartition("@")[2]
        if parts.scheme and netloc:
            return urlunsplit((parts.scheme, netloc, parts.path or "/", "", ""))
    except ValueError:
        pass
    return _USERINFO.sub(lambda m: m.group(1) or "", re.split(r"[?#]", url, maxsplit=1)[0])


@dataclass(frozen=True, repr=False)
class Connection:
    """Where the gateway is and who we are to it (TrustGraph's CLI options and variables), and
    the bounds of every conversation with it."""

    url: str = DEFAULT_URL
    token: str | None = field(default=None, repr=False)
    workspace: str = DEFAULT_WORKSPACE
    flow: str = DEFAULT_FLOW
    # Seconds a conversation may go without progress (connecting included).
    timeout: float = IDLE_TIMEOUT
    # Seconds a whole conversation may take (a pull; a watch's start or reconnection).
    deadline: float = DEADLINE
    # Bytes a frame may hold.
    max_frame: int = MAX_FRAME

    @classmethod
    def from_environment(cls, url: str | None = None, token: str | None = None, workspace: str | None = None,
                         flow: str | None = None, environ: Mapping[str, str] = os.environ,
                         **others: Any) -> Connection:  # Any: the other fields' (float, int), None for unset
        return cls(url=url or environ.get("TRUSTGRAPH_URL") or DEFAULT_URL,
                   token=token or environ.get("TRUSTGRAPH_TOKEN") or None,
                   workspace=workspace or environ.get("TRUSTGRAPH_WORKSPACE") or DEFAULT_WORKSPACE,
                   flow=flow or DEFAULT_FLOW, **{k: v for k, v in others.items() if v is not None})

    def __post_init__(self) -> None:
        # Registered first: no message about a bad URL may show either.
        conceal(self.token)
        try:
            parts = urlsplit(self.url)
            conceal(parts.password)
            port = parts.port  # a port that is no number, or out of range, raises here
        except ValueError as exc:
            raise GatewayError(self.shown, f"is not a gateway URL ({exc})") from None
        if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
            raise GatewayError(self.shown, "is not a gateway URL (http://host:port/ or https://...)")
        if port == 0:
            raise GatewayError(self.shown, "is not a gateway URL (port 0)")
        if parts.username is not None and parts.password is None:
            raise GatewayError(self.shown, "is not a gateway URL: a user name without a password (user:password@)")
        try:
            parse_uri(self.socket_url("api/v1/socket"))
        except (WebSocketException, ValueError) as exc:
            problem = str(exc).rpartition(": ")[2] if ": " in str(exc) else type(exc).__name__
            raise GatewayError(self.shown, f"is not a gateway URL ({problem})") from None

    def __repr__(self) -> str:
        # A URL may carry credentials too (user:password@, ?token=): a traceback shows neither.
        return f"Connection(url={self.shown!r}, workspace={self.workspace!r}, flow={self.flow!r})"

    @property
    def shown(self) -> str:
        """The URL as it may be printed: no user, password, query or fragment."""
        return shown_url(self.url)

    @property
    def exposes_token(self) -> bool:
        """Whether the token would travel unencrypted to a host other than this machine."""
        parts = urlsplit(self.url)
        return bool(self.token) and parts.scheme in ("http", "ws") and not loopback(parts.hostname or "")

    def socket_url(self, path: str, query: dict | None = None) -> str:
        parts = urlsplit(self.url)
        scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
        base = parts.path if parts.path.endswith("/") else parts.path + "/"
        return urlunsplit((scheme, parts.netloc, base + path, urlencode(query or {}), ""))


class _Connect(connect):
    """websockets' connection, never following a redirect: the export's URL carries the token,
    which a redirect would send on or put into an error, and a gateway is asked at its own address."""

    def process_redirect(self, exc: Exception) -> Exception | str:
        return exc


async def _connect(connection: Connection, path: str, query: dict | None = None) -> ClientConnection:
    """An open websocket, or the one-line reason there is none. Nothing websockets says about the
    URL is shown (the export's holds the token): only what went wrong."""
    url = connection.socket_url(path, query)
    try:
        # compression off: a compressed frame is a bomb the size bound would only catch once inflated.
        return await _Connect(url, open_timeout=connection.timeout, max_size=connection.max_frame, max_queue=1,
                              compression=None, close_timeout=2)
    except InvalidStatus as exc:
        raise GatewayError(connection.shown, _refusal(exc.response.status_code, connection, path)) from None
    except (OSError, TimeoutError) as exc:
        reason = ("connection refused" if isinstance(exc, ConnectionRefusedError) else getattr(exc, "strerror", None)
                  or (type(exc).__name__ if not isinstance(exc, TimeoutError) else ""))
        reason = reason or f"no answer in {connection.timeout:g} seconds"
        raise Unreachable(connection.shown, f"cannot reach the gateway ({reason})") from None
    except InvalidHandshake as exc:
        raise GatewayError(connection.shown, f"is not a TrustGraph gateway ({_handshake_problem(exc)})") from None
    except (WebSocketException, ValueError) as exc:
        raise GatewayError(connection.shown, f"cannot open a websocket ({type(exc).__name__})") from None


def _handshake_problem(exc: InvalidHandshake) -> str:
    # The class says what was wrong; its message may quote headers the peer chose.
    return {"InvalidUpgrade": "no websocket upgrade", "InvalidHeader": "a malformed header",
            "InvalidMessage": "a malformed HTTP answer", "SecurityError": "an unsafe answer",
            "NegotiationError": "an unexpected extension or subprotocol"}.get(type(exc).__name__, type(exc).__name__)


def _refusal(status: int, connection: Connection, path: str = "api/v1/socket") -> str:
    if status == 401:
        return ("refused the token (HTTP 401): set --token or $TRUSTGRAPH_TOKEN to an API key of the workspace"
                if connection.token else "asks for a token (HTTP 401): set --token or $TRUSTGRAPH_TOKEN")
    if status == 403:
        return f"denied access to workspace {connection.workspace!r} (HTTP 403)"
    if status == 404:
        return (f"knows no workspace {connection.workspace!r}, or is not TrustGraph's API gateway "
                f"(HTTP 404 for /{path.split('?')[0]})")
    if 300 <= status < 400:
        return (f"redirects elsewhere (HTTP {status}); a redirect is not followed, as it would carry the "
                "token: give the address it redirects to with --api-url")
    return f"refused the connection (HTTP {status})"


# ---------------------------------------------------------------- frames


_MAP, _LIST = object(), object()


class _Frame:
    """A frame's values at the paths asked for (a scalar as it is, an object or a list as a
    marker) and the items of its one list of triples, as they are decoded. A small frame is
    decoded whole; a large one as it is read, so it never stands in memory as Python objects:
    its values are known once its items have all been read."""

    def __init__(self, raw: bytes, items_at: str | None, paths: frozenset[str]) -> None:
        self.values: dict[str, Any] = {}
        if len(raw) <= WHOLE_FRAME:
            data = json.loads(raw)
            self.values[""] = _kind(data)
            for path in paths:
                found = _at(data, path)
                if found is not _ABSENT:
                    self.values[path] = _kind(found)
            listed = _at(data, items_at) if items_at else _ABSENT
            self.items: Iterator = iter(listed if isinstance(listed, list) else ())
        else:
            self.items = self._stream(raw, items_at, paths)

    def _stream(self, raw: bytes, items_at: str | None, paths: frozenset[str]) -> Iterator:
        item_prefix = f"{items_at}.item" if items_at else None
        builder = None
        depth = 0
        for prefix, event, value in ijson.parse(raw):
            if builder is not None:
                builder.event(event, value)
                if event in ("start_map", "start_array"):
                    depth += 1
                elif event in ("end_map", "end_array"):
                    depth -= 1
                    if depth == 0:
                        yield builder.value
                        builder = None
                continue
            if prefix == item_prefix:
                if event in ("start_map", "start_array"):
                    builder, depth = ijson.ObjectBuilder(), 1
                    builder.event(event, value)
                elif event not in ("end_map", "end_array", "map_key"):
                    yield value
                continue
            if event == "map_key":
                continue
            if prefix in paths or prefix == "":
                if event in ("start_map", "start_array"):
                    self.values.setdefault(prefix, _MAP if event == "start_map" else _LIST)
                elif event not in ("end_map", "end_array"):
                    self.values.setdefault(prefix, value)

    def get(self, path: str, default: object = None) -> Any:
        value = self.values.get(path, default)
        return default if value is _MAP or value is _LIST else value

    def is_map(self, path: str) -> bool:
        return self.values.get(path) is _MAP

    def is_list(self, path: str) -> bool:
        return self.values.get(path) is _LIST


_ABSENT = object()


def _at(data: object, path: str | None) -> object:
    if path == "" or path is None:
        return data
    for part in path.split("."):
        if not isinstance(data, dict) or part not in data:
            return _ABSENT
        data = data[part]
    return data


def _kind(value: object) -> object:
    return _MAP if isinstance(value, dict) else _LIST if isinstance(value, list) else value


class _Reader:
    """Frames of one websocket, with the one-line errors of the exit contract: the idle timeout
    counts from the last progress, which the caller reports, not from the last frame."""

    def __init__(self, connection: Connection, socket: ClientConnection, what: str) -> None:
        self.connection, self.socket, self.what = connection, socket, what
        self._loop = asyncio.get_running_loop()
        self.progressed()

    def fail(self, problem: str) -> GatewayError:
        return GatewayError(self.connection.shown, problem)

    def progressed(self) -> None:
        self._last = self._loop.time()

    async def raw(self, patient: bool = False) -> bytes:
        """The next frame's bytes; ``patient`` waits as long as it takes (the socket's pings still
        notice a dead peer), otherwise until the idle timeout since the last progress."""
        left = None if patient else self.connection.timeout - (self._loop.time() - self._last)
        try:
            if left is not None and left <= 0:
                raise TimeoutError
            raw = await asyncio.wait_for(self.socket.recv(decode=False), left)
        except TimeoutError:
            raise self.fail(f"made no progress for {self.connection.timeout:g} seconds {self.what} "
                            "(--idle-timeout)") from None
        except ConnectionClosed as exc:
            if exc.sent is not None and exc.sent.code == 1009:
                raise Oversized(self.connection.shown, f"sent a frame larger than {self.connection.max_frame:,} "
                                f"bytes {self.what} (--max-frame); it was refused unread") from None
            raise Closed(self.connection.shown, f"closed the connection {self.what}{_close_reason(exc)}") from None
        return raw if isinstance(raw, bytes) else raw.encode("utf-8")

    def decode(self, raw: bytes, items_at: str | None, paths: frozenset[str]) -> _Frame:
        try:
            frame = _Frame(raw, items_at, paths)
        except (ValueError, RecursionError, ijson.JSONError):
            raise self.fail(f"sent a malformed frame {self.what}: not JSON ({_excerpt(raw)})") from None
        self._check_object(frame)
        return frame

    def items(self, frame: _Frame) -> Iterator:
        """The frame's items, a malformed frame being one line."""
        try:
            yield from frame.items
        except (ValueError, RecursionError, ijson.JSONError):
            raise self.fail(f"sent a malformed frame {self.what}: not JSON") from None
        self._check_object(frame)

    def _check_object(self, frame: _Frame) -> None:
        top = frame.values.get("", _MAP)
        if top is not _MAP:
            kind = "array" if top is _LIST else type(top).__name__ if top is not None else "null"
            raise self.fail(f"sent a malformed frame {self.what}: a JSON {kind}, not an object")


def _close_reason(exc: ConnectionClosed) -> str:
    received = exc.rcvd
    if received is not None and received.reason:
        return f" ({received.code}: {received.reason})"
    return ""


def _excerpt(raw: bytes | str) -> str:
    text = raw[:240].decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)[:240]
    return json.dumps(text[:60] + ("..." if len(text) > 60 or len(raw) > 240 else ""), ensure_ascii=True)


_AUTH_PATHS = frozenset({"type"})
_RESPONSE_PATHS = frozenset({"id", "complete", "response", "response.response", "error", "error.type",
                             "error.message", "response.error", "response.error.type", "response.error.message"})


class Session:
    """The request socket, authenticated: ``async with Session(connection) as session``."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self._ids = itertools.count(1)
        self._socket: Any = None

    async def __aenter__(self) -> Session:
        self._socket = await _connect(self.connection, "api/v1/socket")
        reader = _Reader(self.connection, self._socket, "while authenticating")
        try:
            await self._socket.send(json.dumps({"type": "auth", "token": self.connection.token or ""}))
            while True:
                frame = reader.decode(await reader.raw(), None, _AUTH_PATHS)
                kind = frame.get("type")
                if kind == "auth-ok":
                    break
                if kind == "auth-failed":
                    raise GatewayError(self.connection.shown, _refusal(401, self.connection))
        except ConnectionClosed:
            raise Closed(self.connection.shown, "closed the connection while authenticating") from None
        except BaseException:
            await self._socket.close()
            raise
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self._socket.close()

    async def request(self, service: str, body: dict, what: str, room: int | None = None) -> AsyncIterator[list]:
        """The triples of each response of a request to one of the flow's services, as quads, until
        the last; more than ``room`` triples in all is an error, found while a frame is read."""
        request_id = f"tg-trace-{next(self._ids)}"
        envelope = {"id": request_id, "workspace": self.connection.workspace, "service": service,
                    "flow": self.connection.flow, "request": body}
        try:
            await self._socket.send(json.dumps(envelope))
        except ConnectionClosed:
            raise Closed(self.connection.shown, f"closed the connection {what}") from None
        reader = _Reader(self.connection, self._socket, what)
        received = 0
        while True:
            frame = reader.decode(await reader.raw(), "response.response", _RESPONSE_PATHS)
            if "id" in frame.values and frame.get("id") != request_id:
                continue  # another request's, or a stray message: no progress
            quads: list[ox.Quad] = []
            chunk: list = []
            for triple in reader.items(frame):
                received += 1
                if room is not None and received > room:
                    raise _TooMany(f"more than {room} triples {what}")
                chunk.append(triple)
                if len(chunk) == _CHUNK:
                    quads.extend(self._quads(chunk, what))
                    chunk = []
            if frame.get("id") != request_id:
                continue
            self._check_response(frame, what)
            quads.extend(self._quads(chunk, what))
            if quads or frame.get("complete"):
                reader.progressed()
            yield quads
            if frame.get("complete"):
                return

    def _quads(self, triples: list, what: str) -> list[ox.Quad]:
        try:
            return triples_to_quads(triples)
        except WireError as exc:
            raise GatewayError(self.connection.shown, f"sent a malformed triple {what}: {exc.problem}") from None

    def _check_response(self, frame: _Frame, what: str) -> None:
        for where in ("error", "response.error"):
            if where in frame.values and frame.values[where] is not None:
                raise GatewayError(self.connection.shown, self._explain(frame, where))
        if not frame.is_map("response"):
            raise GatewayError(self.connection.shown, f"sent a malformed frame {what}: no response object")
        if "response.response" in frame.values and not frame.is_list("response.response") \
                and frame.values["response.response"] is not None:
            raise GatewayError(self.connection.shown, f"sent a malformed frame {what}: 'response' is no list")

    def _explain(self, frame: _Frame, where: str) -> str:
        if not frame.is_map(where):
            return f"answered with an error: {_excerpt(json.dumps(frame.get(where), default=str))}"
        kind, message = str(frame.get(f"{where}.type") or "error"), str(frame.get(f"{where}.message") or "")
        workspace, flow = self.connection.workspace, self.connection.flow
        if kind == "workspace-not-found":
            return f"knows no workspace {workspace!r}"
        if kind in ("auth-required", "access-denied"):
            return f"denied access to workspace {workspace!r} ({kind})"
        if message.startswith("Invalid flow"):
            return f"knows no flow {flow!r} in workspace {workspace!r} ('tg-show-flows' lists them)"
        if "not supported by flow" in message:
            return f"flow {flow!r} has no triples query service"
        return f"answered with an error: {kind}: {message[:500]}"


class _TooMany(TgTraceError):
    """More triples than a pull has room for (turned into the pull's one line, which names the collection)."""


class _Pull:
    """One pull: the triples it has room for left, and the requests it may still make."""

    def __init__(self, session: Session, collection: str, limit: int, counted: Callable[[int], None] | None) -> None:
        self.session, self.collection, self.limit, self.counted = session, collection, limit, counted
        self.held = 0

    def too_many(self) -> GatewayError:
        return GatewayError(self.session.connection.shown, f"collection {self.collection!r} holds more than "
                            f"{self.limit} triples of explainability and the nodes it links to; raise --limit "
                            "(the gateway's triples query cannot page, so a pull is never cut short)")

    async def triples(self, *, graph: str | None = None, subject: str | None = None) -> list[ox.Quad]:
        """The stored triples of the collection matching a graph or a subject, as quads; asked for
        at most one more than the pull has room for."""
        room = self.limit - self.held
        body: dict = {"collection": self.collection, "limit": room + 1, "streaming": True,
                      "batch-size": BATCH_SIZE}
        if graph is not None:
            body["g"] = graph
        if subject is not None:
            body["s"] = {"t": "i", "i": subject}
        what = f"while reading collection {self.collection!r}" + (f" graph {graph}" if graph else f" node {subject}")
        found: list[ox.Quad] = []
        try:
            async for quads in self.session.request("triples", body, what, room=room):
                found.extend(quads)
                if self.counted is not None and quads:
                    self.counted(len(quads))
        except _TooMany:
            raise self.too_many() from None
        self.held += len(found)
        return found


async def pull_quads(connection: Connection, collection: str, *, limit: int = DEFAULT_LIMIT,
                     counted: Callable[[int], None] | None = None) -> list[ox.Quad]:
    """A collection's stored traces: every triple of its explainability graphs, and the nodes
    they link to that are stored elsewhere (followed until none is missing), each quad once; at
    most ``limit`` triples in all, within the connection's deadline."""
    try:
        async with asyncio.timeout(connection.deadline):
            return await _pull(connection, collection, limit, counted)
    except TimeoutError:
        raise GatewayError(connection.shown, f"did not finish the pull of collection {collection!r} in "
                           f"{connection.deadline:g} seconds (--deadline)") from None


async def _pull(connection: Connection, collection: str, limit: int,
                counted: Callable[[int], None] | None) -> list[ox.Quad]:
    async with Session(connection) as session:
        pull = _Pull(session, collection, limit, counted)
        found: dict[ox.Quad, None] = {}
        for graph in EXPLAIN_GRAPHS:
            for quad in await pull.triples(graph=graph):
                found.setdefault(quad, None)
        if not found:
            raise GatewayError(connection.shown, f"collection {collection!r} of workspace "
                               f"{connection.workspace!r} holds no explainability triples (in "
                               f"{' or '.join(EXPLAIN_GRAPHS)}); is the collection's name right?")
        asked: set = set()
        while missing := sorted(_missing_nodes(found) - asked):
            for node in missing:
                # Each node asked for is named by a triple held, so the requests are bounded by the limit too.
                if pull.held >= limit:
                    raise pull.too_many()
                asked.add(node)
                for quad in await pull.triples(subject=node):
                    found.setdefault(quad, None)
        return list(found)


def _missing_nodes(quads: Iterable[ox.Quad]) -> set[str]:
    subjects = set()
    linked = set()
    for quad in quads:
        subjects.add(quad.subject)
        if quad.predicate.value in LINKS and isinstance(quad.object, ox.NamedNode):
            linked.add(quad.object)
    return {node.value for node in linked - subjects}


def pull(connection: Connection, collection: str, *, limit: int = DEFAULT_LIMIT,
         counted: Callable[[int], None] | None = None) -> list[ox.Quad]:
    """:func:`pull_quads`, run to its end."""
    return asyncio.run(pull_quads(connection, collection, limit=limit, counted=counted))


async def check_flow(connection: Connection) -> None:
    """The token, workspace and flow are good: the live export would otherwise accept an unknown
    flow's socket and close it without a word."""
    async with Session(connection) as session:
        body = {"collection": "default", "limit": 1, "streaming": True, "batch-size": 1, "s": {
            "t": "i", "i": "urn:tg-trace:probe"}}
        # What it answers is not kept; its deadline (the watch's start) bounds how long it may talk.
        async for _ in session.request("triples", body, "while checking the flow"):
            pass


class Export:
    """The flow's live export of its triples-store queue: ``await export.open()``, then
    ``await export.next()`` for each frame."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self._socket: ClientConnection | None = None
        self._reader: _Reader | None = None

    async def open(self) -> None:
        # The export endpoint reads the token from the query string alone (see the module's docstring).
        self._socket = await _connect(self.connection, f"api/v1/flow/{quote(self.connection.flow, safe='')}"
                                      "/export/triples", {"token": self.connection.token or "",
                                                          "workspace": self.connection.workspace})
        self._reader = _Reader(self.connection, self._socket, "while exporting")

    async def close(self) -> None:
        if self._socket is not None:
            await self._socket.close()
            self._socket = None

    async def next(self, wait: float | None) -> bytes | None:
        """The next frame's bytes, or None when none came in ``wait`` seconds (an idle flow sends
        nothing for hours: there is no time limit on the export itself). Safe to call again after
        None: websockets' recv may be cancelled."""
        assert self._reader is not None, "open() first"
        try:
            return await asyncio.wait_for(self._reader.raw(patient=True), wait)
        except TimeoutError:
            return None

    def frame(self, raw: bytes) -> Frame:
        """A frame's explainability (see :func:`parse_frame`)."""
        assert self._reader is not None, "open() first"
        return parse_frame(raw, self._reader)


# Extraction writes the document node itself to the default graph, beside the extracted facts:
# of the default graph only such nodes are kept (a trace links to them).
KEPT_DEFAULT_TYPES = DEFAULT_GRAPH_CLASSES
_EXPORT_PATHS = frozenset({"metadata", "metadata.id", "metadata.collection", "triples"})


@dataclass
class Frame:
    """One message of the flow's triples-store queue: its explainability, as quads."""

    id: str
    collection: str
    quads: list = field(default_factory=list)
    _raw: bytes = field(default=b"", repr=False)
    _documents: frozenset = field(default=frozenset(), repr=False)

    def explain_event(self) -> Iterator[str]:
        """The frame as an explain event, a line of an explain stream (which tg-trace lint reads),
        in pieces, escaped as every output is. The kept wire triples are decoded from the frame
        again, one at a time, rather than held beside its quads."""
        head = json.dumps({"message_type": "explain", "explain_id": self.id, "collection": self.collection},
                          ensure_ascii=False)
        yield safe_json(f'{head[:-1]}, "explain_triples": [')
        frame = _Frame(self._raw, "triples", _EXPORT_PATHS)
        separator = ""
        for triple in frame.items:
            if isinstance(triple, dict) and (triple.get("g") in EXPLAIN_GRAPHS or (
                    self._documents and not triple.get("g") and _subject_key(triple) in self._documents)):
                yield safe_json(separator + json.dumps(triple, ensure_ascii=False, default=_number))
                separator = ", "
        yield "]}\n"


def _number(value: Decimal) -> float:
    # ijson reads a JSON number with a fraction as a Decimal: written back as the number it was.
    return float(value)


def parse_frame(raw: bytes, reader: _Reader) -> Frame:
    """An export frame's explainability triples (and the default graph's nodes of
    KEPT_DEFAULT_TYPES), the extracted knowledge left out, decoded a triple at a time."""
    malformed = 'sent a malformed export frame: expected {"metadata": {...}, "triples": [...]}'

    def scan(keep: Callable[[dict], bool]) -> tuple[_Frame, Iterator[dict]]:
        frame = reader.decode(raw, "triples", _EXPORT_PATHS)
        return frame, (t for t in reader.items(frame) if isinstance(t, dict) and keep(t))

    documents: set[str] = set()

    def explainability(triple: dict) -> bool:
        if triple.get("g") in EXPLAIN_GRAPHS:
            return True
        if not triple.get("g") and _is_type(triple, KEPT_DEFAULT_TYPES):
            documents.add(_subject_key(triple))
        return False

    result = Frame("", "", _raw=raw)
    frame, kept = scan(explainability)
    _convert(kept, result, reader)
    if not (frame.is_map("metadata") and frame.is_list("triples")):
        raise reader.fail(malformed)
    result.id = str(frame.get("metadata.id") or "")
    result.collection = str(frame.get("metadata.collection") or "")
    if documents:
        # The documents' own triples, in a second reading of the frame (rare: extraction's frames).
        result._documents = frozenset(documents)
        _, kept = scan(lambda t: not t.get("g") and _subject_key(t) in documents)
        _convert(kept, result, reader)
    return result


def _convert(triples: Iterator[dict], into: Frame, reader: _Reader) -> None:
    chunk: list = []

    def flush() -> None:
        try:
            into.quads.extend(triples_to_quads(chunk))
        except WireError as exc:
            raise reader.fail(f"sent a malformed export frame: {exc.problem}") from None
        chunk.clear()

    for triple in triples:
        chunk.append(triple)
        if len(chunk) == _CHUNK:
            flush()
    flush()


def _subject_key(triple: dict) -> str:
    return json.dumps(triple.get("s"), sort_keys=True)


def _is_type(triple: dict, classes: frozenset) -> bool:
    p, o = triple.get("p"), triple.get("o")
    return isinstance(p, dict) and p.get("i") == RDF_TYPE and isinstance(o, dict) and o.get("i") in classes


def kept_triples(triples: list) -> list:
    """The explainability triples of a list of wire triples, and the default graph's nodes of KEPT_DEFAULT_TYPES."""
    kept_subjects = {_subject_key(t) for t in triples if isinstance(t, dict)
                     and not t.get("g") and _is_type(t, KEPT_DEFAULT_TYPES)}
    return [t for t in triples if isinstance(t, dict) and (
        t.get("g") in EXPLAIN_GRAPHS or (not t.get("g") and kept_subjects and _subject_key(t) in kept_subjects))]
