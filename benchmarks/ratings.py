"""Ratings: each chess level against Stockfish at fixed ``UCI_Elo`` settings and sunfish.

A level's rating is what a player can read ("about 1400"), so it is measured against
anchors of a known rating, not only against the level below (``benchmarks/ladder.py``):

* ``sf:N`` — Debian's Stockfish 15.1 with ``UCI_LimitStrength`` and ``UCI_Elo`` N
  (1350–2850; Stockfish calibrated that scale against CCRL 40/4 engines at 60 s + 0.6 s,
  "goldfish 1.13 = 2000": an engine-list rating, not a FIDE or online one), told ``go
  nodes`` ``SF_NODES`` a move: a fixed budget whatever the load (a ``movetime`` is wall
  time, which the load shortens).  Its limited strength chooses among four lines searched
  to depth ``1 + int(level)``, level = ((N − 1346.6) / 143.4) ** (1 / 0.806) (its
  ``Skill``, ``search.cpp``: depth 1 at 1350), and keeps that choice — but those shallow
  searches read the transposition table its deeper searches of the earlier moves filled,
  so how long it thinks still matters.
* ``sfd:N`` — the same asked ``go depth`` one ply past its pick (``pick_depth``): the
  cheapest, but its table then holds shallow searches only, so it is not the calibrated
  ``N``; it is placed by its own games against ``sf:N`` (``--pair sfd:N:sf:N``).
* ``sunfish:N`` — PyPI's pure-Python sunfish told ``go nodes N`` (a fixed budget: its
  ``movetime`` would be wall time, which the load shortens).  Its rating is not known in
  advance: it is placed on the same scale by its own games against ``sf:N``
  (``--pair sunfish:N:sf:M``), and the levels' games against it count from there.

Our levels play with their own limits (``LEVELS``: depth, node cap, the time budget
here) on process CPU time, as in the ladder, so the load of other work slows a run but
does not weaken a level.  Games start from ``spar.OPENINGS``, each with both colours; a
game at ``--max-plies`` is a draw.  Every game is appended to ``--results`` as it ends
(JSON lines), so a run can be stopped and continued with another ``--seed``; only games
of the current ``LEVELS`` are counted (each game keeps its level's ``Level``).

**The model.**  A game scores 1, ½ (a draw) or 0.  Against one anchor of rating R_a the
level's rating R is the one whose expected score 1 / (1 + 10^((R_a − R)/400)) equals the
mean score; its 95 % interval comes from the mean score ± 1.96 standard errors (the
standard error from the games' own scores, so draws narrow it), mapped through the same
curve.  Over several anchors R is the maximum-likelihood value of the same logistic
model (each game's score against its anchor's expected score), with the interval from
the spread of its estimating equation (the games' observed score variance over the
slope of the expected score: a sandwich estimate).  An anchor the level scores 0 % or
100 % against only bounds R.

    nice -n 19 python -m benchmarks.ratings --pair 4:sf:1350 --pair 6:sf:1500 --games 100
    python -m benchmarks.ratings --table              # what is recorded
    python -m benchmarks.ratings --table --write-docs --write-data
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path

from benchmarks.spar import (
    OPENINGS,
    STOCKFISH,
    EnginePlayer,
    Player,
        code_version,
    play_game,
    process_cpu_seconds,
    write_docs,
)
from controller.engine import LEVELS
from controller.engine.external import uci_move_text
from controller.engine.uci import UciEngine
from controller.rules import Game, get_game

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "ratings.jsonl"
#: nodes a move for the Stockfish anchors (``sf:N``): about 0.03 s of CPU here
SF_NODES = 20_000
#: where sunfish is importable from (``pip install --target DIR sunfish``): a GPL
#: benchmark opponent, never a dependency
SUNFISH_PATH = os.environ.get("SUNFISH_PATH", "")


def pick_depth(elo: int) -> int:
    """The depth at which Stockfish 15.1's limited strength picks its move at ``elo``."""
    level = min(20.0, max(0.0, ((elo - 1346.6) / 143.4)) ** (1 / 0.806))
    return 1 + int(level)


class UciAt(Player):
    """A UCI engine in its own process asked ``go`` with fixed ``limits`` (a depth or a
    node count: the same thinking whatever the machine's load)."""

    def __init__(self, name: str, command: list[str], limits: dict[str, int],
                 options: tuple[tuple[str, object], ...] = ()) -> None:
        self.name = name
        self.limits = limits
        self.engine = UciEngine(command, timeout=60.0)
        for option, value in options:
            self.engine.set_option(option, value)
        self.engine.is_ready()
        self.engine.new_game()

    def choose(self, game, pos, moves):
        start = game.start()
        said = []
        for move in pos.moves:
            said.append(uci_move_text(game, start, move, chess960=False))
            start.push(move)
        self.engine.position(None, said)
        best = self.engine.go(**self.limits)
        for move in moves:
            if best.move == uci_move_text(game, pos, move, chess960=False):
                return move
        raise SystemExit(f"{self.name} answered {best.move!r}, not a legal move")

    def cpu_seconds(self) -> float:
        return process_cpu_seconds(self.engine.process.pid)

    def close(self) -> None:
        self.engine.close()


def anchor_player(spec: str, game: Game, seed: int) -> Player:
    """The anchor ``spec`` (``sf:N``, ``sunfish:NODES``) or one of our levels (``level:N``)."""
    kind, _, value = spec.partition(":")
    elo, _, nodes = value.partition("@")
    if kind in ("sf", "sfd"):
        strength = (("UCI_LimitStrength", True), ("UCI_Elo", int(elo)))
    if kind == "sf":  # a fixed number of nodes a move (sf:N@NODES: another number)
        return UciAt(spec, [STOCKFISH], {"nodes": int(nodes or SF_NODES)}, strength)
    if kind == "sfd":  # one ply past its pick depth: a table of shallow searches only
        return UciAt(spec, [STOCKFISH], {"depth": pick_depth(int(value)) + 1}, strength)
    if kind == "sunfish":  # a fixed number of nodes a move
        env_path = [SUNFISH_PATH] if SUNFISH_PATH else []
        command = [sys.executable, "-c",
                   f"import sys; sys.path[:0] = {env_path!r}; import sunfish; sunfish.main()"]
        return UciAt(spec, command, {"nodes": int(value)})
    if kind == "level":
        return EnginePlayer(game, int(value), seed)
    raise SystemExit(f"unknown anchor {spec!r} (sf:N, sfd:N, sunfish:NODES, level:N)")


def level_data(player: str) -> dict | None:
    """What a player ``level:N`` is (its ``Level``, with the floor it keeps in chess:
    ``Level.floor_in``), kept with its games: games of a level that changed since are
    not counted."""
    kind, _, value = player.partition(":")
    if kind != "level":
        return None
    level = LEVELS[int(value)]
    return {**asdict(level), "floor": level.floor_in("chess")}


def current(record: dict) -> bool:
    """Whether a recorded game was played by the levels of today's ``LEVELS`` (the depth
    floor's wait aside, as in ``ladder.measured_with_current_levels``: chess's levels 4-7
    reached their floor within their budget before it, so they play the games measured)."""
    def play_of(level: dict | None) -> dict | None:
        return None if level is None else {**level, "floor_wait": 0.0}
    return all(play_of(record.get(key)) == play_of(level_data(record[name]))
               for key, name in (("levels", "level"), ("anchor_levels", "anchor")))


def close(player: Player) -> None:
    if hasattr(player, "close"):
        player.close()


def play(level: str, anchor: str, games: int, seed: int, max_plies: int, results: Path,
         done: int) -> None:
    """``games`` more games of ``level`` (``level:N`` or ``sunfish:S``) against
    ``anchor``, the openings continuing from ``done`` games already recorded."""
    game = get_game("chess")
    code = code_version()
    for i in range(done, done + games):
        player = anchor_player(level, game, seed + 2 * i)
        other = anchor_player(anchor, game, seed + 2 * i + 1)
        seat = i % 2
        seats = [other, other]
        seats[seat] = player
        opening = OPENINGS[(i // 2) % len(OPENINGS)]
        used: dict = {}
        played: list[str] = []
        started = time.monotonic()
        try:
            winners = play_game(game, seats, max_plies, random.Random(seed + i), opening, used,
                                played)
        finally:
            close(player)
            close(other)
        result = 0.5 if not winners else (1.0 if seat in winners else 0.0)
        mine = used.get(id(player), [0.0, 0, 0.0])
        theirs = used.get(id(other), [0.0, 0, 0.0])
        entry = {"level": level, "anchor": anchor, "score": result, "white": seat == 0,
                 "opening": opening, "plies": len(played), "seed": seed, "index": i,
                 "moves": mine[1], "cpu": round(mine[2], 2), "anchor_cpu": round(theirs[2], 2),
                 "wall": round(time.monotonic() - started, 1),
                 "load": round(os.getloadavg()[0], 2), "code": code, "levels": level_data(level),
                 "anchor_levels": level_data(anchor),
                 "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        if isinstance(player, EnginePlayer):
            entry["depths"] = player.depths
        results.parent.mkdir(parents=True, exist_ok=True)
        with results.open("a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")
        print(f"{level} v {anchor} game {i + 1}: {result} ({len(played)} plies, "
              f"{mine[2]:.1f} / {theirs[2]:.1f} s CPU)", file=sys.stderr, flush=True)


#: positions of the pick check: the start, an open game, a Sicilian
PICK_POSITIONS = (None, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
                  "rnbqkb1r/pp2pppp/3p1n2/8/3NP3/8/PPP2PPP/RNBQKB1R w KQkq - 1 5")


def check_pick(elo: int, trials: int, movetime: float = 0.25) -> list[str]:
    """Stockfish's moves at ``elo`` asked ``go depth`` past its pick depth and asked ``go
    movetime``, ``trials`` fresh processes each (its choice is random, seeded by the
    clock): the same candidates at like frequencies if the depth changes nothing."""
    from collections import Counter

    lines = []
    for fen in PICK_POSITIONS:
        for limits in ({"depth": pick_depth(elo) + 1}, {"movetime": movetime}):
            seen: Counter[str] = Counter()
            for _ in range(trials):
                engine = UciEngine([STOCKFISH], timeout=30.0)
                engine.set_option("UCI_LimitStrength", True)
                engine.set_option("UCI_Elo", elo)
                engine.is_ready()
                engine.position(fen)
                seen[engine.go(**limits).move or "none"] += 1
                engine.close()
            moves = ", ".join(f"{m} {n}" for m, n in seen.most_common())
            lines.append(f"{elo} {(fen or 'start')[:24]} {limits}: {moves}")
    return lines


# -- the model ------------------------------------------------------------------------

def expected(rating: float, anchor: float) -> float:
    """The logistic (Elo) expected score of ``rating`` against ``anchor``."""
    return 1 / (1 + 10 ** ((anchor - rating) / 400))


def elo_of(share: float) -> float:
    """The rating difference an expected score ``share`` means (−inf/+inf at 0 and 1)."""
    if share <= 0:
        return -math.inf
    if share >= 1:
        return math.inf
    return -400 * math.log10(1 / share - 1)


def one_anchor(scores: list[float]) -> tuple[float, float, float]:
    """The rating difference over one anchor and its 95 % interval, from game scores."""
    n = len(scores)
    mean = sum(scores) / n
    var = sum((s - mean) ** 2 for s in scores) / max(n - 1, 1)
    se = math.sqrt(max(var, 0.25 / n) / n)  # never narrower than a game's half point
    return (elo_of(mean), elo_of(max(0.0, mean - 1.96 * se)),
            elo_of(min(1.0, mean + 1.96 * se)))


def fit(groups: list[tuple[float, list[float]]]) -> tuple[float, float, float] | None:
    """Maximum-likelihood rating over anchors ``(anchor rating, game scores)``, with its
    95 % interval (the games' observed score variance over the expected score's slope);
    None when every game was won or every game lost (no finite estimate)."""
    total = sum(len(s) for _, s in groups)
    points = sum(sum(s) for _, s in groups)
    if total == 0 or points in (0, total):
        return None
    rating = sum(a for a, _ in groups) / len(groups)
    k = math.log(10) / 400
    for _ in range(100):  # Newton on the score equation: sum(scores - expected) = 0
        gradient = sum(sum(s) - len(s) * expected(rating, a) for a, s in groups)
        slope = sum(len(s) * expected(rating, a) * (1 - expected(rating, a)) * k
                    for a, s in groups)
        step = gradient / slope
        rating += max(-200.0, min(200.0, step))
        if abs(step) < 0.01:
            break
    # the estimating equation's spread (a sandwich): each game's score variance as
    # observed against its anchor (draws count half and make it smaller) over the slope
    spread, slope = 0.0, 0.0
    for a, s in groups:
        p = expected(rating, a)
        mean = sum(s) / len(s)
        var = sum((x - mean) ** 2 for x in s) / max(len(s) - 1, 1)
        spread += len(s) * max(var, 0.25 / len(s))
        slope += len(s) * p * (1 - p) * k
    half = 1.96 * math.sqrt(spread) / slope
    return rating, rating - half, rating + half


def anchor_rating(anchor: str, fitted: dict[str, tuple[float, float, float]]) -> float | None:
    kind, _, value = anchor.partition(":")
    if kind == "sf" and "@" not in value:  # the anchor; sf:N@NODES is placed by its games
        return float(value)
    got = fitted.get(anchor)
    return got[0] if got else None


def anchors_levels(anchor: str) -> bool:
    """Whether a level's games against ``anchor`` count for its rating: Stockfish at the
    anchors' node count and sunfish — not the engines measured only to show what their
    budget does (``sfd:N``, ``sf:N@NODES``), whose own placement is too loose to carry."""
    kind, _, value = anchor.partition(":")
    return (kind == "sf" and "@" not in value) or kind == "sunfish"


def load(results: Path) -> list[dict]:
    if not results.exists():
        return []
    return [r for r in (json.loads(line) for line in
                        results.read_text(encoding="utf-8").splitlines() if line.strip())
            if current(r)]


def grouped(records: Iterable[dict]) -> dict[str, dict[str, list[float]]]:
    out: dict[str, dict[str, list[float]]] = {}
    for r in records:
        out.setdefault(r["level"], {}).setdefault(r["anchor"], []).append(r["score"])
    return out


def ratings(records: list[dict]) -> dict[str, tuple[float, float, float]]:
    """Each measured player's fitted rating and 95 % interval.  The unrated engines are
    fitted first (Stockfish by depth, then sunfish), since they anchor levels too; a
    player measured against such an engine has that engine's own uncertainty added to
    its interval (in quadrature, in the share of its information the engine gives)."""
    groups = grouped(records)
    fitted: dict[str, tuple[float, float, float]] = {}
    order = sorted(groups, key=lambda p: (not p.startswith(("sfd", "sf:")),
                                          p.partition(":")[0] != "sunfish", p))
    for player in order:
        usable = [(a, anchor_rating(a, fitted), s) for a, s in groups[player].items()
                  if not player.startswith("level:") or anchors_levels(a)]
        usable = [(a, r, s) for a, r, s in usable if r is not None]
        got = fit([(r, s) for _, r, s in usable])
        if got is None:
            continue
        rating, low, high = got
        weights = {a: len(s) * expected(rating, r) * (1 - expected(rating, r))
                   for a, r, s in usable}
        carried = sum(weights[a] * (fitted[a][2] - fitted[a][1]) / 2
                      for a in weights if a in fitted) / sum(weights.values())
        half = math.hypot((high - low) / 2, carried)
        fitted[player] = (rating, rating - half, rating + half)
    return fitted


def fmt(x: float) -> str:
    return "−∞" if x == -math.inf else "+∞" if x == math.inf else f"{x:+.0f}"


def table(records: list[dict]) -> str:
    groups = grouped(records)
    fitted = ratings(records)
    lines = ["| player | anchor | games | wins | draws | losses | score | Elo over the "
             "anchor [95 %] | rating from this anchor | CPU s/move | plies (median) |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    def key(p: str) -> tuple:
        kind, _, value = p.partition(":")
        return (kind != "level", kind, float(value.partition("@")[0]), value)
    for player in sorted(groups, key=key):
        for anchor in sorted(groups[player], key=key):
            scores = groups[player][anchor]
            mine = [r for r in records if r["level"] == player and r["anchor"] == anchor]
            wins, draws = scores.count(1.0), scores.count(0.5)
            diff, low, high = one_anchor(scores)
            base = anchor_rating(anchor, fitted)
            rated = ("–" if base is None else
                     f"{base + diff:.0f} [{base + low:.0f}, {base + high:.0f}]"
                     .replace("inf", "∞").replace("-∞", "−∞"))
            cpu = sum(r["cpu"] for r in mine) / max(sum(r["moves"] for r in mine), 1)
            plies = sorted(r["plies"] for r in mine)[len(mine) // 2]
            lines.append(f"| {player} | {anchor} | {len(scores)} | {wins} | {draws} "
                         f"| {len(scores) - wins - draws} | {sum(scores) / len(scores):.2f} "
                         f"| {fmt(diff)} [{fmt(low)}, {fmt(high)}] | {rated} | {cpu:.3f} "
                         f"| {plies} |")
    lines += ["", "| player | games | rating (all its anchors) [95 %] |", "|---|---|---|"]
    for player in sorted(fitted, key=key):
        rating, low, high = fitted[player]
        n = sum(len(s) for a, s in groups[player].items()
                if anchor_rating(a, fitted) is not None
                and (not player.startswith("level:") or anchors_levels(a)))
        lines.append(f"| {player} | {n} | {rating:.0f} [{low:.0f}, {high:.0f}] |")
    return "\n".join(lines)


# -- the levels' ratings, in every game ---------------------------------------------

#: the level of the other games taken to be as strong as chess's same level: a search of
#: two whole plies (and the captures after them) in every game (``LEVELS``: depth 2, its
#: node cap never stopping it before depth 1, 3,000 nodes completing depth 2 even in
#: KaleidoChess) — from there each game's own ladder places its other levels
VARIANT_ANCHOR = 4


def ladder_steps(game: str, ladder: dict[tuple[str, int], dict]) -> dict[int, tuple[float, float]]:
    """The ladder's Elo step from level k to k + 1 in ``game`` and its 95 % half-width."""
    from benchmarks.spar import Score

    steps = {}
    for (name, low), r in ladder.items():
        if name == game:
            elo, lo, hi = Score(r["wins"], r["draws"], r["losses"]).elo()
            steps[low] = (elo, (hi - lo) / 2)
    return steps


def placed(known: dict[int, tuple[float, float, int]], steps: dict[int, tuple[float, float]],
           ) -> dict[int, tuple[float, float, int, bool]]:
    """Each level's rating and 95 % half-width: the ``known`` (measured) ones as they are,
    the others from the nearest known level below or above through the ladder's steps
    (their half-widths added in quadrature) — approximate."""
    out: dict[int, tuple[float, float, int, bool]] = {
        n: (r, h, g, False) for n, (r, h, g) in known.items()}
    for level in LEVELS:
        if level in out:
            continue
        below = [n for n in known if n < level and all(k in steps for k in range(n, level))]
        above = [n for n in known if n > level and all(k in steps for k in range(level, n))]
        if below:
            n = max(below)
            path = [steps[k] for k in range(n, level)]
            sign = 1
        elif above:
            n = min(above)
            path = [steps[k] for k in range(level, n)]
            sign = -1
        else:
            continue
        rating, half, games = known[n]
        rating += sign * sum(d for d, _ in path)
        half = math.sqrt(half * half + sum(h * h for _, h in path))
        out[level] = (rating, half, games, True)
    return out


def level_ratings(records: list[dict], ladder: dict[tuple[str, int], dict],
                  games: list[str]) -> dict[str, dict[int, tuple[float, float, int, bool]]]:
    """Per game, each level's rating (rating, 95 % half-width, games measured, whether
    approximate): chess's measured levels (their own games, where those give a narrower
    interval than the ladder would), the rest of chess through its ladder, the other
    games through theirs from ``VARIANT_ANCHOR`` at chess's rating."""
    fitted = ratings(records)
    counts = {p: sum(len(s) for a, s in by.items()
                     if anchors_levels(a) and anchor_rating(a, fitted) is not None)
              for p, by in grouped(records).items()}
    direct = {int(p.split(":")[1]): (r, (hi - lo) / 2, counts[p])
              for p, (r, lo, hi) in fitted.items() if p.startswith("level:")}
    steps = ladder_steps("chess", ladder)
    # a level's own games against rated opponents, unless the ladder from the other
    # measured levels places it more precisely (a narrower interval)
    chess = {}
    for n, own in direct.items():
        other = placed({k: v for k, v in direct.items() if k != n}, steps).get(n)
        if other is None or own[1] <= other[1]:
            chess[n] = own
    out = {"chess": placed(chess, steps)}
    anchor = out["chess"].get(VARIANT_ANCHOR)
    for game in games:
        if game == "chess" or anchor is None:
            continue
        out[game] = {n: (r, h, g, True) for n, (r, h, g, _) in placed(
            {VARIANT_ANCHOR: anchor[:3]}, ladder_steps(game, ladder)).items()}
    return out


#: the lowest rating the page names: a level rated below it is shown as "under" it (the
#: chain of self-play steps down from level 4 gives numbers there — even below zero —
#: that mean nothing to a player)
LOWEST_SHOWN = 800


def rounded(x: float, step: int) -> int:
    return int(step * round(x / step))


def data_text(rated: dict[str, dict[int, tuple[float, float, int, bool]]]) -> str:
    """``controller/engine/ratings.toml``: what the page shows, from the measurements."""
    lines = ["# Each level's rating per game, on Stockfish's UCI_Elo scale (calibrated against",
             "# engine rating lists; not a FIDE or online rating): what the page shows as",
             "# \"about N\".  Written by `python -m benchmarks.ratings --write-data` from",
             "# benchmarks/results/ratings.jsonl and ladder.jsonl (docs/engine.md, \"Ratings\");",
             "# do not edit by hand.  low/high: the 95 % interval; games: the games against",
             "# rated opponents behind it; approximate: placed through the self-play ladder;",
             "# under: rated below `about` (shown as \"under N\"; low/high are its interval).",
             ""]
    for game, levels in rated.items():
        lines.append(f"[games.{game}]")
        for n in sorted(levels):
            r, h, g, approx = levels[n]
            under = r < LOWEST_SHOWN
            about = LOWEST_SHOWN if under else rounded(r, 50)
            lines.append(f"{n} = {{ about = {about}, low = {rounded(r - h, 10)}, "
                         f"high = {rounded(r + h, 10)}, games = {g}, "
                         f"approximate = {'true' if approx else 'false'}, "
                         f"under = {'true' if under else 'false'} }}")
        lines.append("")
    return "\n".join(lines)


def levels_summary(rated: dict[str, dict[int, tuple[float, float, int, bool]]]) -> str:
    games = list(rated)
    lines = ["| level | " + " | ".join(games) + " |", "|---" * (len(games) + 1) + "|"]
    for n in LEVELS:
        cells = []
        for game in games:
            got = rated[game].get(n)
            if got is None:
                cells.append("—")
                continue
            r, h, _, approx = got
            cells.append(f"{rounded(r, 50)} ± {rounded(h, 10)}" + (" (≈)" if approx else ""))
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pair", action="append", default=[],
                        help="PLAYER:ANCHOR, e.g. 6:sf:1350 (level 6) or sunfish:1000:sf:1500")
    parser.add_argument("--games", type=int, default=20, help="games per pair, this run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--check-pick", type=int, metavar="ELO",
                        help="compare Stockfish's moves at ELO by depth and by movetime")
    parser.add_argument("--write-data", action="store_true",
                        help="write controller/engine/ratings.toml from the records")
    args = parser.parse_args(argv)
    if args.check_pick:
        print("\n".join(check_pick(args.check_pick, args.games)))
        return 0
    pairs = []
    for text in args.pair:
        parts = text.split(":")
        if parts[0] in ("sunfish", "sf", "sfd"):
            player, anchor = ":".join(parts[:2]), ":".join(parts[2:])
        else:
            player, anchor = f"level:{parts[0]}", ":".join(parts[1:])
        pairs.append((player, anchor))
    # two games (both colours) of each pair in turn: a run cut short has all its pairs
    for start in range(0, args.games, 2):
        for player, anchor in pairs:
            done = sum(1 for r in load(args.results)
                       if r["level"] == player and r["anchor"] == anchor)
            play(player, anchor, min(2, args.games - start), args.seed, args.max_plies,
                 args.results, done)
    if args.table or args.write_docs or args.write_data:
        from benchmarks import ladder
        from controller.engine.ratings import RATINGS_FILE

        records = load(args.results)
        rated = level_ratings(records, ladder.load(ladder.RESULTS)[0], ladder.GAMES)
        text = table(records) + "\n\n" + levels_summary(rated)
        print(text)
        if args.write_docs:
            cpu = sum(r["cpu"] + r["anchor_cpu"] for r in records) / 60
            loads = [r["load"] for r in records]
            note = (f"{time.strftime('%Y-%m-%d')}: `python -m benchmarks.ratings` "
                    f"(`benchmarks/results/ratings.jsonl`): {len(records)} chess games of "
                    f"today's `LEVELS`, {cpu:.0f} CPU minutes for both sides, run at "
                    f"`nice -n 19` beside the other work (load average {min(loads):.0f}–"
                    f"{max(loads):.0f}). First table: each pair; \"rating from this "
                    "anchor\" is the anchor's rating plus the difference (sunfish's from its "
                    "own fit). Second: each player's fit over all its anchors. Third: each "
                    "level's rating per game as shipped in `controller/engine/ratings.toml` "
                    "(rounded to 50; ± the 95 % half-width; ≈: placed through the ladder).")
            write_docs("ratings", note + "\n\n" + text)
        if args.write_data:
            RATINGS_FILE.write_text(data_text(rated), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
