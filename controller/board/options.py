"""How the board behaves (its settings) and the words of its command menu."""

from __future__ import annotations

from dataclasses import dataclass

from controller.i18n.text import Text


@dataclass(frozen=True)
class BoardOptions:
    """How the board behaves (the service fills these from its configuration)."""

    #: honour takeback requests (the board restored to an earlier position)
    takeback: bool = True
    #: stable mismatch for this long starts guidance one piece at a time (seconds)
    guide_delay: float = 3.0
    #: both Kings held off the board this long open the command menu (seconds)
    command_hold: float = 1.0
    #: the board must show an earlier position this long before the takeback is made
    #: (a piece knocked off and put back at once takes nothing back) (seconds)
    takeback_delay: float = 1.5
    #: where choices are answered: "pads" (option pads), "cells" (a tap on a cell) or
    #: "auto" (pads when the layout has two or more option pads)
    answer_on: str = "auto"
    #: the command menu offers "hint" during a game (a suggestion lit on the board)
    hints: bool = False

    def __post_init__(self) -> None:
        if self.answer_on not in ("auto", "pads", "cells"):
            raise ValueError(f"answer_on must be auto, pads or cells, got {self.answer_on!r}")
        if min(self.guide_delay, self.command_hold, self.takeback_delay) < 0:
            raise ValueError("guide_delay, command_hold and takeback_delay must not be negative")


#: commands of the menu (option pads, or both Kings lifted on a board without pads)
OFFER_DRAW, ACCEPT_DRAW, RESIGN, NEW_GAME, NEXT_GAME, HINT = (
    Text("offer draw"), Text("accept draw"), Text("resign"), Text("new game"),
    Text("next game"), Text("hint"))
#: a room that holds the whole game takes a move back on command (the board itself holds
#: only a view of it: ``controller/fogtable.py``); offered only where one does
TAKE_BACK = Text("take back")
#: the option that turns to the next page of options
MORE = Text("more…")
#: the royal piece whose check the board shows and whose lifting opens the command menu
ROYAL = "K"
#: the only answer to a move that is illegal for reasons the player cannot see (Lao Tzu)
ILLEGAL_MOVE = Text("illegal move")
