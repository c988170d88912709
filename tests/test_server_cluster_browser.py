"""Issue 36's game of each of the six through the cluster: a player with only a browser
(real Chromium, logged in on one worker's pages, clicking the drawn board of the play
page) against a board owner's seat with a device token on the other worker — the
board's own online client (``controller/online/seat.py`` ``OnlineSeat``) at a simulated
board of the game, its moves made by hand on it — on two ``fairyboard server --cluster
--use-referees`` workers and two referee processes, one real PostgreSQL and one real
Mosquitto.  Each game is a short line to its rules' end (Lao Tzu: a helpmate from the
arrays the referee drew, read from the store's referee columns by the test alone); both
sides see the result, the board's game is the line, and every ply is stored once.  In Lao
Tzu the page never draws a piece its seat cannot see, and the board and every line its
client received hold only its view.  Chess crosses the other way (the browser on worker
1, the board on worker 0).  The same five open games are then played on one server
process, the embedded default ``fairyboard server`` starts."""

from __future__ import annotations

import json
import random
import re
import time
from types import SimpleNamespace

import pytest

from controller.online.api import BoardApi
from controller.online.game import game_full
from controller.online.room import RESIGN
from controller.online.seat import OnlineSeat
from controller.rules import Game, Move, Position, get_game
from tests.support.clubserver import ClubServer
from tests.support.cluster import Cluster, each_seat_saw_only_its_view
from tests.support.fog import FogPlayer
from tests.test_online_variants import Recording, _board_for, _pump
from tests.test_server_play_page import PASSWORD, Player
from tests.test_server_play_page_games import (
    LAOTZU_PLIES,
    REFEREE_SEED,
    _click,
    _drawn_cells,
    _helpmate,
    _line,
)

#: the fool's mate (the board mates the browser)
CHESS_LINE = ["f3", "e5", "g4", "Qh4#"]

#: each game: (the Board API's variant, the browser's seat, the browser's worker)
GAMES = {"standard": (0, 1), "luotuoqi": (1, 0), "laotzu": (1, 0), "gnuqi": (0, 0),
         "kaleidochess": (1, 0), "lotus39": (0, 0)}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    # the play page's own test's seed: its first Lao Tzu game's arrays admit a helpmate in 4
    c = Cluster(tmp_path_factory.mktemp("webcluster"), referees=2,
                referee_seed=f"test-{REFEREE_SEED}")
    yield c
    c.stop()


class _Pages:
    """One worker's pages as :class:`Player` logs in on them (its account in the store)."""

    def __init__(self, cluster: Cluster, worker: int) -> None:
        self.cluster, self.url = cluster, cluster.workers[worker].url

    def player(self, name: str, password: str) -> tuple[str, str]:
        assert password == PASSWORD  # (the cluster's accounts' password)
        return self.cluster.player(name)


def _truth_options(cluster: Cluster, gid: str) -> dict:
    """A refereed game's drawn set-up, from the store's referee columns (the test only)."""
    deadline = time.monotonic() + 10
    while (truth := cluster.store.truth(gid)) is None:
        assert time.monotonic() < deadline, "the referee stored no truth"
        time.sleep(0.02)
    return truth[0]


class _OwnersBoard:
    """The board owner's simulated board and its own online client
    (:class:`~controller.online.seat.OnlineSeat`): the other seat's moves executed on it
    by hand, the owner's made on it by hand and sent by the client."""

    def __init__(self, api: BoardApi, gid: str, owner: str, game: Game) -> None:
        self.rig, self.human = _board_for(game)
        self.seat = OnlineSeat(api, self.rig.board, gid, owner, backoff_s=(0.05, 0.1))
        self.pump(lambda: self.seat.server is not None)
        # as the board's online room sets it while a game is played (its menu): the
        # board holds a move that may still be amended (a Tower lifted whole, the
        # remainder put back) instead of refusing the amendment as the away seat's
        self.rig.board.set_online((RESIGN,), True)

    def pump(self, until) -> None:
        _pump(self.seat, self.rig, until)
        assert self.seat.problem is None, self.seat.problem

    def at(self, ply: int) -> None:
        """The board, its client and the server at ``ply`` (the browser's move executed)."""
        rig, seat = self.rig, self.seat
        while True:
            self.pump(lambda: rig.state == "execute" or (
                rig.state in ("turn", "game_over")
                and len(rig.position.moves) == len(seat.server.moves) == ply))
            if rig.state != "execute":
                return
            self.human.play(rig.board.progress.execute)

    def play(self, move: Move) -> None:
        plies = len(self.seat.server.moves)
        self.human.play(move)
        self.pump(lambda: len(self.seat.server.moves) > plies)  # the server holds it

    def ended(self) -> str:
        """The server's status as the board's client got it, once the board's game ended."""
        self.pump(lambda: self.rig.state == "game_over" and self.seat.server.ended)
        return self.seat.server.status


def _parsed(game: Game, texts: list[str]) -> list[Move]:
    pos, line = game.start(), []
    for text in texts:
        line.append(game.parse_move(pos, text))
        pos.push(line[-1])
    return line


def _fog_checked(game: Game, pos: Position, page: Player, seat: int) -> None:
    """The page draws exactly its seat's view: no piece hidden from it."""
    names = game.geometry.cells
    view = game.view_position(pos, seat)
    seen = {names[c] for c, piece in enumerate(view.board) if piece is not None}
    hidden = {names[c] for c, piece in enumerate(pos.board) if piece is not None} - seen
    drawn = _drawn_cells(page, set(names))
    assert drawn == seen and hidden and not drawn & hidden, (len(pos.moves), seat)


@pytest.mark.parametrize("variant", list(GAMES))
def test_a_browser_player_and_a_board_play_a_game_across_the_workers(
        cluster, browser, expect, variant):
    _browser_against_board(cluster, browser, expect, variant)


class _OneProcess:
    """``fairyboard server`` as one process (its SQLite, its own referee) seen as the
    cluster the games are played on: both "workers" are the one server."""

    def __init__(self, club: ClubServer) -> None:
        self.club, self.workers, self.store = club, [club, club], club.server.store
        self.referees: list = []

    def player(self, name: str) -> tuple[str, str]:
        return self.club.player(name)

    def client(self, worker: int, token: str) -> BoardApi:
        return self.club.client(token)


@pytest.fixture(scope="module")
def one_process(tmp_path_factory):
    club = ClubServer(tmp_path_factory.mktemp("oneprocess")).start()
    yield _OneProcess(club)
    club.stop()


@pytest.mark.parametrize("variant", [v for v in GAMES if v != "laotzu"])
def test_the_same_games_on_one_server_process(one_process, browser, expect, variant):
    """The embedded default (``fairyboard server``, SQLite): the board owner's own client
    and a browser player, each open game to its end (Lao Tzu in the browser against a
    board on one process: ``tests/test_server_browser.py``)."""
    _browser_against_board(one_process, browser, expect, variant)


def _browser_against_board(cluster, browser, expect, variant: str) -> None:
    mine, on = GAMES[variant]  # the browser's seat and worker; the board on the other
    name = "chess" if variant == "standard" else variant
    friend = Player(browser, _Pages(cluster, on), f"{name}-friend")
    owner, token = cluster.player(f"{name}-owner")
    api = cluster.client(1 - on, token)
    friend.lobby()
    api.challenge(friend.name, 10, 0, color="black" if mine == 0 else "white",
                  variant=variant)
    friend.page.locator("#challenges form[action$='/accept'] button").click()
    expect(friend.page).to_have_url(re.compile("/play/"))
    gid = friend.page.url.rsplit("/", 1)[1]
    record = cluster.store.game(gid)
    assert record.seats[mine] == friend.name and record.seats[1 - mine] == owner
    if name == "laotzu":
        _play_lao_tzu(cluster, expect, friend, token, 1 - on, gid, owner, mine)
        return
    game = get_game(name, **record.options)
    line = _parsed(game, CHESS_LINE if name == "chess" else _line(name))
    board = _OwnersBoard(api, gid, owner, game)
    pos, asked = game.start(), 0
    try:
        for k, move in enumerate(line):
            friend.wait_ply(k)
            board.at(k)
            if game.ply_mover(pos) == mine:
                offered = [m for m in game.legal_moves(pos) if m.kind != "roll"]
                asked += _click(friend, game, pos, move, offered,
                                lambda m, at=pos: game.move_text(at, m))
            else:
                board.play(move)
            pos.push(move)
        friend.wait_ply(len(line))
        board.at(len(line))
        outcome = _ended(cluster, expect, friend, gid, game, pos, line)
        assert board.ended() == cluster.store.game(gid).status
    finally:
        board.seat.close()
    assert board.rig.position.moves == line
    if name == "luotuoqi":  # the page asked which move; the board amended one (a Tower
        assert asked and board.rig.takebacks  # lifted whole, the remainder put back)
    assert tuple(board.rig.board.outcome.winners) == tuple(outcome.winners)


def _ended(cluster, expect, friend: Player, gid: str, game: Game, pos: Position,
           line: list[Move]):
    """The rules' end shown on the page and stored, each ply of ``line`` once."""
    outcome = game.outcome(pos)
    assert outcome is not None and outcome.winners
    expect(friend.page.locator("#status")).to_contain_text(f"game over: {outcome.result}")
    record = cluster.store.game(gid)
    assert (record.result, record.winners) == (outcome.result, tuple(outcome.winners))
    stored = cluster.store.moves(gid)
    replay = game.start()
    for text, move in zip(stored, line, strict=True):
        assert game.parse_move(replay, text) == move
        replay.push(move)
    friend.close()
    return outcome


def _play_lao_tzu(cluster, expect, friend: Player, token: str, worker: int, gid: str,
                  owner: str, mine: int) -> None:
    """A helpmate from the drawn arrays: the page's moves clicked from its view, the
    board's made on the owner's simulated board from its view (its online client tries
    each with the referee); every line the board's client received is kept."""
    api = Recording(cluster.workers[worker].url, token, silence_s=5.0)
    first = game_full(next(api.stream_game(gid)), owner)
    me = 1 - mine
    assert first.hidden and first.seat == me
    player = FogPlayer(me, "laotzu", first.options, first.view, random.Random(4))
    player.sync.detach()  # the online seat follows the server's views instead
    rig = player.rig
    seat = OnlineSeat(api, rig.board, gid, owner, backoff_s=(0.05, 0.1))
    _pump(seat, rig, lambda: seat.fog is not None)
    player.sync = seat.fog
    game = get_game("laotzu", **_truth_options(cluster, gid))
    pos = game.start()
    line = _helpmate(game, pos, LAOTZU_PLIES)
    assert line is not None, f"no helpmate in {LAOTZU_PLIES} from the drawn arrays"

    def shown(ply: int) -> None:  # the board, its client and the referee's view at ply
        _pump(seat, rig, lambda: seat.fog is not None and not seat.fog.waiting
              and seat.server is not None and seat.server.ply == seat.fog.ply == ply)
        player.follow()
        assert seat.problem is None, seat.problem

    try:
        for k, move in enumerate(line):
            friend.wait_ply(k)
            shown(k)
            _fog_checked(game, pos, friend, mine)
            assert rig.game.position_text(rig.position) == game.position_text(
                game.view_position(pos, me)), k  # the board holds its view, no more
            seat_to_move = game.ply_mover(pos)
            text = game.long_move_text(pos, move)
            if seat_to_move == mine:
                view = game.view_position(pos, mine)
                seen = next(m for m in game.board_moves(view)
                            if game.long_move_text(view, m) == text)
                _click(friend, game, view, seen, game.board_moves(view),
                       lambda m, at=view: game.player_move_text(at, m))
            else:
                tried = next(m for m in player.tries()
                             if rig.game.long_move_text(rig.position, m) == text)
                player.play(tried)
                _pump(seat, rig, lambda: not seat.fog.waiting)
            pos.push(move)
        friend.wait_ply(len(line))
        shown(len(line))
        _pump(seat, rig, lambda: rig.state == "game_over")
        _fog_checked(game, pos, friend, mine)
        _ended(cluster, expect, friend, gid, game, pos, line)
        assert tuple(rig.board.outcome.winners) == tuple(game.outcome(pos).winners)
    finally:
        seat.close()
        api.close()
    received = [said for said in api.received if said]
    for secret in ("white_array", "black_array", "seed"):
        assert secret not in json.dumps(received)
    streamed = [said for said in received if "status" in said.get("state", said)]
    assert len(streamed) > len(line)  # (a state at least for every ply)
    assert streamed[-1].get("state", streamed[-1])["status"] == cluster.store.game(gid).status
    seats = [SimpleNamespace(lines=[])] * 2  # the page's seat has no stream: the page's
    seats[me] = SimpleNamespace(lines=streamed)  # checks above; the board's: only its view
    each_seat_saw_only_its_view(cluster.store, gid, seats)
    judged = sorted(p for r in cluster.referees for p in r.judged(gid))
    assert judged == list(range(1, len(line) + 1))  # by the referee processes, once
