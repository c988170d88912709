"""The simulated physical board: what lies where, what the human holds, a simulated clock.

:class:`SimulatedBoard` is the physical truth.  Every spot of the layout holds a pile of
objects (bottom first) named by strings — ``"white-king"``, ``"black-stone"``, a token
— and the human's hand holds a pile too.  Human actions change the truth; the emulated
electronics (:mod:`controller.sensing.sim.electrical`) read it through magnet physics:

* every object carries one magnet, south up (polarity +1) unless its name starts with
  ``black`` (north up, -1);
* the field at a sensor is the signed sum over the pile, the k-th object from the bottom
  weighted ``(d0 / (d0 + k*h))**3`` (a dipole seen from further away; d0 = 6 mm board +
  base, h = 3 mm per stone), times a per-object magnet tolerance (2 %);
* a reed or digital hall closes at |field| >= 0.5 (one centred magnet gives 1.0);
* an off-centre pile gives part of its field to the neighbour it leans toward; a piece
  lying on its side gives 0.6 of its field.

Time only moves in :meth:`advance`; back ends attached with :meth:`every` run at their
own periods while it does.
"""

from __future__ import annotations

import heapq
import random
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from controller.i18n.text import Text
from controller.sensing.frame import Frame

#: human actions kept in ``SimulatedBoard.log``
LOG_KEEP = 200


class SimClock:
    """A clock that only moves when told; time kept in whole microseconds (no drift)."""

    def __init__(self, start_s: float = 0.0) -> None:
        self.us = round(start_s * 1e6)

    def __call__(self) -> float:
        return self.us / 1e6


@dataclass(frozen=True)
class MagnetModel:
    """Numbers of the magnet physics (see the module docstring)."""

    threshold: float = 0.5          # reed / digital hall closes at this |field|
    first_distance_mm: float = 6.0  # sensor to the magnet of the bottom object
    stone_height_mm: float = 3.0    # each object higher in a pile is this much further
    tolerance: float = 0.02         # relative spread (sigma) of magnet strength
    lying_factor: float = 0.6       # a piece on its side
    off_centre: float = 0.7         # share of the field an off-centre pile gives away

    def level_weight(self, level: int) -> float:
        d0 = self.first_distance_mm
        return (d0 / (d0 + level * self.stone_height_mm)) ** 3


@dataclass
class Thing:
    """One physical object: its name, magnet polarity and strength."""

    name: str
    polarity: int
    strength: float
    lying: bool = False

    def __str__(self) -> str:
        return self.name


def default_polarity(name: str) -> int:
    return -1 if name.lower().startswith("black") else +1


@dataclass(order=True)
class _Ticker:
    due_us: int
    order: int
    period_us: int = field(compare=False)
    fn: Callable[[], None] = field(compare=False)
    active: bool = field(default=True, compare=False)

    def cancel(self) -> None:
        self.active = False


SpotRef = int | str


class SimulatedBoard:
    """The physical board and the human's hands, under a simulated clock.

    Spots are addressed by index or by name (``"e4"``, ``"white-hand-P"``).  Actions are
    instantaneous except :meth:`slide` (which dwells) and :meth:`advance`."""

    def __init__(self, layout, *, seed: int = 0, clock: SimClock | None = None,
                 magnets: MagnetModel = MagnetModel(),
                 polarity_of: Callable[[str], int] = default_polarity) -> None:
        self.layout = layout
        self.n = len(layout.spots)
        self.clock = clock or SimClock()
        self.magnets = magnets
        self.polarity_of = polarity_of
        self.rng = random.Random(seed)
        self.seed = seed
        self.piles: list[list[Thing]] = [[] for _ in range(self.n)]
        self.hand: list[Thing] = []
        self.aside: list[Thing] = []
        #: spot -> (neighbour, share) for piles pushed off centre
        self.leaning: dict[int, tuple[int, float]] = {}
        self._glitches: dict[int, list[tuple[int, int]]] = {}
        #: spot -> "dead" (reads nothing) or "stuck" (reads a magnet): hardware faults
        self.sensor_faults: dict[int, str] = {}
        self.revision = 0
        self._fields_key: tuple[int, int | None] | None = None  # see :meth:`_fields`
        self._fields_now: list[float] = []
        self._tickers: list[_Ticker] = []
        self._order = 0
        #: the latest human actions (time, what), for messages and debugging; bounded so a
        #: long session does not grow (it did by ~3 KB a move)
        self.log: deque[tuple[float, str]] = deque(maxlen=LOG_KEEP)
        self._neighbours = self._spot_neighbours()

    # --- addressing -------------------------------------------------------------------
    def index(self, spot: SpotRef) -> int:
        if isinstance(spot, str):
            return self.layout.spot_index(spot)
        if not 0 <= spot < self.n:
            raise IndexError(f"no spot {spot} on layout {self.layout.name} ({self.n} spots)")
        return spot

    def name(self, spot: SpotRef) -> str:
        return self.layout.spots[self.index(spot)].name

    def _spot_neighbours(self) -> list[tuple[int, ...]]:
        centres = [s.centre_mm for s in self.layout.spots]
        out = []
        for i, (x, y) in enumerate(centres):
            d = sorted((((cx - x) ** 2 + (cy - y) ** 2) ** 0.5, j)
                       for j, (cx, cy) in enumerate(centres) if j != i)
            out.append(tuple(j for _, j in d[:8]))
        return out

    # --- views --------------------------------------------------------------------------
    @property
    def now(self) -> float:
        return self.clock()

    def objects(self, spot: SpotRef) -> list[str]:
        """What lies on a spot, bottom first."""
        return [t.name for t in self.piles[self.index(spot)]]

    @property
    def held(self) -> list[str]:
        """What the human holds, in the order picked up."""
        return [t.name for t in self.hand]

    @property
    def set_aside_objects(self) -> list[str]:
        return [t.name for t in self.aside]

    def contents(self) -> dict[str, list[str]]:
        """Spot name -> pile, for every non-empty spot."""
        return {self.layout.spots[i].name: [t.name for t in p]
                for i, p in enumerate(self.piles) if p}

    # --- physics ------------------------------------------------------------------------
    def _pile_field(self, pile: Sequence[Thing]) -> float:
        m = self.magnets
        total = 0.0
        for level, t in enumerate(pile):
            w = m.level_weight(level) * t.strength * t.polarity
            total += w * (m.lying_factor if t.lying else 1.0)
        return total

    def field(self, spot: SpotRef, glitches: bool = True) -> float:
        """Signed magnetic field at a spot's sensor (1.0 = one centred magnet);
        ``glitches=False`` leaves out bounces (the settled physical truth)."""
        i = self.index(spot)
        if glitches:
            return self._fields()[i]
        return self._field(i, False)

    def _fields(self) -> list[float]:
        """Every spot's :meth:`field` now, bounces included.  Kept while nothing on the
        board changes (:attr:`revision`) and no bounce is pending: the emulated scans and
        converters read it for every strobe, load or conversion."""
        key = (self.revision, self.clock.us if self._glitches else None)
        if key != self._fields_key:
            self._fields_key = key
            self._fields_now = [self._field(i, True) for i in range(self.n)]
        return self._fields_now

    def _field(self, i: int, glitches: bool) -> float:
        f = self._pile_field(self.piles[i])
        if i in self.leaning:
            f *= 1.0 - self.leaning[i][1]
        for j, (toward, share) in self.leaning.items():
            if toward == i:
                f += share * self._pile_field(self.piles[j])
        if glitches and self._glitch(i):
            f = 0.0 if abs(f) >= self.magnets.threshold else 1.0
        fault = self.sensor_faults.get(i)
        if fault == "dead":
            return 0.0
        if fault == "stuck":
            return 1.0
        if fault == "face-down":
            return -f  # the field enters the sensor from its back
        return f

    def switch_closed(self, spot: SpotRef, glitches: bool = True) -> bool:
        """A reed / omnipolar digital hall under the spot."""
        return abs(self.field(spot, glitches)) >= self.magnets.threshold

    def switches(self) -> list[bool]:
        """Every spot's digital sensor now."""
        threshold = self.magnets.threshold
        return [abs(f) >= threshold for f in self._fields()]

    def _glitch(self, i: int) -> bool:
        spans = self._glitches.get(i)
        if not spans:
            return False
        now = self.clock.us
        live = [(a, b) for a, b in spans if b > now]
        if len(live) != len(spans):
            if live:
                self._glitches[i] = live
            else:
                del self._glitches[i]
        return any(a <= now < b for a, b in live)

    def expected_frame(self, analog: bool = False) -> Frame:
        """What ideal sensors read now, bounces left out: occupancy from the switch
        physics; with ``analog`` also the stack class (3 = three or more) and the polarity
        of a pile, ``None`` where a pile leans or lies (an analog reading is ambiguous)."""
        occ, stack, pol = [], [], []
        for i in range(self.n):
            closed = self.switch_closed(i, glitches=False)
            occ.append(closed)
            if not analog:
                stack.append(None)
                pol.append(None)
                continue
            pile = self.piles[i]
            touched = i in self.leaning or any(t == i for t, _ in self.leaning.values())
            if touched or any(t.lying for t in pile):
                stack.append(None)
                pol.append(None)
            elif not pile:
                stack.append(0)
                pol.append(0)
            else:
                stack.append(min(3, len(pile)))
                pol.append(1 if self._pile_field(pile) > 0 else -1)
        return Frame(self.now, tuple(occ), tuple(stack), tuple(pol))

    # --- human actions --------------------------------------------------------------
    def _thing(self, name: str) -> Thing:
        if not isinstance(name, str) or not name:
            raise ValueError(f"objects are named by non-empty strings, got {name!r}")
        strength = max(0.5, self.rng.gauss(1.0, self.magnets.tolerance))
        return Thing(name, self.polarity_of(name), strength)

    def _changed(self, what: str) -> None:
        self.revision += 1
        self.log.append((self.now, what))

    def put(self, spot: SpotRef, objects: str | Iterable[str]) -> None:
        """Set-up: put new objects on a spot (on top of what is there), not from the hand."""
        i = self.index(spot)
        names = [objects] if isinstance(objects, str) else list(objects)
        self.piles[i].extend(self._thing(n) for n in names)
        self._changed(f"put {names} on {self.name(i)}")

    @staticmethod
    def calibration_pile(step: str) -> list[str]:
        """The stones a builder piles on one spot for calibration step ``step`` ("white",
        "black-3", …; see ``controller.sensing.calibration.STEP_TEXT``)."""
        colour, _, height = step.partition("-")
        return [f"{colour}-stone"] * int(height or 1)

    def lay_calibration_step(self, step: str) -> None:
        """Set-up: the board as the builder lays it for a calibration step on every spot
        at once (nothing at all for "empty")."""
        self.clear()
        if step != "empty":
            pile = self.calibration_pile(step)
            for i in range(self.n):
                self.put(i, pile)

    def clear(self, spot: SpotRef | None = None) -> None:
        """Set-up: remove everything from one spot, or from the whole board and the hand."""
        if spot is None:
            self.piles = [[] for _ in range(self.n)]
            self.hand = []
            self.leaning.clear()
            self._changed("clear board")
            return
        i = self.index(spot)
        self.piles[i] = []
        self._unlean(i)
        self._changed(f"clear {self.name(i)}")

    def follow(self, action: str, spots: tuple[int, ...] = ()) -> None:
        """What a builder does when the self-test asks (``instruct``): "clear" the board,
        "place" a test magnet on each of ``spots``, or take them off again."""
        if action == "clear":
            self.clear()
        elif action == "place":
            for s in spots:
                self.put(s, "white-pawn")
        else:
            for s in spots:
                self.clear(s)

    def _unlean(self, i: int) -> None:
        self.leaning.pop(i, None)

    def lift(self, spot: SpotRef, count: int | None = None) -> list[str]:
        """Pick up the top ``count`` objects (all when None) of a spot; returns the hand."""
        i = self.index(spot)
        pile = self.piles[i]
        if not pile:
            raise ValueError(Text("nothing to lift on {spot}", spot=self.name(i)))
        k = len(pile) if count is None else count
        if not 1 <= k <= len(pile):
            raise ValueError(Text("cannot lift {count} of the {total} objects on {spot}",
                                  count=count, total=len(pile), spot=self.name(i)))
        taken = pile[len(pile) - k:]
        del pile[len(pile) - k:]
        for t in taken:
            t.lying = False
        self.hand.extend(taken)
        if not pile:
            self._unlean(i)
        self._changed(f"lift {k} from {self.name(i)}")
        return self.held

    def place(self, spot: SpotRef, count: int | None = None) -> list[str]:
        """Put down the last ``count`` objects picked up (all when None), keeping their
        order, on top of a spot; returns what is still in the hand."""
        i = self.index(spot)
        k = len(self.hand) if count is None else count
        if not self.hand or not 1 <= k <= len(self.hand):
            raise ValueError(Text("cannot place {count} objects: the hand holds {held}",
                                  count=count, held=repr(self.held)))
        moving = self.hand[len(self.hand) - k:]
        del self.hand[len(self.hand) - k:]
        self.piles[i].extend(moving)
        self._unlean(i)
        self._changed(f"place {k} on {self.name(i)}")
        return self.held

    def set_aside(self, count: int | None = None) -> list[str]:
        """Put the last ``count`` held objects off the board (a captured piece to the box)."""
        k = len(self.hand) if count is None else count
        if not 1 <= k <= len(self.hand):
            raise ValueError(Text("cannot set aside {count} objects: the hand holds {held}",
                                  count=count, held=repr(self.held)))
        self.aside.extend(self.hand[len(self.hand) - k:])
        del self.hand[len(self.hand) - k:]
        self._changed(f"set aside {k}")
        return self.held

    def take(self, objects: str | Iterable[str]) -> list[str]:
        """Take objects from off the board into the hand (e.g. a piece to drop)."""
        names = [objects] if isinstance(objects, str) else list(objects)
        self.hand.extend(self._thing(n) for n in names)
        self._changed(f"take {names}")
        return self.held

    def slide(self, path: Sequence[SpotRef], dwell_s: float = 0.05) -> None:
        """Drag the whole pile of ``path[0]`` over the board along ``path``: it rests
        ``dwell_s`` on every intermediate spot (sensed there) and stays on the last."""
        idx = [self.index(s) for s in path]
        if len(idx) < 2:
            raise ValueError("a slide needs at least two spots")
        if not self.piles[idx[0]]:
            raise ValueError(Text("nothing to slide on {spot}", spot=self.name(idx[0])))
        moving = self.piles[idx[0]]
        self.piles[idx[0]] = []
        self._unlean(idx[0])
        for k, i in enumerate(idx[1:], start=1):
            self.piles[i].extend(moving)
            self._changed(f"slide onto {self.name(i)}")
            if k == len(idx) - 1:
                break
            self.advance(dwell_s)
            del self.piles[i][len(self.piles[i]) - len(moving):]

    def knock_over(self, spot: SpotRef, onto_spot: SpotRef | None = None) -> None:
        """The pile of ``spot`` falls over: it lies on ``onto_spot`` (sensed weakly there),
        or off the board when None."""
        i = self.index(spot)
        pile = self.piles[i]
        if not pile:
            raise ValueError(Text("nothing to knock over on {spot}", spot=self.name(i)))
        self.piles[i] = []
        self._unlean(i)
        for t in pile:
            t.lying = True
        if onto_spot is None:
            self.aside.extend(pile)
            self._changed(f"knock {self.name(i)} off the board")
        else:
            j = self.index(onto_spot)
            self.piles[j].extend(pile)
            self._changed(f"knock {self.name(i)} onto {self.name(j)}")

    def bounce(self, spot: SpotRef, duration_s: float = 0.0015, toggles: int = 5) -> None:
        """Contact bounce / a wobble: over the next ``duration_s`` the sensor of ``spot``
        reads the opposite of the truth ``toggles`` times (about 0.5–1 ms for a reed)."""
        i = self.index(spot)
        if toggles < 1 or duration_s <= 0:
            raise ValueError("a bounce needs toggles >= 1 and a positive duration")
        step = max(1, round(duration_s * 1e6 / (2 * toggles - 1)))
        start = self.clock.us
        spans = [(start + 2 * k * step, start + (2 * k + 1) * step) for k in range(toggles)]
        self._glitches.setdefault(i, []).extend(spans)
        self._changed(f"bounce {self.name(i)}")

    def off_centre(self, spot: SpotRef, toward_spot: SpotRef, amount: float | None = None
                   ) -> None:
        """Push the pile of ``spot`` toward a neighbour: ``amount`` (default 0.7) of its
        field moves there, so it may miss its own cell and trigger the neighbour."""
        i, j = self.index(spot), self.index(toward_spot)
        if i == j:
            raise ValueError("off_centre needs a different neighbouring spot")
        if j not in self._neighbours[i]:
            raise ValueError(Text("{spot} is not next to {other}", spot=self.name(j),
                                  other=self.name(i)))
        if not self.piles[i]:
            raise ValueError(Text("nothing to push on {spot}", spot=self.name(i)))
        share = self.magnets.off_centre if amount is None else amount
        if not 0.0 <= share <= 1.0:
            raise ValueError(f"off-centre amount must be within 0..1, got {share}")
        self.leaning[i] = (j, share)
        self._changed(f"push {self.name(i)} toward {self.name(j)}")

    def break_sensor(self, spot: SpotRef, fault: str | None) -> None:
        """Hardware fault for self-tests: ``"dead"`` (never senses), ``"stuck"`` (always
        senses a magnet), ``"face-down"`` (mounted upside down: the field reads reversed)
        or None (repaired)."""
        i = self.index(spot)
        if fault is None:
            self.sensor_faults.pop(i, None)
        elif fault in ("dead", "stuck", "face-down"):
            self.sensor_faults[i] = fault
        else:
            raise ValueError(f"sensor fault must be 'dead', 'stuck', 'face-down' or None, "
                             f"got {fault!r}")
        self._changed(f"sensor {self.name(i)}: {fault or 'repaired'}")

    # --- time -----------------------------------------------------------------------------
    def every(self, period_s: float, fn: Callable[[], None], phase_s: float = 0.0) -> _Ticker:
        """Run ``fn`` every ``period_s`` of simulated time (first after ``phase_s``)."""
        period = round(period_s * 1e6)
        if period <= 0:
            raise ValueError(f"period must be positive, got {period_s}")
        self._order += 1
        t = _Ticker(self.clock.us + round(phase_s * 1e6), self._order, period, fn)
        heapq.heappush(self._tickers, t)
        return t

    def skip(self, seconds: float) -> None:
        """Let simulated time pass **without** running the attached scanners: for a board
        on which nothing can have changed (no action since the last scans settled), whose
        readings would only repeat.  Each scanner resumes on its own beat afterwards."""
        if seconds < 0:
            raise ValueError(f"time does not run backwards ({seconds} s)")
        end = self.clock.us + round(seconds * 1e6)
        for t in self._tickers:
            if t.due_us <= end:
                t.due_us += ((end - t.due_us) // t.period_us + 1) * t.period_us
        heapq.heapify(self._tickers)
        self.clock.us = end

    def advance(self, seconds: float) -> None:
        """Let simulated time pass; attached scanners and microcontrollers run meanwhile."""
        if seconds < 0:
            raise ValueError(f"time does not run backwards ({seconds} s)")
        end = self.clock.us + round(seconds * 1e6)
        while self._tickers and self._tickers[0].due_us <= end:
            t = heapq.heappop(self._tickers)
            if not t.active:
                continue
            self.clock.us = max(self.clock.us, t.due_us)
            t.due_us += t.period_us
            try:
                t.fn()
            finally:
                if self.clock.us > t.due_us:
                    # ``fn`` took emulated time (a microcontroller's busy wait): the
                    # beats it missed are skipped, not run back to back
                    missed = -(-(self.clock.us - t.due_us) // t.period_us)
                    t.due_us += missed * t.period_us
                heapq.heappush(self._tickers, t)
        self.clock.us = max(self.clock.us, end)  # a busy wait may run past it
