"""The page for a player who cannot see it, in real Chromium: axe-core finds no serious or
critical problem on any page (the board, the club, every guide, the walkthrough) nor in any
state of a whole game; every control is reached with the Tab key and shows its focus."""

from __future__ import annotations

import pytest

from controller.rules import get_game
from tests.support.access import (
    FOCUSABLE,
    axe_or_skip,
    axe_problems,
    live_region_text,
    new_game,
    open_site,
    play_one,
    wait_until,
)
from tests.support.webtools import playwright_or_skip

sync_api = playwright_or_skip()


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    axe_or_skip()
    with open_site(tmp_path_factory.mktemp("access"), sync_api) as opened:
        yield opened


def test_axe_finds_nothing_serious_on_any_page(site):
    page, url = site
    problems = axe_problems(page, "the board")
    page.check("#access-on")
    problems += axe_problems(page, "the screen-reader mode")
    page.uncheck("#access-on")
    page.locator("#new-game summary").click()
    problems += axe_problems(page, "the new-game form")
    page.click("#tutorial-start")
    wait_until(lambda: page.is_visible("#tutorial"), "the walkthrough")
    problems += axe_problems(page, "the walkthrough")
    page.click("#tutorial-stop")
    for path in ["/club", *[f"/guide/{name}" for name in
                            ("chess", "luotuoqi", "laotzu", "gnuqi", "kaleidochess",
                             "lotus39")]]:
        page.goto(url + path)
        problems += axe_problems(page, path)
    page.goto(url + "/")
    sync_api.expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
    assert problems == []


def test_every_control_is_reached_by_tab_and_shows_its_focus(site):
    page, url = site
    page.check("#access-on")
    controls = page.evaluate(f"""() => [...document.querySelectorAll("{FOCUSABLE}")]
        .filter(e => !e.disabled && e.checkVisibility() && e.type !== "radio")
        .map(e => e.id || e.outerHTML.slice(0, 60))""")
    assert len(controls) > 15
    page.focus("body")
    reached, seen = set(), []
    for _ in range(len(controls) * 3):
        page.keyboard.press("Tab")
        info = page.evaluate("""() => { const e = document.activeElement;
            const s = getComputedStyle(e);
            return [e.id || e.outerHTML.slice(0, 60), s.outlineStyle, s.outlineWidth]; }""")
        reached.add(info[0])
        seen.append(info)
    missing = [c for c in controls if c not in reached]
    assert missing == [], missing
    unmarked = [i[0] for i in seen if i[0] in controls and (i[1] == "none" or i[2] == "0px")]
    assert unmarked == [], unmarked
    page.uncheck("#access-on")


def test_a_whole_game_of_chess_from_the_keyboard_is_heard_and_axe_clean(site):
    page, url = site
    new_game(page, url, "chess")
    problems = []
    game = get_game("chess")
    heard = []
    for text in ["f3", "e5", "g4", "Qh4#"]:
        heard += play_one(page, game, text)
        problems += axe_problems(page, f"chess after {text}")
    assert heard[-1].endswith("Checkmate. Black wins.")
    # the board read out at the end, from the keyboard
    page.keyboard.type("? h4")
    page.keyboard.press("Enter")
    wait_until(lambda: live_region_text(page, "access-answer").startswith("Black Queen on h4"),
          "the piece on h4 read out")
    assert problems == []
