"""The page seeks a fairyboard server's game with its options (issue 36), in real Chromium:
the Online section's forms offer the games the server plays and this board can, each with
the options its rules declare; a three-player KaleidoChess seek with the die is chosen
there and sent, two players through the server's API seek the same, and the board plays
the game's first plies — the server's rolls and a rival's move made on the board, then
the owner's roll and move, which the server takes."""

from __future__ import annotations

import json
import threading
import time

import pytest

from controller.layout import load_layout
from controller.online.token import save_token
from controller.server.hub import Hub
from controller.wire import wire_move
from tests.support.clubserver import ClubServer
from tests.support.computerpage import ComputerPage
from tests.support.webtools import browser_page, playwright_or_skip, running_service

OPTIONS = {"players": 3, "dice": True}
#: the page's online section drawing a challenge the room found unplayable (its reason)
UNPLAYABLE = """() => {
  const S = JSON.parse(JSON.stringify(ui.state));
  S.online.challenges = [{id: "c9", from: "bob", rated: false, clock: "10+5",
    variant: "gnuqi", game: "gnuqi", title: "Gnu Qi", options: {},
    problem: "Gnu Qi: layout kaleido89 is not made for gnuqi"}];
  for (const section of window.fairyboardSections) section(S, pageApi);
  const li = document.querySelector("#online-challenges li");
  const out = {text: li.firstChild.textContent + li.querySelector("span").textContent,
    buttons: [...li.querySelectorAll("button")].map((b) => b.textContent)};
  for (const section of window.fairyboardSections) section(ui.state, pageApi);
  return out;
}"""


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    server = ClubServer(tmp_path_factory.mktemp("club")).start()
    yield server
    server.stop()


def _until(condition, what: str, limit_s: float = 20.0) -> None:
    deadline = time.monotonic() + limit_s
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)


def _seek(api, found: list[str]) -> None:
    for line in api.stream("POST", "/api/board/seek", "seek", data={
            "time": "10", "increment": "5", "variant": "kaleidochess",
            "options": json.dumps(OPTIONS)}):
        if "gameId" in line:
            found.append(line["gameId"])
            return


def _first_move(g):
    """A rival's move, chosen from the server's position (its first legal one)."""
    pos = g.pos.copy()
    return pos, g.game.legal_moves(pos)[0]


def test_the_page_seeks_a_three_player_kaleidochess_game_with_the_die(tmp_path, club,
                                                                       monkeypatch):
    sync_api = playwright_or_skip()
    # the seats in the players' names' order (the product shuffles them): alice, owner, zoe
    monkeypatch.setattr(Hub, "_seat_order",
                        staticmethod(lambda group: sorted(s.account for s in group)))
    _, token = club.player("owner")
    rivals = [club.client(club.player(name)[1]) for name in ("alice", "zoe")]
    save_token(tmp_path / "token", token)
    config = (f"[board]\ngame = 'kaleidochess'\nlayout = 'kaleido89'\n[online]\nserver = "
              f"'{club.url}'\ntoken_file = '{tmp_path / 'token'}'\n")
    try:
        with running_service(tmp_path, config) as url, browser_page(sync_api, url) as page:
            at = ComputerPage(page, url, load_layout("kaleido89"), sync_api.expect)
            at.wait("S.online && S.online.account === 'owner' && S.online.games.length > 0")
            page.click("#online summary")
            titles = page.locator("#online-variant option").all_inner_texts()
            assert {"Chess", "KaleidoChess", "Gnu Qi", "Lotus-39"} <= set(titles)
            # a challenge shows its game's title and options; one this board cannot play
            # its reason and no Accept (a simulated board plays every game: that one is
            # the page's drawing of a state the room makes for a printed board)
            rivals[0].request("POST", "/api/challenge/owner", "challenge", data={
                "variant": "kaleidochess", "clock.limit": "600", "clock.increment": "5",
                "options": json.dumps({"dice": True})})
            offer = page.locator("#online-challenges li")
            sync_api.expect(offer).to_contain_text(
                "alice challenges you (10+5, KaleidoChess (dice))")
            assert offer.locator("button").all_inner_texts() == ["Accept", "Decline"]
            drawn = page.evaluate(UNPLAYABLE)
            assert drawn == {"text": "bob challenges you (10+5, Gnu Qi) not playable on this "
                                     "board: Gnu Qi: layout kaleido89 is not made for gnuqi ",
                             "buttons": ["Decline"]}, drawn
            offer.locator("button", has_text="Decline").click()
            sync_api.expect(offer).to_have_count(0)
            _until(lambda: not club.hub.challenges, "the challenge was not declined")
            page.select_option("#online-variant", "kaleidochess")
            players = page.locator("#online-options select[name=players]")
            assert players.locator("option").all_inner_texts() == ["2", "3", "4"]
            players.select_option("3")
            page.locator("#online-options input[name=dice]").set_checked(True)
            assert page.locator("#online-options [name=seed]").count() == 0
            page.fill("#online-minutes", "10")
            page.fill("#online-increment", "5")
            page.click("#online-seek-form button[type=submit]")
            sync_api.expect(page.locator("#online-seeking")).to_contain_text(
                "KaleidoChess (players 3, dice)")
            _until(lambda: any(s.account == "owner" for s in club.hub.seeks), "no seek")
            seek = next(s for s in club.hub.seeks if s.account == "owner")
            assert seek.name == "kaleidochess" and seek.options["players"] == 3
            assert seek.options["dice"] is True
            found: list[str] = []
            threads = [threading.Thread(target=_seek, args=(api, found), daemon=True)
                       for api in rivals]
            for t in threads:
                t.start()
            _until(lambda: len(found) == 2, "the rivals' seeks met no game")
            gid = found[0]
            g = club.hub.games[gid]
            assert g.seats == ("alice", "owner", "zoe")
            assert g.options["players"] == 3 and g.options["dice"] is True
            at.wait("S.online.game && S.online.playing && S.phase === 'setup'")
            page.click("#arrange")
            # alice's roll (the server's) is made on the board; then her move, lit here
            _until(lambda: g.ply == 1, "the server did not roll for alice")
            pos, move = _first_move(g)
            rivals[0].move(gid, wire_move(g.game, pos, move))
            at.wait("S.phase === 'execute'")
            at.play(g.game, pos, move)
            # the owner's roll, then the owner's move on the board, taken by the server
            _until(lambda: g.ply == 3, "the server did not roll for the owner")
            at.wait("S.moves.length === 3 && S.phase === 'turn'")
            pos, move = _first_move(g)
            at.play(g.game, pos, move)
            _until(lambda: g.ply >= 4, "the owner's move never reached the server")
            assert club.server.store.moves(gid)[3] == wire_move(g.game, pos, move)
            assert club.server.store.moves(gid)[0].startswith("die:")
    finally:
        for api in rivals:
            api.close()
