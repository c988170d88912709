"""The voice in the running service: every move and event said once to the page's state
(the words the page reads out and its live region shows), the event sounds served, the
Pi's speaker fed when the owner turns it on, and nothing for a page that shows another
player in fog of war."""

from __future__ import annotations

import pytest

from controller.service import BoardService
from controller.web.page import page_state
from controller.web.simulator import move_actions
from tests.support.service import make_config


@pytest.fixture
def svc(tmp_path):
    service = BoardService(make_config(tmp_path, layout="square8"))
    yield service
    service.close()


def _play(client, svc, texts):
    for text in texts:
        move = svc.game.parse_move(svc.position, text)
        for action in move_actions(svc.game, svc.position, move, svc.layout):
            assert client.post("/api/sim", json=action).json()["ok"]
            svc.step(0.03)
        svc.step(0.1)


def test_each_move_is_announced_once_to_the_page(client, svc):
    assert client.post("/api/new-game", json={"game": "chess"}).status_code == 200
    assert client.post("/api/sim", json={"action": "arrange"}).json()["ok"]
    svc.step(0.1)
    _play(client, svc, ["e4", "e5", "Nf3"])
    said = client.get("/api/state").json()["announcements"]
    moves = [a for a in said if a["event"] == "move"]
    assert [a["text"] for a in moves] == ["Pawn e2 to e4", "Pawn e7 to e5", "Knight g1 to f3"]
    assert [a["seq"] for a in said] == sorted({a["seq"] for a in said})
    _play(client, svc, ["Nc6", "Bb5", "a6", "Bxc6"])
    last = client.get("/api/state").json()["announcements"][-1]
    assert last["text"] == "Bishop b5 takes Knight on c6" and last["sound"] == "capture"


def test_the_event_sounds_are_served_and_a_wrong_name_is_a_404(client):
    r = client.get("/sound/capture")
    assert r.status_code == 200 and r.headers["content-type"] == "audio/wav"
    assert r.content[:4] == b"RIFF" and len(r.content) > 2000
    r = client.get("/sound/bell")
    assert r.status_code == 404 and "no sound 'bell'" in r.json()["error"]
    r = client.get("/sound/bell", headers={"Accept-Language": "de"})  # the page's language
    assert r.status_code == 404 and r.json()["error"] == "kein Klang 'bell'"


def test_the_pis_speaker_hears_the_same_announcements(tmp_path, monkeypatch):
    heard = []

    class Heard:  # the speaker's queue, as a list
        def __init__(self, **settings) -> None:
            pass

        def __call__(self, item) -> None:
            heard.append(item)

        def close(self, timeout: float = 0) -> None:
            pass

    monkeypatch.setattr("controller.speech.room.Speaker", Heard)
    config = make_config(tmp_path, layout="square8")
    config.speech.speaker = True
    service = BoardService(config)
    try:
        service.new_game("chess")
        service.sim_action({"action": "arrange"})
        service.step(0.1)
        move = service.game.parse_move(service.position, "e4")
        for action in move_actions(service.game, service.position, move, service.layout):
            service.sim_action(action)
            service.step(0.03)
        service.step(0.1)
        assert [a.text for a in heard if a.event == "move"] == ["Pawn e2 to e4"]
    finally:
        service.close()


def test_in_fog_each_page_hears_only_the_words_made_for_its_player(tmp_path):
    """Lao Tzu shared at one board: White's move is worded from Black's view, for Black's
    page only; White's page is given none of it (before, a page heard only when it showed
    the board's listener — nobody at a shared board — and the words kept no owner, so a
    later listener was handed words made for another player)."""
    service = BoardService(make_config(tmp_path, layout="square8"))
    try:
        service.new_game("laotzu", {"seed": "3"})
        assert service.page_viewer(None) is None  # two people at one board
        service.sim_action({"action": "arrange"})
        service.step(0.1)
        move = service.game.legal_moves(service.position)[0]
        for action in move_actions(service.game, service.position, move, service.layout):
            service.sim_action(action)
            service.step(0.03)
        service.step(0.1)
        black = [a for a in page_state(service, 1)["announcements"] if a["event"] == "move"]
        white = [a for a in page_state(service, 0)["announcements"] if a["event"] == "move"]
        assert [a["ears"] for a in black] == [1] and black[0]["text"]
        assert white == []
    finally:
        service.close()
