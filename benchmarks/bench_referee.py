"""The referee's cost per move and at start-up against its history (issue: it rewrote
and fsynced the journal of every game it ever refereed on every move, 1.55 → 2.41 ms of
CPU a move from 1 to 200 games and ~11.5 ms more start-up a game).

For each history size N the referee (controller/link/referee.py, pure, with its real
journal on disk) first referees N games: all but a handful finished (Fool's mate, so
archived), or — the worst case — all N left unfinished.  Then it referees 200 moves of
live chess games and is started again from its journal.  CPU (process time) and wall
time (with the fsync) per move, start-up wall time, files read.

    python -m benchmarks.bench_referee [--games 1 200 2000] [--no-write]

The table goes into docs/performance.md between ``<!-- bench_referee -->`` and
``<!-- /bench_referee -->`` (generated, never written by hand).
"""

from __future__ import annotations

import argparse
import datetime
import random
import tempfile
import time
from pathlib import Path

from benchmarks.benchtools import write_section
from controller.link.messages import Attempt, Start
from controller.link.referee import Referee, RefereeJournal
from controller.rules import get_game

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
SEATS = ("alpha", "beta")
LIVE = 5  # unfinished games in a mostly finished history
MOVES = 200


def _fools_mate() -> list[str]:
    game = get_game("chess")
    pos, out = game.start(), []
    for text in ("f3", "e5", "g4", "Qh4#"):
        move = next(m for m in game.legal_moves(pos) if game.move_text(pos, m) == text)
        out.append(game.long_move_text(pos, move))
        pos.push(move)
    return out


def _attempt(referee: Referee, game_id: str, text: str) -> None:
    g = referee.games[game_id]
    seat = g.game.ply_mover(g.pos)
    referee.attempt(SEATS[seat], Attempt(game_id, len(g.moves) + 1, seat, text))


def measure(n: int, finished: bool, rng: random.Random) -> dict[str, float]:
    mate = _fools_mate()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "referee.json"
        referee = Referee("bench", RefereeJournal(path))
        for i in range(n):
            game_id = f"h-{i}"
            referee.start(Start(game_id, "chess", {}, "", SEATS))
            if finished and i >= LIVE:
                for text in mate:
                    _attempt(referee, game_id, text)
            else:
                _attempt(referee, game_id, mate[0])
        live, cpu, wall, made = 0, 0.0, 0.0, 0
        game_id = None
        while made < MOVES:
            if game_id is None:
                live += 1
                game_id = f"live-{live}"
                referee.start(Start(game_id, "chess", {}, "", SEATS))
            g = referee.games[game_id]
            moves = g.game.legal_moves(g.pos)
            text = g.game.long_move_text(g.pos, rng.choice(moves))
            c0, w0 = time.process_time(), time.perf_counter()
            _attempt(referee, game_id, text)
            cpu += time.process_time() - c0
            wall += time.perf_counter() - w0
            made += 1
            if g.game.outcome(g.pos) is not None or len(g.moves) > 120:
                game_id = None
        w0 = time.perf_counter()
        again = Referee("bench", RefereeJournal(path))
        startup = time.perf_counter() - w0
        return {"cpu_ms": 1000 * cpu / made, "wall_ms": 1000 * wall / made,
                "startup_ms": 1000 * startup, "read": len(again.games)}


def write(text: str) -> None:
    write_section(DOC, "bench_referee", text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, nargs="+", default=[1, 200, 2000])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    rows = []
    for finished in (True, False):
        for n in args.games:
            r = measure(n, finished, random.Random(args.seed))
            history = (f"{n:,} ({min(n, LIVE)} unfinished)" if finished
                       else f"{n:,} (all unfinished)")
            rows.append(f"| {history} | {r['cpu_ms']:.2f} | {r['wall_ms']:.2f} | "
                        f"{r['startup_ms']:.0f} | {r['read']:,} |")
            print(rows[-1], flush=True)
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    text = "\n".join([
        f"Generated {now} by `python -m benchmarks.bench_referee --games "
        f"{' '.join(map(str, args.games))}` ({MOVES} chess moves refereed after the history).",
        "", "| games refereed before | CPU per move (ms) | wall per move, with fsync (ms) "
        "| start-up (ms) | games read at start-up |",
        "|---|---:|---:|---:|---:|", *rows])
    if not args.no_write:
        write(text)
    print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
