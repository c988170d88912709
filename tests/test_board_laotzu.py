"""Lao Tzu Chess on one board (teaching, hot seat): the state machine serves the side to
move and shows only what that player may know; drops from the hand pads, promotion on
the option pads, castling in every order (Chess960 King or Rook staying, King and Rook
swapping), en passant, captures onto the capturer's hand pad; illegal attempts refused
with "illegal move" and nothing else.

The simulated human (:class:`LaoHuman`, built on ``test_board_rig.Human``) does what a
player does physically: a captured piece goes to the box and a piece of the capturer's
colour of that kind (a Pawn for a promoted piece) from the box onto his hand pad; a drop
takes one piece off the hand pad (or the whole pile, the rest put back); a promoted Pawn
is swapped for the new piece before or after the type is picked on the option pads.
"""

from __future__ import annotations

import random

import pytest

from controller.board import Board
from controller.interaction import Interaction
from controller.journal import Journal, export_record
from controller.rules import get_game
from controller.rules.core import Piece, Position, PositionError
from controller.rules.laotzu import (
    hint_drop_targets,
    hint_targets,
    view,
    view_move_text,
)
from controller.sensing.frame import Frame
from tests.support.laotzu import (
    CELLS,
    GAME,
    LAYOUT,
    PADS,
    SQ,
    LaoHuman,
    LaoRig,
    ServiceRig,
    hand_pad,
    make_service,
    obj,
)

# -- the rig and the human ---------------------------------------------------------------








# -- what a player-facing output may contain -----------------------------------------------









# -- the hook: what the board may try, from the view ------------------------------------------


def test_board_moves_are_the_hints_and_contain_every_legal_move():
    pos = GAME.parse_position(
        "r3k2r/ppp1qppp/2n5/3pP3/3P4/2N5/PPP2PPP/R3K2R[Nn] w HAha d6 0 9")
    attempts = GAME.board_moves(pos)
    legal = GAME.legal_moves(pos)
    assert set(legal) <= set(attempts) and len(set(attempts)) == len(attempts)
    v = view(pos, 0)
    for cell, _ in v.own:  # the King's castlings included (O-O, O-O-O: g1, c1)
        assert {m.target for m in attempts if m.origin == cell} == hint_targets(v, cell)
    castles = {GAME.move_text(pos, m) for m in attempts if m.kind == "castle"}
    assert castles == {"O-O", "O-O-O"}
    assert {m.target for m in attempts if m.kind == "drop"} == hint_drop_targets(v, "N")
    ep = next(m for m in attempts if m.captures and m.captures != (m.target,))
    assert (ep.origin, ep.target, ep.captures) == (SQ("e5"), SQ("d6"), (SQ("d5"),))


def test_labels_come_from_the_view_not_from_hidden_pins():
    # Black's Knight d6 is pinned by the Bishop b4, which Black cannot see: the referee's
    # SAN says "Nc4" (the other Knight may not go there); the player is told "Nac4"
    text = "1b1rbk1r/p1pp2pP/1p1nn3/n2Ppp1P/BB2P3/P4q2/RP1p1P2/K1Q3N1[RP] b - - 0 26"
    pos = GAME.parse_position(text)
    move = GAME.parse_move(pos, "Nc4")
    assert SQ("b4") not in view(pos, 1).visible
    assert GAME.player_move_text(pos, move) == "Nac4" == view_move_text(view(pos, 1), move)


# -- golden behaviour on the board ----------------------------------------------------------


def test_start_serves_white_with_his_view_and_hints():
    rig = LaoRig()
    it = rig.interaction
    assert (it.phase, it.viewer, it.message) == ("turn", 0, "")
    assert it.visible == view(rig.position, 0).visible and not it.enemy_visible
    rig.lift("g1")
    it = rig.interaction
    assert it.phase == "lifted" and it.origins == rig.spots("g1")
    assert it.targets == rig.spots("f3", "h3")
    rig.place("f3")
    assert [GAME.long_move_text(GAME.start(), m) for m in rig.moves] == ["g1f3"]
    assert rig.interaction.viewer == 1 and rig.interaction.last_move == frozenset()
    assert rig.checked >= 3  # set-up done, lifted, the move made


PIN = "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1"  # the b4 Bishop pins d2, White cannot see it


def test_illegal_move_is_refused_with_illegal_move_only():
    rig = LaoRig(PIN)
    assert SQ("b4") not in view(rig.position, 0).visible
    rig.lift("d2")
    # the hint cannot know the pin: every Knight move lights up
    assert rig.interaction.targets == rig.spots("b1", "b3", "c4", "e4", "f3", "f1")
    rig.place("f3")
    it = rig.interaction
    assert it.message == "illegal move" and it.phase == "correction"
    assert it.missing == rig.spots("d2") and it.extra == rig.spots("f3")
    assert rig.moves == [] and not it.targets and not it.enemy_visible
    rig.wait(4.0)  # guidance names the cells he changed, nothing else
    assert rig.interaction.message in ("take the piece off f3",)
    rig.move("f3", "d2")
    assert rig.state == "turn" and rig.interaction.message == ""
    human = LaoHuman(rig, random.Random(3))
    human.play(GAME.parse_move(rig.position, "Kf2"))
    assert rig.position.moves[-1] == GAME.parse_move(GAME.parse_position(PIN), "Kf2")


def test_check_is_told_never_by_what():
    # the Rook e8 checks the King e1 from behind the fog (White sees e2, not e8): he is
    # told "check", his King's LED beats; nothing shows where the check comes from
    pos = "4r1k1/8/8/8/8/8/8/R3K3 w - - 0 1"
    rig = LaoRig(pos)
    it = rig.interaction
    v = view(rig.position, 0)
    assert v.in_check and SQ("e8") not in v.visible
    assert it.message == "check" and it.check == rig.spots("e1")
    assert SQ("e8") not in it.enemy_visible


def test_drop_from_a_single_piece_pad_needs_no_choice():
    rig = LaoRig("4k3/8/8/8/8/8/4P3/4K3[Nq] w - - 0 1")
    rig.lift(hand_pad(0, "N"), 1)
    it = rig.interaction
    v = view(rig.position, 0)
    assert it.phase == "lifted" and it.origins == rig.spots(hand_pad(0, "N"))
    assert it.targets == hint_drop_targets(v, "N")
    rig.place("e3")
    assert GAME.move_text(GAME.parse_position("4k3/8/8/8/8/8/4P3/4K3[Nq] w - - 0 1"),
                          rig.moves[0]) == "N@e3"
    assert rig.interaction.viewer == 1


def test_drop_from_piles_asks_the_type():
    # two Knights and two Bishops in hand: taking one off a pile leaves the pad occupied,
    # so the sensors cannot tell which; the board asks (promotion-like, on option pads)
    start = "4k3/8/8/8/8/8/4P3/4K3[NNBB] w - - 0 1"
    rig = LaoRig(start)
    rig.lift(hand_pad(0, "B"), 1)
    assert rig.state == "turn"  # nothing sensed yet
    rig.place("e3")
    it = rig.interaction
    assert it.phase == "choice"
    assert [o.label for o in it.options] == ["B@e3", "N@e3"]
    assert all(o.spot in PADS for o in it.options)
    rig.answer(next(o.move for o in it.options if o.label == "B@e3"))
    assert GAME.move_text(GAME.parse_position(start), rig.moves[-1]) == "B@e3"


def test_drop_with_linear_halls_needs_no_choice():
    start = "4k3/8/8/8/8/8/4P3/4K3[NNBB] w - - 0 1"
    rig = LaoRig(start, analog=True)
    rig.lift(hand_pad(0, "N"), 1)  # the pile went from 2 to 1: its stack class tells
    rig.place("e3")
    assert rig.state == "turn" and rig.moves[-1].piece == Piece(0, "N")


def test_capture_goes_to_the_capturers_hand_pad():
    start = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1"
    rig = LaoRig(start)
    rig.remove("d5")
    rig.move("e4", "d5")
    it = rig.interaction
    assert rig.moves == [] and it.phase == "lifted"
    assert rig.spot(hand_pad(0, "P")) in it.targets  # still to do: his Pawn on his pad
    rig.sim.take(obj(0, "P"))
    rig.place(hand_pad(0, "P"))
    assert rig.state == "turn" and rig.position.hands[0] == {"P": 1}
    assert rig.position.moves[-1] == GAME.parse_move(GAME.parse_position(start), "exd5")


def test_en_passant_victim_is_marked_to_remove():
    start = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2"
    rig = LaoRig(start)
    rig.move("e5", "d6")
    it = rig.interaction
    assert it.phase == "lifted" and SQ("d5") in it.to_remove
    rig.remove("d5")
    rig.sim.take(obj(0, "P"))
    rig.place(hand_pad(0, "P"))
    assert rig.state == "turn"
    assert rig.moves[-1].captures == (SQ("d5"),) and rig.moves[-1].target == SQ("d6")


@pytest.mark.parametrize("swap_first", [False, True])
def test_promotion_type_on_the_option_pads(swap_first):
    start = "4k3/1P5p/8/8/8/8/7P/4K3 w - - 0 1"
    rig = LaoRig(start)
    rig.lift("b7")
    if swap_first:  # the Pawn to the box, a Knight onto b8
        rig.sim.set_aside(1)
        rig.sim.take(obj(0, "N"))
    rig.place("b8")
    it = rig.interaction
    assert it.phase == "choice" and [o.label for o in it.options] == [
        "b8=Q", "b8=R", "b8=B", "b8=N"]
    assert [LAYOUT.spots[o.spot].role for o in it.options] == ["option"] * 4
    rig.answer(next(o.move for o in it.options if o.label == "b8=N"))
    assert rig.moves[-1].promotion == "N" and rig.interaction.viewer == 1
    if not swap_first:
        rig.remove("b8")  # the swap after the answer is expected, and not told to Black
        assert rig.state == "turn" and rig.interaction.message == ""
        rig.sim.take(obj(0, "N"))
        rig.place("b8")
    assert rig.state == "turn" and not rig.interaction.missing


@pytest.mark.parametrize("fen, san", [
    ("4k3/8/8/8/8/8/8/R3K2R w HA - 0 1", "O-O"),
    ("4k3/8/8/8/8/8/8/R3K2R w HA - 0 1", "O-O-O"),
    ("4k3/8/8/8/8/8/8/6KR w H - 0 1", "O-O"),      # King stays on g1 (Chess960)
    ("4k3/8/8/8/8/8/8/4KR2 w F - 0 1", "O-O"),     # Rook stays on f1
    ("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", "O-O"),     # King and Rook swap cells
    ("4k3/8/8/8/8/8/8/RK6 w A - 0 1", "O-O-O"),    # King b1 -> c1 is also a step
    ("4k3/8/8/8/8/8/8/5K1R w H - 0 1", "O-O"),     # … and the Rook lands on f1
])
def test_castling_in_every_order(fen, san):
    for seed in range(6):
        rig = LaoRig(fen, seed=seed)
        move = GAME.parse_move(rig.position, san)
        LaoHuman(rig, random.Random(seed)).play(move)
        assert rig.position.moves == [move]


# -- a whole game through the service: the journal --------------------------------------

#: Found by a feature-seeking search over legal games from the orthodox arrays, then the
#: first mate: drops (some from piles, where the board asks the kind), en passant
#: (15... gxh3), castling (21. O-O-O), promotion to a Bishop (38... a1=B) taken back into
#: the hand as a Pawn (41. Qxa1), captures onto the hand pads, mate by 62... Ra1#.
WHOLE_GAME = """
b4 g5 Na3 c6 d4 g4 Bf4 a5 Be5 a4 Bg3 h6 e3 f6 Be5 Rh7 h4 gxh3 Qe2 P@c5 O-O-O fxe5 c4
cxb4 Nxh3 bxa3 Ng1 N@c5 P@b2 Rg7 dxe5 B@a6 P@b3 axb3 Rh4 bxa2 Rxd7 a1=B Qc2 axb2+ Qxb2
Ncxd7 Qxa1 Bb5 Rxh6 Rxg2 cxb5 P@e6 Rxe6 Rxf2 Qc3 R@a2 Rxe7+ Qxe7 B@f3 Qxe5 Qb4 Bxb4
Bxc6 Ra1#
""".split()




def test_whole_game_on_the_simulated_board_is_journalled_exactly(tmp_path):
    svc = make_service(tmp_path, white_array=518, black_array=518)
    try:
        rig = ServiceRig(svc)
        human = LaoHuman(rig, random.Random(7))
        kinds = set()
        for text in WHOLE_GAME:
            move = GAME.parse_move(rig.position, text)
            kinds.add("drop" if move.kind == "drop" else "castle" if move.kind == "castle"
                      else "promotion" if move.promotion else "en passant"
                      if move.captures and move.captures != (move.target,) else "move")
            human.play(move)
        assert kinds == {"drop", "castle", "promotion", "en passant", "move"}
        record = Journal(tmp_path / "journal").find(svc.game_id)
        assert record.moves == WHOLE_GAME
        assert (record.result, record.reason) == ("0-1", "checkmate")
        assert svc.interaction.phase == "game_over" and svc.outcome.reason == "checkmate"
        assert "62. " not in export_record(record) and export_record(record).rstrip(
            ).endswith("Ra1# 0-1")
        # every commit was the game or a move the board replaced at once (castling)
        undone = [m for t in rig.takebacks for m in t]
        assert len(rig.moves) == len(WHOLE_GAME) + len(undone)
        # the move list on the page: each player's own moves in his notation
        assert [t for _, t in svc.plies] == WHOLE_GAME
    finally:
        svc.close()


# -- non-interference: what a lift shows depends on the view only ------------------------


def _variants(pos: Position, rng: random.Random, count: int) -> list[Position]:
    """Positions the side to move cannot tell from ``pos``: the enemy pieces he cannot
    see moved to other hidden cells, of other kinds, fewer or more (sliders that pin or
    check from behind the fog, Knights that attack his King's cells…)."""
    me = pos.turn
    v = view(pos, me)
    hidden = [c for c in range(CELLS) if c not in v.visible]
    secret = [(c, pos.board[c]) for c in hidden if pos.board[c] is not None]
    king = next((c for c, p in secret if p.kind == "K"), None)
    out = []
    for _ in range(count * 30):
        if len(out) == count or not hidden:
            break
        board = list(pos.board)
        for c, _ in secret:
            board[c] = None
        if rng.random() < 0.3:  # the same pieces, shuffled over the hidden cells
            pieces = [p for _, p in secret]
            rng.shuffle(pieces)
            cells = rng.sample(hidden, len(pieces))
        else:  # the King somewhere hidden and a few other pieces, mostly sliders
            pieces = [Piece(1 - me, k) for k in rng.choices("QRBNP", (3, 3, 3, 2, 1),
                                                             k=rng.randrange(1, 7))]
            if king is not None:
                pieces.insert(0, Piece(1 - me, "K"))
            cells = rng.sample(hidden, min(len(hidden), len(pieces)))
            pieces = pieces[:len(cells)]
            if king is not None and king not in cells[1:] and rng.random() < 0.5:
                cells[0] = king  # the King where it was
        for c, p in zip(cells, pieces, strict=True):
            board[c] = p
        if any(p is not None and p.kind == "P" and c // 8 in (0, 7)
               for c, p in enumerate(board)):
            continue
        try:
            other = GAME.parse_position(_text(pos, board))
        except PositionError:
            continue
        if view(other, me) == v:
            out.append(other)
    return out


def _text(pos: Position, board: list[Piece | None]) -> str:
    """``pos`` with another board; the enemy's castling rights and promoted marks (which
    the player does not know) are dropped."""
    fields = GAME.position_text(pos).split()
    rows = []
    me = pos.turn
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for f in range(8):
            p = board[rank * 8 + f]
            if p is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + (p.kind if p.owner == 0 else p.kind.lower())
            if pos.state["promoted"] >> (rank * 8 + f) & 1 and p.owner == me:
                row += "~"
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    hands = fields[0][fields[0].index("["):]
    rights = "".join(ch for ch in fields[2] if ch.isupper() == (me == 0)) or "-"
    return " ".join(["/".join(rows) + hands, fields[1], rights, *fields[3:]])


def _frame(pos: Position, lifted: frozenset[int] = frozenset(), t: float = 0.0) -> Frame:
    occupied = [False] * len(LAYOUT.spots)
    for c in range(CELLS):
        occupied[c] = pos.board[c] is not None
    for owner, hand in enumerate(pos.hands):
        for kind, n in hand.items():
            occupied[LAYOUT.spot_index(hand_pad(owner, kind))] = n > 0
    for s in lifted:
        occupied[s] = False
    n = len(LAYOUT.spots)
    return Frame(t, tuple(occupied), (None,) * n, (None,) * n)


def _lift_pictures(pos: Position) -> list[tuple[int, Interaction]]:
    """What the board shows for every own piece and hand pile lifted alone."""
    board = Board(GAME, LAYOUT, pos)
    board.feed(_frame(pos))
    assert board.state == "turn"
    out = [(-1, board.interaction)]
    me = pos.turn
    spots = [c for c, p in enumerate(pos.board) if p is not None and p.owner == me]
    spots += [LAYOUT.spot_index(hand_pad(me, k)) for k in pos.hands[me]]
    for k, s in enumerate(spots):
        board.feed(_frame(pos, frozenset({s}), 2 * k + 1.0))
        out.append((s, board.interaction))
        board.feed(_frame(pos, frozenset(), 2 * k + 2.0))
    return out


def _random_position(seed: int, plies: int) -> Position:
    rng = random.Random(seed)
    game = get_game("laotzu", seed=seed)
    pos = game.start()
    for _ in range(plies):
        moves = game.legal_moves(pos)
        if not moves or game.outcome(pos):
            break
        captures = [m for m in moves if m.captures or m.kind == "drop"]
        pos.push(rng.choice(captures if captures and rng.random() < 0.4 else moves))
    return GAME.parse_position(game.position_text(pos))


def test_what_a_lift_shows_depends_on_the_view_only():
    """Non-interference: in positions the player cannot tell apart (hidden enemy pieces
    elsewhere, of other kinds, more or fewer: other pins, other attacks behind the fog),
    lifting any of his pieces or hand piles shows exactly the same, and the moves he may
    try are the same — although the legal moves differ."""
    compared = differ = 0
    for seed in range(30):
        pos = _random_position(seed, 6 + (seed * 7) % 45)
        if GAME.outcome(pos):
            continue
        variants = _variants(pos, random.Random(seed), 3)
        base = _lift_pictures(pos)
        attempts = set(GAME.board_moves(pos))
        legal = set(GAME.legal_moves(pos))
        for other in variants:
            assert set(GAME.board_moves(other)) == attempts
            assert _lift_pictures(other) == base
            compared += 1
            differ += set(GAME.legal_moves(other)) != legal
    assert compared >= 40 and differ >= 8, (compared, differ)


def test_en_passant_positions_parse():
    # (regression: the en passant check read the wrong bit and refused every target)
    pos = GAME.parse_position("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2")
    assert pos.state["ep"] == SQ("d6")
    assert GAME.position_text(pos) == "4k3/8/8/3pP3/8/8/8/4K3[] w - d6 0 2"
    with pytest.raises(PositionError, match="c6 cannot be an en passant square"):
        GAME.parse_position("4k3/8/8/3pP3/8/8/8/4K3 w - c6 0 2")
