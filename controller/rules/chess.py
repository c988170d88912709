"""Standard chess and Chess960 (Fischer random chess), the sixth game.

Chess is Lao Tzu Chess without its two twists: everything is visible, and a captured
piece leaves the game instead of going to the capturer's hand.  So the rules reuse Lao
Tzu's bitboard move generator, castling (Chess960's rule covers the standard array),
en passant, promotion and SAN, and this module adds only what differs: one array for
both sides (518, the standard one, unless Chess960 draws another), no hands and no drops,
standard FEN with ``KQkq`` castling letters (Shredder letters in Chess960 when the outer
Rooks are not the castling ones), and FIDE's dead positions (insufficient material).

Position text is FEN; moves are read as SAN (``Nf3``, ``exd5``, ``e8=Q``, ``O-O``), UCI
(``g1f3``, ``e7e8q``; castling as King-to-Rook ``e1h1`` like python-chess's Chess960
mode, or King two squares ``e1g1``) or long algebraic (``Ng1-f3``).
"""

from __future__ import annotations

import random
from typing import Any

from controller.rules.core import (
    Game,
    GameOption,
    Move,
    OptionError,
    Position,
    SpecialStep,
)
from controller.rules.laotzu import LaoTzu
from controller.rules.laotzu_board import ORTHODOX_ARRAY, _attacked

#: light and dark squares (a1 is dark)
DARK = sum(1 << sq for sq in range(64) if (sq % 8 + sq // 8) % 2 == 0)
LIGHT = ((1 << 64) - 1) ^ DARK
#: the engine's null move (:meth:`Chess.pass_move`)
PASS = Move("pass")


class Chess(LaoTzu):
    """Chess on the 8×8 board; with ``chess960`` both sides stand on one random array."""

    name = "chess"
    title = "Chess"
    uci_chess = True
    piece_names = LaoTzu.piece_names
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
    hidden_information = False
    hidden_options = frozenset()
    # nothing is hidden: the plain game's hooks, not Lao Tzu's fog of war
    player_view = Game.player_view
    board_moves = Game.board_moves
    player_move_text = Game.player_move_text
    view_text = Game.view_text

    def __init__(self, *, chess960: bool = False, array: int | None = None,
                 seed: int | str | None = None, **options: Any) -> None:
        if not chess960 and array not in (None, ORTHODOX_ARRAY):
            raise OptionError("array needs chess960 = true")
        if not chess960:
            seed = None  # a seed draws a Chess960 array: nothing to draw in standard chess
        if seed is not None:
            if array is not None:
                raise OptionError("give either seed or array, not both")
            array = random.Random(seed).randrange(960)
        if chess960 and array is None:
            array = ORTHODOX_ARRAY
        number = ORTHODOX_ARRAY if array is None else array
        super().__init__(white_array=number, black_array=number, castling="chess960",
                         **options)
        self.chess960 = chess960
        self.options = {"chess960": chess960} | ({"array": number} if chess960 else {})
        if seed is not None:
            self.options["seed"] = seed

    # -- moves: no drops, captured pieces leave the game ---------------------------------
    def pass_move(self, pos: Position) -> Move | None:
        """Passing is a fair test in chess but in Pawn endings (the engine checks those)."""
        return PASS

    def cell_attacked(self, pos: Position, cell: int, player: int) -> bool | None:
        bb = pos.state["bb"]
        return _attacked(bb, player, bb[player], cell, bb[0] | bb[1])

    def make(self, pos: Position, move: Move) -> None:
        if move.kind == "pass":  # the engine's null move: the turn changes, nothing else
            if pos.state.get("ep") is not None:
                pos.set_state("ep", None)
            pos.halfmove += 1
            if pos.turn == 1:
                pos.fullmove += 1
            pos.turn ^= 1
            return
        super().make(pos, move)
        for player, hand in enumerate(pos.hands):  # Lao Tzu's make put the victim in hand
            for kind, n in list(hand.items()):
                pos.add_hand(player, kind, -n)

    def pgn_variant(self) -> str:
        """PGN's names, which python-chess and every chess program read."""
        return "Chess960" if self.chess960 else "Standard"

    # -- game end (Lao Tzu's ``special_outcome`` asks this) --------------------------------
    @staticmethod
    def insufficient_material(pos: Position) -> bool:
        """A dead position by material (FIDE): neither side can ever mate — bare Kings,
        a single minor piece, or Bishops all on squares of one colour."""
        return all(_cannot_mate(pos.state["bb"], side) for side in (0, 1))

    def can_still_win(self, pos: Position, player: int) -> bool:
        """Whether ``player`` has mating material (FIDE 6.9: a flag then loses, else draws)."""
        return not _cannot_mate(pos.state["bb"], player)

    def render_text(self, pos: Position) -> str:
        """The board as text, White at the bottom (no hands: chess has none)."""
        return "\n".join(line for line in super().render_text(pos).splitlines()
                         if not line.startswith("hands:"))

    # -- position text: FEN ------------------------------------------------------------
    def position_text(self, pos: Position) -> str:
        text = super().position_text(pos)
        placement, rest = text.split("[", 1)
        rest = rest.split("]", 1)[1]
        fields = rest.split()
        if not self.chess960:
            fields[1] = _standard_castling(fields[1])
        return placement.replace("~", "") + " " + " ".join(fields)

    def parse_position(self, text: str) -> Position:
        fields = text.split()
        if fields and "[" not in fields[0]:
            fields[0] += "[]"
        return super().parse_position(" ".join(fields))


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
