"""The adaptive level at the board (issue 33): with ``[engine] adaptive = true`` a game
against the computer starts at the adaptive level, each finished game moves it (down
after a loss, up after a win, by a step halved at each turn), its state is kept beside
the journal and survives a restart, the page shows it; online games and games without
the computer never count."""

from __future__ import annotations

import json

import pytest

from controller.adaptive_seat import STATE_FILE
from controller.engine.adaptive import START_STEP
from controller.opponent import Computer
from controller.service import BoardService
from controller.web.page import page_state
from tests.support.lichess import FakeLichess
from tests.support.online import OWNER, online_service, play_line, pump, started
from tests.support.service import make_config, play, set_up

#: White (the person) mates in one: Rb9#
MATE_IN_ONE = "4k4/R8/1R7/9/9/9/9/9/4K4 w - - 0 1"


def _config(tmp_path, adaptive: bool = True):
    config = make_config(tmp_path, layout="square9", game="gnuqi", computer=["Black"],
                         computer_level=3)
    config.engine.adaptive = adaptive
    return config


def _state(tmp_path) -> dict:
    return json.loads((tmp_path / "journal" / STATE_FILE).read_text())


def test_finished_games_move_the_level_and_it_survives_a_restart(tmp_path):
    svc = BoardService(_config(tmp_path))
    try:
        start = svc.adaptive.level
        assert svc.opponent.computer.level == start != 3  # not the configured level
        set_up(svc)
        svc.command("resign")  # the person, to move, resigns: a loss
        assert svc.outcome is not None and svc.outcome.winners == (1,)
        down = start - START_STEP
        assert svc.adaptive.level == down and _state(tmp_path)["level"] == down
        # the page asks for level 9: the adaptive level is the one played
        svc.new_game("gnuqi", setup=MATE_IN_ONE, computer=Computer(frozenset({1}), 9))
        assert svc.opponent.computer.level == down
        set_up(svc)
        play(svc, "Rb9#")
        assert svc.outcome is not None and svc.outcome.winners == (0,)
        up = down + 1  # the direction turned: the step is halved
        assert svc.adaptive.level == up
        shown = page_state(svc)["computer"]["adaptive"]
        assert shown == {"on": True, "level": up, "games": 2, "score": 0.5, "problem": None}
    finally:
        svc.close()
    again = BoardService(_config(tmp_path))
    try:
        assert again.adaptive.level == up and again.opponent.computer.level == up
        assert again.adaptive.adaptive.results == [0.0, 1.0]
    finally:
        again.close()


def test_off_the_level_stays_and_nothing_is_kept(tmp_path):
    svc = BoardService(_config(tmp_path, adaptive=False))
    try:
        assert svc.opponent.computer.level == 3
        set_up(svc)
        svc.command("resign")
        assert svc.outcome is not None
        assert not (tmp_path / "journal" / STATE_FILE).exists()
        assert page_state(svc)["computer"]["adaptive"]["on"] is False
        svc.new_game("gnuqi", computer=Computer(frozenset({1}), 3))
        assert svc.opponent.computer.level == 3
    finally:
        svc.close()


def test_a_game_without_the_computer_does_not_count(tmp_path):
    svc = BoardService(_config(tmp_path))
    try:
        start = svc.adaptive.level
        svc.new_game("gnuqi")  # two people
        set_up(svc)
        svc.command("resign")
        assert svc.outcome is not None and svc.adaptive.level == start
        assert not (tmp_path / "journal" / STATE_FILE).exists()
    finally:
        svc.close()


def test_an_unreadable_state_file_starts_afresh(tmp_path):
    folder = tmp_path / "journal"
    folder.mkdir()
    (folder / STATE_FILE).write_text('{"level": 42, "step": "x"')  # torn and wrong
    svc = BoardService(_config(tmp_path))
    try:
        fresh = svc.adaptive.level
        set_up(svc)
        svc.command("resign")
        assert _state(tmp_path)["level"] == fresh - START_STEP
    finally:
        svc.close()


@pytest.fixture
def server():
    running = FakeLichess({"tok-owner": OWNER}).start()
    yield running
    running.stop()


def test_an_online_game_never_counts(tmp_path, server):
    svc = online_service(tmp_path, server, computer=["Black"])
    svc.adaptive.on = True  # as [engine] adaptive = true
    try:
        start = svc.adaptive.level
        pump(svc, lambda: svc.online.me == OWNER)
        svc.online.seek(15, 10, False, "black")
        gid = started(svc, server)
        line = "e2e4 d7d5 e4e5 f7f5".split()
        play_line(svc, server, gid, line, owner_seat=1)
        pump(svc, lambda: len(server.games[gid].moves) == len(line))  # all on the server
        svc.command("resign")
        pump(svc, lambda: svc.outcome is not None)
        assert svc.adaptive.level == start and svc.adaptive.adaptive.results == []
        assert not (tmp_path / "journal" / STATE_FILE).exists()
    finally:
        svc.close()
