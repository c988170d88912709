"""Every bad request gets one clear line: a seeded fuzz over every route, field and value
type of the page's API (issue 37, Found 8).

About 3,000 requests through the guard and the app, each body built from the route's own
fields with values of every JSON type (and near-miss values: a game's real option with
the wrong type, a mistyped option, long names), plus bodies that are not objects, not
JSON, or cut short by a client that hangs up.  The service must never answer 500 and never
log a traceback; every refusal is a 4xx with one line of JSON.
"""

from __future__ import annotations

import json
import logging
import random
import warnings

import pytest

from controller.rules import GAMES
from controller.web.app import FIELDS, create_app
from controller.web.guard import Guard, policy_for

with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

OWN = "http://127.0.0.1:8080"
SEED = 37
ROUTE_OF = {"sim": "/api/sim", "choice": "/api/choice", "new game": "/api/new-game",
            "resume": "/api/resume", "command": "/api/command", "link": "/api/link",
            "tutorial": "/api/tutorial", "roll": "/api/roll"}
#: values a field is meant to have, so the fuzz also reaches past the first type check
GOOD = {
    "action": ["lift", "place", "slide", "set_aside", "take", "knock_over", "off_centre",
               "bounce", "arrange", "restore", "clear", "resync", "decline-takeback"],
    "spot": ["e2", "e4", "a1", "z99", "pad-1", ""],
    "object": ["white-M", "black-E", "white-", "nothing"],
    "game": list(GAMES) + ["Chess", "chess ", "", "x" * 300],
    "command": ["offer draw", "accept draw", "resign", "RESIGN"],
    "clock": ["3+2", "", "0+0", "-1+2", "99999999+1", "3+", "abc"],
    "setup": ["", "8/8/8/8/8/8/8/8 w - - 0 1", "nonsense"],
}


class Tracebacks(logging.Handler):
    """Every log record that carries a traceback, or says something crashed."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info or "Traceback" in record.getMessage():
            self.records.append(record)


def _value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(12 if depth < 3 else 8)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, 1, -1, 2, 3, 7, 10, 11, 255, 2**31, -(2**63), 10**30])
    if kind == 3:
        return rng.choice([0.5, -0.0, 1e308, -1e-300, 3.0])
    if kind == 4:
        return rng.choice(["", " ", "0", "1", "null", "auto", "é♞", "\u0000", "x" * 500,
                           "../../etc/passwd", "%s{0}", "3+2", "true"])
    if kind in (5, 6, 7):
        return rng.choice(sum(GOOD.values(), []))
    if kind in (8, 9):
        return [_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = ["players", "level", "1", "0", "dice", "players_count", "x", "stone_budget",
            "variant", "modern", "cube", "bogus", "level "]
    return {rng.choice(keys): _value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _options(rng: random.Random, game: str):
    """The game's own option names with any value, a mistyped name, or junk."""
    cls = GAMES.get(game) if isinstance(game, str) else None
    names = [spec.name for spec in cls.option_specs] if cls is not None else []
    names += ["bogus", "dice ", "Players", "stone_budget", "players", "dice"]
    return {rng.choice(names): _value(rng, 1) for _ in range(rng.randrange(3))}


def _field(rng: random.Random, what: str, name: str, body: dict):
    if name in GOOD and rng.random() < 0.5:
        return rng.choice(GOOD[name])
    if what == "new game" and name == "options":
        return _options(rng, body.get("game", "chess"))
    if what == "new game" and name == "computer" and rng.random() < 0.6:
        return {"players": rng.choice([[1], [0], [0, 1], [5], [-1], ["1"], []]),
                "level": rng.choice([1, 6, 10, 0, 11, "6", 6.5])}
    if what == "new game" and name == "remote" and rng.random() < 0.5:
        return rng.choice([{"1": "beta"}, {"x": "beta"}, {"1": 3}, {"9": ""}])
    if name in ("index", "count", "plies", "amount") and rng.random() < 0.5:
        return rng.choice([0, 1, 2, -1, 99, 10**9])
    if name in ("resume", "on") and rng.random() < 0.5:
        return rng.choice([True, False])
    return _value(rng)


def _request(rng: random.Random) -> tuple[str, str, dict]:
    """One request: method, path, keyword arguments for the test client."""
    roll = rng.random()
    if roll < 0.15:
        path = rng.choice(["/", "/api/layout", "/club", "/api/club", "/health",
                           "/api/state", "/static/app.js", "/static/" + "a" * 300,
                           "/guide/chess", "/guide/" + rng.choice(list(GAMES)),
                           "/guide/" + "a" * rng.choice([40, 255, 300, 5000]),
                           "/guide/..%2f..%2fREADME", "/guide/images/x.svg",
                           "/guide/images/" + "b" * 300 + ".svg", "/nowhere"])
        if path == "/api/state":
            return "GET", path, {"params": {"viewer": _value(rng)}}
        return "GET", path, {}
    what = rng.choice(list(ROUTE_OF))
    body: dict = {}
    fields = sorted(FIELDS[what])
    if what == "new game":
        body["game"] = rng.choice(GOOD["game"]) if rng.random() < 0.8 else _value(rng)
    for name in fields:
        if rng.random() < 0.5 and name not in body:
            body[name] = _field(rng, what, name, body)
    if rng.random() < 0.05:
        body[rng.choice(["bogus", "Action", "index "])] = 1
    if rng.random() < 0.05:
        content = rng.choice(["", "[]", "null", "{", "1", '"x"', "{\"a\":NaN}",
                              "\xff\xfe", "[" * 100 + "]" * 100, json.dumps([body])])
        return "POST", ROUTE_OF[what], {"content": content}
    return "POST", ROUTE_OF[what], {"content": json.dumps(body)}


@pytest.mark.service(game="chess", seed=SEED)
def test_three_thousand_fuzzed_requests_get_no_500_and_no_traceback(svc):
    rng = random.Random(SEED)
    caught = Tracebacks()
    root = logging.getLogger()
    root.addHandler(caught)
    app = Guard(create_app(svc), policy_for("127.0.0.1", [], [], None))
    client = TestClient(app, base_url=OWN, raise_server_exceptions=True)
    statuses: dict[int, int] = {}
    try:
        for n in range(3000):
            method, path, kwargs = _request(rng)
            if method == "POST":
                kwargs["headers"] = {"Content-Type": "application/json"}
            try:
                r = client.request(method, path, **kwargs)
            except Exception as exc:  # the app raised: a 500 with a traceback
                pytest.fail(f"request {n}: {method} {path} {kwargs} raised {exc!r}")
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
            assert r.status_code < 500 or (path == "/health" and r.status_code == 503), \
                (n, method, path, kwargs, r.status_code, r.text[:300])
            if 400 <= r.status_code < 500 and r.headers.get("content-type", "").startswith(
                    "application/json"):
                line = r.json()["error"]
                assert isinstance(line, str) and line and "\n" not in line, line
            if n % 50 == 0:
                svc.step(0.05)
    finally:
        root.removeHandler(caught)
    assert not caught.records, [r.getMessage() for r in caught.records[:5]]
    assert sum(statuses.values()) == 3000 and statuses.get(200, 0) > 100, statuses


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
                message = rng.choice([json.dumps({"type": "viewer", "viewer": _value(rng)}),
                                      json.dumps(_value(rng)), "{", "", "x" * 1000])
                ws.send_text(message)
            ws.send_text(json.dumps({"type": "viewer", "viewer": 1}))
            assert ws.receive_json()["type"] in ("state", "leds")
    finally:
        logging.getLogger().removeHandler(caught)
    assert not caught.records, [r.getMessage() for r in caught.records[:5]]
