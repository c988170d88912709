"""Lao Tzu Chess through the whole board service: no player-facing output contains
anything outside that player's view.

Random games are played on the simulated board (behind the emulated electronics and the
sensing pipeline) by the simulated human of ``test_board_laotzu``, who also tries moves
that only a hidden piece makes illegal.  After every single step of the human every
output path is checked against ``view(pos, viewer)``: the board's Interaction (fields,
choice labels, messages), the LED frame the service drives, the choice labels the page
lists, and the page's state JSON for each viewer (pieces, fog, LEDs, moves, check,
result, message, choice, set-up).  Then the page in real Chromium: a capture onto the hand
pad, a drop from it, each player's view, a screenshot.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from controller.rules import get_game
from controller.rules.core import Move
from controller.rules.laotzu import view, view_move_text
from controller.web.page import page_state
from tests.support.laotzu import (
    CELL_NAME,
    CELLS,
    GAME,
    LAYOUT,
    SQ,
    LaoHuman,
    ServiceRig,
    allowed_spots,
    make_service,
    obj,
)
from tests.support.webtools import browser_page, playwright_or_skip, running_service

NAMES = LAYOUT.geometry.cells


def check_outputs(svc) -> None:
    """Every output of the service, for both viewers, against their views."""
    pos = svc.position
    game = svc.game
    it = svc.interaction
    mover = game.ply_mover(pos)
    served = view(pos, mover)
    # the LED frame the service sends to the chain
    frame = svc.led_frame
    allowed = allowed_spots(served)
    spot_at = LAYOUT.led_spots()
    for k, role in enumerate(frame.roles):
        s = spot_at[k]
        if s < CELLS and s not in allowed and it.phase != "setup":
            assert role == "" or (role == "extra" and s in it.extra), (NAMES[s], role)
            assert role or frame.base[k] == frame.alt[k] == (0, 0, 0)
    # the choice labels the page lists (every page of options)
    choice = svc.board._choice
    if choice is not None and choice.kind != "menu":
        for label, value in zip(choice.labels, choice.values, strict=True):
            if isinstance(value, Move) and value not in choice.amends:
                assert label == view_move_text(served, value)
    # what each player's page is sent
    own_texts = _own_texts(svc)
    for viewer in (0, 1):
        v = view(pos, viewer)
        hidden = set(range(CELLS)) - set(v.visible)
        state = page_state(svc, viewer)
        assert state["viewer"] == viewer and state["viewers"] == ["White", "Black"]
        assert set(state["fog"]) == hidden
        assert not {int(k) for k in state["pieces"]} & hidden
        enemy = "black" if viewer == 0 else "white"
        seen = {c for c, _ in v.enemies}
        stray = it.missing | it.extra if viewer == mover else set()
        for k, objs in state["pieces"].items():  # (a piece knocked over lies where it fell)
            if int(k) < CELLS and int(k) not in stray and any(
                    o["colour"] == enemy and not o["lying"] for o in objs):
                assert int(k) in seen, (NAMES[int(k)], objs)
        lit = {i for i, (_, op) in enumerate(state["leds"]) if op > 0}
        assert not lit & hidden
        if viewer != mover:  # the board serves the side to move: nothing of it here
            assert not lit and state["message"] == "" and state["choice"] == []
        assert state["check"] == v.in_check
        assert (state["result"] is None) == (v.result is None)
        for m, (player, text) in zip(state["moves"], own_texts, strict=True):
            assert m["player"] == player
            assert m["text"] == (text if player == viewer else None)
        assert state["game"]["setup"] is None
        assert not {"white_array", "black_array", "seed"} & set(state["game"]["options"])
        # the voice's words reach a page only when made for its player (from his view then)
        assert all(a["ears"] in (None, viewer) for a in state["announcements"])
        # no hidden cell is named anywhere else (messages, labels…); his own earlier moves,
        # and the words said of them, may name a cell he no longer sees
        body = json.dumps({k: x for k, x in state.items()
                           if k not in ("health", "moves", "announcements")})
        named = {SQ(name) for name in CELL_NAME.findall(body)}
        assert not named & hidden, ([NAMES[c] for c in named & hidden], state["message"])
    check_outputs.calls += 1


check_outputs.calls = 0


def _own_texts(svc) -> list[tuple[int, str]]:
    """Each ply as its own player may read it: SAN from his view, "+"/"#" once made."""
    game = svc.game
    pos = game.parse_position(svc.setup)
    out = []
    for move in svc.position.moves:
        out.append((pos.turn, game.player_move_text(pos, move)))
        pos.push(move)
    return out


#: full hands (drops from piles: the board asks the kind) and a Pawn about to promote
BUSY = "r3k2r/1P3ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R[NNBBPPnnbbpp] w HAha - 0 10"


def _pick(rng: random.Random, pos) -> tuple[Move, bool]:
    """A move to try: sometimes one only a hidden piece forbids (no castling: its cells
    may hold a piece the player can see on the physical board), mostly a legal one with
    a taste for drops, captures, promotions and castling."""
    game = pos.game
    legal = game.legal_moves(pos)
    illegal = [m for m in game.board_moves(pos) if m not in set(legal) and m.kind != "castle"]
    if illegal and rng.random() < 0.5:
        return rng.choice(illegal), False
    special = [m for m in legal if m.kind in ("drop", "castle") or m.promotion
               or m.captures]
    return (rng.choice(special) if special and rng.random() < 0.6 else rng.choice(legal)), True


def knock_off_a_hidden_piece(rig: ServiceRig, rng: random.Random) -> None:
    """A piece the side to move cannot see falls off the board and stays there past the
    guidance delay: the guidance may name the cell, never the piece; then it is put back."""
    sim, pos = rig.sim, rig.position
    v = view(pos, pos.turn)
    hidden = [c for c in range(CELLS) if c not in v.visible and pos.board[c] is not None]
    if not hidden:
        return
    c = rng.choice(hidden)
    sim.knock_over(c)
    rig.wait(3.5)
    assert rig.interaction.guide == c and rig.interaction.message == f"put a piece on {NAMES[c]}"
    fallen = sim.aside.pop()
    sim.take(fallen.name)
    rig.place(c)
    rig.wait(0.1)
    assert rig.state == "turn"


def test_no_player_facing_output_leaves_the_players_view(tmp_path):
    check_outputs.calls = 0
    illegal_tries = 0
    for seed, setup, clumsy in ((11, None, False), (5, BUSY, True)):
        svc = make_service(tmp_path / str(seed), seed=seed)
        try:
            if setup:
                svc.new_game("laotzu", {}, setup)
            rig = ServiceRig(svc, check=check_outputs)
            # the clumsy one knocks pieces over and pushes them off centre: guidance
            # (after 3 s) may name a cell the player emptied, never what stood there
            human = LaoHuman(rig, random.Random(seed), mishaps=clumsy)
            rng = random.Random(seed)
            for ply in range(36):
                if svc.outcome is not None:
                    break
                if ply % 12 == 5:
                    knock_off_a_hidden_piece(rig, rng)
                move, legal = _pick(rng, svc.position)
                if legal:
                    human.play(move)
                    continue
                illegal_tries += 1
                before = len(rig.moves)
                for step in human.steps(svc.position, move):
                    step()
                    human.pause()
                rig.wait(0.3)
                if rig.state == "choice":
                    rig.answer(move)
                assert rig.interaction.message == "illegal move", rig.interaction
                assert len(rig.moves) == before
                svc.sim_action({"action": "arrange"})  # everything back where it was
                rig.wait(0.2)
                assert rig.state == "turn", rig.interaction
        finally:
            svc.close()
    assert illegal_tries >= 3 and check_outputs.calls > 300, (illegal_tries,
                                                               check_outputs.calls)


def test_hands_are_public_and_moves_hidden_on_both_pages(tmp_path):
    svc = make_service(tmp_path, white_array=518, black_array=518)  # (else drawn at random)
    try:
        rig = ServiceRig(svc, check=check_outputs)
        human = LaoHuman(rig, random.Random(1))
        for text in ("e4", "d5", "exd5", "Qxd5", "P@d3"):
            human.play(GAME.parse_move(svc.position, text))
        white, black = page_state(svc, 0), page_state(svc, 1)
        pad = LAYOUT.spot_index("black-hand-P")
        for state in (white, black):  # hands lie on pads both players see
            assert [o["name"] for o in state["pieces"][pad]] == [obj(1, "P")]
            assert LAYOUT.spot_index("white-hand-P") not in state["pieces"]
        assert [m["text"] for m in white["moves"]] == ["e4", None, "exd5", None, "P@d3"]
        assert [m["text"] for m in black["moves"]] == [None, "d5", None, "Qxd5", None]
        assert black["leds"] and white["message"] == ""
    finally:
        svc.close()


def test_chess960_arrays_stay_hidden(tmp_path):
    svc = make_service(tmp_path, white_array=0, black_array=959)
    try:
        ServiceRig(svc, check=check_outputs)
        assert get_game("laotzu", white_array=0, black_array=959).arrays == (
            "BBQNNRKR", "RKRNNQBB")
        for viewer in (0, 1):
            # the machine's counters and clocks (uptime 0.959 s, scan 1959) are no game
            # information: left out, so that a number of theirs cannot fail the test
            state = {k: v for k, v in page_state(svc, viewer).items()
                     if k not in ("health", "seq", "led_seq")}
            body = json.dumps(state)
            assert "959" not in body and "BBQNNRKR" not in body.upper().replace(" ", "")
    finally:
        svc.close()


def test_move_list_uses_the_players_notation_and_the_journal_the_referees(tmp_path):
    # Black's Knight d6 is pinned by the Bishop b4 he cannot see: the referee writes Nc4,
    # Black's own move list says Nac4 (the other Knight could go there as far as he knows)
    setup = "1b1rbk1r/p1pp2pP/1p1nn3/n2Ppp1P/BB2P3/P4q2/RP1p1P2/K1Q3N1[RP] b - - 0 26"
    svc = make_service(tmp_path)
    try:
        svc.new_game("laotzu", {}, setup)
        rig = ServiceRig(svc, check=check_outputs)
        LaoHuman(rig, random.Random(2)).play(GAME.parse_move(svc.position, "Nc4"))
        from controller.journal import Journal

        assert Journal(tmp_path / "journal").find(svc.game_id).moves == ["Nc4"]
        assert [m["text"] for m in page_state(svc, 1)["moves"]] == ["Nac4"]
        assert [m["text"] for m in page_state(svc, 0)["moves"]] == [None]
    finally:
        svc.close()


# -- the page in real Chromium -------------------------------------------------------------



def test_laotzu_in_chromium_capture_to_the_hand_pad_and_drop(tmp_path):
    sync_api = playwright_or_skip()
    expect = sync_api.expect
    with running_service(tmp_path, "[board]\ngame = 'laotzu'\n"  # the orthodox arrays
                         "options = { white_array = 518, black_array = 518 }\n") as url, \
            browser_page(sync_api, url, height=860) as page:

        def centre(spot: str) -> tuple[float, float]:
            box = page.locator(f"[data-name='{spot}']").bounding_box()
            return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

        def click(spot: str) -> None:
            page.mouse.click(*centre(spot))

        def drag(a: str, b: str) -> None:
            page.mouse.move(*centre(a))
            page.mouse.down()
            page.mouse.move(*centre(b), steps=8)
            page.mouse.up()

        def held(n: int) -> None:
            expect(page.locator("#held .chip")).to_have_count(n, timeout=5000)

        def wait_moves(texts: list[str]) -> None:
            page.wait_for_function(
                "n => document.querySelectorAll('#moves li').length >= n",
                arg=len(texts), timeout=5000)
            shown = page.locator("#moves li span:last-child").all_inner_texts()
            assert shown == texts, shown

        def capture(victim: str, mover: str, target: str, pad_object: str) -> None:
            click(victim)  # the captured piece into the hand …
            held(1)
            page.click("#to-box")  # … and into the box
            held(0)
            drag(mover, target)
            page.click(f"#supply [title^='take {pad_object} ']")  # one of his colour
            held(1)
            click(pad_object.replace("-", "-hand-"))  # onto his hand pad

        def led(spot: str) -> str:
            i = page.locator(f"[data-name='{spot}']").get_attribute("data-spot")
            return page.locator(f"[data-led='{i}']").get_attribute("fill")

        page.click("#arrange")
        expect(page.locator("#phase")).to_have_text("Waiting for a move", timeout=5000)
        fog_at_start = page.locator(".fog polygon").count()
        assert fog_at_start == 32  # White sees ranks 1-4 only
        drag("e2", "e4")
        wait_moves(["(hidden)"])  # hot seat: the page turned to Black's view
        drag("d7", "d5")
        wait_moves(["e4", "(hidden)"])
        capture("d5", "e4", "d5", "white-P")
        wait_moves(["(hidden)", "d5", "(hidden)"])
        capture("d5", "d8", "d5", "black-P")
        wait_moves(["e4", "(hidden)", "exd5", "(hidden)"])
        # White drops the Pawn from his hand pad: lifted, its drop cells light up
        click("white-hand-P")
        held(1)
        page.wait_for_function(
            "i => document.querySelector(`[data-led='${i}']`).getAttribute('fill') "
            "!== 'none'", arg=page.locator("[data-name='d3']").get_attribute("data-spot"),
            timeout=5000)
        assert led("d3") != "none" and led("d6") == "none"
        page.screenshot(path=str(tmp_path / "laotzu-drop-lifted.png"))
        click("d3")
        wait_moves(["(hidden)", "d5", "(hidden)", "Qxd5", "(hidden)"])
        page.screenshot(path=str(tmp_path / "laotzu-black-view.png"))
        page.check("input[name=viewer][value='0']")
        page.wait_for_timeout(300)
        wait_moves(["e4", "(hidden)", "exd5", "(hidden)", "P@d3"])
        assert page.locator("[data-name='black-hand-P']").count() == 1
        page.screenshot(path=str(tmp_path / "laotzu-white-view.png"))
        health = json.loads(page.evaluate("fetch('/health').then(r => r.text())"))
        from controller.journal import read_game

        assert read_game(Path(health["journal"])).moves == [
            "e4", "d5", "exd5", "Qxd5", "P@d3"]

