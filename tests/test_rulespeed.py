"""The speed paths of the rules (issue #20) against the rules written plainly.

Each fast listing is compared, move for move (the same Move values in any order), with a
plain reference generator over positions of seeded random play.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from controller.rules import get_game
from controller.rules.core import Game, Move, Position
from controller.rules.kaleidochess import CASTLE_SET, KaleidoChess, destinations


def random_play(game: Game, seed: int, plies: int) -> list[Position]:
    """The positions of one seeded random game (copies, the game not over)."""
    rng = random.Random(seed)
    pos = game.start()
    out = []
    for _ in range(plies):
        moves = game.legal_moves(pos)
        if not moves:
            break
        out.append(pos.copy())
        pos.push(rng.choice(moves))
    return out


def kaleido_reference(game: KaleidoChess, pos: Position) -> list[Move]:
    """KaleidoChess's moves without the dice and the repetition ban, each built anew."""
    board = pos.board
    mover = pos.turn
    players = game.players
    cells_of: list[list[int]] = [[] for _ in range(players)]
    for c, p in enumerate(board):
        if p is not None:
            cells_of[p.owner].append(c)
    held = [0] * players
    for c in CASTLE_SET:
        if (p := board[c]) is not None:
            held[p.owner] += 1
    ban = pos.state.get(f"ban{mover}")
    moves = []
    for origin in cells_of[mover]:
        for target in destinations(board, origin):
            if ban is not None and tuple(ban) == (origin, target):
                continue
            if players > 2 and (origin in CASTLE_SET or target in CASTLE_SET):
                moves.append(game._castle_move(board, mover, origin, target, held, cells_of))
            else:
                caps = (target,) if board[target] is not None else ()
                moves.append(Move("move", origin, target, board[origin], None, caps))
    return moves


@pytest.mark.parametrize("players", [2, 3, 4])
def test_kaleidochess_listing_matches_the_plain_generator(players: int) -> None:
    game = get_game("kaleidochess", players=players)
    checked = 0
    for seed in range(40):
        for pos in random_play(game, seed, 120):
            assert Counter(game.legal_moves(pos)) == Counter(kaleido_reference(game, pos))
            checked += 1
    assert checked > 200


def luotuoqi_pseudo_reference(game, pos: Position) -> list[Move]:
    """Lùotuoqí's pseudo-legal moves walked on the board, each built anew, in the order the
    generator lists them (piece by cell; per piece its directions)."""
    from controller.geometry import DIAGONAL, GRID_DIRECTIONS, ORTHOGONAL
    from controller.rules import luotuoqi as lu
    from controller.rules.core import Piece

    board, me = pos.board, pos.turn
    out: list[Move] = []
    for o, pc in enumerate(board):
        if pc is None or pc.owner != me:
            continue
        kind, n = pc.kind, pc.height
        if kind == "T":
            def tower(t: int, k: int, caps: tuple = (), o: int = o, pc: Piece = pc) -> Move:
                n = pc.height
                return (Move("move", o, t, pc, None, caps) if k == n else
                        Move("split", o, t, Piece(me, "T", k), Piece(me, "T", n - k), caps))
            for d in GRID_DIRECTIONS:
                cells = lu.RAYS[d][o][:n]
                for dist, t in enumerate(cells, start=1):
                    q = board[t]
                    if q is None:
                        out += [tower(t, k) for k in range(dist, n + 1)]
                        continue
                    if q.owner != me:
                        out += [tower(t, k, (t,)) for k in range(dist, n + 1)]
                    elif q.kind == "T":
                        out += [Move("merge", o, t, Piece(me, "T", k + q.height),
                                     Piece(me, "T", n - k) if k < n else None)
                                for k in range(dist, min(n, lu.MAX_TOWER - q.height) + 1)]
                    break
            continue
        if kind == "D":
            for d in DIAGONAL:
                for i, t in enumerate(lu.RAYS[d][o]):
                    if board[t] is not None:
                        break
                    caps = tuple(v for v in lu.BYPASS_VICTIMS[d][o][i]
                                 if board[v] is not None and board[v].owner != me)
                    out.append(Move("move", o, t, pc, None, caps))
            continue
        targets: list[int] = []
        if kind == "R":
            for d in ORTHOGONAL:
                for t in lu.RAYS[d][o]:
                    targets.append(t)
                    if board[t] is not None:
                        break
            for p1, p2, ts in lu.CAMEL[o]:
                if board[p1] is None and board[p2] is None:
                    targets += ts
        else:
            targets = list((lu.MULE_TARGETS if kind == "M" else lu.KING_STEPS if kind == "K"
                            else lu.EAGLET_TARGETS[me])[o])
        for t in targets:
            q = board[t]
            if q is None:
                out.append(Move("move", o, t, pc))
            elif q.owner != me:
                out.append(Move("move", o, t, pc, None, (t,)))
        if kind == "E":
            promotions: list[Move] = []
            game._promotions(pos, o, pc, promotions)
            out += promotions
    return out


def test_luotuoqi_pseudo_moves_match_the_board_walk() -> None:
    """The moves listed from kept tables are those walked on the board, in the same order,
    over many positions (so that kept moves are reused)."""
    game = get_game("luotuoqi")
    checked = 0
    for seed in range(30):
        for pos in random_play(game, seed, 90):
            assert game.pseudo_moves(pos) == luotuoqi_pseudo_reference(game, pos)
            checked += 1
    assert checked > 1500


def test_goals_after_a_subset_rewrite_their_rows_and_keep_the_others() -> None:
    """``run_all --only luotuoqi goals`` rewrites the Lùotuoqí goal rows and keeps the
    other rules rows of the document's table, saying where they come from; a board row
    left from before the board's goals had their own table is dropped."""
    from benchmarks.run_all import goals_table

    earlier = "\n".join([
        "| goal | this run | |", "|---|---|---|",
        "| listing, per position, Chess ≥ 1.0 × python-chess | 1.76 | met |",
        "| Lùotuoqí listing, every position ≥ 1.0 × python-chess | 0.44 | **not met** |",
        "| Lùotuoqí slowest position ≤ 1 ms | 0.17 ms | met |",
        "| Board.feed p99 ≤ 0.2 ms: chess | 0.190 ms | met |", ""])
    results = {"luotuoqi": {"listing": {"worst_us": 2000.0, "rows": [
        {"title": "every position", "ratios": [1.1, 1.2, 1.3], "per_move": [0.9, 0.95, 1.0]}]}}}
    table = goals_table(results, earlier).splitlines()
    assert table[2:7] == [
        "| listing, per position, Chess ≥ 1.0 × python-chess | 1.76 | met |",
        "| Lùotuoqí listing, every position ≥ 1.0 × python-chess | 1.20 | met |",
        "| Lùotuoqí slowest position ≤ 1 ms | 2.00 ms | **not met** |",
        "| Lùotuoqí listing per listed move, every position ≥ 1.0 × python-chess | 0.95 | "
        "**not met** |",
        ""]
    assert not any("Board.feed" in row for row in table)
    assert "Rows of rules are from an earlier run" in table[-1]
