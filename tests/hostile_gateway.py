"""A hostile TrustGraph gateway for the tests: a websockets server on 127.0.0.1 that speaks the
gateway's protocol (``/api/v1/socket``: first-frame auth, then ``{"id", "response",
"complete"}`` answers; ``/api/v1/flow/FLOW/export/triples``: export frames) and does whatever a
test tells it to, in a thread of the test's process: ``with HostileGateway(socket=..., export=...,
handshake=...) as gateway``, then ``gateway.url``.

- ``socket(session, message)``: each request after the auth (the auth itself is answered
  ``auth-ok``, its token kept in ``tokens``); ``session.send(obj)`` sends a frame (a dict as JSON,
  bytes or str as they are);
- ``export(session)``: the whole export conversation;
- ``handshake(request)``: an HTTP answer instead of the upgrade, as ``(status, headers, body)``,
  or None to accept.

What it saw is kept: ``paths`` (each request's path and query), ``tokens`` (of auth frames) and
``requests`` (each request message after the auth).
"""

from __future__ import annotations

import asyncio
import json
import threading
from http import HTTPStatus

from websockets.asyncio.server import serve
from websockets.datastructures import Headers
from websockets.http11 import Response

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
DERIVED = "http://www.w3.org/ns/prov#wasDerivedFrom"
TG = "https://trustgraph.ai/ns/"


def triple(subject: str, predicate: str, obj: dict, graph: str | None = "urn:graph:retrieval") -> dict:
    found = {"s": {"t": "i", "i": subject}, "p": {"t": "i", "i": predicate}, "o": obj}
    if graph:
        found["g"] = graph
    return found


def iri(value: str) -> dict:
    return {"t": "i", "i": value}


def literal(value: str) -> dict:
    return {"t": "l", "v": value}


class Session:
    def __init__(self, socket) -> None:
        self.socket = socket

    async def send(self, frame) -> None:
        await self.socket.send(frame if isinstance(frame, (bytes, str)) else json.dumps(frame))


class HostileGateway:
    def __init__(self, socket=None, export=None, handshake=None, max_size: int | None = None) -> None:
        self.on_socket, self.on_export, self.on_handshake = socket, export, handshake
        self.max_size = max_size
        self.paths: list[str] = []
        self.tokens: list[str] = []
        self.requests: list[dict] = []
        self.ready = threading.Event()
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_until_complete, args=(self._main(),), daemon=True)

    def __enter__(self) -> HostileGateway:
        self.thread.start()
        assert self.ready.wait(10)
        return self

    def __exit__(self, *exc) -> None:
        self.loop.call_soon_threadsafe(self.stop.set)
        self.thread.join(10)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    async def _main(self) -> None:
        self.stop = asyncio.Event()
        async with serve(self._handle, "127.0.0.1", 0, process_request=self._process_request,
                         max_size=self.max_size, compression=None) as server:
            self.port = server.sockets[0].getsockname()[1]
            self.ready.set()
            await self.stop.wait()

    def _process_request(self, connection, request):
        self.paths.append(request.path)
        if self.on_handshake is None:
            return None
        answer = self.on_handshake(request)
        if answer is None:
            return None
        status, headers, body = answer
        return Response(status, HTTPStatus(status).phrase, Headers(headers), body)

    async def _handle(self, socket) -> None:
        session = Session(socket)
        try:
            if socket.request.path.startswith("/api/v1/flow/"):
                if self.on_export is not None:
                    await self.on_export(session)
                await socket.wait_closed()
                return
            async for raw in socket:
                message = json.loads(raw)
                if message.get("type") == "auth":
                    self.tokens.append(message.get("token"))
                    await session.send({"type": "auth-ok", "default_workspace": "default"})
                    continue
                self.requests.append(message)
                if self.on_socket is not None:
                    await self.on_socket(session, message)
        except Exception:  # the client went away mid-answer: nothing to do
            return


async def answer(session: Session, message: dict, triples: list, complete: bool = True) -> None:
    """One answer to a request: a batch of wire triples."""
    await session.send({"id": message["id"], "response": {"response": triples}, "complete": complete})


async def flow_ok(session: Session, message: dict) -> bool:
    """Answers watch's flow check (a query for the probe node) with an empty, complete answer."""
    body = message.get("request", {})
    if body.get("s", {}).get("i") == "urn:tg-trace:probe":
        await answer(session, message, [])
        return True
    return False
