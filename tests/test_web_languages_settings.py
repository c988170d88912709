"""The Settings section, the archive and the journal's lines in real Chromium in German
(issue 34): each choice shown by its words (a game by its title) while the raw value is
saved, a configuration error beyond a single value (a key the file holds that is unknown)
said in German with its names kept, and the journal's unreadable files — set aside at
start, or found by the archive — in German."""

from __future__ import annotations

import pytest

from tests.support.webtools import chromium, playwright_or_skip, running_service

EMPTY = "20261201-100000-chess.jsonl"  # set aside when the board starts
FOLDER = "20261201-120000-chess.jsonl"  # appears later: the archive lists it


@pytest.fixture(scope="module")
def german(tmp_path_factory):
    """A page in German on a board whose journal held an empty file at start."""
    sync_api = playwright_or_skip()
    folder = tmp_path_factory.mktemp("settings_de")
    (folder / "journal").mkdir()
    (folder / "journal" / EMPTY).write_bytes(b"")
    with running_service(folder, "[board]\ngame = 'chess'\nlayout = 'square8'\n") as url, \
            chromium(sync_api) as browser:
        tab = browser.new_page(viewport={"width": 1280, "height": 1400})
        errors: list[str] = []
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.add_init_script("localStorage.setItem('fairyboard-language', 'de')")
        tab.goto(url)
        tab.wait_for_function("() => document.documentElement"
                              " && document.documentElement.dataset.texts === 'de'",
                              timeout=15_000)
        tab.wait_for_selector("#turn-text:not(:empty)", timeout=15_000)
        yield tab, sync_api.expect, folder
        assert errors == [], errors


def _open_settings(tab, expect):
    tab.evaluate("() => { const s = document.getElementById('settings');"
                 " s.open = false; s.open = true; }")
    expect(tab.locator('#settings-form select[data-key="board.game"]')).to_be_visible(
        timeout=10_000)


def test_the_choices_are_words_and_the_value_is_saved_raw(german):
    tab, expect, folder = german
    _open_settings(tab, expect)
    game = tab.locator('#settings-form select[data-key="board.game"]')
    expect(game.locator('option[value="chess"]')).to_have_text("Schach")
    expect(game.locator('option[value="laotzu"]')).to_have_text("Lao-Tzu-Schach (Lao Tzu Chess)")
    expect(game).to_have_value("chess")
    flag = tab.locator('#settings-form select[data-key="board.on_flag"]')
    expect(flag.locator("option")).to_have_text(["die Partie nach den Regeln beenden",
                                                 "melden und weiterspielen"])
    expect(tab.locator('#settings-form select[data-key="speech.language"] '
                       'option[value="zh"]')).to_have_text("中文")
    flag.select_option("report")
    tab.click("#settings-save")
    expect(tab.locator("#toast")).to_contain_text("Gespeichert", timeout=10_000)
    assert 'on_flag = "report"' in (folder / "config.toml").read_text()


def test_an_unknown_key_in_the_file_is_said_in_german(german):
    tab, expect, folder = german
    config = folder / "config.toml"
    before = config.read_text()
    config.write_text(before.replace("[board]\n", "[board]\ncolour = 'red'\n"))
    try:
        _open_settings(tab, expect)
        field = tab.locator('#settings-form input[data-key="leds.brightness"]')
        field.fill("0.2")
        tab.click("#settings-save")
        error = tab.locator('#settings-form .setting[data-key="leds.brightness"] .field-error')
        expect(error).to_contain_text(
            "config.toml: unbekannte Einstellung board.colour (bekannt: layout, game",
            timeout=10_000)
    finally:
        config.write_text(before)


#: the page's reads of /api/settings answered late (its saves at once), the moment each
#: late answer reaches the page counted in ``window.lateSettings``
SLOW_SETTINGS = """() => {
  window.lateSettings = 0;
  const real = window.realFetch = window.fetch;
  window.fetch = async (url, options) => {
    const answer = await real(url, options);
    if (String(url).endsWith("/api/settings") && !(options && options.method === "POST")) {
      await new Promise((done) => setTimeout(done, 1500));
      window.lateSettings += 1;
    }
    return answer;
  };
}"""


def test_a_load_answered_after_a_refused_save_keeps_the_error(german):
    """Opening the section loads it; a save made before that load's answer arrives is
    refused at its field, and the late answer must not draw the form over the error (it
    did: the error vanished a moment after it showed)."""
    tab, expect, _folder = german
    _open_settings(tab, expect)
    tab.evaluate(SLOW_SETTINGS)
    tab.evaluate("() => { const s = document.getElementById('settings');"
                 " s.open = false; s.open = true; }")  # a load, answered late
    tab.locator('#settings-form input[data-key="leds.brightness"]').fill("3")
    tab.click("#settings-save")
    error = tab.locator('#settings-form .setting[data-key="leds.brightness"] .field-error')
    expect(error).to_contain_text("0", timeout=10_000)
    tab.wait_for_function("() => window.lateSettings >= 1", timeout=10_000)
    tab.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")
    expect(error).to_contain_text("0", timeout=100)
    assert tab.locator(".setting.invalid").count() == 1
    tab.evaluate("() => { window.fetch = window.realFetch; }")


def test_an_edit_made_before_the_loads_answer_is_kept(german):
    """The section opened, the owner types before its load is answered: the late answer
    draws the form again and must keep what he typed (it put the file's value back, and
    his save then said "nothing changed")."""
    tab, expect, _folder = german
    _open_settings(tab, expect)
    tab.evaluate(SLOW_SETTINGS)
    tab.evaluate("() => { const s = document.getElementById('settings');"
                 " s.open = false; s.open = true; }")  # a load, answered late
    field = '#settings-form input[data-key="leds.brightness"]'
    tab.locator(field).fill("3")
    tab.wait_for_function("() => window.lateSettings >= 1", timeout=10_000)
    tab.evaluate("() => new Promise((done) => requestAnimationFrame(() => done()))")
    expect(tab.locator(field)).to_have_value("3", timeout=100)
    tab.evaluate("() => { window.fetch = window.realFetch; }")
    tab.click("#settings-save")
    error = tab.locator('#settings-form .setting[data-key="leds.brightness"] .field-error')
    expect(error).to_contain_text("0", timeout=10_000)


def test_the_journals_unreadable_files_in_german(german):
    tab, expect, folder = german
    expect(tab.locator("#journal-problems")).to_contain_text(
        f"Protokoll: {EMPTY}: leere Protokolldatei; beiseitegelegt als {EMPTY}.bad-")
    (folder / "journal" / FOLDER).mkdir()
    tab.evaluate("() => { document.getElementById('archive').open = true; }")
    expect(tab.locator("#archive-status")).to_contain_text(
        f"Nicht lesbar: {FOLDER}: ein Ordner, keine Protokolldatei", timeout=10_000)
