"""Shared by the captures-only listing tests (``Game.legal_captures``): the filter it must
equal, and seeded walks into positions full of captures and checks."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

from controller.rules import Game, Position


def filtered(game: Game, pos: Position) -> list | None:
    """The legal moves that take a piece of another player than the mover, in order (the
    filter quiescence applied to the whole listing before the hook); None without any
    legal move."""
    board, mover = pos.board, game.ply_mover(pos)
    moves = game.legal_moves(pos)
    return [m for m in moves if any(
        board[c] is not None and board[c].owner != mover for c in m.captures)] if moves else None


def sharp_walk(game: Game, pos: Position, choices: Sequence[int],
               prepare: Callable[[Position, int], None] | None = None) -> Iterator[Position]:
    """The positions of a game from ``pos`` played by ``choices``, captures favoured (two
    choices in three take when a capture is there) so that positions full of captures and
    checks are met; ``prepare(pos, i)`` may change the ``i``-th position before it is
    yielded.  Stops where no move is left."""
    for i, choice in enumerate(choices):
        if prepare is not None:
            prepare(pos, i)
        yield pos
        moves = game.legal_moves(pos)
        if not moves:
            return
        sharp = [m for m in moves if m.captures]
        pool = sharp if sharp and choice % 3 else moves
        pos.push(pool[choice % len(pool)])
