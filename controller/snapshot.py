"""The board as the page sees it at one moment: a frozen value.

:meth:`controller.service.BoardService.snapshot` takes it; ``controller/web/`` builds the
page's JSON from it alone, so the page never reaches into the running service and the
service never knows what a page is.  The value is frozen (its containers are tuples, or
dictionaries built for the snapshot and handed over).  The position is the board's own,
with its move history (the page's tutorial and move list read it): the snapshot is built
from at once, on the loop that owns the board, and never kept past a new version.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.interaction import Interaction
from controller.layout import Layout
from controller.leds.palette import Palette
from controller.rules import Game, Outcome, Position


@dataclass(frozen=True)
class SimObjects:
    """The simulated board's physical truth: per spot its objects (name, lying) bottom
    first, the hand's objects, and the objects set aside in the box."""

    piles: tuple[tuple[tuple[str, bool], ...], ...]
    held: tuple[str, ...]
    set_aside: tuple[str, ...]


@dataclass(frozen=True)
class BoardSnapshot:
    """Everything the page shows, taken at version ``version`` of the board.

    Many fields: one flat value of what the page draws, so the page needs nothing else."""

    version: int
    led_version: int
    game: Game
    position: Position
    layout: Layout
    interaction: Interaction
    outcome: Outcome | None
    #: (player, notation) per committed ply
    plies: tuple[tuple[int, str], ...]
    #: every option of the open choice (the pads show one page of them)
    choice_labels: tuple[str, ...]
    #: what the open question is: "moves" (several fit), "confirm", "amend", "menu"
    choice_kind: str | None
    palette: Palette
    options: dict[str, Any]
    setup: str
    game_id: str
    #: the guided first game: the ply it began at (None: not running)
    tutorial_since: int | None
    #: the computer's seats and level for the page, and whether it is thinking
    computer: dict[str, Any]
    die_expected: bool
    #: the simulated board's objects (None: a real board)
    sim: SimObjects | None
    #: objects a player may need from the box
    supply: tuple[str, ...]
    resume_offer: dict[str, Any] | None
    #: per spot the display colour and opacity of its LED now
    glow: tuple[Any, ...]
    #: the LED frame's role per LED (None before the first frame)
    led_roles: tuple[str | None, ...] | None
    clock: dict[str, Any] | None
    time_control: str
    link: dict[str, Any] | None
    advice: dict[str, Any]
    health: dict[str, Any]
    journal_problems: tuple[str, ...]
    #: a worker that failed (the computer, the coach): what to say and what to do
    problems: tuple[str, ...]
    #: why the service stops (a journal write failed), else None
    failure: str | None
    #: the game's end record is written
    ended: bool
    #: the voice's last announcements (``controller/speech/``), for ``listener``'s ears
    announcements: tuple[dict[str, Any], ...] = ()
    listener: int | None = None


__all__ = ["BoardSnapshot", "SimObjects"]
