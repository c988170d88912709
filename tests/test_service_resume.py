"""A resume restores what the owner set up (issue 30): the computer's seats and level,
the coach and the clocks come back from the journal's start record after a power cut,
the banner says what is resumed, and the game to resume is the most recent unfinished
one this board can play by the journal's records — not by file name."""

from __future__ import annotations

import calendar

from controller.journal import Journal
from controller.opponent import Computer
from controller.rules import get_game
from controller.service import BoardService
from controller.web.page import page_state
from tests.support.service import make_config, play, set_up, wait_for


def _power_cut(svc: BoardService) -> None:
    """The power goes: nothing more is written (no clock record, no end), the workers die."""
    svc.computer.close()
    svc.coach_seat.close()
    svc.sensing.close()


def test_a_power_cut_against_the_computer_resumes_the_same_level_and_clocks(tmp_path):
    config = make_config(tmp_path, layout="square9", game="gnuqi", computer=["Black"],
                         computer_level=2, clock="5+3", coach=True)
    svc = BoardService(config)
    set_up(svc)
    play(svc, "e4")
    wait_for(svc, lambda: len(svc.position.moves) == 2 and svc.interaction.phase == "turn")
    play(svc, "a4")
    record = svc.journal.games()[-1]
    remaining = record.remaining
    assert remaining is not None and len(record.moves) == 3
    _power_cut(svc)

    plain = make_config(tmp_path, layout="square9", game="gnuqi")  # no computer, no clock
    again = BoardService(plain)
    try:
        assert again.game_id == record.id
        assert again.opponent.computer.seats == {1} and again.opponent.computer.level == 2
        assert again.coach.on
        clock = again.clock_json()
        assert clock is not None and clock["control"] == "5+3"
        assert clock["remaining"] == [round(r, 1) for r in remaining]
        offer = page_state(again)["resume"]
        assert offer["summary"].startswith("against the computer, level 2, ")
        assert offer["summary"].endswith(", coach on")
        assert " – ".join(clock["shown"]) in offer["summary"]
        assert page_state(again)["computer"]["names"] == ["Black"]
        set_up(again)
        again.decide_resume(True)
        # the computer answers the person's last move, on the clock
        wait_for(again, lambda: len(again.position.moves) == 4
                 and again.interaction.phase == "turn")
        assert len(again.journal.games()[-1].moves) == 4
    finally:
        again.close()


def test_a_game_between_people_is_not_resumed_against_the_configured_computer(tmp_path):
    config = make_config(tmp_path, layout="square9", game="gnuqi", computer=["Black"],
                         computer_level=3)
    svc = BoardService(config)
    svc.new_game("gnuqi", {}, None, Computer())  # from the page: two people
    set_up(svc)
    play(svc, "e4")
    _power_cut(svc)
    again = BoardService(config)
    try:
        assert again.opponent.computer.seats == frozenset()
        assert "computer" not in page_state(again)["resume"]["summary"]
    finally:
        again.close()


def _stamp(year: int) -> float:
    return float(calendar.timegm((year, 6, 1, 12, 0, 0, 0, 0, 0)))


def test_the_most_recent_unfinished_game_this_board_can_play_is_resumed(tmp_path):
    """Three unfinished games: the newest is of another layout; of this board's the most
    recent was started while the clock ran behind (its file name sorts first)."""
    journal = Journal(tmp_path / "journal")
    gnuqi, luotuoqi = get_game("gnuqi"), get_game("luotuoqi")

    def start(game, seq: int, year: int) -> str:
        pos = game.start()
        writer = journal.new_game(game.name, {}, game.position_text(pos),
                                  list(game.player_names), _stamp(year), None, None,
                                  {"computer": [], "level": 6}, seq)
        writer.move(game.move_text(pos, game.legal_moves(pos)[0]))
        writer.close()
        return writer.path.stem

    start(gnuqi, 1, 2026)
    behind = start(gnuqi, 2, 2001)  # the clock ran behind: the oldest file name
    start(luotuoqi, 3, 2026)  # the newest game: another layout's
    svc = BoardService(make_config(tmp_path, layout="square9", game="gnuqi"))
    try:
        assert svc.game_id == behind and svc.resume_offer is not None
        assert len(svc.plies) == 1
        # the next game is numbered after every game of the journal
        svc.new_game("gnuqi")
        assert max(r.seq or 0 for r in svc.journal.games()) == 4
    finally:
        svc.close()


def test_a_move_on_the_board_continues_the_resumed_game_and_its_clocks(tmp_path):
    """A board without a screen: nobody answers the page's banner, so the move made on
    the set-up board keeps the game, and the clocks run from then on (issue 37)."""
    config = make_config(tmp_path, layout="square9", game="gnuqi", clock="3+0")
    svc = BoardService(config)
    set_up(svc)
    play(svc, "e4")
    svc.close()
    again = BoardService(config)
    try:
        set_up(again)
        again.step(2.0)
        assert again.resume_offer is not None and again.clock_json()["paused"]
        game, pos = again.game, again.position
        play(again, game.move_text(pos, game.legal_moves(pos)[0]))
        assert again.resume_offer is None
        before = again.clock_json()["remaining"][0]
        again.step(2.0)
        assert not again.clock_json()["paused"]
        assert again.clock_json()["remaining"][0] < before - 1.5
    finally:
        again.close()


def test_the_coach_switched_mid_game_is_resumed_after_a_power_cut(tmp_path):
    """A change made mid-game is journalled at once: switched off after the first moves,
    the coach stays off after a power cut (the start record said on), with the clocks."""
    config = make_config(tmp_path, layout="square9", game="gnuqi", computer=["Black"],
                         computer_level=2, clock="5+3", coach=True)
    svc = BoardService(config)
    set_up(svc)
    play(svc, "e4")
    wait_for(svc, lambda: len(svc.position.moves) == 2 and svc.interaction.phase == "turn")
    svc.command("coach off")
    assert svc.journal.games()[-1].seats["coach"] is False
    play(svc, "a4")
    remaining = svc.journal.games()[-1].remaining
    _power_cut(svc)

    again = BoardService(make_config(tmp_path, layout="square9", game="gnuqi", coach=True))
    try:
        assert not again.coach.on  # the switch, not the start record nor the configuration
        assert again.opponent.computer.seats == {1} and again.opponent.computer.level == 2
        assert again.clock_json()["remaining"] == [round(r, 1) for r in remaining]
        assert not page_state(again)["resume"]["summary"].endswith("coach on")
        again.command("coach on")  # and back on: the next resume has it on
    finally:
        again.close()
    third = BoardService(make_config(tmp_path, layout="square9", game="gnuqi"))
    try:
        assert third.coach.on
    finally:
        third.close()
