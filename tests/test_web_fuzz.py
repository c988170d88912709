"""Every bad request gets one clear line: a seeded fuzz over every route, field and value
type of the page's API (issue 37, Found 8; the requests are ``tests/support/webfuzz.py``'s).

A thousand requests through the guard and the app, plus bodies cut short by a client that
hangs up and fuzzed websocket messages. The service must never answer 500 and never log a
traceback; every refusal is a 4xx with one line of JSON. The soak ``benchmarks/web_fuzz.py``
runs the same fuzz over many seeds for as long as it is given.
"""

from __future__ import annotations

import json
import logging
import random
import warnings

import pytest

from controller.rules import GAMES
from controller.web.app import create_app
from controller.web.guard import Guard, policy_for
from tests.support.webfuzz import OWN, ROUTE_OF, Tracebacks, fuzz, value

with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

SEED = 37
#: the suite's share of the fuzz (the soak ``benchmarks/web_fuzz.py`` runs many seeds)
REQUESTS = 1000


@pytest.mark.service(game="chess", seed=SEED)
def test_a_thousand_fuzzed_requests_get_no_500_and_no_traceback(svc):
    statuses = fuzz(svc, REQUESTS, SEED)
    assert sum(statuses.values()) == REQUESTS and statuses.get(200, 0) > 30, statuses
    assert sum(n for code, n in statuses.items() if 400 <= code < 500) > REQUESTS // 2


@pytest.mark.service(game="chess")
def test_each_game_with_a_computer_and_a_mistyped_option_is_a_400(svc):
    client = TestClient(Guard(create_app(svc), policy_for("127.0.0.1", [], [], None)),
                        base_url=OWN)
    for game in GAMES:
        for options in ({"bogus": 1}, {"dice": "yes"}, {"players": "x"}):
            r = client.post("/api/new-game", json={"game": game, "options": options,
                                                  "computer": {"players": [1]}})
            assert r.status_code == 400, (game, options, r.text)
            assert r.json()["error"]


def test_a_guide_name_of_300_characters_is_a_404(client):
    for n in (40, 255, 300, 5000):
        r = client.get("/guide/" + "a" * n)
        assert r.status_code == 404, (n, r.status_code)


def test_a_client_hanging_up_mid_body_is_no_traceback(svc):
    """69 of the 85 tracebacks of issue 37: ``ClientDisconnect`` from a cut-short body."""
    import asyncio

    app = Guard(create_app(svc), policy_for("127.0.0.1", [], [], None))
    sent: list[dict] = []
    for path in ROUTE_OF.values():
        scope = {"type": "http", "method": "POST", "path": path, "raw_path": path.encode(),
                 "query_string": b"", "root_path": "", "scheme": "http",
                 "server": ("127.0.0.1", 8080), "client": ("127.0.0.1", 5000),
                 "http_version": "1.1", "asgi": {"version": "3.0"},
                 "headers": [(b"host", b"127.0.0.1:8080"),
                             (b"content-type", b"application/json"),
                             (b"content-length", b"40")]}
        messages = [{"type": "http.request", "body": b'{"command": "res', "more_body": True},
                    {"type": "http.disconnect"}]

        async def receive(messages=messages) -> dict:
            return messages.pop(0) if messages else {"type": "http.disconnect"}

        async def send(message: dict) -> None:
            sent.append(message)

        asyncio.run(app(scope, receive, send))  # raised ClientDisconnect before
    assert svc.outcome is None
    assert all(m["status"] == 400 for m in sent if m["type"] == "http.response.start")


@pytest.mark.service(game="chess", seed=SEED)
def test_fuzzed_websocket_messages_leave_the_page_live(svc):
    rng = random.Random(SEED)
    caught = Tracebacks()
    logging.getLogger().addHandler(caught)
    # Starlette's test client always names the server "testserver" on websockets
    client = TestClient(Guard(create_app(svc), policy_for("127.0.0.1", ["testserver"], [],
                                                          None)), base_url=OWN)
    try:
        with client.websocket_connect("/ws") as ws:
            assert ws.receive_json()["type"] == "state"
            for _ in range(200):
                message = rng.choice([json.dumps({"type": "viewer", "viewer": value(rng)}),
                                      json.dumps(value(rng)), "{", "", "x" * 1000])
                ws.send_text(message)
            ws.send_text(json.dumps({"type": "viewer", "viewer": 1}))
            assert ws.receive_json()["type"] in ("state", "leds")
    finally:
        logging.getLogger().removeHandler(caught)
    assert not caught.records, [r.getMessage() for r in caught.records[:5]]
