"""One board's side of a linked game: which seats are played here, and what to do with
each message — pure (no broker, no board), so every ordering of deliveries can be tested.

The plies both boards agree on are a list of ``(long move text, digest)``.  A message for a
ply already held must repeat it exactly (a duplicate, ignored) or the boards disagree; a
message for a later ply waits until the ones before it arrived (reordering); the next ply
is the remote seat's move for this board to show.  A disagreement stops the game with one
line naming the ply; it is never resolved silently.

Every message is first checked against who sent it (the board named by its topic, which
the broker's ACL lets only that board write, docs/link.md): a seat's moves and takebacks
only from that seat's board, answers and states only from another board of the game, and
a move only for the seat whose turn it is at its ply.  Anything else is refused with no
change at all (:attr:`LinkedGame.refused` counts them) — a forger can neither play, nor
take back, nor stop the game.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from controller.link.messages import (
    MoveMessage,
    Start,
    State,
    Takeback,
    TakebackAnswer,
    TakebackRequest,
)


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


@dataclass(frozen=True)
class TakebackAsked:
    """The other board took moves back and asks this one to agree that only ``ply``
    plies stand: take the same moves back here to accept, or decline (a move made here
    declines too)."""

    ply: int


@dataclass(frozen=True)
class TakebackSettled:
    """This board's takeback request for ``ply`` was answered: ``accepted``, or declined
    — then the plies taken back here are shown again to be made again."""

    ply: int
    accepted: bool


@dataclass(frozen=True)
class Withdrawn:
    """The remote move shown here was taken back on the board that made it before it
    was made here: stop showing it (this board agreed at once; only ``ply`` stand)."""

    ply: int


Action = Show | Disagree | TakeBack | TakebackAsked | TakebackSettled | Withdrawn


class Turns:
    """Whose turn it is after the plies held, from the game's own rules (replayed from
    ``start``'s set-up; the position is kept between calls, so a message costs one or two
    moves of replay)."""

    def __init__(self, start: Start) -> None:
        from controller.rules import get_game  # the rules only when a game is linked

        self.game = get_game(start.game, **start.options)
        self.pos = (self.game.parse_position(start.setup) if start.setup
                    else self.game.start())
        self.applied: list[str] = []

    def __call__(self, moves: list[str]) -> int | None:
        """The seat to move after ``moves`` (None: they do not replay here)."""
        same = 0
        while (same < min(len(moves), len(self.applied))
               and moves[same] == self.applied[same]):
            same += 1
        while len(self.applied) > same:
            self.pos.pop()
            self.applied.pop()
        try:
            for text in moves[same:]:
                self.pos.push(self.game.parse_move(self.pos, text))
                self.applied.append(text)
        except ValueError:  # RulesError: a ply that is not legal here (a disagreement)
            return None
        return self.game.ply_mover(self.pos)


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
    #: takebacks agreed so far; a message from before the last one is stale
    epoch: int = 0
    #: False for a game resumed from the journal (which does not hold the count): the
    #: first retained state says it; moves that arrive before it wait
    epoch_known: bool = True
    _unsure: list[MoveMessage] = field(default_factory=list)
    #: this board took moves back and asks the others: the plies that would stand
    asked: int | None = None
    #: the plies this board took back while it asks: (move, digest, seat), made again
    #: (shown one by one) if the others decline
    undone: list[tuple[str, str, int]] = field(default_factory=list)
    #: the other board asks this one to take back to this many plies
    offered: int | None = None
    #: whose turn it is after the plies held (None: not checked — pure tests)
    turns: Callable[[list[str]], int | None] | None = None
    #: messages refused as not authorised by their sender (nothing changed)
    refused: int = 0

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
        return MoveMessage(self.game_id, len(self.plies), seat, move, digest,
                           epoch=self.epoch)

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

    def authorised(self, message: object, sender: str) -> bool:
        """Whether board ``sender`` may say ``message`` in this game: another board of
        its seats, and for a move or a takeback the board of the seat it names."""
        seats = self.start.seats
        if sender == self.board or sender not in seats:
            return False
        if isinstance(message, (MoveMessage, Takeback, TakebackRequest)):
            return 0 <= message.seat < len(seats) and seats[message.seat] == sender
        return isinstance(message, (State, TakebackAnswer))

    def receive(self, message: MoveMessage | Takeback | State,
                sender: str | None = None) -> list[Action]:
        """What ``message`` asks of this board (in order).  ``sender``: the board whose
        topic it came on (None: the caller vouches for it — tests of the pure game)."""
        if self.stopped or message.game_id != self.game_id:
            return []
        if sender is not None and not self.authorised(message, sender):
            self.refused += 1
            return []
        if not self.epoch_known:
            if isinstance(message, MoveMessage):
                self._unsure.append(message)
            if not isinstance(message, State):
                return []
            self.epoch, self.epoch_known = message.epoch, True
            actions = self.receive(message)
            for waiting in self._unsure:
                actions += self.receive(waiting)
            self._unsure.clear()
            return actions
        if isinstance(message, (TakebackRequest, TakebackAnswer)):
            return self._takeback_message(message)
        if isinstance(message, (MoveMessage, State)) and message.epoch != self.epoch:
            return []  # from before a takeback (or after one not answered here yet)
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
        if self.asked is not None and m.ply > held:
            self.early[m.ply] = m  # a takeback is asked: later plies wait for the answer
            return []
        queued = ([(self.showing.move, self.showing.digest)] if self.showing else []) + [
            (move, digest) for move, digest, _ in self.undone]
        if held < m.ply <= held + len(queued):  # shown, or to be made again here
            there = queued[m.ply - held - 1]
            if there != (m.move, m.digest):
                return [self._disagree(m.ply, there[0], m.move)]
            return []
        if m.ply <= held:
            made = self.movers[m.ply - 1] if m.ply <= len(self.movers) else -1
            if made >= 0 and made != m.seat:
                self.refused += 1  # mislabelled: not the seat that made this ply
                return []
            if self.plies[m.ply - 1] != (m.move, m.digest):
                return [self._disagree(m.ply, self.plies[m.ply - 1][0], m.move)]
            return []  # a duplicate
        if m.seat not in self.remote_seats:  # (an authorised board's state says so:
            # this board missed one of its own plies — a journal copy from before them)
            return [self._disagree(m.ply, "its own seat", f"{m.move} for it")]
        if m.ply == held + 1 and self.turns is not None:
            mover = self.turns([move for move, _ in self.plies])
            if mover is not None and mover != m.seat:
                self.refused += 1  # not that seat's turn at this ply
                return []
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
        """After a ply was made: a ply taken back here and declined, to make again, or a
        later remote ply that arrived early, if it is next."""
        if self.undone and self.asked is None and self.showing is None:
            move, digest, seat = self.undone.pop(0)
            self.showing, self._showing_seat = Show(len(self.plies) + 1, move, digest), seat
            return [self.showing]
        m = self.early.pop(len(self.plies) + 1, None)
        return self._move(m) if m is not None and self.showing is None else []

    def _state(self, s: State) -> list[Action]:
        """Agreement on the plies held, and the plies this board missed (a move message
        sent before it subscribed, or lost while it was away) taken from the state."""
        if self.asked is not None:
            return []  # this board took plies back: they are not missed plies
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

    # -- takebacks (docs/link.md, "Taking moves back") -----------------------------------
    def took_back(self, plies: int, seat: int) -> TakebackRequest | TakebackAnswer | None:
        """``plies`` plies were taken back on this board (its person restored an earlier
        position): the message to send — the acceptance of the other board's request for
        exactly this, or this board's own request (until it is answered the plies are
        kept in :attr:`undone`)."""
        stand = len(self.plies) - plies
        if stand < 0:
            return None
        if self.offered is not None and stand == self.offered:
            return self._agree(stand)
        movers = self.history()[1]
        again = [(m, d, who) for (m, d), who in
                 zip(self.plies[stand:], movers[stand:], strict=True)]
        self.undone = again + (self.undone if self.asked is not None else [])
        self.asked = stand
        del self.plies[stand:]
        del self.movers[stand:]
        self.showing = None
        self.offered = None  # the other board's request, if any, is answered by this one
        return TakebackRequest(self.game_id, stand, seat, self.epoch)

    def decline(self) -> TakebackAnswer | None:
        """Say no to the other board's request (from the page, or by making a move)."""
        if self.offered is None:
            return None
        answer = TakebackAnswer(self.game_id, self.offered, False, self.epoch)
        self.offered = None
        return answer

    def _agree(self, stand: int) -> TakebackAnswer:
        del self.plies[stand:]
        del self.movers[stand:]
        self.epoch += 1
        self.offered = self.asked = None
        self.undone = []
        self.early.clear()
        self.showing = None
        return TakebackAnswer(self.game_id, stand, True, self.epoch)

    def _takeback_message(self, m: TakebackRequest | TakebackAnswer) -> list[Action]:
        if isinstance(m, TakebackRequest):
            if m.epoch != self.epoch or m.seat in self.local_seats:
                return []  # stale, or this board's own request coming back
            if self.asked is not None:
                asked = self.asked
                if m.ply == asked:  # both asked for the same: agreed
                    self._agree(asked)
                    return [TakebackSettled(asked, True)]
                self.asked = None  # two different requests cross: both are declined
                return [TakebackSettled(asked, False)]
            if m.ply == len(self.plies) and self.showing is not None:
                self._agree(m.ply)
                return [Withdrawn(m.ply)]
            if m.ply >= len(self.plies):
                return []
            self.offered = m.ply
            return [TakebackAsked(m.ply)]
        if self.asked is None or m.ply != self.asked:
            return []
        if m.accepted:
            if m.epoch == self.epoch + 1:
                self._agree(m.ply)
                return [TakebackSettled(m.ply, True)]
            return []
        self.asked = None  # declined: the plies taken back are made again
        return [TakebackSettled(m.ply, False)]

    # -- resync after a disagreement (docs/link.md) --------------------------------------
    def resync(self, theirs: State) -> int:
        """Take the other board's plies (its retained ``state``) after a disagreement:
        this board keeps the plies both hold alike and shows every later ply of theirs to
        be made here — its own seats' included.  When theirs are a beginning of this
        board's, this board keeps its own (the other catches up from its state).  How
        many plies stand here now (the rest are to be taken back)."""
        held = [m for m, _ in self.plies]
        same = 0
        while (same < min(len(held), len(theirs.moves))
               and held[same] == theirs.moves[same]):
            same += 1
        self.stopped = None
        self.showing = None
        self.early.clear()
        self.asked = self.offered = None
        self.epoch = theirs.epoch
        if same == len(theirs.moves):  # theirs is a beginning of ours
            self.undone = []
            return len(self.plies)
        del self.plies[same:]
        del self.movers[same:]
        seats = theirs.seats or (-1,) * len(theirs.moves)
        digests = theirs.digests or ("",) * len(theirs.moves)
        self.undone = [(theirs.moves[k], digests[k], seats[k])
                       for k in range(same, len(theirs.moves))]
        return same
