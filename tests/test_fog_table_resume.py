"""A power cut in Lao Tzu against the computer on the view table (the simulated hand off):
the resume restores everything the owner set up — the computer's seat and level, the
person's seat the page and the board serve, the players' names, the clock's control and
remaining times, the game's options and its hidden arrays — and a takeback made before
the cut is resumed as made."""

from __future__ import annotations

import random

from controller.journal import Journal
from controller.service import BoardService
from controller.web.page import page_state
from tests.support.service import make_config
from tests.test_fog_table_takeback import _persons_turn, _until
from tests.test_service_laotzu_table import COMPUTER, PERSON, TablePerson


def _power_cut(svc: BoardService) -> None:
    svc.computer.close()
    svc.coach_seat.close()
    svc.sensing.close()


def test_a_power_cut_resumes_seats_names_clock_and_arrays_of_the_view_table(
        tmp_path, monkeypatch):
    config = make_config(tmp_path, game="laotzu", computer=["White"], computer_level=3,
                         simulated_hand_moves=False, clock="5+3",
                         options={"white_array": 100, "black_array": 700})
    config.players.names = ["Ada", "Bob"]
    config.sensing.scan_hz = 50.0
    svc = BoardService(config)
    monkeypatch.setattr(svc, "_computer_movetime", lambda now: 0.05)
    svc.sim_action({"action": "arrange"})
    svc.step(0.2)
    person = TablePerson(svc, random.Random(11))
    _until(svc, person, lambda: len(svc.plies) >= 5 and _persons_turn(svc))
    svc.command("takeback")  # his last move and the reply: journalled before the cut
    truth = svc.game.position_text(svc.position)
    plies = len(svc.plies)
    record = Journal(svc.journal.folder).games()[-1]
    assert record.players == ["Ada", "Bob"] and record.options["white_array"] == 100
    _power_cut(svc)

    plain = make_config(tmp_path, game="laotzu", simulated_hand_moves=False)  # no computer
    again = BoardService(plain)
    try:
        assert again.game_id == record.id
        # the whole game, the takeback included; the board asks for his view only
        assert again.game_options["white_array"] == 100
        assert again.game_options["black_array"] == 700
        assert again.game.position_text(again.position) == truth
        assert len(again.plies) == plies
        assert again.opponent.computer.seats == {COMPUTER}
        assert again.opponent.computer.level == 3
        table = again.computer.table
        assert table is not None and table.person == PERSON
        view = again.game.view_position(again.position, PERSON)
        assert again.expected_position().board == view.board
        # the page plays the person's seat: his view, never the computer's
        state = page_state(again)
        assert state["viewer"] == PERSON and page_state(again, COMPUTER)["viewer"] == PERSON
        assert state["computer"]["takeback"]
        assert state["resume"]["summary"].startswith("against the computer, level 3, ")
        clock = again.clock_json()
        assert clock is not None and clock["control"] == "5+3"
        (resumed,) = [r for r in Journal(again.journal.folder).games() if r.id == record.id]
        assert resumed.players == ["Ada", "Bob"]
        assert clock["remaining"] == [round(r, 1) for r in resumed.remaining]
    finally:
        again.close()
