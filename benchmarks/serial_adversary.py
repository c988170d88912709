"""The serial adversary (tests/support/serial_adversary.py) over a real pseudo-terminal
against the real firmware, for many seeds: fabricated frames, quiet periods that ended
wrong, phantoms of CRC-valid forgeries (how long the longest lasted).

    python -m benchmarks.serial_adversary [--seeds 10] [--seconds 300] [--rate 0.3]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

from tests.support.serial_adversary import run_adversary


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=300.0)
    parser.add_argument("--rate", type=float, default=0.3)
    args = parser.parse_args()
    started = time.monotonic()
    attacks: Counter[str] = Counter()
    totals = Counter()
    phantoms: list[float] = []
    for seed in range(args.seeds):
        run = run_adversary(args.seconds, seed=seed, rate=args.rate)
        attacks.update(run.attacks)
        totals.update(moves=run.moves, frames=run.frames, fabricated=run.fabricated,
                      quiet=run.quiet_periods, quiet_wrong=run.quiet_wrong,
                      restarts=run.restarts, seconds=round(run.seconds))
        phantoms += run.phantoms
        print(f"seed {seed}: {run.moves} moves, {sum(run.attacks.values())} attacks, "
              f"fabricated {run.fabricated}, quiet wrong {run.quiet_wrong}, phantoms "
              f"{len(run.phantoms)} (longest {run.worst_phantom_s:.2f} s)", flush=True)
    print(f"\n{args.seeds} runs, {totals['seconds']} s simulated, {totals['moves']} moves, "
          f"{totals['restarts']} firmware restarts, {sum(attacks.values())} attacks "
          f"({', '.join(f'{k} {v}' for k, v in sorted(attacks.items()))})")
    print(f"fabricated frames {totals['fabricated']}; quiet periods {totals['quiet']}, "
          f"ended wrong {totals['quiet_wrong']}; phantoms {len(phantoms)}, longest "
          f"{max(phantoms, default=0):.2f} s; {time.monotonic() - started:.0f} s wall")


if __name__ == "__main__":
    main()
