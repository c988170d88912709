"""The simulated physical board: the action API, the magnet physics and the clock."""

from __future__ import annotations

import pytest

from controller.layout import load_layout
from controller.sensing.sim import MagnetModel, SimulatedBoard, as_sensing

SQUARE8 = load_layout("square8")


def board():
    return SimulatedBoard(SQUARE8, seed=1)


def test_lift_and_place_move_piles_through_the_hand():
    b = board()
    b.put("a1", ["white-stone"] * 3)
    assert b.lift("a1", 2) == ["white-stone", "white-stone"]
    assert b.objects("a1") == ["white-stone"]
    assert b.place("b1", 1) == ["white-stone"]
    assert b.objects("b1") == ["white-stone"]
    b.place("a1")
    assert b.objects("a1") == ["white-stone"] * 2 and b.held == []


def test_capture_uses_the_hand_in_order():
    b = board()
    b.put("e4", "white-knight")
    b.put("d6", "black-bishop")
    b.lift("d6")
    b.lift("e4")
    assert b.held == ["black-bishop", "white-knight"]
    b.place("d6", 1)  # the last picked up: the knight
    assert b.objects("d6") == ["white-knight"]
    b.set_aside()
    assert b.held == [] and b.set_aside_objects == ["black-bishop"]
    b.take("white-queen")
    b.place("white-hand-Q")
    assert b.contents() == {"d6": ["white-knight"], "white-hand-Q": ["white-queen"]}


def test_bad_actions_name_the_problem():
    b = board()
    with pytest.raises(ValueError, match="nothing to lift on c3"):
        b.lift("c3")
    b.put("c3", "white-pawn")
    with pytest.raises(ValueError, match="cannot lift 2 of the 1"):
        b.lift("c3", 2)
    with pytest.raises(ValueError, match="the hand holds"):
        b.place("c4")
    with pytest.raises(KeyError, match="no spot 'z9'"):
        b.put("z9", "x")
    with pytest.raises(ValueError, match="not next to"):
        b.off_centre("c3", "h8")
    with pytest.raises(ValueError, match="backwards"):
        b.advance(-1)
    with pytest.raises(ValueError, match="non-empty strings"):
        b.put("c4", [""])


def test_field_falls_off_with_pile_height_and_has_polarity():
    b = SimulatedBoard(SQUARE8, magnets=MagnetModel(tolerance=0.0))
    fields = []
    for k in range(1, 6):
        b.clear("e4")
        b.put("e4", ["white-stone"] * k)
        fields.append(b.field("e4"))
    steps = [fields[0]] + [b2 - a for a, b2 in zip(fields, fields[1:], strict=False)]
    assert all(x > y for x, y in zip(steps, steps[1:], strict=False))
    assert steps[3] < 0.1 * steps[0]  # the 4th stone adds little
    b.put("d4", "black-stone")
    assert b.field("d4") < -0.9
    assert MagnetModel().level_weight(0) == 1.0


def test_off_centre_misses_the_cell_and_triggers_the_neighbour():
    b = board()
    b.put("e4", "white-king")
    b.off_centre("e4", "e5")
    assert not b.switch_closed("e4") and b.switch_closed("e5")
    b.lift("e4")
    b.place("e4")
    assert b.switch_closed("e4") and not b.switch_closed("e5")


def test_knock_over_lies_on_the_neighbour_weaker():
    b = board()
    b.put("c3", "black-queen")
    b.knock_over("c3", "c4")
    assert b.objects("c3") == [] and b.objects("c4") == ["black-queen"]
    assert -0.7 < b.field("c4") < -0.5 and b.switch_closed("c4")
    b.knock_over("c4")
    assert b.set_aside_objects == ["black-queen"]


def test_bounce_toggles_the_sensor_briefly():
    b = board()
    b.put("b2", "white-pawn")
    b.bounce("b2", duration_s=0.0009, toggles=2)  # open 0.3 ms, closed, open 0.3 ms
    seen = []
    for _ in range(12):
        seen.append(b.switch_closed("b2"))
        b.advance(0.0001)
    assert seen[:3] == [False] * 3 and seen[3:6] == [True] * 3 and seen[6:9] == [False] * 3
    assert all(seen[9:])


def test_slide_dwells_on_every_spot_and_ends_on_the_last():
    b = board()
    b.put("a1", "white-rook")
    passed = []
    b.every(0.01, lambda: passed.append([s for s in ("a1", "a2", "a3", "a4")
                                         if b.objects(s)]))
    b.slide(["a1", "a2", "a3", "a4"], dwell_s=0.03)
    assert b.now == pytest.approx(0.06)
    assert b.objects("a4") == ["white-rook"] and b.objects("a1") == []
    assert ["a2"] in passed and ["a3"] in passed


def test_tickers_run_in_time_order_at_their_periods():
    b = board()
    log = []
    b.every(0.003, lambda: log.append(("fast", round(b.now, 6))))
    b.every(0.005, lambda: log.append(("slow", round(b.now, 6))), phase_s=0.001)
    b.advance(0.0101)
    assert log == [("fast", 0.0), ("slow", 0.001), ("fast", 0.003), ("fast", 0.006),
                   ("slow", 0.006), ("fast", 0.009)]  # same instant: registration order
    assert b.now == pytest.approx(0.0101)


def test_sensor_faults_for_self_tests():
    b = board()
    b.break_sensor("e4", "stuck")
    assert b.switch_closed("e4")
    b.put("d4", "white-pawn")
    b.break_sensor("d4", "dead")
    assert not b.switch_closed("d4")
    b.break_sensor("d4", None)
    assert b.switch_closed("d4")
    with pytest.raises(ValueError, match="dead"):
        b.break_sensor("d4", "broken")


def test_rewired_layout_keeps_spots_and_leds():
    for sensing in ("matrix", "shift-register", "analog"):
        lay = as_sensing(load_layout("lotus39"), sensing)
        assert [s.name for s in lay.spots] == [s.name for s in load_layout("lotus39").spots]
        assert len(set(lay.sensor_spots())) == len(lay.spots)
    assert as_sensing(SQUARE8, "matrix") is SQUARE8
