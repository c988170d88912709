"""The weakest levels play like beginners (issue 33): legal, never the piece they move
given away to a short reply they could see when a move losing nothing exists, a free
piece nearby taken, a long-range threat missed now and then — and they lose to a
one-ply greedy player most of the time.  Levels 3 and up are as they were (their ladder
records stay valid)."""

from __future__ import annotations

import math
import random

import pytest

from benchmarks.spar import Greedy
from controller.engine import LEVELS, Engine, Level
from controller.engine.evaluation import Evaluator
from controller.rules import Game, Move, Position, get_game

#: levels 3–10 as measured by the ladder (changing one invalidates its records; levels
#: 4–8 wait up to 2 s for their floor since issue 33's depth floor — the same games
#: wherever the floor fitted the budget before)
MEASURED = {
    3: Level(1, 0.2, noise=50),
    4: Level(2, 0.2, nodes=3_000, floor=1, floor_wait=2.0),
    5: Level(3, 0.2, nodes=4_500, floor=2, floor_wait=2.0),
    6: Level(4, 0.25, nodes=6_000, floor=3, floor_wait=2.0),
    7: Level(6, 0.5, nodes=15_000, floor=4, floor_wait=2.0),
    8: Level(8, 1.0, nodes=40_000, floor=6, floor_wait=2.0),
    9: Level(10, 2.0, nodes=100_000, floor=8),
    10: Level(64, 4.0),
}
GAMES = ("chess", "gnuqi", "luotuoqi", "lotus39")


def test_levels_three_and_up_are_unchanged():
    assert {n: LEVELS[n] for n in MEASURED} == MEASURED
    assert LEVELS[1].style is not None and LEVELS[2].style is not None
    assert LEVELS[2].style.horizon > LEVELS[1].style.horizon


# -- an oracle of its own (not the beginner's code): one ply of the opponent's captures --
def _cells(game: Game, a: int, b: int) -> float:
    geo = game.geometry
    spans = [math.dist(geo.centres[x], geo.centres[y]) for x, near in enumerate(geo.side)
             for y in near]
    return math.dist(geo.centres[a], geo.centres[b]) / (sum(spans) / len(spans))


def _short_captures(game: Game, pos: Position, me: int, horizon: float) -> list[Move]:
    """The next player's captures of ``me``'s pieces from within ``horizon`` cells."""
    if game.ply_mover(pos) == me or game.outcome(pos) is not None:
        return []
    return [r for r in game.legal_moves(pos)
            if r.origin >= 0 and _cells(game, r.origin, r.target) <= horizon
            and any(pos.board[c] is not None and pos.board[c].owner == me
                    for c in r.captures)]


def _net_loss(game: Game, value, pos: Position, reply: Move, me: int) -> int:
    """What ``me`` loses to ``reply`` when he takes back the taker on its cell if he can
    (by a legal move)."""
    lost = sum(value(pos.board[c].kind, pos.board[c].height) for c in reply.captures
               if pos.board[c] is not None and pos.board[c].owner == me)
    taker = pos.board[reply.origin]
    pos.push(reply)
    try:
        back = game.ply_mover(pos) == me and any(
            reply.target in m.captures for m in game.legal_moves(pos))
    finally:
        pos.pop()
    return max(0, lost - value(taker.kind, taker.height)) if back else lost


def _losing_replies(game, value, pos, me, horizon) -> list[int]:
    return [loss for r in _short_captures(game, pos, me, horizon)
            if (loss := _net_loss(game, value, pos, r, me)) > 0]


def _gain(value, pos: Position, move: Move, me: int) -> int:
    return sum((1 if pos.board[c].owner != me else -1)
               * value(pos.board[c].kind, pos.board[c].height)
               for c in move.captures if pos.board[c] is not None)


def _blunders(game: Game, level: int, plies: int, seed: int) -> tuple[int, int]:
    """(moves checked, moves that gave away the moved piece for nothing while a move
    losing nothing existed) of ``level`` against the greedy player, in quiet positions
    (see ``quiet``)."""
    value = Evaluator(game).piece_value
    horizon = LEVELS[level].style.horizon
    engine = Engine(game, level, seed=seed)
    greedy = Greedy(game, seed)
    pos = game.start()
    checked = bad = 0
    for ply in range(plies):
        moves = game.legal_moves(pos)
        if not moves or game.outcome(pos) is not None:
            break
        if moves[0].kind == "roll":
            pos.push(random.Random(seed + ply).choice(moves))
            continue
        me = game.ply_mover(pos)
        if me != seed % 2:
            pos.push(greedy.choose(game, pos, moves))
            continue
        move = engine.choose(pos).move
        assert move in moves, f"{game.name}: an illegal move {move}"
        pos.push(move)
        won = game.outcome(pos) is not None
        pos.pop()
        # quiet: not in check, no exchange under way (the last move took nothing), no
        # promotion, no win in one
        last = pos.moves[-1] if pos.moves else None
        quiet = (not won and not move.promotion and not game.in_check(pos, me)
                 and (last is None or not last.captures))
        if quiet:
            checked += 1
            safe_exists = any(not _losing_after(game, value, pos, m, me, horizon)
                              for m in moves)
            gain = _gain(value, pos, move, me)
            pos.push(move)
            took_moved = [
                _net_loss(game, value, pos, r, me) for r in
                _short_captures(game, pos, me, horizon) if move.target in r.captures]
            pos.pop()
            if safe_exists and took_moved and gain - max(took_moved) < 0:
                bad += 1
        pos.push(move)
    return checked, bad


def _losing_after(game, value, pos, move, me, horizon, only: int | None = None) -> bool:
    """Whether after ``move`` a short reply wins material from ``me`` net of what
    ``move`` took (``only``: replies taking that cell)."""
    gain = _gain(value, pos, move, me)
    pos.push(move)
    try:
        losses = [_net_loss(game, value, pos, r, me)
                  for r in _short_captures(game, pos, me, horizon)
                  if only is None or only in r.captures]
    finally:
        pos.pop()
    return bool(losses) and max(losses) > max(0, gain)


@pytest.mark.parametrize("name", GAMES)
def test_level_one_never_gives_away_the_piece_it_moves_when_a_safe_move_exists(name):
    game = get_game(name)
    checked = bad = 0
    for seed in range(6):
        c, b = _blunders(game, 1, 50, seed)
        checked, bad = checked + c, bad + b
    assert checked >= 40 and bad == 0


def test_the_oracle_sees_a_random_mover_give_pieces_away():
    """The check above can fail: a random mover, checked the same way, gives away the
    piece it moves in these games."""
    game = get_game("chess")
    value = Evaluator(game).piece_value
    rng = random.Random(3)
    pos = game.start()
    bad = 0
    for _ in range(80):
        moves = game.legal_moves(pos)
        if not moves:
            break
        move = rng.choice(moves)
        me = game.ply_mover(pos)
        if (any(not _losing_after(game, value, pos, m, me, 2.0) for m in moves)
                and _losing_after(game, value, pos, move, me, 2.0, only=move.target)):
            bad += 1
        pos.push(move)
    assert bad >= 3


def test_a_free_piece_next_to_it_is_taken_when_noticed():
    """Qxe5 takes a free Knight next to the Queen: level 1 notices it some of the time
    (a beginner does not see every capture), level 2 mostly, level 3 always."""
    game = get_game("chess")
    free = game.parse_position("4k3/8/8/4n3/3Q4/8/8/4K3 w - - 0 1")
    take = game.parse_move(free, "d4e5")

    def taken(level: int) -> int:
        return sum(Engine(game, level, seed=s).choose(free).move == take for s in range(40))

    one, two, three = taken(1), taken(2), taken(3)
    assert 4 <= one < two < 40 and three == 40, (one, two, three)


def test_a_long_threat_is_missed_now_and_then_a_short_one_never():
    """The Bishop on a8 eyes c6 (three cells away) and f3 (seven) down the long diagonal:
    level 1 (a horizon of two cells) walks the Knight into them now and then, level 2
    (four cells) never into c6, the search of level 3 into neither."""
    game = get_game("chess")
    # (Pawns far away: without them the Bishop's ending is a dead draw, and the search
    # rightly sees nothing lost)
    pos = game.parse_position("b3k3/6pp/8/8/3N4/8/PP6/4K3 w - - 0 1")
    c6, f3 = game.parse_move(pos, "d4c6"), game.parse_move(pos, "d4f3")

    def played(level: int, seeds: int) -> set[Move]:
        return {Engine(game, level, seed=s).choose(pos).move for s in range(seeds)}

    one, two, three = played(1, 60), played(2, 60), played(3, 10)
    assert {c6, f3} & one
    assert c6 not in two
    assert not {c6, f3} & three


def test_level_one_loses_to_the_greedy_player_more_than_it_wins():
    """Six games in each of four games (seats swapped; the ladder's adjudication at the
    cap): the greedy player outscores level 1 in each, and level 1 loses at least half
    of all the games (``benchmarks/weak_levels.py`` measures more).  Lao Tzu's level 1
    plays from its view as a beginner on the position it pictures; as a one-ply search
    with quiescence there it won 4 of these 6 (15 of 20 in the benchmark)."""
    from benchmarks.weak_levels import match
    from controller.engine.fog import sample_limits

    assert sample_limits(LEVELS[1]).style is LEVELS[1].style is not None
    assert sample_limits(LEVELS[3]).style is None
    scores = {name: match(name, games=6, seed=1, max_plies=160).score
              for name in ("chess", "gnuqi", "luotuoqi", "laotzu")}
    assert all(s.losses > s.wins for s in scores.values()), scores
    assert 2 * sum(s.losses for s in scores.values()) >= sum(
        s.games for s in scores.values()), scores


def test_a_seed_plays_the_same_moves():
    game = get_game("gnuqi")

    def line(seed: int) -> list[Move]:
        pos, engine, out = game.start(), Engine(game, 1, seed=seed), []
        for _ in range(12):
            move = engine.choose(pos).move
            out.append(move)
            pos.push(move)
        return out

    assert line(5) == line(5)
    assert line(5) != line(6)


def test_never_a_move_that_loses_the_game_at_once():
    """KaleidoChess: a move that leaves one's side unable to win (a capitulation, such as
    1J-2E from the start) ends the game lost; a beginner never plays it while another
    move exists (it used to, at level 1, seed 1)."""
    game = get_game("kaleidochess")
    pos = game.start()
    for seed in range(10):
        move = Engine(game, 1, seed=seed).choose(pos).move
        pos.push(move)
        outcome = game.outcome(pos)
        pos.pop()
        assert outcome is None, (seed, game.move_text(pos, move), outcome)
