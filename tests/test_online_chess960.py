"""Chess960 online (issue 35): a seek and a challenge ask for the variant as the Board API
allows, the board sets up the array the server's ``gameFull`` gives (``initialFen``), and
a whole game with castling both sides (sent as King takes Rook, as Chess960's UCI has it)
is played on the simulated board against the loopback server; a claimed victory is the
win on time lichess records (its ``timeout`` status and its winner), in the journal and
the PGN."""

from __future__ import annotations

import chess
import pytest

from controller.journal import Journal
from controller.online.game import board_uci as api_uci
from controller.pgn import game_pgn
from controller.rules.core import Termination
from tests.support.lichess import FakeLichess
from tests.support.online import (
    OWNER,
    make,
    online_service,
    play_line,
    pump,
    sent_moves,
    started,
)

#: array 517 (RNBBQKNR): the Knights out, then castling short for both, King takes Rook
GAME = "g1f3 g8f6 f1h1 f8h8 e2e4 e7e5 b1c3 b8c6".split()


@pytest.fixture
def server():
    running = FakeLichess({"tok-owner": OWNER}).start()
    running.chess960_array = 517
    yield running
    running.stop()


def _board_uci(svc) -> list[str]:
    pos = svc.game.parse_position(svc.setup)
    out = []
    for move in svc.position.moves:
        out.append(api_uci(svc.game, pos, move, True))
        pos.push(move)
    return out


def test_a_chess960_seek_is_played_with_castling_from_the_servers_array(tmp_path, server):
    svc = online_service(tmp_path, server)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        svc.online.seek(10, 5, False, "white", variant="chess960")
        gid = started(svc, server)
        assert server.seeks[-1]["variant"] == "chess960"
        game = server.games[gid]
        assert game.variant == "chess960"
        # the board stands on the server's array, not one of its own drawing
        assert svc.game.options["chess960"] is True
        assert chess.Board(svc.setup, chess960=True).board_fen() == \
            chess.Board.from_chess960_pos(517).board_fen()
        play_line(svc, server, gid, GAME)
        assert _board_uci(svc) == game.moves == GAME
        assert sent_moves(server) == GAME[0::2]
        assert game.board.piece_at(chess.G1).symbol() == "K"  # castled on the server
        assert game.board.piece_at(chess.F8).symbol() == "r"
        server.end(gid, "resign", "black")
        pump(svc, lambda: svc.outcome is not None)
        assert svc.outcome.winners == (1,)
    finally:
        svc.close()
    record = next(r for r in Journal(tmp_path / "journal").games() if r.moves)
    assert record.result == "0-1"
    pgn = game_pgn(record)
    assert "O-O" in pgn and "RNBBQKNR" in pgn, pgn


def test_a_chess960_challenge_asks_for_the_variant(tmp_path, server):
    svc = online_service(tmp_path, server)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        svc.online.challenge("sparring", 10, 0, False, "black", "chess960")
        gid = started(svc, server)
        assert server.games[gid].variant == "chess960" and svc.online.record["seat"] == 1
        assert svc.online.record["variant"] == "chess960"
        play_line(svc, server, gid, GAME[:4], owner_seat=1)
        assert _board_uci(svc) == server.games[gid].moves == GAME[:4]
    finally:
        svc.close()


def test_a_variant_the_board_does_not_seek_is_refused_in_one_line(tmp_path, server):
    svc = online_service(tmp_path, server)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        with pytest.raises(ValueError, match="variant: one of standard, chess960"):
            svc.online.seek(10, 5, False, "white", variant="atomic")
        with pytest.raises(ValueError, match="variant"):
            svc.online.challenge("sparring", 10, 0, False, "white", "crazyhouse")
        assert server.seeks == []
    finally:
        svc.close()


def test_a_claimed_victory_is_a_win_on_time_in_the_journal_and_the_pgn(tmp_path, server):
    svc = online_service(tmp_path, server)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        svc.online.seek(10, 5, False, "black")
        gid = started(svc, server)
        play_line(svc, server, gid, "e2e4 e7e5 g1f3".split(), owner_seat=1)
        server.leave(gid)  # the opponent leaves; lichess lets the owner claim the win
        pump(svc, lambda: "claim victory" in svc.online.commands())
        svc.online.command("claim victory")
        pump(svc, lambda: svc.outcome is not None)
        assert server.games[gid].status == "timeout" and server.games[gid].winner == "black"
        assert svc.outcome.winners == (1,)
        assert svc.outcome.reason == Termination.TIME_FORFEIT
        assert "game over: the win is yours on time" in " ".join(svc.online.notices)
    finally:
        svc.close()
    record = next(r for r in Journal(tmp_path / "journal").games() if r.moves)
    assert record.result == "0-1"
    pgn = game_pgn(record)
    assert '[Result "0-1"]' in pgn and '[Termination "time forfeit"]' in pgn, pgn


def test_an_open_chess960_challenge_taken_is_played_on_its_array(tmp_path, server):
    server.chess960_array = 100  # QBBNRNKR
    svc = online_service(tmp_path, server)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        svc.online.open_challenge(10, 5, "chess960")
        pump(svc, lambda: svc.online.open_url is not None)
        gid = server.take_open(svc.online.open_url.rsplit("/", 1)[1])
        assert started(svc, server) == gid and server.games[gid].variant == "chess960"
        assert svc.setup.split()[0] == chess.Board.from_chess960_pos(100).board_fen()
        play_line(svc, server, gid, "d1e3 d8e6".split())
        assert _board_uci(svc) == server.games[gid].moves
    finally:
        svc.close()


def test_a_chess960_game_goes_on_after_a_power_cut(tmp_path, server):
    svc = online_service(tmp_path, server)
    pump(svc, lambda: svc.online.me == OWNER)
    svc.online.seek(10, 5, False, "white", variant="chess960")
    gid = started(svc, server)
    play_line(svc, server, gid, GAME[:3])  # up to the owner's castling
    svc.online.close()  # the power goes
    svc.sensing.close()
    server.play(gid, GAME[3])  # the opponent castles meanwhile
    again = online_service(tmp_path, server)
    try:
        assert again.online.record["id"] == gid and again.game.options["chess960"]
        again.sim_action({"action": "arrange"})
        pump(again, lambda: again.interaction.phase == "execute")
        assert again.board.progress.execute == again.game.parse_move(again.position, "f8h8")
        make(again, "f8h8")  # the castling made meanwhile, shown to make
        play_line(again, server, gid, GAME[4:], first_ply=4)
        assert _board_uci(again) == server.games[gid].moves == GAME
    finally:
        again.close()
