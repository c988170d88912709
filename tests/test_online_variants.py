"""The board's own online client (``controller/online/``: the seat at a simulated board)
plays whole games of every variant on the real fairyboard server (loopback), against
players driven through the server's HTTP API — with no code path of its own: the same
:class:`OnlineSeat` as on lichess.  Lùotuoqí, Gnu Qi, KaleidoChess (2 seats with dice, and
3 seats), Lotus-39; Lao Tzu Chess, where the board holds only its seat's view and nothing
the client receives holds a hidden piece; a game this board's layout cannot play is
declined in one line."""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest

from controller.config import OnlineSettings
from controller.online.api import BoardApi, OnlineError
from controller.online.game import game_full
from controller.online.room import OnlineRoom
from controller.online.seat import OnlineSeat
from controller.rules import get_game
from controller.rules.core import Game
from controller.server.hub import Hub
from controller.sight import Sight
from controller.wire import wire_move
from tests.support.clubserver import ClubServer, challenge_game, seek_together
from tests.support.fog import FogPlayer
from tests.support.gnuqi import GnuQiHuman
from tests.support.kaleidochess import KHuman, KRig, pick
from tests.support.linkplay import finishing_move
from tests.support.lotus39 import LotusHuman, LotusRig
from tests.support.rig import Human, Rig

#: plies before the server-side player resigns (a game that has not ended by itself)
LIMIT = 20
#: the Lao Tzu game: its plies before the resignation, and its players' seed (one of the
#: board's tries is refused: an enemy piece it cannot see stands in the way)
LAO_PLIES, LAO_SEED = 12, 8


@pytest.fixture
def club(tmp_path):
    server = ClubServer(tmp_path).start()
    yield server
    server.stop()


def _pump(seat: OnlineSeat, rig: Rig, until, limit_s: float = 20.0) -> None:
    deadline = time.monotonic() + limit_s
    while not until():
        assert time.monotonic() < deadline, (rig.state, rig.interaction.message,
                                             seat.problem)
        seat.tick()
        rig.wait(0.02)
        time.sleep(0.005)


def _board_for(game: Game) -> tuple[Rig, Human]:
    """The simulated board and hand that play ``game`` (each game's own gestures)."""
    if game.name == "kaleidochess":
        rig = KRig(game=game)
        return rig, KHuman(rig, random.Random(2))
    if game.name == "lotus39":
        rig = LotusRig(game=game, backend=None)
        return rig, LotusHuman(rig, random.Random(2))
    rig = Rig(game=game)
    if game.name == "gnuqi":
        human = GnuQiHuman(rig, random.Random(2))
        human.orders = []
        return rig, human
    return rig, Human(rig, random.Random(2))


def _choose(game: Game, pos, rng: random.Random):
    """A seeded player who ends games soon (in KaleidoChess, one who keeps his castles:
    giving up is what ends those games soonest)."""
    if game.name == "kaleidochess":
        return pick(game, pos, game.legal_moves(pos), rng, keep_castle=1.0)
    return finishing_move(game, pos, rng)


def _play_open_game(club, gid: str, apis: list[BoardApi], owner: str, seed: int) -> Rig:
    """The owner's board (seat of account ``owner``) and the others (``apis``, seat
    order) play ``gid`` until it ends (the others resign after :data:`LIMIT` plies); every
    move chosen from the server's position by a seeded player who ends games soon."""
    g = club.hub.games[gid]
    me = g.seats.index(owner)
    game = g.game  # (the server's; the players choose from what the board was told)
    rig, human = _board_for(get_game(g.name, **g.options))
    seat = OnlineSeat(apis[me], rig.board, gid, owner, backoff_s=(0.05, 0.1))
    rng = random.Random(seed)
    try:
        _pump(seat, rig, lambda: seat.server is not None)
        assert seat.problem is None and len(seat.server.players) == len(g.seats)
        def synced() -> bool:  # the board, the client and the server agree, no roll due
            plies = len(rig.position.moves)
            legal = rig.game.legal_moves(rig.position)
            return (rig.state == "turn" and plies == len(seat.server.moves) == g.ply
                    and not all(m.kind == "roll" for m in legal))
        while not (g.ended and rig.state == "game_over"):
            if rig.state == "execute":  # another seat's move (or a roll) shown here
                human.play(rig.board.progress.execute)
            elif g.ended or not synced():
                _pump(seat, rig, lambda: rig.state in ("execute", "game_over") or synced())
            elif g.ply >= LIMIT:
                apis[(me + 1) % len(apis)].resign(gid)
                _pump(seat, rig, lambda: rig.state == "game_over")
            else:  # a move chosen from the position the server told the board
                plies, pos = g.ply, rig.position.copy()
                mover = rig.game.ply_mover(pos)
                move = _choose(rig.game, pos.copy(), rng)
                if mover == me:
                    human.play(move)
                else:
                    apis[mover].move(gid, wire_move(rig.game, pos, move))
                _pump(seat, rig, lambda plies=plies: g.ply > plies)
        _pump(seat, rig, lambda: seat.server is not None and seat.server.ended)
    finally:
        seat.close()
    # the server's record is the board's game, each ply once, in the wire's notation
    pos = game.start()
    texts = club.server.store.moves(gid)
    assert len(texts) == len(rig.position.moves) == g.ply
    for text, move in zip(texts, rig.position.moves, strict=True):
        assert wire_move(game, pos, move) == text
        pos.push(move)
    assert tuple(rig.board.outcome.winners) == tuple(g.winners)
    assert seat.server.winners == g.winners
    return rig


@pytest.mark.parametrize(("name", "options", "owner_seat", "seed"), [
    ("luotuoqi", {}, 1, 3),
    ("gnuqi", {}, 0, 4),
    ("kaleidochess", {"dice": True}, 1, 5),
    ("lotus39", {}, 0, 6),
])
def test_the_boards_client_plays_a_whole_game_of_each_variant(club, name, options,
                                                               owner_seat, seed):
    owner, other = club.player("owner"), club.player("sparring")
    first, second = (owner, other) if owner_seat == 0 else (other, owner)
    club.hub.dice = random.Random(2)  # (the server's dice, seeded: a game of 20 plies)
    gid, api_a, api_b = challenge_game(club, first, second, name, options)
    try:
        rig = _play_open_game(club, gid, [api_a, api_b], "owner", seed)
        g = club.hub.games[gid]
        if options.get("dice"):  # the server's rolls were plies the board made too
            assert any(m.kind == "roll" for m in rig.position.moves)
            assert all(t.startswith("die:") for t in club.server.store.moves(gid)[::2])
        assert g.seats[owner_seat] == "owner"
    finally:
        api_a.close()
        api_b.close()


def test_the_boards_client_plays_a_three_seat_kaleidochess_game(club, monkeypatch):
    # the seats in the players' names' order (the product shuffles them)
    monkeypatch.setattr(Hub, "_seat_order",
                        staticmethod(lambda group: sorted(s.account for s in group)))
    players = [club.player(n) for n in ("alice", "owner", "zoe")]
    gid, apis = seek_together(club, [t for _, t in players], "kaleidochess", {"players": 3})
    g = club.hub.games[gid]
    assert g.seats == ("alice", "owner", "zoe")
    try:
        _play_open_game(club, gid, apis, "owner", seed=7)
    finally:
        for api in apis:
            api.close()


class Recording(BoardApi):
    """The owner's client, keeping every line and answer the server sent it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.received: list[dict[str, Any]] = []

    def request(self, *args: Any, **kwargs: Any) -> dict[str, Any]:
        answer = super().request(*args, **kwargs)
        self.received.append(answer)
        return answer

    def stream(self, *args: Any, **kwargs: Any):
        for line in super().stream(*args, **kwargs):
            self.received.append(line)
            yield line


def _opponent_plays(club, api: BoardApi, gid: str, seat: int, rng: random.Random) -> None:
    """A server-side player tries moves from its own view until one is taken."""
    g = club.hub.games[gid]
    game = g.game
    view = game.parse_view(g.views[seat].position)
    moves = game.board_moves(view)
    rng.shuffle(moves)
    for move in moves:
        try:
            api.move(gid, game.long_move_text(view, move))
            return
        except OnlineError as exc:
            assert "illegal move" in str(exc)
    raise AssertionError("no move was taken")


def test_laotzu_the_board_holds_only_its_view_and_nothing_leaks(club):
    owner, other = club.player("owner"), club.player("sparring")
    gid, api_other, api_plain = challenge_game(club, other, owner, "laotzu")
    api_plain.close()
    api = Recording(club.url, owner[1], silence_s=5.0)
    g = club.hub.games[gid]
    me = g.seats.index("owner")
    first = game_full(next(api.stream_game(gid)), "owner")
    assert first.hidden and first.moves == () and first.seat == me == 1
    player = FogPlayer(me, "laotzu", first.options, first.view, random.Random(4))
    player.sync.detach()  # the online seat follows the server's views instead
    rig = player.rig
    seat = OnlineSeat(api, rig.board, gid, "owner", backoff_s=(0.05, 0.1))
    rng, boards, refused = random.Random(LAO_SEED), [], 0

    def answered() -> bool:
        return (seat.fog is not None and not seat.fog.waiting and seat.server is not None
                and seat.server.ply == g.ply and seat.fog.ply == g.ply)
    try:
        _pump(seat, rig, lambda: seat.fog is not None)
        player.sync = seat.fog
        player.follow()
        while g.ply < LAO_PLIES:
            _pump(seat, rig, answered)
            player.follow()
            boards.append((g.ply, rig.game.position_text(rig.position)))
            if g.turn != me:
                _opponent_plays(club, api_other, gid, 1 - me, rng)
                continue
            tries = player.tries()
            rng.shuffle(tries)
            # the test (not the board) knows the truth: a try it would refuse goes first
            truth = club.hub.referee.games[gid]
            legal = {truth.game.long_move_text(truth.pos, m)
                     for m in truth.game.legal_moves(truth.pos)}
            ok = [m for m in tries if rig.game.long_move_text(rig.position, m) in legal]
            tries = [m for m in tries if m not in ok][:1] + ok
            for move in tries:
                plies = g.ply
                player.play(move)
                _pump(seat, rig, lambda: not seat.fog.waiting)
                if g.ply > plies:
                    break
                refused += 1  # the board shows the refusal: the move is set back
                player.follow()
            else:
                raise AssertionError("no try was taken")
        _pump(seat, rig, answered)
        player.follow()  # (the game ends on the board once it shows the last view)
        api_other.resign(gid)
        _pump(seat, rig, lambda: rig.state == "game_over")
        assert refused >= 1  # (the refusal was shown, and the move set back)
        assert rig.board.outcome.winners == (me,)
    finally:
        seat.close()
        api.close()
        api_other.close()
    assert not rig.board.referee_judges and rig.board.serving is None  # let go
    # the truth, told only now that the game has ended
    game = get_game("laotzu", **club.hub.referee.games[gid].options)
    positions = [game.start()]
    for text in g.moves:
        pos = positions[-1].copy()
        pos.push(game.parse_move(pos, text))
        positions.append(pos)
    views = {p: game.position_text(game.view_position(t, me)) for p, t in enumerate(positions)}
    lines = [line for line in api.received if line]
    assert len(lines) > 10
    for line in lines:
        raw = json.dumps(line)
        for secret in ("white_array", "black_array", "seed"):
            assert secret not in raw
        state = line.get("state", line)
        if "status" not in state or state["status"] != "started":
            continue
        assert state["moves"] == "" and line.get("initialFen", "startpos") == "startpos"
        assert state["view"] == views[state["ply"]]
        truth = positions[state["ply"]]
        visible = Sight(game, truth, me).visible
        for cell, piece in enumerate(game.parse_view(state["view"]).board):
            if piece is not None and piece.owner != me:
                assert cell in visible, f"a hidden piece on {cell} reached the board"
    # the board itself held its view after every ply, never more
    for ply, text in boards:
        assert text == game.position_text(game.parse_view(views[ply]))


def test_a_game_for_another_board_is_declined_in_one_line(club):
    """A Gnu Qi game (9×9) reaching a board set for chess (8×8): one line, no move."""
    owner, other = club.player("owner"), club.player("sparring")
    gid, api_a, api_b = challenge_game(club, owner, other, "gnuqi")
    rig = Rig(game="chess")
    notices = []
    seat = OnlineSeat(api_a, rig.board, gid, "owner", on_notice=notices.append,
                      backoff_s=(0.05, 0.1))
    try:
        _pump(seat, rig, lambda: seat.problem is not None)
        for _ in range(5):
            seat.tick()
            rig.wait(0.05)
    finally:
        seat.close()
        api_a.close()
        api_b.close()
    assert [n.text for n in notices] == [seat.problem]
    assert "Gnu Qi" in seat.problem and "cannot play it" in seat.problem
    assert "\n" not in seat.problem and rig.position.moves == [] and seat.server is None


class _Host:
    """A board set for chess only (a real board's printed layout, not the simulator)."""

    def __init__(self) -> None:
        self.board = Rig(game="chess").board
        self.begun: list[str] = []

    def changed(self) -> None:
        pass

    def begin_online(self, game, options, setup, names) -> None:
        self.begun.append(game.name)

    def online_set_back(self, plies: int) -> None:
        pass

    def online_aborted(self) -> None:
        pass

    def online_layout_problem(self, game) -> str | None:
        return None if game.name == "chess" else "this board's layout is made for chess"


def _room(club, host, tmp_path):
    """An online room on the club server for ``host``, and its ``tick_until(condition)``
    (the room ticked until the condition holds, for at most 15 s)."""
    room = OnlineRoom(OnlineSettings(server=club.url, token_file=str(tmp_path / "token")),
                      host, backoff_s=(0.05, 0.1))
    deadline = time.monotonic() + 15

    def tick_until(condition) -> None:
        while not condition():
            assert time.monotonic() < deadline, list(room.notices)
            room.tick(host.board)
            time.sleep(0.02)
    return room, tick_until


def test_the_room_declines_a_game_its_layout_cannot_play(club, tmp_path):
    """A challenge to a game this board cannot play is not accepted (one line); a game
    that starts anyway (sought with the account elsewhere) is said in one line and
    aborted on the server, never set up."""
    from controller.online.room import OnlineRefused

    owner, other = club.player("owner"), club.player("sparring")
    host = _Host()
    room, tick_until = _room(club, host, tmp_path)
    other_api = club.client(other[1])
    try:
        room.set_token(owner[1])
        tick_until(lambda: room.me == "owner")
        other_api.challenge("owner", 10, 0, variant="gnuqi")
        tick_until(lambda: bool(room.challenges))
        with pytest.raises(OnlineRefused, match="^Gnu Qi: this board's layout is made for "
                                                "chess$"):
            room.answer_challenge(next(iter(room.challenges)), True)
        with pytest.raises(OnlineRefused, match="^Gnu Qi: this board"):
            room.seek(10, 5, False, "random", variant="gnuqi")
        gid, apis = seek_together(club, [owner[1], other[1]], "gnuqi", {})
        tick_until(lambda: club.hub.games[gid].status == "aborted")
        room.tick(host.board)
        for api in apis:
            api.close()
    finally:
        room.close()
        other_api.close()
    assert host.begun == [] and room.record is None
    problem = [n for n in room.notices if "layout" in n]
    assert problem == [f"⚠ game {gid} is Gnu Qi: this board's layout is made for chess"]


def test_stop_seeking_withdraws_the_seek_on_the_fairyboard_server(club, tmp_path):
    """The server sends a seek nothing but keep-alives; the board's *Stop seeking* closes
    the seek's stream at the next one, and the server withdraws the seek."""
    owner = club.player("owner")
    host = _Host()
    room, tick_until = _room(club, host, tmp_path)
    try:
        room.set_token(owner[1])
        tick_until(lambda: room.me == "owner")
        room.seek(10, 5, False, "random")
        tick_until(lambda: [s.account for s in club.hub.seeks] == ["owner"])
        room.cancel_seek()
        tick_until(lambda: not club.hub.seeks)
    finally:
        room.close()
    assert host.begun == [] and room.seeking is None


def test_one_notation_on_both_ends():
    """The server and the board's client read and write moves with one function: every
    legal move of each game's start (and after a few plies) goes out as one word that
    reads back as that move; standard chess castles as lichess writes it."""
    import controller.online.seat as client_seat
    import controller.server.hub as server_hub
    from controller.rules import GAMES
    from controller.wire import read_move

    assert server_hub.wire_move is client_seat.wire_move is wire_move
    for name in GAMES:
        game = get_game(name)
        pos, rng = game.start(), random.Random(1)
        for _ in range(6):
            legal = game.legal_moves(pos)
            if not legal:
                break
            for move in legal:
                text = wire_move(game, pos, move)
                assert text and not any(c.isspace() for c in text), (name, text)
                assert read_move(game, pos, text) == move, (name, text)
            pos.push(rng.choice(legal))
    chess = get_game("chess")
    pos = chess.parse_position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    castles = sorted(wire_move(chess, pos, m) for m in chess.legal_moves(pos)
                     if m.kind == "castle")
    assert castles == ["e1c1", "e1g1"]
    chess960 = get_game("chess", chess960=True, array=518)
    pos = chess960.parse_position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert sorted(wire_move(chess960, pos, m) for m in chess960.legal_moves(pos)
                  if m.kind == "castle") == ["e1a1", "e1h1"]


def _online_service(club, tmp_path, token: str):
    """The whole board (service, room, seat) on the simulated board, its token saved."""
    from controller.online.token import save_token
    from controller.service import BoardService
    from tests.support.service import make_config

    config = make_config(tmp_path)
    config.online.server = club.url
    config.online.token_file = str(tmp_path / "online-token")
    save_token(tmp_path / "online-token", token)
    svc = BoardService(config)
    svc.online.backoff_s = (0.05, 0.1)
    return svc


def _challenged(svc, opponent: BoardApi, variant: str) -> str:
    """The opponent challenges the owner (who plays White), the board accepts and sets
    the game up: its id."""
    from tests.support.online import pump

    pump(svc, lambda: svc.online.me == "owner")
    opponent.challenge("owner", 10, 0, color="black", variant=variant)
    pump(svc, lambda: bool(svc.online.challenges))
    svc.online.answer_challenge(next(iter(svc.online.challenges)), True)
    pump(svc, lambda: svc.online.seat is not None and svc.online.seat.server is not None)
    svc.sim_action({"action": "arrange"})
    pump(svc, lambda: svc.interaction.phase == "turn")
    return svc.online.record["id"]


def test_the_board_service_plays_a_gnuqi_game_from_the_server(club, tmp_path):
    """The whole board (service, room, seat, the simulated 8×8 board taking the 9×9
    layout made for Gnu Qi) plays a game a server player challenged it to."""
    from tests.support.online import make, pump

    owner, other = club.player("owner"), club.player("sparring")
    svc = _online_service(club, tmp_path, owner[1])
    opponent = club.client(other[1])
    rng = random.Random(3)
    try:
        gid = _challenged(svc, opponent, "gnuqi")
        assert svc.game.name == "gnuqi" and "gnuqi" in svc.layout.games
        g = club.hub.games[gid]
        for ply in range(8):
            pump(svc, lambda ply=ply: len(svc.position.moves) == ply == g.ply
                 and svc.interaction.phase in ("turn", "execute"))
            pos = svc.position
            move = rng.choice([m for m in svc.game.legal_moves(pos)
                               if m.kind == "move" and not m.promotion])
            text = wire_move(svc.game, pos, move)
            if ply % 2:  # the server player's move, then made on the board as shown
                opponent.move(gid, text)
                pump(svc, lambda: svc.interaction.phase == "execute")
                assert svc.board.progress.execute == move
            make(svc, text)
        pump(svc, lambda: g.ply == 8)
        opponent.resign(gid)
        pump(svc, lambda: svc.outcome is not None)
        assert svc.outcome.winners == (0,)
        assert club.server.store.moves(gid) == [
            wire_move(svc.game, p, m) for p, m in _replayed(svc.game, svc.position.moves)]
    finally:
        svc.close()
        opponent.close()


def _replayed(game: Game, moves):
    pos = game.start()
    for move in moves:
        yield pos.copy(), move
        pos.push(move)


def test_the_board_service_plays_laotzu_from_the_server_seeing_only_its_view(club, tmp_path):
    """The whole board in a Lao Tzu game: the service's position (what its page, voice
    and journal read) is the owner's view after every ply, never the whole position."""
    from tests.support.online import pump

    owner, other = club.player("owner"), club.player("sparring")
    svc = _online_service(club, tmp_path, owner[1])
    opponent = club.client(other[1])
    rng, shown = random.Random(2), []
    try:
        gid = _challenged(svc, opponent, "laotzu")
        g = club.hub.games[gid]
        seat = svc.online.seat
        assert svc.fog is seat.fog is not None and svc.page_viewer(None) == 0
        while g.ply < 8:
            pump(svc, lambda: seat.server.ply == seat.fog.ply == g.ply
                 and not seat.fog.waiting)
            svc.sim_action({"action": "arrange"})  # the owner sets his board to the view
            pump(svc, lambda: svc.interaction.phase == "turn")
            shown.append((g.ply, svc.game.position_text(svc.position)))
            if g.turn == 1:
                _opponent_plays(club, opponent, gid, 1, rng)
                continue
            _board_plays_a_legal_move(svc, club, gid, g, rng)
        # the plies counted, not the moves (none told): resigning, no longer aborting
        assert "resign" in svc.online.commands() and "abort" not in svc.online.commands()
        assert "takeback" not in svc.online.commands()
        opponent.resign(gid)
        pump(svc, lambda: seat.server.ended)
        svc.sim_action({"action": "arrange"})
        pump(svc, lambda: svc.outcome is not None)
        assert svc.outcome.winners == (0,)
    finally:
        svc.close()
        opponent.close()
    game = get_game("laotzu", **club.hub.referee.games[gid].options)
    pos = game.start()
    views = [game.position_text(game.view_position(pos, 0))]
    for text in g.moves:
        pos.push(game.parse_move(pos, text))
        views.append(game.position_text(game.view_position(pos, 0)))
    assert len(shown) == 8
    for ply, text in shown:
        assert text == game.position_text(game.parse_view(views[ply]))


def test_a_printed_boards_layout_says_which_games_it_cannot_play(tmp_path):
    """The service's answer to the online room: a simulated board takes any game's
    layout; a printed one plays only the games its layout is made for (one line)."""
    from controller.service import BoardService
    from tests.support.service import make_config

    svc = BoardService(make_config(tmp_path))
    try:
        assert svc.online_layout_problem(get_game("gnuqi")) is None  # (simulated)
        svc.sim = None  # a printed board: its own layout only
        assert svc.online_layout_problem(get_game(svc.game.name)) is None
        problem = svc.online_layout_problem(get_game("gnuqi"))
        assert problem.startswith(f"layout {svc.layout.name} is not made for gnuqi")
        assert "\n" not in problem
    finally:
        svc.close()


def test_a_restart_mid_laotzu_online_game_resumes_it_from_the_servers_view(club, tmp_path):
    """A power cut in an online Lao Tzu game: the journal holds the owner's view and his
    tries, never the game, so it is not replayed (it used to be quarantined as unreadable);
    the board comes back on that game and the server's view brings it up to date."""
    from tests.support.online import pump

    owner, other = club.player("owner"), club.player("sparring")
    svc = _online_service(club, tmp_path, owner[1])
    opponent = club.client(other[1])
    rng = random.Random(5)
    try:
        gid = _challenged(svc, opponent, "laotzu")
        g = club.hub.games[gid]
        seat = svc.online.seat
        while g.ply < 5:  # (then it is the server player's turn)
            pump(svc, lambda: seat.server.ply == seat.fog.ply == g.ply
                 and not seat.fog.waiting)
            svc.sim_action({"action": "arrange"})
            pump(svc, lambda: svc.interaction.phase == "turn")
            if g.turn == 1:
                _opponent_plays(club, opponent, gid, 1, rng)
                continue
            _board_plays_a_legal_move(svc, club, gid, g, rng)
        svc.close()  # the power cut: the board comes back on the same journal
        _opponent_plays(club, opponent, gid, 1, rng)  # (a move made while it was off)
        svc = _online_service(club, tmp_path, owner[1])
        assert svc.scorebook.problems == []  # nothing quarantined
        assert svc.online.record is not None and svc.online.record["id"] == gid
        pump(svc, lambda: svc.online.seat is not None and svc.online.seat.server is not None
             and svc.online.seat.fog is not None and svc.online.seat.fog.ply == g.ply)
        truth = club.hub.referee.games[gid]
        assert svc.game.position_text(svc.position) == truth.game.position_text(
            truth.game.parse_view(g.views[0].position))
        opponent.resign(gid)
        pump(svc, lambda: svc.online.seat.server.ended)
        svc.sim_action({"action": "arrange"})
        pump(svc, lambda: svc.outcome is not None)
        assert svc.outcome.winners == (0,)
    finally:
        svc.close()
        opponent.close()


def test_an_open_challenge_from_the_board_is_joined_on_the_fairyboard_server(club, tmp_path):
    """The board's open challenge (the page's *Open challenge*) on the fairyboard server:
    its address comes back to the board, and any two players who follow it play."""
    owner, bob, carol = club.player("owner"), club.player("bob"), club.player("carol")
    host = _Host()
    room, tick_until = _room(club, host, tmp_path)
    joiners = [club.client(bob[1]), club.client(carol[1])]
    try:
        room.set_token(owner[1])
        tick_until(lambda: room.me == "owner")
        room.open_challenge(5, 2)
        tick_until(lambda: room.open_url is not None)
        (cid,) = club.hub.open_challenges
        assert room.open_url == f"{club.url}/{cid}"
        for api, colour in zip(joiners, ("white", "black"), strict=True):
            api.request("POST", f"/api/challenge/{cid}/accept", "join", data={"color": colour})
        (g,) = club.hub.games.values()
        assert (g.seats, g.clock, g.name) == (("bob", "carol"), (300_000, 2000), "chess")
    finally:
        room.close()
        for api in joiners:
            api.close()


def _board_plays_a_legal_move(svc, club, gid: str, g, rng) -> None:
    """The owner makes, on the simulated board, a move of his board's that the referee's
    truth holds legal (chosen by ``rng``), and the server takes it."""
    from controller.web.simulator import move_actions
    from tests.support.online import pump

    truth = club.hub.referee.games[gid]
    legal = {truth.game.long_move_text(truth.pos, m)
             for m in truth.game.legal_moves(truth.pos)}
    pos = svc.position
    move = rng.choice([m for m in svc.game.board_moves(pos)
                       if svc.game.long_move_text(pos, m) in legal])
    plies = g.ply
    for action in move_actions(svc.game, pos, move, svc.layout):
        svc.sim_action(action)
        svc.step(0.03)
    pump(svc, lambda: g.ply > plies)
