"""Taking moves back in a linked game: the board where the moves are taken back asks,
the other board agrees by taking the same moves back (or declines, on the page or by
playing on), and both then hold the same plies — never a fork."""

from __future__ import annotations

from controller.link.game import (
    LinkedGame,
    Show,
    TakebackAsked,
    TakebackSettled,
    Withdrawn,
)
from controller.link.messages import (
    MoveMessage,
    Start,
    State,
    TakebackAnswer,
    TakebackRequest,
    decode,
    encode,
)
from tests.support.linkplay import LinkedBoards, linked_service, power_cut
from tests.support.service import play
from tests.support.webtools import page_client

START = Start("alpha-1", "luotuoqi", {}, "setup", ("alpha", "beta"))


def _pair(plies: int) -> tuple[LinkedGame, LinkedGame]:
    """alpha (seat 0) and beta (seat 1) agreeing on ``plies`` plies m1, m2, …"""
    alpha, beta = LinkedGame(START, "alpha"), LinkedGame(START, "beta")
    for k in range(1, plies + 1):
        mover, other = (alpha, beta) if k % 2 else (beta, alpha)
        message = mover.local_move((k - 1) % 2, f"m{k}", f"d{k}")
        (show,) = other.receive(message)
        other.remote_made(show.move, show.digest)
    return alpha, beta


def test_takeback_messages_round_trip():
    for m in (TakebackRequest("g", 2, 0, 1), TakebackAnswer("g", 2, False, 0),
              MoveMessage("g", 3, 0, "m", "d", epoch=2), State("g", ("m",), "d", epoch=1)):
        assert decode(encode(m)) == m
    assert decode(b'{"v": 1, "type": "move", "game_id": "g", "ply": 1, "seat": 0, '
                  b'"move": "m", "digest": "d"}').epoch == 0  # a board without takebacks


def test_a_takeback_asked_and_accepted_leaves_both_with_the_same_plies():
    alpha, beta = _pair(4)
    request = alpha.took_back(2, 0)
    assert request == TakebackRequest("alpha-1", 2, 0, 0) and len(alpha.plies) == 2
    assert beta.receive(request) == [TakebackAsked(2)] and len(beta.plies) == 4
    answer = beta.took_back(2, 1)  # beta's person takes the same two moves back
    assert answer == TakebackAnswer("alpha-1", 2, True, 1)
    assert alpha.receive(answer) == [TakebackSettled(2, True)]
    assert alpha.epoch == beta.epoch == 1 and alpha.plies == beta.plies
    # a late copy of a ply taken back is stale: it changes nothing
    assert beta.receive(MoveMessage("alpha-1", 3, 0, "m3", "d3", epoch=0)) == []
    assert beta.receive(State("alpha-1", ("m1", "m2", "m3"), "d3", None, None, (0, 1, 0),
                              ("d1", "d2", "d3"), epoch=0)) == []
    # the game goes on with another third ply
    message = alpha.local_move(0, "x3", "e3")
    assert message.epoch == 1 and beta.receive(message) == [Show(3, "x3", "e3")]


def test_a_declined_takeback_shows_the_plies_again_to_be_made_again():
    alpha, beta = _pair(3)
    request = alpha.took_back(1, 0)
    assert beta.receive(request) == [TakebackAsked(2)]
    answer = beta.decline()
    assert answer == TakebackAnswer("alpha-1", 2, False, 0)
    assert alpha.receive(answer) == [TakebackSettled(2, False)]
    assert alpha.next_early() == [Show(3, "m3", "d3")]
    alpha.remote_made("m3", "d3")  # made again on alpha's board; not sent again
    assert alpha.plies == beta.plies and alpha.epoch == beta.epoch == 0


def test_a_move_made_while_a_takeback_is_asked_waits_and_requests_that_cross_are_declined():
    alpha, beta = _pair(3)
    request = alpha.took_back(1, 0)
    beta.receive(request)
    assert beta.decline() is not None  # beta plays on: its move declines first
    ply4 = beta.local_move(1, "m4", "d4")
    assert alpha.receive(ply4) == []  # waits: alpha's plies are asked back
    assert alpha.receive(TakebackAnswer("alpha-1", 2, False, 0)) == [TakebackSettled(2, False)]
    assert alpha.next_early() == [Show(3, "m3", "d3")]
    alpha.remote_made("m3", "d3")
    assert alpha.next_early() == [Show(4, "m4", "d4")]
    # two different requests at once: each board's own is declined
    one, two = _pair(4)
    a, b = one.took_back(1, 0), two.took_back(2, 1)
    assert two.receive(a) == [TakebackSettled(2, False)]
    assert one.receive(b) == [TakebackSettled(3, False)]


def test_a_move_taken_back_before_the_other_board_made_it_is_withdrawn():
    alpha, beta = _pair(2)
    (show,) = beta.receive(alpha.local_move(0, "m3", "d3"))
    request = alpha.took_back(1, 0)
    assert beta.receive(request) == [Withdrawn(2)] and beta.showing is None
    assert beta.epoch == 1


# -- two services and a real broker ---------------------------------------------------


def test_a_takeback_on_linked_boards_is_asked_and_agreed_or_declined(tmp_path, broker):
    boards = LinkedBoards({n: linked_service(tmp_path, n, broker.port)
                           for n in ("alpha", "beta")})
    alpha, beta = boards.services["alpha"], boards.services["beta"]
    try:
        boards.connected()
        link_id = boards.start("alpha", "luotuoqi", remote={1: "beta"})
        for text in ("Mb1-c3", "Eb7-a6", "Ec2-d3", "Mg8-f6"):
            boards.ply(text)
        # alpha takes two moves back: beta is asked, and agrees by doing the same
        boards.restore(alpha, [("c2", "d3"), ("g8", "f6")])
        boards.wait(lambda: len(alpha.plies) == 2)
        assert alpha.link_json()["takeback"] == {"asked": 2, "offered": None}
        boards.wait(lambda: (beta.link_json()["takeback"] or {}).get("offered") == 2)
        assert "took moves back" in beta.link_json()["notice"]
        boards.restore(beta, [("c2", "d3"), ("g8", "f6")])
        boards.wait(lambda: len(beta.plies) == 2)
        boards.wait(lambda: alpha.link_json()["takeback"] is None)
        assert alpha.link_json()["notice"] == "takeback agreed"
        boards.expected = boards.expected[:2]
        for text in ("Ea2-b3", "Mg8-h6"):  # other moves this time
            boards.ply(text)
        # beta takes its last move back; alpha declines on its page: beta makes it again
        boards.restore(beta, [("g8", "h6")])
        boards.wait(lambda: len(beta.plies) == 3)
        boards.wait(lambda: (alpha.link_json()["takeback"] or {}).get("offered") == 3)
        assert page_client(alpha).post("/api/link",
                                       json={"action": "decline-takeback"}).json()["ok"]
        boards.wait(lambda: beta.interaction.phase == "execute")
        assert "declined" in beta.link_json()["notice"]
        play(beta, "Mg8-h6")
        boards.ply("Eb3-c4")
        boards.check_agreement(link_id)
        # alpha loses power: its journal does not hold the count of takebacks agreed
        # (every move says it); the resumed board learns it from the retained state
        power_cut(alpha)
        alpha = linked_service(tmp_path, "alpha", broker.port)
        expected = boards.expected
        boards = LinkedBoards({"alpha": alpha, "beta": beta})
        boards.expected = expected
        alpha.sim_action({"action": "arrange"})
        boards.wait(lambda: alpha.remote.game.epoch_known and alpha.interaction.phase == "turn")
        assert alpha.remote.game.epoch == beta.remote.game.epoch == 1
        for text in ("Mh6-g4", "Ec4-d5"):
            boards.ply(text)
        boards.check_agreement(link_id)
    finally:
        boards.close()
