"""Gnu Qi on the board: the 74HC165 chain rig, the Pawn–Wazir exchange, a seeded player."""

from __future__ import annotations

import random

from controller.rules import get_game
from controller.rules.core import Move, Position
from controller.rules.gnuqi import GnuQi
from tests.support.rig import Human, Rig, objects_for

GAME: GnuQi = get_game("gnuqi")  # type: ignore[assignment]


CELL = GAME.geometry.cell


BACKEND = "gpio-shift-spi"  # the square9 layout's own sensing: a 74HC165 chain over SPI


PERIOD = 0.005  # the service's default scan rate (200 Hz)


PUSH = "4k4/6n2/9/4P4/9/9/9/9/4K4 w - - 0 1"  # e6-e7=W; the Knight g8 could take on e7


CAPTURE = "4k4/9/3n5/4P4/9/9/9/9/4K4 w - - 0 1"  # e6-e7=W and exd7=W


BLACK_PUSH = "4k4/9/9/9/9/3p5/9/9/4K4 b - - 0 1"  # d4-d3=W


CASTLES = "r3k3r/9/9/9/9/9/9/9/R3K3R {} KQkq - 0 1"


ONE_WAY = "9/3k5/8p/4K4/9/9/P8/9/9 b - - 0 1"  # gnuqi.md §9 T3 (+ two Pawns)


def chain_rig(position: str | Position | None = None, seed: int = 0,
              period: float = PERIOD, **kw) -> Rig:
    return Rig(position, game=GAME, layout="square9", backend=BACKEND, period=period,
               seed=seed, **kw)


def choose(game: GnuQi, pos: Position, rng: random.Random) -> Move:
    """A seeded driver: mate in one if there is one; else, with some probability each,
    castling, a Pawn → Wazir move, a capture, a move clearing the way to castle, a Pawn
    move; else any legal move."""
    pos = pos.copy()
    moves = game.legal_moves(pos)
    for m in moves:
        pos.push(m, record=False)
        mate = not game.legal_moves(pos) and game.in_check(pos)
        pos.pop()
        if mate:
            return m
    g = game.geometry
    between = {g.cell(c) for c in "b1 c1 d1 f1 g1 h1 b9 c9 d9 f9 g9 h9".split()}
    rights = pos.state.get("castling", "")
    may_castle = any(ch.isupper() == (pos.turn == 0) for ch in rights)
    develop = [m for m in moves if may_castle and m.origin in between and m.kind == "move"
               and pos.board[m.origin].kind != "K"]
    for group, p in (([m for m in moves if m.kind == "castle"], 0.9),
                     ([m for m in moves if m.promotion], 0.8),
                     ([m for m in moves if m.captures], 0.6),
                     (develop, 0.5),
                     ([m for m in moves if pos.board[m.origin].kind == "P"], 0.3)):
        if group and rng.random() < p:
            return rng.choice(group)
    return rng.choice(moves)


class GnuQiHuman(Human):
    """The rig's clumsy human (random orders, bounces, knocked and pushed pieces), who
    also exchanges the Pawn for a Wazir — after moving it, instead of moving it, or by
    putting the Wazir down first — and taps the Wazir when the board asks."""

    orders: list[str]

    def steps(self, pos: Position, move: Move) -> list:
        if not swaps(pos, move):
            return super().steps(pos, move)
        rig, rng = self.rig, self.rng
        o, t = move.origin, move.target
        wazir = objects_for(move.piece)
        capture = pos.board[t] is not None
        order = rng.choice(["after", "instead"] + ([] if capture else ["first"]))
        self.orders.append(order)

        def pawn_over() -> None:
            rig.move(o, t)

        def pawn_off() -> None:
            rig.remove(o)

        def wazir_on() -> None:
            rig.sim.take(wazir)
            rig.place(t)

        def swap() -> None:
            rig.remove(t)
            wazir_on()

        def victim_off() -> None:
            rig.remove(t)

        if order == "after":
            out = [pawn_over, swap]
        elif order == "instead":
            out = [pawn_off, wazir_on]
        else:
            out = [wazir_on, pawn_off]
        if capture:
            out.insert(rng.randrange(2) if order == "instead" else 0, victim_off)
        return out

    def play(self, move: Move) -> None:
        rig = self.rig
        exchange = swaps(rig.position, move)
        super().play(move)
        if exchange and rig.state != "game_over":
            if exchanging(rig):  # the Wazir went on without the board seeing the swap
                assert self.orders[-1] == "instead", self.orders[-1]
                rig.tap(move.target)
            assert not exchanging(rig), rig.interaction.message


def exchanging(rig: Rig) -> bool:
    return rig.interaction.message.startswith("exchange the piece")


def swaps(pos: Position, m: Move) -> bool:
    """The move leaves another kind of piece than the one that moved (Pawn → Wazir)."""
    before = pos.board[m.origin] if m.origin >= 0 else None
    return before is not None and m.piece is not None and before.kind != m.piece.kind
