"""The page's game archive: the journal's games listed, downloaded as PGN, replayed move by
move on the board drawing, and reviewed as a graph (``static/archive.js``, ``review.js``).

Routes (token-guarded like every ``/api`` route, ``controller/web/guard.py``):

* ``GET /api/games`` — every game of the journal, oldest first: id, game, date, players
  (the computer as ``fairyboard level N``), result, moves; files that cannot be read are
  listed as problems, one line each;
* ``GET /api/games/{id}.pgn`` — the game as PGN (``controller/pgn.py``: standard for chess
  and Chess960, the same tags with ``Variant`` for the others);
* ``GET /api/games/{id}/replay`` — every position of the game as the board drawing shows
  pieces (only games this board's layout can draw);
* ``GET /api/games/{id}/review`` — the review (``controller/reviewing.py``): the progress
  while the engine judges the positions, then the graph, the mistakes with the better
  move and the position before each; ``GET /api/games/{id}/review.svg`` — the graph alone.

A game with hidden information that has not ended is listed but never sent, in any form
(its moves would show what the players may not see); once ended, its whole record is
the game's history, as a fog-of-war server shows it after the game.  A bad id, a file
that cannot be read: one line of JSON with a 4xx status, never a 500.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.i18n import LanguageError, Text, render, text_of
from controller.journal import GameRecord, JournalError
from controller.pgn import UNKNOWN, game_pgn, seats_from_record
from controller.review import placeholder_svg, review_svg
from controller.reviewing import GameReviews, record_plies
from controller.web.state import object_json, position_objects
from controller.web.texts import page_language

#: what a game id may look like (the journal's file names: stamp, counter, game)
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.~+-]{0,119}$")
HIDDEN_REFUSED = Text("this game hides information from its players and has not ended: it "
                      "can be downloaded, replayed and reviewed once it has ended")


class ArchiveError(ValueError):
    """A request the archive refuses: one line and its HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _refused(exc: ArchiveError, code: str) -> JSONResponse:
    """The refusal's one line in the page's language ``code``."""
    return JSONResponse({"error": render(text_of(exc), code)}, status_code=exc.status)


def _one_line(exc: BaseException) -> str:
    """A journal error's words on one line (its :class:`Text` kept, to be said in the
    page's language)."""
    text = text_of(exc)
    return text if isinstance(text, Text) else " ".join(text.split())


def game_entry(record: GameRecord) -> dict[str, Any]:
    """One game of the list (raises JournalError when its game or options are rejected)."""
    game = record.game_rules()
    seats = seats_from_record(record, game)
    players = [colour if name == UNKNOWN else name
               for colour, name in zip(game.player_names, seats.names, strict=False)]
    secret = game.hidden_information and not record.finished
    return {"id": record.id, "game": record.game, "title": game.title,
            "date": record.date.replace("T", " "), "players": players,
            "colours": list(game.player_names), "result": record.result,
            "reason": record.reason, "moves": len(record.moves),
            "finished": record.finished, "damage": record.damage,
            "clock": record.clock, "hidden": secret,
            "refused": HIDDEN_REFUSED if secret else None}


def archive_routes(service: Any, guarded: Any) -> list[Route]:
    """The archive's routes over ``service``'s journal (each wrapped by the app's
    ``guarded``: an unforeseen bad value is still one line); its reviews are judged in
    the coach's worker and never while a linked or online game is played."""
    reviews = GameReviews(lambda *a: service.coach.submit(*a),
                          online=lambda: service.remote is not None or service.online.playing,
                          margin=service.config.board.coach_margin)

    def reader(request: Request) -> str:
        """The review's language: the page's (an unknown ``?lang=`` reads English)."""
        try:
            return page_language(request, service)
        except LanguageError:
            return "en"

    def record_of(request: Request, shown: bool = True) -> GameRecord:
        game_id = request.path_params["game_id"]
        if not _ID.match(game_id):
            raise ArchiveError(Text("no game {game}: a game id looks like "
                                    "20261121-114116-chess (see the archive's list)",
                                    game=repr(game_id[:60])), 404)
        try:
            record = service.journal.find(game_id)
            game = record.game_rules()
            record.replay(salvage=True)
        except JournalError as exc:
            missing = str(exc).startswith("no game")
            raise ArchiveError(" ".join(str(exc).split()) if missing else
                               Text("this game's file cannot be read: {problem}",
                                    problem=_one_line(exc)),
                               404 if missing else 422) from None
        except OSError as exc:
            raise ArchiveError(Text("this game's file cannot be read: {problem}",
                                    problem=str(exc.strerror or exc)), 422) from None
        if shown and game.hidden_information and not record.finished:
            raise ArchiveError(HIDDEN_REFUSED, 403)
        return record

    async def games(request: Request) -> Response:
        # read beside the board loop (a long journal is many files): the files are
        # append-only, and a record still being written reads as a torn tail
        records, problems = await asyncio.to_thread(service.journal.scan)
        code = reader(request)
        listed, bad = [], [render(p.line, code) for p in problems]
        for record in records:
            try:
                entry = game_entry(record)
            except JournalError as exc:
                bad.append(render(_one_line(exc), code))
                continue
            listed.append(dict(entry, damage=render(entry["damage"], code) or None))
        return JSONResponse({"games": listed, "problems": bad,
                             "live": service.game_id})

    async def pgn(request: Request) -> Response:
        try:
            record = record_of(request)
        except ArchiveError as exc:
            return _refused(exc, reader(request))
        return Response(game_pgn(record), media_type="application/x-chess-pgn",
                        headers={"Content-Disposition":
                                 f'attachment; filename="{record.id}.pgn"',
                                 "Cache-Control": "no-store"})

    async def replay(request: Request) -> Response:
        try:
            record = record_of(request)
            layout = service.layout
            if record.game not in layout.games:
                raise ArchiveError(Text("this game was played on another board than "
                                        "{board}: download its PGN to see it",
                                        board=layout.title), 409)
        except ArchiveError as exc:
            return _refused(exc, reader(request))
        game, plies = record_plies(record)
        pos = game.parse_position(record.setup)
        positions = [_pieces(game, pos, layout)]
        for text in record.moves:
            pos.push(game.parse_move(pos, text))
            positions.append(_pieces(game, pos, layout))
        return JSONResponse({"id": record.id, "title": game.title,
                             "players": list(game.player_names),
                             "plies": [{"player": p.mover, "text": p.text} for p in plies],
                             "positions": positions, "result": record.result})

    async def review(request: Request) -> Response:
        try:
            record = record_of(request)
        except ArchiveError as exc:
            return _refused(exc, reader(request))
        status = reviews.status(record)
        found = status.pop("review", None)
        if found is None:
            if status.get("reason"):  # (a Text: said in the page's language)
                status["reason"] = render(status["reason"], reader(request))
            return JSONResponse(status, status_code=200 if status["status"] != "refused"
                                else 403)
        game, _ = record_plies(record)
        layout = service.layout
        drawable = record.game in layout.games
        pos = game.parse_position(record.setup)
        mistakes, at = [], 0
        for m in found.mistakes:
            while at < m.ply - 1:
                pos.push(game.parse_move(pos, record.moves[at]))
                at += 1
            better = game.parse_move(pos, m.better)
            mistakes.append({
                "ply": m.ply, "player": m.mover, "played": m.played, "better": m.better,
                "better_text": m.better_text, "loss": m.loss,
                "words": render(m.words, reader(request)),
                "pieces": _pieces(game, pos, layout) if drawable else None,
                "marks": [c for c in (better.origin, better.target) if c >= 0]})
        title = Text.join(" · ", [game.title, record.id])
        return JSONResponse({"status": "ready", "id": record.id, "plies": found.plies,
                             "players": list(found.players), "mistakes": mistakes,
                             "drawable": drawable,
                             "svg": review_svg(found, title, reader(request))})

    async def review_picture(request: Request) -> Response:
        try:
            record = record_of(request)
        except ArchiveError as exc:
            return _refused(exc, reader(request))
        status = reviews.status(record)
        found = status.get("review")
        if found is None:
            text = status.get("reason") or Text(
                "The engine is judging this game: {done} of {total} positions",
                done=status.get("done", 0), total=status.get("total", 0))
            return Response(placeholder_svg(render(text, reader(request))), status_code=202,
                            media_type="image/svg+xml", headers={"Cache-Control": "no-store"})
        title = Text.join(" · ", [record.game_rules().title, record.id])
        return Response(review_svg(found, title, reader(request)),
                        media_type="image/svg+xml",
                        headers={"Cache-Control": "no-store"})

    return [
        Route("/api/games", guarded(games)),
        Route("/api/games/{game_id}.pgn", guarded(pgn)),
        Route("/api/games/{game_id}/replay", guarded(replay)),
        Route("/api/games/{game_id}/review", guarded(review)),
        Route("/api/games/{game_id}/review.svg", guarded(review_picture)),
    ]


def _pieces(game: Any, pos: Any, layout: Any) -> dict[int, list[dict[str, Any]]]:
    """A position as the board drawing shows pieces (spot -> objects, bottom first)."""
    return {i: [object_json(n) for n in objs]
            for i, objs in position_objects(game, pos, layout).items()}


__all__ = ["ArchiveError", "archive_routes", "game_entry"]
