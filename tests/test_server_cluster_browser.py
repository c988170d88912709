"""Issue 36's game of each of the six through the cluster: a player with only a browser
(real Chromium, logged in on one worker's pages, clicking the drawn board of the play
page) against a board owner's seat with a device token on the other worker (the Board
API, as a board's online client speaks it), on two ``fairyboard server --cluster
--use-referees`` workers and two referee processes, one real PostgreSQL and one real
Mosquitto.  Each game is a short line to its rules' end (Lao Tzu: a helpmate from the
arrays the referee drew, read from the store's referee columns by the test alone); both
sides see the result and every ply is stored once.  In Lao Tzu the page never draws a
piece its seat cannot see and the board's stream holds only its view.  Chess crosses the
other way (the browser on worker 1, the board on worker 0)."""

from __future__ import annotations

import re
import time
from types import SimpleNamespace

import pytest

from controller.rules import Game, Move, Position, get_game
from tests.support.cluster import Cluster, Follower, each_seat_saw_only_its_view
from tests.support.webtools import CHROMIUM, CHROMIUM_ARGS, playwright_or_skip
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


@pytest.fixture(scope="module")
def sync_api():
    return playwright_or_skip()


@pytest.fixture(scope="module")
def browser(sync_api):
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def expect(sync_api):
    return sync_api.expect


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


def _board_text(game: Game, pos: Position, move: Move) -> str:
    """The move as a board's client sends it (``tests/support/clubserver.py`` ``Seat``)."""
    text = game.long_move_text(pos, move)
    return text if " " not in text else game.move_text(pos, move)


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
    mine, on = GAMES[variant]  # the browser's seat and worker; the board on the other
    name = "chess" if variant == "standard" else variant
    friend = Player(browser, _Pages(cluster, on), f"{name}-friend")
    owner, token = cluster.player(f"{name}-owner")
    board = cluster.client(1 - on, token)
    friend.lobby()
    board.challenge(friend.name, 10, 0, color="black" if mine == 0 else "white",
                    variant=variant)
    friend.page.locator("#challenges form[action$='/accept'] button").click()
    expect(friend.page).to_have_url(re.compile("/play/"))
    gid = friend.page.url.rsplit("/", 1)[1]
    record = cluster.store.game(gid)
    assert record.seats[mine] == friend.name and record.seats[1 - mine] == owner
    stream = Follower(board, gid)  # the board's game stream on its worker
    stream.wait_ply(0)
    hidden = name == "laotzu"
    game = get_game(name, **(_truth_options(cluster, gid) if hidden else record.options))
    pos = game.start()
    if hidden:
        line = _helpmate(game, pos, LAOTZU_PLIES)
        assert line is not None, f"no helpmate in {LAOTZU_PLIES} from the drawn arrays"
    else:
        line = _parsed(game, CHESS_LINE if name == "chess" else _line(name))
    for k, move in enumerate(line):
        friend.wait_ply(k)
        stream.wait_ply(k)
        seat = game.ply_mover(pos)
        at = game.view_position(pos, seat) if hidden else pos
        if hidden:
            _fog_checked(game, pos, friend, mine)
            text = game.long_move_text(pos, move)
            move = next(m for m in game.board_moves(at) if game.long_move_text(at, m) == text)
        if seat == mine:
            offered = game.board_moves(at) if hidden else [
                m for m in game.legal_moves(pos) if m.kind != "roll"]
            _click(friend, game, at, move, offered,
                   lambda m, at=at: (game.player_move_text if hidden else game.move_text)(at, m))
        else:
            board.move(gid, game.long_move_text(at, move) if hidden
                       else _board_text(game, pos, move))
        pos.push(line[k])
    friend.wait_ply(len(line))
    if hidden:
        _fog_checked(game, pos, friend, mine)
    outcome = game.outcome(pos)
    assert outcome is not None and outcome.winners
    expect(friend.page.locator("#status")).to_contain_text(f"game over: {outcome.result}")
    stream.join(10)
    assert stream.problem is None and not stream.is_alive()
    record = cluster.store.game(gid)
    assert (record.result, record.winners) == (outcome.result, tuple(outcome.winners))
    assert stream.lines[-1].get("state", stream.lines[-1])["status"] == record.status
    stored = cluster.store.moves(gid)  # every ply once, the line's own
    replay = game.start()
    for text, move in zip(stored, line, strict=True):
        assert game.parse_move(replay, text) == move
        replay.push(move)
    if hidden:  # the board's stream held only its view, the page's seat nothing
        seats = [SimpleNamespace(lines=[])] * 2
        seats[1 - mine] = stream
        each_seat_saw_only_its_view(cluster.store, gid, seats)
        judged = sorted(p for r in cluster.referees for p in r.judged(gid))
        assert judged == list(range(1, len(line) + 1))  # by the referee processes, once
    friend.close()
