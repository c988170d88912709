"""The computer at the board played by an external UCI engine (Stockfish) for chess.

The configuration names the program (``[engine] uci_engine``); the worker process keeps it
running, sends it the game (Chess960 castling King-to-Rook through ``UCI_Chess960``), sets
its strength from the level, and falls back to the built-in search, with one logged line,
when the engine fails.
"""

from __future__ import annotations

import os
import random
import sys

import pytest

from controller.config import ConfigError, config_from_dict
from controller.engine.external import ExternalPlayer, strength_options
from controller.engine.uci import UciEngine
from controller.opponent import ExternalAnswer, think_external
from controller.rules import get_game
from controller.service import BoardService
from tests.support.service import make_config, play, set_up, wait_for
from tests.support.uci import FAKE, stockfish


def test_levels_map_onto_elo_or_skill_level(tmp_path):
    with UciEngine(stockfish()) as engine:  # UCI_Elo 1350..2850 in Debian's Stockfish 15
        elo = engine.options["uci_elo"]
        assert strength_options(engine, 1) == [("UCI_LimitStrength", True),
                                               ("UCI_Elo", elo.min)]
        assert strength_options(engine, 9) == [("UCI_LimitStrength", True),
                                               ("UCI_Elo", elo.max)]
        assert strength_options(engine, 10) == [("UCI_LimitStrength", False),
                                                ("Skill Level", 20)]
    fake = tmp_path / "fake.py"
    fake.write_text(FAKE)
    with UciEngine([sys.executable, str(fake)]) as engine:  # Skill Level 0..20 only
        assert strength_options(engine, 1) == [("Skill Level", 0)]
        assert strength_options(engine, 5) == [("Skill Level", 10)]


def test_a_chess960_record_with_castling_reaches_stockfish_whole():
    """Array 3 (BQNNRKRB): castling at once swaps King f1 and Rook g1, written ``f1g1``
    King-to-Rook.  Stockfish must replay the record whole (UCI_Chess960) to answer for
    the right side in the right position; a wrong answer would be refused."""
    game = get_game("chess", chess960=True, array=3)
    pos = game.start()
    setup = game.position_text(pos)
    moves = []
    for text in ("O-O", "O-O", "d2d4"):
        move = game.parse_move(pos, text)
        assert move.kind == "castle" or text == "d2d4"
        moves.append(game.long_move_text(pos, move))
        pos.push(move)
    assert moves[:2] == ["f1g1", "f8g8"]
    answer = think_external(stockfish(), (("Hash", 16),), "chess",
                            {"chess960": True, "array": 3}, setup, moves, level=10, seed=0,
                            movetime=0.05)
    assert isinstance(answer, ExternalAnswer) and answer.failure == ""
    assert game.parse_move(pos, answer.text) in game.legal_moves(pos)


def test_a_failing_engine_leaves_the_move_to_the_built_in_search(tmp_path):
    script = tmp_path / "dying-engine"
    script.write_text(f"#!{sys.executable}\n" + FAKE.replace(
        'mode = sys.argv[1] if len(sys.argv) > 1 else "good"', 'mode = "die-in-go"'))
    script.chmod(0o755)
    game = get_game("chess")
    setup = game.position_text(game.start())
    answer = think_external(str(script), (), "chess", {}, setup, [], level=1, seed=0)
    assert "died (exit status 7)" in answer.failure
    assert answer.failure.endswith("; the built-in search made this move")
    assert "\n" not in answer.failure
    assert game.parse_move(game.start(), answer.text) in game.legal_moves(game.start())
    # a missing program: the same fallback, and the configuration refuses it at start
    answer = think_external(str(tmp_path / "gone"), (), "chess", {}, setup, [], 1, 0)
    assert "program not found" in answer.failure and answer.text


def test_a_wrong_answer_is_refused(tmp_path):
    """The fake engine always answers e2e4: after 1. e4 that is no legal move for Black."""
    fake = tmp_path / "fake.py"
    fake.write_text(FAKE)
    game = get_game("chess")
    player = ExternalPlayer([sys.executable, str(fake)])
    try:
        setup = game.position_text(game.start())
        assert game.long_move_text(game.start(), player.move(game, setup, [], 3, 0.01)) \
            == "e2e4"
        from controller.engine.uci import UciError

        with pytest.raises(UciError, match="answered 'e2e4', not a legal move here"):
            player.move(game, setup, ["e2e4"], 3, 0.01)
    finally:
        player.close()


def test_engine_settings_are_checked_at_start(tmp_path):
    good = config_from_dict({"engine": {"uci_engine": stockfish(), "uci_games": ["chess"],
                                        "uci_options": {"Hash": 16, "Ponder": False}}})
    assert good.engine.uci_games == ["chess"]
    for table, words in (
            ({"uci_engine": str(tmp_path / "nothing")}, "engine.uci_engine: no program"),
            ({"uci_games": ["checkers"]}, "engine.uci_games: unknown game 'checkers'"),
            ({"uci_games": ["laotzu"]}, "laotzu hides pieces"),
            ({"uci_options": {"Hash": [1]}}, "engine.uci_options.Hash: expected"),
            ({"uci_games": "chess"}, "engine.uci_games: expected a list")):
        with pytest.raises(ConfigError, match=words):
            config_from_dict({"engine": table})


def test_a_whole_game_against_stockfish_on_the_simulated_board(tmp_path):
    """A person (a seeded random mover) plays White on the simulated board; Stockfish plays
    Black as the computer, its moves shown and made by the simulated hand, to the end."""
    config = make_config(tmp_path, layout="square8", game="chess", computer=["Black"],
                         computer_level=1)
    config.engine.uci_engine = stockfish()
    config.engine.uci_options = {"UCI_LimitStrength": False}  # full strength: a short game
    svc = BoardService(config)
    rng = random.Random(3)
    try:
        set_up(svc)
        while svc.game.outcome(svc.position) is None:
            ply = len(svc.position.moves)
            moves = svc.game.legal_moves(svc.position)
            play(svc, svc.game.move_text(svc.position, rng.choice(moves)))
            if svc.game.outcome(svc.position) is not None:
                break
            # the answer committed and the simulated hand done (castling: the Rook too)
            wait_for(svc, lambda n=ply: len(svc.position.moves) == n + 2 and not svc.busy
                     and svc.interaction.phase in ("turn", "game_over"))
            assert ply < 600, "no end in sight"
        outcome = svc.game.outcome(svc.position)
        assert outcome.winners == (1,)  # Stockfish mates the random mover
        record = svc.journal.games()[-1]
        assert len(record.moves) == len(svc.position.moves)
    finally:
        svc.close()


def test_the_worker_gives_way_to_the_board_loop():
    """The search (and Stockfish, which the worker starts) run nicer than the service."""
    from controller.opponent import WORKER_NICENESS, Computer, Opponent

    opponent = Opponent(Computer(frozenset({1}), 1))
    try:
        game = get_game("chess")
        pos = game.start()
        opponent.poll(game, {}, game.position_text(pos), [], pos)  # White: nothing asked
        pos.push(game.legal_moves(pos)[0])
        opponent.poll(game, {}, game.position_text(game.start()),
                      [game.long_move_text(game.start(), pos.moves[0])], pos)
        assert opponent._pool is not None
        worker = opponent._pool.submit(os.nice, 0).result(timeout=30)
        assert worker >= min(19, os.nice(0) + WORKER_NICENESS)
    finally:
        opponent.close()


def _children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (from /proc)."""
    from pathlib import Path

    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def _state(pid: int) -> str | None:
    """The process's state letter (Z: a zombie nobody reaped), None when it is gone."""
    from pathlib import Path

    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
def test_closing_the_board_quits_stockfish_and_reaps_it():
    """The worker that started Stockfish quits and waits for it as it ends, so no engine
    is left behind — running, or dead but unreaped under an init that reaps late."""
    import time

    from controller.config import EngineSettings
    from controller.opponent import Computer, Opponent

    engine = EngineSettings(uci_engine=stockfish())
    opponent = Opponent(Computer(frozenset({0}), 1), engine=engine)
    game = get_game("chess")
    pos = game.start()
    setup = game.position_text(pos)
    try:
        deadline = time.monotonic() + 30
        while opponent.poll(game, {}, setup, [], pos) is None:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        (worker,) = list(opponent._pool._processes)
        engines = _children(worker)
        assert len(engines) == 1
    finally:
        opponent.close()
    deadline = time.monotonic() + 10
    while _state(worker) not in (None, "Z"):
        assert time.monotonic() < deadline, "the worker did not end"
        time.sleep(0.05)
    time.sleep(0.5)
    assert _state(engines[0]) is None
