"""Lotus-39 on its documented hardware: linear halls on a Pico, over the serial link.

The real firmware (``firmware/``) runs on the host against the emulated electronics and
talks to the host through a real pseudo-terminal (``controller.sensing.sim.mcu``).
Issue #16, defect 1: the ``serial`` back end used to open without the calibration (every
analog snapshot dropped: no frame), and ``fairyboard calibrate`` / ``selftest`` called
``read_voltages``, which the link lacked.  Here: the link's voltages, the service's
``serial`` back end making frames from the stored calibration, ``fairyboard calibrate``
over the ``serial`` back end in real time, and end to end on the emulated Pico —
calibrate → selftest → a whole Lotus-39 game played to its end on the board service.
"""

from __future__ import annotations

import random
import threading
import time
import warnings
from pathlib import Path

import pytest

from controller.bringup import run_calibration, run_self_test
from controller.config import Config, ConfigError
from controller.journal import Journal
from controller.layout import load_layout
from controller.sensing.backends import open_sensing
from controller.sensing.calibration import STEP_TEXT, load_calibration
from controller.sensing.frame import SensingError
from controller.sensing.serial_link import SerialConfig, SerialLink
from controller.sensing.sim import SimulatedBoard, SimulatedMCU, SimulatedSensing
from controller.service import BoardService
from controller.web.app import create_app
from tests.support.lotus39 import API_GAMES, arrange, choose, features, play_over_the_api, played

with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

LOTUS = load_layout("lotus39")


def lotus_config(tmp_path: Path, **sensing) -> Config:
    config = Config()
    config.board.layout = config.board.game = "lotus39"
    config.journal.path = str(tmp_path / "journal")
    config.sensing.calibration = str(tmp_path / "calibration-{layout}.json")
    for key, value in sensing.items():
        setattr(config.sensing, key, value)
    return config


def stack_on_every_spot(board: SimulatedBoard, step: str) -> None:
    """What the builder does for one calibration step."""
    board.lay_calibration_step(step)


def saved_calibration(tmp_path: Path, seed: int) -> Path:
    """A calibration of the sensors of the emulated Pico with ``seed`` (its sensors'
    offsets and gains), made over the link by the rig's simulated human."""
    path = tmp_path / "calibration-lotus39.json"
    board = SimulatedBoard(LOTUS, seed=seed)
    with SimulatedSensing(board, "mcu-analog", link_dir=tmp_path / "by-id-cal",
                          seed=seed) as rig:
        rig.calibration  # noqa: B018 - made by the rig's simulated human
        rig.calibration.save(path)
    return path


def test_the_link_reads_the_voltages_the_firmware_streams(tmp_path):
    board = SimulatedBoard(LOTUS, seed=2)
    mcu = SimulatedMCU(board, LOTUS, tmp_path)
    link = SerialLink(LOTUS, SerialConfig(port=mcu.path), clock=board.clock)
    try:
        def run(seconds: float) -> None:
            board.advance(seconds)
            link.update()

        empty = link.read_voltages(wait=run)
        board.put("e4", "white-stone")
        board.put("c4", "black-stone")
        run(0.05)
        placed = link.read_voltages(wait=run)
    finally:
        link.close()
        mcu.close()
    assert len(empty) == len(placed) == len(LOTUS.spots)
    e4, c4, d5 = (LOTUS.spot_index(n) for n in ("e4", "c4", "d5"))
    assert placed[e4] - empty[e4] > 0.05  # a White magnet (south up) raises the reading
    assert placed[c4] - empty[c4] < -0.05  # a Black one lowers it
    assert abs(placed[d5] - empty[d5]) < 0.02


def test_switches_have_no_voltages():
    link = SerialLink(load_layout("square8"), SerialConfig(port="/nonexistent"))
    with pytest.raises(SensingError, match="no voltages"):
        link.read_voltages()


def test_the_serial_back_end_frames_analog_readings_with_the_stored_calibration(tmp_path):
    board = SimulatedBoard(LOTUS, seed=2)
    board.put("e2", ["white-stone"] * 3)
    board.put("e6", "black-stone")
    mcu = SimulatedMCU(board, LOTUS, tmp_path / "by-id", seed=2)
    saved_calibration(tmp_path, seed=2)
    config = lotus_config(tmp_path, backend="serial", port=mcu.path)
    sensing = open_sensing(config, LOTUS, lambda frame: False)
    try:
        for _ in range(400):
            board.advance(0.002)
            sensing.pipeline.update()
            if sensing.pipeline.stable is not None:
                break
        frame = sensing.pipeline.stable
    finally:
        sensing.close()
        mcu.close()
    assert frame is not None, "no frame from the Pico's readings"
    e2, e6 = LOTUS.spot_index("e2"), LOTUS.spot_index("e6")
    assert frame.occupied_spots() == tuple(sorted((e2, e6)))
    assert (frame.stack[e2], frame.polarity[e2]) == (3, 1)
    assert (frame.stack[e6], frame.polarity[e6]) == (1, -1)


def test_the_serial_back_end_without_a_calibration_says_to_calibrate(tmp_path):
    config = lotus_config(tmp_path, backend="serial", port=str(tmp_path / "no-pico"))
    with pytest.raises(ConfigError, match="run 'fairyboard calibrate' first"):
        open_sensing(config, LOTUS, lambda frame: False)


class PicoOnTheDesk:
    """The emulated Pico running in real time beside the host (as a real one does): its
    board's clock follows the wall clock in a thread; the builder's hands take the lock."""

    def __init__(self, folder: Path) -> None:
        self.board = SimulatedBoard(LOTUS, seed=7)
        self.mcu = SimulatedMCU(self.board, LOTUS, folder, seed=7)
        self.lock = threading.Lock()
        self.running = True
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        last = time.monotonic()
        while self.running:
            now = time.monotonic()
            with self.lock:
                self.board.advance(min(0.02, now - last))
            last = now
            time.sleep(0.001)

    def do(self, instruction: str) -> str:
        """The builder follows a calibration prompt, then presses Enter."""
        step = next(k for k, text in STEP_TEXT.items() if instruction.startswith(text))
        with self.lock:
            stack_on_every_spot(self.board, step)
        return ""

    def close(self) -> None:
        self.running = False
        self.thread.join()
        self.mcu.close()


def test_fairyboard_calibrate_over_the_serial_back_end(tmp_path):
    pico = PicoOnTheDesk(tmp_path / "by-id")
    try:
        config = lotus_config(tmp_path, backend="serial", port=pico.mcu.path)
        calibration, path = run_calibration(config, say=lambda text: None, ask=pico.do)
    finally:
        pico.close()
    assert path == tmp_path / "calibration-lotus39.json"
    assert load_calibration(path, LOTUS) == calibration
    e4 = calibration.spots[LOTUS.spot_index("e4")]
    assert e4.white[0] > 0.05 > -0.05 > e4.black[0]


def test_fairyboard_calibrate_on_the_pi_with_ads1115s(tmp_path, monkeypatch):
    """The other documented variant: multiplexers into an ADS1115 on the Pi's I²C, here
    the emulated chips behind the production scanner; a first calibration needs no
    earlier one (it used to: the back end refused to open without the file)."""
    import controller.sensing.analog as analog

    board = SimulatedBoard(LOTUS, seed=4)
    chips = SimulatedSensing(board, "gpio-analog", seed=4)  # the emulated GPIO and I²C
    monkeypatch.setattr(analog, "load_rpi_gpio", lambda: chips.gpio)
    monkeypatch.setattr(analog, "load_smbus", lambda bus: chips.smbus)
    config = lotus_config(tmp_path, backend="gpio-analog", select_pins=[5, 6, 13, 19])

    def builder(instruction: str) -> str:
        step = next(k for k, text in STEP_TEXT.items() if instruction.startswith(text))
        stack_on_every_spot(board, step)
        return ""

    try:
        calibration, path = run_calibration(config, say=lambda text: None, ask=builder)
    finally:
        chips.close()
    assert load_calibration(path, LOTUS) == calibration
    e2 = calibration.spots[LOTUS.spot_index("e2")]
    assert e2.white[0] > 0.05 > -0.05 > e2.black[0]


def pico_config(tmp_path: Path) -> Config:
    """The simulated board through the emulated Pico and the serial link, LEDs on the
    Pico too: the ``serial`` back end's whole path, on the simulator's clock."""
    config = lotus_config(tmp_path, backend="simulated", simulated_link=True,
                          settle_ms=50.0, debounce_ms=5.0, scan_hz=50.0)
    config.leds.driver = "serial"
    return config


@pytest.mark.parametrize("name, seed", API_GAMES[:1])
def test_calibrate_selftest_and_a_whole_game_on_the_pico(tmp_path, name, seed):
    config = pico_config(tmp_path)
    config.board.game = name
    with pytest.raises(ConfigError, match="run 'fairyboard calibrate' first"):
        BoardService(config)
    calibration, path = run_calibration(config, say=lambda text: None)
    assert len(calibration.spots) == len(LOTUS.spots)
    lines: list[str] = []
    report = run_self_test(config, say=lines.append)
    assert report.ok, report.text()
    assert report.leds_walked == LOTUS.led_count and report.checked == len(LOTUS.spots)
    svc = BoardService(config)  # the board calibrated above (same emulated sensors)
    try:
        assert svc.sensing.link.calibration == calibration
        client = TestClient(create_app(svc))
        arrange(client, svc)
        assert svc.sensing.link.connected
        rng = random.Random(seed)
        texts = []
        while svc.outcome is None:
            texts.append(play_over_the_api(client, svc, choose(svc.game, svc.position, rng)))
            assert len(texts) < 200
        assert {"stack departure", "reserve Knight", "promotion"} <= features(svc.position)
        assert played(svc.game, None, svc.position.moves) == texts
        assert svc.interaction.phase == "game_over"
        assert svc.sensing.link.stats["packets"] > 1000  # it all came over the link
        record = Journal(tmp_path / "journal").find(svc.game_id)
        assert record.moves == texts
        assert (record.result, record.reason) == (svc.outcome.result, svc.outcome.reason)
    finally:
        svc.close()
