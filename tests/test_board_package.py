"""The board package (controller/board/): modules carved by the state they own.

Guards of the structure, not of behaviour (the other board tests keep that): every module
imports first in a fresh interpreter (no import circle), the attempt is a value replaced
and never changed, the turn's triggers are the reconciler's decisions, and what the board
shows is compose() of a snapshot, without touching the machine."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from controller import reconcile
from controller.board import TRANSITIONS, Board
from controller.board.attempt import Attempt, Timers
from controller.board.choices import Answers, Choice, menu_items
from controller.board.compose import compose
from controller.board.options import ACCEPT_DRAW, NEXT_GAME, OFFER_DRAW
from tests.support.rig import Rig

ROOKS = "4k3/8/8/r7/8/8/8/R3K3 w - - 0 1"  # as in test_board.py

MODULES = ["controller.board", "controller.board.machine", "controller.board.flow",
           "controller.board.attempt", "controller.board.choices",
           "controller.board.compose", "controller.board.options"]


def test_every_module_imports_first_without_a_circle():
    # one interpreter, the package forgotten before each import: as if it were fresh
    code = ("import importlib, sys\n"
            f"for name in {MODULES!r}:\n"
            "    for m in [m for m in sys.modules if m.startswith('controller')]:\n"
            "        del sys.modules[m]\n"
            "    importlib.import_module(name)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_attempt_is_replaced_not_changed():
    with pytest.raises(dataclasses.FrozenInstanceError):
        Attempt().touched = 1  # type: ignore[misc]
    rig = Rig(ROOKS)
    rig.lift("a1")
    lifted = rig.board.attempt
    assert rig.state == "lifted" and lifted.lifted and lifted.decision is not None
    rig.place("a1")  # put back: a new attempt, the old value untouched
    assert rig.state == "turn" and rig.board.attempt == Attempt()
    assert lifted.lifted and lifted.decision is not None


def test_timers_wait_from_the_first_mismatch_until_guidance():
    t = Timers().mismatch((True,), 1.0).mismatch((True,), 2.0)
    assert t.wrong_since == 1.0 and not t.guidance_due(3.9, 3.0) and t.guidance_due(4.0, 3.0)
    guided = dataclasses.replace(t.mismatch((False,), 5.0), guiding=True)
    assert guided.mismatch((True,), 6.0).wrong_since == 5.0  # guidance goes on
    assert Timers().earlier_position(2, 1.0).earlier_position(2, 5.0).takeback_due(2.5, 1.5) == 2


def test_the_turns_triggers_are_the_reconcilers_decisions():
    triggers = {t for t, _, _, _ in TRANSITIONS}
    decisions = {reconcile.IDLE, reconcile.WAIT, reconcile.COMMIT, reconcile.CHOOSE,
                 reconcile.CONFIRM, reconcile.TAKEBACK, reconcile.MISMATCH}
    assert decisions <= triggers  # an amendment is a commit or a choice
    assert set(Board.TURN_DECISIONS) == decisions | {reconcile.AMEND}


def test_compose_is_a_function_of_the_snapshot():
    rig = Rig(ROOKS)
    rig.lift("a1")
    board = rig.board
    snap = board.snapshot()
    before = (board.state, board.attempt, board.progress, board.timers, board.shown.message)
    assert compose(snap) == compose(snap) == board.interaction
    assert (board.state, board.attempt, board.progress, board.timers,
            board.shown.message) == before
    # another phase in the snapshot, another interaction; the machine is untouched
    paused = compose(dataclasses.replace(snap, phase="paused"))
    assert paused.phase == "paused" and paused.message == "paused"
    assert board.state == "lifted"


def test_menus_and_pages_of_options():
    assert menu_items(False, False, None, 0) == [NEXT_GAME]
    assert menu_items(True, False, 1, 0)[0] == ACCEPT_DRAW
    assert menu_items(True, False, 0, 0)[0] == OFFER_DRAW
    pads = Answers("pads", (90, 91, 92), 64)
    assert pads.pages(3) == [[0, 1, 2]]
    assert pads.pages(5) == [[0, 1, None], [2, 3, None], [4, None]]
    choice = Choice("moves", ("a", "b", "c", "d", "e"), tuple("abcde"), frozenset())
    spots = pads.spots(choice, None, 0, None)
    assert pads.option_at(choice, 92, spots) == -1  # "more…"
    assert pads.option_at(choice.next_page(), 91, spots) == 3
    cells = Answers("cells", (), 4)
    key = (True, False, True, True)
    assert cells.spots(None, key, 0, None) == [0, 2, 3]
    assert cells.spots(None, key, 1, frozenset({0, 3})) == [3, 0]
