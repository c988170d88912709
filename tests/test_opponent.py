"""Playing the computer on the board: its search runs in a worker process, its move is
shown with the execute flow, and on the simulated board the simulated hand makes it.

The service runs in process with the simulated board (see tests/test_service.py); the
person's moves are human actions on the simulated electronics.
"""

from __future__ import annotations

import time

import pytest

from controller.opponent import Computer, Opponent, think
from controller.rules import get_game
from controller.service import BoardService, ServiceError
from controller.web.page import page_state
from tests.support.service import make_config, play, set_up, wait_for


def test_the_worker_answers_with_a_legal_move_of_the_game_record():
    game = get_game("gnuqi")
    pos = game.start()
    pos.push(game.parse_move(pos, "e4"))
    text = think("gnuqi", {}, game.position_text(game.start()), ["e3e4"], level=2, seed=0)
    assert game.parse_move(pos, text) in game.legal_moves(pos)


def test_a_game_against_the_computer_on_the_simulated_board(tmp_path):
    svc = BoardService(make_config(tmp_path, layout="square9", game="gnuqi",
                                   computer=["Black"], computer_level=1))
    try:
        set_up(svc)
        assert page_state(svc)["computer"]["names"] == ["Black"]
        for text in ("e4", "a4", "i4"):
            ply = len(svc.position.moves)
            play(svc, text)
            assert len(svc.position.moves) == ply + 1
            # the computer answers: shown, made by the simulated hand, committed
            wait_for(svc, lambda n=ply: len(svc.position.moves) == n + 2
                     and svc.interaction.phase == "turn")
            assert svc.game.ply_mover(svc.position) == 0
        records = svc.journal.games()
        assert len(records[-1].moves) == 6
    finally:
        svc.close()


def test_a_new_game_with_the_computer_from_the_page_and_bad_seats(tmp_path):
    svc = BoardService(make_config(tmp_path, layout="square8", game="luotuoqi"))
    try:
        with pytest.raises(ServiceError, match="computer: players"):
            svc.new_game("luotuoqi", {}, None, Computer(frozenset({2}), 6))
        svc.new_game("luotuoqi", {}, None, Computer(frozenset({0}), 1))
        set_up(svc)  # the computer plays White: it moves first
        wait_for(svc, lambda: len(svc.position.moves) == 1 and svc.interaction.phase == "turn")
        assert svc.game.ply_mover(svc.position) == 1
    finally:
        svc.close()


def test_a_stale_answer_is_never_used():
    game = get_game("gnuqi")
    pos = game.start()
    opponent = Opponent(Computer(frozenset({0}), 1))
    try:
        setup = game.position_text(pos)
        assert opponent.poll(game, {}, setup, [], pos) is None  # asked
        assert opponent.thinking or opponent._question is not None
        pos.push(game.legal_moves(pos)[0])  # the position changed meanwhile (Black to move)
        deadline = time.monotonic() + 30
        while opponent._question is not None and not opponent._question.future.done():
            assert time.monotonic() < deadline
            time.sleep(0.02)
        assert opponent.poll(game, {}, setup, [], pos) is None  # not the computer's turn
    finally:
        opponent.close()


def test_lao_tzu_computer_thinks_from_its_view_only(tmp_path, monkeypatch):
    """The worker is handed the computer's view, never the game record or the arrays."""
    import controller.opponent as opponent_module

    seen = []
    real = opponent_module.think_from_view

    def spy(game_name, options, view, level, seed, movetime=None, limits=None, memory=()):
        seen.append((options, type(view).__name__, [type(v).__name__ for v in memory]))
        return real(game_name, options, view, level, seed, movetime, limits, memory)

    monkeypatch.setattr(opponent_module, "think_from_view", spy)
    monkeypatch.setattr(opponent_module, "think", None)  # the record path must not be used
    game = get_game("laotzu", white_array=100, black_array=700)
    pos = game.start()
    record = ["e2e4", "e7e5", "d2d4"]
    for text in record:
        pos.push(game.parse_move(pos, text))
    opponent = Opponent(Computer(frozenset({1}), 2))
    # an in-process pool stand-in: run the job at once (the spy must see the arguments)
    from concurrent.futures import Future

    class Inline:
        def submit(self, fn, *args):
            f = Future()
            f.set_result(fn(*args))
            return f

        def shutdown(self, **kw):
            pass

    opponent._pool = Inline()
    options = dict(game.options)
    setup = game.position_text(game.start())
    before = game.position_text(pos)
    assert opponent.poll(game, options, setup, record, pos) is None
    move = opponent.poll(game, options, setup, record, pos)
    assert move in game.legal_moves(pos)
    assert seen and all("black_array" not in o and "white_array" not in o for o, _, _ in seen)
    # its view now, and what it saw after each earlier ply: views, never a position
    assert seen[0][1:] == ("PlayerView", ["PlayerView"] * 3)
    assert game.position_text(pos) == before and len(pos.moves) == 3  # walked back, restored
