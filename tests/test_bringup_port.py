"""Bring-up with the port taken: the self-test says to stop the service, with the command."""

from __future__ import annotations

import os

import pytest

from controller.bringup import SERVICE_STOP, run_self_test
from controller.config import Config
from controller.sensing.frame import SensingError


def test_selftest_with_the_service_holding_the_port_says_to_stop_it(tmp_path):
    serial = pytest.importorskip("serial")
    master, slave = os.openpty()
    path = os.ttyname(slave)
    holder = serial.Serial(path, exclusive=True)  # what the running service does
    try:
        config = Config()
        config.board.layout = config.board.game = "square8"
        config.journal.path = str(tmp_path / "journal")
        config.sensing.backend = "serial"
        config.sensing.port = path
        config.leds.driver = "serial"
        with pytest.raises(SensingError) as err:
            run_self_test(config, say=lambda text: None, ask=lambda text: "")
        text = str(err.value)
        assert "in use" in text and SERVICE_STOP in text and "plug in" not in text
    finally:
        holder.close()
        os.close(master)
        os.close(slave)
