"""Playing the computer through the companion page in Chromium: the New-game dialog, the
person's moves made with the page's simulator controls, the computer's moves watched as
the page shows them, and what the page saw and fetched (for the no-leak checks).

The service runs as a real process (``tests.support.webtools.running_service``); the
true game is read from its journal (the file ``/health`` names), which holds every move
before the page may show it.  The page keeps a record of itself from the start
(``RECORDER``): every websocket message, every body the page fetched, and each change of
what the person sees — the move count, the status line, the board's message and the lit
spots.
"""

from __future__ import annotations

import contextlib
import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from controller.journal import read_game
from controller.layout import Layout, load_layout
from controller.rules import Game, Move, Position
from controller.web.simulator import move_actions
from controller.web.state import position_objects
from tests.support.webtools import chromium, running_services

#: installed before the page's own script: a copy of every websocket message and every
#: body the page fetched, and (once the page is drawn) each change of what it shows
RECORDER = """
window.__ws = []; window.__fetched = []; window.__seen = [];
const NativeSocket = window.WebSocket;
window.WebSocket = class extends NativeSocket {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (ev) => window.__ws.push(ev.data));
  }
};
const nativeFetch = window.fetch.bind(window);
window.fetch = async (...args) => {
  const response = await nativeFetch(...args);
  const url = String(args[0]);
  response.clone().text().then((body) => window.__fetched.push([url, body]));
  return response;
};
window.__look = () => {
  if (typeof ui === "undefined" || !ui.state || !ui.layout) return;
  const lit = [...document.querySelectorAll("#board polygon.ledfill")]
    .filter((p) => p.getAttribute("fill") !== "none")
    .map((p) => ui.layout.spots[Number(p.dataset.led)].name).sort().join(" ");
  const texts = (selector, get) => [...document.querySelectorAll(selector)].map(get).join("\\n");
  const entry = { game: ui.state.game.id, plies: ui.state.moves.length, mover: ui.state.mover,
                  phase: document.getElementById("phase").textContent,
                  message: document.getElementById("message").textContent, lit,
                  piles: texts("#board .pieces title", (t) => t.textContent),
                  held: texts("#held .chip", (c) => c.title),
                  fog: document.querySelectorAll("#board .fog polygon").length,
                  moves: texts("#moves li span:last-child", (m) => m.textContent) };
  const last = window.__seen[window.__seen.length - 1];
  if (!last || Object.keys(entry).some((k) => last[k] !== entry[k])) window.__seen.push(entry);
};
document.addEventListener("DOMContentLoaded", () => {
  const look = new MutationObserver(() => window.__look());
  look.observe(document.body, { subtree: true, childList: true, characterData: true,
                                attributes: true, attributeFilter: ["fill"] });
});
"""

#: the page's simulator controls, one gesture after another (``enqueue``/``sim`` of
#: app.js, as a pointer gesture runs them); after each the service has scanned the board
#: a few times, so the sensors saw every step (a capture is a lift, a put-aside, a lift
#: and a put-down, not one jump)
GESTURES = """
async (actions) => {
  for (const action of actions) {
    let after = null;
    await enqueue(async () => { after = await sim(action); });
    if (!after || !after.state) throw new Error(`sim ${JSON.stringify(action)} refused`);
    const scans = after.state.health.sensing.scans, deadline = Date.now() + 15000;
    for (;;) {
      const health = await (await fetch("/health")).json();
      if (health.sensing.scans >= scans + 4) break;
      if (Date.now() > deadline) {  // a board that stops scanning fails, not hangs
        const seen = health.sensing.scans;
        throw new Error(`sim ${JSON.stringify(action)}: ${seen} scans, not ${scans + 4}`);
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}
"""

THINKING = "is thinking"
EXECUTE = "Execute the move shown on the board"


def http_json(url: str) -> Any:
    """A GET from the test itself (not the page): /health."""
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read())


class ComputerPage:
    """One live page of one service, driven as the person at the board drives it."""

    def __init__(self, page: Any, url: str, layout: Layout, expect: Any) -> None:
        self.page = page
        self.url = url.rstrip("/")
        self.layout = layout
        self.expect = expect

    # -- what the page holds -------------------------------------------------------------
    def state(self) -> dict[str, Any]:
        return self.page.evaluate("() => ui.state")

    def turn(self) -> dict[str, Any]:
        """What decides the next step: the plies shown, the result, whether a die roll
        is asked for (a small part of the state: quick to fetch)."""
        return self.page.evaluate(
            "() => ({plies: ui.state.moves.length, result: ui.state.result,"
            " die: ui.state.die, message: ui.state.message})")

    def seen(self) -> list[dict[str, Any]]:
        """Each change of what the page showed in this game: the move count and list,
        the mover, the status line, the message, the lit spots, the piles drawn (their
        titles), the hand, the fogged cells (texts one per line)."""
        return self.page.evaluate("() => window.__seen.filter((e) => e.game === ui.state.game.id)")

    def shown_moves(self) -> list[str]:
        return self.page.locator("#moves li span:last-child").all_inner_texts()

    def wait(self, condition: str, arg: Any = None, timeout: float = 20_000) -> None:
        """Until ``condition`` (a JavaScript function of ``S`` = the page's state and
        ``arg``) holds on the page."""
        self.page.wait_for_function(
            f"arg => {{ const S = ui.state; return !!S && ({condition}); }}", arg=arg,
            timeout=timeout)

    def journal(self) -> Path:
        """The current game's journal file (asked for once per game)."""
        game_id = self.page.evaluate("() => ui.state.game.id")
        if getattr(self, "_journal", (None, None))[0] != game_id:
            self._journal = (game_id, Path(http_json(self.url + "/health")["journal"]))
        return self._journal[1]

    def game(self, plies: int | None = None) -> tuple[Game, Position, list[Move]]:
        """The game as the journal holds it, after ``plies`` plies (all by default)."""
        record = read_game(self.journal())
        game = record.game_rules()
        pos = game.parse_position(record.setup)
        moves = []
        for text in record.moves[:plies]:
            move = game.parse_move(pos, text)
            moves.append(move)
            pos.push(move)
        return game, pos, moves

    # -- the New-game dialog -------------------------------------------------------------
    def new_game(self, game: str, options: dict[str, Any], computer: list[str],
                 level: int = 1, clock: str = "", setup: str = "") -> None:
        """Start ``game`` from the dialog: its options, the computer's seats by player
        name, its level, a time control and a set-up; then set the pieces up (Arrange)."""
        page = self.page
        before = self.state()["game"]["id"]
        details = page.locator("#new-game")
        if not details.evaluate("d => d.open"):
            page.click("#new-game summary")
        page.select_option("#ng-game", game)
        page.dispatch_event("#ng-game", "change")
        for name, value in options.items():
            box = page.locator(f"#ng-options input[name={name}]")
            if isinstance(value, bool):
                box.set_checked(value)
            else:
                box.fill(str(value))
                box.dispatch_event("change")
        seats = page.locator("#ng-computer-players label")
        names = [t.strip() for t in seats.all_inner_texts()]
        for k, name in enumerate(names):
            seats.nth(k).locator("input").set_checked(name in computer)
        assert set(computer) <= set(names), (computer, names)
        page.fill("#ng-level", str(level))
        page.fill("#ng-clock", clock)
        page.fill("#ng-setup", setup)
        page.click("#new-game-form button[type=submit]")
        self.wait("S.game.id !== arg && S.game.name === '" + game + "'", before)
        state = self.state()
        assert state["computer"]["level"] == level
        assert state["computer"]["names"] == [n for n in state["game"]["players"]
                                              if n in computer]
        page.click("#new-game summary")  # closed again: the board in view
        page.click("#arrange")
        self.wait("S.phase !== 'setup'")

    # -- the person's hands --------------------------------------------------------------
    def gestures(self, actions: list[dict[str, Any]]) -> None:
        self.page.evaluate(GESTURES, actions)

    def play(self, game: Game, pos: Position, move: Move) -> None:
        """The person makes ``move`` on the simulated board from the page (the pieces
        moved, captured pieces put in the box…) and answers a choice the board asks."""
        n = len(pos.moves)
        text = game.move_text(pos, move)
        self.gestures(move_actions(game, pos, move, self.layout))
        self.wait("S.moves.length > arg || (S.choice.length > 0 && !S.die)", n)
        if self.turn()["plies"] == n:
            buttons = self.page.locator("#choice-options button")
            labels = [t.split(". ", 1)[1] for t in buttons.all_inner_texts()]
            assert text in labels, (text, labels)
            buttons.nth(labels.index(text)).click()
        self.wait("S.moves.length > arg", n)

    def enter_face(self, face: int) -> None:
        """The face of a real die, entered on the page (its choice below the die)."""
        n = self.turn()["plies"]
        self.page.locator("#choice-options button", has_text=f"die:{face}").click()
        self.wait("S.moves.length > arg", n)

    def wait_board_shows(self, game: Game, pos: Position, viewer: int | None = None) -> None:
        """Until the simulated board holds ``pos`` (the simulated hand has finished the
        computer's move) — as far as ``viewer`` may see it with hidden information."""
        expected = expected_objects(game, pos, self.layout, viewer)
        arg = {str(k): v for k, v in expected.items()}
        try:
            self.wait("Object.entries(arg).every(([spot, names]) => JSON.stringify("
                      "(S.pieces[spot] || []).map((o) => o.name)) === JSON.stringify(names))"
                      " && S.held.length === 0", arg)
        except Exception:
            state = self.state()
            names = [s.name for s in self.layout.spots]
            differ = {names[int(k)]: (v, [o["name"] for o in state["pieces"].get(k, [])])
                      for k, v in arg.items()
                      if v != [o["name"] for o in state["pieces"].get(k, [])]}
            raise AssertionError(f"the board never showed the position: {differ} "
                                 f"held {state['held']} — {state['message']} after "
                                 f"{read_game(self.journal()).moves}") from None


def expected_objects(game: Game, pos: Position, layout: Layout,
                     viewer: int | None = None) -> dict[int, list[str]]:
    """Spot -> objects the board holds in ``pos``; with hidden information only the
    spots ``viewer`` sees (pads are public) — every spot, the empty ones included."""
    objects = position_objects(game, pos, layout)
    spots = range(len(layout.spots))
    if viewer is not None and game.hidden_information:
        visible = game.player_view(pos, viewer).visible
        spots = [s for s in spots if s >= layout.cell_count or s in visible]
    return {s: objects.get(s, []) for s in spots}


@contextlib.contextmanager
def computer_pages(sync_api: Any, folder: Path, layouts: list[str],
                   config: str = "") -> Iterator[dict[str, ComputerPage]]:
    """One Chromium for all; per layout a running service (``config``: more TOML of its
    ``[board]`` section; the services start side by side) and a live recorded page of
    it.  Fails on any page error."""
    for name in layouts:
        (folder / name).mkdir()
    # the services start side by side while Chromium is launched
    with running_services(*((folder / name, f"[board]\nlayout = '{name}'\n"
                                            f"game = '{load_layout(name).games[0]}'\n{config}")
                            for name in layouts)) as started, \
            chromium(sync_api) as browser:
        urls = started()
        errors: list[str] = []
        pages = {}
        for name, url in zip(layouts, urls, strict=True):
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.add_init_script(RECORDER)
            page.goto(url)
            sync_api.expect(page.locator("#connection")).to_have_text("live", timeout=10_000)
            # "live" is the socket open; the first state may still be on its way
            page.wait_for_function("() => !!ui.state && !!ui.state.game", timeout=10_000)
            pages[name] = ComputerPage(page, url, load_layout(name), sync_api.expect)
        yield pages
        assert errors == [], errors
