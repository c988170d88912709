"""The link as the board service uses it: invitations, the linked game's topics, and the
messages of the game being played turned into :mod:`controller.link.game` actions.

The service keeps the board: it shows a :class:`~controller.link.game.Show` with the
board's *execute* flow (as the computer's moves), publishes its own seats' moves once they
are journalled, and stops the game on a :class:`~controller.link.game.Disagree`.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from controller.board.fogsync import FogSync
from controller.link.client import BrokerSettings, MqttLink
from controller.link.game import Action, LinkedGame, Turns, Withdrawn
from controller.link.messages import (
    Attempt,
    MoveMessage,
    SeatView,
    Start,
    State,
    Takeback,
    TakebackAnswer,
    TakebackRequest,
    board_game_topic,
    game_topic,
    invitation_topic,
    seat_topic,
    sender,
)

log = logging.getLogger("fairyboard.link")


@dataclass(frozen=True)
class Invitation:
    """Another board (``inviter``, the board whose topic it came on) asks this one to
    play ``start``."""

    start: Start
    inviter: str = ""


class Remote:
    """One board's link: at most one linked game at a time."""

    def __init__(self, settings: BrokerSettings, *, accept_invitations: bool = True,
                 referee: bool = False) -> None:
        self.settings = settings
        self.accept_invitations = accept_invitations
        self.mqtt = MqttLink(settings)
        #: the club has a referee: this board's seat in refereed games (hidden information)
        self.refereed: RefereedSeat | None = (
            RefereedSeat(self.mqtt, settings.club, settings.board) if referee else None)
        self.game: LinkedGame | None = None
        self._declined: set[str] = set()  # invitations already answered (or played)
        #: an invitation (or a refereed game's first view) that arrived while a game was
        #: in progress: it waits for the player's consent
        self.invited: Start | SeatView | None = None
        self._connections_seen = 0  # the link's connections when this board last spoke
        #: the linked game's latest retained state said by another board (a resync's)
        self.others_state: State | None = None
        #: the club's games as their retained start and state messages tell (spectators)
        self.club: dict[str, dict[str, Any]] = {}
        #: messages refused because their sender may not say them (forged, mislabelled)
        self.refused = 0
        self.mqtt.subscribe(invitation_topic(settings.club, "+", settings.board))
        for kind in ("start", "state"):
            self.mqtt.subscribe(game_topic(settings.club, "+", kind))  # the referee's
            self.mqtt.subscribe(board_game_topic(settings.club, "+", "+", kind))

    @property
    def board(self) -> str:
        return self.settings.board

    @property
    def connected(self) -> bool:
        return self.mqtt.connected

    def new_game_id(self) -> str:
        return f"{self.board}-{time.strftime('%Y%m%d-%H%M%S')}-{time.monotonic_ns() % 10**6:06d}"

    # -- the linked game -------------------------------------------------------------
    def invite(self, start: Start) -> LinkedGame:
        """Start ``start`` here and ask every other board of its seats to join."""
        game = self.attach(start, [])
        club = self.settings.club
        self.mqtt.publish(board_game_topic(club, self.board, start.game_id, "start"), start,
                          retain=True)
        for board in sorted(set(start.seats) - {self.board}):
            self.mqtt.publish(invitation_topic(club, self.board, board), start, retain=True)
        return game

    def attach(self, start: Start, plies: list[tuple[str, str]],
               movers: list[int] | None = None, resumed: bool = False) -> LinkedGame:
        """Follow ``start``'s topics with the plies this board holds (a join or a resume;
        ``movers``: the seat of each ply).  A game ``resumed`` from the journal with plies
        learns its count of takebacks from the retained state."""
        self.detach()
        self._declined.add(start.game_id)
        self.game = LinkedGame(start, self.board, list(plies), list(movers or []))
        self.game.epoch_known = not (resumed and plies)
        try:
            self.game.turns = Turns(start)
        except (ValueError, TypeError) as exc:  # a game this board cannot build: the
            log.warning("linked game: turns not checked",  # service refuses it anyway
                        extra={"link_game": start.game_id, "problem": str(exc)})
        self.others_state = None
        for topic in self._game_topics(start):
            self.mqtt.subscribe(topic)
        return self.game

    def _game_topics(self, start: Start) -> list[str]:
        """The other boards' own topics of ``start`` (each board writes only its own)."""
        return [board_game_topic(self.settings.club, board, start.game_id, kind)
                for board in sorted(set(start.seats) - {self.board})
                for kind in ("moves", "state")]

    def detach(self) -> None:
        if self.game is not None:
            for topic in self._game_topics(self.game.start):
                self.mqtt.unsubscribe(topic)
        self.game = None

    def moved(self, seat: int, move: str, digest: str) -> None:
        """A move was journalled here: send it when this board plays ``seat``, else it is
        the remote move shown, now made on this board."""
        game = self.game
        if game is None:
            return
        shown = game.showing
        if shown is not None and (shown.move, shown.digest) == (move, digest):
            game.remote_made(move, digest)  # shown here: a remote move, or one made again
            return
        if seat in game.local_seats:
            answer = game.decline()  # a move made here says no to a takeback asked
            if answer is not None:
                self._send(answer)
            message = game.local_move(seat, move, digest)
            self.mqtt.publish(self._own(game.game_id, "moves"), message)
            self._publish_state()
        else:
            game.remote_made(move, digest)

    def _publish_state(self, result: str | None = None, reason: str | None = None) -> None:
        game = self.game
        assert game is not None
        moves, seats, digests = game.history()
        digest = digests[-1] if digests else ""
        self.mqtt.publish(self._own(game.game_id, "state"),
                          State(game.game_id, moves, digest, result, reason, seats, digests,
                                epoch=game.epoch),
                          retain=True)

    def _send(self, message: TakebackRequest | TakebackAnswer) -> None:
        """Takeback messages go on the moves topic: in order with the moves around them."""
        assert self.game is not None
        self.mqtt.publish(self._own(self.game.game_id, "moves"), message)

    def _own(self, game_id: str, kind: str) -> str:
        return board_game_topic(self.settings.club, self.board, game_id, kind)

    def took_back(self, plies: int) -> None:
        """``plies`` plies were taken back on this board: ask the other boards (or accept
        what they asked)."""
        game = self.game
        if game is None:
            return
        message = game.took_back(plies, min(game.local_seats, default=0))
        if message is None:
            return
        self._send(message)
        if isinstance(message, TakebackAnswer):
            self._publish_state()

    def resync(self) -> int | None:
        """After a disagreement: take the other board's plies (:meth:`LinkedGame.resync`);
        how many plies of this board stand (None: nothing heard from the other board)."""
        game, theirs = self.game, self.others_state
        if game is None or theirs is None:
            return None
        stand = game.resync(theirs)
        if not game.undone:
            self._publish_state()  # theirs is behind: it catches up from this state
        return stand

    def decline_takeback(self) -> bool:
        """Say no to the other board's takeback request (False: none is asked)."""
        answer = self.game.decline() if self.game is not None else None
        if answer is not None:
            self._send(answer)
        return answer is not None

    def ended(self, result: str, reason: str) -> None:
        """The game ended here: the retained state says how (for the club's page)."""
        if self.game is None:
            return
        self._publish_state(result, reason)

    # -- the board loop --------------------------------------------------------------
    def poll(self) -> list[Invitation | Action | SeatView]:
        """What arrived, in order: invitations to join, the linked game's actions, and
        the referee's views for this board."""
        out: list[Invitation | Action | SeatView] = []
        if self.mqtt.connections != self._connections_seen:
            self._connections_seen = self.mqtt.connections
            self._speak_again()
        club = self.settings.club
        own_view = seat_topic(club, self.board, "view")
        for topic, message in self.mqtt.receive():
            if isinstance(message, SeatView):
                # only the referee may write a board's view topic (the ACL)
                if topic == own_view and self.refereed is not None:
                    out.append(message)
                continue
            by = sender(club, topic)
            self._follow_club(topic, by, message)
            if isinstance(message, Start):
                if by is not None and topic == invitation_topic(club, by, self.board):
                    invitation = self._invitation(message, by)
                    if invitation is not None:
                        out.append(invitation)
                continue
            game = self.game
            if (not isinstance(message, (MoveMessage, Takeback, State, TakebackRequest,
                                         TakebackAnswer))
                    or game is None or message.game_id != game.game_id):
                continue
            kind = "state" if isinstance(message, State) else "moves"
            if (by is None or by == self.board
                    or topic != board_game_topic(club, by, game.game_id, kind)):
                continue  # this board's own, another game's, the referee's, a stray topic
            if not game.authorised(message, by):
                self._refuse(topic, f"{message.type} from {by}, who may not say it")
                continue
            if (isinstance(message, State) and message.seats
                    and message.seats[-1] in game.remote_seats):
                self.others_state = message  # vouched for by the other seat's board
            refused = game.refused
            actions = game.receive(message, by)
            if game.refused != refused:
                self._refuse(topic, f"{message.type} for ply {getattr(message, 'ply', '?')} "
                             "is not that seat's")
            for action in actions:
                if isinstance(action, Withdrawn):  # agreed at once
                    self._send(TakebackAnswer(game.game_id, action.ply, True, game.epoch))
                    self._publish_state()
            out.extend(actions)
        if self.game is not None and self.game.showing is None:
            out.extend(self.game.next_early())
        return out

    def _speak_again(self) -> None:
        """(Re)connected — after a power cut, a dropped network, a broker restarted
        without its saved messages: when this board made the last ply, its retained state
        goes out again, so a move journalled here that never reached the broker (the
        power went first) still reaches the other board; a duplicate changes nothing."""
        game = self.game
        if game is None or not game.plies or game.stopped:
            return
        _, seats, _ = game.history()
        if seats[-1] in game.local_seats:
            self._publish_state()

    def _invitation(self, start: Start, inviter: str) -> Invitation | None:
        """An invitation ``inviter`` wrote on its own topic: for a game it plays with this
        board, once each; anything else is refused."""
        if inviter == self.board or inviter not in start.seats or self.board not in start.seats:
            self._refuse(invitation_topic(self.settings.club, inviter, self.board),
                         f"an invitation from {inviter} to a game it does not play")
            return None
        if not self.accept_invitations or start.game_id in self._declined:
            return None
        self._declined.add(start.game_id)
        return Invitation(start, inviter)

    def _refuse(self, topic: str, problem: str) -> None:
        self.refused += 1
        self.mqtt.problems.append(f"{topic}: {problem}")
        del self.mqtt.problems[:-20]
        log.warning("link message refused", extra={"topic": topic, "problem": problem})

    def _follow_club(self, topic: str, by: str | None, message: Any) -> None:
        """Keep the club's games for the spectators' page: who plays, the moves, the end.
        A game's start counts from the referee's public topic or from the own topic of a
        board that plays it.  States count from the referee's public topic (a refereed
        game) or from the own topic of a board that plays the game; the retained messages
        come in no particular order, so a state heard before its game's start is kept
        until the start says who plays.  A ply shows once the board that plays its seat
        says it, and a result only once the referee or every seat's board says it (one
        board alone cannot make or end another's game on the page)."""
        club = self.settings.club
        if isinstance(message, Start) and topic.endswith("/start"):
            refereed = topic == game_topic(club, message.game_id, "start")
            if not refereed and (by is None or by not in message.seats or topic !=
                                 board_game_topic(club, by, message.game_id, "start")):
                return
            entry = self.club.setdefault(message.game_id, {"moves": [], "result": None,
                                                           "reason": None})
            if entry.get("game") is not None and entry.get("seats") != list(message.seats):
                return  # a game's seats are said once
            entry.update(game_id=message.game_id, game=message.game,
                         seats=list(message.seats), setup=message.setup,
                         clock=message.clock, refereed=refereed)
            entry.setdefault("updated", time.time())
            _club_judge(entry)
        elif isinstance(message, State) and topic.endswith("/state"):
            if topic == game_topic(club, message.game_id, "state"):
                voice = "referee"
            elif by is not None and topic == board_game_topic(club, by, message.game_id,
                                                               "state"):
                voice = by
            else:
                return
            entry = self.club.setdefault(message.game_id, {"moves": [], "result": None,
                                                           "reason": None})
            entry.setdefault("states", {})[voice] = message  # the latest each voice says
            entry["updated"] = time.time()
            _club_judge(entry)
        if len(self.club) > 500:  # the newest games are enough for a club's page
            for old in sorted(self.club, key=lambda k: self.club[k].get("updated", 0))[:100]:
                del self.club[old]

    def club_games(self) -> list[dict[str, Any]]:
        """The club's games with a start message, newest first."""
        games = [dict(g) for g in self.club.values() if "game" in g]
        return sorted(games, key=lambda g: -g.get("updated", 0))

    def status(self) -> dict[str, Any]:
        """For the page and /health."""
        game = self.game
        view = self.refereed.view if self.refereed is not None else None
        seats = game.start.seats if game else view.seats if view else None
        return {"board": self.board, "club": self.settings.club,
                "connected": self.connected,
                "game_id": game.game_id if game else None,
                "seats": list(seats) if seats is not None else None,
                "stopped": game.stopped if game else None,
                "takeback": ({"asked": game.asked, "offered": game.offered}
                             if game and (game.asked is not None or game.offered is not None)
                             else None),
                "invitation": ({"game_id": self.invited.game_id, "game": self.invited.game,
                                "seats": list(self.invited.seats)}
                               if self.invited is not None else None),
                "problems": list(self.mqtt.problems[-3:])}

    def close(self) -> None:
        self.mqtt.close()


def _club_judge(entry: dict[str, Any]) -> None:
    """The moves and result ``entry`` shows from the states its voices said (nothing
    until its start names the seats)."""
    if "game" not in entry:
        return
    states: dict[str, State] = entry.get("states", {})
    if entry.get("refereed"):
        voices = {"referee": states["referee"]} if "referee" in states else {}
        moves: list[str] = list(voices["referee"].moves) if voices else []
    else:
        seats = entry["seats"]
        voices = {b: s for b, s in states.items() if b in seats}
        moves = _vouched_moves(seats, voices)
    said = {v: (s.result, s.reason) for v, s in voices.items()}
    ends = set(said.values())
    confirmed = bool(said) and len(ends) == 1 and (
        entry.get("refereed") or set(said) == set(entry["seats"]))
    result, reason = next(iter(ends)) if confirmed else (None, None)
    entry.update(moves=moves, result=result, reason=reason)


def _vouched_moves(seats: list[str], states: dict[str, State]) -> list[str]:
    """The longest history a seat's board says in which every ply is also said, with the
    same plies before it, by the board that plays that ply's seat (the latest takeback
    count first: after a takeback agreed the shorter history stands)."""
    best: tuple[int, int] = (-1, -1)
    moves: list[str] = []
    for state in states.values():
        agreed = {board: _common(state.moves, theirs.moves)  # plies said alike
                  for board, theirs in states.items()}
        vouched = 0
        for i, seat in enumerate(state.seats[:len(state.moves)]):
            owner = seats[seat] if 0 <= seat < len(seats) else None
            if agreed.get(owner, 0) <= i:
                break
            vouched = i + 1
        if (state.epoch, vouched) > best:
            best, moves = (state.epoch, vouched), list(state.moves[:vouched])
    return moves


def _common(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """How many plies two histories begin with alike."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


class RefereedSeat:
    """One board's seat in a game refereed elsewhere (``fairyboard referee``): asks for
    the game, hands each view the referee sends this board to its
    :class:`~controller.board.fogsync.FogSync`, and sends the player's attempts.  Only this
    board's private topics are used; nothing hidden ever reaches it."""

    def __init__(self, mqtt: MqttLink, club: str, board: str) -> None:
        self.mqtt = mqtt
        self.club = club
        self.board = board
        self.view: SeatView | None = None
        self._sent: object = None  # the attempt last sent (each is sent once)
        mqtt.subscribe(seat_topic(club, board, "view"))

    def request(self, start: Start) -> None:
        """Ask the referee to start ``start`` (no hidden options: the referee draws them)
        on this board's own ``request`` topic (the referee starts only games whose seats
        name the board that asks).  Retained: a referee not yet connected (or restarting)
        finds the request when it subscribes; it starts each game id once."""
        self.mqtt.publish(seat_topic(self.club, self.board, "request"), start, retain=True)

    def follow(self, sync: FogSync, message: SeatView) -> bool:
        """A view of ``sync``'s game arrived on this board's topic: shown on the board when
        it is newer than the one shown (True)."""
        if message.seat != sync.seat:
            return False
        self.view = message
        return sync.show(message.ply, message.position, message.refused, message.result,
                         message.reason)

    def send(self, sync: FogSync) -> None:
        """The player's moves tried on the board go to the referee (at most one a ply)."""
        if self.view is None or not sync.waiting or sync.outbox[-1] is self._sent:
            return
        tried = self._sent = sync.outbox[-1]
        self.mqtt.publish(seat_topic(self.club, self.board, "attempt"),
                          Attempt(self.view.game_id, tried.ply, sync.seat, tried.move))
