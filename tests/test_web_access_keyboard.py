"""Games played on the page from the keyboard alone (no pointer event), in real Chromium:
each announcement reaches the live region of Chromium's accessibility tree (what a screen
reader reads) — Lùotuoqí to its end and Lao Tzu against the computer heard from the fog (the
whole games of the other games: ``test_web_access_games.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.rules import get_game
from tests.support.access import (
    heard,
    new_game,
    open_site,
    play_by_keyboard,
    screen_reader_mode,
    wait_until,
)
from tests.support.webtools import api_json, playwright_or_skip

sync_api = playwright_or_skip()
ROOT = Path(__file__).resolve().parent.parent


#: the computer's search ends by its depth, never by its time: level 1's 0.2 s, counted as
#: on a machine 16 times slower (3.2 s; its depth-1 search from the view takes ~0.03 s), so
#: a loaded machine cannot cut it short into another reply (one that checked the King and
#: so refused every second move this test tries)
ENGINE = "[engine]\nslowness = 16.0\n"
#: Lùotuoqí played to its end in six plies
LUOTUOQI_LINE = ["Ee2-d3", "Ec7-d6", "T8d1-h5", "T7d8-a5+cube", "T6a5-b4", "T2h5xf7"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with open_site(tmp_path_factory.mktemp("keyboard"), sync_api, ENGINE) as opened:
        yield opened


def test_a_whole_game_of_luotuoqi_from_the_keyboard_is_heard(site):
    page, url = site
    new_game(page, url, "luotuoqi")
    heard = play_by_keyboard(page, url, "luotuoqi", LUOTUOQI_LINE)
    assert heard[-1].endswith("wins.")


def test_lao_tzu_against_the_computer_from_the_keyboard_is_heard_from_the_fog(site):
    page, url = site
    r = page.request.post(f"{url}/api/new-game", data={
        "game": "laotzu", "options": {"seed": "3"},
        "computer": {"players": [1], "level": 1}})
    assert r.ok, r.text()
    wait_until(lambda: "Lao" in page.locator("#game-title").inner_text(), "Lao Tzu")
    assert page.request.post(f"{url}/api/sim", data={"action": "arrange"}).ok
    wait_until(lambda: api_json(page, f"{url}/api/state")["phase"] == "turn", "set up")
    screen_reader_mode(page)
    # the second move: the first of these the computer's reply leaves legal (its level-1
    # reply is not fixed, and a check or a pin may forbid one)
    seconds = [(f"{f}2 {f}3", f"Pawn {f}2 to {f}3") for f in "dahbg"]
    for turn in range(2):
        for text, words in ([("e4", "Pawn e2 to e4")] if turn == 0 else seconds):
            page.keyboard.type(text)
            page.keyboard.press("Enter")
            try:  # (in the log, though the computer's reply may already follow it)
                wait_until(lambda: words in heard(page),  # noqa: B023
                           lambda: f"{words!r}, not in {heard(page)!r}",  # noqa: B023
                           seconds=15 if turn == 0 else 4)
                break
            except AssertionError:
                if turn == 0 or text == seconds[-1][0]:
                    raise
                page.locator("#access-move").fill("")  # (a refused text may stay typed)
        # the computer's move, as White may know it: only that Black moved and what he saw
        wait_until(lambda: any("Black has moved" in said or "computer" in said
                               for said in _after(heard(page), words)),  # noqa: B023
                   lambda: f"the computer's move, not in {heard(page)!r}", seconds=30)
        state = api_json(page, f"{url}/api/state")
        reply = " ".join(_after(heard(page), words))
        cells = get_game("laotzu").geometry.cells
        fog = {cells[c] for c in state["fog"] or []}
        assert len(fog) > 10
        assert not fog & set(reply.replace(",", " ").replace(";", " ").split()), reply
        wait_until(lambda: api_json(page, f"{url}/api/state")["phase"] == "turn",
              "White's turn again")


def _after(said: list[str], words: str) -> list[str]:
    """The announcements heard after the last ``words``."""
    return said[len(said) - said[::-1].index(words):] if words in said else []


def test_announcements_arriving_together_are_each_heard_and_fog_turns_start_afresh(site):
    """The page's voice (``static/voice.js``) against Chromium's accessibility tree: two
    announcements in one pushed state (a move and the computer's reply within one push)
    are both in the log, not only the second; the log keeps the newest few; and when one
    page turns from one player's view to the other's, the first player's words go."""
    page, url = site
    region = next(line.strip() for line in (ROOT / "controller/web/static/index.html")
                  .read_text(encoding="utf-8").splitlines() if 'id="announcer"' in line)
    other = page.context.browser.new_page()
    try:  # (the page's own origin, so the voice may keep its switches in localStorage)
        other.route(f"{url}/voice-alone", lambda route: route.fulfill(
            content_type="text/html",
            body=f"<!doctype html><html lang='en'><body>{region}"
                 "<script src='/static/voice.js'></script></body></html>"))
        other.goto(f"{url}/voice-alone")

        def push(viewer, *texts):
            said = [{"seq": n, "text": text} for n, text in enumerate(texts, 1)]
            other.evaluate("s => window.fairyboardSections.forEach(f => f(s))",
                           {"viewer": viewer, "announcements": said})

        push(0, "opened")  # (the page opened mid-game says nothing of before)
        assert heard(other) == []
        push(0, "opened", "Pawn e2 to e4", "Black has moved")
        assert heard(other) == ["Pawn e2 to e4", "Black has moved"]
        lines = [f"line {n}" for n in range(8)]
        push(0, "opened", "Pawn e2 to e4", "Black has moved", *lines)
        assert heard(other) == lines[-5:]
        push(1, "opened", "Pawn e2 to e4", "Black has moved", *lines, "Knight b8 to c6")
        assert heard(other) == ["Knight b8 to c6"]
    finally:
        other.close()


def _focused(page) -> str:
    return page.evaluate("() => document.activeElement ? (document.activeElement.id || "
                         "document.activeElement.closest('[id]').id) : ''")


def test_the_simulators_box_is_worked_from_the_keyboard(site):
    """A lifted piece put in the box by Enter on the focused button — which keeps the
    focus when the emptied hand turns it off (a disabled button dropped it to the page's
    top) and does nothing while off — then taken back by Enter on its chip in the box."""
    page, url = site
    new_game(page, url, "chess")
    assert page.request.post(f"{url}/api/sim", data={"action": "lift", "spot": "e2"}).ok
    page.wait_for_selector("#held .chip")
    page.focus("#to-box")
    page.keyboard.press("Enter")
    wait_until(lambda: page.locator("#held.empty").count() == 1, "the hand emptied")
    assert _focused(page) == "to-box"
    assert page.get_attribute("#to-box", "aria-disabled") == "true"
    in_box = api_json(page, f"{url}/api/state")["supply"]
    page.keyboard.press("Enter")  # (off: nothing to put away)
    page.keyboard.press("Tab")  # the box's first piece, a button
    assert _focused(page) == "supply"
    assert page.evaluate("() => document.activeElement.tagName") == "BUTTON"
    assert api_json(page, f"{url}/api/state")["supply"] == in_box
    page.keyboard.press("Enter")
    page.wait_for_selector("#held .chip")
    assert page.get_attribute("#to-box", "aria-disabled") == "false"
