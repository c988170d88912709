"""The guided first game and the players' guides served by the board's page.

The walkthrough advances on the real board's state: arranging, lifting, a move, a capture,
then the game's special move (here a Lùotuoqí Tower split), each made with human actions
on the simulated board.  The guides are the docs/rules pages, rendered.
"""

from __future__ import annotations

import re
import warnings

import pytest

from controller.web.page import page_state
from tests.support.service import make_service, play, set_up

with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from controller.rules import GAMES
from controller.web.app import create_app


def steps(svc) -> dict[str, bool]:
    return {s["name"]: s["done"] for s in page_state(svc)["tutorial"]["steps"]}


def test_the_walkthrough_follows_the_board(tmp_path):
    svc = make_service(tmp_path)
    try:
        client = TestClient(create_app(svc))
        assert page_state(svc)["tutorial"] is None
        assert client.post("/api/tutorial", json={"on": True}).status_code == 200
        assert not any(steps(svc).values())
        set_up(svc)
        assert steps(svc) == {"arrange": True, "lift": False, "move": False,
                              "capture": False, "special": False}
        svc.sim_action({"action": "lift", "spot": "b1"})
        svc.step(0.1)
        assert steps(svc)["lift"] and not steps(svc)["move"]
        svc.sim_action({"action": "place", "spot": "b1"})
        svc.step(0.1)
        for text in ("Ee2-d3", "Ed7-c6", "Ed3-e4", "Ec6-d5"):
            play(svc, text)
        assert steps(svc)["move"] and not steps(svc)["capture"]
        play(svc, "Ee4xd5")  # a capture
        assert steps(svc)["capture"] and not steps(svc)["special"]
        play(svc, "Ea7-b6")
        state = page_state(svc)["tutorial"]
        assert state["current"] == 4 and "Split a Tower" in state["steps"][4]["text"]
        play(svc, "T1d1-e2", answer_on_pad=True)  # one stone of the Tower
        assert all(steps(svc).values()) and page_state(svc)["tutorial"]["finished"]
        assert client.post("/api/tutorial", json={"on": False}).status_code == 200
        assert page_state(svc)["tutorial"] is None
        r = client.post("/api/tutorial", json={"on": "yes"})
        assert r.status_code == 400 and "tutorial: expected" in r.json()["error"]
    finally:
        svc.close()


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_game_has_a_guide_page_with_its_pictures(tmp_path, game):
    svc = make_service(tmp_path)
    try:
        client = TestClient(create_app(svc))
        r = client.get(f"/guide/{game}")
        assert r.status_code == 200 and "How the game ends" in r.text
        assert "../shared" not in r.text and "DECISIONS" not in r.text
        for src in set(re.findall(r'src="([^"]+)"', r.text)):
            picture = client.get(f"/guide/{src}")
            assert picture.status_code == 200 and picture.text.startswith("<?xml")
    finally:
        svc.close()


def test_guide_paths_cannot_leave_the_guides(tmp_path):
    svc = make_service(tmp_path)
    try:
        client = TestClient(create_app(svc))
        for path in ("/guide/..%2Fconfig", "/guide/images/..%2F..%2Fsetup.py",
                     "/guide/nosuchgame", "/guide/images/x.png"):
            assert client.get(path).status_code == 404, path
    finally:
        svc.close()
