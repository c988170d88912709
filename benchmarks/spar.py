"""Sparring: matches between engine levels, a random mover and a one-ply greedy player.

Each match plays ``--games`` games with the seats swapped every game (with 3–4 players,
rotated), and prints wins, draws, losses, the score and an Elo difference with its 95 %
interval (normal approximation of the score's binomial spread).  Games that reach
``--max-plies`` count as draws.

    python -m benchmarks.spar --game gnuqi --a level:6 --b random --games 20
    python -m benchmarks.spar --ladder --game lotus39 --games 10   # 1 v 2, 2 v 3, …

Chess against other engines, at equal time per move, through our own UCI client
(``controller/engine/uci.py``): ``sunfish`` (PyPI's pure-Python engine, run as
``python -m sunfish``) and ``stockfish-lowest`` (Debian's Stockfish with
``UCI_LimitStrength`` at its lowest ``UCI_Elo``); any ``uci:PROGRAM`` works too.  Both GPL:
separate processes, here only.  Games start from a fixed list of openings, each played
with both colours.  ``--chess`` runs both matches; ``--write-docs`` puts the table in
docs/engine.md.

Time in a match against an external engine is WALL time for both sides: the opponent is
a separate process told ``movetime`` (its own wall clock), so our engine searches on the
wall clock too (``search_clock``) — one side thinks while the other waits, and the
machine's load takes from both alike.  Every other match searches on process CPU time.
What each side really got is recorded: CPU seconds per move, ours from
``time.process_time``, the opponent's from its process' ``/proc/PID/stat``.  Each chess
match is appended to ``--records`` (JSON lines) and the docs' table pools the records of
the same code (a digest of ``controller/``), timing rule and time per move, so runs
in chunks with different ``--seed`` add up and runs of other code never mix in.

    python -m benchmarks.spar --chess --games 20 --movetime 0.25 --seed 100 --write-docs
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from controller.engine import Engine, Evaluator
from controller.rules import Game, Move, Position, get_game

STOCKFISH = "/usr/games/stockfish"  # Debian's package
ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "engine.md"
#: every chess match against an external engine, one JSON line each (pooled for the docs)
CHESS_RECORDS = ROOT / "benchmarks" / "results" / "chess.jsonl"
#: the timing rule of the chess records: records of another rule are never pooled
CHESS_RULE = "wall clock both sides"
#: issue 18's chess goals: level 10's least score against each opponent
CHESS_GOALS = {"sunfish": 0.55, "stockfish-lowest": 0.50}
#: the players that are separate UCI processes (besides ``uci:PROGRAM``)
EXTERNAL = ("sunfish", "stockfish-lowest")

#: chess openings (UCI), each played once with either colour: varied games from
#: deterministic players
OPENINGS = (
    "e2e4 e7e5 g1f3 b8c6",          # open game
    "e2e4 c7c5 g1f3 d7d6",          # Sicilian
    "d2d4 d7d5 c2c4 e7e6",          # Queen's Gambit declined
    "d2d4 g8f6 c2c4 g7g6",          # King's Indian
    "e2e4 e7e6 d2d4 d7d5",          # French
    "e2e4 c7c6 d2d4 d7d5",          # Caro-Kann
    "c2c4 e7e5 b1c3 g8f6",          # English
    "g1f3 d7d5 g2g3 g8f6",          # Réti
    "e2e4 d7d5 e4d5 d8d5",          # Scandinavian
    "d2d4 f7f5 g2g3 g8f6",          # Dutch
)


def process_cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system, all threads) a running process has used so far, from
    Linux's ``/proc/PID/stat``: how much thinking an external engine really got."""
    text = Path(f"/proc/{pid}/stat").read_text(encoding="ascii", errors="replace")
    fields = text.rsplit(")", 1)[1].split()  # after the command name, which may hold spaces
    utime, stime = int(fields[11]), int(fields[12])  # fields 14 and 15 of proc(5)
    return (utime + stime) / os.sysconf("SC_CLK_TCK")


def is_external(spec: str) -> bool:
    """Whether the player ``spec`` is an engine in its own process (a UCI engine)."""
    return spec in EXTERNAL or spec.startswith("uci:")


def search_clock(a: str, b: str) -> Callable[[], float]:
    """The clock our engine's time budget runs on in a match of ``a`` against ``b``.

    Against an external engine, the wall clock: that engine's ``movetime`` is wall time
    and other processes' load takes from it, so ours must run on the same clock to be
    equal (each side thinks while the other waits: load hits both alike).  Otherwise
    process CPU time, so that load does not weaken our side."""
    return time.monotonic if is_external(a) or is_external(b) else time.process_time


class Player:
    name = "player"

    def choose(self, game: Game, pos: Position, moves: list[Move]) -> Move:
        raise NotImplementedError

    def cpu_seconds(self) -> float:
        """CPU seconds used so far by whatever thinks for this player (a player in this
        process: the process' CPU time)."""
        return time.process_time()


class RandomMover(Player):
    name = "random"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, game, pos, moves):
        return self.rng.choice(moves)


class Greedy(Player):
    """One ply: the move after which the evaluation is best for the mover (ties at random).

    In a game of hidden information it plays from its own view, as the engine does: on
    one position drawn from the view (the unseen enemy pieces placed at random), its best
    move there that is legal in the true position (a refused try is followed by the next,
    as at the board). Seeing the whole position would make it a cheat, not a yardstick."""

    name = "greedy"

    def __init__(self, game: Game, seed: int) -> None:
        self.rng = random.Random(seed)
        self.evaluator = Evaluator(game)

    def choose(self, game, pos, moves):
        if game.hidden_information:
            return self._from_view(game, pos, moves)
        scores = self._scores(game, pos, moves)
        best = max(scores)
        return self.rng.choice([m for m, sc in zip(moves, scores, strict=True) if sc == best])

    def _scores(self, game, pos, moves) -> list[int]:
        me = game.ply_mover(pos)
        scores = []
        for m in moves:
            pos.push(m)
            outcome = game.outcome(pos)
            if outcome is not None and me in outcome.winners:
                scores.append(10**9)
            else:
                scores.append(self.evaluator.score(pos, me))
            pos.pop()
        return scores

    def _from_view(self, game, pos, moves):
        from controller.engine.fog import same_try, sample_text
        from controller.rules import RulesError

        view = game.player_view(pos, game.ply_mover(pos))
        for _ in range(20):
            try:
                drawn = game.parse_position(sample_text(view, self.rng))
            except RulesError:
                continue  # not a possible position (the enemy King drawn into check)
            tries = game.legal_moves(drawn)
            scores = self._scores(game, drawn, tries)
            order = sorted(range(len(tries)), key=lambda i: (-scores[i], self.rng.random()))
            for i in order:
                for legal in moves:
                    if same_try(tries[i], legal):
                        return legal
            break
        return self.rng.choice(moves)


class EnginePlayer(Player):
    """Our engine.  ``clock``: what its time budget runs on (``search_clock``); by default
    process CPU time, so that other processes' load does not weaken the search."""

    def __init__(self, game: Game, level: int, seed: int, movetime: float | None = None,
                 clock: Callable[[], float] = time.process_time) -> None:
        self.clock = clock
        self.engine = Engine(game, level=level, seed=seed, clock=clock)
        self.name = f"level {level}"
        self.movetime = movetime
        self.depths: list[int] = []  #: the depth each move's search completed
        self.scores: list[int] = []  #: each move's score (centipawns, the mover's view)

    def choose(self, game, pos, moves):
        if game.hidden_information:  # fog of war: from its own view, as on the board
            from controller.engine.fog import choose_try, earlier_views, sample_limits

            me = game.ply_mover(pos)
            view = game.player_view(pos, me)
            limits = sample_limits(self.engine.level)  # the level's own time, as documented
            return choose_try(game, view, moves, limits, seed=len(pos.moves),
                              clock=self.clock, samples=self.engine.level.samples,
                              memory=earlier_views(game, pos, me))
        result = self.engine.choose(pos, movetime=self.movetime)
        self.depths.append(result.depth)
        self.scores.append(result.score)
        return result.move


class UciPlayer(Player):
    """A UCI engine in its own process, asked through our client at ``movetime`` a move."""

    def __init__(self, name: str, command: list[str], level: int, movetime: float) -> None:
        from controller.engine.external import ExternalPlayer

        self.name = name
        self.level = level
        self.movetime = movetime
        self.external = ExternalPlayer(command, timeout=30.0)

    def choose(self, game, pos, moves):
        start = game.start()
        setup = game.position_text(start)
        record = []
        for move in pos.moves:
            record.append(game.long_move_text(start, move))
            start.push(move)
        return self.external.move(game, setup, record, self.level, self.movetime)

    def cpu_seconds(self) -> float:
        """The engine process' CPU seconds so far (its start-up included; 0 before it
        starts): what it really thought, whatever the machine's load let it have."""
        engine = self.external.engine
        if engine is None:
            return 0.0
        return process_cpu_seconds(engine.process.pid)

    def close(self) -> None:
        self.external.close()


def make_player(spec: str, game: Game, seed: int, movetime: float | None = None,
                clock: Callable[[], float] = time.process_time) -> Player:
    """The player ``spec``; ``clock``: what an engine player's time budget runs on."""
    if spec == "random":
        return RandomMover(seed)
    if spec == "greedy":
        return Greedy(game, seed)
    if spec.startswith("level:"):
        return EnginePlayer(game, int(spec.split(":")[1]), seed, movetime, clock)
    uci_time = movetime or 0.25
    if spec == "sunfish":
        return UciPlayer(spec, [sys.executable, "-m", "sunfish"], 10, uci_time)
    if spec == "stockfish-lowest":  # level 1: UCI_LimitStrength at the lowest UCI_Elo
        return UciPlayer(spec, [STOCKFISH], 1, uci_time)
    if spec.startswith("uci:"):
        return UciPlayer(spec, [spec[4:]], 10, uci_time)
    raise SystemExit(f"unknown player {spec!r} (random, greedy, level:N, sunfish, "
                     "stockfish-lowest, uci:PROGRAM)")


def to_elo(score: float) -> float:
    """The Elo difference a score share means (clamped at ±800)."""
    x = min(max(score, 1e-3), 1 - 1e-3)
    return max(-800.0, min(800.0, -400 * math.log10(1 / x - 1)))


def wilson(wins: int, games: int) -> tuple[float, float]:
    """95 % interval of a win rate (Wilson's score interval: sane at 0 and 100 %)."""
    if games == 0:
        return 0.0, 1.0
    z = 1.96
    p = wins / games
    centre = (p + z * z / (2 * games)) / (1 + z * z / games)
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / (1 + z * z / games)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Score:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def record(self, winners, seat: int) -> None:
        """Count one game for the player in ``seat`` (no ``winners``: a draw)."""
        if not winners:
            self.draws += 1
        elif seat in winners:
            self.wins += 1
        else:
            self.losses += 1

    def elo(self) -> tuple[float, float, float]:
        """Elo difference of A over B with a 95 % interval (clamped at ±800)."""
        n = self.games
        p = (self.wins + self.draws / 2) / n
        sd = math.sqrt(max(p * (1 - p), 0.25 / n) / n)
        return to_elo(p), to_elo(p - 1.96 * sd), to_elo(p + 1.96 * sd)


def play_game(game: Game, seats: list[Player], max_plies: int, rng: random.Random,
              opening: str = "", clock: dict | None = None,
              played: list[str] | None = None) -> tuple:
    """Play one game (after the ``opening`` moves); the winners' seats.  ``clock``
    collects per player (by ``id``): wall seconds, moves, CPU seconds; ``played`` the
    moves after the opening in the game's long notation."""
    pos = game.start()
    for text in opening.split():
        pos.push(game.parse_move(pos, text))
    for _ in range(max_plies):
        moves = game.legal_moves(pos)
        if not moves:
            break
        if moves[0].kind == "roll":
            move = rng.choice(moves)
        else:
            player = seats[game.ply_mover(pos)]
            cpu = player.cpu_seconds() if clock is not None else 0.0
            started = time.monotonic()
            move = player.choose(game, pos, moves)
            if clock is not None:
                spent = clock.setdefault(id(player), [0.0, 0, 0.0])
                spent[0] += time.monotonic() - started
                spent[1] += 1
                spent[2] += player.cpu_seconds() - cpu
            assert move in moves, "illegal move"
        if played is not None:
            played.append(game.long_move_text(pos, move))
        pos.push(move)
        if game.outcome(pos) is not None:
            break
    outcome = game.outcome(pos)
    return outcome.winners if outcome is not None else ()


def match(game_name: str, options: dict, a: str, b: str, games: int, max_plies: int,
          seed: int = 0, movetime: float | None = None, openings: tuple[str, ...] = (),
          times: dict | None = None, games_log: Path | None = None) -> Score:
    """``games`` games of ``a`` against ``b``, seats swapped every game (each opening
    played from both sides); our engine's time runs on ``search_clock(a, b)``.  ``times``
    gets per side (``"a"``, ``"b"``) its wall seconds, moves and CPU seconds in total, and
    ``"depths"`` the depths our engine's searches completed.  ``games_log`` gets one JSON
    line per game (its moves, each side's time, our depths and scores): what a lost game
    cost."""
    game = get_game(game_name, **options)
    score = Score()
    rng = random.Random(seed)
    clock = search_clock(a, b)
    spent = {"a": [0.0, 0, 0.0], "b": [0.0, 0, 0.0]}
    depths: list[int] = []
    for i in range(games):
        pa = make_player(a, game, seed + 2 * i, movetime, clock)
        pb = make_player(b, game, seed + 2 * i + 1, movetime, clock)
        seat_a = i % game.players
        seats = [pb] * game.players
        seats[seat_a] = pa
        used: dict = {}
        played: list[str] = []
        opening = openings[(i // 2) % len(openings)] if openings else ""
        try:
            winners = play_game(game, seats, max_plies, rng, opening, used, played)
        finally:
            for p in (pa, pb):
                if isinstance(p, UciPlayer):
                    p.close()
        for side, p in (("a", pa), ("b", pb)):
            got = used.get(id(p), [0.0, 0, 0.0])
            for k in range(3):
                spent[side][k] += got[k]
            if isinstance(p, EnginePlayer):
                depths += p.depths
        score.record(winners, seat_a)
        result = "draw" if not winners else ("A" if seat_a in winners else "B")
        print(f"  game {i + 1}: {result} (A {'White' if seat_a == 0 else 'Black'}, "
              f"{len(played)} moves)", file=sys.stderr, flush=True)
        if games_log is not None:
            entry = {"a": a, "b": b, "seed": seed, "game": i + 1, "opening": opening,
                     "a_seat": seat_a, "result": result, "moves": played}
            for side, p in (("A", pa), ("B", pb)):  # as in "result"
                wall, moves, cpu = used.get(id(p), [0.0, 0, 0.0])
                entry[side] = {"moves": moves, "wall": round(wall, 3), "cpu": round(cpu, 3)}
                if isinstance(p, EnginePlayer):
                    entry[side].update(depths=p.depths, scores=p.scores)
            with games_log.open("a", encoding="utf-8") as out:
                out.write(json.dumps(entry) + "\n")
    if times is not None:
        times.update(spent)
        times["depths"] = depths
    return score


def report(game_name: str, options: dict, a: str, b: str, score: Score, seconds: float) -> str:
    elo, low, high = score.elo()
    opts = "".join(f" {k}={v}" for k, v in options.items())
    return (f"| {game_name}{opts} | {a} | {b} | {score.games} | {score.wins} | {score.draws} "
            f"| {score.losses} | {(score.wins + score.draws / 2) / score.games:.2f} "
            f"| {elo:+.0f} [{low:+.0f}, {high:+.0f}] | {seconds:.0f} |")


HEADER = ("| game | A | B | games | A wins | draws | B wins | A score | Elo A−B [95 %] | s |\n"
          "|---|---|---|---|---|---|---|---|---|---|")


CHESS_HEADER = ("| A | B | games | A wins | draws | B wins | A score [95 %] | Elo A−B [95 %] "
                "| goal | met | wall s/move A / B | CPU s/move A / B | A's depth (median) "
                "| load | runs | minutes |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")


def code_version(root: Path = ROOT) -> str:
    """The engine and rules code a match ran: a digest of the sources under
    ``controller/`` (its Python and TOML files), so that only runs of the same code are
    pooled — whether committed or not, and from a copy of the tree too."""
    digest = hashlib.sha1()
    base = root / "controller"
    for path in sorted(base.rglob("*")):
        if path.suffix in (".py", ".toml") and "__pycache__" not in path.parts:
            digest.update(path.relative_to(base).as_posix().encode() + b"\0")
            digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:12]


def chess_record(b: str, score: Score, times: dict, movetime: float, max_plies: int,
                 seed: int, load: tuple[float, float], seconds: float, code: str) -> dict:
    """One chess match as a JSON-able record (what ``--records`` keeps)."""
    depths: dict[str, int] = {}
    for d in times["depths"]:
        depths[str(d)] = depths.get(str(d), 0) + 1
    return {"a": "level:10", "against": b, "rule": CHESS_RULE, "code": code,
            "movetime": movetime, "max_plies": max_plies, "seed": seed,
            "wins": score.wins, "draws": score.draws, "losses": score.losses,
            "wall_a": round(times["a"][0], 2), "moves_a": times["a"][1],
            "cpu_a": round(times["a"][2], 2), "wall_b": round(times["b"][0], 2),
            "moves_b": times["b"][1], "cpu_b": round(times["b"][2], 2), "depths": depths,
            "load": [round(x, 2) for x in load],
            "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "seconds": round(seconds, 1)}


def pooled(records: list[dict], code: str, movetime: float, max_plies: int) -> dict[str, dict]:
    """The records of this code, timing rule, time per move and ply cap, added up per
    opponent (records of anything else are history, never pooled)."""
    pools: dict[str, dict] = {}
    for r in records:
        if (r["rule"], r["code"], r["movetime"], r["max_plies"]) != (
                CHESS_RULE, code, movetime, max_plies):
            continue
        pool = pools.setdefault(r["against"], {"runs": 0, "depths": {}, "load": [],
                                               "seconds": 0.0})
        pool["runs"] += 1
        for key in ("wins", "draws", "losses", "wall_a", "moves_a", "cpu_a", "wall_b",
                    "moves_b", "cpu_b", "seconds"):
            pool[key] = pool.get(key, 0) + r[key]
        for d, n in r["depths"].items():
            pool["depths"][d] = pool["depths"].get(d, 0) + n
        pool["load"] += r["load"]
    return pools


def table_code(records: list[dict], code: str, movetime: float, max_plies: int) -> str:
    """The code whose runs the table shows: ``code`` (the current one) when it has runs of
    this timing rule, time per move and ply cap, else the code of the newest such run —
    so that rewriting the docs after an engine change keeps the figures measured so far
    (labelled with their code) instead of an empty table."""
    same = [r for r in records
            if (r["rule"], r["movetime"], r["max_plies"]) == (CHESS_RULE, movetime, max_plies)]
    if not same or any(r["code"] == code for r in same):
        return code
    return max(same, key=lambda r: r.get("finished", ""))["code"]


def verdict(score: float, low: float, high: float, goal: float) -> str:
    """Whether a goal is met with confidence (the 95 % interval above it), on average
    only, or missed."""
    if low > goal:
        return "yes, with confidence"
    if score >= goal:
        return "on average only"
    if high < goal:
        return "no, with confidence"
    return "no, on average"


def median_depth(depths: dict[str, int]) -> int:
    total, seen = sum(depths.values()), 0
    for d in sorted(depths, key=int):
        seen += depths[d]
        if 2 * seen >= total:
            return int(d)
    return 0


def chess_row(b: str, pool: dict) -> str:
    """One table row for a pool of level 10's games against ``b``: the score with
    Wilson's 95 % interval (the score's binomial spread: draws make it narrower, so this
    errs wide) and the Elo difference it means."""
    n = pool["wins"] + pool["draws"] + pool["losses"]
    points = pool["wins"] + pool["draws"] / 2
    share = points / n
    low, high = wilson(points, n)
    goal = CHESS_GOALS.get(b)
    met = verdict(share, low, high, goal) if goal is not None else "–"
    goal_text = f"≥ {100 * goal:.0f} %" if goal is not None else "–"
    wall_a = pool["wall_a"] / max(pool["moves_a"], 1)
    wall_b = pool["wall_b"] / max(pool["moves_b"], 1)
    cpu_a = pool["cpu_a"] / max(pool["moves_a"], 1)
    cpu_b = pool["cpu_b"] / max(pool["moves_b"], 1)
    return (f"| level:10 | {b} | {n} | {pool['wins']} | {pool['draws']} | {pool['losses']} "
            f"| {share:.3f} [{low:.3f}, {high:.3f}] "
            f"| {to_elo(share):+.0f} [{to_elo(low):+.0f}, {to_elo(high):+.0f}] "
            f"| {goal_text} | {met} | {wall_a:.3f} / {wall_b:.3f} | {cpu_a:.3f} / {cpu_b:.3f} "
            f"| {median_depth(pool['depths'])} "
            f"| {min(pool['load']):.1f}–{max(pool['load']):.1f} | {pool['runs']} "
            f"| {pool['seconds'] / 60:.0f} |")


def chess_table(records: list[dict], code: str, movetime: float, max_plies: int) -> str:
    pools = pooled(records, code, movetime, max_plies)
    order = [b for b in CHESS_GOALS if b in pools] + sorted(set(pools) - set(CHESS_GOALS))
    return "\n".join([CHESS_HEADER] + [chess_row(b, pools[b]) for b in order])


def write_docs(marker: str, text: str) -> None:
    """Replace what stands between ``<!-- marker -->`` and ``<!-- /marker -->``."""
    docs = DOCS.read_text(encoding="utf-8")
    begin, end = f"<!-- {marker} -->", f"<!-- /{marker} -->"
    if begin not in docs or end not in docs:
        raise SystemExit(f"{DOCS.name} has no {begin} … {end} section")
    head, rest = docs.split(begin, 1)
    tail = rest.split(end, 1)[1]
    DOCS.write_text(f"{head}{begin}\n{text.strip()}\n{end}{tail}", encoding="utf-8")


def chess_matches(games: int, movetime: float, max_plies: int, seed: int,
                  opponents: list[str], write: bool, records: Path = CHESS_RECORDS,
                  games_log: Path | None = None) -> None:
    """Level 10 against each opponent; each match appended to ``records`` as it ends,
    and the pooled table of this code's records printed (and written to the docs).
    ``games`` 0: no match, the table only."""
    code = code_version()  # read before the games: the code they run
    for b in opponents if games > 0 else []:
        started = time.monotonic()
        load_start = os.getloadavg()[0]
        times: dict = {}
        score = match("chess", {}, "level:10", b, games, max_plies, seed, movetime,
                      OPENINGS, times, games_log)
        record = chess_record(b, score, times, movetime, max_plies, seed,
                              (load_start, os.getloadavg()[0]), time.monotonic() - started,
                              code)
        records.parent.mkdir(parents=True, exist_ok=True)
        with records.open("a", encoding="utf-8") as out:
            out.write(json.dumps(record) + "\n")
        print(json.dumps(record), flush=True)
    kept = [json.loads(line) for line in records.read_text(encoding="utf-8").splitlines()
            if line.strip()]
    shown = table_code(kept, code, movetime, max_plies)
    text = chess_table(kept, shown, movetime, max_plies)
    print(text, flush=True)
    if write:
        which = (f"code `{code}`" if shown == code else
                 f"code `{shown}`, measured before the code changed: no run yet of the "
                 f"current code `{code}`")
        note = (f"{time.strftime('%Y-%m-%d')}: `python -m benchmarks.spar --chess "
                f"--movetime {movetime:g}` in runs of different `--seed`, pooled from "
                f"`benchmarks/results/chess.jsonl` ({which}; `spar.code_version`, a "
                f"digest of `controller/`). {movetime:g} s per move of wall time for both "
                "sides (our level 10 limited to that time on the wall clock, the opponent told "
                "`movetime`); CPU seconds per move as each side's process used them. "
                "Openings from `OPENINGS` with both colours, a draw after "
                f"{max_plies} plies. Score with Wilson's 95 % interval; \"met\" with "
                "confidence when the whole interval is above the goal.")
        write_docs("spar:chess", note + "\n\n" + text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="gnuqi")
    parser.add_argument("--players", type=int)
    parser.add_argument("--dice", action="store_true")
    parser.add_argument("--a", default="level:6")
    parser.add_argument("--b", default="random")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ladder", action="store_true",
                        help="levels 1-2, 2-3, … 5-6 instead of --a/--b")
    parser.add_argument("--movetime", type=float,
                        help="seconds per move for every engine player (equal time)")
    parser.add_argument("--chess", action="store_true",
                        help="chess: level 10 against sunfish and stockfish-lowest")
    parser.add_argument("--against", nargs="+", default=["sunfish", "stockfish-lowest"],
                        help="with --chess: the opponents")
    parser.add_argument("--write-docs", action="store_true",
                        help="with --chess: put the table in docs/engine.md")
    parser.add_argument("--records", type=Path, default=CHESS_RECORDS,
                        help="with --chess: the JSON lines file each match is appended to")
    parser.add_argument("--games-log", type=Path,
                        help="with --chess: a JSON lines file each game is appended to")
    args = parser.parse_args(argv)
    if args.chess:
        chess_matches(args.games, args.movetime or 0.25, args.max_plies, args.seed,
                      args.against, args.write_docs, args.records,
                      args.games_log)
        return 0
    options: dict = {}
    if args.players:
        options["players"] = args.players
    if args.dice:
        options["dice"] = True
    pairs = ([(f"level:{k + 1}", f"level:{k}") for k in range(1, 6)] if args.ladder
             else [(args.a, args.b)])
    print(HEADER)
    for a, b in pairs:
        started = time.monotonic()
        score = match(args.game, options, a, b, args.games, args.max_plies, args.seed,
                      args.movetime)
        print(report(args.game, options, a, b, score, time.monotonic() - started), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
