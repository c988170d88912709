"""The board as the page sees it at one moment: a frozen value.

:meth:`controller.service.BoardService.snapshot` takes it; ``controller/web/`` builds the
page's JSON from it alone, so the page never reaches into the running service and the
service never knows what a page is.  The value is frozen (its containers are tuples, or
dictionaries built for the snapshot and handed over).  The position is the board's own,
with its move history (the page's tutorial and move list read it): the snapshot is built
from at once, on the loop that owns the board, and never kept past a new version.
"""

from __future__ import annotations

import time
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
    #: the voice's last announcements (``controller/speech/``), each with the player its
    #: words were made for (``ears``)
    announcements: tuple[dict[str, Any], ...] = ()
    #: the online account and game (``controller/online/room.py``; the token masked)
    online: dict[str, Any] | None = None



def take_snapshot(service: Any) -> BoardSnapshot:
    """The snapshot of a running :class:`~controller.service.BoardService` (read from its
    rooms on the loop that owns them)."""
    board = service.board
    assert board is not None
    sim = None
    if service.sim is not None:
        sim = SimObjects(tuple(tuple((t.name, t.lying) for t in pile)
                               for pile in service.sim.piles),
                         tuple(service.sim.held), tuple(service.sim.set_aside_objects))
    frame = service.lighting.frame
    return BoardSnapshot(
        version=service.version, led_version=service.led_version, game=service.game,
        position=service.position, layout=service.layout,
        interaction=board.interaction, outcome=board.outcome,
        plies=tuple(service.plies), choice_labels=tuple(service.choice_labels()),
        choice_kind=board.choice.kind if board.choice is not None else None,
        palette=service.palette, options=dict(service.game_options), setup=service.setup,
        game_id=service.game_id, tutorial_since=service.tutorial_since,
        computer=dict(service.computer.json(service.game), adaptive=service.adaptive.json()),
        die_expected=service.die_expected(), sim=sim, supply=tuple(service.supply),
        resume_offer=dict(service.resume_offer) if service.resume_offer else None,
        glow=tuple(service.lighting.glow), led_roles=None if frame is None else tuple(frame.roles),
        clock=service.clock_json(), time_control=service.time_control, link=service.link_json(),
        advice=service.advice_json(), health=service.health(),
        journal_problems=tuple(service.journal_problems),
        problems=tuple(service.computer.failures.lines()), failure=service.failure,
        ended=service.session.ended, announcements=tuple(service.voice.json()),
        online=service.online.json())


def health_of(service: Any) -> dict[str, Any]:
    """``/health`` of a running service: ok, degraded (a worker failed, sensing stalled)
    or failed (the journal refused a record), with what the owner needs to know."""
    state, age = service.watch.state(service.sensing, service.clock())
    problems = service.computer.failures.lines()
    status = "ok" if state in ("ok", "starting") and not problems else "degraded"
    return {
        "status": "failed" if service.failure is not None else status,
        **({"failure": service.failure} if service.failure is not None else {}),
        "uptime_s": round(time.monotonic() - service.watch.started, 1),
        "sensing": {"backend": service.sensing.name, "state": state,
                    "last_frame_age_s": age, "scans": service.sensing.pipeline.scans},
        "journal": str(service.session.writer.path),
        # unreadable files quarantined, damage dropped on resuming (one line each)
        "journal_problems": list(service.journal_problems),
        # a worker that failed (the computer, the coach): what the page says
        **({"problems": problems, "failures": dict(service.computer.failures.counts)}
           if problems else {}),
        "game": service.game.name,
        "game_id": service.game_id,
        "layout": service.layout.name,
        "phase": service.interaction.phase,
    }


__all__ = ["BoardSnapshot", "SimObjects", "health_of", "take_snapshot"]
