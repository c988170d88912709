"""The goals table says at what time per move its games were played.

In a game of hidden information the sparring engine plays at the level's own time
(``benchmarks.spar.EnginePlayer`` ignores ``--movetime`` there); the Lao Tzu rows used to
record ``--movetime`` (0.1 s) although their games ran at 4 s a move."""

from __future__ import annotations

import json

from benchmarks import engine_goals
from benchmarks.spar import Score
from controller.engine import LEVELS


def played_at(monkeypatch, config: str, movetime: float) -> tuple[float, float | None]:
    """(the time the row records, the time the match was asked to play at)."""
    asked: list[float | None] = []

    def fake_match(game, options, a, b, games, max_plies, seed, movetime=None,
                   games_log=None):
        asked.append(movetime)
        return Score(wins=games)

    monkeypatch.setattr(engine_goals, "match", fake_match)
    row = engine_goals.run(config, "greedy", 2, movetime, 40, 0)
    return row["movetime"], asked[0]


def test_a_hidden_information_row_records_the_levels_own_time(monkeypatch):
    recorded, _ = played_at(monkeypatch, "laotzu", 0.1)
    assert recorded == LEVELS[10].movetime == 4.0


def test_a_full_information_row_records_the_time_asked_for(monkeypatch):
    assert played_at(monkeypatch, "chess", 0.1) == (0.1, 0.1)


def test_the_games_log_keeps_every_games_moves(tmp_path):
    """``--games-log``: each game's moves, so that a lost game can be looked at later."""
    log = tmp_path / "games.jsonl"
    row = engine_goals.run("lotus39", "random", 2, 0.01, 12, 0, games_log=log)
    games = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(games) == 2 == row["wins"] + row["draws"] + row["losses"]
    assert all(g["moves"] and g["result"] in ("A", "B", "draw") for g in games)
