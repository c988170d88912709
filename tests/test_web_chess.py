"""Chess in the companion page's API: a game started from the page (standard and
Chess960 by array number), played with human actions on the simulated board through
``/api/sim`` to checkmate, the page state showing SAN, the result and the array."""

from __future__ import annotations

import warnings

import pytest

from controller.service import BoardService
from controller.web.simulator import move_actions
from tests.support.service import make_config

with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
    warnings.simplefilter("ignore")



@pytest.fixture
def svc(tmp_path):
    service = BoardService(make_config(tmp_path, layout="square8"))
    yield service
    service.close()




def play_through_page(client, svc, texts: list[str]) -> None:
    for text in texts:
        move = svc.game.parse_move(svc.position, text)
        for action in move_actions(svc.game, svc.position, move, svc.layout):
            assert client.post("/api/sim", json=action).json()["ok"]
            svc.step(0.03)
        svc.step(0.1)


def test_a_chess_game_started_and_mated_from_the_page(client, svc):
    r = client.post("/api/new-game", json={"game": "chess"})
    assert r.status_code == 200, r.text
    assert client.post("/api/sim", json={"action": "arrange"}).json()["ok"]
    svc.step(0.1)
    play_through_page(client, svc, ["f2f3", "e5", "g2-g4", "Qh4#"])
    state = client.get("/api/state").json()
    assert [m["text"] for m in state["moves"]] == ["f3", "e5", "g4", "Qh4#"]
    assert state["result"]["reason"] == "checkmate"
    assert svc.journal.games()[-1].moves == ["f3", "e5", "g4", "Qh4#"]


def test_chess960_from_the_page_stands_on_the_chosen_array(client, svc):
    r = client.post("/api/new-game", json={"game": "chess",
                                           "options": {"chess960": True, "array": 0}})
    assert r.status_code == 200, r.text
    assert svc.game.position_text(svc.position).split()[0] == (
        "bbqnnrkr/pppppppp/8/8/8/8/PPPPPPPP/BBQNNRKR")
    assert client.post("/api/sim", json={"action": "arrange"}).json()["ok"]
    svc.step(0.1)
    play_through_page(client, svc, ["Nd3", "Nd6"])
    assert [m["text"] for m in client.get("/api/state").json()["moves"]] == ["Nd3", "Nd6"]
    r = client.post("/api/new-game", json={"game": "chess", "options": {"array": 0}})
    assert r.status_code == 400 and "chess960" in r.json()["error"]
