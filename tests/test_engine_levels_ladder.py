"""The self-play ladder (``benchmarks/ladder.py``) measures what it says it measures.

Levels without noise play the same moves for the same position whatever the seed, so a
pair of them played from the start repeated the same two games and counted them as
independent (Lotus-39 5 v 4: 30 draws, two games fifteen times).  Such pairs now start
from random openings, the same for both seats; records made without them are not used.
"""

from __future__ import annotations

import json
import random
from dataclasses import asdict

from benchmarks.ladder import (
    OPENING,
    levels_of,
    load,
    measured_with_current_levels,
    opening_plies,
    random_opening,
)
from controller.engine import LEVELS
from controller.rules import get_game


def test_only_pairs_of_noiseless_levels_start_from_an_opening():
    assert OPENING > 0
    for low in range(1, max(LEVELS)):
        noiseless = LEVELS[low].noise == 0 and LEVELS[low + 1].noise == 0
        assert opening_plies(low, OPENING) == (OPENING if noiseless else 0), low
    assert opening_plies(4, OPENING) == OPENING  # 5 v 4: neither level has noise


def test_openings_are_legal_unfinished_reproducible_and_varied():
    for name in ("chess", "kaleidochess", "lotus39"):
        game = get_game(name)
        openings = set()
        for seed in range(8):
            opening = random_opening(game, OPENING, random.Random(seed))
            assert opening == random_opening(game, OPENING, random.Random(seed))
            pos = game.start()
            for move in opening:
                assert move in game.legal_moves(pos)
                pos.push(move)
            assert len(opening) == OPENING and game.outcome(pos) is None
            openings.add(tuple(opening))
        assert len(openings) > 1, name


def _record(low: int, **extra) -> dict:
    levels = {"upper": asdict(LEVELS[low + 1]), "lower": asdict(LEVELS[low])}
    return {"game": "chess", "low": low, "wins": 1, "draws": 0, "losses": 1,
            "seconds": 1.0, "cpu": 1.0, "max_plies": 80, "adjudicated": 0, "margin": 300,
            "stop": "CPU", "first_game": 0, "levels": levels, **extra}


def test_records_without_openings_count_only_where_the_seed_varies_the_games(tmp_path):
    old_low = _record(1)  # levels 1 and 2 have noise: no opening needed
    del old_low["levels"]["upper"]["floor"], old_low["levels"]["lower"]["floor"]  # older
    repeated = _record(4)  # 5 v 4 from the start: the same games over again
    fresh = _record(5, opening=OPENING)
    other = _record(6, opening=OPENING)
    other["levels"]["upper"]["nodes"] += 1  # measured with other levels
    path = tmp_path / "ladder.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in (old_low, repeated, fresh, other)),
                    encoding="utf-8")
    results, stale = load(path, OPENING)
    assert sorted(results) == [("chess", 1), ("chess", 5)]
    assert stale == 2


def test_a_pair_measured_before_levels_drew_fewer_positions_counts_only_without_fog():
    """``Level.samples`` changes how Lao Tzu's computer plays, nothing in the other games:
    a pair recorded before it existed still counts there, not in Lao Tzu."""
    def before(game: str) -> dict:
        record = _record(1, game=game)
        for side in record["levels"].values():
            del side["samples"]
        return record

    assert LEVELS[1].samples < LEVELS[10].samples
    assert measured_with_current_levels(before("chess"))
    assert not measured_with_current_levels(before("laotzu"))
    assert measured_with_current_levels(_record(1, game="laotzu"))


def test_a_pair_counts_only_with_the_floor_its_game_keeps_now():
    """A game's ceiling (``FLOOR_CEILING``) lowers the floor of levels 7–9 where they could
    not hold it: a KaleidoChess pair recorded with the level below's depth as the floor
    no longer measures today's levels there; one recorded now does, and so does one of
    chess's levels whose floors the ceiling leaves, or Lao Tzu's, whose players decide
    from their view without a floor."""
    low = 7
    assert LEVELS[low + 1].floor_in("kaleidochess") < LEVELS[low + 1].floor
    assert not measured_with_current_levels(_record(low, game="kaleidochess"))
    assert measured_with_current_levels(
        _record(low, game="kaleidochess", levels=levels_of(low, "kaleidochess")))
    assert measured_with_current_levels(_record(4, game="chess"))
    assert measured_with_current_levels(_record(low, game="laotzu"))
    assert levels_of(low, "laotzu") == _record(low)["levels"]
