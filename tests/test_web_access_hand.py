"""The keyboard's simulated hand lets go as soon as its move is made: the next move may be
typed the moment the first is announced (a blind player types on at once), and a new game
ends the hand's work on the old one."""

from __future__ import annotations

from tests.support.service import page_service
from tests.support.webtools import page_client


def _service(tmp_path):
    svc = page_service(tmp_path, "chess", layout="square8")
    client = page_client(svc)
    assert client.post("/api/sim", json={"action": "arrange"}).json()["ok"]
    svc.step(0.2)
    assert svc.interaction.phase == "turn", svc.interaction
    return svc, client


def _until(svc, done, seconds=5.0):
    for _ in range(round(seconds / 0.01)):
        if done():
            return
        svc.step(0.01)
    raise AssertionError(svc.interaction)


def test_the_next_move_may_be_typed_the_moment_the_last_is_made(tmp_path):
    svc, client = _service(tmp_path)
    try:
        for ply, text in enumerate(["e4", "e5", "Nf3"], start=1):
            r = client.post("/api/access/move", json={"text": text})
            assert r.status_code == 200 and r.json()["ok"], r.json()
            _until(svc, lambda p=ply: len(svc.plies) == p and svc.interaction.phase == "turn")
        assert [t for _, t in svc.plies] == ["e4", "e5", "Nf3"]
    finally:
        svc.close()


def test_a_new_game_ends_the_hands_work_on_the_old_one(tmp_path):
    svc, client = _service(tmp_path)
    try:
        for ply, text in enumerate(["e4", "d5", "exd5"], start=1):
            assert client.post("/api/access/move", json={"text": text}).json()["ok"]
            _until(svc, lambda p=ply: len(svc.plies) == p and svc.interaction.phase == "turn")
            svc.step(0.2)  # (the hand at rest)
        # the Queen takes on d5 from her own starting cell: the Pawn taken off first
        assert client.post("/api/access/move", json={"text": "Qxd5"}).json()["ok"]
        svc.step(0.1)  # the Pawn lifted and set aside, the Queen not yet lifted
        svc.new_game("chess")
        assert client.post("/api/sim", json={"action": "arrange"}).json()["ok"]
        svc.step(2.0)  # the old hand's beats pass: it must not lift the new game's Queen
        assert svc.interaction.phase == "turn", svc.interaction
        assert svc.plies == []
        r = client.post("/api/access/move", json={"text": "d4"})
        assert r.status_code == 200 and r.json()["ok"], r.json()
        _until(svc, lambda: len(svc.plies) == 1)
        assert [t for _, t in svc.plies] == ["d4"]
    finally:
        svc.close()
