"""Whole games through the fairyboard server between Board API clients (the board's own
``controller/online/api.py``): chess and each variant, 3 and 4 seats, dice, clocks,
draw/takeback/abort/resign, reconnection, and a Lao Tzu game whose streams never hold a
hidden piece (checked against controller/sight.py)."""

from __future__ import annotations

import asyncio
import json
import threading
import time

import pytest

from controller.online.api import OnlineError, Unauthorized
from controller.online.game import game_full
from controller.rules import get_game
from controller.sight import Sight
from tests.support.clubserver import ClubServer, challenge_game, play, wait_event


@pytest.fixture
def club(tmp_path):
    server = ClubServer(tmp_path).start()
    yield server
    server.stop()


def test_a_whole_chess_game_of_two_boards(club):
    a, b = club.player("alice"), club.player("bob")
    gid, api_a, api_b = challenge_game(club, a, b)
    full = next(api_a.stream_game(gid))
    seen = game_full(full, "alice")  # the board's own reading of the line
    assert (seen.seat, seen.variant, seen.clock) == (0, "standard", (600_000, 0))
    for uci, api in zip(("f2f3", "e7e5", "g2g4", "d8h4"), (api_a, api_b) * 2, strict=True):
        api.move(gid, uci)
    g = club.hub.games[gid]
    assert (g.status, g.result, g.winners) == ("mate", "0-1", (1,))
    record = club.server.store.game(gid)
    assert (record.status, record.result) == ("mate", "0-1")
    assert club.server.store.moves(gid) == ["f2f3", "e7e5", "g2g4", "d8h4"]
    last = next(api_b.stream_game(gid))
    assert last["state"]["status"] == "mate" and last["state"]["winner"] == "black"


def test_the_rules_refuse_and_the_turn_is_kept(club):
    a, b = club.player("alice"), club.player("bob")
    gid, api_a, api_b = challenge_game(club, a, b)
    with pytest.raises(OnlineError, match="illegal move"):
        api_a.move(gid, "e2e5")
    with pytest.raises(OnlineError, match="not your turn"):
        api_b.move(gid, "e7e5")
    with pytest.raises(OnlineError, match="illegal move"):
        api_a.move(gid, "no%20such")
    api_a.move(gid, "e2e4")
    assert club.server.store.moves(gid) == ["e2e4"]
    with pytest.raises(Unauthorized):
        club.client("fbd_not-a-token").account()


def test_laotzu_streams_hold_no_hidden_piece(club):
    a, b = club.player("alice"), club.player("bob")
    gid, api_a, api_b = challenge_game(club, a, b, "laotzu")
    seats = play(club, [api_a, api_b], gid, max_plies=80)
    g = club.hub.games[gid]
    assert g.ended and len(g.moves) == g.ply  # the moves revealed only now
    assert sum(s.refusals for s in seats) >= 0
    game = get_game("laotzu", **club.hub.referee.games[gid].options)
    positions = [game.start()]
    for text in g.moves:
        pos = positions[-1].copy()
        pos.push(game.parse_move(pos, text))
        positions.append(pos)
    for seat, s in enumerate(seats):
        for line in s.lines:
            raw = json.dumps(line)
            for secret in ("white_array", "black_array", "seed"):
                assert secret not in raw
            state = line.get("state", line)
            if state["status"] != "started":
                continue
            assert state["moves"] == ""  # no move of a game being played
            truth = positions[state["ply"]]
            assert state["view"] == game.position_text(game.view_position(truth, seat))
            sight = Sight(game, truth, seat)
            view = game.parse_view(state["view"])
            for cell, piece in enumerate(view.board):
                if piece is not None and piece.owner != seat:
                    assert cell in sight.visible, f"a hidden piece on {cell} reached {seat}"


def test_draw_takeback_abort_resign(club):
    a, b = club.player("alice"), club.player("bob")
    gid, api_a, api_b = challenge_game(club, a, b)
    api_a.move(gid, "e2e4")
    api_b.takeback(gid)
    api_a.takeback(gid)
    assert club.hub.games[gid].moves == [] and club.server.store.moves(gid) == []
    api_a.move(gid, "d2d4")
    api_a.draw(gid)
    api_b.draw(gid, accept=False)
    assert not club.hub.games[gid].ended
    api_a.draw(gid)
    api_b.draw(gid)
    assert club.hub.games[gid].status == "draw"
    gid2, api_a, api_b = challenge_game(club, a, b)
    api_a.abort(gid2)
    assert club.server.store.game(gid2).status == "aborted"
    gid3, api_a, api_b = challenge_game(club, a, b)
    api_a.move(gid3, "e2e4")
    api_b.move(gid3, "e7e5")
    with pytest.raises(OnlineError, match="too late to abort"):
        api_b.abort(gid3)
    api_b.resign(gid3)
    assert club.server.store.game(gid3).result == "1-0"


def test_the_servers_clock_runs_out(club):
    a, b = club.player("alice"), club.player("bob")
    gid, api_a, api_b = challenge_game(club, a, b)
    g = club.hub.games[gid]
    g.clock = (1000, 0)
    g.times = [1000, 1000]
    api_a.move(gid, "e2e4")
    lines = list(_until_ended(api_b.stream_game(gid)))
    assert lines[-1]["status"] == "outoftime" and lines[-1]["winner"] == "white"
    with pytest.raises(OnlineError, match="over"):
        api_b.move(gid, "e7e5")


def _until_ended(stream):
    for line in stream:
        state = line.get("state", line)
        yield state
        if state["status"] != "started":
            return


def test_a_restarted_server_resumes_every_seat(tmp_path):
    club = ClubServer(tmp_path).start()
    a, b = club.player("alice"), club.player("bob")
    gid, api_a, api_b = challenge_game(club, a, b)
    gid2, api_c, api_d = challenge_game(club, a, b, "laotzu")
    api_a.move(gid, "e2e4")
    api_c.move(gid2, "e2e4")
    club.stop()
    again = ClubServer(tmp_path).start()
    try:
        api_b = again.client(b[1])
        full = next(api_b.stream_game(gid))
        assert full["state"]["moves"] == "e2e4" and full["state"]["turn"] == 1
        api_b.move(gid, "e7e5")
        full2 = next(again.client(b[1]).stream_game(gid2))
        assert full2["state"]["ply"] == 1 and full2["state"]["turn"] == 1
        assert again.hub.events.get("alice") is None
        starts = wait_event(again.client(a[1]).stream_events(), "gameStart")
        assert starts["game"]["gameId"] in (gid, gid2)
    finally:
        again.stop()


@pytest.mark.parametrize("path, data", [
    ("/api/board/seek", {"time": "abc", "variant": "standard"}),
    ("/api/board/seek", {"time": "10", "variant": "nope"}),
    ("/api/board/seek", {"time": "nan", "variant": "standard"}),
    ("/api/board/seek", {"time": "10", "variant": "kaleidochess", "players": "9"}),
    ("/api/board/seek", {"time": "10", "variant": "standard", "options": "[1]"}),
    ("/api/board/seek", {"time": "10", "variant": "standard", "options": "{"}),
    ("/api/board/seek", {"time": "10", "variant": "laotzu",
                         "options": '{"white_array": 5}'}),
    ("/api/board/seek", {"time": "10", "variant": "chess960", "options": '{"seed": "x"}'}),
    ("/api/board/seek", {"time": "10", "color": "purple"}),
    ("/api/board/seek", {"variant": "standard"}),
    ("/api/challenge/nobody", {"clock.limit": "60"}),
    ("/api/challenge/alice", {"clock.limit": "60"}),
    ("/api/challenge/nosuch/accept", {}),
    ("/api/board/game/nosuch/move/e2e4", {}),
    ("/api/board/game/nosuch/resign", {}),
    ("/api/board/game/nosuch/draw/maybe", {}),
])
def test_bad_requests_are_one_line_never_a_500(club, path, data):
    _, token = club.player("alice")
    api = club.client(token)
    import httpx

    answer = httpx.post(club.url + path, data=data,
                        headers={"Authorization": f"Bearer {token}"}, timeout=5)
    assert 400 <= answer.status_code < 500, answer.text
    assert answer.json()["error"] and "\n" not in answer.json()["error"]
    assert api.account()["id"] == "alice"  # the server is still there


def test_a_stranger_cannot_play_or_watch_a_seat(club):
    a, b = club.player("alice"), club.player("bob")
    _, tc = club.player("carol")
    gid, api_a, _ = challenge_game(club, a, b, "laotzu")
    carol = club.client(tc)
    with pytest.raises(OnlineError, match="do not play"):
        carol.move(gid, "e2e4")
    with pytest.raises(OnlineError, match="do not play"):
        next(carol.stream_game(gid))
    lobby = carol.request("GET", "/api/lobby", "lobby")
    raw = json.dumps(lobby)
    assert lobby["games"][0]["id"] == gid and "array" not in raw and "seed" not in raw


def test_an_ended_game_is_told_from_the_store_once_out_of_memory(club, monkeypatch):
    from controller.server import hub as hub_module

    monkeypatch.setattr(hub_module, "KEEP_ENDED", 0)
    a, b = club.player("alice"), club.player("bob")
    gid, api_a, api_b = challenge_game(club, a, b)
    for uci, api in zip(("f2f3", "e7e5", "g2g4", "d8h4"), (api_a, api_b) * 2, strict=True):
        api.move(gid, uci)
    gid2, api_c, api_d = challenge_game(club, a, b, "laotzu")
    api_c.resign(gid2)
    assert gid not in club.hub.games and gid2 not in club.hub.games
    state = next(api_b.stream_game(gid))["state"]
    assert (state["moves"], state["status"], state["winner"]) == (
        "f2f3 e7e5 g2g4 d8h4", "mate", "black")
    state = next(api_d.stream_game(gid2))["state"]
    assert (state["status"], state["winner"], state["moves"]) == ("resign", "black", "")
    with pytest.raises(OnlineError, match="no such game"):
        next(api_a.stream_game("nosuchgame"))


def test_a_seek_closed_is_withdrawn(club):

    import httpx

    _, token = club.player("alice")
    c = httpx.Client(base_url=club.url, headers={"Authorization": f"Bearer {token}"})
    with c, c.stream("POST", "/api/board/seek", data={"time": "10", "variant": "gnuqi"}) as r:
        assert r.status_code == 200
        lines = r.iter_lines()  # (held: a dropped iterator closes the connection)
        next(lines)  # a keep-alive: the seek is up while the stream is open
        time.sleep(0.5)
        assert [s.account for s in club.hub.seeks] == ["alice"]
    deadline = time.monotonic() + 5
    while club.hub.seeks and time.monotonic() < deadline:
        time.sleep(0.05)
    assert club.hub.seeks == []


def test_games_export_as_pgn_hidden_moves_only_once_ended(club):
    import httpx

    a, b = club.player("alice"), club.player("bob")
    gid, api_a, api_b = challenge_game(club, a, b)
    for uci, api in zip(("f2f3", "e7e5", "g2g4", "d8h4"), (api_a, api_b) * 2, strict=True):
        api.move(gid, uci)
    pgn = httpx.get(f"{club.url}/game/export/{gid}").text
    assert '[White "alice"]' in pgn and '[Black "bob"]' in pgn and '[Result "0-1"]' in pgn
    assert '[TimeControl "600"]' in pgn and "1. f2f3 e7e5 2. g2g4 d8h4 0-1" in pgn
    gid2, api_c, api_d = challenge_game(club, a, b, "laotzu")
    api_c.move(gid2, "e2e4")
    hidden = httpx.get(f"{club.url}/game/export/{gid2}")
    assert hidden.status_code == 403 and "until it has ended" in hidden.json()["error"]
    everything = httpx.get(f"{club.url}/api/games/user/bob").text
    assert everything.count("[Event ") == 1  # the Lao Tzu game is still being played
    api_d.resign(gid2)
    pgn2 = httpx.get(f"{club.url}/game/export/{gid2}").text
    assert "1. e2e4" in pgn2 and '[Result "1-0"]' in pgn2
    assert httpx.get(f"{club.url}/api/games/user/bob").text.count("[Event ") == 2
    assert httpx.get(f"{club.url}/game/export/nosuch").status_code == 404


def test_an_accounts_events_are_bounded(tmp_path, monkeypatch):
    from controller.link.referee import Referee
    from controller.server import hub as hub_module
    from controller.server.store import open_store

    monkeypatch.setattr(hub_module, "KEEP_EVENTS", 3)
    hub = hub_module.Hub(open_store(str(tmp_path / "s.sqlite3")), Referee("server"))
    for n in range(5):
        hub._event("alice", {"n": n})
    assert [e["n"] for e in hub.events["alice"]] == [2, 3, 4]
    assert hub.events_since("alice", 3) == ([{"n": 3}, {"n": 4}], 5)
    assert hub.events_since("alice", 0) == ([{"n": 2}, {"n": 3}, {"n": 4}], 5)  # 0, 1 gone
    assert hub.events_since("alice", 5) == ([], 5)
    assert hub.events_since("bob", 0) == ([], 0)


def test_a_slow_store_holds_up_only_its_own_game(club):
    """The store is called off the event loop: while one game's move waits for the store,
    another game is played and streamed, and the waiting move is told once stored."""
    a, b, c, d = (club.player(n) for n in ("alice", "bob", "carol", "dave"))
    slow, api_a, api_b = challenge_game(club, a, b)
    fast, api_c, api_d = challenge_game(club, c, d)
    store = club.server.store
    real = store.add_move
    entered, release = threading.Event(), threading.Event()

    def add_move(game_id, *args):
        if game_id == slow:  # (a database that takes its time for this game)
            entered.set()
            release.wait(30)
        return real(game_id, *args)

    store.add_move = add_move
    waiting = threading.Thread(target=api_a.move, args=(slow, "e2e4"), daemon=True)
    waiting.start()
    try:
        assert entered.wait(10)
        stream = api_d.stream_game(fast)
        assert next(stream)["type"] == "gameFull"
        api_c.move(fast, "d2d4")  # answered while the slow game's move waits
        assert next(s for s in stream if s.get("moves"))["moves"] == "d2d4"
        slow_game = club.hub.games[slow]
        assert (slow_game.ply, slow_game.moves) == (0, [])  # not told before it is stored
    finally:
        release.set()
        waiting.join(10)
    assert not waiting.is_alive()
    api_b.move(slow, "e7e5")
    assert club.hub.games[slow].moves == ["e2e4", "e7e5"] == real.__self__.moves(slow)


def test_an_open_challenge_is_joined_by_any_two_players(club):
    """lichess's ``/api/challenge/open``: its answer's shape, two players joining with a
    colour each, the game starting for them; ``users`` limits who joins; the maker
    cancels; a bad request is one line."""
    (_, ta), (_, tb), (_, tc), _ = (club.player(n) for n in ("alice", "bob", "carol", "dave"))
    api_a, api_b, api_c = club.client(ta), club.client(tb), club.client(tc)

    def open_challenge(api, **form):
        return api.request("POST", "/api/challenge/open", "open",
                           data={"clock.limit": "300", "clock.increment": "2", **form})

    c = open_challenge(api_a)
    assert (c["status"], c["challenger"], c["destUser"], c["color"]) == (
        "created", None, None, "random")
    assert c["url"] == f"{club.url}/{c['id']}" and c["urlBlack"] == c["url"] + "?color=black"
    assert c["timeControl"] == {"type": "clock", "limit": 300, "increment": 2}
    assert c["variant"]["key"] == "standard" and "open" not in c
    assert [o["id"] for o in api_a.request("GET", "/api/lobby", "lobby")["open"]] == [c["id"]]
    events_b = api_b.stream_events()
    api_b.request("POST", f"/api/challenge/{c['id']}/accept", "join", data={"color": "black"})
    assert not club.hub.games  # one seat taken: no game yet
    with pytest.raises(OnlineError, match="black is taken"):
        api_c.request("POST", f"/api/challenge/{c['id']}/accept?color=black", "join")
    with pytest.raises(OnlineError, match="already"):
        api_b.request("POST", f"/api/challenge/{c['id']}/accept", "join")
    api_c.request("POST", f"/api/challenge/{c['id']}/accept?color=white", "join")
    start = wait_event(events_b, "gameStart")["game"]
    events_b.close()
    g = club.hub.games[start["gameId"]]
    assert (g.seats, g.clock, start["color"]) == (("carol", "bob"), (300_000, 2000), "black")
    assert c["id"] not in club.hub.open_challenges
    api_c.move(g.id, "e2e4")  # a game like any other
    assert club.server.store.moves(g.id) == ["e2e4"]

    only = open_challenge(api_a, users="bob,carol", variant="laotzu")
    assert only["open"] == {"userIds": ["bob", "carol"]}
    with pytest.raises(OnlineError, match="other players"):
        api_a.request("POST", f"/api/challenge/{only['id']}/accept", "join")
    api_a.request("POST", f"/api/challenge/{only['id']}/cancel", "cancel")
    with pytest.raises(OnlineError, match="no such challenge"):
        api_b.request("POST", f"/api/challenge/{only['id']}/accept", "join")
    for form, problem in (({"users": "bob,nobody"}, "no player 'nobody'"),
                          ({"variant": "nope"}, "no game 'nope'"),
                          ({"variant": "kaleidochess", "players": "3"}, "two players"),
                          ({"clock.limit": "x"}, "must be a number")):
        with pytest.raises(OnlineError, match=problem):
            open_challenge(api_a, **form)
    assert club.hub.open_challenges == {}


def test_a_store_lost_mid_move_is_one_line_and_the_game_is_read_again(club):
    """A move whose storing fails (the database gone after the commit, say) is answered
    503 in one line; the game is read again from the store before its next change, so
    what the store holds is what is told — nothing lost, nothing doubled."""
    from controller.server.store import Unavailable

    a, b = club.player("alice"), club.player("bob")
    gid, api_a, api_b = challenge_game(club, a, b)
    store = club.server.store
    real = store.add_move

    def committed_then_lost(*args):
        real(*args)
        raise Unavailable("the database cannot be reached now (OperationalError)")

    store.add_move = committed_then_lost
    with pytest.raises(OnlineError, match=r"the store cannot be reached now: try again "
                                          r"\(HTTP 503\)"):
        api_a.move(gid, "e2e4")
    store.add_move = real
    assert club.hub.games[gid].moves == []  # not told: unknown whether it was stored
    with pytest.raises(OnlineError, match="not your turn"):
        api_a.move(gid, "e2e4")  # read again: it was stored, so the turn is Black's
    api_b.move(gid, "e7e5")
    assert club.hub.games[gid].moves == ["e2e4", "e7e5"] == store.moves(gid)
    assert next(api_a.stream_game(gid))["state"]["moves"] == "e2e4 e7e5"

    def lost(*args):
        raise Unavailable("the database cannot be reached now (OperationalError)")

    store.add_move = lost
    with pytest.raises(OnlineError, match="HTTP 503"):
        api_a.move(gid, "g1f3")
    store.add_move = real
    api_a.move(gid, "g1f3")  # (not stored the first time: played now, once)
    assert store.moves(gid) == ["e2e4", "e7e5", "g1f3"] == club.hub.games[gid].moves
    store.account = lost  # a request whose token check cannot reach the store
    with pytest.raises(OnlineError, match="HTTP 503"):
        api_a.request("POST", "/api/challenge/bob", "challenge", data={"variant": "standard"})


def test_a_refereed_ply_the_store_did_not_take_is_stored_before_the_next(club):
    """Lao Tzu Chess: the referee judged an attempt, then the store was lost — the seat
    is answered 503 in one line, the referee's ply stands (it holds the truth: the hub and
    the seat's view follow it), and the store is given the ply before the game's next
    change."""
    from controller.server.store import Unavailable

    a, b = club.player("alice"), club.player("bob")
    gid, api_a, api_b = challenge_game(club, a, b, "laotzu")
    g = club.hub.games[gid]
    store = club.server.store
    real = store.add_move

    def lost(*args):
        raise Unavailable("the database cannot be reached now (OperationalError)")

    def attempt(api, seat):
        """A move the seat's view allows that the referee takes: the answer's error (or
        None)."""
        game = g.game
        view = game.parse_view(g.views[seat].position)
        for m in game.board_moves(view):
            try:
                api.move(gid, game.long_move_text(view, m))
                return None
            except OnlineError as exc:
                if "illegal move" not in str(exc):
                    return str(exc)
        raise AssertionError("no move taken")

    store.add_move = lost
    assert "the store cannot be reached now: try again (HTTP 503)" in attempt(api_a, 0)
    store.add_move = real
    assert g.ply == 1 and g.views[0].ply == 1 == g.views[1].ply  # the referee's ply stands
    assert store.moves_with_clocks(gid) == []
    assert attempt(api_b, 1) is None  # the owed ply stored first, then this one
    assert [m for m, _ in store.moves_with_clocks(gid)] == ["", ""] and g.ply == 2


def test_a_change_made_while_a_stream_sends_is_told_at_once(tmp_path):
    """A game stream reads the state, sends it, then waits for the next change; a change
    made in between (its awaits let other tasks run) must wake it.  It did not: it waited
    for the next keep-alive (here 30 s, past the board's 5 s of silence).  Here Black's
    reply is made, to its end, after White's move is read and before the wait begins."""
    club = ClubServer(tmp_path, keepalive_s=30).start()
    try:
        a, b = club.player("alice"), club.player("bob")
        gid, api_a, api_b = challenge_game(club, a, b)
        hub = club.hub
        g = hub.games[gid]
        state, wait, replies = hub.state, g.signal.wait, []

        def state_then_black_moves(game, seat):
            out = state(game, seat)
            if seat == 1 and game.moves == ["e2e4"] and not replies:
                replies.append(asyncio.get_running_loop().create_task(
                    hub.move(b[0], gid, "e7e5")))
            return out

        async def wait_once_the_reply_is_made(timeout, *watch):
            while replies and not replies[0].done():
                await replies[0]
            return await wait(timeout, *watch)

        hub.state = state_then_black_moves
        g.signal.wait = wait_once_the_reply_is_made
        lines = api_b.stream_game(gid)
        assert next(lines)["type"] == "gameFull"
        api_a.move(gid, "e2e4")
        told = [next(lines)["moves"], next(lines)["moves"]]
        assert told == ["e2e4", "e2e4 e7e5"]
        lines.close()
    finally:
        club.stop()
