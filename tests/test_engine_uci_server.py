"""``fairyboard uci`` spoken to by a real UCI client: python-chess's ``chess.engine``
(test-only, GPL) — chess and Chess960 through its own API, the other games through its
protocol with ``UCI_Variant`` and the games' own position and move texts."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import chess
import chess.engine
import pytest

from controller.rules import get_game
from tests.support.moves import product_games

ROOT = Path(__file__).resolve().parents[1]
COMMAND = [sys.executable, "-c", "import sys; from controller.cli import main; "
                                 "sys.exit(main(['uci']))"]


@pytest.fixture(scope="module")
def engine():
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    eng = chess.engine.SimpleEngine.popen_uci(COMMAND, env=env, timeout=30)
    yield eng
    eng.quit()  # quit: the process ends


class _Variant(chess.engine.BaseCommand):
    """``setoption``/``position``/``go`` for a game python-chess's boards do not know;
    the result is the ``bestmove`` word (and ``stop`` sent after ``stop_after`` s)."""

    def __init__(self, engine, lines, stop_after=None):
        super().__init__(engine)
        self.engine, self.lines, self.stop_after = engine, lines, stop_after
        self.infos: list[str] = []

    def start(self):
        for line in self.lines:
            self.engine.send_line(line)
        if self.stop_after is not None:
            asyncio.get_running_loop().call_later(
                self.stop_after, self.engine.send_line, "stop")

    def line_received(self, line):
        if line.startswith("info"):
            self.infos.append(line)
        elif line.startswith("bestmove"):
            self.result.set_result((line.split()[1], self.infos))
            self.set_finished()


def _variant(engine, lines, stop_after=None):
    return engine.communicate(lambda protocol: _Variant(protocol, lines, stop_after))


def test_chess_through_python_chess(engine):
    assert engine.id["name"] == "fairyboard"
    assert "UCI_Variant" in engine.options and "UCI_Chess960" in engine.options
    engine.configure({"Level": 10})  # setoption
    engine.ping()  # isready
    board = chess.Board()
    limits = [chess.engine.Limit(time=0.1), chess.engine.Limit(depth=2),
              chess.engine.Limit(white_clock=3, black_clock=3, white_inc=0.1,
                                 black_inc=0.1),
              chess.engine.Limit(nodes=800)]
    for ply in range(6):
        result = engine.play(board, limits[ply % len(limits)], game="one")  # position … moves
        assert result.move in board.legal_moves
        board.push(result.move)
    # a new game (ucinewgame) and a mate in one: the score and the move
    mate = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")
    info = engine.analyse(mate, chess.engine.Limit(depth=3), game="two")
    assert info["score"].white() == chess.engine.Mate(1)
    assert engine.play(mate, chess.engine.Limit(depth=3)).move == chess.Move.from_uci("a1a8")
    # go infinite, then stop
    with engine.analysis(board) as analysis:
        analysis.get()  # the first info line: it searches
        analysis.stop()
        best = analysis.wait()
    assert best.move in board.legal_moves


def test_chess960_and_castling(engine):
    board = chess.Board("rk2r3/pppppppp/8/8/8/8/PPPPPPPP/RK2R3 w KQkq - 0 1", chess960=True)
    for _ in range(4):
        result = engine.play(board, chess.engine.Limit(time=0.1))
        assert result.move in board.legal_moves
        board.push(result.move)


def test_castling_is_written_as_the_client_reads_it():
    """Standard chess: the King's two-square step (``e1g1``); Chess960: King to Rook."""
    import io

    from controller.engine.uci_server import UciServer

    server = UciServer(io.StringIO())
    server.handle("position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1g1")
    assert server.game.position_text(server.pos).startswith("4k3/8/8/8/8/8/8/5RK1 b")
    castle = next(m for m in server.game.legal_moves(server.game.parse_position(
        "4k3/8/8/8/8/8/8/4K2R w K - 0 1")) if m.kind == "castle")
    pos = server.game.parse_position("4k3/8/8/8/8/8/8/4K2R w K - 0 1")
    assert server.move_text(pos, castle) == "e1g1"
    server.handle("setoption name UCI_Chess960 value true")
    pos = server.game.parse_position("4k3/8/8/8/8/8/8/4K2R w H - 0 1")
    castle = next(m for m in server.game.legal_moves(pos) if m.kind == "castle")
    assert server.move_text(pos, castle) == "e1h1"


VARIANTS = sorted(name for name in product_games() if name != "chess")  # a program


@pytest.mark.parametrize("name", VARIANTS)
def test_every_variant_with_uci_variant(engine, name):
    game = get_game(name)
    pos = game.start()
    moves: list[str] = []
    goes = ["go movetime 100", "go depth 2", "go wtime 3000 btime 3000 winc 50 binc 50",
            "go nodes 600"]
    base = "startpos"
    for ply, go in enumerate(goes):
        if not game.legal_moves(pos) or game.legal_moves(pos)[0].kind == "roll":
            break
        if ply == 2:  # the game's own position text, spaces and all
            base, moves = f"fen {game.position_text(pos)}", []
        position = f"position {base}" + (" moves " + " ".join(moves) if moves else "")
        lines = [f"setoption name UCI_Variant value {name}", "ucinewgame", "isready",
                 position, go] if ply == 0 else [position, go]
        word, infos = _variant(engine, lines)
        assert not any("error" in i for i in infos), infos
        move = game.parse_move(pos, word)  # the game's own move text
        assert move in game.legal_moves(pos)
        pos.push(move)
        moves.append(word)
    # go infinite, then stop: a legal move still comes
    word, _ = _variant(engine, ["position startpos", "go infinite"], stop_after=0.3)
    assert game.parse_move(game.start(), word) in game.legal_moves(game.start())
    # a bad line gets one info line and changes nothing
    word, infos = _variant(engine, ["position fen nonsense", "go depth 1"])
    assert any(i.startswith("info string error") for i in infos)
    _variant(engine, ["setoption name UCI_Variant value chess", "isready", "position startpos",
                      "go depth 1"])


def test_bad_lines_get_one_line_and_change_nothing():
    import io

    from controller.engine.uci_server import UciServer

    out = io.StringIO()
    server = UciServer(out)
    server.handle("position startpos moves e2e4")
    before = server.game.position_text(server.pos)
    for line in ("go depth x", "position startpos moves e2e5", "setoption name Bogus value 1",
                 "setoption name UCI_Variant value nope", "setoption name Level value 11",
                 "frobnicate", "position fen"):
        server.handle(line)
    lines = out.getvalue().splitlines()
    assert len(lines) == 7 and all(line.startswith("info string") for line in lines)
    assert server.game.position_text(server.pos) == before
    server.handle("setoption name Level value 3")  # the strength, not the game, changes
    assert server.game.position_text(server.pos) == before and server.engine.level.noise
    assert server.handle("quit") is False
