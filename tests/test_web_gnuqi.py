"""Gnu Qi in the companion page: the 9×9 board with its Rivers drawn from the layout's
millimetres, the box offering Wazirs, the exchange asked for on the page, a whole game to
checkmate played through the API (human actions on the simulated board, sensed through
the emulated 74HC165 chain) and recorded exactly in the journal — and in real Chromium a
few moves by clicking, among them a capture that turns a Pawn into a Wazir."""

from __future__ import annotations

import json
import random
import warnings
from pathlib import Path

import pytest

from controller.journal import Journal, read_game
from controller.layout import load_layout
from controller.web.simulator import move_actions
from controller.web.state import DARK, LIGHT, layout_json
from tests.support import webtools
from tests.support.gnuqi import choose
from tests.support.webtools import playwright_or_skip, running_service

with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
    warnings.simplefilter("ignore")


from functools import partial

from tests.support.service import page_service

SERVICE = dict(game="gnuqi", layout="square9")
pytestmark = pytest.mark.service(**SERVICE)
make_service = partial(page_service, **SERVICE)

ROOT = Path(__file__).resolve().parent.parent
#: how long the page may take to show a move or a held piece: the whole suite on a loaded
#: two-core machine (load average 10) once took over 5 s for one
WAIT_MS = 15_000








# -- the drawing --------------------------------------------------------------------------


def test_layout_draws_the_9x9_board_and_its_rivers_from_millimetres(client):
    data = client.get("/api/layout").json()
    layout = load_layout("square9")
    assert data == json.loads(json.dumps(layout_json(layout)))
    cells = [s for s in data["spots"] if s["kind"] == "cell"]
    pads = [s for s in data["spots"] if s["kind"] == "pad"]
    assert len(cells) == 81 and [p["name"] for p in pads] == [f"option-{k}" for k in
                                                               range(1, 7)]
    # 40 mm squares from a1's lower-left corner at (20, 20); a1 dark, b1 light
    a1, e5 = cells[0], cells[layout.spot_index("e5")]
    assert a1["name"] == "a1" and sorted(map(tuple, a1["outline"])) == [
        (20, 20), (20, 60), (60, 20), (60, 60)]
    assert e5["centre"] == [200, 200] and a1["fill"] == DARK and cells[1]["fill"] == LIGHT
    # the two Rivers: after rank 3 and after rank 6, across the nine files
    assert data["rivers"] == [[20, 140, 380, 140], [20, 260, 380, 260]]
    assert data["size"] == [430, 400] and data["games"] == ["gnuqi"]


def test_state_offers_wazirs_in_the_box_and_names_the_game(client, svc):
    state = client.get("/api/state").json()
    assert state["game"]["title"] == "Gnu Qi" and state["game"]["provisional"]
    names = [o["name"] for o in state["supply"]]
    assert {"white-W", "black-W", "white-G", "black-C"} <= set(names)


def test_exchange_is_asked_for_on_the_page(client, svc):
    svc.sim_action({"action": "arrange"})
    svc.step(0.1)
    for text in ("e4", "d6", "e5", "a6", "exd6", "a5"):
        for action in move_actions(svc.game, svc.position,
                                   svc.game.parse_move(svc.position, text), svc.layout):
            client.post("/api/sim", json=action)
            svc.step(0.03)
        svc.step(0.1)
    assert [t for _, t in svc.plies] == ["e4", "d6", "e5", "a6", "exd6", "a5"]
    for action in ({"action": "lift", "spot": "c7"}, {"action": "set_aside"},
                   {"action": "lift", "spot": "d6"}, {"action": "place", "spot": "c7"}):
        client.post("/api/sim", json=action)
        svc.step(0.03)
    state = client.get("/api/state").json()
    assert state["moves"][-1] == {"player": 0, "text": "dxc7=W"}
    assert state["message"] == "exchange the piece on c7 for a Wazir"
    c7 = str(svc.layout.spot_index("c7"))
    assert [o["name"] for o in state["pieces"][c7]] == ["white-P"]  # the Pawn, for now
    client.post("/api/sim", json={"action": "lift", "spot": "c7"})
    svc.step(0.05)
    assert client.get("/api/state").json()["message"] == (
        "exchange the piece: put a Wazir on c7")
    for action in ({"action": "set_aside"}, {"action": "take", "object": "white-W"},
                   {"action": "place", "spot": "c7"}):
        client.post("/api/sim", json=action)
    svc.step(0.05)
    state = client.get("/api/state").json()
    assert state["message"] == "" and state["phase"] == "turn" and len(state["moves"]) == 7
    assert [o["name"] for o in state["pieces"][c7]] == ["white-W"]


# -- a whole game through the API ------------------------------------------------------------

#: the driver's seed for this game: 69 plies to checkmate, castling on both wings, a
#: Black Pawn becoming a Wazir
API_SEED = 66


def test_whole_game_through_the_api_is_recorded_exactly(client, svc, tmp_path):
    client.post("/api/sim", json={"action": "arrange"})
    svc.step(0.1)
    game, layout = svc.game, svc.layout
    rng = random.Random(API_SEED)
    texts: list[str] = []
    asked = 0
    while svc.outcome is None:
        assert len(texts) < 200, "the driver's game does not end"
        pos = svc.position
        move = choose(game, pos, rng)
        texts.append(game.move_text(pos, move))
        for action in move_actions(game, pos, move, layout):
            assert client.post("/api/sim", json=action).json()["ok"]
            svc.step(0.03)
            asked += "exchange the piece" in svc.interaction.message
        svc.step(0.1)
        assert [t for _, t in svc.plies] == texts
        assert svc.interaction.phase in ("turn", "game_over"), svc.interaction
        assert not svc.interaction.missing and not svc.interaction.extra
    state = client.get("/api/state").json()
    assert state["result"]["reason"] == "checkmate" and len(texts) == 69
    assert [m["text"] for m in state["moves"]] == texts
    assert {"O-O", "O-O-O"} <= set(texts) and any("=W" in t for t in texts) and asked
    record = Journal(tmp_path / "journal").find(svc.game_id)
    assert record.moves == texts and record.result == state["result"]["text"]
    assert record.reason == "checkmate"
    assert record.replay()[1].snapshot() == svc.position.snapshot()


# -- real Chromium -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser_page(tmp_path_factory):
    sync_api = playwright_or_skip()
    folder = tmp_path_factory.mktemp("gnuqi-browser")
    with running_service(folder, "[board]\nlayout = 'square9'\ngame = 'gnuqi'\n") as url, \
            webtools.browser_page(sync_api, url, height=1000) as page:
        yield page, folder, sync_api.expect


def _click(page, spot: str) -> None:
    box = page.locator(f"[data-name='{spot}']").bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def _moves(page) -> list[str]:
    return page.locator("#moves li span:last-child").all_inner_texts()


def _wait_moves(page, expected: list[str]) -> None:
    try:
        page.wait_for_function("n => document.querySelectorAll('#moves li').length >= n",
                               arg=len(expected), timeout=WAIT_MS)
    except Exception as timeout:  # say what the page showed instead (a lost click, a
        # message, a piece still in the hand), not only that the wait ran out
        seen = {spot: page.locator(spot).all_inner_texts()
                for spot in ("#phase", "#message", "#held .chip")}
        raise AssertionError(f"moves {_moves(page)} not {expected}; the page: {seen}") \
            from timeout
    assert _moves(page) == expected


def _held(page, expect, n: int) -> None:
    expect(page.locator("#held .chip")).to_have_count(n, timeout=WAIT_MS)


def test_partial_game_by_clicking_in_chromium(browser_page):
    page, folder, expect = browser_page
    assert page.locator(".rivers path.river").count() == 2  # drawn, wavy, as printed
    assert page.locator(".rivers .river-label").all_text_contents() == ["River", "River"]
    assert page.locator("[data-name]").count() == 87
    page.click("#arrange")
    expect(page.locator("#phase")).to_have_text("Waiting for a move", timeout=WAIT_MS)
    played: list[str] = []
    for a, b, text in (("e3", "e4", "e4"), ("d7", "d6", "d6"), ("e4", "e5", "e5"),
                       ("a7", "a6", "a6")):
        _click(page, a)
        _held(page, expect, 1)
        _click(page, b)
        played.append(text)
        _wait_moves(page, played)
    # exd6: the victim into the box, then the Pawn across
    _click(page, "d6")
    _held(page, expect, 1)
    page.click("#to-box")
    _held(page, expect, 0)
    _click(page, "e5")
    _held(page, expect, 1)
    _click(page, "d6")
    _wait_moves(page, [*played, "exd6"])
    _click(page, "a6")
    _held(page, expect, 1)
    _click(page, "a5")
    played += ["exd6", "a5"]
    _wait_moves(page, played)
    # dxc7=W: across the far River the Pawn becomes a Wazir …
    _click(page, "c7")
    _held(page, expect, 1)
    page.click("#to-box")
    _held(page, expect, 0)
    _click(page, "d6")
    expect(page.locator("#phase")).to_contain_text("legal targets", timeout=WAIT_MS)
    _click(page, "c7")
    played.append("dxc7=W")
    _wait_moves(page, played)
    # … and the board asks for the piece to be exchanged until it is
    expect(page.locator("#message")).to_have_text("exchange the piece on c7 for a Wazir",
                                                  timeout=WAIT_MS)
    page.screenshot(path=str(folder / "exchange-asked.png"))
    _click(page, "c7")
    expect(page.locator("#message")).to_have_text("exchange the piece: put a Wazir on c7",
                                                  timeout=WAIT_MS)
    page.click("#to-box")
    page.click("#supply .chip[title^='take white-W']")
    _held(page, expect, 1)
    _click(page, "c7")
    expect(page.locator("#message")).to_have_text("", timeout=WAIT_MS)
    expect(page.locator("#turn-text")).to_have_text("Black to move")
    assert _moves(page) == played
    page.screenshot(path=str(folder / "exchanged.png"))
    health = json.loads(page.evaluate("fetch('/health').then(r => r.text())"))
    assert read_game(Path(health["journal"])).moves == played
