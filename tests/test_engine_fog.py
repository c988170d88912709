"""The computer in Lao Tzu Chess plays from its own view: it never sees a hidden piece.

The engine's input is the player's view alone; these tests show that positions drawn
from a view agree with it, and that two different true positions that look the same to
the player give the same answer.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

from controller.engine import LEVELS
from controller.engine.fog import (
    Recall,
    draw_positions,
    earlier_views,
    lurking_drops,
    ranked_tries,
    recall,
    same_try,
    sample_text,
    unseen_enemies,
)
from controller.engine.search import Limits
from controller.opponent import think_from_view
from controller.rules import get_game
from tests.support.laotzu import lookalike_positions

#: bound by depth (the time is ample): a search cut short by the clock answers by how
#: busy the machine is, and the same view must give the same move for the test to prove
#: anything
LIMITS = Limits(depth=2, movetime=30.0)


def test_two_true_positions_that_look_the_same_give_the_same_move():
    a, pa, b, pb = lookalike_positions()
    va, vb = a.player_view(pa, 0), b.player_view(pb, 0)
    assert va == vb and a.position_text(pa) != b.position_text(pb)
    # the same observation history too: what White saw after each earlier ply
    ma, mb = earlier_views(a, pa, 0), earlier_views(b, pb, 0)
    assert ma == mb and len(ma) == 2
    public = {"castling": "chess960"}
    first = think_from_view("laotzu", public, va, level=4, seed=5, limits=LIMITS, memory=ma)
    second = think_from_view("laotzu", public, vb, level=4, seed=5, limits=LIMITS, memory=mb)
    assert first == second and first
    # the beginner levels choose on the positions they picture from the view, too
    beginner = replace(LIMITS, style=LEVELS[1].style)
    for seed in range(4):
        one = think_from_view("laotzu", public, va, level=1, seed=seed, limits=beginner,
                              memory=ma)
        assert one and one == think_from_view("laotzu", public, vb, level=1, seed=seed,
                                              limits=beginner, memory=mb)


def test_drawn_positions_agree_with_the_view():
    game = get_game("laotzu", seed=11)
    pos = game.start()
    rng = random.Random(3)
    for _ in range(12):
        pos.push(rng.choice(game.legal_moves(pos)))
    me = pos.turn
    view = game.player_view(pos, me)
    drawn = 0
    for k in range(20):
        try:
            sample = game.parse_position(sample_text(view, random.Random(k)))
        except ValueError:
            continue
        drawn += 1
        seen = game.player_view(sample, me)
        assert (seen.own, seen.enemies, seen.visible, seen.hands) == (
            view.own, view.enemies, view.visible, view.hands)
    assert drawn >= 5
    assert sum(unseen_enemies(view).values()) + len(view.enemies) <= 16


def test_the_ranked_tries_are_moves_the_player_may_try():
    game = get_game("laotzu")
    pos = game.start()
    view = game.player_view(pos, 0)
    tries = ranked_tries(game, view, LIMITS, seed=1, samples=3)
    assert sorted(map(repr, tries)) == sorted(map(repr, view.moves()))


def test_drawn_positions_agree_with_the_check_announcement():
    """"Check" is announced, never by what: in check with no checker in sight, every
    drawn position puts an unseen piece where it gives the check; not in check, none
    stands where it would.  The plain draw from the view alone (the one-ply yardstick's)
    gets both wrong most of the time, so the engine's search would answer positions
    that cannot be."""
    game = get_game("laotzu")
    for text, checked in (
        # a Bishop on a5, out of White's sight, checks along a5-e1
        ("4k3/pppppppp/8/b7/8/8/PPP1PPPP/RNBQKBNR[] w - - 0 5", True),
        # the White King stands in the open: most plain draws would check him
        ("rnbqkbnr/pppppppp/8/8/4K3/8/P6P/8[] w - - 0 20", False),
    ):
        view = game.player_view(game.parse_position(text), 0)
        assert view.in_check is checked
        assert not checked or not any(p.kind == "B" for _, p in view.enemies)
        drawn = draw_positions(game, view, random.Random(1), 40, Recall())
        assert len(drawn) == 40
        assert all(game.in_check(p) is checked for p in drawn)
        plain = [game.in_check(game.parse_position(sample_text(view, random.Random(k))))
                 for k in range(40)]
        assert sum(c is not checked for c in plain) >= 20


def _knight_attacks_white(game, pos) -> bool:
    from controller.rules.laotzu_board import attacks

    occ = sum(1 << c for c, p in enumerate(pos.board) if p)
    white = [c for c, p in enumerate(pos.board) if p and p.owner == 0]
    return any(attacks("N", 1, c, occ) >> w & 1 for c, p in enumerate(pos.board)
               if p and p.owner == 1 and p.kind == "N" for w in white)


def test_a_piece_dropped_out_of_sight_is_remembered_and_drawn_where_it_attacks():
    """Hands are public: White sees Black's hand lose a Knight and no Knight appear, so a
    Knight was dropped where he cannot see.  A drop may well be made to attack, so the
    engine draws it likelier where it attacks his pieces — here his Queen on d4 (the
    home-rank draw rarely does); once a Knight comes into view, it is no longer taken to
    be lurking."""
    game = get_game("laotzu")
    pos = game.parse_position("rnbqkbnr/pppppppp/8/8/3Q4/8/PPPPPPPP/R1B1KBNR[n] w - - 0 10")
    for text in ("a2a3", "N@f5"):
        pos.push(game.parse_move(pos, text))
    view = game.player_view(pos, 0)
    memory = earlier_views(game, pos, 0)
    assert not any(p.kind == "N" for _, p in view.enemies)
    lurking = lurking_drops((*memory, view))
    assert lurking == (("N", 0),)  # a Knight, dropped at Black's last move
    remembered = sum(_knight_attacks_white(game, p)
                     for p in draw_positions(game, view, random.Random(1), 100,
                                             Recall(lurking=lurking)))
    forgotten = sum(_knight_attacks_white(game, p)
                    for p in draw_positions(game, view, random.Random(1), 100, Recall()))
    assert remembered >= 3 * forgotten and remembered >= 25
    # three enemy moves later it may have gone anywhere: likelier anywhere
    aged = sum(_knight_attacks_white(game, p) for p in draw_positions(
        game, view, random.Random(1), 100, Recall(lurking=(("N", 3),))))
    assert forgotten < aged < remembered
    for text in ("g2g4", "h7h6"):  # the Pawn on g4 sees the Knight on f5
        pos.push(game.parse_move(pos, text))
    view = game.player_view(pos, 0)
    assert any(p.kind == "N" for _, p in view.enemies)
    assert lurking_drops((*earlier_views(game, pos, 0), view)) == ()


def test_a_piece_that_took_out_of_sight_is_drawn_where_it_took():
    """White's Rook takes on a5 and is taken there; White no longer sees a5, but he saw
    his Rook vanish, so something of Black's stands there: drawn so in most positions, of
    a kind that could have taken there (a Rook far likelier than in the plain draw from
    the view alone; never a Bishop or Queen, which would check the King on e1 without
    "check" being announced), and less often the more enemy moves ago it was."""
    game = get_game("laotzu")
    pos = game.parse_position("r3k3/8/8/p7/8/8/8/R3K3[] w - - 0 20")
    for text in ("a1a5", "a8a5"):
        pos.push(game.parse_move(pos, text))
    view = game.player_view(pos, 0)
    a5 = 32
    assert a5 not in view.visible and not view.in_check
    memory = recall((*earlier_views(game, pos, 0), view))
    # the capturer, of a kind he did not see, and the Rook he saw on a8 (it was the one)
    assert memory.ghosts == ((a5, None, 0), (56, "R", 0))

    def held(recalled):
        drawn = draw_positions(game, view, random.Random(2), 100, recalled)
        return Counter(p.board[a5].kind for p in drawn if p.board[a5])

    taker, plain = held(memory), held(Recall())
    assert taker.total() >= 80 and taker["R"] >= 30 and plain["R"] <= 10
    assert not taker["B"] and not taker["Q"]
    assert held(Recall(ghosts=((a5, None, 6),)))["R"] < taker["R"]


def test_every_engine_draw_agrees_with_the_view_along_random_games():
    """Whatever the computer remembers, every position it draws looks to it exactly as
    its view does — own pieces, enemies seen, cells seen, hands — with the check as
    announced; along random games with captures and drops, from both sides."""
    game = get_game("laotzu")
    checked = remembered = 0
    for seed in range(6):
        rng = random.Random(seed)
        pos = game.start()
        for ply in range(70):
            legal = game.legal_moves(pos)
            if not legal or game.outcome(pos) is not None:
                break
            captures = [m for m in legal if m.kind in ("capture", "drop")]
            pos.push(rng.choice(captures if captures and rng.random() < 0.6 else legal))
            if ply % 7 != 6:
                continue
            me = pos.turn
            view = game.player_view(pos, me)
            memory = recall((*earlier_views(game, pos, me), view))
            remembered += len(memory.ghosts) + len(memory.lurking)
            for drawn in draw_positions(game, view, random.Random(ply), 4, memory):
                seen = game.player_view(drawn, me)
                assert (seen.own, seen.enemies, seen.visible, seen.hands) == (
                    view.own, view.enemies, view.visible, view.hands)
                assert game.in_check(drawn) == view.in_check
                checked += 1
    assert checked >= 150 and remembered >= 50


#: a game the computer (Black, a Queen and more ahead) drew against the random mover by
#: giving the same two checks until the position came a third time (seed 502000, game 4)
REPEATING = ("c2c4 d7d5 g2g3 e7e6 d1c2 d5c4 e2e3 b7b5 f1e2 a7a6 c2a4 b5a4 h2h3 a4a3 e2f3 "
             "a3b2 f3g4 b2a1q e1f1 a1b1 a2a4 b1c1 g4d1 c1d1 f1g2 d8d2 e3e4 d2f2 g2f2 c8b7 "
             "a4a5 Q@a1 Q@e5 d1f1 f2e3 a1c1 e3d4 c1a1 d4e3").split()


def test_far_ahead_the_computer_does_not_repeat_the_position():
    """After 20.Ke3 the check Qac1+ brings back the position after 18...Qac1+ (a third
    time after the next pair of checks: a draw). Black's own pieces and the hands would
    be as after an earlier move of his, so his search counts that move as the draw it
    may be, and he plays on; without his earlier views he gives the check again."""
    game = get_game("laotzu")
    pos = game.start()
    for text in REPEATING:
        pos.push(game.parse_move(pos, text))
    view = game.player_view(pos, 1)
    repeat = game.parse_move(pos, "a1c1")
    forgetful = ranked_tries(game, view, LIMITS, seed=3)[0]
    mindful = ranked_tries(game, view, LIMITS, seed=3, memory=earlier_views(game, pos, 1))[0]
    assert same_try(forgetful, repeat) and not same_try(mindful, repeat)


def test_gathering_the_earlier_views_leaves_the_game_as_it_was():
    """The board loop hands the live position: it is walked back and forward again, with
    the same moves, repetition keys and text (a move pushed without a key stays so)."""
    game = get_game("laotzu")
    pos = game.start()
    for i, text in enumerate(("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "g8f6")):
        pos.push(game.parse_move(pos, text), record=i != 3)
    before = (list(pos.moves), list(pos.keys), game.position_text(pos))
    views = earlier_views(game, pos, 0, plies=4)
    assert (list(pos.moves), list(pos.keys), game.position_text(pos)) == before
    assert len(views) == 4 and [v.turn for v in views] == [0, 1, 0, 1]
