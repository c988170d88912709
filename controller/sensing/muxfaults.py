"""A multiplexer select line open, or two select lines on each other's pins, named from
what a walk read (issue #31).

The CD74HC4067s of an analog board share four select lines S0..S3.  With S_b open its
input rests at one level, so the inputs with S_b at the other level are never put
through: a piece there reads nowhere, and a piece on its neighbour (S_b the other way)
reads on both.  With S_a and S_b swapped, the inputs whose two bits differ trade places
in pairs across every multiplexer.  Each candidate predicts, for every walked spot, the
spots a piece on it reads on; the one that explains the walk (and explains more than a
board wired as built) is named once, as the builder fixes it, instead of a dozen dead
spots and crossed pairs."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

#: the candidate must explain at least this share of the walked spots
MIN_EXPLAINED = 0.9


@dataclass(frozen=True)
class SelectFault:
    """``lines``: (b,) open (``level``: where its input rests) or (a, b) swapped."""

    lines: tuple[int, ...]
    level: bool = False

    def selects(self, selected: int) -> int:
        """The input put through when the controller selects ``selected``."""
        if len(self.lines) == 2:
            a, b = self.lines
            if (selected >> a & 1) != (selected >> b & 1):
                selected ^= (1 << a) | (1 << b)
            return selected
        bit = 1 << self.lines[0]
        return selected | bit if self.level else selected & ~bit


CANDIDATES = tuple([SelectFault((b,), level) for b in range(4) for level in (False, True)]
                   + [SelectFault((a, b)) for a in range(4) for b in range(a + 1, 4)])


def _on_multiplexers(layout) -> bool:
    return any(s.sensor.channel is not None for s in layout.spots)


def predicted(layout, fault: SelectFault | None) -> Callable[[int], frozenset[int]]:
    """spot → the spots a piece on it reads on with ``fault`` (None: as built)."""
    at = {s.sensor.channel: i for i, s in enumerate(layout.spots)
          if s.sensor.channel is not None}

    def reads(spot: int) -> frozenset[int]:
        channel = layout.spots[spot].sensor.channel
        if channel is None:
            return frozenset({spot})
        mux, selected = divmod(channel, 16)
        if fault is None:
            return frozenset({spot})
        return frozenset(at[mux * 16 + y] for y in range(16)
                         if fault.selects(y) == selected and mux * 16 + y in at)

    return reads


def find_select_fault(layout, observed: Mapping[int, frozenset[int]]
                      ) -> tuple[SelectFault, Callable[[int], frozenset[int]]] | None:
    """The select-line fault that explains ``observed`` (walked spot → the spots a
    piece on it read on), with its prediction; None when none explains it better than
    the board as built."""
    if not observed or not _on_multiplexers(layout):
        return None

    def score(fault: SelectFault | None) -> int:
        reads = predicted(layout, fault)
        return sum(reads(s) == seen for s, seen in observed.items())

    plain = score(None)
    best = max(CANDIDATES, key=score)
    got = score(best)
    if got <= plain + 1 or got < MIN_EXPLAINED * len(observed):
        return None
    return best, predicted(layout, best)


def find_in_calibration(layout, missed: Mapping[int, frozenset[int]], took: set[int]
                        ) -> SelectFault | None:
    """The same from a calibration's walk, which sees less: ``missed`` — a lit spot that
    read nothing steadily → the spots its piece read on instead; ``took`` — lit spots
    that read their piece (whether others read it too is not known).  The candidate
    must explain every missed spot and leave every spot taken able to read itself."""
    if not missed or not _on_multiplexers(layout):
        return None
    for fault in CANDIDATES:
        reads = predicted(layout, fault)
        if all(reads(s) == seen for s, seen in missed.items()) and all(
                s in reads(s) for s in took) and len(missed) >= 2:
            return fault
    return None


def describe(layout, fault: SelectFault, pins: Mapping[str, str]) -> str:
    """One line as the builder fixes it, with the controller's pins when known."""
    from controller.schematic import HC4067_SELECT_PIN, chip_ref

    chips = ", ".join(chip_ref(m) for m in range((layout.channel_count + 15) // 16))
    names = [f"S{b}" for b in fault.lines]
    pin = {n: pins.get(n, "") for n in names}
    where = "the Pico" if all(p.startswith("GP") and not p.startswith("GPIO")
                              for p in pin.values() if p) else "the Pi"
    if len(fault.lines) == 2:
        a, b = names
        if pin[a] and pin[b]:
            return (f"select lines {a} and {b} swapped at {where}: swap {pin[a]} and "
                    f"{pin[b]}")
        return f"select lines {a} and {b} swapped: swap their wires at the controller"
    (b,) = names
    line = fault.lines[0]
    source = f"from {pin[b]} " if pin[b] else ""
    return (f"multiplexer select line {b} open (the inputs with {b} "
            f"{'low' if fault.level else 'high'} are never read): connect the wire "
            f"{source}to {b} (pin {HC4067_SELECT_PIN[line]}) of {chips}")
