"""Soak: random noisy games of every game through the simulated clumsy human.

For a given time (or number of games) it plays seeded random games on the simulated
board — Lùotuoqí (digital and linear-hall sensing), Lao Tzu Chess, Gnu Qi, KaleidoChess
with 2, 3 and 4 players with and without dice, Lotus-39 and Modern Lotus-39 — with the
same simulated humans the board tests use: random lift orders, slides, whole Towers
lifted and the rest put back, bounces, knocked and off-centre pieces.  After every move
it checks what those tests check: the board committed exactly the intended move (a wrong
commit otherwise), and it is back at rest with nothing missing or extra (stuck
otherwise).  Every failure prints its game and seed, so it can be replayed.

    python -m benchmarks.soak --minutes 10
    python -m benchmarks.soak --games 200 --seed 1000 --only gnuqi

The simulated humans live with the tests (``tests/test_board_*.py``); until they are an
importable package the ``tests`` folder goes on the path from outside (``run_all`` does)::

    python -m benchmarks.soak --minutes 10
"""

from __future__ import annotations

import argparse
import random
import time
import traceback
from collections import Counter
from collections.abc import Callable

from controller.rules import get_game
from tests.support.gnuqi import GnuQiHuman
from tests.support.gnuqi import choose as gnuqi_choose
from tests.support.kaleidochess import KRig, play_to_the_end
from tests.support.laotzu import LaoHuman, LaoRig
from tests.support.lotus39 import LotusHuman, LotusRig
from tests.support.lotus39 import choose as lotus_choose
from tests.support.properties import BUSY, _special
from tests.support.rig import Human, Rig


class WrongCommit(AssertionError):
    """The board committed a move nobody made."""


def _play(rig, human, choose: Callable, rng: random.Random, plies: int) -> int:
    """Up to ``plies`` moves chosen by ``choose``; returns how many were made."""
    made = 0
    for _ in range(plies):
        if rig.state == "game_over":
            break
        moves = rig.game.legal_moves(rig.position)
        if not moves:
            break
        human.play(choose(rig.game, rig.position, moves, rng))
        made += 1
    return made


def _random_special(game, pos, moves, rng):
    special = [m for m in moves if _special(m)]
    return rng.choice(special) if special and rng.random() < 0.6 else rng.choice(moves)


def luotuoqi(seed: int, analog: bool) -> int:
    rng = random.Random(seed)
    rig = Rig(rng.choice([None, *BUSY]), seed=seed % 10_000, analog=analog)
    try:
        return _play(rig, Human(rig, rng, mishaps=True, slow=0.2), _random_special, rng,
                     rng.randint(8, 40))
    finally:
        rig.close()


def laotzu(seed: int) -> int:
    rng = random.Random(seed)
    game = get_game("laotzu", seed=seed)
    rig = LaoRig(game=game, seed=seed % 10_000)
    try:
        return _play(rig, LaoHuman(rig, rng, mishaps=True, slow=0.1), _random_special, rng,
                     rng.randint(10, 60))
    finally:
        rig.close()


def gnuqi(seed: int) -> int:
    rng = random.Random(seed)
    game = get_game("gnuqi")
    rig = Rig(None, game=game, layout="square9", seed=seed % 10_000)
    human = GnuQiHuman(rig, rng, mishaps=True, slow=0.1)
    human.orders = []
    try:
        return _play(rig, human, lambda g, p, m, r: gnuqi_choose(g, p, r), rng,
                     rng.randint(10, 80))
    finally:
        rig.close()


def kaleidochess(seed: int, players: int, dice: bool) -> int:
    game = get_game("kaleidochess", players=players, dice=dice, move_cap=150)
    rig = KRig(game=game, seed=seed % 10_000)
    try:
        return len(play_to_the_end(game, rig, seed=seed, keep_castle=0.9, limit=400))
    finally:
        rig.close()


def lotus39(seed: int, name: str) -> int:
    rng = random.Random(seed)
    game = get_game(name)
    rig = LotusRig(game=game, backend=None, seed=seed % 10_000)
    try:
        return _play(rig, LotusHuman(rig, rng, mishaps=True, slow=0.1),
                     lambda g, p, m, r: lotus_choose(g, p, r), rng, rng.randint(10, 60))
    finally:
        rig.close()


#: every kind of game the soak plays, by name
KINDS: dict[str, Callable[[int], int]] = {
    "luotuoqi": lambda s: luotuoqi(s, analog=False),
    "luotuoqi-analog": lambda s: luotuoqi(s, analog=True),
    "laotzu": laotzu,
    "gnuqi": gnuqi,
    "kaleidochess-2": lambda s: kaleidochess(s, 2, False),
    "kaleidochess-3": lambda s: kaleidochess(s, 3, False),
    "kaleidochess-4": lambda s: kaleidochess(s, 4, False),
    "kaleidochess-2-dice": lambda s: kaleidochess(s, 2, True),
    "kaleidochess-4-dice": lambda s: kaleidochess(s, 4, True),
    "lotus39": lambda s: lotus39(s, "lotus39"),
    "lotus39-modern": lambda s: lotus39(s, "lotus39-modern"),
}


def classify(exc: BaseException) -> str:
    text = str(exc)
    if "wrong commit" in text or "committed" in text or "nobody meant" in text:
        return "wrong commit"
    return "stuck"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0)
    parser.add_argument("--games", type=int, help="stop after this many games")
    parser.add_argument("--seed", type=int, default=0, help="first seed (then +1 per game)")
    parser.add_argument("--only", nargs="*", choices=sorted(KINDS))
    args = parser.parse_args(argv)
    kinds = args.only or list(KINDS)
    deadline = time.monotonic() + args.minutes * 60
    games, moves = Counter(), Counter()
    failures: list[tuple[str, int, str, str]] = []
    seed = args.seed
    started = time.process_time()
    while time.monotonic() < deadline and (args.games is None or sum(games.values())
                                           < args.games):
        kind = kinds[seed % len(kinds)]
        try:
            moves[kind] += KINDS[kind](seed)
        except AssertionError as exc:
            failures.append((kind, seed, classify(exc), str(exc).splitlines()[0][:200]))
            print(f"FAIL {kind} seed {seed}: {failures[-1][2]}: {failures[-1][3]}",
                  flush=True)
        except Exception:  # a crash is a failure too, with its traceback
            failures.append((kind, seed, "crash", traceback.format_exc(limit=3)))
            print(f"CRASH {kind} seed {seed}\n{failures[-1][3]}", flush=True)
        games[kind] += 1
        seed += 1
    cpu = time.process_time() - started
    wrong = sum(1 for f in failures if f[2] == "wrong commit")
    stuck = sum(1 for f in failures if f[2] != "wrong commit")
    print("| kind | games | moves |\n|---|---|---|")
    for kind in kinds:
        print(f"| {kind} | {games[kind]} | {moves[kind]} |")
    print(f"\nseeds {args.seed}..{seed - 1}: {sum(games.values())} games, "
          f"{sum(moves.values())} moves, {wrong} wrong commits, {stuck} stuck or crashed, "
          f"{cpu:.0f} s CPU")
    return 1 if failures else 0


if __name__ == "__main__":
    raise SystemExit(main())
