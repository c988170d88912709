"""What the play page draws for one seat: the pieces on the printed board of the game
(the companion page's layouts and drawing), the moves that seat may make, spot to spot,
and the game's notation.

In a game with hidden information everything here comes from the seat's own view (the
referee's :class:`~controller.link.messages.SeatView`), never from the whole position:
the pieces it sees, the moves it cannot know to be illegal (``Game.board_moves``, as its
own board would offer them), and no move list until the game has ended.  A watcher of
such a game sees the club view's rule: the moves older than the referee's ``delay``
plies (none before the end without one), never a piece.
"""

from __future__ import annotations

import functools
from typing import Any

from controller.layout import Layout, layout_playing, load_layout
from controller.rules import Game, Position, RulesError
from controller.rules.core import OFF_BOARD, Move
from controller.sensing.sim.objects import pad_index, position_objects
from controller.server.games import LiveGame
from controller.server.hub import Hub
from controller.web.state import layout_json, object_json
from controller.wire import wire_move


@functools.cache
def _layout(name: str) -> Layout:
    return load_layout(name)


def layout_name(game_name: str) -> str | None:
    """The printed board a game is drawn on (the first shipped layout that plays it; None:
    none does, and the page lists the moves instead of drawing them)."""
    return layout_playing(game_name)


@functools.cache
def layout_data(name: str) -> dict[str, Any]:
    """A layout's drawing data (public: the printed board, no game in it)."""
    return layout_json(_layout(name))


def move_spots(game: Game, layout: Layout, pos: Position, move: Move) -> tuple[int | None,
                                                                             int | None]:
    """The spots a move is made with on the drawn board: the cell left (a drop's hand pad,
    a placement's reserve pad) and the cell reached; None where the move has none (a
    pass)."""
    mover = game.ply_mover(pos)
    origin: int | None = move.origin if move.origin != OFF_BOARD else None
    if origin is None and move.kind in ("drop", "place") and move.piece is not None:
        role = "hand" if move.kind == "drop" else "reserve"
        origin = pad_index(layout, role, mover, move.piece.kind)
    target = move.target if move.target != OFF_BOARD else None
    if move.kind == "promote" and target is not None and origin is None:
        origin = target
    return origin, target


class SeatBoards:
    """The drawn board of each seat (and watcher), with each open game's notation kept
    as it grows (a takeback replays it)."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        self._notation: dict[str, tuple[list[str], list[str]]] = {}

    def board(self, g: LiveGame, seat: int | None) -> dict[str, Any]:
        """``seat``'s board (None: a watcher's): pieces by spot, fog, its moves on its
        turn, the notation it may read."""
        game = g.game
        layout_id = layout_name(g.name)
        layout = _layout(layout_id) if layout_id is not None else None
        out: dict[str, Any] = {"layout": layout_id, "ply": g.ply, "turn": g.turn,
                               "seat": seat, "seats": list(g.seats), "status": g.status,
                               "players": list(game.player_names), "moves": [],
                               "pieces": {}, "fog": [], "position": "",
                               "times": self.hub.times_now(g), "result": g.result,
                               "reason": g.reason}
        if g.refereed:
            out["notation"] = (self._long_list(g) if g.ended
                               else self._delayed(g) if seat is None else None)
            view = g.views.get(seat) if seat is not None else None
            if view is None:
                return out
            pos = game.parse_view(view.position)
            out["position"] = view.position
            legal = game.board_moves(pos) if not g.ended and g.turn == seat else []
            seen = game.player_view(pos, seat)
            if seen is not None:
                visible = set(seen.visible)
                out["fog"] = [i for i in range(len(game.geometry.cells))
                              if i not in visible]
        else:
            assert g.pos is not None
            pos = g.pos
            out["position"] = game.position_text(pos)
            out["notation"] = self._notation_of(g)
            legal = (game.legal_moves(pos) if seat is not None and not g.ended
                     and g.turn == seat else [])
        if layout is not None:
            out["pieces"] = {str(i): [object_json(n) for n in objects]
                             for i, objects in position_objects(game, pos, layout).items()}
        out["moves"] = [self._move_json(game, layout, pos, m, g.refereed)
                        for m in legal if m.kind != "roll"]  # (the server rolls the die)
        return out

    @staticmethod
    def _move_json(game: Game, layout: Layout | None, pos: Position, move: Move,
                   refereed: bool) -> dict[str, Any]:
        origin, target = (move_spots(game, layout, pos, move) if layout is not None
                          else (None, None))  # (no drawn board: a button each)
        # the text the seat sends: its own board's (the long notation from its view) in a
        # refereed game, the API's in an open one
        text = game.long_move_text(pos, move) if refereed else wire_move(game, pos, move)
        label = (game.player_move_text(pos, move) if refereed
                 else game.move_text(pos, move))
        return {"from": origin, "to": target, "text": text, "label": label}

    def _notation_of(self, g: LiveGame) -> list[str]:
        """The open game's moves in the game's own notation (SAN for chess)."""
        game = g.game
        done, shown = self._notation.get(g.id, ([], []))
        if g.moves[:len(done)] != done:
            done, shown = [], []
        if len(done) < len(g.moves):
            pos = game.parse_position(g.initial)
            for text in done:
                pos.push(game.parse_move(pos, text))
            done, shown = list(done), list(shown)
            for text in g.moves[len(done):]:
                try:
                    move = game.parse_move(pos, text)
                except RulesError:  # (never: every recorded move was checked)
                    shown.append(text)
                    done.append(text)
                    continue
                shown.append(game.move_text(pos, move))
                done.append(text)
                pos.push(move)
        self._notation[g.id] = (done, shown)
        return shown

    def _long_list(self, g: LiveGame) -> list[str]:
        return list(g.moves)

    def _delayed(self, g: LiveGame) -> list[str]:
        """A hidden game's moves as the club view shows them while it is played: those
        older than the referee's ``delay`` plies, none without a delay."""
        referee = self.hub.referee
        refereed = referee.games.get(g.id)
        if referee.delay is None or refereed is None:
            return []
        return list(refereed.moves[:max(0, len(refereed.moves) - referee.delay)])
