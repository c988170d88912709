"""Glicko-2 against the worked example of Glickman's paper "Example of the Glicko-2
system": a player rated 1500 (RD 200, volatility 0.06) beats 1400 (RD 30) and loses to
1550 (RD 100) and 1700 (RD 300), with tau = 0.5."""

import pytest

from controller.server.ratings import Rating, idle, update, update_pair


def test_the_papers_worked_example():
    player = Rating(1500, 200, 0.06)
    after = update(player, [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0),
                            (Rating(1700, 300), 0.0)], tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_widens_the_deviation_only():
    after = idle(Rating(1500, 200, 0.06))
    assert after.rating == 1500 and after.volatility == 0.06
    # step 6 alone: sqrt(phi^2 + sigma^2) on the Glicko-2 scale, 200 -> 200.27
    assert after.deviation == pytest.approx((200 ** 2 + (0.06 * 173.7178) ** 2) ** 0.5)
    assert after.deviation == pytest.approx(200.27, abs=0.01)
    assert update(Rating(1500, 200, 0.06), []) == after


def test_a_game_moves_both_ratings_the_right_way():
    win, loss = update_pair(Rating(), Rating(), 1.0)
    assert win.rating > 1500 > loss.rating
    assert win.rating - 1500 == pytest.approx(1500 - loss.rating)
    draw_a, draw_b = update_pair(Rating(1600, 80), Rating(1400, 80), 0.5)
    assert draw_a.rating < 1600 and draw_b.rating > 1400
