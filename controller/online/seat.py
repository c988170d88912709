"""The online opponent as a seat at the board: a room that owns one online game.

Like the computer's seat, it hands the board the opponent's moves to execute; unlike it,
the truth is the server's.  Two threads talk to the server — one reads the game stream
(reconnecting with back-off when it falls), one sends the owner's moves, one at a time —
and post what they learn to an inbox.  The board loop calls :meth:`OnlineSeat.tick`,
which alone touches the board: it brings the board to the server's move list (moves to
execute, a table to fix when the board ran ahead of a move the server never took), ends
the game when the server ends it, and never lets a move be lost or made twice: a move is
sent only once the board committed it, and counted as played only once the server's
move list holds it.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass

from controller.board.machine import Board
from controller.online.api import BoardApi, OnlineError, StreamLost, Unauthorized
from controller.online.game import (
    OnlineGameError,
    ServerGame,
    board_uci,
    game_full,
    game_state,
    plan,
)
from controller.rules.core import Move, Outcome, Termination

log = logging.getLogger(__name__)

#: waits between reconnections of a lost stream (seconds), the last one repeated
BACKOFF_S = (0.2, 0.5, 1.0, 2.0, 4.0)

#: how the server's statuses end a game on the board
_REASONS = {"mate": Termination.CHECKMATE, "resign": Termination.RESIGNATION,
            "stalemate": Termination.STALEMATE, "timeout": Termination.ABANDONED,
            "outoftime": Termination.TIME_FORFEIT, "draw": Termination.AGREEMENT,
            "aborted": Termination.ABANDONED, "noStart": Termination.ABANDONED}


@dataclass(frozen=True)
class Notice:
    """What the seat tells the page and the voice (one line, in words)."""

    text: str
    problem: bool = False


class OnlineSeat:
    """The owner (account ``me``) plays game ``game_id`` on the server behind ``api`` on
    ``board``, whose game started at the server's starting position."""

    def __init__(self, api: BoardApi, board: Board, game_id: str, me: str, *,
                 on_notice: Callable[[Notice], None] = lambda n: None,
                 backoff_s: tuple[float, ...] = BACKOFF_S) -> None:
        self.api = api
        self.board = board
        self.game_id = game_id
        self.me = me
        self.on_notice = on_notice
        self.backoff_s = backoff_s
        self.server: ServerGame | None = None
        self._inbox: queue.Queue[tuple[str, object]] = queue.Queue()
        self._outbox: queue.Queue[tuple[int, str] | None] = queue.Queue()
        self._pending: dict[int, str] = {}  # ply -> move sent or to send, not yet seen
        self._executing: Move | None = None
        self._ended = False
        self._stop = threading.Event()
        self.reconnects = 0
        self.sent: list[str] = []
        board.subscribe("move", self._on_move)
        board.set_away(frozenset({0, 1}))  # nobody moves here before the server says whose
        self._reader = threading.Thread(target=self._read, name="online-stream", daemon=True)
        self._sender = threading.Thread(target=self._send, name="online-send", daemon=True)
        self._reader.start()
        self._sender.start()

    # -- the board loop -------------------------------------------------------------------
    def tick(self) -> None:
        """Apply what the server said since the last tick (board loop only)."""
        latest: ServerGame | None = None
        while True:
            try:
                kind, value = self._inbox.get_nowait()
            except queue.Empty:
                break
            if kind == "game":
                latest = value  # type: ignore[assignment]
            elif kind == "refused":
                ply, _text = value  # type: ignore[misc]
                # refused, or taken already (its answer lost): the move list tells which
                self._pending.pop(ply, None)
            elif kind == "notice":
                self.on_notice(value)  # type: ignore[arg-type]
        if latest is not None:
            if self.server is None:  # the opponent moves on the server, never here
                self.board.set_away(frozenset({1 - latest.seat}))
            self.server = latest
            for ply in [p for p, t in self._pending.items()
                        if p < len(latest.moves) and latest.moves[p]]:
                self._pending.pop(ply, None)
        if self.server is not None and not self._ended:
            self._reconcile(self.server)

    def _reconcile(self, server: ServerGame) -> None:
        board = self.board
        game, start = server.rules()
        try:
            p = plan(game, start, server.moves, tuple(board.position.moves))
        except OnlineGameError as exc:
            self.on_notice(Notice(str(exc), True))
            return
        if p.takeback:
            ahead = range(p.agree, len(board.position.moves))
            if any(ply in self._pending for ply in ahead):
                return  # our move is on its way: the server has not answered yet
            pos = start.copy()
            for move in board.position.moves[:p.agree]:
                pos.push(move)
            self._executing = None
            board.resync(pos, "the server did not take that move: set the board back")
            return
        if p.moves:
            nxt = p.moves[0]
            if self._executing != nxt and board.state in ("turn", "lifted", "settling"):
                self._executing = nxt
                board.execute(nxt)
            return
        if server.ended and board.outcome is None and not board.not_started():
            self._ended = True
            board.end_on_time(self._outcome(server))
            self.on_notice(Notice(f"game over: {server.status}"))

    @staticmethod
    def _outcome(server: ServerGame) -> Outcome:
        reason = _REASONS.get(server.status, Termination.ABANDONED)
        winners = () if server.winner is None else (server.winner,)
        return Outcome(winners, reason)

    def _on_move(self, move: Move) -> None:
        """A move committed on the board: the owner's goes to the server."""
        pos = self.board.position
        ply = len(pos.moves) - 1
        executed = self._executing is not None and move == self._executing
        self._executing = None
        server = self.server
        if executed or server is None:
            return
        if server.mover_of(ply) != server.seat:
            return
        last = pos.pop()
        try:
            text = board_uci(pos.game, pos, move, server.variant == "chess960")
        finally:
            pos.push(last)
        self._pending[ply] = text
        self._outbox.put((ply, text))

    # -- the threads ---------------------------------------------------------------------
    def close(self) -> None:
        self._stop.set()
        self._outbox.put(None)

    def _read(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            try:
                game: ServerGame | None = None
                for line in self.api.stream_game(self.game_id):
                    if self._stop.is_set():
                        return
                    kind = line.get("type")
                    if kind == "gameFull":
                        game = game_full(line, self.me)
                    elif kind == "gameState" and game is not None:
                        game = game_state(game, line)
                    elif kind == "opponentGone":
                        self._inbox.put(("notice", Notice(
                            "your opponent left the game" if line.get("gone")
                            else "your opponent is back")))
                        continue
                    else:
                        continue
                    attempt = 0
                    self._inbox.put(("game", game))
                    if game.ended:
                        return
            except Unauthorized as exc:
                self._inbox.put(("notice", Notice(str(exc), True)))
                return
            except (StreamLost, OnlineError, OnlineGameError) as exc:
                if self._stop.is_set():
                    return
                wait = self.backoff_s[min(attempt, len(self.backoff_s) - 1)]
                attempt += 1
                self.reconnects += 1
                log.info("online: %s; reconnecting in %.1f s", exc, wait)
                if attempt == 2:
                    self._inbox.put(("notice", Notice("connection to the server lost: "
                                                      "reconnecting", True)))
                self._stop.wait(wait)

    def _send(self) -> None:
        while True:
            item = self._outbox.get()
            if item is None:
                return
            ply, text = item
            attempt = 0
            while not self._stop.is_set():
                try:
                    self.api.move(self.game_id, text)
                    self.sent.append(text)
                    break
                except Unauthorized as exc:
                    self._inbox.put(("notice", Notice(str(exc), True)))
                    return
                except OnlineError as exc:
                    message = str(exc)
                    if "HTTP 400" in message:  # refused (or already taken: the stream says)
                        self._inbox.put(("refused", (ply, text)))
                        break
                    wait = self.backoff_s[min(attempt, len(self.backoff_s) - 1)]
                    attempt += 1
                    self._stop.wait(wait)  # (a closing seat stops waiting)
