"""Lao Tzu Chess on the board: hand pads, the view-keeping human and the view checks."""

from __future__ import annotations

import re

from controller.board import Board
from controller.config import Config
from controller.interaction import NOT_A_MOVE, Interaction
from controller.layout import load_layout
from controller.leds import LedSettings, render_scene
from controller.rules.core import Move, Position
from controller.rules.laotzu import (
    LaoTzu,
    castling_rook_of,
    view,
    view_move_text,
)
from controller.service import BoardService
from tests.support.rig import Human, Rig

GAME = LaoTzu()


LAYOUT = load_layout("square8")


CELLS = LAYOUT.cell_count


PADS = frozenset(range(CELLS, len(LAYOUT.spots)))


SQ = LAYOUT.geometry.cell


COLOURS = ("white", "black")


def obj(owner: int, kind: str) -> str:
    """The physical object of a piece (the page's names: ``white-K``, ``black-p``…)."""
    return f"{COLOURS[owner]}-{kind}"


def hand_pad(owner: int, kind: str) -> str:
    return LAYOUT.pad("hand", owner, kind).name


class LaoRig(Rig):
    """The shared rig with Lao Tzu pieces; hands lie on their hand pads."""

    def __init__(self, position: Position | str | None = None, *, game: LaoTzu = GAME,
                 **kw) -> None:
        self.checked = 0
        super().__init__(position, game=game, **kw)

    def _check(self, it: Interaction) -> None:
        """Every interaction the board publishes is checked against the view."""
        assert_within_view(self.board, it)
        self.checked += 1

    def set_up(self, pos: Position) -> None:
        if self._check not in self.board.listeners.interaction:
            self.board.subscribe("interaction", self._check)
        sim = self.sim
        sim.clear()
        for c, p in enumerate(pos.board):
            if p is not None:
                sim.put(c, obj(p.owner, p.kind))
        for owner, hand in enumerate(pos.hands):
            for kind, n in hand.items():
                sim.put(hand_pad(owner, kind), [obj(owner, kind)] * n)


class LaoHuman(Human):
    """Turns a Lao Tzu move into the physical actions of a player, in random orders."""

    _swap_first = False  # this move's promotion: the new piece put down at once

    def play(self, move: Move) -> None:
        rig = self.rig
        super().play(move)  # (``steps`` decided whether the new piece goes down at once)
        if move.promotion and not self._swap_first:  # the type was picked: swap the piece
            rig.remove(move.target)
            rig.sim.take(obj(move.piece.owner, move.piece.kind))
            rig.place(move.target)
            rig.wait(0.3)
            assert rig.state in ("turn", "game_over"), (rig.state, rig.interaction)
            assert not rig.interaction.missing and not rig.interaction.extra

    def steps(self, pos: Position, move: Move) -> list:
        rig, rng = self.rig, self.rng
        mover = GAME.ply_mover(pos)
        self._swap_first = bool(move.promotion) and rng.random() < 0.5
        if move.kind == "drop":
            out = self._drop_steps(pos, move, mover)
        elif move.kind == "castle":
            out = self._castle_steps(pos, move)
        else:
            out = self._chess_steps(pos, move)
        # the capturer's hand gains a piece: one of his colour from the box onto his pad
        pos.push(move, record=False)
        after = dict(pos.hands[mover])
        pos.pop()
        for kind, n in after.items():
            for _ in range(n - pos.hands[mover].get(kind, 0)):
                def to_pad(kind: str = kind) -> None:
                    rig.sim.take(obj(mover, kind))
                    rig.place(hand_pad(mover, kind), 1)
                out.insert(rng.randrange(len(out) + 1), to_pad)
        return out

    def _drop_steps(self, pos: Position, move: Move, mover: int) -> list:
        rig, rng = self.rig, self.rng
        pad = hand_pad(mover, move.piece.kind)
        n = pos.hands[mover][move.piece.kind]
        if n > 1 and rng.random() < 0.5:  # the whole pile up, the rest back before or after
            if rng.random() < 0.5:
                return [lambda: (rig.lift(pad), rig.place(pad, n - 1)),
                        lambda: rig.place(move.target)]
            return [lambda: rig.lift(pad), lambda: rig.place(move.target, 1),
                    lambda: rig.place(pad)]
        return [lambda: rig.lift(pad, 1), lambda: rig.place(move.target)]

    def _castle_steps(self, pos: Position, move: Move) -> list:
        rig, rng = self.rig, self.rng
        king, king_to = move.origin, move.target
        rook = castling_rook_of(GAME.castling, move)
        rook_to = move.also[0][1] if move.also else rook
        parts = [(a, b) for a, b in ((king, king_to), (rook, rook_to)) if a != b]
        orders = []
        if len(parts) == 1:
            return [lambda: rig.move(*parts[0])]
        if king_to != rook:
            orders.append(parts)  # King first
        if rook_to != king:
            orders.append(parts[::-1])  # Rook first
        if not orders or rng.random() < 0.3:  # both in the hand, put down last-lifted first
            first, second = parts if rng.random() < 0.5 else parts[::-1]
            out = [lambda: rig.lift(first[0]), lambda: rig.lift(second[0]),
                   lambda: rig.place(second[1], 1), lambda: rig.place(first[1])]
            if not orders:  # King and Rook swapped: the sensors saw nothing change, so
                out.append(lambda: rig.tap(king_to))  # tap the King: a silent move's gesture
            return out
        order = rng.choice(orders)
        return [lambda a=a, b=b: rig.move(a, b) for a, b in order]

    def _chess_steps(self, pos: Position, move: Move) -> list:
        rig, rng = self.rig, self.rng
        o, t = move.origin, move.target
        swap_first = self._swap_first
        path = self._path(pos, o, t) if rng.random() < 0.4 else []

        def take() -> None:
            rig.lift(o)

        def put() -> None:
            for c in path:  # sensed briefly on every passed cell
                rig.place(c, 1, 0.03)
                rig.lift(c, None, 0.02)
            if swap_first:  # the Pawn to the box, the new piece onto the last rank
                rig.sim.set_aside(1)
                rig.sim.take(obj(move.piece.owner, move.piece.kind))
            rig.place(t)

        steps = [take, put]
        if pos.board[t] is not None:
            steps.insert(rng.randrange(2), lambda: rig.remove(t))
        for c in move.captures:
            if c != t:  # en passant: the Pawn beside the target, like a bypass victim
                steps.insert(rng.randrange(len(steps) + 1), lambda c=c: rig.remove(c))
        return steps


class ServiceRig:
    """The rig's interface over the board service (``fairyboard run`` in process, the
    simulated board behind the emulated electronics): the same human plays there, and
    the service journals every move.  ``check`` runs after every step of the human."""

    def __init__(self, svc, check=None) -> None:
        self.svc = svc
        self.sim = svc.sim
        self.layout = svc.layout
        self.game = svc.game
        self.check = check
        self.moves: list[Move] = []
        self.takebacks: list[list[Move]] = []
        svc.board.subscribe("move", self.moves.append)
        svc.board.subscribe("takeback", self.takebacks.append)
        svc.board.subscribe("interaction", lambda it: assert_within_view(svc.board, it))
        svc.sim_action({"action": "arrange"})
        self.wait(0.1)
        assert self.state == "turn", self.interaction

    position = property(lambda self: self.svc.position)
    interaction = property(lambda self: self.svc.interaction)
    state = property(lambda self: self.svc.interaction.phase)

    def wait(self, seconds: float = 0.05) -> None:
        self.svc.step(seconds)
        if self.check is not None:
            self.check(self.svc)

    lift, place, remove, move, tap, answer, spot, spots = (
        Rig.lift, Rig.place, Rig.remove, Rig.move, Rig.tap, Rig.answer, Rig.spot, Rig.spots)


CELL_NAME = re.compile(r"\b([a-h][1-8])\b")


def allowed_spots(v) -> frozenset[int]:
    return frozenset(v.visible) | PADS


def assert_within_view(board: Board, it: Interaction) -> None:
    """Everything ``it`` shows is in the view of the player it serves (the side to move):
    nothing names or lights a hidden cell or a hidden piece.  Corrections (missing, extra,
    the guided spot) are the physical board's difference from the committed position's
    occupancy and may name any cell, never a hidden piece."""
    pos = board.position
    assert it.viewer == GAME.ply_mover(pos), "the board serves the side to move"
    v = view(pos, it.viewer)
    allowed = allowed_spots(v)
    if it.phase != "setup":
        assert it.visible == v.visible
    assert it.enemy_visible == frozenset(c for c, _ in v.enemies)
    for name in ("origins", "targets", "to_remove", "execute_from", "execute_to",
                 "last_move", "check", "active_pads"):
        spots = getattr(it, name)
        assert spots <= allowed, (name, spots - allowed)
    assert not it.last_move, "the opponent's last move is never shown"
    king = {c for c, p in v.own if p.kind == "K"}
    assert it.check == (king if v.in_check and v.turn == v.player else set())
    assert all(o.spot in allowed for o in it.options)
    # missing / extra: only occupancy against the committed position (physical)
    occupied = {c for c, p in enumerate(pos.board) if p is not None}
    assert {c for c in it.missing if c < CELLS} <= occupied
    assert not {c for c in it.extra if c < CELLS} & occupied
    if it.guide is not None:
        assert it.guide in it.missing | it.extra
    for o in it.options:  # choice labels: the view's notation of the option's move
        if o.move is not None and o.move in board.reconciler.index.moves:
            assert o.label == view_move_text(v, o.move)
    _assert_message(it, v)
    # the LEDs: a cell outside the view is dark unless a stray piece stands on it
    frame = render_scene(LAYOUT, it, 0.3, None, LedSettings(brightness=1.0, budget_ma=None))
    for c in range(CELLS):
        if c not in allowed and it.phase != "setup":
            led = LAYOUT.spots[c].led
            assert frame.roles[led] in ("", "extra"), (LAYOUT.spots[c].name, frame.roles[led])
            assert frame.roles[led] == "" or c in it.extra


def _assert_message(it: Interaction, v) -> None:
    text = it.message
    known = dict(v.own) | dict(v.enemies)
    for cell_name in CELL_NAME.findall(text):
        c = SQ(cell_name)
        assert c in v.visible or c in it.missing | it.extra, (text, cell_name)
    m = re.search(r"put the (White|Black) (\w+) on ([a-h][1-8])", text)
    if m:
        p = known.get(SQ(m.group(3)))
        assert p is not None and GAME.piece_names[p.kind] == m.group(2), text
    allowed = ("", "illegal move", "check", "set up the position", NOT_A_MOVE)
    assert (text in allowed or text.startswith(("choose: ", "put ", "take the piece off ",
                                                "taking back ", "take-backs are off"))
            or re.fullmatch(r"(1-0|0-1|1/2-1/2) \(\w[\w-]*\)(: \w+ wins)?", text)
            or text.endswith("offers a draw")), text


def make_service(tmp_path, scan_hz: float = 100.0, **options) -> BoardService:
    """The service with the simulated board, scanned at ``scan_hz`` (the emulated matrix
    costs most of a test's time)."""
    config = Config()
    config.journal.path = str(tmp_path / "journal")
    config.sensing.settle_ms = 50.0
    config.sensing.debounce_ms = 5.0
    config.sensing.scan_hz = scan_hz
    config.board.game = "laotzu"
    config.board.options = options
    return BoardService(config)


def lookalike_positions() -> tuple:
    """Two true Lao Tzu positions that look the same to White: ``(game_a, pos_a, game_b,
    pos_b)`` — Black's array differs, and so does Black's reply, out of White's sight
    (the never-peek tests: the same view must give the same move)."""
    from controller.rules import get_game

    a = get_game("laotzu", white_array=518, black_array=518)
    b = get_game("laotzu", white_array=518, black_array=0)
    pa, pb = a.start(), b.start()
    for text in ("e4", "Nc6"):
        pa.push(a.parse_move(pa, text))
    for text in ("e4", "a5"):
        pb.push(b.parse_move(pb, text))
    return a, pa, b, pb
