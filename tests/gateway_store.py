"""An in-memory Cassandra for TrustGraph's real processors, and the entry point that runs them.

TrustGraph 2.11.1 keeps graphs and quoted triples only in its Cassandra store, and there is no
Cassandra on a test machine. Rather than re-implementing the store's query semantics (and getting
them subtly wrong), this replaces the *driver*: ``cassandra.cluster.Cluster``, ``cassandra.query``
and ``cassandra.auth`` are modules whose sessions run the CQL TrustGraph's own code sends
(``trustgraph/direct/cassandra_kg.py``, ``trustgraph/tables/config.py``) against tables held in
memory. So TrustGraph's writer and query service run unchanged, and with them their semantics:

- tables are ordered as Cassandra orders a partition, by the clustering columns ascending
  (text compares as UTF-8 bytes, which is Python's code point order); a ``LIMIT`` cuts rows before
  TrustGraph's own Python filters run, as it does against a real node;
- a statement's placeholders (``?`` prepared, ``%s`` simple) are bound in order; ``counter``
  columns add; ``DELETE`` with the partition key only drops the partition.

Run as ``python gateway_store.py GROUP_YAML STORED_LOG`` it installs the stand-in and runs
TrustGraph's ``processor-group``. Two more things happen in that process, both needed only to run on
one machine quickly: the no-auth IAM answers ``get-signing-key-public`` with a real Ed25519 key (the
gateway otherwise retries for 60 s at start), and after TrustGraph's triples writer has stored a
message its metadata id and collection are appended to STORED_LOG, so a test knows when a publish
has landed.
"""

from __future__ import annotations

import json
import re
import sys
import threading
import types
from collections import namedtuple

_LOCK = threading.RLock()
# keyspace -> table name -> _Table; one process holds every processor of a group, so the
# writer and the query service share this.
_KEYSPACES: dict[str, dict[str, _Table]] = {}


class InvalidRequest(Exception):
    """A statement this stand-in does not understand (Cassandra's own name for the error)."""


class _Table:
    def __init__(self, name: str, columns: list[str], counters: set[str], partition: list[str],
                 clustering: list[str]):
        self.name = name
        self.columns = columns
        self.counters = counters
        self.partition = partition
        self.clustering = clustering
        # partition key tuple -> clustering key tuple -> row dict
        self.partitions: dict[tuple, dict[tuple, dict]] = {}

    def upsert(self, values: dict) -> None:
        pkey = tuple(values.get(c) for c in self.partition)
        ckey = tuple(values.get(c) for c in self.clustering)
        for column in self.partition + self.clustering:
            if values.get(column) is None:
                raise InvalidRequest(f"{self.name}: key column {column} is null")
        row = self.partitions.setdefault(pkey, {}).setdefault(ckey, {})
        row.update(values)

    def rows(self, where: dict):
        """Rows matching the equality conditions, in Cassandra's order within a partition."""
        if all(c in where for c in self.partition):
            keys = [tuple(where[c] for c in self.partition)]
        else:
            keys = list(self.partitions)  # ALLOW FILTERING: a scan of every partition
        for pkey in keys:
            part = self.partitions.get(pkey)
            if not part:
                continue
            for ckey in sorted(part):
                row = part[ckey]
                if all(row.get(c) == v for c, v in where.items()):
                    yield row

    def delete(self, where: dict) -> None:
        if set(where) == set(self.partition):
            self.partitions.pop(tuple(where[c] for c in self.partition), None)
            return
        for row in list(self.rows(where)):
            pkey = tuple(row[c] for c in self.partition)
            ckey = tuple(row[c] for c in self.clustering)
            self.partitions[pkey].pop(ckey, None)


def _split_commas(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += ch
    if current.strip():
        parts.append(current.strip())
    return parts


_CREATE_KS = re.compile(r"create keyspace (?:if not exists )?(\w+)", re.I)
_DROP_KS = re.compile(r"drop keyspace (?:if exists )?(\w+)", re.I)
_CREATE_TABLE = re.compile(r"create table (?:if not exists )?(\w+) \((.*)\)$", re.I)
_INSERT = re.compile(r"insert into (\w+) \((.*?)\) values \((.*?)\)$", re.I)
_SELECT = re.compile(r"select (.*?) from (\w+)(?: where (.*?))?(?: limit (\S+))?(?: allow filtering)?$", re.I)
_UPDATE = re.compile(r"update (\w+) set (\w+) = (\w+) \+ (\d+) where (.*)$", re.I)
_DELETE = re.compile(r"delete from (\w+) where (.*)$", re.I)
_CONDITION = re.compile(r"(\w+) = (\?|%s|'[^']*')$")


class _Params:
    def __init__(self, values):
        self.values = list(values or ())
        self.at = 0

    def take(self, token: str):
        if token in ("?", "%s"):
            value = self.values[self.at]
            self.at += 1
            return value
        if token.startswith("'"):
            return token[1:-1]
        return int(token)


def _conditions(text: str | None, params: _Params) -> dict:
    found = {}
    if not text:
        return found
    for part in re.split(r" and ", text, flags=re.I):
        m = _CONDITION.match(part.strip())
        if not m:
            raise InvalidRequest(f"unsupported condition: {part!r}")
        found[m.group(1)] = params.take(m.group(2))
    return found


class ResultSet(list):
    """Rows of one page (every row: the stand-in never pages)."""

    has_more_pages = False

    @property
    def current_rows(self):
        return self

    def fetch_next_page(self):
        raise InvalidRequest("no more pages")

    def one(self):
        return self[0] if self else None


class Session:
    def __init__(self):
        self.keyspace: str | None = None

    def set_keyspace(self, keyspace: str) -> None:
        with _LOCK:
            if keyspace not in _KEYSPACES:
                raise InvalidRequest(f"keyspace {keyspace} does not exist")
        self.keyspace = keyspace

    def prepare(self, query: str) -> PreparedStatement:
        return PreparedStatement(query)

    def execute(self, query, parameters=None, *args, **kwargs) -> ResultSet:
        if isinstance(query, BatchStatement):
            with _LOCK:
                for statement, values in query.entries:
                    self.execute(statement, values)
            return ResultSet()
        if isinstance(query, BoundStatement):
            query, parameters = query.prepared, query.values
        text = query.query_string if isinstance(query, (SimpleStatement, PreparedStatement)) else query
        with _LOCK:
            return self._run(" ".join(text.split()).rstrip(";").strip(), _Params(parameters))

    def execute_async(self, query, parameters=None, *args, **kwargs) -> ResponseFuture:
        try:
            return ResponseFuture(self.execute(query, parameters), None)
        except Exception as e:  # reported through the callback, as the driver does
            return ResponseFuture(None, e)

    def shutdown(self) -> None:
        pass

    def _tables(self) -> dict[str, _Table]:
        if self.keyspace is None:
            raise InvalidRequest("no keyspace has been specified")
        return _KEYSPACES[self.keyspace]

    def _table(self, name: str) -> _Table:
        try:
            return self._tables()[name]
        except KeyError:
            raise InvalidRequest(f"unconfigured table {name}") from None

    def _run(self, cql: str, params: _Params) -> ResultSet:
        if m := _CREATE_KS.match(cql):
            _KEYSPACES.setdefault(m.group(1), {})
            return ResultSet()
        if m := _DROP_KS.match(cql):
            _KEYSPACES.pop(m.group(1), None)
            return ResultSet()
        if m := _CREATE_TABLE.match(cql):
            self._create_table(m.group(1), m.group(2))
            return ResultSet()
        if m := _INSERT.match(cql):
            columns = [c.strip() for c in m.group(2).split(",")]
            values = [params.take(t.strip()) for t in m.group(3).split(",")]
            self._table(m.group(1)).upsert(dict(zip(columns, values)))
            return ResultSet()
        if m := _SELECT.match(cql):
            return self._select(m, params)
        if m := _UPDATE.match(cql):
            table, column, same, step, where = m.groups()
            if column != same or column not in self._table(table).counters:
                raise InvalidRequest(f"unsupported update: {cql!r}")
            t = self._table(table)
            keys = _conditions(where, params)
            current = next(t.rows(keys), None)
            t.upsert(keys | {column: (current or {}).get(column, 0) + int(step)})
            return ResultSet()
        if m := _DELETE.match(cql):
            self._table(m.group(1)).delete(_conditions(m.group(2), params))
            return ResultSet()
        raise InvalidRequest(f"unsupported statement: {cql!r}")

    def _create_table(self, name: str, body: str) -> None:
        columns, counters, partition, clustering = [], set(), [], []
        for part in _split_commas(body):
            if part.lower().startswith("primary key"):
                keys = _split_commas(part[part.index("(") + 1:part.rindex(")")])
                first = keys[0]
                partition = ([k.strip() for k in first.strip("()").split(",")]
                             if first.startswith("(") else [first])
                clustering = keys[1:]
            else:
                column, kind = part.split()[:2]
                columns.append(column)
                if kind.lower() == "counter":
                    counters.add(column)
        self._tables().setdefault(name, _Table(name, columns, counters, partition, clustering))

    def _select(self, m: re.Match, params: _Params) -> ResultSet:
        selection, table_name, where, limit = m.groups()
        table = self._table(table_name)
        keys = _conditions(where, params)
        limit = params.take(limit) if limit else None
        if selection.strip() == "*":
            names = [(c, c) for c in table.columns]
        else:
            names = []
            for item in selection.split(","):
                words = item.split()
                names.append((words[0], words[2] if len(words) == 3 else words[0]))
        row_type = namedtuple("Row", [alias for _, alias in names])
        found = ResultSet()
        for row in table.rows(keys):
            if limit is not None and len(found) >= limit:
                break
            found.append(row_type(*(row.get(column) for column, _ in names)))
        return found


class ResponseFuture:
    def __init__(self, rows, error):
        self.rows, self.error = rows, error

    def add_callbacks(self, callback, errback, *args, **kwargs):
        if self.error is not None:
            errback(self.error)
        else:
            callback(self.rows)

    def result(self):
        if self.error is not None:
            raise self.error
        return self.rows


class Cluster:
    def __init__(self, contact_points=None, *args, **kwargs):
        self.contact_points = contact_points

    def connect(self, keyspace=None) -> Session:
        session = Session()
        if keyspace:
            session.set_keyspace(keyspace)
        return session

    def shutdown(self) -> None:
        pass


class SimpleStatement:
    def __init__(self, query_string, *args, fetch_size=None, **kwargs):
        self.query_string = query_string
        self.fetch_size = fetch_size


class PreparedStatement:
    def __init__(self, query_string):
        self.query_string = query_string
        self.fetch_size = None

    def bind(self, values) -> BoundStatement:
        return BoundStatement(self, values)


class BoundStatement:
    def __init__(self, prepared, values=None):
        self.prepared, self.values = prepared, values


class BatchStatement:
    def __init__(self, *args, **kwargs):
        self.entries = []

    def add(self, statement, parameters=None):
        self.entries.append((statement, parameters))


class PlainTextAuthProvider:
    def __init__(self, username=None, password=None):
        self.username, self.password = username, password


def install() -> None:
    """Make ``import cassandra...`` give this stand-in, in this process."""
    package = types.ModuleType("cassandra")
    package.__path__ = []  # a package, so its submodules import
    modules = {
        "cassandra": package,
        "cassandra.cluster": {"Cluster": Cluster, "Session": Session, "ResponseFuture": ResponseFuture},
        "cassandra.query": {"SimpleStatement": SimpleStatement, "BatchStatement": BatchStatement,
                            "PreparedStatement": PreparedStatement, "BoundStatement": BoundStatement},
        "cassandra.auth": {"PlainTextAuthProvider": PlainTextAuthProvider},
    }
    package.InvalidRequest = InvalidRequest
    for name, members in modules.items():
        module = package if name == "cassandra" else types.ModuleType(name)
        if module is not package:
            module.__dict__.update(members)
            setattr(package, name.split(".", 1)[1], module)
        sys.modules[name] = module


def _answer_signing_key() -> None:
    """No-auth IAM answers an empty signing key, and the gateway then retries for 60 s before it
    serves; answer a real Ed25519 public key instead (tokens stay API keys: no JWT is signed)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from trustgraph.iam.noauth import handler
    from trustgraph.schema import IamResponse

    pem = Ed25519PrivateKey.generate().public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo).decode()
    handle = handler.NoAuthHandler.handle

    async def with_key(self, v):
        if v.operation == "get-signing-key-public":
            return IamResponse(signing_key_public=pem)
        return await handle(self, v)

    handler.NoAuthHandler.handle = with_key


def _log_stored(path: str) -> None:
    """After TrustGraph's writer stored a message, append its id and collection to ``path``."""
    from trustgraph.storage.triples.cassandra import write

    store = write.Processor.store_triples

    async def store_and_log(self, workspace, message):
        await store(self, workspace, message)
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps({"workspace": workspace, "id": message.metadata.id,
                                  "collection": message.metadata.collection}) + "\n")

    write.Processor.store_triples = store_and_log


def main(argv: list[str]) -> None:
    group_yaml, stored_log = argv
    install()
    _answer_signing_key()
    _log_stored(stored_log)
    from trustgraph.base import processor_group

    sys.argv = ["processor-group", "-c", group_yaml, "--no-metrics", "--no-loki-enabled"]
    processor_group.run()


if __name__ == "__main__":
    main(sys.argv[1:])
