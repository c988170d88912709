"""Hints, the coach and the evaluation at the board: the engine's advice from its own
worker process, lit on the board and shown on the page, and never from hidden pieces."""

from __future__ import annotations

import time

from controller.board import HINT
from controller.coach import advise_from_view
from controller.rules import get_game
from controller.service import BoardService
from controller.web.page import page_state
from tests.support.service import make_config, play, set_up

HANGING = "4k3/8/8/4p3/n7/8/8/3QK3 w - - 0 1"  # Qd4?? loses the Queen; Qxa4 wins a Knight


def chess(tmp_path, setup: str = HANGING, **board) -> BoardService:
    svc = BoardService(make_config(tmp_path, layout="square8", **board))
    svc.new_game("chess", setup=setup)
    set_up(svc)
    return svc


def wait_for(svc: BoardService, condition, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, svc.advice_json()
        svc.step(0.02)
        time.sleep(0.01)


def test_a_hint_is_lit_on_the_board_until_a_piece_is_lifted(tmp_path):
    svc = chess(tmp_path)
    try:
        svc.command("hint")
        wait_for(svc, lambda: svc.advice_json()["hint"] is not None)
        it = svc.interaction
        hint = svc.game.parse_move(svc.position, svc.advice_json()["hint"])
        assert it.hint_from == {hint.origin} and it.hint_to == {hint.target}
        assert svc.advice_json()["hint"] == "d1a4"  # the free Knight
        svc.sim_action({"action": "lift", "spot": "e1"})
        svc.step(0.1)
        assert svc.interaction.hint_from == frozenset()
    finally:
        svc.close()


def test_the_coach_names_a_move_that_loses_the_queen_and_the_better_one(tmp_path):
    svc = chess(tmp_path, coach=True)
    try:
        play(svc, "Qd4")
        wait_for(svc, lambda: svc.advice_json()["note"] is not None)
        note = svc.advice_json()["note"]
        assert note["played"] == "d1d4" and note["better"] == "d1a4"
        assert note["loss"] >= 500
    finally:
        svc.close()


def test_the_coach_is_quiet_after_a_good_move(tmp_path):
    svc = chess(tmp_path, coach=True)
    try:
        play(svc, "Qxa4+")
        wait_for(svc, lambda: not svc.coach.busy and svc.advice_json()["busy"] is None)
        assert svc.advice_json()["note"] is None
    finally:
        svc.close()


def test_the_evaluation_on_request(tmp_path):
    svc = chess(tmp_path)
    try:
        svc.command("evaluate")
        wait_for(svc, lambda: svc.advice_json()["evaluation"] is not None)
        evaluation = svc.advice_json()["evaluation"]
        assert evaluation["score"] > 200 and evaluation["best"] == "d1a4"
        svc.command("coach on")
        assert svc.advice_json()["coach"] and page_state(svc)["advice"]["coach"]
    finally:
        svc.close()


def test_the_boards_menu_offers_a_hint_when_configured(tmp_path):
    svc = chess(tmp_path, menu_hint=True)
    try:
        svc.board._open_menu()
        labels = svc.choice_labels()
        assert labels[-1] == HINT
        svc.answer_choice(labels.index(HINT))
        wait_for(svc, lambda: svc.interaction.hint_to != frozenset())
    finally:
        svc.close()


def test_a_fog_of_war_hint_comes_from_the_view_alone():
    """Two positions that look the same to White (a Black piece moved where he cannot
    see) give the same hint."""
    game = get_game("laotzu", white_array=518, black_array=518)
    a = game.parse_position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR[] w - - 0 1")
    b = game.parse_position("rnbqkb1r/pppppppp/7n/8/8/8/PPPPPPPP/RNBQKBNR[] w - - 0 1")
    va, vb = game.player_view(a, 0), game.player_view(b, 0)
    assert va.visible == vb.visible and sorted(va.enemies) == sorted(vb.enemies)
    public = {"white_array": 518, "black_array": 518}
    assert advise_from_view("laotzu", public, va, 0.2) == advise_from_view(
        "laotzu", public, vb, 0.2)


def test_the_coach_names_each_poor_move_even_when_the_reply_comes_first(tmp_path, monkeypatch):
    """Issue 30: a review replaced by the next move's was a poor move never named (1 of
    15 deliberately bad moves drew a remark): reviews queue up, each about its move."""
    svc = chess(tmp_path, coach=True)
    real_answer = svc.coach.answer
    monkeypatch.setattr(svc.coach, "answer",  # hold the answers until Black has replied
                        lambda key: real_answer(key) if len(svc.plies) >= 2 else None)
    try:
        play(svc, "Qd4")
        play(svc, "exd4")  # at once, as a second person at the board would
        wait_for(svc, lambda: not svc.coach.busy and svc.advice_json()["note"] is not None)
        wait_for(svc, lambda: not svc.coach.busy)
        svc.step(0.1)
        note = svc.advice_json()["note"]
        assert note["ply"] == 1 and note["played"] == "d1d4"
        # in the game's notation, as the move list writes it, and in pawns
        assert note["text"].startswith("Qd4 loses about ")
        assert note["text"].endswith(" pawns — Qxa4+ was better")
    finally:
        svc.close()


BACK_RANK = "1r4k1/5ppp/8/8/8/8/P4PPP/6K1 w - - 0 1"  # a3?? allows Rb1#; h3 gives air
MATE_IN_ONE = "6k1/5ppp/8/8/8/8/5PPP/R5K1 w - - 0 1"  # Ra8# is there; h3 misses it


def test_a_move_that_allows_mate_is_said_in_words_not_pawns():
    """Issue 30: the coach said "loses about 9992.2 pawns" for a move that allows mate."""
    from controller.coach import Advice, advise, evaluation_words, review_words

    allows = advise("chess", {}, BACK_RANK, [], played="a2a3", seconds=0.3)
    assert allows.loss >= 150
    assert review_words(allows).startswith("a3 allows mate in 1 — ")
    misses = advise("chess", {}, MATE_IN_ONE, [], played="h2h3", seconds=0.3)
    assert misses.loss >= 150
    assert review_words(misses) == "h3 misses mate in 1 — Ra8# was better"
    assert evaluation_words(misses) == "mate in 1"
    assert "pawns" not in review_words(allows) + review_words(misses)
    assert evaluation_words(Advice("", -999_998, mate=-2)) == "mated in 1"
    assert evaluation_words(Advice("", 130)) == "+1.3"
