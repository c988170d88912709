"""The board's state machine, carved by the state it owns (docs/architecture.md).

* :mod:`~controller.board.machine` — :class:`Board`, the machine: frames, time and the
  caller's commands in; interactions, moves, takebacks and commands out;
* :mod:`~controller.board.flow` — the turn's flow: the ``transitions`` table, its diagram;
* :mod:`~controller.board.attempt` — the state the machine owns, as small values (the
  attempt under way, timers, the game's progress, input and output);
* :mod:`~controller.board.choices` — choices, their pages and menus, how they are answered;
* :mod:`~controller.board.compose` — presentation: ``compose(Snapshot) -> Interaction``;
* :mod:`~controller.board.options` — :class:`BoardOptions` and the menu's commands.
"""

from controller.board.flow import PLAY, TRANSITIONS, diagram
from controller.board.machine import Board
from controller.board.options import (
    ACCEPT_DRAW,
    HINT,
    ILLEGAL_MOVE,
    MORE,
    NEW_GAME,
    NEXT_GAME,
    OFFER_DRAW,
    RESIGN,
    ROYAL,
    BoardOptions,
)

__all__ = ["ACCEPT_DRAW", "HINT", "ILLEGAL_MOVE", "MORE", "NEW_GAME", "NEXT_GAME", "OFFER_DRAW",
           "PLAY", "RESIGN", "ROYAL", "TRANSITIONS", "Board", "BoardOptions", "diagram"]
