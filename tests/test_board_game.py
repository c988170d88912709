"""A whole Lùotuoqí game, from the starting position to checkmate, played on the
simulated board by a human who makes every special move of the game: splits, merges,
split-merges, split-captures, bypass captures of several pieces, flank promotion, many
Cube turns, castling on both wings, captures — plus a takeback in the middle.  The record
must be exactly the game."""

from __future__ import annotations

import random

from tests.support.rig import GAME, Human, Rig

# Found by a coverage-seeking search over legal games, then a mate-seeking continuation.
WHOLE_GAME = """
Eb2-a3 Ec7-d6+cube T1d8-c7 Eg2-f3 T6d8-c7=T7 Ec2-d3+cube Mg1-h3 T7c7xc1 T8d1xc1
T1d8-c7+cube Ed6-c5 T4c1xc5 Ed7-e6 T4c1-c5=T8 T1c7-d8 T2c5-d4+cube T2c5xe7 Ee6xe7
T2d4-c3 Mg8-h6+cube Dc8-d7 T1c5-b6+cube Mh3-h4 Dd7-a4xb6xc5 Ed3-c4 T1d8-c7 Ef3-e4
Mh6-g6+cube Mg6-g5 Ef2-g3 Mb8-d7 Df1-g2 O-O-O O-O+cube Mh4-h3 Eb7-c6+cube Md7-f6
Kg1-h1+cube Mh3-h4 Mg5-h5+cube Mh5-h6 Ec4-b5 Eg7-g8 T1c3-b2+cube Ed2-e3 Ea7-a8+cube
Mf6-e6 T1c3-d3+cube T1b2-c1 T1c7-d7 Ee2-f3 Ea8-b7+cube T1d7-c7 Ef3-g4+cube T1d3-e2
T1c7-b6+cube T1b6-c5 Rf1-f4+cube T1e2-f1 T1c5-d5+cube Me6xf4 Eg4=M
Mh6-f5 Mh4-g6 Mf5xg3 Kh1-g1+cube Mg4-f6 Mf4-h3
""".split()


def features(moves) -> set[str]:
    out = set()
    for m in moves:
        if m.kind == "promote":
            out.add("flank promotion")
        if m.kind == "castle":
            out.add("castling " + ("king side" if m.target > m.origin else "queen side"))
        if m.token == "cube":
            out.add("Cube")
        if m.kind == "split":
            out.add("split-capture" if m.captures else "split")
        if m.kind == "merge":
            out.add("split-merge" if m.left is not None else "merge")
        if len(m.captures) >= 2:
            out.add("bypass capture")
        if m.captures == (m.target,) and m.kind == "move":
            out.add("capture")
    return out


def test_whole_game_with_every_special_move_is_recorded_exactly():
    rig = Rig()
    human = Human(rig, random.Random(2003), mishaps=True, slow=0.25)
    for ply, text in enumerate(WHOLE_GAME):
        move = GAME.parse_move(rig.position, text)
        human.play(move)
        if ply == 6:  # Mg1-h3 … no: put it back, wait, and play it again
            rig.move("h3", "g1", wait=2.0)
            assert rig.takebacks[-1] == [move] and rig.state == "turn"
            human.play(move)
    pos = GAME.start()
    record = []
    for m in rig.position.moves:
        record.append(GAME.move_text(pos, m))
        pos.push(m)
    assert record == WHOLE_GAME
    assert rig.state == "game_over" and rig.outcomes[-1].reason == "checkmate"
    assert rig.outcomes[-1].winners == (1,)
    assert features(rig.position.moves) == {
        "flank promotion", "castling king side", "castling queen side", "Cube", "split",
        "split-capture", "merge", "split-merge", "bypass capture", "capture"}
    # every commit the listeners saw is the game, a takeback, or a move the board
    # replaced right away (Cube handed over after the move, castling, a remainder)
    undone = [m for t in rig.takebacks for m in t]
    assert len(rig.moves) == len(WHOLE_GAME) + len(undone)
