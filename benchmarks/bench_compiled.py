"""The compiled build against pure Python: engine nodes per second in every game, perft,
and Lùotuoqí's listing against python-chess, from the same ``.py`` files.

The checkout's package is copied to a temporary directory and compiled there by
``setup.py build_ext --inplace`` with ``FAIRYBOARD_COMPILE=1`` (the install's own code
path; Cython must be importable).  Two worker processes then run side by side, one
importing the pure checkout and one the compiled copy, and are asked for the same work in
turn, round after round (interleaved: a change of the machine's load falls on both).
Every figure is **process CPU time** measured inside the worker; each ratio is
*compiled speed ÷ pure speed*, median (min–max) over the rounds.  The searches go to a
fixed depth, so both builds must search exactly as many nodes and choose the same moves
(checked: a difference is a bug of the compiled build, and the run stops on it).

    python -m benchmarks.bench_compiled [--quick] [--doc docs/performance.md] [--keep DIR]
        [--interpreter CMD]

``--interpreter`` runs both workers with another Python (a command line, e.g. QEMU's
arm64 CPython: ``benchmarks/pi_emulated.sh --compiled``), on a ``--keep`` build made
for it (``benchmarks/build_aarch64.py``).

``--doc`` writes the figures between the ``<!-- run_all: compiled -->`` markers of that
page (``benchmarks.run_all`` does not run this benchmark: building takes minutes).
Cython and a C compiler are needed (``pip install cython``); python-chess for the
Lùotuoqí comparison (benchmark-only, GPL; the product never imports it).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the engine benchmark's games (``bench_engine``'s speed table)
GAMES = ("luotuoqi", "laotzu", "gnuqi", "kaleidochess", "lotus39", "lotus39-modern", "chess")
#: the fixed search depth: deep enough that the search, not the set-up, is measured
DEPTH = 3
#: perft from the start per game: about a second of pure Python each
PERFT = {"luotuoqi": 3, "laotzu": 3, "gnuqi": 3, "kaleidochess": 2, "lotus39": 3,
         "lotus39-modern": 3, "chess": 4}
#: what a copy of the checkout needs for ``setup.py build_ext``
TREE = ("controller", "boards", "docs/rules", "setup.py", "pyproject.toml", "README.md",
        "MANIFEST.in")


def copy_tree(dest: Path) -> None:
    """The files ``setup.py`` builds from, without caches or earlier build products."""
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.c", "*.pyd", "build")
    for name in TREE:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, dest / name, ignore=ignore)
        else:
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, dest / name)


def build(dest: Path, modules: str = "1", jobs: int = 2, cflags: str = "") -> float:
    """Copy the checkout to ``dest`` and compile ``modules`` (``FAIRYBOARD_COMPILE``'s
    value) in place; the seconds the build took.  Fails unless every module compiled."""
    copy_tree(dest)
    env = dict(os.environ, FAIRYBOARD_COMPILE=modules)
    if cflags:
        env["CFLAGS"] = cflags
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace",
                           "-j", str(jobs)], cwd=dest, env=env, capture_output=True,
                          text=True, check=False)
    spent = time.perf_counter() - t0
    problems = [line for line in done.stderr.splitlines() if line.startswith("fairyboard:")]
    if done.returncode or problems:
        raise SystemExit(f"the compiled build failed: {' '.join(problems) or done.stderr[-500:]}")
    return spent


# --- the worker: one process per build, asked for work on stdin, one JSON line back ----

def _positions(name: str, count: int) -> tuple:
    from benchmarks.bench_engine import positions
    from controller.rules import get_game

    game = get_game(name)
    return game, positions(game, count, 1)


def _search(name: str, count: int) -> dict:
    from controller.engine import Limits, Search

    game, found = _positions(name, count)
    nodes, cpu, moves = 0, 0.0, []
    for pos in found:
        search = Search(game, clock=time.process_time)
        t0 = time.process_time()
        result = search.best_move(pos, Limits(depth=DEPTH))
        cpu += time.process_time() - t0
        nodes += result.nodes
        moves.append(game.move_text(pos, result.move))
    return {"nodes": nodes, "cpu": cpu, "moves": moves}


def _perft(name: str) -> dict:
    from controller.rules import get_game

    game = get_game(name)
    t0 = time.process_time()
    leaves = game.perft(game.start(), PERFT[name])
    return {"leaves": leaves, "cpu": time.process_time() - t0}


def _listing(quick: bool) -> dict:
    from benchmarks import bench_luotuoqi

    n, rounds, repeat = (60, 3, 2) if quick else (180, 5, 5)
    rows = bench_luotuoqi.listing(n, rounds, repeat)["rows"]
    return {row["title"]: {"ratios": row["ratios"], "moves": row["moves"],
                           "ours_us": row["ours_us"], "theirs_us": row["theirs_us"]}
            for row in rows}


def worker() -> None:
    """Answer one request per stdin line (``search GAME COUNT``, ``perft GAME``,
    ``listing QUICK``, ``where``) with one JSON line."""
    for line in sys.stdin:
        what, *args = line.split()
        if what == "platform":
            answer = f"{platform.machine()} CPython {platform.python_version()}"
        elif what == "where":
            import controller.engine.search as search
            import controller.rules.luotuoqi as luotuoqi

            answer: object = [luotuoqi.__file__, search.__file__]
        elif what == "search":
            answer = _search(args[0], int(args[1]))
        elif what == "perft":
            answer = _perft(args[0])
        else:
            answer = _listing(args[0] == "1")
        print(json.dumps(answer), flush=True)


class Worker:
    """A worker process of ``interpreter`` (a command; this Python by default) importing
    the package from ``path`` first (then the checkout, then the caller's PYTHONPATH)."""

    def __init__(self, path: Path, interpreter: list[str] | None = None) -> None:
        paths = [str(path), str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
        self.process = subprocess.Popen(
            [*(interpreter or [sys.executable]), "-m", "benchmarks.bench_compiled",
             "--worker"], cwd=path,
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def ask(self, request: str):
        assert self.process.stdin and self.process.stdout
        self.process.stdin.write(request + "\n")
        self.process.stdin.flush()
        answer = self.process.stdout.readline()
        if not answer:
            raise SystemExit(f"a worker died on {request!r}")
        return json.loads(answer)

    def close(self) -> None:
        assert self.process.stdin
        self.process.stdin.close()
        self.process.wait()


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def measure(tree: Path, rounds: int, count: int, quick: bool, say=print,
            interpreter: list[str] | None = None) -> dict:
    """Interleaved rounds, pure then compiled for each game; checks equal answers."""
    pure, compiled = Worker(ROOT, interpreter), Worker(tree, interpreter)
    try:
        where = compiled.ask("where")
        runs_on = compiled.ask("platform")
        say(f"compiled worker ({runs_on}) imported {', '.join(where)}")
        if not all(path.endswith((".so", ".pyd")) for path in where):
            raise SystemExit(f"the compiled worker imported pure modules: {where}")
        if any(path.endswith((".so", ".pyd")) for path in pure.ask("where")):
            raise SystemExit("the pure worker imported compiled modules")
        search = {name: {"pure": [], "compiled": [], "nodes": 0} for name in GAMES}
        perft = {name: {"pure": [], "compiled": [], "leaves": 0} for name in GAMES}
        for r in range(rounds):
            for name in GAMES:
                answers = {}
                for label, proc in (("pure", pure), ("compiled", compiled)):
                    answers[label] = proc.ask(f"search {name} {count}")
                    search[name][label].append(answers[label]["nodes"] / answers[label]["cpu"])
                a, b = answers["pure"], answers["compiled"]
                if (a["nodes"], a["moves"]) != (b["nodes"], b["moves"]):
                    raise SystemExit(f"{name}: the compiled search differs: {a['nodes']} nodes "
                                     f"{a['moves']} pure, {b['nodes']} {b['moves']} compiled")
                search[name]["nodes"] = a["nodes"]
                leaves = {}
                for label, proc in (("pure", pure), ("compiled", compiled)):
                    answer = proc.ask(f"perft {name}")
                    perft[name][label].append(answer["leaves"] / answer["cpu"])
                    leaves[label] = answer["leaves"]
                if leaves["pure"] != leaves["compiled"]:
                    raise SystemExit(f"{name}: perft differs: {leaves}")
                perft[name]["leaves"] = leaves["pure"]
            say(f"round {r + 1} of {rounds} done")
        listing = {"pure": pure.ask(f"listing {int(quick)}"),
                   "compiled": compiled.ask(f"listing {int(quick)}")}
    finally:
        pure.close()
        compiled.close()
    return {"search": search, "perft": perft, "listing": listing, "rounds": rounds,
            "count": count, "interpreter": interpreter, "runs_on": runs_on}


def table(result: dict, built: float) -> str:
    rounds = result["rounds"]
    emulated = result.get("interpreter")
    where = (f"workers run by `{shlex.join(emulated)}` ({result['runs_on']}), on "
             if emulated else "")
    lines = [
        f"`python -m benchmarks.bench_compiled{' --quick' if rounds < 5 else ''}`: {where}"
        f"{platform.processor() or platform.machine()} ({os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f} at the end), CPython {platform.python_version()}; "
        f"{f'the build took {built:.0f} s' if built else 'an earlier build reused'}. "
        f"{rounds} interleaved rounds; ratio = compiled ÷ pure "
        "speed, median (min–max) over the rounds; identical node counts, moves and perft "
        "counts in both builds.",
        "",
        f"| game | search nodes (depth {DEPTH}, {result['count']} positions) | pure nodes/s "
        "| compiled nodes/s | **search ratio** | perft | pure leaves/s | compiled leaves/s "
        "| perft ratio |",
        "|---|---:|---:|---:|---|---|---:|---:|---|",
    ]
    for name in GAMES:
        s, p = result["search"][name], result["perft"][name]
        ratios = [c / q for q, c in zip(s["pure"], s["compiled"], strict=True)]
        pratios = [c / q for q, c in zip(p["pure"], p["compiled"], strict=True)]
        lines.append(
            f"| {name} | {s['nodes']:,} | {statistics.median(s['pure']):,.0f} "
            f"| {statistics.median(s['compiled']):,.0f} | **{spread(ratios)}** "
            f"| perft({PERFT[name]}) = {p['leaves']:,} | {statistics.median(p['pure']):,.0f} "
            f"| {statistics.median(p['compiled']):,.0f} | {spread(pratios)} |")
    lines += ["", "Lùotuoqí's legal-move listing against python-chess (`bench_luotuoqi`'s "
              "positions, interleaved with python-chess inside each worker; ratio = "
              "python-chess time per position ÷ ours):", "",
              "| kind of position | moves | pure µs | pure ratio | compiled µs "
              "| **compiled ratio** |", "|---|---:|---:|---|---:|---|"]
    pure, compiled = result["listing"]["pure"], result["listing"]["compiled"]
    for title, row in compiled.items():
        lines.append(f"| {title} | {row['moves']:.1f} | {pure[title]['ours_us']:.1f} "
                     f"| {spread(pure[title]['ratios'])} | {row['ours_us']:.1f} "
                     f"| **{spread(row['ratios'])}** |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="fewer rounds and positions")
    parser.add_argument("--doc", type=Path, help="write the figures into this page")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="build in DIR and keep it (an existing build there is reused)")
    parser.add_argument("--jobs", type=int, default=2, help="modules compiled at once")
    parser.add_argument("--interpreter", metavar="CMD", type=shlex.split,
                        help="the workers' Python, a command line (needs a --keep build)")
    args = parser.parse_args(argv)
    if args.worker:
        worker()
        return 0
    try:
        import Cython  # noqa: F401
    except ImportError:
        print("bench_compiled needs Cython (pip install cython)", file=sys.stderr)
        return 2
    tree = args.keep or Path(tempfile.mkdtemp(prefix="fairyboard-compiled-"))
    try:
        if args.interpreter and not (args.keep and any(tree.glob("controller/rules/*.so"))):
            print("--interpreter needs a --keep directory built for it "
                  "(benchmarks/build_aarch64.py)", file=sys.stderr)
            return 2
        if args.keep and any(tree.glob("controller/rules/luotuoqi.*.so")):
            built = 0.0  # (not timed here)
            print(f"reusing the build in {tree}", flush=True)
        else:
            print(f"building in {tree} …", flush=True)
            built = build(tree, jobs=args.jobs)
            print(f"built in {built:.0f} s", flush=True)
        rounds, count = (3, 3) if args.quick else (5, 6)
        text = table(measure(tree, rounds, count, args.quick,
                             say=lambda s: print(s, flush=True),
                             interpreter=args.interpreter), built)
    finally:
        if not args.keep:
            shutil.rmtree(tree, ignore_errors=True)
    print(text)
    if args.doc:
        from benchmarks.benchtools import write_section

        write_section(args.doc, "run_all: compiled", text)
        print(f"wrote {args.doc}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
