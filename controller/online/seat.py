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
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from controller.board.fogsync import FogSync, Tried
from controller.board.machine import Board
from controller.i18n import Text, text_of
from controller.online.api import BoardApi, OnlineError, StreamLost, Unauthorized
from controller.online.game import (
    OnlineGameError,
    ServerGame,
    game_full,
    game_state,
    plan,
)
from controller.rules.core import Game, Move, Outcome, Termination
from controller.wire import wire_move

log = logging.getLogger(__name__)

#: waits between reconnections of a lost stream (seconds), the last one repeated
BACKOFF_S = (0.2, 0.5, 1.0, 2.0, 4.0)

#: how the server's statuses end a game on the board ("timeout" is lichess's status of a
#: victory claimed when the opponent left: its winner wins on time, as its PGN says)
_REASONS = {"mate": Termination.CHECKMATE, "resign": Termination.RESIGNATION,
            "stalemate": Termination.STALEMATE, "timeout": Termination.TIME_FORFEIT,
            "outoftime": Termination.TIME_FORFEIT, "draw": Termination.AGREEMENT,
            "aborted": Termination.ABANDONED, "noStart": Termination.ABANDONED}


#: the server's statuses (wire values, kept as they are) in words for the page and the
#: notices; a status not here is shown as the server spells it
STATUS_WORDS: dict[str, Text] = {
    "created": Text("not started yet"), "started": Text("playing"),
    "connecting": Text("connecting to the server"), "aborted": Text("aborted"),
    "mate": Text("checkmate"), "resign": Text("a player resigned"),
    "stalemate": Text("stalemate"), "timeout": Text("won on time: a player left the game"),
    "draw": Text("drawn"), "outoftime": Text("out of time"),
    "cheat": Text("ended by the server (cheating detected)"),
    "noStart": Text("aborted: the first move was not made in time"),
    "unknownFinish": Text("ended (the server gives no reason)"),
    "variantEnd": Text("ended by the variant's own rule"),
}


#: the chat: lines the page shows, and the longest line (lichess's limit)
CHAT_LINES, CHAT_LENGTH = 20, 140


def chat_text(text: str) -> str:
    """A chat line as shown: printable characters only, at most :data:`CHAT_LENGTH`."""
    return "".join(c for c in text if c.isprintable()).strip()[:CHAT_LENGTH]


#: a move the board may still amend (a Rook's move that becomes castling when the King
#: follows) is sent this long after it, unless amended (board time, seconds)
AMEND_WAIT_S = 1.5

#: statuses of a game that ends without a result (nothing to record as played)
NO_RESULT = frozenset({"aborted", "noStart"})


@dataclass(frozen=True)
class Notice:
    """What the seat tells the page and the voice (one line, in words: a :class:`Text`,
    read on each page in its language)."""

    text: str  #: (a Text)
    problem: bool = False


class OnlineSeat:
    """The owner (account ``me``) plays game ``game_id`` on the server behind ``api`` on
    ``board``, whose game started at the server's starting position."""

    def __init__(self, api: BoardApi, board: Board, game_id: str, me: str, *,
                 on_notice: Callable[[Notice], None] = lambda n: None,
                 on_set_back: Callable[[int], None] = lambda plies: None,
                 backoff_s: tuple[float, ...] = BACKOFF_S) -> None:
        """``on_set_back(plies)``: the board was set back by ``plies`` to the server's
        list (the journal takes them back too)."""
        self.api = api
        self.board = board
        self.game_id = game_id
        self.me = me
        self.on_notice = on_notice
        self.on_set_back = on_set_back
        #: the board's own takeback waits for the server's answer: its moves are not
        #: shown again meanwhile (the online room sets it)
        self.hold = False
        #: a state showing the owner's takeback offer came (the room resets it)
        self.offer_seen = False
        self.states = 0  #: the server's states read so far
        #: the players' chat of this game, (who, text) oldest first: shown on the page
        #: only (never spoken, never logged); ``said`` counts every line heard
        self.chat: deque[tuple[str, str]] = deque(maxlen=CHAT_LINES)
        self.said = 0
        self.backoff_s = backoff_s
        self.server: ServerGame | None = None
        self._inbox: queue.Queue[tuple[str, object]] = queue.Queue()
        self._outbox: queue.Queue[tuple[int, str] | Tried | None] = queue.Queue()
        self._pending: dict[int, str] = {}  # ply -> move sent or to send, not yet seen
        self._executing: Move | None = None
        #: the owner's move that the board may still amend (ply, text, board time)
        self._held: tuple[int, str, float] | None = None
        self._ended = False
        self._stop = threading.Event()
        self.reconnects = 0
        self._seen = 0  # plies of the server's list the board agreed with last
        #: a game with hidden information: the board holds the owner's view only
        self.fog: FogSync | None = None
        self._tried: Tried | None = None  # the attempt last sent to the server
        self.problem: str | None = None  #: why this board cannot play the game (a line)
        board.subscribe("move", self._on_move)
        # nobody moves here before the server says whose
        board.set_away(frozenset(range(board.game.players)))
        for target, name in ((self._read, "online-stream"), (self._send, "online-send")):
            threading.Thread(target=target, name=name, daemon=True).start()

    # -- the board loop -------------------------------------------------------------------
    def tick(self) -> None:
        """Apply what the server said since the last tick (board loop only)."""
        held = self._held
        if held is not None and self.board.now - held[2] >= AMEND_WAIT_S:
            self._held = None
            self._outbox.put((held[0], held[1]))
        latest: ServerGame | None = None
        while True:
            try:
                kind, value = self._inbox.get_nowait()
            except queue.Empty:
                break
            if kind == "game":
                latest = value  # type: ignore[assignment]
                self.states += 1
                if latest.takeback_offer == latest.seat:  # (however briefly)
                    self.offer_seen = True
            elif kind == "refused":
                if isinstance(value, Tried):  # the referee refused the owner's attempt
                    self._refused(value)
                    continue
                ply, _text, fresh = value  # type: ignore[misc]
                # refused, or taken already (its answer lost): the move list read after
                # the refusal tells which (a state sent before it may still lack it);
                # one the stream has already overtaken (the opponent moved since) is not
                # applied
                known = latest or self.server
                if known is None or len(fresh.moves) >= len(known.moves):
                    latest = fresh
                    self.states += 1
                self._pending.pop(ply, None)
            elif kind == "notice":
                self.on_notice(value)  # type: ignore[arg-type]
            elif kind == "chat":
                self.hear(*value)  # type: ignore[misc]
        if latest is not None and self.problem is None:
            if self.server is None and not self._fits(latest):
                return
            if self.server is None and not latest.hidden:  # the others move on the
                self.board.set_away(  # server, never here
                    frozenset(range(len(latest.players))) - {latest.seat})
            self.server = latest
            for ply in [p for p, t in self._pending.items()
                        if p < len(latest.moves) and latest.moves[p]]:
                self._pending.pop(ply, None)
        if self.server is not None and not self._ended and self.problem is None:
            if self.server.hidden:
                self._follow_view(self.server, latest is not None)
            else:
                self._reconcile(self.server)

    def _fits(self, server: ServerGame) -> bool:
        """Whether this board plays the server's game (its rules read, on this board's
        cells); else one line says why and the seat plays nothing."""
        try:
            game, _ = server.rules()
        except OnlineGameError as exc:
            self.problem = str(exc)
        else:
            mine = self.board.game
            if game.name != mine.name or game.geometry.name != mine.geometry.name:
                self.problem = (f"game {server.id} is {game.title} on {game.geometry.name}: "
                                f"this board is set for {mine.title} on "
                                f"{mine.geometry.name} and cannot play it")
        if self.problem is not None:
            self.on_notice(Notice(self.problem, True))
            return False
        return True

    # -- hidden information: the board holds the owner's view ---------------------------
    def _follow_view(self, server: ServerGame, new: bool) -> None:
        """The server's view of the owner's seat on the board (as a linked board follows
        its referee, ``controller/board/fogsync.py``); the owner's moves go out as
        attempts, one a ply."""
        board = self.board
        if self.fog is None:
            self.fog = FogSync(board, server.seat)
        fog = self.fog
        if new and server.view is not None:
            fog.show(server.ply or 0, server.view, server.refused, server.result,
                     server.reason or None)
        fog.poll()
        if fog.waiting and fog.outbox[-1] is not self._tried and not server.ended:
            self._tried = fog.outbox[-1]
            self._outbox.put(self._tried)
        if (server.ended and board.outcome is None and board.progress.started
                and board.state not in ("game_over", "paused")):
            self._end(server)

    def _refused(self, tried: Tried) -> None:
        """The server refused the owner's attempt ``tried``: the view comes back with the
        refusal (the stream need not repeat a state it already sent)."""
        server, fog = self.server, self.fog
        if fog is None or server is None or server.view is None or tried is not self._tried:
            return
        self._tried = None
        fog.show(server.ply or 0, server.view, "illegal move")

    def _end(self, server: ServerGame) -> None:
        self._ended = True
        self.board.end_on_time(self._outcome(server, self.board.game))
        left = server.status == "timeout" and server.winner is not None
        if left:
            said = (Text("game over: the win is yours on time (a player left the game)")
                    if server.winner == server.seat
                    else Text("game over: lost on time (a player left the game)"))
        else:
            said = Text("game over: {status}",
                        status=STATUS_WORDS.get(server.status, server.status))
        self.on_notice(Notice(said))

    def _reconcile(self, server: ServerGame) -> None:
        board = self.board
        game, start = server.rules()
        try:
            p = plan(game, start, server.moves, tuple(board.position.moves))
        except OnlineGameError as exc:
            self.on_notice(Notice(text_of(exc), True))
            return
        if p.takeback:
            ahead = range(p.agree, len(board.position.moves))
            if any(ply in self._pending for ply in ahead):
                return  # our move is on its way: the server has not answered yet
            pos = start.copy()
            for move in board.position.moves[:p.agree]:
                pos.push(move)
            self._executing = None
            taken = len(board.position.moves) - p.agree
            shrank = self.server is not None and len(server.moves) < self._seen
            board.resync(pos, Text("takeback agreed: set the board back") if shrank
                         else Text("the server did not take that move: set the board back"))
            self.on_set_back(taken)
            return
        self._seen = len(server.moves)
        if p.moves and self.hold:
            return  # the board's takeback is offered: wait for the answer
        if p.moves:
            nxt = p.moves[0]
            # (a die roll or a pass changes nothing on the board: shown in any state of
            # play, also while the board asks for the roll the server made)
            ready = ("turn", "lifted", "settling") + (
                ("correction", "takeback", "choice") if nxt.kind in ("roll", "pass") else ())
            if self._executing != nxt and board.state in ready:
                self._executing = nxt
                board.execute(nxt)
            return
        if server.status in NO_RESULT:  # no game was played: the room leaves it
            self._ended = True
            return
        if server.ended and board.outcome is None and not board.not_started():
            self._end(server)

    def hear(self, who: str, text: str, mine: bool = False) -> None:
        """A line of the chat: the opponent's from the stream, or the owner's once the
        server took it (``mine``; the stream's echo of it is skipped)."""
        line = chat_text(text)
        if line and (mine or who.lower() != self.me.lower()):
            self.chat.append((who[:30], line))
            self.said += 1

    def unsent_taken_back(self) -> bool:
        """The board took back moves (not an amend): a move still held is dropped unsent.
        True when no move the server has was taken back (nothing to offer)."""
        plies = len(self.board.position.moves)
        if self._held is not None and self._held[0] >= plies:
            self._pending.pop(self._held[0], None)
            self._held = None
        server = self.server
        return server is not None and plies >= len(server.moves)

    @staticmethod
    def _outcome(server: ServerGame, game: Game | None = None) -> Outcome:
        """The board's outcome of the server's ending (its status, or the reason in the
        game's words)."""
        reason = (_REASONS.get(server.status) or (game or Game).termination(server.reason)
                  or Termination.ABANDONED)
        winners = server.winners
        if reason == Termination.TIME_FORFEIT and not winners:
            reason = Termination.TIMEOUT_DRAW  # out of time, nobody wins (the server said)
        return Outcome(winners, reason)

    def _on_move(self, move: Move) -> None:
        """A move committed on the board: the owner's goes to the server."""
        pos = self.board.position
        ply = len(pos.moves) - 1
        executed = self._executing is not None and move == self._executing
        self._executing = None
        server = self.server
        if executed or server is None or server.hidden or self.problem is not None:
            return  # (the owner's view: FogSync makes the attempt)
        last = pos.pop()
        try:
            mover = pos.game.ply_mover(pos)
            text = wire_move(pos.game, pos, move)
        finally:
            pos.push(last)
        if mover != server.seat or move.kind == "roll":
            return  # (the server rolls the dice: the roll it made is shown here)
        self._pending[ply] = text
        if self._held is not None and self._held[0] == ply:
            self._held = None  # amended (castling completed Rook first): this one goes
        if self.board.reconciler.amendable is not None:
            self._held = (ply, text, self.board.now)  # it may become castling: wait
        else:
            self._outbox.put((ply, text))

    # -- the threads ---------------------------------------------------------------------
    def close(self) -> None:
        """Stop talking to the server; the board plays on its own again (a view it held
        is let go)."""
        self._stop.set()
        self._outbox.put(None)
        if self.fog is not None:
            self.fog.detach()
            self.fog = None

    def _read(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            try:
                game: ServerGame | None = None
                for line in self.api.stream_game(self.game_id, stop=self._stop.is_set):
                    kind = line.get("type")
                    if kind == "gameFull":
                        game = game_full(line, self.me)
                    elif kind == "gameState" and game is not None:
                        game = game_state(game, line)
                    elif kind == "opponentGone":
                        self._inbox.put(("notice", Notice(
                            Text("your opponent left the game") if line.get("gone")
                            else Text("your opponent is back"))))
                        continue
                    elif kind == "chatLine":
                        if line.get("room", "player") == "player":
                            self._inbox.put(("chat", (str(line.get("username", "?")),
                                                      str(line.get("text", "")))))
                        continue
                    else:
                        continue
                    attempt = 0
                    self._inbox.put(("game", game))
                    if game.ended:
                        return
            except Unauthorized as exc:
                self._inbox.put(("notice", Notice(text_of(exc), True)))
                return
            except (StreamLost, OnlineError, OnlineGameError) as exc:
                if self._stop.is_set():
                    return
                wait = self.backoff_s[min(attempt, len(self.backoff_s) - 1)]
                attempt += 1
                self.reconnects += 1
                log.info("online: %s; reconnecting in %.1f s", exc, wait)
                if attempt == 2:
                    self._inbox.put(("notice", Notice(Text(
                        "connection to the server lost: reconnecting"), True)))
                self._stop.wait(wait)

    def _read_afresh(self) -> ServerGame | None:
        """The game as the server has it now (a new stream's ``gameFull``), read again
        while the link fails; None when the seat closes or the game cannot be read.

        Asked after a move was refused: a move whose answer was lost is refused when sent
        again, and the game stream may not have told it yet, so only a list read after
        the refusal tells a move taken from one never taken."""
        attempt = 0
        while not self._stop.is_set():
            try:
                for line in self.api.stream_game(self.game_id):
                    if line.get("type") == "gameFull":
                        return game_full(line, self.me)
            except Unauthorized as exc:
                self._inbox.put(("notice", Notice(text_of(exc), True)))
                return None
            except OnlineGameError:
                return None
            except OnlineError:
                pass
            self._stop.wait(self.backoff_s[min(attempt, len(self.backoff_s) - 1)])
            attempt += 1
        return None

    def _send(self) -> None:
        while True:
            item = self._outbox.get()
            if item is None:
                return
            tried = item if isinstance(item, Tried) else None
            ply, text = (item.ply, item.move) if isinstance(item, Tried) else item
            attempt = 0
            while not self._stop.is_set():
                try:
                    self.api.move(self.game_id, text)
                    break
                except Unauthorized as exc:
                    self._inbox.put(("notice", Notice(text_of(exc), True)))
                    return
                except OnlineError as exc:
                    message = str(exc)
                    if "HTTP 400" in message:  # refused, or taken already
                        if tried is None:
                            fresh = self._read_afresh()
                            if fresh is not None:
                                self._inbox.put(("refused", (ply, text, fresh)))
                        elif "illegal move" in message:  # the referee said no
                            self._inbox.put(("refused", tried))
                        break
                    wait = self.backoff_s[min(attempt, len(self.backoff_s) - 1)]
                    attempt += 1
                    self._stop.wait(wait)  # (a closing seat stops waiting)
