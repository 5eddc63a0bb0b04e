"""A real TrustGraph 2.11.1 deployment on loopback, as the session-scoped pytest fixture ``trustgraph``.

``tests/conftest.py`` registers the fixture: a test takes ``trustgraph`` as an argument, and every
test module of a session shares the one deployment. The object it gives:

- ``url``: ``http://127.0.0.1:PORT/``, TrustGraph's own ``api-gateway``;
- ``token``: an API key (``tg_...``); the no-auth IAM accepts any ``tg_`` key, and the gateway
  answers 401 to a token that is neither an API key nor a JWT (e.g. ``"wrong"``);
- ``workspace`` (``"default"``) and ``flow`` (``"default"``);
- ``publish(events, collection)``: events is a list of ``{"id": explain_id, "triples": [wire
  triples]}``; each is sent as one ``Triples`` message (metadata id = the explain id) to the flow's
  triples-store queue with TrustGraph's own producer, as its services send explainability; returns
  once TrustGraph's triples writer has stored every one of them (or raises, logs attached);
- ``publish_capture(path, collection)``: publishes an example capture (``examples/*.json`` wire
  triples or explain events, ``*.jsonl`` explain streams, ``*.nq``) and returns its events: wire
  triples are grouped into one event per explain entity (a triple ``X rdf:type prov:Entity``
  starts the event of ``X``, as each of TrustGraph's explain events starts), so extraction's
  document node, in the default graph, is one message as the librarian writes it (an ``.nq`` has
  no repeats: a triple that several events repeat is sent with the first);
- ``send(events, collection, lanes=32)``: the same messages as ``publish``, over many producers at
  once, returning once they are sent (not stored): traffic for a watch (the soak test);
- ``stop_gateway()`` / ``start_gateway()``: stop, then restart only the api-gateway (same port);
  ``start_gateway`` returns once it serves the flow again. The deployment is shared by the session:
  a test that stops the gateway starts it again (in a ``finally``);
- ``query(request)``: POSTs a request to the flow's triples service, returns the gateway's JSON;
- ``logs()``: the tail of every process's log, for a failure message.

``deployment()`` is the same as a context manager, for a test that needs a deployment of its own.
The gateway listens on every interface (it has no host option); everything else on 127.0.0.1.

Every method is synchronous, and may be called from a test that runs an event loop.

What runs: RabbitMQ (Debian's ``rabbitmq-server``, a private node: its own node name, epmd, ports
and directories, no plugins), TrustGraph's ``processor-group`` twice (config-svc first, as the other
processors lose their first config request if it is not consuming; then the no-auth IAM, flow-svc,
the Cassandra triples writer and triples query service) and ``api-gateway``, all with
``--no-metrics --no-loki-enabled``. Only Cassandra is replaced, by the in-memory driver in
``gateway_store.py``, under which TrustGraph's own store code runs; its query semantics are then
2.11.1's (checked in ``test_gateway_rig.py``): an absent ``g`` matches every graph, ``""`` the
default graph only, ``"*"`` nothing; results come sorted by (graph, s, p, o); a streaming full scan
defaults to a limit of 10000. The workspace is created, a blueprint put and flow ``default``
started through the gateway with TrustGraph's own CLI functions.

The fixture skips only where ``rabbitmq-server`` is not installed (and fails there in CI, as
``docs_support.require`` does); any other failure to start is an error carrying the processes'
logs. Teardown kills every process and removes the temporary directory, also after a failure.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from docs_support import require

HERE = Path(__file__).resolve().parent
# Debian's /usr/sbin/rabbitmq-server only lets root or the rabbitmq user run it, and then as the
# system node; the script it wraps starts a node as configured by the environment.
RABBITMQ_SERVER = Path("/usr/lib/rabbitmq/bin/rabbitmq-server")
EPMD = "epmd"

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
PROV_ENTITY = "http://www.w3.org/ns/prov#Entity"

START_TIMEOUT = 60.0
PUBLISH_TIMEOUT = 30.0

# The part of TrustGraph's graph-store blueprint (trustgraph-templates' graph-store module) that
# stores and queries triples; the topic names are those its helpers make.
BLUEPRINT = {
    "description": "Triples store and query (test deployment)",
    "parameters": {},
    "blueprint": {},
    "flow": {
        "triples-write:{id}": {"topics": {"input": "flow:tg:triples-store:{workspace}:{id}"}},
        "triples-query:{id}": {"topics": {"request": "request:tg:triples:{workspace}:{id}",
                                          "response": "response:tg:triples:{workspace}:{id}"}},
    },
    "interfaces": {
        "triples-store": {"flow": "flow:tg:triples-store:{workspace}:{id}"},
        "triples": {"request": "request:tg:triples:{workspace}:{id}",
                    "response": "response:tg:triples:{workspace}:{id}"},
    },
}


class RigError(RuntimeError):
    """The deployment did not start or did not do what was asked; the message has the logs."""


def _run(coroutine):
    """Run a coroutine to its end, also when called from a test that is itself in an event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _port_open(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def group_events(triples: list[dict]) -> list[dict]:
    """Wire triples in emission order as explain events: ``X rdf:type prov:Entity`` starts the
    event of ``X`` (each of TrustGraph's explain events starts so); triples before the first such
    triple (extraction's vocabulary labels) go with the first event."""
    events: list[dict] = []
    leading: list[dict] = []
    for t in triples:
        starts = (t["p"].get("i") == RDF_TYPE and t["o"].get("t") == "i"
                  and t["o"].get("i") == PROV_ENTITY and t["s"].get("t") == "i")
        if starts:
            events.append({"id": t["s"]["i"], "triples": leading + [t]})
            leading = []
        elif events:
            events[-1]["triples"].append(t)
        else:
            leading.append(t)
    if leading:
        raise ValueError("no explain entity (a triple X rdf:type prov:Entity) in the triples")
    return events


def _event(found: dict) -> dict:
    graph = found.get("explain_graph")
    triples = [t if "g" in t or not graph else {**t, "g": graph} for t in found["explain_triples"]]
    return {"id": found["explain_id"], "triples": triples}


def capture_events(path: str | os.PathLike) -> list[dict]:
    """The explain events of an example capture (see ``publish_capture``)."""
    path = Path(path)
    if path.suffix in (".nq", ".nquads"):
        import pyoxigraph as ox
        from wire_support import wire_quad

        with path.open("rb") as f:
            return group_events([wire_quad(q) for q in ox.parse(f, format=ox.RdfFormat.N_QUADS)])
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        items = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        items = json.loads(text)
    if any("explain_id" in i for i in items):  # explain events; a stream's other messages (answer text) skipped
        return [_event(i) for i in items if "explain_id" in i]
    return group_events(items)


class TrustGraph:
    """The running deployment (see the module's docstring)."""

    def __init__(self, root: Path):
        self.root = root
        self.workspace = "default"
        self.flow = "default"
        self.token = "tg_trace-test-rig"
        self.amqp_port = _free_port()
        self.gateway_port = _free_port()
        self.url = f"http://127.0.0.1:{self.gateway_port}/"
        self.stored_log = root / "stored.jsonl"
        self.stored_log.touch()
        self._processes: dict[str, subprocess.Popen] = {}
        self._logs: dict[str, Path] = {}

    # -- processes --------------------------------------------------------------------------

    def _spawn(self, name: str, argv: list[str], env: dict | None = None) -> subprocess.Popen:
        log = self.root / f"{name}.log"
        self._logs[name] = log
        with log.open("ab") as out:
            # A session of its own, so stopping it reaches every child (RabbitMQ's Erlang VM).
            process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                       env=env or self._python_env(), cwd=self.root, start_new_session=True)
        self._processes[name] = process
        return process

    def _python_env(self) -> dict:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("TRUSTGRAPH_", "CASSANDRA_"))}
        env["PYTHONUNBUFFERED"] = "1"
        return env

    def _stop(self, name: str, timeout: float = 10.0) -> None:
        process = self._processes.pop(name, None)
        if process is None or process.poll() is not None:
            return
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5.0)):
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                return
            try:
                process.wait(wait)
                return
            except subprocess.TimeoutExpired:
                continue

    def logs(self, lines: int = 40) -> str:
        parts = []
        for name, path in self._logs.items():
            try:
                tail = path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:]
            except OSError:
                tail = ["(no log)"]
            parts.append(f"--- {name} ({path}) ---\n" + "\n".join(tail))
        return "\n".join(parts)

    def _fail(self, what: str) -> RigError:
        return RigError(f"{what}\n{self.logs()}")

    def _wait(self, what: str, ready, timeout: float = START_TIMEOUT, watch: tuple[str, ...] = ()):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            for name in watch:
                process = self._processes.get(name)
                if process is None or process.poll() is not None:
                    code = "stopped" if process is None else process.returncode
                    raise self._fail(f"{name} exited ({code}) while waiting for {what}")
            try:
                found = ready()
                if found:
                    return found
            except Exception as e:  # not ready yet: keep the reason for the timeout message
                last = e
            time.sleep(0.2)
        raise self._fail(f"timed out after {timeout:.0f} s waiting for {what}" + (f" (last: {last!r})" if last else ""))

    def start(self) -> None:
        self._start_rabbitmq()
        self._start_group("config", [("trustgraph.config.service.service.Processor", "config-svc")])
        self._wait("config-svc to consume its request queue",
                   lambda: self._consumers("tg.request.config.config-svc"), watch=("config",))
        self._start_group("services", [
            ("trustgraph.iam.noauth.service.Processor", "iam-svc"),
            ("trustgraph.flow.service.Processor", "flow-svc"),
            ("trustgraph.storage.triples.cassandra.write.Processor", "triples-write"),
            ("trustgraph.query.triples.cassandra.service.Processor", "triples-query"),
        ])
        self._spawn_gateway()
        self._wait("the api-gateway to accept connections", lambda: _port_open(self.gateway_port),
                   watch=("services", "gateway"))
        self._wait("the workspace to be created", self._create_workspace, watch=("services", "gateway"))
        self._wait("the flow blueprint to be put", self._put_blueprint, watch=("services", "gateway"))
        self._wait("flow default to start", self._start_flow, watch=("services", "gateway"))
        flow = f"{self.workspace}:{self.flow}"
        self._wait("the triples writer to consume the flow's triples-store queue", lambda: self._consumers(
            f"tg.flow.triples-store:{flow}.triples-write--{self.workspace}--{self.flow}--input"),
            watch=("services",))
        self._wait("the triples query service to consume its requests", lambda: self._consumers(
            f"tg.request.triples:{flow}.triples-query--{self.workspace}--{self.flow}--request"),
            watch=("services",))
        self._wait_flow_served()

    def close(self) -> None:
        for name in ("gateway", "services", "config", "rabbitmq", "epmd"):
            self._stop(name)
        for name in list(self._processes):
            self._stop(name)

    def _start_rabbitmq(self) -> None:
        dist_port, epmd_port = _free_port(), _free_port()
        base = self.root / "rabbitmq"
        base.mkdir()
        (base / "rabbitmq.conf").write_text("")
        (base / "enabled_plugins").write_text("[].\n")
        (base / "rabbitmq-env.conf").write_text("")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(base),  # the Erlang cookie is written here
            "LANG": "C.UTF-8",
            "RABBITMQ_CONF_ENV_FILE": str(base / "rabbitmq-env.conf"),
            "RABBITMQ_CONFIG_FILE": str(base / "rabbitmq"),
            "RABBITMQ_ADVANCED_CONFIG_FILE": str(base / "advanced.config"),
            "RABBITMQ_ENABLED_PLUGINS_FILE": str(base / "enabled_plugins"),
            "RABBITMQ_NODENAME": f"tgtrace-rig-{os.getpid()}-{self.amqp_port}@localhost",
            "RABBITMQ_NODE_IP_ADDRESS": "127.0.0.1",
            "RABBITMQ_NODE_PORT": str(self.amqp_port),
            "RABBITMQ_DIST_PORT": str(dist_port),
            "RABBITMQ_MNESIA_BASE": str(base / "mnesia"),
            "RABBITMQ_LOG_BASE": str(base / "log"),
            "RABBITMQ_PID_FILE": str(base / "rabbitmq.pid"),
            "RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS": "-kernel inet_dist_use_interface {127,0,0,1}",
            "ERL_EPMD_PORT": str(epmd_port),
            "ERL_EPMD_ADDRESS": "127.0.0.1",
        }
        # Our own epmd in the foreground, so teardown stops it (Erlang would start a daemon that
        # outlives the node).
        self._spawn("epmd", [EPMD, "-port", str(epmd_port), "-address", "127.0.0.1"], env=env)
        self._wait("epmd to listen", lambda: _port_open(epmd_port), watch=("epmd",))
        self._spawn("rabbitmq", [str(RABBITMQ_SERVER)], env=env)
        self._wait("RabbitMQ to accept AMQP connections", lambda: _port_open(self.amqp_port),
                   watch=("rabbitmq",))

    def _start_group(self, name: str, processors: list[tuple[str, str]]) -> None:
        import yaml

        params = {"pubsub_backend": "rabbitmq", "rabbitmq_host": "127.0.0.1", "rabbitmq_port": self.amqp_port}
        config = {"processors": [{"class": cls, "params": {"id": pid, **params}} for cls, pid in processors]}
        group = self.root / f"{name}.yaml"
        group.write_text(yaml.safe_dump(config))
        self._spawn(name, [sys.executable, str(HERE / "gateway_store.py"), str(group), str(self.stored_log)])

    def _spawn_gateway(self) -> None:
        self._spawn("gateway", [
            sys.executable, "-c", "import sys; from trustgraph.gateway import run; sys.argv[0] = 'api-gateway'; run()",
            "--pubsub-backend", "rabbitmq", "--rabbitmq-host", "127.0.0.1",
            "--rabbitmq-port", str(self.amqp_port), "--port", str(self.gateway_port),
            "--no-metrics", "--no-loki-enabled",
        ])

    # -- readiness ---------------------------------------------------------------------------

    def _consumers(self, queue: str) -> bool:
        async def count() -> int:
            import aio_pika

            connection = await aio_pika.connect(f"amqp://guest:guest@127.0.0.1:{self.amqp_port}/")
            async with connection:
                channel = await connection.channel()
                declared = await channel.declare_queue(queue, passive=True)
                return declared.declaration_result.consumer_count

        return _run(count()) > 0

    def _create_workspace(self) -> bool:
        from trustgraph.cli._iam import call_iam

        call_iam(self.url, self.token, {"operation": "create-workspace",
                                        "workspace_record": {"id": self.workspace, "enabled": True}})
        return True

    def _put_blueprint(self) -> bool:
        from trustgraph.cli.put_flow_blueprint import put_flow_blueprint

        put_flow_blueprint(self.url, "triples-store", BLUEPRINT, token=self.token, workspace=self.workspace)
        return True

    def _start_flow(self) -> bool:
        from trustgraph.api import Api
        from trustgraph.cli.start_flow import start_flow

        # A retry after a start whose answer was lost must not fail on "Flow already exists".
        if self.flow not in Api(self.url, token=self.token, workspace=self.workspace).flow().list():
            start_flow(self.url, "triples-store", self.flow, "tg-trace test flow", token=self.token,
                       workspace=self.workspace)
        return True

    def query(self, request: dict) -> dict:
        """POST a request to the flow's triples service; the gateway's JSON answer."""
        body = json.dumps({"workspace": self.workspace, **request}).encode()
        post = urllib.request.Request(
            f"{self.url}api/v1/flow/{self.flow}/service/triples", data=body, method="POST",
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        with urllib.request.urlopen(post, timeout=10) as answer:
            return json.load(answer)

    def _wait_flow_served(self) -> None:
        def served() -> bool:
            found = self.query({"collection": "default", "limit": 1})
            if "error" in found:
                raise RigError(json.dumps(found["error"]))
            return True

        self._wait("the api-gateway to serve the flow's triples service", served, watch=("gateway", "services"))

    # -- what tests use ----------------------------------------------------------------------

    def stop_gateway(self) -> None:
        self._stop("gateway")
        deadline = time.monotonic() + 10
        while _port_open(self.gateway_port) and time.monotonic() < deadline:
            time.sleep(0.1)

    def start_gateway(self) -> None:
        if "gateway" in self._processes and self._processes["gateway"].poll() is None:
            return
        self._spawn_gateway()
        self._wait("the restarted api-gateway to accept connections", lambda: _port_open(self.gateway_port),
                   watch=("gateway",))
        self._wait_flow_served()

    def publish(self, events: list[dict], collection: str) -> None:
        with self.stored_log.open(encoding="utf-8") as f:
            already = sum(1 for _ in f)
        _run(self._send(events, collection))
        wanted = collections.Counter(e["id"] for e in events)

        def stored() -> bool:
            with self.stored_log.open(encoding="utf-8") as f:
                lines = f.read().splitlines()[already:]
            seen = collections.Counter()
            for line in lines:
                found = json.loads(line)
                if found["collection"] == collection and found["workspace"] == self.workspace:
                    seen[found["id"]] += 1
            return all(seen[i] >= n for i, n in wanted.items())

        self._wait(f"the triples writer to store {len(events)} events in collection {collection!r}",
                   stored, timeout=PUBLISH_TIMEOUT, watch=("services",))

    def send(self, events: list[dict], collection: str, lanes: int = 32) -> None:
        """Sends the events as ``publish`` does, over ``lanes`` producers at once (RabbitMQ confirms
        each message: one producer sends about 50 a second here, 32 about 250), and returns once
        they are sent, not stored: for traffic that only a watch reads."""
        _run(self._send(events, collection, lanes))

    async def _send(self, events: list[dict], collection: str, lanes: int = 1) -> None:
        from trustgraph.base.pubsub import get_async_pubsub
        from trustgraph.base.sender_pool import SenderPool
        from trustgraph.messaging.translators.primitives import TripleTranslator
        from trustgraph.schema import Metadata, Triples

        backend = get_async_pubsub(pubsub_backend="rabbitmq", rabbitmq_host="127.0.0.1",
                                   rabbitmq_port=self.amqp_port)
        pools = [SenderPool(backend=backend) for _ in range(lanes)]
        decode = TripleTranslator().decode

        async def lane(pool, share: list[dict]) -> None:
            producer = await pool.add_producer(
                topic=f"flow:tg:triples-store:{self.workspace}:{self.flow}", schema=Triples)
            for event in share:
                await producer.send(Triples(metadata=Metadata(id=event["id"], collection=collection),
                                            triples=[decode(t) for t in event["triples"]]), wait=True)

        try:
            for pool in pools:
                await pool.start()
            await asyncio.gather(*(lane(pool, events[n::lanes]) for n, pool in enumerate(pools)))
        finally:
            for pool in pools:
                await pool.stop()
            await backend.close()

    def publish_capture(self, path: str | os.PathLike, collection: str) -> list[dict]:
        events = capture_events(path)
        self.publish(events, collection)
        return events


@contextlib.contextmanager
def deployment(parent: str | os.PathLike | None = None):
    """A started ``TrustGraph`` in a new directory under ``parent`` (the system's temporary
    directory by default); on leaving, also after a failure to start, every process is stopped and
    the directory removed."""
    root = Path(tempfile.mkdtemp(prefix="tg-rig-", dir=parent))
    rig = TrustGraph(root)
    try:
        rig.start()
        yield rig
    finally:
        rig.close()
        shutil.rmtree(root, ignore_errors=True)


@pytest.fixture(scope="session")
def trustgraph():
    require(RABBITMQ_SERVER.exists() or bool(shutil.which("rabbitmq-server")),
            "rabbitmq-server is not installed (apt-get install rabbitmq-server): "
            "the tests against a running TrustGraph need it")
    if not RABBITMQ_SERVER.exists():
        raise RigError(f"rabbitmq-server is installed but {RABBITMQ_SERVER} is missing")
    with deployment() as rig:
        yield rig
