"""The board's hot path (issue 20): the settle hold's index built after the LEDs are lit,
the machine's cheap copy of its frozen values, facts kept on the position index."""

from __future__ import annotations

import dataclasses

import pytest

from controller.board import Board
from controller.board.attempt import Attempt, Progress, Timers, replace
from controller.layout import load_layout
from controller.reconcile import SensorView, mask_of
from controller.rules import get_game
from controller.rules.core import Position
from controller.sensing.frame import Frame

LAYOUT = load_layout("square8")
CHESS = get_game("chess")


def frame(pos: Position, t: float, lifted: int | None = None) -> Frame:
    occupied = [False] * len(LAYOUT.spots)
    for c, p in enumerate(pos.board):
        occupied[c] = p is not None and c != lifted
    return Frame(t, tuple(occupied), None, None)


def slide_position() -> tuple[Position, object]:
    """After 1.e4 e5: the Bishop's Bf1-c4 could slide on (the settle gate holds it)."""
    pos = CHESS.start()
    for text in ("e4", "e5"):
        pos.push(CHESS.parse_move(pos, text))
    move = CHESS.parse_move(pos, "Bc4")
    return pos, move


def held_board() -> tuple[Board, Position, object]:
    pos, move = slide_position()
    board = Board(CHESS, LAYOUT, pos.copy())
    board.feed(frame(pos, 0.0))
    board.feed(frame(pos, 0.1, lifted=move.origin))
    after = pos.copy()
    after.push(move)
    return board, after, move


def test_the_hold_builds_the_next_index_when_asked():
    board, after, move = held_board()
    board.preview(frame(after, 0.2), prebuild=False)
    assert board.state == "settling"
    assert move not in board.reconciler._preview  # the LEDs come first
    board.prebuild()
    assert move in board.reconciler._preview
    board.prebuild()  # nothing left to build
    board.feed(frame(after, 0.4))
    assert board.position.moves[-1] == move


def test_a_preview_builds_at_once_by_default():
    board, after, move = held_board()
    board.preview(frame(after, 0.2))
    assert move in board.reconciler._preview


def test_a_stale_prebuild_is_dropped():
    board, after, move = held_board()
    board.preview(frame(after, 0.2), prebuild=False)
    board.feed(frame(after, 0.4))  # committed before the index was built
    assert board.position.moves[-1] == move
    moves = list(board.position.moves)
    board.prebuild()  # the move belongs to the previous position: not made again
    assert list(board.position.moves) == moves and not board.reconciler._preview


@pytest.mark.parametrize("value, changes", [
    (Attempt(), {"touched": 5, "lifted": 4}),
    (Timers(wrong_since=1.0), {"guiding": True}),
    (Progress(started=True), {"hint": None, "exchange": 3}),
])
def test_replace_is_dataclasses_replace(value, changes):
    before = dataclasses.replace(value)
    fast = replace(value, **changes)
    assert fast == dataclasses.replace(value, **changes) and type(fast) is type(value)
    assert value == before  # the original is left as it was
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(fast, next(iter(changes)), 1)


def test_replace_refuses_unknown_fields():
    with pytest.raises(TypeError, match="no field 'toched'"):
        replace(Attempt(), toched=1)


def test_the_sensor_view_reads_each_occupancy():
    view = SensorView(CHESS, LAYOUT)
    occupied = [False] * len(LAYOUT.spots)
    listed = Frame(0.0, occupied, None, None)  # type: ignore[arg-type]
    assert view.mask(listed) == 0
    occupied[3] = True  # a mutable reading changed in place is read again
    assert view.mask(listed) == 1 << 3 and view.key(listed)[3]
    pos, _ = slide_position()
    for lifted in (None, 12, 5):
        f = frame(pos, 0.0, lifted)
        assert view.mask(f) == mask_of(view.key(f)) == mask_of(view.key(f._replace(time=1)))
        assert view.key(f) == tuple(f.occupied[spot] for spot in view.tracked)


def test_the_scene_dims_colours_given_as_lists_too():
    from controller.interaction import Interaction
    from controller.leds.palette import Palette
    from controller.leds.scene import SceneRenderer

    it = Interaction(phase="lifted", origins=frozenset({12}), targets=frozenset({20, 28}))
    listed = SceneRenderer(LAYOUT, Palette(target=[0, 90, 255])).render(it)  # type: ignore[arg-type]
    plain = SceneRenderer(LAYOUT, Palette(target=(0, 90, 255))).render(it)
    assert listed.pixels == plain.pixels and listed.roles == plain.roles
