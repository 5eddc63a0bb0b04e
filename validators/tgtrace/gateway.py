"""The one module that talks to a running TrustGraph: its API gateway, over websockets.

Two conversations: the request socket (``/api/v1/socket``: authenticate with the first frame,
then ask the flow's ``triples`` service for a collection's stored triples, streamed in
batches) and the flow's live export (``/api/v1/flow/{flow}/export/triples``: one frame per
message of the flow's triples-store queue). Wire triples become quads through the wire
loader; everything past that is the ordinary pipeline.

A small client of our own rather than TrustGraph's SDK: the SDK pulls in every pub/sub
client (pulsar, kafka, ...), too heavy for a linter, and its export client misreads frames
in 2.11.1. ``websockets`` is what TrustGraph's own CLI uses.

The token is sent to the gateway and nowhere else: it is never part of a message, a
displayed URL or a capture.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlencode, urlsplit, urlunsplit

import pyoxigraph as ox
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from .graph import DERIVED, GENERATED
from .loaders.base import InputError
from .loaders.wire import WireError, triples_to_quads
from .namespaces import RDF_TYPE, TG
from .tracemodel import OWNING

DEFAULT_URL = "http://localhost:8888/"
DEFAULT_WORKSPACE = "default"
DEFAULT_FLOW = "default"
# Where TrustGraph writes explainability: query-time traces, and extraction provenance.
EXPLAIN_GRAPHS = ("urn:graph:retrieval", "urn:graph:source")
# Links from a trace to a node it needs, which may be stored in another graph (extraction's
# tg:Document sits in the default graph); the linter reports such a link dangling otherwise.
LINKS = frozenset({DERIVED, GENERATED, *OWNING})
# A collection's explainability larger than this is refused unless --limit is raised: the
# gateway's query has a limit and no paging, so a bigger answer could only be cut.
DEFAULT_LIMIT = 1_000_000
BATCH_SIZE = 1000
# The gateway accepts frames of up to 50 MB; an export frame is one queue message.
MAX_FRAME = 64 << 20


class GatewayError(InputError):
    """The gateway could not be reached, refused us, or answered with something unusable:
    one line naming the gateway (never the token)."""

    def __init__(self, where: str, problem: str):
        # What the gateway or the user sent (an error message, a collection's name) is escaped by InputError.
        super().__init__(where, None, problem)


@dataclass(frozen=True, repr=False)
class Connection:
    """Where the gateway is and who we are to it (TrustGraph's CLI options and variables)."""

    url: str = DEFAULT_URL
    token: str | None = field(default=None, repr=False)
    workspace: str = DEFAULT_WORKSPACE
    flow: str = DEFAULT_FLOW
    # Seconds to wait for the gateway to connect or to send the next frame of an answer.
    timeout: float = 60.0

    @classmethod
    def from_environment(cls, url=None, token=None, workspace=None, flow=None, environ=os.environ,
                         **others) -> Connection:
        return cls(url=url or environ.get("TRUSTGRAPH_URL") or DEFAULT_URL,
                   token=token or environ.get("TRUSTGRAPH_TOKEN") or None,
                   workspace=workspace or environ.get("TRUSTGRAPH_WORKSPACE") or DEFAULT_WORKSPACE,
                   flow=flow or DEFAULT_FLOW, **others)

    def __post_init__(self) -> None:
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https", "ws", "wss") or not parts.hostname:
            raise GatewayError(self.shown, "is not a gateway URL (http://host:port/ or https://...)")

    def __repr__(self) -> str:
        # A URL may carry credentials too (user:password@, ?token=): a traceback shows neither.
        return f"Connection(url={self.shown!r}, workspace={self.workspace!r}, flow={self.flow!r})"

    @property
    def shown(self) -> str:
        """The URL as it may be printed: no user, password, query or fragment."""
        parts = urlsplit(self.url)
        host = parts.hostname or ""
        if ":" in host:
            host = f"[{host}]"
        netloc = host + (f":{parts.port}" if _port(parts) else "")
        return urlunsplit((parts.scheme, netloc, parts.path or "/", "", "")) if parts.scheme else self.url

    def socket_url(self, path: str, query: dict | None = None) -> str:
        parts = urlsplit(self.url)
        scheme = {"http": "ws", "https": "wss"}.get(parts.scheme, parts.scheme)
        base = parts.path if parts.path.endswith("/") else parts.path + "/"
        return urlunsplit((scheme, parts.netloc, base + path, urlencode(query or {}), ""))


def _port(parts) -> int | None:
    try:
        return parts.port
    except ValueError:
        return None


class _Reader:
    """Frames of one websocket as JSON objects, with the one-line errors of the exit contract."""

    def __init__(self, connection: Connection, socket, what: str):
        self.connection, self.socket, self.what = connection, socket, what

    def fail(self, problem: str) -> GatewayError:
        return GatewayError(self.connection.shown, problem)

    async def frame(self, patient: bool = False) -> dict:
        """The next frame; ``patient`` waits as long as it takes (the socket's pings still notice a
        dead peer), otherwise the connection's timeout."""
        try:
            raw = await asyncio.wait_for(self.socket.recv(), None if patient else self.connection.timeout)
        except TimeoutError:
            raise self.fail(f"sent nothing for {self.connection.timeout:g} seconds {self.what}") from None
        except ConnectionClosed as exc:
            raise Closed(self.connection.shown, f"closed the connection {self.what}{_close_reason(exc)}") from None
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError):
            raise self.fail(f"sent a malformed frame {self.what}: not JSON ({_excerpt(raw)})") from None
        if not isinstance(data, dict):
            raise self.fail(f"sent a malformed frame {self.what}: a JSON {type(data).__name__}, not an object")
        return data


class Unreachable(GatewayError):
    """No connection, or a connection lost: what a watch waits out and a pull reports."""


class Closed(Unreachable):
    """The gateway went away in the middle of a conversation."""


def _close_reason(exc: ConnectionClosed) -> str:
    received = exc.rcvd
    if received is not None and received.reason:
        return f" ({received.code}: {received.reason})"
    return ""


def _excerpt(raw) -> str:
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    return json.dumps(text[:60] + ("..." if len(text) > 60 else ""), ensure_ascii=True)


async def _connect(connection: Connection, path: str, query: dict | None = None):
    """An open websocket, or the one-line reason there is none."""
    url = connection.socket_url(path, query)
    try:
        return await connect(url, open_timeout=connection.timeout, max_size=MAX_FRAME, close_timeout=2)
    except InvalidStatus as exc:
        raise GatewayError(connection.shown, _refusal(exc.response.status_code, connection, path)) from None
    except (OSError, TimeoutError) as exc:
        reason = ("connection refused" if isinstance(exc, ConnectionRefusedError) else getattr(exc, "strerror", None)
                  or (str(exc) if not isinstance(exc, TimeoutError) else ""))
        reason = reason or f"no answer in {connection.timeout:g} seconds"
        raise Unreachable(connection.shown, f"cannot reach the gateway ({_scrub(reason, connection)})") from None
    except InvalidHandshake as exc:
        raise GatewayError(connection.shown, f"is not a TrustGraph gateway ({_scrub(str(exc), connection)})") from None


def _refusal(status: int, connection: Connection, path: str = "api/v1/socket") -> str:
    if status == 401:
        return ("refused the token (HTTP 401): set --token or $TRUSTGRAPH_TOKEN to an API key of the workspace"
                if connection.token else "asks for a token (HTTP 401): set --token or $TRUSTGRAPH_TOKEN")
    if status == 403:
        return f"denied access to workspace {connection.workspace!r} (HTTP 403)"
    if status == 404:
        return (f"knows no workspace {connection.workspace!r}, or is not TrustGraph's API gateway "
                f"(HTTP 404 for /{path.split('?')[0]})")
    return f"refused the connection (HTTP {status})"


def _scrub(text: str, connection: Connection) -> str:
    """A library's message about our connection, never showing the token."""
    if connection.token:
        text = text.replace(connection.token, "***").replace(quote(connection.token, safe=""), "***")
    return text


class Session:
    """The request socket, authenticated: ``async with Session(connection) as session``."""

    def __init__(self, connection: Connection):
        self.connection = connection
        self._ids = itertools.count(1)
        self._socket: Any = None
        self._reader: _Reader | None = None

    async def __aenter__(self) -> Session:
        self._socket = await _connect(self.connection, "api/v1/socket")
        self._reader = _Reader(self.connection, self._socket, "while authenticating")
        try:
            await self._socket.send(json.dumps({"type": "auth", "token": self.connection.token or ""}))
            while True:
                frame = await self._reader.frame()
                if frame.get("type") == "auth-ok":
                    break
                if frame.get("type") == "auth-failed":
                    raise GatewayError(self.connection.shown, _refusal(401, self.connection))
        except BaseException:
            await self._socket.close()
            raise
        return self

    async def __aexit__(self, *exc) -> None:
        await self._socket.close()

    async def request(self, service: str, body: dict, what: str) -> AsyncIterator[dict]:
        """Each response of a request to one of the flow's services, until the last."""
        request_id = f"tg-trace-{next(self._ids)}"
        envelope = {"id": request_id, "workspace": self.connection.workspace, "service": service,
                    "flow": self.connection.flow, "request": body}
        try:
            await self._socket.send(json.dumps(envelope))
        except ConnectionClosed:
            raise Closed(self.connection.shown, f"closed the connection {what}") from None
        reader = _Reader(self.connection, self._socket, what)
        while True:
            frame = await reader.frame()
            if frame.get("id") != request_id:
                continue
            response = frame.get("response")
            error = frame.get("error") or (response.get("error") if isinstance(response, dict) else None)
            if error:
                raise GatewayError(self.connection.shown, self._explain(error))
            if not isinstance(response, dict):
                raise reader.fail(f"sent a malformed frame {what}: no response object")
            yield response
            if frame.get("complete"):
                return

    def _explain(self, error) -> str:
        if not isinstance(error, dict):
            return f"answered with an error: {_excerpt(json.dumps(error))}"
        kind, message = str(error.get("type") or "error"), str(error.get("message") or "")
        workspace, flow = self.connection.workspace, self.connection.flow
        if kind == "workspace-not-found":
            return f"knows no workspace {workspace!r}"
        if kind in ("auth-required", "access-denied"):
            return f"denied access to workspace {workspace!r} ({kind})"
        if message.startswith("Invalid flow"):
            return f"knows no flow {flow!r} in workspace {workspace!r} ('tg-show-flows' lists them)"
        if "not supported by flow" in message:
            return f"flow {flow!r} has no triples query service"
        return f"answered with an error: {kind}: {message}"

    async def triples(self, collection: str, *, graph: str | None = None, subject: str | None = None,
                      limit: int, counted: Callable[[int], None] | None = None) -> list[ox.Quad]:
        """The stored triples of a collection matching a graph or a subject, as quads. More than
        ``limit`` is an error: the gateway cannot page, so a bigger answer would be cut."""
        body: dict = {"collection": collection, "limit": limit + 1, "streaming": True, "batch-size": BATCH_SIZE}
        if graph is not None:
            body["g"] = graph
        if subject is not None:
            body["s"] = {"t": "i", "i": subject}
        what = f"while reading collection {collection!r}" + (f" graph {graph}" if graph else f" node {subject}")
        quads: list[ox.Quad] = []
        rows = 0
        async for response in self.request("triples", body, what):
            batch = response.get("response") or []
            if not isinstance(batch, list):
                raise GatewayError(self.connection.shown, f"sent a malformed frame {what}: 'response' is no list")
            rows += len(batch)
            if rows > limit:
                raise GatewayError(self.connection.shown, f"collection {collection!r} holds more than {limit} "
                                   f"triples in {graph or subject}; raise --limit (the gateway's triples "
                                   "query cannot page, so a pull is never cut short)")
            try:
                quads.extend(triples_to_quads(batch))
            except WireError as exc:
                raise GatewayError(self.connection.shown, f"sent a malformed triple {what}: {exc.problem}") from None
            if counted is not None:
                counted(len(batch))
        return quads


async def pull_quads(connection: Connection, collection: str, *, limit: int = DEFAULT_LIMIT,
                     counted: Callable[[int], None] | None = None) -> list[ox.Quad]:
    """A collection's stored traces: every triple of its explainability graphs, and the nodes
    they link to that are stored elsewhere (followed until none is missing), each quad once."""
    async with Session(connection) as session:
        found: dict[ox.Quad, None] = {}
        for graph in EXPLAIN_GRAPHS:
            for quad in await session.triples(collection, graph=graph, limit=limit, counted=counted):
                found.setdefault(quad, None)
        if not found:
            raise GatewayError(connection.shown, f"collection {collection!r} of workspace "
                               f"{connection.workspace!r} holds no explainability triples (in "
                               f"{' or '.join(EXPLAIN_GRAPHS)}); is the collection's name right?")
        asked: set = set()
        while missing := sorted(_missing_nodes(found) - asked):
            for node in missing:
                asked.add(node)
                for quad in await session.triples(collection, subject=node, limit=limit, counted=counted):
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


def nquads(quads: Iterable[ox.Quad]) -> bytes:
    """Quads as N-Quads, in the order given (a pull's is the store's, which is sorted: two pulls of
    the same store are the same file)."""
    return ox.serialize(quads, format=ox.RdfFormat.N_QUADS) or b""


async def check_flow(connection: Connection) -> None:
    """The token, workspace and flow are good: the live export would otherwise accept an unknown
    flow's socket and close it without a word."""
    async with Session(connection) as session:
        body = {"collection": "default", "limit": 1, "streaming": True, "batch-size": 1, "s": {
            "t": "i", "i": "urn:tg-trace:probe"}}
        async for _ in session.request("triples", body, "while checking the flow"):
            pass


class Export:
    """The flow's live export of its triples-store queue: ``async for frame in export``."""

    def __init__(self, connection: Connection):
        self.connection = connection
        self._socket = None

    async def open(self) -> None:
        self._socket = await _connect(self.connection, f"api/v1/flow/{quote(self.connection.flow, safe='')}"
                                      "/export/triples", {"token": self.connection.token or "",
                                                          "workspace": self.connection.workspace})

    async def close(self) -> None:
        if self._socket is not None:
            await self._socket.close()
            self._socket = None

    async def frames(self) -> AsyncIterator[Frame]:
        reader = _Reader(self.connection, self._socket, "while exporting")
        while True:
            # An idle flow sends nothing for hours: no time limit here.
            data = await reader.frame(patient=True)
            yield parse_frame(data, self.connection.shown)


@dataclass
class Frame:
    """One message of the flow's triples-store queue."""

    id: str
    collection: str
    triples: list  # wire triples, as the gateway sent them

    def explainability(self) -> Frame:
        """The frame with its explainability triples only, and the default graph's nodes a trace
        links to (extraction's documents); the extracted knowledge is left out."""
        return Frame(self.id, self.collection, kept_triples(self.triples))

    def quads(self, where: str) -> list[ox.Quad]:
        try:
            return triples_to_quads(self.triples)
        except WireError as exc:
            raise GatewayError(where, f"sent a malformed export frame: {exc.problem}") from None

    def explain_event(self) -> dict:
        """The frame as an explain event (a line of an explain stream, which tg-trace lint reads)."""
        return {"message_type": "explain", "explain_id": self.id, "collection": self.collection,
                "explain_triples": self.triples}


# Extraction writes the document node itself to the default graph, beside the extracted facts:
# of the default graph only such nodes are kept (a trace links to them).
KEPT_DEFAULT_TYPES = frozenset({TG + "Document"})


def kept_triples(triples: list) -> list:
    """The explainability triples of a frame, and the default graph's nodes of KEPT_DEFAULT_TYPES."""
    kept_subjects = {json.dumps(t.get("s"), sort_keys=True) for t in triples if isinstance(t, dict)
                     and not t.get("g") and _is_type(t, KEPT_DEFAULT_TYPES)}
    return [t for t in triples if isinstance(t, dict) and (
        t.get("g") in EXPLAIN_GRAPHS
        or (not t.get("g") and kept_subjects and json.dumps(t.get("s"), sort_keys=True) in kept_subjects))]


def _is_type(triple: dict, classes: frozenset) -> bool:
    p, o = triple.get("p"), triple.get("o")
    return isinstance(p, dict) and p.get("i") == RDF_TYPE and isinstance(o, dict) and o.get("i") in classes


def parse_frame(data: dict, where: str) -> Frame:
    metadata = data.get("metadata")
    triples = data.get("triples")
    if not isinstance(metadata, dict) or not isinstance(triples, list):
        raise GatewayError(where, "sent a malformed export frame: expected {\"metadata\": {...}, \"triples\": [...]}")
    return Frame(id=str(metadata.get("id") or ""), collection=str(metadata.get("collection") or ""),
                 triples=triples)
