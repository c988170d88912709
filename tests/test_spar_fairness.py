"""Chess against an external engine is played at equal time: both sides on the wall clock.

The opponent is a separate process told ``movetime`` (wall time, which the machine's load
eats into); our engine used to search on process CPU time, so on a loaded machine it got
more thinking than its opponent.  Now a match against an external engine runs our search
on the wall clock, and records what each side really used: CPU seconds per move, the
opponent's read from its own process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import pytest

from benchmarks import spar

#: a UCI engine that answers the first legal move after spending the whole ``movetime``
#: either computing ("busy") or asleep ("idle")
FAKE = textwrap.dedent('''
    import sys, time
    import chess
    mode = sys.argv[1] if len(sys.argv) > 1 else "busy"
    board = chess.Board()
    def out(line):
        sys.stdout.write(line + "\\n"); sys.stdout.flush()
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        if words[0] == "uci":
            out("id name Fake"); out("uciok")
        elif words[0] == "isready":
            out("readyok")
        elif words[0] == "position":
            board = chess.Board()
            if "moves" in words:
                for text in words[words.index("moves") + 1:]:
                    board.push_uci(text)
        elif words[0] == "go":
            seconds = int(words[words.index("movetime") + 1]) / 1000
            if mode == "busy":
                end = time.process_time() + seconds
                while time.process_time() < end:
                    pass
            else:
                time.sleep(seconds)
            out("bestmove " + min(m.uci() for m in board.legal_moves))
        elif words[0] == "quit":
            break
''')


def fake_engine(tmp_path, mode: str) -> str:
    """The fake engine as a program (``uci:PROGRAM`` takes no arguments)."""
    script = tmp_path / "fake_uci.py"
    script.write_text(FAKE, encoding="utf-8")
    program = tmp_path / f"fake-{mode}"
    program.write_text(f"#!/bin/sh\nexec {sys.executable} {script} {mode}\n", encoding="utf-8")
    program.chmod(0o755)
    return str(program)


def recorded_players(monkeypatch) -> list[spar.Player]:
    """Every player ``spar.make_player`` builds from now on, in order (filled as built)."""
    built: list[spar.Player] = []
    real = spar.make_player

    def recording(*args, **kwargs):
        built.append(real(*args, **kwargs))
        return built[-1]

    monkeypatch.setattr(spar, "make_player", recording)
    return built


def test_against_an_external_engine_our_search_runs_on_the_wall_clock(tmp_path, monkeypatch):
    built = recorded_players(monkeypatch)
    program = fake_engine(tmp_path, "idle")
    spar.match("chess", {}, "level:1", f"uci:{program}", 1, 2, movetime=0.05)
    ours = [p for p in built if isinstance(p, spar.EnginePlayer)]
    assert ours and all(p.engine.search.clock is time.monotonic for p in ours)


def test_without_an_external_engine_our_search_runs_on_cpu_time(monkeypatch):
    built = recorded_players(monkeypatch)
    spar.match("chess", {}, "level:1", "greedy", 1, 2, movetime=0.05)
    ours = [p for p in built if isinstance(p, spar.EnginePlayer)]
    assert ours and all(p.engine.search.clock is time.process_time for p in ours)
    assert spar.search_clock("uci:/usr/bin/x", "level:3") is time.monotonic
    assert spar.search_clock("level:10", "sunfish") is time.monotonic


def opponent_per_move(tmp_path, mode: str) -> tuple[float, float]:
    """(wall, CPU) seconds per move of the fake engine in a short match at 0.3 s a move."""
    times: dict = {}
    spar.match("chess", {}, "level:1", f"uci:{fake_engine(tmp_path, mode)}", 1, 8,
               movetime=0.3, times=times)
    wall, moves, cpu = times["b"]
    assert moves == 4
    return wall / moves, cpu / moves


@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/stat"), reason="Linux /proc")
def test_a_match_records_the_cpu_the_opponents_process_really_used(tmp_path):
    busy_wall, busy_cpu = opponent_per_move(tmp_path, "busy")
    idle_wall, idle_cpu = opponent_per_move(tmp_path, "idle")
    assert busy_wall >= 0.3 and idle_wall >= 0.3  # both took their time on the wall clock
    assert busy_cpu >= 0.25  # … the busy one thought all of it (its start-up comes on top)
    assert idle_cpu < busy_cpu - 0.15  # … the idle one only started up


@pytest.mark.skipif(not os.path.exists(f"/proc/{os.getpid()}/stat"), reason="Linux /proc")
def test_process_cpu_seconds_counts_a_childs_computing_not_its_sleeping():
    code = ("import sys, time\nend = time.process_time() + 0.3\n"
            "while time.process_time() < end: pass\n"
            "print('done', flush=True)\ntime.sleep(30)\n")
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "done"
        worked = spar.process_cpu_seconds(child.pid)
        time.sleep(0.3)
        assert 0.3 <= worked < 2.0
        assert spar.process_cpu_seconds(child.pid) - worked < 0.05
    finally:
        child.kill()
        child.wait()


def record(against: str, wins: int, code: str = "abc", rule: str | None = None,
           movetime: float = 0.25) -> dict:
    return {"against": against, "rule": rule or spar.CHESS_RULE, "code": code, "movetime": movetime,
            "max_plies": 300, "wins": wins, "draws": 2, "losses": 8, "wall_a": 4.0,
            "moves_a": 20, "cpu_a": 3.0, "wall_b": 5.0, "moves_b": 20, "cpu_b": 4.0,
            "depths": {"5": 20}, "load": [1.0, 2.0], "seconds": 60.0}


def test_the_chess_table_pools_only_runs_of_the_same_code_rule_and_time():
    records = [record("sunfish", 10), record("sunfish", 20),
               record("sunfish", 1, code="other"), record("sunfish", 1, rule="cpu"),
               record("sunfish", 1, movetime=0.1), record("stockfish-lowest", 0)]
    pools = spar.pooled(records, "abc", 0.25, 300)
    assert (pools["sunfish"]["wins"], pools["sunfish"]["losses"], pools["sunfish"]["runs"]) \
        == (30, 16, 2)
    assert pools["stockfish-lowest"]["runs"] == 1


def test_after_a_code_change_the_table_keeps_the_newest_measured_code():
    """Rewriting the docs before any run of the current code must not empty the table."""
    older, newer = record("sunfish", 10, code="old"), record("sunfish", 12, code="new")
    older["finished"], newer["finished"] = "2026-11-25T10:00:00Z", "2026-11-26T10:00:00Z"
    other_time = record("sunfish", 1, code="fast", movetime=0.1)
    other_time["finished"] = "2026-11-27T10:00:00Z"
    records = [newer, older, other_time]
    assert spar.table_code(records, "current", 0.25, 300) == "new"
    assert spar.table_code(records + [record("sunfish", 3, code="current")],
                           "current", 0.25, 300) == "current"
    assert spar.table_code([], "current", 0.25, 300) == "current"
    assert "| 12 |" in spar.chess_table(records, "new", 0.25, 300)


def test_a_goal_is_met_with_confidence_only_when_the_whole_interval_is_above_it():
    assert spar.verdict(0.62, 0.56, 0.68, 0.55) == "yes, with confidence"
    assert spar.verdict(0.58, 0.50, 0.66, 0.55) == "on average only"
    assert spar.verdict(0.52, 0.45, 0.60, 0.55) == "no, on average"
    assert spar.verdict(0.40, 0.33, 0.48, 0.50) == "no, with confidence"
