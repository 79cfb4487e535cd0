"""Fault class "security": no web page and no client without the printed token drives `serve`.

A page the user visits while `agexplorer serve` runs must not reach the explorer (which runs
any code): its WebSocket carries a foreign Origin, and it does not know the token. These
tests knock as such a page's browser and as a plain script would, with hand-written
WebSocket handshakes; none needs TensorFlow (a refused request starts no explorer). The real
browser that is let in: tests/test_serve.py.
"""

from __future__ import annotations

import pytest
from serve_helpers import get, handshake, start_server, stop_server

from agexplorer.cli.serve_access import refusal
from conftest import fixture

EVIL = "http://evil.example.com"


@pytest.fixture(scope="module")
def server():
    served = start_server(fixture("control_flow.py"))
    yield served
    stop_server(served.proc)


def _one_line_refusal(status_line: str, body: str) -> str:
    assert status_line.startswith("HTTP/1.1 403"), status_line
    assert body.count("\n") == 1 and body.endswith(".\n"), body
    return body


def test_a_foreign_origin_is_refused_even_with_the_token(server):
    status, body = handshake(server.port, f"/ws?token={server.token}", origin=EVIL)
    assert "another site (Origin http://evil.example.com)" in _one_line_refusal(status, body)
    # The same host on another port is another site too (a local web app, a dev server).
    other = f"http://127.0.0.1:{server.port + 1}"
    status, body = handshake(server.port, f"/ws?token={server.token}", origin=other)
    assert _one_line_refusal(status, body)
    status, body = get(server.url, {"Origin": EVIL})
    assert status == 403 and "another site" in body


def test_no_token_or_a_wrong_one_is_refused(server):
    wrong = server.token[:-1] + ("A" if server.token[-1] != "A" else "B")
    for path in ("/ws", f"/ws?token={wrong}"):
        status, body = handshake(server.port, path, origin=f"http://127.0.0.1:{server.port}")
        assert "needs the token" in _one_line_refusal(status, body)
    bare = server.url.partition("?")[0]
    for url in (bare, f"{bare}?token={wrong}", f"{bare}static/js/textual.js",
                f"{bare}download/0123456789abcdef"):
        status, body = get(url)
        assert status == 403 and body == ("agexplorer needs the token `agexplorer serve` "
                                          "printed: open the address it printed, with its "
                                          "?token=.\n"), url


def test_the_printed_address_opens_the_page_and_sets_its_cookie(server):
    status, page = get(server.url)
    assert status == 200 and "data-session-websocket-url" in page
    # The page's own requests (static files, its WebSocket) carry the token in a cookie.
    cookie = f"agexplorer-token-{server.port}={server.token}"
    bare = server.url.partition("?")[0]
    assert get(f"{bare}static/js/textual.js", {"Cookie": cookie})[0] == 200
    status, body = handshake(server.port, "/ws", origin=EVIL)
    assert _one_line_refusal(status, body)


def test_a_rebound_dns_name_is_refused_on_loopback(server):
    # A page of evil.example.com whose name now resolves to 127.0.0.1: same-origin to itself.
    host = f"evil.example.com:{server.port}"
    status, body = handshake(server.port, f"/ws?token={server.token}",
                             origin=f"http://{host}", host=host)
    assert "this machine only" in _one_line_refusal(status, body)


def test_no_token_lets_in_without_it_but_never_a_foreign_origin():
    served = start_server(fixture("control_flow.py"), "--no-token")
    try:
        assert served.banner[0].startswith("agexplorer: warning: --no-token lets anyone")
        assert "?token=" not in served.url
        assert get(served.url)[0] == 200
        status, body = handshake(served.port, "/ws", origin=EVIL)
        assert "another site" in _one_line_refusal(status, body)
    finally:
        stop_server(served.proc)


@pytest.mark.parametrize(("origin", "host", "given", "why"), [
    (None, "127.0.0.1:8000", ["T0K3N"], None),
    ("http://127.0.0.1:8000", "127.0.0.1:8000", ["T0K3N"], None),
    ("http://localhost:8000", "localhost:8000", ["wrong", "T0K3N"], None),  # URL, then cookie
    ("http://[::1]:8000", "[::1]:8000", ["T0K3N"], None),
    ("http://localhost", "localhost:80", ["T0K3N"], None),  # the scheme's port
    ("http://127.0.0.1:8000", "127.0.0.1:8000", [], "needs the token"),
    ("http://127.0.0.1:8000", "127.0.0.1:8000", ["T0K3"], "needs the token"),
    ("null", "127.0.0.1:8000", ["T0K3N"], "another site"),  # a sandboxed frame, a file:// page
    ("http://127.0.0.1:9000", "127.0.0.1:8000", ["T0K3N"], "another site"),
    ("http://localhost:8000", "127.0.0.1:8000", ["T0K3N"], "another site"),
    ("https://evil.example.com", "127.0.0.1:8000", ["T0K3N"], "another site"),
    ("http://evil.example.com:8000", "evil.example.com:8000", ["T0K3N"], "this machine only"),
])
def test_who_gets_in(origin, host, given, why):
    answer = refusal(token="T0K3N", given=given, origin=origin, host=host, scheme="http",
                     loopback=True)
    assert (answer is None) if why is None else (why in answer)


def test_exposed_servers_take_other_host_names_and_no_token_still_checks_origins():
    assert refusal(token="T", given=["T"], origin="http://lab.example.edu:8000",
                   host="lab.example.edu:8000", scheme="http", loopback=False) is None
    assert refusal(token=None, given=[], origin=None, host="127.0.0.1:8000", scheme="http",
                   loopback=True) is None
    assert "another site" in refusal(token=None, given=[], origin=EVIL, host="127.0.0.1:8000",
                                     scheme="http", loopback=True)
