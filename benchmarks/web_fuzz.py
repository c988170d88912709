"""Soak: the page's API fuzzed over many seeds (``tests/support/webfuzz.py``, the same
requests the suite sends for one seed): every route, field and value type, bodies that are
not JSON or are cut short. A 500, an exception, a refusal of more than one line or a
logged traceback stops the run with its seed and request, so it can be replayed.

    .venv/bin/python -m benchmarks.web_fuzz --minutes 10
    .venv/bin/python -m benchmarks.web_fuzz --seeds 37 38 39 --requests 3000 --game luotuoqi

Each seed gets a fresh service on the simulated board, in a folder of its own. Bounded by
``--minutes`` (or the seeds given); it stops by itself.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.rules import GAMES  # noqa: E402
from tests.support.service import page_service  # noqa: E402
from tests.support.webfuzz import FuzzFailure, fuzz  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=5.0,
                        help="stop starting seeds after this long (default 5)")
    parser.add_argument("--seeds", type=int, nargs="+",
                        help="these seeds only (default: 1000, 1001, … until --minutes)")
    parser.add_argument("--requests", type=int, default=3000, help="per seed")
    parser.add_argument("--game", choices=sorted(GAMES), default="chess")
    args = parser.parse_args()
    deadline = time.monotonic() + args.minutes * 60
    seeds = iter(args.seeds) if args.seeds else iter(range(1000, 10**9))
    total: Counter[int] = Counter()
    done = 0
    for seed in seeds:
        if not args.seeds and time.monotonic() > deadline:
            break
        with tempfile.TemporaryDirectory(prefix="fairyboard-fuzz-") as folder:
            svc = page_service(Path(folder), game=args.game, seed=seed)
            try:
                total.update(fuzz(svc, args.requests, seed))
            except FuzzFailure as failure:
                print(f"FAILED {failure}", file=sys.stderr)
                return 1
            finally:
                svc.close()
        done += 1
        print(f"seed {seed}: {args.requests} requests, no 500, no traceback", flush=True)
    print(f"{done} seeds, {sum(total.values())} requests: "
          + ", ".join(f"{code}×{n}" for code, n in sorted(total.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
