"""Takebacks on a table that holds only the person's view (Lao Tzu against the computer,
the simulated hand off, ``controller/fogtable.py``).  The board has no history of the
whole game to restore by hand, so the takeback is a command (the page's Take back
button, ``command("takeback")``): the person's last move and the computer's reply are
taken back on the whole position, the journal and the clock follow, and the board
guides him back to his view before his move."""

from __future__ import annotations

import random
import time
from dataclasses import replace

import pytest

from controller.board.options import TAKE_BACK
from controller.journal import Journal
from controller.service import BoardService, ServiceError
from controller.web.page import page_state
from tests.support.service import make_config
from tests.test_service_laotzu_table import PERSON, TablePerson


def _service(tmp_path, monkeypatch, **board) -> BoardService:
    config = make_config(tmp_path, game="laotzu", computer=["White"], computer_level=1,
                         simulated_hand_moves=False, options={"seed": 5}, **board)
    config.sensing.scan_hz = 50.0
    service = BoardService(config)
    monkeypatch.setattr(service, "_computer_movetime", lambda now: 0.05)
    return service


@pytest.fixture
def svc(tmp_path, monkeypatch):
    service = _service(tmp_path, monkeypatch, clock="5+3")
    yield service
    service.close()


def _until(svc, person, done, limit: float = 60) -> None:
    """The person follows the board and makes his moves until ``done()``."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        person.follow()
        if done():
            return
        if svc.game.ply_mover(svc.position) == PERSON and svc.interaction.phase == "turn":
            person.move()
        else:
            time.sleep(0.01)
            svc.step(0.05)
    pytest.fail(f"never done: {len(svc.plies)} plies, {svc.interaction}")


def _replayed(svc, moves):
    """The whole position after ``moves`` of this game."""
    pos = svc.game.parse_position(svc.session.setup)
    for move in moves:
        pos.push(move)
    return pos


def _persons_turn(svc) -> bool:
    return svc.game.ply_mover(svc.position) == PERSON and svc.interaction.phase == "turn"


def test_a_takeback_undoes_his_move_and_the_reply_and_guides_him_back(svc):
    assert page_state(svc)["computer"]["takeback"]  # the page offers the button
    svc.sim_action({"action": "arrange"})
    svc.step(0.2)
    person = TablePerson(svc, random.Random(7))
    _until(svc, person, lambda: len(svc.plies) >= 3 and _persons_turn(svc))
    game = svc.game
    plies = len(svc.plies)
    before = _replayed(svc, svc.position.moves[:-2])
    assert game.ply_mover(before) == PERSON  # the position he made his last move in
    assert game.ply_mover(_replayed(svc, svc.position.moves[:-1])) == 0  # then the reply
    view_before = game.view_position(before, PERSON)
    clock = svc.session.game_clock
    assert clock is not None and clock.running == PERSON

    svc.command("takeback")
    assert game.position_text(svc.position) == game.position_text(before)
    assert len(svc.plies) == plies - 2
    assert svc.position.moves == before.moves
    # the journal replays to the same whole position, the clock runs for him again
    (record,) = [r for r in Journal(svc.journal.folder).games() if r.id == svc.game_id]
    _, replayed = record.replay()
    assert game.position_text(replayed) == game.position_text(before)
    assert len(record.moves) == plies - 2
    assert clock.running == PERSON
    # the board asks for his view before his move, and he is guided there
    assert svc.expected_position().board == view_before.board
    person.follow()
    assert _persons_turn(svc)
    occupied = {c for c in range(len(game.geometry.cells)) if svc.sim.objects(c)}
    assert occupied == {c for c, p in enumerate(view_before.board) if p is not None}
    # and the game goes on from there: his move, the computer's reply
    _until(svc, person, lambda: len(svc.plies) >= plies - 1 and _persons_turn(svc))
    (record,) = [r for r in Journal(svc.journal.folder).games() if r.id == svc.game_id]
    _, replayed = record.replay()
    assert game.position_text(replayed) == game.position_text(svc.position)


def test_a_takeback_while_the_computer_thinks_undoes_his_move_only(svc):
    svc.sim_action({"action": "arrange"})
    svc.step(0.2)
    person = TablePerson(svc, random.Random(8))
    _until(svc, person, lambda: len(svc.plies) >= 3 and _persons_turn(svc))
    svc.computer.opponent.close()  # (the computer is slow to answer: it never does)
    svc.computer.opponent.poll = lambda *a, **k: None
    plies = len(svc.plies)
    before = _replayed(svc, svc.position.moves)
    person.move()
    assert len(svc.plies) == plies + 1
    svc.step(0.1)
    clock = svc.session.game_clock
    assert clock is not None and clock.running == 0  # the computer's time runs
    svc.command("takeback")
    assert clock.running == PERSON  # his again
    assert svc.game.position_text(svc.position) == svc.game.position_text(before)
    assert len(svc.plies) == plies
    person.follow()
    assert _persons_turn(svc)


def test_a_takeback_refused_says_why_in_one_line(tmp_path, monkeypatch):
    """Takebacks off: no button, no menu entry, the command refused in one line.  On:
    two takebacks in a row go back to the computer's first move, and a third has
    nothing of his to take back."""
    svc = _service(tmp_path, monkeypatch, takeback=False)
    try:
        assert not page_state(svc)["computer"]["takeback"]  # no button
        svc.sim_action({"action": "arrange"})
        svc.step(0.2)
        person = TablePerson(svc, random.Random(9))
        _until(svc, person, lambda: len(svc.plies) >= 3 and _persons_turn(svc))
        with pytest.raises(ServiceError, match="takebacks are off"):
            svc.command("takeback")
        assert not svc.board.takes_back_on_command and TAKE_BACK not in _menu(svc)
        assert len(svc.plies) == 3
        svc.board.options = replace(svc.board.options, takeback=True)
        svc.command("takeback")
        assert len(svc.plies) == 1  # the computer (White) moved, he has not
        assert not svc.board.takes_back_on_command
        with pytest.raises(ServiceError, match="no move to take back"):
            svc.command("takeback")
        assert len(svc.plies) == 1
        (record,) = [r for r in Journal(svc.journal.folder).games() if r.id == svc.game_id]
        assert len(record.moves) == 1
    finally:
        svc.close()


def test_a_takeback_on_a_board_that_holds_the_game_is_made_by_hand(tmp_path):
    svc = BoardService(make_config(tmp_path, game="chess"))
    try:
        with pytest.raises(ServiceError, match="put back the position"):
            svc.command("takeback")
        assert not page_state(svc)["computer"]["takeback"]
    finally:
        svc.close()


def _touch(svc, pad: str) -> None:
    """A finger on an option pad and off again (a spare piece from the box)."""
    svc.sim_action({"action": "take", "object": "white-P"})
    svc.sim_action({"action": "place", "spot": pad})
    svc.step(0.1)
    svc.sim_action({"action": "lift", "spot": pad})
    svc.sim_action({"action": "set_aside"})
    svc.step(0.1)


def _menu(svc) -> list[str]:
    _touch(svc, svc.layout.pads("option")[0].name)
    it = svc.interaction
    assert it.phase == "choice", it
    return [o.label for o in it.options]


def test_the_boards_menu_takes_back_on_the_view_table(svc):
    """The board's own command menu (an option pad touched) offers "take back" once he
    has a move to take back; touching its pad takes it back as the page's button does."""
    svc.sim_action({"action": "arrange"})
    svc.step(0.2)
    person = TablePerson(svc, random.Random(7))
    _until(svc, person, lambda: len(svc.plies) >= 1 and _persons_turn(svc))
    assert not svc.board.takes_back_on_command  # the computer's first move only
    _until(svc, person, lambda: len(svc.plies) >= 3 and _persons_turn(svc))
    plies = len(svc.plies)
    before = _replayed(svc, svc.position.moves[:-2])
    labels = _menu(svc)
    assert TAKE_BACK in labels, labels
    option = next(o for o in svc.interaction.options if o.label == TAKE_BACK)
    _touch(svc, svc.layout.spots[option.spot].name)
    assert len(svc.plies) == plies - 2
    assert svc.game.position_text(svc.position) == svc.game.position_text(before)
    (record,) = [r for r in Journal(svc.journal.folder).games() if r.id == svc.game_id]
    assert len(record.moves) == plies - 2
    person.follow()
    assert _persons_turn(svc)
    assert svc.expected_position().board == svc.game.view_position(before, PERSON).board
