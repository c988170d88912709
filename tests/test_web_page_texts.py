"""The page's words and lists in real Chromium (issue 30, point 6): a moves list numbered
by move that scrolls (it once flowed into hidden columns after 14 plies), a legend in the
player's words, and the titles and messages of the command menu and of a takeback."""

from __future__ import annotations

import pytest

from controller.interaction import NOT_A_MOVE
from controller.layout import load_layout
from tests.support.computerpage import computer_pages
from tests.support.webtools import playwright_or_skip

#: twenty plies of an Italian game, castling included
OPENING = ["e4", "e5", "Nf3", "Nc6", "Bc4", "Bc5", "c3", "Nf6", "d3", "d6", "O-O", "O-O",
           "h3", "h6", "a4", "a5", "Re1", "Re8", "Nbd2", "Be6"]

#: every moves-list entry's box inside the list's box horizontally, and the list scrolled
#: so that its last entry is in view
MOVES_IN_VIEW = """() => {
  const list = document.getElementById("moves"), box = list.getBoundingClientRect();
  const items = [...list.querySelectorAll("li")];
  const outside = items.filter((li) => { const r = li.getBoundingClientRect();
    return r.left < box.left - .5 || r.right > box.right + .5; }).map((li) => li.innerText);
  const last = items[items.length - 1].getBoundingClientRect();
  return { outside, lastInView: last.top >= box.top - .5 && last.bottom <= box.bottom + .5,
           maxHeight: getComputedStyle(list).maxHeight,
           overflow: getComputedStyle(list).overflowY,
           rows: rows(list) };
}"""

#: the list as it reads, line by line: its elements grouped by where they stand
ROWS = """function rows(list) {
  const lines = new Map();
  for (const e of list.children) {
    const r = e.getBoundingClientRect(), y = Math.round(r.top + r.height / 2);
    const key = [...lines.keys()].find((k) => Math.abs(k - y) <= 3) ?? y;
    if (!lines.has(key)) lines.set(key, []);
    lines.get(key).push([r.left, e.innerText.trim()]);
  }
  return [...lines.entries()].sort((a, b) => a[0] - b[0])
    .map(([, items]) => items.sort((a, b) => a[0] - b[0]).map((i) => i[1]).join(" "));
}"""


@pytest.fixture(scope="module")
def cp(tmp_path_factory):
    sync_api = playwright_or_skip()
    with computer_pages(sync_api, tmp_path_factory.mktemp("texts"), ["square8"]) as pages:
        yield pages["square8"]


def start_chess(cp) -> None:
    before = cp.state()["game"]["id"]
    cp.page.evaluate("() => post('/api/new-game', {game: 'chess', options: {}, setup: null,"
                     " computer: null, clock: ''})")
    cp.wait("S.game.id !== arg && S.game.name === 'chess'", before)
    cp.page.click("#arrange")
    cp.wait("S.phase === 'turn'")


def test_the_moves_list_is_numbered_by_move_and_scrolls(cp):
    start_chess(cp)
    for text in OPENING:
        game, pos, _ = cp.game()
        cp.play(game, pos, game.parse_move(pos, text))
    cp.wait("S.moves.length === arg", len(OPENING))
    seen = cp.page.evaluate(f"() => {{ {ROWS}; return ({MOVES_IN_VIEW})(); }}")
    assert seen["outside"] == [] and seen["lastInView"], seen
    assert seen["overflow"] in ("auto", "scroll") and seen["maxHeight"] != "none", seen
    assert seen["rows"][0] == "1. e4 e5" and seen["rows"][9] == "10. Nbd2 Be6", seen["rows"]
    assert len(seen["rows"]) == 10
    assert cp.shown_moves() == OPENING  # one entry per ply, as before


def test_the_legend_speaks_the_players_words(cp):
    page = cp.page
    page.click("details:has(#legend) summary")
    lines = page.locator("#legend span:not(.swatch)").all_inner_texts()
    text = " · ".join(lines)
    for internal in ("last_move", "enemy", "active", "ambient", "remove", "visible",
                     "option 1", "player "):
        assert internal not in text.lower(), (internal, lines)
    assert "Red" not in text and "Green" not in text  # a game of two players
    assert any("a legal target" in line for line in lines), lines
    # every swatch can be seen on the dark card: none near black
    dark = page.evaluate("""() => [...document.querySelectorAll('#legend .legend-swatch')]
      .map((s) => getComputedStyle(s).backgroundColor.match(/\\d+/g).map(Number))
      .filter(([r, g, b]) => Math.max(r, g, b) < 90)""")
    assert dark == [], dark
    page.click("details:has(#legend) summary")


def test_the_command_menu_is_titled_as_commands_not_as_moves(cp):
    """Issue 30: touching an option pad opened the command menu titled "Several moves
    fit"."""
    start_chess(cp)
    pad = cp.page.evaluate("() => ui.layout.spots.find((s) => s.role === 'option').name")
    cp.gestures([{"action": "take", "object": "spare-magnet"},
                 {"action": "place", "spot": pad}, {"action": "lift", "spot": pad},
                 {"action": "set_aside"}])
    cp.wait("S.choice.length > 0")
    assert cp.state()["choice_kind"] == "menu"
    cp.expect(cp.page.locator("#phase")).to_have_text(
        "Commands: choose one (option pads or below)")
    cp.expect(cp.page.locator("#choice-title")).to_have_text("Commands")
    labels = cp.page.locator("#choice-options button").all_inner_texts()
    assert any("resign" in label for label in labels), labels


def test_the_luotuoqi_guide_draws_its_chinese_name_not_boxes(cp):
    """Issue 30: 骆驼棋 showed as boxes (no CJK font: scripts/test installs
    fonts-noto-cjk). Chromium names the fonts it drew a node's text with."""
    page = cp.page.context.browser.new_page()
    try:
        page.goto(cp.url + "/guide/luotuoqi")
        cdp = page.context.new_cdp_session(page)
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        nodes = cdp.send("DOM.querySelectorAll", {"nodeId": root,
                                                 "selector": "p, li, td, h1, h2"})["nodeIds"]
        target = next(n for n in nodes
                      if "骆驼棋" in cdp.send("DOM.getOuterHTML", {"nodeId": n})["outerHTML"])
        fonts = cdp.send("CSS.getPlatformFontsForNode", {"nodeId": target})["fonts"]
        cjk = sum(f["glyphCount"] for f in fonts if "CJK" in f["familyName"]
                  or "CJK" in f.get("postScriptName", ""))
        assert cjk >= 3, fonts  # (without the font: DejaVu Sans only, the boxes)
    finally:
        page.close()


def test_a_lao_tzu_drop_on_a_fogged_cell_stays_visible_and_liftable(cp):
    """Issue 30: a Knight dropped from the hand pad onto a cell out of White's sight
    vanished from the page (the cell is fogged) and could not be lifted back."""
    before = cp.state()["game"]["id"]
    cp.page.evaluate("() => post('/api/new-game', {game: 'laotzu', options: {}, computer: null,"
                     " setup: '4k3/pppppppp/8/8/8/8/8/4K3[N] w - - 0 1', clock: ''})")
    cp.wait("S.game.id !== arg && S.game.name === 'laotzu'", before)
    cp.page.click("#arrange")
    cp.wait("S.phase === 'turn'")
    pad = cp.page.evaluate("() => ui.layout.spots.find((s) => s.role === 'hand' && s.owner === 0"
                           " && s.piece === 'N').name")
    a6 = cp.page.evaluate("() => ui.layout.spots.findIndex((s) => s.name === 'a6')")
    assert a6 in cp.state()["fog"]
    cp.page.locator(f"#board [data-name='{pad}']").click()  # take the Knight from the pad
    cp.wait("S.held.length === 1")
    cp.page.locator("#board [data-name='a6']").click()  # and put it where White cannot see
    cp.wait("S.held.length === 0 && S.phase === 'correction'")
    assert [o["name"] for o in cp.state()["pieces"][str(a6)]] == ["white-N"]
    cp.expect(cp.page.locator("#board .pieces title", has_text="a6: White Knight")).to_have_count(1)
    cp.expect(cp.page.locator("#message")).to_have_text(NOT_A_MOVE)
    cp.page.locator("#board [data-name='a6']").click()  # lifted again from the page
    cp.wait("S.held.length === 1 && S.held[0].name === 'white-N'")
    cp.page.locator(f"#board [data-name='{pad}']").click()
    cp.wait("S.phase === 'turn' && S.held.length === 0")


def test_the_simulator_switches_to_a_game_of_another_printed_board(cp):
    """Issue 30: the simulated board could not start a game of another layout from the
    page. The dialog offers every game; one of another board redraws the page on it."""
    page = cp.page
    page.click("#new-game summary")
    options = page.locator("#ng-game option").all_inner_texts()
    assert any("Gnu" in t and "— on the 9×9 board" in t for t in options), options
    page.select_option("#ng-game", "gnuqi")
    page.dispatch_event("#ng-game", "change")
    page.fill("#ng-setup", "")
    page.click("#new-game-form button[type=submit]")
    cp.wait("S.game.name === 'gnuqi' && S.layout === 'square9' && ui.layout.name === 'square9'")
    square9 = load_layout("square9")
    cp.expect(page.locator("#board polygon.spot.cell")).to_have_count(square9.cell_count)
    page.click("#new-game summary")
    page.click("#arrange")
    cp.wait("S.phase === 'turn'")
    cp.layout = square9  # the simulated hand's board from now on
    game, pos, _ = cp.game()
    cp.play(game, pos, game.legal_moves(pos)[0])
    assert len(cp.shown_moves()) == 1
    start_chess(cp)  # and back to the 8×8 board
    cp.wait("ui.layout.name === 'square8'")
    cp.layout = load_layout("square8")
    cp.expect(page.locator("#board polygon.spot.cell")).to_have_count(64)
