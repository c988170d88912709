"""The playing levels (``LEVELS``): the properties a player relies on.

Each level is at least as strong as the one below in every respect (the depth-limited
weak levels have no node cap) and differs from it;
node-capped levels play the same move for a seed whatever the clock does; the weakest
level lets a free piece go for some seeds while level 2 and up take it; no level thinks
longer than its time budget.  How much stronger each level plays is measured by the
self-play ladder (``benchmarks/ladder.py``, docs/engine.md), not here.
"""

from __future__ import annotations

import itertools

import pytest

from controller.engine import DEFAULT_LEVEL, LEVELS, Engine
from controller.rules import get_game

#: White's Queen takes an undefended Knight (about 300 centipawns better than any other
#: move, more than level 2's noise, less than level 1's)
FREE_KNIGHT = "6k1/5ppp/8/8/3n4/8/5PPP/3Q2K1 w - - 0 1"
SEEDS = range(20)


def frozen() -> float:
    """A clock that never moves: only depth and nodes can end a search."""
    return 0.0


def ticking(step: float):
    """A clock that moves ``step`` seconds at every reading (the search reads it every
    few hundred nodes, so this is time passing with the work done)."""
    readings = itertools.count()
    return lambda: next(readings) * step


def test_each_level_is_at_least_as_strong_as_the_one_below_and_differs_from_it():
    assert sorted(LEVELS) == list(range(1, 11)) and DEFAULT_LEVEL in LEVELS
    for k in range(1, 10):
        lower, upper = LEVELS[k], LEVELS[k + 1]
        assert upper.depth >= lower.depth, k
        if lower.nodes is not None and upper.nodes is not None:
            assert upper.nodes >= lower.nodes, k
        assert upper.movetime >= lower.movetime, k
        assert upper.noise <= lower.noise, k
        assert upper != lower, k
    assert LEVELS[1].noise > 0 and LEVELS[10].noise == 0 and LEVELS[10].nodes is None
    assert LEVELS[10].movetime == max(level.movetime for level in LEVELS.values())


def test_the_level_bounds_the_time_and_nodes_a_caller_asks_for():
    game = get_game("gnuqi")
    default = LEVELS[DEFAULT_LEVEL]
    engine = Engine(game, DEFAULT_LEVEL)
    assert engine.limits(movetime=60.0).movetime == default.movetime
    assert engine.limits(movetime=0.05).movetime == 0.05  # a clock may ask for less
    assert engine.limits(nodes=10**9).nodes == default.nodes
    assert engine.limits(nodes=100).nodes == 100
    assert Engine(game, 10).limits().nodes is None
    assert Engine(game, 10).limits(nodes=500).nodes == 500


@pytest.mark.parametrize("level", [k for k in LEVELS if LEVELS[k].nodes is not None
                                   and LEVELS[k].nodes <= 10_000])
def test_a_node_capped_level_plays_the_same_move_for_a_seed_whatever_the_clock(level):
    """The node cap, not the machine's speed or load, ends the search: a frozen clock and
    one running at a thousandth of the budget per reading give the same answer."""
    game = get_game("gnuqi")
    pos = game.start()
    for text in ("c3-c4", "g7-g6"):  # any quiet opening position will do
        pos.push(game.parse_move(pos, text))
    first = Engine(game, level, seed=7, clock=frozen).choose(pos)
    again = Engine(game, level, seed=7,
                   clock=ticking(LEVELS[level].movetime / 1000)).choose(pos)
    assert first.nodes <= LEVELS[level].nodes
    assert (again.move, again.nodes, again.score) == (first.move, first.nodes, first.score)


def test_level_one_lets_a_free_knight_go_for_some_seeds_level_two_less_three_up_never():
    """The beginners (levels 1 and 2) notice some of their captures; the searches all."""
    game = get_game("chess")
    pos = game.parse_position(FREE_KNIGHT)
    best = Engine(game, 10, clock=frozen).choose(pos, nodes=5_000).move
    assert game.move_text(pos, best) == "Qxd4"

    def takes(level: int) -> int:
        return sum(Engine(game, level, seed=s, clock=frozen).choose(pos).move == best
                   for s in SEEDS)

    assert 0 < takes(1) < takes(2)  # a beginner gets chances, not every time
    assert takes(3) == len(SEEDS)
    assert Engine(game, 4, clock=frozen).choose(pos).move == best


@pytest.mark.parametrize("level", sorted(LEVELS))
def test_no_level_thinks_longer_than_its_time_budget(level):
    """With a clock that uses up the budget within 25 readings (a slow machine), every
    level answers within its movetime — or, where its floor is not complete by then, the
    floor's wait (``Level.floor_budget``: levels 7 and 8 here; docs/engine.md, "Depth
    floor") — give or take the clock's grain: the search reads the clock every few
    hundred nodes, so it may notice the deadline one reading late, and one more reading
    times the answer."""
    game = get_game("gnuqi")
    budget = LEVELS[level].movetime
    step = budget / 25
    result = Engine(game, level, clock=ticking(step)).choose(game.start())
    assert result.move in game.legal_moves(game.start())
    assert result.seconds <= LEVELS[level].floor_budget() + 2 * step
    if result.seconds > budget + 2 * step:  # only a floor's wait takes longer
        assert result.depth <= LEVELS[level].floor_in("gnuqi")


def test_a_weak_levels_noise_survives_a_stop_inside_the_first_depth():
    """On a slow board (a Raspberry Pi, Lùotuoqí's long move lists) the time can run out
    before depth 1 is complete; the noise then still chooses among the moves searched
    (it used to be dropped, and level 1 played the best of them every time)."""
    from controller.engine import Limits, Search

    game = get_game("kaleidochess")
    pos = game.start()
    chosen = set()
    for seed in range(12):
        readings = itertools.count()

        def clock(readings=readings):  # the deadline passes at the first look in depth 1
            return 0.0 if next(readings) < 2 else 100.0

        result = Search(game, seed=seed, clock=clock).best_move(
            pos, Limits(depth=1, movetime=1.0, noise=LEVELS[1].noise))
        assert result.move in game.legal_moves(pos)
        chosen.add(result.move)
    assert len(chosen) > 1


def test_lao_tzus_computer_plays_its_levels_weakness_from_its_view_too():
    """From a view, each sample is searched with the level's noise and its share of the
    node cap (before, every level searched its samples without noise or cap, so Lao Tzu's
    levels 1 and 2 were one player): level 1's first try spreads over more moves than the
    same searches without the noise (no time limit: depth, nodes and noise decide)."""
    import dataclasses

    from controller.engine.fog import SAMPLES, ranked_tries, sample_limits

    assert sample_limits(LEVELS[1]).noise == LEVELS[1].noise
    assert sample_limits(LEVELS[4]).nodes == LEVELS[4].nodes // SAMPLES
    assert sample_limits(LEVELS[10], movetime=0.6).movetime == pytest.approx(0.6 / SAMPLES)
    game = get_game("laotzu")
    pos = game.parse_position(FREE_KNIGHT.replace(" w ", "[] w "))
    view = game.player_view(pos, 0)
    noisy = dataclasses.replace(sample_limits(LEVELS[1]), movetime=None)
    calm = dataclasses.replace(noisy, noise=0, style=None)

    def firsts(limits) -> set:
        return {ranked_tries(game, view, limits, seed=s)[0] for s in range(12)}

    assert len(firsts(noisy)) > len(firsts(calm))


def test_lao_tzus_weak_levels_imagine_fewer_hidden_positions_on_the_board(monkeypatch):
    """The board's worker draws as many positions from the view as the level says:
    level 1 pictures one way the hidden pieces may stand (and walks into a defender it
    did not picture), the strong levels eight; each drawn position gets its share of
    the level's time."""
    from controller import opponent
    from controller.engine import fog

    drawn: list[int] = []
    real = fog.draw_positions

    def counting(game, view, rng, samples, memory=None):
        drawn.append(samples)
        return real(game, view, rng, samples, memory)

    monkeypatch.setattr(fog, "draw_positions", counting)
    game = get_game("laotzu")
    view = game.player_view(game.parse_position(FREE_KNIGHT.replace(" w ", "[] w ")), 0)
    for level in (1, 2, 3, DEFAULT_LEVEL):
        opponent.think_from_view("laotzu", {}, view, level, seed=0)
    assert drawn == [1, 2, fog.SAMPLES, fog.SAMPLES]
    assert fog.sample_limits(LEVELS[1]).movetime == pytest.approx(LEVELS[1].movetime)
    assert fog.sample_limits(LEVELS[2]).movetime == pytest.approx(LEVELS[2].movetime / 2)
