"""An idle simulated board rests: its emulated scans are skipped and the loop polls
slowly, so the service uses next to no CPU while nobody plays (benchmarks/bench_idle.py
measures it), and any action wakes it at once."""

from __future__ import annotations

import time

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
