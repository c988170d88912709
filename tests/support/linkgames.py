"""Open games played to their end on two linked boards, each driven only from its own page
in Chromium (tests/test_web_link_games*.py): two ``fairyboard run`` services on the
simulated board, linked through a real Mosquitto.  The mover's page makes each ply, the
other page shows it and its person makes it there; both services end with the same
result and the same move list, on their pages and in their journals.

How a ply is made on a page: a move of one whole pile from one spot to another (most
plies) by two clicks on the drawn board, as tests/test_web_link.py does; any other move
(captures with their victims set aside, splits of a Tower, KaleidoChess explosions,
promotions) by the page's own simulator gestures (``move_actions``) run one after another
through the page's own simulator calls (``enqueue``/``sim``, so the page shows the hand
each leaves), each once the board has scanned the one before, so that it senses every
step (a victim lifted before the capturer lands).  A question which move was meant is
answered on the page's buttons.  The seats alternate between the boards (alpha, beta,
alpha, beta: KaleidoChess with three and four players too).

The games of one layout are played one after another on the same two boards (each
started anew from alpha's page, as people play again); a game on another layout stops
them and starts two new ones."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from controller.journal import Journal
from controller.layout import load_layout
from controller.rules import get_game
from controller.web.simulator import move_actions
from tests.support.broker import Broker
from tests.support.computerpage import GESTURES
from tests.support.linkpages import click
from tests.support.webtools import chromium, running_services

STATE = "() => fetch('/api/state').then(r => r.json())"
BOARDS = ("alpha", "beta")


def _config(name: str, port: int, game: str, layout: str) -> str:
    return (f"[board]\ngame = '{game}'\nlayout = '{layout}'\n"
            f"[link]\nbroker = '127.0.0.1'\nport = {port}\nclub = 'web'\n"
            f"board = '{name}'\n")


class LinkedBoards:
    """Two ``fairyboard run`` services (alpha and beta) of one layout with a live page
    each, in one Chromium; kept while the games asked for stay on that layout."""

    def __init__(self, folders: Any, port: int, chromium: Any, sync_api: Any) -> None:
        self.folders, self.port, self.chromium, self.sync_api = folders, port, chromium, sync_api
        self.layout: str | None = None
        self.folder: Path | None = None
        self.pages: dict[str, Any] = {}
        self.errors: list[str] = []
        self._stack: contextlib.ExitStack | None = None

    def on(self, layout: str, game: str) -> dict[str, Any]:
        """The live pages of alpha and beta on ``layout`` (new services for a new
        layout, their configured game ``game``)."""
        if layout != self.layout:
            self.close()
            self.folder = self.folders.mktemp(layout)
            for board in BOARDS:
                (self.folder / board).mkdir()
            self._stack = contextlib.ExitStack()
            urls = self._stack.enter_context(running_services(*(
                (self.folder / board, _config(board, self.port, game, layout))
                for board in BOARDS)))
            for board, url in zip(BOARDS, urls(), strict=True):
                page = self.chromium.new_page(viewport={"width": 1280, "height": 860})
                self._stack.callback(page.close)
                page.on("pageerror", lambda e: self.errors.append(str(e)))
                page.goto(url)
                self.sync_api.expect(page.locator("#connection")).to_have_text(
                    "live", timeout=10_000)
                self.pages[board] = page
            self.layout = layout
        return self.pages

    def journal(self, board: str) -> Journal:
        assert self.folder is not None
        return Journal(self.folder / board / "journal")

    def close(self) -> None:
        """The pages closed, then both services stopped (each must exit cleanly)."""
        stack, self._stack, self.layout, self.pages = self._stack, None, None, {}
        if stack is not None:
            stack.close()


@contextlib.contextmanager
def linked_boards(sync_api: Any, folders: Any) -> Iterator[LinkedBoards]:
    """A Mosquitto and one Chromium for a module's games (``folders``: pytest's
    ``tmp_path_factory``); the boards stopped at the end."""
    broker = Broker(folders.mktemp("broker")).start()
    try:
        with chromium(sync_api) as browser:
            boards = LinkedBoards(folders, broker.port, browser, sync_api)
            try:
                yield boards
            finally:
                boards.close()
    finally:
        broker.stop()


def _make(sync_api: Any, page: Any, gestures: list[dict[str, Any]], whole_pile: bool,
          text: str, ply: int) -> None:
    """The person at ``page`` carries out the ply ``text`` (the game's ``ply``-th) and
    answers the board's question when it asks which move was meant."""
    if whole_pile and [g["action"] for g in gestures] == ["lift", "place"]:
        # the page decides lift or put down by the hand it shows: it must show the hand
        # as the board has it (empty), not a state from before the last put-aside
        assert page.locator("#held").inner_text() == "nothing", _standing(page)
        click(page, gestures[0]["spot"])
        click(page, gestures[1]["spot"])
    else:
        page.evaluate(GESTURES, gestures)
    page.wait_for_function(
        "n => document.querySelectorAll('#moves li').length >= n"
        " || document.querySelectorAll('#choice-options button').length > 0",
        arg=ply, timeout=10_000)
    buttons = page.locator("#choice-options button")
    if page.locator("#moves li").count() < ply and buttons.count():
        buttons.filter(has_text=re.compile(rf"^\d+\. {re.escape(text)}$")).click()
    page.wait_for_function("n => document.querySelectorAll('#moves li').length >= n",
                           arg=ply, timeout=10_000)


def _standing(page: Any) -> dict[str, Any]:
    """What the board behind ``page`` shows: phase, message, moves, link, choice, the
    simulator's hand and the pieces sensed."""
    state = page.evaluate(STATE)
    return {key: state.get(key)
            for key in ("phase", "message", "moves", "link", "choice", "held", "pieces")}


def play_to_the_end(sync_api: Any, boards: LinkedBoards, name: str, options: dict[str, Any],
                    layout: str, script: list[str]) -> None:
    """``script`` (the plies of a game of ``name`` with ``options`` on ``layout``) played
    to its end on the two pages; both pages and both journals end alike."""
    expect = sync_api.expect
    game = get_game(name, **options)
    spots = load_layout(layout)
    pages = boards.on(layout, name)
    boards.errors.clear()
    # the linked game each board had before (none on new boards): the new one is another
    before = {board: (page.evaluate(STATE)["link"] or {}).get("game_id")
              for board, page in pages.items()}
    # alpha's page starts the game; the seats alternate: alpha, beta, alpha, beta
    remote = {str(seat): "beta" for seat in range(1, game.players, 2)}
    answer = pages["alpha"].evaluate(
        """([game, options, remote]) => fetch('/api/new-game', {method: 'POST',
             headers: {'Content-Type': 'application/json'},
             body: JSON.stringify({game, options, remote})}).then(r => r.json())""",
        [name, options, remote])
    assert answer["ok"], answer
    for board, page in pages.items():  # beta joins; each person sets his board up
        page.wait_for_function(
            f"old => ({STATE})().then(s => s.link && s.link.game_id !== null"
            f" && s.link.game_id !== old && s.game.name === '{name}'"
            f" && s.moves.length === 0)", arg=before[board], timeout=10_000, polling=100)
        page.click("#arrange")
        expect(page.locator("#phase")).to_have_text("Waiting for a move", timeout=5000)
    pos = game.start()
    for ply, text in enumerate(script, start=1):
        move = game.parse_move(pos, text)
        mover = BOARDS[game.ply_mover(pos) % 2]
        other = BOARDS[1 - BOARDS.index(mover)]
        gestures = move_actions(game, pos, move, spots)
        whole = move.left is None and not move.captures and not move.also
        try:
            _make(sync_api, pages[mover], gestures, whole, text, ply)
            expect(pages[other].locator("#phase")).to_have_text(
                "Execute the move shown on the board", timeout=10_000)
            _make(sync_api, pages[other], gestures, whole, text, ply)
        except (sync_api.Error, AssertionError) as exc:  # say where each board stands
            raise AssertionError(f"ply {ply} {text} ({mover} moves): {exc}; " + "; ".join(
                f"{b}: {_standing(pages[b])}" for b in BOARDS)) from exc
        pos.push(move)
    assert game.outcome(pos) is not None
    states = {}
    for board, page in pages.items():
        page.wait_for_function(f"() => ({STATE})().then(s => s.result !== null)",
                               timeout=10_000, polling=100)
        states[board] = page.evaluate(STATE)
    alpha, beta = states["alpha"], states["beta"]
    assert alpha["result"]["text"] == beta["result"]["text"] == game.outcome(pos).result
    assert alpha["result"]["winners"] == beta["result"]["winners"]
    assert ([m["text"] for m in alpha["moves"]] == [m["text"] for m in beta["moves"]]
            == script)
    for page in pages.values():
        assert page.locator("#moves li span:last-child").all_inner_texts() == script
    assert boards.errors == [], boards.errors
    link_id = alpha["link"]["game_id"]
    assert beta["link"]["game_id"] == link_id and link_id not in before.values()
    # each journal holds the linked game once, ended alike (a service writes a move and
    # the result to its journal before it tells the page)
    for board in BOARDS:
        (record,) = [r for r in boards.journal(board).games()
                     if r.link and r.link["game_id"] == link_id]
        assert record.moves == script
        assert record.result == game.outcome(pos).result
