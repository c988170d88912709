"""A seat played by the computer in a linked game: alpha's computer plays White, beta's
person plays Black on his own board.  The computer's moves are made at alpha (the
simulated hand makes the shown move) and go out like a person's; beta shows each one and
its person makes it there; beta's moves reach alpha, which shows them for its person to
make.  Both boards end with the same plies."""

from __future__ import annotations

import random

from controller.opponent import Computer
from tests.support.linkplay import LinkedBoards, finishing_move, linked_service
from tests.support.service import play, set_up


def test_the_computer_plays_a_seat_of_a_linked_game(tmp_path, broker):
    boards = LinkedBoards({name: linked_service(tmp_path, name, broker.port)
                           for name in ("alpha", "beta")})
    alpha, beta = boards.services["alpha"], boards.services["beta"]
    rng = random.Random(7)
    try:
        boards.connected()
        alpha.new_game("chess", {}, computer=Computer(frozenset({0}), level=1),
                       remote={1: "beta"})
        link_id = alpha.link_json()["game_id"]
        boards.wait(lambda: beta.link_json()["game_id"] == link_id)
        for s in boards.all:
            set_up(s)
        for ply in range(1, 13, 2):
            # the computer's move: made at alpha, shown at beta, made there by its person
            boards.wait(lambda n=ply: len(alpha.plies) == n, timeout=30)
            boards.wait(lambda: beta.interaction.phase == "execute")
            text = alpha.plies[-1][1]
            play(beta, text)
            boards.wait(lambda n=ply: len(beta.plies) == n)
            if alpha.outcome is not None:
                break
            # beta's person answers; alpha shows it and its person makes it
            move = finishing_move(beta.game, beta.position, rng)
            answer = beta.game.move_text(beta.position, move)
            play(beta, answer)
            boards.wait(lambda: alpha.interaction.phase == "execute")
            play(alpha, answer)
            boards.wait(lambda n=ply: len(alpha.plies) >= n + 1)
        assert [t for _, t in alpha.plies] == [t for _, t in beta.plies]
        assert len(alpha.plies) >= 6
    finally:
        boards.close()
