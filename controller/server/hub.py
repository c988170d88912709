"""The server's games: seeks, challenges, live games, their clocks and their events — the
truth every board and browser is told, in the Board API's shape (``docs/server.md``).

* Every move is checked by the rules here, or, in a game with hidden information, by the
  referee (:class:`~controller.link.referee.Referee`, in this process), which alone holds
  the whole position: such a game's record here is each seat's view and the ply count,
  never its moves until it has ended.
* The clocks are the server's: a seat's time runs from the game's first ply, is charged
  when the seat's move arrives, and runs out here (:meth:`Hub.check_time`).
* Dice are the server's: when the next ply is a die roll, the server rolls at once.
* Every ply is in the store before anyone is told of it (its key makes a doubled ply
  impossible), so a restarted server resumes every unfinished game and seat.

The hub is used from the web server's event loop only (one thread); a change wakes the
streams waiting on it (:class:`Signal`) and tells the hub's listeners (the link bridge).
The store is called off the loop (a thread pool, :meth:`Hub.io`), so a slow database holds
up only the game that waits for it: each game's changes are made under its own lock, in
the order they arrived, and a game's state changes only once its record is stored.
Several workers on one store (``cluster.py``'s :class:`ClusterHub`) make each change on
the game's version in the store, through the hooks ``_turn_of``, ``_keep_truth``,
``_referee_move`` and ``_refresh``; on one process they change nothing.  Referee
processes of their own (``refereeing.py``) judge through ``_start_refereed``,
``_referee_move`` and ``_reveal``.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import random
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from controller.i18n import Text
from controller.link.messages import Attempt, SeatView, Start
from controller.link.referee import Referee
from controller.rules import get_game
from controller.rules.core import Game, Outcome, RulesError, Termination
from controller.server.games import (
    Challenge,
    HubListener,
    LiveGame,
    OpenChallenge,
    PlayError,
    Retry,
    Seek,
    Signal,
    speed_of,
    status_of,
    winners_of,
)
from controller.server.ratings import Rating, update_pair
from controller.server.store import Behind, Conflict, GameRecord, Store, Unavailable
from controller.wire import read_move, variant_key, wire_move

log = logging.getLogger("fairyboard.server.hub")

T = TypeVar("T")

#: threads that wait for the store (one connection behind a lock: more would only queue)
STORE_THREADS = 4

SIDE_NAMES = ("white", "black")
HIDDEN_MOVE = ""
#: events kept per account for its event streams
KEEP_EVENTS = 100
#: ended games kept in memory (their streams' last lines); older ones come from the store
KEEP_ENDED = 200  #: a refereed ply's record in the store until its game has ended


class Hub:
    """Every seek, challenge and live game of this server, on ``store``; ``referee`` holds
    the hidden-information games."""

    def __init__(self, store: Store, referee: Referee, clock=time.monotonic,
                 dice: random.Random | None = None) -> None:
        self.store = store
        self._store_threads = ThreadPoolExecutor(STORE_THREADS, thread_name_prefix="store")
        self.listeners: list[HubListener] = []
        self.dice = dice or secrets.SystemRandom()  #: tests seed it; the product never
        self.referee = referee
        self._clock = clock
        self.games: dict[str, LiveGame] = {}
        self.seeks: list[Seek] = []
        self.challenges: dict[str, Challenge] = {}
        self.open_challenges: dict[str, OpenChallenge] = {}
        #: each account's latest events (at most KEEP_EVENTS), and how many ever
        self.events: dict[str, list[dict[str, Any]]] = {}
        self.events_count: dict[str, int] = {}
        self.account_signals: dict[str, Signal] = {}
        self.lobby = Signal()
        self._ended: list[str] = []  # ended games still in memory, oldest first
        #: games whose last change failed in the store (it may or may not hold it): read
        #: again from the store before their next change
        self._stale: set[str] = set()
        #: refereed plies the referee has judged but the store did not take: (ply, clock),
        #: written before the game's next change
        self._owed: dict[str, list[tuple[int, int | None]]] = {}

    # -- the store, off the loop ---------------------------------------------------------
    async def io(self, call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``call`` (a store method) in the store's threads: the loop serves the other
        games meanwhile."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._store_threads,
                                          functools.partial(call, *args, **kwargs))

    def close(self) -> None:
        self._store_threads.shutdown(wait=True)

    @contextlib.asynccontextmanager
    async def _changing(self, g: LiveGame) -> AsyncIterator[None]:
        """``g``'s lock held for a change; a store that cannot be reached is one line
        (503) and the game is read again from the store before its next change."""
        async with g.lock:
            if g.id in self._stale:
                await self._refresh(g)
            try:
                yield
            except Behind:  # (cluster mode: another worker's change came first)
                self._stale.add(g.id)
                raise Retry() from None
            except Unavailable:
                self._stale.add(g.id)
                log.error("store unavailable", extra={"game_id": g.id})
                raise PlayError("the store cannot be reached now: try again", 503) from None

    def _turn_of(self, g: LiveGame) -> dict[str, Any]:
        """What a change of ``g`` passes the store to take the game's turn: nothing on one
        process (:class:`~controller.server.cluster.ClusterHub`: the version it read)."""
        return {}

    async def _start_refereed(self, g: LiveGame) -> None:
        """A refereed game's secrets drawn and its seats' first views taken (here: by this
        process's referee; referee processes of their own: controller/server/refereeing.py)."""
        outs = self.referee.start(Start(g.id, g.name, g.options, "", g.seats))
        self._take_views(g, outs)
        if not g.views:
            raise PlayError("the referee refused the game", 500)
        await self._keep_truth(g)

    async def _reveal(self, g: LiveGame) -> tuple[list[str], dict[str, Any] | None]:
        """A refereed game that ends: its true moves and drawn options, public now (the
        referee's game closed)."""
        refereed = self.referee.games.get(g.id)
        return self.referee.close(g.id), refereed.options if refereed is not None else None

    async def _keep_truth(self, g: LiveGame) -> None:
        """A refereed game just started: its truth is the referee's journal here (cluster
        mode: the store, for any worker's referee)."""

    async def _refresh(self, g: LiveGame) -> None:
        """``g`` as the store has it (after a change whose storing failed)."""
        if g.refereed:  # (the referee's journal holds its truth: the store is given its plies)
            for ply, left in list(self._owed.get(g.id, [])):
                try:
                    await self.io(self.store.add_move, g.id, ply, HIDDEN_MOVE, left)
                except Conflict:
                    pass  # (it was stored after all)
                except Unavailable:
                    raise PlayError("the store cannot be reached now: try again",
                                    503) from None
                self._owed[g.id].remove((ply, left))
            self._owed.pop(g.id, None)
            self._stale.discard(g.id)
            ended = [v for v in g.views.values() if v.result is not None]
            if ended and not g.ended:  # (the owed ply ended it)
                await self._finish(g, Outcome(winners_of(ended[0].result),
                                              ended[0].reason or ""))
            return
        try:
            fresh = await self.io(self._rebuild, g.id)
        except Unavailable:
            raise PlayError("the store cannot be reached now: try again", 503) from None
        if fresh is None:
            raise PlayError("the store cannot be reached now: try again", 503)
        for name in ("pos", "moves", "ply", "times", "status", "result", "winners"):
            setattr(g, name, getattr(fresh, name))
        g.turn_started = self._clock()
        g.draw_offers.clear()
        g.takeback_offer = None
        self._stale.discard(g.id)
        log.info("game read again from the store", extra={"game_id": g.id, "ply": g.ply})
        self._changed(g)

    def _changed(self, g: LiveGame) -> None:
        """Wake ``g``'s streams and tell the listeners."""
        g.signal.fire()
        for listener in self.listeners:
            listener.game_changed(g)

    # -- starting, resuming ------------------------------------------------------------
    async def start_game(self, name: str, options: dict[str, Any], seats: list[str],
                         clock: tuple[int, int] | None, rated: bool,
                         origin: str = "", game_id: str | None = None) -> LiveGame:
        """A new game (``game_id``: the one a lobby's match in the store chose)."""
        game_id = game_id or secrets.token_hex(4)
        if options.get("chess960") and options.get("array") is None:
            options = {**options, "array": secrets.randbelow(960)}  # public from the start
        game = get_game(name, **options)
        if game.players != len(seats) or len(set(seats)) != len(seats):
            raise PlayError(Text("{game} needs {count} different players", game=game.title,
                                 count=game.players))
        await self.io(self.store.add_game, game_id, name, options, clock, rated, seats)
        g = self._live(game_id, name, options, tuple(seats), clock, rated, game)
        g.origin = origin
        if g.refereed:
            await self._start_refereed(g)
        self.games[game_id] = g
        async with self._changing(g):
            await self._roll_if_due(g)
        log.info("game started", extra={"game_id": game_id, "game": name, "seats": seats})
        for seat, account in enumerate(seats):
            self._event(account, {"type": "gameStart", "game": self._event_game(g, seat)})
        self.lobby.fire()
        self._changed(g)
        return g

    def _live(self, game_id: str, name: str, options: dict[str, Any], seats: tuple[str, ...],
              clock: tuple[int, int] | None, rated: bool, game: Game) -> LiveGame:
        pos = None if game.hidden_information else game.start()
        g = LiveGame(game_id, name, options, seats, clock, rated, game, pos,
                     times=[clock[0] if clock else 0] * len(seats),
                     turn_started=self._clock(),
                     initial=game.position_text(pos) if pos is not None else "")
        return g

    def resume(self) -> int:
        """Every unfinished game from the store (and the referee's journal): how many."""
        views: dict[str, list] = {}
        for topic_message in self.referee.resume():
            message = topic_message[1]
            if isinstance(message, SeatView):
                views.setdefault(message.game_id, []).append(topic_message)
        for game_id in self.store.unfinished_games():
            g = self._rebuild(game_id)
            if g is None:
                continue
            if g.refereed:
                self._take_views(g, views.get(game_id, []))
                if not g.views:
                    log.error("refereed game not resumed: the referee has no record",
                              extra={"game_id": game_id})
                    continue
            self.games[game_id] = g
        return len(self.games)

    def _rebuild(self, game_id: str, r: GameRecord | None = None) -> LiveGame | None:
        """A game from its record in the store (``r``, when read already; an ended game:
        its moves told, refereed or not, since they are public now)."""
        r = r or self.store.game(game_id)
        if r is None:
            return None
        try:
            game = get_game(r.game, **r.options)
            g = self._live(game_id, r.game, r.options, r.seats, r.clock, r.rated, game)
            ended = r.status != "started"
            rows = self.store.moves_with_clocks(game_id)
            for ply, (text, left) in enumerate(rows):
                mover = ply % len(g.seats)
                if g.pos is not None:
                    move = read_move(game, g.pos, text)
                    mover = game.ply_mover(g.pos)
                    g.pos.push(move)
                if g.pos is not None or ended:  # (a refereed game's: once it has ended)
                    g.moves.append(text)
                if left is not None:
                    g.times[mover] = left
        except RulesError as exc:
            log.error("game not read", extra={"game_id": game_id, "problem": str(exc)})
            return None
        g.ply = len(rows)
        g.version = r.version
        if ended:
            g.status, g.result, g.winners = r.status, r.result, r.winners
        return g

    # -- events ----------------------------------------------------------------------------
    def signal_of(self, account: str) -> Signal:
        return self.account_signals.setdefault(account, Signal())

    def _event(self, account: str, event: dict[str, Any]) -> None:
        events = self.events.setdefault(account, [])
        events.append(event)
        if len(events) > KEEP_EVENTS:  # (a stream that fell this far behind reconnects)
            del events[:len(events) - KEEP_EVENTS]
        self.events_count[account] = self.events_count.get(account, 0) + 1
        self.signal_of(account).fire()

    def events_since(self, account: str, seen: int) -> tuple[list[dict[str, Any]], int]:
        """``account``'s events after the first ``seen`` ever, and the count now (events
        dropped from memory meanwhile are skipped: the stream's reader reconnects and is
        told the games under way again)."""
        total = self.events_count.get(account, 0)
        events = self.events.get(account, [])
        new = total - seen
        return (events[-new:] if 0 < new <= len(events) else
                list(events) if new > 0 else []), total

    def ongoing(self, account: str) -> list[dict[str, Any]]:
        """A ``gameStart`` for each of ``account``'s games still being played and a
        ``challenge`` for each open challenge (what an event stream is told first)."""
        games = [{"type": "gameStart", "game": self._event_game(g, g.seats.index(account))}
                 for g in self.games.values() if not g.ended and account in g.seats]
        return games + [{"type": "challenge", "challenge": c.json()}
                        for c in self.challenges.values() if account in (c.dest, c.challenger)]

    def _event_game(self, g: LiveGame, seat: int) -> dict[str, Any]:
        out = {"gameId": g.id, "fullId": g.id, "seat": seat,
               "color": SIDE_NAMES[seat] if seat < 2 else f"seat{seat}",
               "fen": self._position_for(g, seat), "isMyTurn": not g.ended and g.turn == seat,
               "variant": {"key": variant_key(g.name, g.options), "game": g.name},
               "speed": speed_of(g.clock), "rated": g.rated,
               "seats": list(g.seats)}
        if g.ended:
            out["status"] = {"name": g.status}
            if g.winners:
                out["winners"] = list(g.winners)
        return out

    # -- what a seat is told ------------------------------------------------------------------
    def _position_for(self, g: LiveGame, seat: int) -> str:
        if g.pos is not None:
            return g.game.position_text(g.pos)
        view = g.views.get(seat)
        return view.position if view is not None else ""

    def times_now(self, g: LiveGame) -> list[int]:
        times = list(g.times)
        if g.clock is not None and not g.ended and g.ply >= 1:
            mover = g.turn
            times[mover] = max(0, times[mover] - int((self._clock() - g.turn_started) * 1000))
        return times

    def state(self, g: LiveGame, seat: int) -> dict[str, Any]:
        """``gameState`` as ``seat`` may see it (a refereed game: his view, no moves)."""
        times = self.times_now(g)
        out: dict[str, Any] = {"type": "gameState", "moves": " ".join(g.moves),
                               "wtime": times[0] if g.clock else 2_147_483_647,
                               "btime": times[1] if g.clock else 2_147_483_647,
                               "winc": g.clock[1] if g.clock else 0,
                               "binc": g.clock[1] if g.clock else 0,
                               "status": g.status, "ply": g.ply, "turn": g.turn,
                               "times": times}
        if g.refereed:
            view = g.views.get(seat)
            if view is not None:
                out["view"] = view.position
                out["check"] = view.check
                if view.refused:
                    out["refused"] = view.refused
        if g.winners:
            out["winners"] = list(g.winners)
            if len(g.seats) == 2 and len(g.winners) == 1:
                out["winner"] = SIDE_NAMES[g.winners[0]]
        if g.ended:
            out["result"] = g.result
            out["reason"] = g.reason
        for s in g.draw_offers:
            if s < 2:
                out[f"{SIDE_NAMES[s][0]}draw"] = True
        if g.draw_offers:
            out["drawOffers"] = sorted(g.draw_offers)
        if g.takeback_offer is not None:
            if g.takeback_offer < 2:
                out[f"{SIDE_NAMES[g.takeback_offer][0]}takeback"] = True
            out["takebackOffer"] = g.takeback_offer
        return out

    async def full(self, g: LiveGame, seat: int) -> dict[str, Any]:
        ratings = await self.io(lambda: [self.store.rating(a, g.name) for a in g.seats])
        players = [{"id": account, "name": account,
                    "rating": round(rating[0]) if rating else 1500}
                   for account, rating in zip(g.seats, ratings, strict=True)]
        out = {"type": "gameFull", "id": g.id, "rated": g.rated,
               "variant": {"key": variant_key(g.name, g.options), "name": g.game.title,
                           "short": g.name[:3], "game": g.name},
               "options": g.options, "speed": speed_of(g.clock), "perf": {"name": g.name},
               "createdAt": 0, "seat": seat, "seats": players,
               "white": players[0], "black": players[1],
               "initialFen": (g.initial if g.pos is not None else "startpos"),
               "state": self.state(g, seat)}
        if g.clock is not None:
            out["clock"] = {"initial": g.clock[0], "increment": g.clock[1]}
        return out

    # -- playing ---------------------------------------------------------------------------
    async def game_of(self, game_id: str) -> LiveGame:
        """A game being played, or one ended (from the store once out of memory)."""
        g = self.games.get(game_id)
        if g is None and len(game_id) <= 16 and game_id.isalnum():
            g = await self.io(self._rebuild, game_id)
            if g is not None and not g.ended:
                g = None  # (every unfinished game is in memory since the start)
        if g is None:
            raise PlayError("no such game", 404)
        return g

    def out_of_time(self, g: LiveGame) -> bool:
        """Whether the seat to move has run out of time (the game not ended yet)."""
        return (g.clock is not None and not g.ended and g.ply >= 1
                and self.times_now(g)[g.turn] <= 0)

    async def check_time(self, g: LiveGame) -> None:
        """End the game when the seat to move has run out of time."""
        if not self.out_of_time(g):
            return
        with contextlib.suppress(Retry):  # (another worker changed or ended it first)
            async with self._changing(g):
                await self._check_time(g)

    async def _check_time(self, g: LiveGame) -> None:
        """:meth:`check_time` with ``g``'s lock held."""
        if not self.out_of_time(g):
            return
        mover = g.turn
        g.times[mover] = 0
        if g.pos is not None:
            outcome = g.game.timeout_outcome(g.pos, mover)
        else:
            outcome = Outcome(tuple(s for s in range(len(g.seats)) if s != mover),
                              Termination.TIME_FORFEIT)
        await self._finish(g, outcome)

    async def move(self, account: str, game_id: str, text: str) -> None:
        g = await self.game_of(game_id)
        seat = g.seat_of(account)
        now = self._clock()  # (the move's time is when it came, not when its turn in the lock)

        async def move() -> None:
            await self._check_time(g)
            if g.ended:
                raise PlayError("the game is over")
            if g.turn != seat:
                raise PlayError("not your turn")
            await self._move(g, seat, account, text.strip()[:200], max(now, g.turn_started))
        await self._judged_again(g, move)

    async def _judged_again(self, g: LiveGame, change: Callable[[], Awaitable[None]]) -> None:
        """``change`` made with ``g``'s lock held — and made again, up to three times, on
        what the store holds when another worker's change came first (cluster mode)."""
        for tries in range(3):
            try:
                async with self._changing(g):
                    await change()
                return
            except Retry:
                if tries == 2:
                    raise

    async def _move(self, g: LiveGame, seat: int, account: str, text: str,
                    now: float) -> None:
        left = None
        if g.clock is not None:
            left = g.times[seat]
            if g.ply >= 1:
                left -= int((now - g.turn_started) * 1000)
            left += g.clock[1]
        if g.pos is not None:
            try:
                move = read_move(g.game, g.pos, text)
            except RulesError:
                raise PlayError(Text("illegal move: {move}", move=text[:40])) from None
            if move.kind == "roll":
                raise PlayError("the server rolls the die")
            wire = wire_move(g.game, g.pos, move)
            await self._record(g, wire, left)
            g.pos.push(move)
            g.moves.append(wire)
            outcome = g.game.outcome(g.pos)
        else:
            outcome = await self._referee_move(g, seat, account, text, left, now)
        if left is not None:
            g.times[seat] = left
        g.turn_started = now
        g.draw_offers.clear()
        g.takeback_offer = None
        if outcome is not None:
            await self._finish(g, outcome)
        else:
            await self._roll_if_due(g)
        self._changed(g)

    def _judge(self, g: LiveGame, seat: int, account: str, text: str) -> list:
        """The referee's judgement of ``seat``'s attempt: what it tells (a refusal is told
        to this seat alone and answered "illegal move")."""
        outs = self.referee.attempt(account, Attempt(g.id, g.ply + 1, seat, text))
        if not any(isinstance(m, SeatView) and m.ply == g.ply + 1 for _, m, _ in outs):
            self._take_views(g, outs)
            self._changed(g)
            raise PlayError("illegal move")
        return outs

    async def _referee_move(self, g: LiveGame, seat: int, account: str, text: str,
                            left: int | None, now: float) -> Outcome | None:
        """A refereed attempt judged and its ply stored (hidden): the game's outcome."""
        outs = self._judge(g, seat, account, text)
        try:
            await self._record(g, HIDDEN_MOVE, left)
        except Unavailable:  # the referee has played it: so does the hub; stored later
            self._owed.setdefault(g.id, []).append((g.ply + 1, left))
            g.ply += 1
            self._take_views(g, outs)
            if left is not None:
                g.times[seat] = left
            g.turn_started = now
            self._changed(g)
            raise
        self._take_views(g, outs)
        v = g.views[seat]
        return Outcome(winners_of(v.result), v.reason or "") if v.result is not None else None

    async def _record(self, g: LiveGame, text: str, left: int | None,
                      truth: str | None = None) -> None:
        """The ply in the store before anyone is told (the ply's key refuses a double);
        ``truth``: a refereed ply's true move (cluster mode)."""
        extra = self._turn_of(g)
        if truth is not None:
            extra["truth"] = truth
        try:
            await self.io(self.store.add_move, g.id, g.ply + 1, text, left, **extra)
        except Behind:
            raise
        except Conflict:
            raise PlayError("that ply is already played", 409) from None
        g.ply += 1
        g.version += 1

    async def _roll_if_due(self, g: LiveGame) -> None:
        """Roll the die for the seat to move when its next ply is a roll (the server's
        dice: a seat never chooses its roll)."""
        while g.pos is not None and not g.ended:
            legal = g.game.legal_moves(g.pos)
            if not legal or not all(m.kind == "roll" for m in legal):
                return
            move = self.dice.choice(legal)
            wire = wire_move(g.game, g.pos, move)
            await self._record(g, wire, None)
            g.pos.push(move)
            g.moves.append(wire)

    def _take_views(self, g: LiveGame, outs: list) -> None:
        for _, message, _ in outs:
            if isinstance(message, SeatView) and message.game_id == g.id:
                g.views[message.seat] = message

    # -- the players' acts ------------------------------------------------------------------
    async def _playing(self, account: str, game_id: str) -> tuple[LiveGame, int]:
        g = await self.game_of(game_id)
        seat = g.seat_of(account)
        if g.ended:
            raise PlayError("the game is over")
        return g, seat

    async def resign(self, account: str, game_id: str) -> None:
        g, seat = await self._playing(account, game_id)
        async with self._changing(g):
            if g.ended:
                raise PlayError("the game is over")
            others = tuple(s for s in range(len(g.seats)) if s != seat)
            await self._finish(g, Outcome(others, Termination.RESIGNATION))

    async def abort(self, account: str, game_id: str) -> None:
        g, _ = await self._playing(account, game_id)
        async with self._changing(g):
            if g.ended:
                raise PlayError("the game is over")
            if g.ply >= len(g.seats):
                raise PlayError("too late to abort: resign instead")
            await self._finish(g, None)

    async def _keep_offers(self, g: LiveGame) -> None:
        """``g``'s offers as they stand now kept (memory here; cluster mode: the store,
        on the game's version)."""

    async def draw(self, account: str, game_id: str, yes: bool) -> None:
        g, seat = await self._playing(account, game_id)
        await self._judged_again(g, lambda: self._draw(g, seat, yes))

    async def _draw(self, g: LiveGame, seat: int, yes: bool) -> None:
        if g.ended:
            raise PlayError("the game is over")
        if not yes:
            g.draw_offers.clear()  # declined (or an offer withdrawn)
        else:
            g.draw_offers.add(seat)
            if len(g.draw_offers) == len(g.seats):
                await self._finish(g, Outcome((), Termination.AGREEMENT))
                return
        await self._keep_offers(g)
        self._changed(g)

    async def takeback(self, account: str, game_id: str, yes: bool) -> None:
        g, seat = await self._playing(account, game_id)
        if g.refereed:
            raise PlayError("no takebacks in a game with hidden information")
        if len(g.seats) > 2:
            raise PlayError("takebacks are for games of two players")
        await self._judged_again(g, lambda: self._takeback(g, seat, yes))

    async def _takeback(self, g: LiveGame, seat: int, yes: bool) -> None:
        if g.ended:
            raise PlayError("the game is over")
        if not yes:
            g.takeback_offer = None
        elif g.takeback_offer is None or g.takeback_offer == seat:
            if not g.moves:
                raise PlayError("no move to take back")
            g.takeback_offer = seat
        else:
            await self._take_back(g)
            self._changed(g)
            return
        await self._keep_offers(g)
        self._changed(g)

    async def _take_back(self, g: LiveGame) -> None:
        """The last move off (and the die rolled after it): the store's, then the
        board's."""
        assert g.pos is not None
        off = []
        while len(off) < len(g.moves):
            off.append(g.pos.pop())
            if off[-1].kind != "roll":
                break
        for move in reversed(off):  # (back on until the store has taken them off)
            g.pos.push(move)
        plies = len(off)
        await self.io(self.store.take_back, g.id, plies, **self._turn_of(g))
        g.version += 1
        for _ in range(plies):
            g.pos.pop()
            g.moves.pop()
        g.ply -= plies
        g.takeback_offer = None
        g.turn_started = self._clock()

    # -- the end ----------------------------------------------------------------------------
    async def _finish(self, g: LiveGame, outcome: Outcome | None) -> None:
        """End ``g`` (None: aborted): in the store, the referee's archive, the ratings, then
        every seat's events (``g``'s lock held)."""
        if outcome is None:
            status, result, reason, winners = "aborted", None, "aborted", ()
        else:
            status = status_of(outcome.reason, outcome.winners)
            winners, result, reason = outcome.winners, outcome.result, str(outcome.reason)
        revealed: tuple[list[str], dict[str, Any] | None] | None = None
        if g.refereed:  # the moves and the drawn set-up are public now
            revealed = await self._reveal(g)
        await self.io(self._store_end, g, status, result, winners, revealed,
                      g.rated and outcome is not None and len(g.seats) == 2)
        g.version += 1
        if revealed is not None:
            g.moves = revealed[0]
        g.status, g.result, g.reason, g.winners = status, result, reason, winners
        log.info("game ended", extra={"game_id": g.id, "status": g.status,
                                      "result": g.result})
        for seat, account in enumerate(g.seats):
            self._event(account, {"type": "gameFinish", "game": self._event_game(g, seat)})
        self._changed(g)
        self.lobby.fire()
        self._ended.append(g.id)
        while len(self._ended) > KEEP_ENDED:  # (the store answers for older ones)
            self.games.pop(self._ended.pop(0), None)

    def _store_end(self, g: LiveGame, status: str, result: str | None,
                   winners: tuple[int, ...],
                   revealed: tuple[list[str], dict[str, Any] | None] | None,
                   rate: bool) -> None:
        """The end in the store (the store's threads); cluster mode: in one transaction
        on the version this worker read, so only one worker ends a game."""
        turn = self._turn_of(g)
        if turn:
            self.store.end_game(g.id, status, result, winners, turn["expect"], revealed)
        else:
            if revealed is not None:
                self.store.reveal_moves(g.id, revealed[0])
                if revealed[1] is not None:
                    self.store.reveal_options(g.id, revealed[1])
            self.store.finish_game(g.id, status, result, winners)
        if rate:
            self._rate(g, winners)

    def _rate(self, g: LiveGame, winners: tuple[int, ...]) -> None:
        ratings = []
        for account in g.seats:
            r = self.store.rating(account, g.name)
            ratings.append((Rating(*r[:3]) if r else Rating(), r[3] if r else 0))
        score = 1.0 if winners == (0,) else 0.0 if winners == (1,) else 0.5
        new = update_pair(ratings[0][0], ratings[1][0], score)
        for account, (_, count), rating in zip(g.seats, ratings, new, strict=True):
            self.store.set_rating(account, g.name, rating.rating, rating.deviation,
                                  rating.volatility, count + 1)

    # -- seeks and challenges ------------------------------------------------------------
    async def sync_lobby(self) -> None:
        """The lobby as the store has it (one process: memory is the lobby; cluster mode:
        ``lobby.py``)."""

    async def seek(self, account: str, name: str, options: dict[str, Any],
                   clock: tuple[int, int] | None, rated: bool, color: str) -> Seek:
        """A seek; matched at once with waiting ones when there are enough players."""
        seek = Seek(secrets.token_hex(4), account, name, options, clock, rated, color,
                    asyncio.get_running_loop().create_future())
        players = get_game(name, **options).players
        fitting = [s for s in self.seeks if s.fits(seek)]
        mates: list[Seek] = []
        for s in fitting:
            if s.account not in {m.account for m in mates}:
                mates.append(s)
        if len(mates) + 1 >= players:
            group = [*mates[:players - 1], seek]
            for s in group[:-1]:
                self.seeks.remove(s)
            seats = self._seat_order(group)
            try:
                g = await self.start_game(name, options, seats, clock, rated)
            except BaseException:
                self.seeks.extend(s for s in group[:-1] if not s.found.done())
                raise
            for s in group:
                if not s.found.done():
                    s.found.set_result(g.id)
        else:
            self.seeks.append(seek)
        self.lobby.fire()
        return seek

    @staticmethod
    def _seat_order(group: list[Seek]) -> list[str]:
        accounts = [s.account for s in group]
        if len(group) == 2:
            a, b = group
            if a.color == "white" or b.color == "black":
                return accounts
            if a.color == "black" or b.color == "white":
                return accounts[::-1]
        return [accounts[i] for i in _shuffled(len(accounts))]

    def cancel_seek(self, seek: Seek) -> None:
        if seek in self.seeks:
            self.seeks.remove(seek)
            self.lobby.fire()

    async def _check_challenge(self, account: str, dest: str, name: str,
                               options: dict[str, Any]) -> None:
        """A challenge's terms: another player of this server, a game of two."""
        if dest == account:
            raise PlayError("you cannot challenge yourself")
        if await self.io(self.store.account, dest) is None:
            raise PlayError("no such player", 404)
        if get_game(name, **options).players != 2:
            raise PlayError("a challenge is for two players: seek for more")

    async def challenge(self, account: str, dest: str, name: str, options: dict[str, Any],
                        clock: tuple[int, int] | None, rated: bool, color: str) -> Challenge:
        await self._check_challenge(account, dest, name, options)
        c = Challenge(secrets.token_hex(4), account, dest, name, options, clock, rated, color)
        self.challenges[c.id] = c
        for who in (account, dest):
            self._event(who, {"type": "challenge", "challenge": c.json()})
        return c

    async def answer_challenge(self, account: str, challenge_id: str,
                               accept: bool) -> LiveGame | None:
        c = self.challenges.get(challenge_id)
        if c is None or account not in (c.dest, c.challenger):
            raise PlayError("no such challenge", 404)
        if accept and account != c.dest:
            raise PlayError("only the challenged player accepts")
        del self.challenges[challenge_id]
        if not accept:
            kind = "challengeDeclined" if account == c.dest else "challengeCanceled"
            for who in (c.challenger, c.dest):
                self._event(who, {"type": kind, "challenge": c.json("declined")})
            for listener in self.listeners:
                listener.challenge_answered(c, None)
            return None
        if c.color == "white" or (c.color == "random" and secrets.randbelow(2)):
            seats = [c.challenger, c.dest]
        else:
            seats = [c.dest, c.challenger]
        g = await self.start_game(c.name, c.options, seats, c.clock, c.rated, origin=c.id)
        for listener in self.listeners:
            listener.challenge_answered(c, g)
        return g


    # -- open challenges (lichess's /api/challenge/open) ----------------------------------
    async def _check_open(self, name: str, options: dict[str, Any],
                          users: tuple[str, ...]) -> None:
        """An open challenge's terms: a game of two, and the two named players (if any)
        different players of this server."""
        if get_game(name, **options).players != 2:
            raise PlayError("a challenge is for two players: seek for more")
        if users:
            if len(users) != 2 or users[0] == users[1]:
                raise PlayError("users: the two different players who may join")
            for user in users:
                if await self.io(self.store.account, user) is None:
                    raise PlayError(Text("no player {name} on this server",
                                         name=repr(user[:40])), 404)

    async def open_challenge(self, account: str, name: str, options: dict[str, Any],
                             clock: tuple[int, int] | None, rated: bool,
                             users: tuple[str, ...] = ()) -> OpenChallenge:
        await self._check_open(name, options, users)
        c = OpenChallenge(secrets.token_hex(4), account, name, options, clock, rated, users)
        self.open_challenges[c.id] = c
        self.lobby.fire()
        return c

    async def join_open(self, account: str, challenge_id: str,
                        color: str = "random") -> LiveGame | None:
        """``account`` takes a seat of an open challenge: the game once two have (None
        before)."""
        c = self.open_challenges.get(challenge_id)
        if c is None:
            raise PlayError("no such challenge", 404)
        if c.users and account not in c.users:
            raise PlayError("this challenge is for other players", 403)
        if color not in ("white", "black", "random"):
            raise PlayError("color is white, black or random")
        if any(who == account for who, _ in c.joined):
            raise PlayError("you have taken a seat of this challenge already")
        if c.joined and color != "random" and c.joined[0][1] == color:
            raise PlayError(Text("white is taken") if color == "white"
                            else Text("black is taken"))
        c.joined.append((account, color))
        if len(c.joined) < 2:
            return None
        del self.open_challenges[c.id]
        (first, first_color), (second, second_color) = c.joined
        if first_color == "white" or second_color == "black":
            seats = [first, second]
        elif first_color == "black" or second_color == "white":
            seats = [second, first]
        else:
            seats = [first, second] if secrets.randbelow(2) else [second, first]
        try:
            return await self.start_game(c.name, c.options, seats, c.clock, c.rated,
                                         origin=c.id)
        finally:
            self.lobby.fire()

    async def cancel_open(self, account: str, challenge_id: str) -> None:
        """The maker withdraws an open challenge (or a player who joined leaves it)."""
        c = self.open_challenges.get(challenge_id)
        if c is None:
            raise PlayError("no such challenge", 404)
        if account == c.maker:
            del self.open_challenges[c.id]
        elif any(who == account for who, _ in c.joined):
            c.joined = [j for j in c.joined if j[0] != account]
        else:
            raise PlayError("no such challenge", 404)
        self.lobby.fire()


def _shuffled(n: int) -> list[int]:
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = secrets.randbelow(i + 1)
        order[i], order[j] = order[j], order[i]
    return order
