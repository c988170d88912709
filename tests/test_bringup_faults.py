"""Issue #16: the self-test names seeded wiring faults, the LED walk shows every LED.

Faults are seeded into the emulated electronics (``controller.sensing.sim.faults``):
an open row wire, two shorted column wires, a reversed or bridged diode, LED chips that
take the colour bytes in another order.  ``fairyboard selftest`` must name each of them
by wire and pin, as a builder would paste it into a help request.
"""

from __future__ import annotations

import re
import threading
import time

import pytest

import controller.bringup as bringup
from controller.bringup import run_self_test
from controller.config import Config
from controller.layout import load_layout
from controller.leds.drivers import ThrottledLeds
from controller.sensing.selftest import ASK, WALK, parse_colours, pixel_order_fix, self_test
from controller.sensing.sim import SimulatedBoard, SimulatedSensing
from controller.sensing.sim.electrical import MatrixFaults
from controller.sensing.sim.faults import matrix_cell, seed_matrix_faults, swap_led_colours

SQUARE8 = load_layout("square8")


def selftest_with(monkeypatch, *, chip_order: str = "RGB", **faults):
    """``fairyboard selftest`` on the simulated square8 with faults seeded; returns the
    report and the throttled LED chain it drew on."""
    opened_sensing = bringup.open_sensing
    opened_leds = bringup.open_leds
    chains: list[ThrottledLeds] = []

    def open_sensing(*args, **kwargs):
        sensing = opened_sensing(*args, **kwargs)
        seed_matrix_faults(sensing.rig, **faults)
        return sensing

    def open_leds(*args, **kwargs):
        leds = opened_leds(*args, **kwargs)
        swap_led_colours(leds.driver, chip_order)
        chains.append(leds)
        return leds

    monkeypatch.setattr(bringup, "open_sensing", open_sensing)
    monkeypatch.setattr(bringup, "open_leds", open_leds)
    lines: list[str] = []
    report = run_self_test(Config(), say=lines.append, ask=lambda question: pytest.fail(
        f"the simulated builder was asked {question!r}"))
    assert lines[-1] == report.text()
    return report, chains[0]


def test_selftest_names_an_open_row_shorted_columns_a_reversed_diode_and_swapped_colours(
        monkeypatch):
    e6 = matrix_cell(SQUARE8, "e6")
    assert e6 == (5, 4)  # neither on row 3 nor on columns 5 and 6
    report, _ = selftest_with(monkeypatch, chip_order="GRB", open_rows=[3],
                              shorted_columns=[(5, 6)], diodes={"e6": "reversed"})
    text = report.text()
    assert not report.ok
    assert "wiring: row 3 (GPIO" in text
    assert "wire open (its diodes read neither way): a4, b4, c4, d4, e4, f4, g4, h4" in text
    assert "wiring: columns 5 and 6 shorted (GPIO" in text
    assert "wiring: diode at e6 reversed" in text
    assert "red, green, blue showed as green, red, blue" in text
    assert 'set [leds] pixel_order = "GRB"' in text
    # nothing else is blamed: the other spots of columns 5 and 6 and of row 3 are explained
    # ("diode at e6 reversed" alone once the Pi's idle strobe lines let its ghost through)
    assert [w.split(":")[0].split(" (")[0][:20] for w in report.wiring] == [
        "row 3", "columns 5 and 6 shor", "diode at e6 reversed"]
    assert "crosstalk" not in text
    assert text.splitlines()[0].startswith("Self-test of square8")
    assert text.splitlines()[-1] == "faults found"


def test_a_rank_of_reversed_diodes_is_named_as_diodes_not_as_an_open_row(monkeypatch):
    """A whole rank of diodes soldered the wrong way round read "row 4 wire open (or every
    diode on it reversed)": the same in a forward scan.  The Pi scans a dead spot's lines
    backwards while its piece lies there, which only a reversed diode conducts."""
    rank = {s.name: "reversed" for s in SQUARE8.spots if s.sensor.row == 4}
    report, _ = selftest_with(monkeypatch, diodes=rank)
    assert report.wiring == [
        "every diode on row 4 (GPIO13) reversed (each reads backwards): turn them round as "
        "the guide shows: a5, b5, c5, d5, e5, f5, g5, h5"], report.text()


def test_the_led_walk_shows_every_led_through_the_throttle(monkeypatch):
    """#16 defect 4: walk steps shorter than the throttle's interval, held frames never
    flushed: every other LED of a Pi-driven chain stayed dark."""
    report, leds = selftest_with(monkeypatch)
    assert report.ok, report.text()
    assert report.colours_seen == "RGB" and "LED colour order: right" in report.text()
    chain = leds.driver
    lit = {k for frame in chain.frames for k, c in enumerate(frame.pixels) if c == WALK}
    assert lit == set(range(SQUARE8.led_count))
    assert leds.superseded == 0


def walk(rig, board, layout, **options):
    return self_test(layout, lambda: rig.stable, lambda colours: None, board.follow,
                     board.advance, walk_s=0.001, settle_s=0.05, **options)


def test_the_ghost_check_of_every_diode_on_the_pico():
    """The Pico's keypad idles the strobe lines as inputs: a diode left out (bridged)
    lets current flow backwards and the anchored walk names it; a reversed one reads
    nothing alone but conducts backwards."""
    board = SimulatedBoard(SQUARE8)
    with SimulatedSensing(board, "mcu-matrix") as rig:
        for _ in range(300):
            board.advance(0.01)
            if rig.stable is not None:
                break
        seed_matrix_faults(rig, diodes={"e6": "reversed", "c3": "bridged"})
        report = walk(rig, board, SQUARE8, diode_check=True)
    assert report.wiring == ["diode at e6 reversed",
                             "diode at c3 shorted or left out (ghosts appear)"]
    assert report.dead == ["e6"]
    assert {d for d, _ in report.diode_ghosts} == {"e6", "c3"}


def test_a_seeded_open_diode_and_an_open_column_on_the_pi_matrix():
    board = SimulatedBoard(SQUARE8)
    with SimulatedSensing(board, "gpio-matrix", period_s=0.004) as rig:
        board.advance(0.05)
        seed_matrix_faults(rig, open_columns=[2], diodes={"f7": "open"})
        report = walk(rig, board, SQUARE8, spots=range(64))
        # scanned backwards too (the Pi's pins): neither reads, so the wire and the diode
        sharp = walk(rig, board, SQUARE8, spots=range(64),
                     backwards=rig.backend.scan_backwards)
    assert report.wiring[0].startswith(
        "col 2 wire open (or every diode on it reversed): c1, c2, c3, c4, c5, c6, c7, c8")
    assert report.wiring[1].startswith("diode at f7 reversed or missing")
    assert sharp.wiring == [
        "col 2 wire open (its diodes read neither way): c1, c2, c3, c4, c5, c6, c7, c8",
        "diode at f7 missing or its sensor dead (it reads neither way): row 6 and col 5 work"]


def test_matrix_faults_are_checked():
    with pytest.raises(ValueError, match="diode fault at"):
        MatrixFaults(diodes={(0, 0): "upside-down"})
    board = SimulatedBoard(load_layout("lotus39"))
    with SimulatedSensing(board, "gpio-analog") as rig, \
            pytest.raises(ValueError, match="matrix circuits only"):
        seed_matrix_faults(rig, open_rows=[1])


@pytest.mark.parametrize("answer, seen", [
    ("red green blue", "RGB"), ("g r b", "GRB"), ("GRB", "GRB"), ("Green, Red, Blue", "GRB"),
    ("red none blue", "R-B"), ("purple", ""), ("", "")])
def test_the_builders_answer_names_the_colours(answer, seen):
    assert parse_colours(answer) == seen


def test_the_pixel_order_that_shows_the_colours_right():
    assert pixel_order_fix("RGB", "GRB") == "GRB"
    assert pixel_order_fix("GRB", "GRB") == "RGB"  # configured GRB on RGB chips
    assert pixel_order_fix("GRB", "RGB") == "GRB"
    assert pixel_order_fix("RGB", "BRG") == "BRG"
    assert pixel_order_fix("GRB", "R-B") == ""


class BuilderAtTheBoard:
    """A builder in front of a Pi-driven board, in real time, doing what he is told: he
    leaves a piece on the first spots lit blue as many as the terminal says, then walks
    one more piece to each spot as it lights blue; he presses Enter only when asked."""

    def __init__(self, board: SimulatedBoard) -> None:
        self.board = board
        self.chain = None
        self.questions: list[str] = []
        self.anchors = 0
        self.walker: int | None = None
        self.running = True
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self._watch, daemon=True)

    def say(self, text: str) -> None:
        found = re.search(r"\((\d+) pieces on one row and one column\)", text)
        if found:
            self.anchors = int(found.group(1))

    def ask(self, question: str) -> str:
        self.questions.append(question)
        with self.lock:
            if question.startswith("Take every piece off"):
                self.board.clear()
            for spot in _spots_named(question, "Put pieces on "):
                self.board.put(spot, "white-pawn")
            for spot in _spots_named(question, "Take the pieces off "):
                self.board.clear(spot)
        if question.startswith("Take every piece off"):
            self.walker = None
        return "red green blue" if "colours" in question else ""

    def _watch(self) -> None:
        leds = {s.led: i for i, s in enumerate(SQUARE8.spots)}
        while self.running:
            if self.chain is not None and self.chain.frames:
                pixels = self.chain.pixels
                with self.lock:
                    for k, colour in enumerate(pixels):
                        spot = leds[k]
                        if colour != ASK or self.board.objects(spot):
                            continue
                        if self.anchors:
                            self.anchors -= 1  # this one stays
                        else:
                            if self.walker is not None:
                                self.board.clear(self.walker)  # the walking piece moves on
                            self.walker = spot
                        self.board.put(spot, "white-pawn")
            time.sleep(0.002)


def _spots_named(question: str, prefix: str) -> list[int]:
    if not question.startswith(prefix):
        return []
    names = question[len(prefix):].split(", then")[0].split(", ")
    return [SQUARE8.spot_index(n) for n in names]


def test_selftest_on_a_pi_asks_only_to_start_and_about_the_leds(monkeypatch):
    """The production path (RPi.GPIO, real time): no Enter per spot; the walk notices
    each piece as it is put down.  The LED questions take Enter on a good board."""
    import controller.sensing.gpio as gpio

    board = SimulatedBoard(SQUARE8)
    chips = SimulatedSensing(board, "gpio-matrix")  # the emulated GPIO header and matrix
    monkeypatch.setattr(gpio, "load_rpi_gpio", lambda: chips.gpio)
    builder = BuilderAtTheBoard(board)
    opened_leds = bringup.open_leds

    def open_leds(*args, **kwargs):
        leds = opened_leds(*args, **kwargs)
        builder.chain = leds.driver
        return leds

    monkeypatch.setattr(bringup, "open_leds", open_leds)
    monkeypatch.setattr(bringup, "SELFTEST_SETTLE_S", 0.02)
    monkeypatch.setattr(bringup, "SELFTEST_POLL_S", 0.005)
    monkeypatch.setattr(bringup, "SELFTEST_TIMEOUT_S", 2.0)
    config = Config()
    config.sensing.backend = "gpio-matrix"
    pins = chips.backend.pins
    config.sensing.row_pins, config.sensing.column_pins = list(pins.rows), list(pins.columns)
    config.leds.max_fps = 240.0
    config.sensing.debounce_ms, config.sensing.scan_hz = 5.0, 1000.0
    builder.thread.start()
    try:
        report = run_self_test(config, say=builder.say, ask=builder.ask)
    finally:
        builder.running = False
        builder.thread.join()
        chips.close()
    assert report.ok, report.text()
    assert report.checked == len(SQUARE8.spots) and report.colours_seen == "RGB"
    assert [q.split(",")[0].split(" (")[0] for q in builder.questions] == [
        "One LED is lit white: LED 0 of the chain", "One LED is lit white: LED 81 of the chain",
        "The LEDs under a1",
        "Take every piece off the board and the pads",
        "Take every piece off the board and the pads", "Put pieces on a1",
        "Take the pieces off a1"]
    assert pixel_order_fix("GRBW", "GRB") == "RGBW"  # the white byte stays last


@pytest.mark.parametrize("faults, named", [
    ({"swapped_rows": [(2, 3)]}, "rows 2 and 3 swapped at the controller: swap the wires on "),
    ({"swapped_columns": [(0, 1)]}, "cols 0 and 1 swapped at the controller: swap the wires "
     "on "),
])
def test_selftest_names_two_swapped_lines_as_the_builder_fixes_them(monkeypatch, faults,
                                                                      named):
    """It said "row 2 wire open", "rows 2 and 3 shorted", seven reversed diodes and 15
    dead spots (rows), or 36 shorted row pairs (columns)."""
    report, _ = selftest_with(monkeypatch, **faults)
    text = report.text()
    wiring = [line for line in text.splitlines() if line.startswith(("wiring", "dead",
                                                                     "ghost", "crosstalk"))]
    assert len(wiring) == 1 and named in wiring[0], text
