"""What the board is doing with the player right now: the state machine's output.

The board state machine (``controller/board/``) publishes an :class:`Interaction`
after every sensed change; the LED scene renderer (``controller/leds``) and the web page
read it.  It is plain data, indexed by *spot* (cells first in geometry order, then the
layout's pads), so the renderer never needs to know how the decision was reached.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.i18n.text import Text
from controller.rules.core import Move

#: Phases of a turn on the board (names match the state machine's states).
PHASES = (
    "setup",        # waiting until the board matches the starting / saved position
    "turn",         # waiting for the player to move
    "lifted",       # a piece is off the board: its targets are shown
    "settling",     # a candidate move is sensed; waiting for the board to settle
    "choice",       # several legal moves fit: the player picks an option
    "correction",   # the board does not match and no legal move explains it
    "execute",      # the board shows a move someone else made; the player executes it
    "takeback",     # the board is being restored to an earlier position
    "game_over",
    "paused",
)

#: the words for a board that no legal move explains, when nothing more precise can be
#: said (a try that is not one piece from a cell to a cell: a drop, a stack, a pad)
#: a resumed game waits for its player (the option pads are lit meanwhile)
RESUMED_TEXT = Text("the game is resumed: set up its position and make a move to play on, or "
                "touch an option pad for a new game")
NOT_A_MOVE = Text("that is not a legal move: put the pieces back as the lit cells ask")


@dataclass(frozen=True)
class ChoiceOption:
    """One answer to a choice: shown on an option pad (or a cell) in its own colour."""

    label: str  #: e.g. "T2", "promote to Mule", "use the Cube", "drop Knight"
    move: Move | None  #: the move this option commits (None for non-move answers)
    spot: int  #: the pad (or cell) that answers with this option
    slot: int  #: index into the palette of option colours


@dataclass(frozen=True)
class Interaction:
    """Everything the LEDs and the web page show about the current moment."""

    phase: str = "turn"
    #: player whose view this is (Lao Tzu fog of war); None = everything may be shown
    viewer: int | None = None
    #: player to move (or to answer)
    mover: int | None = None
    #: spots a piece was lifted from in the current move attempt
    origins: frozenset[int] = frozenset()
    #: legal target spots for the lifted piece(s), as far as the viewer may know them
    targets: frozenset[int] = frozenset()
    #: spots that should hold a piece but are empty
    missing: frozenset[int] = frozenset()
    #: spots that hold a piece but should be empty
    extra: frozenset[int] = frozenset()
    #: pieces the player still has to take off (bypass victims, a captured piece)
    to_remove: frozenset[int] = frozenset()
    #: during correction: the one spot to fix next (guidance one piece at a time)
    guide: int | None = None
    #: options of an open choice
    options: tuple[ChoiceOption, ...] = ()
    #: a move to execute on the board (the opponent's or the computer's), with its spots
    execute_from: frozenset[int] = frozenset()
    execute_to: frozenset[int] = frozenset()
    #: the last committed move's origin and target spots
    last_move: frozenset[int] = frozenset()
    #: spots of Kings in check
    check: frozenset[int] = frozenset()
    #: fog of war (Lao Tzu): spots visible to the viewer, and the viewer's visible enemies
    visible: frozenset[int] | None = None
    enemy_visible: frozenset[int] = frozenset()
    #: pads that are active now (e.g. a token pad when its token may be used)
    active_pads: frozenset[int] = frozenset()
    #: cell whose Tower / stack height is being shown, and the height
    height_display: tuple[int, int] | None = None
    #: player colours for multi-player games: spot -> player (pieces' owners)
    owners: dict[int, int] = field(default_factory=dict)
    #: the mover is short of time on the clock: his royal pieces (breathing, his colour)
    low_time: frozenset[int] = frozenset()
    #: a suggested move (hint): where it starts and where it goes (lime, blinking)
    hint_from: frozenset[int] = frozenset()
    hint_to: frozenset[int] = frozenset()
    #: a short human message ("illegal move", "check", "White wins")
    message: str = ""
