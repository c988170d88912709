"""The page side of a linked takeback, in Chromium: two ``fairyboard run`` services on
the simulated board, linked through a real Mosquitto.  On one page the person takes a
move back by restoring the earlier position; the other page shows the request with
"Accept" and "Decline", and whose turn waits on which board.  Accepted: both pages hold
the same shorter move list.  Declined: the asking page shows the move again, its person
makes it again, and both move lists agree once more."""

from __future__ import annotations

import pytest

from tests.support.linkpages import (
    click,
    link_config,
    live_pages,
    moves,
    start_linked_chess,
    wait_moves,
)
from tests.support.webtools import CHROMIUM, running_services

sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
if not CHROMIUM.exists():
    pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)",
                allow_module_level=True)


def test_a_takeback_asked_on_one_page_is_accepted_or_declined_on_the_other(tmp_path, broker):
    expect = sync_api.expect
    (tmp_path / "alpha").mkdir()
    (tmp_path / "beta").mkdir()
    extra = "[board]\ntakeback_delay_s = 0.4\n"
    with running_services((tmp_path / "alpha", link_config("alpha", broker.port, extra=extra)),
                          (tmp_path / "beta", link_config("beta", broker.port, extra=extra))
                          ) as urls, \
            live_pages(sync_api, lambda: dict(zip(("alpha", "beta"), urls(),
                                                  strict=True))) as pages:
        alpha, beta = pages["alpha"], pages["beta"]
        start_linked_chess(alpha, [alpha, beta])
        banner = {name: page.locator("#link-banner") for name, page in pages.items()}
        expect(banner["alpha"]).to_be_hidden()
        # whose turn it is on which board
        expect(alpha.locator("#turn-text")).to_have_text("White to move")
        expect(beta.locator("#turn-text")).to_have_text("White to move — waiting for alpha")

        def ply(mover, origin: str, target: str, n: int) -> None:
            other = beta if mover is alpha else alpha
            click(mover, origin)
            click(mover, target)
            wait_moves(mover, n)
            expect(other.locator("#phase")).to_have_text(
                "Execute the move shown on the board", timeout=15_000)
            click(other, origin)
            click(other, target)
            wait_moves(other, n)

        ply(alpha, "e2", "e4", 1)
        ply(beta, "e7", "e5", 2)
        expect(alpha.locator("#turn-text")).to_have_text("White to move")
        expect(beta.locator("#turn-text")).to_have_text("White to move — waiting for alpha")

        # alpha's person takes Black's e5 back (the earlier position, held still) ...
        click(alpha, "e5")
        click(alpha, "e7")
        wait_moves(alpha, 1)
        expect(alpha.locator("#turn-text")).to_have_text(
            "Black to move — waiting for beta to answer the takeback", timeout=10_000)
        expect(banner["alpha"]).to_contain_text("waiting for the other board")
        # ... beta's page asks; Accept takes the same move back there
        expect(beta.locator("#link-text")).to_have_text(
            "Board alpha took 1 move back and asks you to agree. Accept takes the same moves back "
            "here; Decline plays on.", timeout=15_000)
        expect(beta.locator("#link-resync")).to_be_hidden()
        beta.screenshot(path=str(tmp_path / "beta-takeback-asked.png"))
        beta.click("#link-accept")
        wait_moves(beta, 1)
        expect(beta.locator("#link-accept")).to_be_hidden(timeout=10_000)
        expect(beta.locator("#link-decline")).to_be_hidden()
        expect(alpha.locator("#link-text")).to_have_text("Takeback agreed.", timeout=15_000)
        expect(alpha.locator("#turn-text")).to_have_text("Black to move — waiting for beta")
        expect(beta.locator("#turn-text")).to_have_text("Black to move")
        assert moves(alpha) == moves(beta) == ["e4"]

        # the game goes on; this time beta's page declines
        ply(beta, "d7", "d5", 2)
        click(alpha, "d5")
        click(alpha, "d7")
        wait_moves(alpha, 1)
        expect(beta.locator("#link-decline")).to_be_visible(timeout=15_000)
        beta.click("#link-decline")
        expect(beta.locator("#link-decline")).to_be_hidden(timeout=10_000)
        expect(beta.locator("#link-banner")).to_be_hidden()
        expect(alpha.locator("#link-text")).to_have_text(
            "The other board declined the takeback: make the moves shown again.",
            timeout=15_000)
        expect(alpha.locator("#phase")).to_have_text("Execute the move shown on the board",
                                                     timeout=15_000)
        click(alpha, "d7")
        click(alpha, "d5")
        wait_moves(alpha, 2)
        assert moves(alpha) == moves(beta) == ["e4", "d5"]
        ply(alpha, "g1", "f3", 3)  # and on: both boards took the same moves
        assert moves(alpha) == moves(beta) == ["e4", "d5", "Nf3"]
