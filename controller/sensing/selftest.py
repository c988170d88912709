"""Self-test of a built board: LEDs, every sensor, and matrix ghosting.

:func:`self_test` walks a light along the LED chain, then asks the human to clear the
board (sensors still reading occupied are *stuck*), to put a piece on every spot in turn
(a spot that does not read occupied is *dead*; other spots reading occupied with it are
*crosstalk*: a miswired or too sensitive neighbour), lighting what is sensed after each
step, and — on a matrix — to put pieces on three corners of a rectangle: if the fourth
corner reads occupied the matrix has no (or a shorted) diode there: *ghosting*.

Everything goes through callables, so the CLI (print, wait for the board) and the
simulator (a scripted human on a :class:`SimulatedBoard`) run the same routine:

* ``read()`` → the current debounced :class:`Frame`;
* ``led_writer(colours)`` → show one ``(r, g, b)`` per LED index;
* ``instruct(action, spots)`` → ``action`` is ``"clear"``, ``"place"`` (put a piece on
  each of ``spots``) or ``"lift"`` (take them off again); returns when done;
* ``wait(seconds)`` → let the sensors settle (``time.sleep`` or the simulated clock).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from controller.sensing.frame import Frame
from controller.sensing.kinds import sensing_kind

Colour = tuple[int, int, int]
OFF: Colour = (0, 0, 0)
WALK: Colour = (40, 40, 40)
ASK: Colour = (0, 0, 60)
SENSED: Colour = (0, 50, 0)
FAULT: Colour = (60, 0, 0)


@dataclass
class SelfTestReport:
    leds_walked: int = 0
    stuck: list[str] = field(default_factory=list)
    dead: list[str] = field(default_factory=list)
    crosstalk: list[tuple[str, str]] = field(default_factory=list)  # (piece on, also read)
    ghosting: list[tuple[str, tuple[str, str, str]]] = field(default_factory=list)
    checked: int = 0

    @property
    def ok(self) -> bool:
        return not (self.stuck or self.dead or self.crosstalk or self.ghosting)

    def text(self) -> str:
        lines = [f"LEDs walked: {self.leds_walked}; sensors checked: {self.checked}"]
        if self.stuck:
            lines.append("stuck (occupied on an empty board): " + ", ".join(self.stuck))
        if self.dead:
            lines.append("dead (no reading with a piece on it): " + ", ".join(self.dead))
        for on, also in self.crosstalk:
            lines.append(f"crosstalk: a piece on {on} also reads on {also}")
        for fake, corners in self.ghosting:
            lines.append(f"ghosting: pieces on {', '.join(corners)} make {fake} read occupied "
                         "(missing diodes)")
        lines.append("all good" if self.ok else "faults found")
        return "\n".join(lines)


def rectangle_probe(layout) -> tuple[tuple[int, int, int], int] | None:
    """Three spots on three corners of a matrix rectangle and the spot on the fourth."""
    if not sensing_kind(layout).can_ghost:
        return None
    table = layout.matrix_table()
    rows, cols = layout.matrix_rows, layout.matrix_columns
    for r0 in range(rows):
        for r1 in range(r0 + 1, rows):
            for c0 in range(cols):
                for c1 in range(c0 + 1, cols):
                    a, b, c, d = table[r0][c0], table[r0][c1], table[r1][c0], table[r1][c1]
                    if min(a, b, c, d) >= 0:
                        return (a, b, c), d
    return None


def _show(led_writer: Callable[[list[Colour]], None], layout,
          lit: dict[int, Colour]) -> None:
    colours = [OFF] * layout.led_count
    for spot, colour in lit.items():
        colours[layout.spots[spot].led] = colour
    led_writer(colours)


def self_test(layout, read: Callable[[], Frame], led_writer: Callable[[list[Colour]], None],
              instruct: Callable[[str, tuple[int, ...]], None], wait: Callable[[float], None],
              *, walk_s: float = 0.05, settle_s: float = 0.1,
              spots: Sequence[int] | None = None, check_ghosting: bool = True
              ) -> SelfTestReport:
    """Run the self-test (see the module docstring); ``spots`` limits the per-spot walk."""
    report = SelfTestReport()
    names = [s.name for s in layout.spots]
    for k in range(layout.led_count):
        colours = [OFF] * layout.led_count
        colours[k] = WALK
        led_writer(colours)
        wait(walk_s)
        report.leds_walked += 1
    led_writer([OFF] * layout.led_count)

    instruct("clear", ())
    wait(settle_s)
    empty = read()
    stuck = set(empty.occupied_spots())
    report.stuck = [names[i] for i in sorted(stuck)]
    _show(led_writer, layout, {i: FAULT for i in stuck})

    for i in (range(len(layout.spots)) if spots is None else spots):
        if i in stuck:
            continue
        _show(led_writer, layout, {i: ASK})
        instruct("place", (i,))
        wait(settle_s)
        f = read()
        sensed = set(f.occupied_spots()) - stuck
        _show(led_writer, layout, {j: SENSED for j in sensed} | (
            {} if i in sensed else {i: FAULT}))
        if i not in sensed:
            report.dead.append(names[i])
        report.crosstalk.extend((names[i], names[j]) for j in sorted(sensed - {i}))
        instruct("lift", (i,))
        wait(settle_s)
        report.checked += 1

    probe = rectangle_probe(layout) if check_ghosting else None
    if probe is not None:
        corners, fourth = probe
        if not ({*corners, fourth} & stuck or {names[c] for c in corners} & set(report.dead)):
            _show(led_writer, layout, {c: ASK for c in corners})
            instruct("place", corners)
            wait(settle_s)
            f = read()
            if f.occupied[fourth]:
                report.ghosting.append((names[fourth], tuple(names[c] for c in corners)))
            instruct("lift", corners)
            wait(settle_s)
    led_writer([OFF] * layout.led_count)
    return report
