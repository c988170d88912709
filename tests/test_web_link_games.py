"""Every open game to its end on two pages in Chromium: two ``fairyboard run`` services on
the simulated board, linked through a real Mosquitto, each driven only from its own page.
The mover's page makes each ply, the other page shows it and its person makes it there;
both services end with the same result and the same move list, on their pages and in
their journals.

How a ply is made on a page: a move of one whole pile from one spot to another (most
plies) by two clicks on the drawn board, as tests/test_web_link.py does; any other move
(captures with their victims set aside, splits of a Tower, KaleidoChess explosions,
promotions) by the page's own simulator gestures (``move_actions``) run one after another
through the page's own simulator calls (``enqueue``/``sim``, so the page shows the hand
each leaves), each once the board has scanned the one before, so that it senses every
step (a victim lifted before the capturer lands).  A
question which move was meant is answered on the page's buttons.  The seats alternate
between the boards (alpha, beta, alpha, beta: KaleidoChess with three and four players
too).  The scripts are short games of tests/support/linkplay.py's seeded player
(``finishing_move``), fixed here."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from controller.journal import Journal
from controller.layout import load_layout
from controller.rules import get_game
from controller.web.simulator import move_actions
from tests.support.computerpage import GESTURES
from tests.support.linkpages import click
from tests.support.webtools import CHROMIUM, CHROMIUM_ARGS, running_service

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)",
                allow_module_level=True)

#: (game, options, layout, the plies of a short game: ``finishing_move`` with
#: ``random.Random(seed)``, the shortest found: seeds 66, 56, 839, 71, 139, 4 and 0)
GAMES = [
    ("luotuoqi", {}, "square8", ["Ee2-d3", "Mb8-a6", "T4d1-h5", "Ma6-b6", "T2h5xf7"]),
    ("chess", {}, "square8", ["g4", "e5", "f3", "Qh4#"]),
    ("gnuqi", {}, "square9", ["Kd2", "Be8", "Kc2", "Ca8", "Cd2", "Cb5#"]),
    ("lotus39", {}, "lotus39", ["g4", "exg4", "Acg3", "gxi3", "Axi3", "i4", "Ae5#"]),
    ("kaleidochess", {"players": 2}, "kaleido89", ["2J+2G", "5G+5K", "2K-3H", "5J-5B"]),
    ("kaleidochess", {"players": 3}, "kaleido89", ["1H+1G", "3J+3K", "5K-6G", "1J-8C"]),
    ("kaleidochess", {"players": 4}, "kaleido89", ["1G+2K", "3J-4J", "5J+5G", "7J+7H"]),
]

STATE = "() => fetch('/api/state').then(r => r.json())"


def _config(name: str, port: int, game: str, layout: str) -> str:
    return (f"[board]\ngame = '{game}'\nlayout = '{layout}'\n"
            f"[link]\nbroker = '127.0.0.1'\nport = {port}\nclub = 'web'\n"
            f"board = '{name}'\n")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One Chromium for every game (each game opens its own two pages)."""
    with sync_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@contextlib.contextmanager
def _linked_services(folder: Path, port: int, game: str, layout: str,
                     boards: tuple[str, ...]) -> Iterator[list[str]]:
    """``fairyboard run`` for each board, started side by side (each takes a second to
    start); their page URLs.  Every service that started is stopped afterwards."""
    with contextlib.ExitStack() as stack:
        starting = []
        for board in boards:
            (folder / board).mkdir()
            starting.append(running_service(folder / board,
                                            _config(board, port, game, layout)))
        with ThreadPoolExecutor(len(boards)) as pool:
            futures = [pool.submit(service.__enter__) for service in starting]
            failures = [f.exception() for f in futures]
        for service, failure in zip(starting, failures, strict=True):
            if failure is None:
                stack.push(service)
        for failure in failures:
            if failure is not None:
                raise failure
        yield [f.result() for f in futures]



def _make(page: Any, gestures: list[dict[str, Any]], whole_pile: bool, text: str,
          ply: int) -> None:
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


@pytest.mark.parametrize(("name", "options", "layout", "script"), GAMES,
                         ids=[f"{g}-{o.get('players', 2)}" for g, o, _, _ in GAMES])
def test_two_pages_play_every_open_game_to_its_end(tmp_path, broker, browser, name,
                                                   options, layout, script):
    expect = sync_api.expect
    game = get_game(name, **options)
    spots = load_layout(layout)
    boards = ("alpha", "beta")
    errors: list[str] = []
    pages: dict[str, Any] = {}
    with _linked_services(tmp_path, broker.port, name, layout, boards) as urls, \
            contextlib.ExitStack() as closing:
        for board, url in zip(boards, urls, strict=True):
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            closing.callback(page.close)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url)
            expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
            pages[board] = page
        # alpha's page starts the game; the seats alternate: alpha, beta, alpha, beta
        remote = {str(seat): "beta" for seat in range(1, game.players, 2)}
        answer = pages["alpha"].evaluate(
            """([game, options, remote]) => fetch('/api/new-game', {method: 'POST',
                 headers: {'Content-Type': 'application/json'},
                 body: JSON.stringify({game, options, remote})}).then(r => r.json())""",
            [name, options, remote])
        assert answer["ok"], answer
        for page in pages.values():  # beta joins; each person sets his board up
            page.wait_for_function(
                f"() => ({STATE})().then(s => s.link && s.link.game_id !== null"
                f" && s.game.name === '{name}')", timeout=10_000, polling=100)
            page.click("#arrange")
            expect(page.locator("#phase")).to_have_text("Waiting for a move", timeout=5000)
        pos = game.start()
        for ply, text in enumerate(script, start=1):
            move = game.parse_move(pos, text)
            mover = boards[game.ply_mover(pos) % 2]
            other = boards[1 - boards.index(mover)]
            gestures = move_actions(game, pos, move, spots)
            whole = move.left is None and not move.captures and not move.also
            try:
                _make(pages[mover], gestures, whole, text, ply)
                expect(pages[other].locator("#phase")).to_have_text(
                    "Execute the move shown on the board", timeout=10_000)
                _make(pages[other], gestures, whole, text, ply)
            except (sync_api.Error, AssertionError) as exc:  # say where each board stands
                raise AssertionError(f"ply {ply} {text} ({mover} moves): {exc}; " + "; ".join(
                    f"{b}: {_standing(pages[b])}" for b in boards)) from exc
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
        assert errors == [], errors
        link_id = alpha["link"]["game_id"]
        assert beta["link"]["game_id"] == link_id
    # the services stopped: each journal holds the linked game once, ended alike
    for board in boards:
        (record,) = [r for r in Journal(tmp_path / board / "journal").games()
                     if r.link and r.link["game_id"] == link_id]
        assert record.moves == script
        assert record.result == game.outcome(pos).result
