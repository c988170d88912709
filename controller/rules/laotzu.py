"""Lao Tzu Chess: fog-of-war chess with Crazyhouse drops and independent Chess960 arrays.

Rules: the players' guide ``docs/rules/laotzu.md``; formats in ``docs/laotzu.md``.

Three modules: the referee (this module, :class:`LaoTzu`) knows the true position;
``laotzu_view`` is what a player may know; ``laotzu_board`` the bitboards and tables both
use.  Players only ever learn what :func:`view` returns: their own pieces, the cells
their pieces could move to (pseudo-legal moves, pins ignored; castling adds nothing; an en
passant target counts for the side that may take it), the enemy pieces on those cells,
both hands, whether the side to move is in check, and the result.

Lao Tzu is chess (:class:`~controller.rules.chess.Chess`: its bitboard move generator,
castling, en passant, promotion, SAN) plus what it adds: drops from the hands that
captures fill, the fog of war, two independent arrays and Lewis's ``chess480`` castling,
and X-FEN with hands and ``~`` marks.  Positions must be changed only through
``push``/``pop`` (or rebuilt with ``parse_position``), as in chess.
"""

from __future__ import annotations

from typing import Any

from controller.rules.chess import Chess, _castling_letters
from controller.rules.core import (
    GameOption,
    Move,
    Outcome,
    PadNeed,
    Piece,
    Position,
    PositionError,
    RulesError,
    SpecialStep,
)
from controller.rules.laotzu_board import (
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
    _bits,
    _drop_move,
    _hand_text,
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



class LaoTzu(Chess):
    """Lao Tzu Chess (John Kipling Lewis, 2008): fog of war, drops, two Chess960 arrays.

    Options: ``white_array``/``black_array`` (Scharnagl numbers 0–959, default 518) or
    ``seed`` (both drawn at random from that seed); ``castling`` = ``chess960`` (default)
    or ``chess480`` (Lewis's orthodox castling).  The arrays actually used are in
    ``self.white_array``/``self.black_array`` and in ``self.options``, so a game record
    that stores the options replays the same set-up.
    """

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
    uci_chess = False  # drops and fog: no UCI chess engine plays it
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
        super().__init__(**options)  # chess on the standard array, re-arranged below
        if castling not in CASTLING_RULES:
            raise RulesError(f"laotzu: castling must be one of {', '.join(CASTLING_RULES)}, "
                             f"got {castling!r}")
        if seed is not None:
            if white_array is not None or black_array is not None:
                raise RulesError("laotzu: give either seed or white_array/black_array, not both")
            import random  # lazy: only drawn arrays need it

            rng = random.Random(seed)
            white_array, black_array = rng.randrange(960), rng.randrange(960)
        self.arrange(ORTHODOX_ARRAY if white_array is None else white_array,
                     ORTHODOX_ARRAY if black_array is None else black_array, castling)
        self.seed = seed
        self.options = {"white_array": self.white_array, "black_array": self.black_array,
                        "castling": castling}
        if seed is not None:
            self.options["seed"] = seed

    # -- set-up ------------------------------------------------------------------------
    @classmethod
    def start_options(cls, options: dict[str, Any]) -> dict[str, Any]:
        """Both arrays drawn at random (a recorded seed) unless arrays or a seed were
        chosen: a Lao Tzu game never starts from the orthodox arrays by default."""
        if "white_array" not in cls.hidden_options or any(  # (Chess: no hidden arrays)
                options.get(k) is not None for k in ("white_array", "black_array", "seed")):
            return dict(options)
        import random  # lazy: only drawn arrays need it

        return {**options, "seed": str(random.SystemRandom().randrange(2**31))}

    # -- move generation: chess's moves, and drops on empty visible cells --------------
    def generate_moves(self, pos: Position) -> list[Move]:
        """All legal moves: chess's piece moves and castling, then the drops from the hand
        on the empty cells the mover sees (and that meet a check)."""
        moves, drop_mask = self._piece_moves(pos)
        us = pos.turn
        hand = pos.hands[us]
        if hand and drop_mask:
            bb = pos.state["bb"]
            free = FULL ^ (bb[0] | bb[1])
            targets = destinations(bb, us, pos.state.get("ep")) & free & drop_mask
            if targets:
                add = moves.append
                for kind in HAND_ORDER:
                    if hand.get(kind):
                        kt = TYPE[kind]
                        for t in _bits(targets & ~PAWN_FREE_RANKS if kt == PAWN else targets):
                            add(_drop_move(us, kt, t))
        return moves

    # -- making moves: a drop, and a capture goes to the capturer's hand ----------------
    def make(self, pos: Position, move: Move) -> None:
        if move.kind != "drop":
            super().make(pos, move)
            return
        us = pos.turn
        p, t = move.piece, move.target
        pos.put(t, p)
        pos.add_hand(us, p.kind, -1)
        bb = list(pos.state["bb"])
        bb[us] |= 1 << t
        bb[2 + TYPE[p.kind]] |= 1 << t
        pos.set_state("bb", tuple(bb))
        if pos.state.get("ep") is not None:
            pos.set_state("ep", None)
        pos.halfmove = 0  # a drop is irreversible, like a Pawn move (as Fairy-Stockfish)
        if us == BLACK:
            pos.fullmove += 1
        pos.turn = us ^ 1

    def _captured(self, pos: Position, us: int, victim: Piece, cbit: int, promoted: int) -> int:
        """The victim goes to the capturer's hand (a promoted piece as a Pawn)."""
        pos.add_hand(us, "P" if promoted & cbit else victim.kind)
        return promoted & ~cbit

    # -- the engine's hooks: drops make a pass and a defended cell no fair test ------------
    def pass_move(self, pos: Position) -> Move | None:
        """None: with drops, passing is no fair test of a position."""
        return None

    def cell_attacked(self, pos: Position, cell: int, player: int) -> bool | None:
        """None: any piece in hand may defend a cell by a drop."""
        return None

    # -- game end ----------------------------------------------------------------------
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

    def can_still_win(self, pos: Position, player: int) -> bool:
        """Yes: a captured piece comes back by a drop (the clock's flag always wins)."""
        return True

    def position_key(self, pos: Position) -> Any:
        """Chess's key and both hands."""
        return (*super().position_key(pos), tuple(tuple(sorted(h.items())) for h in pos.hands))

    # -- position text: X-FEN with hands ---------------------------------------------------
    def position_text(self, pos: Position) -> str:
        """X-FEN, Crazyhouse hands ``[...]``, ``~`` after promoted pieces, Shredder castling."""
        hands = "".join(k * pos.hands[WHITE].get(k, 0) for k in HAND_ORDER)
        hands += "".join(k.lower() * pos.hands[BLACK].get(k, 0) for k in HAND_ORDER)
        return self._fen(pos, _castling_letters(pos.state["castling"]), marks=True,
                         hands=hands)

    def _parse_hands(self, pos: Position, text: str) -> None:
        for ch in text:
            if ch.upper() not in HAND_ORDER:
                raise PositionError(f"laotzu: {ch!r} cannot be in a hand (Q R B N P only)")
            owner = WHITE if ch.isupper() else BLACK
            pos.hands[owner][ch.upper()] = pos.hands[owner].get(ch.upper(), 0) + 1

    # -- notation: drops -------------------------------------------------------------------
    def move_text(self, pos: Position, move: Move) -> str:
        """SAN: ``Nf3``, ``exd5``, ``e8=Q``, ``O-O``, ``N@e4``, with ``+``/``#``."""
        return super().move_text(pos, move)

    def _san(self, pos: Position, move: Move) -> str:
        if move.kind == "drop":
            return f"{move.piece.kind}@{SQUARE_NAMES[move.target]}"
        return super()._san(pos, move)

    def long_move_text(self, pos: Position, move: Move) -> str:
        """UCI-like: ``g1f3``, ``e7e8q``, ``N@e4``; castling as King cell + Rook cell."""
        if move.kind == "drop":
            return f"{move.piece.kind}@{SQUARE_NAMES[move.target]}"
        return super().long_move_text(pos, move)

    @staticmethod
    def _san_text(text: str) -> str:
        """Pawn drops may be written ``@e4`` as well as ``P@e4`` (python-chess)."""
        want = Chess._san_text(text)
        return "P" + want if want.startswith("@") else want

    # -- display -----------------------------------------------------------------------
    def render_text(self, pos: Position) -> str:
        """The referee's diagram (the true position; never show it to a player)."""
        return (super().render_text(pos)
                + f"\nhands: {_hand_text(pos.hands[WHITE], WHITE) or '-'} | "
                  f"{_hand_text(pos.hands[BLACK], BLACK) or '-'}")

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
