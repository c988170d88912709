"""Per-spot calibration of linear hall sensors: readings → presence, colour, stack class.

A linear hall reads about half the supply with no magnet; a White magnet (south up)
raises the reading, a Black one (north up) lowers it; every further stone of a pile
adds less (the magnet is further away) until the 4th and higher add only a few mV
against tens of mV of magnet tolerance — so only 0 / 1 / 2 / 3+ is reported
(design/hardware.md).  Offsets and gains differ from sensor to sensor, hence a
calibration per spot: its baseline (empty), its reading with one White and one Black
piece, and — when measured — with piles of two and three.

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.sensing.frame import SensingError

CALIBRATION_FORMAT = 1

#: pile of 2 and 3 relative to one piece when the stack steps were not measured:
#: dipole fall-off with 3 mm stones over 6 mm of board, through the sensor's soft
#: saturation (the numbers of the simulator's default model; measure on real boards)
DEFAULT_STACK_RATIOS = (1.0, 1.25, 1.35)

STEP_TEXT = {
    "empty": "Clear the board and every pad.",
    "white": "Put one White piece (a single stone) on every cell and pad.",
    "black": "Put one Black piece (a single stone) on every cell and pad.",
    "white-2": "Put a pile of two White stones on every cell and pad.",
    "white-3": "Put a pile of three White stones on every cell and pad.",
    "black-2": "Put a pile of two Black stones on every cell and pad.",
    "black-3": "Put a pile of three Black stones on every cell and pad.",
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

    def classify(self, reading: float) -> tuple[bool, int, int]:
        """``(occupied, stack class, polarity)`` of one reading."""
        d = reading - self.baseline
        levels = self.white if d >= 0 else tuple(-x for x in self.black)
        if abs(d) < max(levels[0] / 2, 4 * self.noise):
            return (False, 0, 0)
        a = abs(d)
        if a < (levels[0] + levels[1]) / 2:
            stack = 1
        elif a < (levels[1] + levels[2]) / 2:
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
        """Atomically and durably: a temporary file synced to disk, renamed over the old
        one, the folder synced — a power cut leaves the old calibration or the new one."""
        path = Path(path)
        tmp = path.with_suffix(path.suffix + ".tmp")
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(self.to_json())
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
              steps: Sequence[str] = BASIC_STEPS,
              stack_ratios: Sequence[float] = DEFAULT_STACK_RATIOS) -> Calibration:
    """Run the calibration routine.

    For each step, ``prompt(step, instruction)`` must return once the human has done it
    (the CLI waits for Enter; the simulator performs it); then ``sample()`` is called
    ``samples`` times, each returning one reading per spot.  ``steps`` must include
    ``empty``, ``white`` and ``black``; the stack steps (``white-2`` …) are optional and
    replace ``stack_ratios`` for the piles they measure."""
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
    spots = []
    problems = []
    for i in range(n):
        base = means["empty"][i]
        levels = {}
        for colour, sign in (("white", 1), ("black", -1)):
            one = means[colour][i] - base
            if sign * one < max(8 * noise[i], 1e-9):
                problems.append(f"{layout.spots[i].name} ({colour})")
            lv = [one]
            for k in (2, 3):
                key = f"{colour}-{k}"
                lv.append(means[key][i] - base if key in means else one * stack_ratios[k - 1])
            levels[colour] = tuple(lv)
        spots.append(SpotCalibration(base, noise[i], levels["white"], levels["black"]))
    if problems:
        raise CalibrationError(
            "these sensors did not respond to a magnet of the expected polarity (dead "
            "sensor, missing piece or magnet upside down): " + ", ".join(problems))
    return Calibration(layout.name, wiring_hash(layout), tuple(spots))
