"""The state the board machine owns, as small values: the move attempt under way, the
timers, the game on the board, the last sensed frame and what was last shown.

:class:`Attempt`, :class:`Timers` and :class:`Progress` are frozen: the machine replaces
them (``Attempt()`` starts a new attempt), it never resets them field by field.
:class:`Sensed` and :class:`Shown` are the machine's input and output buffers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from types import MappingProxyType
from typing import Any, TypeVar

from controller.board.choices import Choice
from controller.interaction import Interaction
from controller.reconcile import Decision, FrameLike, Key, bits, next_touched
from controller.rules.core import Move, Outcome
from controller.sight import Sight

_EMPTY: Mapping[int, int] = MappingProxyType({})

V = TypeVar("V")
#: class -> its field names (checked by :func:`replace`)
_FIELDS: dict[type, frozenset[str]] = {}


def replace(value: V, **changes: Any) -> V:
    """``dataclasses.replace`` for the machine's frozen values (none has ``__post_init__``
    or an init-only field): a copy with ``changes``.  The standard one walks every field
    on each call, several times per frame — a fifth of ``Board.feed``."""
    cls = type(value)
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = frozenset(f.name for f in fields(value))  # type: ignore[arg-type]
    if not names.issuperset(changes):
        raise TypeError(f"{cls.__name__} has no field {sorted(set(changes) - names)[0]!r}")
    new = object.__new__(cls)
    state = new.__dict__
    state.update(value.__dict__)
    state.update(changes)
    return new


@dataclass(frozen=True)
class Attempt:
    """The move attempt under way since the board last matched the committed position.

    Order matters where occupancy cannot tell (a capture by replacement is "the target
    seen empty, then filled"), so the attempt remembers the spots touched, lifted and put
    down; the reconciler's last decision (and the settle gate's held one); and the choice
    the board is asking, if any."""

    touched: int = 0  #: cells seen empty during the attempt (a mask)
    lifted: int = 0  #: tracked spots expected occupied and sensed empty in the last frame
    landed: int = 0  #: where pieces were put down during the attempt (a mask)
    #: cell refilled -> the pieces off the board then (a mover arriving on its capture)
    arrivals: Mapping[int, int] = field(default_factory=lambda: _EMPTY)
    #: spot put down -> what was lifted then (which piece of an exchange came first)
    placed_first: Mapping[int, int] = field(default_factory=lambda: _EMPTY)
    decision: Decision | None = None  #: the reconciler's decision on the last frame
    pending: Decision | None = None  #: the decision on the frame the settle gate holds
    choice: Choice | None = None  #: the open question, while the phase is ``choice``

    def tracked(self, lifted: int, occupied: int, put: int, token_pads: int,
                splits_onto: Callable[[int, int], bool]) -> Attempt:
        """The attempt after a frame: ``lifted`` (tracked spots expected occupied, sensed
        empty), ``occupied`` (tracked spots sensed occupied), ``put`` (spots occupied now
        and empty in the previous frame).

        A cell seen empty and filled again while other pieces are off the board is the
        mover arriving on a capture.  It stays seen empty while one of those pieces stays
        off (the victims of an elimination taken off afterwards are new lifts), and is
        forgotten when they are all back (it was a tap, not an arrival) — unless part of a
        stack lifted from one of them may land there (``splits_onto(cell, support)``).
        The token pads (``token_pads``) are no pieces off the board."""
        touched = self.touched
        arrivals = dict(self.arrivals)
        for c in bits(put & touched):
            support = self.lifted & ~(1 << c) & ~token_pads
            if support:
                arrivals[c] = support
        kept = 0
        for c, support in list(arrivals.items()):
            if support & lifted:
                kept |= 1 << c
            else:
                del arrivals[c]
                if not splits_onto(c, support):
                    touched &= ~(1 << c) | lifted
        touched = next_touched(touched, self.lifted, lifted) | (touched & kept)
        # something put down: earlier puts whose spot is empty again are forgotten
        landed = (self.landed & occupied) | put if put else self.landed
        return replace(self, touched=touched, lifted=lifted, landed=landed,
                       arrivals=MappingProxyType(arrivals))

    def decided(self, decision: Decision) -> Attempt:
        """The attempt with the reconciler's ``decision`` on its frame (and its touched
        cells, which include the cells that frame shows empty)."""
        return replace(self, decision=decision, touched=decision.touched)


@dataclass(frozen=True)
class Timers:
    """What waits for time (:meth:`Board.tick`): guidance after a stable mismatch, the
    command gesture (both Kings held off the board), a takeback held still."""

    wrong_key: Key | None = None  #: the mismatching picture being timed
    wrong_since: float | None = None  #: since when the board mismatches
    guiding: bool = False  #: guidance one piece at a time has started
    royal_since: float | None = None  #: since when both Kings are off the board
    takeback: tuple[int, float] | None = None  #: (plies, since when) an earlier position

    def mismatch(self, key: Key, now: float) -> Timers:
        """A mismatching picture seen at ``now`` (a new picture restarts the wait for
        guidance, unless guidance has started)."""
        if key == self.wrong_key:
            return self
        return replace(self, wrong_key=key,
                       wrong_since=self.wrong_since if self.guiding else now)

    def matched(self) -> Timers:
        """No mismatch to guide any more."""
        return replace(self, wrong_key=None, wrong_since=None, guiding=False)

    def earlier_position(self, plies: int, now: float) -> Timers:
        """An earlier position (``plies`` back) seen at ``now``; timed from its first frame."""
        if self.takeback is not None and self.takeback[0] == plies:
            return self
        return replace(self, takeback=(plies, now))

    def guidance_due(self, now: float, delay: float) -> bool:
        return (self.wrong_since is not None and not self.guiding
                and now - self.wrong_since >= delay)

    def menu_due(self, now: float, delay: float) -> bool:
        return self.royal_since is not None and now - self.royal_since >= delay

    def takeback_due(self, now: float, delay: float) -> int | None:
        """The plies to take back when the earlier position was held ``delay`` seconds."""
        if self.takeback is not None and now - self.takeback[1] >= delay:
            return self.takeback[0]
        return None


@dataclass(frozen=True)
class Progress:
    """The game on the board, beyond its position (which the reconciler holds)."""

    started: bool = False  #: the board matched the starting (or saved) position
    outcome: Outcome | None = None  #: the game is over
    execute: Move | None = None  #: someone else's move, shown until the board shows it done
    draw_offer: int | None = None  #: the player whose draw offer stands
    exchange: int | None = None  #: a piece to swap on this cell (Gnu Qi's Pawn -> Wazir)
    #: players whose moves are made elsewhere (a linked board): only shown, never taken
    away: frozenset[int] = frozenset()
    #: the mover is short of time (the service's clock): his royal pieces breathe
    low_time: bool = False
    #: a move suggested to the mover (the hint command), shown until he starts a move
    hint: Move | None = None
    #: a resumed game waits for its player: a move plays on, the command menu on the
    #: option pads (lit meanwhile) offers a new game instead
    resuming: bool = False
    #: the menu's commands during the game when another room carries them out (an online
    #: game: the server decides a resignation or a draw); empty: the board's own menu
    commands: tuple[str, ...] = ()
    #: a lifted piece lights its legal targets (off in an online game unless its owner
    #: allows it: the board then only checks moves)
    targets: bool = True


@dataclass
class Sensed:
    """The machine's input: the last frame and what it was compared by."""

    frame: FrameLike | None = None
    key: Key | None = None  #: the frame's tracked occupancy
    signature: tuple | None = None  #: key, stack classes and polarities: "did it change?"
    pads_on: frozenset[int] = frozenset()  #: command pads (option, die) held down
    occupied: int | None = None  #: tracked spots occupied in the last frame tracked (a mask)


@dataclass
class Shown:
    """The machine's output: the message for the next interaction, the last one
    published, and the side to move's sight of the committed position (built once per
    position index)."""

    message: str = ""
    published: Interaction | None = None
    sight: tuple[Any, Sight] | None = field(default=None)
