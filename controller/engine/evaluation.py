"""What a position is worth to one player: data first.

Piece values and the few terms a game needs live in ``values.toml`` beside this file, one
table per game (keyed by the game's registry name, so adding a game adds data, not code).
The evaluation is from the point of view of one player (the engine's *root* player) and
counts every opponent against him — with three or four players that is the "paranoid"
reading the search uses.

Terms (all in centipawns):

* material: ``values[kind]``, a stack or Tower ``per_height[kind] * height`` when given;
  pieces in hand (drops) and in reserve count as ``hand_factor`` × their value;
* ``castle``: per own piece standing on a cell tagged ``castle`` (KaleidoChess: holding
  castles is the goal);
* ``advance``: per rank a piece of a kind in ``advance_kinds`` has made toward the far side
  (boards with ranks: Pawns, Eaglets);
* ``check``: a penalty for being in check (a cheap stand-in for King safety);
* ``token``: per off-board token held (Lùotuoqí's Cube: a double move in hand).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from controller.rules import Game, Position

VALUES_FILE = Path(__file__).with_name("values.toml")


@dataclass(frozen=True)
class Weights:
    """One game's evaluation data (see the module docstring)."""

    values: dict[str, int]
    per_height: dict[str, int] = field(default_factory=dict)
    hand_factor: float = 1.0
    castle: int = 0
    advance: int = 0
    advance_kinds: str = ""
    check: int = 0
    token: int = 0


@cache
def _table() -> dict[str, Any]:
    return tomllib.loads(VALUES_FILE.read_text(encoding="utf-8"))


def weights_for(game: Game) -> Weights:
    """The game's weights; a game without a table gets equal values (1 pawn) per piece."""
    data = _table().get(game.name)
    if data is None:
        return Weights(values={})
    return Weights(values=dict(data.get("values", {})),
                   per_height=dict(data.get("per_height", {})),
                   hand_factor=float(data.get("hand_factor", 1.0)),
                   castle=int(data.get("castle", 0)), advance=int(data.get("advance", 0)),
                   advance_kinds=str(data.get("advance_kinds", "")),
                   check=int(data.get("check", 0)), token=int(data.get("token", 0)))


class Evaluator:
    """Static evaluation of positions of one game for a given player."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.w = weights_for(game)
        g = game.geometry
        self.castles = frozenset(g.tags.get("castle", ()))
        rank = g.attributes.get("rank")
        self.rank: tuple[int, ...] | None = tuple(rank) if rank is not None else None
        self.low = min(self.rank) if self.rank else 0
        self.high = max(self.rank) if self.rank else 0

    def piece_value(self, kind: str, height: int = 1) -> int:
        per = self.w.per_height.get(kind)
        if per is not None:
            return per * height
        return self.w.values.get(kind, 100) * (height if kind == "P" else 1)

    def material(self, pos: Position, player: int) -> int:
        """Material of ``player`` alone (board, hand and reserve)."""
        total = 0
        for piece in pos.board:
            if piece is not None and piece.owner == player:
                total += self.piece_value(piece.kind, piece.height)
        for store in (pos.hands[player], pos.reserves[player]):
            for kind, n in store.items():
                total += int(self.w.hand_factor * self.piece_value(kind) * n)
        return total

    def score(self, pos: Position, player: int) -> int:
        """Worth of ``pos`` for ``player`` minus the strongest opponent's, in centipawns."""
        w = self.w
        mine = [0] * self.game.players
        for c, piece in enumerate(pos.board):
            if piece is None:
                continue
            v = self.piece_value(piece.kind, piece.height)
            if c in self.castles:
                v += w.castle
            if w.advance and piece.kind in w.advance_kinds and self.rank is not None:
                r = self.rank[c]
                v += w.advance * (r - self.low if piece.owner == 0 else self.high - r)
            mine[piece.owner] += v
        for p in range(self.game.players):
            for store in (pos.hands[p], pos.reserves[p]):
                for kind, n in store.items():
                    mine[p] += int(w.hand_factor * self.piece_value(kind) * n)
        if w.token:
            for holder in pos.tokens.values():
                if 0 <= holder < len(mine):
                    mine[holder] += w.token
        if w.check:
            mover = self.game.ply_mover(pos)
            if self.game.in_check(pos, mover):
                mine[mover] -= w.check
        others = [mine[p] for p in range(self.game.players) if p != player]
        return mine[player] - (max(others) if others else 0)
