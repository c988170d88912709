"""The server's store: the same tests on SQLite and on a real PostgreSQL (loopback)."""

from __future__ import annotations

import itertools
import sqlite3
import time

import pytest

from controller.server.store import (
    Behind,
    ChallengeRecord,
    Conflict,
    SeekRecord,
    SqliteStore,
    StoreError,
    migrations,
    open_store,
)
from tests.support.postgres import Postgres

_numbers = itertools.count()


@pytest.fixture(scope="module")
def postgres():
    pg = Postgres().start()
    yield pg
    pg.stop()


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        s = open_store(str(tmp_path / "server.sqlite3"))
    else:
        pg = request.getfixturevalue("postgres")
        s = open_store(pg.fresh_database(f"t{next(_numbers)}"))
    yield s
    s.close()


def test_migrations_are_numbered_and_recorded(store):
    numbers = [n for n, _ in migrations()]
    assert numbers == sorted(numbers) and numbers[0] == 1
    assert store.version() == numbers[-1]
    assert store.migrate() == numbers[-1]  # applying again changes nothing
    rows = store._read("SELECT version FROM schema_version ORDER BY version")
    assert [r[0] for r in rows] == numbers


def test_accounts_and_taken_names(store):
    store.add_account("Alice", "$argon2id$x")
    assert store.account("alice").name == "Alice"
    assert store.account("ALICE").password_hash == "$argon2id$x"
    with pytest.raises(Conflict):
        store.add_account("alice", "other")
    assert store.account("bob") is None


def test_devices_revocable_per_account(store):
    store.add_account("alice", "h")
    store.add_account("bob", "h")
    store.add_device("d1", "alice", "kitchen board", "hash1")
    assert store.device_account("hash1") == "alice"
    assert not store.revoke_device("d1", "bob")  # not bob's
    assert store.device_account("hash1") == "alice"
    assert store.revoke_device("d1", "alice")
    assert store.device_account("hash1") is None
    assert not store.revoke_device("d1", "alice")  # once
    assert store.devices("alice")[0].revoked is not None


def test_games_moves_results(store):
    store.add_account("alice", "h")
    store.add_account("bob", "h")
    store.add_game("g1", "chess", {"chess960": False}, (60000, 2000), True, ["alice", "bob"])
    with pytest.raises(Conflict):
        store.add_game("g1", "chess", {}, None, False, ["alice", "bob"])
    store.add_move("g1", 1, "e2e4")
    store.add_move("g1", 2, "e7e5")
    with pytest.raises(Conflict):
        store.add_move("g1", 2, "d7d5")  # a doubled ply is impossible
    assert store.moves("g1") == ["e2e4", "e7e5"]
    store.take_back("g1", 1)
    assert store.moves("g1") == ["e2e4"]
    assert store.unfinished_games() == ["g1"]
    store.finish_game("g1", "resign", "1-0", [0])
    record = store.game("g1")
    assert (record.status, record.result, record.winners) == ("resign", "1-0", (0,))
    assert record.seats == ("alice", "bob") and record.clock == (60000, 2000)
    assert record.options == {"chess960": False} and record.rated
    assert store.unfinished_games() == []
    assert store.games_of("bob") == ["g1"] and store.games_of("bob", unfinished=True) == []


def test_a_change_is_made_only_on_the_version_it_was_judged_on(store):
    """Cluster mode: each change bumps the game's version under its row lock; a change
    made on an older version (another worker's came first) or on an ended game writes
    nothing; a refereed game's truth is read back by the referee's path alone."""
    store.add_account("alice", "h")
    store.add_account("bob", "h")
    store.add_game("g2", "laotzu", {}, None, False, ["alice", "bob"])
    store.set_truth("g2", {"seed": "s3cret"})
    store.add_move("g2", 1, "", 900, expect=0, truth="e2e4")
    with pytest.raises(Behind):  # judged on version 0: another worker's ply came first
        store.add_move("g2", 2, "", 900, expect=0, truth="d7d5")
    store.add_move("g2", 2, "", 800, expect=1, truth="e7e5")
    record = store.game("g2")
    assert record.version == 2 and record.turned_at is not None
    assert store.moves("g2") == ["", ""]  # (a player's path: hidden)
    assert store.truth("g2") == ({"seed": "s3cret"}, ["e2e4", "e7e5"])
    assert store.live_versions() == {"g2": 2}
    with pytest.raises(Behind):
        store.take_back("g2", 1, expect=1)
    with pytest.raises(Behind):
        store.end_game("g2", "resign", "0-1", [1], expect=1)
    store.end_game("g2", "resign", "0-1", [1], expect=2,
                   revealed=(["e2e4", "e7e5"], {"seed": "s3cret"}))
    with pytest.raises(Behind):  # only one worker ends a game
        store.end_game("g2", "resign", "1-0", [0], expect=3)
    with pytest.raises(Behind):
        store.add_move("g2", 3, "", None, expect=3)
    record = store.game("g2")
    assert (record.status, record.winners, record.version) == ("resign", (1,), 3)
    assert store.moves("g2") == ["e2e4", "e7e5"] and record.options == {"seed": "s3cret"}
    assert store.live_versions() == {}


def test_the_lobby_takes_each_seek_and_challenge_for_one_game(store):
    """Cluster mode's lobby: a seek matched under the lobby's lock (taken once, or left
    waiting), a challenge changed only on its version (of two accepts, one), a game's
    offers kept on its version and cleared by a ply; times to the digit."""
    before = time.time()
    for name in ("alice", "bob", "carol"):
        store.add_account(name, "h")
    seek = SeekRecord("s1", "alice", "chess", {"b": 1, "a": 2}, (60_000, 0), False,
                      "random", "w1")
    assert store.match_seek(seek, 2, "g1") is None  # waiting
    assert store.match_seek(SeekRecord("s2", "alice", "chess", {"a": 2, "b": 1},
                                       (60_000, 0), False, "white", "w2"), 2, "g1") is None
    other = SeekRecord("s3", "bob", "chess", {"a": 2, "b": 1}, (60_000, 0), False, "black")
    assert [s.id for s in store.match_seek(other, 2, "g1")] == ["s1", "s3"]  # oldest first
    late = SeekRecord("s4", "carol", "chess", {"a": 2, "b": 1}, (60_000, 0), False, "random")
    assert [s.id for s in store.match_seek(late, 2, "g2")] == ["s2", "s4"]  # s1 taken
    store.unmatch_seeks("g2", "s4")  # (g2 not started: alice's seek waits again)
    version, seeks, _ = store.lobby(before - 1)
    assert {s.id: (s.status, s.game_id) for s in seeks} == {
        "s1": ("matched", "g1"), "s2": ("open", None), "s3": ("matched", "g1"),
        "s4": ("canceled", None)}
    assert version == store.lobby_version() >= 5
    assert store.cancel_seeks(worker="w2") == 1 and store.cancel_seeks(["s2"]) == 0
    assert store.lobby(time.time() + 1)[1] == []  # nothing waits, nothing new
    store.add_challenge(ChallengeRecord("c1", "challenge", "alice", "bob", "chess", {},
                                        None, True, "white"))
    c = store.challenge_record("c1")
    assert (c.status, c.version, c.clock, c.rated, c.joined) == ("created", 0, None, True, ())
    assert store.change_challenge("c1", 0, "accepted", game_id="g3")
    assert not store.change_challenge("c1", 0, "accepted", game_id="g4")  # one accept
    assert not store.change_challenge("c1", 1, "declined")  # answered already
    store.add_challenge(ChallengeRecord("o1", "open", "carol", None, "chess", {},
                                        (180_000, 2000), False, "random", ("alice", "bob")))
    assert store.change_challenge("o1", 0, "created", [("alice", "white")])
    assert not store.change_challenge("o1", 0, "created", [("bob", "random")])
    o = store.challenge_record("o1")
    assert (o.joined, o.users, o.version, o.clock) == (
        (("alice", "white"),), ("alice", "bob"), 1, (180_000, 2000))
    assert [c.id for c in store.lobby(time.time() + 1)[2]] == ["o1"]
    store.add_game("g1", "chess", {}, None, False, ["alice", "bob"])
    store.set_offers("g1", [1], None, expect=0)
    with pytest.raises(Behind):  # another worker's offer came first: read it again
        store.set_offers("g1", [0], None, expect=0)
    record = store.game("g1")
    assert (record.version, record.draw_offers, record.takeback_offer) == (1, (1,), None)
    assert record.turned_at is None  # (an offer starts no clock)
    store.add_move("g1", 1, "e2e4", expect=1)
    assert store.game("g1").draw_offers == ()  # a ply clears the offers
    after = time.time()
    for table in ("lobby_seeks", "lobby_challenges"):
        for created, changed in store._read(f"SELECT created, changed FROM {table}"):
            assert before <= created <= changed <= after, (table, created, changed, before)


def test_a_challenge_taken_for_an_unstarted_game_waits_again(store):
    """A challenge (or an open challenge's second seat) taken for a game that was never
    stored is given back as it was; taken for a stored game it stays taken. So is a
    seek's match."""
    for name in ("alice", "bob"):
        store.add_account(name, "h")
    store.add_challenge(ChallengeRecord("c1", "challenge", "alice", "bob", "chess", {},
                                        None, False, "white"))
    assert store.change_challenge("c1", 0, "accepted", game_id="g1")
    assert not store.give_back_challenge("c1", "g2", [])  # not that game's
    assert store.give_back_challenge("c1", "g1", [])
    c = store.challenge_record("c1")
    assert (c.status, c.game_id, c.version) == ("created", None, 2)
    assert store.change_challenge("c1", 2, "accepted", game_id="g3")  # accepted again
    store.add_game("g3", "chess", {}, None, False, ["bob", "alice"])
    assert not store.give_back_challenge("c1", "g3", [])  # its game is stored: taken
    assert store.challenge_record("c1").status == "accepted"
    store.add_challenge(ChallengeRecord("o1", "open", "alice", None, "chess", {}, None,
                                        False, "random"))
    assert store.change_challenge("o1", 0, "created", [("alice", "white")])
    assert store.change_challenge("o1", 1, "accepted", [("alice", "white"), ("bob", "random")],
                                  "g4")
    assert store.give_back_challenge("o1", "g4", [("alice", "white")])
    o = store.challenge_record("o1")
    assert (o.status, o.joined, o.game_id) == ("created", (("alice", "white"),), None)
    seek = SeekRecord("s1", "alice", "chess", {}, None, False, "random", "w1")
    assert store.match_seek(seek, 2, "g5") is None
    store.match_seek(SeekRecord("s2", "bob", "chess", {}, None, False, "random"), 2, "g5")
    store.add_game("g5", "chess", {}, None, False, ["alice", "bob"])
    store.unmatch_seeks("g5", "s2")  # (stored after all: the match stands)
    assert {s.id: s.status for s in store.lobby(0)[1]} == {"s1": "matched", "s2": "matched"}


def test_answered_lobby_rows_are_purged_and_waiting_ones_kept(store):
    for name in ("alice", "bob"):
        store.add_account(name, "h")
    for cid, status in (("c1", "declined"), ("c2", None), ("c3", "accepted")):
        store.add_challenge(ChallengeRecord(cid, "challenge", "alice", "bob", "chess", {},
                                            None, False, "white"))
        if status:
            assert store.change_challenge(cid, 0, status, game_id="g1")
    store.match_seek(SeekRecord("s1", "alice", "chess", {}, None, False, "random"), 2, "g2")
    store.match_seek(SeekRecord("s2", "bob", "chess", {}, None, False, "random"), 2, "g2")
    store.match_seek(SeekRecord("s3", "alice", "gnuqi", {}, None, False, "random"), 2, "g3")
    assert store.purge_lobby(time.time() - 60) == 0  # nothing answered that long ago
    assert store.purge_lobby(time.time() + 1) == 4  # c1, c3, s1, s2
    _, seeks, challenges = store.lobby(0)
    assert [s.id for s in seeks] == ["s3"] and [c.id for c in challenges] == ["c2"]
    assert store.challenge_record("c1") is None


def test_wrong_passwords_are_counted_in_the_store(store):
    store.add_login_failure(["name:alice", "address:10.0.0.1"], 100.25)
    store.add_login_failure(["name:alice"], 130.5)
    assert store.login_failures("name:alice", 100.0) == 2
    assert store.login_failures("name:alice", 100.25) == 1  # (that one's window passed)
    store.forget_login_failures(120.0)
    assert store.login_failures("address:10.0.0.1", 0) == 0
    assert store.login_failures("name:alice", 0) == 1


def test_ratings_per_game(store):
    store.add_account("alice", "h")
    store.set_rating("alice", "chess", 1510.5, 180.0, 0.06, 1)
    store.set_rating("alice", "chess", 1520.5, 170.0, 0.06, 2)
    assert store.rating("alice", "chess") == (1520.5, 170.0, 0.06, 2)
    assert store.rating("alice", "laotzu") is None


def test_times_and_ratings_are_kept_to_the_digit(store):
    """On PostgreSQL ``REAL`` is 4 bytes: seconds since the epoch came back up to a minute
    out and ratings rounded (0006 widens them; SQLite's ``REAL`` was always 8 bytes)."""
    before = time.time()
    store.add_account("alice", "h")
    store.add_account("bob", "h")
    store.add_device("d1", "alice", "kitchen board", "hash1")
    store.revoke_device("d1", "alice")
    store.add_game("g1", "chess", {}, None, False, ["alice", "bob"])
    store.add_move("g1", 1, "e2e4")
    store.finish_game("g1", "resign", "1-0", [0])
    store.add_session("s1", "alice", "csrf", before + 3600.125)
    after = time.time()
    for table, column in (("accounts", "created"), ("devices", "created"),
                          ("devices", "revoked"), ("games", "created"), ("games", "ended"),
                          ("moves", "at"), ("schema_version", "applied")):
        for (value,) in store._read(f"SELECT {column} FROM {table}"):
            assert before - 5 <= value <= after if table == "schema_version" \
                else before <= value <= after, (table, column, value, before)
    assert store._read("SELECT expires FROM sessions")[0][0] == before + 3600.125
    store.set_rating("alice", "chess", 1512.3456789, 171.234567, 0.0600123, 1)
    assert store.rating("alice", "chess") == (1512.3456789, 171.234567, 0.0600123, 1)


def test_a_failed_migration_leaves_nothing_half_done(tmp_path, monkeypatch):
    from controller.server import store as store_module

    good = migrations()
    broken = [*good, (good[-1][0] + 1, "CREATE TABLE extra (x TEXT);\nNOT SQL AT ALL;")]
    monkeypatch.setattr(store_module, "migrations", lambda kind=None: broken)
    s = SqliteStore(tmp_path / "s.sqlite3")
    with pytest.raises(sqlite3.Error):
        s.migrate()
    assert s.version() == good[-1][0]  # the good ones applied, the broken one not at all
    assert not s._read("SELECT name FROM sqlite_master WHERE name = 'extra'")


def test_sqlite_is_in_wal_mode(tmp_path):
    s = open_store(f"sqlite:///{tmp_path}/w.sqlite3")
    assert s._read("PRAGMA journal_mode")[0][0] == "wal"


def test_an_unreachable_postgresql_is_one_line():
    with pytest.raises(StoreError) as caught:
        open_store("postgresql://nobody:secretpw@127.0.0.1:1/none")
    assert "secretpw" not in str(caught.value) and "\n" not in str(caught.value)
