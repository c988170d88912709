"""The simulated hand making the computer's move, as the page is told of it: every action
of the hand reaches the page's state (what is held, what stands where), also the actions
that leave the board's interaction as it was (lifting the piece to move, setting aside
a piece after the move was seen).  Found by tests/test_web_computer.py: a KaleidoChess
player giving up his last castle left a Wizard "in the hand" on the page for good."""

from __future__ import annotations

from controller.opponent import Computer
from controller.service import HAND_PAGE_WAIT_S, HAND_STEP_S
from controller.web.page import page_state
from controller.web.state import object_json
from tests.support.service import make_service, wait_for


def test_every_action_of_the_simulated_hand_reaches_the_page(tmp_path, monkeypatch):
    svc = make_service(tmp_path, game="luotuoqi")
    monkeypatch.setattr(svc, "_computer_movetime", lambda now: 0.05)
    try:
        svc.new_game("luotuoqi", {}, None, Computer(frozenset({0}), 1))
        svc.sim_action({"action": "arrange"})
        svc.step(0.1)
        # the computer's move shown with the execute flow: the hand makes it
        wait_for(svc, lambda: svc.interaction.phase == "execute")
        checked = 0
        while svc.busy or not svc.plies:
            svc.step(0.02)
            state = page_state(svc)
            assert state["held"] == [object_json(n) for n in svc.sim.held], checked
            assert state["pieces"] == {
                i: [object_json(t.name, t.lying) for t in pile]
                for i, pile in enumerate(svc.sim.piles) if pile}
            checked += 1
        assert checked >= 2 and len(svc.plies) == 1
    finally:
        svc.close()


def test_the_hand_waits_for_a_lagging_page_to_show_the_move(tmp_path, monkeypatch):
    """Found by tests/test_web_computer.py on a loaded machine: the hand made the move in
    0.24 s, before the page was sent it lit, so the page never showed the move."""
    svc = make_service(tmp_path, game="chess")
    monkeypatch.setattr(svc, "_computer_movetime", lambda now: 0.05)
    page = object()
    try:
        svc.new_game("chess", {}, None, Computer(frozenset({0}), 1))
        svc.sim_action({"action": "arrange"})
        svc.pages_sent[page] = svc.version  # a page, then no push reaches it
        wait_for(svc, lambda: svc.interaction.phase == "execute")
        for _ in range(10):  # ten hand steps' time: nothing is lifted
            svc.step(HAND_STEP_S)
            assert svc.interaction.phase == "execute" and not svc.sim.held
        svc.pages_sent[page] = svc.version  # the page is sent the lit move
        wait_for(svc, lambda: svc.plies)
        # a page that never catches up holds the hand up for HAND_PAGE_WAIT_S at most
        svc.new_game("chess", {}, None, Computer(frozenset({0}), 1))
        svc.sim_action({"action": "arrange"})
        svc.pages_sent[page] = -1
        wait_for(svc, lambda: svc.interaction.phase == "execute")
        svc.step(HAND_PAGE_WAIT_S + HAND_STEP_S)
        wait_for(svc, lambda: svc.plies)
    finally:
        svc.close()
