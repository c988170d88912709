"""Choices: the questions the board asks (several moves fit, a silent move to confirm, an
amendment, the command menu), their pages of options and how they are answered from the
board — on option pads, or by a tap on an occupied cell on boards without pads."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from controller.board.options import (
    ACCEPT_DRAW,
    HINT,
    NEW_GAME,
    NEXT_GAME,
    OFFER_DRAW,
    RESIGN,
    TAKE_BACK,
)
from controller.reconcile import Key
from controller.rules.core import Game, Move, PlayerView, Position
from controller.sight import Sight


@dataclass(frozen=True)
class Choice:
    """An open question: its options and the sensed state the board keeps meanwhile."""

    #: moves (several fit) | confirm (a silent move) | amend (replacements of the last
    #: move) | menu (the commands)
    kind: str
    labels: tuple[str, ...]
    values: tuple[Any, ...]  # a Move, or a command name
    keys: frozenset[Key]  # board states that keep the choice open
    targets: frozenset[int] = frozenset()
    page: int = 0
    steady: Key | None = None  # the last board state among ``keys``
    touched: int = 0  # cells seen empty (a confirm choice grows with the gesture)
    amends: tuple = ()  # options that replace the last move instead of following it
    tapping: int | None = None  # a spot lifted (or touched) since the steady state

    def next_page(self) -> Choice:
        return replace(self, page=self.page + 1)


def menu_items(started: bool, over: bool, draw_offer: int | None, mover: int,
               hints: bool = False, resuming: bool = False,
               commands: tuple[str, ...] = (), takeback: bool = False) -> list[str]:
    """The command menu: before the game (a resumed one may be left for a new game of
    the same kind), after it, or during it (a draw offer by the other player can be
    accepted; a hint when the board offers hints; ``takeback`` when a room takes moves
    back on command); ``commands``, carried out by another room, are added before and
    after the game and replace the board's own during it."""
    if not started:
        return ([NEW_GAME, NEXT_GAME] if resuming else [NEXT_GAME]) + list(commands)
    if over:
        return [NEW_GAME, NEXT_GAME] + list(commands)
    if commands:
        return list(commands)
    draw = ACCEPT_DRAW if draw_offer is not None and draw_offer != mover else OFFER_DRAW
    return ([draw, RESIGN, NEW_GAME] + ([TAKE_BACK] if takeback else [])
            + ([HINT] if hints else []))


def own_cells(fog: PlayerView | None) -> frozenset[int] | None:
    """With hidden information the cells of the viewer's own pieces (the only cells that
    may answer a choice), else None."""
    return None if fog is None else frozenset(c for c, _ in fog.own)


@dataclass(frozen=True)
class Answers:
    """Where the options of a choice are shown and answered: on the option pads
    (``on == "pads"``) or on occupied cells (``"cells"``)."""

    on: str
    option_pads: tuple[int, ...]
    cell_count: int

    def pages(self, count: int) -> list[list[int | None]]:
        """Option indices per page of option pads; None marks the "more…" pad."""
        if self.on == "cells":
            return [list(range(count))]
        per = len(self.option_pads)
        if count <= per:
            return [list(range(count))]
        per -= 1
        return [[*range(k, min(k + per, count)), None] for k in range(0, count, per)]

    def page(self, choice: Choice) -> tuple[int, list[int | None]]:
        """The page shown (its number) and its option indices."""
        pages = self.pages(len(choice.values))
        return choice.page % len(pages), pages[choice.page % len(pages)]

    def spots(self, choice: Choice | None, key: Key | None, mover: int,
              own: frozenset[int] | None) -> list[int]:
        """Option pads; or, without pads, the occupied cells (in the choice's steady
        state, else ``key``) counted from the mover's left-hand corner (a tap there = lift
        the piece and put it back); with hidden information only his own (``own``)."""
        if self.on == "pads":
            return list(self.option_pads)
        if choice is not None and choice.steady is not None:
            key = choice.steady
        n = self.cell_count
        order = range(n) if mover % 2 == 0 else range(n - 1, -1, -1)
        return [cell for cell in order if (key is None or key[cell])
                and (own is None or cell in own)]

    def option_at(self, choice: Choice, spot: int, spots: list[int]) -> int | None:
        """Which option (index, or -1 for "more…") ``spot`` answers on the current page,
        ``spots`` being :meth:`spots`."""
        _, page = self.page(choice)
        if spot not in spots:
            return None
        k = spots.index(spot)
        if k >= len(page):
            return None
        index = page[k]
        return -1 if index is None else index


def move_label(game: Game, pos: Position, move: Move) -> str:
    """A move of ``pos`` as its player may be told it (:meth:`Sight.move_text`)."""
    if not game.hidden_information:
        return game.move_text(pos, move)
    return Sight(game, pos).move_text(pos, move)


def replaced_move_label(game: Game, pos: Position, move: Move) -> str:
    """A move that would replace the last move of ``pos`` (an amendment), labelled in the
    position before the last move."""
    last = pos.pop()
    try:
        return move_label(game, pos, move)
    finally:
        pos.push(last)


def labels(game: Game, pos: Position, kind: str, values: list[Any],
           amends: tuple = ()) -> list[str]:
    """The labels of a choice's options: commands by name, moves as their player may be
    told them (an amendment in the position before the last move)."""
    if kind == "menu":
        return [str(v) for v in values]
    if kind == "amend":
        return [replaced_move_label(game, pos, m) for m in values]
    return [replaced_move_label(game, pos, m) if m in amends else move_label(game, pos, m)
            for m in values]
