"""Fog of war on two physical boards (one per player) and a referee: the rig of a player's
own board and a simulated player who does what his board guides (docs/board.md, "A board
of one's own")."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

from controller.board import BoardOptions
from controller.board.fogsync import FogSync
from controller.rules import get_game
from controller.rules.core import Move, Position
from controller.rules.laotzu import LaoTzu
from tests.support.laotzu import LaoHuman, LaoRig, hand_pad, obj

PUT = re.compile(r"put the (White|Black) (\w+)(?: ×\d+)? on (\S+)")
KIND = {name: kind for kind, name in LaoTzu.piece_names.items()}  #: "Pawn" -> "P"


class FogRig(LaoRig):
    """A Lao Tzu board holding one player's view position (nothing else is on it)."""

    def set_up(self, pos: Position) -> None:
        sim = self.sim
        sim.clear()
        for c, p in enumerate(pos.board):
            if p is not None:
                sim.put(c, obj(p.owner, p.kind))
        for owner, hand in enumerate(pos.hands):
            for kind, n in hand.items():
                if n:
                    sim.put(hand_pad(owner, kind), [obj(owner, kind)] * n)


@dataclass
class FogPlayer:
    """One player at his own board: sets it up from the first view, makes his moves (tries
    from his view), and follows the board's guidance after every ply — reading only what
    the board shows (the guided spot and its message)."""

    seat: int
    game_name: str
    options: dict
    position_text: str
    rng: random.Random = field(default_factory=random.Random)
    rig: FogRig = field(init=False)
    sync: FogSync = field(init=False)
    placed: int = 0  # pieces put on by guidance
    removed: int = 0  # pieces taken off by guidance
    messages: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        game = get_game(self.game_name, **self.options)
        pos = game.parse_view(self.position_text)
        self.rig = FogRig(pos, game=game, options=BoardOptions(guide_delay=1.0))
        self.rig.board.subscribe("interaction", lambda it: self.messages.append(it.message))
        self.sync = FogSync(self.rig.board, self.seat)
        self.sync.show(0, self.position_text)
        self.follow()

    def follow(self, limit: int = 80, finish: bool = True) -> None:
        """Put on and take off what the board asks, one piece at a time, until it is
        ready for play (or the game is over) — or, not ``finish``-ing, stop after ``limit``
        steps (the next view arrives while he is still at it)."""
        rig = self.rig
        layout = rig.layout
        for _ in range(limit):
            rig.wait(0.05)
            self.sync.poll()
            it = rig.interaction
            if it.phase != "setup":
                self._count_hands()
                return
            spot = it.guide
            if spot is None:
                rig.wait(0.3)  # a refusal is shown first; guidance follows
                continue
            if spot in it.extra:
                rig.remove(spot)
                self.removed += 1
                continue
            s = layout.spots[spot]
            if s.role == "hand":
                rig.sim.take(obj(s.owner, s.piece))
            else:
                m = PUT.search(it.message)
                assert m and m.group(3) == s.name, it.message
                rig.sim.take(obj(0 if m.group(1) == "White" else 1, KIND[m.group(2)]))
            rig.place(spot)
            self.placed += 1
        if finish:
            raise AssertionError(f"the board never got ready: {rig.interaction}")

    def _count_hands(self) -> None:
        """Piles whose count changed but not their occupancy: the page says how many."""
        sim = self.rig.sim
        for owner, kind, n in self.sync.hand_notes:
            pad = hand_pad(owner, kind)
            have = len(sim.objects(pad))
            if have < n:
                sim.take([obj(owner, kind)] * (n - have))
                self.rig.place(pad, n - have)
            elif have > n:
                self.rig.lift(pad, have - n)
                sim.set_aside(have - n)
        self.sync.hand_notes = []

    def tries(self) -> list[Move]:
        """The moves he may try (as far as his view can tell)."""
        return self.rig.game.board_moves(self.rig.position)

    def play(self, move: Move) -> None:
        """Make ``move`` on the board; it is then tried with the referee."""
        LaoHuman(self.rig, self.rng).play(move)
        for _ in range(40):  # a move the next gesture could amend waits a moment
            if self.sync.waiting:
                return
            self.rig.wait(0.1)
            self.sync.poll()
        raise AssertionError("the move never went to the referee")


def decisive_try(game, pos: Position, player: FogPlayer, wild: float = 0.25) -> Move:
    """The script's choice for ``player``: sometimes any try from his view (the referee may
    refuse it), else a legal move that mates, checks or captures if there is one — the
    script looks at the true position ``pos`` only to reach a decisive finish quickly;
    the board and the player's hands still know only his view."""
    tries = player.tries()
    if player.rng.random() < wild:
        return player.rng.choice(tries)
    legal = set(game.legal_moves(pos))

    def score(m: Move) -> int:
        pos.push(m, record=False)
        try:
            o = game.outcome(pos)
            return (3 if o is not None and o.winners else 2 if game.in_check(pos)
                    else 1 if m.captures else 0)
        finally:
            pos.pop()

    scored = [(score(m), m) for m in tries if m in legal]
    best = max(s for s, _ in scored)
    return player.rng.choice([m for s, m in scored if s == best])
