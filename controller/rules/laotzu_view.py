"""Lao Tzu Chess: what a player may know.  Players only ever learn what :func:`view`
returns — their own pieces, the cells their pieces could move to, the enemy pieces on
those cells, both hands, whether the side to move is in check, and the result — and every
hint, move list and notation a player sees is computed from that view alone, so nothing
here can depend on a hidden piece.  (The referee is ``controller.rules.laotzu``.)"""

from __future__ import annotations

from typing import NamedTuple

from controller.rules.core import (
    Move,
    Outcome,
    Piece,
    Position,
    RulesError,
)
from controller.rules.laotzu_board import (
    BACK_RANK,
    BETWEEN,
    BISHOP,
    BLACK,
    FILE_NAMES,
    FULL,
    HAND_ORDER,
    KING,
    KING_ATT,
    KNIGHT,
    KNIGHT_ATT,
    PAWN,
    PAWN_ATT,
    PAWN_FREE_RANKS,
    PIECES,
    QUEEN,
    ROOK,
    SQUARE_NAMES,
    TYPE,
    WHITE,
    _attacked,
    _bits,
    _checkers,
    _drop_move,
    _piece_san,
    _promotions,
    _slide,
    _special,
    castling_plan,
    visible_bb,
)

# -- what a player may know ----------------------------------------------------------


class PlayerView(NamedTuple):
    """Everything one player may know; player-facing code reads Lao Tzu only through this.

    ``visible`` holds the cells the player sees (his own pieces and every cell one of them
    could move to); ``enemies`` are the enemy pieces on those cells.  Hands are public;
    ``in_check`` says whether the side to move is in check (announced to both, S3 "+"),
    never by which piece.  ``castling`` (own castling Rook cells), ``own_promoted`` and
    ``en_passant`` (the target, only when this player may take there now) are things the
    player knows from his own moves.  An immutable record (a named tuple, not a dataclass:
    ``dataclasses`` costs every command's start more than its rules).
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
