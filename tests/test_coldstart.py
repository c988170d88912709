"""Cold start: a command imports only the game it needs (the registry is names -> module
paths, imported on first use).  The CPU time against ``import chess`` is measured by
``benchmarks/bench_coldstart.py`` (``docs/performance.md``), never asserted here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.rules import GAME_PATHS

ROOT = Path(__file__).resolve().parent.parent
PROBE = """
import json, sys
from controller.cli import main
main(["moves", "--game", sys.argv[1]])
print(json.dumps(sorted(m for m in sys.modules if m.startswith("controller"))))
"""


def _modules_of(path: str) -> str:
    return path.partition(":")[0]


@pytest.mark.parametrize("game", ["luotuoqi", "gnuqi", "lotus39-modern"])
def test_moves_imports_only_its_game(game: str) -> None:
    out = subprocess.run([sys.executable, "-c", PROBE, game], capture_output=True, text=True,
                         cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, check=True).stdout
    loaded = set(json.loads(out.splitlines()[-1]))
    own = _modules_of(GAME_PATHS[game])
    assert own in loaded
    others = {_modules_of(p) for p in GAME_PATHS.values()} - {own}
    assert not loaded & others, sorted(loaded & others)
    # nothing of the board, the engine, the web page or the service either
    assert not {m for m in loaded if m.split(".")[1:2] in (["engine"], ["web"], ["board"],
                                                           ["service"])}


def test_no_import_circle_between_configuration_back_ends_and_simulator() -> None:
    """The simulator learns its circuits from ``controller.sensing.circuits``, not from the
    back ends (which the configuration imports): importing it pulls in neither."""
    probe = ("import sys; import controller.sensing.sim.rig; "
             "print(sorted(m for m in ('controller.sensing.backends', 'controller.config') "
             "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, check=True).stdout
    assert out.strip() == "[]"
