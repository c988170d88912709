"""Host link ↔ firmware over a real pseudo-terminal, with corruption, dropped bytes,
disconnects, firmware restarts and stalls: no corrupt frame accepted, nothing lost or
duplicated that the protocol can recover, state always resynchronised."""

from __future__ import annotations

import pytest

from controller.layout import load_layout
from controller.sensing.serial_link import SerialConfig, SerialLink
from controller.sensing.sim import LinkFaults, SimulatedBoard, SimulatedSensing

SQUARE8 = load_layout("square8")
CELLS = ["a1", "b1", "c1", "d1", "e1", "f1", "g1", "h1", "a2", "b2", "c2", "d2"]


def play(board, hook=None, steps=24, gap=0.06):
    """A scripted human: pieces come and go on 12 cells; ``hook(k)`` runs before step k.
    Returns the truth after every step."""
    truth = []
    for k in range(steps):
        if hook:
            hook(k)
        cell = CELLS[(k * 5) % len(CELLS)]
        if board.objects(cell):
            board.lift(cell)
            board.set_aside()
        else:
            board.put(cell, "white-pawn" if k % 2 else "black-pawn")
        board.advance(gap)
        truth.append(board.expected_frame().occupied)
    board.advance(0.3)
    return truth


def occupancy(frames):
    return [f.occupied for f in frames]


def run(hook=None, faults=None, **kw):
    """The script on square8 through the firmware; ``faults`` start after the handshake."""
    board = SimulatedBoard(SQUARE8, seed=4)
    board.put("e8", "black-king")
    rig = SimulatedSensing(board, "mcu-matrix", **kw)
    board.advance(0.1)
    assert rig.link.connected
    rig.mcu.faults = faults
    truth = play(board, lambda k: hook(k, board, rig) if hook else None)
    board.advance(1.0)  # time for the link to finish a recovery under way at the end
    frames = rig.committed()
    return board, rig, truth, frames


@pytest.fixture(scope="module")
def reference():
    board, rig, truth, frames = run()
    rig.close()
    assert occupancy(frames)[1:] == truth  # every state once, in order
    return frames


def assert_sane(frames, truth_states):
    occ = occupancy(frames)
    for a, b in zip(occ, occ[1:], strict=False):
        assert a != b, "a frame was duplicated"
    for o in occ[1:]:
        assert o in truth_states, "a frame that never was true"
    times = [f.time for f in frames]
    assert times == sorted(times)


def test_handshake_and_frames_match_the_truth(reference):
    times = [f.time for f in reference]
    assert times == sorted(times)
    assert reference[0].occupied_spots() == (SQUARE8.spot_index("e8"),)


def test_byte_corruption_is_rejected_and_recovered_exactly(reference):
    faults = LinkFaults(corrupt_rate=0.02, to_mcu_corrupt_rate=0.02, seed=11)
    board, rig, truth, frames = run(faults=faults)
    try:
        assert rig.link.crc_errors + rig.link.decoder.framing_errors > 0
        assert faults.corrupted > 5
        assert rig.link.stats["gaps"] > 0
        assert occupancy(frames) == occupancy(reference)
        for got, ref in zip(frames, reference, strict=True):
            assert got.time == pytest.approx(ref.time, abs=1e-9)  # MCU event times kept
    finally:
        rig.close()


def test_heavy_corruption_never_yields_a_false_frame():
    faults = LinkFaults(corrupt_rate=0.04, drop_rate=0.01, seed=3)
    board, rig, truth, frames = run(faults=faults)
    try:
        board.advance(3.0)  # periodic snapshots and retries settle every doubt
        frames += rig.committed()
        assert faults.corrupted > 20 and faults.dropped > 5
        assert_sane(frames, set(truth) | {frames[0].occupied})
        assert frames[-1].occupied == truth[-1]
    finally:
        rig.close()


def test_dropped_bytes_in_a_change_are_resent(reference):
    def hook(k, board, rig):
        if k == 7:
            rig.mcu.faults.drop_next = 3  # the next CHANGE loses its tail
    board, rig, truth, frames = run(hook=hook, faults=LinkFaults())
    try:
        assert rig.link.stats["gaps"] >= 1
        assert occupancy(frames) == occupancy(reference)
    finally:
        rig.close()


def test_unplugged_cable_reconnects_and_replays_what_happened(reference):
    def hook(k, board, rig):
        if k == 5:
            rig.mcu.unplug()
        if k == 9:
            rig.mcu.plug()
    board, rig, truth, frames = run(hook=hook)
    try:
        assert rig.link.stats["reconnects"] >= 1
        assert rig.link.stats["sessions"] == 1  # same firmware session: resumed
        assert occupancy(frames) == occupancy(reference)
        for got, ref in zip(frames, reference, strict=True):
            assert got.time == pytest.approx(ref.time, abs=1e-9)
    finally:
        rig.close()


def test_firmware_restart_resynchronises_without_duplicates():
    def hook(k, board, rig):
        if k == 10:
            rig.mcu.restart()
    board, rig, truth, frames = run(hook=hook)
    try:
        assert rig.link.stats["sessions"] == 2
        assert_sane(frames, set(truth))
        assert frames[-1].occupied == truth[-1]
        # a restart within one step loses nothing here: the snapshot shows the same state
        assert occupancy(frames)[1:] == truth
    finally:
        rig.close()


def test_silent_firmware_is_detected_and_the_link_recovers():
    board = SimulatedBoard(SQUARE8, seed=1)
    rig = SimulatedSensing(board, "mcu-matrix")
    try:
        board.advance(0.2)
        assert rig.link.connected
        rig.mcu._ticker.active = False  # firmware hangs
        board.put("d4", "white-queen")
        board.advance(6.0)
        assert not rig.link.connected
        assert "no packet" in rig.link.problem
        rig.mcu._ticker = board.every(0.001, rig.mcu.tick)  # it comes back
        board.advance(10.0)
        assert rig.link.connected
        frames = rig.committed()
        assert frames[-1].occupied_spots() == (SQUARE8.spot_index("d4"),)
    finally:
        rig.close()


def test_ticks_wrap_around_keeps_times():
    board, rig, truth, frames = run(ticks_offset_ms=(1 << 29) - 700)
    try:
        assert occupancy(frames)[1:] == truth
        times = [f.time for f in frames]
        assert times == sorted(times)
        assert times[-1] - times[1] == pytest.approx(0.06 * 23, abs=0.01)
    finally:
        rig.close()


def test_wrong_layout_in_the_firmware_is_refused():
    board = SimulatedBoard(SQUARE8)
    rig = SimulatedSensing(board, "mcu-matrix", LAYOUT="kaleido89")
    try:
        board.put("a1", "white-rook")
        board.advance(0.5)
        assert rig.committed() == []
        assert "layout 'kaleido89'" in rig.link.problem
    finally:
        rig.close()


def test_no_device_then_plugged_in(tmp_path):
    board = SimulatedBoard(SQUARE8)
    link = SerialLink(SQUARE8, SerialConfig(by_id_dir=str(tmp_path)), clock=board.clock)
    link.update()
    assert "no microcontroller found" in link.problem
    rig = SimulatedSensing(board, "mcu-matrix", link_dir=tmp_path)
    try:
        board.put("c3", "white-knight")
        board.advance(0.3)
        assert rig.committed()[-1].occupied_spots() == (SQUARE8.spot_index("c3"),)
    finally:
        rig.close()


def test_led_frames_reach_the_pixels_at_a_limited_rate():
    board = SimulatedBoard(SQUARE8)
    rig = SimulatedSensing(board, "mcu-matrix", MAX_BRIGHTNESS=255)
    try:
        board.advance(0.1)
        for k in range(10):  # ten frames in one instant: only the first and the last go
            rig.link.send_leds([(k, 0, 0)] * SQUARE8.led_count)
        board.advance(0.1)
        # the link carries wire bytes: a WS2812B (GRB) takes the first byte as green
        assert rig.mcu.leds[0] == (0, 9, 0) and len(rig.mcu.leds) == 82
        assert rig.link.stats["bytes_out"] < 3 * 400
        with pytest.raises(ValueError, match="0..255"):
            rig.link.send_leds([(300, 0, 0)])
    finally:
        rig.close()
