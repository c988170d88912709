"""Online play from the board against a loopback Board API server (tests/support/lichess.py,
moves judged by python-chess): a whole game with castling either way, en passant and a
promotion chosen on the pads, played on the simulated board; the stream cut again and
again, a 429, a revoked token and a refused move — no move lost, doubled or misapplied,
and board and server agree at the end."""

from __future__ import annotations

import random
import time

import httpx
import pytest

from controller.online.api import BoardApi, OnlineError, Unauthorized
from controller.online.game import game_full, plan
from controller.online.seat import OnlineSeat
from controller.rules import get_game
from tests.support.lichess import FakeLichess
from tests.support.rig import Human, Rig

#: White's and Black's moves of a game with every special move of chess
GAME = ("e2e4 d7d5 e4e5 f7f5 e5f6 b8c6 f6g7 c8f5 g7h8q d8d7 g1f3 e8c8 f1e2 e7e5 "
        "e1g1").split()


@pytest.fixture
def server():
    running = FakeLichess({"tok-owner": "owner", "tok-other": "sparring"}).start()
    yield running
    running.stop()


def _pump(rig: Rig, seat: OnlineSeat, until, limit_s: float = 20.0) -> None:
    deadline = time.monotonic() + limit_s
    while not until():
        assert time.monotonic() < deadline, (rig.state, rig.interaction.message)
        seat.tick()
        rig.wait(0.02)
        time.sleep(0.01)


def _play_online(server: FakeLichess, seat: OnlineSeat, rig: Rig, gid: str,
                 moves: list[str], owner_white: bool = True) -> None:
    human = Human(rig, random.Random(3))
    game = rig.game
    _pump(rig, seat, lambda: seat.server is not None)
    for i, uci in enumerate(moves):
        mine = (i % 2 == 0) == owner_white
        if mine:
            _pump(rig, seat, lambda: rig.state == "turn")
            human.play(game.parse_move(rig.position, uci))
            _pump(rig, seat, lambda i=i: len(server.games[gid].moves) > i)
        else:
            server.play(gid, uci)
            _pump(rig, seat, lambda: rig.state == "execute")
            shown = rig.board.progress.execute
            assert shown == game.parse_move(rig.position, uci)
            human.play(shown)
            _pump(rig, seat, lambda i=i: len(rig.position.moves) > i)


def _sent(server: FakeLichess) -> list[str]:
    return [path.rsplit("/", 1)[1] for method, path in server.requests if "/move/" in path]


def _agree(rig: Rig, server: FakeLichess, gid: str) -> None:
    game = rig.game
    pos = game.start()
    texts = []
    for move in rig.position.moves:
        texts.append(game.long_move_text(pos, move).replace("e1h1", "e1g1")
                     .replace("e8a8", "e8c8"))
        pos.push(move)
    assert texts == server.games[gid].moves


def test_a_whole_game_with_every_special_move(server):
    api = BoardApi(server.url, "tok-owner")
    gid = server.new_game("owner", "sparring")
    rig = Rig(game="chess")
    seat = OnlineSeat(api, rig.board, gid, "owner")
    try:
        _play_online(server, seat, rig, gid, GAME)
        _agree(rig, server, gid)
        assert _sent(server) == GAME[0::2]  # each once
        server.end(gid, "resign", "white")
        _pump(rig, seat, lambda: rig.state == "game_over")
        assert rig.board.outcome.winners == (0,)
    finally:
        seat.close()
        api.close()


def test_the_stream_cut_again_and_again_loses_and_doubles_nothing(server):
    server.cut_game_stream_after = 2  # every stream drops after two lines
    api = BoardApi(server.url, "tok-owner")
    gid = server.new_game("owner", "sparring")
    rig = Rig(game="chess")
    seat = OnlineSeat(api, rig.board, gid, "owner", backoff_s=(0.05, 0.1))
    try:
        _play_online(server, seat, rig, gid, GAME[:9])
        _agree(rig, server, gid)
        assert seat.reconnects >= 2 and server.streams_cut >= 2
        assert _sent(server) == GAME[0:9:2]
    finally:
        seat.close()
        api.close()


def test_after_a_429_nothing_is_sent_for_the_wait(server):
    api = BoardApi(server.url, "tok-owner", rate_limit_wait_s=0.6)
    gid = server.new_game("owner", "sparring")
    rig = Rig(game="chess")
    seat = OnlineSeat(api, rig.board, gid, "owner", backoff_s=(0.05,))
    try:
        _pump(rig, seat, lambda: seat.server is not None)
        stamps: list[float] = []
        original = server._gate

        def gate(request):
            stamps.append(time.monotonic())
            return original(request)

        server._gate = gate
        server.fail_next = [429]
        _play_online(server, seat, rig, gid, GAME[:1])
        assert server.games[gid].moves == GAME[:1]
        assert len(stamps) >= 2 and stamps[1] - stamps[0] >= 0.55
    finally:
        seat.close()
        api.close()


def test_a_move_the_server_refuses_is_set_back_on_the_board(server):
    api = BoardApi(server.url, "tok-owner")
    gid = server.new_game("owner", "sparring")
    rig = Rig(game="chess")
    seat = OnlineSeat(api, rig.board, gid, "owner", backoff_s=(0.05,))
    try:
        _pump(rig, seat, lambda: seat.server is not None and rig.state == "turn")
        server.fail_next = [400]
        Human(rig, random.Random(1)).play(rig.game.parse_move(rig.position, "e2e4"))
        server.games[gid].version += 1  # the next state line shows the move not taken
        _pump(rig, seat, lambda: rig.state == "setup")
        assert "did not take" in rig.interaction.message
        assert server.games[gid].moves == []
    finally:
        seat.close()
        api.close()


def test_a_revoked_token_is_one_clear_line(server):
    api = BoardApi(server.url, "tok-revoked")
    with pytest.raises(Unauthorized, match="refused the token"):
        api.account()
    with pytest.raises(OnlineError, match="empty or has spaces"):
        BoardApi(server.url, "two words")


def test_a_connection_closed_as_idle_is_asked_again_once_on_a_new_one():
    """A server closes a kept-alive connection after a few idle seconds; a request that goes
    out on it just then finds it closed without an answer.  It is asked once more (it was
    an error for the board before); a server that drops the answer twice is not reached."""
    drops = {"left": 1}
    asked: list[str] = []

    def answer(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.path)
        if drops["left"]:
            drops["left"] -= 1
            raise httpx.RemoteProtocolError("Server disconnected without sending a response.")
        return httpx.Response(200, json={"id": "owner", "username": "owner"})

    api = BoardApi("http://lichess.test", "token", transport=httpx.MockTransport(answer))
    assert api.account()["id"] == "owner" and asked == ["/api/account"] * 2
    drops["left"] = 2
    with pytest.raises(OnlineError, match="cannot be reached .RemoteProtocolError."):
        api.account()
    assert len(asked) == 4


def test_one_request_at_a_time_while_a_stream_stays_open(server):
    """lichess asks a client for one request at a time: requests from several threads
    wait their turn, and an open game stream does not hold the others up."""
    import threading

    api = BoardApi(server.url, "tok-owner")
    gid = server.new_game("owner", "sparring")
    stream = api.stream_game(gid)
    try:
        assert next(stream)["type"] == "gameFull"  # (open while the requests go)
        server.answer_delay_s = 0.1
        calls = [lambda: api.draw(gid), lambda: api.takeback(gid), lambda: api.chat(gid, "hi"),
                 lambda: api.draw(gid, False), lambda: api.account()]
        threads = [threading.Thread(target=call) for call in calls]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert server.most_in_flight == 1
        assert sum(method == "POST" for method, _ in server.requests) == 4
    finally:
        stream.close()
        api.close()


def test_a_closed_seat_lets_its_game_stream_go(server):
    """A seat closed (the board starts another game) closes its game stream at the next
    keep-alive, not at the next move that may never come."""
    api = BoardApi(server.url, "tok-owner")
    gid = server.new_game("owner", "sparring")
    rig = Rig(game="chess")
    seat = OnlineSeat(api, rig.board, gid, "owner", backoff_s=(0.05,))
    try:
        _pump(rig, seat, lambda: seat.server is not None and server.game_streams_open == 1)
        seat.close()
        deadline = time.monotonic() + 5
        while server.game_streams_open and time.monotonic() < deadline:
            time.sleep(0.02)
        assert server.game_streams_open == 0
    finally:
        seat.close()
        api.close()


def test_the_plan_after_a_gap():
    game = get_game("chess")
    start = game.start()
    moves = []
    pos = start.copy()
    for uci in GAME[:6]:
        m = game.parse_move(pos, uci)
        moves.append(m)
        pos.push(m)
    behind = plan(game, start, tuple(GAME[:6]), tuple(moves[:3]))
    assert behind.takeback == 0 and behind.moves == tuple(moves[3:])
    ahead = plan(game, start, tuple(GAME[:4]), tuple(moves))
    assert ahead.takeback == 2 and ahead.moves == ()
    forked = plan(game, start, ("e2e4", "e7e5"), tuple(moves[:2]))
    assert forked.agree == 1 and forked.takeback == 1 and len(forked.moves) == 1


def test_a_game_description_names_the_owners_side():
    event = {"type": "gameFull", "id": "abc", "variant": {"key": "standard"},
             "clock": {"initial": 600000, "increment": 5000}, "speed": "rapid",
             "white": {"id": "sparring", "name": "Sparring", "rating": 1500},
             "black": {"id": "owner", "name": "Owner", "rating": 1400},
             "initialFen": "startpos",
             "state": {"type": "gameState", "moves": "e2e4", "wtime": 599000,
                       "btime": 600000, "status": "started", "bdraw": True}}
    g = game_full(event, "Owner")
    assert g.seat == 1 and g.moves == ("e2e4",) and g.to_move == 1
    assert g.clock == (600000, 5000) and g.draw_offer == 1 and not g.ended


def test_a_request_after_the_client_closed_is_the_links_problem_in_one_line(server):
    """A room closing while one of its threads still asks (the game fetch at a logout)
    got the HTTP client's RuntimeError, a traceback in a thread of the board's service
    (seen in a CI run's warnings); it is the link's error, which the thread handles."""
    api = BoardApi(server.url, "tok-owner")
    gid = server.new_game("owner", "sparring")
    api.close()
    with pytest.raises(OnlineError, match="cannot be reached"):
        next(iter(api.stream_game(gid)))
    with pytest.raises(OnlineError, match="cannot be reached"):
        api.account()
