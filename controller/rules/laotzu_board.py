"""Lao Tzu Chess: the board both the referee and the players' views reason about —
bitboards, attack tables built once at import, visibility, Chess960 arrays, castling plans,
the move cache and SAN disambiguation (``controller.rules.laotzu`` is the referee,
``controller.rules.laotzu_view`` what a player may know)."""

from __future__ import annotations

from typing import Any

from controller.rules.core import (
    OFF_BOARD,
    Move,
    Piece,
    RulesError,
)

WHITE, BLACK = 0, 1
KINDS = "PNBRQK"  #: piece kinds in bitboard order: bb[2 + KINDS.index(kind)]
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = range(6)
TYPE = {k: i for i, k in enumerate(KINDS)}
HAND_ORDER = "QRBNP"  #: hand kinds in text order
PROMOTION_KINDS = "QRBN"
CASTLING_RULES = ("chess960", "chess480")
ORTHODOX_ARRAY = 518  #: Scharnagl number of R N B Q K B N R

FULL = (1 << 64) - 1
FILE_NAMES = "abcdefgh"
SQUARE_NAMES = tuple(f + str(r + 1) for r in range(8) for f in FILE_NAMES)
RANK_BB = tuple(0xFF << (8 * r) for r in range(8))
FILE_BB = tuple(0x0101010101010101 << f for f in range(8))
NOT_A = FULL ^ FILE_BB[0]
NOT_H = FULL ^ FILE_BB[7]
BACK_RANK = (RANK_BB[0], RANK_BB[7])
PAWN_FREE_RANKS = RANK_BB[0] | RANK_BB[7]  #: no Pawn may stand or be dropped here

#: pieces are interned: PIECES[owner][type]
PIECES = tuple(tuple(Piece(owner, k) for k in KINDS) for owner in (WHITE, BLACK))


# -- attack tables (built once) ------------------------------------------------------


def _slide(sq: int, occ: int, deltas: tuple[tuple[int, int], ...]) -> int:
    f0, r0 = sq & 7, sq >> 3
    att = 0
    for df, dr in deltas:
        f, r = f0 + df, r0 + dr
        while 0 <= f < 8 and 0 <= r < 8:
            b = 1 << (r * 8 + f)
            att |= b
            if occ & b:
                break
            f += df
            r += dr
    return att


def _leaps(offsets: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    table = []
    for sq in range(64):
        f, r = sq & 7, sq >> 3
        bb = 0
        for df, dr in offsets:
            if 0 <= f + df < 8 and 0 <= r + dr < 8:
                bb |= 1 << ((r + dr) * 8 + f + df)
        table.append(bb)
    return tuple(table)


def _slider_table(deltas: tuple[tuple[int, int], ...]) -> tuple[tuple[int, ...], tuple[dict, ...]]:
    """Per square: the mask of cells that can block, and attacks for every subset of it.

    Built a direction at a time: along one direction the attack reaches up to the nearest
    blocker, so each direction has a few cases (the subsets of its cells grouped by their
    nearest one) and a square's table is their product — the same table as sliding for
    every subset (``tests/test_coldstart.py`` checks it against :func:`_slide`), at a
    fraction of the start-up cost."""
    masks, tables = [], []
    for sq in range(64):
        mask = 0
        table = {0: 0}
        for df, dr in deltas:
            ray = []  # the cells along the direction, nearest first, as bits
            f, r = (sq & 7) + df, (sq >> 3) + dr
            while 0 <= f < 8 and 0 <= r < 8:
                ray.append(1 << (r * 8 + f))
                f += df
                r += dr
            # the direction's blockers -> the attack along it, from the far end inward:
            # a nearer blocker cuts the attack there, whatever lies beyond it
            cases = [(0, sum(ray))]
            for k in range(len(ray) - 2, -1, -1):  # the far end never blocks
                reach = sum(ray[:k + 1])
                cases += [(x | ray[k], reach) for x, _ in cases]
            mask |= sum(ray[:-1])
            table = {sub | s: att | a for sub, att in table.items() for s, a in cases}
        masks.append(mask)
        tables.append(table)
    return tuple(masks), tuple(tables)


KNIGHT_ATT = _leaps(((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)))
KING_ATT = _leaps(((1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)))
#: PAWN_ATT[color][sq]: cells a Pawn of ``color`` on ``sq`` attacks
PAWN_ATT = (_leaps(((-1, 1), (1, 1))), _leaps(((-1, -1), (1, -1))))
DIAG_MASK, DIAG_ATT = _slider_table(((1, 1), (-1, -1), (1, -1), (-1, 1)))
RANK_MASK, RANK_ATT = _slider_table(((1, 0), (-1, 0)))
FILE_MASK, FILE_ATT = _slider_table(((0, 1), (0, -1)))
DIAG0 = tuple(DIAG_ATT[s][0] for s in range(64))
ORTH0 = tuple(RANK_ATT[s][0] | FILE_ATT[s][0] for s in range(64))


def attacks(kind: str, color: int, sq: int, occ: int) -> int:
    """The cells a ``kind`` of ``color`` on ``sq`` attacks when ``occ`` is occupied (a
    Pawn: its two forward diagonals) — for reasoning about pieces one cannot see."""
    if kind == "P":
        return PAWN_ATT[color][sq]
    if kind == "N":
        return KNIGHT_ATT[sq]
    if kind == "K":
        return KING_ATT[sq]
    att = 0
    if kind in "BQ":
        att |= DIAG_ATT[sq][DIAG_MASK[sq] & occ]
    if kind in "RQ":
        att |= RANK_ATT[sq][RANK_MASK[sq] & occ] | FILE_ATT[sq][FILE_MASK[sq] & occ]
    return att


def _between_and_line() -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    between = [[0] * 64 for _ in range(64)]
    line = [[0] * 64 for _ in range(64)]
    dirs = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1))
    for a in range(64):
        for df, dr in dirs:
            full = _slide(a, 0, ((df, dr),)) | _slide(a, 0, ((-df, -dr),)) | (1 << a)
            f, r = (a & 7) + df, (a >> 3) + dr
            passed = 0
            while 0 <= f < 8 and 0 <= r < 8:
                b = r * 8 + f
                between[a][b] = passed
                line[a][b] = full
                passed |= 1 << b
                f += df
                r += dr
    return tuple(map(tuple, between)), tuple(map(tuple, line))


BETWEEN, LINE = _between_and_line()


def _bits(x: int) -> list[int]:
    out = []
    while x:
        b = x & -x
        out.append(b.bit_length() - 1)
        x ^= b
    return out


def _attacked(bb: tuple[int, ...], by: int, by_occ: int, sq: int, occ: int) -> bool:
    """Is ``sq`` attacked by the pieces of colour ``by`` in ``by_occ``, with occupancy ``occ``?"""
    if KNIGHT_ATT[sq] & bb[3] & by_occ or PAWN_ATT[by ^ 1][sq] & bb[2] & by_occ:
        return True
    if KING_ATT[sq] & bb[7] & by_occ:
        return True
    bq = (bb[4] | bb[6]) & by_occ
    if DIAG0[sq] & bq and DIAG_ATT[sq][DIAG_MASK[sq] & occ] & bq:
        return True
    rq = (bb[5] | bb[6]) & by_occ
    return bool(ORTH0[sq] & rq and (
        RANK_ATT[sq][RANK_MASK[sq] & occ] | FILE_ATT[sq][FILE_MASK[sq] & occ]) & rq)


def _checkers(bb: tuple[int, ...], us: int, ksq: int, occ: int) -> int:
    opp = bb[us ^ 1]
    checkers = (KNIGHT_ATT[ksq] & bb[3] | PAWN_ATT[us][ksq] & bb[2]) & opp
    bq = (bb[4] | bb[6]) & opp
    if DIAG0[ksq] & bq:
        checkers |= DIAG_ATT[ksq][DIAG_MASK[ksq] & occ] & bq
    rq = (bb[5] | bb[6]) & opp
    if ORTH0[ksq] & rq:
        checkers |= (RANK_ATT[ksq][RANK_MASK[ksq] & occ] | FILE_ATT[ksq][FILE_MASK[ksq] & occ]) & rq
    return checkers


def destinations(bb: tuple[int, ...], player: int, ep: int | None) -> int:
    """Cells ``player``'s pieces could move to, pseudo-legally (the visibility rule §3.2).

    Pawns: forward steps onto empty cells (two from the start rank), diagonals only onto
    enemy pieces, and the en passant target ``ep`` when given and attacked by a Pawn.
    Other pieces: every cell they attack that no own piece occupies.  Castling adds nothing.
    """
    own = bb[player]
    opp = bb[player ^ 1]
    occ = own | opp
    free = FULL ^ occ
    pawns = bb[2] & own
    if player == WHITE:
        one = (pawns << 8) & free
        dest = one | ((one & RANK_BB[2]) << 8) & free
        dest |= (((pawns & NOT_A) << 7) | ((pawns & NOT_H) << 9)) & opp
    else:
        one = (pawns >> 8) & free
        dest = one | ((one & RANK_BB[5]) >> 8) & free
        dest |= (((pawns & NOT_A) >> 9) | ((pawns & NOT_H) >> 7)) & opp
    if ep is not None and PAWN_ATT[player ^ 1][ep] & pawns:
        dest |= 1 << ep
    att = 0
    x = bb[3] & own
    while x:
        b = x & -x
        x ^= b
        att |= KNIGHT_ATT[b.bit_length() - 1]
    x = (bb[4] | bb[6]) & own
    while x:
        b = x & -x
        x ^= b
        s = b.bit_length() - 1
        att |= DIAG_ATT[s][DIAG_MASK[s] & occ]
    x = (bb[5] | bb[6]) & own
    while x:
        b = x & -x
        x ^= b
        s = b.bit_length() - 1
        att |= RANK_ATT[s][RANK_MASK[s] & occ] | FILE_ATT[s][FILE_MASK[s] & occ]
    x = bb[7] & own
    if x:
        att |= KING_ATT[x.bit_length() - 1]
    return dest | (att & ~own)


def visible_bb(bb: tuple[int, ...], player: int, ep: int | None) -> int:
    """Everything ``player`` sees: own cells, destinations, and a Pawn he may take en passant."""
    vis = bb[player] | destinations(bb, player, ep)
    if ep is not None and PAWN_ATT[player ^ 1][ep] & bb[2] & bb[player]:
        vis |= 1 << (ep - 8 if player == WHITE else ep + 8)
    return vis


# -- Chess960 arrays -----------------------------------------------------------------

_KNIGHT_PAIRS = ((0, 1), (0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4))


def chess960_array(number: int) -> str:
    """Back rank (files a–h) of Chess960 array ``number``, Scharnagl numbering (518 = RNBQKBNR)."""
    if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < 960:
        raise RulesError(f"laotzu: a Chess960 array number is 0..959, got {number!r}")
    rank: list[str] = [""] * 8
    n, light = divmod(number, 4)
    n, dark = divmod(n, 4)
    n, queen = divmod(n, 6)
    rank[2 * light + 1] = "B"
    rank[2 * dark] = "B"

    def free() -> list[int]:
        return [i for i in range(8) if not rank[i]]

    rank[free()[queen]] = "Q"
    spots = free()
    for k in _KNIGHT_PAIRS[n]:
        rank[spots[k]] = "N"
    for f, kind in zip(free(), "RKR", strict=True):
        rank[f] = kind
    return "".join(rank)


# -- move cache: moves are immutable values, so identical moves are built once ---------

_MOVE_CACHE: list[Move | None] = [None] * (12 * 64 * 64 * 2)
_SPECIAL_CACHE: dict[tuple, Move] = {}


def _plain_move(pidx: int, origin: int, target: int, capture: int) -> Move:
    m = Move("move", origin, target, PIECES[pidx // 6][pidx % 6],
             captures=(target,) if capture else ())
    _MOVE_CACHE[(((pidx << 6) | origin) << 7) | (target << 1) | capture] = m
    return m


def _special(key: tuple, build: Any) -> Move:
    m = _SPECIAL_CACHE.get(key)
    if m is None:
        m = _SPECIAL_CACHE[key] = build()
    return m


def _promotions(us: int, origin: int, target: int, capture: bool) -> list[Move]:
    return [
        _special(("promo", us, origin, target, kind, capture), lambda kind=kind: Move(
            "move", origin, target, PIECES[us][TYPE[kind]],
            captures=(target,) if capture else (), promotion=kind))
        for kind in PROMOTION_KINDS
    ]


def _drop_move(us: int, kind: int, target: int) -> Move:
    return _special(("drop", us, kind, target),
                    lambda: Move("drop", OFF_BOARD, target, PIECES[us][kind]))


def castling_plan(rule: str, us: int, ksq: int, rook: int) -> tuple[int, int, int]:
    """Where King and Rook go when ``us`` castles with ``rook``: (king_to, rook_to, crossed).

    ``crossed`` is the bitboard of cells the King passes over (start and end excluded).
    Chess960: King to the c/g file, Rook to d/f.  Chess480 (orthodox castling): the King
    goes two cells toward the Rook, the Rook to the cell the King crossed; King and Rook
    side by side in the corner swap.
    """
    back = 0 if us == WHITE else 56
    if rule == "chess960":
        a_side = rook < ksq
        king_to = back + (2 if a_side else 6)
        return king_to, back + (3 if a_side else 5), BETWEEN[ksq][king_to]
    step = 1 if rook > ksq else -1
    if abs(rook - ksq) >= 2:
        return ksq + 2 * step, ksq + step, 1 << (ksq + step)
    if 0 <= (ksq & 7) + 2 * step < 8:  # side by side, not in the corner: King jumps the Rook
        return ksq + 2 * step, rook, 1 << rook
    return rook, ksq, 0  # side by side in the corner: King and Rook swap



# -- notation and bitboards shared by the referee and the players' views --------------


def _piece_san(mover: Piece, move: Move, target: str, others: list[int]) -> str:
    """SAN of a piece move; ``others`` are the cells of like pieces reaching the same target
    (file first, then rank, then the whole square tells them apart)."""
    prefix = ""
    if others:
        if all((o & 7) != (move.origin & 7) for o in others):
            prefix = FILE_NAMES[move.origin & 7]
        elif all((o >> 3) != (move.origin >> 3) for o in others):
            prefix = str((move.origin >> 3) + 1)
        else:
            prefix = SQUARE_NAMES[move.origin]
    return f"{mover.kind}{prefix}{'x' if move.captures else ''}{target}"


def _hand_text(hand: dict[str, int], owner: int) -> str:
    text = "".join(k * hand.get(k, 0) for k in HAND_ORDER)
    return text if owner == WHITE else text.lower()


def _bitboards(board: list[Piece | None]) -> tuple[int, ...]:
    bb = [0] * 8
    for sq, p in enumerate(board):
        if p is not None:
            b = 1 << sq
            bb[p.owner] |= b
            bb[2 + TYPE[p.kind]] |= b
    return tuple(bb)


def _king_square(board: list[Piece | None], owner: int) -> int:
    return next(sq for sq, p in enumerate(board) if p == PIECES[owner][KING])
