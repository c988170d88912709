"""Run every benchmark and write the tables of ``docs/performance.md``.

Run from the repository root: ``python -m benchmarks.run_all [--quick] [--no-write]``.

The rules benchmarks time our legal-move listing and perft against python-chess in the
same process, interleaved position by position, on process CPU time, and give each ratio
as median (min–max) over the rounds.  The board benchmarks replay every game's sensor
pictures through the reconciler and the state machine.  The other benchmark scripts run as
child processes; their output is kept verbatim.  Every generated part of the document lies
between ``<!-- run_all: NAME -->`` and ``<!-- /run_all: NAME -->``; nothing outside the
markers is touched, and no figure inside them is written by hand.

The reliability sweeps (``soak``, ``killpoints``, ``powercut``) and the engine's self-play
(``spar``, ``engine_tactics``) are not part of it: they are runs of minutes to hours whose
results are recorded in ``docs/reliability.md`` and ``docs/engine.md``.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import re
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from benchmarks import bench_board, bench_luotuoqi, bench_reconcile, bench_rules
from benchmarks.benchtools import spread

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "performance.md"
#: benchmark scripts run as child processes: (module, arguments, quick arguments)
SCRIPTS: list[tuple[str, list[str], list[str]]] = [
    ("bench_chess", [], []),
    ("bench_laotzu", [], []),
    ("bench_gnuqi", [], ["--quick"]),
    ("bench_kaleidochess", [], []),
    ("bench_lotus39", [], []),
    ("bench_engine", [], ["--quick"]),
    ("bench_sensing", [], []),
    ("bench_leds", [], []),
    ("bench_service", [], []),
    ("bench_idle", ["--seconds", "20"], ["--seconds", "5"]),
    ("bench_memory", ["--moves", "2000", "--warm-up", "500", "--every", "500"],
     ["--moves", "400", "--warm-up", "100", "--every", "100"]),
    ("bench_link", ["--boards", "10", "50", "200", "--seconds", "20", "--also-one-process"],
     ["--boards", "10", "50", "--seconds", "5"]),
]


def environment() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    import chess

    return (f"Generated {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC on "
            f"{cpu} ({os.cpu_count()} cores, {platform.machine()}, load average "
            f"{load:.1f} at the start), CPython {platform.python_version()}, python-chess "
            f"{chess.__version__}.")


def rules_table(result: dict) -> str:
    lines = ["| game | moves per position (python-chess) | ours µs | python-chess µs | "
             "ratio per position | ratio per listed move | slowest position |",
             "|---|---|---|---|---|---|---|"]
    for label, r in result.items():
        li = r["listing"]
        lines.append(f"| {label} | {li['moves']:.1f} ({li['their_moves']:.1f}) | "
                     f"{li['ours_us']:.1f} | {li['theirs_us']:.1f} | "
                     f"**{spread(li['ratios'])}** | {spread(li['per_move'])} | "
                     f"{li['worst_us']:.0f} µs |")
    lines += ["", "| game | perft from the start | leaves/s | python-chess leaves/s "
              "(perft from the chess start) | ratio |", "|---|---|---|---|---|"]
    for label, r in result.items():
        p = r["perft"]
        lines.append(f"| {label} | perft({p['depth']}) = {p['nodes']:,} | {p['rate']:,.0f} | "
                     f"{p['their_rate']:,.0f} (perft({p['their_depth']})) | "
                     f"**{spread(p['ratios'])}** |")
    return "\n".join(lines)


def luotuoqi_table(result: dict) -> str:
    li = result["listing"]
    lines = ["| kind of position | positions | moves | ours µs | python-chess µs "
             "(positions) | ratio per position | ratio per listed move |",
             "|---|---|---|---|---|---|---|"]
    for row in li["rows"]:
        lines.append(f"| {row['title']} | {row['positions']} | {row['moves']:.1f} | "
                     f"{row['ours_us']:.1f} | {row['theirs_us']:.1f} "
                     f"({row['their_positions']}, {row['their_moves']:.1f} moves) | "
                     f"**{spread(row['ratios'])}** | {spread(row['per_move'])} |")
    p, g = result["perft"], result["games"]
    lines += ["", f"Slowest position: **{li['worst_us']:.0f} µs** ({li['worst_moves']} moves, "
              f"`{li['worst_text']}`). Every position of {g['games']} seeded random games "
              f"listed once, in the order of play (nothing repeated): "
              f"{g['ours_us']:.1f} µs per listing ({g['positions']} positions), python-chess "
              f"{g['theirs_us']:.1f} µs ({g['their_positions']} positions of random chess "
              f"games): ratio **{g['ratio']:.2f}**. perft({p['ours_depth']}) from the start = "
              f"{p['ours_nodes']:,} leaves at {p['ours_rate']:,.0f}/s; python-chess "
              f"perft({p['their_depth']}) at {p['their_rate']:,.0f}/s: ratio "
              f"**{spread(p['ratios'])}**."]
    return "\n".join(lines)


def latency_cells(r: dict) -> str:
    return f"{r['p50']:.3f} / {r['p99']:.3f} / {r['max']:.3f}" if r.get("n") else "–"


def rounds_cell(p99s: list[float]) -> str:
    """Each feed round's own p99 (the spread of the figure), ms."""
    return f"{min(p99s):.3f}–{max(p99s):.3f}"


def reconcile_table(result: dict) -> str:
    lines = ["| measure | n | p50 / p99 / max ms |", "|---|---|---|"]
    for key, name in bench_reconcile.ROWS:
        r = result[key]
        extra = (f" (p99 of each round: {rounds_cell(result['feed_rounds_p99'])})"
                 if key == "feed" else "")
        lines.append(f"| {name} | {r['n']} | {latency_cells(r)}{extra} |")
    lo, hi = result["moves"]
    lines += ["", f"{result['positions']} busy Lùotuoqí positions, {lo}–{hi} legal moves."]
    return "\n".join(lines)


def board_table(results: list[dict]) -> str:
    lines = ["| game (layout) | positions, moves avg | index build | decide | Board.feed "
             "(no commit) | commit + next index | legal moves / moves to try / view |",
             "|---|---|---|---|---|---|---|"]
    for r in results:
        view = f" / {r['view_ms']:.3f}" if r["view_ms"] is not None else ""
        lines.append(f"| {r['game']} ({r['layout']}) | {r['positions']}, {r['moves']:.0f} | "
                     f"{latency_cells(r['build'])} | {latency_cells(r['decide'])} | "
                     f"{latency_cells(r['feed'])} | {latency_cells(r['commit'])} | "
                     f"{r['legal_ms']:.3f} / {r['tries_ms']:.3f}{view} |")
    lines.append("")
    lines.append("Times in ms as p50 / p99 / max, process CPU time. Board.feed: per frame "
                 "the median of three rounds; the p99 of each round in the table below.")
    lines += ["", "| game and player count | Board.feed (no commit) | p99 of each round | "
              "sensor frame → LED frame, polls | p99 of each play | service poll that "
              "commits a move |", "|---|---|---|---|---|---|"]
    for r in results:
        for label, p in r["plays"].items():
            lines.append(f"| {label} | {latency_cells(p['feed'])} | "
                         f"{rounds_cell(p['feed_rounds_p99'])} | "
                         f"{latency_cells(p['led'])}, {p['led'].get('n', 0)} | "
                         f"{rounds_cell(p['led_rounds_p99'])} | "
                         f"{latency_cells(p['led_commit'])} |")
    whole = [g for r in results for g in r["whole"]]
    exchange = [r for r in results if r["exchange"].get("n")]
    for r in exchange:
        lines.append(f"{r['game']}: the piece exchanged after a commit, lifted off: "
                     f"{latency_cells(r['exchange'])} ms.")
    if whole:
        lines += ["", "| whole game on the board service | plies | end | wall ms per ply "
                  "(CPU) | board time per ply | × real time |", "|---|---|---|---|---|---|"]
        for g in whole:
            opts = " ".join(f"{k}={v}" for k, v in g["options"].items())
            lines.append(f"| {g['game']} {opts} seed {g['seed']} | {g['plies']} | "
                         f"{g['reason']} | {g['wall_ms']:.1f} ({g['cpu_ms']:.1f}) | "
                         f"{g['board_s']:.2f} s | {g['speed']:.1f} |")
    return "\n".join(lines)


#: the benchmark sections whose rows make the rules goals table (the board's are in
#: ``goals:pipeline``)
GOAL_SECTIONS = ("rules", "luotuoqi")


def goals_table(results: dict, earlier: str = "") -> str:
    """The goals of issue #20 against this run's figures (medians of the ratio spreads).

    When only some of :data:`GOAL_SECTIONS` ran (``--only``), the rows of the others are
    kept from ``earlier`` (the section as the document has it) and said to be so."""
    import statistics

    rows = []

    def goal(text: str, figure: str, met: bool) -> None:
        rows.append(f"| {text} | {figure} | {'met' if met else '**not met**'} |")

    if "rules" in results:
        rules = results["rules"]
        for label, r in rules.items():
            ratio = statistics.median(r["listing"]["ratios"])
            goal(f"listing, per position, {label} ≥ 1.0 × python-chess", f"{ratio:.2f}",
                 ratio >= 1.0)
        for label, r in rules.items():
            ratio = statistics.median(r["perft"]["ratios"])
            goal(f"perft, {label} ≥ 1.0 × python-chess", f"{ratio:.2f}", ratio >= 1.0)
    if "luotuoqi" in results:
        lu = results["luotuoqi"]["listing"]
        for row in lu["rows"]:
            ratio = statistics.median(row["ratios"])
            goal(f"Lùotuoqí listing, {row['title']} ≥ 1.0 × python-chess", f"{ratio:.2f}",
                 ratio >= 1.0)
        goal("Lùotuoqí slowest position ≤ 1 ms", f"{lu['worst_us'] / 1e3:.2f} ms",
             lu["worst_us"] <= 1000)
        for row in lu["rows"]:  # issue 33's goal for the interpreted path
            ratio = statistics.median(row["per_move"])
            goal(f"Lùotuoqí listing per listed move, {row['title']} ≥ 1.0 × python-chess",
                 f"{ratio:.2f}", ratio >= 1.0)
    missing = [name for name in GOAL_SECTIONS if name not in results]
    note = []
    if missing:
        kept = _earlier_goal_rows(earlier, {row.split(" | ")[0] for row in rows})
        order = {name: i for i, name in enumerate(GOAL_SECTIONS)}
        rows = sorted(rows + kept, key=lambda row: order[_goal_section(row)])
        note = ["", f"Rows of {', '.join(missing)} are from an earlier run (this run: "
                    f"`--only {' '.join(n for n in GOAL_SECTIONS if n in results)}`)."]
    return "\n".join(["| goal | this run | |", "|---|---|---|", *rows, *note])


def _goal_section(row: str) -> str:
    """Which benchmark section a goal row comes from."""
    return "rules" if row.startswith(("| listing", "| perft")) else "luotuoqi"


def _earlier_goal_rows(earlier: str, fresh: set[str]) -> list[str]:
    """The goal rows of the document's section that this run did not write (rows of the
    board's goals, which moved to ``goals:pipeline``, are dropped)."""
    return [line for line in earlier.splitlines()
            if line.startswith(("| listing", "| perft", "| Lùotuoqí"))
            and line.split(" | ")[0] not in fresh]


def pipeline_goals_table(results: dict) -> str:
    """The board's goals of issue #20 (index build, Board.feed, sensor frame → LED frame)
    against this run, for every game and player count."""
    rows = []

    def goal(text: str, figure: str, met: bool) -> None:
        rows.append(f"| {text} | {figure} | {'met' if met else '**not met**'} |")

    busy = results["reconcile"]
    boards = [("Lùotuoqí, busy positions", busy)] + [(r["game"], r) for r in results["board"]]
    for name, r in boards:
        b = r["build"]
        goal(f"index build p99 ≤ 5 ms, max ≤ 10 ms: {name}",
             f"{b['p99']:.2f} / {b['max']:.2f} ms", b["p99"] <= 5 and b["max"] <= 10)
    plays = [("Lùotuoqí, busy positions", busy["feed"], busy["feed_rounds_p99"], None)] + [
        (label, p["feed"], p["feed_rounds_p99"], p)
        for r in results["board"] for label, p in r["plays"].items()]
    for name, feed, p99s, _ in plays:
        goal(f"Board.feed p99 ≤ 0.2 ms: {name}",
             f"{feed['p99']:.3f} ms (rounds {rounds_cell(p99s)})", feed["p99"] <= 0.2)
    for name, _, _, p in plays:
        if p is not None:
            led = p["led"]
            goal(f"sensor frame → LED frame p99 ≤ 1 ms: {name}",
                 f"{led['p99']:.3f} ms (plays {rounds_cell(p['led_rounds_p99'])})",
                 led["p99"] <= 1)
    return "\n".join(["| goal | this run | |", "|---|---|---|", *rows])


def script_output(module: str, args: list[str]) -> str:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", f"benchmarks.{module}", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, check=False)
    spent = time.perf_counter() - t0
    out = done.stdout.rstrip()
    if done.returncode:
        out += f"\n(exit status {done.returncode})\n" + done.stderr.strip()[-2000:]
    command = " ".join(["python -m", f"benchmarks.{module}", *args])
    return f"`{command}` ({spent:.0f} s):\n\n```\n{out}\n```"


def pi_section() -> str:
    """The rules benchmark natively and under an emulated Cortex-A72 (pi_emulated.sh)."""
    t0 = time.perf_counter()
    done = subprocess.run(["sh", str(ROOT / "benchmarks" / "pi_emulated.sh"), "--quick"],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    spent = time.perf_counter() - t0
    if done.returncode:
        return (f"Emulation not available on the machine of this run (`sh "
                f"benchmarks/pi_emulated.sh` exit status {done.returncode}: "
                f"{done.stderr.strip()[-300:]}).")
    native = script_output("bench_rules", ["--quick"])
    return (f"`sh benchmarks/pi_emulated.sh --quick` ({spent:.0f} s):\n\n```\n"
            f"{done.stdout.rstrip()}\n```\n\nThe same natively, {native}")


def replace_section(text: str, name: str, body: str) -> tuple[str, bool]:
    pattern = re.compile(rf"(<!-- run_all: {re.escape(name)} -->\n)(?:.*?\n)?"
                         rf"(<!-- /run_all: {re.escape(name)} -->)", re.S)
    new, count = pattern.subn(lambda m: m.group(1) + body + "\n" + m.group(2), text)
    return new, bool(count)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer positions and rounds")
    parser.add_argument("--no-write", action="store_true", help="print only")
    parser.add_argument("--doc", type=Path, default=DOC, help="the document to write")
    parser.add_argument("--only", nargs="*", help="sections to run (default: all)")
    args = parser.parse_args()
    quick = args.quick
    sections: dict[str, str] = {}

    def section(name: str, make: Callable[[], str]) -> None:
        # the goals follow whichever goal sections ran (their other rows are kept)
        if args.only and name not in args.only and name != "goals" and not (
                name.startswith("script:") and "scripts" in args.only):
            return
        t0 = time.perf_counter()
        print(f"== {name}", flush=True)
        body = make()
        sections[name] = body
        print(body, flush=True)
        print(f"({time.perf_counter() - t0:.0f} s)\n", flush=True)

    results: dict = {}

    def keep(name: str, result):
        results[name] = result
        return result

    section("environment", environment)
    section("rules", lambda: rules_table(keep("rules", bench_rules.run(quick))))
    section("luotuoqi", lambda: luotuoqi_table(keep("luotuoqi", bench_luotuoqi.run(quick))))
    section("reconcile", lambda: reconcile_table(
        keep("reconcile", bench_reconcile.run(quick, say=lambda s: None))))
    section("board", lambda: board_table(keep("board", [
        bench_board.run(g, quick, say=lambda s: None) for g in sorted(bench_board.GAMES)])))
    if GOAL_SECTIONS[0] in results or GOAL_SECTIONS[1] in results:
        earlier = re.search(r"<!-- run_all: goals -->\n(.*?)<!-- /run_all: goals -->",
                            args.doc.read_text(), re.S)
        section("goals", lambda: goals_table(results, earlier.group(1) if earlier else ""))
    if {"reconcile", "board"} <= results.keys():
        section("goals:pipeline", lambda: pipeline_goals_table(results))
    section("pi", pi_section)
    for module, full, short in SCRIPTS:
        section(f"script:{module}", lambda m=module, a=short if quick else full:
                script_output(m, a))
    if args.no_write:
        return 0
    text = args.doc.read_text()
    missing = []
    for name, body in sections.items():
        text, found = replace_section(text, name, body)
        if not found:
            missing.append(name)
    args.doc.write_text(text)
    print(f"wrote {len(sections) - len(missing)} sections of {args.doc}")
    if missing:
        print(f"no markers for: {', '.join(missing)} (add <!-- run_all: NAME --> and "
              f"<!-- /run_all: NAME --> lines)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
