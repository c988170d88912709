"""The opt-in compiled build (``FAIRYBOARD_COMPILE``, setup.py) makes, from the same ``.py``
file, a module that gives the same answers as the pure one.

The suite tests the pure modules; this one test builds the rules core (``Position`` with
its ``push``/``pop``, ``Game.perft`` and the grid helpers every game uses) with Cython
through ``setup.py build_ext`` in a copy of the checkout — the install's own code path —
unoptimised so that it stays quick, and compares the perft counts of six games and 30
Lùotuoqí move lists that one child process computes with the compiled core and another
with the pure one; then it translates every module a ``.pxd`` types, so that a change of
a ``.py`` its ``.pxd`` no longer fits fails here, not at a user's install.  Skipped where
Cython or a C compiler is missing.  The whole compiled build with its speed:
``python -m benchmarks.bench_compiled``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: (game, perft depth from the start) — Cube turns, Towers, drops and hands, dice-free
#: multi-player, stacks: small counts, each of them listing every kind of move
PERFTS = (("luotuoqi", 2), ("chess", 3), ("laotzu", 2), ("gnuqi", 2),
          ("kaleidochess", 1), ("lotus39", 3))

CHILD = """
import json, random, sys
import controller.rules.core as core
from controller.rules import get_game
perfts = json.loads(sys.argv[1])

def moves_after(name, plies):
    game = get_game(name)
    pos, rng, seen = game.start(), random.Random(7), []
    for _ in range(plies):
        moves = game.legal_moves(pos)
        if not moves or game.outcome(pos) is not None:
            break
        seen.append(sorted(game.move_text(pos, m) for m in moves))
        pos.push(rng.choice(moves))
    return seen

print(json.dumps({"core": core.__file__,
                  "perft": [get_game(g).perft(get_game(g).start(), d) for g, d in perfts],
                  "moves": moves_after("luotuoqi", 30)}))
"""


def _compiler() -> str | None:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    headers = Path(sysconfig.get_paths()["include"]) / "Python.h"
    return shutil.which(cc) if headers.exists() else None


def _answers(path: Path) -> dict:
    """The child's answers when it imports the package from ``path`` first."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(PERFTS)], cwd=path,
        env=dict(os.environ, PYTHONPATH=str(path)), capture_output=True, text=True,
        check=True, timeout=60)
    return json.loads(done.stdout)


def test_the_compiled_core_gives_the_pure_cores_answers(tmp_path: Path) -> None:
    pytest.importorskip("Cython", reason="the compiled build needs Cython")
    if _compiler() is None:
        pytest.skip("no C compiler or Python headers here")
    from benchmarks.bench_compiled import build

    build(tmp_path, modules="controller.rules.core", jobs=1, cflags="-O0")
    compiled, pure = _answers(tmp_path), _answers(ROOT)
    assert compiled["core"].endswith((".so", ".pyd")), compiled["core"]
    assert pure["core"].endswith(".py"), pure["core"]
    assert compiled["perft"] == pure["perft"]
    assert compiled["perft"][1] == 8902  # chess perft(3): the child counted for real
    assert len(compiled["moves"]) == 30 and compiled["moves"] == pure["moves"]
    # every module typed by a .pxd still translates with it (a method renamed, a closure
    # added to a C-typed method in the .py, and the compiled build would fall back)
    from Cython.Build import cythonize

    sys.path.insert(0, str(ROOT))
    try:
        from setup import DIRECTIVES
    finally:
        sys.path.remove(str(ROOT))
    typed = sorted(str(p.relative_to(tmp_path).with_suffix(".py"))
                   for p in (tmp_path / "controller").rglob("*.pxd"))
    assert typed, "no .pxd file: the compiled build types nothing"
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        cythonize(typed, compiler_directives=DIRECTIVES, quiet=True, force=True)
    finally:
        os.chdir(cwd)
    assert all((tmp_path / path).with_suffix(".c").exists() for path in typed)
