"""The computer opponent: legal moves only, mates found, positions untouched, every game.

The mate-in-one sets in ``tests/data/tactics`` were found by exhaustive search
(``python -m benchmarks.engine_tactics``); the full sets and their timings are the
tactics benchmark's (``benchmarks/bench_engine.py``), a sample of each is checked here.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from controller.cli import main
from controller.engine import LEVELS, Engine, Limits, Search, clock_budget
from controller.rules import GAMES, get_game

TACTICS = Path(__file__).resolve().parent / "data" / "tactics"
SETS = {"kaleidochess-3": ("kaleidochess", {"players": 3})}
SAMPLE = 8


def tactics(name: str) -> list[tuple[str, set[str]]]:
    out = []
    for line in (TACTICS / f"{name}.txt").read_text(encoding="utf-8").splitlines():
        text, moves = line.split("\t")
        out.append((text, set(moves.split())))
    return out


@pytest.mark.parametrize("name", sorted(p.stem for p in TACTICS.glob("*.txt")))
def test_mate_in_one_is_found(name):
    game_name, options = SETS.get(name, (name, {}))
    game = get_game(game_name, **options)
    problems = tactics(name)
    assert len(problems) >= 50
    search = Search(game)
    for text, mating in problems[:SAMPLE]:
        pos = game.parse_position(text)
        before = pos.snapshot()
        result = search.best_move(pos, Limits(depth=2))
        assert game.move_text(pos, result.move) in mating, text
        assert result.mate_in == 1
        assert pos.snapshot() == before


def _random_positions(game, rng, count):
    for _ in range(count):
        pos = game.start()
        for _ in range(rng.randint(0, 40)):
            moves = game.legal_moves(pos)
            if not moves:
                break
            pos.push(rng.choice(moves))
        yield pos


@pytest.mark.parametrize("name,options", [(n, {}) for n in GAMES] + [
    ("kaleidochess", {"players": 4}), ("kaleidochess", {"dice": True}),
    ("kaleidochess", {"players": 3, "dice": True})])
def test_always_a_legal_move_and_the_position_is_left_as_it_was(name, options):
    game = get_game(name, **options)
    rng = random.Random(7)
    engine = Engine(game, level=5, seed=3)
    for pos in _random_positions(game, rng, 4):
        before = pos.snapshot()
        moves = game.legal_moves(pos)
        result = engine.choose(pos, nodes=3000)
        assert pos.snapshot() == before
        if moves:
            assert result.move in moves
        else:
            assert result.move is None


def test_the_die_is_rolled_not_chosen_and_chance_nodes_average():
    game = get_game("kaleidochess", dice=True)
    pos = game.start()
    search = Search(game, seed=1)
    rolled = search.best_move(pos, Limits(depth=3))
    assert rolled.move.kind == "roll" and rolled.depth == 0
    pos.push(rolled.move)
    answer = search.best_move(pos, Limits(depth=2))  # the opponent's roll is a chance node
    assert answer.move in game.legal_moves(pos) and answer.move.kind != "roll"


def test_the_cube_double_move_is_one_players_two_plies():
    # White holds the Cube: Ra1-a7 is quiet and not check, then Rb1-b8 mates
    game = get_game("luotuoqi")
    pos = game.parse_position("7k/8/8/8/8/8/8/RR2K3 w - w 0 1")
    result = Search(game).best_move(pos, Limits(depth=3))
    assert result.mate_in == 2  # two plies, both White's
    assert game.move_text(pos, result.move).endswith("+cube")


def test_a_stop_request_ends_the_search_with_an_answer():
    game = get_game("gnuqi")
    pos = game.start()
    calls = []
    result = Search(game).best_move(pos, Limits(depth=30), stop=lambda: calls.append(1) or True)
    assert calls and result.move in game.legal_moves(pos) and result.depth >= 1


def test_levels_and_clock_budget():
    assert sorted(LEVELS) == list(range(1, 11))
    assert [LEVELS[k].movetime for k in range(1, 11)] == sorted(
        LEVELS[k].movetime for k in range(1, 11))
    assert clock_budget(60) == pytest.approx(2.0)
    assert clock_budget(1.0, moves_to_go=1) == 0.5  # never more than half the clock
    with pytest.raises(ValueError, match="level must be"):
        Engine(get_game("gnuqi"), level=0)


def test_bestmove_prints_the_move_last(capsys):
    assert main(["bestmove", "--game", "gnuqi", "--level", "3"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    game = get_game("gnuqi")
    pos = game.start()
    assert last in {game.move_text(pos, m) for m in game.legal_moves(pos)}


@pytest.mark.parametrize("args,needle", [
    (["bestmove", "--game", "gnuqi", "--level", "11"], "--level must be"),
    (["bestmove", "--game", "gnuqi", "--movetime", "-1"], "--movetime must be"),
    (["bestmove", "--game", "luotuoqi", "--position", "1R5k/R7/8/8/8/8/8/4K3 b - - 0 1"],
     "no legal move: the game is over (1-0, checkmate)"),
])
def test_bestmove_bad_input_is_one_line(capsys, args, needle):
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and needle in err


def test_play_a_whole_game_against_a_random_mover(capsys):
    assert main(["play", "--game", "lotus39", "--level", "4", "--against", "random",
                 "--max-plies", "200", "--seed", "2"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith(("1-0", "0-1", "1/2", "stopped"))
