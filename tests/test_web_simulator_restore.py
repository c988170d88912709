"""The simulator's ``restore`` action (the page's "Accept" of a linked takeback): the
earlier position set up on the simulated board is the board's own takeback gesture, so
the board takes the moves back; a ply count out of range is refused with one line."""

from __future__ import annotations

from tests.support.service import make_service, play, set_up
from tests.support.webtools import page_client


def test_restore_sets_up_an_earlier_position_and_the_board_takes_the_moves_back(tmp_path):
    svc = make_service(tmp_path)
    try:
        svc.new_game("chess", {}, None)
        set_up(svc)
        for text in ("e4", "e5", "Nf3"):
            play(svc, text)
        page = page_client(svc)
        for bad in (3, -1, True, "1"):
            answer = page.post("/api/sim", json={"action": "restore", "plies": bad})
            assert answer.status_code == 400 and "plies" in answer.json()["error"], bad
        assert page.post("/api/sim", json={"action": "restore", "plies": 1}).json()["ok"]
        svc.step(0.2)
        assert svc.interaction.phase == "takeback"
        svc.step(svc.config.board.takeback_delay_s + 0.2)
        assert [text for _, text in svc.plies] == ["e4"]
        assert svc.interaction.phase == "turn"
    finally:
        svc.close()
