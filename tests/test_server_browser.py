"""A player with only a browser (real Chromium) against a board (the Board API client)
through the server: sign-up on the page, a seek from the lobby met by the board's seek,
and moves from the play page and from the board, each shown on the other side."""

from __future__ import annotations

import re
import threading

import pytest

from tests.support.clubserver import ClubServer
from tests.support.webtools import chromium, playwright_or_skip


@pytest.fixture
def club(tmp_path):
    server = ClubServer(tmp_path).start()
    yield server
    server.stop()


def _signed_up(browser, club, expect, name: str):
    """A new page of ``browser`` signed up as ``name`` on the lobby, and the list its
    script errors go to."""
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(club.url)
    signup = page.locator("form[action='/signup']")
    signup.locator("input[name=name]").fill(name)
    signup.locator("input[name=password]").fill("a long password")
    signup.locator("button").click()
    expect(page.locator("body")).to_contain_text(f"Logged in as {name}")
    return page, errors


def test_a_browser_player_plays_a_board(club):
    sync_api = playwright_or_skip()
    expect = sync_api.expect
    _, token = club.player("bob")
    board = club.client(token)
    with chromium(sync_api) as browser:
        page, errors = _signed_up(browser, club, expect, "carol")
        page.select_option("select[name=variant]", "chess")
        page.get_by_role("button", name="Seek").click()
        expect(page.locator("body")).to_contain_text("carol")
        assert [s.account for s in club.hub.seeks] == ["carol"]

        found: list[str] = []

        def seek() -> None:
            for line in board.seek(10, 5):
                if "gameId" in line:
                    found.append(line["gameId"])
                    return
        t = threading.Thread(target=seek, daemon=True)
        t.start()
        t.join(10)
        assert found, "the board's seek met no one"
        gid = found[0]
        g = club.hub.games[gid]
        # the lobby follows its event stream: the game started opens its play page
        expect(page).to_have_url(re.compile(f"/play/{gid}$"))
        browser_first = g.seats[0] == "carol"
        status = page.locator("#status")
        expect(status).to_contain_text("your move" if browser_first else "waiting")
        moves = page.locator("#moves")
        if not browser_first:
            board.move(gid, "e2e4")
            expect(status).to_contain_text("your move")
        mine = "e2e4" if browser_first else "e7e5"
        page.fill("#move input[name=move]", "e2e5" if browser_first else "e7e4")
        page.locator("#move button").click()
        expect(page.locator("#problem")).to_contain_text("illegal move")
        page.fill("#move input[name=move]", mine)
        page.locator("#move button").click()
        expect(moves).to_contain_text(mine[2:])  # the game's notation: e4 / e5
        assert g.moves[-1] == mine
        if browser_first:
            board.move(gid, "e7e5")
            expect(moves).to_contain_text("e4 e5")
        assert errors == [], errors


def test_a_lao_tzu_browser_player_sees_only_its_view(club):
    """A refereed game between a browser player and a board: the page shows exactly the
    browser seat's view (checked against the referee's whole position), never a move."""
    from controller.rules import get_game

    sync_api = playwright_or_skip()
    expect = sync_api.expect
    _, token = club.player("bob")
    board = club.client(token)
    with chromium(sync_api) as browser:
        page, errors = _signed_up(browser, club, expect, "carol")
        board.challenge("carol", 10, 0, color="white", variant="laotzu")
        # the lobby follows its event stream: the challenge shows, accepted there, played
        page.locator("#challenges form[action$='/accept'] button").click()
        expect(page.locator("#position")).not_to_be_empty()
        gid = next(iter(club.hub.games))
        assert page.url.endswith(f"/play/{gid}")
        refereed = club.hub.referee.games[gid]
        game = get_game("laotzu", **refereed.options)

        def carols_view() -> str:
            return game.position_text(game.view_position(refereed.pos, 1))

        position = page.locator("#position")
        expect(position).to_have_text(carols_view())
        for uci in ("e2e4", "d2d4"):
            if len(refereed.moves) % 2 == 1:  # carol's turn: from her own view
                view = game.parse_view(position.text_content())
                for move in game.board_moves(view):
                    page.fill("#move input[name=move]", game.long_move_text(view, move))
                    page.locator("#move button").click()
                    page.wait_for_timeout(150)
                    if len(refereed.moves) % 2 == 0:
                        break
            board.move(gid, uci)
            expect(page.locator("#status")).to_contain_text("your move")
            expect(position).to_have_text(carols_view())
            assert "e2e4" not in page.locator("#moves").text_content()  # no move told
        assert errors == [], errors
