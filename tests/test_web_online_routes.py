"""The page's online routes (controller/web/online.py): the token saved only readable by
its owner and shown masked, bad requests refused with one line (never a 500), commands
refused when no online game is on, and the token never in the page's state or the log."""

from __future__ import annotations

import logging
import stat

import pytest

from tests.support.lichess import FakeLichess
from tests.support.online import OWNER, online_config, pump
from tests.support.webtools import page_client

TOKEN = "lip_secretsecret9876"


@pytest.fixture
def server():
    running = FakeLichess({TOKEN: OWNER, "tok-owner": OWNER}).start()
    yield running
    running.stop()


def test_the_token_is_saved_masked_and_removed(tmp_path, server, caplog):
    from controller.service import BoardService

    config = online_config(tmp_path, server)
    (tmp_path / "online-token").unlink()
    svc = BoardService(config)
    client = page_client(svc)
    try:
        caplog.set_level(logging.DEBUG)
        assert client.get("/api/online").json()["token"] is None
        answer = client.post("/api/online/token", json={"token": TOKEN})
        assert answer.status_code == 200 and answer.json()["online"]["token"] == "••••••••9876"
        path = tmp_path / "online-token"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        pump(svc, lambda: svc.online.me == OWNER)
        assert TOKEN not in client.get("/api/state").text
        assert TOKEN not in caplog.text
        answer = client.post("/api/online/token", json={"token": "two words"})
        assert answer.status_code == 400 and "not a token" in answer.json()["error"]
        assert client.post("/api/online/token", json={"clear": True}).status_code == 200
        assert not path.exists() and client.get("/api/online").json()["token"] is None
    finally:
        svc.close()


@pytest.mark.parametrize(("route", "body", "says"), [
    ("/api/online/seek", {"minutes": 3, "increment": 0}, "rapid or slower"),
    ("/api/online/seek", {"minutes": "ten"}, "minutes must be a number"),
    ("/api/online/seek", {"days": 4}, "days a move"),
    ("/api/online/seek", {"colour": "green"}, "colour"),
    ("/api/online/seek", {"cancel": True}, "not seeking"),
    ("/api/online/seek", {"speed": "bullet"}, "unknown field"),
    ("/api/online/seek", {"variant": "atomic"}, "variant: one of standard, chess960"),
    ("/api/online/seek", {"variant": 960}, "variant must be a text"),
    ("/api/online/challenge", {"name": "x", "variant": "horde"}, "variant: one of"),
    ("/api/online/chat", {"text": "hi"}, "no online game"),
    ("/api/online/chat", {"text": ["hi"]}, "must be a text"),
    ("/api/online/challenge", {"name": "a/b"}, "a player's name"),
    ("/api/online/challenge", {"name": "x", "minutes": 999}, "up to 180 minutes"),
    ("/api/online/answer", {"challenge": "nope", "accept": True}, "no such challenge"),
    ("/api/online/command", {"command": "resign"}, "not possible now"),
    ("/api/online/command", {"command": "explode"}, "unknown online command"),
    ("/api/online/token", {"token": 5}, "must be a text"),
])
def test_bad_online_requests_are_one_clear_line(tmp_path, server, route, body, says):
    from controller.service import BoardService

    svc = BoardService(online_config(tmp_path, server))
    client = page_client(svc)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        answer = client.post(route, json=body)
        assert answer.status_code == 400, answer.text
        assert says in answer.json()["error"] and "\n" not in answer.json()["error"]
    finally:
        svc.close()


def test_without_a_token_the_room_says_so(tmp_path, server):
    from controller.service import BoardService

    config = online_config(tmp_path, server)
    (tmp_path / "online-token").unlink()
    svc = BoardService(config)
    client = page_client(svc)
    try:
        answer = client.post("/api/online/seek", json={"minutes": 10, "increment": 5})
        assert answer.status_code == 400 and "set your token" in answer.json()["error"]
    finally:
        svc.close()


def test_a_chess960_seek_from_the_page_asks_the_server_for_it(tmp_path, server):
    from controller.service import BoardService

    svc = BoardService(online_config(tmp_path, server))
    client = page_client(svc)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        answer = client.post("/api/online/seek", json={
            "minutes": 10, "increment": 5, "colour": "white", "variant": "chess960"})
        assert answer.status_code == 200
        assert answer.json()["online"]["seeking"]["variant"] == "chess960"
        pump(svc, lambda: bool(server.seeks))
        assert server.seeks[-1]["variant"] == "chess960"
        assert server.seeks[-1]["time"] == "10" and server.seeks[-1]["increment"] == "5"
    finally:
        svc.close()


def test_the_pages_challenges_commands_and_stop_seeking_reach_the_server(tmp_path, server):
    """From the page's routes: a challenge by name played, a takeback declined, a draw
    offered and agreed; an open challenge taken, then aborted; a seek stopped."""
    from controller.journal import Journal
    from controller.service import BoardService
    from tests.support.online import board_uci, play_line, started

    svc = BoardService(online_config(tmp_path, server))
    svc.online.backoff_s = (0.05, 0.1, 0.2)
    client = page_client(svc)

    def post(route: str, body: dict) -> dict:
        answer = client.post(route, json=body)
        assert answer.status_code == 200, answer.text
        return answer.json()["online"]
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        post("/api/online/challenge", {"name": server.opponent, "minutes": 10,
                                       "increment": 5, "colour": "white"})
        gid = started(svc, server)
        play_line(svc, server, gid, "e2e4 e7e5 g1f3 b8c6".split())
        server.answer(gid, "takeback")  # the opponent asks: declined from the page
        pump(svc, lambda: "decline takeback" in svc.online.commands())
        post("/api/online/command", {"command": "decline takeback"})
        pump(svc, lambda: server.games[gid].takeback is None)
        assert len(server.games[gid].moves) == 4
        post("/api/online/command", {"command": "offer draw"})
        pump(svc, lambda: server.games[gid].draw == "white")
        server.answer(gid, "draw")  # agreed
        pump(svc, lambda: svc.outcome is not None)
        assert svc.outcome.winners == () and server.games[gid].status == "draw"
        assert board_uci(svc) == server.games[gid].moves
        # an open challenge: its address shown, taken, then aborted from the page
        post("/api/online/challenge", {"open": True, "minutes": 15, "increment": 0})
        pump(svc, lambda: svc.online.open_url is not None)
        assert client.get("/api/online").json()["open_url"] == svc.online.open_url
        second = server.take_open(svc.online.open_url.rsplit("/", 1)[1])
        pump(svc, lambda: (svc.online.record or {}).get("id") == second)
        started(svc, server)
        assert "abort" in svc.online.commands() and "resign" not in svc.online.commands()
        post("/api/online/command", {"command": "abort"})
        pump(svc, lambda: svc.online.record is None)
        assert server.games[second].status == "aborted"
        # a seek nobody takes, stopped from the page: withdrawn on the server
        server.pair_seeks = False
        post("/api/online/seek", {"minutes": 10, "increment": 5})
        pump(svc, lambda: len(server.open_seeks) == 1)
        assert post("/api/online/seek", {"cancel": True})["seeking"] is None
        pump(svc, lambda: not server.open_seeks)
        assert server.seeks_withdrawn == 1
        # a correspondence seek: its days a move sent, nothing kept open
        post("/api/online/seek", {"days": 3, "colour": "black"})
        pump(svc, lambda: server.seeks[-1].get("days") == "3")
        assert server.seeks[-1]["color"] == "black" and "time" not in server.seeks[-1]
        assert svc.online.seeking is None and not server.open_seeks
    finally:
        svc.close()
    record = next(r for r in Journal(tmp_path / "journal").games()
                  if r.seats.get("online", {}).get("id") == gid)
    assert record.result == "1/2-1/2"
