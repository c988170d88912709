"""The page stays reachable under slow and idle clients (issue 37, Found 6).

110 connections sending their headers one byte every 2 s kept ``/health`` at 503 for the
whole minute; the same attack against the real server (in process, on loopback, with a
header deadline of 1 s so the test takes seconds): ``/health`` answers 200 throughout.
A body that trickles in is cut at its deadline; wrong pairing codes are throttled.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import subprocess
import sys
import threading
import time
import urllib.request
import warnings
from collections.abc import Iterator
from pathlib import Path
from urllib.error import HTTPError

from controller.web import server as web_server
from controller.web.app import create_app
from controller.web.guard import MAX_WRONG_CODES, Guard, policy_for

ROOT = Path(__file__).resolve().parents[1]

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient


@contextlib.contextmanager
def serving(svc) -> Iterator[tuple[str, int]]:
    """The service's own web server (``_make_server``) on a free loopback port, in a
    thread with its own event loop."""
    from controller.process import _make_server

    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(512)
    server = _make_server(svc)
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[sock])),
                              daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    assert server.started
    try:
        yield sock.getsockname()[:2]
    finally:
        server.should_exit = True
        thread.join(10)


def _health(host: str, port: int) -> int:
    try:
        with urllib.request.urlopen(f"http://{host}:{port}/health", timeout=3) as r:
            return r.status
    except HTTPError as exc:
        return exc.code
    except OSError:
        return 0  # refused or timed out: as bad as a 503


@contextlib.contextmanager
def slow_loris(where: tuple[str, int], count: int, every_s: float) -> Iterator[list[int]]:
    """``tests/support/slowloris.py`` as a process of its own (an attacker is another
    machine); yields, once it ends, its connections opened and closed by the server."""
    attacker = subprocess.Popen(
        [sys.executable, "-m", "tests.support.slowloris", where[0], str(where[1]),
         str(count), str(every_s)], cwd=ROOT, stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, text=True)
    counts: list[int] = []
    try:
        assert attacker.stdout.readline().strip() == "ready"
        yield counts
    finally:
        out, _ = attacker.communicate("", timeout=20)
        counts += [int(n) for n in out.split()]


def test_health_answers_throughout_a_slow_loris_of_110_connections(svc, monkeypatch):
    monkeypatch.setattr(web_server.SilentClosingH11, "header_deadline_s", 1.0)
    with serving(svc) as where:
        assert _health(*where) == 200
        with slow_loris(where, 110, every_s=2.0) as attack:
            time.sleep(0.5)
            answers = []
            until = time.monotonic() + 4.0
            while time.monotonic() < until:
                answers.append(_health(*where))
                time.sleep(0.1)
        assert answers and set(answers) == {200}, answers
        connects, closed = attack
        assert connects >= 110 and closed >= 100, attack


def test_a_body_that_trickles_in_is_cut_at_its_deadline(svc, monkeypatch):
    monkeypatch.setattr(web_server.SilentClosingH11, "body_deadline_s", 1.0)
    with serving(svc) as where:
        s = socket.create_connection(where, timeout=5)
        s.sendall(b"POST /api/command HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  b"Content-Type: application/json\r\nContent-Length: 60\r\n\r\n{")
        started = time.monotonic()
        got = b""
        with contextlib.suppress(OSError):
            while True:
                s.sendall(b" ")
                s.settimeout(0.5)
                with contextlib.suppress(TimeoutError):
                    chunk = s.recv(4096)
                    if not chunk:
                        break
                    got += chunk
                if time.monotonic() - started > 5:
                    break
        s.close()
        assert time.monotonic() - started < 3, "the body's deadline did not end it"
        assert svc.outcome is None and _health(*where) == 200


def test_wrong_pairing_codes_are_throttled(svc, tmp_path):
    policy = policy_for("0.0.0.0", [], [], tmp_path / "pairing-token")
    client = TestClient(Guard(create_app(svc), policy), base_url="http://192.168.1.20:8080")
    for n in range(MAX_WRONG_CODES):
        assert client.get(f"/?token=guess{n}", follow_redirects=False).status_code == 401
    r = client.get(f"/?token={policy.token}", follow_redirects=False)
    assert r.status_code == 429 and "wait" in r.json()["error"]  # even the right one, now
    r = client.get("/api/state", headers={"X-Fairyboard-Token": "guess"})
    assert r.status_code == 429


def test_a_connection_on_a_handed_over_socket_sends_without_delay(svc):
    """The server's own socket made with ``socket.socket()`` (as here): its connections
    had no TCP_NODELAY, and every response after a connection's first waited 40 ms for
    the client's delayed ACK. Each connection now sends small writes at once."""
    with serving(svc) as where, socket.create_connection(where, timeout=5) as conn:
        conn.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        answer = conn.recv(4096)
        assert answer.startswith(b"HTTP/1.1 "), answer[:80]

        def waiting() -> list:
            """This connection's protocol once its answer is sent whole and it waits for
            its next request."""
            return [p for p in list(web_server._pending)
                    if p.transport.get_extra_info("peername") == conn.getsockname()]

        deadline = time.monotonic() + 10
        while not waiting():
            assert time.monotonic() < deadline, "the connection is not waiting"
            time.sleep(0.01)
        sock = waiting()[0].transport.get_extra_info("socket")
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 1
