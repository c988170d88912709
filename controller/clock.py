"""Game clocks: time controls per seat for 2–4 seats, pure and driven by the caller's time.

A :class:`TimeControl` is parsed from the short text players already use:

- ``"5"`` — sudden death, 5 minutes each;
- ``"3+2"`` — Fischer increment: 3 minutes, 2 seconds added after every move;
- ``"5d3"`` — Bronstein delay: up to 3 seconds of each move are given back;
- ``"40/90:30+30"`` — moves per period: 40 moves in 90 minutes, then 30 minutes for the
  rest, 30 seconds increment throughout (FIDE's classical control).

Minutes may be fractions (``"0.5+1"``); seconds of increment or delay may be too.

:class:`GameClock` holds each seat's remaining time.  It never reads a clock itself: every
call passes ``now`` (seconds, monotonic), so the service, the tests and a restart from the
journal (:meth:`GameClock.state` / :meth:`GameClock.from_state`) agree to the millisecond.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from controller.i18n.text import Text

#: remaining time below which the page and the LEDs warn the seat to move (seconds)
LOW_TIME_S = 10.0


class ClockError(ValueError):
    """A time control that cannot be read; the message is one line."""


@dataclass(frozen=True)
class Period:
    """``seconds`` for the next ``moves`` moves (``None``: for the rest of the game)."""

    seconds: float
    moves: int | None = None


@dataclass(frozen=True)
class TimeControl:
    """The same control for every seat: periods, then increment or delay per move."""

    periods: tuple[Period, ...]
    increment: float = 0.0
    delay: float = 0.0
    text: str = ""

    @property
    def initial(self) -> float:
        return self.periods[0].seconds


_PERIOD = re.compile(r"^(?:(\d+)/)?(\d+(?:\.\d+)?)$")
_NUMBER = r"(\d+(?:\.\d+)?)"


def parse_time_control(text: str) -> TimeControl:
    """Read ``"5"``, ``"3+2"``, ``"5d3"``, ``"40/90:30+30"`` (see the module text)."""
    raw = str(text).strip()
    shown = raw[:40]
    body, increment, delay = raw, 0.0, 0.0
    if m := re.fullmatch(rf"(.+)\+{_NUMBER}", raw):
        body, increment = m.group(1), float(m.group(2))
    elif m := re.fullmatch(rf"(.+)d{_NUMBER}", raw):
        body, delay = m.group(1), float(m.group(2))
    periods: list[Period] = []
    parts = body.split(":")
    for k, part in enumerate(parts):
        m = _PERIOD.fullmatch(part.strip())
        if not m:
            raise ClockError(Text("time control {shown}: expected minutes like '5', '3+2', "
                                  "'5d3' or '40/90:30+30'", shown=repr(shown)))
        moves = int(m.group(1)) if m.group(1) else None
        minutes = float(m.group(2))
        if moves is None and k < len(parts) - 1:
            raise ClockError(Text("time control {shown}: only the last period may be "
                                  "without a move count", shown=repr(shown)))
        if moves == 0 or minutes <= 0 or not math.isfinite(minutes):
            raise ClockError(Text("time control {shown}: every period needs moves and "
                                  "minutes above 0", shown=repr(shown)))
        periods.append(Period(seconds=minutes * 60.0, moves=moves))
    if increment > 3600 or delay > 3600:
        raise ClockError(Text("time control {shown}: increment or delay over an hour",
                              shown=repr(shown)))
    return TimeControl(tuple(periods), increment=increment, delay=delay, text=raw)


@dataclass
class _Seat:
    remaining: float
    moves: int = 0  # moves completed
    period: int = 0  # index into the control's periods


class GameClock:
    """Each seat's remaining time; one seat's clock runs at a time.

    ``start(seat, now)`` starts the seat to move; ``press(next_seat, now)`` ends the running
    seat's move (increment, delay, the next period's time) and starts ``next_seat``;
    ``pause``/``resume`` stop and restart the running clock (a correction, a menu, a
    power cut).  ``flagged(now)`` names the running seat whose time is up.
    """

    def __init__(self, control: TimeControl, seats: int) -> None:
        if not 2 <= seats <= 4:
            raise ClockError(f"a clock needs 2 to 4 seats, not {seats}")
        self.control = control
        self.seats = [_Seat(control.initial) for _ in range(seats)]
        self.running: int | None = None  # the seat whose move it is
        self.paused = True
        self._since: float | None = None  # when the running seat's clock last started
        self._move_used = 0.0  # time the running seat has used on this move so far

    # -- reading --------------------------------------------------------------------------

    def remaining(self, seat: int, now: float) -> float:
        """Seconds left for ``seat`` at ``now`` (never below 0)."""
        left = self.seats[seat].remaining
        if seat == self.running and not self.paused and self._since is not None:
            left -= max(0.0, now - self._since)  # a Bronstein delay returns on the press
        return max(0.0, left)

    def flagged(self, now: float) -> int | None:
        """The running seat if its time is up at ``now``, else None."""
        if self.running is not None and self.remaining(self.running, now) <= 0.0:
            return self.running
        return None

    def low(self, seat: int, now: float) -> bool:
        """Whether ``seat`` is short of time (to warn on the page and the LEDs)."""
        return self.remaining(seat, now) <= min(LOW_TIME_S, self.control.initial / 10)

    # -- driving --------------------------------------------------------------------------

    def start(self, seat: int, now: float) -> None:
        """Start ``seat``'s clock (the first move of a game, or after a takeback)."""
        self.running, self.paused, self._since, self._move_used = seat, False, now, 0.0

    def pause(self, now: float) -> None:
        if self.running is None or self.paused:
            return
        self._settle(now)
        self.paused, self._since = True, None

    def resume(self, now: float) -> None:
        if self.running is None or not self.paused:
            return
        self.paused, self._since = False, now

    def switch(self, seat: int, now: float) -> None:
        """Start ``seat``'s clock after a takeback: the time used so far stays used, and
        no increment or period is earned for a move that no longer stands."""
        if not self.paused:
            self._settle(now)
        self.start(seat, now)

    def press(self, next_seat: int, now: float) -> None:
        """The running seat completed a move; ``next_seat`` is to move."""
        if self.running is not None:
            if not self.paused:
                self._settle(now)
            seat = self.seats[self.running]
            used = self._move_used
            if self.control.delay:
                seat.remaining += min(self.control.delay, used)
            seat.remaining += self.control.increment
            seat.moves += 1
            periods = self.control.periods
            moves_in = sum(p.moves or 0 for p in periods[: seat.period + 1])
            if periods[seat.period].moves is not None and seat.moves >= moves_in \
                    and seat.period + 1 < len(periods):
                seat.period += 1
                seat.remaining += periods[seat.period].seconds
        self.start(next_seat, now)

    def _settle(self, now: float) -> None:
        if self.running is None or self._since is None:
            return
        elapsed = max(0.0, now - self._since)
        self.seats[self.running].remaining -= elapsed
        self._move_used += elapsed
        self._since = now

    # -- the journal ----------------------------------------------------------------------

    def state(self, now: float) -> dict[str, Any]:
        """A JSON-ready picture at ``now``, with the running clock settled (for the journal
        and the page)."""
        if not self.paused:
            self._settle(now)
        return {"control": self.control.text,
                "remaining": [round(s.remaining, 3) for s in self.seats],
                "moves": [s.moves for s in self.seats],
                "periods": [s.period for s in self.seats],
                "running": self.running, "paused": self.paused,
                "move_used": round(self._move_used, 3)}

    @classmethod
    def resumed(cls, control: TimeControl, remaining: list[float],
                moves: list[int]) -> GameClock:
        """The clocks of a game read back from the journal: each seat's remaining seconds
        and completed moves (its period follows from them); paused, nobody running."""
        clock = cls(control, len(remaining))
        for seat, left, made in zip(clock.seats, remaining, moves, strict=True):
            seat.remaining, seat.moves = float(left), made
            counted = 0
            for k, period in enumerate(control.periods[:-1]):
                counted += period.moves or 0
                if made >= counted:
                    seat.period = k + 1
        return clock

    @classmethod
    def from_state(cls, data: dict[str, Any], now: float) -> GameClock:
        """A clock as :meth:`state` left it, paused (a restart waits for the set-up)."""
        control = parse_time_control(data["control"])
        clock = cls(control, len(data["remaining"]))
        for seat, left, moves, period in zip(clock.seats, data["remaining"], data["moves"],
                                             data["periods"], strict=True):
            seat.remaining, seat.moves, seat.period = float(left), int(moves), int(period)
        clock.running = data["running"]
        clock._move_used = float(data.get("move_used", 0.0))
        clock.paused, clock._since = True, None
        return clock


def format_clock(seconds: float) -> str:
    """``1:05:03``, ``4:59``, or ``9.7`` below ten seconds (what a player reads at a glance)."""
    if seconds < 10:
        return f"{max(0.0, math.floor(seconds * 10) / 10):.1f}"
    whole = int(seconds)
    h, rest = divmod(whole, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
