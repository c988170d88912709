"""Glicko-2 ratings, one per game, from Mark Glickman's paper "Example of the Glicko-2
system" (2013), step by step; its worked example is a test (tests/test_server_ratings.py).

The server rates each rated two-player game as its own rating period (lichess does the
same), so a player's deviation shrinks with every game and grows back only through
:func:`idle` when a period passes without games.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

SCALE = 173.7178  #: Glicko-2's scale factor (step 2)
TAU = 0.5  #: the system constant: how much the volatility may change (0.3-1.2)
EPSILON = 0.000001  #: the convergence tolerance of step 5


@dataclass(frozen=True)
class Rating:
    rating: float = 1500.0
    deviation: float = 350.0
    volatility: float = 0.06


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _e(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def idle(player: Rating) -> Rating:
    """A rating period without games: only the deviation grows (step 6)."""
    phi = player.deviation / SCALE
    phi_star = math.sqrt(phi * phi + player.volatility ** 2)
    return Rating(player.rating, phi_star * SCALE, player.volatility)


def update(player: Rating, results: Sequence[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """``player`` after one rating period of ``results``: (opponent, score 1, ½ or 0)."""
    if not results:
        return idle(player)
    mu, phi, sigma = (player.rating - 1500.0) / SCALE, player.deviation / SCALE, \
        player.volatility
    opponents = [((o.rating - 1500.0) / SCALE, o.deviation / SCALE, s) for o, s in results]
    # step 3: the estimated variance; step 4: the estimated improvement
    v_inv = 0.0
    delta_sum = 0.0
    for mu_j, phi_j, score in opponents:
        g, e = _g(phi_j), _e(mu, mu_j, phi_j)
        v_inv += g * g * e * (1.0 - e)
        delta_sum += g * (score - e)
    v = 1.0 / v_inv
    delta = v * delta_sum
    # step 5: the new volatility (the Illinois algorithm)
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return (ex * (delta * delta - phi * phi - v - ex)
                / (2.0 * (phi * phi + v + ex) ** 2)) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    sigma_new = math.exp(big_a / 2.0)
    # steps 6-8: the new deviation and rating, back on the Glicko scale
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    return Rating(mu_new * SCALE + 1500.0, phi_new * SCALE, sigma_new)


def update_pair(first: Rating, second: Rating, score: float) -> tuple[Rating, Rating]:
    """Both players after one game (``score``: the first player's 1, ½ or 0)."""
    return update(first, [(second, score)]), update(second, [(first, 1.0 - score)])
