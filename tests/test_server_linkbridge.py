"""Boards linked over MQTT play the server's games (controller/server/linkbridge.py): the
server's own Mosquitto, a board logged in with its device id and token, a player on the
Board API — a whole chess game whose stored moves are the board's, and a refereed Lao Tzu
game in which the board receives nothing but its own views."""

from __future__ import annotations

import random
import socket
import threading
import time

import pytest
import uvicorn

from controller.config import Config
from controller.link.messages import Start, seat_topic
from controller.online.api import BoardApi
from controller.server.app import build
from controller.service import BoardService
from controller.web.simulator import move_actions
from tests.support.broker import free_port, mosquitto_or_skip
from tests.support.clubserver import FAST_HASHER
from tests.support.fog import decisive_try
from tests.support.linkedboards import CLUB, LinkedBoard, assert_views_only, wait
from tests.support.linkplay import until


class Served:
    """``fairyboard server`` with its own broker (and so the bridge), on loopback."""

    def __init__(self, folder, broker_port: int | None = None) -> None:
        self.server = build(folder, hasher=FAST_HASHER, dice=random.Random(1),
                            referee_seed="bridge", broker_port=broker_port or free_port())
        self.broker_port = self.server.broker.port
        self.server.broker.start(self.server.logins())
        # (IPPROTO_TCP named: asyncio then sends small writes at once, as on the
        # server's own socket — not each response's body 40 ms after its headers)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self._uvicorn = uvicorn.Server(uvicorn.Config(self.server.app, log_level="warning",
                                                      lifespan="on"))
        self._thread = threading.Thread(target=self._uvicorn.run,
                                        kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        wait(lambda: self._uvicorn.started)

    def player(self, name: str) -> tuple[str, str, str]:
        """An account with a board token: (account, device id, token)."""
        accounts = self.server.accounts
        account = accounts.sign_up(name, "correct horse")
        device, token = accounts.issue_token(account, f"{name}'s board")
        return account, device, token

    def stop(self) -> None:
        self._uvicorn.should_exit = True
        self._thread.join(10)
        self.server.broker.stop()
        self.server.store.close()


def accept_challenge(served: Served, api: BoardApi) -> None:
    """The server player accepts the board's challenge (the one waiting)."""
    hub = served.server.hub
    wait(lambda: len(hub.challenges) == 1)
    assert not hub.games  # nobody is put into a game without accepting it
    api.accept_challenge(next(iter(list(hub.challenges))))


@pytest.fixture
def served(tmp_path):
    mosquitto_or_skip()
    s = Served(tmp_path / "server")
    yield s
    s.stop()


def test_a_linked_board_plays_a_whole_chess_game_with_an_api_player(served):
    bob, _, bob_token = served.player("bob")
    alice, device, token = served.player("alice")
    board = LinkedBoard(device, token, served.broker_port)
    api = BoardApi(served.url, bob_token, silence_s=5.0)
    try:
        wait(lambda: board.mqtt.connected)
        board.seat.request(Start("b-1", "chess", {}, "", ("@bob", device)))
        accept_challenge(served, api)
        wait(lambda: board.views, board.pump)
        (g,) = served.server.hub.games.values()
        assert g.seats == (bob, alice) and board.views[-1].seats == ("@bob", device)
        assert board.views[-1].seat == 1 and board.views[-1].ply == 0
        bridge, told = served.server.bridge, []
        tell = bridge._tell
        bridge._tell = lambda *args, **kwargs: (told.append(args), tell(*args, **kwargs))
        time.sleep(0.2)  # nothing happens: the bridge looks at nothing (it is told, no poll)
        assert told == []
        script = ["f2f3", "e7e5", "g2g4", "d8h4"]
        for ply, move in enumerate(script, 1):
            if ply % 2:
                api.move(g.id, move)
            else:
                if ply == 2:  # an illegal try first: refused to this seat, nothing played
                    board.attempt(ply, "e7e4")
                    wait(lambda: board.views[-1].refused == "illegal move", board.pump)
                    assert g.ply == 1
                board.attempt(ply, move)
                board.attempt(ply, move)  # a copy (QoS 1): changes nothing
            wait(lambda n=ply: board.views[-1].ply == n, board.pump)
        last = board.views[-1]
        assert (last.result, last.reason) == ("0-1", "checkmate")
        assert last.position == g.game.position_text(g.pos)
        assert [m for m, _ in served.server.store.moves_with_clocks(g.id)] == script
        assert served.server.bridge.games == {}  # ended: no longer followed
        assert len(told) == len(script) + 2  # once a ply, and for the refused try and copy
    finally:
        board.close()


def test_a_refereed_lao_tzu_game_sends_the_board_its_views_only(served):
    _, _, bob_token = served.player("bob")
    alice, device, token = served.player("alice")
    board = LinkedBoard(device, token, served.broker_port)
    api = BoardApi(served.url, bob_token, silence_s=5.0)
    try:
        wait(lambda: board.mqtt.connected)
        board.seat.request(Start("lt-1", "laotzu", {}, "", (device, "@bob")))
        accept_challenge(served, api)
        wait(lambda: board.player is not None, lambda: board.pump(fog=True))
        (g,) = served.server.hub.games.values()
        referee = served.server.hub.referee
        truth = referee.games[g.id]
        player = board.player
        board.attempt(1, "a1a1")  # nonsense: refused to this seat alone, nothing played
        wait(lambda: board.views[-1].refused == "illegal move", lambda: board.pump(fog=True))
        assert truth.moves == [] and g.ply == 0
        player.follow()
        rng = random.Random(7)
        while truth.game.outcome(truth.pos) is None and len(truth.moves) < 14:
            pos = truth.game.parse_position(truth.game.position_text(truth.pos))
            ply = len(truth.moves)
            if truth.game.ply_mover(truth.pos) == 0:
                player.play(decisive_try(truth.game, pos, player))
                wait(lambda: not player.sync.waiting, lambda: board.pump(fog=True))
            else:
                move = rng.choice(truth.game.legal_moves(pos))
                api.move(g.id, truth.game.long_move_text(pos, move))
            plies = len(truth.moves)
            if plies > ply:
                wait(lambda n=plies: player.sync.ply == n, lambda: board.pump(fog=True))
            player.follow()
        if truth.game.outcome(truth.pos) is None:
            api.resign(g.id)
        wait(lambda: board.views[-1].result is not None, lambda: board.pump(fog=True))
        moves = list(truth.moves)
    finally:
        board.close()
    assert_views_only(board, truth.game, moves, truth.options)


def board_service(folder, device: str, token: str, port: int) -> BoardService:
    """A board's own service (simulated board), linked to the server's broker as its
    configuration in docs/server.md says, with the club's referee."""
    config = Config()
    config.journal.path = str(folder / device / "journal")
    config.sensing.settle_ms = 50.0
    config.sensing.debounce_ms = 5.0
    config.link.broker = "127.0.0.1"
    config.link.port = port
    config.link.club = CLUB
    config.link.board = config.link.username = device
    config.link.password = token
    config.link.referee = True
    return BoardService(config)


def arrange(svc: BoardService) -> None:
    """The simulated board set to what it must show (the person follows the guidance)."""
    for _ in range(3):
        svc.sim_action({"action": "arrange"})
        svc.step(0.2)
        if svc.interaction.phase in ("turn", "game_over"):
            return
    raise AssertionError(svc.interaction)


def test_a_board_service_asks_for_a_server_game_from_its_page_and_plays_it(served, tmp_path):
    """The board's owner names a server account as the remote player ("@bob"): the
    request goes to the server, the board plays its moves on the board and is guided
    through the API player's."""
    bob, _, bob_token = served.player("bob")
    alice, device, token = served.player("alice")
    svc = board_service(tmp_path, device, token, served.broker_port)
    api = BoardApi(served.url, bob_token, silence_s=5.0)
    try:
        until(lambda: svc.remote.connected, [svc])
        svc.new_game("chess", {}, remote={1: "@bob"})
        accept_challenge(served, api)
        until(lambda: svc.fog is not None, [svc])
        arrange(svc)
        (g,) = served.server.hub.games.values()
        assert g.seats == (alice, bob)
        script = ["e2e4", "e7e5", "f1c4", "b8c6", "d1h5", "g8f6", "h5f7"]
        for ply, text in enumerate(script, 1):
            if ply % 2:
                move = svc.game.parse_move(svc.position, text)
                for action in move_actions(svc.game, svc.position, move, svc.layout):
                    svc.sim_action(action)
                    svc.step(0.03)
                svc.step(0.3)
                until(lambda n=ply: g.ply == n, [svc])
            else:
                api.move(g.id, text)
            until(lambda n=ply: svc.fog.ply == n, [svc])
            arrange(svc)
        assert [m for m, _ in served.server.store.moves_with_clocks(g.id)] == script
        assert g.result == "1-0" and g.reason == "checkmate"
        assert svc.interaction.phase == "game_over"
        assert svc.position.board == g.pos.board
    finally:
        svc.close()


def test_a_board_seeks_anyone_and_bad_requests_are_one_line_each(served, caplog):
    caplog.set_level("WARNING", logger="fairyboard.server.linkbridge")
    bob, _, bob_token = served.player("bob")
    alice, device, token = served.player("alice")
    board = LinkedBoard(device, token, served.broker_port)
    api = BoardApi(served.url, bob_token, silence_s=5.0)
    hub = served.server.hub
    try:
        wait(lambda: board.mqtt.connected)
        bad = [Start("x-1", "chess", {}, "", ("@nobody", device)),  # no such account
               Start("x-2", "chess", {}, "", ("@bob", "@alice")),  # not this board's game
               Start("x-3", "laotzu", {"seed": "mine"}, "", ("@bob", device)),  # hidden
               Start("x-4", "nogame", {}, "", ("@bob", device)),
               Start("x-5", "chess", {}, "", ("@", "@"))]
        for start in bad:
            board.seat.request(start)
        wait(lambda: len(caplog.records) == len(bad))
        assert all("\n" not in r.getMessage() for r in caplog.records)
        board.seat.request(Start("c-1", "chess", {}, "", ("@bob", device)))
        wait(lambda: len(hub.challenges) == 1)
        api.decline_challenge(next(iter(list(hub.challenges))))
        wait(lambda: not served.server.bridge._challenges)  # declined: forgotten
        seek = Start("s-1", "chess", {}, "", (device, "@"))  # anyone: a seek
        board.seat.request(seek)
        wait(lambda: hub.seeks)
        board.mqtt.publish(seat_topic(CLUB, device, "request"), seek)  # a copy (QoS 1)
        board.seat.request(Start("s-0", "chess", {}, "", (device, "@nobody")))  # in order
        wait(lambda: len(caplog.records) > len(bad))
        board.pump()
        assert len(hub.seeks) == 1 and not hub.games and not board.views
        caplog.clear()
        assert not hub.games
        api.seek_correspondence(3, color="white")  # white too: the hub seats them
        wait(lambda: board.views, board.pump)
        (g,) = hub.games.values()
        here = g.seats.index(alice)
        view = board.views[-1]
        assert view.seat == here and view.seats[here] == device
        assert view.seats[1 - here] == "@bob"
        if here == 1:
            api.move(g.id, "d2d4")
            wait(lambda: board.views[-1].ply == 1, board.pump)
        move = "e2e4" if here == 0 else "e7e5"
        board.attempt(g.ply + 1, move)
        wait(lambda: board.views[-1].ply == here + 1, board.pump)
        assert g.moves[-1] == move
    finally:
        board.close()


def _challenging_board(served: Served, request_id: str) -> tuple[LinkedBoard, str, str]:
    """Alice's linked board asking for a chess game against bob, who accepts it on the
    Board API, and its first view in: (the board, its device id, bob's token)."""
    _, _, bob_token = served.player("bob")
    _, device, token = served.player("alice")
    board = LinkedBoard(device, token, served.broker_port)
    try:
        wait(lambda: board.mqtt.connected)
        board.seat.request(Start(request_id, "chess", {}, "", (device, "@bob")))
        accept_challenge(served, BoardApi(served.url, bob_token, silence_s=5.0))
        wait(lambda: board.views, board.pump)
    except BaseException:
        board.close()
        raise
    return board, device, bob_token


def test_a_restarted_server_answers_the_board_of_its_unfinished_game(tmp_path):
    mosquitto_or_skip()
    served = Served(tmp_path / "server")
    board, _, bob_token = _challenging_board(served, "r-1")
    try:
        board.attempt(1, "e2e4")
        wait(lambda: board.views[-1].ply == 1, board.pump)
        (game_id,) = served.server.hub.games
        served.stop()
        served = Served(tmp_path / "server", broker_port=served.broker_port)
        # the retained request was cleared: no second game; the game resumed
        assert list(served.server.hub.games) == [game_id]
        BoardApi(served.url, bob_token, silence_s=5.0).move(game_id, "e7e5")
        wait(lambda: board.views[-1].ply == 2, board.pump, timeout=20)
        board.attempt(3, "g1f3")
        wait(lambda: board.views[-1].ply == 3, board.pump)
        assert [m for m, _ in served.server.store.moves_with_clocks(game_id)] == [
            "e2e4", "e7e5", "g1f3"]
        assert len(served.server.hub.games) == 1
    finally:
        board.close()
        served.stop()


def test_a_board_taking_a_seek_plays_the_seat_the_hub_gives_it(served):
    """The board asked for White, the waiting seek too: the hub seats the board Black,
    and the board plays Black."""
    bob, _, bob_token = served.player("bob")
    alice, device, token = served.player("alice")
    board = LinkedBoard(device, token, served.broker_port)
    api = BoardApi(served.url, bob_token, silence_s=5.0)
    hub = served.server.hub
    try:
        api.seek_correspondence(3, color="white")
        wait(lambda: board.mqtt.connected and hub.seeks)
        board.seat.request(Start("k-1", "chess", {}, "", (device, "@")))
        wait(lambda: board.views, board.pump)
        (g,) = hub.games.values()
        assert g.seats == (bob, alice)
        assert (board.views[-1].seat, board.views[-1].seats) == (1, ("@bob", device))
        api.move(g.id, "d2d4")
        wait(lambda: board.views[-1].ply == 1, board.pump)
        board.attempt(2, "d7d5")
        wait(lambda: board.views[-1].ply == 2, board.pump)
        assert g.moves == ["d2d4", "d7d5"]
    finally:
        board.close()


def test_the_club_broker_restarted_mid_game_loses_and_doubles_no_move(served):
    """Mosquitto stopped and started twice under a server game with a linked board: once
    while the board's move is on its way (paho holds it), once while the API player moves
    (the bridge's view for the board waits in paho too); the game goes on and the store
    holds each move once, in order."""
    bob, _, bob_token = served.player("bob")
    alice, device, token = served.player("alice")
    board = LinkedBoard(device, token, served.broker_port)
    api = BoardApi(served.url, bob_token, silence_s=5.0)
    broker = served.server.broker
    try:
        wait(lambda: board.mqtt.connected)
        board.seat.request(Start("br-1", "chess", {}, "", ("@bob", device)))
        accept_challenge(served, api)
        wait(lambda: board.views, board.pump)
        (g,) = served.server.hub.games.values()
        api.move(g.id, "e2e4")
        wait(lambda: board.views[-1].ply == 1, board.pump)
        broker.stop()
        wait(lambda: not board.mqtt.connected)
        board.attempt(2, "e7e5")  # sent while there is no broker
        broker.start(served.server.logins())
        wait(lambda: board.views[-1].ply == 2, board.pump, timeout=40)
        broker.stop()
        wait(lambda: not board.mqtt.connected)
        api.move(g.id, "g1f3")  # the server takes it; the board is told once it is back
        assert g.ply == 3
        broker.start(served.server.logins())
        wait(lambda: board.views[-1].ply == 3, board.pump, timeout=40)
        board.attempt(4, "b8c6")
        board.attempt(4, "b8c6")  # a copy, as after a reconnection: changes nothing
        wait(lambda: board.views[-1].ply == 4, board.pump)
        api.move(g.id, "f1b5")
        wait(lambda: board.views[-1].ply == 5, board.pump)
        assert [m for m, _ in served.server.store.moves_with_clocks(g.id)] == [
            "e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]
        assert board.views[-1].position == g.game.position_text(g.pos)
    finally:
        board.close()


def test_an_older_servers_linkbridge_file_is_taken_into_the_store_once(tmp_path):
    """A server from before the store kept the linked games left ``linkbridge.json``: the
    next start reads it into the store (and renames it), and the board's game goes on."""
    import json

    mosquitto_or_skip()
    served = Served(tmp_path / "server")
    board, device, _ = _challenging_board(served, "o-1")
    try:
        (game_id,) = served.server.hub.games
        store = served.server.store
        store._write("DELETE FROM linked_games")  # as an older server kept it: a file only
        old = tmp_path / "server" / "linkbridge.json"
        old.write_text(json.dumps({"o-1": {"game": game_id, "boards": {"0": device},
                                           "names": [device, "@bob"]}}))
        served.stop()
        served = Served(tmp_path / "server", broker_port=served.broker_port)
        assert not old.exists() and old.with_suffix(".json.imported").exists()
        (r,) = served.server.store.links("live")
        assert (r.board, r.request_id, r.game, r.boards) == (device, "o-1", game_id,
                                                             {0: device})
        board.attempt(1, "e2e4")
        wait(lambda: board.views[-1].ply == 1, board.pump)
        assert served.server.store.moves(game_id) == ["e2e4"]
    finally:
        board.close()
        served.stop()
