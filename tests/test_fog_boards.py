"""True fog of war on two physical boards: each player's own simulated board holds only
his view, the referee (here called directly, without a broker) holds the whole position,
and after every ply each board guides its player to put on the enemy pieces that came
into sight and take off the ones that went out of it, one piece at a time."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from controller.link.messages import Attempt, SeatView, Start
from controller.link.referee import ILLEGAL_MOVE, Referee, RefereeJournal
from controller.rules import get_game
from tests.support.fog import FogPlayer, decisive_try
from tests.support.laotzu import hand_pad

SEATS = ("alpha", "beta")


def started(referee: Referee, game_id: str = "g-1") -> dict[int, SeatView]:
    outs = referee.start(Start(game_id, "laotzu", {}, "", SEATS))
    return {m.seat: m for _, m, _ in outs if isinstance(m, SeatView)}


def deliver(players: list[FogPlayer], outs) -> list[SeatView]:
    views = [m for _, m, _ in outs if isinstance(m, SeatView)]
    for v in views:
        players[v.seat].sync.show(v.ply, v.position, v.refused, v.result, v.reason)
    return views


def physical(player: FogPlayer) -> set[tuple[int, str]]:
    """What stands on the player's board's cells (the simulated magnets' objects)."""
    sim, layout = player.rig.sim, player.rig.layout
    return {(c, name) for c in range(layout.cell_count) for name in sim.objects(c)}


def assert_board_is_the_view(referee: Referee, player: FogPlayer, game_id: str = "g-1"):
    """The board's position and the pieces on the physical board are exactly what its
    player may know: his pieces and the enemy pieces he sees, nothing hidden."""
    g = referee.games[game_id]
    v = g.game.player_view(g.pos, player.seat)
    held = {(c, p) for c, p in enumerate(player.rig.position.board) if p is not None}
    assert held == set(v.own) | set(v.enemies)
    colours = ("white", "black")
    assert physical(player) == {(c, f"{colours[p.owner]}-{p.kind}") for c, p in held}
    assert player.rig.position.hands == g.pos.hands  # hands are public


def test_two_boards_play_lao_tzu_to_the_end_with_the_fog_handled_physically():
    referee = Referee("test", seed="fog-1")
    views = started(referee)
    players = [FogPlayer(i, "laotzu", views[i].options, views[i].position,
                         random.Random(i + 10)) for i in (0, 1)]
    g = referee.games["g-1"]
    assert "seed" not in views[0].options and "seed" in g.options  # the referee's secret
    refused = Counter()
    for _ in range(200):
        if g.game.outcome(g.pos) is not None:
            break
        mover = g.game.ply_mover(g.pos)
        p = players[mover]
        p.follow()  # he finishes what his board asked before he moves
        assert_board_is_the_view(referee, p)
        p.play(decisive_try(g.game, g.pos, p))
        tried = p.sync.outbox[-1]
        assert p.sync.waiting
        sent = deliver(players, referee.attempt(SEATS[mover],
                                                Attempt("g-1", tried.ply, mover, tried.move)))
        if any(v.refused for v in sent):  # told to the mover alone, nothing else changes
            assert [(v.seat, v.refused) for v in sent] == [(mover, ILLEGAL_MOVE)]
            assert ILLEGAL_MOVE in players[mover].rig.interaction.message
            refused[mover] += 1
        p.follow()
        assert_board_is_the_view(referee, p)
        # the other player sometimes is still at it when the next view arrives
        players[1 - mover].follow(limit=p.rng.choice((2, 80)), finish=False)
    outcome = g.game.outcome(g.pos)
    assert outcome is not None and outcome.reason == "checkmate"
    for q in players:
        q.follow()
        assert_board_is_the_view(referee, q)
        assert q.rig.state == "game_over" and q.rig.board.outcome == outcome
    kinds = Counter(m.kind for m in g.pos.moves)
    captures = sum(bool(m.captures) for m in g.pos.moves)
    assert kinds["drop"] and kinds["castle"] and captures, (kinds, captures)
    assert sum(refused.values()) >= 2, refused  # hidden pieces made tries illegal
    for q in players:  # the fog was handled on the board, piece by piece
        assert q.placed >= 20 and q.removed >= 20, (q.placed, q.removed)


def test_an_illegal_try_is_refused_to_its_seat_and_put_back_on_the_board():
    """White's Pawn push runs into a hidden Black piece: "illegal move" on White's board
    only; the board guides the Pawn back; Black's board never hears of it."""
    game = get_game("laotzu", white_array=518, black_array=518)
    referee = Referee("test")
    referee.start(Start("g-1", "laotzu", {}, "", SEATS))
    g = referee.games["g-1"]  # (the orthodox arrays, as the referee's operator may set)
    g.options = dict(white_array=518, black_array=518)
    g.__post_init__()
    views = {m.seat: m for _, m, _ in referee.resume() if isinstance(m, SeatView)}
    players = [FogPlayer(i, "laotzu", views[i].options, views[i].position, random.Random(i))
               for i in (0, 1)]
    for seat, text in ((0, "e2e4"), (1, "e7e5")):
        move = game.parse_move(game.parse_view(players[seat].sync.view_text), text)
        players[seat].play(move)
        deliver(players, referee.attempt(SEATS[seat], Attempt("g-1", seat + 1, seat, text)))
        for q in players:
            q.follow()
    # White cannot see e5 (his Pawn's square ahead is blocked): pushing is a try
    white = players[0]
    push = next(m for m in white.tries() if white.rig.game.long_move_text(
        white.rig.position, m) == "e4e5")
    black_before = list(players[1].messages)
    white.play(push)
    sent = deliver(players, referee.attempt("alpha", Attempt("g-1", 3, 0, "e4e5")))
    assert [(v.seat, v.refused) for v in sent] == [(0, ILLEGAL_MOVE)]
    assert white.rig.state == "setup" and ILLEGAL_MOVE in white.rig.interaction.message
    white.follow()  # the Pawn goes back to e4, one piece at a time
    assert white.rig.state == "turn" and physical(white) >= {(white.rig.spot("e4"),
                                                              "white-P")}
    assert players[1].messages == black_before
    assert_board_is_the_view(referee, white)
    assert len(g.moves) == 2


def test_a_capture_and_a_drop_reach_the_other_board_as_pieces_to_move():
    """Black takes a White piece: White's board asks for his piece off (it is gone) and
    for a Black piece on Black's hand pad (hands are public); a drop on a cell White sees
    appears there."""
    referee = Referee("test", seed="fog-2")
    views = started(referee)
    players = [FogPlayer(i, "laotzu", views[i].options, views[i].position, random.Random(5))
               for i in (0, 1)]
    g = referee.games["g-1"]
    rng = random.Random(3)
    seen_capture = seen_drop = False
    for _ in range(300):
        if g.game.outcome(g.pos) is not None or (seen_capture and seen_drop):
            break
        mover = g.game.ply_mover(g.pos)
        p = players[mover]
        tries = p.tries()
        legal = set(g.game.legal_moves(g.pos))
        good = [m for m in tries if m in legal]
        move = rng.choice([m for m in good if m.captures or m.kind == "drop"] or good)
        other = players[1 - mover]
        before = (other.placed, other.removed)
        p.play(move)
        deliver(players, referee.attempt(SEATS[mover], Attempt(
            "g-1", p.sync.outbox[-1].ply, mover, p.sync.outbox[-1].move)))
        for q in players:
            q.follow()
            assert_board_is_the_view(referee, q)
        if move.captures and g.pos.board[move.target] is not None:
            # the victim was the other player's piece: his board had it taken off, and
            # the capturer's hand pad filled on it
            assert other.removed > before[1]
            pad = other.rig.spot(hand_pad(mover, g.pos.moves[-1].captures and
                                          _captured_kind(g, move)))
            assert other.rig.sim.objects(pad)
            seen_capture = True
        if move.kind == "drop":
            seen_drop = True
    assert seen_capture and seen_drop


def _captured_kind(g, move) -> str:
    """The kind the capturer got in hand (a promoted piece goes back as a Pawn)."""
    after = g.pos.hands[g.game.ply_mover(g.pos) ^ 1]
    g.pos.pop()
    before = dict(g.pos.hands[g.game.ply_mover(g.pos)])
    g.pos.push(move)
    return next(k for k, n in after.items() if n > before.get(k, 0))


def test_the_referee_resumes_from_its_journal(tmp_path):
    journal = RefereeJournal(tmp_path / "referee.json")
    referee = Referee("test", journal, seed="fog-3")
    started(referee)
    g = referee.games["g-1"]
    rng = random.Random(7)
    for _ in range(12):
        move = rng.choice(g.game.legal_moves(g.pos))
        seat = g.game.ply_mover(g.pos)
        referee.attempt(SEATS[seat], Attempt("g-1", len(g.moves) + 1, seat,
                                             g.game.long_move_text(g.pos, move)))
    # a refusal stands across the restart
    seat = g.game.ply_mover(g.pos)
    referee.attempt(SEATS[seat], Attempt("g-1", len(g.moves) + 1, seat, "a1a1"))
    again = Referee("test", RefereeJournal(tmp_path / "referee.json"))
    h = again.games["g-1"]
    assert h.moves == g.moves and h.options == g.options
    assert g.game.position_text(h.pos) == g.game.position_text(g.pos)
    resumed = {m.seat: m for _, m, _ in again.resume() if isinstance(m, SeatView)}
    first = {m.seat: m for _, m, _ in referee.resume() if isinstance(m, SeatView)}
    assert resumed == first and resumed[seat].refused == ILLEGAL_MOVE
    assert not list(tmp_path.glob(".referee-*"))  # no temporary file left behind
    # a duplicate attempt of a ply already judged changes nothing
    assert [m for _, m, _ in again.attempt(SEATS[seat], Attempt(
        "g-1", len(h.moves), seat, "a1a1"))] == [resumed[seat]]
    assert len(h.moves) == 12


def test_the_referee_refuses_with_one_line(caplog):
    referee = Referee("test")
    caplog.set_level("WARNING", "fairyboard.referee")
    for start, problem in [
            (Start("g-1", "laotzu", {"seed": 5}, "", SEATS), "referee draws hidden options"),
            (Start("g-2", "nogame", {}, "", SEATS), "no game 'nogame'"),
            (Start("g-3", "laotzu", {}, "", ("alpha", "alpha")), "one board per seat")]:
        caplog.clear()
        assert referee.start(start) == [] and start.game_id not in referee.games
        (record,) = caplog.records
        assert problem in record.problem and "\n" not in record.problem
    started(referee)
    # an attempt for a seat from a board that does not play it: nothing happens
    assert referee.attempt("beta", Attempt("g-1", 1, 0, "e2e4")) == []
    assert referee.games["g-1"].moves == []


@pytest.mark.parametrize("seed", [1, 2])
def test_a_view_position_holds_only_the_view_and_every_try(seed):
    """``Game.view_position``: a player's board holds his pieces, the enemy pieces he
    sees and the hands — and every move he may try there is a try on the true position
    too (the referee judges them)."""
    game = get_game("laotzu", seed=seed)
    rng = random.Random(seed)
    pos = game.start()
    for _ in range(80):
        if game.outcome(pos) is not None:
            break
        for player in (0, 1):
            vp = game.view_position(pos, player)
            text = game.position_text(vp)
            assert game.position_text(game.parse_view(text)) == text
            truth = game.player_view(pos, player)
            held = {(c, p) for c, p in enumerate(vp.board) if p is not None}
            assert held == set(truth.own) | set(truth.enemies)
            assert game.outcome(vp) is None  # the referee announces the end
            if player == pos.turn:
                assert set(game.board_moves(pos)) <= set(game.board_moves(vp))
        pos.push(rng.choice(game.legal_moves(pos)))


@pytest.mark.parametrize("delay", [None, 2])
def test_the_club_sees_a_refereed_game_late_or_at_its_end(delay):
    """The public state: no move during the game (or only those ``delay`` plies old);
    the whole game once it has ended."""
    from controller.link.messages import State

    referee = Referee("test", delay=delay, seed="club")
    started(referee)
    g = referee.games["g-1"]
    rng = random.Random(2)
    while g.game.outcome(g.pos) is None:
        move = rng.choice(g.game.legal_moves(g.pos))
        seat = g.game.ply_mover(g.pos)
        outs = referee.attempt(SEATS[seat], Attempt("g-1", len(g.moves) + 1, seat,
                                                    g.game.long_move_text(g.pos, move)))
        (state,) = [m for _, m, _ in outs if isinstance(m, State)]
        if g.game.outcome(g.pos) is None:
            shown = 0 if delay is None else max(0, len(g.moves) - delay)
            assert state.moves == tuple(g.moves[:shown]) and state.result is None
    assert state.moves == tuple(g.moves) and state.result is not None
