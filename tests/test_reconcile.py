"""The reconciler alone: frames built by hand from expected states (no simulator, no
clock).  Worked examples of rules/luotuoqi.md §8 are replayed as sensed pictures."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.layout import load_layout
from controller.reconcile import (
    AMEND,
    CHOOSE,
    COMMIT,
    CONFIRM,
    IDLE,
    MISMATCH,
    TAKEBACK,
    WAIT,
    PositionIndex,
    Reconciler,
    SensorView,
    mask_of,
    next_touched,
)
from controller.rules.core import IllegalMoveError, Move
from controller.rules.luotuoqi import Luotuoqi
from controller.sensing.frame import Frame

GAME = Luotuoqi()
LAYOUT = load_layout("square8")
G = GAME.geometry
N = len(LAYOUT.spots)

TOWER_EXAMPLE = "7k/1T41T21e2/8/8/1e2d3/8/7K/8 w - - 0 1"  # §8.1
# §8.2: White Bypasser b2, the long diagonal empty, Black Eaglets everywhere else
BYPASS_FILL = ("keeeeee1/eeeeee1e/eeeee1ee/eeee1eee/eee1eeee/ee1eeeee/eDeeeeee/Keeeeeee"
               " w - - 0 1")
FLANK = "4k3/8/8/5d2/1E3MEM/7D/8/4K3 w - - 0 1"  # §8.3
BUSY = "r1d1k2r/e1et32e1/1eT22m2/3e1E2/2D1T32e/1E3t22/E1E1E1E1/R3K1MR w KQkq b 0 12"


def c(name: str) -> int:
    return G.cell(name)


def cells(*names: str) -> int:
    """A touched mask of cells."""
    m = 0
    for n in names:
        m |= 1 << c(n)
    return m


def rec_for(text: str | None = None) -> Reconciler:
    pos = GAME.parse_position(text) if text else GAME.start()
    return Reconciler(GAME, LAYOUT, pos)


def frame(rec: Reconciler, key=None, *, lift=(), place=(), stack=None, polarity=None,
          t: float = 0.0) -> Frame:
    """A frame showing ``key`` (default: the position) with spots changed by name."""
    occ = [False] * N
    for j, on in enumerate(rec.index.expected if key is None else key):
        occ[rec.view.tracked[j]] = on
    for name in lift:
        occ[LAYOUT.spot_index(name)] = False
    for name in place:
        occ[LAYOUT.spot_index(name)] = True
    st_ = [None] * N
    po = [None] * N
    for name, v in (stack or {}).items():
        st_[LAYOUT.spot_index(name)] = v
    for name, v in (polarity or {}).items():
        po[LAYOUT.spot_index(name)] = v
    return Frame(t, tuple(occ), tuple(st_), tuple(po))


def after(rec: Reconciler, move: Move) -> tuple:
    return rec.preview(move).expected


def parse(rec: Reconciler, text: str) -> Move:
    return GAME.parse_move(rec.pos, text)


def texts(rec: Reconciler, moves) -> set[str]:
    return {GAME.move_text(rec.pos, m) for m in moves}


def spots(*names: str) -> frozenset[int]:
    return frozenset(LAYOUT.spot_index(n) for n in names)


# -- the sensed state of positions -------------------------------------------------------


def test_expected_state_has_cube_pad_of_holder_and_no_command_pads():
    rec = rec_for()
    view = rec.view
    assert len(view.tracked) == 64 + 12  # cells, 2 Cube pads, 10 hand pads
    assert LAYOUT.spot_index("option-1") not in view.tracked
    key = rec.index.expected
    assert sum(key) == 32 + 1
    # Black holds the Cube
    assert key[view.token_pads["cube", 1]] and not key[view.token_pads["cube", 0]]


def test_layout_of_another_shape_is_refused():
    with pytest.raises(ValueError, match="square9"):
        SensorView(GAME, load_layout("square9"))


def test_every_legal_move_is_filed_under_its_sensed_state():
    for text in (None, BUSY, TOWER_EXAMPLE, FLANK):
        rec = rec_for(text)
        idx = rec.index
        for i in range(len(idx.moves)):
            e = idx.effects[i]
            if e.key == idx.expected:
                assert i in idx.silent[e.gesture]
            else:
                assert i in idx.by_key[e.key]


# -- ordinary moves, captures, slides --------------------------------------------------


def test_start_position_idle_and_simple_move_commits():
    rec = rec_for()
    assert rec.decide(frame(rec)).kind == IDLE
    m = parse(rec, "Mb1-c3")
    d = rec.decide(frame(rec, after(rec, m)))
    assert d.kind == COMMIT and d.moves == (m,) and not d.extendable


def test_lifted_piece_shows_its_targets():
    rec = rec_for()
    d = rec.decide(frame(rec, lift=["b1"]))
    assert d.kind == WAIT
    assert d.origins == spots("b1") and d.targets == spots("a3", "c3")
    assert d.lifted == spots("b1")


def test_capture_needs_the_victim_lifted_in_either_order():
    rec = rec_for("4k3/8/8/r7/8/8/8/R3K3 w - - 0 1")
    cap = parse(rec, "Ra1xa5")
    picture = after(rec, cap)  # a1 empty, a5 occupied: same as "Rook in the hand"
    assert rec.decide(frame(rec, picture)).kind == WAIT
    # mover first, then victim, then mover down
    t = next_touched(0, 0, cells("a1"))
    t = next_touched(t, cells("a1"), cells("a1", "a5"))
    d = rec.decide(frame(rec, lift=["a1", "a5"]), t)
    assert d.kind == WAIT and d.to_remove == frozenset()
    assert rec.decide(frame(rec, picture), t).moves == (cap,)
    # victim first
    t = next_touched(0, 0, cells("a5"))
    d = rec.decide(frame(rec, lift=["a5"]), t)
    assert d.kind == WAIT and cap in [rec.index.moves[i] for i in rec.index.partial(
        cells("a5"), 0)]
    t = next_touched(t, cells("a5"), cells("a1", "a5"))
    assert rec.decide(frame(rec, picture), t).kind == COMMIT


def test_a_piece_lifted_and_put_back_does_not_lend_its_lift_to_another_move():
    rec = rec_for("4k3/8/8/r7/8/8/8/R3K3 w - - 0 1")
    t = next_touched(0, 0, cells("a5"))  # victim lifted …
    t = next_touched(t, cells("a5"), 0)  # … and put back
    t = next_touched(t, 0, cells("a1"))  # then the Rook is lifted: the victim is forgotten
    assert t == cells("a1")
    assert rec.decide(frame(rec, lift=["a1"]), t).kind == WAIT


def test_slide_is_extendable_until_its_end_or_an_obstacle():
    rec = rec_for("4k3/8/8/r7/8/8/8/R3K3 w - - 0 1")
    short = parse(rec, "Ra1-a3")
    d = rec.decide(frame(rec, after(rec, short)))
    assert d.kind == COMMIT and d.extendable and rec.is_extendable(frame(rec, after(rec, short)))
    far = parse(rec, "Ra1-a4")  # a5 holds a black Rook: a4 is the last empty cell
    assert rec.decide(frame(rec, after(rec, far))).extendable  # it may still capture on a5
    side = parse(rec, "Ra1-d1")  # e1 holds the King: the slide hit an obstacle
    assert not rec.decide(frame(rec, after(rec, side))).extendable
    leap = parse(rec, "Ke1-e2")
    assert not rec.decide(frame(rec, after(rec, leap))).extendable


def test_mismatch_names_missing_and_extra_spots():
    rec = rec_for()
    d = rec.decide(frame(rec, lift=["a2", "h7"], place=["e5"]))
    assert d.kind == MISMATCH
    assert d.lifted == spots("a2", "h7") and d.placed == spots("e5")


# -- Towers: splits, merges, split-merges (rules §8.1) -----------------------------------


def test_tower_example_has_45_moves_and_splits_to_one_cell_need_a_choice():
    rec = rec_for(TOWER_EXAMPLE)
    b7 = [m for m in rec.index.moves if m.origin == c("b7")]
    assert len(b7) == 45
    d = rec.decide(frame(rec, place=["a8"]))  # stones put on a8, b7 still occupied
    assert d.kind == CHOOSE
    assert texts(rec, d.moves) == {"T1b7-a8", "T2b7-a8", "T3b7-a8"}
    whole = rec.decide(frame(rec, lift=["b7"], place=["a8"]))
    assert whole.kind == COMMIT and texts(rec, whole.moves) == {"T4b7-a8"}


def test_linear_halls_narrow_a_split_but_are_never_relied_on():
    rec = rec_for(TOWER_EXAMPLE)
    for cls, expect in ((1, "T1b7-a8"), (2, "T2b7-a8"), (3, "T3b7-a8")):
        d = rec.decide(frame(rec, place=["a8"], stack={"a8": cls}))
        assert d.kind == COMMIT and texts(rec, d.moves) == {expect}
    # source class 1 (T1 left) says the T3 split; with a8 unknown that is enough
    d = rec.decide(frame(rec, place=["a8"], stack={"b7": 1}))
    assert texts(rec, d.moves) == {"T3b7-a8"}
    # readings that fit no candidate are ignored: still a choice, never a guess
    d = rec.decide(frame(rec, place=["a8"], stack={"a8": 1, "b7": 1}))
    assert d.kind == CHOOSE and len(d.moves) == 3
    # polarity: a White stack is expected; a Black reading fits nothing and is ignored
    d = rec.decide(frame(rec, place=["a8"], polarity={"a8": -1}))
    assert d.kind == CHOOSE and len(d.moves) == 3


def test_whole_tower_merge_counts_once_the_target_was_lifted():
    rec = rec_for(TOWER_EXAMPLE)
    merge = parse(rec, "T4b7-d7=T6")
    picture = after(rec, merge)
    assert rec.decide(frame(rec, picture), cells("b7")).kind == WAIT  # Tower in the hand
    d = rec.decide(frame(rec, picture), cells("b7", "d7"))
    assert d.kind == COMMIT and d.moves == (merge,)


def test_split_merge_and_split_capture_are_silent_and_need_confirmation():
    rec = rec_for(TOWER_EXAMPLE)
    # stones from b7 put on the d7 Tower, then d7 lifted and put back (its gesture)
    d = rec.decide(frame(rec), cells("d7"))
    assert d.kind == CONFIRM
    assert texts(rec, d.moves) == {"T2b7-d7=T4", "T3b7-d7=T5"}
    assert d.targets == spots("d7")
    # the whole source Tower lifted too (the rest put back): the same question (a T1
    # from d7 cannot reach b7, so nothing else fits these two cells)
    assert texts(rec, rec.decide(frame(rec), cells("d7", "b7")).moves) == texts(rec, d.moves)
    # the Eaglet on b4 lifted and a T3 split put there: split capture, confirm
    d = rec.decide(frame(rec), cells("b4"))
    assert d.kind == CONFIRM and texts(rec, d.moves) == {"T3b7xb4"}
    # a piece that no silent move lands on: lifting it and putting it back is nothing
    assert rec.decide(frame(rec), cells("h2")).kind == IDLE


def test_silent_gesture_skipped_when_linear_halls_see_nothing_changed():
    rec = rec_for(TOWER_EXAMPLE)
    same = frame(rec, stack={"d7": 2}, polarity={"d7": 1})
    assert rec.decide(same, cells("d7")).kind == IDLE  # still a T2: nothing happened
    grown = frame(rec, stack={"d7": 3})
    d = rec.decide(grown, cells("d7"))
    assert d.kind == CONFIRM and texts(rec, d.moves) == {"T2b7-d7=T4", "T3b7-d7=T5"}


def test_whole_tower_lifted_then_rest_put_back_amends_to_a_split():
    rec = rec_for(TOWER_EXAMPLE)
    whole = parse(rec, "T4b7-a7")
    rec.commit(whole)  # lifted whole, put down on a7: committed as the whole Tower
    d = rec.decide(frame(rec, place=["b7"]))  # the remainder goes back on b7
    assert d.kind == AMEND
    assert {GAME.move_text(GAME.parse_position(TOWER_EXAMPLE), m) for m in d.moves} == {
        "T1b7-a7", "T2b7-a7", "T3b7-a7"}
    old = rec.amend(d.moves[1])
    assert old == whole and rec.pos.moves == [d.moves[1]]


def test_whole_tower_capture_then_remainder_back_or_a_takeback():
    rec = rec_for(TOWER_EXAMPLE)
    start = GAME.parse_position(TOWER_EXAMPLE)
    before = rec.index.expected
    rec.commit(parse(rec, "T4b7xe4"))
    # the remainder back on b7, the stones on e4 untouched: the split capture after all
    d = rec.decide(frame(rec, before))
    assert d.kind == AMEND and {GAME.move_text(start, m) for m in d.moves} == {"T3b7xe4"}
    # the Tower lifted off e4 again and the Bypasser put back: a takeback
    d = rec.decide(frame(rec, before), cells("e4"))
    assert d.kind == TAKEBACK and d.plies == 1


# -- bypass captures (rules §8.2) ----------------------------------------------------------


def test_bypass_victims_marked_and_removed_in_any_order():
    rec = rec_for(BYPASS_FILL)
    move = parse(rec, "Db2-h8xd3xc4xe4xd5xf5xe6xg6xf7")
    victims = spots("c4", "d3", "d5", "e4", "e6", "f5", "f7", "g6")
    assert frozenset(move.captures) == victims
    # the mover arrived, every victim still there
    arrived = frame(rec, lift=["b2"], place=["h8"])
    d = rec.decide(arrived, cells("b2"))
    assert d.kind == WAIT and d.to_remove == victims and d.placed == spots("h8")
    # victims removed one by one, some before the move
    removed: list[str] = []
    for name in ("g6", "c4", "f7", "d3", "e6", "d5", "f5"):
        removed.append(name)
        d = rec.decide(frame(rec, lift=["b2", *removed], place=["h8"]))
        assert d.kind == WAIT and d.to_remove == victims - spots(*removed)
    d = rec.decide(frame(rec, lift=["b2", *removed, "e4"], place=["h8"]))
    assert d.kind == COMMIT and d.moves == (move,)
    # victims first, mover last
    d = rec.decide(frame(rec, lift=["c4", "d3"]))
    assert d.kind == WAIT


def test_bypass_shorter_moves_remove_their_own_victims_only():
    rec = rec_for(BYPASS_FILL)
    e5 = parse(rec, "Db2-e5xd3xc4")
    d = rec.decide(frame(rec, lift=["b2", "c4", "d3"], place=["e5"]))
    assert d.kind == COMMIT and d.moves == (e5,) and d.extendable


# -- flank promotion (rules §8.3) -------------------------------------------------------------


def test_flank_promotion_is_a_lift_and_put_back_then_a_choice_of_two_types():
    rec = rec_for(FLANK)
    d = rec.decide(frame(rec), cells("g4"))
    assert d.kind == CONFIRM and texts(rec, d.moves) == {"Eg4=M", "Eg4=D"}
    assert rec.decide(frame(rec), cells("b4")).kind == IDLE  # not eligible: nothing
    assert rec.decide(frame(rec, lift=["g4"])).kind == WAIT


# -- the Cube ---------------------------------------------------------------------------------


def test_cube_handed_over_with_the_move_or_right_after_it():
    rec = rec_for()
    rec.commit(parse(rec, "Mb1-c3"))
    plain = parse(rec, "Eb7-a6")
    cube = plain._replace(token="cube")
    assert cube in rec.index.moves
    assert rec.decide(frame(rec, after(rec, plain))).moves == (plain,)
    both = rec.decide(frame(rec, after(rec, cube)))
    assert both.kind == COMMIT and both.moves == (cube,)
    # Cube first: a move under way, the Cube pad of White to be filled
    d = rec.decide(frame(rec, lift=["black-cube"], place=["white-cube"]))
    assert d.kind == WAIT
    # the plain move committed, then the Cube moves: the same move with the Cube
    rec.commit(plain)
    assert rec.amendable == (plain, (cube,))
    d = rec.decide(frame(rec, lift=["black-cube"]))
    assert d.kind == WAIT and d.targets == spots("white-cube")
    d = rec.decide(frame(rec, lift=["black-cube"], place=["white-cube"]))
    assert d.kind == AMEND and d.moves == (cube,)
    assert rec.amend(cube) == plain
    assert GAME.ply_mover(rec.pos) == 1 and rec.pos.tokens["cube"] == 0


# -- castling -----------------------------------------------------------------------------------


CASTLE = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq b 0 1"


def test_castling_king_first_waits_and_rook_first_is_amended():
    rec = rec_for(CASTLE)
    oo = parse(rec, "O-O")
    d = rec.decide(frame(rec, lift=["e1"], place=["g1"]))
    assert d.kind == WAIT and d.to_remove == frozenset()
    assert rec.decide(frame(rec, after(rec, oo))).moves == (oo,)
    rook = parse(rec, "Rh1-f1")
    d = rec.decide(frame(rec, after(rec, rook)))
    assert d.kind == COMMIT and d.moves == (rook,)
    rec.commit(rook)
    d = rec.decide(frame(rec, lift=["e1"], place=["g1"]))
    assert d.kind == AMEND and d.moves == (oo,)


# -- takebacks -------------------------------------------------------------------------------------


def test_board_restored_to_an_earlier_position_is_a_takeback_request():
    rec = rec_for()
    start = rec.index.expected
    rec.commit(parse(rec, "Mb1-c3"))
    one = rec.index.expected
    rec.commit(parse(rec, "Eb7-a6"))
    d = rec.decide(frame(rec, one))
    assert d.kind == TAKEBACK and d.plies == 1
    d = rec.decide(frame(rec, start))
    assert d.kind == TAKEBACK and d.plies == 2 and d.extendable is False
    assert [GAME.move_text(GAME.start(), m) for m in rec.takeback(2)][-1] == "Mb1-c3"
    assert rec.decide(frame(rec)).kind == IDLE
    with pytest.raises(IllegalMoveError):
        rec.takeback(1)


def test_takeback_of_a_capture_needs_the_capturing_piece_lifted():
    rec = rec_for("4k3/8/8/r7/8/8/8/R3K3 w - - 0 1")
    before = rec.index.expected
    rec.commit(parse(rec, "Ra1xa5"))
    assert rec.decide(frame(rec, before)).kind != TAKEBACK  # a piece appeared on a1 only
    d = rec.decide(frame(rec, before), cells("a5"))
    assert d.kind == TAKEBACK and d.plies == 1


def test_a_picture_that_is_a_move_under_way_and_an_earlier_position_is_the_move():
    # Black split one stone c6-b5; White's bypass would remove b5: lifting b5 first is
    # the start of White's capture, though it also restores the position before the split
    rec = rec_for("r3k2r/8/2t21t33/8/3D4/8/2T21T33/2KR3R b kq b 1 20")
    rec.commit(parse(rec, "T1c6-b5"))
    d = rec.decide(frame(rec, lift=["b5"]))
    assert d.kind == WAIT and d.plies == 1


# -- never guess ---------------------------------------------------------------------------


def _walk(choices: list[int]):
    rec = rec_for()
    for k in choices:
        moves = rec.index.moves
        if not moves:
            break
        rec.commit(moves[k % len(moves)])
    return rec


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.integers(0, 10_000), max_size=25))
def test_never_commits_when_two_legal_moves_explain_the_picture(choices):
    rec = _walk(choices)
    idx = rec.index
    for key, group in idx.by_key.items():
        need = 0
        for i in group:
            need |= idx.effects[i].must_lift
        d = rec.decide(frame(rec, key), need | rec.lifted(frame(rec, key)))
        complete = [idx.moves[i] for i in group]
        if d.kind == COMMIT:
            assert len(complete) == 1 and not d.amends
        elif d.kind == CHOOSE:
            assert set(complete) <= set(d.moves)
    for i, m in enumerate(idx.moves):  # every move is recognised when made
        e = idx.effects[i]
        touched = e.must_lift | e.gesture | (idx.emask & ~mask_of(e.key))
        d = rec.decide(frame(rec, e.key), touched)
        assert m in d.moves, (GAME.position_text(rec.pos), GAME.move_text(rec.pos, m), d.kind)


def test_index_is_reused_for_the_committed_move():
    rec = rec_for()
    m = parse(rec, "Mg1-f3")
    idx = rec.preview(m)
    rec.commit(m)
    assert rec.index is idx
    assert isinstance(idx, PositionIndex)
