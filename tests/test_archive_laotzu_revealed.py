"""A finished Lao Tzu game is shown fully revealed in the archive (docs/rules/laotzu.md,
"After the game"): every position of the replay holds both players' pieces — the hidden
arrays and every piece neither player saw — and every move is written out, the
computer's too, as a fog-of-war server shows a game once it is over.  A game not yet
ended is never sent (``tests/test_web_archive.py``)."""

from __future__ import annotations

import pytest

from controller.journal import Journal
from controller.rules import get_game
from controller.sensing.sim.objects import position_objects
from controller.sight import Sight
from tests.test_web_archive import _random_moves, _write

pytestmark = pytest.mark.service(game="laotzu", layout="square8")
ARRAYS = {"white_array": 100, "black_array": 700}


def test_a_finished_lao_tzu_game_is_replayed_with_every_piece_and_move(svc, client):
    moves = _random_moves("laotzu", 12, 6, **ARRAYS)
    game_id = _write(svc.journal, "laotzu", moves, options=ARRAYS, end=("1-0", "resignation"),
                     seats={"computer": [1], "level": 2})
    (record,) = [r for r in Journal(svc.journal.folder).games() if r.id == game_id]
    entry = next(g for g in client.get("/api/games").json()["games"] if g["id"] == game_id)
    assert not entry["hidden"] and entry["refused"] is None
    r = client.get(f"/api/games/{game_id}/replay")
    assert r.status_code == 200, r.text
    data = r.json()
    game = get_game("laotzu", **ARRAYS)
    pos = game.parse_position(record.setup)
    assert len(data["positions"]) == len(moves) + 1
    hidden_somewhere = 0
    for i, shown in enumerate(data["positions"]):
        whole = position_objects(game, pos, svc.layout)  # the whole position, not a view
        assert {int(s): len(o) for s, o in shown.items()} == {s: len(o) for s, o in
                                                            whole.items()}, i
        unseen = set(range(64)) - set(Sight(game, pos, 0).visible)
        hidden_somewhere += sum(1 for c in unseen if pos.board[c] is not None)
        if i < len(moves):
            pos.push(game.parse_move(pos, record.moves[i]))
    assert hidden_somewhere > 0  # (pieces White never saw are drawn too)
    # both arrays stand on the first position, and every move is written out
    first = game.parse_position(record.setup)
    assert sum(len(o) for o in data["positions"][0].values()) == sum(
        1 for p in first.board if p is not None) == 32
    assert [p["text"] for p in data["plies"]] == moves
    assert all(p["text"] for p in data["plies"])
    pgn = client.get(f"/api/games/{game_id}.pgn").text
    assert all(m.replace(" ", "") in pgn.replace(" ", "") for m in moves[:4])
