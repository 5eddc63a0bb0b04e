"""The connection options of pull, lint -C and watch resolve as TrustGraph's CLI's do, and what
is printed of a connection never shows its credentials."""

from __future__ import annotations

import pytest
from tgtrace.inputs.gateway import Connection, GatewayError


def test_defaults_come_from_the_environment_then_from_trustgraphs_own():
    assert Connection.from_environment(environ={}) == Connection("http://localhost:8888/", None, "default", "default")
    env = {"TRUSTGRAPH_URL": "https://tg.example.com/api/", "TRUSTGRAPH_TOKEN": "tg_k",
           "TRUSTGRAPH_WORKSPACE": "research"}
    found = Connection.from_environment(environ=env)
    assert (found.url, found.token, found.workspace, found.flow) == ("https://tg.example.com/api/", "tg_k",
                                                                     "research", "default")
    given = Connection.from_environment(url="http://h:1/", token="tg_x", workspace="w", flow="f", environ=env)
    assert (given.url, given.token, given.workspace, given.flow) == ("http://h:1/", "tg_x", "w", "f")


def test_https_connects_with_tls_and_the_path_prefix_is_kept():
    assert Connection("https://tg.example.com/api").socket_url("api/v1/socket") == \
        "wss://tg.example.com/api/api/v1/socket"
    assert Connection("http://localhost:8888/").socket_url("api/v1/flow/default/export/triples", {"workspace": "w"}) \
        == "ws://localhost:8888/api/v1/flow/default/export/triples?workspace=w"


def test_what_is_shown_of_a_connection_holds_no_credentials():
    connection = Connection("https://user:secret@tg.example.com:8443/base?token=tg_secret#x", token="tg_secret")
    assert connection.shown == "https://tg.example.com:8443/base"
    assert "tg_secret" not in repr(connection)


@pytest.mark.parametrize("url", ["ftp://host/", "localhost:8888", "http:///nohost"])
def test_a_url_that_is_no_gateway_is_refused_in_one_line(url):
    with pytest.raises(GatewayError, match="is not a gateway URL"):
        Connection(url)
