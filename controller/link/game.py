"""One board's side of a linked game: which seats are played here, and what to do with
each message — pure (no broker, no board), so every ordering of deliveries can be tested.

The plies both boards agree on are a list of ``(long move text, digest)``.  A message for a
ply already held must repeat it exactly (a duplicate, ignored) or the boards disagree; a
message for a later ply waits until the ones before it arrived (reordering); the next ply
is the remote seat's move for this board to show.  A disagreement stops the game with one
line naming the ply; it is never resolved silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.link.messages import MoveMessage, Start, State, Takeback


@dataclass(frozen=True)
class Show:
    """Show (execute) this remote move on the board: ply ``ply`` in long notation."""

    ply: int
    move: str
    digest: str


@dataclass(frozen=True)
class Disagree:
    """The boards' games differ: stop, say ``reason``."""

    reason: str


@dataclass(frozen=True)
class TakeBack:
    """The other board took moves back: only ``ply`` plies stand."""

    ply: int


Action = Show | Disagree | TakeBack


@dataclass
class LinkedGame:
    """``start`` as seen by ``board``: its own seats and the plies agreed so far."""

    start: Start
    board: str
    plies: list[tuple[str, str]] = field(default_factory=list)
    #: the seat that made each ply (parallel to :attr:`plies`; -1 where unknown)
    movers: list[int] = field(default_factory=list)
    #: later plies that arrived early, by ply number
    early: dict[int, MoveMessage] = field(default_factory=dict)
    #: the remote ply shown on the board, not yet made there
    showing: Show | None = None
    _showing_seat: int = -1  # the seat of the move shown
    stopped: str | None = None

    @property
    def game_id(self) -> str:
        return self.start.game_id

    @property
    def local_seats(self) -> frozenset[int]:
        return frozenset(i for i, b in enumerate(self.start.seats) if b == self.board)

    @property
    def remote_seats(self) -> frozenset[int]:
        return frozenset(range(len(self.start.seats))) - self.local_seats

    def local_move(self, seat: int, move: str, digest: str) -> MoveMessage:
        """This board committed a move of one of its seats: the message to send."""
        self._held(move, digest, seat)
        return MoveMessage(self.game_id, len(self.plies), seat, move, digest)

    def _held(self, move: str, digest: str, seat: int) -> None:
        self.plies.append((move, digest))
        del self.movers[len(self.plies) - 1:]
        self.movers += [-1] * (len(self.plies) - 1 - len(self.movers)) + [seat]

    def history(self) -> tuple[tuple[str, ...], tuple[int, ...], tuple[str, ...]]:
        """Moves, seats and digests of the plies held (for the retained state)."""
        movers = self.movers + [-1] * (len(self.plies) - len(self.movers))
        return (tuple(m for m, _ in self.plies), tuple(movers),
                tuple(d for _, d in self.plies))

    def remote_made(self, move: str, digest: str) -> None:
        """The remote move shown was made on this board."""
        shown = self.showing
        self.showing = None
        if shown is None or shown.move != move or shown.digest != digest:
            self.stopped = (f"ply {len(self.plies) + 1}: this board made {move}, the other "
                            f"board played {shown.move if shown else 'nothing'}")
            return
        self._held(move, digest, self._showing_seat)

    def local_takeback(self, plies: int, seat: int, digest: str) -> Takeback:
        del self.plies[len(self.plies) - plies:]
        self.showing = None
        return Takeback(self.game_id, len(self.plies), seat, digest)

    def receive(self, message: MoveMessage | Takeback | State) -> list[Action]:
        """What ``message`` asks of this board (in order)."""
        if self.stopped or message.game_id != self.game_id:
            return []
        if isinstance(message, State):
            return self._state(message)
        if isinstance(message, Takeback):
            if message.ply < len(self.plies):
                del self.plies[message.ply:]
                self.showing = None
                self.early.clear()
                return [TakeBack(message.ply)]
            return []
        return self._move(message)

    def _move(self, m: MoveMessage) -> list[Action]:
        held = len(self.plies)
        if m.ply <= held:
            if self.plies[m.ply - 1] != (m.move, m.digest):
                return [self._disagree(m.ply, self.plies[m.ply - 1][0], m.move)]
            return []  # a duplicate
        if m.seat not in self.remote_seats:
            return [self._disagree(m.ply, "its own seat", f"{m.move} for it")]
        if self.showing is not None or m.ply > held + 1:
            if self.showing is not None and m.ply == self.showing.ply:
                if (m.move, m.digest) != (self.showing.move, self.showing.digest):
                    return [self._disagree(m.ply, self.showing.move, m.move)]
                return []
            self.early[m.ply] = m  # wait for the plies before it
            return []
        self.showing = Show(m.ply, m.move, m.digest)
        self._showing_seat = m.seat
        return [self.showing]

    def next_early(self) -> list[Action]:
        """After a ply was made: a later remote ply that arrived early, if it is next."""
        m = self.early.pop(len(self.plies) + 1, None)
        return self._move(m) if m is not None and self.showing is None else []

    def _state(self, s: State) -> list[Action]:
        """Agreement on the plies held, and the plies this board missed (a move message
        sent before it subscribed, or lost while it was away) taken from the state."""
        for ply, move in enumerate(s.moves[: len(self.plies)], start=1):
            if move != self.plies[ply - 1][0]:
                return [self._disagree(ply, self.plies[ply - 1][0], move)]
        if not s.seats:
            return []
        actions: list[Action] = []
        for ply in range(len(self.plies) + 1, len(s.moves) + 1):
            actions += self._move(MoveMessage(self.game_id, ply, s.seats[ply - 1],
                                              s.moves[ply - 1], s.digests[ply - 1]))
        return actions

    def _disagree(self, ply: int, here: str, there: str) -> Disagree:
        self.stopped = (f"the linked boards disagree at ply {ply}: this board has {here}, "
                        f"the other board {there}")
        return Disagree(self.stopped)
