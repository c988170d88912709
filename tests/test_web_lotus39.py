"""The companion page for Lotus-39 and Modern Lotus-39 (layout lotus39).

Over the JSON API: the board drawn from the layout (three cell shapes, reserve and option
pads), the stacks and reserve Knights as the page receives them, a Pawn lifted from the
stack with its targets lit, and one whole game per variant played to its end by
simulator actions and answers on the page — recorded exactly in the journal.  In a real
Chromium (Playwright, like tests/test_web_browser.py): a partial game played by clicking
on the drawn board — a Pawn leaving the stack through the "how many?" prompt, the reserve
Knight dragged from its pad, a promotion chosen on the page and the piece swapped from
the box; screenshots go to the test's temporary folder.
"""

from __future__ import annotations

import json
import random
import warnings
from functools import partial
from pathlib import Path

import pytest

from controller.journal import Journal
from controller.web.app import create_app
from tests.support.lotus39 import (
    API_GAMES,
    RESERVE,
    arrange,
    choose,
    features,
    play_over_the_api,
    played,
)
from tests.support.service import page_service
from tests.support.webtools import browser_page, playwright_or_skip, running_service

SERVICE = dict(game="lotus39", layout="lotus39", scan_hz=50.0, seed=3)
pytestmark = pytest.mark.service(**SERVICE)
make_service = partial(page_service, **SERVICE)

with warnings.catch_warnings():  # starlette prefers httpx2, which CI need not have
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

ROOT = Path(__file__).resolve().parent.parent










def test_layout_draws_three_cell_shapes_and_the_pads(client):
    data = client.get("/api/layout").json()
    cells = [s for s in data["spots"] if s["kind"] == "cell"]
    assert len(cells) == data["cell_count"] == 39
    corners = {}
    for s in cells:
        corners.setdefault(len(s["outline"]), []).append(s["name"])
    assert {k: len(v) for k, v in corners.items()} == {3: 16, 4: 19, 6: 4}
    assert sorted(corners[6]) == ["c4", "e2", "e6", "g4"]
    fills = {len(s["outline"]): s["fill"] for s in cells}
    assert len(set(fills.values())) == 3  # each shape its own shade
    pads = {s["name"]: s for s in data["spots"] if s["kind"] == "pad"}
    assert sorted(pads) == ["black-reserve-N", "option-1", "option-2", "option-3",
                            "option-4", "option-5", "option-6", "white-reserve-N"]
    white = pads["white-reserve-N"]
    assert (white["role"], white["owner"], white["piece"], white["label"]) == (
        "reserve", 0, "N", "reserve N")
    # White's pad on White's side (bottom), Black's on the top
    assert white["centre"][1] < data["size"][1] / 2 < pads["black-reserve-N"]["centre"][1]
    assert data["games"] == ["lotus39", "lotus39-modern"]


def test_state_shows_the_stacks_and_the_reserve_knights(client, svc):
    state = arrange(client, svc)
    index = svc.layout.spot_index
    pieces = state["pieces"]
    assert [o["name"] for o in pieces[str(index("e2"))]] == ["white-P"] * 3
    assert [o["name"] for o in pieces[str(index("e6"))]] == ["black-P"] * 3
    assert [o["name"] for o in pieces[str(index("white-reserve-N"))]] == ["white-N"]
    assert [o["name"] for o in pieces[str(index("black-reserve-N"))]] == ["black-N"]
    assert {"white-N", "white-R", "white-A", "white-L", "white-F"} <= {
        o["name"] for o in state["supply"]}  # promotions come from the box
    assert state["game"]["provisional"].startswith("provisional set-up")


def test_pawn_lifted_from_the_stack_lights_its_targets(client, svc):
    arrange(client, svc)
    client.post("/api/sim", json={"action": "lift", "spot": "e2", "count": 1})
    svc.step(0.1)
    state = client.get("/api/state").json()
    assert state["phase"] == "lifted"
    assert [o["name"] for o in state["held"]] == ["white-P"]
    index = svc.layout.spot_index
    assert len(state["pieces"][str(index("e2"))]) == 2  # two Pawns still on e2
    lit = {svc.layout.spots[i].name for i, (_, op) in enumerate(state["leds"]) if op > 0}
    assert {"d3", "f3"} <= lit and not lit & {"e3", "c3", "g3", "d5"}
    client.post("/api/sim", json={"action": "place", "spot": "f3"})
    svc.step(0.2)
    state = client.get("/api/state").json()
    assert state["moves"] == [{"player": 0, "text": "f3"}] and state["mover"] == 1
    assert len(state["pieces"][str(index("e2"))]) == 2






@pytest.mark.parametrize("name, seed", API_GAMES)
def test_whole_game_over_the_api_is_recorded_exactly(tmp_path, name, seed):
    svc = make_service(tmp_path, game=name)
    try:
        client = TestClient(create_app(svc))
        arrange(client, svc)
        rng = random.Random(seed)
        texts = []
        while svc.outcome is None:
            texts.append(play_over_the_api(client, svc, choose(svc.game, svc.position, rng)))
            assert len(texts) < 200
        assert {"stack departure", "reserve Knight", "promotion"} <= features(svc.position)
        assert played(svc.game, None, svc.position.moves) == texts
        state = client.get("/api/state").json()
        assert [m["text"] for m in state["moves"]] == texts
        assert state["phase"] == "game_over"
        assert state["result"]["text"] == svc.outcome.result
        record = Journal(tmp_path / "journal").find(svc.game_id)
        assert record.moves == texts and record.game == name
        assert (record.result, record.reason) == (svc.outcome.result, svc.outcome.reason)
        _, replayed = record.replay()
        assert replayed.snapshot() == svc.position.snapshot()
    finally:
        svc.close()


# -- in Chromium -------------------------------------------------------------------------------



@pytest.fixture(scope="module")
def browser_service(tmp_path_factory):
    playwright_or_skip()
    folder = tmp_path_factory.mktemp("lotus-browser")
    with running_service(folder, "[board]\nlayout = 'lotus39'\ngame = 'lotus39'\n") as url:
        yield url, folder


def test_partial_game_by_clicking_in_chromium(browser_service):
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    url, folder = browser_service
    expect = sync_api.expect
    with browser_page(sync_api, url, height=860) as page:
        expect(page.locator("#game-title")).to_contain_text("Lotus-39")
        # the drawing: 16 triangles, 19 squares, 4 hexagons, stacks with a badge "3"
        corners = page.evaluate("""() => [...document.querySelectorAll('.spot.cell')]
            .map(p => p.getAttribute('points').trim().split(/\\s+/).length)""")
        assert sorted(corners) == [3] * 16 + [4] * 19 + [6] * 4
        page.click("#arrange")
        expect(page.locator("#phase")).to_have_text("Waiting for a move", timeout=5000)
        badges = page.locator(".pieces .badge").all_text_contents()
        assert sorted(badges) == ["3", "3"]
        page.screenshot(path=str(folder / "1-set-up.png"))

        # one Pawn off White's stack: the prompt asks how many; its targets light up
        click(page, "e2")
        page.click("#count-popup button[data-count='1']")
        expect(page.locator("#held .chip")).to_have_count(1, timeout=5000)
        expect(page.locator("#phase")).to_contain_text("legal targets", timeout=5000)
        wait_lit(page, "d3")
        assert led(page, "f3") != "none" and led(page, "e3") == "none"
        page.mouse.move(*centre(page, "h3"))
        page.screenshot(path=str(folder / "2-stack-pawn-lifted.png"))
        click(page, "d3")
        wait_moves(page, ["d3"])
        assert sorted(page.locator(".pieces .badge").all_text_contents()) == ["2", "3"]
        # Black's stack gives a Pawn to f5; White moves a Pawn by drag
        click(page, "e6")
        page.click("#count-popup button[data-count='1']")
        expect(page.locator("#held .chip")).to_have_count(1, timeout=5000)
        click(page, "f5")
        wait_moves(page, ["d3", "f5"])
        drag(page, "g3", "g4")
        wait_moves(page, ["d3", "f5", "g4"])

        # a new game from a set-up: the reserve Knight and a promotion
        page.click("#new-game summary")
        page.fill("#ng-setup", RESERVE)
        page.click("#new-game-form button[type=submit]")
        expect(page.locator("#moves li")).to_have_count(0, timeout=5000)
        page.click("#arrange")
        expect(page.locator("#phase")).to_have_text("Waiting for a move", timeout=5000)
        wait_lit(page, "white-reserve-N")  # the pad breathes: the Knight may enter
        drag(page, "white-reserve-N", "e2")
        wait_moves(page, ["N@e2"])
        drag(page, "g7", "g6")
        wait_moves(page, ["N@e2", "Kg6"])
        drag(page, "c6", "c7")
        expect(page.locator("#choice")).to_be_visible(timeout=5000)
        buttons = page.locator("#choice-options button")
        assert buttons.all_inner_texts() == [f"{k + 1}. c7={t}" for k, t in enumerate("RALFN")]
        assert led(page, "option-1") != "none" and led(page, "option-6") == "none"
        page.screenshot(path=str(folder / "3-promotion-menu.png"))
        buttons.nth(2).click()
        wait_moves(page, ["N@e2", "Kg6", "c7=L"])
        expect(page.locator("#message")).to_contain_text("exchange the piece", timeout=5000)
        # the Pawn to the box, a Lotussa from the box onto c7
        click(page, "c7")
        expect(page.locator("#held .chip")).to_have_count(1, timeout=5000)
        page.click("#to-box")
        page.locator("#supply .chip[title^='take white-L']").click()
        expect(page.locator("#held .chip")).to_have_count(1, timeout=5000)
        click(page, "c7")
        expect(page.locator("#message")).to_have_text("", timeout=5000)
        assert page.locator("#phase").inner_text() == "Waiting for a move"
        page.screenshot(path=str(folder / "4-promoted.png"))
        health = json.loads(page.evaluate("fetch('/health').then(r => r.text())"))
    from controller.journal import read_game

    assert read_game(Path(health["journal"])).moves == ["N@e2", "Kg6", "c7=L"]


def centre(page, spot: str) -> tuple[float, float]:
    """The spot's centre in the viewport: the board is scrolled into view first (a click
    on a card lower down may have scrolled it out, and a mouse press outside the viewport
    reaches nothing)."""
    page.locator("#board").scroll_into_view_if_needed()
    box = page.locator(f"[data-name='{spot}']").bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def click(page, spot: str) -> None:
    page.mouse.click(*centre(page, spot))


def drag(page, a: str, b: str) -> None:
    page.mouse.move(*centre(page, a))
    page.mouse.down()
    x, y = centre(page, b)
    page.mouse.move(x, y, steps=8)
    page.mouse.up()


def led(page, spot: str) -> str:
    i = page.locator(f"[data-name='{spot}']").get_attribute("data-spot")
    return page.locator(f"[data-led='{i}']").get_attribute("fill")


def wait_lit(page, spot: str) -> None:
    page.wait_for_function(
        "i => document.querySelector(`[data-led='${i}']`).getAttribute('fill') !== 'none'",
        arg=page.locator(f"[data-name='{spot}']").get_attribute("data-spot"), timeout=5000)


def wait_moves(page, expected: list[str]) -> None:
    page.wait_for_function(
        "n => document.querySelectorAll('#moves li').length >= n", arg=len(expected),
        timeout=5000)
    assert page.locator("#moves li span:last-child").all_inner_texts() == expected
