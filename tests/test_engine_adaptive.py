"""The adaptive level: a staircase that keeps the owner's score near 50 %."""

from __future__ import annotations

import random

import pytest

from controller.engine import DEFAULT_LEVEL
from controller.engine.adaptive import Adaptive


def test_the_level_moves_up_on_a_win_down_on_a_loss_and_the_step_halves():
    a = Adaptive()
    assert a.level == DEFAULT_LEVEL and a.score is None
    assert a.game_over(1) == DEFAULT_LEVEL + 2  # first step: two levels
    assert a.game_over(1) == DEFAULT_LEVEL + 4
    assert a.game_over(0) == DEFAULT_LEVEL + 3  # the direction turned: one level
    assert a.game_over(0.5) == DEFAULT_LEVEL + 3  # a draw keeps it
    assert a.game_over(1) == DEFAULT_LEVEL + 4
    assert a.score == pytest.approx(3.5 / 5)
    for _ in range(10):
        a.game_over(1)
    assert a.level == 10  # never past the top
    for _ in range(20):
        a.game_over(0)
    assert a.level == 1


def test_it_is_kept_in_the_settings_and_bad_data_starts_afresh():
    a = Adaptive()
    for s in (1, 0, 0.5, 1):
        a.game_over(s)
    assert Adaptive.from_json(a.json()) == a
    for bad in (None, {}, {"level": 11, "step": 1, "direction": 0, "results": []},
                {"level": "x"}, {"level": 3, "step": 1, "direction": 0, "results": [2]}):
        assert Adaptive.from_json(bad) == Adaptive()
    with pytest.raises(ValueError):
        a.game_over(0.3)


def test_the_score_converges_near_half_against_a_fixed_strength():
    """A model owner (the Elo expectation against levels ~100 points apart, seeded)
    between levels 1 and 10: his score over games 21–1,000 lands within 45–55 %."""
    rng = random.Random(5)
    for owner in (1250, 1500, 1750):
        a = Adaptive()
        scores = []
        for _ in range(1000):
            expected = 1 / (1 + 10 ** ((900 + 100 * a.level - owner) / 400))
            score = 1.0 if rng.random() < expected else 0.0
            scores.append(score)
            a.game_over(score)
        share = sum(scores[20:]) / len(scores[20:])
        assert 0.45 <= share <= 0.55, (owner, share)
