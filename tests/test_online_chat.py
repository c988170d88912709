"""The players' chat of an online game (issue 35): the opponent's ``chatLine`` lines shown
in the page's Online section (never spoken, never logged), the owner's short line sent
from the page to the game's ``player`` room, bad lines refused in one line; and the
accounts' names and ratings on the page's clocks and in the PGN."""

from __future__ import annotations

import logging

import pytest

from controller.journal import Journal
from controller.pgn import game_pgn
from tests.support.lichess import FakeLichess
from tests.support.online import OWNER, TOKEN, online_service, play_line, pump, started
from tests.support.webtools import page_client


@pytest.fixture
def server():
    running = FakeLichess({TOKEN: OWNER}).start()
    running.ratings = {OWNER: 1620, "sparring": 1845}
    yield running
    running.stop()


def test_the_opponents_lines_are_shown_and_the_owners_sent(tmp_path, server, caplog):
    caplog.set_level(logging.DEBUG)
    svc = online_service(tmp_path, server)
    client = page_client(svc)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        answer = client.post("/api/online/chat", json={"text": "hello"})
        assert answer.status_code == 400 and "no online game" in answer.json()["error"]
        svc.online.seek(10, 5, False, "white")
        gid = started(svc, server)
        server.say(gid, "<b>good luck</b>")
        pump(svc, lambda: svc.online.json()["chat"])
        assert client.get("/api/online").json()["chat"] == [
            {"from": "sparring", "text": "<b>good luck</b>"}]  # as text: the page escapes
        answer = client.post("/api/online/chat", json={"text": "  thanks, you too  "})
        assert answer.status_code == 200
        pump(svc, lambda: len(svc.online.json()["chat"]) == 2)
        said = server.games[gid].chat[-1]
        assert said == {"type": "chatLine", "room": "player", "username": OWNER,
                        "text": "thanks, you too"}
        play_line(svc, server, gid, "e2e4 e7e5".split())  # the echo is not shown twice
        assert [c["text"] for c in svc.online.json()["chat"]] == [
            "<b>good luck</b>", "thanks, you too"]
        for bad in ({"text": ""}, {"text": "x" * 141}, {"text": 5}, {"line": "hi"}):
            answer = client.post("/api/online/chat", json=bad)
            assert answer.status_code == 400 and "\n" not in answer.json()["error"], bad
        assert len(server.games[gid].chat) == 2
        # the names on the clocks: the accounts and their ratings, not White and Black
        assert svc.clock_json()["names"] == ["owner (1620)", "sparring (1845)"]
        server.end(gid, "resign", "black")
        pump(svc, lambda: svc.outcome is not None)
        spoken = " ".join(a["text"] for a in svc.voice.json())
        assert "luck" not in spoken and "thanks" not in spoken  # never spoken
    finally:
        svc.close()
    assert "luck" not in caplog.text and "thanks" not in caplog.text  # never logged
    assert TOKEN not in caplog.text
    record = next(r for r in Journal(tmp_path / "journal").games() if r.moves)
    pgn = game_pgn(record)
    assert '[White "owner"]' in pgn and '[Black "sparring"]' in pgn, pgn
