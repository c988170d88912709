"""The voice of a board of one's own in a refereed Lao Tzu game (``controller/board/
fogsync.py``): the opponent's move, never on the board, is told from the player's two
views alone ("Black has moved; …") once per ply, and the guidance to the new view is said
step by step — every word for that board's player, naming only cells he has seen or
tried a move on."""

from __future__ import annotations

import random

from controller.link.messages import Attempt
from controller.link.referee import Referee
from controller.speech.announcer import Announcement, Announcer
from tests.support.fog import FogPlayer, decisive_try
from tests.test_fog_boards import SEATS, deliver, started


def test_each_board_hears_the_other_players_moves_from_its_views_alone():
    referee = Referee("test", seed="fog-voice")
    views = started(referee)
    players = [FogPlayer(i, "laotzu", views[i].options, views[i].position,
                         random.Random(i + 20)) for i in (0, 1)]
    heard: list[list[Announcement]] = [[], []]
    for seat, p in enumerate(players):
        Announcer(p.rig.board, heard[seat].append, listener=lambda seat=seat: seat)
    g = referee.games["g-1"]
    cells = g.game.geometry.cells
    seen = [set(g.game.player_view(g.pos, s).visible) for s in (0, 1)]
    replies = [0, 0]  # the other player's moves each board was handed
    tried_on: list[set[int]] = [set(), set()]  # the cells of each player's own tries
    for _ in range(16):
        if g.game.outcome(g.pos) is not None:
            break
        mover = g.game.ply_mover(g.pos)
        p = players[mover]
        p.follow()
        p.play(decisive_try(g.game, g.pos, p))
        tried = p.sync.outbox[-1]
        made = p.rig.board.position.moves[-1]  # his try, on his board
        tried_on[mover] |= {made.origin, made.target}
        plies = len(g.pos.moves)
        deliver(players, referee.attempt(SEATS[mover],
                                         Attempt("g-1", tried.ply, mover, tried.move)))
        if len(g.pos.moves) > plies and plies > 0:  # (the first: each board's first view
            replies[1 - mover] += 1                # came before its announcer listened)
        for s in (0, 1):
            seen[s] |= set(g.game.player_view(g.pos, s).visible)
        for q in players:
            q.follow()
    for seat in (0, 1):
        other = g.game.player_names[1 - seat]
        told = [a for a in heard[seat] if a.text.startswith(f"{other} has moved")]
        assert len(told) == replies[seat], (seat, [a.text for a in heard[seat]], replies)
        assert all(a.ears == seat for a in heard[seat]
                   if a.event in ("move", "guide", "illegal"))
        assert any(a.event == "guide" for a in heard[seat])
        for a in heard[seat]:
            named = {cells.index(w) for w in a.text.replace(";", " ").replace(",", " ")
                     .replace(".", " ").split() if w in cells}
            assert named <= seen[seat] | tried_on[seat], (seat, a.text)
