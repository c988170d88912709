"""KaleidoChess on the board: the round rig for 2–4 players, its human and a seeded player."""

from __future__ import annotations

import random
from pathlib import Path

from controller.journal import Journal
from controller.rules.core import Move, Piece, Position
from controller.rules.kaleidochess import PIECE_TYPES, KaleidoChess
from tests.support.rig import Human, Rig

G = KaleidoChess().geometry


CASTLES = sorted(G.tags["castle"])


def cell(name: str) -> int:
    return G.cell(name)


def cells(names: str) -> frozenset[int]:
    return frozenset(G.cell(n) for n in names.split())


def object_of(game: KaleidoChess, piece: Piece) -> str:
    """The physical piece: ``red-wizard``, ``black-pawn`` (black pieces carry their magnet
    north up, the others south up; a reed sees both)."""
    return f"{game.player_names[piece.owner].lower()}-{PIECE_TYPES[piece.kind].name}"


def setup_text(game: KaleidoChess, pieces: str, turn: str = "w", rest: str = "- - - 0 1") -> str:
    """A position text from ``1J=wW 5J=bW …`` (see KaleidoChess.position_text)."""
    items = sorted(pieces.split(), key=lambda item: G.cell(item.split("=")[0]))
    return f"{','.join(items)} {turn} {rest}"


class KRig(Rig):
    """The shared rig on the round board, pieces named by the game's player names, and a
    journal written the way the service writes it (notation before the move, the end)."""

    def __init__(self, position: Position | str | None = None, *, game: KaleidoChess,
                 journal: Path | None = None, **kwargs):
        self.writer = None
        if journal is not None:
            start = (game.parse_position(position) if isinstance(position, str)
                     else position or game.start())
            self.writer = Journal(journal).new_game(game.name, dict(game.options),
                                                    game.position_text(start),
                                                    list(game.player_names))
        super().__init__(position, game=game, layout="kaleido89", **kwargs)
        if self.writer is not None:
            self.board.subscribe("move", self._journal_move)
            self.board.subscribe("takeback", lambda moves: self.writer.takeback(len(moves)))
            self.board.subscribe("game_over", lambda o: self.writer.end(o.result, o.reason))

    def _journal_move(self, move: Move) -> None:
        pos = self.position
        last = pos.pop()
        try:
            self.writer.move(self.game.move_text(pos, move), self.game.long_move_text(pos, move))
        finally:
            pos.push(last)

    def set_up(self, pos: Position) -> None:
        self.sim.clear()
        for c, p in enumerate(pos.board):
            if p is not None:
                self.sim.put(c, object_of(self.game, p))

    def close(self) -> None:
        super().close()
        if self.writer is not None:
            self.writer.close()


class KHuman(Human):
    """The shared simulated human, with KaleidoChess' gestures: a piece is lifted and put
    down (no straight lines to slide along); a victim — one's own piece too — goes to the
    box before or after the mover is lifted; the marked pieces of a player who is out are
    taken off at any moment; a piece whose player gives up his last castle is put down on
    its target and then taken off with the rest; a blocked player's pieces all go."""

    def steps(self, pos: Position, move: Move) -> list:
        rig, rng = self.rig, self.rng
        o, t = move.origin, move.target
        victim = pos.board[t] if t >= 0 else None
        steps: list = []
        if move.kind == "move":
            steps = [lambda: rig.lift(o), lambda: rig.place(t)]
            if victim is not None:
                steps.insert(rng.randrange(2), lambda: rig.remove(t))
            if move.piece is None:  # out: the piece lands, then leaves with the rest
                steps.append(lambda: rig.remove(t))
        for c in move.captures:
            if c != t:
                steps.insert(rng.randrange(len(steps) + 1), lambda c=c: rig.remove(c))
        return steps


def pick(game: KaleidoChess, pos: Position, moves: list[Move], rng: random.Random,
         keep_castle: float = 0.85) -> Move:
    """A seeded player: captures (own ones too) often, and mostly keeps his last castle."""
    mover = pos.turn

    def gives_up(m: Move) -> bool:
        pos.push(m, record=False)
        try:
            outcome = game.outcome(pos)
            return mover in game.out_players(pos) or (
                outcome is not None and mover not in outcome.winners)
        finally:
            pos.pop()

    keep = [m for m in moves if not gives_up(m)]
    if keep and rng.random() < keep_castle:
        moves = keep
    captures = [m for m in moves if m.captures]
    if captures and rng.random() < 0.45:
        return rng.choice(captures)
    return rng.choice(moves)


def play_to_the_end(game: KaleidoChess, rig: KRig, seed: int, *, mishaps: bool = True,
                    keep_castle: float = 0.85, limit: int = 400) -> list[Move]:
    """Play ``game`` on the board until it is over: rolls entered on the option pads,
    moves made by the simulated human, forced passes left to the board.  Returns the
    moves the players meant, in order; the board must have committed exactly these."""
    rng = random.Random(seed)
    human = KHuman(rig, rng, mishaps=mishaps, slow=0.1)
    intended: list[Move] = []
    for _ in range(limit):
        pos = rig.position
        assert pos.moves == intended, "the board committed something nobody meant"
        if rig.state == "game_over":
            break
        moves = game.legal_moves(pos)
        assert moves, f"no move but not over: {game.position_text(pos)}"
        if moves[0].kind == "roll":
            assert rig.state == "choice", rig.state
            roll = rng.choice(moves)
            pos.push(roll, record=False)
            stuck = game.legal_moves(pos) == [Move("pass")]
            pos.pop()
            rig.answer(roll)  # the physical die's face, touched on its option pad
            rig.wait(0.05)
            intended += [roll, Move("pass")] if stuck else [roll]  # no move: passed at once
            continue
        move = pick(game, pos, moves, rng, keep_castle)
        human.play(move)
        intended.append(move)
    assert rig.state == "game_over", f"not over after {limit} turns"
    assert rig.position.moves == intended
    return intended


KNOCKOUT = "1J=wW 3J=rW 3A=rP 2A=rT 5J=bW 3G=wV"  # kaleidochess tests: Red's last castle
