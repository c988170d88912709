"""Gnu Qi against two oracles.

* Fairy-Stockfish (``pyffish``, test-only, GPL) with a variant definition that expresses
  everything except the Bishop/Camel bank rule: Camel and Gnu as custom pieces, Pawns
  promoting to Wazirs beyond the far River, King/Queen/Gnu confined by mobility regions.
* A brute-force reading of gnuqi.md §2/§5/§7, written here without the module's tables:
  pseudo-legal moves by walking the board, legality by trying each move and looking for
  any enemy piece that could capture the King.

Fairy-Stockfish cannot restrict a Bishop or Camel by bank, so it allows some of their far
River crossings.  Positions where that difference could change the side to move's
legality (an enemy Bishop/Camel "attacking" the King, its neighbours or the castling path
by such a crossing) are left to the brute-force oracle; elsewhere the move lists must be
equal up to the mover's own bank-violating Bishop/Camel crossings.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from controller.rules import get_game
from controller.rules.core import Move, Piece, Position
from controller.rules.gnuqi import START_FEN

sf = pytest.importorskip("pyffish")

VARIANT = "gnuqi"
VARIANT_INI = f"""
[{VARIANT}:chess]
maxRank = 9
maxFile = 9
customPiece1 = c:C
customPiece2 = g:NC
wazir = w
promotionPieceTypes = w
promotionRegionWhite = *7 *8 *9
promotionRegionBlack = *1 *2 *3
doubleStep = false
castling = true
castlingKingsideFile = g
castlingQueensideFile = c
mobilityRegionWhiteKing = *1 *2 *3 *4 *5 *6
mobilityRegionBlackKing = *4 *5 *6 *7 *8 *9
mobilityRegionWhiteQueen = *1 *2 *3 *4 *5 *6
mobilityRegionBlackQueen = *4 *5 *6 *7 *8 *9
mobilityRegionWhiteCustomPiece2 = *1 *2 *3 *4 *5 *6
mobilityRegionBlackCustomPiece2 = *4 *5 *6 *7 *8 *9
startFen = {START_FEN}
"""

GAME = get_game("gnuqi")
FILES = "abcdefghi"


@pytest.fixture(scope="module", autouse=True)
def _variant_loaded():
    sf.load_variant_config(VARIANT_INI)


# -- the brute-force reading of the rules ---------------------------------------------

FAR = (6, 3)  # §1: White's far River lies after rank 6, Black's after rank 3
KING = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if df or dr]
ORTH = [(0, 1), (1, 0), (0, -1), (-1, 0)]
DIAG = [(1, 1), (1, -1), (-1, 1), (-1, -1)]
KNIGHT = [(a * x, b * y) for a, b in ((1, 2), (2, 1)) for x in (1, -1) for y in (1, -1)]
CAMEL = [(a * x, b * y) for a, b in ((1, 3), (3, 1)) for x in (1, -1) for y in (1, -1)]
JUMPS = {"K": KING, "W": ORTH, "N": KNIGHT, "C": CAMEL, "G": KNIGHT + CAMEL}
LINES = {"Q": ORTH + DIAG, "R": ORTH, "B": DIAG}
# §7, both wings, as King from/to, Rook from/to, must be empty, must not be attacked.
CASTLE = {
    "K": ("e1", "g1", "i1", "f1", "f1 g1 h1", "e1 f1 g1"),
    "Q": ("e1", "c1", "a1", "d1", "b1 c1 d1", "e1 d1 c1"),
    "k": ("e9", "g9", "i9", "f9", "f9 g9 h9", "e9 f9 g9"),
    "q": ("e9", "c9", "a9", "d9", "b9 c9 d9", "e9 d9 c9"),
}


def cell(name: str) -> int:
    return (int(name[1:]) - 1) * 9 + FILES.index(name[0])


def name(c: int) -> str:
    return f"{FILES[c % 9]}{c // 9 + 1}"


def crosses(r1: int, r2: int, k: int) -> bool:
    return min(r1, r2) <= k < max(r1, r2)


def river_ok(kind: str, owner: int, r1: int, r2: int) -> bool:
    """§5's table, literally."""
    k = FAR[owner]
    if not crosses(r1, r2, k):
        return True
    if kind in "KQG":
        return False
    if kind in "BC":
        return r1 not in (k, k + 1) and r2 not in (k, k + 1)
    return True


def on_board(f: int, r: int) -> bool:
    return 0 <= f < 9 and 1 <= r <= 9


def reach(board: list, o: int) -> list[int]:
    """Cells the piece on ``o`` could capture on (its attacks), River filter applied."""
    p = board[o]
    f, r = o % 9, o // 9 + 1
    out = []
    if p.kind == "P":
        fwd = 1 if p.owner == 0 else -1
        return [(r + fwd - 1) * 9 + f + df for df in (-1, 1) if on_board(f + df, r + fwd)]
    for df, dr in JUMPS.get(p.kind, ()):
        if on_board(f + df, r + dr) and river_ok(p.kind, p.owner, r, r + dr):
            out.append((r + dr - 1) * 9 + f + df)
    for df, dr in LINES.get(p.kind, ()):
        k = 1
        while on_board(f + k * df, r + k * dr):
            t = (r + k * dr - 1) * 9 + f + k * df
            if river_ok(p.kind, p.owner, r, r + k * dr):
                out.append(t)
            if board[t] is not None:
                break
            k += 1
    return out


def attacked(board: list, t: int, by: int) -> bool:
    return any(p is not None and p.owner == by and t in reach(board, o)
               for o, p in enumerate(board))


def reference_moves(pos: Position) -> set[Move]:
    """Every legal move, found by brute force."""
    board, me = pos.board, pos.turn
    pseudo = []
    for o, p in enumerate(board):
        if p is None or p.owner != me:
            continue
        targets = [t for t in reach(board, o)
                   if board[t] is not None and board[t].owner != me]
        if p.kind == "P":
            ahead = o + (9 if me == 0 else -9)
            if 0 <= ahead < 81 and board[ahead] is None:
                targets.append(ahead)
        else:
            targets += [t for t in reach(board, o) if board[t] is None]
        for t in targets:
            piece, promotion = p, ""
            if p.kind == "P" and crosses(o // 9 + 1, t // 9 + 1, FAR[me]):
                piece, promotion = Piece(me, "W"), "W"
            pseudo.append(Move("move", o, t, piece, captures=(t,) if board[t] else (),
                               promotion=promotion))
    legal = set()
    for m in pseudo:
        after = list(board)
        after[m.origin], after[m.target] = None, m.piece
        king = after.index(Piece(me, "K"))
        if not attacked(after, king, 1 - me):
            legal.add(m)
    for letter in pos.state.get("castling", ""):
        k0, k1, r0, r1, empty, safe = CASTLE[letter]
        if (board[cell(k0)] == Piece(me, "K") and board[cell(r0)] == Piece(me, "R")
                and all(board[cell(c)] is None for c in empty.split())
                and not any(attacked(board, cell(c), 1 - me) for c in safe.split())):
            legal.add(Move("castle", cell(k0), cell(k1), Piece(me, "K"),
                           also=((cell(r0), cell(r1)),)))
    return legal


def bank_violation(owner: int, o: int, t: int) -> bool:
    """A far-River crossing that starts or ends on a bank (what pyffish cannot forbid)."""
    r1, r2, k = o // 9 + 1, t // 9 + 1, FAR[owner]
    return crosses(r1, r2, k) and (r1 in (k, k + 1) or r2 in (k, k + 1))


def geometric_targets(kind: str, o: int) -> list[int]:
    """Every cell a Bishop or Camel on ``o`` could reach on an empty, River-less board."""
    f, r = o % 9, o // 9 + 1
    out = []
    for df, dr in CAMEL if kind == "C" else DIAG:
        k = 1
        while on_board(f + k * df, r + k * dr):
            out.append((r + k * dr - 1) * 9 + f + k * df)
            if kind == "C":
                break
            k += 1
    return out


def pyffish_only_attacks(board: list, owner: int) -> set[int]:
    """Cells that ``owner``'s Bishops and Camels would attack only without the bank rule."""
    cells: set[int] = set()
    for o, p in enumerate(board):
        if p is not None and p.owner == owner and p.kind in "BC":
            cells.update(t for t in geometric_targets(p.kind, o) if bank_violation(owner, o, t))
    return cells


def king_zone(board: list, me: int) -> set[int]:
    king = board.index(Piece(me, "K"))
    f, r = king % 9, king // 9 + 1
    zone = {king} | {(r + dr - 1) * 9 + f + df for df, dr in KING if on_board(f + df, r + dr)}
    home = "1" if me == 0 else "9"
    return zone | {cell(c + home) for c in "cdfg"}


def pyffish_disagrees_on_attacks(board: list, me: int) -> bool:
    """Could Bishop/Camel attacks that only pyffish sees matter with ``me`` to move?

    They matter on the mover's King, its neighbours and castling path (legality of the
    mover's moves) and on the other King (pyffish would think it could be captured)."""
    other_king = board.index(Piece(1 - me, "K"))
    return bool(king_zone(board, me) & pyffish_only_attacks(board, 1 - me)
                or other_king in pyffish_only_attacks(board, me))


def uci(m: Move) -> str:
    return name(m.origin) + name(m.target) + m.promotion.lower()


# -- tests -------------------------------------------------------------------------------


def test_start_position_agrees_with_fairy_stockfish():
    assert sf.start_fen(VARIANT) == START_FEN
    pos = GAME.start()
    assert {uci(m) for m in GAME.legal_moves(pos)} == set(sf.legal_moves(VARIANT, START_FEN, []))


def thinned_start(rng: random.Random, keep: float) -> Position:
    """The start array with each piece but the Kings kept with probability ``keep``."""
    pos = GAME.start()
    for c, p in enumerate(pos.board):
        if p is not None and p.kind != "K" and rng.random() > keep:
            pos.board[c] = None
    rights = "".join(letter for letter, spec in CASTLE.items()
                     if pos.board[cell(spec[2])] is not None)
    fields = GAME.position_text(pos).split()
    fields[2] = rights or "-"
    return GAME.parse_position(" ".join(fields))


def random_games(games: int, plies: int):
    """Positions of seeded random games from the full and from thinned start arrays.

    The moves are chosen at random with a bias toward checks and captures, so that the
    games reach checks, open lines and Kings near the Rivers within few plies."""
    for seed in range(games):
        rng = random.Random(seed)
        pos = GAME.start() if seed % 3 == 0 else thinned_start(rng, 0.35 + 0.1 * (seed % 5))
        for _ in range(plies):
            moves = GAME.legal_moves(pos)
            yield pos, moves
            if not moves:
                break
            pos.push(pick(rng, pos, moves))


def pick(rng: random.Random, pos: Position, moves: list[Move]) -> Move:
    roll = rng.random()
    if roll < 0.3:
        checks = []
        for m in moves:
            pos.push(m, record=False)
            if GAME.in_check(pos):
                checks.append(m)
            pos.pop()
        if checks:
            return rng.choice(checks)
    elif roll < 0.5:
        captures = [m for m in moves if m.captures]
        if captures:
            return rng.choice(captures)
    return rng.choice(moves)


def test_random_play_agrees_with_the_brute_force_reading():
    seen = Counter()
    for pos, moves in random_games(games=24, plies=50):
        assert set(moves) == reference_moves(pos), GAME.position_text(pos)
        assert len(set(moves)) == len(moves)
        seen["positions"] += 1
        seen["check"] += GAME.in_check(pos)
        seen["castle"] += any(m.kind == "castle" for m in moves)
        seen["promotion"] += any(m.promotion for m in moves)
        seen["mate or stalemate"] += not moves
    assert seen["positions"] >= 1000
    assert min(seen["check"], seen["castle"], seen["promotion"]) >= 20, seen


def test_random_play_agrees_with_fairy_stockfish():
    seen = Counter()
    for pos, moves in random_games(games=20, plies=50):
        me, board = pos.turn, pos.board
        if pyffish_disagrees_on_attacks(board, me):
            seen["left to the brute-force oracle"] += 1
            continue
        fen = GAME.position_text(pos)
        ours = {uci(m) for m in moves}
        theirs = set(sf.legal_moves(VARIANT, fen, []))
        assert ours <= theirs, (fen, ours - theirs)
        for text in theirs - ours:
            o, t = cell(text[:2]), cell(text[2:4])
            assert board[o].kind in "BC" and bank_violation(me, o, t), (fen, text)
            seen["pyffish-only bank crossings"] += 1
        seen["compared"] += 1
        seen["check"] += GAME.in_check(pos)
        seen["castle"] += any(m.kind == "castle" for m in moves)
        seen["promotion"] += any(m.promotion for m in moves)
        seen["King/Queen/Gnu on its far bank"] += any(
            p is not None and p.owner == me and p.kind in "KQG" and c // 9 + 1 == (6, 4)[me]
            for c, p in enumerate(board))
        if moves and seen["compared"] % 4 == 0:  # gives_check on a sample: pyffish is slow
            m = moves[seen["compared"] % len(moves)]
            pos.push(m, record=False)
            hidden = pyffish_disagrees_on_attacks(pos.board, 1 - me)
            checks = GAME.in_check(pos)
            pos.pop()
            if not hidden:
                assert sf.gives_check(VARIANT, fen, [uci(m)]) == checks, (fen, uci(m))
                seen["gives_check"] += 1
    assert seen["compared"] >= 700, seen
    assert seen["pyffish-only bank crossings"] >= 50, seen
    assert min(seen["check"], seen["castle"], seen["promotion"],
               seen["King/Queen/Gnu on its far bank"]) >= 10, seen


@pytest.mark.parametrize("kind", ["B", "C"])
@pytest.mark.parametrize("owner", [0, 1])
def test_every_bishop_and_camel_square_against_the_rules_text(kind, owner):
    """Bishop/Camel moves across the far River are the part pyffish cannot check."""
    bank_crossings = 0
    for o in range(81):
        dark = (o % 9 + o // 9) % 2 == 0
        # Kings on the other colour never meet a colour-bound Bishop or Camel.
        kings = {"b1": "K", "h9": "k"} if dark else {"a1": "K", "i9": "k"}
        board: list = [None] * 81
        for c, letter in kings.items():
            board[cell(c)] = Piece(0 if letter.isupper() else 1, "K")
        board[o] = Piece(owner, kind)
        pos = Position(GAME, board, owner)
        fen = GAME.position_text(pos)
        pos = GAME.parse_position(fen)
        expected = {t for t in geometric_targets(kind, o)
                    if river_ok(kind, owner, o // 9 + 1, t // 9 + 1)}
        ours = {m.target for m in GAME.legal_moves(pos) if m.origin == o}
        assert ours == expected, name(o)
        alone = Position(GAME, [None] * 81)
        alone.board[o] = Piece(owner, kind)
        assert {t for t in range(81) if GAME.attacked(alone, t, owner)} == expected, name(o)
        theirs = {cell(u[2:4]) for u in sf.legal_moves(VARIANT, fen, []) if u[:2] == name(o)}
        assert ours <= theirs, name(o)
        assert all(bank_violation(owner, o, t) for t in theirs - ours), name(o)
        bank_crossings += len(theirs - ours)
    assert bank_crossings > 50
