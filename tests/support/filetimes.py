"""How long each test file takes, so that xdist starts the longest files first.

With ``--dist loadfile`` every file runs on one worker, in the order the workers collected
them (``scripts/test`` passes ``--no-loadscope-reorder``, or xdist would order the files by
their number of tests instead).  A long file handed out last keeps one worker busy while
the others are idle, so ``tests/conftest.py`` sorts the files by the seconds in
``tests/file-times.txt``, longest first.  That file is made from a run's ``--durations=0``
output::

    bash scripts/test --durations=0 | tee /tmp/run.log
    .venv/bin/python -m tests.support.filetimes /tmp/run.log > tests/file-times.txt

The figures only order the files: a stale or missing figure makes the run slower, never
wrong (a file without one goes first, as if it were the longest).
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

TIMES = Path(__file__).resolve().parent.parent / "file-times.txt"
#: one line of pytest's durations report: "12.34s call     tests/test_x.py::test_y[...]"
DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)s\s+(?:setup|call|teardown)\s+([^:\s]+\.py)::")


def file_seconds(report: str) -> dict[str, float]:
    """The seconds of each test file (setup, call and teardown summed) in a report."""
    seconds: dict[str, float] = defaultdict(float)
    for line in report.splitlines():
        found = DURATION.match(line)
        if found:
            seconds[found[2]] += float(found[1])
    return dict(seconds)


def render(seconds: dict[str, float]) -> str:
    """The ``file-times.txt`` text: one "seconds path" line a file, longest first."""
    lines = ["# seconds a test file took (--durations=0 of a whole run), longest first:",
             "# the order xdist hands the files out in (tests/support/filetimes.py)"]
    lines += [f"{s:.1f} {path}" for path, s in sorted(seconds.items(),
                                                        key=lambda kv: (-kv[1], kv[0]))]
    return "\n".join(lines) + "\n"


def load(path: Path = TIMES) -> dict[str, float]:
    """The seconds of each file in ``file-times.txt`` ({} when there is none)."""
    if not path.exists():
        return {}
    seconds = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            figure, name = line.split(maxsplit=1)
            seconds[name] = float(figure)
    return seconds


def longest_first(nodeids: list[str], seconds: dict[str, float]) -> list[int]:
    """The indexes of ``nodeids`` with their files longest first; the tests of a file keep
    their order and stay together, and files without a figure come first."""
    def file_of(nodeid: str) -> str:
        return nodeid.split("::", 1)[0]

    first_seen = {}
    for i, nodeid in enumerate(nodeids):
        first_seen.setdefault(file_of(nodeid), i)
    return sorted(range(len(nodeids)), key=lambda i: (
        -seconds.get(file_of(nodeids[i]), float("inf")), first_seen[file_of(nodeids[i])], i))


if __name__ == "__main__":
    sys.stdout.write(render(file_seconds(Path(sys.argv[1]).read_text())))
