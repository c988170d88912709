"""The lobby across two ``fairyboard server --cluster`` workers on one real PostgreSQL and
one real Mosquitto (docs/server.md, "Growing past one machine"): a seek on one worker met
by a seek on the other, a challenge made on one accepted (or declined) on the other, one
challenge accepted on both at once and one open challenge joined on both at once — one
game each time; two draw offers on the two workers — the game ends once, drawn; a
refused attempt shown on its seat's streams on both workers; wrong passwords counted
across the workers; and (one worker's hub, in this process) a challenge whose game could not
be started waits again, and answered rows are purged by the sweep."""

from __future__ import annotations

import asyncio
import re
import threading
import time

import httpx
import pytest

from controller.link.referee import Referee
from controller.online.api import OnlineError
from controller.server.accounts import MAX_FAILURES
from controller.server.cluster import ClusterHub, ClusterSettings
from controller.server.lobby import PURGE_S
from controller.server.store import Unavailable, open_store
from tests.support.cluster import Events, Follower, challenge, refusal_shown_on_both_workers


def _at_once(*calls) -> list[str]:
    """Each call in its own thread, released together: "ok" or the refusal's line."""
    start = threading.Barrier(len(calls))
    answers = [""] * len(calls)

    def run(i: int) -> None:
        start.wait()
        try:
            calls[i]()
            answers[i] = "ok"
        except OnlineError as exc:
            answers[i] = str(exc)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    return answers


def _lobby(cluster, worker: int, token: str) -> dict:
    return cluster.client(worker, token).request("GET", "/api/lobby", "lobby")


def test_a_seek_on_one_worker_is_met_by_a_seek_on_the_other(cluster):
    a, b = cluster.player("ann"), cluster.player("ben")
    events = [Events(cluster.client(0, a[1])), Events(cluster.client(1, b[1]))]
    found: dict[str, str] = {}

    def seek(worker: int, who) -> None:
        for line in cluster.client(worker, who[1]).seek(10, 0):
            if "gameId" in line:
                found[who[0]] = line["gameId"]
                return

    first = threading.Thread(target=seek, args=(0, a), daemon=True)
    first.start()
    # ann's seek is in the store: worker 1 lists it
    _wait(lambda: [s["player"] for s in _lobby(cluster, 1, b[1])["seeks"]] == ["ann"])
    second = threading.Thread(target=seek, args=(1, b), daemon=True)
    second.start()
    for t in (first, second):
        t.join(15)
    assert found.keys() == {"ann", "ben"} and found["ann"] == found["ben"]
    gid = found["ann"]
    assert sorted(cluster.store.game(gid).seats) == ["ann", "ben"]
    for e in events:  # each account's stream, on its own worker, told the game once
        e.wait("gameStart", gid)
        assert [x["game"]["gameId"] for x in e.events if x["type"] == "gameStart"] == [gid]
    for worker, token in ((0, a[1]), (1, b[1])):
        assert _lobby(cluster, worker, token)["seeks"] == []  # taken: listed nowhere
    assert cluster.store.games_of("ann") == [gid] == cluster.store.games_of("ben")


def test_a_challenge_made_on_one_worker_is_accepted_on_the_other(cluster):
    a, b = cluster.player("cleo"), cluster.player("dan")
    events_a0, events_b1 = Events(cluster.client(0, a[1])), Events(cluster.client(1, b[1]))
    threading.Event().wait(0.3)  # (both streams open)
    c = cluster.client(0, a[1]).challenge("dan", 10, 0, color="white")["challenge"]
    told = next(iter(_wait(lambda: [e for e in events_b1.events
                                    if e["type"] == "challenge"])))
    assert told["challenge"]["id"] == c["id"]  # on the worker it was not made on
    cluster.client(1, b[1]).accept_challenge(c["id"])
    gid = _game_of(cluster, "dan")
    events_a0.wait("gameStart", gid)
    events_b1.wait("gameStart", gid)
    assert cluster.store.game(gid).seats == ("cleo", "dan")
    # and one declined on the other worker: its maker's stream is told there
    c2 = cluster.client(0, a[1]).challenge("dan", 5, 0)["challenge"]
    _wait(lambda: [e for e in events_b1.events if e.get("challenge", {}).get("id") == c2["id"]])
    cluster.client(1, b[1]).decline_challenge(c2["id"])
    declined = _wait(lambda: [e for e in events_a0.events if e["type"] == "challengeDeclined"])
    assert [e["challenge"]["id"] for e in declined] == [c2["id"]]
    with pytest.raises(OnlineError, match="no such challenge"):
        cluster.client(0, b[1]).accept_challenge(c2["id"])  # declined: on every worker


def test_one_challenge_accepted_on_both_workers_at_once_starts_one_game(cluster):
    a, b = cluster.player("eve"), cluster.player("fred")
    streams = [Events(cluster.client(w, b[1])) for w in (0, 1)]
    threading.Event().wait(0.3)  # (both streams open)
    for round_ in range(3):  # (the race goes either way)
        c = cluster.client(round_ % 2, a[1]).challenge("fred", 10, 0)["challenge"]
        for e in streams:  # the challenge is on both workers before both accept it
            _wait(lambda e=e, cid=c["id"]: [x for x in e.events if x["type"] == "challenge"
                                            and x["challenge"]["id"] == cid])
        answers = _at_once(*(lambda w=w, cid=c["id"]: cluster.client(w, b[1])
                             .accept_challenge(cid) for w in (0, 1)))
        assert sorted(answers)[1] == "ok" and "no such challenge" in sorted(answers)[0], answers
        assert len(cluster.store.games_of("fred")) == round_ + 1  # one game, never two


def test_one_open_challenge_joined_on_both_workers_at_once_starts_one_game(cluster):
    maker, x, y, z = (cluster.player(n) for n in ("gus", "hal", "ida", "jon"))
    opened = cluster.client(0, maker[1]).open_challenge(10, 0)
    cid = opened["id"]
    for worker, token in ((0, maker[1]), (1, x[1])):  # the same open list on both
        assert [o["id"] for o in _lobby(cluster, worker, token)["open"]] == [cid]
    # two players take its two seats at once on the two workers: both seated, one game
    answers = _at_once(lambda: cluster.client(0, x[1]).accept_challenge(cid),
                       lambda: cluster.client(1, y[1]).accept_challenge(cid))
    assert answers == ["ok", "ok"]
    gid = _game_of(cluster, "hal")
    assert sorted(cluster.store.game(gid).seats) == ["hal", "ida"]
    assert cluster.store.games_of("ida") == [gid]
    # one seat taken, the other taken by two at once: one of them plays
    second = cluster.client(1, maker[1]).open_challenge(10, 0)["id"]
    cluster.client(1, x[1]).accept_challenge(second)
    answers = _at_once(lambda: cluster.client(0, y[1]).accept_challenge(second),
                       lambda: cluster.client(1, z[1]).accept_challenge(second))
    assert sorted(answers)[1] == "ok" and "no such challenge" in sorted(answers)[0], answers
    games = [g for g in cluster.store.games_of("hal") if g != gid]
    assert len(games) == 1
    assert len(cluster.store.games_of("ida")) + len(cluster.store.games_of("jon")) == 2
    for worker, token in ((0, maker[1]), (1, x[1])):  # taken: listed nowhere
        assert _lobby(cluster, worker, token)["open"] == []


def test_two_draw_offers_on_the_two_workers_at_once_end_the_game_once(cluster):
    a, b = cluster.player("kay"), cluster.player("lou")
    for _ in range(2):
        gid = challenge(cluster, a, b)
        watchers = [Follower(cluster.client(w, a[1]), gid) for w in (0, 1)]
        for w in watchers:
            w.wait_ply(0)
        cluster.client(0, a[1]).move(gid, "e2e4")
        cluster.client(1, b[1]).move(gid, "e7e5")
        answers = _at_once(lambda gid=gid: cluster.client(0, a[1]).draw(gid),
                           lambda gid=gid: cluster.client(1, b[1]).draw(gid))
        assert answers == ["ok", "ok"], answers
        record = cluster.store.game(gid)
        assert record.status == "draw" and record.result == "1/2-1/2"
        for w in watchers:
            w.join(10)
            ends = [line for line in w.lines if line.get("status", "started") != "started"]
            assert len(ends) == 1 and ends[0]["status"] == "draw"


def test_a_draw_offer_stored_is_seen_by_the_other_worker_without_the_broker(cluster):
    """The offer is the store's: with the broker down the other worker knows nothing of it
    until it tries its own on the game's version, which the store refuses: read again, the
    two offers agree and the game ends drawn, once."""
    a, b = cluster.player("max"), cluster.player("ned")
    gid = challenge(cluster, a, b)
    Follower(cluster.client(1, b[1]), gid).wait_ply(0)  # (worker 1 holds the game)
    connected = [len(w.records("cluster connected")) for w in cluster.workers]
    cluster.broker.stop()
    try:
        cluster.client(0, a[1]).draw(gid)
        cluster.client(1, b[1]).draw(gid)  # at once: before any sweep of worker 1
        record = cluster.store.game(gid)
        assert record.status == "draw" and record.version == 2  # an offer, one end
    finally:
        cluster.broker.start()
        # (the next tests' notices need both workers logged in again: paho waits 1–10 s)
        _wait(lambda: all(len(w.records("cluster connected")) > n
                          for w, n in zip(cluster.workers, connected, strict=True)), 20)


def test_a_refused_attempt_is_shown_on_the_seats_streams_on_both_workers(cluster):
    refusal_shown_on_both_workers(cluster, cluster.player("pia"), cluster.player("quin"))


def test_wrong_passwords_are_counted_across_the_workers(cluster):
    cluster.player("olga")
    browsers = [httpx.Client(base_url=w.url) for w in cluster.workers]

    def log_in(worker: int, password: str) -> httpx.Response:
        browser = browsers[worker]
        token = re.search(r"name=csrf value='([^']+)'", browser.get("/").text).group(1)
        return browser.post("/login", data={"name": "olga", "password": password,
                                            "csrf": token})

    for i in range(MAX_FAILURES):  # three on one worker, two on the other
        wrong = log_in(i % 2, "wrong-guess")
        assert wrong.status_code == 400 and "wrong name or password" in wrong.text
    for worker in (0, 1):
        blocked = log_in(worker, "correct horse")
        assert blocked.status_code == 429 and "too many" in blocked.text  # on both


def _wait(found, timeout: float = 10):
    """``found()``'s answer once it is not empty."""
    for _ in range(int(timeout / 0.02)):
        answer = found()
        if answer:
            return answer
        threading.Event().wait(0.02)
    raise AssertionError("not found in time")


def _game_of(cluster, account: str) -> str:
    """``account``'s newest game in the store."""
    return _wait(lambda: cluster.store.games_of(account))[-1]



def test_a_challenge_whose_game_cannot_start_waits_again_and_old_rows_go(tmp_path,
                                                                        monkeypatch):
    """The store lost between the challenge's take and its game's start: the challenged
    player is told one line, the challenge waits again (on every worker: it is the
    store's) and is accepted once the store is back. The first sweep deletes answered
    rows older than PURGE_S, and the next sweeps do not read the store for it."""
    store = open_store(str(tmp_path / "lobby.sqlite3"))
    for name in ("ann", "ben"):
        store.add_account(name, "h")
    hub = ClusterHub(store, Referee("server"), ClusterSettings("127.0.0.1", 1, "w1"))

    async def play() -> None:
        c = await hub.challenge("ann", "ben", "chess", {}, None, False, "white")
        real_add_game = store.add_game

        def add_game_lost(*args, **kwargs):
            raise Unavailable("the store is not answering")

        monkeypatch.setattr(store, "add_game", add_game_lost)
        with pytest.raises(Unavailable):
            await hub.answer_challenge("ben", c.id, True)
        record = store.challenge_record(c.id)
        assert (record.status, record.game_id) == ("created", None)
        assert c.id in hub.challenges  # (this worker's mirror read it again)
        monkeypatch.setattr(store, "add_game", real_add_game)
        g = await hub.answer_challenge("ben", c.id, True)
        assert g is not None and store.game(g.id).seats == ("ann", "ben")
        assert c.id not in hub.challenges
        assert await hub.purge_lobby_if_due() == 0  # (answered just now: kept)
        assert await hub.purge_lobby_if_due(time.time() + PURGE_S + 1) == 0  # not due yet
        hub._lobby_purged_at -= PURGE_S
        assert await hub.purge_lobby_if_due(time.time() + PURGE_S + 1) == 1
        assert store.challenge_record(c.id) is None

    try:
        asyncio.run(play())
    finally:
        hub.close()
        store.close()


@pytest.fixture
def two_hubs(tmp_path):
    """Two workers' hubs, each with its own connection to one store holding ann and ben
    (no broker: what one hub does reaches the other only through the store)."""
    path = str(tmp_path / "two.sqlite3")
    stores = [open_store(path), open_store(path)]
    for name in ("ann", "ben"):
        stores[0].add_account(name, "h")
    hubs = [ClusterHub(store, Referee("server"), ClusterSettings("127.0.0.1", 1, f"w{n}"))
            for n, store in enumerate(stores)]
    yield stores, hubs
    for hub in hubs:
        hub.close()
    for store in stores:
        store.close()


def test_a_game_ended_elsewhere_and_read_from_the_store_keeps_its_ending_words(two_hubs):
    """Two workers' hubs on one store: a mate played on one, read by the other's sweep
    with no notice (the broker's message lost) — its streams told "checkmate", not ""."""
    _, hubs = two_hubs

    async def play() -> str:
        g = await hubs[0].start_game("chess", {}, ["ann", "ben"], None, False)
        there = await hubs[1]._load(g.id)
        for account, text in zip(["ann", "ben"] * 2, ["f2f3", "e7e5", "g2g4", "d8h4"],
                                 strict=True):
            await hubs[0].move(account, g.id, text)
        assert g.reason == "checkmate"
        async with there.lock:
            await hubs[1]._refresh(there)  # (as the sweep does)
        assert there.ended
        return there.reason

    assert asyncio.run(play()) == "checkmate"


def test_a_refereed_game_read_before_its_truth_is_stored_is_read_again(two_hubs,
                                                                      monkeypatch):
    """A Lao Tzu game started on one worker, read by another before the referee's truth
    is stored (the game's row comes first): the reader is early, not facing a game it can
    never hold — once the truth is there it holds the game (it answered "no such game"
    for good before: seen in a fresh-clone run of the cluster's browser test)."""
    from controller.server import cluster

    stores, hubs = two_hubs
    late: list = []

    async def truth_later(g) -> None:
        late.append(g)

    keep_truth = hubs[0]._keep_truth
    monkeypatch.setattr(hubs[0], "_keep_truth", truth_later)
    monkeypatch.setattr(cluster, "TRUTH_WAITS", 2)

    async def play() -> None:
        g = await hubs[0].start_game("laotzu", {}, ["ann", "ben"], None, False)
        assert g.refereed and late and stores[1].truth(g.id) is None
        assert await hubs[1]._load(g.id) is None  # early: its truth is still to come
        assert g.id not in hubs[1]._unreadable
        await keep_truth(g)
        there = await hubs[1]._load(g.id)
        assert there is not None and there.views

    asyncio.run(play())


def test_a_game_whose_truth_never_comes_holds_up_no_sweep_or_notice(two_hubs, monkeypatch):
    """A Lao Tzu game stored by a worker that stopped before storing its truth: the other
    worker's sweeps and notices read it once and go on (each waited for the truth
    before, the whole notice loop held up every sweep); a request still waits for it,
    and once the truth is there the next sweep holds the game."""
    from controller.server import cluster

    stores, hubs = two_hubs
    keep_truth = hubs[0]._keep_truth

    async def never(g) -> None:
        pass

    monkeypatch.setattr(hubs[0], "_keep_truth", never)
    monkeypatch.setattr(cluster, "TRUTH_WAIT_S", 60.0)  # a wait would end the test

    async def play() -> None:
        g = await hubs[0].start_game("laotzu", {}, ["ann", "ben"], None, False)
        assert stores[1].truth(g.id) is None
        await asyncio.wait_for(hubs[1].sweep(), 10)
        await asyncio.wait_for(hubs[1].heard({"game": g.id, "version": g.version}), 10)
        assert g.id not in hubs[1].games and g.id not in hubs[1]._unreadable
        monkeypatch.setattr(cluster, "TRUTH_WAIT_S", 0.01)
        assert await hubs[1]._load(g.id) is None  # (a request: it waited, then gave up)
        await keep_truth(g)
        await asyncio.wait_for(hubs[1].sweep(), 10)
        assert g.id in hubs[1].games and hubs[1].games[g.id].views

    asyncio.run(play())
