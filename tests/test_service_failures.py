"""A failing worker is shown and contained (issue 30): when the computer's search or the
coach fails — its process cannot start, or the search raises (a missing values file) —
the page says so with what to do, /health reports ``degraded`` with the reason, the game
stays playable, and the failure is logged once with its traceback and then counted."""

from __future__ import annotations

import json
import logging

import controller.coach
import controller.opponent
from controller.web.page import page_state
from tests.support import failing
from tests.support.service import make_service, play, set_up, wait_for


def _failures(caplog, room: str) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.getMessage() == f"{room} failed"]


def _person_plays_for_the_computer(svc) -> None:
    game, pos = svc.game, svc.position
    play(svc, game.move_text(pos, game.legal_moves(pos)[0]))


def test_a_computer_whose_worker_cannot_start_leaves_a_game_of_two_people(
        tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(controller.opponent, "start_worker", failing.refuse_to_start)
    caplog.set_level(logging.INFO)
    svc = make_service(tmp_path, layout="square9", game="gnuqi", computer=["Black"],
                       computer_level=6)
    try:
        set_up(svc)
        play(svc, "e4")
        wait_for(svc, lambda: page_state(svc)["problems"])
        svc.step(2.0)  # many more polls: no retry, no flood, no loop error
        state = page_state(svc)
        (line,) = state["problems"]
        assert "computer stopped working" in line and "two players" in line
        assert "values.toml" in line or "BrokenProcessPool" in line or "process" in line
        assert state["computer"]["names"] == [] and state["computer"]["problem"] == line
        health = svc.health()
        assert health["status"] == "degraded" and health["problems"] == [line]
        assert health["sensing"]["state"] == "ok"
        (record,) = _failures(caplog, "computer")
        assert record.exc_info is not None  # once, with its traceback
        assert not [r for r in caplog.records if r.getMessage() == "board loop error"]
        _person_plays_for_the_computer(svc)  # the game stays playable
        assert len(svc.journal.games()[-1].moves) == 2
    finally:
        svc.close()


def test_a_search_and_a_coach_that_raise_are_logged_once_and_counted(
        tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(controller.opponent, "think", failing.search_raises)
    monkeypatch.setattr(controller.coach, "advise", failing.search_raises)
    caplog.set_level(logging.INFO)
    svc = make_service(tmp_path, layout="square9", game="gnuqi", computer=["Black"],
                       computer_level=6, coach=True)
    try:
        set_up(svc)
        play(svc, "e4")  # the coach reviews it, the computer is asked: both fail
        wait_for(svc, lambda: len(page_state(svc)["problems"]) == 2)
        assert page_state(svc)["advice"]["coach"] is False  # the coach went off
        _person_plays_for_the_computer(svc)
        for _ in range(2):  # asked again: counted, not logged again
            svc.command("hint")
            wait_for(svc, lambda: not svc.coach.busy)
            svc.step(0.1)
        health = svc.health()
        assert health["status"] == "degraded"
        assert any("coach stopped working" in p for p in health["problems"])
        assert health["failures"]["coach: FileNotFoundError"] == 3
        assert len(_failures(caplog, "coach")) == 1 and len(_failures(caplog, "computer")) == 1
        play(svc, "a4")  # still playable
        svc.new_game("gnuqi")  # a new game clears the computer's failure
        assert not any("computer" in p for p in page_state(svc)["problems"])
    finally:
        svc.close()


def test_a_failure_in_a_game_with_hidden_information_tells_nothing_hidden(
        tmp_path, monkeypatch, caplog):
    """The error's text may name what the person may not see: the page, /health and the
    log get its kind only."""
    monkeypatch.setattr(controller.opponent, "think_from_view", failing.view_search_raises)
    caplog.set_level(logging.DEBUG)
    svc = make_service(tmp_path, layout="square8", game="laotzu", computer=["Black"],
                       computer_level=1, options={"white_array": 518, "black_array": 518})
    try:
        set_up(svc)
        game, pos = svc.game, svc.position
        play(svc, game.move_text(pos, game.legal_moves(pos)[0]))
        wait_for(svc, lambda: page_state(svc)["problems"])
        (line,) = page_state(svc)["problems"]
        assert "ValueError" in line and "computer stopped working" in line
        shown = json.dumps([page_state(svc, 0), page_state(svc, 1), svc.health()])
        assert "SECRET" not in shown and "SECRET" not in caplog.text
        (record,) = _failures(caplog, "computer")
        assert "opponent.py" in record.where  # where it was raised, without its text
    finally:
        svc.close()
