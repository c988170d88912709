"""A level plays alike on a slower machine, only slower: its time budget is stretched by
how many times slower the machine searches (``machine_slowness``, ``[engine] slowness``).
Found in review: on a Raspberry Pi 4 (8–10 times slower) the default level's 0.25 s ended
its search long before its depth 4, so it played several levels weaker than measured."""

from __future__ import annotations

import pytest

import controller.engine as engine
from controller.config import EngineSettings
from controller.engine import LEVELS, MAX_SLOWNESS, Engine, Limits, Search, machine_slowness
from controller.engine.fog import sample_limits
from controller.opponent import Computer, Opponent, worker_slowness
from controller.rules import DEFAULT_GAME, get_game


@pytest.mark.parametrize("took,slowness", [(0.5, 1.0), (1.0, 1.0), (8.0, 8.0),
                                           (100.0, MAX_SLOWNESS)])
def test_slowness_is_the_calibration_search_against_the_levels_machine(
        monkeypatch, took, slowness):
    times = iter([took * 1.2, took, took * 1.5])  # the fastest of three counts
    monkeypatch.setattr(engine, "calibration_search",
                        lambda: next(times) * engine.CALIBRATION_SECONDS)
    assert machine_slowness(repeats=3) == pytest.approx(slowness)


def test_the_calibration_search_is_the_one_its_reference_was_measured_on():
    """``CALIBRATION_SECONDS`` was measured for a search of about 1,400 nodes (its
    docstring): a search grown or shrunk threefold would make every machine's slowness
    wrong. Counted in nodes, not timed (a loaded or slower machine is no failure here)."""
    game = get_game(DEFAULT_GAME)
    result = Search(game, seed=0).best_move(game.start(), Limits(depth=3))
    assert 1_400 / 3 < result.nodes < 1_400 * 3
    assert engine.calibration_search() > 0


def test_a_slower_machine_stretches_the_levels_time_not_a_clocks_share():
    game = get_game("gnuqi")
    for k in (1, 6, 10):
        assert Engine(game, k, slowness=8).limits().movetime == pytest.approx(
            8 * LEVELS[k].movetime)
        # a clock's share is real time: stretching the level never makes it longer
        assert Engine(game, k, slowness=8).limits(movetime=0.3).movetime == pytest.approx(
            min(0.3, 8 * LEVELS[k].movetime))
    assert Engine(game, 6).limits().movetime == LEVELS[6].movetime
    assert sample_limits(LEVELS[4], slowness=8).movetime == pytest.approx(
        8 * LEVELS[4].movetime / LEVELS[4].samples)
    # the nodes and depth, which make a level's strength, stay
    assert Engine(game, 6, slowness=8).limits().nodes == LEVELS[6].nodes


@pytest.mark.parametrize("setting", [3.5, 0.0])
def test_the_worker_uses_the_configured_or_measured_slowness(setting):
    opponent = Opponent(Computer(frozenset({0}), 6), engine=EngineSettings(slowness=setting))
    try:
        used = opponent.worker().submit(worker_slowness).result(timeout=60)
    finally:
        opponent.close()
    if setting:
        assert used == setting
    else:  # measured here, where the levels were: about 1, never below
        assert 1.0 <= used < 3.0
