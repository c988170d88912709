"""Never lose an online game to the link (issue 35): whole games on the simulated board
while the loopback server drops streams instead of telling a ply, cuts every game stream
after a seeded random number of lines, answers requests with 503s and loses the answers
of moves it took — the faults drawn for each ply (as many however fast the board plays)
and each one counted: no move lost, doubled or misapplied, and board and server agree at
the end; and the starts of games read as the link falls."""

from __future__ import annotations

import random

import pytest

from tests.support.lichess import FakeLichess
from tests.support.online import (
    OWNER,
    board_uci,
    make,
    online_service,
    play_line,
    pump,
    sent_moves,
    started,
)

GAME = ("e2e4 d7d5 e4e5 f7f5 e5f6 b8c6 f6g7 c8f5 g7h8q d8d7 g1f3 e8c8 f1e2 e7e5 "
        "e1g1").split()


@pytest.mark.parametrize("seed", [1, 2])
def test_a_whole_game_through_random_faults_loses_and_doubles_nothing(tmp_path, seed):
    """The faults are drawn per ply from the seed (a stream that drops instead of telling
    the ply, 503s, a lost answer), so their number is the same however fast the board
    plays; the streams also drop after a seeded random number of lines (their own
    generator: the server's thread draws it when it likes)."""
    rng = random.Random(seed)  # the faults of each ply (the test's thread alone)
    lengths = random.Random(seed + 1000)  # each stream's length (the server's thread)
    server = FakeLichess({"tok-owner": OWNER}).start()
    svc = online_service(tmp_path, server)
    withheld = failed = lost = 0
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        svc.online.backoff_s = (0.02, 0.05)
        server.cut_game_stream_after = lambda: lengths.randint(2, 4)
        svc.online.seek(10, 5, False, "white")
        gid = started(svc, server)
        for i, uci in enumerate(GAME):
            if rng.random() < 0.8:  # the stream drops instead of telling this ply
                server.withhold_news += 1
                withheld += 1
            if rng.random() < 0.5:  # the next requests fail (moves are retried)
                faults = [503] * rng.randint(1, 2)
                server.fail_next.extend(faults)
                failed += len(faults)
            if i % 2 == 0 and rng.random() < 0.4:
                server.lose_answers += 1  # taken, and the answer lost: sent again
                lost += 1
            play_line(svc, server, gid, [uci], first_ply=i)
            pump(svc, lambda: server.withhold_news == 0 and not server.fail_next)
        assert board_uci(svc) == server.games[gid].moves == GAME
        assert len(svc.plies) == len(GAME)  # the journal: each ply once
        # every fault drawn happened (a ply's news is told by a reconnecting stream at the
        # latest; each owner's move is sent, and so meets its lost answer)
        assert (server.news_withheld, server.answers_lost) == (withheld, lost)
        print(f"seed {seed}: {withheld} plies' news withheld, {failed} requests failed, "
              f"{lost} answers lost; {server.streams_cut} streams cut in all")
        assert withheld >= 10 and withheld + failed + lost >= 20  # (the seeds' draws)
        assert server.streams_cut >= withheld
    finally:
        svc.close()
        server.stop()


def test_a_token_revoked_mid_game_is_one_clear_line_and_a_new_one_plays_on(tmp_path):
    server = FakeLichess({"tok-owner": OWNER}).start()
    svc = online_service(tmp_path, server)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        svc.online.seek(10, 5, False, "white")
        gid = started(svc, server)
        play_line(svc, server, gid, GAME[:2])
        server.tokens.clear()  # revoked on the server's site, and the link falls
        server.down = True
        pump(svc, lambda: svc.online.seat.reconnects > 0)
        server.down = False
        pump(svc, lambda: any("refused the token" in n for n in svc.online.notices))
        assert svc.online.playing and svc.outcome is None  # nothing abandoned
        assert "tok-owner" not in " ".join(svc.online.notices)
        server.tokens["tok-new"] = OWNER  # a new token: the game goes on
        svc.online.set_token("tok-new")
        pump(svc, lambda: svc.online.seat is not None and svc.online.seat.server is not None)
        play_line(svc, server, gid, GAME[2:4], first_ply=2)
        assert board_uci(svc) == server.games[gid].moves == GAME[:4]
    finally:
        svc.close()
        server.stop()


def test_a_game_whose_start_is_read_as_the_link_falls_is_still_played(tmp_path):
    """The event stream says a game started; the game stream the room opens to read it
    drops before its first line, twice: the room reads it again (the event stream will
    not say it again), and the game is played."""
    server = FakeLichess({"tok-owner": OWNER}).start()
    svc = online_service(tmp_path, server)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        server.withhold_news = 2  # the next two game streams drop on opening
        svc.online.seek(10, 5, False, "white")
        gid = started(svc, server)
        assert server.news_withheld == 2
        play_line(svc, server, gid, GAME[:2])
        assert board_uci(svc) == server.games[gid].moves == GAME[:2]
    finally:
        svc.close()
        server.stop()


def test_a_move_taken_whose_answer_is_lost_stays_while_the_stream_lags(tmp_path):
    """The server takes the owner's move and its answer is lost; sent again, it is refused
    (already played) before the game stream tells it: the board keeps the move (the
    server's list read after the refusal holds it) and never asks to set it back."""
    server = FakeLichess({"tok-owner": OWNER}).start()
    svc = online_service(tmp_path, server)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        svc.online.seek(10, 5, False, "white")
        gid = started(svc, server)
        seat = svc.online.seat
        states = seat.states
        server.hold_states = True  # the stream tells nothing new for now
        server.lose_answers = 1
        make(svc, GAME[0])
        pump(svc, lambda: seat.states > states or svc.interaction.phase == "setup")
        assert server.games[gid].moves == GAME[:1] and sent_moves(server) == GAME[:1] * 2
        svc.step(0.5)
        assert svc.interaction.phase != "setup", svc.interaction.message
        assert not any("set the board back" in n for n in svc.online.notices)
        server.hold_states = False
        play_line(svc, server, gid, GAME[1:4], first_ply=1)
        assert board_uci(svc) == server.games[gid].moves == GAME[:4]
        assert len(svc.plies) == 4
    finally:
        svc.close()
        server.stop()


def test_a_new_token_saved_while_a_starting_game_is_read_plays_that_game(tmp_path):
    server = FakeLichess({"tok-owner": OWNER, "tok-new": OWNER}).start()
    svc = online_service(tmp_path, server)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        server.withhold_news = 1000  # every game stream drops on opening
        svc.online.seek(10, 5, False, "white")
        pump(svc, lambda: svc.online.fetching is not None and server.news_withheld >= 2)
        svc.online.set_token("tok-new")  # (the old connection's reading stops)
        server.withhold_news = 0
        gid = started(svc, server)  # the new connection's event stream names it again
        play_line(svc, server, gid, GAME[:2])
        assert board_uci(svc) == server.games[gid].moves == GAME[:2]
    finally:
        svc.close()
        server.stop()
