"""Lao Tzu Chess: fog-of-war chess with Crazyhouse drops and independent Chess960 arrays.

Rules: the players' guide ``docs/rules/laotzu.md``; formats in ``docs/laotzu.md``.

Three modules: the referee (this module, :class:`LaoTzu`) knows the true position;
``laotzu_view`` is what a player may know; ``laotzu_board`` the bitboards and tables both
use.  Players only ever learn what :func:`view` returns: their own pieces, the cells
their pieces could move to (pseudo-legal moves, pins ignored; castling adds nothing; an en
passant target counts for the side that may take it), the enemy pieces on those cells,
both hands, whether the side to move is in check, and the result.

Speed: move generation works on Python-int bitboards with attack tables built once at
import, and uses check and pin masks instead of make/undo per move.  The bitboards are a
cache of ``pos.board`` kept in ``pos.state["bb"]``; ``make`` updates them through
``set_state`` so ``push``/``pop`` keep board and bitboards in step.  Positions must
therefore be changed only through ``push``/``pop`` (or rebuilt with ``parse_position``).
"""

from __future__ import annotations

import random
from typing import Any

from controller.rules.core import (
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
    SpecialStep,
    Termination,
    move_from_cells,
)
from controller.rules.laotzu_board import (
    _MOVE_CACHE,
    BACK_RANK,
    BETWEEN,
    BISHOP,
    BLACK,
    CASTLING_RULES,
    DIAG0,
    DIAG_ATT,
    DIAG_MASK,
    FILE_ATT,
    FILE_BB,
    FILE_MASK,
    FILE_NAMES,
    FULL,
    HAND_ORDER,
    KINDS,
    KING,
    KING_ATT,
    KNIGHT,
    KNIGHT_ATT,
    LINE,
    NOT_A,
    NOT_H,
    ORTH0,
    ORTHODOX_ARRAY,
    PAWN,
    PAWN_ATT,
    PAWN_FREE_RANKS,
    PIECES,
    PROMOTION_KINDS,
    QUEEN,
    RANK_ATT,
    RANK_BB,
    RANK_MASK,
    ROOK,
    SQUARE_NAMES,
    TYPE,
    WHITE,
    _attacked,
    _bitboards,
    _bits,
    _drop_move,
    _hand_text,
    _king_square,
    _piece_san,
    _plain_move,
    _promotions,
    _special,
    castling_plan,
    chess960_array,
    destinations,
    visible_bb,
)
from controller.rules.laotzu_view import (
    PlayerView,
    castling_rook_of,
    hint_drop_targets,
    hint_targets,
    render_view,
    view,
    view_move_text,
    view_moves,
    view_text,
)

__all__ = [
    "BACK_RANK",
    "BETWEEN",
    "BISHOP",
    "BLACK",
    "CASTLING_RULES",
    "DIAG0",
    "DIAG_ATT",
    "DIAG_MASK",
    "FILE_ATT",
    "FILE_BB",
    "FILE_MASK",
    "FILE_NAMES",
    "FULL",
    "HAND_ORDER",
    "KINDS",
    "KING",
    "KING_ATT",
    "KNIGHT",
    "KNIGHT_ATT",
    "LINE",
    "LaoTzu",
    "NOT_A",
    "NOT_H",
    "ORTH0",
    "ORTHODOX_ARRAY",
    "PAWN",
    "PAWN_ATT",
    "PAWN_FREE_RANKS",
    "PIECES",
    "PROMOTION_KINDS",
    "PlayerView",
    "QUEEN",
    "RANK_ATT",
    "RANK_BB",
    "RANK_MASK",
    "ROOK",
    "SQUARE_NAMES",
    "TYPE",
    "WHITE",
    "castling_plan",
    "castling_rook_of",
    "chess960_array",
    "destinations",
    "hint_drop_targets",
    "hint_targets",
    "render_view",
    "view",
    "view_move_text",
    "view_moves",
    "view_text",
    "visible_bb",
]


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
    special_step = SpecialStep(
        "Drop a piece: a piece you captured waits on your hand pad. Lift it from the pad "
        "and put it on one of the empty cells that light up.", kind="drop")

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
    def generate_moves(self, pos: Position) -> list[Move]:
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
        if ksq < 0:  # a view position (parse_view) whose enemy King is out of sight
            return []
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
        return self._parse(text, view=False)

    def _parse(self, text: str, view: bool) -> Position:
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
        promoted = self._parse_board(pos, placement, view)
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
        if not view and self.in_check(pos, pos.turn ^ 1):
            raise PositionError(f"laotzu: the side not to move is in check in {text!r}")
        pos.keys = [self.position_key(pos)]
        return pos

    def _parse_board(self, pos: Position, placement: str, view: bool = False) -> int:
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
            if n != 1 and not (view and n == 0):  # a view may not see the enemy King
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
            if not mine:
                continue
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
                text += "#" if not self.has_legal_move(pos) else "+"
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
        others = [m.origin for m in self.generate_moves(pos)
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

    # -- hooks of the board (controller/board/) and the page: hidden information -------
    def player_view(self, pos: Position, player: int) -> PlayerView:
        """What ``player`` may know: the board and the page show nothing else."""
        return view(pos, player)

    def view_position(self, pos: Position, player: int) -> Position:
        """``player``'s view as a position for his own board: his pieces, the enemy pieces
        he sees, both hands, his castling rights, an en passant he may take; the halfmove
        clock is not his to know (0)."""
        v = view(pos, player)
        known = dict(v.own) | dict(v.enemies)
        rows = []
        for rank in range(7, -1, -1):
            row, empty = "", 0
            for f in range(8):
                p = known.get(rank * 8 + f)
                if p is None:
                    empty += 1
                    continue
                row += (str(empty) if empty else "") + (
                    p.kind if p.owner == WHITE else p.kind.lower()) + (
                    "~" if rank * 8 + f in v.own_promoted else "")
                empty = 0
            rows.append(row + (str(empty) if empty else ""))
        hands = "".join(k * n for k, n in v.hands[WHITE])
        hands += "".join(k.lower() * n for k, n in v.hands[BLACK])
        castle = "".join(FILE_NAMES[c & 7] for c in sorted(v.castling, reverse=True))
        castle = castle.upper() if player == WHITE else castle
        ep = SQUARE_NAMES[v.en_passant] if v.en_passant is not None else "-"
        return self.parse_view(f"{'/'.join(rows)}[{hands}] {'wb'[v.turn]} {castle or '-'} "
                               f"{ep} 0 {v.fullmove}")

    def parse_view(self, text: str) -> Position:
        """A :meth:`view_position` from its text: the enemy King may be out of sight."""
        pos = self._parse(text, view=True)
        pos.state["view"] = True  # see outcome
        return pos

    def outcome(self, pos: Position) -> Outcome | None:
        """The template's, except on a view position: there the referee announces it."""
        return None if pos.state.get("view") else super().outcome(pos)

    def rule_outcome(self, pos: Position) -> Outcome | None:
        """The template's, except on a view position (its missing pieces are no dead
        material: the referee announces the end)."""
        return None if pos.state.get("view") else super().rule_outcome(pos)

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
                text += "#" if not self.has_legal_move(pos) else "+"
        finally:
            pos.pop()
        return text
