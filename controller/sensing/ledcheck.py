"""The LED walk that asks the builder what lit, and names the chain's fault from the answers.

A chain a builder wired can be fed from the far end, stop part way (a DOUT open, a dead
chip), take the bytes in another order or get too low a supply; two chips can sit in
each other's places.  Lighting every LED in turn shows it to the builder but tells the
program nothing, so :func:`check_chain` lights a few LEDs and asks:

1. the chain's first LED alone: under which spot is it? (the far end: wired reversed,
   and so when it is under neither end while the last LED is under the guide's first;
   none: no data or no power reaches the chain — asked once more with every LED lit);
2. the chain's last LED alone: under which spot? (none: the chain stops part way, and
   a few yes/no questions, halving the chain each time, find the last LED that lights);
3. red, green and blue on the first three LEDs that light: which colours, in order?
   (swapped: the ``pixel_order`` to set; red only: the chips' supply is too low).

Every question has the answer of a board built as the guide says, which Enter gives,
so a good board costs three Enters.  Two LEDs swapped show in the sensor walk (the piece
goes where the light is) and are confirmed with one more question
(:func:`under_question`); when the colour question lit one of them it is asked again
about the spots they really light (:func:`recheck_colours`), since a swap there looks
like chips of another byte order.  The answers come from ``look(question)``: the terminal, or
the emulated builder of the simulated board (:mod:`controller.sensing.sim.builder`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

Colour = tuple[int, int, int]
OFF: Colour = (0, 0, 0)
WHITE: Colour = (50, 50, 50)
#: red, green, blue on the first three LEDs that light
PRIMARIES: tuple[Colour, ...] = ((80, 0, 0), (0, 80, 0), (0, 0, 80))
COLOUR_WORDS = {"red": "R", "green": "G", "blue": "B", "r": "R", "g": "G", "b": "B"}
NONE_WORDS = ("-", "none", "off", "dark", "no", "nothing")
#: a question the builder answers with something else is asked this often
TRIES = 3


@dataclass(frozen=True)
class Question:
    """One thing the builder is asked about the LEDs: ``kind`` is ``"where"`` (the spot
    a lit LED is under, or "none"), ``"lit"`` (is any LED lit: y/n), ``"colours"`` (the
    colours under ``spots``, in order) or ``"under"`` (is the lit LED under ``spots[0]``:
    y/n); ``expected`` is the answer on a board built as the guide says."""

    kind: str
    text: str
    expected: str
    spots: tuple[str, ...] = ()
    #: the answers the option pads offer for a "where" question (the expected first)
    choices: tuple[str, ...] = ()


Look = Callable[[Question], str]


@dataclass
class ChainCheck:
    """What the answers say about the chain; ``led_of`` lights a spot's LED through it."""

    count: int
    reversed: bool = False
    #: the last chain LED that lights (``count - 1`` on a whole chain, -1: none lights)
    lit_up_to: int = -1
    #: the colours seen for red, green, blue ("RGB" when right), "" when not asked
    colours_seen: str = ""
    pixel_order_fix: str = ""
    low_supply: bool = False
    #: the faults, each in one line as the builder fixes it
    faults: list[str] = field(default_factory=list)
    questions: int = 0
    #: False when the builder gave no usable answer (nothing is concluded then)
    answered: bool = True
    #: chain LED → the LED place it really sits at, for two LEDs the sensor walk found
    #: in each other's places
    moved: dict[int, int] = field(default_factory=dict)
    #: the chain LEDs lit red, green, blue for the colour question, and its fault line
    colour_leds: tuple[int, ...] = ()
    colour_fault: str = ""

    def place_of(self, k: int) -> int:
        """The LED place (``Spot.led``) chain LED ``k`` sits at, as far as is known."""
        if k in self.moved:
            return self.moved[k]
        return self.count - 1 - k if self.reversed else k

    def led_of(self, led_place: int) -> int | None:
        """The chain LED that lights at an LED place (``Spot.led``); None when dark."""
        moved = [k for k, p in self.moved.items() if p == led_place]
        k = moved[0] if moved else (self.count - 1 - led_place if self.reversed
                                    else led_place)
        return k if k <= self.lit_up_to else None


def parse_colours(answer: str) -> str:
    """"red green blue" / "rgb" / "g r b" → "RGB"/"GRB"; "" when it names no three colours
    (``-`` or ``none`` for a dark LED give ``"-"``)."""
    words = answer.lower().replace(",", " ").split()
    if len(words) == 1 and len(words[0]) == 3 and set(words[0]) <= set("rgb-"):
        words = list(words[0])
    letters = [COLOUR_WORDS.get(w, "-" if w in NONE_WORDS else "?") for w in words]
    if len(letters) != 3 or "?" in letters:
        return ""
    return "".join(letters)


def pixel_order_fix(configured: str, seen: str) -> str:
    """The ``pixel_order`` that shows red, green, blue right, given the one configured
    and the colours seen for red, green, blue ("" when not a permutation); an RGBW order
    keeps its white byte where it is."""
    white = "W" if configured.endswith("W") else ""
    configured = configured.removesuffix("W")
    if sorted(seen) != ["B", "G", "R"] or sorted(configured) != ["B", "G", "R"]:
        return ""
    # sent channel c goes out as byte configured.index(c); the chips show that byte as seen
    chip = [""] * 3
    for c, shown in zip("RGB", seen, strict=True):
        chip[configured.index(c)] = shown
    return "".join(chip) + white


def _colour_name(letter: str) -> str:
    return {"R": "red", "G": "green", "B": "blue"}.get(letter, "nothing")


class _Asker:
    """Asks one question until the answer means something (Enter: the expected one)."""

    def __init__(self, look: Look, spots: list[str]) -> None:
        self.look, self.spots = look, {s.lower(): s for s in spots}
        self.count = 0
        self.failed = False

    def ask(self, q: Question) -> str | None:
        """The answer in its normal form: a spot name or "none" (where), "y"/"n"
        (lit, under), three letters (colours); None when no usable answer came."""
        prefix = ""
        for _ in range(TRIES):
            self.count += 1
            answer = self.look(Question(q.kind, prefix + q.text, q.expected,
                                        q.spots, q.choices)).strip()
            got = self._parse(q, answer or q.expected)
            if got is not None:
                return got
            prefix = f"'{answer}' is not an answer here. "
        self.failed = True
        return None

    def _parse(self, q: Question, answer: str) -> str | None:
        low = answer.lower()
        if q.kind == "where":
            if low in NONE_WORDS:
                return "none"
            return self.spots.get(low)
        if q.kind in ("lit", "under"):
            return {"y": "y", "yes": "y", "n": "n", "no": "n"}.get(low)
        return parse_colours(answer) or None


def check_chain(layout, write: Callable[[list[Colour]], None], look: Look,
                wait: Callable[[float], None], step_s: float, *, pixel_order: str = "RGB",
                data_pin: str = "") -> ChainCheck:
    """Light a few LEDs, ask the builder what lit (see the module docstring), and name
    the chain's fault; ``data_pin`` is the controller pin the chain's data wire leaves."""
    n = layout.led_count
    place = [layout.spots[i].name for i in layout.led_spots()]  # LED place → spot name
    check = ChainCheck(n, lit_up_to=n - 1)
    asker = _Asker(look, [s.name for s in layout.spots])
    if n == 0:
        return check

    def light(lit: dict[int, Colour]) -> None:
        colours = [OFF] * n
        for k, colour in lit.items():
            colours[k] = colour
        write(colours)
        wait(step_s)

    def where(k: int, expected: str) -> str | None:
        light({k: WHITE})
        other = place[n - 1 - k]  # where a chain fed from the far end shows it
        choices = tuple(dict.fromkeys((expected, other, "none")))
        return asker.ask(Question(
            "where", f"One LED is lit white: LED {k} of the chain, which the guide puts "
            f"under {expected}. Press Enter if it is under {expected}, or type the spot it "
            "is under ('none' when no LED is lit): ", expected, choices=choices))

    def lit(k: int) -> str | None:
        light({k: WHITE})
        return asker.ask(Question("lit", f"Is an LED lit now (LED {k} of the chain)? "
                                  "[Y/n] ", "y"))

    wire = f"the data wire from {data_pin}" if data_pin else "the data wire"
    try:
        first = where(0, place[0])
        if first is None:
            return check
        if first == "none":
            light({k: WHITE for k in range(n)})
            any_lit = asker.ask(Question("lit", "Every LED of the chain is lit white now: "
                                         "is any of them lit? [Y/n] ", "y"))
            if any_lit is None:
                return check
            check.lit_up_to = -1
            if any_lit == "n":
                check.faults.append(
                    f"no LED lights: the chain gets no data or no power — check 5 V and GND "
                    f"at the LED under {place[0]} (the chain's first), and {wire} through "
                    f"the level shifter to its DIN")
            else:
                check.faults.append(
                    f"the chain's first LED (under {place[0]}) stays dark while others "
                    f"light: replace it")
            return check
        far_end = (f"LED chain wired from the far end: its data comes in at the LED under "
                   f"{place[n - 1]} (the guide's last): move {wire} to DIN of the LED under "
                   f"{place[0]} and run DOUT → DIN in the guide's order from there")
        check.reversed = n > 1 and first == place[n - 1]
        if check.reversed:
            check.faults.append(far_end)
        end = place[0] if check.reversed else place[n - 1]
        last = where(n - 1, end) if n > 1 else end
        if last is None:
            return check
        if n > 2 and first not in (place[0], place[n - 1]) and last == place[0]:
            # the first LED is under neither end (two LEDs swapped there) while the last
            # is under the guide's first: fed from the far end all the same
            check.reversed = True
            check.faults.append(far_end)
        if last == "none":
            good, bad = 0, n - 1  # LED good lights, LED bad does not
            while bad - good > 1:
                mid = (good + bad) // 2
                answer = lit(mid)
                if answer is None:
                    return check
                good, bad = (mid, bad) if answer == "y" else (good, mid)
            check.lit_up_to = good
            here = place[n - 1 - good] if check.reversed else place[good]
            after = place[n - 2 - good] if check.reversed else place[good + 1]
            check.faults.append(
                f"LED chain stops after LED {good} (under {here}): LEDs {good + 1} to "
                f"{n - 1} stay dark — the wire from DOUT of the LED under {here} to DIN of "
                f"the LED under {after} is open, or the LED under {after} is dead "
                "(replace it)")
        _ask_colours(layout, check, asker, light, pixel_order)
    finally:
        check.questions = asker.count
        check.answered = not asker.failed
        write([OFF] * n)
    return check


def _ask_colours(layout, check: ChainCheck, asker: _Asker,
                 light: Callable[[dict[int, Colour]], None], pixel_order: str) -> None:
    """Red, green and blue on the first three chain LEDs that light, asked about the
    spots those LEDs sit at (through what is known of the chain)."""
    place = [layout.spots[i].name for i in layout.led_spots()]
    firsts = tuple(k for k in range(3) if k <= check.lit_up_to)
    if len(firsts) < 3:
        return
    light(dict(zip(firsts, PRIMARIES, strict=True)))
    names = tuple(place[check.place_of(k)] for k in firsts)
    seen = asker.ask(Question(
        "colours", f"The LEDs under {', '.join(names)} show three colours: which, "
        "in that order? (Enter for red, green, blue; 'none' for a dark one) ",
        "red green blue", names))
    if seen is not None:
        check.colour_leds, check.colours_seen = firsts, seen
        _judge_colours(check, pixel_order)


def recheck_colours(layout, check: ChainCheck, write: Callable[[list[Colour]], None],
                    look: Look, wait: Callable[[float], None], step_s: float, *,
                    pixel_order: str = "RGB") -> bool:
    """Ask the colour question again when the sensor walk found one of its LEDs in
    another's place (two swapped LEDs among the first three show, say, green, red, blue
    with chips of the right order): the old answer was about the wrong spots.  True
    when it was asked again; the check's colour verdict and fault line are replaced."""
    if not check.colours_seen or not set(check.moved) & set(check.colour_leds):
        return False
    if check.colour_fault in check.faults:
        check.faults.remove(check.colour_fault)
    check.colours_seen = check.pixel_order_fix = check.colour_fault = ""
    check.low_supply = False
    asker = _Asker(look, [s.name for s in layout.spots])

    def light(lit: dict[int, Colour]) -> None:
        colours = [OFF] * check.count
        for k, colour in lit.items():
            colours[k] = colour
        write(colours)
        wait(step_s)

    try:
        _ask_colours(layout, check, asker, light, pixel_order)
    finally:
        check.questions += asker.count
        write([OFF] * check.count)
    return True


def _judge_colours(check: ChainCheck, pixel_order: str) -> None:
    seen = check.colours_seen
    if seen == "RGB":
        return
    if seen[0] == "R" and seen[1:] == "--":
        check.low_supply = True
        check.colour_fault = (
            "LED supply too low: red lights but green and blue do not (white looks red) — "
            "WS2812B need 5 V at VDD: feed the chain from the 5 V rail, not 3.3 V, with "
            "wires thick enough that it stays above 4.5 V at the far end")
    else:
        check.pixel_order_fix = pixel_order_fix(pixel_order, seen)
        check.colour_fault = (
            "LED colour order: red, green, blue showed as "
            + ", ".join(_colour_name(c) for c in seen)
            + (f": set [leds] pixel_order = \"{check.pixel_order_fix}\""
               if check.pixel_order_fix else ""))
    check.faults.append(check.colour_fault)


def under_question(spot: str) -> Question:
    """Is the lit LED under ``spot``? (asked when the sensor walk reads a piece put on a
    spot's light on another spot, and the other way round)."""
    return Question("under", f"The LED for {spot} is lit white now: is it under {spot}? "
                    "[Y/n] ", "y", (spot,))


def ask_under(look: Look, spot: str, spots: list[str]) -> str | None:
    """The answer to :func:`under_question`: "y", "n" or None (no usable answer)."""
    return _Asker(look, spots).ask(under_question(spot))


# --- answers from the option pads ---------------------------------------------------------

#: the colour answers a pad offers, the board built as the guide says first; then the
#: chips of another order, the too-low supply (red only) and a dark group
COLOUR_ANSWERS = tuple(" ".join({"-": "none"}.get(c) or _colour_name(c) for c in order)
                       for order in ("RGB", "GRB", "BRG", "RBG", "GBR", "BGR", "R--", "---"))
MORE = "more…"
#: how long a touched pad is given to read empty before the walk goes on
RELEASE_S = 2.0
#: how long the pads' check waits for each pad's touch
CHECK_S = 20.0


def offered(q: Question) -> tuple[str, ...]:
    """The answers the option pads offer for a question, the expected one first; each is
    an answer :class:`_Asker` reads as typed."""
    if q.kind in ("lit", "under"):
        return ("y", "n") if q.expected == "y" else ("n", "y")
    if q.kind == "where":
        return q.choices or (q.expected, "none")
    return COLOUR_ANSWERS


def offer_label(answer: str) -> str:
    return {"y": "yes", "n": "no"}.get(answer, answer)


#: ``press(question, answers on the pads now)`` → the pad index touched (None: none)
Press = Callable[[Question, tuple[str, ...]], "int | None"]


class PadMenu:
    """The option pads as the answer buttons of the LED walk's questions, so a builder
    at the board needs neither the page nor the keyboard: pad *k* lights in option
    colour *k* and offers the *k*-th answer (more answers than pads: the last pad shows
    "more…" and turns the page); touching a piece or a spare magnet to it answers.

    ``write`` is the LED writer the walk uses (it keeps what the question lit, the pads
    are lit on top); ``read`` gives the sensors' frames.  A pad already occupied when
    the question is asked answers only after it was cleared."""

    def __init__(self, layout, read: Callable[[], object], write: Callable[[list[Colour]], None],
                 wait: Callable[[float], None], colours: tuple[Colour, ...], *,
                 poll_s: float = 0.02, timeout_s: float = 120.0) -> None:
        self.pads = [layout.spot_index(s.name) for s in layout.pads("option")]
        self.leds = [layout.spots[i].led for i in self.pads]
        self.colours, self._read, self._write, self.wait = colours, read, write, wait
        self.poll_s, self.timeout_s = poll_s, timeout_s
        self.shown: list[Colour] = [OFF] * layout.led_count

    def write(self, colours: list[Colour]) -> None:
        self.shown = list(colours)
        self._write(colours)

    def pages(self, q: Question) -> list[tuple[str, ...]]:
        answers, size = offered(q), len(self.pads)
        if len(answers) <= size:
            return [answers]
        step = size - 1
        return [answers[k:k + step] + (MORE,) for k in range(0, len(answers), step)]

    def menu_text(self, page: tuple[str, ...]) -> str:
        return "or touch option pad " + ", ".join(
            f"{k + 1} ({offer_label(a)})" for k, a in enumerate(page))

    def _occupied(self) -> list[bool]:
        frame = self._read()
        return [bool(frame.occupied[i]) for i in self.pads]

    def check(self, touch: Callable[[int], None] | None = None,
              released: Callable[[], None] | None = None,
              tell: Callable[[str], None] = lambda text: None) -> bool:
        """Before a pad answers anything: each pad touched in turn must read on itself
        alone (a select line or two inputs crossed would turn one answer into another).
        False — and no pad answers — when one does not; the terminal answers then."""
        for k, spot in enumerate(self.pads):
            lit = [OFF] * len(self.shown)
            if self.leds[k] < len(lit):
                lit[self.leds[k]] = self.colours[k % len(self.colours)]
            self._write(lit)
            tell(f"Touch option pad {k + 1} (lit) with a piece, then take it away")
            before = set(self._read().occupied_spots())
            if touch is not None:
                touch(k)
            new: set[int] = set()
            waited = 0.0
            while not new and waited < min(self.timeout_s, CHECK_S):
                self.wait(self.poll_s)
                waited += self.poll_s
                new = set(self._read().occupied_spots()) - before
            self.wait(self.poll_s)  # a second spot reading with it shows by now
            new = set(self._read().occupied_spots()) - before
            if released is not None:
                released()
            for _ in range(int(RELEASE_S / self.poll_s)):
                if not self._occupied()[k]:
                    break
                self.wait(self.poll_s)
            if new != {spot}:
                self.pads = []
                tell("the option pads do not read as wired: answer at the terminal")
                break
        self._write(self.shown)
        return bool(self.pads)

    def choose(self, q: Question, press: Press | None = None,
               typed: Callable[[], str | None] | None = None,
               tell: Callable[[str], None] = lambda text: None,
               released: Callable[[], None] | None = None) -> str | None:
        """The answer given on a pad (or typed, when ``typed`` has one); None when no
        pad was touched within ``timeout_s`` (the caller asks at the terminal).
        ``released()`` is called once a touch was read (the emulated builder's hand
        takes the piece away); the pad is then given a moment to read empty."""
        if not self.pads:
            return None
        pages = self.pages(q)
        page, waited = 0, 0.0
        held = self._occupied()
        try:
            while waited < self.timeout_s:
                answers = pages[page % len(pages)]
                # the builder looks at what the question lit before the pads light
                if press is not None and press(q, answers) is None:
                    return None
                lit = list(self.shown)
                for k, answer in enumerate(answers):
                    if self.leds[k] < len(lit):
                        lit[self.leds[k]] = WHITE if answer == MORE else \
                            self.colours[k % len(self.colours)]
                self._write(lit)
                tell(self.menu_text(answers))
                touched = None
                while touched is None and waited < self.timeout_s:
                    self.wait(self.poll_s)
                    waited += self.poll_s
                    line = typed() if typed is not None else None
                    if line is not None:
                        return line
                    now = self._occupied()
                    held = [h and o for h, o in zip(held, now, strict=True)]
                    rising = [k for k, o in enumerate(now) if o and not held[k]
                              and k < len(answers)]
                    touched = rising[0] if rising else None
                if touched is None:
                    return None
                held[touched] = True  # answered: it counts again once it was cleared
                if released is not None:
                    released()
                for _ in range(int(RELEASE_S / self.poll_s)):
                    if not self._occupied()[touched]:
                        break
                    self.wait(self.poll_s)
                if answers[touched] != MORE:
                    return answers[touched]
                page += 1
            return None
        finally:
            self._write(self.shown)
