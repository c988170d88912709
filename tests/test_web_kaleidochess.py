"""KaleidoChess on the companion page: the round board's drawing data, games for two to
four players with and without the die through the JSON API (a whole game to the end),
and a three-player dice game started, rolled and played by clicking in Chromium.

API tests run the service in process (simulated board, seeded virtual die); every move is
made as human actions on the simulated board (``/api/sim``), which the service learns of
only through the emulated electronics, exactly as from a physical board.
"""

from __future__ import annotations

import json
import random
import re
import warnings
from pathlib import Path

import pytest

from tests.support.webtools import browser_page, playwright_or_skip, running_service

with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from functools import partial

from controller.journal import Journal, read_game
from controller.rules.core import Move
from controller.rules.kaleidochess import KaleidoChess
from controller.service import BoardService
from controller.web.app import create_app
from controller.web.simulator import move_actions
from tests.support.service import page_service

SERVICE = dict(game="kaleidochess", layout="kaleido89", seed=1)
pytestmark = pytest.mark.service(**SERVICE)
make_service = partial(page_service, **SERVICE)

ROOT = Path(__file__).resolve().parent.parent








def act(client: TestClient, svc: BoardService, actions: list[dict], pause: float = 0.03):
    for action in actions:
        r = client.post("/api/sim", json=action)
        assert r.status_code == 200, r.json()
        svc.step(pause)
    svc.step(0.2)


def play(client: TestClient, svc: BoardService, move: Move) -> None:
    """Carry out ``move`` with simulator actions, as the page does."""
    before = len(svc.plies)
    act(client, svc, move_actions(svc.game, svc.position, move, svc.layout))
    assert len(svc.plies) == before + 1 and svc.position.moves[-1] == move, (
        svc.plies, svc.interaction)


# -- the round board's drawing -------------------------------------------------------


def test_round_board_layout_is_drawn_from_the_layout_data(client, svc):
    data = client.get("/api/layout").json()
    spots = data["spots"]
    assert data["size"] == [440.0, 440.0] and data["cell_count"] == 89 and len(spots) == 96
    fields = spots[:89]
    assert [s["name"] for s in fields] == list(svc.layout.geometry.cells)
    fills = {s["name"]: s["fill"] for s in fields}
    castle, town, plain = fills["00"], fills["1A"], fills["1B"]
    assert len({castle, town, plain}) == 3
    assert {n for n, f in fills.items() if f == castle} == {"00", "1J", "3J", "5J", "7J"}
    assert sum(f == town for f in fills.values()) == 28
    # every field outline follows its arcs (many points), lies inside the round board and
    # around its centre; the centre is a disc
    for s in fields:
        xs = [p[0] for p in s["outline"]]
        ys = [p[1] for p in s["outline"]]
        assert len(s["outline"]) >= 8
        assert min(xs) <= s["centre"][0] <= max(xs) and min(ys) <= s["centre"][1] <= max(ys)
        assert all(((x - 220) ** 2 + (y - 220) ** 2) ** 0.5 <= 6 * 32 + 0.01
                   for x, y in s["outline"])
    # slice 1 (White's) in front of White at the bottom, slice 5 at the top, 3 on the left
    assert fills and fields[svc.layout.spot_index("1J")]["centre"][1] < 60
    assert fields[svc.layout.spot_index("5J")]["centre"][1] > 380
    assert fields[svc.layout.spot_index("3J")]["centre"][0] < 60
    pads = {s["name"]: s for s in spots[89:]}
    assert pads["die"]["role"] == "die" and pads["die"]["label"] == "die"
    assert [pads[f"option-{k}"]["label"] for k in range(1, 7)] == [
        f"option {k}" for k in range(1, 7)]


@pytest.mark.parametrize("players", [2, 3, 4])
def test_state_for_two_to_four_players(client, svc, players):
    r = client.post("/api/new-game", json={"game": "kaleidochess",
                                            "options": {"players": players, "dice": True}})
    assert r.status_code == 200, r.json()
    act(client, svc, [{"action": "arrange"}])
    state = client.get("/api/state").json()
    names = ["White", "Red", "Black", "Green"] if players == 4 else (
        ["White", "Red", "Black"] if players == 3 else ["White", "Black"])
    assert state["game"]["players"] == names
    assert state["game"]["options"] == {"players": players, "dice": True}
    assert "house set-ups" in state["game"]["provisional"] or players == 2
    assert "provisional dice table" in state["game"]["provisional"]
    assert state["die"] is True and state["phase"] == "choice" and state["mover"] == 0
    assert state["out"] == []
    assert [c["label"] for c in state["choice"]] == [f"die:{n}" for n in range(1, 7)]
    assert [c["spot"] for c in state["choice"]] == [
        svc.layout.spot_index(f"option-{n}") for n in range(1, 7)]
    colours = {o["colour"] for pile in state["pieces"].values() for o in pile}
    assert colours == {n.lower() for n in names}
    palette = dict(state["palette"])
    assert all(f"player {n}" in palette for n in names)
    # each player's pieces glow in his colour (the page shows the LEDs)
    lit = {tuple(state["leds"][svc.layout.spot_index(f)]) for f in ("1J", "5J")}
    assert len(lit) == 2 and all(op > 0 for _, op in lit)


def test_roll_then_move_then_errors(client, svc):
    client.post("/api/new-game", json={"game": "kaleidochess",
                                       "options": {"players": 3, "dice": True}})
    act(client, svc, [{"action": "arrange"}])
    r = client.post("/api/roll")
    assert r.status_code == 200
    face = r.json()["face"]
    svc.step(0.05)
    state = client.get("/api/state").json()
    assert state["moves"] == [{"player": 0, "text": f"die:{face}"}]
    assert state["die"] is False and state["phase"] == "turn" and state["mover"] == 0
    assert state["message"].startswith(f"White rolls {face} (")
    r = client.post("/api/roll")
    assert r.status_code == 400 and "no die roll" in r.json()["error"]
    game, pos = svc.game, svc.position
    movable = {m.origin for m in game.legal_moves(pos)}
    leds = state["leds"]
    assert all(leds[c][1] > 0 for c in movable)  # the pieces the face allows are lit
    move = next((m for m in game.legal_moves(pos) if not m.captures),
                game.legal_moves(pos)[0])
    play(client, svc, move)
    state = client.get("/api/state").json()
    assert [m["player"] for m in state["moves"]][:2] == [0, 0]
    assert Journal(svc.journal.folder).find(svc.game_id).moves == [t for _, t in svc.plies]


def test_a_five_after_an_earlier_game_is_the_wizards_move_not_a_question(tmp_path):
    """The pieces arranged for a new game are not put down during its first move: they
    were taken for a piece landed on 2I, so the wizard set on 1B (the five that takes White
    out), lifted again and set aside with White's pieces, was asked about as "1J-1B or
    1J+2I" — after an earlier game had moved 2I's piece (the page test failed so)."""
    svc = make_service(tmp_path, players=3, dice=True)
    client = TestClient(create_app(svc))
    names = svc.game.geometry.cells
    try:
        act(client, svc, [{"action": "arrange"}])
        assert client.post("/api/choice", json={"index": 1}).status_code == 200  # a two
        svc.step(0.1)
        game, pos = svc.game, svc.position
        play(client, svc, next(m for m in game.legal_moves(pos)
                               if game.move_text(pos, m) == "2I-2G"))
        r = client.post("/api/new-game", json={"game": "kaleidochess",
                                               "options": {"players": 3, "dice": True}})
        assert r.status_code == 200, r.json()
        act(client, svc, [{"action": "arrange"}])
        assert client.post("/api/choice", json={"index": 4}).status_code == 200  # a five
        svc.step(0.1)
        game, pos = svc.game, svc.position
        move = next(m for m in game.legal_moves(pos) if game.move_text(pos, m) == "1J-1B")
        act(client, svc, [{"action": "lift", "spot": "1J"}, {"action": "place", "spot": "1B"}])
        assert client.get("/api/state").json()["message"].startswith(
            "White gives up the last castle and is out")
        for c in move.captures:  # the wizard first, as a player clears the marked pieces
            act(client, svc, [{"action": "lift", "spot": names[c]}, {"action": "set_aside"}])
        state = client.get("/api/state").json()
        assert [t for _, t in svc.plies] == ["die:5", "1J-1B"], state["message"]
        assert state["mover"] == 1 and state["die"]  # Red rolls next
    finally:
        svc.close()


def test_whole_three_player_dice_game_to_the_end_through_the_api(tmp_path):
    """Rolled on the page's virtual die, every move made with simulator actions, until
    one player is left; the page's state and the journal agree with the game."""
    svc = make_service(tmp_path, seed=4, players=3, dice=True, move_cap=60)
    client = TestClient(create_app(svc))
    rng = random.Random(4)
    try:
        act(client, svc, [{"action": "arrange"}])
        eliminations = []
        for _ in range(200):
            state = client.get("/api/state").json()
            if state["result"] is not None:
                break
            if state["die"]:
                assert client.post("/api/roll").status_code == 200
                svc.step(0.05)
                continue
            game, pos = svc.game, svc.position
            moves = game.legal_moves(pos)
            keep = [m for m in moves if m.piece is not None] or moves
            move = rng.choice([m for m in keep if m.captures] or keep) if rng.random() < 0.4 \
                else rng.choice(keep)
            out_before = len(game.out_players(pos))
            pos.push(move, record=False)
            knocks_out = len(game.out_players(pos)) > out_before
            pos.pop()
            if knocks_out and move.kind == "move":
                # mover first, then the marked pieces: the page names who is out
                spot = [s.name for s in svc.layout.spots]
                steps = []
                if pos.board[move.target] is not None:  # the victim to the box
                    steps += [{"action": "lift", "spot": spot[move.target]},
                              {"action": "set_aside"}]
                steps += [{"action": "lift", "spot": spot[move.origin]},
                          {"action": "place", "spot": spot[move.target]}]
                act(client, svc, steps)
                rest = [c for c in move.captures if c != move.target and pos.board[c]]
                if move.piece is None:  # gave up: the piece leaves with the rest
                    rest.append(move.target)
                if rest:
                    eliminations.append(client.get("/api/state").json()["message"])
                act(client, svc, [x for c in rest for x in (
                    {"action": "lift", "spot": spot[c]}, {"action": "set_aside"})])
                assert svc.position.moves[-1] == move
            else:
                play(client, svc, move)
        state = client.get("/api/state").json()
        assert state["result"] is not None, state["message"]
        assert state["result"]["reason"] in ("last player left", "move cap")
        assert state["phase"] == "game_over" and state["die"] is False
        if state["result"]["winners"]:
            winner = state["game"]["players"][state["result"]["winners"][0]]
            assert state["message"] == f"{winner} wins ({state['result']['reason']})"
        record = Journal(tmp_path / "journal").find(svc.game_id)
        assert record.players == ["White", "Red", "Black"]
        assert record.moves == [t for _, t in svc.plies] == [m["text"] for m in state["moves"]]
        assert (record.result, record.reason) == (state["result"]["text"],
                                                  state["result"]["reason"])
        _, pos = record.replay()
        assert svc.game.position_text(pos) == svc.game.position_text(svc.position)
        if state["result"]["reason"] == "last player left":
            assert len(state["out"]) == 2 and len(eliminations) == 2
            winner = state["game"]["players"][state["result"]["winners"][0]]
            assert winner not in state["out"]
            assert eliminations == [
                "White gives up the last castle and is out: take the marked pieces off the board",
                "Red gives up the last castle and is out: take the marked pieces off the board"]
    finally:
        svc.close()


# -- in Chromium ------------------------------------------------------------------------



@pytest.fixture(scope="module")
def browser_service(tmp_path_factory):
    playwright_or_skip()
    folder = tmp_path_factory.mktemp("kaleido-browser")
    with running_service(folder, "[board]\nlayout = 'kaleido89'\ngame = 'kaleidochess'\n") as url:
        yield url, folder


@pytest.mark.parametrize("die", ["virtual", 5])
def test_three_player_dice_game_in_chromium(browser_service, die):
    """The virtual die (any face), and a real die's five chosen on the page: the wizard's
    move that leaves White's last castle, White's pieces set aside one by one."""
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    expect = sync_api.expect
    url, folder = browser_service
    with browser_page(sync_api, url, height=900) as page:

        def centre(spot: str) -> tuple[float, float]:
            box = page.locator(f"[data-name='{spot}']").bounding_box()
            return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

        def click(spot: str) -> None:
            page.mouse.click(*centre(spot))

        def led(spot: str) -> str:
            i = page.locator(f"[data-name='{spot}']").get_attribute("data-spot")
            return page.locator(f"[data-led='{i}']").get_attribute("fill")

        def moves() -> list[str]:
            return page.locator("#moves li span:last-child").all_inner_texts()

        def wait_moves(n: int) -> list[str]:
            page.wait_for_function("n => document.querySelectorAll('#moves li').length >= n",
                                   arg=n, timeout=20000)  # (a loaded machine)
            return moves()

        # a three-player game with the die, from the new-game form
        page.click("#new-game summary")
        page.select_option("#ng-game", "kaleidochess")
        page.fill("#ng-options input[name=players]", "3")
        page.check("#ng-options input[name=dice]")
        page.click("#new-game-form button[type=submit]")
        expect(page.locator("#provisional")).to_contain_text("house set-ups", timeout=5000)
        page.click("#arrange")
        expect(page.locator("#die")).to_be_visible(timeout=5000)
        expect(page.locator("#turn-text")).to_have_text("White to move")
        expect(page.locator("#phase")).to_contain_text("Roll the die")
        expect(page.locator("#choice-options button")).to_have_count(6, timeout=5000)
        expect(page.locator("#choice-title")).to_have_text("Or the face of a real die")
        assert page.locator("#choice-options button").all_inner_texts() == [
            f"{n}. die:{n}" for n in range(1, 7)]
        assert led("3J") != "none" and led("3J") != led("1J")  # Red's and White's colours
        page.screenshot(path=str(folder / "1-three-players-roll.png"))

        # roll the virtual die (or tell the page a real die's face): the pieces the face
        # allows light up
        if die == "virtual":
            page.click("#roll")
        else:
            page.locator("#choice-options button").nth(die - 1).click()
        first = wait_moves(1)
        face = int(first[0].split(":")[1])
        assert die == "virtual" or face == die
        expect(page.locator("#die")).to_be_hidden(timeout=5000)
        game = KaleidoChess(players=3, dice=True)
        pos = game.start()
        pos.push(Move("roll", token=f"die:{face}"))
        legal = game.legal_moves(pos)
        move = next((m for m in legal if not m.captures), legal[0])
        names = game.geometry.cells
        origin, target = names[move.origin], names[move.target]
        page.wait_for_function(
            "i => document.querySelector(`[data-led='${i}']`).getAttribute('fill') !== 'none'",
            arg=page.locator(f"[data-name='{origin}']").get_attribute("data-spot"),
            timeout=5000)
        expect(page.locator("#message")).to_contain_text(f"White rolls {face}")
        expect(page.locator(".die-face")).to_have_text(str(face))
        page.screenshot(path=str(folder / "2-rolled.png"))

        # play the move by clicking: lift (its destinations light up), put down
        click(origin)
        expect(page.locator("#phase")).to_contain_text("legal targets", timeout=5000)
        page.wait_for_function(
            "i => document.querySelector(`[data-led='${i}']`).getAttribute('fill') !== 'none'",
            arg=page.locator(f"[data-name='{target}']").get_attribute("data-spot"),
            timeout=5000)
        page.mouse.move(*centre(target))
        page.screenshot(path=str(folder / "3-lifted.png"))
        click(target)
        if move.piece is None:  # a five: the wizard must leave White's last castle
            # the wizard seen standing on its target first: lifted again at once, it never
            # settled there, and taking White's own piece would look the same (a choice)
            expect(page.locator("#message")).to_contain_text(
                "White gives up the last castle and is out", timeout=5000)
            # then each piece lifted and set aside, each step taken in before the next: a
            # click while the page still shows the last piece held puts that piece down
            for c in [move.target, *(c for c in move.captures if pos.board[c] is not None)]:
                click(names[c])
                expect(page.locator("#held")).not_to_have_class(re.compile(r"\bempty\b"),
                                                                timeout=5000)
                # (a pointer's click: it was once lost in a loaded run — the button was still
                # disabled, showing the hand before the lift, and a browser drops a click
                # on a disabled button; it is now only marked off, and judged in turn)
                page.locator("#to-box").click()
                expect(page.locator("#to-box")).to_be_disabled(timeout=5000)
        played = wait_moves(2)
        assert played == [f"die:{face}", game.move_text(pos, move)]
        expect(page.locator("#die")).to_be_visible(timeout=5000)  # the next player rolls
        expect(page.locator("#turn-text")).to_have_text(
            "Red to move  ·  out: White" if move.piece is None else "Red to move")
        expect(page.locator(".die-face")).to_have_count(0)
        page.screenshot(path=str(folder / "4-next-player.png"))
        health = json.loads(page.evaluate("fetch('/health').then(r => r.text())"))
        assert read_game(Path(health["journal"])).moves == played
