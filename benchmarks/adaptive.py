"""The adaptive level (``controller/engine/adaptive.py``) against fixed-strength opponents:
does the owner's score converge to 45–55 %?

A model, not played games: an owner of a fixed rating plays the levels, and wins a game
with the Elo expectation against the level's rating, drawing ``DRAWS`` of the games that
would otherwise be decided.  The level ratings are a yardstick of ~100 points a level
(the ladder's self-play margins per pair are 60–300; the levels' ratings against anchors
are not measured yet), so what is measured is the *rule's* convergence, for owners from
well below level 1 to well above level 10.  Seeded; many owners per rating.

``--played OWNER`` plays the games instead: chess, the adaptive level (from the default,
as a new owner's) against one fixed-strength opponent standing in for the owner —
Stockfish limited to ``UCI_Elo`` N at a fixed node count (``sf:N``), sunfish
(``sunfish:NODES``) or one of our levels (``level:N``), as ``benchmarks/ratings.py``
makes them — colours alternating, games past ``--max-plies`` adjudicated by the
evaluation (``benchmarks/ladder.py``).  It prints each game and the owner's score over
the games after the first ``--settle``, with its 90 % interval.

    python -m benchmarks.adaptive [--games 200] [--owners 200]
    nice -n 10 python -m benchmarks.adaptive --played sf:1350 --games 60
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from controller.engine.adaptive import Adaptive
from controller.rules import get_game

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


def played(owner_spec: str, games: int, settle: int, max_plies: int, seed: int) -> None:
    """``games`` played games of the adaptive level against ``owner_spec`` (chess)."""
    from benchmarks.ladder import play_adjudicated
    from benchmarks.ratings import anchor_player, close
    from benchmarks.spar import EnginePlayer

    game, adaptive, rng = get_game("chess"), Adaptive(), random.Random(seed)
    owner = anchor_player(owner_spec, game, seed)
    scores: list[float] = []
    cpu0 = time.process_time()
    print(f"adaptive level against {owner_spec} (the owner), chess, {games} games")
    print("| game | level | owner's colour | owner's score | next level |")
    print("|---:|---:|---|---:|---:|")
    try:
        for i in range(games):
            level = adaptive.level
            engine = EnginePlayer(game, level, seed + i)
            seat = i % 2  # the owner's seat
            seats = [owner, engine] if seat == 0 else [engine, owner]
            winners, _ = play_adjudicated(game, seats, max_plies, rng, 300)
            score = 0.5 if not winners or len(winners) == 2 else float(seat in winners)
            scores.append(score)
            adaptive.game_over(score)
            print(f"| {i + 1} | {level} | {'White' if seat == 0 else 'Black'} | {score:g} "
                  f"| {adaptive.level} |", flush=True)
    finally:
        close(owner)
    kept = scores[settle:]
    if not kept:
        return
    mean = statistics.mean(kept)
    half = 1.645 * statistics.pstdev(kept) / len(kept) ** 0.5
    print(f"\nthe owner's score over games {settle + 1}–{len(scores)}: {mean:.1%} "
          f"(90 % interval {mean - half:.1%}–{mean + half:.1%}); levels played after game "
          f"{settle}: {sorted(set(_levels(scores, settle)))}; "
          f"{time.process_time() - cpu0:.0f} s of this process's CPU")


def _levels(scores: list[float], settle: int) -> list[int]:
    """The levels the adaptive rule chose for the games after ``settle``, replayed."""
    adaptive, out = Adaptive(), []
    for i, score in enumerate(scores):
        if i >= settle:
            out.append(adaptive.level)
        adaptive.game_over(score)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--owners", type=int, default=200)
    ap.add_argument("--played", metavar="OWNER",
                    help="play the games against OWNER (sf:N, sunfish:NODES, level:N)")
    ap.add_argument("--settle", type=int, default=10,
                    help="games not counted while the level finds the owner (--played)")
    ap.add_argument("--max-plies", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    if args.played:
        played(args.played, args.games, args.settle, args.max_plies, args.seed)
        return
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
