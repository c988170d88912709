"""Game clocks: the time controls players use, driven by explicit times (no waiting)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.clock import (
    ClockError,
    GameClock,
    Period,
    format_clock,
    parse_time_control,
)


@pytest.mark.parametrize(("text", "periods", "increment", "delay"), [
    ("5", (Period(300.0),), 0.0, 0.0),
    ("3+2", (Period(180.0),), 2.0, 0.0),
    ("5d3", (Period(300.0),), 0.0, 3.0),
    ("0.5+1", (Period(30.0),), 1.0, 0.0),
    ("40/90:30+30", (Period(5400.0, 40), Period(1800.0)), 30.0, 0.0),
    ("40/120:20/60:30", (Period(7200.0, 40), Period(3600.0, 20), Period(1800.0)), 0.0, 0.0),
])
def test_time_controls_are_read_as_players_write_them(text, periods, increment, delay):
    control = parse_time_control(text)
    assert (control.periods, control.increment, control.delay) == (periods, increment, delay)


@pytest.mark.parametrize(("text", "message"), [
    ("", "expected minutes like"),
    ("five", "expected minutes like"),
    ("5+", "expected minutes like"),
    ("0", "above 0"),
    ("90:40/30", "only the last period may be without a move count"),
    ("0/90", "above 0"),
    ("5+4000", "over an hour"),
])
def test_bad_time_controls_get_one_line(text, message):
    with pytest.raises(ClockError, match=message) as info:
        parse_time_control(text)
    assert "\n" not in str(info.value)


def test_sudden_death_runs_only_for_the_seat_to_move_and_flags():
    clock = GameClock(parse_time_control("1"), 2)
    clock.start(0, now=100.0)
    assert clock.remaining(0, 130.0) == 30.0 and clock.remaining(1, 130.0) == 60.0
    clock.press(1, now=130.0)
    assert clock.remaining(0, 150.0) == 30.0 and clock.remaining(1, 150.0) == 40.0
    assert clock.flagged(189.9) is None
    assert clock.flagged(190.0) == 1 and clock.remaining(1, 500.0) == 0.0


def test_fischer_increment_is_added_after_each_move():
    clock = GameClock(parse_time_control("3+2"), 2)
    clock.start(0, 0.0)
    clock.press(1, 10.0)
    assert clock.remaining(0, 10.0) == 172.0


def test_bronstein_delay_gives_back_at_most_what_the_move_used():
    clock = GameClock(parse_time_control("5d3"), 2)
    clock.start(0, 0.0)
    clock.press(1, 2.0)  # a quick move costs nothing
    assert clock.remaining(0, 2.0) == 300.0
    clock.press(0, 12.0)  # a 10 s move costs 7
    assert clock.remaining(1, 12.0) == 293.0


def test_moves_per_period_add_the_next_periods_time_at_the_control():
    clock = GameClock(parse_time_control("2/10:5"), 2)  # 2 moves in 10 min, then 5 min
    clock.start(0, 0.0)
    t = 0.0
    for _ in range(2):
        t += 60.0
        clock.press(1, t)
        t += 1.0
        clock.press(0, t)
    assert clock.remaining(0, t) == 600.0 - 120.0 + 300.0
    assert clock.remaining(1, t) == 600.0 - 2.0 + 300.0
    assert clock.state(t)["periods"] == [1, 1]


def test_pause_stops_the_running_clock():
    clock = GameClock(parse_time_control("5"), 3)
    clock.start(2, 0.0)
    clock.pause(10.0)
    assert clock.remaining(2, 1000.0) == 290.0 and clock.flagged(10_000.0) is None
    clock.resume(1000.0)
    assert clock.remaining(2, 1005.0) == 285.0


def test_the_state_survives_a_restart_paused_and_exactly():
    clock = GameClock(parse_time_control("40/90:30+30"), 4)
    clock.start(0, 5.0)
    clock.press(1, 65.5)
    clock.press(2, 70.25)
    state = json.loads(json.dumps(clock.state(80.0)))
    again = GameClock.from_state(state, now=9999.0)
    assert again.paused and again.running == 2
    assert [again.remaining(s, 9999.0) for s in range(4)] == \
        [clock.remaining(s, 80.0) for s in range(4)]
    again.resume(10_000.0)
    assert again.remaining(2, 10_001.0) == pytest.approx(clock.remaining(2, 80.0) - 1.0)


def test_low_time_warns_at_ten_seconds_or_a_tenth_of_a_short_game():
    clock = GameClock(parse_time_control("1"), 2)
    clock.start(0, 0.0)
    assert not clock.low(0, 53.9) and clock.low(0, 54.0)  # a tenth of 60 s
    clock = GameClock(parse_time_control("10"), 2)
    clock.start(0, 0.0)
    assert not clock.low(0, 589.0) and clock.low(0, 590.0)


def test_seats_are_two_to_four():
    with pytest.raises(ClockError, match="2 to 4 seats"):
        GameClock(parse_time_control("5"), 5)


@pytest.mark.parametrize(("seconds", "shown"), [
    (3903.2, "1:05:03"), (299.9, "4:59"), (10.0, "0:10"), (9.79, "9.7"), (-1.0, "0.0"),
])
def test_clock_faces(seconds, shown):
    assert format_clock(seconds) == shown


@given(st.lists(st.floats(0.0, 50.0), min_size=1, max_size=60),
       st.sampled_from(["5", "3+2", "5d3", "2/3:1+1"]))
def test_time_is_conserved(thinks, text):
    """Whatever the moves took, each seat's time is its budget minus what it used plus
    what the control gives back — never more, never a seat charged for another's move."""
    control = parse_time_control(text)
    clock = GameClock(control, 2)
    now, seat = 0.0, 0
    clock.start(seat, now)
    used, given = [0.0, 0.0], [0.0, 0.0]
    budget = [control.initial, control.initial]
    moves = [0, 0]
    for think in thinks:
        now += think
        used[seat] += think
        if clock.flagged(now) is not None:
            assert clock.flagged(now) == seat
            break
        given[seat] += control.increment + min(control.delay, think)
        moves[seat] += 1
        clock.press(1 - seat, now)
        state = clock.state(now)
        budget[seat] = control.initial + sum(
            p.seconds for p in control.periods[1: state["periods"][seat] + 1])
        seat = 1 - seat
    for s in (0, 1):
        assert clock.state(now)["remaining"][s] == pytest.approx(
            budget[s] - used[s] + given[s], abs=0.01)


@pytest.mark.parametrize(("name", "fen", "flagged", "winners", "reason"), [
    # White's flag falls: Black wins with a Rook, draws with a lone Knight (FIDE 6.9)
    ("chess", "4k3/8/8/8/8/8/8/r3K3 w - - 0 1", 0, (1,), "time forfeit"),
    ("chess", "4k3/8/8/8/8/8/8/n3K3 w - - 0 1", 0, (), "timeout vs insufficient material"),
    ("chess", "4k3/8/8/8/8/8/8/n3K2R b - - 0 1", 1, (0,), "time forfeit"),
    ("luotuoqi", None, 1, (0,), "time forfeit"),
])
def test_a_flag_ends_the_game_as_the_rules_say(name, fen, flagged, winners, reason):
    from controller.rules import get_game

    game = get_game(name)
    pos = game.parse_position(fen) if fen else game.start()
    outcome = game.timeout_outcome(pos, flagged)
    assert (outcome.winners, outcome.reason) == (winners, reason)


def test_with_three_players_the_others_share_the_win():
    from controller.rules import get_game

    game = get_game("kaleidochess", players=3)
    outcome = game.timeout_outcome(game.start(), 1)
    assert outcome.winners == (0, 2) and outcome.reason == "time forfeit"
