"""Analog calibration (stored with format version and wiring hash) and the self-test."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from controller.layout import load_layout
from controller.sensing.calibration import (
    CalibrationError,
    calibrate,
    load_calibration,
    parse_calibration,
    wiring_hash,
)
from controller.sensing.selftest import rectangle_probe, self_test
from controller.sensing.sim import SimulatedBoard, SimulatedSensing

LOTUS = load_layout("lotus39")
SQUARE8 = load_layout("square8")


@pytest.fixture(scope="module")
def analog():
    board = SimulatedBoard(LOTUS, seed=9)
    rig = SimulatedSensing(board, "gpio-analog", seed=9)
    yield board, rig
    rig.close()


def test_calibrated_readings_give_presence_colour_and_stack_class(analog):
    board, rig = analog
    rng = random.Random(2)
    for _ in range(5):
        board.clear()
        piles = {}
        for i in rng.sample(range(len(LOTUS.spots)), 20):
            height = rng.randrange(1, 6)
            colour = rng.choice(["white", "black"])
            board.put(i, [f"{colour}-stone"] * height)
            piles[i] = (min(3, height), 1 if colour == "white" else -1)
        states = rig.calibration.classify(rig.backend.read_voltages())
        for i, (occ, stack, pol) in enumerate(states):
            if i in piles:
                assert (occ, stack, pol) == (True, *piles[i]), LOTUS.spots[i].name
            else:
                assert (occ, stack, pol) == (False, 0, 0), LOTUS.spots[i].name


def test_calibration_round_trips_through_json(analog, tmp_path):
    _board, rig = analog
    path = tmp_path / "lotus39.cal.json"
    rig.calibration.save(path)
    data = json.loads(path.read_text())
    assert data["format"] == 1 and data["wiring"] == wiring_hash(LOTUS)
    assert load_calibration(path, LOTUS) == rig.calibration


def test_calibration_for_other_wiring_is_refused(analog, tmp_path):
    _board, rig = analog
    text = rig.calibration.to_json()
    spots = list(LOTUS.spots)
    a, b = spots[0], spots[1]
    spots[0] = dataclasses.replace(a, sensor=b.sensor)
    spots[1] = dataclasses.replace(b, sensor=a.sensor)  # two sensors swapped
    rewired = dataclasses.replace(LOTUS, spots=tuple(spots))
    with pytest.raises(CalibrationError, match="now has wiring .* run the calibration again"):
        parse_calibration(text, rewired)
    data = json.loads(text)
    data["format"] = 99
    with pytest.raises(CalibrationError, match="format 99"):
        parse_calibration(json.dumps(data), LOTUS)
    with pytest.raises(CalibrationError, match="layout 'lotus39', not 'square8'"):
        parse_calibration(text, SQUARE8)
    with pytest.raises(CalibrationError, match="cannot read"):
        load_calibration(tmp_path / "missing.json", LOTUS)
    with pytest.raises(CalibrationError, match="not valid JSON"):
        parse_calibration("{", LOTUS)


def test_measured_stack_steps_replace_the_default_ratios(analog):
    board, rig = analog
    steps = []

    def prompt(step, text):
        steps.append(step)
        board.lay_calibration_step(step)

    cal = calibrate(LOTUS, rig.backend.read_voltages, prompt, samples=4,
                    steps=("empty", "white", "black", "white-2", "white-3"))
    assert steps == ["empty", "white", "black", "white-2", "white-3"]
    c = cal.spots[0]
    assert c.white[0] < c.white[1] < c.white[2]
    assert c.black[0] > c.black[1] > c.black[2]


def test_a_dead_sensor_fails_calibration_by_name(analog):
    board, rig = analog
    board.break_sensor("e4", "dead")
    try:
        def prompt(step, text):
            board.clear()
            if step != "empty":
                for i in range(len(LOTUS.spots)):
                    board.put(i, f"{step}-stone")
        with pytest.raises(CalibrationError, match="e4 \\(white\\), e4 \\(black\\)"):
            calibrate(LOTUS, rig.backend.read_voltages, prompt, samples=3)
    finally:
        board.break_sensor("e4", None)
    with pytest.raises(CalibrationError, match="must include 'black'"):
        calibrate(LOTUS, rig.backend.read_voltages, prompt, steps=("empty", "white"))


def run_self_test(backend, faults=(), spots=None):
    board = SimulatedBoard(SQUARE8)
    for spot, fault in faults:
        board.break_sensor(spot, fault)
    rig = SimulatedSensing(board, backend)
    shown = []

    def instruct(action, where):
        if action == "clear":
            board.clear()
        elif action == "place":
            for s in where:
                board.put(s, "white-pawn")
        else:
            for s in where:
                board.clear(s)

    try:
        report = self_test(SQUARE8, lambda: rig.stable, shown.append, instruct,
                           board.advance, walk_s=0.001, settle_s=0.03, spots=spots)
    finally:
        rig.close()
    return report, shown


def test_self_test_walks_the_leds_and_finds_no_fault_on_a_good_board():
    report, shown = run_self_test("gpio-matrix")
    assert report.ok, report.text()
    assert report.leds_walked == SQUARE8.led_count == 82
    assert report.checked == len(SQUARE8.spots)
    lit = [next(k for k, c in enumerate(frame) if c != (0, 0, 0)) for frame in shown[:82]]
    assert lit == list(range(82))


def test_self_test_reports_dead_stuck_crosstalk_and_ghosting():
    probe = rectangle_probe(SQUARE8)
    assert [SQUARE8.spots[i].name for i in probe[0]] + [SQUARE8.spots[probe[1]].name] == [
        "a1", "b1", "a2", "b2"]
    report, _ = run_self_test("gpio-matrix-no-diodes",
                              faults=[("h8", "dead"), ("c5", "stuck")], spots=range(64))
    assert report.dead == ["h8"]
    assert report.stuck == ["c5"]
    assert report.ghosting == [("b2", ("a1", "b1", "a2"))]
    assert not report.ok
    assert "ghosting: pieces on a1, b1, a2 make b2 read occupied" in report.text()
    good, _ = run_self_test("gpio-matrix", spots=[0])
    assert good.ghosting == []
