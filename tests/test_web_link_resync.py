"""A linked game that stopped on a disagreement is resynced from the page, in Chromium:
alpha's ``fairyboard run`` comes back with an old copy of its journal (two plies short,
one of them its own), its page says in one line that the game stopped and offers
"Resync with the other board"; pressed, alpha's board shows the missing plies, its
person makes them, and the game goes on with both pages' move lists alike."""

from __future__ import annotations

import shutil

import pytest

from tests.support.linkpages import click, link_config, moves, start_linked_chess, wait_moves
from tests.support.webtools import CHROMIUM, chromium, running_service, running_services

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)",
                allow_module_level=True)

EXECUTE = "Execute the move shown on the board"


def test_a_stopped_linked_game_is_resynced_from_the_page(tmp_path, broker):
    expect = sync_api.expect
    for name in ("alpha", "beta"):
        (tmp_path / name).mkdir()
    journal = tmp_path / "alpha" / "journal"
    # beta starts while Chromium is launched, alpha while beta's page opens
    with running_services((tmp_path / "beta", link_config("beta", broker.port))) as url_b, \
            chromium(sync_api) as browser:
        errors: list[str] = []

        def open_page(url: str):
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(url)
            expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
            return page


        def ply(mover, other, origin: str, target: str, n: int) -> None:
            click(mover, origin)
            click(mover, target)
            wait_moves(mover, n)
            expect(other.locator("#phase")).to_have_text(EXECUTE, timeout=15_000)
            click(other, origin)
            click(other, target)
            wait_moves(other, n)

        with running_services((tmp_path / "alpha", link_config("alpha", broker.port))) as url_a:
            beta = open_page(url_b()[0])
            alpha = open_page(url_a()[0])
            start_linked_chess(alpha, [alpha, beta])
            ply(alpha, beta, "e2", "e4", 1)
            ply(beta, alpha, "e7", "e5", 2)
            shutil.copytree(journal, tmp_path / "old-journal")
            ply(alpha, beta, "g1", "f3", 3)
            ply(beta, alpha, "b8", "c6", 4)
            alpha.close()
        shutil.rmtree(journal)
        shutil.copytree(tmp_path / "old-journal", journal)
        with running_service(tmp_path / "alpha", link_config("alpha", broker.port)) as url_a:
            alpha = open_page(url_a)
            if alpha.locator("#resume").is_visible():
                alpha.click("#resume-keep")
            alpha.click("#arrange")
            text = alpha.locator("#link-text")
            expect(text).to_contain_text("The game stopped: ", timeout=15_000)
            expect(text).to_contain_text("ply 3")
            assert "\n" not in text.inner_text()
            expect(alpha.locator("#link-banner")).to_have_class("banner link-banner stopped")
            expect(alpha.locator("#link-accept")).to_be_hidden()
            expect(alpha.locator("#link-decline")).to_be_hidden()
            assert moves(alpha) == ["e4", "e5"]  # nothing played on from the old copy
            alpha.click("#link-resync")
            expect(alpha.locator("#link-resync")).to_be_hidden(timeout=10_000)
            expect(text).to_have_text("Resynchronised with the other board.")
            for n, (origin, target) in enumerate((("g1", "f3"), ("b8", "c6")), start=3):
                expect(alpha.locator("#phase")).to_have_text(EXECUTE, timeout=15_000)
                click(alpha, origin)
                click(alpha, target)
                wait_moves(alpha, n)
            ply(alpha, beta, "f1", "c4", 5)
            assert moves(alpha) == moves(beta) == ["e4", "e5", "Nf3", "Nc6", "Bc4"]
        assert errors == [], errors
