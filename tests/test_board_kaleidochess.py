"""KaleidoChess on the round board (``kaleido89``), driven by simulated human actions
through the real debouncer, settle gate, reconciler and state machine.

Every situation of design/interaction.md for KaleidoChess: the players' colours, a
lifted piece's destinations, captures of one's own pieces (either order; a same-kind own
capture is not committed when the mover is merely lifted), several paths to one field
being one move, a capture on a castle, the die (option pads, die pad, allowed pieces,
forced move, pass), eliminations with three and four players (knocked out on a castle,
giving up the last castle, blocked), the last player left, the game-over display — and
whole games for two, three and four players, with and without dice, played start to
finish by a seeded driver whose moves a clumsy simulated human makes on the board, each
recorded exactly in a journal.
"""

from __future__ import annotations

import random

import pytest

from controller.journal import read_game
from controller.rules.core import Move, Piece
from controller.rules.kaleidochess import DICE_TABLE, PIECE_TYPES, KaleidoChess, enumerate_paths
from tests.support.kaleidochess import (
    CASTLES,
    KNOCKOUT,
    KHuman,
    KRig,
    cell,
    cells,
    play_to_the_end,
    setup_text,
)

# -- the driver ----------------------------------------------------------------------






# -- colours and lifting -------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_piece_is_lit_in_its_players_colour(players):
    game = KaleidoChess(players=players)
    rig = KRig(game=game)
    pos = rig.position
    it = rig.interaction
    assert it.phase == "turn" and it.mover == 0
    assert it.owners == {c: p.owner for c, p in enumerate(pos.board) if p is not None}
    assert sorted(set(it.owners.values())) == list(range(players))
    homes = {2: "1J 5J", 3: "1J 3J 5J", 4: "1J 3J 5J 7J"}[players].split()
    assert [it.owners[cell(h)] for h in homes] == list(range(players))  # wizards at home
    # after a move the colours follow the pieces
    move = next(m for m in game.legal_moves(pos) if not m.captures)
    KHuman(rig, random.Random(1)).play(move)
    it = rig.interaction
    assert it.owners.get(move.target) == 0 and move.origin not in it.owners
    assert it.mover == 1 and it.last_move == {move.origin, move.target}


def test_a_lifted_piece_shows_its_destinations_and_going_back_is_nothing():
    game = KaleidoChess()
    rig = KRig(game=game)
    pos = rig.position
    for name in ("1G", "1J", "8G", "1F"):  # dragon, wizard, horse (walker), pawn
        c = cell(name)
        rig.lift(name)
        it = rig.interaction
        assert it.phase == "lifted" and it.origins == {c}
        # (the lifted piece's own cell may also be the target of an own capture: the LED
        # shows it as the origin)
        assert it.targets - {c} == set(game.destinations(pos, c)) == {
            m.target for m in game.legal_moves(pos) if m.origin == c}
        rig.place(name)
        assert rig.state == "turn" and rig.moves == []
    # a walker's destinations depend on what blocks it: the horse on 8G is hemmed in
    assert len(game.destinations(pos, cell("8G"))) < 8


def test_several_paths_to_one_field_are_one_move():
    game = KaleidoChess()
    rig = KRig(game=game)
    pos = rig.position
    dragon = PIECE_TYPES["D"]
    paths = [p for p in enumerate_paths(cell("1G"), dragon.steps, dragon.flies, dragon.ring_free)
             if p[-1] == cell("1D")]
    assert len(paths) >= 3  # 1G-1F-8H-8E-1D, 1G-1H-2F-1E-1D, 1G-1H-2D-1E-1D, …
    assert [game.move_text(pos, m) for m in game.legal_moves(pos)
            if m.origin == cell("1G") and m.target == cell("1D")] == ["1G-1D"]
    rig.move("1G", "1D", wait=0.3)  # (1D may be on the way further: the gate waits a little)
    assert rig.state == "turn" and [rig.text(m, game.start()) for m in rig.moves] == ["1G-1D"]


def test_a_slide_counts_only_where_it_ends():
    """A tiger slid 1D→1B→1C→2B passes 1B, itself a tiger destination: the rules tell the
    settle gate that 1B may be on the way, so only 2B counts."""
    game = KaleidoChess()
    rig = KRig(setup_text(game, "1J=wW 1D=wT 5J=bW 5G=bP"), game=game)
    pos = rig.position
    dests = set(game.destinations(pos, cell("1D")))
    assert cells("1B 2B") <= dests and cell("1C") not in dests
    index = rig.board.reconciler.index
    extendable = {index.moves[i].target for i, e in enumerate(index.effects) if e.extendable}
    assert cell("1B") in extendable and cell("2B") not in extendable
    rig.sim.slide([cell(n) for n in ("1D", "1B", "1C", "2B")], dwell_s=0.06)
    rig.wait(0.5)
    assert rig.moves == [game.parse_move(game.parse_position(setup_text(
        game, "1J=wW 1D=wT 5J=bW 5G=bP")), "1D-2B")]


# -- captures of one's own pieces ----------------------------------------------------


@pytest.mark.parametrize("victim_first", [False, True])
def test_own_capture_of_a_piece_of_the_same_kind(victim_first):
    """The pawn on 1F takes the own pawn on 8H.  The sensors cannot tell the two pawns
    apart, so lifting 1F alone must not commit: 8H has to be seen empty."""
    game = KaleidoChess()
    rig = KRig(game=game)
    move = game.parse_move(rig.position, "1F+8H")
    assert move.captures == (cell("8H"),) and rig.position.board[cell("8H")] == move.piece
    if victim_first:
        rig.remove("8H")
        rig.lift("1F")
    else:
        rig.lift("1F")
        assert rig.state == "lifted" and rig.moves == [] and cell("8H") in \
            rig.interaction.targets
        rig.wait(1.0)
        assert rig.moves == []  # still nothing: 8H was never seen empty
        rig.remove("8H")
    rig.place("8H")
    assert rig.moves == [move] and rig.state == "turn"
    assert rig.position.board[cell("1F")] is None
    assert rig.position.board[cell("8H")] == Piece(0, "P")


def test_own_capture_on_a_castle_keeps_the_castle():
    game = KaleidoChess()
    rig = KRig(setup_text(game, "1J=wW 1K=wV 5J=bW 5G=bP"), game=game)
    move = game.parse_move(rig.position, "1K+1J")  # the raven takes its own wizard
    KHuman(rig, random.Random(3)).play(move)
    assert rig.state == "turn" and rig.board.outcome is None
    assert rig.position.board[cell("1J")] == Piece(0, "V")
    assert rig.interaction.owners[cell("1J")] == 0


# -- the end of a two-player game ----------------------------------------------------


def test_a_piece_captured_on_the_last_castle_ends_the_game():
    game = KaleidoChess()
    rig = KRig(setup_text(game, "1J=wW 5G=wV 5J=bW 4K=bP"), game=game)
    rig.remove("5J")  # Black's wizard, his only piece in a castle
    rig.move("5G", "5J")
    assert rig.state == "game_over"
    assert rig.board.outcome == ((0,), "no castle left")
    assert rig.interaction.message == "1-0 (no castle left): White wins"
    # the game-over display: the winner's pieces keep their colour, the loser's go dark
    assert rig.interaction.owners == {cell("1J"): 0, cell("5J"): 0}


def test_a_player_who_cannot_move_loses():
    game = KaleidoChess()
    # White's last piece is a horse in his castle; Black's pawn closes its last way out
    rig = KRig(setup_text(game, "1F=bP 1I=bT 1J=wH 1K=bT 5J=bW", turn="b"), game=game)
    move = game.parse_move(rig.position, "1F-1G")
    KHuman(rig, random.Random(4)).play(move)
    assert not game.legal_moves(rig.position)
    assert rig.state == "game_over" and rig.board.outcome == ((1,), "blocked")


# -- three and four players: who is out ------------------------------------------------



@pytest.mark.parametrize("order", ["mover first", "pieces first"])
def test_a_player_knocked_out_on_his_last_castle_leaves_the_board(order):
    game = KaleidoChess(players=3)
    rig = KRig(setup_text(game, KNOCKOUT), game=game)
    move = game.parse_move(rig.position, "3G+3J")
    assert set(move.captures) == cells("3J 3A 2A")
    if order == "pieces first":
        rig.remove("2A")
        assert rig.state == "lifted" and rig.moves == []
    rig.remove("3J")  # the victim to the box, the raven onto the castle
    rig.move("3G", "3J")
    it = rig.interaction
    assert rig.moves == [] and it.phase == "lifted"
    assert it.to_remove == (cells("3A") if order == "pieces first" else cells("3A 2A"))
    assert it.message == "Red is out: take the marked pieces off the board"
    rig.wait(3.5)
    assert rig.moves == [] and it.guide is None  # waiting, not a mistake
    rig.remove("3A")
    if order == "mover first":
        rig.remove("2A")
    assert rig.moves == [move] and rig.state == "turn"
    it = rig.interaction
    assert game.out_players(rig.position) == (1,)
    assert it.mover == 2 and 1 not in it.owners.values()  # Black's turn: Red is skipped
    assert not it.to_remove and not it.missing and not it.extra


def test_giving_up_the_last_castle_is_recorded_where_the_piece_landed():
    game = KaleidoChess(players=3)
    rig = KRig(setup_text(game, "1J=wW 3J=rW 3A=rP 5J=bW", turn="r"), game=game)
    pos = rig.position
    rig.lift("3J")
    assert rig.interaction.targets == set(game.destinations(pos, cell("3J")))
    rig.place("3F")  # first here …
    assert rig.state == "lifted" and rig.interaction.to_remove == cells("3F 3A")
    assert rig.interaction.message == (
        "Red gives up the last castle and is out: take the marked pieces off the board")
    rig.lift("3F")
    rig.place("3G")  # … then here
    rig.remove("3A")
    assert rig.moves == [] and rig.interaction.to_remove == cells("3G")
    rig.remove("3G")
    assert [rig.text(m, pos.copy()) for m in rig.moves] == ["3J-3G"]
    assert rig.moves == [game.parse_move(game.parse_position(
        setup_text(game, "1J=wW 3J=rW 3A=rP 5J=bW", turn="r")), "3J-3G")]
    assert game.out_players(rig.position) == (1,) and rig.interaction.mover == 2


def test_pieces_taken_off_without_showing_the_field_wait_for_it():
    game = KaleidoChess(players=3)
    start = setup_text(game, "1J=wW 3J=rW 3A=rP 5J=bW", turn="r")
    rig = KRig(start, game=game)
    rig.remove("3A")
    rig.remove("3J")  # Red simply clears his pieces: where did the wizard go?
    rig.wait(0.5)
    it = rig.interaction
    assert rig.moves == [] and it.phase == "lifted"
    assert it.targets == set(game.destinations(game.parse_position(start), cell("3J")))
    rig.sim.take("red-wizard")
    rig.place("3K")  # shown on its field and taken off again
    rig.remove("3K")
    assert [m.target for m in rig.moves] == [cell("3K")] and rig.state == "turn"


def test_a_blocked_player_is_out_and_his_pieces_are_marked_at_once():
    game = KaleidoChess(players=3)
    rig = KRig(setup_text(game, "1J=wW 3J=rH 3G=wP 3I=bP 3K=bP 5J=bW", turn="r"), game=game)
    it = rig.interaction
    assert it.phase == "turn" and it.mover == 1
    assert it.to_remove == cells("3J") and it.message == "Red cannot move and is out"
    rig.remove("3J")
    assert rig.moves == [Move("pass", captures=(cell("3J"),))]
    assert rig.interaction.mover == 2 and rig.state == "turn"


def test_the_last_player_left_wins():
    game = KaleidoChess(players=3)
    rig = KRig(setup_text(game, "1J=wW 5J=bW 5G=wV 6F=bP", rest="r - - 7 3"), game=game)
    rig.remove("5J")
    rig.move("5G", "5J")
    assert rig.interaction.to_remove == cells("6F")
    assert rig.interaction.message.startswith("Black is out")
    rig.remove("6F")
    assert rig.state == "game_over" and rig.board.outcome == ((0,), "last player left")
    assert rig.interaction.message == "White wins (last player left)"
    assert rig.interaction.owners == {cell("1J"): 0, cell("5J"): 0}


def test_four_players_turn_order_skips_who_is_out():
    game = KaleidoChess(players=4)
    rig = KRig(game=game)
    human = KHuman(rig, random.Random(11))
    movers = []
    for _ in range(5):
        movers.append(rig.interaction.mover)
        pos = rig.position
        human.play(next(m for m in game.legal_moves(pos) if not m.captures
                        and m.origin not in CASTLES))
    assert movers == [0, 1, 2, 3, 0]
    # Red already out; Green moves, then White gives up his last castle: Black is next
    rig = KRig(setup_text(game, "1J=wW 5J=bW 7J=gW 7A=gP", turn="g", rest="r - - 0 1"),
               game=game)
    human = KHuman(rig, random.Random(12))
    human.play(game.parse_move(rig.position, "7A-8A"))
    assert rig.interaction.mover == 0
    human.play(game.parse_move(rig.position, "1J-1I"))
    assert game.out_players(rig.position) == (0, 1) and rig.interaction.mover == 2
    assert set(rig.interaction.owners.values()) == {2, 3}


# -- the die ----------------------------------------------------------------------------


def test_die_face_on_the_option_pads_lights_the_pieces_it_allows():
    game = KaleidoChess(dice=True)
    rig = KRig(game=game)
    it = rig.interaction
    die = rig.spot("die")
    assert it.phase == "choice" and die in it.active_pads  # the die pad breathes
    assert [(o.label, rig.layout.spots[o.spot].name) for o in it.options] == [
        (f"die:{n}", f"option-{n}") for n in range(1, 7)]
    assert it.message == "roll the die and touch option pad 1–6 for the face rolled"
    rig.tap("die")  # touching the die pad meanwhile changes nothing
    assert rig.state == "choice" and rig.moves == []
    rig.lift("1F")  # a piece lifted before the roll: the question stays …
    rig.place("1F")
    assert rig.state == "choice"
    rig.tap("option-4")  # … the physical die shows 4: an elephant or the dragon
    pos = rig.position
    assert rig.moves == [Move("roll", token="die:4")] and rig.state == "turn"
    it = rig.interaction
    assert it.origins == cells("1G 8I 2K")
    assert {pos.board[c].kind for c in it.origins} <= set(DICE_TABLE[4])
    assert it.message == "White rolls 4 (an elephant or the dragon): move one of the lit pieces"
    assert die not in it.active_pads
    rig.lift("1F")  # a pawn may not move now: that is a mismatch
    assert rig.state == "correction" and rig.moves == [rig.moves[0]]
    rig.place("1F")
    KHuman(rig, random.Random(5)).play(game.parse_move(rig.position, "1G-1D"))
    assert rig.state == "choice" and rig.interaction.mover == 1  # Black's roll is asked


def test_a_roll_with_only_one_move_says_so():
    game = KaleidoChess(dice=True)
    rig = KRig(setup_text(game, "5A=wV 6C=wP 8H=wV 1I=wL 1J=wW 5J=bW 8K=wP"), game=game)
    rig.tap("option-4")
    moves = game.legal_moves(rig.position)
    assert [game.move_text(rig.position, m) for m in moves] == ["1I-2F"]
    it = rig.interaction
    assert it.origins == cells("1I")
    assert it.message == "White rolls 4 (an elephant or the dragon): the only move is 1I-2F"
    KHuman(rig, random.Random(6)).play(moves[0])
    assert rig.interaction.mover == 1


def test_a_roll_with_no_move_is_a_pass_made_by_the_board():
    game = KaleidoChess(dice=True)
    rig = KRig(setup_text(game, "1J=wW 2D=wR 5J=bW 5G=bP"), game=game)
    rig.tap("option-1")  # a pawn or a raven: White has neither
    assert rig.moves == [Move("roll", token="die:1"), Move("pass")]
    assert rig.state == "choice" and rig.interaction.mover == 1  # Black rolls next
    rig.tap("option-2")  # Black: a horse or an eagle — none either
    rig.tap("option-5")  # White: the wizard must move …
    assert [m.kind for m in rig.moves] == ["roll", "pass", "roll", "pass", "roll"]
    forced = game.legal_moves(rig.position)
    assert forced and all(m.origin == cell("1J") for m in forced)
    # … and every wizard move leaves White's last castle: he must give up
    KHuman(rig, random.Random(7)).play(game.parse_move(rig.position, "1J-1K"))
    assert rig.state == "game_over" and rig.board.outcome == ((1,), "capitulation")


def test_through_the_emulated_matrix_electronics():
    """The production GPIO matrix scanner reading the emulated 12×8 reed matrix of the
    kaleido89 layout (the centre, option and die pads share row 11)."""
    game = KaleidoChess(players=3, dice=True)
    rig = KRig(game=game, backend="gpio-matrix")
    try:
        rig.wait(0.3)
        assert rig.state == "choice"
        rig.tap("option-6", wait=0.1)  # the die shows 6: any piece may move
        assert rig.moves == [Move("roll", token="die:6")] and rig.state == "turn"
        move = game.parse_move(rig.position, "1I+1F")  # the roc takes its own pawn
        rig.lift("1I", wait=0.1)
        rig.wait(0.5)
        assert rig.state == "lifted" and len(rig.moves) == 1
        rig.remove("1F", wait=0.1)
        rig.place("1F", wait=0.1)
        assert rig.moves[1:] == [move] and rig.state == "choice"
        assert rig.interaction.mover == 1  # Red's roll
    finally:
        rig.close()


# -- whole games, start to finish --------------------------------------------------------

GAMES = [  # (players, dice, move cap, seed, how the seeded game ends)
    (2, False, 60, 1, "no castle left"),
    (2, False, 60, 3, "move cap"),
    (2, True, 60, 55, "no castle left"),
    (3, False, 90, 2, "last player left"),
    (3, True, 90, 6, "last player left"),
    (4, False, 90, 0, "last player left"),
    (4, True, 90, 7, "last player left"),
]


@pytest.mark.parametrize(("players", "dice", "cap", "seed", "reason"), GAMES)
def test_whole_game_on_the_board_is_journalled_exactly(tmp_path, players, dice, cap, seed,
                                                        reason):
    """A seeded driver picks legal moves; a clumsy simulated human makes them on the
    board (random orders, knocked and pushed pieces, bounces); rolls are touched on the
    option pads, passes are the board's.  The game runs until it is over, and the journal
    holds exactly it."""
    game = KaleidoChess(players=players, dice=dice, move_cap=cap)
    rig = KRig(game=game, journal=tmp_path, seed=seed)
    try:
        intended = play_to_the_end(game, rig, seed=seed, keep_castle=0.97)
    finally:
        rig.close()
    outcome = rig.board.outcome
    assert outcome is not None and rig.outcomes == [outcome] and outcome.reason == reason
    assert rig.takebacks == [] and rig.moves == intended
    record = read_game(next(tmp_path.glob("*.jsonl")))
    replay = game.start()
    texts, own, out = [], 0, 0
    for move in intended:
        texts.append(game.move_text(replay, move))
        victim = replay.board[move.target] if move.target >= 0 else None
        own += victim is not None and victim.owner == replay.turn
        before = len(game.out_players(replay))
        replay.push(move)
        out += len(game.out_players(replay)) - before
    assert record.moves == texts
    assert (record.result, record.reason) == (outcome.result, outcome.reason)
    _, pos = record.replay()
    assert game.position_text(pos) == game.position_text(rig.position)
    assert own > 0  # own captures were made (and recognised) on the way
    if players > 2:
        assert out == players - 1 and set(rig.interaction.owners.values()) == set(
            outcome.winners)
    if dice:
        assert sum(m.kind == "roll" for m in intended) >= len(intended) // 2
