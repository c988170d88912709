"""Linked boards through faults: a proxy between each board and the real Mosquitto cuts
connections, delays, duplicates and reorders MQTT packets, and the broker is stopped and
restarted mid-game — no move lost, doubled or forked (benchmarks/link_faults.py runs the
same for 1,000+ faults; figures in docs/reliability.md)."""

from __future__ import annotations

import random
import time

from controller.link.client import BrokerSettings, MqttLink
from controller.link.messages import MoveMessage, game_topic
from tests.support.faultproxy import FaultProxy, Faults, packet_length, redelivery
from tests.support.linkplay import LinkedBoards, cut_network, linked_service, power_cut
from tests.support.service import play, set_up
from tests.support.webtools import page_client

#: the CI run's mix: a few hundred faults in well under 30 s (with the restarts)
FAULTS = Faults(drop=0.01, duplicate=0.25, delay=0.15, reorder=0.2)


def test_packets_are_cut_at_their_mqtt_boundaries():
    small = bytes([0x32, 3, 0, 1, 0x61])  # PUBLISH QoS 1, remaining length 3
    assert packet_length(small) == 5 and packet_length(small[:4]) is None
    big = bytes([0x30, 0xC1, 0x02]) + bytes(321)  # remaining length 0x41 + 2 * 128
    assert packet_length(big) == 3 + 321 and packet_length(big[:100]) is None
    assert packet_length(b"\x30") is None
    assert redelivery(small)[0] == 0x3A and redelivery(small)[1:] == small[1:]


def _connected(*links: MqttLink) -> None:
    deadline = time.monotonic() + 10
    while not all(link.connected for link in links):
        assert time.monotonic() < deadline, "not connected"
        time.sleep(0.01)


def test_the_proxy_keeps_the_stream_valid_and_delivers_every_message(broker):
    """Through duplicates, reordering and delays on both sides every message arrives at
    least once, none is mangled (a mangled one would be refused as a problem), and the
    faults were really injected."""
    faults = Faults(duplicate=0.3, delay=0.2, reorder=0.3)
    proxies = [FaultProxy(broker.port, faults, seed) for seed in (1, 2)]
    sender, receiver = (MqttLink(BrokerSettings(port=p.port, club="test", board=name))
                        for p, name in zip(proxies, ("tx", "rx"), strict=True))
    topic = game_topic("test", "g1", "moves")
    try:
        _connected(sender, receiver)
        receiver.subscribe(topic)
        deadline = time.monotonic() + 10
        got: list[int] = []
        while not got:  # the first ply again until the subscription is in place
            assert time.monotonic() < deadline, "the subscription never took"
            sender.publish(topic, MoveMessage("g1", 1, 0, "m1", "d"))
            time.sleep(0.05)
            got += [m.ply for _, m in receiver.receive()]
        sent = 150
        for ply in range(2, sent + 1):
            sender.publish(topic, MoveMessage("g1", ply, 0, f"m{ply}", "d"))
        while set(got) != set(range(1, sent + 1)):
            assert time.monotonic() < deadline, sorted(set(range(1, sent + 1)) - set(got))
            got += [m.ply for _, m in receiver.receive()]
            time.sleep(0.01)
        assert receiver.problems == [] and sender.problems == []
        counts = proxies[0].counts + proxies[1].counts
        assert counts["duplicate"] > 20 and counts["reorder"] > 20 and counts["delay"] > 20
        assert len(got) > sent  # duplicates reached the board: the link must ignore them
    finally:
        for link in (sender, receiver):
            link.close()
        for p in proxies:
            p.close()


def test_two_boards_play_through_hundreds_of_faults(tmp_path, broker):
    """Random Lùotuoqí games through a faulty proxy per board, the connections also cut
    now and then, the broker restarted mid-game and moves taken back (agreed and
    declined): both boards and both journals hold exactly the plies made, in order;
    neither stops for a disagreement."""
    proxies = {name: FaultProxy(broker.port, FAULTS, seed) for seed, name
               in enumerate(("alpha", "beta"), start=11)}
    boards = LinkedBoards({name: linked_service(tmp_path, name, p.port)
                           for name, p in proxies.items()})
    rng = random.Random(19)
    restarts = cuts = plies = takebacks = 0
    try:
        boards.connected()
        games = 0

        def enough() -> bool:
            return sum(p.total for p in proxies.values()) + restarts >= 300 \
                and restarts >= 2 and plies >= 25

        while not enough():
            link_id = boards.start("alpha" if games % 2 == 0 else "beta", "luotuoqi",
                                   remote={1: "beta"} if games % 2 == 0 else {1: "alpha"})
            games += 1
            while boards.all[0].outcome is None and len(boards.expected) < 60 \
                    and not enough():
                boards.random_ply(rng)
                plies += 1
                if plies % 12 == 0:
                    broker.stop()
                    broker.start()
                    restarts += 1
                elif plies % 5 == 0:
                    cuts += proxies[rng.choice(["alpha", "beta"])].cut()
                if plies % 5 == 0:  # a takeback through the faults, agreed or declined
                    takebacks += boards.take_back_last(accept=plies % 10 == 0)
            boards.check_agreement(link_id)
        counts = proxies["alpha"].counts + proxies["beta"].counts
        assert restarts >= 2 and counts["drop"] >= 10 and counts["duplicate"] >= 30
        assert takebacks >= 2
    finally:
        boards.close()
        for p in proxies.values():
            p.close()


def test_a_board_that_loses_power_resumes_from_its_journal_and_both_agree(tmp_path, broker):
    """alpha's move is journalled but the power goes before it leaves the board: on
    restart alpha resumes from its journal and says its state again, so beta gets the
    move; then beta loses power while alpha moves, and on restart takes the move from
    its persistent session.  Both journals end with the same plies."""
    names = ("alpha", "beta")
    boards = LinkedBoards({n: linked_service(tmp_path, n, broker.port) for n in names})
    try:
        boards.connected()
        link_id = boards.start("alpha", "luotuoqi", remote={1: "beta"})
        for text in ("Mb1-c3", "Eb7-a6"):
            boards.ply(text)
        alpha = boards.services["alpha"]
        cut_network(alpha)
        play(alpha, "Ec2-d3")  # journalled; the message never leaves this board
        power_cut(alpha)
        alpha = linked_service(tmp_path, "alpha", broker.port)
        assert [t for _, t in alpha.plies] == ["Mb1-c3", "Eb7-a6", "Ec2-d3"]
        boards = LinkedBoards({"alpha": alpha, "beta": boards.services["beta"]})
        boards.expected = ["Mb1-c3", "Eb7-a6"]
        set_up(alpha)
        beta = boards.services["beta"]
        boards.wait(lambda: beta.interaction.phase == "execute")
        play(beta, "Ec2-d3")
        boards.expected.append("Ec2-d3")
        boards.ply("Mg8-f6")
        power_cut(beta)
        play(alpha, "Mg1-f3")  # beta is off: the broker keeps the move for its session
        beta = linked_service(tmp_path, "beta", broker.port)
        boards = LinkedBoards({"alpha": alpha, "beta": beta})
        boards.expected = ["Mb1-c3", "Eb7-a6", "Ec2-d3", "Mg8-f6"]
        beta.sim_action({"action": "arrange"})
        boards.wait(lambda: beta.interaction.phase == "execute")
        play(beta, "Mg1-f3")
        boards.expected.append("Mg1-f3")
        boards.wait(lambda: len(beta.plies) == 5)
        boards.ply("Ea6-b5")
        boards.check_agreement(link_id)
    finally:
        boards.close()


def test_boards_that_disagree_stop_with_one_line_and_resync_on_request(tmp_path, broker):
    """alpha comes back from a power cut with an old copy of its journal (two plies
    short, one of them its own): it must not play on from there.  The game stops on
    alpha with one line naming the ply; the page's resync takes beta's plies — alpha's
    board shows the missing plies, its own included, to be made there — and the game
    goes on with both journals alike."""
    import shutil

    names = ("alpha", "beta")
    boards = LinkedBoards({n: linked_service(tmp_path, n, broker.port) for n in names})
    try:
        boards.connected()
        link_id = boards.start("alpha", "luotuoqi", remote={1: "beta"})
        for text in ("Mb1-c3", "Eb7-a6"):
            boards.ply(text)
        journal = tmp_path / "alpha" / "journal"
        shutil.copytree(journal, tmp_path / "old-journal")
        for text in ("Ec2-d3", "Mg8-f6"):
            boards.ply(text)
        power_cut(boards.services["alpha"])
        shutil.rmtree(journal)
        shutil.copytree(tmp_path / "old-journal", journal)
        alpha = linked_service(tmp_path, "alpha", broker.port)
        beta = boards.services["beta"]
        boards = LinkedBoards({"alpha": alpha, "beta": beta})
        alpha.sim_action({"action": "arrange"})
        boards.wait(lambda: alpha.link_problem is not None)
        assert "disagree at ply 3" in alpha.link_problem and "\n" not in alpha.link_problem
        assert alpha.link_json()["problem"] == alpha.link_problem
        assert len(alpha.plies) == 2  # nothing played on from the old copy
        page = page_client(alpha)
        assert page.post("/api/link", json={"action": "decline-takeback"}).status_code == 400
        assert page.post("/api/link", json={"action": "resync"}).json()["ok"]
        assert alpha.link_problem is None
        for text in ("Ec2-d3", "Mg8-f6"):
            boards.wait(lambda: alpha.interaction.phase == "execute")
            play(alpha, text)
        boards.expected = ["Mb1-c3", "Eb7-a6", "Ec2-d3", "Mg8-f6"]
        boards.ply("Ea2-b3")
        assert beta.link_problem is None
        boards.check_agreement(link_id)
    finally:
        boards.close()


def test_a_resync_keeps_the_plies_both_hold_and_shows_the_other_boards_later_ones():
    from controller.link.game import LinkedGame, Show
    from controller.link.messages import Start, State

    start = Start("g", "luotuoqi", {}, "setup", ("alpha", "beta"))
    game = LinkedGame(start, "beta", [("m1", "d1"), ("m2", "d2"), ("x3", "e3")], [0, 1, 0])
    game.stopped = "the linked boards disagree at ply 3"
    theirs = State("g", ("m1", "m2", "m3", "m4"), "d4", None, None, (0, 1, 0, 1),
                   ("d1", "d2", "d3", "d4"))
    assert game.resync(theirs) == 2 and game.stopped is None
    assert game.next_early() == [Show(3, "m3", "d3")]
    game.remote_made("m3", "d3")
    assert game.next_early() == [Show(4, "m4", "d4")]  # beta's own seat: made again here
    game.remote_made("m4", "d4")
    assert [m for m, _ in game.plies] == list(theirs.moves)
    behind = State("g", ("m1",), "d1", None, None, (0,), ("d1",))
    assert game.resync(behind) == 4 and game.undone == []  # theirs is behind: keep ours


def test_the_cube_handed_over_after_a_linked_move_is_refused_not_forked(tmp_path, broker):
    """In Lùotuoqí the Cube may be handed over just after a move (the board amends the
    move).  On a linked board the move has gone out and the turn is the other board's:
    the hand-over is refused like any move of the other side, the move stands as sent,
    and the game goes on alike on both boards."""
    from controller.web.simulator import move_actions

    boards = LinkedBoards({n: linked_service(tmp_path, n, broker.port)
                           for n in ("alpha", "beta")})
    alpha, beta = boards.services["alpha"], boards.services["beta"]
    try:
        boards.connected()
        link_id = boards.start("alpha", "luotuoqi", remote={1: "beta"})
        boards.ply("Mb1-c3")
        game, pos = beta.game, beta.position
        for action in move_actions(game, pos, game.parse_move(pos, "Mb8-a6+cube"),
                                   beta.layout):
            beta.sim_action(action)
            beta.step(0.03)
        beta.step(0.2)
        assert [t for _, t in beta.plies] == ["Mb1-c3", "Mb8-a6"]
        assert "moves on the other board" in beta.interaction.message
        boards.wait(lambda: alpha.interaction.phase == "execute")
        play(alpha, "Mb8-a6")
        boards.expected.append("Mb8-a6")
        boards.wait(lambda: len(alpha.plies) == 2)
        beta.sim_action({"action": "arrange"})  # the Cube back where it was
        boards.wait(lambda: beta.interaction.phase == "turn")
        boards.ply("Ec2-d3")
        boards.check_agreement(link_id)
    finally:
        boards.close()
