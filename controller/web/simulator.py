"""The page as the simulator's user interface: human actions on the simulated board
(carried out by the simulated hand, :mod:`controller.sensing.sim.hand`).

Every action changes the physical truth of :class:`~controller.sensing.sim.board.SimulatedBoard`
only; the board service learns about it the way it learns about a real board — through the
emulated electronics, the scanner code and the sensing pipeline.  Nothing here tells the
state machine what happened.

Actions (``POST /api/sim``), spots by name:

* ``{"action": "lift", "spot": "e2", "count": 1}`` — the top ``count`` objects (all if
  omitted) into the hand;
* ``{"action": "place", "spot": "e4", "count": 1}`` — the last ``count`` held objects;
* ``{"action": "slide", "path": ["a1", "a2", "a3"]}`` — drag a pile over the board;
* ``{"action": "set_aside"}`` — held objects into the box (a captured piece);
* ``{"action": "take", "object": "white-M"}`` — an object from the box into the hand;
* ``{"action": "knock_over", "spot": "d4", "onto": "d5"}`` (``onto`` null: off the board);
* ``{"action": "off_centre", "spot": "d4", "toward": "d5"}``;
* ``{"action": "bounce", "spot": "d4"}`` — contact bounce / a wobble;
* ``{"action": "arrange"}`` — put every object where the game expects it (set-up aid);
* ``{"action": "restore", "plies": 2}`` — set up the earlier position after the game's
  first ``plies`` plies, as a person restores it to take moves back (the page's "Accept"
  of a linked board's takeback request);
* ``{"action": "clear"}`` — empty the board, the pads and the hand.
"""

from __future__ import annotations

from controller.sensing.sim.hand import (
    ACTIONS,
    MAX_DWELL_S,
    MAX_PATH,
    SimActionError,
    arrange,
    move_actions,
    perform,
    restore,
    take_from_box,
)

__all__ = ["ACTIONS", "MAX_DWELL_S", "MAX_PATH", "SimActionError", "arrange", "move_actions",
           "perform", "restore", "take_from_box"]
