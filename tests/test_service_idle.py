"""An idle simulated board rests: its emulated scans are skipped and the loop polls
slowly, so the service uses next to no CPU while nobody plays (benchmarks/bench_idle.py
measures it), and any action wakes it at once."""

from __future__ import annotations

import time
from dataclasses import replace

from controller.service import QUIET_S
from tests.support.service import make_service


def test_an_untouched_simulated_board_rests_and_an_action_wakes_it(tmp_path):
    svc = make_service(tmp_path)
    try:
        sensing = svc.sensing
        sensing.catch_up()
        assert not sensing.resting
        sensing._changed_at -= QUIET_S + 1  # nothing happened for a while
        scans, clock = svc.sensing.pipeline.scans, svc.sim.clock.us
        time.sleep(0.05)
        sensing.catch_up()
        svc.tick()
        assert sensing.resting and svc.sensing.pipeline.scans == scans
        assert svc.sim.clock.us > clock  # simulated time still follows real time
        assert svc.health()["sensing"]["state"] == "ok"
        svc.sim_action({"action": "arrange"})
        time.sleep(0.05)
        sensing.catch_up()
        assert not sensing.resting and svc.sensing.pipeline.scans > scans
    finally:
        svc.close()


def test_a_board_whose_picture_still_changes_does_not_rest(tmp_path, monkeypatch):
    """Resting froze whatever the last scan saw.  A simulated Lotus-39 home stack of three
    read near the 2|3 threshold and its class flickered with the sensor noise; a frozen
    dip left the board believing part of the pile lifted, waiting forever (a linked game
    then never showed the other board's move).  The board rests only once its debounced
    picture, too, has stood still for QUIET_S.  (The calibration now puts that threshold
    well away from the pile; here it is put back onto it, so the class flickers.)"""
    from controller.sensing.frame import Frame

    svc = make_service(tmp_path, game="lotus39", layout="lotus39")
    try:
        svc.sim_action({"action": "arrange"})
        sensing = svc.sensing
        threshold_onto_the_pile(sensing.rig, "e6")
        now = [time.monotonic()]
        monkeypatch.setattr(time, "monotonic", lambda: now[0])
        changes, rested = 0, False
        last = sensing.pipeline.stable
        for _ in range(200):  # 4 s of scans, 20 ms at a time
            now[0] += 0.02
            sensing.catch_up()
            svc.tick()
            if sensing.pipeline.stable is not last:
                changes, last = changes + 1, sensing.pipeline.stable
                frozen_until = now[0] + QUIET_S
            rested = rested or (sensing.resting and now[0] < frozen_until)
        assert changes > 5  # the pile's class did flicker (else this proves nothing)
        assert not rested
        assert isinstance(last, Frame)
    finally:
        svc.close()


def threshold_onto_the_pile(rig, name: str) -> None:
    """Move the 2|3 threshold of spot ``name`` onto what its pile reads on average."""
    i = rig.layout.spot_index(name)
    spot = rig.calibration.spots[i]
    mean = sum(rig.backend.read_voltages()[i] for _ in range(32)) / 32
    polarity = 1 if mean > spot.baseline else -1
    one, two, _three = spot.levels(polarity)
    levels = (one, two, 2 * abs(mean - spot.baseline) - two)
    signed = tuple(polarity * x for x in levels)
    spot = replace(spot, **{"white" if polarity > 0 else "black": signed})
    spots = list(rig.calibration.spots)
    spots[i] = spot
    rig.calibration = rig.backend.calibration = replace(rig.calibration, spots=tuple(spots))


def test_a_loop_starved_of_the_processor_still_senses_a_change_before_resting(
        tmp_path, monkeypatch):
    """On a loaded machine the service loop may not run for longer than QUIET_S.  When
    quiet was counted in real time, a piece lifted just before such a pause was never
    scanned: the next pass found the board quiet for QUIET_S, rested, and the lift went
    unseen for good (a page waiting for the board's scans hung).  Quiet is counted in
    simulated time, which runs only while the board is scanned."""
    svc = make_service(tmp_path)
    try:
        svc.sim_action({"action": "arrange"})
        sensing = svc.sensing
        now = [time.monotonic()]
        monkeypatch.setattr(time, "monotonic", lambda: now[0])
        for _ in range(40):  # the arranged board settles
            now[0] += 0.02
            sensing.catch_up()
            svc.tick()
        settled = sensing.pipeline.stable
        svc.sim_action({"action": "lift", "spot": "e2", "count": 1})
        now[0] += 0.001  # the loop passes once, too soon for the scans to see the lift
        sensing.catch_up()
        svc.tick()
        for _ in range(8):  # then it is starved: one pass every QUIET_S + 1 seconds
            now[0] += QUIET_S + 1
            sensing.catch_up()
            svc.tick()
        lifted = sensing.pipeline.stable
        assert lifted is not settled
        assert lifted.state() != settled.state()
    finally:
        svc.close()
