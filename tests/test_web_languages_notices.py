"""The words the service composes with values, in real Chromium in German (issue 34): an
online game's status and notices and its commands (the server's names stay on the wire),
the review's reason for not reviewing yet, and a settings error that keeps its values —
each shown in the page's language, not in English."""

from __future__ import annotations

import re

import pytest

from tests.support.lichess import FakeLichess
from tests.support.webtools import chromium, playwright_or_skip, running_service

TOKEN = "lip_abcdefghijklmnop1234"


@pytest.fixture(scope="module")
def german(tmp_path_factory):
    """A page in German on a board whose online server is a loopback Board API."""
    sync_api = playwright_or_skip()
    folder = tmp_path_factory.mktemp("notices")
    server = FakeLichess({TOKEN: "owner"}).start()
    config = (f"[board]\ngame = 'chess'\nlayout = 'square8'\n[online]\nserver = "
              f"'{server.url}'\ntoken_file = '{folder / 'token'}'\n")
    try:
        with running_service(folder, config) as url, chromium(sync_api) as browser:
            tab = browser.new_page(viewport={"width": 1280, "height": 1400})
            errors: list[str] = []
            tab.on("pageerror", lambda e: errors.append(str(e)))
            tab.add_init_script("localStorage.setItem('fairyboard-language', 'de')")
            tab.goto(url)
            tab.wait_for_function("() => document.documentElement"
                                  " && document.documentElement.dataset.texts === 'de'",
                                  timeout=15_000)
            tab.wait_for_selector("#turn-text:not(:empty)", timeout=15_000)
            yield tab, sync_api.expect
            assert errors == [], errors
    finally:
        server.stop()


def test_a_settings_error_in_german_keeps_its_values(german):
    tab, expect = german
    tab.evaluate("() => { document.getElementById('settings').open = true; }")
    field = tab.locator('#settings-form input[data-key="leds.brightness"]')
    expect(field).to_be_visible(timeout=10_000)
    field.fill("3")
    tab.click("#settings-save")
    error = tab.locator('#settings-form .setting[data-key="leds.brightness"] .field-error')
    expect(error).to_have_text(
        "config.toml: leds.brightness: erwartet eine Zahl von 0 bis 1, erhalten 3.0")


def test_an_online_game_and_the_reviews_reason_in_german(german):
    tab, expect = german
    tab.evaluate("() => { document.getElementById('online').open = true; }")
    tab.fill("#online-token-input", TOKEN)
    tab.click("#online-token-form button[type=submit]")
    expect(tab.locator("#online-account")).to_contain_text("spielt als owner", timeout=20_000)
    tab.fill("#online-minutes", "10")
    tab.fill("#online-increment", "5")
    tab.click("#online-seek-form button[type=submit]")
    # the server's status "started" in words; its notice and its commands in German too
    expect(tab.locator("#online-status")).to_have_text("Gegen sparring: läuft",
                                                       timeout=20_000)
    expect(tab.locator("#online-notices")).to_contain_text(
        re.compile(r"Online-Partie \S+ gegen sparring: baue das Brett auf"))
    commands = tab.locator("#online-commands button")
    expect(commands).to_have_text(["Remis anbieten", "Abbrechen"])
    assert commands.nth(1).get_attribute("data-online") == "abort"  # (the wire's name)
    # the game on the board is not reviewed while it is played online: the reason said
    tab.evaluate("() => { document.getElementById('archive').open = true; }")
    tab.locator("#archive-list tbody tr.live button.review").click(timeout=20_000)
    expect(tab.locator("#review-status")).to_have_text(
        "Noch keine Analyse: die Analyse wartet, bis die Online-Partie auf dem Brett "
        "beendet ist.", timeout=20_000)
