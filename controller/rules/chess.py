"""Standard chess and Chess960 (Fischer random chess): the base of the chess family.

The rules on Python-int bitboards (tables in ``laotzu_board``, shared with Lao Tzu's
player views): moves found with check and pin masks instead of make/undo per move,
castling by Chess960's rule (which covers the standard array), en passant, promotion,
SAN, FEN, and FIDE's dead positions (insufficient material).  Lao Tzu Chess
(``controller/rules/laotzu.py``) is this game plus fog of war and drops: it adds, and
never takes away.

The bitboards are a cache of ``pos.board`` kept in ``pos.state["bb"]``; ``make`` updates
them through ``set_state`` so ``push``/``pop`` keep board and bitboards in step.  Pieces
that were Pawns are marked in ``pos.state["promoted"]`` (a variant whose captures go to
hand needs it; the diagram shows it as ``~``, FEN does not).

Position text is FEN; moves are read as SAN (``Nf3``, ``exd5``, ``e8=Q``, ``O-O``), UCI
(``g1f3``, ``e7e8q``; castling as King-to-Rook ``e1h1`` like python-chess's Chess960
mode, or King two squares ``e1g1``) or long algebraic (``Ng1-f3``).
"""

from __future__ import annotations

from typing import Any

from controller.rules.core import (
    Game,
    GameOption,
    IllegalMoveError,
    Move,
    OptionError,
    Outcome,
    Piece,
    Position,
    PositionError,
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
    DIAG0,
    DIAG_ATT,
    DIAG_MASK,
    FILE_ATT,
    FILE_MASK,
    FILE_NAMES,
    FULL,
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
    _king_square,
    _piece_san,
    _plain_move,
    _promotions,
    _special,
    castling_plan,
    chess960_array,
)

#: light and dark squares (a1 is dark)
DARK = sum(1 << sq for sq in range(64) if (sq % 8 + sq // 8) % 2 == 0)
LIGHT = ((1 << 64) - 1) ^ DARK
#: the engine's null move (:meth:`Chess.pass_move`)
PASS = Move("pass")


class Chess(Game):
    """Chess on the 8×8 board; with ``chess960`` both sides stand on one random array."""

    name = "chess"
    title = "Chess"
    shape = "square8"
    uci_chess = True
    piece_names = {"K": "King", "Q": "Queen", "R": "Rook", "B": "Bishop", "N": "Knight",
                   "P": "Pawn"}
    special_step = SpecialStep(
        "Castle: move your King two squares toward a Rook and the Rook over it, in either "
        "order (King first or Rook first).", kind="castle")
    pads = ()  # promotion is answered on the option pads; nothing waits off the board
    option_specs = (
        GameOption("chess960", bool, False, "Chess960: the back ranks drawn at random "
                   "(the same for both sides)"),
        GameOption("array", int, None, "Chess960 array number (Scharnagl, 0-959; 518 is "
                   "the standard array)", low=0, high=959, nullable=True),
        GameOption("seed", str, None, "draw the Chess960 array from this seed (with "
                   "chess960 only)", nullable=True, accepts_int=True),
    )

    def __init__(self, *, chess960: bool = False, array: int | None = None,
                 seed: int | str | None = None, **options: Any) -> None:
        super().__init__(**options)
        if not chess960 and array not in (None, ORTHODOX_ARRAY):
            raise OptionError("array needs chess960 = true")
        if not chess960:
            seed = None  # a seed draws a Chess960 array: nothing to draw in standard chess
        if seed is not None:
            if array is not None:
                raise OptionError("give either seed or array, not both")
            import random  # lazy: only a drawn array needs it

            array = random.Random(seed).randrange(960)
        if chess960 and array is None:
            array = ORTHODOX_ARRAY
        number = ORTHODOX_ARRAY if array is None else array
        self.arrange(number, number, "chess960")
        self.chess960 = chess960
        self.options = {"chess960": chess960} | ({"array": number} if chess960 else {})
        if seed is not None:
            self.options["seed"] = seed

    def arrange(self, white_array: int, black_array: int, castling: str) -> None:
        """Set the back ranks (Scharnagl numbers; 518 is the standard array) and the
        castling rule (``chess960``, or Lao Tzu's ``chess480``)."""
        self.white_array, self.black_array = white_array, black_array
        self.arrays = (chess960_array(white_array), chess960_array(black_array))
        self.castling = castling

    # -- set-up ------------------------------------------------------------------------
    def start(self) -> Position:
        white, black = self.arrays
        rows = [black.lower(), "pppppppp", "8", "8", "8", "8", "PPPPPPPP", white]
        rights = "".join(FILE_NAMES[f].upper() for f in range(7, -1, -1) if white[f] == "R")
        rights += "".join(FILE_NAMES[f] for f in range(7, -1, -1) if black[f] == "R")
        return self.parse_position("/".join(rows) + f"[] w {rights} - 0 1")


    # -- move generation ---------------------------------------------------------------
    def generate_moves(self, pos: Position) -> list[Move]:
        """All legal moves: piece moves and castling."""
        return self._piece_moves(pos)[0]

    def legal_captures(self, pos: Position) -> list[Move] | None:
        """The legal captures, in :meth:`legal_moves`' order, from the same generator with
        every target outside the other side's pieces left out (no quiet move, no castling
        is built; en passant kept): what the engine's quiescence asks at every node.  A
        subclass that lists other moves too (Lao Tzu's drops) takes the filtered default."""
        if type(self).generate_moves is not Chess.generate_moves:
            return super().legal_captures(pos)
        if self.rule_outcome(pos) is not None:
            return None
        moves = self._piece_moves(pos, captures_only=True)[0]
        return moves if moves or self.has_legal_move(pos) else None

    def _piece_moves(self, pos: Position, captures_only: bool = False) -> tuple[list[Move], int]:
        """The legal piece moves and castling, with the cells a piece arriving from off the
        board (a variant's drop) may stand on to meet a check (every cell when not in
        check, none in double check).  ``captures_only``: the captures alone, in the same
        order (``legal_captures``)."""
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
            return [], 0
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
        x = KING_ATT[ksq] & (opp if captures_only else ~own)
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
            return moves, 0
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

        tmask = mask & (opp if captures_only else ~own)
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
            if captures_only and not cap:
                continue
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

        if not checkers and not captures_only and state["castling"] & BACK_RANK[us]:
            moves.extend(self._castling_moves(bb, us, ksq, state["castling"]))

        return moves, drop_mask

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
        if move.kind == "pass":  # the engine's null move: the turn changes, nothing else
            if pos.state.get("ep") is not None:
                pos.set_state("ep", None)
            pos.halfmove += 1
            if pos.turn == 1:
                pos.fullmove += 1
            pos.turn ^= 1
            return
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
                promoted = self._captured(pos, us, victim, cbit, promoted)
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
            raise IllegalMoveError(f"{self.name}: no move of kind {kind!r}")
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

    def _captured(self, pos: Position, us: int, victim: Piece, cbit: int, promoted: int) -> int:
        """A capture's victim leaves the game (a variant with hands keeps it: Lao Tzu);
        returns the promoted-piece marks without the victim's cell."""
        return promoted & ~cbit

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

    def position_key(self, pos: Position) -> Any:
        state = pos.state
        ep = state.get("ep")
        if ep is not None and not self._has_legal_en_passant(pos):
            ep = None
        return (state["bb"], pos.turn, state["castling"], ep, state["promoted"])

    def _has_legal_en_passant(self, pos: Position) -> bool:
        bb = pos.state["bb"]
        us, ep = pos.turn, pos.state["ep"]
        ksq = (bb[7] & bb[us]).bit_length() - 1
        occ = bb[0] | bb[1]
        return any(self._en_passant(bb, us, o, ep, ksq, occ) is not None
                   for o in _bits(PAWN_ATT[us ^ 1][ep] & bb[2] & bb[us]))

    # -- position text -----------------------------------------------------------------
    def position_text(self, pos: Position) -> str:
        """FEN, with ``KQkq`` castling letters (Shredder letters in Chess960)."""
        castle = _castling_letters(pos.state["castling"])
        return self._fen(pos, _standard_castling(castle) if not self.chess960 else castle)

    def _fen(self, pos: Position, castle: str, marks: bool = False,
             hands: str | None = None) -> str:
        """The position's FEN fields; ``marks``: ``~`` after promoted pieces, ``hands``: the
        ``[...]`` after the board (a variant's X-FEN)."""
        promoted = pos.state["promoted"] if marks else 0
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
        placement = "/".join(rows) + (f"[{hands}]" if hands is not None else "")
        ep = pos.state.get("ep")
        return (f"{placement} {'wb'[pos.turn]} {castle or '-'} "
                f"{SQUARE_NAMES[ep] if ep is not None else '-'} {pos.halfmove} {pos.fullmove}")

    def parse_position(self, text: str) -> Position:
        return self._parse(text, view=False)

    def _parse(self, text: str, view: bool) -> Position:
        fields = text.split()
        if not 4 <= len(fields) <= 6:
            raise PositionError(f"{self.name}: expected 'board[hands] turn castling ep halfmove "
                                f"fullmove', got {text!r}")
        placement = fields[0]
        hand_text = ""
        if "[" in placement:
            if not placement.endswith("]"):
                raise PositionError(f"{self.name}: hands must be written '[...]' after the board: "
                                    f"{placement!r}")
            placement, hand_text = placement[:-1].split("[", 1)
        pos = Position(self)
        promoted = self._parse_board(pos, placement, view)
        self._parse_hands(pos, hand_text)
        if fields[1] not in ("w", "b"):
            raise PositionError(f"{self.name}: side to move must be 'w' or 'b', got {fields[1]!r}")
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
            raise PositionError(f"{self.name}: move counters must be numbers in {text!r}") from None
        if pos.halfmove < 0 or pos.fullmove < 1:
            raise PositionError(f"{self.name}: bad move counters {pos.halfmove} {pos.fullmove}")
        if not view and self.in_check(pos, pos.turn ^ 1):
            raise PositionError(f"{self.name}: the side not to move is in check in {text!r}")
        pos.keys = [self.position_key(pos)]
        return pos

    def _parse_hands(self, pos: Position, text: str) -> None:
        """The ``[...]`` after the board: chess has no hands (``[]`` is allowed)."""
        if text:
            raise PositionError(f"{self.name}: no pieces in hand in this game, got [{text}]")

    def _parse_board(self, pos: Position, placement: str, view: bool = False) -> int:
        rows = placement.split("/")
        if len(rows) != 8:
            raise PositionError(f"{self.name}: expected 8 ranks, got {len(rows)} in {placement!r}")
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
                    raise PositionError(f"{self.name}: unknown piece {ch!r} on rank {rank + 1}")
                if f >= 8:
                    raise PositionError(f"{self.name}: rank {rank + 1} has more than 8 "
                                        f"files: {row!r}")
                sq = rank * 8 + f
                piece = PIECES[WHITE if ch.isupper() else BLACK][TYPE[ch.upper()]]
                if i < len(row) and row[i] == "~":
                    i += 1
                    if piece.kind in "PK":
                        raise PositionError(f"{self.name}: a {piece.kind} cannot be promoted "
                                            f"({SQUARE_NAMES[sq]})")
                    promoted |= 1 << sq
                if piece.kind == "P" and rank in (0, 7):
                    raise PositionError(f"{self.name}: Pawn on {SQUARE_NAMES[sq]} (rank 1 or 8)")
                if piece.kind == "K":
                    kings[piece.owner] += 1
                pos.board[sq] = piece
                f += 1
            if f != 8:
                raise PositionError(f"{self.name}: rank {rank + 1} has {f} files instead "
                                    f"of 8: {row!r}")
        for owner, n in enumerate(kings):
            if n != 1 and not (view and n == 0):  # a view may not see the enemy King
                raise PositionError(f"{self.name}: {self.player_names[owner]} must have "
                                    f"exactly one "
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
                raise PositionError(f"{self.name}: castling right {ch!r} without a King on "
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
                raise PositionError(f"{self.name}: bad castling letter {ch!r}")
            if file not in rook_files:
                raise PositionError(f"{self.name}: castling right {ch!r} without an "
                                    f"unpromoted Rook "
                                    f"of {self.player_names[owner]} on its back rank")
            if file == king:
                raise PositionError(f"{self.name}: castling right {ch!r} on the King's file")
            rights |= 1 << (rank * 8 + file)
        for owner in (WHITE, BLACK):
            mine = rights & BACK_RANK[owner]
            if not mine:
                continue
            king = _king_square(board, owner) & 7
            sides = [s & 7 > king for s in _bits(mine)]
            if sides.count(True) > 1 or sides.count(False) > 1:
                raise PositionError(f"{self.name}: {self.player_names[owner]} has two "
                                    f"castling rights "
                                    f"on one side of the King in {text!r}")
        return rights

    def _parse_ep(self, bb: tuple[int, ...], turn: int, text: str) -> int | None:
        """The en passant target, kept only when a Pawn of the side to move can take there."""
        if text == "-":
            return None
        if text not in SQUARE_NAMES:
            raise PositionError(f"{self.name}: bad en passant square {text!r}")
        ep = SQUARE_NAMES.index(text)
        rank = ep >> 3
        pushed, start = (ep - 8, ep + 8) if turn == WHITE else (ep + 8, ep - 8)
        occ = bb[0] | bb[1]
        if (rank != (5 if turn == WHITE else 2) or occ >> ep & 1 or occ >> start & 1
                or not (bb[2] & bb[turn ^ 1]) >> pushed & 1):
            raise PositionError(f"{self.name}: {text} cannot be an en passant square here")
        return ep if PAWN_ATT[turn ^ 1][ep] & bb[2] & bb[turn] else None

    def move_text(self, pos: Position, move: Move) -> str:
        """SAN: ``Nf3``, ``exd5``, ``e8=Q``, ``O-O``, with ``+``/``#``."""
        text = self._san(pos, move)
        pos.push(move, record=False)
        try:
            if self.in_check(pos):
                text += "#" if not self.has_legal_move(pos) else "+"
        finally:
            pos.pop()
        return text

    def _san(self, pos: Position, move: Move) -> str:
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
        """UCI-like: ``g1f3``, ``e7e8q``; castling as King cell + Rook cell."""
        if move.kind == "castle":
            return SQUARE_NAMES[move.origin] + SQUARE_NAMES[self.castling_rook(move)]
        return (SQUARE_NAMES[move.origin] + SQUARE_NAMES[move.target]
                + move.promotion.lower())

    @staticmethod
    def _san_text(text: str) -> str:
        """``text`` as :meth:`_san` writes it (no check marks, castling with letter O)."""
        return text.strip().rstrip("+#!?").replace("0", "O")

    def parse_move(self, pos: Position, text: str) -> Move:
        """The legal move written ``text`` (SAN with or without ``+``/``#``, or long form).

        The error names only the text, never the position (a variant may keep it secret).
        """
        want = self._san_text(text)
        legal = self.legal_moves(pos)
        for move in legal:
            if self._san(pos, move) == want or self.long_move_text(pos, move) == text.strip():
                return move
        found = move_from_cells(self, pos, legal, text)
        if found is not None:
            return found
        raise IllegalMoveError(f"illegal move {text.strip()!r}")

    def render_text(self, pos: Position) -> str:
        """The board as text, White at the bottom (``~`` after a piece that was a Pawn)."""
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
        return "\n".join(lines)

    # -- the engine's hooks ----------------------------------------------------------------
    def pass_move(self, pos: Position) -> Move | None:
        """Passing is a fair test in chess but in Pawn endings (the engine checks those)."""
        return PASS

    def cell_attacked(self, pos: Position, cell: int, player: int) -> bool | None:
        bb = pos.state["bb"]
        return _attacked(bb, player, bb[player], cell, bb[0] | bb[1])

    # -- game end ----------------------------------------------------------------------
    def special_outcome(self, pos: Position) -> Outcome | None:
        """Dead material (after checkmate and stalemate, before the 50-move rule)."""
        if self.insufficient_material(pos):
            return self.ended((), Termination.INSUFFICIENT_MATERIAL)
        return None

    def pgn_variant(self) -> str:
        """PGN's names, which python-chess and every chess program read — for chess
        itself; a variant built on chess (not UCI chess) is named by its title."""
        if not self.uci_chess:
            return self.title
        return "Chess960" if self.chess960 else "Standard"

    @staticmethod
    def insufficient_material(pos: Position) -> bool:
        """A dead position by material (FIDE): neither side can ever mate — bare Kings,
        a single minor piece, or Bishops all on squares of one colour."""
        return all(_cannot_mate(pos.state["bb"], side) for side in (0, 1))

    def can_still_win(self, pos: Position, player: int) -> bool:
        """Whether ``player`` has mating material (FIDE 6.9: a flag then loses, else draws)."""
        return not _cannot_mate(pos.state["bb"], player)


def _castling_letters(rights: int) -> str:
    """Shredder castling letters of the rights' Rook cells (``HAha``)."""
    castle = "".join(FILE_NAMES[s & 7].upper() for s in reversed(_bits(rights & RANK_BB[0])))
    return castle + "".join(FILE_NAMES[s & 7] for s in reversed(_bits(rights & RANK_BB[7])))


def _standard_castling(shredder: str) -> str:
    """``HAha`` → ``KQkq`` for the standard array (the Rooks on the a- and h-files)."""
    letters = {"H": "K", "A": "Q", "h": "k", "a": "q"}
    if shredder == "-" or any(c not in letters for c in shredder):
        return shredder
    return "".join(letters[c] for c in shredder)


def _cannot_mate(bb: tuple[int, ...], side: int) -> bool:
    own, other = bb[side], bb[side ^ 1]
    pawns, knights, bishops, rooks, queens, kings = bb[2:8]
    if own & (pawns | rooks | queens):
        return False
    if own & knights:  # one Knight mates only with help from enemy pieces other than Queens
        return (own.bit_count() <= 2
                and not other & ~kings & ~queens)
    if own & bishops:  # Bishops all on one colour, and no Knights or Pawns anywhere
        one_colour = not bishops & DARK or not bishops & LIGHT
        return bool(one_colour) and not pawns and not knights
    return True
