"""The mate-in-two sets are what they claim, and the engine solves them.

``tests/data/tactics/mate2/*.txt`` were made by ``python -m benchmarks.engine_tactics
--mate 2`` (each file's header says how).  Here a deterministic sample of every set is
checked again by an exhaustive search written independently of the generator: no mate in
one, and after the first listed move every reply of every other player (both opponents
with three players: "paranoid") leaves the mover a mate.  The engine must find a listed
move with a forced mate at a fixed depth and node limit (the 2 s figures are the
benchmark's, ``python -m benchmarks.engine_tactics --solve``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.engine import Limits, Search
from controller.rules import get_game

MATE2 = Path(__file__).resolve().parent / "data" / "tactics" / "mate2"
SETS = {"kaleidochess-3": ("kaleidochess", {"players": 3})}

def sample(name: str) -> list[tuple[str, list[str]]]:
    """The positions checked here: the first and the last of the file (the whole sets
    are the benchmark's)."""
    found = problems(name)
    return found[:1] + found[-1:] if len(found) > 1 else found
#: the engine's limits for the sample: deterministic, no clock
ENGINE_NODES = 200_000


def problems(name: str) -> list[tuple[str, list[str]]]:
    """(position text, every first move forcing the mate) per line; ``#`` lines are notes."""
    out = []
    for line in (MATE2 / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            text, moves = line.split("\t")
            out.append((text, moves.split()))
    return out


def wins(game, pos, root: int, turns: int, same_turn: bool, others: int = 0) -> bool:
    """``root`` wins within ``turns`` more of its turns (plies in a row are one turn);
    after two rounds of the others' plies without ``root`` it is out: no win."""
    outcome = game.outcome(pos)
    if outcome is not None:
        return outcome.winners == (root,)
    moves = game.legal_moves(pos)
    if not moves:
        return False
    if game.ply_mover(pos) == root:
        left = turns if same_turn else turns - 1
        if left < 0:
            return False
        return any(_after(game, pos, m, lambda: wins(game, pos, root, left, True))
                   for m in moves)
    if others >= 2 * game.players:
        return False
    return all(_after(game, pos, m, lambda: wins(game, pos, root, turns, False, others + 1))
               for m in moves)


def _after(game, pos, move, check) -> bool:
    pos.push(move)
    try:
        return check()
    finally:
        pos.pop()


def _move(game, pos, text: str):
    found = [m for m in game.legal_moves(pos) if game.move_text(pos, m) == text]
    assert len(found) == 1, f"{text} is not one legal move"
    return found[0]


NAMES = sorted(p.stem for p in MATE2.glob("*.txt"))


def test_a_set_for_every_game():
    assert {"chess", "gnuqi", "kaleidochess", "kaleidochess-3", "laotzu", "lotus39",
            "lotus39-modern", "luotuoqi"} <= set(NAMES)
    for name in NAMES:
        header = (MATE2 / f"{name}.txt").read_text(encoding="utf-8").splitlines()[0]
        assert header.startswith(f"# {name}: mate in two") and "--seed" in header
        # a set may hold fewer than 50 (Lùotuoqí: the exhaustive check with the Cube is
        # slow); the header says how many and how much CPU went into the search
        assert f"mate in two, {len(problems(name))} positions" in header


#: sets still short of issue 18's 50 positions (docs/engine.md, "Not done yet"): none now
SHORT: set[str] = set()


def test_the_sets_hold_fifty_positions():
    for name in NAMES:
        if name not in SHORT:
            assert len(problems(name)) >= 50, name


@pytest.mark.parametrize("name", NAMES)
def test_the_sample_is_a_forced_mate_in_two_and_no_mate_in_one(name):
    game_name, options = SETS.get(name, (name, {}))
    game = get_game(game_name, **options)
    for text, solutions in sample(name):
        pos = game.parse_position(text)
        root = game.ply_mover(pos)
        assert not wins(game, pos, root, 1, False), f"mate in one: {text}"
        first = _move(game, pos, solutions[0])
        pos.push(first)
        assert wins(game, pos, root, 1, True), text
        pos.pop()


@pytest.mark.parametrize("name", NAMES)
def test_the_engine_solves_the_sample(name):
    game_name, options = SETS.get(name, (name, {}))
    game = get_game(game_name, **options)
    for text, solutions in sample(name):
        pos = game.parse_position(text)
        result = Search(game).best_move(pos, Limits(depth=2 * game.players + 2,
                                                    nodes=ENGINE_NODES))
        assert game.move_text(pos, result.move) in solutions, text
        assert result.mate_in is not None and result.mate_in > 1, text
