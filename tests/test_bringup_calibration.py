"""Issue #16, defect 2: the calibration works with the pieces of the kit.

The guided calibration lights one spot at a time and takes its reading as soon as a
magnet lies there steadily (no key per spot): one White piece, one Black piece and a
pile of three White stones calibrate a whole board.  Progress is saved after every
spot; a calibration stopped half way continues where it stopped.
"""

from __future__ import annotations

import json
import random

import pytest

import controller.bringup as bringup
from controller.bringup import progress_path, run_calibration
from controller.cli import main
from controller.config import Config
from controller.layout import load_layout
from controller.sensing.calibration import (
    CalibrationError,
    CalibrationProgress,
    calibrate_guided,
    load_calibration,
    pile_spots,
)
from controller.sensing.sim import SimulatedBoard, SimulatedSensing
from controller.sensing.sim.faults import (
    open_mux_select,
    swap_mux_inputs,
    swap_mux_selects,
    unpower_sensors,
)

LOTUS = load_layout("lotus39")


class OnePieceBuilder:
    """Moves his few pieces to the lit spots; counts the magnets on the board."""

    def __init__(self, board: SimulatedBoard) -> None:
        self.board = board
        self.lit: tuple[int, ...] = ()
        self.most_magnets = 0
        self.steps: list[str] = []
        self.spots_lit: list[int] = []

    def guide(self, step: str, spots: tuple[int, ...]) -> None:
        if not spots:
            self.steps.append(step)
            self.board.clear()
        for s in self.lit:
            self.board.clear(s)
        for s in spots:
            self.board.put(s, self.board.calibration_pile(step))
        self.lit = spots
        self.spots_lit += spots
        magnets = sum(len(pile) for pile in self.board.piles)
        self.most_magnets = max(self.most_magnets, magnets)


def test_a_whole_board_calibrated_with_one_white_one_black_and_a_pile_of_three():
    board = SimulatedBoard(LOTUS, seed=5)
    with SimulatedSensing(board, "gpio-analog", seed=5) as rig:
        builder = OnePieceBuilder(board)
        progress = CalibrationProgress.start(LOTUS)
        saved = []
        calibration = calibrate_guided(
            LOTUS, rig.backend.read_voltages, builder.guide, board.advance, progress,
            save=lambda p: saved.append(p.readings()), samples=8, poll_s=0.005,
            timeout_s=1.0)
        guided = mistakes(calibration, board, rig)
        bulk = mistakes(rig.calibration, board, rig)
        assert builder.most_magnets == 3  # the pile of three White stones
        assert builder.steps == ["empty", "white", "black", "white-2", "white-3", "done"]
        n = len(LOTUS.spots)
        assert saved == [0, *range(1, 2 * n + 1), 2 * n + 1, 2 * n + 2, 2 * n + 3, 2 * n + 4]
    assert guided["presence or colour"] == bulk["presence or colour"] == 0
    # piles of 2 and 3+ differ by a few per cent of a magnet: each calibration misreads a
    # few of them (magnet strengths spread 2 %), one piece about as many as 47 pieces
    # (over seeds 0-5: 4-14 of 400 piles, the calibration with 47 pieces 4-12)
    assert guided["stack"] <= 16 and bulk["stack"] <= 16, (guided, bulk)


def mistakes(calibration, board, rig, rounds: int = 20) -> dict[str, int]:
    """Misread spots over random piles of 1 to 5 stones, which the calibration never saw."""
    rng = random.Random(3)
    n = len(LOTUS.spots)
    found = {"presence or colour": 0, "stack": 0}
    for _ in range(rounds):
        board.clear()
        piles = {}
        for i in rng.sample(range(n), 20):
            height = rng.randrange(1, 6)
            colour = rng.choice(["white", "black"])
            board.put(i, [f"{colour}-stone"] * height)
            piles[i] = (min(3, height), 1 if colour == "white" else -1)
        states = calibration.classify(rig.backend.read_voltages())
        for i, (occupied, stack, polarity) in enumerate(states):
            want = (True, *piles[i]) if i in piles else (False, 0, 0)
            if (occupied, polarity) != (want[0], want[2]):
                found["presence or colour"] += 1
            elif stack != want[1]:
                assert {stack, want[1]} == {2, 3}, LOTUS.spots[i].name
                found["stack"] += 1
    return found


def test_a_spot_that_never_reads_a_magnet_is_named_and_the_rest_kept(tmp_path):
    board = SimulatedBoard(LOTUS, seed=5)
    with SimulatedSensing(board, "gpio-analog", seed=5) as rig:
        board.break_sensor("e4", "dead")
        builder = OnePieceBuilder(board)
        progress = CalibrationProgress.start(LOTUS)
        lines: list[str] = []
        with pytest.raises(CalibrationError, match="no magnet read on e4 .* continues where"):
            calibrate_guided(LOTUS, rig.backend.read_voltages, builder.guide,
                             board.advance, progress, samples=4, poll_s=0.005,
                             timeout_s=0.2, say=lines.append)
    assert lines == ["e4: no magnet read in 0.2 s; skipped"] * 2
    e4 = LOTUS.spot_index("e4")
    assert e4 not in progress.done("white")
    assert len(progress.done("black")) == len(LOTUS.spots) - 1
    progress.save(tmp_path / "p.json")
    again = CalibrationProgress.load(tmp_path / "p.json", LOTUS)
    assert again == progress
    assert CalibrationProgress.load(tmp_path / "p.json", load_layout("square9")) is None


def pico_config(tmp_path) -> Config:
    config = Config()
    config.board.layout = config.board.game = "lotus39"
    config.sensing.calibration = str(tmp_path / "calibration-{layout}.json")
    config.sensing.simulated_link = True
    config.leds.driver = "serial"
    return config


def test_fairyboard_calibrate_on_the_pico_continues_where_it_stopped(tmp_path, monkeypatch):
    """The builder pulls the plug half way (here: the 10th save of the progress); the
    next ``fairyboard calibrate`` asks only for the spots still missing."""
    config = pico_config(tmp_path)
    save = CalibrationProgress.save
    saves = []

    def unplugged(progress, path):
        saves.append(path)
        if len(saves) == 10:
            raise KeyboardInterrupt
        save(progress, path)

    monkeypatch.setattr(CalibrationProgress, "save", unplugged)
    with pytest.raises(KeyboardInterrupt):
        run_calibration(config, say=lambda text: None)
    monkeypatch.setattr(CalibrationProgress, "save", save)
    partial = progress_path(tmp_path / "calibration-lotus39.json")
    kept = json.loads(partial.read_text())
    assert kept["progress"] and len(kept["levels"]["white"]) == 8

    guided = bringup.calibrate_guided
    placed: list[str] = []

    def counting(layout, sample, guide, *args, **kwargs):
        def lit(step, spots):
            placed.extend(layout.spots[s].name for s in spots)
            guide(step, spots)

        return guided(layout, sample, lit, *args, **kwargs)

    monkeypatch.setattr(bringup, "calibrate_guided", counting)
    lines: list[str] = []
    calibration, path = run_calibration(config, say=lines.append)
    assert lines[0] == (f"continuing the calibration saved in {partial}: the empty board and "
                        "8 spot readings are done")
    n = len(LOTUS.spots)
    piles = [LOTUS.spots[i].name for i in pile_spots(LOTUS)]
    assert len(placed) == (n - 8) + n + 2 * len(piles)
    assert load_calibration(path, LOTUS) == calibration
    assert not partial.exists()


def test_calibrate_needs_a_piece(capsys, tmp_path):
    assert main(["calibrate", "--layout", "lotus39", "--pieces", "0",
                 "--out", str(tmp_path / "c.json")]) == 2
    assert "light at least one spot at a time" in capsys.readouterr().err


@pytest.mark.parametrize("fault, named", [
    (lambda board, layout: swap_mux_inputs(board, layout, "c6", "e6"),
     "the sensors of c6 and e6 are on each other's inputs: swap the wires at U10 I5 and "
     "U10 I6"),
    (lambda board, layout: board.break_sensor("e4", "face-down"),
     "face down (a White piece reads as Black: turn the sensor over, marked face up toward "
     "the piece): e4"),
    (lambda board, layout: board.break_sensor("e4", "dead"),
     "no magnet read on e4 (dead sensor or not connected, or no piece put there)"),
    (lambda board, layout: swap_mux_selects(board, 0, 1),
     "select lines S0 and S1 swapped at the Pi: swap GPIO5 and GPIO6"),
    (lambda board, layout: open_mux_select(board, 2),
     "multiplexer select line S2 open (the inputs with S2 high are never read): connect "
     "the wire from GPIO13 to S2 (pin 14) of U10, U11, U12"),
])
def test_calibrate_names_the_fault_and_saves_no_table_it_knows_is_wrong(monkeypatch, tmp_path,
                                                                        fault, named):
    """Two swapped multiplexer inputs read as a dead c6 while e6 was calibrated from c6's
    sensor; a face-down sensor was blamed on a dead sensor or the magnet (issue #31)."""
    opened = bringup._Bench.__init__

    def bench(self, *args, **kw):
        opened(self, *args, **kw)
        fault(self.sim, self.layout)
    monkeypatch.setattr(bringup._Bench, "__init__", bench)
    config = Config()
    config.board.layout = config.board.game = "lotus39"
    config.sensing.calibration = str(tmp_path / "calibration-{layout}.json")
    with pytest.raises(CalibrationError) as raised:
        run_calibration(config, say=lambda text: None)
    faults = str(raised.value).split(". The rest is saved")[0].split("; ")
    assert faults == [named]
    assert not (tmp_path / "calibration-lotus39.json").exists()
    partial = CalibrationProgress.load(tmp_path / "calibration-lotus39.json.partial", LOTUS)
    e6 = LOTUS.spot_index("e6")
    assert (e6 in partial.done("white")) == (named.startswith(("face", "no magnet")))


@pytest.mark.parametrize("fault, named", [
    (lambda board: board.break_sensor("e4", "stuck"),
     "on the empty board e4 reads 2.17 V, far from the 1.65 V of a linear hall at rest (half "
     "its supply): a piece or magnet lies there, or the sensor is faulty — clear the spot, "
     "else replace the sensor"),
    (unpower_sensors,
     "every sensor reads about 0.00 V on the empty board, far from the 1.65 V of a linear "
     "hall at rest (half its supply): the sensors get no supply or their common line is "
     "shorted — check 3.3 V and GND at the sensor rail"),
])
def test_calibrate_names_a_sensor_off_its_rest_on_the_empty_board(monkeypatch, tmp_path,
                                                                  fault, named):
    """A stuck sensor was calibrated from its wrong rest and then blamed as "dead sensor or
    not connected"; the sensors' supply off read as 47 spots with no magnet after 47
    time-outs (a minute each on a real board).  Named at once on the empty board, and no
    baseline is kept that would misread the spot after the fix."""
    opened = bringup._Bench.__init__

    def bench(self, *args, **kw):
        opened(self, *args, **kw)
        fault(self.sim)
    monkeypatch.setattr(bringup._Bench, "__init__", bench)
    config = Config()
    config.board.layout = config.board.game = "lotus39"
    config.sensing.calibration = str(tmp_path / "calibration-{layout}.json")
    with pytest.raises(CalibrationError) as raised:
        run_calibration(config, say=lambda text: None)
    assert str(raised.value) == named + ". Nothing is saved: run the calibration again"
    assert not list(tmp_path.iterdir())
