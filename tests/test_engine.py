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
from controller.engine import LEVELS, Engine, Evaluator, Limits, Search, clock_budget
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


def test_the_time_budget_is_measured_on_the_search_clock():
    """A benchmark's clock (process CPU time) bounds the search, not the wall clock: a
    clock that runs a second per reading leaves no time beyond the cheap first depths."""
    game = get_game("gnuqi")
    ticks = iter(range(10**6))
    result = Search(game, clock=lambda: float(next(ticks))).best_move(
        game.start(), Limits(depth=30, movetime=2.5))
    assert 1 <= result.depth <= 2 and result.seconds >= 1


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


# -- the search's pruning and the evaluation's terms ---------------------------------------
class _CountingChess(type(get_game("chess"))):
    """Chess that counts the engine's null moves (passes) it is asked to make."""

    passes = 0

    def make(self, pos, move):
        if move.kind == "pass":
            type(self).passes += 1
        super().make(pos, move)


def test_a_pass_hands_over_the_turn_and_is_undone_exactly():
    game = get_game("chess")
    pos = game.parse_position("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3")
    before, key = pos.snapshot(), pos.keys[-1]
    pos.push(game.pass_move(pos))
    assert pos.turn == 0 and pos.state.get("ep") is None and pos.keys[-1] != key
    pos.pop()
    assert pos.snapshot() == before
    passing = [name for name in GAMES if get_game(name).pass_move(get_game(name).start())]
    # the other games keep the default, no null move (a game built on chess may inherit it)
    assert passing[0] == "chess" and all(issubclass(GAMES[n], type(game)) for n in passing)


def test_the_null_move_is_tried_but_never_in_a_pawn_ending():
    game = _CountingChess()
    _CountingChess.passes = 0
    middlegame = game.parse_position(
        "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 8")
    Search(game).best_move(middlegame, Limits(depth=4))
    assert _CountingChess.passes > 0
    _CountingChess.passes = 0
    # a Pawn ending where passing would be best for either side (mutual zugzwang)
    ending = game.parse_position("8/8/8/1k6/8/1K6/1P6/8 w - - 0 1")
    result = Search(game).best_move(ending, Limits(depth=6))
    assert _CountingChess.passes == 0 and result.move in game.legal_moves(ending)


def test_mates_survive_the_pruning_at_every_depth():
    # the null move, futility and late-move reductions must not hide a mate: a back-rank
    # mate in one, and a mate in two whose only first move is a quiet King step
    # (1. Kb3! and 2. Rf1#/Ra2#, checked with python-chess by exhaustive search)
    game = get_game("chess")
    pos = game.parse_position("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
    for depth in (3, 4, 5, 6):
        result = Search(game).best_move(pos, Limits(depth=depth))
        assert result.mate_in == 1 and game.move_text(pos, result.move) == "Rd8#"
    pos = game.parse_position("8/8/8/8/K4p2/8/5R2/k7 w - - 0 1")
    for depth in (3, 4, 5, 6, 7):
        result = Search(game).best_move(pos, Limits(depth=depth))
        assert result.mate_in == 3 and game.move_text(pos, result.move) == "Kb3", depth


def test_the_search_is_deterministic_and_its_table_consistent():
    game = get_game("chess")
    text = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"
    first = Search(game, seed=5).best_move(game.parse_position(text), Limits(depth=4))
    again = Search(game, seed=5).best_move(game.parse_position(text), Limits(depth=4))
    assert (first.move, first.score, first.nodes) == (again.move, again.score, again.nodes)
    warm = Search(game, seed=5)
    warm.best_move(game.parse_position(text), Limits(depth=4))
    reused = warm.best_move(game.parse_position(text), Limits(depth=4))
    assert (reused.move, reused.score) == (first.move, first.score)
    assert reused.nodes < first.nodes  # the table answers much of it


def test_the_evaluation_centralises_and_tapers_by_material():
    game = get_game("chess")
    ev = Evaluator(game)

    def score(text):
        return ev.score(game.parse_position(text), 0)

    # a Knight in the centre is worth more than on the rim
    assert score("4k3/8/8/8/3N4/8/8/4K3 w - - 0 1") > score("4k3/8/8/8/8/8/8/N3K3 w - - 0 1")
    # the King: home and behind his Pawns with the Queens on, in the centre in the ending
    full = "rnbqkbnr/pppppppp/8/8/8/{}/PPPPPPPP/RNBQ1BNR w kq - 0 1"
    assert score(full.format("8") .replace("RNBQ1BNR", "RNBQKBNR")) > score(
        full.format("4K3"))
    assert score("4k3/8/8/8/4K3/8/8/8 w - - 0 1") > score("4k3/8/8/8/8/8/8/4K3 w - - 0 1")
    # the Bishop pair
    assert score("4k3/8/8/8/8/8/8/2B1KB2 w - - 0 1") - score(
        "4k3/8/8/8/8/8/8/2B1K3 w - - 0 1") > Evaluator(game).piece_value("B")


def test_cell_attacked_says_who_could_take_there():
    game = get_game("chess")
    pos = game.parse_position("4k3/8/8/3p4/8/8/8/R3K3 w - - 0 1")
    cell = game.geometry.cell
    assert game.cell_attacked(pos, cell("a8"), 0) is True  # the Rook along the a-file
    assert game.cell_attacked(pos, cell("e4"), 1) is True  # the Pawn on d5
    assert game.cell_attacked(pos, cell("d4"), 1) is False  # a Pawn does not take ahead
    assert game.cell_attacked(pos, cell("d5"), 0) is False
    saying = [name for name in GAMES
              if get_game(name).cell_attacked(get_game(name).start(), 0, 0) is not None]
    # the others keep the default, the game does not say (a game built on chess may say)
    assert saying[0] == "chess" and all(issubclass(GAMES[n], type(game)) for n in saying)



def _greedy(game, pos):
    """The defender: takes the most valuable piece it can, else its first move."""
    ev = Evaluator(game)

    def taken(move):
        victim = pos.board[move.target] if move.target is not None else None
        return ev.piece_value(victim.kind) if victim is not None else 0

    return max(game.legal_moves(pos), key=taken)


@pytest.mark.parametrize("text", [
    "R8/4B3W/5WWW1/1k3N3/3Q1CB1N/8G/9/9/4K4 b - - 0 60",
    "1nc1k2n1/c8/1g7/9/1w7/4wwrq1/8b/2K5b/9 w - - 0 60",
])
def test_a_won_gnuqi_ending_is_mated_before_the_fifty_move_rule(text):
    """Endings the top level drew by the fifty-move rule at 0.1 s a move (random-play
    soak): the endgame terms drive the bare King to the edge (a fixed node budget keeps
    the test deterministic and independent of the machine's speed)."""
    game = get_game("gnuqi")
    pos = game.parse_position(text)
    strong = game.ply_mover(pos) ^ 1
    search = Search(game, seed=1)
    while game.outcome(pos) is None and len(pos.moves) < 100:
        if game.ply_mover(pos) == strong:
            move = search.best_move(pos, Limits(depth=64, nodes=2500)).move
        else:
            move = _greedy(game, pos)
        pos.push(move)
    outcome = game.outcome(pos)
    assert outcome is not None and outcome.winners == (strong,), (
        len(pos.moves), outcome, game.position_text(pos))
