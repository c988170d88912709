"""A seeded fuzz of the page's API (issue 37, Found 8): requests over every route, field
and value type — each body built from the route's own fields with values of every JSON
type and near-miss values (a game's real option with the wrong type, a mistyped option,
long names), plus bodies that are not objects, not JSON, or cut short. Used by
``tests/test_web_fuzz.py`` (one seed, a thousand requests) and the soak
``benchmarks/web_fuzz.py`` (many seeds, as long as it is given)."""

from __future__ import annotations

import json
import logging
import random
import warnings

from controller.rules import GAMES
from controller.web.app import FIELDS, create_app
from controller.web.guard import Guard, policy_for

with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

OWN = "http://127.0.0.1:8080"
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


def value(rng: random.Random, depth: int = 0):
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
        return [value(rng, depth + 1) for _ in range(rng.randrange(4))]
    keys = ["players", "level", "1", "0", "dice", "players_count", "x", "stone_budget",
            "variant", "modern", "cube", "bogus", "level "]
    return {rng.choice(keys): value(rng, depth + 1) for _ in range(rng.randrange(4))}


def options_of(rng: random.Random, game: str):
    """The game's own option names with any value, a mistyped name, or junk."""
    cls = GAMES.get(game) if isinstance(game, str) else None
    names = [spec.name for spec in cls.option_specs] if cls is not None else []
    names += ["bogus", "dice ", "Players", "stone_budget", "players", "dice"]
    return {rng.choice(names): value(rng, 1) for _ in range(rng.randrange(3))}


def field_value(rng: random.Random, what: str, name: str, body: dict):
    if name in GOOD and rng.random() < 0.5:
        return rng.choice(GOOD[name])
    if what == "new game" and name == "options":
        return options_of(rng, body.get("game", "chess"))
    if what == "new game" and name == "computer" and rng.random() < 0.6:
        return {"players": rng.choice([[1], [0], [0, 1], [5], [-1], ["1"], []]),
                "level": rng.choice([1, 6, 10, 0, 11, "6", 6.5])}
    if what == "new game" and name == "remote" and rng.random() < 0.5:
        return rng.choice([{"1": "beta"}, {"x": "beta"}, {"1": 3}, {"9": ""}])
    if name in ("index", "count", "plies", "amount") and rng.random() < 0.5:
        return rng.choice([0, 1, 2, -1, 99, 10**9])
    if name in ("resume", "on") and rng.random() < 0.5:
        return rng.choice([True, False])
    return value(rng)


def fuzzed_request(rng: random.Random) -> tuple[str, str, dict]:
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
            return "GET", path, {"params": {"viewer": value(rng)}}
        return "GET", path, {}
    what = rng.choice(list(ROUTE_OF))
    body: dict = {}
    fields = sorted(FIELDS[what])
    if what == "new game":
        body["game"] = rng.choice(GOOD["game"]) if rng.random() < 0.8 else value(rng)
    for name in fields:
        if rng.random() < 0.5 and name not in body:
            body[name] = field_value(rng, what, name, body)
    if rng.random() < 0.05:
        body[rng.choice(["bogus", "Action", "index "])] = 1
    if rng.random() < 0.05:
        content = rng.choice(["", "[]", "null", "{", "1", '"x"', "{\"a\":NaN}",
                              "\xff\xfe", "[" * 100 + "]" * 100, json.dumps([body])])
        return "POST", ROUTE_OF[what], {"content": content}
    return "POST", ROUTE_OF[what], {"content": json.dumps(body)}




class FuzzFailure(AssertionError):
    """A request answered 5xx, raised, or refused in more than one line (which, and how)."""


def fuzz(svc, requests: int, seed: int) -> dict[int, int]:
    """``requests`` seeded requests through the guard and the page's app on ``svc``: each
    status's count. Raises :class:`FuzzFailure` on a 500, an exception, a refusal that is
    not one line of JSON, or a log record carrying a traceback."""
    rng = random.Random(seed)
    caught = Tracebacks()
    root = logging.getLogger()
    root.addHandler(caught)
    app = Guard(create_app(svc), policy_for("127.0.0.1", [], [], None))
    client = TestClient(app, base_url=OWN, raise_server_exceptions=True)
    statuses: dict[int, int] = {}
    try:
        for n in range(requests):
            method, path, kwargs = fuzzed_request(rng)
            if method == "POST":
                kwargs["headers"] = {"Content-Type": "application/json"}
            try:
                r = client.request(method, path, **kwargs)
            except Exception as exc:  # the app raised: a 500 with a traceback
                raise FuzzFailure(f"seed {seed} request {n}: {method} {path} {kwargs} "
                                  f"raised {exc!r}") from exc
            statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
            if r.status_code >= 500 and not (path == "/health" and r.status_code == 503):
                raise FuzzFailure(f"seed {seed} request {n}: {method} {path} {kwargs} "
                                  f"answered {r.status_code} {r.text[:300]}")
            if 400 <= r.status_code < 500 and r.headers.get("content-type", "").startswith(
                    "application/json"):
                line = r.json()["error"]
                if not (isinstance(line, str) and line and "\n" not in line):
                    raise FuzzFailure(f"seed {seed} request {n}: refused with {line!r}")
            if n % 50 == 0:
                svc.step(0.05)
    finally:
        root.removeHandler(caught)
    if caught.records:
        raise FuzzFailure(f"seed {seed}: tracebacks logged: "
                          f"{[r.getMessage() for r in caught.records[:5]]}")
    return statuses
