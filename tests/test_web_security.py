"""No stranger at the controls: the page's guard, request checks and limits.

Every reproduction of issue 15 (defects 3, 4, 8, 10) as a request: a foreign web page's
POST and websocket, ``text/plain`` bodies, a rebinding host name, huge and deeply nested
bodies, NaN/Infinity, unknown and mistyped fields, a slide that would hold the board loop;
the pairing code when the page is served beyond loopback.  The last test is the same
attack from a real page of another origin in Chromium against the real service.
"""

from __future__ import annotations

import http.server
import json
import threading
import urllib.request
import warnings
from pathlib import Path

import pytest

from controller.web.app import create_app
from controller.web.guard import Guard, WebPolicy, load_token, policy_for
from tests.support.service import page_service as make_service
from tests.support.webtools import chromium, playwright_or_skip, running_service

with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
    from starlette.websockets import WebSocketDisconnect

OWN = "http://127.0.0.1:8080"
JSON = {"Content-Type": "application/json"}




def guarded(svc, policy: WebPolicy | None = None, base: str = OWN) -> TestClient:
    policy = policy or policy_for("127.0.0.1", [], [], None)
    return TestClient(Guard(create_app(svc), policy), base_url=base)


def test_a_foreign_origin_cannot_move_or_resign(svc):
    client = guarded(svc)
    version = svc.version
    r = client.post("/api/command", json={"command": "resign"},
                    headers={"Origin": "http://evil.example"})
    assert r.status_code == 403 and "another web site" in r.json()["error"]
    r = client.post("/api/sim", json={"action": "arrange"}, headers={"Origin": "null"})
    assert r.status_code == 403
    assert svc.outcome is None and svc.version == version
    # the page itself (same origin) and a script without a browser (no Origin) may
    assert client.post("/api/sim", json={"action": "arrange"},
                       headers={"Origin": OWN}).status_code == 200
    svc.step(0.1)
    assert client.post("/api/command", json={"command": "offer draw"}).status_code == 200


def test_text_plain_and_bodies_of_unknown_length_are_refused(svc):
    client = guarded(svc)
    r = client.post("/api/command", content='{"command":"resign"}',
                    headers={"Content-Type": "text/plain"})
    assert r.status_code == 415 and svc.outcome is None
    r = client.post("/api/command", content=iter([b'{"command":"resign"}']),
                    headers={"Content-Type": "application/json"})  # streamed: no length
    assert r.status_code == 411 and svc.outcome is None


def test_a_rebinding_host_name_is_refused(svc):
    client = guarded(svc, base="http://evil.example:8080")
    r = client.get("/api/state")
    assert r.status_code == 421 and "does not answer to the name" in r.json()["error"]
    assert guarded(svc, base="http://localhost:8080").get("/api/state").status_code == 200


def test_sizes_depths_and_numbers_json_does_not_allow(svc):
    client = guarded(svc)
    big = json.dumps({"command": "x" * 70_000})
    assert client.post("/api/command", content=big, headers=JSON).status_code == 413
    deep = '{"command": ' + "[" * 1000 + "]" * 1000 + "}"
    r = client.post("/api/command", content=deep, headers=JSON)
    assert r.status_code == 400 and "nested deeper" in r.json()["error"]
    for body in ('{"action": "slide", "path": ["a2", "a3"], "dwell_s": Infinity}',
                 '{"action": "slide", "path": ["a2", "a3"], "dwell_s": NaN}'):
        r = client.post("/api/sim", content=body, headers=JSON)
        assert r.status_code == 400 and "JSON allows" in r.json()["error"]


@pytest.mark.parametrize("url,body,needle", [
    ("/api/command", {"command": "resign", "as": "White"}, "unknown field 'as'"),
    ("/api/choice", {"index": "1"}, "whole number"),
    ("/api/new-game", {"game": "luotuoqi", "options": {"stone_budget": "16"},
                       "setup": "4k3/8/8/8/2T2ET23/8/8/4K3 w - - 0 1"},
     "stone_budget must be"),
    ("/api/sim", {"action": "slide", "path": ["a2", "a3"], "dwell_s": 100}, "dwell_s"),
    ("/api/sim", {"action": "off_centre", "spot": "a2", "toward": "a3", "amount": "lots"},
     "amount"),
    ("/api/sim", {"action": "slide", "path": ["a2"] * 40}, "path"),
])
def test_mistyped_requests_are_one_line_400(svc, url, body, needle):
    r = guarded(svc).post(url, json=body)
    assert r.status_code == 400, r.text
    error = r.json()["error"]
    assert needle in error and "\n" not in error


def test_a_mistyped_new_game_leaves_the_journal_as_it_was(svc, tmp_path):
    before = sorted(p.name for p in (tmp_path / "journal").glob("*.jsonl"))
    guarded(svc).post("/api/new-game", json={"game": "luotuoqi",
                                             "options": {"stone_budget": "16"}})
    assert sorted(p.name for p in (tmp_path / "journal").glob("*.jsonl")) == before
    again = make_service(tmp_path)  # and a restart starts normally
    again.close()


#: Starlette's test client always names the server "testserver" on websockets
TEST_HOST = policy_for("127.0.0.1", ["testserver"], [], None)


def test_a_foreign_websocket_is_closed_before_it_opens(svc):
    client = guarded(svc, TEST_HOST)
    with pytest.raises(WebSocketDisconnect) as closed, client.websocket_connect(
            "/ws", headers={"Origin": "http://evil.example"}) as ws:
        ws.receive_json()
    assert closed.value.code == 1008
    with client.websocket_connect("/ws", headers={"Origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "state"  # the page's own: at once


def test_one_page_too_many_closes_the_quietest_never_locks_a_new_one_out(svc):
    """Issue 37: 32 idle websockets locked every new page out; now the page that has been
    quiet longest is closed (it reconnects when it is used again)."""
    client = guarded(svc, WebPolicy(loopback=True, allowed_hosts=frozenset({"testserver"}),
                                    max_websockets=2))
    with client.websocket_connect("/ws") as first, client.websocket_connect("/ws") as second:
        first.receive_json()
        second.receive_json()
        second.send_json({"type": "viewer", "viewer": 1})  # second spoke: first is quieter
        second.receive_json()
        with client.websocket_connect("/ws") as third:
            assert third.receive_json()["type"] == "state"  # let in, at once
            with pytest.raises(WebSocketDisconnect):
                while True:
                    first.receive_json()  # the quietest: closed
            second.send_json({"type": "viewer", "viewer": 0})
            assert second.receive_json()["type"] == "state"  # still live


def test_beyond_loopback_a_pairing_code_is_needed(svc, tmp_path):
    policy = policy_for("0.0.0.0", [], [], tmp_path / "pairing-token")
    assert policy.token and policy.token == load_token(tmp_path / "pairing-token")
    assert (tmp_path / "pairing-token").stat().st_mode & 0o077 == 0
    client = guarded(svc, policy, base="http://192.168.1.20:8080")
    page = client.get("/")
    assert page.status_code == 401 and "pairing code" in page.text
    assert client.get("/api/state").status_code == 401
    assert client.get("/?token=wrong").status_code == 401
    assert client.get("/api/state", headers={"X-Fairyboard-Token": policy.token}
                      ).status_code == 200
    paired = client.get(f"/?token={policy.token}", follow_redirects=False)
    assert paired.status_code == 303 and "HttpOnly" in paired.headers["set-cookie"]
    assert client.get("/api/state").status_code == 200  # the cookie is kept
    # a name this machine does not have is still refused
    assert guarded(svc, policy, base="http://evil.example:8080").get(
        "/api/state", headers={"X-Fairyboard-Token": policy.token}).status_code == 421


EVIL_PAGE = """<!doctype html><html><body><script>
const target = "%s";
window.results = [];
async function attack() {
  for (const [type, body] of [["text/plain", '{"command":"resign"}'],
                              ["application/json", '{"command":"resign"}']]) {
    try {
      const r = await fetch(target + "api/command", {method: "POST", mode: "no-cors",
        headers: {"Content-Type": type}, body});
      window.results.push("fetch " + r.type);
    } catch (e) { window.results.push("fetch refused"); }
  }
  await new Promise((done) => {
    const ws = new WebSocket(target.replace("http", "ws") + "ws");
    ws.onmessage = () => { window.results.push("ws read the board"); ws.close(); done(); };
    ws.onerror = () => { window.results.push("ws refused"); done(); };
    ws.onclose = () => done();
  });
  window.finished = true;
}
attack();
</script></body></html>"""


def test_a_page_of_another_origin_can_do_nothing_in_chromium(tmp_path):
    sync_api = playwright_or_skip()
    with running_service(tmp_path) as url:
        page_html = (EVIL_PAGE % url).encode()

        class Evil(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 (the standard library's name)
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(page_html)

            def log_message(self, *args):
                pass

        evil = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Evil)
        threading.Thread(target=evil.serve_forever, daemon=True).start()
        try:
            with chromium(sync_api) as browser:
                page = browser.new_page()
                page.goto(f"http://127.0.0.1:{evil.server_address[1]}/")
                page.wait_for_function("window.finished === true", timeout=10_000)
                results = page.evaluate("window.results")
        finally:
            evil.shutdown()
        assert "ws read the board" not in results, results
        with urllib.request.urlopen(url + "api/state") as r:  # no Origin: a local script
            state = json.loads(r.read())
        assert state["result"] is None and state["moves"] == []
    log = Path(tmp_path / "service.log").read_text()
    assert "Traceback" not in log


def test_silent_connections_are_closed_and_cannot_lock_the_page_out(tmp_path):
    """Issue 15 #8: sockets opened and left silent used up the connections for good."""
    import socket
    import time
    from urllib.parse import urlsplit

    from controller.process import MAX_CONNECTIONS

    with running_service(tmp_path) as url:
        where = urlsplit(url)
        silent = [socket.create_connection((where.hostname, where.port))
                  for _ in range(MAX_CONNECTIONS + 5)]
        time.sleep(0.3)
        # silent ones beyond a client's few waiting connections are closed to make room
        with urllib.request.urlopen(url + "health", timeout=5) as r:
            assert r.status == 200
        # the keep-alive time-out (5 s) closes the silent ones within 7 s: each read ends
        # when the server closes its socket (not after a fixed wait); the page is served
        closed_by = time.monotonic() + 7
        for s in silent:
            s.settimeout(max(0.1, closed_by - time.monotonic()))
            assert s.recv(1) == b""  # closed by the server
            s.close()
        with urllib.request.urlopen(url + "health", timeout=5) as r:
            assert r.status == 200
