"""Lao Tzu Chess on one board (teaching, hot seat): the state machine serves the side to
move and shows only what that player may know; drops from the hand pads, promotion on
the option pads, castling in every order (Chess960 King or Rook staying, King and Rook
swapping), en passant, captures onto the capturer's hand pad; illegal attempts refused
with "illegal move" and nothing else.

The simulated human (:class:`LaoHuman`, built on ``test_board_rig.Human``) does what a
player does physically: a captured piece goes to the box and a piece of the capturer's
colour of that kind (a Pawn for a promoted piece) from the box onto his hand pad; a drop
takes one piece off the hand pad (or the whole pile, the rest put back); a promoted Pawn
is swapped for the new piece before or after the type is picked on the option pads.
"""

from __future__ import annotations

import random
import re

import pytest
from test_board_rig import Human, Rig

from controller.board import Board
from controller.config import Config
from controller.interaction import Interaction
from controller.journal import Journal, export_record
from controller.layout import load_layout
from controller.leds import LedSettings, render_scene
from controller.rules import get_game
from controller.rules.core import Move, Piece, Position, PositionError
from controller.rules.laotzu import (
    LaoTzu,
    castling_rook_of,
    hint_drop_targets,
    hint_targets,
    view,
    view_move_text,
)
from controller.sensing.frame import Frame
from controller.service import BoardService

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


# -- the rig and the human ---------------------------------------------------------------


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


# -- what a player-facing output may contain -----------------------------------------------

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
    m = re.search(r"put (White|Black) (\w) on ([a-h][1-8])", text)
    if m:
        p = known.get(SQ(m.group(3)))
        assert p is not None and p.kind == m.group(2).upper(), text
    allowed = ("", "illegal move", "check", "set up the position")
    assert (text in allowed or text.startswith(("choose: ", "put ", "take the piece off ",
                                                "taking back ", "take-backs are off"))
            or re.fullmatch(r"(1-0|0-1|1/2-1/2) \(\w[\w-]*\)(: \w+ wins)?", text)
            or text.endswith("offers a draw")), text


# -- the hook: what the board may try, from the view ------------------------------------------


def test_board_moves_are_the_hints_and_contain_every_legal_move():
    pos = GAME.parse_position(
        "r3k2r/ppp1qppp/2n5/3pP3/3P4/2N5/PPP2PPP/R3K2R[Nn] w HAha d6 0 9")
    attempts = GAME.board_moves(pos)
    legal = GAME.legal_moves(pos)
    assert set(legal) <= set(attempts) and len(set(attempts)) == len(attempts)
    v = view(pos, 0)
    for cell, _ in v.own:  # the King's castlings included (O-O, O-O-O: g1, c1)
        assert {m.target for m in attempts if m.origin == cell} == hint_targets(v, cell)
    castles = {GAME.move_text(pos, m) for m in attempts if m.kind == "castle"}
    assert castles == {"O-O", "O-O-O"}
    assert {m.target for m in attempts if m.kind == "drop"} == hint_drop_targets(v, "N")
    ep = next(m for m in attempts if m.captures and m.captures != (m.target,))
    assert (ep.origin, ep.target, ep.captures) == (SQ("e5"), SQ("d6"), (SQ("d5"),))


def test_labels_come_from_the_view_not_from_hidden_pins():
    # Black's Knight d6 is pinned by the Bishop b4, which Black cannot see: the referee's
    # SAN says "Nc4" (the other Knight may not go there); the player is told "Nac4"
    text = "1b1rbk1r/p1pp2pP/1p1nn3/n2Ppp1P/BB2P3/P4q2/RP1p1P2/K1Q3N1[RP] b - - 0 26"
    pos = GAME.parse_position(text)
    move = GAME.parse_move(pos, "Nc4")
    assert SQ("b4") not in view(pos, 1).visible
    assert GAME.player_move_text(pos, move) == "Nac4" == view_move_text(view(pos, 1), move)


# -- golden behaviour on the board ----------------------------------------------------------


def test_start_serves_white_with_his_view_and_hints():
    rig = LaoRig()
    it = rig.interaction
    assert (it.phase, it.viewer, it.message) == ("turn", 0, "")
    assert it.visible == view(rig.position, 0).visible and not it.enemy_visible
    rig.lift("g1")
    it = rig.interaction
    assert it.phase == "lifted" and it.origins == rig.spots("g1")
    assert it.targets == rig.spots("f3", "h3")
    rig.place("f3")
    assert [GAME.long_move_text(GAME.start(), m) for m in rig.moves] == ["g1f3"]
    assert rig.interaction.viewer == 1 and rig.interaction.last_move == frozenset()
    assert rig.checked >= 3  # set-up done, lifted, the move made


PIN = "4k3/8/8/8/1b6/8/3N4/4K3 w - - 0 1"  # the b4 Bishop pins d2, White cannot see it


def test_illegal_move_is_refused_with_illegal_move_only():
    rig = LaoRig(PIN)
    assert SQ("b4") not in view(rig.position, 0).visible
    rig.lift("d2")
    # the hint cannot know the pin: every Knight move lights up
    assert rig.interaction.targets == rig.spots("b1", "b3", "c4", "e4", "f3", "f1")
    rig.place("f3")
    it = rig.interaction
    assert it.message == "illegal move" and it.phase == "correction"
    assert it.missing == rig.spots("d2") and it.extra == rig.spots("f3")
    assert rig.moves == [] and not it.targets and not it.enemy_visible
    rig.wait(4.0)  # guidance names the cells he changed, nothing else
    assert rig.interaction.message in ("take the piece off f3",)
    rig.move("f3", "d2")
    assert rig.state == "turn" and rig.interaction.message == ""
    human = LaoHuman(rig, random.Random(3))
    human.play(GAME.parse_move(rig.position, "Kf2"))
    assert rig.position.moves[-1] == GAME.parse_move(GAME.parse_position(PIN), "Kf2")


def test_check_is_told_never_by_what():
    # the Rook e8 checks the King e1 from behind the fog (White sees e2, not e8): he is
    # told "check", his King's LED beats; nothing shows where the check comes from
    pos = "4r1k1/8/8/8/8/8/8/R3K3 w - - 0 1"
    rig = LaoRig(pos)
    it = rig.interaction
    v = view(rig.position, 0)
    assert v.in_check and SQ("e8") not in v.visible
    assert it.message == "check" and it.check == rig.spots("e1")
    assert SQ("e8") not in it.enemy_visible


def test_drop_from_a_single_piece_pad_needs_no_choice():
    rig = LaoRig("4k3/8/8/8/8/8/4P3/4K3[Nq] w - - 0 1")
    rig.lift(hand_pad(0, "N"), 1)
    it = rig.interaction
    v = view(rig.position, 0)
    assert it.phase == "lifted" and it.origins == rig.spots(hand_pad(0, "N"))
    assert it.targets == hint_drop_targets(v, "N")
    rig.place("e3")
    assert GAME.move_text(GAME.parse_position("4k3/8/8/8/8/8/4P3/4K3[Nq] w - - 0 1"),
                          rig.moves[0]) == "N@e3"
    assert rig.interaction.viewer == 1


def test_drop_from_piles_asks_the_type():
    # two Knights and two Bishops in hand: taking one off a pile leaves the pad occupied,
    # so the sensors cannot tell which; the board asks (promotion-like, on option pads)
    start = "4k3/8/8/8/8/8/4P3/4K3[NNBB] w - - 0 1"
    rig = LaoRig(start)
    rig.lift(hand_pad(0, "B"), 1)
    assert rig.state == "turn"  # nothing sensed yet
    rig.place("e3")
    it = rig.interaction
    assert it.phase == "choice"
    assert [o.label for o in it.options] == ["B@e3", "N@e3"]
    assert all(o.spot in PADS for o in it.options)
    rig.answer(next(o.move for o in it.options if o.label == "B@e3"))
    assert GAME.move_text(GAME.parse_position(start), rig.moves[-1]) == "B@e3"


def test_drop_with_linear_halls_needs_no_choice():
    start = "4k3/8/8/8/8/8/4P3/4K3[NNBB] w - - 0 1"
    rig = LaoRig(start, analog=True)
    rig.lift(hand_pad(0, "N"), 1)  # the pile went from 2 to 1: its stack class tells
    rig.place("e3")
    assert rig.state == "turn" and rig.moves[-1].piece == Piece(0, "N")


def test_capture_goes_to_the_capturers_hand_pad():
    start = "4k3/8/8/3p4/4P3/8/8/4K3 w - - 0 1"
    rig = LaoRig(start)
    rig.remove("d5")
    rig.move("e4", "d5")
    it = rig.interaction
    assert rig.moves == [] and it.phase == "lifted"
    assert rig.spot(hand_pad(0, "P")) in it.targets  # still to do: his Pawn on his pad
    rig.sim.take(obj(0, "P"))
    rig.place(hand_pad(0, "P"))
    assert rig.state == "turn" and rig.position.hands[0] == {"P": 1}
    assert rig.position.moves[-1] == GAME.parse_move(GAME.parse_position(start), "exd5")


def test_en_passant_victim_is_marked_to_remove():
    start = "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2"
    rig = LaoRig(start)
    rig.move("e5", "d6")
    it = rig.interaction
    assert it.phase == "lifted" and SQ("d5") in it.to_remove
    rig.remove("d5")
    rig.sim.take(obj(0, "P"))
    rig.place(hand_pad(0, "P"))
    assert rig.state == "turn"
    assert rig.moves[-1].captures == (SQ("d5"),) and rig.moves[-1].target == SQ("d6")


@pytest.mark.parametrize("swap_first", [False, True])
def test_promotion_type_on_the_option_pads(swap_first):
    start = "4k3/1P5p/8/8/8/8/7P/4K3 w - - 0 1"
    rig = LaoRig(start)
    rig.lift("b7")
    if swap_first:  # the Pawn to the box, a Knight onto b8
        rig.sim.set_aside(1)
        rig.sim.take(obj(0, "N"))
    rig.place("b8")
    it = rig.interaction
    assert it.phase == "choice" and [o.label for o in it.options] == [
        "b8=Q", "b8=R", "b8=B", "b8=N"]
    assert [LAYOUT.spots[o.spot].role for o in it.options] == ["option"] * 4
    rig.answer(next(o.move for o in it.options if o.label == "b8=N"))
    assert rig.moves[-1].promotion == "N" and rig.interaction.viewer == 1
    if not swap_first:
        rig.remove("b8")  # the swap after the answer is expected, and not told to Black
        assert rig.state == "turn" and rig.interaction.message == ""
        rig.sim.take(obj(0, "N"))
        rig.place("b8")
    assert rig.state == "turn" and not rig.interaction.missing


@pytest.mark.parametrize("fen, san", [
    ("4k3/8/8/8/8/8/8/R3K2R w HA - 0 1", "O-O"),
    ("4k3/8/8/8/8/8/8/R3K2R w HA - 0 1", "O-O-O"),
    ("4k3/8/8/8/8/8/8/6KR w H - 0 1", "O-O"),      # King stays on g1 (Chess960)
    ("4k3/8/8/8/8/8/8/4KR2 w F - 0 1", "O-O"),     # Rook stays on f1
    ("4k3/8/8/8/8/8/8/5KR1 w G - 0 1", "O-O"),     # King and Rook swap cells
    ("4k3/8/8/8/8/8/8/RK6 w A - 0 1", "O-O-O"),    # King b1 -> c1 is also a step
    ("4k3/8/8/8/8/8/8/5K1R w H - 0 1", "O-O"),     # … and the Rook lands on f1
])
def test_castling_in_every_order(fen, san):
    for seed in range(6):
        rig = LaoRig(fen, seed=seed)
        move = GAME.parse_move(rig.position, san)
        LaoHuman(rig, random.Random(seed)).play(move)
        assert rig.position.moves == [move]


# -- a whole game through the service: the journal --------------------------------------

#: Found by a feature-seeking search over legal games from the orthodox arrays, then the
#: first mate: drops (some from piles, where the board asks the kind), en passant
#: (15... gxh3), castling (21. O-O-O), promotion to a Bishop (38... a1=B) taken back into
#: the hand as a Pawn (41. Qxa1), captures onto the hand pads, mate by 62... Ra1#.
WHOLE_GAME = """
b4 g5 Na3 c6 d4 g4 Bf4 a5 Be5 a4 Bg3 h6 e3 f6 Be5 Rh7 h4 gxh3 Qe2 P@c5 O-O-O fxe5 c4
cxb4 Nxh3 bxa3 Ng1 N@c5 P@b2 Rg7 dxe5 B@a6 P@b3 axb3 Rh4 bxa2 Rxd7 a1=B Qc2 axb2+ Qxb2
Ncxd7 Qxa1 Bb5 Rxh6 Rxg2 cxb5 P@e6 Rxe6 Rxf2 Qc3 R@a2 Rxe7+ Qxe7 B@f3 Qxe5 Qb4 Bxb4
Bxc6 Ra1#
""".split()


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


def test_whole_game_on_the_simulated_board_is_journalled_exactly(tmp_path):
    svc = make_service(tmp_path)
    try:
        rig = ServiceRig(svc)
        human = LaoHuman(rig, random.Random(7))
        kinds = set()
        for text in WHOLE_GAME:
            move = GAME.parse_move(rig.position, text)
            kinds.add("drop" if move.kind == "drop" else "castle" if move.kind == "castle"
                      else "promotion" if move.promotion else "en passant"
                      if move.captures and move.captures != (move.target,) else "move")
            human.play(move)
        assert kinds == {"drop", "castle", "promotion", "en passant", "move"}
        record = Journal(tmp_path / "journal").find(svc.game_id)
        assert record.moves == WHOLE_GAME
        assert (record.result, record.reason) == ("0-1", "checkmate")
        assert svc.interaction.phase == "game_over" and svc.outcome.reason == "checkmate"
        assert "62. " not in export_record(record) and export_record(record).rstrip(
            ).endswith("Ra1# 0-1")
        # every commit was the game or a move the board replaced at once (castling)
        undone = [m for t in rig.takebacks for m in t]
        assert len(rig.moves) == len(WHOLE_GAME) + len(undone)
        # the move list on the page: each player's own moves in his notation
        assert [t for _, t in svc.plies] == WHOLE_GAME
    finally:
        svc.close()


# -- non-interference: what a lift shows depends on the view only ------------------------


def _variants(pos: Position, rng: random.Random, count: int) -> list[Position]:
    """Positions the side to move cannot tell from ``pos``: the enemy pieces he cannot
    see moved to other hidden cells, of other kinds, fewer or more (sliders that pin or
    check from behind the fog, Knights that attack his King's cells…)."""
    me = pos.turn
    v = view(pos, me)
    hidden = [c for c in range(CELLS) if c not in v.visible]
    secret = [(c, pos.board[c]) for c in hidden if pos.board[c] is not None]
    king = next((c for c, p in secret if p.kind == "K"), None)
    out = []
    for _ in range(count * 30):
        if len(out) == count or not hidden:
            break
        board = list(pos.board)
        for c, _ in secret:
            board[c] = None
        if rng.random() < 0.3:  # the same pieces, shuffled over the hidden cells
            pieces = [p for _, p in secret]
            rng.shuffle(pieces)
            cells = rng.sample(hidden, len(pieces))
        else:  # the King somewhere hidden and a few other pieces, mostly sliders
            pieces = [Piece(1 - me, k) for k in rng.choices("QRBNP", (3, 3, 3, 2, 1),
                                                             k=rng.randrange(1, 7))]
            if king is not None:
                pieces.insert(0, Piece(1 - me, "K"))
            cells = rng.sample(hidden, min(len(hidden), len(pieces)))
            pieces = pieces[:len(cells)]
            if king is not None and king not in cells[1:] and rng.random() < 0.5:
                cells[0] = king  # the King where it was
        for c, p in zip(cells, pieces, strict=True):
            board[c] = p
        if any(p is not None and p.kind == "P" and c // 8 in (0, 7)
               for c, p in enumerate(board)):
            continue
        try:
            other = GAME.parse_position(_text(pos, board))
        except PositionError:
            continue
        if view(other, me) == v:
            out.append(other)
    return out


def _text(pos: Position, board: list[Piece | None]) -> str:
    """``pos`` with another board; the enemy's castling rights and promoted marks (which
    the player does not know) are dropped."""
    fields = GAME.position_text(pos).split()
    rows = []
    me = pos.turn
    for rank in range(7, -1, -1):
        row, empty = "", 0
        for f in range(8):
            p = board[rank * 8 + f]
            if p is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + (p.kind if p.owner == 0 else p.kind.lower())
            if pos.state["promoted"] >> (rank * 8 + f) & 1 and p.owner == me:
                row += "~"
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    hands = fields[0][fields[0].index("["):]
    rights = "".join(ch for ch in fields[2] if ch.isupper() == (me == 0)) or "-"
    return " ".join(["/".join(rows) + hands, fields[1], rights, *fields[3:]])


def _frame(pos: Position, lifted: frozenset[int] = frozenset(), t: float = 0.0) -> Frame:
    occupied = [False] * len(LAYOUT.spots)
    for c in range(CELLS):
        occupied[c] = pos.board[c] is not None
    for owner, hand in enumerate(pos.hands):
        for kind, n in hand.items():
            occupied[LAYOUT.spot_index(hand_pad(owner, kind))] = n > 0
    for s in lifted:
        occupied[s] = False
    n = len(LAYOUT.spots)
    return Frame(t, tuple(occupied), (None,) * n, (None,) * n)


def _lift_pictures(pos: Position) -> list[tuple[int, Interaction]]:
    """What the board shows for every own piece and hand pile lifted alone."""
    board = Board(GAME, LAYOUT, pos)
    board.feed(_frame(pos))
    assert board.state == "turn"
    out = [(-1, board.interaction)]
    me = pos.turn
    spots = [c for c, p in enumerate(pos.board) if p is not None and p.owner == me]
    spots += [LAYOUT.spot_index(hand_pad(me, k)) for k in pos.hands[me]]
    for k, s in enumerate(spots):
        board.feed(_frame(pos, frozenset({s}), 2 * k + 1.0))
        out.append((s, board.interaction))
        board.feed(_frame(pos, frozenset(), 2 * k + 2.0))
    return out


def _random_position(seed: int, plies: int) -> Position:
    rng = random.Random(seed)
    game = get_game("laotzu", seed=seed)
    pos = game.start()
    for _ in range(plies):
        moves = game.legal_moves(pos)
        if not moves or game.outcome(pos):
            break
        captures = [m for m in moves if m.captures or m.kind == "drop"]
        pos.push(rng.choice(captures if captures and rng.random() < 0.4 else moves))
    return GAME.parse_position(game.position_text(pos))


def test_what_a_lift_shows_depends_on_the_view_only():
    """Non-interference: in positions the player cannot tell apart (hidden enemy pieces
    elsewhere, of other kinds, more or fewer: other pins, other attacks behind the fog),
    lifting any of his pieces or hand piles shows exactly the same, and the moves he may
    try are the same — although the legal moves differ."""
    compared = differ = 0
    for seed in range(30):
        pos = _random_position(seed, 6 + (seed * 7) % 45)
        if GAME.outcome(pos):
            continue
        variants = _variants(pos, random.Random(seed), 3)
        base = _lift_pictures(pos)
        attempts = set(GAME.board_moves(pos))
        legal = set(GAME.legal_moves(pos))
        for other in variants:
            assert set(GAME.board_moves(other)) == attempts
            assert _lift_pictures(other) == base
            compared += 1
            differ += set(GAME.legal_moves(other)) != legal
    assert compared >= 40 and differ >= 8, (compared, differ)


def test_en_passant_positions_parse():
    # (regression: the en passant check read the wrong bit and refused every target)
    pos = GAME.parse_position("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 2")
    assert pos.state["ep"] == SQ("d6")
    assert GAME.position_text(pos) == "4k3/8/8/3pP3/8/8/8/4K3[] w - d6 0 2"
    with pytest.raises(PositionError, match="c6 cannot be an en passant square"):
        GAME.parse_position("4k3/8/8/3pP3/8/8/8/4K3 w - c6 0 2")
