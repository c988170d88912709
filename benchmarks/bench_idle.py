"""Idle CPU and memory of the board service on the simulated board.

Starts ``fairyboard run`` (simulated board, no browser), lets it settle, then reads its
process CPU time and resident memory from /proc over ``--seconds`` of idling.
Goal (issue 15): at most 2 % of one core.

    python -m benchmarks.bench_idle [--seconds 20]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time


def _cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=20.0)
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp()
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--web-port", "0",
                             "--journal", os.path.join(folder, "journal")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(5)  # start-up and the board coming to rest
        cpu0, t0 = _cpu_s(proc.pid), time.monotonic()
        time.sleep(args.seconds)
        cpu1, t1 = _cpu_s(proc.pid), time.monotonic()
        share = 100 * (cpu1 - cpu0) / (t1 - t0)
        print(f"| idle simulated service | {share:.1f} % of a core | {_rss_mib(proc.pid):.0f} MiB "
              f"resident | goal ≤ 2 % | {'met' if share <= 2 else 'missed'} |")
    finally:
        proc.terminate()
        proc.wait(10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
