"""Two pages in Chromium play one linked game: two ``fairyboard run`` services on the
simulated board, linked through a real Mosquitto; each page's person makes his own moves
by clicking on the drawn board and makes the other board's move shown on his — a chess
game to mate (the fool's mate), both pages ending it alike."""

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

#: (board that moves, origin, target, the move as the move list shows it)
FOOLS_MATE = [("alpha", "f2", "f3", "f3"), ("beta", "e7", "e5", "e5"),
              ("alpha", "g2", "g4", "g4"), ("beta", "d8", "h4", "Qh4#")]


def test_two_pages_play_a_linked_game_to_mate(tmp_path, broker):
    expect = sync_api.expect
    (tmp_path / "alpha").mkdir()
    (tmp_path / "beta").mkdir()
    with running_services((tmp_path / "alpha", link_config("alpha", broker.port)),
                          (tmp_path / "beta", link_config("beta", broker.port))) as urls, \
            live_pages(sync_api, lambda: dict(zip(("alpha", "beta"), urls(),
                                                  strict=True))) as pages:
        # alpha's page starts a chess game with Black on beta; beta joins: its page shows
        # the chess start
        start_linked_chess(pages["alpha"], [pages["alpha"], pages["beta"]])
        for ply, (mover, origin, target, shown) in enumerate(FOOLS_MATE, start=1):
            other = "beta" if mover == "alpha" else "alpha"
            click(pages[mover], origin)
            click(pages[mover], target)
            wait_moves(pages[mover], ply, at_least=True)
            # the other page shows the move to make; its person makes it there
            expect(pages[other].locator("#phase")).to_have_text(
                "Execute the move shown on the board", timeout=15_000)
            click(pages[other], origin)
            click(pages[other], target)
            wait_moves(pages[other], ply, at_least=True)
            assert moves(pages[mover])[-1] == moves(pages[other])[-1] == shown
        for page in pages.values():
            expect(page.locator("#turn-text")).to_contain_text("0-1", timeout=10_000)
        pages["beta"].screenshot(path=str(tmp_path / "beta-mated.png"))
        assert moves(pages["alpha"]) == moves(pages["beta"]) == [m for *_, m in FOOLS_MATE]
