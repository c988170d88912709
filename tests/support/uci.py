"""UCI engines for the tests: a tiny fake engine script and Debian's Stockfish."""

from __future__ import annotations

import os
import shutil
import textwrap

import pytest

FAKE = textwrap.dedent('''
    import sys, time
    mode = sys.argv[1] if len(sys.argv) > 1 else "good"
    said = []
    def out(line):
        sys.stdout.write(line + "\\n"); sys.stdout.flush()
    if mode == "garbage-start":
        out("hello, I am not a chess engine")
        time.sleep(30)
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            if mode == "silent":
                continue
            if mode == "dies":
                out("id name Dying")
                sys.exit(3)
            out("id name Fake 1.0")
            out("id author nobody")
            out("option name Skill Level type spin default 20 min 0 max 20")
            out("option name UCI_Chess960 type check default false")
            out("option name Style type combo default Normal var Solid var Normal var Risky")
            out("option name Clear Hash type button")
            out("option name EvalFile type string default <empty>")
            out("uciok")
        elif words[0] == "isready":
            out("readyok")
        elif words[0] in ("setoption", "position", "ucinewgame"):
            said.append(line.strip())
        elif words[0] == "go":
            for s in said:
                out("info string " + s)
            said.clear()
            out("info string " + line.strip())
            if mode == "slow":
                continue  # thinks for ever, until told to stop
            if mode == "deaf":
                time.sleep(30)  # never answers, not even to stop
            out("info depth 3 seldepth 4 score cp 31 nodes 1234 pv e2e4 e7e5")
            out("info depth 4 score mate 2 nodes 2000 pv e2e4")
            if mode == "bad-bestmove":
                out("bestmove banana")
            elif mode == "die-in-go":
                sys.exit(7)
            elif mode == "no-move":
                out("bestmove (none)")
            else:
                out("bestmove e2e4 ponder e7e5")
        elif words[0] == "stop":
            out("bestmove d2d4")
        elif words[0] == "quit":
            break
''')


def stockfish() -> str:
    """Debian's Stockfish; skipped only where it cannot have been installed (not root, not
    CI) — scripts/test installs the package as root, so there its absence is a failure."""
    found = shutil.which("stockfish") or shutil.which("/usr/games/stockfish")
    if found is None:
        if os.environ.get("CI") or os.geteuid() == 0:
            pytest.fail("Stockfish is missing: scripts/test installs Debian's stockfish "
                        "package (apt-get install stockfish)")
        pytest.skip("Stockfish is not installed (as root, scripts/test installs Debian's "
                    "stockfish package)")
    return found
