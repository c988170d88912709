"""The server's play page in real Chromium: players with only a browser meet in the lobby
(a challenge to a named player, a seek played from the list, each cancelled or answered),
play whole games by clicking the drawn board (its legal targets lit, several moves on the
same cells asked), offer and answer draws and takebacks, resign and abort; a watcher
follows a live game; a Lao Tzu seat is shown only its own view, in the DOM and in every
HTTP response the page got.  One server and one browser for the module."""

from __future__ import annotations

import json
import re

import pytest

from controller.rules import get_game
from tests.support.clubserver import ClubServer

PASSWORD = "correct horse"


@pytest.fixture(scope="module")
def club(tmp_path_factory):
    server = ClubServer(tmp_path_factory.mktemp("club")).start()
    yield server
    server.stop()


class Player:
    """One person in a browser context of their own (their own session cookie)."""

    def __init__(self, browser, club, name: str) -> None:
        club.player(name, PASSWORD)
        self.name, self.club = name, club
        self.context = browser.new_context()
        self.page = self.context.new_page()
        self.errors: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(club.url)
        login = self.page.locator("form[action='/login']")
        login.locator("input[name=name]").fill(name)
        login.locator("input[name=password]").fill(PASSWORD)
        login.locator("button").click()
        self.page.locator("text=Logged in as").wait_for()

    def lobby(self) -> None:
        self.page.goto(self.club.url)

    def terms(self, variant: str, color: str = "random") -> None:
        self.page.select_option("select[name=variant]", variant)
        self.page.select_option("select[name=color]", color)

    def cell(self, name: str):
        return self.page.locator(f"#board polygon.spot[data-name='{name}']")

    def wait_ply(self, ply: int) -> None:
        self.page.locator(f"#board[data-ply='{ply}']").wait_for(state="attached")

    def click_move(self, origin: str, target: str, choice: str | None = None) -> None:
        self.cell(origin).click()
        self.cell(target).click()
        if choice is not None:
            self.page.locator("#choice-options button", has_text=re.compile(
                f"^{re.escape(choice)}$")).click()

    def close(self) -> None:
        assert self.errors == [], self.errors
        self.context.close()


def _play(players, plies, start_ply=0):
    """Each ply clicked on its mover's page once both pages have drawn the previous one."""
    for k, (origin, target, *choice) in enumerate(plies):
        for p in players:
            p.wait_ply(start_ply + k)
        players[k % 2].click_move(origin, target, *choice)
    for p in players:
        p.wait_ply(start_ply + len(plies))


def _meet_by_challenge(club, expect, white, black, variant):
    """``white`` challenges ``black`` from the lobby form; ``black``'s lobby shows it at
    once (its event stream) and accepts: both are on the play page."""
    black.lobby()
    white.lobby()
    white.terms(variant, "white")
    white.page.fill("input[name=opponent]", black.name)
    white.page.get_by_role("button", name="Challenge").click()
    expect(white.page.locator("#sent")).to_contain_text(black.name)
    black.page.locator("#challenges form[action$='/accept'] button").click()
    expect(black.page).to_have_url(re.compile("/play/"))
    expect(white.page).to_have_url(re.compile("/play/"))
    gid = black.page.url.rsplit("/", 1)[1]
    assert club.hub.games[gid].seats == (white.name, black.name)
    return gid


def test_two_browser_players_play_chess_by_clicks_and_a_watcher_follows(
        club, browser, expect):
    alice, bob, carol = (Player(browser, club, n) for n in ("alice", "bob", "carol"))
    gid = _meet_by_challenge(club, expect, alice, bob, "chess")
    alice.wait_ply(0)
    expect(alice.page.locator("#status")).to_contain_text("your move")
    expect(alice.page.locator("#board .pieces > g")).to_have_count(32)
    # a piece clicked: its legal targets lit; the opponent's piece: nothing
    alice.cell("e7").click()
    expect(alice.page.locator("[data-mark]")).to_have_count(0)
    alice.cell("g1").click()
    marked = alice.page.locator("[data-mark=target]")
    expect(marked).to_have_count(2)
    assert {alice.page.locator(f"[data-led='{m.get_attribute('data-led')}']").count()
            for m in marked.all()} == {1}
    alice.cell("g1").click()  # again: unselected
    expect(alice.page.locator("[data-mark]")).to_have_count(0)
    carol.page.goto(f"{club.url}/watch/{gid}")
    _play([alice, bob], [("f2", "f3"), ("e7", "e5"), ("g2", "g4")])
    expect(carol.page.locator("#moves")).to_contain_text("f3 e5")
    expect(carol.page.locator("#board .pieces > g")).to_have_count(32)
    bob.click_move("d8", "h4")
    for p in (alice, bob, carol):
        expect(p.page.locator("#status")).to_contain_text("game over: 0-1 (checkmate)")
        expect(p.page.locator("#moves")).to_contain_text("g4 Qh4#")
    assert club.hub.games[gid].moves == ["f2f3", "e7e5", "g2g4", "d8h4"]
    expect(alice.page.locator("#actions")).to_be_hidden()
    for p in (alice, bob, carol):
        p.close()


def test_a_luotuoqi_game_by_clicks_asks_which_tower_move(club, browser, expect):
    """Several moves on the same two cells (Black's with or without the Cube, a Tower's
    split sizes): the page asks; the game ends by the rules (threefold repetition)."""
    dora, emil = Player(browser, club, "dora"), Player(browser, club, "emil")
    gid = _meet_by_challenge(club, expect, dora, emil, "luotuoqi")
    _play([dora, emil], [("d2", "e3"), ("b8", "c6", "Mb8-c6")])
    dora.click_move("d1", "d2")
    options = dora.page.locator("#choice-options button")
    expect(options).to_have_count(8)  # T1 … T7 split off, or the whole T8
    assert club.hub.games[gid].ply == 2  # nothing guessed
    options.filter(has_text=re.compile("^T2d1-d2$")).click()
    shuffle = [("c6", "b8", "Mc6-b8"), ("b1", "c3"), ("b8", "c6", "Mb8-c6"), ("c3", "b1")] * 2
    _play([emil, dora], shuffle, 3)  # the Mules to and fro: the third time, a draw
    assert len(club.hub.games[gid].moves) == 11
    g = club.hub.games[gid]
    assert g.moves[2] == "T2d1-d2" and g.status == "draw"
    for p in (dora, emil):
        expect(p.page.locator("#status")).to_contain_text("threefold repetition")
        p.close()


def test_seek_cancel_play_a_seek_takeback_draw_resign_and_abort(club, browser, expect):
    fay, gus = Player(browser, club, "fay"), Player(browser, club, "gus")
    # a seek cancelled, a challenge cancelled (the other lobby forgets it), one declined
    fay.terms("chess")
    fay.page.get_by_role("button", name="Seek").click()
    row = fay.page.locator("#seeks tr", has_text="fay")
    row.get_by_role("button", name="Cancel").click()
    expect(fay.page.locator("#seeks")).not_to_contain_text("fay")
    assert not club.hub.seeks
    gus.lobby()
    fay.page.fill("input[name=opponent]", "gus")
    fay.page.get_by_role("button", name="Challenge").click()
    expect(gus.page.locator("#challenges")).to_contain_text("fay")
    fay.page.locator("#sent").get_by_role("button", name="Cancel").click()
    expect(gus.page.locator("#challenges")).to_have_count(0)
    fay.page.fill("input[name=opponent]", "nobody-here")
    fay.page.get_by_role("button", name="Challenge").click()
    expect(fay.page.locator(".problem")).to_have_text("no such player")
    fay.page.fill("input[name=opponent]", "gus")
    fay.page.get_by_role("button", name="Challenge").click()
    gus.page.locator("#challenges form[action$='/decline'] button").click()
    expect(fay.page.locator("#sent")).to_have_count(0)
    assert not club.hub.challenges
    # a seek played from the list: both on the play page
    fay.terms("chess", "white")
    fay.page.get_by_role("button", name="Seek").click()
    gus.lobby()
    gus.page.locator("#seeks tr", has_text="fay").get_by_role("button", name="Join").click()
    expect(gus.page).to_have_url(re.compile("/play/"))
    expect(fay.page).to_have_url(re.compile("/play/"))
    gid = gus.page.url.rsplit("/", 1)[1]
    g = club.hub.games[gid]
    white, black = (fay, gus) if g.seats[0] == "fay" else (gus, fay)
    _play([white, black], [("e2", "e4")])
    white.page.get_by_role("button", name="Ask to take back").click()
    expect(black.page.locator("#offer-text")).to_contain_text("take the last move back")
    black.page.locator("#offer-yes").click()
    for p in (white, black):
        p.wait_ply(0)
    assert g.moves == []
    _play([white, black], [("d2", "d4")])
    white.page.get_by_role("button", name="Offer a draw").click()
    expect(black.page.locator("#offer-text")).to_contain_text("offers a draw")
    black.page.locator("#offer-no").click()
    expect(black.page.locator("#offer")).to_be_hidden()
    resign = black.page.locator("#actions button[data-act=resign]")
    resign.click()
    expect(resign).to_contain_text("are you sure")
    assert not g.ended  # asked once more
    resign.click()
    expect(white.page.locator("#status")).to_contain_text("game over: 1-0 (resignation)")
    # another game aborted before its first moves
    gid = _meet_by_challenge(club, expect, fay, gus, "chess")
    abort = gus.page.locator("#actions button[data-act=abort]")
    abort.click()
    abort.click()
    expect(fay.page.locator("#status")).to_contain_text("game over")
    assert club.hub.games[gid].status == "aborted"
    fay.close()
    gus.close()


#: every response body and every stream line the page got, kept in the page
TEE = """(() => {
  window.__seen = [];
  const fetched = window.fetch;
  window.fetch = async (...args) => {
    const response = await fetched(...args);
    const [mine, theirs] = response.body ? response.body.tee() : [null, null];
    const seen = { url: response.url, text: "" };
    window.__seen.push(seen);
    if (mine) (async () => {
      const reader = mine.getReader(), decoder = new TextDecoder();
      for (;;) { const { value, done } = await reader.read(); if (done) break;
                 seen.text += decoder.decode(value, { stream: true }); }
    })();
    return new Response(theirs, { status: response.status, headers: response.headers });
  };
})();"""


def test_a_lao_tzu_seat_is_shown_only_its_view(club, browser, expect):
    """A refereed game, a board (the Board API) against a browser player: the drawn board
    holds only the browser seat's view, its legal targets come from that view, and
    nothing the page received names a hidden piece, the drawn set-up or a move."""
    _, token = club.player("hal", PASSWORD)
    board = club.client(token)
    ivy = Player(browser, club, "ivy")
    ivy.context.add_init_script(TEE)
    ivy.lobby()
    board.challenge("ivy", 10, 0, color="white", variant="laotzu")
    ivy.page.locator("#challenges form[action$='/accept'] button").click()
    expect(ivy.page).to_have_url(re.compile("/play/"))
    gid = ivy.page.url.rsplit("/", 1)[1]
    refereed = club.hub.referee.games[gid]
    game = get_game("laotzu", **refereed.options)
    watcher = Player(browser, club, "jon")
    watcher.page.goto(f"{club.url}/watch/{gid}")
    board.move(gid, "e2e4")
    ivy.wait_ply(1)
    view = game.view_position(refereed.pos, 1)
    seen = {game.geometry.cells[c] for c, p in enumerate(view.board) if p is not None}
    hidden = {game.geometry.cells[c] for c, p in enumerate(refereed.pos.board)
              if p is not None} - seen
    assert hidden  # (there is something to leak)
    drawn = {t.text_content() for t in ivy.page.locator("#board .pieces > g > title").all()}
    assert drawn == seen
    expect(ivy.page.locator("#board .fog polygon")).not_to_have_count(0)
    # a target from the view: a Pawn's one and two steps, sent as the seat's own board would
    ivy.cell("e7").click()
    expect(ivy.page.locator("[data-mark=target]")).to_have_count(2)
    ivy.cell("e5").click()
    ivy.wait_ply(2)
    assert len(refereed.moves) == 2
    expect(watcher.page.locator("#moves")).to_contain_text("2 plies played")
    expect(watcher.page.locator("#board .pieces > g")).to_have_count(0)
    # the page's DOM and everything it received (streams included)
    page_text = ivy.page.content()
    responses = ivy.page.evaluate("window.__seen")
    assert any("/board" in r["url"] for r in responses)
    assert any("/stream/" in r["url"] and '"view"' in r["text"] for r in responses)
    received = "\n".join(r["text"] for r in responses)
    assert "e2e4" not in received and "e2e4" not in page_text
    truth = game.position_text(refereed.pos)
    for text in (page_text, received):
        assert truth.split()[0] not in text
        for name in ("white_array", "black_array", "seed"):
            assert name not in text
    spots = ivy.page.evaluate("ui.layout.spots.map((s) => s.name)")
    for r in responses:
        if r["url"].endswith("/board"):
            assert not {spots[int(i)] for i in json.loads(r["text"])["pieces"]} & hidden
    for p in (ivy, watcher):
        p.close()


def test_an_open_challenges_address_seats_two_browser_players(club, browser, expect):
    """lichess's open challenge made with the Board API: its ``urlBlack`` opened in one
    browser takes Black, its ``url`` in another takes the other seat, and both pages
    open the game (the first one from its event stream)."""
    _, token = club.player("olga")
    c = club.client(token).request("POST", "/api/challenge/open", "open", data={
        "clock.limit": "300", "clock.increment": "0", "variant": "standard"})
    assert c["urlBlack"].startswith(club.url + "/")
    pia, quin = Player(browser, club, "pia"), Player(browser, club, "quin")
    pia.page.goto(c["urlBlack"])
    expect(pia.page.locator("form button").first).to_have_text("Play black")
    pia.page.locator("form button", has_text="Play black").click()
    expect(pia.page.locator("body")).to_contain_text("You have taken a seat")
    quin.page.goto(c["url"])
    quin.page.locator("form button", has_text="Play either colour").click()
    expect(quin.page).to_have_url(re.compile("/play/"))
    expect(pia.page).to_have_url(re.compile("/play/"))  # (its event stream's gameStart)
    gid = quin.page.url.rsplit("/", 1)[1]
    assert club.hub.games[gid].seats == ("quin", "pia") and pia.page.url.endswith(gid)
    pia.page.goto(c["url"])  # taken: the address is no longer a challenge
    expect(pia.page.locator("h1")).to_have_text("No such challenge")
    for p in (pia, quin):
        p.close()
