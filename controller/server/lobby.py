"""The lobby of several workers (cluster mode; docs/server.md, "Growing past one
machine"): seeks, challenges and open challenges live in the store, so two players meet
whichever workers they reach.

* **The store decides.** A seek is matched under the lobby's row lock
  (:meth:`~controller.server.store.Store.match_seek`): the waiting seeks it takes are
  taken for one game, and two fitting seeks never both wait.  A challenge is accepted,
  declined, cancelled or joined by a compare-and-set on its version
  (:meth:`~controller.server.store.Store.change_challenge`): of two workers accepting one
  challenge at once exactly one starts its game; the other answers ``no such
  challenge``.
* **Memory mirrors the store.** ``seeks``, ``challenges`` and ``open_challenges`` are the
  store's as last read (:meth:`StoreLobby.sync_lobby`): after this worker's own change,
  when another worker's notice comes (``cluster/lobby``: the lobby's version only, no
  terms, no player), and when the sweep finds the lobby's version moved.  Each reading
  tells this worker's event streams what changed since the last (``challenge``,
  ``challengeDeclined``, ``challengeCanceled``), so an account's stream on any worker
  hears of a challenge once; its ``gameStart`` comes with the game (``cluster.py``).
* A seek waits for its maker's stream on the worker that holds it: that worker's death
  (its last will) withdraws its seeks, as lichess withdraws a seek whose stream closed.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from typing import Any

from controller.i18n import Text
from controller.rules import get_game
from controller.server.games import Challenge, LiveGame, OpenChallenge, PlayError, Retry, Seek
from controller.server.store import ChallengeRecord, SeekRecord

log = logging.getLogger("fairyboard.server.lobby")

#: how far back a worker's first reading looks for answered challenges and taken seeks
ANSWERED_S = 120.0
#: each later reading looks back from the one before by this much more (a change's time
#: is taken before its transaction commits, and the workers' clocks differ a little)
OVERLAP_S = 30.0
#: answered challenges and taken seeks are deleted this long after their last change
#: (far beyond any reading's look back), by each worker's sweep at most this often
PURGE_S = 3600.0


class StoreLobby:
    """The lobby's acts on the store, for :class:`~controller.server.cluster.ClusterHub`
    (a mixin before :class:`~controller.server.hub.Hub`, whose names it keeps)."""

    # (the hub's)
    store: Any
    worker: str
    seeks: list[Seek]
    challenges: dict[str, Challenge]
    open_challenges: dict[str, OpenChallenge]
    games: dict[str, LiveGame]
    listeners: list
    lobby: Any
    io: Any
    start_game: Any
    _event: Any
    _load: Any
    _seat_order: Any
    _check_open: Any
    _check_challenge: Any

    def _lobby_init(self) -> None:
        #: each seek's and challenge's status (and version) as this worker last read it
        self._lobby_seen: dict[str, tuple[str, int]] = {}
        self._lobby_read = asyncio.Lock()
        self._lobby_version = -1
        self._lobby_quiet = True  # (the first reading tells nothing: it is the past)
        #: this worker's seeks waiting for a game (their makers' streams wait on them)
        self._own_seeks: dict[str, Seek] = {}
        self._lobby_tasks: set[asyncio.Task] = set()
        #: readings asked for, the count asked when the last one began, and when it began
        self._lobby_asked = 0
        self._lobby_began = 0
        self._lobby_read_at = 0.0
        self._lobby_purged_at = 0.0  # (time.monotonic(); 0: not yet this run)

    def _lobby_changed(self) -> None:
        """Tell the other workers the lobby changed (cluster.py sends it)."""

    # -- reading the store's lobby ------------------------------------------------------
    async def sync_lobby(self) -> None:
        """The store's lobby mirrored here, its changes told to this worker's streams.
        Readings asked for while one waits are one: a reading that began after this one
        was asked for has read what it would."""
        self._lobby_asked += 1
        asked = self._lobby_asked
        async with self._lobby_read:
            if self._lobby_began >= asked:
                return
            self._lobby_began = self._lobby_asked
            now = time.time()
            since = (max(now - ANSWERED_S, self._lobby_read_at - OVERLAP_S)
                     if self._lobby_read_at else now - ANSWERED_S)
            version, seeks, challenges = await self.io(self.store.lobby, since,
                                                       list(self._own_seeks))
            self._lobby_read_at = now
            loop = asyncio.get_running_loop()
            seen: dict[str, tuple[str, int]] = {}
            waiting: list[Seek] = []
            for s in seeks:
                if s.status == "open":
                    own = self._own_seeks.get(s.id)
                    waiting.append(own or Seek(s.id, s.account, s.game, s.options, s.clock,
                                               s.rated, s.color, loop.create_future()))
                elif s.status == "matched" and s.id in self._own_seeks:
                    if not await self._seek_found(self._own_seeks[s.id], s.game_id):
                        continue  # (its game not in the store yet: the next reading)
                else:
                    self._own_seeks.pop(s.id, None)
                seen[s.id] = (s.status, 0)
            open_: dict[str, OpenChallenge] = {}
            direct: dict[str, Challenge] = {}
            for c in challenges:
                before = self._lobby_seen.get(c.id)
                seen[c.id] = (c.status, c.version)
                if c.kind == "open":
                    if c.status == "created":
                        open_[c.id] = OpenChallenge(c.id, c.maker, c.game, c.options, c.clock,
                                                    c.rated, c.users, list(c.joined))
                    continue
                challenge = Challenge(c.id, c.maker, c.dest or "", c.game, c.options, c.clock,
                                      c.rated, c.color)
                if c.status == "created":
                    direct[c.id] = challenge
                if self._lobby_quiet or (before is not None and before[0] == c.status):
                    continue
                if c.status == "created":
                    self._tell_both(challenge, "challenge", "created")
                elif c.status in ("declined", "canceled"):
                    kind = "challengeDeclined" if c.status == "declined" else "challengeCanceled"
                    self._tell_both(challenge, kind, "declined")
            self._lobby_quiet = False
            changed = (version != self._lobby_version or seen != self._lobby_seen)
            self._lobby_seen, self._lobby_version = seen, version
            self.seeks[:] = waiting
            self.challenges.clear()
            self.challenges.update(direct)
            self.open_challenges.clear()
            self.open_challenges.update(open_)
            if changed:
                self.lobby.fire()

    async def sync_lobby_if_moved(self) -> None:
        """The sweep's look: read the lobby again only when its version moved."""
        if await self.io(self.store.lobby_version) != self._lobby_version:
            await self.sync_lobby()

    async def purge_lobby_if_due(self, now: float | None = None) -> int:
        """The sweep's clearing: answered rows older than :data:`PURGE_S` deleted, once
        in each :data:`PURGE_S` (the store would otherwise grow with every seek)."""
        due = time.monotonic()
        if self._lobby_purged_at and due - self._lobby_purged_at < PURGE_S:
            return 0
        self._lobby_purged_at = due
        gone = await self.io(self.store.purge_lobby, (now or time.time()) - PURGE_S)
        if gone:
            log.info("answered lobby rows deleted", extra={"rows": gone})
        return gone

    def _tell_both(self, c: Challenge, kind: str, status: str) -> None:
        for who in (c.challenger, c.dest):
            self._event(who, {"type": kind, "challenge": c.json(status)})

    async def _seek_found(self, seek: Seek, game_id: str | None) -> bool:
        """A seek of this worker's taken by another's game: its stream told once the game
        is here (its seats' ``gameStart`` told first)."""
        if game_id is None:
            return True
        if game_id not in self.games:
            await self._load(game_id)
        if game_id not in self.games:
            return False
        self._own_seeks.pop(seek.id, None)
        if not seek.found.done():
            seek.found.set_result(game_id)
        return True

    async def _after_change(self) -> None:
        self._lobby_changed()
        await self.sync_lobby()

    # -- seeks ----------------------------------------------------------------------------
    async def seek(self, account: str, name: str, options: dict[str, Any],
                   clock: tuple[int, int] | None, rated: bool, color: str) -> Seek:
        """A seek, matched at once in the store with waiting ones of its terms when there
        are enough players (whichever workers made them)."""
        loop = asyncio.get_running_loop()
        seek = Seek(secrets.token_hex(4), account, name, options, clock, rated, color,
                    loop.create_future())
        record = SeekRecord(seek.id, account, name, options, clock, rated, color, self.worker)
        players = get_game(name, **options).players
        game_id = secrets.token_hex(4)
        group = await self.io(self.store.match_seek, record, players, game_id)
        if group is None:
            self._own_seeks[seek.id] = seek
            await self._after_change()
            return seek
        mates = [Seek(s.id, s.account, s.game, s.options, s.clock, s.rated, s.color,
                      loop.create_future()) for s in group[:-1]]
        try:
            g = await self.start_game(name, options, self._seat_order([*mates, seek]),
                                      clock, rated, game_id=game_id)
        except BaseException:
            await self.io(self.store.unmatch_seeks, game_id, seek.id)
            await self._after_change()
            raise
        for s in group[:-1]:
            own = self._own_seeks.pop(s.id, None)
            if own is not None and not own.found.done():
                own.found.set_result(g.id)
        seek.found.set_result(g.id)
        await self._after_change()
        return seek

    def cancel_seek(self, seek: Seek) -> None:
        """Withdraw a waiting seek (its stream closed, or its maker's page asked): in the
        store, off the loop."""
        self._own_seeks.pop(seek.id, None)
        if seek.found.done():
            return
        task = asyncio.get_running_loop().create_task(self._cancel_seek(seek.id))
        self._lobby_tasks.add(task)
        task.add_done_callback(self._lobby_tasks.discard)

    async def _cancel_seek(self, seek_id: str) -> None:
        try:
            if await self.io(self.store.cancel_seeks, [seek_id]):
                await self._after_change()
        except Exception as exc:  # (the store down: the seek waits; a match finds no stream)
            log.warning("a seek not withdrawn", extra={"problem": str(exc)[:200]})

    async def worker_gone(self, worker: str) -> None:
        """Another worker died (its last will): its seeks' streams are gone with it."""
        if worker != self.worker and await self.io(self.store.cancel_seeks,
                                                   worker=worker):
            await self._after_change()

    # -- challenges -------------------------------------------------------------------------
    async def challenge(self, account: str, dest: str, name: str, options: dict[str, Any],
                        clock: tuple[int, int] | None, rated: bool, color: str) -> Challenge:
        await self._check_challenge(account, dest, name, options)
        c = Challenge(secrets.token_hex(4), account, dest, name, options, clock, rated, color)
        await self.io(self.store.add_challenge, ChallengeRecord(
            c.id, "challenge", account, dest, name, options, clock, rated, color))
        await self._after_change()  # (its "challenge" event told by the reading)
        return c

    async def answer_challenge(self, account: str, challenge_id: str,
                               accept: bool) -> LiveGame | None:
        record = await self.io(self.store.challenge_record, challenge_id)
        if (record is None or record.kind != "challenge" or record.status != "created"
                or account not in (record.dest, record.maker)):
            raise PlayError("no such challenge", 404)
        c = Challenge(record.id, record.maker, record.dest or "", record.game, record.options,
                      record.clock, record.rated, record.color)
        if accept and account != c.dest:
            raise PlayError("only the challenged player accepts")
        if not accept:
            status = "declined" if account == c.dest else "canceled"
            if not await self.io(self.store.change_challenge, c.id, record.version, status):
                raise PlayError("no such challenge", 404)  # (accepted meanwhile)
            await self._after_change()
            for listener in self.listeners:
                listener.challenge_answered(c, None)
            return None
        if c.color == "white" or (c.color == "random" and secrets.randbelow(2)):
            seats = [c.challenger, c.dest]
        else:
            seats = [c.dest, c.challenger]
        try:
            g = await self._take_for_game(record, "accepted", (), seats)
        except Retry:  # (another worker's accept came first: its game is the one)
            raise PlayError("no such challenge", 404) from None
        for listener in self.listeners:
            listener.challenge_answered(c, g)
        return g

    async def _take_for_game(self, record: ChallengeRecord, status: str,
                             joined: tuple[tuple[str, str], ...] | list,
                             seats: list[str]) -> LiveGame:
        """The challenge taken for a new game (a compare-and-set on its version: exactly
        one worker's take succeeds), then the game started."""
        game_id = secrets.token_hex(4)
        if not await self.io(self.store.change_challenge, record.id, record.version,
                             status, list(joined) if joined else None, game_id):
            raise Retry()
        try:
            g = await self.start_game(record.game, record.options, seats, record.clock,
                                      record.rated, origin=record.id, game_id=game_id)
        except BaseException:
            await self._give_back(record, game_id)
            raise
        finally:
            await self._after_change()
        return g

    async def _give_back(self, record: ChallengeRecord, game_id: str) -> None:
        """A challenge taken for a game that could not be started waits again, as it was
        (unless the game was stored after all: then it is the challenge's game)."""
        try:
            if await self.io(self.store.give_back_challenge, record.id, game_id,
                             list(record.joined)):
                log.info("a challenge given back", extra={"challenge": record.id})
        except Exception as exc:  # (the store gone too: it stays taken, one line)
            log.warning("a challenge not given back", extra={
                "challenge": record.id, "problem": str(exc)[:200]})

    # -- open challenges ---------------------------------------------------------------------
    async def open_challenge(self, account: str, name: str, options: dict[str, Any],
                             clock: tuple[int, int] | None, rated: bool,
                             users: tuple[str, ...] = ()) -> OpenChallenge:
        await self._check_open(name, options, users)
        c = OpenChallenge(secrets.token_hex(4), account, name, options, clock, rated, users)
        await self.io(self.store.add_challenge, ChallengeRecord(
            c.id, "open", account, None, name, options, clock, rated, "random", users))
        await self._after_change()
        return c

    async def join_open(self, account: str, challenge_id: str,
                        color: str = "random") -> LiveGame | None:
        """``account`` takes a seat of an open challenge (a compare-and-set on its
        version, judged again on what another worker stored first): the game once two
        have."""
        if color not in ("white", "black", "random"):
            raise PlayError("color is white, black or random")
        for tries in range(3):
            record = await self.io(self.store.challenge_record, challenge_id)
            if record is None or record.kind != "open" or record.status != "created":
                raise PlayError("no such challenge", 404)
            if record.users and account not in record.users:
                raise PlayError("this challenge is for other players", 403)
            if any(who == account for who, _ in record.joined):
                raise PlayError("you have taken a seat of this challenge already")
            if record.joined and color != "random" and record.joined[0][1] == color:
                raise PlayError(Text("white is taken") if color == "white"
                                else Text("black is taken"))
            joined = [*record.joined, (account, color)]
            try:
                if len(joined) < 2:
                    if not await self.io(self.store.change_challenge, record.id,
                                         record.version, "created", joined):
                        raise Retry()
                    await self._after_change()
                    return None
                (first, first_color), (second, second_color) = joined
                if first_color == "white" or second_color == "black":
                    seats = [first, second]
                elif first_color == "black" or second_color == "white":
                    seats = [second, first]
                else:
                    seats = [first, second] if secrets.randbelow(2) else [second, first]
                return await self._take_for_game(record, "accepted", joined, seats)
            except Retry:
                if tries == 2:
                    raise
        return None  # (not reached)

    async def cancel_open(self, account: str, challenge_id: str) -> None:
        """The maker withdraws an open challenge (or a player who joined leaves it)."""
        record = await self.io(self.store.challenge_record, challenge_id)
        if record is None or record.kind != "open" or record.status != "created":
            raise PlayError("no such challenge", 404)
        if account == record.maker:
            done = await self.io(self.store.change_challenge, record.id, record.version,
                                 "canceled")
        elif any(who == account for who, _ in record.joined):
            done = await self.io(self.store.change_challenge, record.id, record.version,
                                 "created", [j for j in record.joined if j[0] != account])
        else:
            raise PlayError("no such challenge", 404)
        if not done:
            raise Retry()
        await self._after_change()
