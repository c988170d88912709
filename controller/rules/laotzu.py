"""Lao Tzu Chess: fog-of-war chess with Crazyhouse drops and independent Chess960 arrays.

Rules: ``/work/shared/rules/laotzu.md`` with ``DECISIONS.md``; formats in ``docs/laotzu.md``.

The referee (this module) knows the true position.  Players only ever learn what
:func:`view` returns: their own pieces, the cells their pieces could move to
(pseudo-legal moves, pins ignored; castling adds nothing; an en passant target counts
for the side that may take it), the enemy pieces on those cells, both hands, whether the
side to move is in check, and the result.

Speed: move generation works on Python-int bitboards with attack tables built once at
import, and uses check and pin masks instead of make/undo per move.  The bitboards are a
cache of ``pos.board`` kept in ``pos.state["bb"]``; ``make`` updates them through
``set_state`` so ``push``/``pop`` keep board and bitboards in step.  Positions must
therefore be changed only through ``push``/``pop`` (or rebuilt with ``parse_position``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from controller.rules.core import (
    OFF_BOARD,
    Game,
    GameOption,
    IllegalMoveError,
    Move,
    Outcome,
    PadNeed,
    Piece,
    Position,
    PositionError,
    RulesError,
    Termination,
    move_from_cells,
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
    """Per square: the mask of cells that can block, and attacks for every subset of it."""
    masks, tables = [], []
    for sq in range(64):
        mask = 0
        for d in deltas:
            ray = _slide(sq, 0, (d,))
            end = 0
            f, r = (sq & 7) + d[0], (sq >> 3) + d[1]
            while 0 <= f < 8 and 0 <= r < 8:  # find the ray's far end: it never blocks
                end = 1 << (r * 8 + f)
                f += d[0]
                r += d[1]
            mask |= ray & ~end
        table: dict[int, int] = {}
        sub = 0
        while True:
            table[sub] = _slide(sq, sub, deltas)
            sub = (sub - mask) & mask
            if not sub:
                break
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


# -- the game ------------------------------------------------------------------------


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


class LaoTzu(Game):
    """Lao Tzu Chess (John Kipling Lewis, 2008): fog of war, drops, two Chess960 arrays.

    Options: ``white_array``/``black_array`` (Scharnagl numbers 0–959, default 518) or
    ``seed`` (both drawn at random from that seed); ``castling`` = ``chess960`` (default)
    or ``chess480`` (Lewis's orthodox castling).  The arrays actually used are in
    ``self.white_array``/``self.black_array`` and in ``self.options``, so a game record
    that stores the options replays the same set-up.
    """

    piece_names = {"K": "King", "Q": "Queen", "R": "Rook", "B": "Bishop", "N": "Knight",
                   "P": "Pawn"}

    name = "laotzu"
    title = "Lao Tzu Chess"
    shape = "square8"
    pads = tuple(PadNeed("hand", p, k) for p in (WHITE, BLACK) for k in "PNBRQ")
    option_specs = (
        GameOption("white_array", int, None, "White's Chess960 array (Scharnagl number; "
                   "518 = the orthodox array)", low=0, high=959, nullable=True),
        GameOption("black_array", int, None, "Black's Chess960 array (Scharnagl number)",
                   low=0, high=959, nullable=True),
        GameOption("seed", str, None, "draw both arrays at random from this seed",
                   nullable=True, accepts_int=True),
        GameOption("castling", str, "chess960", "castling rule",
                   choices=tuple(CASTLING_RULES)),
    )
    hidden_information = True
    #: the arrays show the hidden back ranks
    hidden_options = frozenset({"white_array", "black_array", "seed"})

    def __init__(
        self,
        *,
        white_array: int | None = None,
        black_array: int | None = None,
        seed: int | str | None = None,
        castling: str = "chess960",
        **options: Any,
    ):
        super().__init__(**options)
        if castling not in CASTLING_RULES:
            raise RulesError(f"laotzu: castling must be one of {', '.join(CASTLING_RULES)}, "
                             f"got {castling!r}")
        if seed is not None:
            if white_array is not None or black_array is not None:
                raise RulesError("laotzu: give either seed or white_array/black_array, not both")
            rng = random.Random(seed)
            white_array, black_array = rng.randrange(960), rng.randrange(960)
        self.white_array = ORTHODOX_ARRAY if white_array is None else white_array
        self.black_array = ORTHODOX_ARRAY if black_array is None else black_array
        self.arrays = (chess960_array(self.white_array), chess960_array(self.black_array))
        self.castling = castling
        self.seed = seed
        self.options = {"white_array": self.white_array, "black_array": self.black_array,
                        "castling": castling}
        if seed is not None:
            self.options["seed"] = seed

    # -- set-up ------------------------------------------------------------------------
    def start(self) -> Position:
        white, black = self.arrays
        rows = [black.lower(), "pppppppp", "8", "8", "8", "8", "PPPPPPPP", white]
        rights = "".join(FILE_NAMES[f].upper() for f in range(7, -1, -1) if white[f] == "R")
        rights += "".join(FILE_NAMES[f] for f in range(7, -1, -1) if black[f] == "R")
        return self.parse_position("/".join(rows) + f"[] w {rights} - 0 1")

    # -- move generation ---------------------------------------------------------------
    def legal_moves(self, pos: Position) -> list[Move]:
        """All legal moves: piece moves, castling, and drops on empty visible cells."""
        state = pos.state
        bb = state["bb"]
        us = pos.turn
        them = us ^ 1
        own = bb[us]
        opp = bb[them]
        occ = own | opp
        pawns, knights, bishops, rooks, queens, kings = bb[2:8]
        ksq = (kings & own).bit_length() - 1
        cache = _MOVE_CACHE
        moves: list[Move] = []
        add = moves.append

        bq = (bishops | queens) & opp
        rq = (rooks | queens) & opp
        checkers = (KNIGHT_ATT[ksq] & knights | PAWN_ATT[us][ksq] & pawns) & opp
        if DIAG0[ksq] & bq:
            checkers |= DIAG_ATT[ksq][DIAG_MASK[ksq] & occ] & bq
        if ORTH0[ksq] & rq:
            checkers |= (RANK_ATT[ksq][RANK_MASK[ksq] & occ]
                         | FILE_ATT[ksq][FILE_MASK[ksq] & occ]) & rq

        # King steps: the target must not be attacked once the King has left its cell.
        base = ((us * 6 + KING) * 64 + ksq) << 7
        occ_k = occ ^ (1 << ksq)
        x = KING_ATT[ksq] & ~own
        while x:
            b = x & -x
            x ^= b
            t = b.bit_length() - 1
            if _attacked(bb, them, opp, t, occ_k):
                continue
            cap = 1 if b & opp else 0
            m = cache[base | (t << 1) | cap]
            add(m if m is not None else _plain_move(us * 6 + KING, ksq, t, cap))

        if checkers & (checkers - 1):  # double check: only the King may move
            return moves
        if checkers:
            c = checkers.bit_length() - 1
            drop_mask = BETWEEN[ksq][c]
            mask = drop_mask | checkers
        else:
            drop_mask = mask = FULL

        pinned = 0
        snipers = ORTH0[ksq] & rq | DIAG0[ksq] & bq
        while snipers:
            b = snipers & -snipers
            snipers ^= b
            between = BETWEEN[ksq][b.bit_length() - 1] & occ
            if between and not between & (between - 1) and between & own:
                pinned |= between

        tmask = mask & ~own
        line = LINE[ksq]
        jobs = []
        x = knights & own & ~pinned
        kbase = (us * 6 + KNIGHT) * 64
        while x:
            b = x & -x
            x ^= b
            s = b.bit_length() - 1
            jobs.append(((kbase + s) << 7, KNIGHT_ATT[s] & tmask))
        for ptype, sliders in ((BISHOP, bishops), (ROOK, rooks), (QUEEN, queens)):
            x = sliders & own
            pbase = (us * 6 + ptype) * 64
            while x:
                b = x & -x
                x ^= b
                s = b.bit_length() - 1
                if ptype == BISHOP:
                    att = DIAG_ATT[s][DIAG_MASK[s] & occ]
                elif ptype == ROOK:
                    att = RANK_ATT[s][RANK_MASK[s] & occ] | FILE_ATT[s][FILE_MASK[s] & occ]
                else:
                    att = (DIAG_ATT[s][DIAG_MASK[s] & occ] | RANK_ATT[s][RANK_MASK[s] & occ]
                           | FILE_ATT[s][FILE_MASK[s] & occ])
                att &= tmask
                if b & pinned:
                    att &= line[s]
                if att:
                    jobs.append(((pbase + s) << 7, att))
        for base, x in jobs:
            while x:
                b = x & -x
                x ^= b
                t = b.bit_length() - 1
                cap = 1 if b & opp else 0
                m = cache[base | (t << 1) | cap]
                if m is None:
                    key = base >> 7
                    m = _plain_move(key // 64, key % 64, t, cap)
                add(m)

        # Pawns: steps, double steps, captures, promotions.
        own_pawns = pawns & own
        free = FULL ^ occ
        if us == WHITE:
            one = (own_pawns << 8) & free
            two = ((one & RANK_BB[2]) << 8) & free & mask
            groups = ((one & mask, 8, 0), (two, 16, 0),
                      (((own_pawns & NOT_A) << 7) & opp & mask, 7, 1),
                      (((own_pawns & NOT_H) << 9) & opp & mask, 9, 1))
        else:
            one = (own_pawns >> 8) & free
            two = ((one & RANK_BB[5]) >> 8) & free & mask
            groups = ((one & mask, -8, 0), (two, -16, 0),
                      (((own_pawns & NOT_A) >> 9) & opp & mask, -9, 1),
                      (((own_pawns & NOT_H) >> 7) & opp & mask, -7, 1))
        pbase = (us * 6 + PAWN) * 64
        for x, delta, cap in groups:
            while x:
                b = x & -x
                x ^= b
                t = b.bit_length() - 1
                o = t - delta
                if pinned >> o & 1 and not line[o] >> t & 1:
                    continue
                if b & PAWN_FREE_RANKS:
                    moves.extend(_promotions(us, o, t, bool(cap)))
                    continue
                m = cache[((pbase + o) << 7) | (t << 1) | cap]
                add(m if m is not None else _plain_move(us * 6 + PAWN, o, t, cap))

        ep = state.get("ep")
        if ep is not None:
            for o in _bits(PAWN_ATT[them][ep] & own_pawns):
                m = self._en_passant(bb, us, o, ep, ksq, occ)
                if m is not None:
                    add(m)

        if not checkers and state["castling"] & BACK_RANK[us]:
            moves.extend(self._castling_moves(bb, us, ksq, state["castling"]))

        hand = pos.hands[us]
        if hand:
            targets = destinations(bb, us, ep) & free & drop_mask
            if targets:
                for kind in HAND_ORDER:
                    if hand.get(kind):
                        kt = TYPE[kind]
                        for t in _bits(targets & ~PAWN_FREE_RANKS if kt == PAWN else targets):
                            add(_drop_move(us, kt, t))
        return moves

    @staticmethod
    def _en_passant(bb: tuple[int, ...], us: int, o: int, ep: int, ksq: int,
                    occ: int) -> Move | None:
        """The en passant capture from ``o`` if it leaves the King safe (full test: rare)."""
        victim = ep - 8 if us == WHITE else ep + 8
        after = occ ^ (1 << o) ^ (1 << victim) ^ (1 << ep)
        if _attacked(bb, us ^ 1, bb[us ^ 1] ^ (1 << victim), ksq, after):
            return None
        return _special(("ep", us, o, ep), lambda: Move(
            "move", o, ep, PIECES[us][PAWN], captures=(victim,)))

    def _castling_moves(self, bb: tuple[int, ...], us: int, ksq: int, rights: int) -> list[Move]:
        out = []
        own = bb[us]
        occ = own | bb[us ^ 1]
        kbit = 1 << ksq
        for rook in _bits(rights & BACK_RANK[us] & own & bb[5]):
            rbit = 1 << rook
            king_to, rook_to, crossed = castling_plan(self.castling, us, ksq, rook)
            empty_needed = (BETWEEN[ksq][rook] | BETWEEN[ksq][king_to] | BETWEEN[rook][rook_to]
                            | (1 << king_to) | (1 << rook_to)) & ~(kbit | rbit)
            if occ & empty_needed:
                continue
            opp = bb[us ^ 1]
            if any(_attacked(bb, us ^ 1, opp, s, occ ^ kbit) for s in _bits(crossed)):
                continue
            final = occ ^ kbit ^ rbit | (1 << king_to) | (1 << rook_to)
            if _attacked(bb, us ^ 1, opp, king_to, final):
                continue
            also = ((rook, rook_to),) if rook != rook_to else ()
            key = ("castle", us, ksq, rook, king_to, rook_to)
            out.append(_special(key, lambda k=king_to, a=also: Move(
                "castle", ksq, k, PIECES[us][KING], also=a)))
        return out

    # -- making moves ------------------------------------------------------------------
    def make(self, pos: Position, move: Move) -> None:
        us = pos.turn
        them = us ^ 1
        state = pos.state
        bb = list(state["bb"])
        board = pos.board
        put = pos.put
        t = move.target
        tbit = 1 << t
        promoted = old_promoted = state["promoted"]
        castling = old_castling = state["castling"]
        new_ep = None
        zeroing = False
        kind = move.kind
        if kind == "move":
            o = move.origin
            obit = 1 << o
            mover = board[o]
            mtype = TYPE[mover.kind]
            for c in move.captures:
                victim = board[c]
                cbit = 1 << c
                if c != t:
                    put(c, None)
                bb[them] ^= cbit
                bb[2 + TYPE[victim.kind]] ^= cbit
                if promoted & cbit:
                    promoted ^= cbit
                    pos.add_hand(us, "P")
                else:
                    pos.add_hand(us, victim.kind)
                castling &= ~cbit
                zeroing = True
            put(o, None)
            put(t, move.piece)
            bb[us] ^= obit | tbit
            bb[2 + mtype] ^= obit
            bb[2 + TYPE[move.piece.kind]] |= tbit
            if promoted & obit:
                promoted ^= obit | tbit
            if move.promotion:
                promoted |= tbit
            if mtype == PAWN:
                zeroing = True
                if t - o in (16, -16):
                    ep = (o + t) >> 1
                    if PAWN_ATT[us][ep] & bb[2] & bb[them]:
                        new_ep = ep
            elif mtype == KING:
                castling &= ~BACK_RANK[us]
            else:
                castling &= ~obit
        elif kind == "drop":
            p = move.piece
            put(t, p)
            pos.add_hand(us, p.kind, -1)
            bb[us] |= tbit
            bb[2 + TYPE[p.kind]] |= tbit
            zeroing = True  # a drop is irreversible, like a Pawn move (as Fairy-Stockfish)
        elif kind == "castle":
            o = move.origin
            rook_from, rook_to = move.also[0] if move.also else self._resting_rook(move)
            king, rook = board[o], board[rook_from]
            put(o, None)
            put(rook_from, None)
            put(t, king)
            put(rook_to, rook)
            gone = (1 << o) | (1 << rook_from)
            bb[us] = bb[us] & ~gone | tbit | (1 << rook_to)
            bb[7] = bb[7] & ~(1 << o) | tbit
            bb[5] = bb[5] & ~(1 << rook_from) | (1 << rook_to)
            castling &= ~BACK_RANK[us]
        else:
            raise IllegalMoveError(f"laotzu: no move of kind {kind!r}")
        pos.set_state("bb", tuple(bb))
        if promoted != old_promoted:
            pos.set_state("promoted", promoted)
        if castling != old_castling:
            pos.set_state("castling", castling)
        if state.get("ep") != new_ep:
            pos.set_state("ep", new_ep)
        pos.halfmove = 0 if zeroing else pos.halfmove + 1
        if us == BLACK:
            pos.fullmove += 1
        pos.turn = them

    def _resting_rook(self, move: Move) -> tuple[int, int]:
        """The Rook of a castling move whose Rook stays where it is (``also`` is empty)."""
        step = 1 if move.target > move.origin else -1
        if self.castling == "chess480":
            cell = move.origin + step
        else:
            cell = (move.origin & 56) + (5 if step > 0 else 3)
        return cell, cell

    def castling_rook(self, move: Move) -> int:
        """The cell of the Rook a castling move castles with."""
        return move.also[0][0] if move.also else self._resting_rook(move)[0]

    # -- check and game end ------------------------------------------------------------
    def in_check(self, pos: Position, player: int | None = None) -> bool:
        player = pos.turn if player is None else player
        bb = pos.state["bb"]
        ksq = (bb[7] & bb[player]).bit_length() - 1
        return ksq >= 0 and _attacked(bb, player ^ 1, bb[player ^ 1], ksq, bb[0] | bb[1])

    def special_outcome(self, pos: Position) -> Outcome | None:
        """Dead material (after checkmate and stalemate, before the 50-move rule)."""
        if self.insufficient_material(pos):
            return self.ended((), Termination.INSUFFICIENT_MATERIAL)
        return None

    @staticmethod
    def insufficient_material(pos: Position) -> bool:
        """Only the Kings and at most one Bishop or Knight are left on the board and in hands.

        Captures only move material into hands, so this never happens in a game from the
        start; it covers composed positions, where no sequence of moves can mate.
        """
        bb = pos.state["bb"]
        minors = (bb[3] | bb[4]).bit_count()
        if bb[2] | bb[5] | bb[6] or minors > 1:
            return False
        in_hand = [(k, n) for hand in pos.hands for k, n in hand.items() if n]
        if any(k not in "BN" for k, _ in in_hand):
            return False
        return minors + sum(n for _, n in in_hand) <= 1

    def position_key(self, pos: Position) -> Any:
        state = pos.state
        ep = state.get("ep")
        if ep is not None and not self._has_legal_en_passant(pos):
            ep = None
        return (state["bb"], pos.turn, state["castling"], ep, state["promoted"],
                tuple(tuple(sorted(h.items())) for h in pos.hands))

    def _has_legal_en_passant(self, pos: Position) -> bool:
        bb = pos.state["bb"]
        us, ep = pos.turn, pos.state["ep"]
        ksq = (bb[7] & bb[us]).bit_length() - 1
        occ = bb[0] | bb[1]
        return any(self._en_passant(bb, us, o, ep, ksq, occ) is not None
                   for o in _bits(PAWN_ATT[us ^ 1][ep] & bb[2] & bb[us]))

    # -- position text -----------------------------------------------------------------
    def position_text(self, pos: Position) -> str:
        """X-FEN, Crazyhouse hands ``[...]``, ``~`` after promoted pieces, Shredder castling."""
        promoted = pos.state["promoted"]
        rows = []
        for rank in range(7, -1, -1):
            row, empty = [], 0
            for f in range(8):
                sq = rank * 8 + f
                p = pos.board[sq]
                if p is None:
                    empty += 1
                    continue
                if empty:
                    row.append(str(empty))
                    empty = 0
                row.append((p.kind if p.owner == WHITE else p.kind.lower())
                           + ("~" if promoted >> sq & 1 else ""))
            if empty:
                row.append(str(empty))
            rows.append("".join(row))
        hands = "".join(k * pos.hands[WHITE].get(k, 0) for k in HAND_ORDER)
        hands += "".join(k.lower() * pos.hands[BLACK].get(k, 0) for k in HAND_ORDER)
        rights = pos.state["castling"]
        castle = "".join(FILE_NAMES[s & 7].upper() for s in reversed(_bits(rights & RANK_BB[0])))
        castle += "".join(FILE_NAMES[s & 7] for s in reversed(_bits(rights & RANK_BB[7])))
        ep = pos.state.get("ep")
        return (f"{'/'.join(rows)}[{hands}] {'wb'[pos.turn]} {castle or '-'} "
                f"{SQUARE_NAMES[ep] if ep is not None else '-'} {pos.halfmove} {pos.fullmove}")

    def parse_position(self, text: str) -> Position:
        fields = text.split()
        if not 4 <= len(fields) <= 6:
            raise PositionError(f"laotzu: expected 'board[hands] turn castling ep halfmove "
                                f"fullmove', got {text!r}")
        placement = fields[0]
        hand_text = ""
        if "[" in placement:
            if not placement.endswith("]"):
                raise PositionError(f"laotzu: hands must be written '[...]' after the board: "
                                    f"{placement!r}")
            placement, hand_text = placement[:-1].split("[", 1)
        pos = Position(self)
        promoted = self._parse_board(pos, placement)
        for ch in hand_text:
            if ch.upper() not in HAND_ORDER:
                raise PositionError(f"laotzu: {ch!r} cannot be in a hand (Q R B N P only)")
            owner = WHITE if ch.isupper() else BLACK
            pos.hands[owner][ch.upper()] = pos.hands[owner].get(ch.upper(), 0) + 1
        if fields[1] not in ("w", "b"):
            raise PositionError(f"laotzu: side to move must be 'w' or 'b', got {fields[1]!r}")
        pos.turn = WHITE if fields[1] == "w" else BLACK
        bb = _bitboards(pos.board)
        pos.state["bb"] = bb
        pos.state["promoted"] = promoted
        pos.state["castling"] = self._parse_castling(pos.board, promoted, fields[2])
        ep = self._parse_ep(bb, pos.turn, fields[3])
        if ep is not None:
            pos.state["ep"] = ep
        try:
            pos.halfmove = int(fields[4]) if len(fields) > 4 else 0
            pos.fullmove = int(fields[5]) if len(fields) > 5 else 1
        except ValueError:
            raise PositionError(f"laotzu: move counters must be numbers in {text!r}") from None
        if pos.halfmove < 0 or pos.fullmove < 1:
            raise PositionError(f"laotzu: bad move counters {pos.halfmove} {pos.fullmove}")
        if self.in_check(pos, pos.turn ^ 1):
            raise PositionError(f"laotzu: the side not to move is in check in {text!r}")
        pos.keys = [self.position_key(pos)]
        return pos

    def _parse_board(self, pos: Position, placement: str) -> int:
        rows = placement.split("/")
        if len(rows) != 8:
            raise PositionError(f"laotzu: expected 8 ranks, got {len(rows)} in {placement!r}")
        promoted = 0
        kings = [0, 0]
        for row_no, row in enumerate(rows):
            rank = 7 - row_no
            f = 0
            i = 0
            while i < len(row):
                ch = row[i]
                i += 1
                if ch.isdigit():
                    f += int(ch)
                    continue
                if ch.upper() not in KINDS:
                    raise PositionError(f"laotzu: unknown piece {ch!r} on rank {rank + 1}")
                if f >= 8:
                    raise PositionError(f"laotzu: rank {rank + 1} has more than 8 files: {row!r}")
                sq = rank * 8 + f
                piece = PIECES[WHITE if ch.isupper() else BLACK][TYPE[ch.upper()]]
                if i < len(row) and row[i] == "~":
                    i += 1
                    if piece.kind in "PK":
                        raise PositionError(f"laotzu: a {piece.kind} cannot be promoted "
                                            f"({SQUARE_NAMES[sq]})")
                    promoted |= 1 << sq
                if piece.kind == "P" and rank in (0, 7):
                    raise PositionError(f"laotzu: Pawn on {SQUARE_NAMES[sq]} (rank 1 or 8)")
                if piece.kind == "K":
                    kings[piece.owner] += 1
                pos.board[sq] = piece
                f += 1
            if f != 8:
                raise PositionError(f"laotzu: rank {rank + 1} has {f} files instead of 8: {row!r}")
        for owner, n in enumerate(kings):
            if n != 1:
                raise PositionError(f"laotzu: {self.player_names[owner]} must have exactly one "
                                    f"King, has {n}")
        return promoted

    def _parse_castling(self, board: list[Piece | None], promoted: int, text: str) -> int:
        if text == "-":
            return 0
        rights = 0
        for ch in text:
            owner = WHITE if ch.isupper() else BLACK
            rank = 0 if owner == WHITE else 7
            king = next((f for f in range(8) if board[rank * 8 + f] == PIECES[owner][KING]), None)
            if king is None or promoted >> (rank * 8 + king) & 1:
                raise PositionError(f"laotzu: castling right {ch!r} without a King on "
                                    f"{self.player_names[owner]}'s back rank")
            rook_files = [f for f in range(8) if board[rank * 8 + f] == PIECES[owner][ROOK]
                          and not promoted >> (rank * 8 + f) & 1]
            low = ch.lower()
            if low == "k":
                outer = [f for f in rook_files if f > king]
                file = outer[-1] if outer else -1
            elif low == "q":
                outer = [f for f in rook_files if f < king]
                file = outer[0] if outer else -1
            elif low in FILE_NAMES:
                file = FILE_NAMES.index(low)
            else:
                raise PositionError(f"laotzu: bad castling letter {ch!r}")
            if file not in rook_files:
                raise PositionError(f"laotzu: castling right {ch!r} without an unpromoted Rook "
                                    f"of {self.player_names[owner]} on its back rank")
            if file == king:
                raise PositionError(f"laotzu: castling right {ch!r} on the King's file")
            rights |= 1 << (rank * 8 + file)
        for owner in (WHITE, BLACK):
            mine = rights & BACK_RANK[owner]
            king = _king_square(board, owner) & 7
            sides = [s & 7 > king for s in _bits(mine)]
            if sides.count(True) > 1 or sides.count(False) > 1:
                raise PositionError(f"laotzu: {self.player_names[owner]} has two castling rights "
                                    f"on one side of the King in {text!r}")
        return rights

    @staticmethod
    def _parse_ep(bb: tuple[int, ...], turn: int, text: str) -> int | None:
        """The en passant target, kept only when a Pawn of the side to move can take there."""
        if text == "-":
            return None
        if text not in SQUARE_NAMES:
            raise PositionError(f"laotzu: bad en passant square {text!r}")
        ep = SQUARE_NAMES.index(text)
        rank = ep >> 3
        pushed, start = (ep - 8, ep + 8) if turn == WHITE else (ep + 8, ep - 8)
        occ = bb[0] | bb[1]
        if (rank != (5 if turn == WHITE else 2) or occ >> ep & 1 or occ >> start & 1
                or not (bb[2] & bb[turn ^ 1]) >> pushed & 1):
            raise PositionError(f"laotzu: {text} cannot be an en passant square here")
        return ep if PAWN_ATT[turn ^ 1][ep] & bb[2] & bb[turn] else None

    # -- notation ----------------------------------------------------------------------
    def move_text(self, pos: Position, move: Move) -> str:
        """SAN: ``Nf3``, ``exd5``, ``e8=Q``, ``O-O``, ``N@e4``, with ``+``/``#``."""
        text = self._san(pos, move)
        pos.push(move, record=False)
        try:
            if self.in_check(pos):
                text += "#" if not self.legal_moves(pos) else "+"
        finally:
            pos.pop()
        return text

    def _san(self, pos: Position, move: Move) -> str:
        if move.kind == "drop":
            return f"{move.piece.kind}@{SQUARE_NAMES[move.target]}"
        if move.kind == "castle":
            return "O-O" if self.castling_rook(move) > move.origin else "O-O-O"
        mover = pos.board[move.origin]
        target = SQUARE_NAMES[move.target]
        if mover.kind == "P":
            text = (f"{FILE_NAMES[move.origin & 7]}x{target}" if move.captures else target)
            return text + (f"={move.promotion}" if move.promotion else "")
        others = [m.origin for m in self.legal_moves(pos)
                  if m.kind == "move" and m.target == move.target and m.origin != move.origin
                  and pos.board[m.origin] == mover]
        return _piece_san(mover, move, target, others)

    def long_move_text(self, pos: Position, move: Move) -> str:
        """UCI-like: ``g1f3``, ``e7e8q``, ``N@e4``; castling as King cell + Rook cell."""
        if move.kind == "drop":
            return f"{move.piece.kind}@{SQUARE_NAMES[move.target]}"
        if move.kind == "castle":
            return SQUARE_NAMES[move.origin] + SQUARE_NAMES[self.castling_rook(move)]
        return (SQUARE_NAMES[move.origin] + SQUARE_NAMES[move.target]
                + move.promotion.lower())

    def parse_move(self, pos: Position, text: str) -> Move:
        """The legal move written ``text`` (SAN with or without ``+``/``#``, or long form).

        Pawn drops may be written ``@e4`` as well as ``P@e4``.  The error names only the
        text, never the position: in Lao Tzu the position is secret.
        """
        want = text.strip().rstrip("+#!?").replace("0", "O")
        if want.startswith("@"):  # python-chess writes Pawn drops without the letter
            want = "P" + want
        legal = self.legal_moves(pos)
        for move in legal:
            if self._san(pos, move) == want or self.long_move_text(pos, move) == text.strip():
                return move
        found = move_from_cells(self, pos, legal, text)
        if found is not None:
            return found
        raise IllegalMoveError(f"illegal move {text.strip()!r}")

    # -- display -----------------------------------------------------------------------
    def render_text(self, pos: Position) -> str:
        """The referee's diagram (the true position; never show it to a player)."""
        promoted = pos.state["promoted"]
        lines = []
        for rank in range(7, -1, -1):
            cells = []
            for f in range(8):
                sq = rank * 8 + f
                p = pos.board[sq]
                sym = "." if p is None else (p.kind if p.owner == WHITE else p.kind.lower())
                cells.append(f"{sym}{'~' if promoted >> sq & 1 else ' '}")
            lines.append((f"{rank + 1} " + " ".join(cells)).rstrip())
        lines.append("  " + "  ".join(FILE_NAMES))
        lines.append(f"hands: {_hand_text(pos.hands[WHITE], WHITE) or '-'} | "
                     f"{_hand_text(pos.hands[BLACK], BLACK) or '-'}")
        return "\n".join(lines)

    def view_text(self, pos: Position, player: int) -> str:
        return view_text(pos, player)

    # -- hooks of the board (controller/board.py) and the page: hidden information -------
    def player_view(self, pos: Position, player: int) -> PlayerView:
        """What ``player`` may know: the board and the page show nothing else."""
        return view(pos, player)

    def board_moves(self, pos: Position) -> list[Move]:
        """The moves the side to move may try on the board: every move he cannot know to
        be illegal (:func:`view_moves`); the board refuses the illegal ones."""
        return view_moves(view(pos, pos.turn))

    def player_move_text(self, pos: Position, move: Move) -> str:
        """The move as its player sees it in his move list: SAN from his view, with the
        ``+``/``#`` that is announced to both players once it is made."""
        text = view_move_text(view(pos, pos.turn), move)
        pos.push(move, record=False)
        try:
            if self.in_check(pos):
                text += "#" if not self.legal_moves(pos) else "+"
        finally:
            pos.pop()
        return text


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


# -- what a player may know ----------------------------------------------------------


@dataclass(frozen=True)
class PlayerView:
    """Everything one player may know; player-facing code reads Lao Tzu only through this.

    ``visible`` holds the cells the player sees (his own pieces and every cell one of them
    could move to); ``enemies`` are the enemy pieces on those cells.  Hands are public;
    ``in_check`` says whether the side to move is in check (announced to both, S3 "+"),
    never by which piece.  ``castling`` (own castling Rook cells), ``own_promoted`` and
    ``en_passant`` (the target, only when this player may take there now) are things the
    player knows from his own moves.
    """

    player: int
    turn: int
    fullmove: int
    own: tuple[tuple[int, Piece], ...]
    own_promoted: frozenset[int]
    visible: frozenset[int]
    enemies: tuple[tuple[int, Piece], ...]
    hands: tuple[tuple[tuple[str, int], ...], tuple[tuple[str, int], ...]]
    castling: tuple[int, ...]
    en_passant: int | None
    in_check: bool
    result: Outcome | None
    castling_rule: str = "chess960"

    def piece_at(self, cell: int) -> Piece | None:
        """The piece the player knows on ``cell`` (None for empty or hidden cells)."""
        for c, p in self.own:
            if c == cell:
                return p
        for c, p in self.enemies:
            if c == cell:
                return p
        return None

    def targets(self, cell: int) -> frozenset[int]:
        """Where the piece on ``cell`` may go, as far as this player can know (a hint)."""
        return hint_targets(self, cell)

    def drop_targets(self, kind: str) -> frozenset[int]:
        """Where a ``kind`` from this player's hand may be dropped, as far as he can know."""
        return hint_drop_targets(self, kind)

    def moves(self) -> list[Move]:
        """Every move this player may try now: :func:`view_moves`."""
        return view_moves(self)

    def move_text(self, move: Move) -> str:
        """His move in SAN as he may be told it before it is made: :func:`view_move_text`."""
        return view_move_text(self, move)

    def board_text(self) -> str:
        """FEN-like ranks: ``?`` hidden, digits count visible empty cells (as in laotzu.md §9)."""
        known = dict(self.own) | dict(self.enemies)
        rows = []
        for rank in range(7, -1, -1):
            row, empty = [], 0
            for f in range(8):
                sq = rank * 8 + f
                if sq in self.visible and sq not in known:
                    empty += 1
                    continue
                if empty:
                    row.append(str(empty))
                    empty = 0
                p = known.get(sq)
                row.append("?" if p is None else p.kind if p.owner == WHITE else p.kind.lower())
            if empty:
                row.append(str(empty))
            rows.append("".join(row))
        return "/".join(rows)


def view(pos: Position, player: int) -> PlayerView:
    """What ``player`` may know about the true position ``pos`` (rules §3, §8, DECISIONS)."""
    if player not in (WHITE, BLACK):
        raise RulesError(f"laotzu: no player {player!r} (0 = White, 1 = Black)")
    game = pos.game
    state = pos.state
    bb = state["bb"]
    ep = state.get("ep") if pos.turn == player else None
    vis = visible_bb(bb, player, ep)
    if ep is not None and not PAWN_ATT[player ^ 1][ep] & bb[2] & bb[player]:
        ep = None
    board = pos.board
    own = tuple((sq, board[sq]) for sq in _bits(bb[player]))
    enemies = tuple((sq, board[sq]) for sq in _bits(vis & bb[player ^ 1]))
    hands = tuple(tuple((k, h[k]) for k in HAND_ORDER if h.get(k)) for h in pos.hands)
    return PlayerView(
        player=player, turn=pos.turn, fullmove=pos.fullmove, own=own,
        own_promoted=frozenset(_bits(state["promoted"] & bb[player])),
        visible=frozenset(_bits(vis)), enemies=enemies, hands=hands,
        castling=tuple(_bits(state["castling"] & BACK_RANK[player])), en_passant=ep,
        in_check=game.in_check(pos), result=game.outcome(pos),
        castling_rule=getattr(game, "castling", "chess960"),
    )


def render_view(v: PlayerView) -> str:
    """A player's view as text; built from the view alone, so it cannot show hidden things."""
    names = ("White", "Black")
    known = dict(v.own) | dict(v.enemies)
    lines = [f"Lao Tzu Chess — {names[v.player]}'s view, move {v.fullmove}, "
             f"{names[v.turn]} to move" + (" (check)" if v.in_check else "")]
    for rank in range(7, -1, -1):
        cells = []
        for f in range(8):
            sq = rank * 8 + f
            p = known.get(sq)
            if p is not None:
                cells.append(p.kind if p.owner == WHITE else p.kind.lower())
            else:
                cells.append("." if sq in v.visible else "?")
        lines.append(f"{rank + 1} " + " ".join(cells))
    lines.append("  " + " ".join(FILE_NAMES))
    lines.append(f"view: {v.board_text()}")
    hand_words = ["".join(k * n for k, n in h) or "-" for h in v.hands]
    lines.append(f"hands: White {hand_words[0]}  Black {hand_words[1].lower()}")
    if v.result is not None:
        lines.append(f"game over: {v.result.result} ({v.result.reason})")
    return "\n".join(lines)


def view_text(pos: Position, player: int) -> str:
    """Print ``player``'s view of ``pos`` (``fairyboard view --game laotzu --player …``)."""
    return render_view(view(pos, player))


# -- hints from the view alone -------------------------------------------------------


def _picture(v: PlayerView) -> tuple[list[int], int]:
    """Bitboards of the player's picture: known pieces only; and the hidden-cell mask."""
    bb = [0] * 8
    for sq, p in (*v.own, *v.enemies):
        bb[p.owner] |= 1 << sq
        bb[2 + TYPE[p.kind]] |= 1 << sq
    hidden = FULL
    for sq in v.visible:
        hidden &= ~(1 << sq)
    return bb, hidden


def _picture_safe(bb: list[int], me: int, hidden: int) -> bool:
    """Is my King unattacked by the enemy pieces I can see?  Hidden cells block their lines."""
    k = bb[7] & bb[me]
    if not k:
        return True
    occ = bb[0] | bb[1] | hidden
    return not _attacked(tuple(bb), me ^ 1, bb[me ^ 1], k.bit_length() - 1, occ)


def hint_targets(v: PlayerView, cell: int) -> frozenset[int]:
    """The cells to light when the player lifts his piece on ``cell``, from his view only.

    Rule: the piece's pseudo-legal targets (exactly computable from the view, since every
    cell a piece could move to is visible), minus the moves that would leave his King
    attacked by an enemy piece he can see, plus castling (own rights, no known piece in
    the way, no visible attack on the King's cells).  Hidden cells count as blocking enemy
    lines and as possibly empty for castling, so the hint never omits a legal move; it may
    contain a move that a hidden piece makes illegal (the referee then says "illegal move").
    """
    if v.result is not None:
        return frozenset()
    piece = dict(v.own).get(cell)
    if piece is None:
        raise RulesError(f"laotzu: {SQUARE_NAMES[cell] if 0 <= cell < 64 else cell} "
                         f"holds no piece of this player")
    bb, hidden = _picture(v)
    out = _hint_steps(v, bb, hidden, cell, piece)
    if piece.kind == "K":
        out |= {king_to for _, king_to, _ in _hint_castling(v, bb, hidden, cell)}
    return frozenset(out)


def _hint_steps(v: PlayerView, bb: list[int], hidden: int, cell: int, piece: Piece) -> set[int]:
    """Targets of the piece on ``cell`` without castling: pseudo-legal, seen-safe (see
    :func:`hint_targets`)."""
    me = v.player
    own, opp = bb[me], bb[me ^ 1]
    occ = own | opp | hidden
    ptype = TYPE[piece.kind]
    src = 1 << cell
    if ptype == PAWN:
        fwd = 8 if me == WHITE else -8
        targets = 0
        one = cell + fwd
        if 0 <= one < 64 and not occ >> one & 1:
            targets |= 1 << one
            two = one + fwd
            if (cell >> 3) == (1 if me == WHITE else 6) and not occ >> two & 1:
                targets |= 1 << two
        targets |= PAWN_ATT[me][cell] & opp
        if v.en_passant is not None and PAWN_ATT[me][cell] >> v.en_passant & 1:
            targets |= 1 << v.en_passant
    elif ptype == KNIGHT:
        targets = KNIGHT_ATT[cell] & ~own
    elif ptype == KING:
        targets = KING_ATT[cell] & ~own
    else:
        att = 0
        if ptype in (BISHOP, QUEEN):
            att |= _slide(cell, occ, ((1, 1), (-1, -1), (1, -1), (-1, 1)))
        if ptype in (ROOK, QUEEN):
            att |= _slide(cell, occ, ((1, 0), (-1, 0), (0, 1), (0, -1)))
        targets = att & ~own & ~hidden
    out = set()
    for t in _bits(targets & ~hidden):
        after = list(bb)
        tb = 1 << t
        if opp & tb:
            for i in range(2, 8):
                after[i] &= ~tb
            after[me ^ 1] &= ~tb
        if ptype == PAWN and t == v.en_passant and not opp & tb:
            victim = 1 << (t - 8 if me == WHITE else t + 8)
            after[me ^ 1] &= ~victim
            after[2] &= ~victim
        after[me] ^= src | tb
        after[2 + ptype] ^= src | tb
        if _picture_safe(after, me, hidden):
            out.add(t)
    return out


def _hint_castling(v: PlayerView, bb: list[int], hidden: int,
                   ksq: int) -> list[tuple[int, int, int]]:
    """Castlings the player cannot know to be illegal: (rook, king_to, rook_to) each."""
    me = v.player
    if v.in_check and v.turn == me:
        return []
    own = bb[me]
    known = own | bb[me ^ 1]
    out = []
    for rook in v.castling:
        king_to, rook_to, crossed = castling_plan(v.castling_rule, me, ksq, rook)
        kbit, rbit = 1 << ksq, 1 << rook
        needed = (BETWEEN[ksq][rook] | BETWEEN[ksq][king_to] | BETWEEN[rook][rook_to]
                  | (1 << king_to) | (1 << rook_to)) & ~(kbit | rbit)
        if known & needed:
            continue
        occ = known | hidden
        cells = _bits(crossed) + [ksq]
        if any(_attacked(tuple(bb), me ^ 1, bb[me ^ 1], s, occ ^ kbit) for s in cells):
            continue
        final = occ ^ kbit ^ rbit | (1 << king_to) | (1 << rook_to)
        if _attacked(tuple(bb), me ^ 1, bb[me ^ 1], king_to, final):
            continue
        out.append((rook, king_to, rook_to))
    return out


def hint_drop_targets(v: PlayerView, kind: str) -> frozenset[int]:
    """Cells to light for dropping ``kind`` from the player's hand, from his view only.

    The empty visible cells (no Pawn on rank 1 or 8).  When the player is in check and sees
    the checking piece, only cells between it and his King; with an unseen checker he
    cannot know which cells block, so all are shown.
    """
    me = v.player
    if v.result is not None or kind not in HAND_ORDER or not dict(v.hands[me]).get(kind):
        return frozenset()
    bb, hidden = _picture(v)
    empty = FULL & ~hidden & ~(bb[0] | bb[1])
    if kind == "P":
        empty &= ~PAWN_FREE_RANKS
    if v.in_check and v.turn == me:
        ksq = (bb[7] & bb[me]).bit_length() - 1
        seen = _checkers(tuple(bb), me, ksq, bb[0] | bb[1] | hidden)
        if seen & (seen - 1):
            return frozenset()
        if seen:
            empty &= BETWEEN[ksq][seen.bit_length() - 1]
    return frozenset(_bits(empty))


def view_moves(v: PlayerView) -> list[Move]:
    """Every move the player may try on the board, built from his view alone.

    The moves behind :func:`hint_targets` and :func:`hint_drop_targets`: promotions to
    each of Q R B N, en passant, castling, drops of every kind in hand.  A superset of the
    legal moves (hints never omit one); the extra ones are illegal only because of pieces
    he cannot see, and the referee refuses them with "illegal move".  Empty when it is not
    his turn or the game is over.
    """
    me = v.player
    if v.result is not None or v.turn != me:
        return []
    bb, hidden = _picture(v)
    opp = bb[me ^ 1]
    out: list[Move] = []
    for cell, piece in v.own:
        for t in sorted(_hint_steps(v, bb, hidden, cell, piece)):
            capture = bool(opp >> t & 1)
            if piece.kind == "P" and t == v.en_passant and not capture:
                out.append(_special(("ep", me, cell, t), lambda o=cell, t=t: Move(
                    "move", o, t, PIECES[me][PAWN], captures=(t - 8 if me == WHITE else t + 8,))))
            elif piece.kind == "P" and PAWN_FREE_RANKS >> t & 1:
                out.extend(_promotions(me, cell, t, capture))
            else:
                out.append(Move("move", cell, t, piece, captures=(t,) if capture else ()))
        if piece.kind == "K":
            for rook, king_to, rook_to in _hint_castling(v, bb, hidden, cell):
                also = ((rook, rook_to),) if rook != rook_to else ()
                out.append(_special(("castle", me, cell, rook, king_to, rook_to),
                                    lambda k=king_to, a=also, o=cell: Move(
                                        "castle", o, k, PIECES[me][KING], also=a)))
    for kind, _ in v.hands[me]:
        for t in sorted(hint_drop_targets(v, kind)):
            out.append(_drop_move(me, TYPE[kind], t))
    return out


def castling_rook_of(rule: str, move: Move) -> int:
    """The cell of the Rook a castling move castles with (``also`` is empty when the Rook
    stays where it is: then it stands next to the King's target)."""
    if move.also:
        return move.also[0][0]
    step = 1 if move.target > move.origin else -1
    if rule == "chess480":
        return move.origin + step
    return (move.origin & 56) + (5 if step > 0 else 3)


def view_move_text(v: PlayerView, move: Move) -> str:
    """The player's own move in SAN, from his view alone (choice labels, his move list).

    No ``+``/``#``: whether a move gives check depends on where the hidden King stands, so
    it is announced only after the move (:meth:`LaoTzu.player_move_text`).  A piece is
    disambiguated among his pieces of the same kind that his hints send to the same cell
    (the referee's SAN uses the legal moves, which may depend on hidden pins).
    """
    if move.kind == "drop":
        return f"{move.piece.kind}@{SQUARE_NAMES[move.target]}"
    if move.kind == "castle":
        return "O-O" if castling_rook_of(v.castling_rule, move) > move.origin else "O-O-O"
    own = dict(v.own)
    mover = own.get(move.origin)
    if mover is None:
        raise RulesError(f"laotzu: {SQUARE_NAMES[move.origin]} holds no piece of this player")
    target = SQUARE_NAMES[move.target]
    if mover.kind == "P":
        text = f"{FILE_NAMES[move.origin & 7]}x{target}" if move.captures else target
        return text + (f"={move.promotion}" if move.promotion else "")
    bb, hidden = _picture(v)
    others = [c for c, p in v.own if p == mover and c != move.origin
              and move.target in _hint_steps(v, bb, hidden, c, p)]
    return _piece_san(mover, move, target, others)
