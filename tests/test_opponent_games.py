"""A whole game against the computer for every game and player count, on the simulated
board through the service: the computer (level 1, its worker process) plays its seats,
its moves shown with the execute flow and made by the simulated hand; the people's seats
are a seeded random mover making legal moves with human actions on the simulated board.

A game runs until it ends or reaches ``PLY_CAP`` plies (then it must have progressed:
the computer moved several times and the journal holds every ply).  Every move the
computer chose is checked to be legal in the position it was asked about and to be the
move the board then committed.
"""

from __future__ import annotations

import random

import pytest

from controller.board import Board
from controller.service import BoardService
from controller.web.simulator import move_actions
from tests.support.service import make_config, not_losing_at_once, wait_for

#: plies per game at most (a random mover against level 1 rarely ends a game sooner)
PLY_CAP = 24
#: seconds per computer move: level 1 thinks at most this long (worker process)
COMPUTER_MOVETIME = 0.05

#: the random mover's and the virtual die's seed (games that end after a few plies, as
#: a die that allows only a losing move can make them, prove little)
SEED = 7

#: (layout, game, options, the computer's seats)
CASES = [
    ("square8", "luotuoqi", {}, ["Black"]),
    ("square8", "laotzu", {}, ["White"]),
    ("square9", "gnuqi", {}, ["Black"]),
    ("kaleido89", "kaleidochess", {}, ["White"]),
    ("kaleido89", "kaleidochess", {"players": 3}, ["Red"]),
    ("kaleido89", "kaleidochess", {"players": 4}, ["White", "Black"]),
    ("kaleido89", "kaleidochess", {"dice": True}, ["Black"]),
    ("lotus39", "lotus39", {}, ["White"]),
    ("lotus39", "lotus39-modern", {}, ["Black"]),
    ("square8", "chess", {}, ["Black"]),
]


def _case_id(case) -> str:
    _, game, options, seats = case
    opts = "-".join(f"{k}{v}" for k, v in options.items())
    return "-".join(filter(None, [game, opts, "+".join(seats)]))


def _human_move(svc: BoardService, text: str) -> None:
    """``play`` the move with human actions — unless the next player's die roll is what
    the board asks for now (dice): then the move is made and nothing is to be chosen."""
    game, pos = svc.game, svc.position
    for action in move_actions(game, pos, game.parse_move(pos, text), svc.layout):
        svc.sim_action(action)
        svc.step(0.03)
    svc.step(0.2)
    if svc.interaction.phase == "choice" and not svc.die_expected():
        labels = svc.choice_labels()
        svc.answer_choice(labels.index(text))
        svc.step(0.05)
    assert svc.plies and svc.plies[-1][1] == text, (svc.plies, svc.interaction)


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_a_whole_game_against_the_computer(tmp_path, monkeypatch, case):
    layout, game_name, options, seats = case
    executed: dict[int, tuple[str, bool]] = {}  # ply → (move text, legal where shown)
    real_execute = Board.execute

    def recording_execute(board, move, *args, **kwargs):
        pos = board.position
        executed[len(pos.moves)] = (board.game.move_text(pos, move),
                                    move in board.game.legal_moves(pos))
        return real_execute(board, move, *args, **kwargs)

    monkeypatch.setattr(Board, "execute", recording_execute)
    config = make_config(tmp_path, layout=layout, game=game_name, options=options,
                         computer=seats, computer_level=1)
    svc = BoardService(config, seed=SEED)  # the page's virtual die: repeatable
    monkeypatch.setattr(svc, "_computer_movetime", lambda now: COMPUTER_MOVETIME)
    rng = random.Random(f"{SEED} {game_name} {options}")
    try:
        svc.sim_action({"action": "arrange"})
        svc.step(0.1)
        game = svc.game
        computer = {game.player_names.index(name) for name in seats}
        computer_plies = 0
        while svc.outcome is None and len(svc.position.moves) < PLY_CAP:
            pos = svc.position
            ply = len(pos.moves)
            mover = game.ply_mover(pos)
            if svc.die_expected():  # a person rolls, for the computer's seat too: the
                svc.roll_die()      # board asks for the face (pads), the page may roll
                svc.step(0.05)
                continue
            if mover in computer:
                # committed, and the simulated hand done (a Lao Tzu capture still puts
                # a piece on the hand pad after the board has seen the move)
                wait_for(svc, lambda n=ply: len(svc.position.moves) > n and (
                    not svc.busy or game.ply_mover(svc.position) in computer))
                # the computer's move went through the execute flow, legal where shown,
                # and is the ply the board committed
                assert ply in executed, "the computer's move was not executed"
                text, legal = executed[ply]
                assert legal, text
                assert svc.plies[ply][1] == text, (svc.plies[ply:], text)
                computer_plies += 1
                continue
            move = rng.choice(not_losing_at_once(game, pos))
            _human_move(svc, game.move_text(pos, move))
            assert len(svc.position.moves) == ply + 1
        plies = len(svc.position.moves)
        # the game ended or reached the cap, the computer taking part either way
        assert svc.outcome is not None or plies >= PLY_CAP
        assert computer_plies >= 3, (plies, computer_plies, svc.outcome)
        assert len(svc.journal.games()[-1].moves) == plies
    finally:
        svc.close()
