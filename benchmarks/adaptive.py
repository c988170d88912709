"""The adaptive level (``controller/engine/adaptive.py``) against fixed-strength opponents:
does the owner's score converge to 45–55 %?

A model, not played games: an owner of a fixed rating plays the levels, and wins a game
with the Elo expectation against the level's rating, drawing ``DRAWS`` of the games that
would otherwise be decided.  The level ratings are a yardstick of ~100 points a level
(the ladder's self-play margins per pair are 60–300; the levels' ratings against anchors
are not measured yet), so what is measured is the *rule's* convergence, for owners from
well below level 1 to well above level 10.  Seeded; many owners per rating.

    python -m benchmarks.adaptive [--games 200] [--owners 200]
"""

from __future__ import annotations

import argparse
import random
import statistics

from controller.engine.adaptive import Adaptive

#: the yardstick: level n is rated 900 + 100 n
RATING = {n: 900 + 100 * n for n in range(1, 11)}
DRAWS = 0.1


def play(owner: int, games: int, rng: random.Random) -> list[float]:
    adaptive = Adaptive()
    scores = []
    for _ in range(games):
        expected = 1 / (1 + 10 ** ((RATING[adaptive.level] - owner) / 400))
        roll = rng.random()
        score = 0.5 if roll < DRAWS else (1.0 if rng.random() < expected else 0.0)
        scores.append(score)
        adaptive.game_over(score)
    return scores


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--owners", type=int, default=200)
    args = ap.parse_args()
    rng = random.Random(1)
    print("| owner's rating | score, games 21–end (mean over owners) | 5th–95th percentile |")
    print("|---|---|---|")
    for owner in (800, 1000, 1300, 1500, 1700, 2000, 2300):
        shares = sorted(statistics.mean(play(owner, args.games, rng)[20:])
                        for _ in range(args.owners))
        lo, hi = shares[len(shares) // 20], shares[-len(shares) // 20 - 1]
        print(f"| {owner} | {statistics.mean(shares):.1%} | {lo:.1%}–{hi:.1%} |")


if __name__ == "__main__":
    main()
