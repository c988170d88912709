"""Property: random legal Lùotuoqí games played on the simulated board by a clumsy human
are recorded exactly.

The human (``test_board_rig.Human``) lifts in random orders, slides over passed cells,
lifts whole Towers and puts the rest back before or after, stacks merges and taps them or
lifts the target Tower, removes bypass victims before, between or after, hands over the
Cube before or after the move, castles King-first or Rook-first, pauses longer than the
settle time, bounces reeds, knocks pieces off the board (sometimes past the guidance
delay) and pushes them off centre.  In every game:

* the committed move list equals the intended one;
* there is never a wrong commit — a commit of another move happens only when the board
  then replaces it by the intended one (the Cube handed over after the move, castling
  completed after the Rook-Camel, a whole Tower's remainder put back), and the listeners
  see exactly that replacement;
* the machine never gets stuck: after every move it is back in ``turn`` (or
  ``game_over``) with nothing missing or extra.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.support.properties import BUSY, _special
from tests.support.rig import GAME, Human, Rig


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(seed=st.integers(0, 2**31 - 1), start=st.sampled_from([None, *BUSY]),
       analog=st.booleans(), plies=st.integers(8, 30))
def test_random_games_by_a_clumsy_human_are_recorded_exactly(seed, start, analog, plies):
    rng = random.Random(seed)
    rig = Rig(start, seed=seed % 10_000, analog=analog)
    human = Human(rig, rng, mishaps=True, slow=0.2)
    intended = []
    for _ in range(plies):
        if rig.state == "game_over":
            break
        moves = GAME.legal_moves(rig.position)
        special = [m for m in moves if _special(m)]
        move = rng.choice(special) if special and rng.random() < 0.6 else rng.choice(moves)
        intended.append(move)
        human.play(move)  # checks: committed exactly, no wrong commit, not stuck
    assert rig.position.moves[len(rig.position.moves) - len(intended):] == intended
    replaced = sum(len(t) for t in rig.takebacks)
    assert len(rig.moves) == len(intended) + replaced
