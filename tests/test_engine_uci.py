"""Our UCI client against a tiny fake engine (fast), and once against real Stockfish.

The fake engine is a Python script written here; its first argument chooses how it
behaves (a proper engine, one that dies, one that says nothing, one that talks nonsense),
and it echoes what it was told in ``info string`` lines so the test can read it back.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest

from controller.engine.uci import UciEngine, UciError, _parse_option
from tests.support.uci import FAKE, stockfish


@pytest.fixture(scope="module")
def fake(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("uci") / "fake_engine.py"
    path.write_text(FAKE)
    return path


def start(fake: Path, mode: str = "good", timeout: float = 5.0) -> UciEngine:
    return UciEngine([sys.executable, str(fake), mode], timeout=timeout, label="fake")


def test_handshake_options_position_go_and_quit(fake):
    with start(fake) as engine:
        assert engine.name == "Fake 1.0" and engine.author == "nobody"
        assert engine.offers("skill level") and engine.offers("UCI_Chess960")
        skill = engine.options["skill level"]
        assert (skill.type, skill.default, skill.min, skill.max) == ("spin", "20", 0, 20)
        assert engine.options["style"].choices == ("Solid", "Normal", "Risky")
        assert engine.options["evalfile"].default == ""
        engine.set_option("Skill Level", 99)  # clamped to the engine's range
        engine.set_option("uci_chess960", True)
        engine.set_option("Clear Hash")
        engine.new_game()
        engine.position("4k3/8/8/8/8/8/8/4K2R w K - 0 1", ["e1h1", "e8d8"])
        best = engine.go(movetime=0.05)
        process = engine.process
    said = [line.removeprefix("info string ") for line in best.info if "string" in line]
    assert said == ["setoption name Skill Level value 20",
                    "setoption name UCI_Chess960 value true",
                    "setoption name Clear Hash",
                    "ucinewgame",
                    "position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1h1 e8d8",
                    "go movetime 50"]
    assert (best.move, best.ponder, best.depth, best.nodes) == ("e2e4", "e7e5", 4, 2000)
    assert best.mate == 2 and best.score_cp is None
    assert process.poll() is not None  # quit ended it


def test_go_words_for_clocks_depth_and_nodes(fake):
    with start(fake) as engine:
        engine.position(None)
        best = engine.go(wtime=60, btime=30.5, winc=1, binc=1, movestogo=20, timeout=2)
        assert best.info[0] == "info string position startpos"
        assert best.info[-3] == ("info string go wtime 60000 btime 30500 winc 1000 binc 1000 "
                                 "movestogo 20")
        assert engine.go(depth=3, nodes=500).info[-3] == "info string go depth 3 nodes 500"


def test_no_move_is_none(fake):
    with start(fake, "no-move") as engine:
        engine.position(None)
        assert engine.go(depth=1).move is None


def test_an_option_the_engine_lacks_and_a_bad_move_are_refused(fake):
    with start(fake) as engine:
        with pytest.raises(UciError, match="has no option 'Threads'"):
            engine.set_option("Threads", 2)
        with pytest.raises(UciError, match="'e2-e4' is not a UCI move"):
            engine.position(None, ["e2-e4"])
        with pytest.raises(UciError, match="whole number"):
            engine.set_option("Skill Level", "strong")


def one_line(exc: pytest.ExceptionInfo) -> str:
    text = str(exc.value)
    assert "\n" not in text
    return text


def test_a_missing_program_is_one_clear_line(tmp_path):
    with pytest.raises(UciError) as exc:
        UciEngine(str(tmp_path / "no-such-engine"))
    assert "program not found" in one_line(exc) and "no-such-engine" in str(exc.value)
    plain = tmp_path / "not-executable"
    plain.write_text("#!/bin/sh\n")
    with pytest.raises(UciError, match="not executable"):
        UciEngine(str(plain))


def test_an_engine_that_dies_at_start(fake):
    with pytest.raises(UciError) as exc:
        start(fake, "dies")
    assert "died (exit status 3)" in one_line(exc) and "Dying" in str(exc.value)


def test_an_engine_that_never_answers_times_out(fake):
    started = time.monotonic()
    with pytest.raises(UciError) as exc:
        start(fake, "silent", timeout=0.5)
    assert "no 'uciok' within 0.5 s" in one_line(exc)
    assert time.monotonic() - started < 3


def test_garbage_instead_of_uci_is_named(fake):
    with pytest.raises(UciError) as exc:
        start(fake, "garbage-start", timeout=0.5)
    assert "last line: 'hello, I am not a chess engine'" in one_line(exc)
    with start(fake, "bad-bestmove") as engine:
        engine.position(None)
        with pytest.raises(UciError) as exc:
            engine.go(movetime=0.01)
        assert "not a UCI answer: 'bestmove banana'" in one_line(exc)


def test_an_engine_that_dies_while_thinking(fake):
    with start(fake, "die-in-go") as engine:
        engine.position(None)
        with pytest.raises(UciError) as exc:
            engine.go(movetime=0.01)
        assert "died (exit status 7)" in one_line(exc)
        assert not engine.alive
        with pytest.raises(UciError, match="died"):
            engine.is_ready()


def test_a_search_over_time_is_stopped_and_a_deaf_engine_ended(fake):
    with start(fake, "slow", timeout=0.3) as engine:
        engine.position(None)
        assert engine.go(movetime=0.01).move == "d2d4"  # the answer to "stop"
    with start(fake, "deaf", timeout=0.3) as engine:
        engine.position(None)
        with pytest.raises(UciError) as exc:
            engine.go(movetime=0.01)
        assert "no 'bestmove' within" in one_line(exc)
        assert not engine.alive


def test_option_lines_are_read_whole():
    opt = _parse_option("option name Debug Log File type string default")
    assert opt is not None and opt.name == "Debug Log File" and opt.type == "string"
    assert _parse_option("id name x") is None




def test_real_stockfish_answers_a_legal_move_and_a_mate():
    from controller.rules import get_game

    game = get_game("chess")
    with UciEngine(stockfish()) as engine:
        assert "Stockfish" in engine.name and engine.offers("UCI_Elo")
        engine.set_option("UCI_Chess960", True)
        engine.new_game()
        start_fen = game.position_text(game.start())
        engine.position(start_fen, ["e2e4", "e7e5"])
        best = engine.go(movetime=0.05)
        pos = game.start()
        for text in ("e2e4", "e7e5"):
            pos.push(game.parse_move(pos, text))
        assert game.parse_move(pos, best.move) in game.legal_moves(pos)
        engine.position("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")  # back-rank mate in one
        best = engine.go(depth=5)
        assert best.move == "a1a8" and best.mate == 1
