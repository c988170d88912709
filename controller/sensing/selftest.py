"""Self-test of a built board: LEDs and their colour order, every sensor, every diode.

:func:`self_test` walks a light along the LED chain, then asks the builder what lit
(:func:`~controller.sensing.ledcheck.check_chain`: the chain's first and last LED, red,
green and blue: a chain fed from the far end, broken part way, of another byte order or
on too low a supply is named from the answers, and the rest of the test lights the spots
through what it found), asks the human to clear the board (sensors still reading occupied
are *stuck*), then walks the board: it lights one spot and waits until a piece is sensed
there — no key to press — records what was sensed, and lights the next.  A spot that
reads nothing within ``timeout_s`` is *dead*; other spots reading with it are
*crosstalk*.  On a matrix the first pieces stay on one whole row and one whole column
(the *anchors*, ``diode_check``): with them every further piece closes three corners of
a rectangle, so a ghost anywhere names the diode on the corner opposite it — the
ghost check of every diode while walking.  A dead spot is scanned backwards while its
piece lies there when the back end can (``backwards``: the Pi's own pins), which only a
reversed diode conducts: an open wire and a line of reversed diodes read alike forwards.
At the end three corners of a rectangle are probed once more (*ghosting*).

:func:`wire_faults` then groups what was found by wire and names it by the sensing
kind's labels (``sensing_kind(layout).grid``) and the pins given: "row 3 wire open",
"columns 5 and 6 shorted", "diode at e4 reversed or missing".  The report's
:meth:`SelfTestReport.text` is the summary a builder pastes into a help request.

Everything goes through callables, so the CLI (print, wait for the board) and the
simulator (a scripted human on a :class:`SimulatedBoard`) run the same routine:

* ``read()`` → the current debounced :class:`Frame`;
* ``led_writer(colours)`` → show one ``(r, g, b)`` per LED index;
* ``instruct(action, spots)`` → ``action`` is ``"clear"``, ``"place"`` (put a piece on
  each of ``spots``) or ``"lift"`` (take them off again); returns at once or when done;
* ``wait(seconds)`` → let the sensors settle (``time.sleep`` or the simulated clock);
* ``look(question)`` → the builder's answer to a :class:`~controller.sensing.ledcheck.Question`
  about the LEDs (``see(text)``, older: only the colours, the rest as built);
* ``tell(text)`` → a note for the builder at the start of a phase.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from controller.sensing.frame import Frame
from controller.sensing.kinds import SHIFT_REGISTER, sensing_kind
from controller.sensing.ledcheck import (
    ChainCheck,
    Look,
    ask_under,
    check_chain,
    parse_colours,
    pixel_order_fix,
    recheck_colours,
)
from controller.sensing.muxfaults import describe as describe_select_fault
from controller.sensing.muxfaults import find_select_fault

__all__ = ["SelfTestReport", "parse_colours", "pixel_order_fix", "self_test"]

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
    #: diodes the walk with anchors found conducting backwards: (diode's spot, ghost)
    diode_ghosts: list[tuple[str, str]] = field(default_factory=list)
    #: the colours seen on LEDs 0, 1, 2 for red, green, blue ("RGB" when right), or ""
    colours_seen: str = ""
    #: the ``pixel_order`` the chain needs, when the colours came out swapped
    pixel_order_fix: str = ""
    #: faults grouped by wire, named by connector and pin (:func:`wire_faults`)
    wiring: list[str] = field(default_factory=list)
    #: the spots the walk put a piece on
    walked: list[str] = field(default_factory=list)
    #: crosstalk that a wiring fault (two shorted lines) explains: not listed again
    explained: set[tuple[str, str]] = field(default_factory=set)
    #: what the walk covered and how long it took (for the summary)
    heading: list[str] = field(default_factory=list)
    walk_s: float = 0.0
    #: linear halls mounted upside down: a White piece reads as Black
    face_down: list[str] = field(default_factory=list)
    #: two spots whose sensors sit on each other's inputs: (spot, spot, fix)
    swapped: list[tuple[str, str, str]] = field(default_factory=list)
    #: two spots whose sensors' outputs are joined (a piece on either reads on both)
    joined: list[tuple[str, str, str]] = field(default_factory=list)
    #: two row or column wires on each other's pins, with the fix
    line_swaps: list[str] = field(default_factory=list)
    #: the LED chain's faults from the builder's answers, one line each as he fixes them
    led_faults: list[str] = field(default_factory=list)
    #: questions asked about the LEDs
    led_questions: int = 0
    #: dead spots the matrix scanned backwards read (their diode reversed), and whether
    #: the back end could scan so (else a dead line may be its wire or its diodes)
    backwards: list[str] = field(default_factory=list)
    backwards_checked: bool = False
    #: a closing remark (e.g. what to run next on a board not calibrated yet)
    note: str = ""

    @property
    def ok(self) -> bool:
        return not (self.stuck or self.dead or self.crosstalk or self.ghosting
                    or self.diode_ghosts or self.wiring or self.face_down or self.swapped
                    or self.joined
                    or self.line_swaps or self.led_faults
                    or (self.colours_seen and self.colours_seen != "RGB"))

    def text(self) -> str:
        """The summary a builder can paste into a help request."""
        lines = list(self.heading)
        lines.append(f"LEDs walked: {self.leds_walked}; sensors checked: {self.checked}"
                     + (f"; walk took {self.walk_s:.0f} s" if self.walk_s >= 1 else ""))
        for fault in self.led_faults:
            lines.append(fault if fault.startswith("LED colour order") else f"LEDs: {fault}")
        if self.colours_seen == "RGB":
            lines.append("LED colour order: right")
        for fault in self.wiring:
            lines.append(f"wiring: {fault}")
        for fault in self.line_swaps:
            lines.append(f"wiring: {fault}")
        for a, b, fix in self.swapped:
            lines.append(f"wiring: the sensors of {a} and {b} are on each other's inputs: "
                         f"{fix}")
        for a, b, fix in self.joined:
            lines.append(f"wiring: the sensors of {a} and {b} are shorted together (a piece "
                         f"on either reads on both): {fix}")
        if self.face_down:
            lines.append("face down (a White piece reads as Black: turn the sensor over, "
                         "marked face up toward the piece): " + ", ".join(self.face_down))
        if self.stuck:
            lines.append("stuck (occupied on an empty board): " + ", ".join(self.stuck))
        if self.dead:
            lines.append("dead (no reading with a piece on it): " + ", ".join(self.dead))
        for on, also in self.crosstalk:
            if (on, also) in self.explained:
                continue
            lines.append(f"crosstalk: a piece on {on} also reads on {also}")
        by_diode: dict[str, list[str]] = {}
        for diode, ghost in self.diode_ghosts:
            by_diode.setdefault(diode, []).append(ghost)
        for diode, ghosts in by_diode.items():
            lines.append(f"ghost: {_some(ghosts)} read occupied through the diode at {diode}")
        for fake, corners in self.ghosting:
            lines.append(f"ghosting: pieces on {', '.join(corners)} make {fake} read occupied "
                         "(missing diodes)")
        lines.append("all good" if self.ok else "faults found")
        if self.note:
            lines.append(self.note)
        return "\n".join(lines)


def _some(names: Sequence[str], shown: int = 8) -> str:
    """"b2, b3 and 61 more": a long list of spots kept to one readable line."""
    if len(names) <= shown:
        return ", ".join(names)
    return f"{', '.join(names[:shown])} and {len(names) - shown} more"


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


def anchor_lines(layout) -> tuple[int, int] | None:
    """The matrix row and column whose spots stay covered while the rest is walked (the
    fullest ones, crossing on a used spot), or None when the board cannot ghost."""
    if not sensing_kind(layout).can_ghost:
        return None
    table = layout.matrix_table()
    rows = sorted(range(len(table)), key=lambda r: -sum(s >= 0 for s in table[r]))
    cols = sorted(range(len(table[0])),
                  key=lambda c: -sum(row[c] >= 0 for row in table))
    for r in rows:
        for c in cols:
            if table[r][c] >= 0:
                return r, c
    return None


def _show(led_writer: Callable[[list[Colour]], None], layout,
          lit: dict[int, Colour], chain: ChainCheck | None = None) -> None:
    """Light spots; through what the LED check found (a reversed chain's LEDs counted
    from the other end, a broken one's dark LEDs left out)."""
    colours = [OFF] * layout.led_count
    for spot, colour in lit.items():
        led = layout.spots[spot].led
        k = led if chain is None else chain.led_of(led)
        if k is not None:
            colours[k] = colour
    led_writer(colours)


class _Walker:
    """Waits for a piece: polls the sensors until a new set of spots reads occupied
    and stays so for ``settle_s``, or ``timeout_s`` passes."""

    def __init__(self, read: Callable[[], Frame], wait: Callable[[float], None],
                 settle_s: float, timeout_s: float, poll_s: float) -> None:
        self.read, self.wait = read, wait
        self.settle_s, self.timeout_s, self.poll_s = settle_s, timeout_s, poll_s
        self.elapsed = 0.0
        self.previous: frozenset[int] | None = None

    def sensed(self, base: set[int]) -> frozenset[int]:
        return frozenset(set(self.read().occupied_spots()) - base)

    def next_piece(self, base: set[int]) -> frozenset[int]:
        """The spots (beyond ``base``) read once a piece has been put down; empty when
        nothing new was read in time."""
        waited = 0.0
        candidate: frozenset[int] | None = None
        since = 0.0
        while True:
            now = self.sensed(base)
            if not now:
                self.previous = None  # the last piece was lifted
                candidate = None
            elif now == self.previous:
                candidate = None  # still the last piece
            elif now != candidate:
                candidate, since = now, waited
            elif waited - since >= self.settle_s:
                self.previous = candidate
                return candidate
            if waited >= self.timeout_s:
                return frozenset()
            self.step(self.poll_s)
            waited += self.poll_s

    def lifted(self, base: set[int]) -> None:
        """After a piece was to be lifted (the next spot already lit): a board that
        reads empty again lets the next piece read like the last (two shorted lines
        read alike).  Looks for up to ``settle_s`` — the builder is moving meanwhile."""
        waited = 0.0
        while waited < self.settle_s:
            self.step(self.poll_s)
            waited += self.poll_s
            if not self.sensed(base):
                self.previous = None
                return

    def step(self, seconds: float) -> None:
        self.wait(seconds)
        self.elapsed += seconds


def self_test(layout, read: Callable[[], Frame], led_writer: Callable[[list[Colour]], None],
              instruct: Callable[[str, tuple[int, ...]], None], wait: Callable[[float], None],
              *, walk_s: float = 0.05, settle_s: float = 0.1,
              spots: Sequence[int] | None = None, check_ghosting: bool = True,
              timeout_s: float | None = None, poll_s: float | None = None,
              diode_check: bool = False, see: Callable[[str], str] | None = None,
              pixel_order: str = "RGB", tell: Callable[[str], None] = lambda text: None,
              pins: Mapping[str, str] | None = None, look: Look | None = None,
              led_pin: str = "",
              backwards: Callable[[], frozenset[int]] | None = None) -> SelfTestReport:
    """Run the self-test (see the module docstring); ``spots`` limits the per-spot walk.
    ``backwards()`` (a matrix on the Pi's pins) gives the spots read through a diode that
    conducts the wrong way: asked while a dead spot's piece still lies there, it tells a
    reversed diode from an open wire or a missing diode."""
    report = SelfTestReport(backwards_checked=backwards is not None)
    names = [s.name for s in layout.spots]
    for k in range(layout.led_count):
        colours = [OFF] * layout.led_count
        colours[k] = WALK
        led_writer(colours)
        wait(walk_s)
        report.leds_walked += 1
    led_writer([OFF] * layout.led_count)

    if look is None and see is not None:  # asked only for the colours: the rest as built
        look = lambda q: see(q.text) if q.kind == "colours" else ""  # noqa: E731
    chain: ChainCheck | None = None
    if look is not None:
        chain = check_chain(layout, led_writer, look, wait, walk_s, pixel_order=pixel_order,
                            data_pin=led_pin)
        report.colours_seen, report.pixel_order_fix = (chain.colours_seen,
                                                       chain.pixel_order_fix)
        report.led_faults = list(chain.faults)
        report.led_questions = chain.questions
        if not chain.answered:
            report.note = "no usable answer about the LEDs: their check was left out"

    instruct("clear", ())
    wait(settle_s)
    empty = read()
    stuck = set(empty.occupied_spots())
    report.stuck = [names[i] for i in sorted(stuck)]
    _show(led_writer, layout, {i: FAULT for i in stuck}, chain)

    walker = _Walker(read, wait, settle_s, settle_s * 4 if timeout_s is None else timeout_s,
                     settle_s / 2 if poll_s is None else poll_s)
    order = list(range(len(layout.spots)) if spots is None else spots)
    anchors: list[int] = []
    lines = anchor_lines(layout) if diode_check and not stuck else None
    if lines is not None:
        table = layout.matrix_table()
        r0, c0 = lines
        corner = table[r0][c0]
        anchors = [s for s in (*table[r0], *(row[c0] for row in table))
                   if s >= 0 and s != corner and s in order]
        order = anchors + [s for s in order if s not in anchors]
        tell(f"Put a piece on each spot as it lights blue and leave it there "
             f"({len(anchors)} pieces on one row and one column); then walk one more piece "
             "from lit spot to lit spot: the test moves on by itself.")
    else:
        tell("Put a piece on the spot lit blue; when it turns green and the next spot lights, "
             "move the piece there: the test moves on by itself.")
    base = set(stuck)
    extras: list[tuple[int, int, int | None]] = []  # (piece on, also read, diode suspected)
    order = [i for i in order if i not in stuck]
    moves: dict[int, frozenset[int]] = {}  # spot a piece was put on → the other spots read
    under: dict[int, str] = {}  # spot → is its LED under it ("y"/"n"), as the builder said
    for k, i in enumerate(order):
        anchor = i in anchors
        _show(led_writer, layout, {a: SENSED for a in base - stuck} | {i: ASK}, chain)
        if chain is not None and (chain.low_supply or chain.led_of(layout.spots[i].led)
                                  is None):
            tell(f"Put the piece on {names[i]} (its LED does not show blue).")
        instruct("place", (i,))
        sensed = set(walker.next_piece(base))
        moves[i] = frozenset(sensed - {i})
        if anchor and look is not None and i not in sensed and len(sensed) == 1:
            # an anchor read elsewhere only: is its light where it belongs? A piece left
            # on another spot's place would spoil the diode check of the rest
            under[i] = _ask_under(layout, led_writer, chain, i, lambda: wait(walk_s), look)
            anchor = under[i] != "n"
        # what was sensed, and already the next spot: the builder moves on meanwhile
        kept = {a: SENSED for a in base - stuck} | ({i: SENSED} if anchor else {})
        _show(led_writer, layout, kept | {j: SENSED for j in sensed} | (
            {} if i in sensed else {i: FAULT}) | (
            {order[k + 1]: ASK} if k + 1 < len(order) else {}), chain)
        if i not in sensed:
            report.dead.append(names[i])
            if backwards is not None and i in backwards():
                report.backwards.append(names[i])
        for ghost in sorted(sensed - {i}):
            middle = (_opposite_corner(layout, ghost, (base - stuck) | {i})
                      if anchors and not anchor else None)
            extras.append((i, ghost, middle))
        if anchor and sensed - {i}:
            # an anchor that reads on other spots too (two shorted lines, crossed wires):
            # left on the board it would make every later piece read there as well, so
            # the anchors come off and the rest is walked one piece at a time
            instruct("clear", ())
            walker.step(settle_s)
            base, anchors = set(stuck), []
            walker.previous = None
        elif anchor:
            base.add(i)
            walker.previous = None
        else:
            instruct("lift", (i,))
            walker.lifted(base)
        report.checked += 1
        report.walked.append(names[i])
    if anchors:
        instruct("clear", ())  # the anchors and the walking piece
        walker.step(settle_s)
    report.walk_s = walker.elapsed
    extras = _swapped_lines(layout, report, extras, moves, pins or {})
    if look is not None:
        extras = _swapped_leds(layout, report, extras, moves, under,
                               lambda spot: under.get(spot) or _ask_under(
                                   layout, led_writer, chain, spot, lambda: wait(walk_s),
                                   look), chain)
        if chain is not None:
            _colours_again(layout, report, chain, led_writer, look, wait, walk_s,
                           pixel_order)
    extras = _select_lines(layout, report, extras, moves, pins or {})
    extras = _swapped_inputs(layout, report, extras)
    extras = _joined_outputs(layout, report, extras)
    # a ghost a closed rectangle explains (a diode conducting backwards) is no evidence
    # of two shorted lines
    shorts = shorted_lines(layout, [(on, also) for on, also, middle in extras
                                    if middle is None])
    for on, also, middle in extras:
        if _explained_by_short(layout, on, also, shorts):
            report.crosstalk.append((names[on], names[also]))
            report.explained.add((names[on], names[also]))
        elif middle is not None:
            report.diode_ghosts.append((names[middle], names[also]))
        else:
            report.crosstalk.append((names[on], names[also]))

    # a rectangle across swapped or shorted lines would only show that again
    probe = (rectangle_probe(layout) if check_ghosting and not report.line_swaps
             and not shorts else None)
    if probe is not None:
        corners, fourth = probe
        if not ({*corners, fourth} & stuck or {names[c] for c in corners} & set(report.dead)):
            _show(led_writer, layout, {c: ASK for c in corners}, chain)
            instruct("place", corners)
            wait(settle_s)
            f = read()
            if f.occupied[fourth]:
                report.ghosting.append((names[fourth], tuple(names[c] for c in corners)))
            instruct("lift", corners)
            wait(settle_s)
    led_writer([OFF] * layout.led_count)
    whole = _whole_board(layout, report)
    report.wiring = [whole] if whole else wire_faults(layout, report, pins or {})
    return report


def _swapped_lines(layout, report: SelfTestReport, extras: list[tuple[int, int, int | None]],
                   moves: Mapping[int, frozenset[int]],
                   pins: Mapping[str, str]) -> list[tuple[int, int, int | None]]:
    """Two matrix rows (or columns) whose wires sit on each other's controller pins: a
    piece on one line reads at the same place on the other, on several spots of both.
    Named as the builder fixes it; the spots of both lines leave every other list."""
    kind = sensing_kind(layout)
    if not kind.can_ghost:
        return extras
    row_labels, col_labels, _table = kind.grid(layout)
    place = _places(layout)
    at = {v: k for k, v in place.items()}
    names = [s.name for s in layout.spots]
    dead = set(report.dead)
    gone: set[int] = set()
    for axis, labels in ((0, row_labels), (1, col_labels)):
        for a in range(len(labels)):
            for b in range(a + 1, len(labels)):
                evidence = {a: 0, b: 0}  # pieces that read only on the other line
                for s, moved in moves.items():
                    line = place[s][axis]
                    if line not in (a, b) or names[s] not in dead:
                        continue
                    other = list(place[s])
                    other[axis] = b if line == a else a
                    if at.get(tuple(other)) in moved:  # type: ignore[arg-type]
                        evidence[line] += 1
                if min(evidence.values()) >= 1 and sum(evidence.values()) >= 3 and not (
                        {a, b} & {place[s][axis] for s in gone}):
                    on_lines = {s for s in place if place[s][axis] in (a, b)}
                    gone |= on_lines
                    la, lb = labels[a], labels[b]
                    word = la.split()[0] + "s"
                    fix = (f"{word} {la.split()[-1]} and {lb.split()[-1]} swapped at the "
                           f"controller: swap the wires on {pins.get(la, la)} and "
                           f"{pins.get(lb, lb)}")
                    report.line_swaps.append(fix)
    if gone:
        report.dead = [n for n in report.dead if names.index(n) not in gone]
        report.diode_ghosts = [(d, g) for d, g in report.diode_ghosts
                               if names.index(d) not in gone]
    return [e for e in extras if e[0] not in gone and e[1] not in gone]


def _ask_under(layout, led_writer: Callable[[list[Colour]], None], chain: ChainCheck | None,
               spot: int, settle: Callable[[], None], look: Look) -> str | None:
    """Light a spot's LED and ask whether it is under that spot."""
    names = [s.name for s in layout.spots]
    _show(led_writer, layout, {spot: (50, 50, 50)}, chain)
    settle()
    answer = ask_under(look, names[spot], names)
    _show(led_writer, layout, {}, chain)
    return answer


def _swapped_leds(layout, report: SelfTestReport, extras: list[tuple[int, int, int | None]],
                  moves: Mapping[int, frozenset[int]], under: Mapping[int, str],
                  ask: Callable[[int], str | None],
                  chain: ChainCheck | None) -> list[tuple[int, int, int | None]]:
    """A piece put on a's light reads only on b, and one on b's light only on a: either
    the two LEDs sit in each other's places (the builder put the piece where the light
    was) or the two sensors are on each other's inputs.  One question tells which (none
    when the builder already said); two swapped LEDs are named as such and their sensors
    leave the dead and crosstalk lists."""
    names = [s.name for s in layout.spots]
    dead = set(report.dead)
    pairs = sorted({tuple(sorted((a, b))) for a, moved in moves.items() for b in moved
                    if moved == {b} and moves.get(b) == {a}
                    and {names[a], names[b]} <= dead})
    gone: set[tuple[int, int]] = set()
    for a, b in pairs:
        answer = "n" if "n" in (under.get(a), under.get(b)) else ask(a)
        if answer != "n":
            continue  # the LED is where it belongs: the sensors are crossed
        (kx, x), (ky, y) = sorted((_chain_index(layout, chain, s), s) for s in (a, b))
        if chain is not None:  # the LED sent for x sits at y's place, and back
            chain.moved.update({kx: layout.spots[y].led, ky: layout.spots[x].led})
        report.led_faults.append(
            f"LEDs {kx} and {ky} of the chain swapped: the LED for {names[x]} lights under "
            f"{names[y]} and the one for {names[y]} under {names[x]} — run the data wire "
            f"through them in the guide's order ({names[x]} first)")
        report.dead = [n for n in report.dead if n not in (names[a], names[b])]
        gone |= {(a, b), (b, a)}
    return [e for e in extras if (e[0], e[1]) not in gone]


def _colours_again(layout, report: SelfTestReport, chain: ChainCheck,
                   led_writer: Callable[[list[Colour]], None], look: Look,
                   wait: Callable[[float], None], walk_s: float, pixel_order: str) -> None:
    """The colour question asked again through the LEDs found swapped, when it lit one of
    them (its answer was about the wrong spots: not the chips' byte order)."""
    old = chain.colour_fault
    if not recheck_colours(layout, chain, led_writer, look, wait, walk_s,
                           pixel_order=pixel_order):
        return
    report.led_faults = ([chain.colour_fault] if chain.colour_fault else []) + [
        f for f in report.led_faults if f != old]
    report.colours_seen, report.pixel_order_fix = chain.colours_seen, chain.pixel_order_fix
    report.led_questions = chain.questions


#: what it means when no sensor at all works, per sensing kind
NOTHING_READS = {
    "matrix": "no sensor reads a piece: the cable between the matrix and the controller is "
              "not connected, or the row and column pins configured are not the ones wired",
    "shift-register": "no sensor reads a piece: the sensors and the 74HC165 chain get no "
                      "supply, or the chain's data does not reach the controller — check "
                      "3.3 V and GND at the sensor rail, then QH of the first chip",
    "analog": "no sensor reads a piece: check the sensors' 3.3 V and GND, then the "
              "multiplexers' outputs to the ADC",
}


def _whole_board(layout, report: SelfTestReport) -> str:
    """One line, instead of a line per spot, when every sensor is dead or every sensor
    reads occupied on the empty board: a supply or a cable, not 80 parts."""
    names = [s.name for s in layout.spots]
    if len(report.stuck) == len(names) > 1:
        report.stuck = []
        return ("every sensor reads occupied on the empty board: the sensors get no supply "
                "(a linear hall without it reads 0 V instead of half its supply) or their "
                "common line is shorted — check 3.3 V and GND at the sensor rail")
    if len(report.walked) >= 4 and len(report.dead) == len(report.walked):
        report.dead = []
        return NOTHING_READS.get(layout.sensing, "no sensor reads a piece")
    return ""


def _chain_index(layout, chain: ChainCheck | None, spot: int) -> int:
    """The chain LED that lights a spot (its own index when the chain is as built)."""
    led = layout.spots[spot].led
    k = None if chain is None else chain.led_of(led)
    return led if k is None else k


def _select_lines(layout, report: SelfTestReport, extras: list[tuple[int, int, int | None]],
                  moves: Mapping[int, frozenset[int]],
                  pins: Mapping[str, str]) -> list[tuple[int, int, int | None]]:
    """A multiplexer select line open or two swapped (:mod:`~controller.sensing.muxfaults`):
    one line as the builder fixes it; the spots it explains leave the other lists."""
    names = [s.name for s in layout.spots]
    dead = set(report.dead)
    observed = {s: frozenset(moved | ({s} if names[s] not in dead else set()))
                for s, moved in moves.items()}
    found = find_select_fault(layout, observed)
    if found is None:
        return extras
    fault, reads = found
    report.line_swaps.append(describe_select_fault(layout, fault, pins))
    explained = {s for s, seen in observed.items() if reads(s) == seen}
    report.dead = [n for n in report.dead if names.index(n) not in explained]
    return [e for e in extras if not (e[0] in explained and e[1] in reads(e[0]))]


def _swapped_inputs(layout, report: SelfTestReport,
                    extras: list[tuple[int, int, int | None]]) -> list[tuple[int, int, int | None]]:
    """A piece on a reads only on b, and one on b only on a: their sensors' wires sit on
    each other's chip inputs (not two dead sensors and two crosstalks).  Named with the
    schematic's chip inputs; the pair leaves the dead and crosstalk lists."""
    if sensing_kind(layout).can_ghost:
        return extras  # a matrix: crossed lines show as rows or columns, not spot pairs
    from controller.boardprint import chip_input

    names = [s.name for s in layout.spots]
    reads = {(on, also) for on, also, _ in extras}
    dead = set(report.dead)
    pairs = {tuple(sorted((on, also))) for on, also in reads
             if (also, on) in reads and {names[on], names[also]} <= dead}
    for a, b in sorted(pairs):
        sa, sb = layout.spots[a], layout.spots[b]
        fix = (f"swap the wires at {chip_input(layout, sa)} and {chip_input(layout, sb)}")
        report.swapped.append((names[a], names[b], fix))
        report.dead = [n for n in report.dead if n not in (names[a], names[b])]
    gone = {p for ab in pairs for p in (ab, ab[::-1])}
    return [e for e in extras if (e[0], e[1]) not in gone]


def _joined_outputs(layout, report: SelfTestReport,
                    extras: list[tuple[int, int, int | None]]) -> list[tuple[int, int, int | None]]:
    """A piece on a reads on a and b, and one on b on b and a: the two sensors' outputs
    are joined (a solder bridge), not two whole chips or inputs shorted.  Named with the
    schematic's chip inputs; the pair leaves the crosstalk list."""
    if sensing_kind(layout).can_ghost:
        return extras  # a matrix: two lines read together, named as lines
    from controller.boardprint import chip_input

    names = [s.name for s in layout.spots]
    reads = {(on, also) for on, also, _ in extras}
    dead = set(report.dead)
    pairs = {tuple(sorted((on, also))) for on, also in reads
             if (also, on) in reads and not {names[on], names[also]} & dead}
    for a, b in sorted(pairs):
        fix = (f"find the bridge between their wires, at {chip_input(layout, layout.spots[a])} "
               f"and {chip_input(layout, layout.spots[b])} or along the way")
        report.joined.append((names[a], names[b], fix))
    gone = {p for ab in pairs for p in (ab, ab[::-1])}
    return [e for e in extras if (e[0], e[1]) not in gone]


def _opposite_corner(layout, ghost: int, closed: set[int]) -> int | None:
    """The closed spot diagonally opposite a ghost in a rectangle of closed switches: the
    diode that let the current flow backwards."""
    table = layout.matrix_table()
    cell = {s: (r, c) for r, row in enumerate(table) for c, s in enumerate(row) if s >= 0}
    gr, gc = cell[ghost]
    for m in sorted(closed):
        mr, mc = cell[m]
        if mr == gr or mc == gc:
            continue
        if table[gr][mc] in closed and table[mr][gc] in closed:
            return m
    return None


def _places(layout) -> dict[int, tuple[int, int]]:
    """Spot → (line, input) in the sensing kind's table (matrix: row, column)."""
    _rows, _cols, table = sensing_kind(layout).grid(layout)
    return {s: (r, c) for r, row in enumerate(table) for c, s in enumerate(row) if s >= 0}


def shorted_lines(layout, pairs: Sequence[tuple[int, int]]) -> list[tuple[int, int, int]]:
    """Two lines of the sensor table that read together: ``(axis, a, b)`` (axis 0: two
    inputs/columns on one line, 1: two lines/rows) seen on at least two spots."""
    place = _places(layout)
    seen: dict[tuple[int, int, int], int] = {}
    for on, also in pairs:
        a, b = place.get(on), place.get(also)
        if a is None or b is None:
            continue
        for axis in (0, 1):
            other = 1 - axis
            if a[axis] == b[axis] and a[other] != b[other]:
                key = (other, min(a[other], b[other]), max(a[other], b[other]))
                seen[key] = seen.get(key, 0) + 1
    return sorted(key for key, count in seen.items() if count >= 2)


def _explained_by_short(layout, on: int, also: int,
                        shorts: Sequence[tuple[int, int, int]]) -> bool:
    place = _places(layout)
    a, b = place.get(on), place.get(also)
    if a is None or b is None:
        return False
    for axis, x, y in shorts:
        same = 1 - axis
        if a[same] == b[same] and {a[axis], b[axis]} == {x, y}:
            return True
    return False


def _line_name(label: str, pins: Mapping[str, str]) -> str:
    return f"{label} ({pins[label]})" if label in pins else label


def _pair_name(a: str, b: str, pins: Mapping[str, str]) -> str:
    """"col 5", "col 6" → "columns 5 and 6 shorted" (with their pins when known)."""
    plural = {"row": "rows", "col": "columns"}
    pa, _, ra = a.partition(" ")
    pb, _, rb = b.partition(" ")
    if pa == pb and ra and rb:
        text = f"{plural.get(pa, pa + 's')} {ra} and {rb} shorted"
    else:
        text = f"{a} and {b} shorted"
    known = [pins[x] for x in (a, b) if x in pins]
    return text + (f" ({' and '.join(known)})" if known else "")


def _dead_tail(layout, place: Mapping[int, tuple[int, int]], tested: Sequence[int],
               dead: set[int]) -> tuple[int, int] | None:
    """(first, last) chip of a 74HC165 chain whose every chip from ``first`` (≥ 1) to the
    end reads nothing while the chips before it work: one open link, not many chips (the
    last chip alone too, when two or more of its sensors were walked: one dead sensor
    is not a chip)."""
    used = sorted({place[s][0] for s in tested})
    working = [c for c in used if any(s not in dead for s in tested if place[s][0] == c)]
    silent = len(used) - len(working)
    if not working or silent < 1 or (
            silent == 1 and sum(place[s][0] == used[-1] for s in tested) < 2):
        return None
    first = max(working) + 1
    if [c for c in used if c >= first] != [c for c in used if c not in working]:
        return None
    return first, max(used)


def wire_faults(layout, report: SelfTestReport, pins: Mapping[str, str]) -> list[str]:
    """Faults grouped by wire: a whole line of the sensor table dead, two lines that
    read together, a single spot that reads nothing while its lines work, a diode that
    conducts backwards.  Line names are the sensing kind's (``grid``), ``pins`` maps a
    line name to the controller pin it goes to."""
    kind = sensing_kind(layout)
    row_labels, col_labels, table = kind.grid(layout)
    index = {s.name: i for i, s in enumerate(layout.spots)}
    dead = {index[n] for n in report.dead}
    place = _places(layout)
    walked = {index[n] for n in report.walked}
    tested = [s for s in place if s in walked]
    faults: list[str] = []
    explained: set[int] = set()
    stuck = {index[n] for n in report.stuck}
    backwards_read = {index[n] for n in report.backwards}
    wire = ("wire open (or every diode on it reversed)" if kind.can_ghost
            else "reads nothing (chip, its supply or its link)")
    tail = _dead_tail(layout, place, tested, dead) if kind is SHIFT_REGISTER else None
    if tail is not None:
        first, last = tail
        chip = [label.split(" (")[0] for label in row_labels]
        faults.append(f"the chain stops after {chip[first - 1]}: {chip[first]} to "
                      f"{chip[last]} read nothing — the link from QH of {chip[first]} to DS "
                      f"(SER) of {chip[first - 1]} is open, or {chip[first]} gets no supply")
        explained.update(s for s in tested if place[s][0] >= first)
    for axis, labels in ((0, row_labels), (1, col_labels)):
        for k, label in enumerate(labels):
            line = [s for s in tested if place[s][axis] == k]
            if len(line) >= 2 and all(s in dead for s in line) and not (
                    tail is not None and axis == 0 and k >= tail[0]):
                spots = ", ".join(layout.spots[s].name for s in sorted(line))
                read_back = [s for s in line if s in backwards_read]
                if kind.can_ghost and report.backwards_checked and len(read_back) == len(line):
                    faults.append(f"every diode on {_line_name(label, pins)} reversed (each "
                                  f"reads backwards): turn them round as the guide shows: "
                                  f"{spots}")
                elif kind.can_ghost and report.backwards_checked and not read_back:
                    faults.append(f"{_line_name(label, pins)} wire open (its diodes read "
                                  f"neither way): {spots}")
                else:
                    faults.append(f"{_line_name(label, pins)} {wire}: {spots}")
                explained.update(line)
            line = [s for s in place if place[s][axis] == k]
            if len(line) >= 2 and all(s in stuck for s in line):
                faults.append(f"{_line_name(label, pins)} reads occupied on every spot "
                              "(wire shorted to another line or to ground): "
                              + ", ".join(layout.spots[s].name for s in sorted(line)))
    pairs = [(index[on], index[also]) for on, also in report.crosstalk]
    for axis, x, y in shorted_lines(layout, pairs):
        labels = row_labels if axis == 0 else col_labels
        faults.append(_pair_name(labels[x], labels[y], pins))
    backwards = {index[d] for d, _ in report.diode_ghosts}
    for s in sorted(dead - explained):
        r, c = place[s]
        name = layout.spots[s].name
        if s in backwards or s in backwards_read:
            faults.append(f"diode at {name} reversed")
        elif kind.can_ghost and report.backwards_checked:
            faults.append(f"diode at {name} missing or its sensor dead (it reads neither "
                          f"way): {row_labels[r]} and {col_labels[c]} work")
        elif kind.can_ghost:
            faults.append(f"diode at {name} reversed or missing (or its sensor dead): "
                          f"{row_labels[r]} and {col_labels[c]} work")
        else:
            faults.append(f"sensor at {name} dead or not connected "
                          f"({row_labels[r]}, input {col_labels[c]})")
    for s in sorted(backwards - dead):
        faults.append(f"diode at {layout.spots[s].name} shorted or left out (ghosts appear)")
    return faults
