"""``fairyboard referee``, the command an owner runs on a Pi or a server."""

from __future__ import annotations

import pytest

from controller.link.messages import Start
from tests.support.refereed import CLUB, documented_broker, until

SEATS = ("alpha", "beta")


def test_the_referee_command_runs_and_stops_cleanly(tmp_path):
    """``fairyboard referee`` as an owner starts it: it serves a game, keeps it in its
    journal, stops on SIGTERM with status 0; without a broker it says so in one line."""
    import json
    import signal
    import subprocess
    import sys
    import time

    from tests.support.refereed import LinkedFogBoard

    bad = subprocess.run([sys.executable, "-m", "controller.cli", "referee"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode != 0 and bad.stderr.count("\n") == 1 and "broker" in bad.stderr
    broker, users = documented_broker(tmp_path / "broker")
    journal = tmp_path / "referee.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "referee", "--broker", "127.0.0.1",
         "--port", str(broker.port), "--club", CLUB, "--username", "referee",
         "--password", users["referee"], "--journal", str(journal)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    board = LinkedFogBoard("alpha", broker.port, users["alpha"], seed=1)
    try:
        until(lambda: board.mqtt.connected, board)
        board.seat.request(Start("c-1", "laotzu", {}, "", SEATS))
        until(lambda: board.player is not None, board, timeout=30)
        assert board.player.sync.ply == 0
        game = tmp_path / "referee-games" / "c-1.jsonl"  # the game's own journal file
        deadline = time.monotonic() + 10
        while not game.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        record = json.loads(game.read_text().splitlines()[0])
        assert record["seats"] == list(SEATS) and game.stat().st_mode & 0o077 == 0
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(10) == 0, proc.stderr.read()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        board.close()
        broker.stop()


@pytest.mark.parametrize("args, problem", [
    (["--port", "0"], "--port must be 1-65535, got 0"),
    (["--port", "70000"], "--port must be 1-65535, got 70000"),
    (["--club", ""], "--club '': use 1-64 letters"),
    (["--journal", "LIST"], "'games' must be an object of games by id, not a list"),
])
def test_the_referees_bad_input_is_one_line_and_exit_status_2(tmp_path, capsys, args,
                                                              problem):
    from controller.cli import main

    journal = tmp_path / "referee.json"
    journal.write_text('{"format": 1, "games": []}')
    args = [str(journal) if a == "LIST" else a for a in args]
    assert main(["referee", "--broker", "127.0.0.1", *args]) == 2
    err = capsys.readouterr().err
    assert problem in err and err.count("\n") == 1, err
