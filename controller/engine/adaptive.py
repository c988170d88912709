"""The adaptive opponent: the level moves after each game to keep the owner's score near
50 %.

A room of its own: it owns its state (the level and the last results) and learns only
the end of each game (:meth:`Adaptive.game_over`, the owner's score: 1 won, ½ drawn, 0
lost); the service wires it to the board's ``game_over`` event and keeps its
:meth:`Adaptive.json` in the owner's settings.  Nothing here plays or times a move.

The rule is a staircase (up after a win, down after a loss, kept after a draw), with the
step halved each time the direction turns, from ``START_STEP`` levels down to a single
level: the first games find the owner's region quickly, the later ones stay around it.
A staircase that moves one level up on a win and one down on a loss settles where a win
and a loss are equally likely — a score of 50 % — whatever the owner's strength, as long
as that level is within 1–10 (``benchmarks/adaptive.py`` measures it against
fixed-strength opponents).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.engine import DEFAULT_LEVEL, LEVELS

#: the first step, in levels; halved at each turn of direction, down to 1
START_STEP = 2
#: results kept for the score shown to the owner (the last this many games)
KEPT = 20


@dataclass
class Adaptive:
    """The adaptive level of one owner (``json``/``from_json``: his settings)."""

    level: int = DEFAULT_LEVEL
    step: int = START_STEP
    direction: int = 0  #: +1 the last move was up, -1 down, 0 none yet
    results: list[float] = field(default_factory=list)  #: the owner's last scores

    def game_over(self, score: float) -> int:
        """After a game the owner scored ``score`` in (1, 0.5 or 0): the next level."""
        if score not in (0, 0.5, 1):
            raise ValueError(f"a game's score is 1, 0.5 or 0, got {score!r}")
        self.results = [*self.results, float(score)][-KEPT:]
        move = 1 if score == 1 else -1 if score == 0 else 0
        if move:
            if self.direction and move != self.direction:
                self.step = max(1, self.step // 2)
            self.direction = move
            self.level = min(max(LEVELS), max(min(LEVELS), self.level + move * self.step))
        return self.level

    @property
    def score(self) -> float | None:
        """The owner's share of the points over the kept games (None before any)."""
        return sum(self.results) / len(self.results) if self.results else None

    def json(self) -> dict[str, Any]:
        return {"level": self.level, "step": self.step, "direction": self.direction,
                "results": list(self.results)}

    @classmethod
    def from_json(cls, data: Any) -> Adaptive:
        """From the owner's settings; anything unreadable starts afresh at the default."""
        try:
            level, step = int(data["level"]), int(data["step"])
            direction = int(data["direction"])
            results = [float(r) for r in data["results"]][-KEPT:]
        except (KeyError, TypeError, ValueError):
            return cls()
        if (level not in LEVELS or not 1 <= step <= START_STEP or direction not in (-1, 0, 1)
                or any(r not in (0, 0.5, 1) for r in results)):
            return cls()
        return cls(level, step, direction, results)
