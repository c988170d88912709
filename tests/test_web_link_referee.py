"""A refereed Lao Tzu game on two pages in Chromium: ``fairyboard referee`` and two
``fairyboard run`` services over the documented Mosquitto set-up (credentials, ACL).
Each page's person makes his moves by clicking and sets his board to each new view with
"Arrange the pieces"; after every ply each page draws exactly its player's view of the
referee's true position, and no enemy piece its player cannot see ever reaches the page
— neither its drawing nor any state it fetches or is pushed."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time

import pytest

from controller.link.referee import RefereedGame
from tests.support.refereed import CLUB, documented_broker
from tests.support.webtools import CHROMIUM, chromium, running_services

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)",
                allow_module_level=True)

SEATS = ("alpha", "beta")
PLIES = 6

#: every piece the page draws: "spot: White Pawn" (the pile's title), cells and pads
DRAWN = """() => Array.from(document.querySelectorAll('#board g.pieces > g > title'))
                 .map(t => t.textContent)"""
STATE = "() => fetch('/api/state').then(r => r.json())"


def _config(name: str, port: int, password: str) -> str:
    return (f"[link]\nbroker = '127.0.0.1'\nport = {port}\nclub = '{CLUB}'\n"
            f"board = '{name}'\nusername = '{name}'\npassword = '{password}'\n"
            f"referee = true\n")


def _click(page, spot: str) -> None:
    box = page.locator(f"[data-name='{spot}']").bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def _true_game(journal) -> RefereedGame:
    """The referee's whole game, from its journal (only the referee holds it)."""
    folder = journal.with_name("referee-games")  # a file per game; ended: archived
    (file,) = [*folder.glob("*.jsonl"), *folder.glob("archive/*.jsonl")]
    text = file.read_text()
    head, *rest = [json.loads(line) for line in text[:text.rfind("\n") + 1].splitlines()]
    return RefereedGame(head["game_id"], head["game"], head["options"], tuple(head["seats"]),
                        [r["move"] for r in rest if "move" in r])


def _wait(condition, what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out: {what}")
        time.sleep(0.02)


#: the board waits for a move or the game is over: its person has set it up
SET_UP = ("() => fetch('/api/state').then(r => r.json())"
          ".then(s => s.phase === 'turn' || s.phase === 'game_over')")


def _arrange(page) -> None:
    """The person sets his board to the view it asks for (a changed cell is emptied
    first, then filled: a few presses, each given 300 ms to take effect)."""
    for _ in range(5):
        page.click("#arrange")
        try:
            page.wait_for_function(SET_UP, timeout=300, polling=25)
            return
        except sync_api.TimeoutError:  # (a loaded machine: the last answer still counts)
            if page.evaluate(SET_UP):
                return
    raise AssertionError(page.evaluate(STATE)["phase"])


def _titles(g: RefereedGame, seat: int, cells: dict[int, str],
            pairs) -> set[str]:
    names = g.game.piece_names
    return {f"{cells[c]}: {g.game.player_names[p.owner]} {names.get(p.kind, p.kind)}"
            for c, p in pairs}


def _enemies_seen(g: RefereedGame, move, seat: int) -> int:
    """How many enemy pieces ``seat`` sees after ``move`` (the script seeks contact, so
    the views change with enemies coming into sight and going out of it)."""
    g.pos.push(move)
    try:
        return len(g.game.player_view(g.pos, seat).enemies)
    finally:
        g.pos.pop()


def test_each_page_of_a_refereed_game_shows_only_its_players_view(tmp_path):
    broker, users = documented_broker(tmp_path / "broker")
    journal = tmp_path / "referee.json"
    referee = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "referee", "--broker", "127.0.0.1",
         "--port", str(broker.port), "--club", CLUB, "--username", "referee",
         "--password", users["referee"], "--journal", str(journal),
         "--seed", "pages"],  # the same hidden arrays every run
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for name in SEATS:
        (tmp_path / name).mkdir()
    rng = random.Random(19)
    try:
        # both boards start side by side while Chromium is launched
        with running_services(*((tmp_path / name, _config(name, broker.port, users[name]))
                                for name in SEATS)) as started, \
                chromium(sync_api) as browser:
            url_a, url_b = started()
            errors: list[str] = []
            seen: dict[int, list[str]] = {0: [], 1: []}  # every state text a page got
            pages = []
            for seat, url in enumerate((url_a, url_b)):
                page = browser.new_page(viewport={"width": 1280, "height": 860})
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.on("websocket", lambda ws, s=seat: ws.on(
                    "framereceived", lambda payload, s=s: seen[s].append(str(payload))))
                page.on("response", lambda r, s=seat: seen[s].append(r.text())
                        if "/api/" in r.url else None)
                page.goto(url)
                sync_api.expect(page.locator("#connection")).to_have_text("live",
                                                                          timeout=10_000)
                pages.append(page)
            answer = pages[0].evaluate(
                """() => fetch('/api/new-game', {method: 'POST',
                     headers: {'Content-Type': 'application/json'},
                     body: JSON.stringify({game: 'laotzu', remote: {'1': 'beta'}})})
                   .then(r => r.json())""")
            assert answer["ok"], answer
            games = journal.with_name("referee-games")  # its journal: a file per game
            _wait(lambda: any(games.glob("*.jsonl")), "the referee's game")
            for seat, page in enumerate(pages):  # each board serves its own player
                page.wait_for_function(
                    "seat => fetch('/api/state').then(r => r.json()).then("
                    "s => s.game.name === 'laotzu' && s.viewer === seat)",
                    arg=seat, timeout=15_000, polling=50)
                _arrange(page)
            layout = pages[0].evaluate("() => fetch('/api/layout').then(r => r.json())")
            g = _true_game(journal)
            cells = {i: s["name"] for i, s in enumerate(layout["spots"]) if s["kind"] != "pad"}
            ever = {0: set(), 1: set()}  # the enemy pieces each player saw at some time
            hidden_pieces = 0
            for ply in range(PLIES + 1):
                g = _true_game(journal)
                assert len(g.moves) == ply
                for seat, page in enumerate(pages):
                    view = g.game.player_view(g.pos, seat)
                    ever[seat] |= set(view.enemies)
                    drawn = {t for t in page.evaluate(DRAWN) if t.split(":")[0] in
                             cells.values()}
                    assert drawn == _titles(g, seat, cells, (*view.own, *view.enemies))
                    hidden = {(c, p) for c, p in enumerate(g.pos.board)
                              if p is not None and p.owner != seat and c not in view.visible}
                    assert not drawn & _titles(g, seat, cells, hidden)
                    if not g.game.outcome(g.pos):  # whose turn, on which board
                        turn = sync_api.expect(page.locator("#turn-text"))
                        if g.game.ply_mover(g.pos) != seat:
                            turn.to_contain_text(f"to move — waiting for {SEATS[1 - seat]}")
                        else:
                            turn.not_to_contain_text("waiting")
                    hidden_pieces += len(hidden)
                if ply == PLIES:
                    break
                mover = g.game.ply_mover(g.pos)
                plain = sorted((m for m in g.game.legal_moves(g.pos)
                                if m.kind == "move" and not m.captures and not m.also
                                and not m.token and m.piece is not None
                                and m.piece == g.pos.board[m.origin]),
                               key=lambda m: (m.origin, m.target))
                move = max(plain, key=lambda m: (_enemies_seen(g, m, mover), rng.random()))
                _click(pages[mover], cells[move.origin])
                _click(pages[mover], cells[move.target])
                _wait(lambda n=ply + 1: len(_true_game(journal).moves) == n,
                      f"ply {ply + 1} at the referee")
                after = _true_game(journal)
                for page in pages:  # the new view arrived: the other player is to move
                    page.wait_for_function(
                        "m => fetch('/api/state').then(r => r.json()).then(s => s.mover === m)",
                        arg=after.game.ply_mover(after.pos), timeout=15_000, polling=50)
                    _arrange(page)
            # nothing a page fetched or was pushed holds an enemy piece its player never saw
            for seat in (0, 1):
                for text in seen[seat]:
                    try:
                        message = json.loads(text)
                    except ValueError:
                        continue
                    state = message.get("state", message)
                    if not isinstance(state, dict) or "pieces" not in state:
                        continue
                    for spot, pile in state["pieces"].items():
                        c = int(spot)
                        if c not in cells:
                            continue
                        for obj in pile:
                            owner = [n.lower() for n in g.game.player_names].index(
                                obj["colour"])
                            if owner != seat:
                                assert any(cc == c and pp.kind == obj["kind"]
                                           for cc, pp in ever[seat]), (seat, spot, obj)
            assert sum(len(v) for v in seen.values()) > 2 * PLIES
            assert ever[0] and ever[1], "no enemy piece ever came into sight"
            assert hidden_pieces, "nothing was ever hidden"
            assert errors == [], errors
    finally:
        referee.send_signal(signal.SIGTERM)
        assert referee.wait(10) == 0, referee.stderr.read()
        broker.stop()
