"""A resumed game is answered from the board alone (issue 37): while it waits the option
pads are lit and the board says how to go on; a move plays on (the clocks start then), a
touch of an option pad opens the command menu, which offers a new game instead."""

from __future__ import annotations

from controller.board import NEW_GAME
from controller.interaction import RESUMED_TEXT
from tests.support.service import make_service, play, set_up


def _touch(svc, pad: str) -> None:
    """A finger, or a piece, on an option pad and off again."""
    svc.sim_action({"action": "take", "object": "white-E"})
    svc.sim_action({"action": "place", "spot": pad})
    svc.step(0.1)
    svc.sim_action({"action": "lift", "spot": pad})
    svc.sim_action({"action": "set_aside"})
    svc.step(0.1)


def _resumed(tmp_path):
    svc = make_service(tmp_path, clock="5+3")
    set_up(svc)
    play(svc, "Mb1-c3")
    first = svc.game_id
    svc.sensing.close()  # the power goes: nothing more is written
    again = make_service(tmp_path, clock="5+3")
    again.step(0.1)
    assert again.game_id == first and again.resume_offer is not None
    return again, first


def test_the_pads_light_and_the_board_says_how_to_go_on(tmp_path):
    svc, _ = _resumed(tmp_path)
    try:
        it = svc.interaction
        pads = {svc.layout.spot_index(s.name) for s in svc.layout.pads("option")}
        assert it.phase == "setup" and pads and pads <= it.active_pads
        assert it.message == RESUMED_TEXT
        clock = svc.clock_json()
        assert clock is not None and clock["running"] is None or clock["paused"]
    finally:
        svc.close()


def test_a_move_on_the_board_plays_on_and_starts_the_clock(tmp_path):
    svc, first = _resumed(tmp_path)
    try:
        set_up(svc)
        play(svc, "Mb8-c6")
        assert svc.game_id == first and svc.resume_offer is None
        pads = {svc.layout.spot_index(s.name) for s in svc.layout.pads("option")}
        assert not pads & svc.interaction.active_pads
        svc.step(0.5)
        clock = svc.clock_json()
        assert clock["running"] == 0 and not clock["paused"]
    finally:
        svc.close()


def test_an_option_pad_offers_a_new_game_instead(tmp_path):
    svc, first = _resumed(tmp_path)
    try:
        pad = svc.layout.pads("option")[0].name
        _touch(svc, pad)
        it = svc.interaction
        assert it.phase == "choice", it
        option = next(o for o in it.options if o.label == NEW_GAME)
        _touch(svc, svc.layout.spots[option.spot].name)
        svc.step(0.2)
        assert svc.game_id != first and svc.resume_offer is None
        assert svc.journal.find(first).result == "*"
        assert svc.interaction.message != RESUMED_TEXT
    finally:
        svc.close()
