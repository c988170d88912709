"""The simulated board can be any printed board (issue 30): a new game of a game this
layout is not made for switches the simulated board, its LEDs and the page's drawing to
the layout made for it; the game before is ended in its journal."""

from __future__ import annotations

from controller.journal import Journal
from controller.web.page import page_for, page_state
from tests.support.service import make_service, play, set_up


def test_a_new_game_of_another_board_switches_the_simulated_board(tmp_path):
    svc = make_service(tmp_path)
    try:
        set_up(svc)
        play(svc, "Mb1-c3")
        first = svc.game_id
        svc.new_game("gnuqi")
        assert svc.layout.name == "square9" and page_for(svc).layout_json["name"] == "square9"
        assert svc.sim.layout is svc.layout and len(svc.led_glow()) == len(svc.layout.spots)
        state = page_state(svc)
        assert state["layout"] == "square9" and state["game"]["name"] == "gnuqi"
        assert "luotuoqi" in {g["name"] for g in state["other_games"]}
        assert Journal(tmp_path / "journal").find(first).result == "*"
        set_up(svc)  # the simulated hand arranges the 9×9 board; play goes on there
        move = svc.game.legal_moves(svc.position)[0]
        play(svc, svc.game.move_text(svc.position, move))
        assert len(svc.plies) == 1
        svc.new_game("luotuoqi")  # and back
        assert svc.layout.name == "square8"
    finally:
        svc.close()
