"""A hidden-information game against the computer on one physical board, without the
simulated hand (``docs/rules/laotzu.md``, "Against the computer on your own board").

The person makes every move on the table, his own and the computer's.  A table holding
the whole game would show him the computer's hidden pieces, and its moves would have to be
lit for him to make.  So the table holds only his view, as a linked board does
(:class:`~controller.board.fogsync.FogSync`), and this room is the referee: it holds the
whole position, judges each move he makes against it ("illegal move" when a piece he
cannot see forbids it), plays the computer's moves on it, and after every ply hands the
board his new view.  The board then guides him, one piece at a time, to put on the
computer's pieces that came into sight and take off the ones that went out of it; the
computer's move itself is never shown (it is not on the board's position at all).

The service asks :func:`plays_on_view` whether a game is played so, builds the room with
the whole position, and calls :meth:`FogTable.turn` every tick; the room hands each move
it accepts — the person's and the computer's — to the service's ``commit`` (clock,
journal, coach, voice), with the move already on :attr:`FogTable.position`.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.board.fogsync import FogSync
from controller.board.machine import Board
from controller.board.options import ILLEGAL_MOVE, TAKE_BACK
from controller.i18n import Text
from controller.rules import Game, Move, Position, RulesError


def plays_on_view(game: Game, computer: frozenset[int], hand: bool, linked: bool) -> int | None:
    """The person's seat when ``game`` is played on a table that holds his view only: a
    game with hidden information, one person against the computer, no simulated hand
    making the computer's moves and no linked board (None: the table holds the game)."""
    people = [p for p in range(game.players) if p not in computer]
    if not game.hidden_information or hand or linked or not computer or len(people) != 1:
        return None
    return people[0]


class FogTable:
    """``board`` holds ``person``'s view of the game whose whole position is ``position``
    (see the module docstring)."""

    def __init__(self, board: Board, game: Game, position: Position, person: int,
                 commit: Callable[[Move], None],
                 taken_back: Callable[[list[Move]], None] = lambda moves: None) -> None:
        self.game = game
        #: the whole position, with its history: only this room and the journal know it
        self.position = position
        self.person = person
        self.sync = FogSync(board, person)
        self._commit = commit
        self._taken_back = taken_back
        #: a move or a takeback of the whole game is being committed (the service
        #: journals it); the board's own move events are the person's moves on his view,
        #: judged here first, and it takes nothing back of its own (it has no history)
        self.committing = False
        board.subscribe("command", self._commanded)
        self._show()

    def detach(self) -> None:
        """The board plays on its own again (another game)."""
        board = self.board
        if self._commanded in board.listeners.command:
            board.listeners.command.remove(self._commanded)
        board.takes_back_on_command = False
        self.sync.detach()

    def _commanded(self, name: str, player: int | None) -> None:
        """The board's menu: "take back" (offered while he has a move to take back)."""
        if name == TAKE_BACK:
            try:
                self.take_back()
            except ValueError as exc:
                self._show(str(exc))

    @property
    def board(self) -> Board:
        return self.sync.board

    def _show(self, refused: str = "") -> None:
        """The person's view of the position now: the board guides him there."""
        game, pos = self.game, self.position
        outcome = game.outcome(pos)
        board = self.board
        board.takes_back_on_command = board.options.takeback and bool(
            self._back_to_his_move(False))
        self.sync.show(len(pos.moves), game.position_text(game.view_position(pos, self.person)),
                       refused, outcome.result if outcome else None,
                       outcome.reason if outcome else None)

    def turn(self) -> bool:
        """Judge the move the person made on the table, if one waits (True: it was
        accepted or refused)."""
        sync = self.sync
        sync.poll()
        if not sync.waiting:
            return False
        tried = sync.outbox[-1]
        game, pos = self.game, self.position
        try:
            if game.outcome(pos) is not None or game.ply_mover(pos) != self.person:
                raise RulesError("not the person's turn")
            move = game.parse_move(pos, tried.move)
        except RulesError:  # a piece he cannot see forbids it: the same words as ever
            self._show(ILLEGAL_MOVE)
            return True
        self.play(move)
        return True

    def play(self, move: Move) -> None:
        """``move`` (the person's, judged, or the computer's) is made on the whole position
        and committed; the board is then given the person's new view."""
        self.position.push(move)
        self.committing = True
        try:
            self._commit(move)
        finally:
            self.committing = False
        self._show()

    def take_back(self) -> list[Move]:
        """Take back the person's last move and the computer's reply to it, if made, on
        the whole position (the moves undone, last first); the takeback is committed and
        the board guides him back to his view before that move.  Raises ValueError (one
        line) when he has made no move or his move waits to be judged."""
        if self.sync.waiting:
            raise ValueError(Text("your move is being judged: take it back once it is "
                                  "made"))
        undone = self._back_to_his_move(True)
        if not undone:
            raise ValueError(Text("you have made no move to take back"))
        self.committing = True
        try:
            self._taken_back(undone)
        finally:
            self.committing = False
        self.sync.rewind()
        self._show()
        return undone

    def _back_to_his_move(self, take: bool) -> list[Move]:
        """The plies back to and with the person's last move, last first — taken back on
        the whole position when ``take``, else only looked at (empty: he has made no
        move)."""
        game, pos = self.game, self.position
        undone: list[Move] = []
        found = False
        while pos.moves and not found:
            undone.append(pos.pop())
            found = game.ply_mover(pos) == self.person
        if not (take and found):
            for move in reversed(undone):
                pos.push(move)
        return undone if found else []

    @property
    def waiting(self) -> bool:
        """The board has a move of the person's still to be judged, or is still guiding
        him to the view: the computer does not move meanwhile."""
        board = self.board
        return self.sync.waiting or board.state != "turn"


__all__ = ["FogTable", "plays_on_view"]
