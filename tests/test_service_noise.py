"""Slow leaks and noise (issue 15 #11): a long session keeps its memory, the log says only
what matters at the default level, a calibration is on disk when it is said to be."""

from __future__ import annotations

import io
import json
import logging
import os

from controller.process import setup_logging
from controller.sensing.sim.board import LOG_KEEP
from tests.support.service import make_service, play, set_up


def test_the_state_machine_does_not_flood_the_log_at_info(tmp_path):
    stream = io.StringIO()
    handler = setup_logging("info", "json", stream=stream)
    try:
        svc = make_service(tmp_path)
        try:
            set_up(svc)
            play(svc, "Ee2-d3")
        finally:
            svc.close()
    finally:
        logging.getLogger().removeHandler(handler)
    loggers = {json.loads(line)["logger"] for line in stream.getvalue().splitlines()}
    assert not any(name.startswith("transitions") for name in loggers), loggers
    assert "fairyboard.service" in loggers


def test_the_simulators_memory_is_bounded(tmp_path):
    svc = make_service(tmp_path)
    try:
        set_up(svc)
        for _ in range(LOG_KEEP):
            svc.sim_action({"action": "bounce", "spot": "a2"})
        play(svc, "Ee2-d3")
        assert len(svc.sim.log) == LOG_KEEP
        svc.sim_action({"action": "lift", "spot": "d3"})
        svc.sim_action({"action": "set_aside"})
        assert svc.sim.set_aside_objects
        svc.sim_action({"action": "arrange"})  # a new set-up puts the box away too
        assert svc.sim.set_aside_objects == []
    finally:
        svc.close()


def test_a_calibration_is_synced_before_it_replaces_the_old_one(tmp_path, monkeypatch):
    from controller.sensing import calibration as module

    synced = []
    real = os.fsync
    monkeypatch.setattr(module.os, "fsync", lambda fd: synced.append(fd) or real(fd))
    cal = next(c for c in vars(module).values()
               if isinstance(c, type) and c.__name__ == "Calibration")
    instance = cal.__new__(cal)
    monkeypatch.setattr(cal, "to_json", lambda self: '{"format": 1}')
    instance.save(tmp_path / "cal.json")
    assert (tmp_path / "cal.json").read_text() == '{"format": 1}'
    assert len(synced) == 2  # the file, then its folder
    assert not (tmp_path / "cal.json.tmp").exists()
