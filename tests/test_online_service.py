"""Online play in the board service (issue 35): a game seeked from the online room, found
on the event stream, set up and played on the simulated board against the loopback Board
API server, with every special move (castling both ways, en passant, a promotion chosen
on the option pads); the end announced and journalled with the server's game id and
address; fair play (no engine, no search) by construction."""

from __future__ import annotations

import re

import pytest

from controller.journal import Journal
from controller.pgn import game_pgn
from controller.service import ServiceError
from controller.speech.words import outcome_words
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
from tests.support.webtools import page_client

#: every special move of chess: en passant (e5f6), a promotion (g7h8q, chosen on the
#: pads), castling long for Black and short for White
GAME = ("e2e4 d7d5 e4e5 f7f5 e5f6 b8c6 f6g7 c8f5 g7h8q d8d7 g1f3 e8c8 f1e2 e7e5 "
        "e1g1").split()


@pytest.fixture
def server():
    running = FakeLichess({"tok-owner": OWNER}).start()
    yield running
    running.stop()


@pytest.fixture
def no_engine(monkeypatch):
    """Every way into the engine counted: the workers' pools, the searches asked."""
    import controller.coach as coach
    import controller.opponent as opponent

    calls: list[str] = []

    def counted(name, real):
        def call(*args, **kwargs):
            calls.append(name)
            return real(*args, **kwargs)
        return call

    monkeypatch.setattr(opponent, "ProcessPoolExecutor",
                        counted("computer's worker", opponent.ProcessPoolExecutor))
    monkeypatch.setattr(coach, "ProcessPoolExecutor",
                        counted("coach's worker", coach.ProcessPoolExecutor))
    monkeypatch.setattr(opponent, "think", counted("search", opponent.think))
    monkeypatch.setattr(opponent.Opponent, "poll",
                        counted("computer asked", opponent.Opponent.poll))
    monkeypatch.setattr(coach.Coach, "ask", counted("coach asked", coach.Coach.ask))
    return calls


def test_a_seeked_game_is_played_from_the_board_and_journalled_with_its_address(
        tmp_path, server, no_engine):
    svc = online_service(tmp_path, server, coach=True)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        svc.online.seek(10, 5, False, "white")
        gid = started(svc, server)
        assert svc.online.playing and not svc.coach.on
        # fair play: every way to the engine is refused, on the service and on the page
        for ask in ("hint", "evaluate", "coach on"):
            with pytest.raises(ServiceError, match="fair play"):
                svc.command(ask)
        client = page_client(svc)
        answer = client.post("/api/command", json={"command": "hint"})
        assert answer.status_code == 400 and "fair play" in answer.json()["error"]
        assert svc.board.progress.commands == svc.online.commands()
        assert "hint" not in svc.board.progress.commands
        play_line(svc, server, gid, GAME)
        assert board_uci(svc) == server.games[gid].moves == GAME
        # the clock is the server's, shown in the board's clock's shape
        clock = svc.clock_json()
        assert clock["server"] and clock["running"] == 1
        assert abs(clock["remaining"][0] - server.games[gid].times[0] / 1000) < 1
        server.end(gid, "resign", "white")  # the opponent resigns
        pump(svc, lambda: svc.outcome is not None)
        assert svc.outcome.winners == (0,)
        said = [a["text"] for a in svc.voice.json()]
        assert said[-1] == outcome_words(svc.game, svc.outcome), said  # the end announced
        assert no_engine == []
    finally:
        svc.close()
    record = next(r for r in Journal(tmp_path / "journal").games() if r.moves)
    assert record.seats["online"]["id"] == gid and record.result == "1-0"
    pgn = game_pgn(record)
    assert f'[Site "{server.url}/{gid}"]' in pgn and f'[GameId "{gid}"]' in pgn
    assert '[White "owner"]' in pgn and '[Black "sparring"]' in pgn
    assert '[TimeControl "600+5"]' in pgn
    # the clocks are the server's, whatever the machine's speed: the opponent's as the
    # server told them; the owner's read on the board as he moved, so between the server's
    # count (which stops when the move arrives, then adds 5 s) and his time at the turn's
    # start (a PGN clock is whole seconds: 1 s either way)
    clocks = [int(m) * 60 + int(s) for m, s in re.findall(r"\[%clk 0:(\d\d):(\d\d)\]", pgn)]
    told = [ms / 1000 for ms in server.games[gid].clocks]
    assert len(clocks) == len(told) == len(GAME) and len(set(clocks)) > 1
    for ply, (shown, after) in enumerate(zip(clocks, told, strict=True)):
        if ply % 2:
            assert abs(shown - after) <= 1, (ply, clocks, told)
        else:
            increment, start = (5, told[ply - 2]) if ply >= 2 else (0, 600)
            assert after - increment - 1 <= shown <= start + 1, (ply, clocks, told)


def test_a_takeback_on_the_board_is_offered_and_the_answer_followed(tmp_path, server):
    svc = online_service(tmp_path, server)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        svc.online.seek(10, 0, False, "white")
        gid = started(svc, server)
        play_line(svc, server, gid, GAME[:3])
        # the owner takes his last move back on the board: an offer, declined
        svc.sim_action({"action": "restore", "plies": 2})
        pump(svc, lambda: server.games[gid].takeback == "white")
        assert len(svc.plies) == 2
        server.answer(gid, "takeback", yes=False)
        pump(svc, lambda: svc.interaction.phase == "execute")  # e4e5 to make again
        make(svc, "e4e5")  # as the board shows it: not sent again
        assert board_uci(svc) == server.games[gid].moves == GAME[:3]
        assert sent_moves(server) == ["e2e4", "e4e5"]
        # again, accepted: board and server both lose the move
        svc.sim_action({"action": "restore", "plies": 2})
        pump(svc, lambda: server.games[gid].takeback == "white")
        server.answer(gid, "takeback", yes=True)
        pump(svc, lambda: len(server.games[gid].moves) == 2 and not svc.online.seat.hold)
        svc.step(0.5)
        assert board_uci(svc) == server.games[gid].moves == GAME[:2]
        assert [t for _, t in svc.plies] == ["e4", "d5"]
        play_line(svc, server, gid, ["e4d5"], first_ply=2)
        assert board_uci(svc) == server.games[gid].moves
    finally:
        svc.close()


def test_the_pads_menu_and_the_page_send_the_servers_commands(tmp_path, server):
    svc = online_service(tmp_path, server)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        cid = server.challenge_owner(OWNER)
        pump(svc, lambda: cid in svc.online.challenges)
        svc.online.answer_challenge(cid, True)
        gid = started(svc, server)
        assert "abort" in svc.online.commands() and "resign" not in svc.online.commands()
        # a lifted piece lights no targets ([online] targets is off by default)
        svc.sim_action({"action": "lift", "spot": "g1"})
        svc.step(0.2)
        assert svc.interaction.phase == "lifted" and not svc.interaction.targets
        svc.sim_action({"action": "place", "spot": "g1"})
        svc.step(0.2)
        svc.online.settings.targets = True  # the owner's choice: the Knight's two cells lit
        svc.sim_action({"action": "lift", "spot": "g1"})
        svc.step(0.2)
        assert svc.interaction.phase == "lifted"
        assert {svc.layout.spots[t].name for t in svc.interaction.targets} == {"f3", "h3"}
        svc.sim_action({"action": "place", "spot": "g1"})
        svc.step(0.2)
        svc.online.settings.targets = False
        with pytest.raises(ServiceError, match="resign or abort it first"):
            svc.new_game("chess")
        play_line(svc, server, gid, GAME[:4])
        # the opponent offers a draw: the board's menu offers to accept it; declined
        server.answer(gid, "draw")
        pump(svc, lambda: "accept draw" in svc.board.progress.commands)
        _choose_on_pads(svc, "decline draw")
        pump(svc, lambda: server.games[gid].draw is None)
        # the opponent leaves: claim victory, from the page
        server.leave(gid)
        pump(svc, lambda: "claim victory" in svc.online.commands())
        svc.online.command("claim victory")
        pump(svc, lambda: svc.outcome is not None)
        assert svc.outcome.winners == (0,)
        assert server.games[gid].status == "timeout"
        with pytest.raises(ValueError, match="not possible now"):
            svc.online.command("resign")
    finally:
        svc.close()


def _touch(svc, pad: str) -> None:
    """A piece on an option pad and off again."""
    svc.sim_action({"action": "take", "object": "white-E"})
    svc.sim_action({"action": "place", "spot": pad})
    svc.step(0.1)
    svc.sim_action({"action": "lift", "spot": pad})
    svc.sim_action({"action": "set_aside"})
    svc.step(0.1)


def _choose_on_pads(svc, name: str) -> None:
    """The command menu opened with an option pad, ``name`` chosen on its pad."""
    _touch(svc, svc.layout.pads("option")[0].name)
    assert svc.interaction.phase == "choice", svc.interaction
    labels = [o.label for o in svc.interaction.options]
    assert name in svc.choice_labels(), svc.choice_labels()
    while name not in labels:  # "more…" turns the page
        more = next(o for o in svc.interaction.options if o.label == "more…")
        _touch(svc, svc.layout.spots[more.spot].name)
        labels = [o.label for o in svc.interaction.options]
    option = next(o for o in svc.interaction.options if o.label == name)
    _touch(svc, svc.layout.spots[option.spot].name)


def test_from_the_pads_alone_a_seek_starts_a_game_and_a_resignation_ends_it(tmp_path,
                                                                          server):
    svc = online_service(tmp_path, server, game="chess")
    try:
        pump(svc, lambda: "seek online" in svc.board.progress.commands)
        _choose_on_pads(svc, "seek online")  # as the page last did: 10+5 casual
        gid = started(svc, server)
        assert server.games[gid].initial_ms == 600_000
        seat = svc.online.record["seat"]
        play_line(svc, server, gid, GAME[:4], owner_seat=seat)
        _choose_on_pads(svc, "resign")
        pump(svc, lambda: svc.outcome is not None)
        assert svc.outcome.winners == (1 - seat,) and server.games[gid].status == "resign"
        pump(svc, lambda: "seek online" in svc.board.progress.commands)  # another one
    finally:
        svc.close()


def test_resigning_from_the_page_ends_the_game_as_the_server_says(tmp_path, server):
    svc = online_service(tmp_path, server)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        svc.online.seek(15, 10, False, "black")
        gid = started(svc, server)
        assert svc.online.record["seat"] == 1
        play_line(svc, server, gid, GAME[:4], owner_seat=1)
        svc.command("resign")
        pump(svc, lambda: svc.outcome is not None)
        assert svc.outcome.winners == (0,) and server.games[gid].status == "resign"
        svc.command("coach on")  # after the game the engine's help is the owner's again
        assert svc.coach.on
    finally:
        svc.close()


def test_a_power_cut_mid_game_goes_on_after_the_restart(tmp_path, server):
    svc = online_service(tmp_path, server)
    pump(svc, lambda: svc.online.me == OWNER)
    svc.online.seek(10, 5, False, "white")
    gid = started(svc, server)
    play_line(svc, server, gid, GAME[:5])
    svc.online.close()  # the power goes: nothing more reaches the server
    svc.sensing.close()
    server.play(gid, GAME[5])  # the opponent moves meanwhile
    again = online_service(tmp_path, server)
    try:
        assert again.online.record["id"] == gid  # from the journal
        again.sim_action({"action": "arrange"})
        pump(again, lambda: again.interaction.phase == "execute")
        make(again, GAME[5])  # the opponent's move made meanwhile, shown to make
        play_line(again, server, gid, GAME[6:9], first_ply=6)
        assert board_uci(again) == server.games[gid].moves == GAME[:9]
    finally:
        again.close()


def test_a_lost_journal_finds_the_ongoing_game_on_the_event_stream(tmp_path, server):
    gid = server.new_game(OWNER, "sparring")
    for i, uci in enumerate(GAME[:4]):  # played elsewhere before the board came up
        server._move(gid, OWNER if i % 2 == 0 else "sparring", uci)
    svc = online_service(tmp_path, server)
    try:
        pump(svc, lambda: svc.online.seat is not None and svc.online.seat.server is not None)
        assert svc.online.record["id"] == gid
        svc.sim_action({"action": "arrange"})
        for i in range(4):  # each server move shown, one at a time, to make
            pump(svc, lambda: svc.interaction.phase == "execute")
            make(svc, GAME[i])
        play_line(svc, server, gid, GAME[4:7], first_ply=4)
        assert board_uci(svc) == server.games[gid].moves == GAME[:7]
    finally:
        svc.close()


@pytest.mark.parametrize("who", ["server", "owner"])
def test_an_aborted_game_leaves_no_result(tmp_path, server, who):
    svc = online_service(tmp_path, server)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        svc.online.seek(10, 5, False, "white")
        gid = started(svc, server)
        play_line(svc, server, gid, GAME[:1])
        first = svc.game_id
        if who == "server":
            server.end(gid, "aborted")  # the opponent never moved: lichess aborts
        else:
            svc.online.command("abort")  # the page's (or the pads') Abort
        pump(svc, lambda: svc.game_id != first)
        assert svc.online.record is None and not svc.online.playing
        assert "seek online" in svc.online.idle_commands()
    finally:
        svc.close()
    record = next(r for r in Journal(tmp_path / "journal").games() if r.id == first)
    assert record.result in (None, "*")


def test_castling_made_rook_first_is_sent_as_castling_once(tmp_path, server):
    svc = online_service(tmp_path, server)
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        svc.online.seek(10, 5, False, "white")
        gid = started(svc, server)
        play_line(svc, server, gid, "e2e4 e7e5 g1f3 b8c6 f1c4 g8f6".split())
        for spot, action in (("h1", "lift"), ("f1", "place")):  # the Rook first: Rf1
            svc.sim_action({"action": action, "spot": spot})
            svc.step(0.1)
        svc.step(0.3)
        assert [t for _, t in svc.plies][-1] == "Rf1"  # committed, held back
        for spot, action in (("e1", "lift"), ("g1", "place")):  # then the King: O-O
            svc.sim_action({"action": action, "spot": spot})
            svc.step(0.1)
        pump(svc, lambda: len(server.games[gid].moves) == 7)
        svc.step(2.0)  # past the wait: nothing more is sent
        assert server.games[gid].moves[-1] == "e1g1"
        assert sent_moves(server) == ["e2e4", "g1f3", "f1c4", "e1g1"]
        play_line(svc, server, gid, ["f8c5"], first_ply=7)
        assert board_uci(svc) == server.games[gid].moves
    finally:
        svc.close()


def test_stopping_a_seek_withdraws_it_on_the_server(tmp_path, server):
    """lichess keeps a board's seek while its stream is open and sends nothing on it but
    keep-alives (if that): the board closes the stream to withdraw it (a seek the board
    forgot but the server kept would start a game nobody plays)."""
    server.pair_seeks = False  # nobody takes the seek: it stays open
    svc = online_service(tmp_path, server, game="chess")
    try:
        pump(svc, lambda: "seek online" in svc.board.progress.commands)
        _choose_on_pads(svc, "seek online")
        pump(svc, lambda: len(server.open_seeks) == 1)
        pump(svc, lambda: "stop seeking" in svc.board.progress.commands)
        _choose_on_pads(svc, "stop seeking")
        pump(svc, lambda: not server.open_seeks)  # the server saw the stream closed
        assert server.seeks_withdrawn == 1 and svc.online.seeking is None
        # stopped and sought again at once: the first is withdrawn, the second kept
        svc.online.seek(10, 5, False, "white")
        pump(svc, lambda: len(server.open_seeks) == 1)
        svc.online.cancel_seek()
        svc.online.seek(15, 10, False, "white")
        pump(svc, lambda: server.seeks_withdrawn == 2 and len(server.open_seeks) == 1)
        pump(svc, lambda: sum(t.name == "online-seek" and t.is_alive()
                              for t in svc.online._threads) == 1)  # the first one's done
        svc.step(0.1)  # (and what it said read)
        assert svc.online.seeking is not None and svc.online.seeking["clock"] == "15+10"
        assert server.take_seek() is not None  # an opponent takes it: the game is played
        gid = started(svc, server)
        assert server.games[gid].initial_ms == 15 * 60_000 and svc.online.seeking is None
        assert server.seeks_withdrawn == 2
        svc.online.command("abort")
        pump(svc, lambda: svc.online.record is None)
        # a server that sends a seek no line at all: stopped all the same, at once
        server.seek_keepalive = False
        svc.online.seek(10, 5, False, "white")
        pump(svc, lambda: len(server.open_seeks) == 1)
        svc.online.cancel_seek()
        pump(svc, lambda: server.seeks_withdrawn == 3, limit_s=5)  # (its silence: 20 s)
        assert not server.open_seeks
    finally:
        svc.close()


def test_the_opponents_takeback_and_draw_offers_agreed_on_the_pads(tmp_path, server):
    svc = online_service(tmp_path, server, game="chess")
    try:
        pump(svc, lambda: svc.online.me == OWNER)
        svc.online.seek(10, 5, False, "white")
        gid = started(svc, server)
        play_line(svc, server, gid, GAME[:4])
        # the opponent asks to take his move back: agreed on the pads, the board set back
        server.answer(gid, "takeback")
        pump(svc, lambda: "accept takeback" in svc.board.progress.commands)
        _choose_on_pads(svc, "accept takeback")
        pump(svc, lambda: len(server.games[gid].moves) == 3)
        pump(svc, lambda: svc.interaction.phase == "setup")  # f7f5 to take back here
        svc.sim_action({"action": "arrange"})
        pump(svc, lambda: len(svc.position.moves) == 3 and svc.interaction.phase != "setup")
        assert board_uci(svc) == server.games[gid].moves == GAME[:3]
        play_line(svc, server, gid, GAME[3:6], first_ply=3)  # played again, on both
        # the opponent offers a draw: agreed on the pads
        server.answer(gid, "draw")
        pump(svc, lambda: "accept draw" in svc.board.progress.commands)
        _choose_on_pads(svc, "accept draw")
        pump(svc, lambda: svc.outcome is not None)
        assert svc.outcome.winners == () and server.games[gid].status == "draw"
        assert board_uci(svc) == server.games[gid].moves == GAME[:6]
        assert len(svc.plies) == 6  # the journal took the move back too
    finally:
        svc.close()
