"""The self-play ladder: each level against the one below, per game, with Elo error bars.

For every game and every pair of adjacent levels (``--low``..``--high``) it plays games
with the seats swapped every game and reports the Elo difference with its 95 % interval,
and the rating of each level over the lowest one (the differences added up, their
intervals added in quadrature).  The engine players budget process CPU time
(``benchmarks/spar.py``), so the load of other work does not weaken them; from level 4
on the levels' node caps (never before the level below's depth is complete) often end
the search first anyway.

**How many games.**  A pair is played two games at a time (one with each seat) and stops
once its 95 % interval excludes zero (from ``--min-games`` on) and it has used
``--cheap-minutes`` of CPU time, or at ``--max-games``, or when it has used
``--pair-minutes``: cheap pairs (low levels) get many games, dear ones stop as soon as
they separate or the CPU allowance is spent.  Stopping at the first
separated interval favours separation a little (a sequential test looked at after every
second game); the table says why each pair stopped.

**Adjudication.**  Weak levels rarely end a Gnu Qi, Lao Tzu or KaleidoChess game within a
few hundred plies, and counting them all as draws hides the difference between the
levels.  A game that reaches ``--max-plies`` is therefore adjudicated by the game's own
evaluation (``controller.engine.Evaluator``: material, castles held, stacks — the data of
``values.toml``) from White's side: a lead of at least ``--adjudicate`` centipawns (default
300, three Pawns) is a win, anything less a draw; ``--adjudicate 0`` makes every game at
the cap a draw.

**Openings.**  Levels without noise (4 and up) play the same moves for the same position
whatever the seed, so a pair of them would play the same two games again and again (and
count them as independent).  Such a pair starts every two games (one per seat) from
``--opening`` random plies of their own, none ending the game; a pair with a noisy level
plays from the start, as before.

Each pair is appended to ``--results`` (JSON lines) with the two levels it measured, so a
long ladder can be stopped and continued: a pair already there is played on only while
the rule above says so (``--minutes``, the run's wall-clock allowance after which no game
starts, may have cut it short); lines measured with other ``LEVELS`` are ignored.
``--write-docs`` writes the table of every pair in the file, and the table of ``LEVELS``
it measured, into docs/engine.md.

    nice -n 10 python -m benchmarks.ladder --minutes 60
    python -m benchmarks.ladder --minutes 0 --write-docs   # the table of what is recorded
    python -m benchmarks.ladder --game gnuqi --low 6 --high 8 --max-games 12
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, replace
from pathlib import Path

from benchmarks.spar import Player, Score, make_player, write_docs
from controller.engine import DEFAULT_LEVEL, LEVELS, Evaluator, Level
from controller.engine.fog import SAMPLES
from controller.engine.human import Style
from controller.rules import GAMES as ALL_GAMES
from controller.rules import Game, Move, get_game

#: finished pairs (kept in the repository: the docs' table is made from it)
RESULTS = Path(__file__).resolve().parent / "results" / "ladder.jsonl"
#: centipawns of lead (by the evaluation) that win a game stopped at the ply cap
ADJUDICATE = 300
#: random plies a pair of noiseless levels starts from (the same for both seats)
OPENING = 2
#: the six games, cheapest first (a run that is cut short has covered these)
GAMES = ["lotus39", "chess", "gnuqi", "kaleidochess", "laotzu", "luotuoqi"]

HEADER = ("| game | levels | games | upper wins | draws | lower wins | adjudicated "
          "| upper score | Elo upper−lower [95 %] | upper over level {low} | stopped "
          "| CPU minutes |\n"
          "|---|---|---|---|---|---|---|---|---|---|---|---|")


def levels_table() -> str:
    """``LEVELS`` as the docs show it (written with the ladder, so the two agree)."""
    lines = ["| level | deepest | node cap | completed before the cap may stop it "
             "| time budget here | noise (cp) | positions drawn from a view (Lao Tzu) "
             "| plays as a beginner: horizon, overlook, notice, noise |",
             "|---|---|---|---|---|---|---|---|"]
    for k, level in sorted(LEVELS.items()):
        name = f"{k} (default)" if k == DEFAULT_LEVEL else str(k)
        nodes = "—" if level.nodes is None else f"{level.nodes:,}"
        floor = f"depth {level.floor}{lowered(level)}" if level.floor else "—"
        style = level.style
        beginner = ("—" if style is None else f"{style.horizon:g} cells, {style.overlook:.0%}, "
                    f"{style.notice:.0%}, {style.noise} cp")
        lines.append(f"| {name} | {level.depth} | {nodes} | {floor} | {level.movetime:g} s "
                     f"| {level.noise} | {level.samples} | {beginner} |")
    return "\n".join(lines)


def played_floor(level: Level, game: str) -> int:
    """The floor a level keeps in ``game``'s ladder games (``Level.floor_in``; in a game
    of hidden information the players decide from their view, without a floor, and the
    level's own ``floor`` is what a record names)."""
    return level.floor if get_game(game).hidden_information else level.floor_in(game)


def lowered(level: Level) -> str:
    """Where a game's ceiling lowers the level's floor (``Level.floor_in``), as the levels'
    table says it: " (3 in kaleidochess, luotuoqi)"."""
    games: dict[int, list[str]] = {}
    for game in ALL_GAMES:
        if level.floor_in(game) != level.floor:
            games.setdefault(level.floor_in(game), []).append(game)
    return "" if not games else " ({})".format("; ".join(
        f"{depth} in {', '.join(names)}" for depth, names in sorted(games.items())))


def levels_of(low: int, game: str) -> dict[str, dict]:
    """The two levels a pair measures, as recorded with its result (each ``floor`` the
    one it keeps in ``game``: ``played_floor``)."""
    return {side: {**asdict(level), "floor": played_floor(level, game)}
            for side, level in (("upper", LEVELS[low + 1]), ("lower", LEVELS[low]))}


def measured_with_current_levels(record: dict) -> bool:
    """Whether a recorded pair measured the two levels ``LEVELS`` has now (a field added
    to ``Level`` since, such as ``floor``, counts at its default; ``samples`` only where
    the game hides pieces — elsewhere no search draws positions)."""
    recorded = record.get("levels") or {}
    try:
        then = {side: Level(**{**fields, "style": Style(**fields["style"])
                               if fields.get("style") else None})
                for side, fields in recorded.items()}
        # each level's floor as it is in the record's game (``played_floor``: a game's
        # ceiling lowers the floors of the levels that could not hold them there)
        now = {side: replace(level, floor=played_floor(level, record["game"]))
               for side, level in (("upper", LEVELS[record["low"] + 1]),
                                   ("lower", LEVELS[record["low"]]))}
        if not get_game(record["game"]).hidden_information:
            then, now = ({side: replace(level, samples=SAMPLES) for side, level in d.items()}
                         for d in (then, now))
        # the depth floor's wait (2026-12-02) is not counted: the pairs were played before
        # it, the same games where the floor fitted the budget (levels 4-7 of chess, Gnu Qi,
        # Lotus-39, Lao Tzu); the rest search deeper since (docs/engine.md, "The levels'
        # ratings")
        then, now = ({side: replace(level, floor_wait=0.0) for side, level in d.items()}
                     for d in (then, now))
        return then == now
    except (KeyError, TypeError):  # a level or a field that no longer exists
        return False


def separated(score: Score) -> bool:
    """Whether the 95 % interval of the Elo difference excludes zero."""
    _, lo, hi = score.elo()
    return lo > 0 or hi < 0


def opening_plies(low: int, plies: int) -> int:
    """The random plies pair ``low + 1`` v ``low`` starts from: none while a level has
    noise (its games differ by the seed anyway), ``plies`` once neither has."""
    return plies if LEVELS[low].noise == 0 and LEVELS[low + 1].noise == 0 else 0


def random_opening(game: Game, plies: int, rng: random.Random) -> list[Move]:
    """``plies`` random moves from the start, none of which ends the game (fewer if every
    move would)."""
    pos = game.start()
    opening: list[Move] = []
    for _ in range(plies):
        moves = game.legal_moves(pos)
        rng.shuffle(moves)
        for move in moves:
            pos.push(move)
            if game.outcome(pos) is None:
                opening.append(move)
                break
            pos.pop()
        else:
            break
    return opening


def play_adjudicated(game: Game, seats: list[Player], max_plies: int, rng: random.Random,
                     margin: int, opening: list[Move] = ()) -> tuple[tuple[int, ...], bool]:
    """One two-player game from ``opening`` (counted in ``max_plies``); its winners and
    whether it was adjudicated at the cap."""
    pos = game.start()
    for move in opening:
        pos.push(move)
    for _ in range(max_plies - len(opening)):
        moves = game.legal_moves(pos)
        if not moves:
            break
        if moves[0].kind == "roll":
            move = rng.choice(moves)
        else:
            move = seats[game.ply_mover(pos)].choose(game, pos, moves)
            assert move in moves, "illegal move"
        pos.push(move)
        if game.outcome(pos) is not None:
            break
    outcome = game.outcome(pos)
    if outcome is not None:
        return outcome.winners, False
    if not margin:
        return (), False
    lead = Evaluator(game).score(pos, 0)
    return ((0,) if lead >= margin else (1,) if lead <= -margin else ()), True


def stop_reason(score: Score, cpu: float, args: argparse.Namespace) -> str | None:
    """Why a pair with ``score`` after ``cpu`` seconds of CPU stops, or None to play on.

    A separated pair plays on while it is cheap (``--cheap-minutes``), so low pairs get
    tighter intervals; any pair stops at ``--max-games`` or ``--pair-minutes``."""
    if score.games >= args.max_games:
        return "separated" if separated(score) else "max games"
    if cpu >= 60 * args.pair_minutes:
        return "CPU"
    if (score.games >= args.min_games and separated(score)
            and cpu >= 60 * args.cheap_minutes):
        return "separated"
    return None


def run_pair(game: str, low: int, played: dict, args: argparse.Namespace,
             deadline: float) -> dict:
    """Level ``low + 1`` against ``low``, two games at a time (seats swapped), until
    ``stop_reason`` says so or the run's ``deadline`` passes.  ``played`` is what earlier
    runs of this pair recorded (its games and CPU count)."""
    started, cpu0 = time.monotonic(), time.process_time()
    rules = get_game(game)
    score = Score(played.get("wins", 0), played.get("draws", 0), played.get("losses", 0))
    adjudicated = 0
    first = score.games
    rng = random.Random(args.seed + first)
    plies = opening_plies(low, args.opening)
    while True:
        stop = stop_reason(score, time.process_time() - cpu0 + played.get("cpu", 0.0), args)
        if stop is None and time.time() >= deadline:
            stop = "time"
        if stop is not None:
            break
        # the same opening for both seats, a new one every two games
        opening = random_opening(rules, plies, random.Random(
            f"{args.seed} {game} {low} {score.games}"))
        for _ in range(2):
            i = score.games
            upper = make_player(f"level:{low + 1}", rules, args.seed + 2 * i)
            lower = make_player(f"level:{low}", rules, args.seed + 2 * i + 1)
            seat = i % 2
            seats = [upper, lower] if seat == 0 else [lower, upper]
            winners, judged = play_adjudicated(rules, seats, args.max_plies, rng,
                                               args.adjudicate, opening)
            adjudicated += judged
            score.record(winners, seat)
    return {"game": game, "low": low, "wins": score.wins - played.get("wins", 0),
            "draws": score.draws - played.get("draws", 0),
            "losses": score.losses - played.get("losses", 0),
            "seconds": round(time.monotonic() - started, 1),
            "cpu": round(time.process_time() - cpu0, 1), "max_plies": args.max_plies,
            "adjudicated": adjudicated, "margin": args.adjudicate, "stop": stop,
            "first_game": first, "opening": plies, "levels": levels_of(low, game)}


def load(path: Path | None, opening: int = OPENING,
         ) -> tuple[dict[tuple[str, int], dict], int]:
    """The pairs recorded with the current ``LEVELS`` and ``opening`` plies (a pair found
    twice, from two runs, counts all its games) and how many lines were measured
    otherwise (other levels, or noiseless levels without openings: the same games
    over again)."""
    results: dict[tuple[str, int], dict] = {}
    stale = 0
    if path is None or not path.exists():
        return results, stale
    for line in path.read_text(encoding="utf-8").splitlines():
        r = json.loads(line)
        if (not measured_with_current_levels(r)
                or r.get("opening", 0) != opening_plies(r["low"], opening)):
            stale += 1
            continue
        seen = results.get((r["game"], r["low"]))
        if seen is not None:
            r = dict(r)
            for key in ("wins", "draws", "losses", "seconds", "cpu", "adjudicated"):
                r[key] = round(r[key] + seen[key], 1)
            r["max_plies"] = max(r["max_plies"], seen["max_plies"])
        results[(r["game"], r["low"])] = r
    return results, stale


def table(results: dict[tuple[str, int], dict], games: list[str]) -> str:
    """The ladder per game: each pair, and each level's rating over the lowest measured
    (summed only while the pairs below it are all measured)."""
    lows = sorted({low for _, low in results})
    lines = [HEADER.format(low=lows[0] if lows else 1)]
    for game in games:
        total, var, unbroken = 0.0, 0.0, True
        for low in lows:
            if (game, low) not in results:
                unbroken = False
                continue
            r = results[(game, low)]
            score = Score(r["wins"], r["draws"], r["losses"])
            elo, lo, hi = score.elo()
            half = (hi - lo) / 2
            total += elo
            var += half * half
            points = score.wins + score.draws / 2
            over = f"{total:+.0f} ± {math.sqrt(var):.0f}" if unbroken else "—"
            lines.append(f"| {game} | {low + 1} v {low} | {score.games} | {score.wins} "
                         f"| {score.draws} | {score.losses} | {r['adjudicated']} "
                         f"| {points / score.games:.2f} "
                         f"| {elo:+.0f} [{lo:+.0f}, {hi:+.0f}] "
                         f"| {over} | {r['stop']} | {r['cpu'] / 60:.1f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", nargs="+", default=GAMES)
    parser.add_argument("--low", type=int, default=1)
    parser.add_argument("--high", type=int, default=max(LEVELS))
    parser.add_argument("--min-games", type=int, default=6)
    parser.add_argument("--max-games", type=int, default=40)
    parser.add_argument("--pair-minutes", type=float, default=2.5,
                        help="CPU minutes a pair may use (then it stops)")
    parser.add_argument("--cheap-minutes", type=float, default=0.5,
                        help="CPU minutes a separated pair still plays on for")
    parser.add_argument("--minutes", type=float,
                        help="wall-clock minutes for the run: no game starts after them")
    parser.add_argument("--max-plies", type=int, default=80)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--adjudicate", type=int, default=ADJUDICATE,
                        help="centipawns of lead that win at the ply cap (0: a draw)")
    parser.add_argument("--opening", type=int, default=OPENING,
                        help="random plies a pair of levels without noise starts from")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--results", type=Path, default=RESULTS,
                        help="JSON lines of finished pairs: appended to, and skipped")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    results, stale = load(args.results, args.opening)
    if stale:
        print(f"{stale} recorded pairs were measured with other LEVELS or openings: "
              "ignored", flush=True)
    # --minutes 0 plays nothing: it only prints (and writes) the table of what is recorded
    deadline = time.time() + 60 * args.minutes if args.minutes is not None else float("inf")
    # lowest levels first, and within a level the cheapest games first
    def unfinished(r: dict | None) -> bool:
        return r is None or stop_reason(Score(r["wins"], r["draws"], r["losses"]),
                                        r["cpu"], args) is None

    jobs = [(g, low, results.get((g, low), {})) for low in range(args.low, args.high)
            for g in args.game if unfinished(results.get((g, low)))]
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        done = pool.map(run_pair, *zip(*jobs, strict=True), [args] * len(jobs),
                        [deadline] * len(jobs)) if jobs else []
        for r in done:
            if r["wins"] + r["draws"] + r["losses"] == 0:
                continue  # the run's time was up before this pair began
            if args.results is not None:
                args.results.parent.mkdir(parents=True, exist_ok=True)
                with args.results.open("a", encoding="utf-8") as out:
                    out.write(json.dumps(r) + "\n")
            results, _ = load(args.results, args.opening)
            total = results.get((r["game"], r["low"]), r)
            score = Score(total["wins"], total["draws"], total["losses"])
            elo, lo, hi = score.elo()
            print(f"{r['game']} {r['low'] + 1} v {r['low']}: +{score.wins} ={score.draws} "
                  f"-{score.losses} Elo {elo:+.0f} [{lo:+.0f}, {hi:+.0f}] "
                  f"({r['stop']}, {r['cpu']:.0f} s CPU)", flush=True)
    text = table(results, args.game)
    print(text)
    if args.write_docs:
        games = sum(r["wins"] + r["draws"] + r["losses"] for r in results.values())
        caps = sorted({r["max_plies"] for r in results.values()})
        margins = sorted({r["margin"] for r in results.values()})
        minutes = sum(r["cpu"] for r in results.values()) / 60
        note = (f"{time.strftime('%Y-%m-%d')}: `python -m benchmarks.ladder` (the `LEVELS` "
                f"of `controller/engine/__init__.py`; seats alternating; a pair of levels "
                f"without noise starts every two games from {args.opening} random plies, the "
                f"same for both seats; a pair stops when "
                f"its interval excludes 0 after at least {args.min_games} games and "
                f"{args.cheap_minutes:g} CPU minutes, at {args.max_games} games or at "
                f"{args.pair_minutes:g} CPU minutes; a game "
                f"reaching {' or '.join(map(str, caps))} plies is adjudicated: a lead of "
                f"{' or '.join(map(str, margins))} centipawns or more by the evaluation "
                f"wins, less is a draw): {games} games in all, {minutes:.0f} CPU minutes "
                "of matches. Elo clamped at ±800; ± is the 95 % interval's half-width, the "
                "intervals of the pairs added in quadrature.")
        write_docs("ladder", note + "\n\n" + text)
        write_docs("levels", levels_table())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
