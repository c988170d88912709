"""The forgery catalogue (tests/support/forgery.py; docs/reliability.md, "Forged link
messages"): every message kind forged, replayed, mislabelled and sent from the wrong
identity — by a third board of the club and by the other player's own board — in an open
and in a refereed game over the documented Mosquitto.  Each is refused with no change on
any board; the game then goes on with no fork and no lost move."""

from __future__ import annotations

from tests.support.forgery import run_open, run_refereed


def _check(tally) -> None:
    assert tally.failures == [], "\n".join(tally.failures)
    assert (tally.accepted, tally.forks, tally.lost) == (0, 0, 0)
    assert {"forged", "replayed", "mislabelled", "wrong identity"} <= set(tally.hows)


def test_forgeries_in_an_open_game_change_nothing(tmp_path):
    tally = run_open(tmp_path)
    _check(tally)
    assert {"move", "takeback", "takeback-request", "takeback-answer", "state", "start",
            "invitation", "presence", "view", "request"} <= set(tally.kinds)
    assert tally.by["board"] >= 8 and tally.by["broker"] >= 8 and tally.by["consent"] == 3


def test_forgeries_in_a_refereed_game_change_nothing(tmp_path):
    tally = run_refereed(tmp_path)
    _check(tally)
    assert {"attempt", "view", "state", "start", "request"} <= set(tally.kinds)
