"""The board's state machine, carved by the state it owns (see docs/board-package.md)."""

from controller.board.machine import (
    ACCEPT_DRAW,
    ILLEGAL_MOVE,
    MORE,
    NEW_GAME,
    NEXT_GAME,
    OFFER_DRAW,
    PLAY,
    RESIGN,
    ROYAL,
    TRANSITIONS,
    Board,
    BoardOptions,
    diagram,
)

__all__ = ["ACCEPT_DRAW", "ILLEGAL_MOVE", "MORE", "NEW_GAME", "NEXT_GAME", "OFFER_DRAW", "PLAY",
           "RESIGN", "ROYAL", "TRANSITIONS", "Board", "BoardOptions", "diagram"]
