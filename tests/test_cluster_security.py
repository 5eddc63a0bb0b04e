"""--cluster is secure by default: a tls:// scheduler is reached with Dask's TLS settings (a real
local scheduler and worker whose certificates the test makes), a client without a certificate the
cluster's CA signed never joins, and a plain tcp:// scheduler on another machine is refused unless
the user says the network is trusted."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import EXAMPLES
from tgtrace.cluster import lint as cluster
from tgtrace.run.settings import SettingsError

# Slow: starts Dask clusters (`python -m pytest -m "not slow"` leaves it out; CI runs it).
pytestmark = pytest.mark.slow

distributed = pytest.importorskip("distributed")  # the cluster extra, as in test_cluster.py
import cryptography  # noqa: E402,F401  (a test dependency: Dask makes the certificates with it)
from distributed.security import Security  # noqa: E402

TRACE = EXAMPLES / "releases" / "2.2.12" / "supervisor.nq"


def tg_trace(*args, env: dict | None = None, timeout: int = 120) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
    return subprocess.run([sys.executable, "-m", "tgtrace.cli", *args], capture_output=True, timeout=timeout,
                          env={**clean, **(env or {})})


def _certificates(folder: Path, security: Security) -> dict[str, str]:
    """Dask's TLS settings, as environment variables naming the PEM files of ``security``."""
    folder.mkdir()
    env = {}
    for setting, pem in (("CA_FILE", security.tls_ca_file), ("CLIENT__CERT", security.tls_client_cert),
                         ("CLIENT__KEY", security.tls_client_key)):
        path = folder / f"{setting.lower()}.pem"
        path.write_text(pem)
        env[f"DASK_DISTRIBUTED__COMM__TLS__{setting}"] = str(path)
    env["DASK_DISTRIBUTED__COMM__REQUIRE_ENCRYPTION"] = "True"
    return env


@pytest.fixture(scope="module")
def tls_cluster(tmp_path_factory):
    """(address, environment with the cluster's certificates) of a real TLS scheduler and worker."""
    folder = tmp_path_factory.mktemp("tls")
    # A new CA and a certificate it signed, made for this run (Dask's own helper, with cryptography).
    security = Security.temporary()
    env = _certificates(folder / "cluster", security)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, protocol="tls://",
                                  host="127.0.0.1", security=security, dashboard_address="127.0.0.1:0") as local:
        assert local.scheduler_address.startswith("tls://")
        yield local.scheduler_address, env, folder


def _rows(stdout: bytes) -> list:
    report = json.loads(stdout)
    return sorted((f["rule"], f["focus"], f.get("line")) for f in report["findings"])


def test_a_tls_scheduler_lints_with_the_findings_of_one_process(tls_cluster):
    address, env, _ = tls_cluster
    here = tg_trace("lint", "--one-capture", "--format", "json", str(TRACE))
    there = tg_trace("lint", "--cluster", address, "--format", "json", str(TRACE), env=env)
    assert there.returncode == here.returncode, there.stderr
    assert _rows(there.stdout) == _rows(here.stdout)


def test_a_tls_address_without_certificates_is_one_line(tls_cluster):
    address, _, _ = tls_cluster
    result = tg_trace("lint", "--cluster", address, str(TRACE))
    err = result.stderr.decode()
    assert result.returncode == 2 and len(err.strip().splitlines()) == 1, err
    assert "DASK_DISTRIBUTED__COMM__TLS__CA_FILE" in err and "Traceback" not in err


def test_a_client_whose_certificate_the_cluster_did_not_sign_never_joins(tls_cluster):
    address, _, folder = tls_cluster
    stranger = _certificates(folder / "stranger", Security.temporary())
    result = tg_trace("lint", "--cluster", address, str(TRACE), env=stranger)
    err = result.stderr.decode()
    assert result.returncode == 2 and len(err.strip().splitlines()) == 1, err
    assert "cannot reach the scheduler" in err and "Traceback" not in err


@pytest.mark.parametrize("command", ["lint", "list"])
def test_a_plain_scheduler_on_another_machine_is_refused(command):
    result = tg_trace(command, "--cluster", "tcp://10.0.0.5:8786", str(TRACE))
    err = result.stderr.decode()
    assert result.returncode == 2 and len(err.strip().splitlines()) == 1, err
    assert "--trust-network" in err and "tls://" in err


@pytest.mark.parametrize("address", ["tcp://scheduler:8786", "ws://[2001:db8::1]:8786", "ucx://10.0.0.5:13337"])
def test_no_plain_address_off_this_machine_is_taken_for_this_machine(address):
    with pytest.raises(SettingsError, match="--trust-network"):
        cluster.require(address)


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "tcp://localhost:8786", "tcp://[::1]:8786"])
def test_a_plain_scheduler_on_this_machine_is_accepted(address):
    cluster.require(address)


def test_the_user_may_trust_the_network():
    with pytest.raises(SettingsError, match="--trust-network"):
        cluster.require("tcp://10.0.0.5:8786")
    cluster.require("tcp://10.0.0.5:8786", trust_network=True)


def test_a_local_cluster_listens_on_loopback_only():
    """--cluster local:N: every socket its processes listen on is on 127.0.0.1, the scheduler's HTTP
    server included (Dask's dashboard address ":0" served it on every interface)."""
    import urllib.request

    psutil = pytest.importorskip("psutil")
    me = psutil.Process()

    def listening() -> set:
        return {(c.laddr.ip, c.laddr.port) for p in (me, *me.children(recursive=True))
                for c in p.net_connections(kind="inet") if c.status == psutil.CONN_LISTEN}

    before = listening()  # the other tests' servers (this module's TLS cluster among them)
    client = cluster.connect("local:2")
    try:
        listening = sorted(listening() - before)
        assert len(listening) >= 3
        assert {ip for ip, _ in listening} == {"127.0.0.1"}, listening
        # The scheduler's one HTTP server (health, metrics; the dashboard is off) is among them, on loopback.
        port = client.scheduler_info()["services"]["dashboard"]
        assert ("127.0.0.1", port) in listening
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as answer:
            assert answer.read() == b"ok"
    finally:
        client.close()
        client.cluster.close()
