"""The board test rig, shared by the ``test_board*`` files, the other rigs and benchmarks.

A :class:`~controller.sensing.sim.board.SimulatedBoard` (magnet physics, bounce, pieces
off centre or knocked over) is scanned every simulated millisecond (ideal sensors:
``expected_frame``); the scans go through the real :class:`Debouncer` and
:class:`SettleGate` (which asks the board ``is_extendable``) into a :class:`Board`.  A
simulated human (:class:`Human`) turns an intended :class:`Move` into physical actions in
a random but realistic order, and answers the board's choices by touching option pads
(or tapping cells) the way a player would — reading only the published Interaction.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from controller.board import MORE, Board, BoardOptions
from controller.interaction import Interaction
from controller.layout import Layout, layout_names, load_layout
from controller.rules import DEFAULT_GAME, Game, get_game
from controller.rules.core import Move, Piece, Position
from controller.sensing.debounce import DebounceConfig, Debouncer, SettleGate
from controller.sensing.sim.board import SimulatedBoard
from controller.sensing.sim.objects import object_name
from controller.sensing.sim.rig import SimulatedSensing

GAME = get_game(DEFAULT_GAME)  # the rig's game unless a test names another
SCAN_S = 0.001
HOT_S = 0.012  # scan this long after any physical change (debounce needs 3 ms)
TICK_S = 0.01


def layout_for(game: Game) -> Layout:
    """The first printed layout that plays ``game`` (layouts name their games as data)."""
    for name in layout_names():
        layout = load_layout(name)
        if game.name in layout.games:
            return layout
    raise ValueError(f"no layout plays {game.name}")


def objects_for(piece: Piece, game: Game = GAME) -> list[str]:
    """The physical objects of a piece, named as the simulator names them (the game's
    player and piece names): a stack of height n is n objects."""
    return [object_name(game, piece)] * max(1, piece.height)


class Rig:
    """Simulated board + debouncer + settle gate + Board, under one simulated clock.

    By default the sensors are ideal (``expected_frame``) and scanned only while
    something changes (fast enough for property tests); ``backend="gpio-matrix"`` (or any
    of ``controller.sensing.sim.rig.BACKENDS``) runs the production back end through the
    emulated electronics instead, scanning every ``period`` seconds (default 1 ms)."""

    def __init__(self, position: Position | str | None = None, *, game: Game | str = GAME,
                 layout: str | None = None, options: BoardOptions | None = None,
                 analog: bool = False, settle: float = 0.2, seed: int = 0,
                 set_up: bool = True, layout_obj=None, backend: str | None = None,
                 period: float | None = None):
        if isinstance(game, str):
            game = get_game(game)
        self.game = game
        self.layout = layout_obj or (load_layout(layout) if layout else layout_for(game))
        self.sim = SimulatedBoard(self.layout, seed=seed)
        self.analog = analog
        if isinstance(position, str):
            position = game.parse_position(position)
        self.moves: list[Move] = []
        self.takebacks: list[list[Move]] = []
        self.commands: list[tuple[str, int | None]] = []
        self.outcomes: list = []
        self.seen: list[Interaction] = []
        self.board = Board(game, self.layout, position, options,
                           on_interaction=self.seen.append, on_move=self.moves.append,
                           on_takeback=self.takebacks.append,
                           on_command=lambda n, p: self.commands.append((n, p)),
                           on_game_over=self.outcomes.append)
        self._revision = -1
        self._hot_until = -1.0
        self._next_tick = 0.0
        self._previewed = None
        self.sensing = None
        if backend is None:
            self.debouncer = Debouncer(DebounceConfig())
            self.gate = SettleGate(self.board.is_extendable, settle)
            self.sim.every(SCAN_S, self._scan)
        else:
            self.sensing = SimulatedSensing(self.sim, backend, settle_s=settle, period_s=period,
                                            is_extendable=self.board.is_extendable, seed=seed)
            self.gate = self.sensing.pipeline.gate
            self.sim.every(SCAN_S, self._drain)
        if set_up:
            self.set_up(self.board.position)
            self.wait(0.05)

    # -- plumbing ------------------------------------------------------------------------
    def _scan(self) -> None:
        sim = self.sim
        now = sim.now
        if sim.revision != self._revision:
            self._revision = sim.revision
            self._hot_until = now + HOT_S
        if now <= self._hot_until:
            stable = self.debouncer.feed(sim.expected_frame(self.analog))
            if stable is not None:
                self.gate.feed(stable)
        self._deliver(self.gate.release(now), now)

    def _drain(self) -> None:
        self._deliver(self.sensing.frames(), self.sim.now)

    def _deliver(self, frames, now: float) -> None:
        """Settled frames to the board, the held one as a preview, the board's clock."""
        for frame in frames:
            self.board.feed(frame)
        if self.gate.queue and self.gate.queue[0] is not self._previewed:
            self._previewed = self.gate.queue[0]
            self.board.preview(self._previewed)
        if now >= self._next_tick:
            self._next_tick = now + TICK_S
            self.board.tick(now)

    def close(self) -> None:
        if self.sensing is not None:
            self.sensing.close()

    def wait(self, seconds: float = 0.05) -> None:
        self.sim.advance(seconds)

    # -- views ---------------------------------------------------------------------------
    @property
    def state(self) -> str:
        return self.board.state

    @property
    def interaction(self) -> Interaction:
        return self.board.interaction

    @property
    def position(self) -> Position:
        return self.board.position

    def spot(self, name: str) -> int:
        return self.layout.spot_index(name)

    def spots(self, *names: str) -> frozenset[int]:
        return frozenset(self.spot(n) for n in names)

    def text(self, move: Move, pos: Position | None = None) -> str:
        return self.game.move_text(pos or self.position, move)

    # -- set-up and actions ----------------------------------------------------------------
    def set_up(self, pos: Position) -> None:
        """Put the pieces of ``pos`` on the board (each token on its holder's pad)."""
        sim = self.sim
        sim.clear()
        for c, p in enumerate(pos.board):
            if p is not None:
                sim.put(c, objects_for(p, self.game))
        for token in self.game.tokens:
            holder = pos.tokens.get(token.name)
            if holder is not None:
                sim.put(self.layout.pad("token", holder, token.name).name, token.name)

    def lift(self, spot: str | int, count: int | None = None, wait: float = 0.05) -> None:
        self.sim.lift(spot, count)
        self.wait(wait)

    def place(self, spot: str | int, count: int | None = None, wait: float = 0.05) -> None:
        self.sim.place(spot, count)
        self.wait(wait)

    def remove(self, spot: str | int, wait: float = 0.05) -> None:
        """Take everything off a spot and put it in the box (the hand keeps the rest)."""
        n = len(self.sim.objects(spot))
        self.sim.lift(spot)
        self.sim.set_aside(n)
        self.wait(wait)

    def move(self, src: str | int, dst: str | int, count: int | None = None,
             wait: float = 0.05) -> None:
        n = count or len(self.sim.objects(src))
        self.lift(src, count, wait)
        self.place(dst, n, wait)

    def tap(self, spot: str | int, wait: float = 0.05) -> None:
        """Touch a spare magnet to a spot (an option pad) and take it away again; on an
        occupied cell: lift the piece and put it back."""
        if self.sim.objects(spot):
            n = len(self.sim.objects(spot))
            self.lift(spot, None, wait)
            self.place(spot, n, wait)
            return
        self.sim.take("spare-magnet")
        self.place(spot, 1, wait)
        self.lift(spot, None, wait)
        self.sim.set_aside(1)
        self.wait(wait)

    def answer(self, move: Move, limit: int = 12) -> None:
        """Answer an open choice with ``move`` the way a player would: find its colour on
        the option pads (page with "more…") and touch that pad (or tap that cell)."""
        for _ in range(limit):
            it = self.interaction
            assert it.phase == "choice", f"no choice open ({it.phase}: {it.message})"
            for o in it.options:
                if o.move == move:
                    self.tap(o.spot)
                    return
            more = [o for o in it.options if o.label == MORE]
            assert more, f"{move} not offered: {[o.label for o in it.options]}"
            self.tap(more[0].spot)
        raise AssertionError("paged through every option without finding the move")


@dataclass
class Human:
    """Turns intended moves into physical actions, in a random realistic order, with
    optional mishaps (bounces, wobbles, knocked and off-centre pieces) that it repairs."""

    rig: Rig
    rng: random.Random = field(default_factory=random.Random)
    mishaps: bool = False
    slow: float = 0.0  # probability of a pause longer than the settle time between steps

    def pause(self) -> None:
        r = self.rng.random()
        self.rig.wait(0.6 if r < self.slow else 0.02 + 0.08 * self.rng.random())

    def play(self, move: Move) -> None:
        """Make ``move`` on the board, answer any choice, until it is committed.

        Checks on the way that nothing else was committed for good: a commit of another
        move is allowed only when the board replaces it right away by ``move`` (the Cube
        handed over after the move, castling completed, a Tower's remainder put back)."""
        rig = self.rig
        before = len(rig.position.moves)
        commits, takebacks = len(rig.moves), len(rig.takebacks)
        pos = rig.position
        if self.mishaps and self.rng.random() < 0.3:
            self.mishap(pos, move)
        for step in self.steps(pos, move):
            step()
            self.pause()
            if self.mishaps and self.rng.random() < 0.15:
                rig.sim.bounce(self.rng.choice(self._occupied()))
                rig.wait(0.01)
        rig.wait(0.3)
        for _ in range(6):
            # committed; a choice open now belongs to the next turn (a die roll is due)
            if len(rig.position.moves) > before and (rig.state != "choice"
                                                      or rig.position.moves[-1] == move):
                break
            if rig.state == "choice":
                rig.answer(move)
                rig.wait(0.3)
            else:
                rig.wait(0.3)
        assert len(rig.position.moves) == before + 1 and rig.position.moves[-1] == move, (
            f"intended {move}, board {rig.state} ({rig.interaction.message}); "
            f"committed {rig.position.moves[before:]}")
        replaced = [m for t in rig.takebacks[takebacks:] for m in t]
        assert rig.moves[commits:] == [*replaced, move] and len(replaced) == len(
            rig.takebacks[takebacks:]), "a wrong commit or a takeback nobody asked for"
        assert rig.state in ("turn", "game_over", "choice"), rig.state
        assert not rig.interaction.missing and not rig.interaction.extra

    # -- physical steps of one move ---------------------------------------------------------
    def steps(self, pos: Position, move: Move) -> list:
        rig, rng = self.rig, self.rng
        board = pos.board
        o, t = move.origin, move.target
        mover = board[o]
        out: list = []
        if move.kind == "promote":
            def swap() -> None:
                rig.remove(o)
                rig.sim.take(objects_for(move.piece, rig.game))
                rig.place(o)
            out.append(swap)
        elif move.kind == "castle":
            (ro, rt), = move.also
            king = [lambda: rig.move(o, t)]
            rook = [lambda: rig.move(ro, rt)]
            out += king + rook if rng.random() < 0.5 else rook + king
        else:
            out += self._piece_steps(pos, move, mover)
        if any(t.name == move.token for t in rig.game.tokens):  # handed to the next holder
            holder = pos.tokens[move.token]
            pos.push(move, record=False)
            new_holder = pos.tokens[move.token]
            pos.pop()
            src = rig.layout.pad("token", holder, move.token).name
            dst = rig.layout.pad("token", new_holder, move.token).name

            def hand_over() -> None:
                rig.move(src, dst)
            if rng.random() < 0.3:
                out.insert(0, hand_over)
            else:
                out.append(hand_over)
        return out

    def _piece_steps(self, pos: Position, move: Move, mover: Piece) -> list:
        """A move, split or merge, with any captures: the moving part is taken (maybe the
        whole Tower, the rest put back before or after), the target cleared (a victim to
        the box; a merge target lifted, or stacked on and tapped), the part carried over
        the passed cells and put down; bypass victims are removed at any moment."""
        rig, rng = self.rig, self.rng
        o, t = move.origin, move.target
        victim = pos.board[t]
        merge = move.kind == "merge"
        # the part of a stack that moves (all of a piece that does not stack: height 1)
        n = mover.height
        k = (move.piece.height if move.piece is not None else n) - (
            victim.height if merge else 0)
        lift_all = k < n and rng.random() < 0.3
        rest_first = rng.random() < 0.5
        merge_lift = merge and rng.random() < 0.5
        # one hand holds the moving stones, the other may lift the target Tower: never
        # both a whole source Tower and the target (that picture *is* another merge)
        rest_first = rest_first or merge_lift
        path = self._path(pos, o, t) if not merge_lift and rng.random() < 0.5 else []
        state = {"rest": 0}

        def take() -> None:
            if lift_all:
                rig.lift(o)
                state["rest"] = n - k
                if rest_first:
                    rig.place(o, n - k)  # the last n-k picked up: any stones are alike
                    state["rest"] = 0
            else:
                rig.lift(o, k if n > 1 else None)

        def clear_target() -> None:
            if merge_lift:
                rig.lift(t)  # the target Tower joins the moving stones in the hand
            else:
                rig.remove(t)

        def put() -> None:
            for c in path:  # sensed briefly on every passed cell
                rig.place(c, k, 0.03)
                rig.lift(c, None, 0.02)
            rig.place(t, k + (victim.height if merge_lift else 0))
            if state["rest"]:
                rig.place(o, state["rest"])
                state["rest"] = 0
            if merge and not merge_lift:
                rig.tap(t)  # a merge counts once its target was lifted once

        steps = [take]
        if victim is not None and (not merge or merge_lift):
            steps.insert(1 if merge_lift else rng.randrange(2), clear_target)
        steps.append(put)
        for c in move.captures:
            if c != t:
                steps.insert(rng.randrange(len(steps) + 1), lambda c=c: rig.remove(c))
        return steps

    def _path(self, pos: Position, o: int, t: int) -> list[int]:
        """Cells passed on a straight line from ``o`` to ``t`` (none for a leap)."""
        for ray in self.rig.game.geometry.rays.values():
            cells = ray[o]
            if t in cells:
                passed = list(cells[:cells.index(t)])
                if all(pos.board[c] is None for c in passed):
                    return passed
        return []

    # -- mishaps --------------------------------------------------------------------------
    def _occupied(self) -> list[int]:
        sim = self.rig.sim
        return [c for c in range(self.rig.layout.cell_count) if sim.objects(c)] or [0]

    def mishap(self, pos: Position, move: Move) -> None:
        """Something clumsy before the move, repaired at once or after a while: a piece
        knocked off the board (sometimes left there past the guidance delay) or onto a
        neighbour, a piece pushed so far off centre that its own sensor misses it, or one
        left a little off centre for good (still sensed)."""
        rig, rng = self.rig, self.rng
        sim = rig.sim
        involved = {move.origin, move.target, *move.captures}
        if pos.moves:  # the last move's piece off the board is a takeback request
            last = pos.moves[-1]
            involved |= {last.target, *(b for _, b in last.also)}
        spare = [c for c in self._occupied() if c not in involved]
        if not spare:
            return
        c = rng.choice(spare)
        n = len(sim.objects(c))
        neighbours = [x for x in sim._neighbours[c]
                      if x < rig.layout.cell_count and sim.objects(x) and x not in involved]
        kind = rng.choice(("off board", "onto", "push", "lean"))
        if kind == "off board":
            sim.knock_over(c)
            rig.wait(3.3 if rng.random() < 0.2 else 0.2)
            fallen = sim.aside[len(sim.aside) - n:]
            del sim.aside[len(sim.aside) - n:]
            sim.take([t.name for t in fallen])  # picked up from the floor …
            rig.place(c, n)  # … and put back
        elif kind == "onto" and neighbours:
            x = rng.choice(neighbours)
            sim.knock_over(c, x)  # lies on top of the neighbour's piece
            rig.wait(0.3)
            rig.lift(x, n)
            rig.place(c, n)
        elif kind == "push" and neighbours:
            # toward a piece of the same colour: its own reed opens.  (Pushed toward the
            # other colour, the magnets cancel and the neighbour's sensor reads empty too:
            # a false reading no referee can see through.)
            colour = sim.objects(c)[0].startswith("black")
            same = [x for x in neighbours if sim.objects(x)[0].startswith("black") == colour]
            if not same:
                return
            sim.off_centre(c, rng.choice(same))
            rig.wait(0.3)
            rig.lift(c)  # straightened: lifted and put back on its centre
            rig.place(c, n)
        elif kind == "lean" and n == 1:
            empty = [x for x in sim._neighbours[c]
                     if x < rig.layout.cell_count and not sim.objects(x)]
            if not empty:
                return
            for spot in list(sim.leaning):  # one piece off centre at a time: the last one
                k = len(sim.objects(spot))  # is straightened first
                rig.lift(spot)
                rig.place(spot, k)
            sim.off_centre(c, rng.choice(empty), 0.3)  # still sensed on its own cell
            rig.wait(0.1)
