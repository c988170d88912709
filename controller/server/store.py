"""The server's store: every account, device, game, seat, move, result and rating through
one schema, on SQLite (the default: one file, stdlib ``sqlite3`` in WAL mode) or PostgreSQL
(``psycopg`` 3, by configuration).

The schema is the numbered SQL files in ``migrations/`` (package data), each applied once
in its own transaction and recorded in ``schema_version``; the SQL is plain enough for both
databases, written with ``?`` placeholders (turned into ``%s`` for PostgreSQL).  One
connection behind a lock: the first floor's server is one process, and the web tier holds
no state of its own besides what is here and in the referee (docs/server.md).
"""

from __future__ import annotations

import contextlib
import json
import re
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

SQLITE_DEFAULT = "fairyboard-server.sqlite3"


class StoreError(RuntimeError):
    """The database cannot be opened or migrated (one line, no password in it)."""


class Conflict(StoreError):
    """A row that must be unique already exists (a taken name, a ply already played)."""


class Behind(Conflict):
    """The game changed in the store since this worker read it (another worker's change,
    cluster mode): nothing was written; read the game again."""


class Unavailable(StoreError):
    """The database cannot be reached now (restarted, down, its disk failing): the change
    asked for may or may not have been made; the next call connects again."""


class _Guard:
    """The store's lock: one call at a time on the one connection; a database lost during
    the call becomes :class:`Unavailable`, and the first call after it connects again."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._lock = threading.RLock()
        self._depth = 0

    def __enter__(self) -> _Guard:
        self._lock.acquire()
        self._depth += 1
        if self._depth == 1:
            try:
                self._store._connect_if_lost()
            except Exception as exc:
                self._depth -= 1
                self._lock.release()
                raise Unavailable(f"the database cannot be reached now "
                                  f"({type(exc).__name__})") from None
        return self

    def __exit__(self, kind, exc, tb) -> bool:
        self._depth -= 1
        self._lock.release()
        if exc is not None and not isinstance(exc, StoreError) and self._store._is_lost(exc):
            raise Unavailable(f"the database cannot be reached now "
                              f"({type(exc).__name__})") from None
        return False


@dataclass(frozen=True)
class Account:
    id: str
    name: str
    password_hash: str


@dataclass(frozen=True)
class Device:
    id: str
    account: str
    name: str
    created: float
    revoked: float | None


@dataclass(frozen=True)
class GameRecord:
    id: str
    game: str
    options: dict[str, Any]
    clock: tuple[int, int] | None
    rated: bool
    status: str
    result: str | None
    winners: tuple[int, ...]
    seats: tuple[str, ...]
    created: float
    version: int = 0  #: bumped by every change in cluster mode (the row lock's turn)
    turned_at: float | None = None  #: when that change was stored (cluster mode)
    #: the public offers standing on this version (cluster mode: kept on the game's row)
    draw_offers: tuple[int, ...] = ()
    takeback_offer: int | None = None


@dataclass(frozen=True)
class LinkRecord:
    """A board's request for a game (linkbridge.py), as the store keeps it."""

    board: str
    request_id: str
    game: str | None
    challenge: str | None
    boards: dict[int, str]
    names: tuple[str, ...]
    refused: dict[int, int]
    status: str


@dataclass(frozen=True)
class SeekRecord:
    """A seek in the store (cluster mode's lobby: ``controller/server/lobby.py``)."""

    id: str
    account: str
    game: str
    options: dict[str, Any]
    clock: tuple[int, int] | None
    rated: bool
    color: str
    worker: str = ""
    status: str = "open"  #: open, matched, canceled
    game_id: str | None = None


@dataclass(frozen=True)
class ChallengeRecord:
    """A challenge (``kind`` "challenge", to ``dest``) or an open challenge ("open") in the
    store; ``version`` is its compare-and-set's."""

    id: str
    kind: str
    maker: str
    dest: str | None
    game: str
    options: dict[str, Any]
    clock: tuple[int, int] | None
    rated: bool
    color: str
    users: tuple[str, ...] = ()
    joined: tuple[tuple[str, str], ...] = ()
    status: str = "created"  #: created, accepted, declined, canceled
    game_id: str | None = None
    version: int = 0


def migrations(kind: str | None = None) -> list[tuple[int, str]]:
    """The numbered migrations shipped with the package, in order.  ``NNNN_name.sql`` is
    for every database; ``NNNN_name.KIND.sql`` only for the store of that ``kind`` (for
    another it is an empty script, recorded as applied: e.g. widening PostgreSQL's 4-byte
    ``REAL`` columns, which SQLite's 8-byte ``REAL`` never needed)."""
    folder = resources.files("controller.server") / "migrations"
    found = []
    for item in folder.iterdir():
        m = re.fullmatch(r"(\d{4})_[a-z0-9_]+(?:\.([a-z]+))?\.sql", item.name)
        if m:
            only = m.group(2)
            script = item.read_text(encoding="utf-8") if only in (None, kind) else ""
            found.append((int(m.group(1)), script))
    return sorted(found)


def _statements(script: str) -> list[str]:
    lines = [line.split("--", 1)[0] for line in script.splitlines()]
    return [s.strip() for s in "\n".join(lines).split(";") if s.strip()]


class Store:
    """The store on one database connection (:func:`open_store` picks the database)."""

    kind = "?"

    def __init__(self) -> None:
        self._lock = _Guard(self)

    # -- what each database provides ------------------------------------------------------
    def _is_lost(self, exc: BaseException) -> bool:
        """Whether ``exc`` says the database went away (not that the request was wrong)."""
        return False

    def _connect_if_lost(self) -> None:
        """Connect again when the connection was lost (the guard calls it)."""

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        raise NotImplementedError

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        raise NotImplementedError
        yield

    def _is_unique_violation(self, exc: Exception) -> bool:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    # -- schema -------------------------------------------------------------------------------
    def migrate(self) -> int:
        """Apply every migration not yet applied; the schema's version afterwards."""
        with self._lock:
            with self._transaction():
                self._execute("CREATE TABLE IF NOT EXISTS schema_version "
                              "(version INTEGER PRIMARY KEY, applied DOUBLE PRECISION NOT NULL)")
            done = {r[0] for r in self._execute("SELECT version FROM schema_version")}
            for number, script in migrations(self.kind):
                if number in done:
                    continue
                with self._transaction():
                    for statement in _statements(script):
                        self._execute(statement)
                    self._execute("INSERT INTO schema_version VALUES (?, ?)",
                                  (number, time.time()))
            return self.version()

    def version(self) -> int:
        rows = self._execute("SELECT MAX(version) FROM schema_version")
        return int(rows[0][0] or 0)

    def _write(self, sql: str, params: Sequence[Any] = ()) -> None:
        with self._lock:
            try:
                with self._transaction():
                    self._execute(sql, params)
            except Exception as exc:
                if self._is_unique_violation(exc):
                    raise Conflict("already there") from None
                raise

    def _read(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        with self._lock:
            return self._execute(sql, params)

    # -- accounts -------------------------------------------------------------------------------
    def add_account(self, name: str, password_hash: str) -> Account:
        account = Account(name.lower(), name, password_hash)
        self._write("INSERT INTO accounts VALUES (?, ?, ?, ?)",
                    (account.id, account.name, password_hash, time.time()))
        return account

    def account(self, name: str) -> Account | None:
        rows = self._read("SELECT id, name, password_hash FROM accounts WHERE id = ?",
                          (name.lower(),))
        return Account(*rows[0]) if rows else None

    # -- devices (boards' tokens) ---------------------------------------------------------
    def add_device(self, device_id: str, account: str, name: str, token_hash: str,
                   broker_hash: str | None = None) -> None:
        self._write("INSERT INTO devices (id, account, name, token_hash, created, revoked, "
                    "broker_hash) VALUES (?, ?, ?, ?, ?, NULL, ?)",
                    (device_id, account, name, token_hash, time.time(), broker_hash))

    def devices(self, account: str) -> list[Device]:
        rows = self._read("SELECT id, account, name, created, revoked FROM devices "
                          "WHERE account = ? ORDER BY created", (account,))
        return [Device(*r) for r in rows]

    def device_owner(self, device_id: str) -> str | None:
        """The account of an unrevoked device (a board linked over MQTT logs in as it)."""
        rows = self._read("SELECT account FROM devices WHERE id = ? AND revoked IS NULL",
                          (device_id,))
        return rows[0][0] if rows else None

    def revoke_device(self, device_id: str, account: str) -> bool:
        """Revoke ``account``'s device (another account's is left alone): whether it was."""
        with self._lock:
            rows = self._execute("SELECT revoked FROM devices WHERE id = ? AND account = ?",
                                 (device_id, account))
            if not rows or rows[0][0] is not None:
                return False
            self._write("UPDATE devices SET revoked = ? WHERE id = ?", (time.time(), device_id))
            return True

    def broker_logins(self) -> list[tuple[str, str]]:
        """(device id, broker hash) of every unrevoked board that has a broker login."""
        rows = self._read("SELECT id, broker_hash FROM devices WHERE revoked IS NULL "
                          "AND broker_hash IS NOT NULL ORDER BY id")
        return [(r[0], r[1]) for r in rows]

    def device_account(self, token_hash: str) -> str | None:
        """The account of an unrevoked device token's hash."""
        rows = self._read("SELECT account FROM devices WHERE token_hash = ? AND revoked IS NULL",
                          (token_hash,))
        return rows[0][0] if rows else None

    # -- games ------------------------------------------------------------------------------
    def add_game(self, game_id: str, game: str, options: dict[str, Any],
                 clock: tuple[int, int] | None, rated: bool, seats: Sequence[str]) -> None:
        with self._lock:
            try:
                with self._transaction():
                    self._execute(
                        "INSERT INTO games (id, game, options, clock_initial_ms, "
                        "clock_increment_ms, rated, created) VALUES (?, ?, ?, ?, ?, ?, ?)",
                        (game_id, game, json.dumps(options, sort_keys=True),
                         clock[0] if clock else None, clock[1] if clock else None,
                         int(rated), time.time()))
                    for seat, account in enumerate(seats):
                        self._execute("INSERT INTO seats VALUES (?, ?, ?)",
                                      (game_id, seat, account))
            except Exception as exc:
                if self._is_unique_violation(exc):
                    raise Conflict(f"game {game_id} exists") from None
                raise

    def add_move(self, game_id: str, ply: int, move: str, left_ms: int | None = None,
                 expect: int | None = None, truth: str | None = None,
                 views: Mapping[int, str] | None = None) -> None:
        """Ply ``ply`` (1-based) of the game and its mover's clock after it;
        :class:`Conflict` if that ply is played.  ``expect`` (cluster mode): the game's
        version the mover judged it on (:meth:`_take_turn`); ``truth``: a refereed ply's
        true move, kept for the referee of any worker; ``views``: each seat's view after
        it (a referee process's ply: what the workers stream), in the same transaction."""
        with self._lock:
            try:
                with self._transaction():
                    self._take_turn(game_id, expect)
                    self._execute("INSERT INTO moves (game, ply, move, left_ms, at, truth) "
                                  "VALUES (?, ?, ?, ?, ?, ?)",
                                  (game_id, ply, move, left_ms, time.time(), truth))
                    self._set_views(game_id, views or {})
            except Exception as exc:
                if self._is_unique_violation(exc):
                    raise Conflict("already there") from None
                raise

    def _take_turn(self, game_id: str, expect: int | None) -> None:
        """Within a change's transaction: with ``expect``, the game's row locked until the
        commit and its version bumped if it is still ``expect`` and the game unfinished,
        else :class:`Behind` — so of two workers changing one version of a game exactly
        one writes (PostgreSQL's ``UPDATE`` holds the row; SQLite's writer holds the file).
        Without it (one process) nothing is checked."""
        if expect is None:
            return
        if not self._execute("UPDATE games SET version = version + 1, turned_at = ?, "
                             "offers = NULL "
                             "WHERE id = ? AND version = ? AND status = 'started' "
                             "RETURNING version", (time.time(), game_id, expect)):
            raise Behind(f"game {game_id} changed since version {expect}")

    def set_offers(self, game_id: str, draws: Sequence[int], takeback: int | None,
                   expect: int) -> None:
        """Cluster mode: the game's public offers on version ``expect`` (its version bumped,
        :class:`Behind` if another worker changed it first), so two offers made on two
        workers at once are both kept; the clock's ``turned_at`` is left as it was."""
        offers = json.dumps({"draws": sorted(draws), "takeback": takeback})
        with self._lock, self._transaction():
            if not self._execute("UPDATE games SET version = version + 1, offers = ? "
                                 "WHERE id = ? AND version = ? AND status = 'started' "
                                 "RETURNING version", (offers, game_id, expect)):
                raise Behind(f"game {game_id} changed since version {expect}")

    def set_truth(self, game_id: str, options: dict[str, Any],
                  views: Mapping[int, str] | None = None) -> None:
        """A refereed game's true options (the drawn set-up), for any worker's referee;
        ``views``: each seat's first view (a referee process's game)."""
        with self._lock, self._transaction():
            self._execute("UPDATE games SET truth = ? WHERE id = ?",
                          (json.dumps(options, sort_keys=True), game_id))
            self._set_views(game_id, views or {})

    def _set_views(self, game_id: str, views: Mapping[int, str]) -> None:
        for seat, view in sorted(views.items()):
            self._execute("INSERT INTO seat_views (game, seat, view) VALUES (?, ?, ?) "
                          "ON CONFLICT (game, seat) DO UPDATE SET view = excluded.view",
                          (game_id, seat, view))

    def seat_views(self, game_id: str) -> dict[int, str]:
        """Each seat's view of a game refereed by a referee process (what a worker
        streams: never the truth)."""
        return {int(seat): view for seat, view in self._read(
            "SELECT seat, view FROM seat_views WHERE game = ?", (game_id,))}

    # -- referee processes' leases (controller/server/refereeing.py) --------------------
    def claim_referee(self, game_id: str, referee: str, until: float,
                      now: float) -> str | None:
        """The unfinished game's referee lease for ``referee`` until ``until``, taken if
        it is free, run out (before ``now``) or its own: who holds it afterwards (None: no
        such unfinished game).  The row's update is the compare-and-set that leaves each
        game one referee."""
        with self._lock, self._transaction():
            if self._execute("UPDATE games SET referee = ?, referee_until = ? WHERE id = ? "
                             "AND status = 'started' AND (referee IS NULL OR referee = ? "
                             "OR referee_until < ?) RETURNING id",
                             (referee, until, game_id, referee, now)):
                return referee
            rows = self._execute("SELECT referee FROM games WHERE id = ? AND "
                                 "status = 'started'", (game_id,))
        return rows[0][0] if rows else None

    def renew_referee(self, referee: str, until: float) -> set[str]:
        """Every unfinished game ``referee`` holds, its lease renewed to ``until``."""
        with self._lock, self._transaction():
            return {r[0] for r in self._execute(
                "UPDATE games SET referee_until = ? WHERE referee = ? AND "
                "status = 'started' RETURNING id", (until, referee))}

    def release_referee(self, game_id: str, referee: str) -> None:
        self._write("UPDATE games SET referee = NULL, referee_until = NULL WHERE id = ? "
                    "AND referee = ?", (game_id, referee))

    def referee_of(self, game_id: str) -> str | None:
        rows = self._read("SELECT referee FROM games WHERE id = ?", (game_id,))
        return rows[0][0] if rows else None

    def truth(self, game_id: str) -> tuple[dict[str, Any], list[str]] | None:
        """A refereed game's true options and moves (cluster mode; None when not kept):
        the referee's path alone reads them, never a player's."""
        with self._lock:
            rows = self._execute("SELECT truth FROM games WHERE id = ?", (game_id,))
            if not rows or rows[0][0] is None:
                return None
            moves = self._execute("SELECT truth, move FROM moves WHERE game = ? ORDER BY ply",
                                  (game_id,))
        return json.loads(rows[0][0]), [t if t is not None else m for t, m in moves]

    def live_versions(self) -> dict[str, int]:
        """Every unfinished game's version (a worker's sweep for changes it missed)."""
        return {r[0]: int(r[1]) for r in self._read(
            "SELECT id, version FROM games WHERE status = 'started'")}

    def reveal_moves(self, game_id: str, moves: Sequence[str]) -> None:
        """A refereed game's moves, recorded as hidden plies while it was played, once it
        has ended (a ply the record lacks is added)."""
        with self._lock, self._transaction():
            self._reveal(game_id, moves)

    def _reveal(self, game_id: str, moves: Sequence[str]) -> None:
        """:meth:`reveal_moves` within the caller's transaction."""
        now = time.time()
        for ply, move in enumerate(moves, start=1):
            if self._execute("SELECT 1 FROM moves WHERE game = ? AND ply = ?",
                             (game_id, ply)):
                self._execute("UPDATE moves SET move = ? WHERE game = ? AND ply = ?",
                              (move, game_id, ply))
            else:
                self._execute("INSERT INTO moves (game, ply, move, left_ms, at) "
                              "VALUES (?, ?, ?, NULL, ?)", (game_id, ply, move, now))

    def reveal_options(self, game_id: str, options: dict[str, Any]) -> None:
        """A refereed game's whole options (the set-up the referee drew), once it has
        ended."""
        self._write("UPDATE games SET options = ? WHERE id = ?",
                    (json.dumps(options, sort_keys=True), game_id))

    def take_back(self, game_id: str, plies: int, expect: int | None = None) -> None:
        """The last ``plies`` moves off the record (an agreed takeback)."""
        with self._lock, self._transaction():
            self._take_turn(game_id, expect)
            rows = self._execute("SELECT MAX(ply) FROM moves WHERE game = ?", (game_id,))
            last = int(rows[0][0] or 0)
            self._execute("DELETE FROM moves WHERE game = ? AND ply > ?",
                          (game_id, max(0, last - plies)))

    def moves(self, game_id: str) -> list[str]:
        return [m for m, _ in self.moves_with_clocks(game_id)]

    def moves_with_clocks(self, game_id: str) -> list[tuple[str, int | None]]:
        rows = self._read("SELECT move, left_ms FROM moves WHERE game = ? ORDER BY ply",
                          (game_id,))
        return [(r[0], r[1]) for r in rows]

    def finish_game(self, game_id: str, status: str, result: str | None,
                    winners: Sequence[int]) -> None:
        self._write("UPDATE games SET status = ?, result = ?, winners = ?, ended = ? "
                    "WHERE id = ?", (status, result, json.dumps(list(winners)), time.time(),
                                     game_id))

    def end_game(self, game_id: str, status: str, result: str | None,
                 winners: Sequence[int], expect: int,
                 revealed: tuple[list[str], dict[str, Any] | None] | None = None) -> None:
        """Cluster mode: the game's end (and a refereed game's moves and set-up, public
        now) in one transaction under its row lock, so only one worker ends a game."""
        with self._lock, self._transaction():
            self._take_turn(game_id, expect)
            if revealed is not None:
                self._reveal(game_id, revealed[0])
                if revealed[1] is not None:
                    self._execute("UPDATE games SET options = ? WHERE id = ?",
                                  (json.dumps(revealed[1], sort_keys=True), game_id))
            self._execute("UPDATE games SET status = ?, result = ?, winners = ?, "
                          "ended = ? WHERE id = ?",
                          (status, result, json.dumps(list(winners)), time.time(),
                           game_id))

    def game(self, game_id: str) -> GameRecord | None:
        rows = self._read("SELECT id, game, options, clock_initial_ms, clock_increment_ms, "
                          "rated, status, result, winners, created, version, turned_at, "
                          "offers FROM games WHERE id = ?",
                          (game_id,))
        if not rows:
            return None
        r = rows[0]
        seats = self._read("SELECT account FROM seats WHERE game = ? ORDER BY seat", (game_id,))
        offers = json.loads(r[12]) if r[12] else {}
        return GameRecord(r[0], r[1], json.loads(r[2]),
                          (int(r[3]), int(r[4])) if r[3] is not None else None, bool(r[5]),
                          r[6], r[7], tuple(json.loads(r[8] or "[]")),
                          tuple(s[0] for s in seats), float(r[9]), int(r[10]),
                          float(r[11]) if r[11] is not None else None,
                          tuple(offers.get("draws", ())), offers.get("takeback"))

    def games_of(self, account: str, unfinished: bool = False) -> list[str]:
        """Ids of ``account``'s games, oldest first (only those still being played)."""
        sql = ("SELECT g.id FROM games g JOIN seats s ON s.game = g.id WHERE s.account = ?"
               + (" AND g.status = 'started'" if unfinished else "") + " ORDER BY g.created")
        return [r[0] for r in self._read(sql, (account,))]

    def unfinished_games(self) -> list[str]:
        return [r[0] for r in self._read(
            "SELECT id FROM games WHERE status = 'started' ORDER BY created")]

    # -- sessions ------------------------------------------------------------------------------
    def add_session(self, id_hash: str, account: str, csrf: str, expires: float) -> None:
        self._write("INSERT INTO sessions VALUES (?, ?, ?, ?)", (id_hash, account, csrf, expires))

    def session(self, id_hash: str) -> tuple[str, str] | None:
        """The account and CSRF token of an unexpired session."""
        rows = self._read("SELECT account, csrf FROM sessions WHERE id_hash = ? AND expires > ?",
                          (id_hash, time.time()))
        return (rows[0][0], rows[0][1]) if rows else None

    def end_session(self, id_hash: str) -> None:
        self._write("DELETE FROM sessions WHERE id_hash = ?", (id_hash,))

    # -- ratings -------------------------------------------------------------------------------
    def rating(self, account: str, game: str) -> tuple[float, float, float, int] | None:
        rows = self._read("SELECT rating, deviation, volatility, games FROM ratings "
                          "WHERE account = ? AND game = ?", (account, game))
        return tuple(rows[0]) if rows else None  # type: ignore[return-value]

    def set_rating(self, account: str, game: str, rating: float, deviation: float,
                   volatility: float, games: int) -> None:
        with self._lock, self._transaction():
            self._execute("DELETE FROM ratings WHERE account = ? AND game = ?", (account, game))
            self._execute("INSERT INTO ratings VALUES (?, ?, ?, ?, ?, ?)",
                          (account, game, rating, deviation, volatility, games))

    # -- the lobby (cluster mode: controller/server/lobby.py) ---------------------------
    _SEEK_COLUMNS = ("id, account, game, options, clock_initial_ms, clock_increment_ms, "
                     "rated, color, worker, status, game_id")
    _CHALLENGE_COLUMNS = ("id, kind, maker, dest, game, options, clock_initial_ms, "
                          "clock_increment_ms, rated, color, users, joined, status, game_id, "
                          "version")

    def _bump_lobby(self) -> int:
        """Within a lobby change's transaction: the lobby's version bumped, its row locked
        until the commit (PostgreSQL; SQLite's writer holds the file): lobby changes are
        made one at a time across every worker."""
        return int(self._execute("UPDATE lobby_version SET version = version + 1 "
                                 "WHERE id = 1 RETURNING version")[0][0])

    def lobby_version(self) -> int:
        return int(self._read("SELECT version FROM lobby_version WHERE id = 1")[0][0])

    def lobby(self, since: float, seeks: Sequence[str] = ()
              ) -> tuple[int, list[SeekRecord], list[ChallengeRecord]]:
        """The lobby's version, and every waiting seek and challenge with those that
        changed after ``since`` (seconds since the epoch) and the ``seeks`` named."""
        named = " OR id IN (" + ", ".join("?" * len(seeks)) + ")" if seeks else ""
        with self._lock, self._transaction():
            version = int(self._execute("SELECT version FROM lobby_version WHERE id = 1")[0][0])
            rows = self._execute(f"SELECT {self._SEEK_COLUMNS} FROM lobby_seeks "
                                 f"WHERE status = 'open' OR changed > ?{named} ORDER BY created",
                                 (since, *seeks))
            challenges = self._execute(f"SELECT {self._CHALLENGE_COLUMNS} FROM "
                                       "lobby_challenges WHERE status = 'created' OR "
                                       "changed > ? ORDER BY created", (since,))
        return version, [_seek_record(r) for r in rows], [_challenge_record(r)
                                                          for r in challenges]

    def match_seek(self, seek: SeekRecord, players: int, game_id: str
                   ) -> list[SeekRecord] | None:
        """``seek`` matched with waiting seeks of its terms (other players', oldest first),
        all taken for ``game_id`` when there are enough: the seeks taken (``seek`` last),
        or None and ``seek`` left waiting — under the lobby's lock, so a waiting seek is
        taken by exactly one game and two fitting seeks never both wait."""
        options = json.dumps(seek.options, sort_keys=True)
        now = time.time()
        with self._lock, self._transaction():
            self._bump_lobby()
            rows = self._execute(f"SELECT {self._SEEK_COLUMNS} FROM lobby_seeks WHERE "
                                 "status = 'open' AND game = ? AND options = ? AND rated = ? "
                                 "ORDER BY created", (seek.game, options, int(seek.rated)))
            mates: list[SeekRecord] = []
            for s in map(_seek_record, rows):
                if (s.clock == seek.clock and s.account != seek.account
                        and s.account not in {m.account for m in mates}):
                    mates.append(s)
            taken = len(mates) + 1 >= players
            self._execute("INSERT INTO lobby_seeks (id, account, game, options, "
                          "clock_initial_ms, clock_increment_ms, rated, color, worker, status, "
                          "game_id, created, changed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
                          "?, ?)",
                          (seek.id, seek.account, seek.game, options,
                           seek.clock[0] if seek.clock else None,
                           seek.clock[1] if seek.clock else None, int(seek.rated), seek.color,
                           seek.worker, "matched" if taken else "open",
                           game_id if taken else None, now, now))
            if not taken:
                return None
            group = mates[:players - 1]
            for s in group:
                self._execute("UPDATE lobby_seeks SET status = 'matched', game_id = ?, "
                              "changed = ? WHERE id = ?", (game_id, now, s.id))
        return [*group, seek]

    def unmatch_seeks(self, game_id: str, own: str) -> None:
        """The game of a match could not be started: the others' seeks wait again, the
        asker's (``own``) is withdrawn — unless the game was stored after all (it is then
        theirs: the lobby's readings find it)."""
        now = time.time()
        with self._lock, self._transaction():
            if self._execute("SELECT 1 FROM games WHERE id = ?", (game_id,)):
                return
            self._bump_lobby()
            self._execute("UPDATE lobby_seeks SET status = 'open', game_id = NULL, "
                          "changed = ? WHERE game_id = ? AND id <> ?", (now, game_id, own))
            self._execute("UPDATE lobby_seeks SET status = 'canceled', game_id = NULL, "
                          "changed = ? WHERE id = ?", (now, own))

    def cancel_seeks(self, ids: Sequence[str] = (), worker: str | None = None) -> int:
        """Waiting seeks withdrawn (by id, or every one a worker held): how many."""
        if not ids and worker is None:
            return 0
        where = ("worker = ?", [worker]) if worker is not None else (
            "id IN (" + ", ".join("?" * len(ids)) + ")", list(ids))
        with self._lock, self._transaction():
            self._bump_lobby()
            return len(self._execute(f"UPDATE lobby_seeks SET status = 'canceled', "
                                     f"changed = ? WHERE status = 'open' AND {where[0]} "
                                     "RETURNING id", [time.time(), *where[1]]))

    def add_challenge(self, c: ChallengeRecord) -> None:
        now = time.time()
        with self._lock, self._transaction():
            self._bump_lobby()
            self._execute("INSERT INTO lobby_challenges (id, kind, maker, dest, game, options, "
                          "clock_initial_ms, clock_increment_ms, rated, color, users, joined, "
                          "status, game_id, version, created, changed) VALUES (?, ?, ?, ?, ?, "
                          "?, ?, ?, ?, ?, ?, '[]', 'created', NULL, 0, ?, ?)",
                          (c.id, c.kind, c.maker, c.dest, c.game,
                           json.dumps(c.options, sort_keys=True),
                           c.clock[0] if c.clock else None, c.clock[1] if c.clock else None,
                           int(c.rated), c.color, json.dumps(list(c.users)), now, now))

    def challenge_record(self, challenge_id: str) -> ChallengeRecord | None:
        rows = self._read(f"SELECT {self._CHALLENGE_COLUMNS} FROM lobby_challenges "
                          "WHERE id = ?", (challenge_id,))
        return _challenge_record(rows[0]) if rows else None

    def change_challenge(self, challenge_id: str, expect: int, status: str,
                         joined: Sequence[tuple[str, str]] | None = None,
                         game_id: str | None = None) -> bool:
        """A waiting challenge's change made on its version ``expect`` (a compare-and-set:
        of two workers accepting it at once exactly one is told True)."""
        now = time.time()
        with self._lock, self._transaction():
            self._bump_lobby()  # (first, as every lobby change: one order of row locks)
            done = self._execute(
                "UPDATE lobby_challenges SET status = ?, game_id = ?, "
                "joined = COALESCE(?, joined), version = version + 1, changed = ? "
                "WHERE id = ? AND version = ? AND status = 'created' RETURNING version",
                (status, game_id, json.dumps([list(j) for j in joined])
                 if joined is not None else None, now, challenge_id, expect))
        return bool(done)

    def give_back_challenge(self, challenge_id: str, game_id: str,
                            joined: Sequence[tuple[str, str]]) -> bool:
        """A challenge taken for ``game_id`` whose game was never stored waits again, with
        the seats ``joined`` before it was taken (False: its game is stored after all, or
        it is not that game's)."""
        with self._lock, self._transaction():
            self._bump_lobby()
            done = self._execute(
                "UPDATE lobby_challenges SET status = 'created', game_id = NULL, joined = ?, "
                "version = version + 1, changed = ? WHERE id = ? AND game_id = ? AND "
                "NOT EXISTS (SELECT 1 FROM games WHERE id = ?) RETURNING version",
                (json.dumps([list(j) for j in joined]), time.time(), challenge_id, game_id,
                 game_id))
        return bool(done)

    def purge_lobby(self, before: float) -> int:
        """Answered challenges and taken or withdrawn seeks last changed before ``before``
        deleted (no reading looks back that far): how many."""
        with self._lock, self._transaction():
            seeks = self._execute("DELETE FROM lobby_seeks WHERE status <> 'open' AND "
                                  "changed < ? RETURNING id", (before,))
            challenges = self._execute("DELETE FROM lobby_challenges WHERE status <> "
                                       "'created' AND changed < ? RETURNING id", (before,))
        return len(seeks) + len(challenges)

    # -- boards linked over MQTT (linkbridge.py) ---------------------------------------
    _LINK_COLUMNS = "board, request_id, game, challenge, boards, names, refused, status"

    def take_link_request(self, board: str, request_id: str, boards: Mapping[int, str],
                          names: Sequence[str]) -> bool:
        """``board``'s request taken, once: a copy of it (or another worker's take) is
        told False."""
        try:
            self._write(f"INSERT INTO linked_games ({self._LINK_COLUMNS}, created) VALUES "
                        "(?, ?, NULL, NULL, ?, ?, '{}', 'asked', ?)",
                        (board, request_id, json.dumps({str(k): v for k, v in boards.items()}),
                         json.dumps(list(names)), time.time()))
        except Conflict:
            return False
        return True

    def change_link(self, board: str, request_id: str, status: str, expect: str,
                    game: str | None = None, challenge: str | None = None,
                    boards: Mapping[int, str] | None = None,
                    names: Sequence[str] | None = None) -> bool:
        """A request's change made only from status ``expect`` (of two workers linking
        one answered challenge, one is told True)."""
        with self._lock, self._transaction():
            return bool(self._execute(
                "UPDATE linked_games SET status = ?, game = COALESCE(?, game), "
                "challenge = COALESCE(?, challenge), boards = COALESCE(?, boards), "
                "names = COALESCE(?, names) WHERE board = ? AND request_id = ? "
                "AND status = ? RETURNING status",
                (status, game, challenge,
                 json.dumps({str(k): v for k, v in boards.items()}) if boards else None,
                 json.dumps(list(names)) if names else None, board, request_id, expect)))

    def set_link_refused(self, board: str, request_id: str, refused: Mapping[int, int]) -> None:
        self._write("UPDATE linked_games SET refused = ? WHERE board = ? AND request_id = ?",
                    (json.dumps({str(k): v for k, v in refused.items()}), board, request_id))

    def links(self, status: str, since: float = 0.0) -> list[LinkRecord]:
        """Every request of ``status`` (``live``: the linked games under way) made after
        ``since``."""
        rows = self._read(f"SELECT {self._LINK_COLUMNS} FROM linked_games WHERE status = ? "
                          "AND created > ? ORDER BY created", (status, since))
        return [_link_record(r) for r in rows]

    def link_of_challenge(self, challenge_id: str) -> LinkRecord | None:
        rows = self._read(f"SELECT {self._LINK_COLUMNS} FROM linked_games "
                          "WHERE challenge = ?", (challenge_id,))
        return _link_record(rows[0]) if rows else None

    # -- wrong passwords (cluster mode: counted by every worker) ------------------------
    def add_login_failure(self, keys: Sequence[str], at: float) -> None:
        with self._lock, self._transaction():
            for key in keys:
                self._execute("INSERT INTO login_failures VALUES (?, ?)", (key, at))

    def login_failures(self, key: str, since: float) -> int:
        return int(self._read("SELECT COUNT(*) FROM login_failures WHERE key = ? AND at > ?",
                              (key, since))[0][0])

    def forget_login_failures(self, before: float) -> None:
        self._write("DELETE FROM login_failures WHERE at <= ?", (before,))


def _clock_of(initial: int | None, increment: int | None) -> tuple[int, int] | None:
    return (int(initial), int(increment or 0)) if initial is not None else None


def _link_record(r: Sequence[Any]) -> LinkRecord:
    return LinkRecord(r[0], r[1], r[2], r[3], {int(k): v for k, v in json.loads(r[4]).items()},
                      tuple(json.loads(r[5])), {int(k): int(v) for k, v in
                                                json.loads(r[6]).items()}, r[7])


def _seek_record(r: Sequence[Any]) -> SeekRecord:
    return SeekRecord(r[0], r[1], r[2], json.loads(r[3]), _clock_of(r[4], r[5]), bool(r[6]),
                      r[7], r[8], r[9], r[10])


def _challenge_record(r: Sequence[Any]) -> ChallengeRecord:
    return ChallengeRecord(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]),
                           _clock_of(r[6], r[7]), bool(r[8]), r[9], tuple(json.loads(r[10])),
                           tuple((a, c) for a, c in json.loads(r[11])), r[12], r[13],
                           int(r[14]))

#: what SQLite says when its file cannot be used now (not a mistake in the request)
_SQLITE_LOST = ("disk I/O error", "database is locked", "unable to open",
                "database or disk is full", "readonly database")


class SqliteStore(Store):
    """SQLite in WAL mode: readers never wait for the writer; each change is synced."""

    kind = "sqlite"

    def __init__(self, path: str | Path) -> None:
        super().__init__()
        try:
            self._db = sqlite3.connect(str(path), isolation_level=None,
                                       check_same_thread=False, timeout=10)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA foreign_keys=ON")
            self._db.execute("PRAGMA synchronous=FULL")
        except sqlite3.Error as exc:
            raise StoreError(f"the database {path} cannot be opened ({exc})") from None

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        return self._db.execute(sql, tuple(params)).fetchall()

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        self._db.execute("COMMIT")

    def _is_unique_violation(self, exc: Exception) -> bool:
        return isinstance(exc, sqlite3.IntegrityError) and "UNIQUE" in str(exc).upper()

    def _is_lost(self, exc: BaseException) -> bool:
        return isinstance(exc, sqlite3.OperationalError) and any(
            words in str(exc) for words in _SQLITE_LOST)

    def close(self) -> None:
        self._db.close()


class PostgresStore(Store):
    """PostgreSQL through psycopg 3 (``postgresql://user@host:port/db``)."""

    kind = "postgresql"

    def __init__(self, url: str) -> None:
        super().__init__()
        import psycopg

        self._psycopg = psycopg
        self._url = url
        try:
            self._db = self._connect()
        except psycopg.Error as exc:
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise StoreError(f"PostgreSQL cannot be reached ({first[:160]})") from None

    def _connect(self):
        return self._psycopg.connect(self._url, autocommit=True, connect_timeout=10)

    def _is_lost(self, exc: BaseException) -> bool:
        return isinstance(exc, (self._psycopg.OperationalError, self._psycopg.InterfaceError))

    def _connect_if_lost(self) -> None:
        if self._db.closed or self._db.broken:
            with contextlib.suppress(Exception):
                self._db.close()
            self._db = self._connect()

    def _execute(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        cur = self._db.execute(sql.replace("?", "%s"), tuple(params))  # type: ignore[arg-type]
        return cur.fetchall() if cur.description else []

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        with self._db.transaction():
            yield

    def _is_unique_violation(self, exc: Exception) -> bool:
        return isinstance(exc, self._psycopg.errors.UniqueViolation)

    def close(self) -> None:
        self._db.close()


def open_store(url: str) -> Store:
    """The store at ``url``: ``postgresql://…`` for PostgreSQL, else a SQLite file path
    (``sqlite:///path``, four slashes for an absolute one, or a plain path); migrated to
    the newest schema."""
    if url.startswith(("postgresql://", "postgres://")):
        store: Store = PostgresStore(url)
    else:
        store = SqliteStore(url.removeprefix("sqlite:///"))
    store.migrate()
    return store
