"""Whole games of Gnu Qi, KaleidoChess, Lotus-39 and Lao Tzu played on the page from the
keyboard alone, in real Chromium, each to the end its rules give it: every move and the end
reach the live region of Chromium's accessibility tree (what a screen reader reads), the
page shows the result, and axe-core finds nothing serious in the final state.

The lines were found with the rules: Lotus-39's and Lao Tzu's are as short as the decisive
games ``benchmarks/shortest_games.py`` finds (7 and 4 plies); Gnu Qi's smothered mate was
built from the rules' moves and checked by them (that search finds no end within 4
plies); KaleidoChess's by a search of the White moves that reach Black's castle (no
capture there is possible within 3 plies).  Here a line is only the input, typed in the
game's notation or by cell names; the expected words and result are computed by the
rules.  Lao Tzu is played by two people taking turns at one page (hot seat): each hears
only what his own view shows, so the live regions name no cell in the listener's fog.
"""

from __future__ import annotations

import pytest

from controller.rules import get_game
from controller.speech.words import announce_move
from tests.support.access import (
    axe_or_skip,
    axe_problems,
    heard,
    live_region_text,
    new_game,
    newest_heard,
    open_site,
    screen_reader_mode,
    wait_until,
)
from tests.support.webtools import api_json, playwright_or_skip

sync_api = playwright_or_skip()

#: (what is typed, the move in the game's notation) — typed as a player would: notation,
#: cells with a space or a dash, lower case
LINES = {
    # a smothered mate: Black's Knights and Queen fill d8, e8, f8; the Knight checks from c8
    "gnuqi": [("Nd2", "Nd2"), ("b9 d8", "Nd8"), ("d2-c4", "Nc4"), ("Qe8", "Qe8"),
              ("c4d6", "Nd6"), ("h9 f8", "Nf8"), ("Nc8#", "Nc8#")],
    # the Dragon's three moves knock out Black's Wizard, his last piece in a castle (Black's
    # Tiger knocks out his own Horse meanwhile)
    "kaleidochess": [("1g 3d", "1G-3D"), ("4F-3E", "4F-3E"), ("3d-4f", "3D-4F"),
                     ("3e 4g", "3E+4G"), ("4f+5j", "4F+5J")],
    # two Pawns leave Black's home-hexagon stack; the Alfil mates on g7
    "lotus39": [("c3 c4", "c4"), ("e6 d5", "d5"), ("Acc3", "Acc3"), ("e6-f5", "f5"),
                ("Axc5", "Axc5"), ("g6 h5", "Fh5"), ("Axg7#", "Axg7#")],
    # both arrays orthodox: the fool's mate, heard from the fog
    "laotzu": [("f2 f3", "f3"), ("e5", "e5"), ("g4", "g4"), ("Qh4#", "Qh4#")],
}
OPTIONS = {"laotzu": {"white_array": 518, "black_array": 518}}


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    axe_or_skip()
    with open_site(tmp_path_factory.mktemp("games"), sync_api) as opened:
        yield opened


def _state(page, url):
    return api_json(page, f"{url}/api/state")


def _unseen(cells, fog, text):
    """The cells of ``fog`` that ``text`` names."""
    words = set(text.replace(",", " ").replace(";", " ").replace(".", " ").split())
    return {cells[c] for c in fog} & words


@pytest.mark.parametrize("name", list(LINES))
def test_a_whole_game_from_the_keyboard_is_heard_to_its_end(site, name):
    page, url = site
    options = OPTIONS.get(name, {})
    new_game(page, url, name, **options)
    screen_reader_mode(page)
    game = get_game(name, **options)
    cells = game.geometry.cells
    pos = game.start()
    for typed, notation in LINES[name]:
        move = game.parse_move(pos, notation)
        after = pos.copy()
        after.push(move)
        # a game of hidden information shared at one page: the next mover hears it
        listener = game.ply_mover(after) if game.hidden_information else None
        expected = announce_move(game, pos, move, after, listener)
        page.keyboard.type(typed)
        page.keyboard.press("Enter")
        wait_until(lambda: newest_heard(page) == expected,  # noqa: B023
                   lambda: f"{typed}: {expected!r} in the accessibility tree, not "  # noqa: B023
                           f"{heard(page)!r} (the mode says "
                           f"{live_region_text(page, 'access-answer')!r})")
        if game.hidden_information:
            wait_until(lambda: _state(page, url)["viewer"] == listener,  # noqa: B023
                       "the page shows the next mover's view")
            fog = _state(page, url)["fog"] or []
            if game.outcome(after) is None:
                assert len(fog) > 10, fog
            for region in ("announcer", "access-answer"):
                words = live_region_text(page, region)
                assert not _unseen(cells, fog, words), (typed, region, words)
        pos = after
    outcome = game.outcome(pos)
    assert outcome is not None and outcome.winners
    sync_api.expect(page.locator("#turn-text .result")).to_have_text(
        f"{outcome.result} — {outcome.reason}")
    assert newest_heard(page).endswith(
        f"{game.player_names[outcome.winners[0]]} wins.")
    state = _state(page, url)
    assert state["result"]["winners"] == list(outcome.winners)
    assert len(state["moves"]) == len(LINES[name])
    assert axe_problems(page, f"{name} at its end") == []
