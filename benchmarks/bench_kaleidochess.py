"""KaleidoChess move generation speed.

Run: ``python -m benchmarks.bench_kaleidochess``.  Prints the time to list the legal moves
of the start positions (2, 3, 4 players), of busy middle games (seeded random games and a
crowded centre where most pieces have their full reach), the same for a literal depth-first
search as in kaleidochess.md §4.6 (the ratio shows what the precomputed path tables buy),
and perft nodes per second from the start position.  Process CPU time (on a shared machine
wall time counts other processes' work).
"""

from __future__ import annotations

import random
import time

from benchmarks.benchtools import per_call
from controller.rules.core import Piece, Position
from controller.rules.kaleidochess import (
    PIECE_TYPES,
    TWO_PLAYER_ARMY,
    G,
    KaleidoChess,
)

RING = G.attributes["ring"]




def played(game: KaleidoChess, seed: int, plies: int) -> Position:
    """A middle game: ``plies`` random moves, avoiding moves that end the game."""
    rng = random.Random(seed)
    pos = game.start()
    for _ in range(plies):
        moves = game.legal_moves(pos)
        rng.shuffle(moves)
        for move in moves:
            pos.push(move, record=False)
            if game.outcome(pos) is None and not game.out_players(pos):
                break
            pos.pop()
        else:
            break
    return game.parse_position(game.position_text(pos))


def crowded(game: KaleidoChess, seed: int) -> Position:
    """Both 18-piece armies scattered over the centre and rings 1–3 (long reach)."""
    rng = random.Random(seed)
    inner = [c for c in range(len(G.cells)) if RING[c] <= 3 and c != 0]
    rng.shuffle(inner)
    board: list[Piece | None] = [None] * len(G.cells)
    board[0] = Piece(0, "W")
    board[G.cell("5J")] = Piece(1, "W")
    kinds = [k for k, fields in TWO_PLAYER_ARMY.items() for _ in fields if k != "W"]
    for owner in (0, 1):
        for kind in kinds:
            board[inner.pop()] = Piece(owner, kind)
    return game.parse_position(game.position_text(Position(game, board, 0)))


def reference_moves(pos: Position) -> list[tuple[int, int]]:
    """kaleidochess.md §4.6 as written: one depth-first search per piece."""
    board = pos.board
    out = []
    for origin, piece in enumerate(board):
        if piece is None or piece.owner != pos.turn:
            continue
        pt = PIECE_TYPES[piece.kind]
        result: set[int] = set()

        def dfs(path: list[int], changes: int, pt=pt, origin=origin, result=result) -> None:
            cur = path[-1]
            if len(path) - 1 == pt.steps:
                if cur != origin:
                    result.add(cur)
                return
            for nxt in G.side[cur] + (G.corner[cur] if pt.flies else ()):
                if nxt in path:
                    continue
                c = changes + (RING[nxt] != RING[cur])
                if not pt.ring_free and c > 1:
                    continue
                if not pt.flies and len(path) < pt.steps and board[nxt] is not None:
                    continue
                dfs(path + [nxt], c)

        dfs([origin], 0)
        out.extend((origin, t) for t in result)
    ban = pos.state.get(f"ban{pos.turn}")
    return [m for m in out if m != ban]


def main() -> None:
    two, three, four = KaleidoChess(), KaleidoChess(players=3), KaleidoChess(players=4)
    cases = [
        ("start, 2 players", two, two.start()),
        ("start, 3 players", three, three.start()),
        ("start, 4 players", four, four.start()),
        ("middle game 2p, 30 plies", two, played(two, 1, 30)),
        ("middle game 2p, 60 plies", two, played(two, 2, 60)),
        ("middle game 4p, 40 plies", four, played(four, 3, 40)),
        ("crowded centre 2p", two, crowded(two, 4)),
        ("crowded centre 2p (b)", two, crowded(two, 5)),
    ]
    print("legal-move listing (median per call)")
    print(f"{'position':<28}{'moves':>6}{'tables µs':>11}{'§4.6 DFS µs':>13}{'ratio':>7}")
    for label, game, pos in cases:
        moves = game.legal_moves(pos)
        if game.players == 2:
            assert {(m.origin, m.target) for m in moves} == set(reference_moves(pos))
        fast = per_call(lambda g=game, p=pos: g.legal_moves(p))
        slow = per_call(lambda p=pos: reference_moves(p))
        print(f"{label:<28}{len(moves):>6}{fast * 1e6:>11.1f}{slow * 1e6:>13.1f}"
              f"{slow / fast:>7.1f}")
    print()
    print("perft from the 2-player start")
    pos = two.start()
    for depth in (1, 2, 3):
        t0 = time.process_time()
        nodes = two.perft(pos, depth)
        dt = max(time.process_time() - t0, 1e-6)
        print(f"  depth {depth}: {nodes:>9} nodes  {dt:7.2f} s  {nodes / dt:>10.0f} nodes/s")
    dice = KaleidoChess(dice=True)
    for depth in (2, 4):
        t0 = time.process_time()
        nodes = dice.perft(dice.start(), depth)
        dt = time.process_time() - t0
        print(f"  dice, depth {depth} (a roll is a ply): {nodes:>9} nodes  {dt:7.2f} s")
    for label, game in (("3 players", three), ("4 players", four)):
        t0 = time.process_time()
        nodes = game.perft(game.start(), 2)
        dt = time.process_time() - t0
        print(f"  {label}, depth 2: {nodes:>9} nodes  {dt:7.2f} s")


if __name__ == "__main__":
    main()
