"""Per-spot calibration of linear hall sensors: readings → presence, colour, stack class.

A linear hall reads about half the supply with no magnet; a White magnet (south up)
raises the reading, a Black one (north up) lowers it; every further stone of a pile
adds less (the magnet is further away) until the 4th and higher add only a few mV
against tens of mV of magnet tolerance — so only 0 / 1 / 2 / 3+ is reported
(design/hardware.md).  Offsets and gains differ from sensor to sensor, hence a
calibration per spot: its baseline (empty), its reading with one White and one Black
piece, and — when measured — with piles of two and three.

Where piles were not measured, a spot's piles of 2 and 3 follow from its own one-stone
reading through the sensor's soft saturation (:func:`pile_levels`; the guided routine's
reference piles fit the saturation when they contradict the default), and
:func:`quality_line` names the spots whose classes lie too close for their noise and the
magnets' spread.

:func:`calibrate` runs the routine through two callables (tell the human what to do,
take one scan), so the CLI and the simulator drive it alike.  The result is stored as
JSON with a format version and the hash of the layout wiring it was made for;
:func:`load_calibration` refuses a file whose wiring differs.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from controller.sensing.frame import SensingError
from controller.sensing.muxfaults import SelectFault, find_in_calibration
from controller.sensing.muxfaults import describe as describe_select_fault

CALIBRATION_FORMAT = 1

#: DRV5055 output with no field: VCC/2 (ratiometric), on the 3.3 V sensors' rail
HALL_QUIESCENT_V = 3.3 / 2
#: a rest reading this far from VCC/2 is a sensor stuck, shorted or in a magnet's field
HALL_REST_LIMIT_V = 0.35
#: a piece changes its own sensor by about 0.5 V on lotus39 and its neighbours by < 10 mV
HALL_PIECE_V = 0.15

#: the pile geometry: sensor to the bottom stone's magnet, and one stone's height (mm)
MAGNET_DEPTH_MM = 6.0
STONE_HEIGHT_MM = 3.0


def pile_fields(depth_mm: float = MAGNET_DEPTH_MM, stone_mm: float = STONE_HEIGHT_MM
                ) -> tuple[float, float, float]:
    """The field of piles of 1, 2, 3 stones in units of one stone: each further magnet is
    a dipole seen from one stone further away (field ∝ 1/distance³)."""
    total, out = 0.0, []
    for level in range(3):
        total += (depth_mm / (depth_mm + level * stone_mm)) ** 3
        out.append(total)
    return (out[0], out[1], out[2])


#: piles of 1, 2, 3 stones in units of one stone's field (1, 1.30, 1.42)
PILE_FIELDS = pile_fields()
#: a linear hall's soft saturation (volts around its quiescent output: reading =
#: S·tanh(field·gain/S)), assumed when no pile was measured to fit it (the simulator's
#: default sensor; the piles measured by the guided calibration fit it on real boards)
DEFAULT_SATURATION_V = 1.2
#: relative spread (sigma) of the kit's magnet strengths, for the quality report
MAGNET_TOLERANCE = 0.02

STEP_TEXT = {
    "empty": "Clear the board and every pad.",
    "white": "Put one White piece (a single stone) on each lit spot",
    "black": "Put one Black piece (a single stone) on each lit spot",
    "white-2": "Put a pile of two White stones on each lit spot",
    "white-3": "Put a pile of three White stones on each lit spot",
    "black-2": "Put a pile of two Black stones on each lit spot",
    "black-3": "Put a pile of three Black stones on each lit spot",
}
BASIC_STEPS = ("empty", "white", "black")
STACK_STEPS = ("white-2", "white-3", "black-2", "black-3")


class CalibrationError(SensingError):
    """A calibration is missing, malformed, made for other wiring, or a step failed."""


def wiring_hash(layout) -> str:
    """A short hash of everything that decides which sensor reads which spot."""
    data = {
        "layout": layout.name, "sensing": layout.sensing, "sensor_kind": layout.sensor_kind,
        "spots": [[s.name, s.sensor.row, s.sensor.column, s.sensor.chain, s.sensor.channel]
                  for s in layout.spots],
    }
    text = json.dumps(data, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class SpotCalibration:
    """One sensor: ``baseline`` reading, its ``noise`` (sigma), and the reading change
    for a pile of 1, 2, 3 White (positive) and Black (negative) pieces."""

    baseline: float
    noise: float
    white: tuple[float, float, float]
    black: tuple[float, float, float]

    def levels(self, polarity: int) -> tuple[float, float, float]:
        """The size of the reading change for piles of 1, 2, 3 of one colour."""
        if polarity > 0:
            return self.white
        return (-self.black[0], -self.black[1], -self.black[2])

    def thresholds(self, polarity: int) -> tuple[float, float, float]:
        """Sizes of the reading change between empty|1, 1|2 and 2|3 of one colour: half
        the single piece (at least 4 σ of noise), then halfway between pile levels."""
        one, two, three = self.levels(polarity)
        return (max(one / 2, 4 * self.noise), (one + two) / 2, (two + three) / 2)

    def classify(self, reading: float) -> tuple[bool, int, int]:
        """``(occupied, stack class, polarity)`` of one reading."""
        d = reading - self.baseline
        presence, one_two, two_three = self.thresholds(1 if d >= 0 else -1)
        a = abs(d)
        if a < presence:
            return (False, 0, 0)
        if a < one_two:
            stack = 1
        elif a < two_three:
            stack = 2
        else:
            stack = 3
        return (True, stack, 1 if d > 0 else -1)


@dataclass(frozen=True)
class Calibration:
    layout: str
    wiring: str
    spots: tuple[SpotCalibration, ...]
    unit: str = "V"
    format: int = CALIBRATION_FORMAT

    def classify(self, readings: Sequence[float]) -> list[tuple[bool, int, int]]:
        """Per-spot readings → per-spot ``(occupied, stack, polarity)``."""
        if len(readings) != len(self.spots):
            raise CalibrationError(f"{len(readings)} readings for {len(self.spots)} "
                                   "calibrated spots")
        return [c.classify(v) for c, v in zip(self.spots, readings, strict=True)]

    def to_json(self) -> str:
        return json.dumps({
            "format": self.format, "layout": self.layout, "wiring": self.wiring,
            "unit": self.unit,
            "spots": [{"baseline": c.baseline, "noise": c.noise, "white": list(c.white),
                       "black": list(c.black)} for c in self.spots],
        }, indent=1)

    def save(self, path: Path | str) -> None:
        """Atomically and durably (:func:`write_atomically`)."""
        write_atomically(path, self.to_json())


def write_atomically(path: Path | str, text: str) -> None:
    """A temporary file synced to disk, renamed over the old one, the folder synced — a
    power cut leaves the old file or the new one, never half of one."""
    path = Path(path)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)  # never leave half a calibration behind
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def parse_calibration(text: str, layout, source: str = "calibration") -> Calibration:
    """Parse and check a calibration against the layout it is used with."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(f"{source}: not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise CalibrationError(f"{source}: expected a JSON object")
    fmt = data.get("format")
    if fmt != CALIBRATION_FORMAT:
        raise CalibrationError(f"{source}: calibration format {fmt!r} is not supported "
                               f"(this version reads format {CALIBRATION_FORMAT}); recalibrate")
    if data.get("layout") != layout.name:
        raise CalibrationError(f"{source}: made for layout {data.get('layout')!r}, "
                               f"not {layout.name!r}")
    expected = wiring_hash(layout)
    if data.get("wiring") != expected:
        raise CalibrationError(
            f"{source}: made for wiring {data.get('wiring')!r} but layout {layout.name} now "
            f"has wiring {expected!r} (sensors moved or rewired): run the calibration again")
    entries = data.get("spots")
    if not isinstance(entries, list) or len(entries) != len(layout.spots):
        raise CalibrationError(f"{source}: expected {len(layout.spots)} spot entries")
    spots = []
    for i, e in enumerate(entries):
        try:
            white = tuple(float(x) for x in e["white"])
            black = tuple(float(x) for x in e["black"])
            cal = SpotCalibration(float(e["baseline"]), float(e["noise"]), white, black)
        except (KeyError, TypeError, ValueError):
            raise CalibrationError(f"{source}: spot {layout.spots[i].name}: malformed "
                                   "entry") from None
        if len(white) != 3 or len(black) != 3:
            raise CalibrationError(f"{source}: spot {layout.spots[i].name}: white and black "
                                   "need three levels")
        spots.append(cal)
    return Calibration(layout.name, expected, tuple(spots), str(data.get("unit", "V")))


def load_calibration(path: Path | str, layout) -> Calibration:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(f"{path}: cannot read the calibration: {exc.strerror}; "
                               "run the calibration first") from None
    return parse_calibration(text, layout, str(path))


# --- pile levels from the sensor's physics -----------------------------------------------

#: readings are predicted up to this share of the saturation (atanh stays finite)
_SATURATION_SHARE = 0.999
#: measured piles that miss the default saturation's prediction by more than this many σ
#: of the magnet spread (RMS) fit the saturation instead
SATURATION_MISFIT = 2.0


def _drive(reading: float, saturation_v: float) -> float:
    """What a sensor saturating at ``saturation_v`` would read without saturating."""
    x = max(-_SATURATION_SHARE, min(_SATURATION_SHARE, reading / saturation_v))
    return saturation_v * math.atanh(x)


def pile_levels(one: float, saturation_v: float = DEFAULT_SATURATION_V,
                fields: Sequence[float] = PILE_FIELDS) -> tuple[float, float, float]:
    """A spot's reading changes for piles of 1, 2, 3 stones, from its own one-stone
    reading: the pile's field (``fields``, in stones) times this sensor's gain, through
    its soft saturation.  A fixed ratio to the one-stone reading is off wherever a
    sensor's gain differs from the one the ratio was taken at: by up to 9 mV on the 2|3
    threshold of the simulator's kit (gains ±15 %), 20 mV for a sensor 30 % more sensitive."""
    drive = _drive(one, saturation_v)
    two, three = (saturation_v * math.tanh(drive * f / saturation_v) for f in fields[1:3])
    return (one, two, three)


def fit_saturation(piles: Sequence[Sequence[float]], fields: Sequence[float] = PILE_FIELDS,
                   default: float = DEFAULT_SATURATION_V,
                   tolerance: float = MAGNET_TOLERANCE) -> float:
    """The sensors' saturation, from piles measured on a few reference spots (per spot
    the reading changes for 1 and 2 [and 3] stones): ``default`` unless their one-stone
    readings predict them worse than the magnets' ``tolerance`` explains (RMS beyond
    :data:`SATURATION_MISFIT` σ), then the saturation that predicts them best.  A pile is
    made of other magnets than the single piece, so a fit to two or three piles carries
    their spread (±10 % of the saturation, ±10 mV on every spot's 2|3 threshold) into the
    whole board: the default is kept where the piles agree with it."""
    piles = [[abs(v) for v in p[:3]] for p in piles if len(p) >= 2 and abs(p[0]) > 0]
    if not piles:
        return default
    top = max(max(p) for p in piles)

    def misfit(log_s: float) -> float:
        """Mean square of the prediction errors in σ of the magnet spread: a pile and
        the single piece differ by about √2 × the tolerance."""
        s = math.exp(log_s)
        errors = [(v - pile_levels(p[0], s, fields)[k]) / (math.sqrt(2) * tolerance * v)
                  for p in piles for k, v in enumerate(p[1:], start=1)]
        return sum(e * e for e in errors) / len(errors)

    if misfit(math.log(default)) <= SATURATION_MISFIT ** 2:
        return default
    lo, hi = math.log(top * 1.001), math.log(top * 50)
    grid = [lo + (hi - lo) * k / 60 for k in range(61)]
    best = min(range(len(grid)), key=lambda k: misfit(grid[k]))
    a, b = grid[max(0, best - 1)], grid[min(len(grid) - 1, best + 1)]
    for _ in range(40):  # golden section around the best grid point
        c, d = b - (b - a) * 0.618, a + (b - a) * 0.618
        if misfit(c) < misfit(d):
            b = d
        else:
            a = c
    return math.exp((a + b) / 2)


def _stats(scans: Sequence[Sequence[float]], n: int) -> tuple[list[float], list[float]]:
    means, sigmas = [], []
    for i in range(n):
        vals = [s[i] for s in scans]
        m = sum(vals) / len(vals)
        means.append(m)
        sigmas.append(math.sqrt(sum((v - m) ** 2 for v in vals) / max(1, len(vals) - 1)))
    return means, sigmas


def calibrate(layout, sample: Callable[[], Sequence[float]],
              prompt: Callable[[str, str], None], *, samples: int = 16,
              steps: Sequence[str] = BASIC_STEPS) -> Calibration:
    """Run the calibration routine.

    For each step, ``prompt(step, instruction)`` must return once the human has done it
    (the CLI waits for Enter; the simulator performs it); then ``sample()`` is called
    ``samples`` times, each returning one reading per spot.  ``steps`` must include
    ``empty``, ``white`` and ``black``; the stack steps (``white-2`` …) are optional: the
    piles they measure are taken as measured and fit the sensors' saturation, the others
    are predicted from each spot's one-stone reading (:func:`pile_levels`)."""
    for s in BASIC_STEPS:
        if s not in steps:
            raise CalibrationError(f"calibration steps must include {s!r}")
    for s in steps:
        if s not in STEP_TEXT:
            raise CalibrationError(f"unknown calibration step {s!r} ({', '.join(STEP_TEXT)})")
    if samples < 2:
        raise CalibrationError("take at least 2 samples per step")
    n = len(layout.spots)
    means: dict[str, list[float]] = {}
    noise: list[float] = [0.0] * n
    for step in steps:
        prompt(step, STEP_TEXT[step])
        scans = [list(sample()) for _ in range(samples)]
        if any(len(s) != n for s in scans):
            raise CalibrationError(f"step {step}: a scan did not give {n} readings")
        m, sd = _stats(scans, n)
        means[step] = m
        noise = [max(a, b) for a, b in zip(noise, sd, strict=True)]
    means["white-1"], means["black-1"] = means["white"], means["black"]
    measured = []  # per spot and colour the piles measured from one stone up
    for colour in ("white", "black"):
        for i in range(n):
            pile = []
            for k in (1, 2, 3):
                if f"{colour}-{k}" not in means:
                    break
                pile.append(means[f"{colour}-{k}"][i] - means["empty"][i])
            measured.append(pile)
    saturation = fit_saturation(measured)
    spots = []
    problems = []
    for i in range(n):
        base = means["empty"][i]
        levels = {}
        for colour, sign in (("white", 1), ("black", -1)):
            one = means[colour][i] - base
            if sign * one < max(8 * noise[i], 1e-9):
                problems.append(f"{layout.spots[i].name} ({colour})")
            predicted = pile_levels(one, saturation)
            pile = [means[f"{colour}-{k}"][i] - base if f"{colour}-{k}" in means
                    else predicted[k - 1] for k in (1, 2, 3)]
            levels[colour] = (pile[0], pile[1], pile[2])
        spots.append(SpotCalibration(base, noise[i], levels["white"], levels["black"]))
    if problems:
        raise CalibrationError(
            "these sensors did not respond to a magnet of the expected polarity (dead "
            "sensor, missing piece or magnet upside down): " + ", ".join(problems))
    return Calibration(layout.name, wiring_hash(layout), tuple(spots))


# --- guided calibration: spot by spot, with the pieces of the kit ------------------------

#: the guided routine's steps: the empty board at once, one White and one Black piece
#: walked spot by spot, then piles of two and three White stones on a few spots
GUIDED_STEPS = ("empty", "white", "black", "white-2", "white-3")
#: a reading this far from the empty one (volts) is a magnet, whatever the noise
MIN_PIECE_V = 0.02
#: a reading has settled when its last scans lie within this share of the magnet's
#: reading (or within the noise)
SETTLED_SHARE = 0.05
#: a pile is recognised once it reads this share of the way from the smaller pile to the
#: expected one (:func:`pile_levels` with the default saturation)
PILE_SHARE = 0.4


@dataclass
class CalibrationProgress:
    """What a guided calibration has measured so far: the empty board's readings and
    noise, and per step the reading of every spot done — saved after each spot, so a
    calibration stopped half way continues where it stopped."""

    layout: str
    wiring: str
    baseline: list[float] | None = None
    noise: list[float] | None = None
    levels: dict[str, dict[int, float]] | None = None

    def done(self, step: str) -> dict[int, float]:
        if self.levels is None:
            self.levels = {}
        return self.levels.setdefault(step, {})

    def to_json(self) -> str:
        return json.dumps({"format": CALIBRATION_FORMAT, "progress": True,
                           "layout": self.layout, "wiring": self.wiring,
                           "baseline": self.baseline, "noise": self.noise,
                           "levels": {k: {str(i): v for i, v in d.items()}
                                      for k, d in (self.levels or {}).items()}})

    def save(self, path: Path | str) -> None:
        write_atomically(path, self.to_json())

    @classmethod
    def start(cls, layout) -> CalibrationProgress:
        return cls(layout.name, wiring_hash(layout))

    @classmethod
    def load(cls, path: Path | str, layout) -> CalibrationProgress | None:
        """The saved progress for this layout and wiring, or None (none, or made for
        other wiring: then the calibration starts again)."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("wiring") != wiring_hash(layout) \
                or data.get("layout") != layout.name:
            return None
        n = len(layout.spots)
        try:
            levels = {str(k): {int(i): float(v) for i, v in d.items() if 0 <= int(i) < n}
                      for k, d in (data.get("levels") or {}).items()}
            base = data.get("baseline")
            noise = data.get("noise")
            if base is not None and (len(base) != n or len(noise) != n):
                return None
            return cls(layout.name, data["wiring"],
                       None if base is None else [float(x) for x in base],
                       None if noise is None else [float(x) for x in noise], levels)
        except (TypeError, ValueError, AttributeError):
            return None

    def readings(self) -> int:
        """How many spot readings (White and Black pieces, piles) are done."""
        return sum(len(d) for d in (self.levels or {}).values())


def pile_spots(layout, count: int = 2) -> list[int]:
    """A few spots spread over the board for the piles (cells first)."""
    cells = [i for i, s in enumerate(layout.spots) if s.kind == "cell"] or \
        list(range(len(layout.spots)))
    if count <= 0:
        return []
    step = max(1, len(cells) // count)
    return [cells[min(len(cells) - 1, step // 2 + k * step)] for k in range(count)]


def calibrate_guided(layout, sample: Callable[[], Sequence[float]],
                     guide: Callable[[str, tuple[int, ...]], None],
                     wait: Callable[[float], None], progress: CalibrationProgress, *,
                     save: Callable[[CalibrationProgress], None] = lambda p: None,
                     samples: int = 16, window: int = 6, poll_s: float = 0.02,
                     timeout_s: float = 60.0, pieces: int = 1, piles: int = 2,
                     say: Callable[[str], None] = lambda text: None,
                     pins: Mapping[str, str] | None = None) -> Calibration:
    """Calibrate with the pieces of the kit: the empty board at once, then the spots lit
    ``pieces`` at a time; each spot's reading is taken as soon as a magnet reads there
    steadily (``window`` scans within the noise) — nobody presses a key per spot.

    ``guide(step, spots)``: with no spots a step begins (the CLI asks for Enter once per
    step: clear the board, take the White piece …); with spots, light them (the simulated
    builder moves his pieces there).  ``progress`` is updated and ``save``d after every
    spot; a spot that reads no magnet in ``timeout_s`` is left for a later run.  Raises
    :class:`CalibrationError` naming the spots still missing."""
    n = len(layout.spots)
    if progress.baseline is None or progress.noise is None:
        guide("empty", ())
        scans = []
        for _ in range(samples):
            scans.append(list(sample()))
            wait(poll_s)
        if any(len(s) != n for s in scans):
            raise CalibrationError(f"a scan did not give {n} readings")
        baseline, noise_ = _stats(scans, n)
        problem = rest_fault(layout, baseline)
        if problem:  # a baseline kept from it would misread the spot ever after
            guide("done", ())
            raise CalibrationError(problem + ". Nothing is saved: run the calibration again")
        progress.baseline, progress.noise = baseline, noise_
        save(progress)
    base, noise = progress.baseline, progress.noise
    findings: list[WalkFindings] = []
    for step in ("white", "black"):
        sign = 1 if step == "white" else -1
        todo = [i for i in range(n) if i not in progress.done(step)]
        if todo:
            guide(step, ())

        def floor(i: int, sign: int = sign) -> float:
            return sign * max(8 * noise[i], MIN_PIECE_V)

        findings.append(_walk(layout, step, todo, floor, sample, guide, wait, progress,
                              save, window, poll_s, timeout_s, pieces, say))
        if select_fault(layout, findings) is not None:  # every later step reads it again
            guide("done", ())
            raise CalibrationError(
                "; ".join(walk_faults(layout, findings, pins)) + ". The rest is saved: fix "
                "it and run the calibration again, it continues where it stopped")
    singles = progress.done("white")
    targets = [i for i in pile_spots(layout, piles) if i in singles]
    previous = singles
    for height, step in ((2, "white-2"), (3, "white-3")):
        todo = [i for i in targets if i not in progress.done(step)]
        if todo:
            guide(step, ())
        smaller = previous

        def pile_floor(i: int, smaller: dict[int, float] = smaller, h: int = height) -> float:
            expected = pile_levels(singles[i] - base[i])
            below = smaller[i] - base[i]
            return below + PILE_SHARE * (expected[h - 1] - expected[h - 2])

        _walk(layout, step, [i for i in todo if i in smaller], pile_floor, sample, guide,
              wait, progress, save, window, poll_s, timeout_s, 1, say)
        previous = progress.done(step)
    guide("done", ())
    faults = walk_faults(layout, findings, pins)
    if faults:  # no table is saved that these spots would make wrong
        raise CalibrationError(
            "; ".join(faults) + ". The rest is saved: fix them and run the calibration "
            "again, it continues where it stopped")
    # the reference piles fit the sensors' saturation; every spot's piles follow from its
    # own one-stone reading through it (its gain decides how far it saturates)
    measured = []
    for i in targets:
        pile = [singles[i] - base[i]]
        for step in ("white-2", "white-3"):
            if i not in progress.done(step):
                break
            pile.append(progress.done(step)[i] - base[i])
        measured.append(pile)
    saturation = fit_saturation(measured)
    spots = []
    for i in range(n):
        white = pile_levels(progress.done("white")[i] - base[i], saturation)
        black = pile_levels(progress.done("black")[i] - base[i], saturation)
        spots.append(SpotCalibration(base[i], noise[i], white, black))
    return Calibration(layout.name, wiring_hash(layout), tuple(spots))


def rest_fault(layout, baseline: Sequence[float]) -> str:
    """The empty board's fault, as the builder fixes it: spots whose sensor reads far from
    a linear hall's rest (half its supply) — a piece left there, a magnet under it or a
    faulty sensor — or, when every sensor does, their supply; "" when none does."""
    off = [i for i, v in enumerate(baseline) if abs(v - HALL_QUIESCENT_V) > HALL_REST_LIMIT_V]
    if not off:
        return ""
    rest = f"far from the {HALL_QUIESCENT_V:.2f} V of a linear hall at rest (half its supply)"
    if len(off) == len(baseline) > 1:
        mean = sum(baseline) / len(baseline)
        return (f"every sensor reads about {mean:.2f} V on the empty board, {rest}: the "
                "sensors get no supply or their common line is shorted — check 3.3 V and "
                "GND at the sensor rail")
    if len(off) == 1:
        read = f"{layout.spots[off[0]].name} reads {baseline[off[0]]:.2f} V"
    else:
        read = ", ".join(f"{layout.spots[i].name} ({baseline[i]:.2f} V)" for i in off) + " read"
    return (f"on the empty board {read}, {rest}: a piece or magnet lies there, or the sensor "
            "is faulty — clear the spot, else replace the sensor")


@dataclass
class WalkFindings:
    """What one step's walk saw besides the readings it took: spots that read nothing
    (``missed``), a sensor that read the piece with the other sign (``reversed``: face
    down), and a piece on a lit spot read only on another spot (``elsewhere``)."""

    missed: list[str] = field(default_factory=list)
    reversed: list[int] = field(default_factory=list)
    elsewhere: dict[int, int] = field(default_factory=dict)
    #: lit spots that read their piece (a select line's fault must leave them readable)
    took: list[int] = field(default_factory=list)


def _steady(history: Sequence[float], base: float, floor: float, noise: float,
            window: int) -> float | None:
    """The mean of the last ``window`` readings when all lie beyond ``floor`` (signed)
    from ``base`` and have settled, else None."""
    sign = 1 if floor >= 0 else -1
    if len(history) < window or not all((x - base) * sign >= abs(floor) for x in history):
        return None
    mean = sum(history) / len(history)
    # settled: still within the noise, or within a few per cent of the magnet's own
    # reading (a piece still being lowered changes by far more)
    if max(history) - min(history) > max(6 * noise, SETTLED_SHARE * abs(mean - base)):
        return None
    return mean


def _walk(layout, step: str, todo: list[int], floor: Callable[[int], float],
          sample: Callable[[], Sequence[float]], guide: Callable[[str, tuple[int, ...]], None],
          wait: Callable[[float], None], progress: CalibrationProgress,
          save: Callable[[CalibrationProgress], None], window: int, poll_s: float,
          timeout_s: float, pieces: int, say: Callable[[str], None]) -> WalkFindings:
    """Light the spots of ``todo`` ``pieces`` at a time and record each as soon as it
    reads beyond ``floor(spot)`` (signed) steadily.  Spots not lit are taken only once the
    lit ones read (a builder with more pieces runs ahead): a piece on a lit spot that reads
    on another spot alone (two sensors on each other's inputs) must not calibrate that
    spot from the wrong sensor; it is noted, as is a lit sensor that reads the piece with
    the other sign (face down)."""
    done = progress.done(step)
    noise = progress.noise or []
    base = progress.baseline or []
    n = len(layout.spots)
    found = WalkFindings()
    pending = list(todo)
    recent: dict[int, list[float]] = {i: [] for i in range(n)}
    while pending:
        lit = tuple(pending[:max(1, pieces)])
        guide(step, lit)
        waited = 0.0
        while any(i in pending for i in lit):
            readings = sample()
            taken = False
            for i in range(n):
                history = recent[i]
                history.append(readings[i])
                del history[:-window]
            for i in [j for j in lit if j in pending]:
                f = floor(i)
                mean = _steady(recent[i], base[i], f, noise[i], window)
                if mean is not None:
                    done[i] = mean
                    pending.remove(i)
                    found.took.append(i)
                    taken = True
                elif _steady(recent[i], base[i], -f, noise[i], window) is not None:
                    pending.remove(i)
                    found.reversed.append(i)
                    say(f"{layout.spots[i].name}: the piece reads with the other sign "
                        "(sensor face down?); skipped")
            waiting = [i for i in lit if i in pending]
            # a builder with more pieces may run ahead: take those too (with one piece, a
            # spot reading it is another spot's sensor on its input: not calibrated so)
            if not waiting and pieces > 1:
                for i in list(pending):
                    mean = _steady(recent[i], base[i], floor(i), noise[i], window)
                    if mean is not None:
                        done[i] = mean
                        pending.remove(i)
            if len(waiting) == 1:
                for j in range(n):
                    if j in lit or j in done or j in found.reversed:
                        continue  # (the piece on the spot done last may still lie there)
                    g = max(8 * noise[j], MIN_PIECE_V)
                    if any(_steady(recent[j], base[j], sign * g, noise[j], window)
                           is not None for sign in (1, -1)):
                        found.elsewhere[waiting[0]] = j
            if taken:
                save(progress)
            if waited >= timeout_s:
                for i in lit:
                    if i in pending:
                        pending.remove(i)
                        found.missed.append(layout.spots[i].name)
                        say(f"{layout.spots[i].name}: no magnet read in {timeout_s:g} s; "
                            "skipped")
                break
            wait(poll_s)
            waited += poll_s
    return found


def select_fault(layout, findings: Sequence[WalkFindings]) -> SelectFault | None:
    """A multiplexer select line open or two swapped, as the walks so far show it."""
    index = {s.name: i for i, s in enumerate(layout.spots)}
    elsewhere: dict[int, int] = {}
    missed: set[int] = set()
    for f in findings:
        elsewhere.update(f.elsewhere)
        missed |= {index[m] for m in f.missed}
    missed_at = {i: frozenset({elsewhere[i]} if i in elsewhere else ()) for i in missed}
    took = {i for f in findings for i in f.took} - missed
    return find_in_calibration(layout, missed_at, took)


def walk_faults(layout, findings: Sequence[WalkFindings],
                select_pins: Mapping[str, str] | None = None) -> list[str]:
    """The faults the single-piece walks found, each as the builder fixes it: two sensors
    on each other's inputs, sensors face down (or the test piece's magnet upside down,
    when every sensor reads it so), spots that read no magnet at all."""
    from controller.boardprint import chip_input

    names = [s.name for s in layout.spots]
    elsewhere: dict[int, int] = {}
    reversed_: set[int] = set()
    missed: list[str] = []
    for f in findings:
        elsewhere.update(f.elsewhere)
        reversed_.update(f.reversed)
        missed += [m for m in f.missed if m not in missed]
    faults: list[str] = []
    explained: set[str] = set()
    select = select_fault(layout, findings)
    if select is not None:  # one line instead of a dozen dead or crossed spots
        faults.append(describe_select_fault(layout, select, select_pins or {}))
        explained |= set(missed)
    for a, b in sorted(elsewhere.items()):
        if names[a] in explained:
            continue
        if a < b and elsewhere.get(b) == a and {names[a], names[b]} <= set(missed):
            faults.append(f"the sensors of {names[a]} and {names[b]} are on each other's "
                          f"inputs: swap the wires at {chip_input(layout, layout.spots[a])} "
                          f"and {chip_input(layout, layout.spots[b])}")
            explained |= {names[a], names[b]}
    for a, b in sorted(elsewhere.items()):
        if names[a] in missed and names[a] not in explained:
            faults.append(f"a piece on {names[a]} reads only on {names[b]}: the sensor "
                          f"wires of {names[a]} go to {chip_input(layout, layout.spots[b])}")
            explained.add(names[a])
    if reversed_ and len(reversed_) == len(layout.spots):
        faults.append("every sensor reads the test piece with the other sign: its magnet "
                      "is upside down (White pieces have the south pole down); turn it over")
    elif reversed_:
        faults.append("face down (a White piece reads as Black: turn the sensor over, "
                      "marked face up toward the piece): "
                      + ", ".join(names[i] for i in sorted(reversed_)))
    dead = [m for m in missed if m not in explained]
    if dead:
        faults.append("no magnet read on " + ", ".join(dead) + " (dead sensor or not "
                      "connected, or no piece put there)")
    return faults


# --- how reliably each spot tells its classes apart --------------------------------------

#: the boundaries between adjacent classes: empty|one piece, 1|2 and 2|3+ stones
BOUNDARIES = ("presence", "1|2", "2|3")
#: a boundary is told apart reliably when the pile levels on both sides of it lie at least
#: this many sigmas from its threshold (noise and magnet spread combined): at 2 σ about
#: one pile in forty lies close enough to flicker
MIN_MARGIN_SIGMA = 2.0
#: at most this many spots are named per boundary in the quality line
NAMED_SPOTS = 8


def spot_margins(spot: SpotCalibration, tolerance: float = MAGNET_TOLERANCE,
                 fields: Sequence[float] = PILE_FIELDS, *, magnets: bool = True
                 ) -> dict[str, float]:
    """Per boundary (:data:`BOUNDARIES`) the smallest distance, over both colours, of the
    pile levels beside it to its threshold, in sigmas of: the sensor's noise, the spread
    of a pile's reading from its magnets' ``tolerance`` and that of the threshold, which
    follows from one calibration magnet's reading.  ``magnets=False``: noise only.  The
    reading per unit of field is taken between adjacent pile levels (slightly more than
    the slope at a level: on the safe side), so any calibration is judged alike."""
    out = dict.fromkeys(BOUNDARIES, math.inf)
    f = (0.0, *fields[:3])
    spread_of_pile = [math.sqrt(sum((f[k + 1] - f[k]) ** 2 for k in range(height)))
                      for height in range(4)]
    tol = tolerance if magnets else 0.0
    for polarity in (1, -1):
        levels = (0.0, *spot.levels(polarity))
        thresholds = spot.thresholds(polarity)
        slope = [0.0] + [max(0.0, (levels[k] - levels[k - 1]) / (f[k] - f[k - 1]))
                         for k in (1, 2, 3)]
        spread = [tol * spread_of_pile[k] * slope[k] for k in range(4)]
        for low, name in enumerate(BOUNDARIES):
            high = low + 1
            threshold = thresholds[low]
            moved = tol * (f[low] * slope[low] + f[high] * slope[high]) / 2
            for k, distance in ((low, threshold - levels[low]),
                                (high, levels[high] - threshold)):
                sigma = math.sqrt(spot.noise ** 2 + spread[k] ** 2 + moved ** 2)
                margin = distance / sigma if sigma > 0 else math.inf
                out[name] = min(out[name], margin)
    return out


#: what to do, by what keeps a spot's classes too close together
ADVICE = {
    "magnets": "the magnets' spread is too large for the little a pile's top stone adds: "
               "use magnets of even strength (sort them by reading), thinner stones or a "
               "thicker board top",
    "saturated": "the sensor saturates (piles read almost alike): use weaker magnets or a "
                 "thicker board top, or a less sensitive sensor",
    "weak": "too little signal over the noise: check those sensors and their wiring, or use "
            "stronger magnets or a thinner board top",
}
#: a spot whose pile of three reads less than this many times its single stone saturates
#: (1.42 unsaturated, 1.35 on the simulator's default sensor)
SATURATED_RATIO = 1.2


@dataclass(frozen=True)
class WeakBoundary:
    """Spots whose classes beside one boundary are not told apart reliably, weakest
    first, each with its margin (σ), and what mostly keeps them apart too little
    (:data:`ADVICE`): with perfectly even magnets they would be told apart ("magnets"),
    or not: the sensor saturates ("saturated") or reads too little ("weak")."""

    boundary: str
    spots: tuple[tuple[str, float], ...]
    cause: str


def _cause(spot: SpotCalibration, boundary: str, tolerance: float, minimum: float) -> str:
    if spot_margins(spot, tolerance, magnets=False)[boundary] >= minimum:
        return "magnets"
    levels = [spot.levels(p) for p in (1, -1)]
    if min(lv[0] for lv in levels) <= 0:
        return "weak"
    ratio = min(lv[2] / lv[0] for lv in levels)
    return "saturated" if ratio < SATURATED_RATIO else "weak"


def weak_boundaries(calibration: Calibration, layout, *, tolerance: float = MAGNET_TOLERANCE,
                    minimum: float = MIN_MARGIN_SIGMA) -> list[WeakBoundary]:
    """The boundaries some spots do not tell apart reliably, 2|3 first."""
    out = []
    for b in reversed(BOUNDARIES):
        weak = []
        causes: dict[str, int] = {}
        for s, spot in zip(layout.spots, calibration.spots, strict=True):
            margin = spot_margins(spot, tolerance)[b]
            if margin < minimum:
                weak.append((s.name, margin))
                cause = _cause(spot, b, tolerance, minimum)
                causes[cause] = causes.get(cause, 0) + 1
        if weak:
            out.append(WeakBoundary(b, tuple(sorted(weak, key=lambda x: x[1])),
                                    max(causes, key=lambda c: causes[c])))
    return out


def quality_line(calibration: Calibration, layout, *, tolerance: float = MAGNET_TOLERANCE,
                 minimum: float = MIN_MARGIN_SIGMA) -> str | None:
    """One line naming the spots whose classes cannot be told apart reliably and what to
    do about it; None when every spot tells every class apart."""
    weak = weak_boundaries(calibration, layout, tolerance=tolerance, minimum=minimum)
    if not weak:
        return None
    total = len(calibration.spots)
    parts = []
    for w in weak:
        what = "a piece from empty" if w.boundary == "presence" else \
            f"piles of {w.boundary.replace('|', ' and ')}"
        named = ", ".join(f"{n} {m:.1f}σ" for n, m in w.spots[:NAMED_SPOTS])
        more = len(w.spots) - NAMED_SPOTS
        named += f" and {more} more" if more > 0 else ""
        parts.append(f"{what} on {len(w.spots)} of {total} spots ({named})")
    advice = "; ".join(dict.fromkeys(ADVICE[w.cause] for w in weak))
    return (f"calibration warning: not told apart reliably (want {minimum:g}σ of noise and "
            f"magnet spread): {', '.join(parts)} — {advice}")
