"""The referee over a real Mosquitto set up as docs/link.md says (passwords, the ACL):
two players' own simulated boards play Lao Tzu Chess to the end through it, the referee
is killed and restarted mid-game, and a spy with one player's credentials subscribed to
``#`` never receives anything that player may not know."""

from __future__ import annotations

import logging
import threading

from controller.link.messages import (
    LinkError,
    SeatView,
    Start,
    State,
    decode,
)
from controller.link.referee import Referee, RefereeJournal
from tests.support.fog import decisive_try
from tests.support.refereed import CLUB, LinkedFogBoard, RefereeThread, documented_broker, until

SEATS = ("alpha", "beta")


class Tap:
    """Everything a board's own MQTT session receives on ``topic`` (subscribed on it)."""

    def __init__(self, link, topic: str) -> None:
        import paho.mqtt.client as mqtt

        self.received: list[tuple[str, bytes, bool]] = []
        self.subscribed = threading.Event()
        self.topic = topic
        inner = link.client.on_message

        def message(client, userdata, msg) -> None:
            if mqtt.topic_matches_sub(topic, msg.topic):
                self.received.append((msg.topic, bytes(msg.payload), bool(msg.retain)))
            inner(client, userdata, msg)

        previous = link.client.on_subscribe

        def subscribed(*args) -> None:
            self.subscribed.set()
            if previous is not None:
                previous(*args)

        link.client.on_message = message
        link.client.on_subscribe = subscribed
        link.subscribe(topic)


def test_a_refereed_game_over_the_documented_broker_leaks_nothing(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    broker, users = documented_broker(tmp_path / "broker")
    assert {"alpha", "beta", "referee"} <= set(users)
    journal = RefereeJournal(tmp_path / "referee.json")
    ref = RefereeThread(broker.port, users, Referee(CLUB, journal, seed="leak"))
    boards = [LinkedFogBoard(b, broker.port, users[b], seed=i + 5)
              for i, b in enumerate(SEATS)]
    # alpha's own session (the broker binds the client id to the user: a second login
    # as alpha would replace the board's) also subscribes to everything it may read
    spy = Tap(boards[0].mqtt, "#")
    peek = Tap(boards[0].mqtt, f"fairyboard/v1/{CLUB}/seats/beta/#")
    try:
        until(lambda: all(b.mqtt.connected for b in boards), *boards)
        assert spy.subscribed.wait(5) and peek.subscribed.wait(5)
        boards[0].seat.request(Start("t-1", "laotzu", {}, "", SEATS))
        until(lambda: all(b.player is not None for b in boards), *boards)
        players = [b.player for b in boards]
        referee = ref.referee
        g = referee.games["t-1"]
        restarted = False
        for _ in range(200):
            if g.game.outcome(g.pos) is not None:
                break
            if len(g.moves) == 10 and not restarted:  # the referee dies and comes back
                ref.stop()
                referee = Referee(CLUB, RefereeJournal(tmp_path / "referee.json"))
                ref = RefereeThread(broker.port, users, referee)
                g, restarted = referee.games["t-1"], True
            mover = g.game.ply_mover(g.pos)
            p = players[mover]
            truth = g.game.parse_position(g.game.position_text(g.pos))
            p.play(decisive_try(g.game, truth, p))
            ply = len(g.moves)
            until(lambda p=p: not p.sync.waiting, *boards)
            if len(g.moves) > ply:  # accepted: the other board has its new view
                other, plies = players[1 - mover], len(g.moves)
                until(lambda o=other, n=plies: o.sync.ply == n, *boards)
            for q in players:
                q.follow()
        outcome = g.game.outcome(g.pos)
        assert restarted and outcome is not None and outcome.reason == "checkmate"
        for q in players:
            assert q.rig.state == "game_over" and q.rig.board.outcome == outcome
        until(lambda: any(_is_final_state(t, p) for t, p, _ in spy.received), *boards)
    finally:
        for b in boards:
            b.close()
        ref.stop()
        broker.stop()
    assert peek.received == []  # the ACL: nothing of the other seat's topics
    _assert_no_leak(spy.received, g, seat=0)
    _assert_nothing_secret_logged(caplog.records, g)


def _is_final_state(topic: str, payload: bytes) -> bool:
    try:
        m = decode(payload)
    except LinkError:
        return False
    return isinstance(m, State) and m.result is not None


def _assert_no_leak(received, g, seat: int) -> None:
    """Every payload ``seat``'s credentials received, retained ones included: no enemy
    piece outside his view at that ply, no hidden option, no move before the end, and
    never the true position itself."""
    game = g.game
    replay = game.start()
    secrets, views = set(), []
    for ply in range(len(g.moves) + 1):
        views.append(game.player_view(replay, seat))
        true_board = game.position_text(replay).split("[")[0]
        if true_board != game.position_text(game.view_position(replay, seat)).split("[")[0]:
            secrets.add(true_board)  # something was hidden from him at this ply
        if ply < len(g.moves):
            replay.push(game.parse_move(replay, g.moves[ply]))
    assert secrets
    final = set(g.moves)
    seen_views = 0
    topics = set()
    for topic, payload, _retained in received:
        topics.add(topic)
        text = payload.decode()
        assert topic.startswith(f"fairyboard/v1/{CLUB}/")
        assert "/seats/beta/" not in topic and not topic.endswith("/attempt")
        assert not topic.endswith("/request")
        for secret in ("seed", "white_array", "black_array", g.options["seed"]):
            assert secret not in text, (topic, secret)
        if not payload:
            continue
        m = decode(payload)
        if isinstance(m, SeatView):
            assert m.seat == seat and topic.endswith("/seats/alpha/view")
            v = views[m.ply]
            held = game.parse_view(m.position)
            pieces = {(c, p) for c, p in enumerate(held.board) if p is not None}
            assert pieces == set(v.own) | set(v.enemies), (m.ply, m.position)
            seen_views += 1
        elif isinstance(m, State):
            assert m.moves == () or (m.result is not None and set(m.moves) <= final)
        elif isinstance(m, Start):
            assert not set(m.options) & game.hidden_options
        assert not any(true_board in text for true_board in secrets), topic
    assert seen_views >= len(g.moves), seen_views  # one each ply at least: all were seen
    assert f"fairyboard/v1/{CLUB}/games/t-1/state" in topics


def _assert_nothing_secret_logged(records, g) -> None:
    """No log line of the boards (or of the referee) carries the seed, a position or a
    move: the records hold ids, plies and seats."""
    for r in records:
        text = r.getMessage() + " " + " ".join(f"{k}={v}" for k, v in vars(r).items()
                                               if k not in logging.makeLogRecord({}).__dict__)
        assert g.options["seed"] not in text, text
        for move in g.moves:
            assert f"'{move}'" not in text and f"={move}" not in text, text


def test_a_refereed_game_needs_distinct_boards_and_the_seats_own_topic(tmp_path):
    """With the documented ACL a board cannot try a move as the other seat: its attempt on
    the other's topic never reaches the referee."""
    broker, users = documented_broker(tmp_path / "broker")
    ref = RefereeThread(broker.port, users, Referee(CLUB, seed="acl"))
    boards = [LinkedFogBoard(b, broker.port, users[b], seed=1) for b in SEATS]
    try:
        until(lambda: all(b.mqtt.connected for b in boards), *boards)
        boards[1].seat.request(Start("t-2", "laotzu", {}, "", SEATS))
        until(lambda: all(b.player is not None for b in boards), *boards)
        from controller.link.messages import Attempt, seat_topic

        # beta publishes White's first move on alpha's attempt topic: the ACL drops it
        boards[1].mqtt.publish(seat_topic(CLUB, "alpha", "attempt"),
                               Attempt("t-2", 1, 0, "e2e4"))
        # and as itself for White's seat: the referee ignores it (not beta's seat)
        boards[1].mqtt.publish(seat_topic(CLUB, "beta", "attempt"),
                               Attempt("t-2", 1, 0, "e2e4"))
        # alpha's own move goes through, so the two above were handled before it
        alpha = boards[0].player
        g = ref.referee.games["t-2"]
        move = next(m for m in alpha.tries() if m in set(g.game.legal_moves(g.pos)))
        alpha.play(move)
        until(lambda: not alpha.sync.waiting, *boards)
        assert g.moves == [alpha.rig.game.long_move_text(alpha.rig.game.start(), move)]
    finally:
        for b in boards:
            b.close()
        ref.stop()
        broker.stop()



def test_a_numbered_seed_repeats_the_nth_game_whatever_its_id():
    """``fairyboard referee --seed``: boards name games by the time, so the referee's
    n-th game must be the repeatable one; without ``numbered`` the id seeds it."""
    def first_seed(game_id: str, **kw) -> str:
        ref = Referee(CLUB, seed="demo", **kw)
        ref.start(Start(game_id, "laotzu", {}, "", ("alpha", "beta")))
        (game,) = ref.games.values()
        return game.options["seed"]

    assert first_seed("alpha-1", numbered=True) == first_seed("alpha-2", numbered=True)
    assert first_seed("alpha-1") != first_seed("alpha-2")
