"""The levels' ratings (issue 33): one home (``controller/engine/ratings.toml``) written
from the recorded games by ``benchmarks/ratings.py``, the logistic model it uses, and the
page's games carrying exactly what the data says."""

from __future__ import annotations

import math

import pytest

from benchmarks import ladder
from benchmarks import ratings as bench
from controller.engine import LEVELS
from controller.engine import ratings as data
from controller.layout import load_layout
from controller.rules import GAMES
from controller.web.state import games_json


def test_the_shipped_ratings_are_what_the_recorded_games_give():
    records = bench.load(bench.RESULTS)
    rated = bench.level_ratings(records, ladder.load(ladder.RESULTS)[0], ladder.GAMES)
    assert data.RATINGS_FILE.read_text(encoding="utf-8") == bench.data_text(rated)
    chess = data.level_ratings("chess")
    assert chess, "chess has measured levels"
    measured = [n for n, r in chess.items() if not r.approximate]
    assert measured and all(chess[n].games >= 1 for n in measured)
    for game in ladder.GAMES:
        for level, r in data.level_ratings(game).items():
            assert level in LEVELS and (r.low < r.about if r.under
                                        else r.low <= r.about <= r.high)
            assert game == "chess" or r.approximate  # the variants: through the ladder


def test_the_page_shows_what_the_data_says(tmp_path, monkeypatch):
    fake = tmp_path / "ratings.toml"
    fake.write_text(
        "[games.chess]\n"
        "4 = { about = 1234, low = 1200, high = 1300, games = 7, approximate = false }\n"
        "9 = { about = 2345, low = 2000, high = 2600, games = 7, approximate = true }\n",
        encoding="utf-8")
    monkeypatch.setattr(data, "RATINGS_FILE", fake)
    data._table.cache_clear()
    try:
        games = {g["name"]: g for g in games_json(load_layout("square8"), GAMES.__getitem__)}
    finally:
        data._table.cache_clear()
    assert games["chess"]["ratings"] == {
        "4": {"about": 1234, "approximate": False, "under": False},
        "9": {"about": 2345, "approximate": True, "under": False}}


def test_a_score_means_its_logistic_rating_difference():
    # 76 % against a 1500 anchor: +200 (400 log10(0.76 / 0.24)); draws count half a point
    scores = [1.0] * 70 + [0.5] * 12 + [0.0] * 18
    rating, low, high = bench.fit([(1500.0, scores)])
    assert rating == pytest.approx(1500 + 400 * math.log10(0.76 / 0.24), abs=0.5)
    diff, lo, hi = bench.one_anchor(scores)
    assert diff == pytest.approx(rating - 1500, abs=0.5)
    assert lo < diff < hi and low < rating < high
    # two anchors 200 apart, scoring what a player 100 above the lower one would
    even = [1.0] * 64 + [0.0] * 36
    below = [1.0] * 36 + [0.0] * 64
    assert bench.fit([(1500.0, even), (1700.0, below)])[0] == pytest.approx(1600, abs=3)
    # every game won: no finite rating, only a bound
    assert bench.fit([(1500.0, [1.0] * 10)]) is None


def test_stockfish_is_asked_past_the_depth_its_limited_strength_picks_at():
    # Stockfish 15.1: level = ((elo - 1346.6) / 143.4) ** (1 / 0.806), picked at 1 + level
    assert [bench.pick_depth(e) for e in (1350, 1500, 1700, 1900)] == [1, 2, 4, 6]


def test_a_level_is_placed_through_the_ladder_from_the_nearest_measured_one():
    steps = {3: (100.0, 30.0), 4: (50.0, 40.0)}
    placed = bench.placed({4: (1500.0, 30.0, 100)}, steps)
    assert placed[4] == (1500.0, 30.0, 100, False)
    assert placed[3][:2] == pytest.approx((1400.0, math.hypot(30, 30)))
    assert placed[5][:2] == pytest.approx((1550.0, 50.0)) and placed[5][3]
    assert 2 not in placed  # no step 2-3 recorded: not placed
