"""The page's geometry in real Chromium at a desktop and a phone size.

Checked by element geometry, not by looking: every cell name inside its cell in both
orientations, every control on screen, the turn and message above the board on a phone,
the "how many?" prompt for an 8-stone Tower on screen, White at the bottom again after a
new game, and an offline page that says so when the service stops.
"""

from __future__ import annotations

import re

import pytest

from tests.support.webtools import CHROMIUM, chromium, live_page, running_service

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)",
                allow_module_level=True)

SIZES = {"desktop": (1280, 860), "phone": (390, 844)}

#: cell names whose box is not inside their cell's box (0.5 px slack)
NAMES_OUTSIDE_CELLS = """() => {
  const bad = [];
  for (const t of document.querySelectorAll('#board .names text.cell-name')) {
    const cell = document.querySelector(`#board [data-name='${t.textContent}']`);
    const a = t.getBoundingClientRect(), b = cell.getBoundingClientRect();
    if (a.left < b.left - .5 || a.right > b.right + .5 || a.top < b.top - .5
        || a.bottom > b.bottom + .5) bad.push(t.textContent);
  }
  return bad;
}"""

#: visible buttons and inputs that stick out of the window horizontally
CONTROLS_OFF_SCREEN = """() => {
  const bad = [];
  for (const e of document.querySelectorAll('button, input, select, summary')) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height) continue;  // hidden
    if (r.left < -.5 || r.right > window.innerWidth + .5) bad.push(e.id || e.textContent);
  }
  return bad;
}"""


@pytest.fixture(scope="module")
def browser():
    """One Chromium for the module; each test opens its own page."""
    with chromium(sync_api) as running:
        yield running


def cell_centre_y(page, name: str) -> float:
    box = page.locator(f"#board [data-name='{name}']").bounding_box()
    return box["y"] + box["height"] / 2


@pytest.mark.parametrize("size", sorted(SIZES))
def test_page_geometry(size, tmp_path, browser):
    width, height = SIZES[size]
    expect = sync_api.expect
    with running_service(tmp_path) as url, live_page(sync_api, browser, url, width, height) as page:
        # the board drawn and the first state shown (a loaded machine is slow to both)
        page.wait_for_selector("#board [data-name='a1']", timeout=10000)
        expect(page.locator("#turn-text")).not_to_have_text("", timeout=10000)
        assert page.evaluate(NAMES_OUTSIDE_CELLS) == []
        assert page.evaluate(CONTROLS_OFF_SCREEN) == []
        page.click("#flip")
        assert cell_centre_y(page, "a1") < cell_centre_y(page, "a8")  # Black's side at the bottom
        assert page.evaluate(NAMES_OUTSIDE_CELLS) == []
        page.click("#flip")
        if size == "phone":  # what the player acts on comes before the board
            status = page.locator("#status").bounding_box()
            board = page.locator("#board").bounding_box()
            assert status["y"] + status["height"] <= board["y"]

        # the 8-stone Tower: the prompt with all its buttons on screen
        page.click("#arrange")
        expect(page.locator("#phase")).to_have_text("Waiting for a move", timeout=5000)
        page.locator("#board [data-name='d1']").click()
        popup = page.locator("#count-popup")
        expect(popup).to_be_visible()
        for button in popup.locator("button").all():
            box = button.bounding_box()
            assert box["x"] >= 0 and box["x"] + box["width"] <= width, button.inner_text()
        assert popup.locator("button").count() == 9  # 1…7, "8 (all)", ✕
        page.keyboard.press("Escape")
        page.screenshot(path=str(tmp_path / f"{size}.png"), full_page=True)

        # turned for Black, then a new game: White at the bottom again
        page.click("#flip")
        assert cell_centre_y(page, "a1") < cell_centre_y(page, "a8")
        page.evaluate("""() => fetch('/api/new-game', {method: 'POST',
            headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({game: 'laotzu',
                                  options: {white_array: 518, black_array: 518}})})""")
        expect(page.locator("#game-title")).to_contain_text("Lao Tzu", timeout=5000)
        page.wait_for_function("""() => {
            const y = (n) => document.querySelector(`#board [data-name='${n}']`)
                .getBoundingClientRect().y;
            return y('a1') > y('a8'); }""", timeout=5000)
        expect(page.locator("#viewer-box")).to_be_visible()
        assert page.evaluate(NAMES_OUTSIDE_CELLS) == []


def test_a_stopped_service_greys_the_page(tmp_path, browser):
    page = browser.new_page(viewport={"width": 390, "height": 844})
    try:
        with running_service(tmp_path) as url:
            page.goto(url)
            sync_api.expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
        # the service is gone
        sync_api.expect(page.locator("#offline")).to_be_visible(timeout=5000)
        sync_api.expect(page.locator("#connection")).to_have_text("reconnecting…")
        assert "offline" in page.evaluate("document.body.className")
        page.screenshot(path=str(tmp_path / "offline.png"))
    finally:
        page.close()


def test_a_lao_tzu_game_from_the_form_draws_both_arrays(tmp_path, browser):
    expect = sync_api.expect
    with running_service(tmp_path) as url, live_page(sync_api, browser, url) as page:
        page.click("#new-game summary")
        page.select_option("#ng-game", "laotzu")
        assert page.locator("#ng-options input[name=white_array]").get_attribute(
            "placeholder") == "random"
        page.click("#new-game-form button[type=submit]")
        expect(page.locator("#game-title")).to_contain_text("Lao Tzu", timeout=5000)
    records = sorted((tmp_path / "journal").glob("*laotzu*.jsonl"))
    start = records[-1].read_text().splitlines()[0]
    assert '"seed"' in start  # drawn at random and recorded, so the game can be replayed


@pytest.mark.parametrize("size", sorted(SIZES))
def test_the_walkthrough_card_on_screen_and_advancing(size, tmp_path, browser):
    width, height = SIZES[size]
    expect = sync_api.expect
    with running_service(tmp_path) as url, live_page(sync_api, browser, url, width, height) as page:
        page.click("#tutorial-start")
        expect(page.locator("#tutorial")).to_be_visible(timeout=5000)
        expect(page.locator("#tutorial-steps li.current")).to_have_attribute(
            "data-step", "arrange")
        page.click("#arrange")
        expect(page.locator("#tutorial-steps li.current")).to_have_attribute(
            "data-step", "lift", timeout=5000)
        assert page.evaluate(CONTROLS_OFF_SCREEN) == []
        if size == "phone":
            card = page.locator("#tutorial").bounding_box()
            assert card["y"] + card["height"] <= page.locator("#board").bounding_box()["y"]
        assert page.locator("#guide-link").get_attribute("href").split("?")[0] == "/guide/luotuoqi"
        page.screenshot(path=str(tmp_path / f"walkthrough-{size}.png"), full_page=True)


@pytest.mark.parametrize("layout,game", [("square9", "gnuqi"), ("kaleido89", "kaleidochess"),
                                         ("lotus39", "lotus39")])
def test_every_board_names_its_cells_inside_them_both_ways(layout, game, tmp_path, browser):
    config = f"[board]\nlayout = '{layout}'\ngame = '{game}'\n"
    with running_service(tmp_path, config) as url, \
            live_page(sync_api, browser, url, *SIZES["phone"]) as page:
        assert page.evaluate(NAMES_OUTSIDE_CELLS) == []
        assert page.evaluate(CONTROLS_OFF_SCREEN) == []
        page.click("#flip")
        assert page.evaluate(NAMES_OUTSIDE_CELLS) == []


def test_a_turn_made_before_the_first_state_arrives_is_kept(tmp_path, browser):
    """The first state used to turn the board back (White at the bottom, meant for a new
    game), undoing a turn the person made while it was on its way — seen as a rare
    failure of the phone geometry test under load.  The state is held back here."""
    with running_service(tmp_path) as url:
        page = browser.new_page(viewport={"width": 1280, "height": 860})
        held: list = []
        route: dict = {}

        def on_socket(ws) -> None:
            server = ws.connect_to_server()
            route["page"] = ws
            server.on_message(lambda m: ws.send(m) if route.get("open") else held.append(m))
            ws.on_message(lambda m: server.send(m))

        # the page's socket is /ws?lang=…: a glob of "**/ws" matched nothing once the
        # language was added, and the state was never held (the test raced instead)
        page.route_web_socket(re.compile(r"/ws(\?|$)"), on_socket)
        page.goto(url)
        page.wait_for_selector("#board [data-name='a1']")
        page.click("#flip")
        assert cell_centre_y(page, "a1") < cell_centre_y(page, "a8")
        sync_api.expect(page.locator("#turn-text")).to_have_text("")  # no state yet
        assert "page" in route, "the page's socket was not routed"
        route["open"] = True
        for message in held:
            route["page"].send(message)
        sync_api.expect(page.locator("#turn-text")).not_to_have_text("", timeout=10_000)
        assert cell_centre_y(page, "a1") < cell_centre_y(page, "a8")
        page.close()
