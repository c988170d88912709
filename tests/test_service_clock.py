"""Clocks on the board: time controls from the configuration or the page, the journal,
a restart, and a flag that ends the game as the rules say (simulated time: no waiting)."""

from __future__ import annotations

import json

import pytest

from controller.journal import Journal
from controller.service import BoardService, ServiceError
from controller.web.page import page_state
from tests.support.service import make_config, play, set_up


def clocked(tmp_path, control: str = "1+2", **board) -> BoardService:
    return BoardService(make_config(tmp_path, clock=control, **board))


def test_the_movers_clock_runs_from_the_set_up_and_each_move_gets_its_increment(tmp_path):
    svc = clocked(tmp_path)
    try:
        assert svc.clock_json()["running"] is None  # not before the set-up is verified
        svc.step(5.0)
        assert svc.clock_json()["remaining"] == [60.0, 60.0]
        set_up(svc)
        svc.step(3.0)
        white = svc.clock_json()["remaining"][0]
        assert 56.5 < white < 57.5 and svc.clock_json()["running"] == 0
        play(svc, "Mb1-c3")
        c = svc.clock_json()
        assert c["running"] == 1 and c["remaining"][1] > 59.0
        assert white + 1.3 < c["remaining"][0] <= white + 2.05  # the move took under 0.7 s
        record = Journal(tmp_path / "journal").unfinished()
        assert record.clock == "1+2" and record.clocks[0] is not None
        assert record.clocks[0][0] == pytest.approx(c["remaining"][0], abs=0.3)
        state = page_state(svc)
        assert state["clock"]["shown"][1].startswith("0:5") and state["time_control"] == "1+2"
    finally:
        svc.close()


def test_a_fallen_flag_ends_the_game_and_the_journal_says_why(tmp_path):
    svc = clocked(tmp_path, "0.2")
    try:
        set_up(svc)
        play(svc, "Mb1-c3")
        svc.step(12.5)  # Black thinks too long
        assert svc.outcome is not None
        assert (svc.outcome.winners, svc.outcome.reason) == ((0,), "time forfeit")
        assert svc.clock_json()["flag"] == 1
        record = Journal(tmp_path / "journal").games()[-1]
        assert (record.result, record.reason) == ("1-0", "time forfeit")
    finally:
        svc.close()


def test_a_flag_is_only_reported_when_so_configured(tmp_path):
    svc = clocked(tmp_path, "0.2", on_flag="report")
    try:
        set_up(svc)
        svc.step(12.5)
        assert svc.outcome is None and svc.clock_json()["flag"] == 0
        play(svc, "Mb1-c3")  # play goes on
        assert len(svc.plies) == 1
    finally:
        svc.close()


def test_the_clock_pauses_while_the_board_waits_for_a_correction(tmp_path):
    svc = clocked(tmp_path, "1")
    try:
        set_up(svc)
        svc.step(1.0)
        svc.sim_action({"action": "lift", "spot": "a8"})  # an enemy piece knocked off
        svc.step(2.0)
        assert svc.interaction.phase == "correction"
        paused_at = svc.clock_json()["remaining"][0]
        svc.step(5.0)
        assert svc.clock_json()["remaining"][0] == paused_at
        assert svc.clock_json()["paused"]
    finally:
        svc.close()


def test_the_clocks_survive_a_restart_paused_until_the_set_up(tmp_path):
    svc = clocked(tmp_path, "3+0")
    set_up(svc)
    svc.step(10.0)
    play(svc, "Mb1-c3")
    svc.step(4.0)
    before = svc.clock_json()["remaining"]
    svc.close()  # a clean stop writes the running clock
    again = clocked(tmp_path, "3+0")
    try:
        c = again.clock_json()
        assert c["paused"] and c["remaining"] == pytest.approx(before, abs=0.05)
        again.decide_resume(True)
        set_up(again)
        again.step(5.0)
        assert again.clock_json()["remaining"][1] == pytest.approx(before[1] - 5.0, abs=0.3)
    finally:
        again.close()


def test_a_takeback_gives_the_clock_back_to_the_mover_without_increment(tmp_path):
    svc = clocked(tmp_path, "1+5")
    try:
        set_up(svc)
        play(svc, "Mb1-c3")
        white = svc.clock_json()["remaining"][0]
        svc.sim_action({"action": "lift", "spot": "c3"})  # the Mule goes back: a takeback
        svc.step(0.05)
        svc.sim_action({"action": "place", "spot": "b1"})
        svc.step(3.0)
        assert len(svc.plies) == 0 and svc.clock_json()["running"] == 0
        assert svc.clock_json()["remaining"][0] < white
    finally:
        svc.close()


def test_new_game_from_the_page_sets_the_clock_and_refuses_a_bad_one(tmp_path):
    svc = BoardService(make_config(tmp_path))
    try:
        assert svc.clock_json() is None
        with pytest.raises(ServiceError, match="time control 'soon'"):
            svc.new_game("luotuoqi", time_control="soon")
        svc.new_game("luotuoqi", time_control="5d3")
        assert svc.clock_json()["control"] == "5d3"
        svc.new_game("luotuoqi", time_control="")
        assert svc.clock_json() is None
    finally:
        svc.close()


def test_the_exported_game_carries_the_clock(tmp_path):
    from controller.journal import export_record

    svc = clocked(tmp_path, "5+3")
    try:
        set_up(svc)
        play(svc, "Mb1-c3")
        pgn = export_record(Journal(tmp_path / "journal").unfinished())
        assert '[TimeControl "300+3"]' in pgn and "{[%clk 0:05:0" in pgn  # PGN: seconds
    finally:
        svc.close()


def test_a_bad_clock_in_the_configuration_names_the_setting(tmp_path):
    from controller.config import ConfigError, config_from_dict

    with pytest.raises(ConfigError, match="board.clock: time control '3\\+x'"):
        config_from_dict({"board": {"clock": "3+x"}})
    assert json.dumps(config_from_dict({"board": {"clock": "3+2"}}).board.clock) == '"3+2"'


def test_the_computer_thinks_for_its_share_of_the_clock(tmp_path):
    from controller.engine import LEVELS, clock_budget
    from controller.opponent import Computer
    from tests.support.service import wait_for

    svc = clocked(tmp_path, "40/2:1+1")  # 40 moves in 2 minutes, then 1, 1 s increment
    try:
        svc.new_game("luotuoqi", computer=Computer(frozenset({1}), 10), time_control="40/2:1+1")
        set_up(svc)
        play(svc, "Mb1-c3")
        black = svc.clock_json()["remaining"][1]
        share = svc._computer_movetime(svc.clock())
        assert share == pytest.approx(clock_budget(black, 1.0, 40), rel=0.02)
        assert share < LEVELS[10].movetime  # the clock, not the level, sets the time
        wait_for(svc, lambda: len(svc.plies) == 2)  # it answers, shown and made
    finally:
        svc.close()


def test_low_time_is_announced_once_for_the_mover_with_its_sound(tmp_path):
    """A minute's game: below a tenth of it (6 s) the mover hears how long he has, once,
    on the page (and the Pi's speaker) with the low-time sound."""
    config = make_config(tmp_path, clock="1+0")
    config.sensing.scan_hz = 20.0  # (a minute of scans is the test's cost)
    svc = BoardService(config)
    try:
        set_up(svc)
        svc.step(50.0)
        assert not [a for a in svc.voice.json() if a["sound"] == "low_time"]
        svc.step(5.0)  # 5 s left: low (from 6 s on)
        svc.step(2.0)
        low = [a["text"] for a in svc.voice.json() if a["sound"] == "low_time"]
        assert len(low) == 1 and low[0] in ("White: 6 seconds left",
                                            "White: 5 seconds left"), svc.voice.json()
        assert [a["text"] for a in page_state(svc)["announcements"]
                if a["sound"] == "low_time"] == low
    finally:
        svc.close()
