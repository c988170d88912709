"""Gnu Qi on its own board: the square9 layout's digital halls read through the 74HC165
chain by the production scanner (``gpio-shift-spi``, emulated electronics, scanned every
5 ms as the service does; the whole game every 10 ms, to save time), the real debouncer
and settle gate, the board state machine.

Situations (rules/gnuqi.md §5–§7, §10; design/interaction.md):

* the compulsory Pawn → Wazir exchange is part of the move, in any order — the Pawn moved
  and then swapped, the Pawn taken off and the Wazir put on the target, the Wazir put on
  the target before the Pawn is taken off — never mistaken for another move, and asked
  for ("exchange the piece") until done;
* castling King first or Rook first, on both wings, for both colours; not through check;
* the one-way check between Kings;
* a whole game from the start to checkmate, chosen by a seeded driver and played by a
  clumsy simulated human, recorded exactly in the journal.
"""

from __future__ import annotations

import random

import pytest

from controller.journal import GameWriter, Journal, read_game
from controller.rules.core import Move, Position
from tests.support.gnuqi import (
    BLACK_PUSH,
    CAPTURE,
    CASTLES,
    CELL,
    GAME,
    ONE_WAY,
    PUSH,
    GnuQiHuman,
    chain_rig,
    choose,
    exchanging,
    swaps,
)
from tests.support.rig import Rig, objects_for


@pytest.fixture
def rig_at():
    rigs: list[Rig] = []

    def make(position: str | None = None, **kw) -> Rig:
        rig = chain_rig(position, **kw)
        rigs.append(rig)
        return rig
    yield make
    for rig in rigs:
        rig.close()


def move(pos: Position, text: str) -> Move:
    return GAME.parse_move(pos, text)


def cells(*names: str) -> frozenset[int]:
    return frozenset(CELL(n) for n in names)






# -- the Pawn → Wazir exchange ---------------------------------------------------------------


def test_pawn_moved_then_exchanged_is_asked_for_until_done(rig_at):
    rig = rig_at(PUSH)
    e6, e7 = CELL("e6"), CELL("e7")
    rig.move("e6", "e7")
    assert [GAME.long_move_text(GAME.parse_position(PUSH), m) for m in rig.moves] == ["e6e7"]
    assert rig.position.board[e7].kind == "W" and rig.state == "turn"
    it = rig.interaction
    assert it.message == "exchange the piece on e7 for a Wazir"
    assert it.to_remove == {e7} and it.last_move == {e6, e7} and it.mover == 1
    rig.lift("e7")  # the Knight g8 could take on e7: still no move, no mistake
    it = rig.interaction
    assert rig.state == "turn" and it.message == "exchange the piece: put a Wazir on e7"
    assert it.missing == {e7} and not it.targets and not it.origins
    rig.wait(3.5)  # no guidance: nothing is wrong
    assert rig.state == "turn" and rig.interaction.guide is None
    rig.sim.set_aside(1)
    rig.sim.take(objects_for(rig.position.board[e7]))
    rig.place("e7")
    it = rig.interaction
    assert rig.state == "turn" and it.message == "" and not it.to_remove and not it.missing
    assert len(rig.moves) == 1
    rig.move("g8", "f6")  # Black plays on as usual
    assert [m.target for m in rig.moves] == [e7, CELL("f6")] and not exchanging(rig)


def test_pawn_taken_off_and_wazir_put_on_the_target(rig_at):
    """The board cannot tell that Wazir from the Pawn: it asks; a tap settles it."""
    rig = rig_at(PUSH)
    rig.lift("e6")
    rig.sim.set_aside(1)
    rig.sim.take("white-w")
    rig.place("e7")
    assert len(rig.moves) == 1 and rig.moves[0].piece.kind == "W"
    assert exchanging(rig)
    rig.tap("e7")
    assert not exchanging(rig) and len(rig.moves) == 1 and rig.state == "turn"


def test_the_opponents_move_ends_the_request(rig_at):
    rig = rig_at(PUSH)
    rig.lift("e6")
    rig.sim.set_aside(1)
    rig.sim.take("white-w")
    rig.place("e7")
    assert exchanging(rig)
    rig.lift("g8")  # Black starts his move: the request stays with his targets
    assert rig.state == "lifted" and exchanging(rig)
    assert CELL("e7") in rig.interaction.targets  # the Knight may take the Wazir
    rig.place("h6")
    assert len(rig.moves) == 2 and not exchanging(rig) and rig.interaction.message == ""


def test_wazir_put_on_the_target_first_needs_no_exchange(rig_at):
    rig = rig_at(PUSH)
    rig.sim.take("white-w")
    rig.place("e7")  # a piece appears before the Pawn moved: the Wazir, not a mistake
    it = rig.interaction
    assert rig.state == "lifted" and not it.extra and not rig.moves
    assert it.origins == cells("e6")  # the Pawn still to take off
    rig.wait(3.5)
    assert rig.state == "lifted" and rig.interaction.guide is None
    rig.remove("e6")
    assert len(rig.moves) == 1 and rig.moves[0].piece.kind == "W"
    assert rig.state == "turn" and not exchanging(rig)  # it cannot be the Pawn: done


@pytest.mark.parametrize("victim_first", [True, False])
def test_capturing_promotion_then_exchange(rig_at, victim_first):
    rig = rig_at(CAPTURE)
    d7 = CELL("d7")
    if victim_first:
        rig.remove("d7")
        rig.move("e6", "d7")
    else:
        rig.lift("e6")
        assert rig.interaction.targets == cells("e7", "d7")
        rig.remove("d7")
        assert not rig.moves  # the Pawn is still in the hand
        rig.place("d7")
    assert [GAME.move_text(GAME.parse_position(CAPTURE), m) for m in rig.moves] == ["exd7=W"]
    assert rig.interaction.message == "exchange the piece on d7 for a Wazir"
    rig.remove("d7")
    assert rig.interaction.missing == {d7} and rig.state == "turn"
    rig.sim.take("white-w")
    rig.place("d7")
    assert not exchanging(rig) and len(rig.moves) == 1


def test_capture_with_the_wazir_put_down_before_the_pawn_is_lifted(rig_at):
    """Victim off, Wazir on its cell, Pawn off: the Wazir looks like the victim put back,
    so the board waits with the Pawn lifted; a tap on the target completes the capture."""
    rig = rig_at(CAPTURE)
    rig.remove("d7")
    rig.sim.take("white-w")
    rig.place("d7")
    assert rig.state == "turn" and not rig.moves  # the victim is back, as far as it knows
    rig.remove("e6")
    assert rig.state == "lifted" and not rig.moves
    assert rig.interaction.targets == cells("e7", "d7")
    rig.tap("d7")
    assert [GAME.move_text(GAME.parse_position(CAPTURE), m) for m in rig.moves] == ["exd7=W"]
    assert exchanging(rig)
    rig.tap("d7")
    assert not exchanging(rig) and len(rig.moves) == 1


def test_black_pawn_becomes_a_wazir_on_crossing_its_far_river(rig_at):
    rig = rig_at(BLACK_PUSH)
    rig.move("d4", "d3")
    assert rig.position.board[CELL("d3")].kind == "W" and rig.position.board[CELL("d3")].owner
    assert rig.interaction.message == "exchange the piece on d3 for a Wazir"
    rig.lift("d3")
    rig.sim.set_aside(1)
    rig.sim.take("black-w")
    rig.place("d3")
    assert not exchanging(rig) and len(rig.moves) == 1 and rig.interaction.mover == 0


def test_pawn_put_back_takes_the_move_back(rig_at):
    rig = rig_at(PUSH)
    rig.move("e6", "e7")
    assert exchanging(rig)
    rig.move("e7", "e6", wait=2.0)  # the position before the move, held: a takeback
    assert rig.takebacks == [rig.moves[:1]] and rig.state == "turn"
    assert rig.position.board[CELL("e6")].kind == "P" and not exchanging(rig)
    rig.move("e6", "e7")  # and again, now really
    assert len(rig.position.moves) == 1 and exchanging(rig)


def test_a_promotion_to_execute_is_shown_then_asked_for(rig_at):
    """The computer's (or the linked opponent's) e7=W: the LEDs show it; once the Pawn
    is on e7 the board asks for the Wazir, as after the player's own move."""
    rig = rig_at(PUSH)
    m = move(rig.position, "e7=W")
    rig.board.execute(m)
    it = rig.interaction
    assert rig.state == "execute" and it.execute_from == cells("e6")
    assert it.execute_to == cells("e7") and it.message == "execute e7=W"
    rig.move("e6", "e7")
    assert rig.moves == [m] and rig.state == "turn" and exchanging(rig)


def test_a_new_game_ends_the_request(rig_at):
    rig = rig_at(PUSH)
    rig.move("e6", "e7")
    assert exchanging(rig)
    rig.board.new_game()
    assert rig.state == "setup" and rig.interaction.message == "set up the position"
    rig.set_up(rig.board.position)
    rig.wait(0.1)
    assert rig.state == "turn" and rig.interaction.message == ""


def test_a_pawn_lifted_and_put_back_before_the_river_is_nothing(rig_at):
    rig = rig_at(PUSH)
    rig.tap("e6")
    assert not rig.moves and rig.state == "turn" and not exchanging(rig)


# -- castling ------------------------------------------------------------------------------


@pytest.mark.parametrize("colour", ["w", "b"])
@pytest.mark.parametrize("wing", ["O-O", "O-O-O"])
@pytest.mark.parametrize("king_first", [True, False])
def test_castling_in_either_order_on_both_wings(rig_at, colour, wing, king_first):
    start = CASTLES.format(colour)
    rig = rig_at(start)
    castle = move(rig.position, wing)
    (rook_from, rook_to), = castle.also
    names = GAME.geometry.cells
    if king_first:
        rig.move(castle.origin, castle.target)
        it = rig.interaction
        assert not rig.moves and rig.state == "lifted"
        # the King is down: the Rook is the piece still to move, its cell the target
        assert it.origins == {castle.origin, rook_from} and it.targets == {rook_to}
        rig.move(rook_from, rook_to)
        assert rig.moves == [castle] and not rig.takebacks
    else:
        rig.move(rook_from, rook_to)  # a legal Rook move on its own: committed …
        rook_move = rig.moves[0]
        assert (rook_move.kind, rook_move.origin, rook_move.target) == (
            "move", rook_from, rook_to)
        rig.lift(castle.origin)
        assert rig.interaction.targets == {castle.target}
        rig.place(castle.target)  # … and the King joining it makes it castling
        assert rig.moves == [rook_move, castle] and rig.takebacks == [[rook_move]]
    assert rig.position.moves == [castle] and rig.state == "turn"
    rights = rig.position.state.get("castling", "")
    assert not set(rights) & set("KQ" if colour == "w" else "kq")
    assert names[castle.target] in {"c1", "g1", "c9", "g9"}


def test_no_castling_through_an_attacked_cell(rig_at):
    start = "r3k3r/9/9/9/3r5/9/9/9/R3K3R w KQkq - 0 1"  # the Rook d5 attacks d1
    rig = rig_at(start)
    assert [GAME.move_text(rig.position, m) for m in rig.position.legal_moves()
            if m.kind == "castle"] == ["O-O"]
    rig.move("e1", "c1")
    assert rig.state == "correction" and not rig.moves
    rig.move("c1", "e1")
    assert rig.state == "turn"
    rig.move("e1", "g1")
    rig.move("i1", "f1")
    assert [GAME.move_text(GAME.parse_position(start), m) for m in rig.moves] == ["O-O"]


# -- check ---------------------------------------------------------------------------------


def test_one_way_check_between_kings(rig_at):
    rig = rig_at(ONE_WAY)
    e6, e7 = CELL("e6"), CELL("e7")
    rig.lift("d8")
    assert e7 in rig.interaction.targets  # next to the White King: legal for Black
    rig.place("e7")
    it = rig.interaction
    assert rig.moves and it.check == {e6} and it.mover == 0  # White's King is in check
    rig.lift("e6")  # it may not cross its far River, so it cannot take back
    assert rig.interaction.targets == cells("d5", "e5", "f5")
    rig.place("e5")
    it = rig.interaction
    assert len(rig.moves) == 2 and not it.check and it.mover == 1
    rig.lift("e7")  # nor may Black step next to the White King on rank 6
    assert rig.interaction.targets == cells("d7", "d8", "e8", "f7", "f8")
    rig.place("e7")
    assert rig.state == "turn" and len(rig.moves) == 2


# -- a whole game --------------------------------------------------------------------------






def journal_of(rig: Rig, folder) -> GameWriter:
    """Journal the board's commits, takebacks and end as the service does."""
    writer = Journal(folder).new_game("gnuqi", {}, GAME.position_text(rig.position),
                                      ["White", "Black"])

    def on_move(move: Move) -> None:
        pos = rig.position
        last = pos.pop()
        try:
            text = GAME.move_text(pos, move)
        finally:
            pos.push(last)
        writer.move(text, GAME.long_move_text(pos, move))

    rig.board.subscribe("move", on_move)
    rig.board.subscribe("takeback", lambda moves: writer.takeback(len(moves)))
    rig.board.subscribe("game_over", lambda o: writer.end(o.result, o.reason))
    return writer


#: the driver's seed: 104 plies to checkmate with castling on both wings and a Pawn →
#: Wazir exchange by each side; the human's seed: one castling Rook first, one King
#: first, one Wazir put down before the Pawn left and one exchanged after the move
DRIVER_SEED, HUMAN_SEED = 22, 3


def test_whole_game_by_a_seeded_driver_is_recorded_exactly(rig_at, tmp_path):
    rig = rig_at(seed=3, period=0.01)  # 100 Hz: the whole game in fewer scans
    writer = journal_of(rig, tmp_path)
    driver = random.Random(DRIVER_SEED)
    human = GnuQiHuman(rig, random.Random(HUMAN_SEED), mishaps=True)
    human.orders = []
    intended: list[Move] = []
    texts: list[str] = []
    while rig.state != "game_over":
        assert len(intended) < 300, "the driver's game does not end"
        m = choose(GAME, rig.position, driver)
        texts.append(GAME.move_text(rig.position, m))
        intended.append(m)
        human.play(m)
    writer.close()
    assert rig.position.moves == intended
    outcome = rig.outcomes[-1]
    assert outcome.reason == "checkmate" and len(intended) == 104
    record = read_game(writer.path)
    assert record.moves == texts and (record.result, record.reason) == (
        outcome.result, "checkmate")
    assert record.replay()[1].snapshot() == rig.position.snapshot()
    # the game has what it should: castling both wings, exchanges by both sides
    pos = GAME.start()
    seen = set()
    for m in intended:
        if m.kind == "castle":
            seen.add(GAME.move_text(pos, m))
        if swaps(pos, m):
            seen.add(("W", pos.turn))
        pos.push(m)
    assert {"O-O", "O-O-O", ("W", 0), ("W", 1)} <= seen, seen
    # every commit is the game or a move replaced at once (castling after the Rook)
    undone = [m for t in rig.takebacks for m in t]
    assert len(rig.moves) == len(intended) + len(undone)
    assert undone and all(m.kind == "move" and GAME.geometry.cells[m.origin][0] in "ai"
                          for m in undone)  # only Rooks that moved first
    assert sorted(human.orders) == ["after", "first"]
