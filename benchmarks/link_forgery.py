"""The forgery catalogue as a benchmark: tests/support/forgery.py's open and refereed
catalogues over the documented Mosquitto (its ACL, client ids bound to users), each round
shuffled with its forged texts drawn anew, then the games played on.  Every forgery is
counted by what stopped it (the broker's ACL, the receiving board's or the referee's
checks, an invitation waiting for consent, a copy ignored) and whether anything of any
board changed (accepted), with the forks and lost moves after the game went on.

    python -m benchmarks.link_forgery --rounds 20 [--seed 1] [--no-write]

The figures go into docs/reliability.md between ``<!-- link_forgery -->`` and
``<!-- /link_forgery -->`` (generated, never written by hand).
"""

from __future__ import annotations

import argparse
import datetime
import tempfile
import time
from collections import Counter
from pathlib import Path

from benchmarks.benchtools import write_section
from tests.support.forgery import Tally, run_open, run_refereed

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "reliability.md"


def row(name: str, t: Tally, wall: float) -> str:
    by = ", ".join(f"{k} {v:,}" for k, v in sorted(t.by.items(), key=lambda kv: -kv[1]))
    hows = ", ".join(f"{k} {v:,}" for k, v in sorted(t.hows.items()))
    return (f"| {name} | {len(t.kinds)} ({', '.join(sorted(t.kinds))}) | {hows} | "
            f"**{t.sent:,}** | {by} | **{t.accepted}** | **{t.forks}** | **{t.lost}** | "
            f"{wall:.0f} s |")


def write(text: str) -> None:
    write_section(DOC, "link_forgery", text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=20, help="catalogue rounds per game")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-write", action="store_true", help="print, leave the docs alone")
    args = ap.parse_args()
    rows, failures = [], []
    total = Counter()
    for name, run in (("open Lùotuoqí game", run_open), ("refereed Lao Tzu game", run_refereed)):
        with tempfile.TemporaryDirectory() as folder:
            t0 = time.monotonic()
            tally = run(Path(folder), rounds=args.rounds, seed=args.seed)
            wall = time.monotonic() - t0
        rows.append(row(name, tally, wall))
        failures += tally.failures
        total.update(accepted=tally.accepted, forks=tally.forks, lost=tally.lost)
        print(rows[-1], flush=True)
    now = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    text = "\n".join([
        f"Generated {now} by `python -m benchmarks.link_forgery --rounds {args.rounds} "
        f"--seed {args.seed}`.", "",
        "| game | message kinds | how forged | forgeries | stopped by | accepted | forks "
        "| lost moves | wall |",
        "|---|---|---|---:|---|---:|---:|---:|---:|", *rows])
    for f in failures[:20]:
        print("ACCEPTED:", f)
    if not args.no_write:
        write(text)
    print(text)
    return 0 if not failures and not total["forks"] and not total["lost"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
