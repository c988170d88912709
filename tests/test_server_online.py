"""The board's own online client (``controller/online/``: the seat at the simulated board)
plays a whole chess game on the fairyboard server, with no code path of its own: the same
game with every special move as against the loopback lichess (tests/test_online.py)."""

from __future__ import annotations

import random
import time

import pytest

from controller.online.seat import OnlineSeat
from tests.support.clubserver import ClubServer, challenge_game
from tests.support.rig import Human, Rig
from tests.test_online import GAME


@pytest.fixture
def club(tmp_path):
    server = ClubServer(tmp_path).start()
    yield server
    server.stop()


def _pump(rig: Rig, seat: OnlineSeat, until, limit_s: float = 20.0) -> None:
    deadline = time.monotonic() + limit_s
    while not until():
        assert time.monotonic() < deadline, (rig.state, rig.interaction.message)
        seat.tick()
        rig.wait(0.02)
        time.sleep(0.01)


def test_the_boards_online_seat_plays_a_whole_game_on_the_server(club):
    owner, other = club.player("owner"), club.player("sparring")
    gid, api, opponent = challenge_game(club, owner, other)
    rig = Rig(game="chess")
    seat = OnlineSeat(api, rig.board, gid, "owner", backoff_s=(0.05, 0.1))
    human = Human(rig, random.Random(3))
    game = rig.game
    g = club.hub.games[gid]
    try:
        _pump(rig, seat, lambda: seat.server is not None)
        for i, uci in enumerate(GAME):
            if i % 2 == 0:  # the owner's move, made on the board
                _pump(rig, seat, lambda: rig.state == "turn")
                human.play(game.parse_move(rig.position, uci))
                _pump(rig, seat, lambda i=i: g.ply > i)
            else:  # the opponent's, shown on the board to execute
                opponent.move(gid, uci)
                _pump(rig, seat, lambda: rig.state == "execute")
                shown = rig.board.progress.execute
                assert shown == game.parse_move(rig.position, uci)
                human.play(shown)
                _pump(rig, seat, lambda i=i: len(rig.position.moves) > i)
        # the server's record is the board's game, each move once
        pos = game.start()
        for text, move in zip(club.server.store.moves(gid), rig.position.moves, strict=True):
            assert game.parse_move(pos, text) == move
            pos.push(move)
        opponent.resign(gid)
        _pump(rig, seat, lambda: rig.state == "game_over")
        assert rig.board.outcome.winners == (0,)
    finally:
        seat.close()
        api.close()
