"""Lùotuoqí's rules read literally, by make/undo: the oracle for the fast listing's tests."""

from __future__ import annotations

from controller.rules.core import Move, Position
from controller.rules.luotuoqi import Luotuoqi


def literal_plain(game: Luotuoqi, pos: Position) -> list[Move]:
    """Legal moves without the Cube: every pseudo-legal move made and tested, castling."""
    me = pos.turn
    board = pos.board
    king = game._king(board, me)
    out = []
    for m in game.pseudo_moves(pos):
        pos.push(m, record=False)
        if not game.attacked(pos.board, game._king(pos.board, me), 1 - me):
            out.append(m)
        pos.pop()
    if not game.attacked(board, king, 1 - me):
        out += game._castling_moves(pos, king)
    return out


def literal_cube_options(game: Luotuoqi, pos: Position) -> list[Move]:
    """Quiet legal first moves after which the opponent is not in check and the mover
    has a legal second move (DECISIONS Q5-Q9), as their Cube variants."""
    me = pos.turn
    out = []
    for m in literal_plain(game, pos):
        if m.captures:
            continue
        cube = m._replace(token="cube")
        pos.push(cube, record=False)
        ok = (not game.attacked(pos.board, game._king(pos.board, 1 - me), me)
              and literal_plain(game, pos))
        pos.pop()
        if ok:
            out.append(cube)
    return out


def literal_listing(game: Luotuoqi, pos: Position) -> list[Move]:
    """Every legal move, the Cube variants included when the mover may use the Cube."""
    out = literal_plain(game, pos)
    if pos.tokens.get("cube") == pos.turn and not pos.state.get("cube_second"):
        out += literal_cube_options(game, pos)
    return out
