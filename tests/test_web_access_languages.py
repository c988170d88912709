"""A whole game of each of the six games by keyboard and ear in each language but English
(English: ``test_web_access_games``, ``test_web_access_keyboard``): Lao Tzu played by two
people at one page (each hears only his own view), the others to their rules end; every
announcement reaches Chromium's accessibility tree in the page's language, built by the
same words the voice uses, and typed moves in notation or cell names are taken whatever
the language."""

from __future__ import annotations

import pytest

from controller.i18n import LANGUAGES, render, speaking
from controller.rules import get_game
from controller.speech.words import announce_move
from tests.support.access import (
    heard,
    live_region_text,
    newest_heard,
    open_site,
    screen_reader_mode,
    tab_to,
    wait_until,
)
from tests.support.webtools import api_json, playwright_or_skip
from tests.test_web_access_games import LINES as GAME_LINES
from tests.test_web_access_keyboard import LUOTUOQI_LINE

sync_api = playwright_or_skip()

#: a short line to a rules end of every game (typed, in the game's notation): the four of
#: the English keyboard games, chess's scholar's mate and Lùotuoqí's Tower line
LINES = {
    **GAME_LINES,
    "chess": [("e2 e4", "e4"), ("e5", "e5"), ("Bc4", "Bc4"), ("b8-c6", "Nc6"),
              ("Qh5", "Qh5"), ("g8 f6", "Nf6"), ("Qxf7#", "Qxf7#")],
    "luotuoqi": [(text, text) for text in LUOTUOQI_LINE],
}
OPTIONS = {"laotzu": {"white_array": 518, "black_array": 518}}
LANGUAGES_BUT_ENGLISH = [code for code in LANGUAGES if code != "en"]


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    with open_site(tmp_path_factory.mktemp("languages"), sync_api) as opened:
        yield opened


def _in_language(page, url: str, lang: str) -> None:
    page.evaluate("(lang) => localStorage.setItem('fairyboard-language', lang)", lang)
    page.goto(url)
    wait_until(lambda: page.evaluate("() => window.fairyboardLanguage && "
                                     "window.fairyboardLanguage()") == lang,
               f"the page in {lang}")


def _new_game(page, url: str, name: str, options: dict) -> None:
    r = page.request.post(f"{url}/api/new-game", data={"game": name, "options": options})
    assert r.ok, r.text()
    wait_until(lambda: api_json(page, f"{url}/api/state")["game"]["name"] == name,
               "the new game")
    assert page.request.post(f"{url}/api/sim", data={"action": "arrange"}).ok
    wait_until(lambda: api_json(page, f"{url}/api/state")["phase"] == "turn",
               "set up")


@pytest.mark.parametrize("lang", LANGUAGES_BUT_ENGLISH)
def test_a_whole_game_of_every_game_by_keyboard_and_ear_in_each_language(site, lang):
    """One page in ``lang``: each of the six games played to its rules end."""
    page, url = site
    _in_language(page, url, lang)
    for name in sorted(LINES):
        _play_to_its_end(page, url, lang, name)


def _play_to_its_end(page, url: str, lang: str, name: str) -> None:
    options = OPTIONS.get(name, {})
    _new_game(page, url, name, options)
    if page.is_checked("#access-on"):  # (kept by the page across the reload)
        tab_to(page, "access-move")
    else:
        screen_reader_mode(page)
    game = get_game(name, **options)
    pos = game.start()
    for typed, notation in LINES[name]:
        move = game.parse_move(pos, notation)
        after = pos.copy()
        after.push(move)
        listener = game.ply_mover(after) if game.hidden_information else None
        with speaking(lang):
            expected = render(announce_move(game, pos, move, after, listener), lang)
        english = announce_move(game, pos, move, after, listener)
        assert expected != english, (name, typed)  # (words of the language, not English)
        _type_move(page, url, typed)
        wait_until(lambda: newest_heard(page) == expected,  # noqa: B023
                   lambda: f"{name} {typed}: {expected!r}, not {heard(page)!r} (the mode "  # noqa: B023
                           f"says {live_region_text(page, 'access-answer')!r})")
        if listener is not None:  # the next move is typed in the next mover's view
            wait_until(lambda: api_json(page, f"{url}/api/state")["viewer"]  # noqa: B023
                       == listener, f"{name} {typed}: the next mover's view")  # noqa: B023
        pos = after
    outcome = game.outcome(pos)
    assert outcome is not None and outcome.winners
    state = api_json(page, f"{url}/api/state")
    assert state["result"]["winners"] == list(outcome.winners)


def _type_move(page, url: str, typed: str) -> None:
    """``typed`` and Enter in the mode's move field once the board waits for a move (the
    page answers a move typed before that in words; a person waits for his turn too)."""
    wait_until(lambda: api_json(page, f"{url}/api/state")["phase"] == "turn",
               f"{typed}: the board waiting for a move")
    page.keyboard.type(typed)
    page.keyboard.press("Enter")
