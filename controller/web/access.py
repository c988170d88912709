"""The page's screen-reader mode: moves typed on the keyboard and the board as text.

Routes (JSON; bodies checked like every other request, ``controller/web/app.py``):

* ``GET /api/access?viewer=N&lang=L`` — the game's pieces by name (for the "where are
  my …" question) and its players;
* ``POST /api/access/move`` — ``{"text": "Nc3", "viewer": N}``: the move the text means
  (:func:`controller.keyboard.typed_moves`), made on the board by
  :class:`~controller.keyboard.KeyboardHand` (while the simulated board waits for the
  computer's or the other board's move to be made, that move typed); text that fits
  several moves answers
  ``{"ok": false, "choices": [...]}`` and makes none;
* ``POST /api/access/ask`` — ``{"ask": "board" | "where" | "piece", "kind": "T",
  "owner": N, "cell": "c3", "viewer": N, "lang": L}``: the answer in words
  (:mod:`controller.speech.describe`), from that viewer's sight alone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.i18n import Text
from controller.i18n.lang import check_language, speaking, translate
from controller.keyboard import KeyboardError, KeyboardHand, typed_moves
from controller.sight import Sight
from controller.speech import describe

#: the longest typed move or question the board reads
MAX_TEXT = 60
#: the fields each of these requests may have
ACCESS_FIELDS: dict[str, frozenset[str]] = {
    "keyboard move": frozenset({"text", "viewer"}),
    "ask": frozenset({"ask", "kind", "owner", "cell", "viewer", "lang"}),
}

Handler = Callable[[Request], Awaitable[Response]]


def _text(data: dict[str, Any], key: str, what: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(Text("{what}: {key} must be a text", what=what, key=repr(key)))
    if len(value) > MAX_TEXT:
        raise ValueError(Text("{what}: {key} is longer than {limit} characters", what=what,
                              key=repr(key), limit=MAX_TEXT))
    return value.strip()


def _player(value: Any, players: int, what: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < players:
        raise ValueError(Text("{what}: a player is a number 0..{last}, got {value}", what=what,
                              last=players - 1, value=repr(str(value)[:12])))
    return value


def access_routes(service: Any, guarded: Callable[[Handler], Handler],
                  body: Callable[[Request, str], Awaitable[dict[str, Any]]]) -> list[Route]:
    """The screen-reader mode's routes over ``service``; ``guarded`` turns a handler's
    ValueError into a 400 with its line, ``body`` reads a checked JSON body."""
    hand = KeyboardHand(service)

    def sight(viewer: int | None) -> Sight:
        return Sight(service.game, service.position, service.page_viewer(viewer))

    def language(value: Any) -> str:
        if value in (None, ""):
            return service.config.speech.language
        if not isinstance(value, str):
            raise ValueError(Text("lang must be a language code such as 'de'"))
        return check_language(value)

    async def pieces(request: Request) -> Response:
        game = service.game
        raw = request.query_params.get("viewer")
        viewer = _player(int(raw) if raw and raw.isdigit() else None, game.players, "access")
        with speaking(language(request.query_params.get("lang"))):
            kinds = [{"kind": k, "name": translate(n)} for k, n in game.piece_names.items()]
            players = [translate(p) for p in game.player_names]
        return JSONResponse({"kinds": kinds, "players": players,
                             "viewer": sight(viewer).viewer,
                             "cells": list(game.geometry.cells)})

    async def move(request: Request) -> Response:
        data = await body(request, "keyboard move")
        text = _text(data, "text", "move")
        game, pos = service.game, service.position
        viewer = _player(data.get("viewer"), game.players, "move")
        if service.outcome is not None:
            raise KeyboardError("the game is over")
        shown = service.board.progress.execute if service.board.state == "execute" else None
        if (service.board.state != "turn" and (shown is None or service.sim is None)
                or hand.busy):
            message = service.interaction.message
            raise KeyboardError("the board is not waiting for a move"
                                + (f": {message}" if message else ""))
        mover = game.ply_mover(pos)
        seen = sight(viewer)
        if shown is not None:  # the computer's or the other board's move, to be made here
            moves = [shown]
            def text_of(m: Any) -> str:
                return seen.move_text(pos, m)
        elif service.computer.seats and mover in service.computer.seats:
            raise KeyboardError("it is the computer's turn")
        elif seen.hides and seen.viewer != mover:
            raise KeyboardError("it is not your turn")
        elif seen.view is not None:
            moves, text_of = seen.view.moves(), seen.view.move_text
        else:
            moves = game.legal_moves(pos)
            def text_of(m: Any) -> str:
                return game.move_text(pos, m)
        found = typed_moves(game, pos, moves, text, text_of)
        if not found:
            raise KeyboardError(f"no move fits {text!r}")
        if len(found) > 1:
            texts = [text_of(m) for m in found]
            return JSONResponse({"ok": False, "choices": texts,
                                 "message": f"{text!r} fits several moves: "
                                            f"{', '.join(texts)}. Type one of them."})
        how = hand.make(found[0])
        return JSONResponse({"ok": True, "move": text_of(found[0]), "how": how})

    async def ask(request: Request) -> Response:
        data = await body(request, "ask")
        game, pos = service.game, service.position
        question = data.get("ask")
        seen = sight(_player(data.get("viewer"), game.players, "ask"))
        with speaking(language(data.get("lang"))):
            if question == "board":
                answer = describe.board_text(game, pos, seen)
            elif question == "where":
                kind = describe.kind_of(game, _text(data, "kind", "ask"))
                owner = _player(data.get("owner"), game.players, "ask")
                answer = describe.where_text(game, pos, seen, kind, owner)
            elif question == "piece":
                cell = describe.cell_of(game, _text(data, "cell", "ask"))
                answer = describe.piece_text(game, pos, seen, cell)
            else:
                raise ValueError('ask: expected {"ask": "board"}, {"ask": "where", '
                                 '"kind": "T"} or {"ask": "piece", "cell": "c3"}')
        return JSONResponse({"ok": True, "text": answer})

    return [
        Route("/api/access", guarded(pieces)),
        Route("/api/access/move", guarded(move), methods=["POST"]),
        Route("/api/access/ask", guarded(ask), methods=["POST"]),
    ]
