"""What each level's strength means to a player: a rating ("about 1400"), per game.

The numbers live in ``ratings.toml`` beside this file (their one home; shipped in the
wheel with the engine's other data) and are written there by
``python -m benchmarks.ratings --write-data`` from the recorded games
(``benchmarks/results/ratings.jsonl``, ``ladder.jsonl``): chess levels measured against
Stockfish at fixed ``UCI_Elo`` settings and sunfish, the levels out of their reach and
the other games' levels placed on the same scale through the ladder — those are
``approximate``.  The scale is Stockfish's ``UCI_Elo`` (calibrated against engine
rating lists), not a FIDE or online rating: a guide, not a promise.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path

__all__ = ["RATINGS_FILE", "Rating", "level_ratings"]

RATINGS_FILE = Path(__file__).with_name("ratings.toml")


@dataclass(frozen=True)
class Rating:
    """A level's rating in one game: ``about`` (rounded, what is shown), its 95 %
    interval, the games behind it, whether it is only ``approximate`` (placed through
    the self-play ladder rather than measured against a rated opponent) and whether
    ``about`` is only a bound above it (``under``: rated lower — too low for the scale to
    mean much; ``low``/``high`` still its interval)."""

    about: int
    low: int
    high: int
    games: int
    approximate: bool
    under: bool = False


@functools.cache
def _table() -> dict[str, dict[int, Rating]]:
    data = tomllib.loads(RATINGS_FILE.read_text(encoding="utf-8"))
    return {game: {int(level): Rating(**entry) for level, entry in levels.items()}
            for game, levels in data.get("games", {}).items()}


def level_ratings(game: str) -> dict[int, Rating]:
    """The rated levels of ``game`` (a game without ratings: none)."""
    return dict(_table().get(game, {}))
