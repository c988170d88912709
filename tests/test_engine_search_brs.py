"""Best-reply search's opponents' layer holds every opponent's captures in quiescence too.

In the full-width search the layer below the engine's ply is one node with the moves of
every opponent still in; quiescence used to look at the next player's captures only, so
a capture by an opponent who moves later lay past the horizon (4 players against the
greedy player: the engine's seat was put out within its first few moves).
"""

from __future__ import annotations

from controller.engine.search import INF, Search
from controller.rules import get_game

#: four players, Black (2) to move after Red (1); White (0) can take Red's pieces
#: (seeded random play, seed 22)
POSITION = ("8E=wP,1G=wP,2F=wP,2G=rD,3F=rP,3H=rP,4F=bR,4H=bP,5F=bP,5G=bR,5H=bP,6F=bP,"
            "1I=wR,1J=wW,1K=wR,2I=rR,2K=wD,3J=rW,3K=rR,4K=bE,5J=bW,6I=bE,8K=wE b g - "
            "w:1G-1F,r:2G-2J,b:4F-4I 12 4")


def test_quiescence_searches_the_captures_of_an_opponent_not_next_to_move():
    game = get_game("kaleidochess", players=4)
    pos = game.parse_position(POSITION)
    root, next_seat = 1, game.ply_mover(pos)
    assert next_seat == 2
    replied: list[int] = []

    class Recording(Search):
        """The seats whose captures quiescence ranks (every capture of the layer is; the
        first, Black's taking six of Red's pieces, may cut the rest off)."""

        def _gain(self, pos, move):
            replied.append(pos.board[move.origin].owner)
            return super()._gain(pos, move)

    search = Recording(game, opponents="brs")
    search.root = root
    before = game.position_text(pos)
    search._quiesce(pos, -INF, INF, 2, 1)
    assert game.position_text(pos) == before
    assert 0 in replied  # White's captures, though Black is next to move
    assert root not in replied
