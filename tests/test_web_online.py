"""A whole online game from the page in real Chromium (issue 35): the token pasted into
the Online section (shown masked, never sent back), a seek from its form, the pieces set
up with the simulator, every move made with the page's simulator controls — the
opponent's, played on the loopback Board API server, lit and made as the board shows
them, the promotion chosen on the page — the engine's controls disabled with the reason
while the game is on, the accounts' names and ratings on the clocks, the opponent's chat
line shown as text and the owner's sent from the section, and the game resigned from the
section's commands."""

from __future__ import annotations

import time

from controller.layout import load_layout
from controller.rules import get_game
from tests.support.computerpage import RECORDER, ComputerPage
from tests.support.lichess import FakeLichess
from tests.support.webtools import chromium, live_page, playwright_or_skip, running_services

TOKEN = "lip_abcdefghijklmnop1234"
GAME = ("e2e4 d7d5 e4e5 f7f5 e5f6 b8c6 f6g7 c8f5 g7h8q d8d7 g1f3 e8c8 f1e2 e7e5 "
        "e1g1").split()


class _Page(ComputerPage):
    def wait(self, condition, arg=None, timeout=20_000):
        try:
            super().wait(condition, arg, timeout)
        except Exception:
            state = self.state() or {}
            raise AssertionError(f"{condition}: {state.get('phase')} {state.get('message')} "
                                 f"{state.get('online')} {self.log.read_text()[-2000:]}"
                                 ) from None


def _arrived(server: FakeLichess, gid: str, plies: int) -> None:
    """Wait (up to 10 s) until the server's game has ``plies`` moves."""
    deadline = time.monotonic() + 10
    while len(server.games[gid].moves) < plies and time.monotonic() < deadline:
        time.sleep(0.05)


def test_a_whole_online_game_from_the_page(tmp_path):
    sync_api = playwright_or_skip()
    server = FakeLichess({TOKEN: "owner"}).start()
    server.ratings = {"owner": 1620, "sparring": 1845}
    config = (f"[board]\ngame = 'chess'\nlayout = 'square8'\n[online]\nserver = "
              f"'{server.url}'\ntoken_file = '{tmp_path / 'token'}'\n")
    try:
        with running_services((tmp_path, config)) as started, chromium(sync_api) as browser, \
                live_page(sync_api, browser, started()[0]) as page:
            url = started()[0]
            page.add_init_script(RECORDER)
            at = _Page(page, url, load_layout("square8"), sync_api.expect)
            at.log = tmp_path / "service.log"
            page.wait_for_function("() => !!ui.state && !!ui.state.online", timeout=10_000)
            page.click("#online summary")
            page.fill("#online-token-input", TOKEN)
            page.click("#online-token-form button[type=submit]")
            at.wait("S.online && S.online.account === 'owner'")
            assert page.input_value("#online-token-input") == ""
            state = at.state()
            assert state["online"]["token"] == "••••••••1234"
            assert TOKEN not in page.content() and TOKEN not in str(state)
            page.fill("#online-minutes", "10")
            page.fill("#online-increment", "5")
            page.select_option("#online-colour", "white")
            page.click("#online-seek-form button[type=submit]")
            at.wait("S.online.game && S.online.playing && S.phase === 'setup'")
            gid = at.state()["online"]["game"]["id"]
            assert page.get_attribute("#online-url", "href") == f"{server.url}/{gid}"
            page.click("#arrange")
            at.wait("S.phase === 'turn'")
            hint = page.locator("#advice-box button[data-command=hint]")
            assert hint.is_disabled() and "fair play" in hint.get_attribute("title")
            assert page.locator("#coach-on").is_disabled()
            clocks = page.locator("#clocks .clock span")
            sync_api.expect(clocks.nth(0)).to_have_text("owner (1620)")
            sync_api.expect(clocks.nth(1)).to_have_text("sparring (1845)")
            server.say(gid, "<img src=x onerror=alert(1)>gl")
            line = page.locator("#online-chat li")
            sync_api.expect(line).to_have_text("sparring: <img src=x onerror=alert(1)>gl")
            assert page.locator("#online-chat img").count() == 0  # text, never markup
            _chat(sync_api.expect, page, server, gid, line)
            assert page.input_value("#online-chat-input") == ""
            assert server.games[gid].chat[-1]["text"] == "thanks"
            log = at.log.read_text()
            assert "onerror" not in log and "thanks" not in log and TOKEN not in log
            game = get_game("chess")
            pos = game.start()
            for i, uci in enumerate(GAME):
                move = game.parse_move(pos, uci)
                if i % 2 == 1:  # the opponent's, on the server: lit, then made here
                    _arrived(server, gid, i)  # (the owner's move is on the server first)
                    server.play(gid, uci)
                    at.wait("S.phase === 'execute'")
                    sync_api.expect(page.locator("#online-executing")).to_contain_text(
                        "Making the opponent's move")
                at.play(game, pos, move)
                pos.push(move)
            _arrived(server, gid, len(GAME))  # the last move on its way to the server
            assert server.games[gid].moves == GAME
            page.locator("#online-commands button[data-online=resign]").click()
            at.wait("!!S.result")
            assert at.state()["result"]["text"] == "0-1"
            assert server.games[gid].status == "resign"
            at.wait("!S.online.playing")
            assert not page.locator("#advice-box button[data-command=hint]").is_disabled()
    finally:
        server.stop()


#: the page's answer to its chat request held until the state stream has shown the line
#: (as a loaded machine delays it): the older answer must not draw over the newer state
HOLD_CHAT_ANSWER = """() => {
  const fetch0 = window.fetch;
  window.chatAnswered = false;
  window.fetch = async (url, init) => {
    const answer = await fetch0(url, init);
    if (!String(url).endsWith("/api/online/chat")) return answer;
    for (let i = 0; i < 200 && document.querySelectorAll("#online-chat li").length < 2; i++)
      await new Promise((r) => setTimeout(r, 100));
    setTimeout(() => { window.chatAnswered = true; }, 0);
    return answer;
  };
}"""


def _chat(expect, page, server, gid: str, line) -> None:
    """The owner's line typed and sent, shown as his once the server took it — and still
    shown after the page's request is answered. In 2 of 4 full suite runs it vanished:
    the answer, made before the server took the line, arrived after the state stream
    had shown it and drew the older state over it (found 2026-12-02 under load; this
    holds the answer back to make it happen every time)."""
    page.evaluate(HOLD_CHAT_ANSWER)
    page.fill("#online-chat-input", "thanks")
    page.click("#online-chat-form button[type=submit]")
    expect(line.nth(1)).to_have_text("owner: thanks", timeout=15_000)
    page.wait_for_function("window.chatAnswered", timeout=15_000)
    page.wait_for_timeout(200)  # (the answer's drawing, if any, is done)
    assert any(c["text"] == "thanks" for c in server.games[gid].chat)
    expect(line.nth(1)).to_have_text("owner: thanks", timeout=1)
