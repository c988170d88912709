"""Every open game to its end between two boards linked through a real Mosquitto: the
mover's board makes each ply, the other board shows it and its person makes it there;
both end the game with the same result and both journals hold the same plies."""

from __future__ import annotations

import pytest

from controller.journal import Journal
from controller.rules import get_game
from tests.support.linkplay import LinkedBoards, linked_service, short_game

#: (game, options, layout, seed of a short game that ends within 40 plies)
GAMES = [
    ("luotuoqi", {}, "square8", 0),
    ("chess", {}, "square8", 0),
    ("gnuqi", {}, "square9", 52),
    ("lotus39", {}, "lotus39", 0),
    ("kaleidochess", {"players": 2}, "kaleido89", 0),
    ("kaleidochess", {"players": 3}, "kaleido89", 0),
    ("kaleidochess", {"players": 4}, "kaleido89", 0),
]


@pytest.mark.parametrize(("name", "options", "layout", "seed"), GAMES,
                         ids=[f"{g}-{o.get('players', 2)}" for g, o, _, _ in GAMES])
def test_every_open_game_is_played_to_its_end_over_the_broker(tmp_path, broker, name,
                                                              options, layout, seed):
    game = get_game(name, **options)
    script = short_game(game, seed, 40)
    boards = LinkedBoards({board: linked_service(tmp_path, board, broker.port,
                                                 layout=layout, game=name)
                           for board in ("alpha", "beta")})
    try:
        boards.connected()
        # the seats alternate between the boards: alpha, beta, alpha, beta
        remote = {seat: "beta" for seat in range(1, game.players, 2)}
        link_id = boards.start("alpha", name, options, remote)
        for text in script:
            boards.ply(text)
        outcomes = [s.outcome for s in boards.all]
        assert outcomes[0] is not None and outcomes[0] == outcomes[1]
        boards.check_agreement(link_id)
        for s in boards.all:
            (record,) = [r for r in Journal(tmp_path / s.remote.board / "journal").games()
                         if r.link and r.link["game_id"] == link_id]
            assert record.result == outcomes[0].result
    finally:
        boards.close()
