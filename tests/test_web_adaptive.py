"""The adaptive level on the page, in real Chromium (issue 33): with ``[engine] adaptive``
on, the New game's computer seat says at which level the next game is played and how the
owner scored; a game resigned from the page moves it, and the line follows."""

from __future__ import annotations

import json

from tests.support.webtools import browser_page, playwright_or_skip, running_service

CONFIG = ("[board]\ngame = 'chess'\nlayout = 'square8'\ncomputer = ['Black']\n"
          "computer_level = 9\n[engine]\nadaptive = true\n")


def test_the_new_game_form_shows_the_adaptive_level_and_it_moves(tmp_path):
    sync_api = playwright_or_skip()
    journal = tmp_path / "journal"
    journal.mkdir()
    (journal / "adaptive.json").write_text(json.dumps(
        {"level": 4, "step": 1, "direction": 1, "results": [1.0]}))
    with running_service(tmp_path, CONFIG) as url, browser_page(sync_api, url) as page:
        expect = sync_api.expect
        page.wait_for_function("() => !!ui.state && !!ui.state.computer", timeout=10_000)
        page.click("#new-game summary")
        line = page.locator("#ng-adaptive")
        expect(line).to_have_text("Adaptive: the computer plays the next game at level 4 "
                                  "(you scored 100 % in your last 1 game against it).")
        assert page.locator("#ng-level").is_disabled()
        # the rating beside it is the adaptive level's (controller/engine/ratings.toml)
        from controller.engine.ratings import level_ratings

        four = level_ratings("chess")[4]
        words = f"under {four.about}" if four.under else f"about {four.about}"
        expect(page.locator("#ng-level-rating")).to_have_text(
            words + (", approximate" if four.approximate else ""))
        page.click("#arrange")
        page.wait_for_function("() => ui.state.phase === 'turn'", timeout=10_000)
        page.once("dialog", lambda dialog: dialog.accept())
        page.click("#commands button[data-command=resign]")
        page.wait_for_function("() => !!ui.state.result", timeout=10_000)
        expect(line).to_have_text("Adaptive: the computer plays the next game at level 3 "
                                  "(you scored 50 % in your last 2 games against it).")
