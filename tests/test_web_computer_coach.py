"""The coach against the computer: a poor move is still named after the computer has
already answered it.  The computer at level 1 replies in a fraction of a second, the
coach's review takes about half a second: the review used to be dropped as "about
another position", so the coach hardly ever spoke in a game against the computer
(found writing tests/test_web_computer_advice.py, where the race is not forced: here the
review is held back until the computer has moved)."""

from __future__ import annotations

from controller.opponent import Computer
from controller.service import BoardService
from tests.support.service import make_config, play, set_up, wait_for

HANGING = "4k3/8/8/4p3/n7/8/8/3QK3 w - - 0 1"  # Qd4?? loses the Queen; Qxa4 wins a Knight


def test_the_coach_names_a_poor_move_after_the_computer_replied(tmp_path, monkeypatch):
    svc = BoardService(make_config(tmp_path, layout="square8", coach=True))
    monkeypatch.setattr(svc, "_computer_movetime", lambda now: 0.05)
    real_answer = svc.coach.answer

    def late_answer(key):  # the review arrives once the computer has moved
        return real_answer(key) if len(svc.plies) >= 2 else None

    monkeypatch.setattr(svc.coach, "answer", late_answer)
    try:
        svc.new_game("chess", setup=HANGING, computer=Computer(frozenset({1}), 1))
        set_up(svc)
        play(svc, "Qd4")
        wait_for(svc, lambda: len(svc.plies) == 2 and not svc.busy)
        wait_for(svc, lambda: svc.advice_json()["note"] is not None, seconds=10)
        note = svc.advice_json()["note"]
        assert note["played"] == "d1d4" and note["better"] == "d1a4" and note["ply"] == 1
        assert note["loss"] >= 500
    finally:
        svc.close()
