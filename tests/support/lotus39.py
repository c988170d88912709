"""Lotus-39 on the board: linear-hall stacks, reserve Knights, a seeded player."""

from __future__ import annotations

import dataclasses
import random
import tomllib

from controller.config import Config
from controller.layout import LAYOUTS_DIR, parse_layout
from controller.rules import get_game
from controller.rules.core import Move, Piece, Position
from controller.rules.lotus39 import HOME_HEXAGON
from controller.service import BoardService
from controller.web.simulator import move_actions
from controller.web.state import object_name, position_objects
from tests.support.rig import Human, Rig

LOTUS = get_game("lotus39")


MODERN = get_game("lotus39-modern")


ANALOG = "gpio-analog"  # the lotus39 layout's own sensing, on emulated electronics


#: Black's Knight on c4 may capture White's whole stack on e2
STACK_VICTIM = "c1=K,g7=k,e2=P3,c4=n b - 0 1"


#: a Pawn of the stack may capture on d3: no cell changes occupancy
STACK_CAPTURES = "c1=K,g7=k,e2=P3,d3=p w - 0 1"


#: e2 empty and the Knight in reserve; the c6 Pawn promotes on c7
RESERVE = "e1=K,g7=k,c6=P,f3=p w N 0 1"


class LotusRig(Rig):
    """The shared rig on the lotus39 layout; the set-up includes the reserve pads and a
    stack is as many Pawns as its height (the service's own object names)."""

    def __init__(self, position: Position | str | None = None, *, game=LOTUS,
                 backend: str | None = ANALOG, **kw):
        super().__init__(position, game=game, layout="lotus39", backend=backend, **kw)

    def set_up(self, pos: Position) -> None:
        self.sim.clear()
        for spot, names in sorted(position_objects(self.game, pos, self.layout).items()):
            self.sim.put(spot, names)

    def frame(self):
        """The latest debounced frame of the back end (or of the ideal sensors)."""
        if self.sensing is not None:
            return self.sensing.stable
        return self.sim.expected_frame(self.analog)


def lotus_objects(game, piece: Piece) -> list[str]:
    return [object_name(game, Piece(piece.owner, piece.kind))] * piece.height


@dataclasses.dataclass
class LotusHuman(Human):
    """The shared simulated human, taught the Lotus gestures: a Pawn leaving the stack
    (one Pawn lifted, or the whole stack lifted and the rest put back before or after),
    the reserve Knight taken from its pad, and the promoted piece swapped in after the
    promotion was chosen.  Everything else (captures in either order, a capture on the
    stack taking all of it to the box, slides, mishaps) is the shared human's."""

    def steps(self, pos: Position, move: Move) -> list:
        rig = self.rig
        if move.kind == "place":
            pad = rig.layout.pad("reserve", pos.turn, move.piece.kind).name
            return [lambda: rig.lift(pad, 1), lambda: rig.place(move.target, 1)]
        mover = pos.board[move.origin]
        if mover.height > 1:
            return self._stack_steps(pos, move, mover.height)
        return super().steps(pos, move)

    def _stack_steps(self, pos: Position, move: Move, n: int) -> list:
        rig, rng = self.rig, self.rng
        o, t = move.origin, move.target
        lift_all = rng.random() < 0.35
        rest_first = rng.random() < 0.5
        state = {"rest": 0}

        def take() -> None:
            if not lift_all:
                rig.lift(o, 1)
                return
            rig.lift(o)  # the whole stack; any Pawn of it is the one that leaves
            if rest_first:
                rig.place(o, n - 1)
            else:
                state["rest"] = n - 1

        def put() -> None:
            rig.place(t, 1)  # the Pawn on top of the hand: any Pawn of a stack is alike
            if state["rest"]:
                rig.place(o, state["rest"])  # then the rest back on the home hexagon

        steps = [take, put]
        if pos.board[t] is not None:
            steps.insert(rng.randrange(2), lambda: rig.remove(t))
        return steps

    def play(self, move: Move) -> None:
        super().play(move)
        if move.promotion:
            self.swap(move)

    def swap(self, move: Move) -> None:
        """After a promotion: the Pawn off its cell, the chosen piece on it — the board
        asks for it by name (after a mating promotion the game is simply over)."""
        rig = self.rig
        over = rig.state == "game_over"
        rig.remove(move.target)
        if not over:
            name = rig.game.piece_name(move.piece)
            assert rig.state == "turn"
            assert rig.interaction.message == f"exchange the piece: put a {name} on " + (
                rig.layout.spots[move.target].name)
        rig.sim.take(lotus_objects(rig.game, move.piece))
        rig.place(move.target)
        assert rig.state == ("game_over" if over else "turn")
        assert not rig.interaction.missing and not rig.interaction.extra


def spots(rig: Rig, *names: str) -> frozenset[int]:
    return rig.spots(*names)


def played(game, start: str | None, moves) -> list[str]:
    pos = game.parse_position(start) if start else game.start()
    out = []
    for m in moves:
        out.append(game.move_text(pos, m))
        pos.push(m)
    return out


def legal(rig: Rig, text: str) -> Move:
    return rig.game.parse_move(rig.position, text)


def four_pad_layout():
    """The lotus39 layout with only four option pads (LEDs renumbered): promotions page."""
    data = tomllib.loads((LAYOUTS_DIR / "lotus39.toml").read_text(encoding="utf-8"))
    data["pads"] = [p for p in data["pads"] if p["name"] not in ("option-5", "option-6")]
    for pad in data["pads"]:
        pad["led"] = {39: 39, 42: 40, 43: 41, 44: 42, 45: 43, 46: 44}[pad["led"]]
    return parse_layout(data, LAYOUTS_DIR / "lotus39-four-pads.toml")


def legal_in(start: str, text: str, game=LOTUS) -> Move:
    pos = game.parse_position(start)
    return game.parse_move(pos, text)


class ServiceRig(Rig):
    """The rig's interface over a running :class:`BoardService`: the service's simulated
    board, its gpio-analog scanner and pipeline, its state machine, LEDs and journal."""

    def __init__(self, svc: BoardService):  # noqa: D107 - the base sets up its own board
        self.svc = svc
        self.game = svc.game
        self.layout = svc.layout
        self.sim = svc.sim
        self.board = svc.board
        self.analog = True
        self.sensing = None
        self.moves: list[Move] = []
        self.takebacks: list[list[Move]] = []
        self.commands: list = []
        self.outcomes: list = []
        self.seen: list = []
        for kind, sink in (("move", self.moves.append), ("takeback", self.takebacks.append),
                           ("game_over", self.outcomes.append)):
            svc.board.subscribe(kind, sink)

    def wait(self, seconds: float = 0.05) -> None:
        self.svc.step(seconds)

    def close(self) -> None:
        self.svc.close()


def lotus_service(tmp_path, game: str) -> BoardService:
    config = Config()
    config.journal.path = str(tmp_path / "journal")
    config.board.layout = "lotus39"
    config.board.game = game
    config.timing.correction_s = 3.0
    # 48 channels through one ADS1115 at 860 samples/s take about 56 ms: a real analog
    # board scans at 15–20 Hz; 50 Hz keeps a margin and the emulation affordable
    config.sensing.scan_hz = 50.0
    return BoardService(config, seed=1)


def choose(game, pos: Position, rng: random.Random) -> Move:
    """The seeded driver: a mate in one if there is one, then a promotion (of a random
    type), the reserve Knight (mostly), a capture (mostly), a Pawn move (often), else any
    legal move."""
    moves = game.legal_moves(pos)
    mates = []
    for m in moves:
        pos.push(m, record=False)
        outcome = game.outcome(pos)
        pos.pop()
        if outcome is not None and outcome.winners:
            mates.append(m)
    if mates:
        return rng.choice(mates)
    promotions = [m for m in moves if m.promotion]
    if promotions:
        return rng.choice(promotions)
    places = [m for m in moves if m.kind == "place"]
    if places and rng.random() < 0.7:
        return places[0]
    captures = [m for m in moves if m.captures]
    if captures and rng.random() < 0.8:
        return rng.choice(captures)
    pawns = [m for m in moves if m.origin >= 0 and pos.board[m.origin].kind == "P"]
    if pawns and rng.random() < 0.5:
        return rng.choice(pawns)
    return rng.choice(moves)


def features(pos: Position) -> set[str]:
    """What a game showed of the Lotus situations (replayed from its start)."""
    game = pos.game
    replay = game.start()
    out = set()
    for m in pos.moves:
        mover = replay.board[m.origin] if m.origin >= 0 else None
        victim = replay.board[m.target] if m.target >= 0 else None
        if m.kind == "place":
            out.add("reserve Knight")
        if m.promotion:
            out.add("promotion")
        if mover is not None and mover.height > 1:
            out.add("stack departure")
        if mover is not None and mover.height > 1 and m.captures:
            out.add("capture from the stack")
        if (mover is not None and mover.kind == "P" and mover.height == 1
                and game.geometry.cells[m.origin] == HOME_HEXAGON[mover.owner]):
            out.add("last Pawn")
        if victim is not None and victim.height > 1:
            out.add("capture on the stack")
        replay.push(m)
    return out


def arrange(client, svc) -> dict:
    client.post("/api/sim", json={"action": "arrange"})
    svc.step(0.2)
    state = client.get("/api/state").json()
    assert state["phase"] == "turn", state["message"]
    return state


def play_over_the_api(client, svc, move) -> str:
    """Carry out ``move`` by simulator actions; answer a choice on the page at once."""
    game, pos = svc.game, svc.position
    text = game.move_text(pos, move)
    before = len(svc.plies)
    for action in move_actions(game, pos, move, svc.layout):
        assert client.post("/api/sim", json=action).status_code == 200
        svc.step(0.06)
        if svc.interaction.phase == "choice" and len(svc.plies) == before:
            svc.step(0.1)
            labels = [c["label"] for c in client.get("/api/state").json()["choice"]]
            assert text in labels, (text, labels)
            answer = client.post("/api/choice", json={"index": labels.index(text)})
            assert answer.status_code == 200, answer.text
            svc.step(0.06)
    svc.step(0.2)
    assert len(svc.plies) == before + 1 and svc.plies[-1][1] == text, (
        text, svc.plies[before:], svc.interaction)
    return text


#: driver seeds (tests/test_board_lotus39.py) whose games end soon: the traditional one in
#: 40 plies, the Modern one in 49; both with a promotion, stack departures and the reserve
#: Knight, the Modern one with a capture by a stack Pawn (confirmed on the page)
API_GAMES = [("lotus39", 10), ("lotus39-modern", 5)]
