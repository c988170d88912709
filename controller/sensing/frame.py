"""What every sensing back end produces: a timestamped :class:`Frame` for all spots of a
layout (cells first, then pads), plus the small vocabulary the back ends share."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol

#: A clock returns seconds as a float.  Back ends take one so that tests and the
#: simulator are deterministic; the default is ``time.monotonic``.
Clock = Callable[[], float]

DEFAULT_CLOCK: Clock = time.monotonic


class SensingError(RuntimeError):
    """A sensing back end cannot work: missing package, bad configuration, dead link."""


class Frame(NamedTuple):
    """The sensed state of every spot at one moment.

    ``occupied[i]`` is a bool; ``stack[i]`` the coarse stack class 0/1/2/3 (3 = three or
    more) from linear halls or ``None``; ``polarity[i]`` ``+1`` (White magnet, south up),
    ``-1`` (Black), ``0`` (nothing) or ``None`` when the sensor cannot tell."""

    time: float
    occupied: tuple[bool, ...]
    stack: tuple[int | None, ...]
    polarity: tuple[int | None, ...]

    def state(self) -> tuple:
        """Everything but the time: equal states are the same board picture."""
        return (self.occupied, self.stack, self.polarity)

    def spot_state(self, i: int) -> tuple[bool, int | None, int | None]:
        return (self.occupied[i], self.stack[i], self.polarity[i])

    def occupied_spots(self) -> tuple[int, ...]:
        return tuple(i for i, o in enumerate(self.occupied) if o)


def digital_frame(t: float, occupied: Sequence[bool]) -> Frame:
    """A frame from presence-only sensors (reed, digital hall)."""
    n = len(occupied)
    return Frame(t, tuple(bool(o) for o in occupied), (None,) * n, (None,) * n)


def frame_from_states(t: float, states: Sequence[tuple[bool, int | None, int | None]]) -> Frame:
    """A frame from per-spot ``(occupied, stack, polarity)`` triples."""
    return Frame(t, tuple(s[0] for s in states), tuple(s[1] for s in states),
                 tuple(s[2] for s in states))


class Backend(Protocol):
    """A sensing back end.

    ``read()`` returns the raw frames produced since the last call: one per scan for a
    scanner, every reported state for the serial link.  ``debounced`` is True when the
    frames are already debounced (the microcontroller's ``keypad`` does it), so the
    pipeline does not debounce them again."""

    debounced: bool

    def read(self) -> list[Frame]: ...

    def close(self) -> None: ...


def spot_addresses(layout, sensing: str | None = None) -> list[int]:
    """For each spot, its sensor address in the back end's numbering: ``row * columns +
    column`` (matrix), the chain bit (shift register) or the channel (analog)."""
    from controller.sensing.kinds import sensing_kind

    kind = sensing_kind(sensing or layout)
    return [kind.address(layout, s.sensor) for s in layout.spots]


def address_count(layout) -> int:
    from controller.sensing.kinds import sensing_kind

    return sensing_kind(layout).address_count(layout)
