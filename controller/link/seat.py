"""This board's side of linked and refereed games: the seats played on other boards.

:class:`LinkSeat` owns the broker connection (:class:`~controller.link.remote.Remote`),
a remote move waiting for the board, the refereed game's view (:class:`FogSync`) and what
the page is told about the link.  It learns about this board's game from the board's
events (a move journalled, a takeback, the end) and tells the other boards; what they
send becomes the board's *execute* flow, a new game joined, or a stop.

Starting or joining a game is the service's (it wires the board, the journal and the
other seats): this room asks its :class:`LinkHost` for it.
"""

from __future__ import annotations

import contextlib
import logging
from typing import Any, Protocol

from controller.board import Board
from controller.board.fogsync import FogSync
from controller.config import Config, ConfigError
from controller.i18n import Text
from controller.link.client import BrokerSettings
from controller.link.game import (
    Disagree,
    Show,
    TakeBack,
    TakebackAsked,
    TakebackSettled,
    Withdrawn,
)
from controller.link.messages import (
    ACCOUNT_SEAT,
    LinkError,
    SeatView,
    Start,
    check_name,
    position_digest,
)
from controller.link.remote import Invitation, Remote
from controller.rules import GAMES, Game, Position, RulesError, get_game
from controller.session import GameSession, Scorebook

log = logging.getLogger("fairyboard.service")


class LinkRefused(ValueError):
    """A linked game that cannot be started as asked (the message says why)."""


class LinkHost(Protocol):
    """What the link asks of the service that wires it."""

    board: Board | None

    @property
    def session(self) -> GameSession: ...

    def changed(self) -> None: ...

    def join_linked(self, start: Start) -> None:
        """Play the linked game ``start`` here (ending the current one)."""

    def begin_refereed(self, game: Game, start: Start, pos: Position) -> GameSession:
        """Play the refereed game ``start`` here from its first view ``pos``."""


def open_remote(config: Config) -> Remote | None:
    """The link to the club's broker, when ``link.broker`` is set."""
    c = config.link
    if not c.broker:
        return None
    settings = BrokerSettings(host=c.broker, port=c.port, club=c.club, board=c.board,
                              username=c.username, password=c.password, tls_ca=c.tls_ca)
    return Remote(settings, accept_invitations=c.accept_invitations, referee=c.referee)


def link_plies(game: Game, setup: str, pos: Position) -> list[tuple[str, str]]:
    """The plies of ``pos`` as the link keeps them: long notation and position digest."""
    replay = game.parse_position(setup)
    out = []
    for move in pos.moves:
        text = game.long_move_text(replay, move)
        replay.push(move)
        out.append((text, position_digest(game.position_text(replay))))
    return out


def link_movers(game: Game, setup: str, pos: Position) -> list[int]:
    """The seat that made each ply of ``pos`` (a resumed linked game's retained state
    names them, as the boards' move messages did)."""
    replay = game.parse_position(setup)
    out = []
    for move in pos.moves:
        out.append(game.ply_mover(replay))
        replay.push(move)
    return out


class LinkSeat:
    """The other boards' seats of this board's game (nothing when ``remote`` is None:
    this board plays alone)."""

    def __init__(self, remote: Remote | None, scorebook: Scorebook, host: LinkHost) -> None:
        self.remote = remote
        self.scorebook = scorebook
        self.host = host
        self.pending: Show | None = None  # a remote move waiting for the board
        #: a refereed game (hidden information): the board holds its player's view only
        self.fog: FogSync | None = None
        self.requested: str | None = None  # a refereed game asked for, not yet begun
        #: why a linked game stopped (the boards disagree), shown on the page
        self.problem: str | None = None
        #: a takeback asked or answered between the linked boards, shown on the page
        self.notice: str | None = None
        self._epoch_known = True  # see turn

    @property
    def board_name(self) -> str:
        return self.remote.board if self.remote is not None else ""

    def linked(self, session: GameSession) -> bool:
        return session.link is not None and self.remote is not None

    def away(self, link: Start) -> frozenset[int]:
        """The seats of ``link`` played on other boards."""
        assert self.remote is not None
        return frozenset(i for i, b in enumerate(link.seats) if b != self.remote.board)

    def plays_here(self, session: GameSession, player: int) -> bool:
        """Whether ``player``'s moves are made on this board."""
        return (session.link is None or self.remote is None
                or session.link.seats[player] == self.remote.board)

    # -- the board's events --------------------------------------------------------------
    def moved(self, session: GameSession, pos: Position, player: int, long: str) -> None:
        if self.linked(session):
            assert self.remote is not None
            self.remote.moved(player, long, position_digest(session.game.position_text(pos)))

    def taken_back(self, session: GameSession, plies: int) -> None:
        """This board took ``plies`` back: the other boards must agree."""
        if not self.linked(session):
            return
        assert self.remote is not None
        self.pending = None
        self.remote.took_back(plies)
        asking = self.remote.game is not None and self.remote.game.asked is not None
        self.notice = (Text("takeback asked: waiting for the other board to agree")
                       if asking else Text("takeback agreed"))
        self.set_away()

    def ended(self, session: GameSession, result: str, reason: str) -> None:
        if self.linked(session):
            assert self.remote is not None
            self.remote.ended(result, reason)

    def new_game(self) -> None:
        """A new game on this board: the link forgets the old one."""
        self.pending = None
        self.problem = self.notice = None
        if self.remote is not None:
            self.remote.detach()

    def attach(self, session: GameSession, pos: Position, resumed: bool = False) -> None:
        """``session`` is a linked game now on the board (invited, joined or resumed)."""
        link = session.link
        assert link is not None and self.remote is not None
        game = session.game
        if resumed:
            self.remote.attach(link, link_plies(game, link.setup, pos),
                               link_movers(game, link.setup, pos), resumed=True)
        else:
            self.remote.attach(link, link_plies(game, link.setup, pos))

    # -- the loop --------------------------------------------------------------------------
    def turn(self) -> None:
        """Join a game another board invites this one to, show a remote seat's move with
        the execute flow once the board can take it, stop on a disagreement."""
        if self.remote is None:
            return
        changed = self.host.changed
        for event in self.remote.poll():
            if isinstance(event, SeatView):
                self._fog_view(event)
            elif isinstance(event, Invitation):
                self.join(event.start)
            elif isinstance(event, Show):
                self.pending = event
            elif isinstance(event, Disagree):
                self.stop(event.reason)
            elif isinstance(event, TakebackAsked):
                self.notice = Text("the other board took moves back: take them back here "
                                   "too (to {ply} plies) to agree, or play on", ply=event.ply)
                changed()
            elif isinstance(event, Withdrawn):
                self.pending = None
                if self.host.board is not None:
                    self.host.board.cancel_execute()
                self.notice = Text("the other board took its move back")
                changed()
            elif isinstance(event, TakebackSettled):
                self.notice = (Text("takeback agreed") if event.accepted else
                               Text("the other board declined the takeback: make the moves "
                                    "shown again"))
                self.set_away()
                changed()
            elif isinstance(event, TakeBack):
                self.stop("the other board took moves back; linked games cannot "
                          "take moves back yet — start a new game")
        game = self.remote.game
        if game is not None and game.epoch_known != self._epoch_known:
            self._epoch_known = game.epoch_known  # a resumed game heard the count
            self.set_away()
        if self.fog is not None and self.remote.refereed is not None:
            self.fog.poll()
            self.remote.refereed.send(self.fog)
        board = self.host.board
        show = self.pending
        s = self.host.session
        if show is None or board is None or board.state != "turn" or s.ended:
            return
        self.pending = None
        try:
            move = s.game.parse_move(board.position, show.move)
            board.execute(move)
        except (RulesError, ValueError) as exc:
            self.stop(f"ply {show.ply} from the other board ({show.move}) is not "
                      f"legal here: {' '.join(str(exc).split())}")
            return
        log.info("remote move", extra={"game_id": s.game_id, "ply": show.ply,
                                       "move": show.move})
        changed()

    def set_away(self) -> None:
        """The players whose moves are not made on this board: the other boards' — and
        every player while this board's takeback waits for their answer."""
        link, board = self.host.session.link, self.host.board
        if link is None or self.remote is None or board is None:
            return
        game = self.remote.game
        asking = game is not None and (game.asked is not None or not game.epoch_known)
        board.set_away(frozenset(i for i, b in enumerate(link.seats)
                                 if asking or b != self.remote.board))

    def stop(self, reason: str) -> None:
        self.problem = reason
        log.error("linked game stopped", extra={"game_id": self.host.session.game_id,
                                                "problem": reason})
        if self.host.board is not None:
            self.host.board.pause()
        self.host.changed()

    # -- the page's requests -------------------------------------------------------------
    def resync(self) -> None:
        """After the linked boards disagreed: take the other board's moves.  This board
        keeps the plies both hold alike, takes back the rest (journalled; the board asks
        for the earlier position to be set up) and then shows the other board's later
        plies to be made here."""
        s = self.host.session
        if self.remote is None or self.problem is None or s.link is None:
            raise LinkRefused(Text("the linked game has not stopped: nothing to resync"))
        stand = self.remote.resync()
        if stand is None:
            raise LinkRefused(Text("nothing heard from the other board yet: wait for it"))
        extra = len(s.plies) - stand
        board = self.host.board
        if extra > 0:
            self.scorebook.takeback(extra)
            assert board is not None
            pos = board.position.copy()
            for _ in range(extra):
                pos.pop()
            board.load(pos)
        elif board is not None:
            board.resume()
        self.pending = None
        self.problem = None
        self.notice = Text("resynchronised with the other board")
        log.info("linked game resynchronised", extra={"game_id": s.game_id,
                                                      "plies": stand, "taken_back": extra})
        self.set_away()
        self.host.changed()

    def decline_takeback(self) -> None:
        """The page's answer to the other board's takeback request: no."""
        if self.remote is None or not self.remote.decline_takeback():
            raise LinkRefused(Text("no takeback is asked"))
        self.notice = None
        self.host.changed()

    def start(self, game: Game, options: dict[str, Any], setup: str | None,
              remote: dict[int, str], control: str) -> Start:
        """The start message of a new game whose ``remote`` players (player → board name)
        play on other boards of the club."""
        if self.remote is None:
            raise LinkRefused(Text("remote players need a link: set link.broker in the "
                                   "configuration (docs/link.md)"))
        if game.hidden_information and self.remote.refereed is None:
            # both boards would hold the whole position
            raise LinkRefused(Text("{game} cannot be linked yet: each board must hold "
                                   "only its player's view, which needs the referee "
                                   "(docs/link.md); play it on one board", game=game.title))
        secret = sorted(set(options) & game.hidden_options)
        if secret:
            raise LinkRefused(Text("remote: {options} would be known to this board: "
                                   "the referee draws them", options=", ".join(secret)))
        if game.hidden_information and setup:
            raise LinkRefused(Text("remote: a refereed game starts from the game's start"))
        seats = [self.remote.board] * game.players
        for player, board in remote.items():
            if not 0 <= player < game.players:
                raise LinkRefused(Text("remote: no player {player} in {game}", player=player,
                                       game=game.title))
            try:
                seats[player] = (
                    ACCOUNT_SEAT + check_name("remote player", board[1:])
                    if board.startswith(ACCOUNT_SEAT) and self.remote.refereed is not None
                    and board != ACCOUNT_SEAT else check_name("remote board", board))
            except LinkError as exc:
                raise LinkRefused(str(exc)) from None
        server = any(s.startswith(ACCOUNT_SEAT) for s in seats)
        if server and setup:
            raise LinkRefused(Text("remote: a refereed game starts from the game's start"))
        pos = game.parse_position(setup) if setup else game.start()
        if game.hidden_information or server:
            return Start(self.remote.new_game_id(), game.name, dict(options), "",
                         tuple(seats))
        return Start(self.remote.new_game_id(), game.name, dict(options),
                     game.position_text(pos), tuple(seats), control)

    @staticmethod
    def refereed(game: Game, start: Start) -> bool:
        """Whether ``start`` is asked of the referee: a game with hidden information, or
        one a player of the club's server plays (a seat ``@NAME``; the server's link
        bridge referees it, docs/server.md)."""
        return game.hidden_information or any(s.startswith(ACCOUNT_SEAT) for s in start.seats)

    def request_refereed(self, invite: Start) -> None:
        """A game with hidden information: the referee sends each board its view."""
        assert self.remote is not None and self.remote.refereed is not None
        self.requested = invite.game_id
        self.remote.refereed.request(invite)
        log.info("refereed game asked for", extra={"link_game": invite.game_id,
                                                   "seats": list(invite.seats)})

    def invite(self, invite: Start) -> None:
        assert self.remote is not None
        self.remote.invite(invite)

    # -- joining ---------------------------------------------------------------------------
    def join(self, start: Start, consent: bool = False) -> None:
        """Another board invites this one: play ``start`` here (ending the current game
        as unfinished), unless this board already has that game in its journal — or it
        is a game with hidden information, which needs the referee.  A game in progress
        is never left without the player's consent (the invitation waits)."""
        if start.game in GAMES and GAMES[start.game].hidden_information:
            log.warning("linked game refused", extra={
                "link_game": start.game_id, "problem": "hidden information needs the referee"})
            return
        if self.scorebook.has_link_game(start.game_id):
            return
        if not consent and self._hold_invitation(start):
            return
        log.info("joining linked game", extra={"link_game": start.game_id,
                                               "game": start.game, "seats": start.seats})
        try:
            self.host.join_linked(start)
        except (ValueError, ConfigError, RulesError) as exc:
            log.warning("linked game refused", extra={"link_game": start.game_id,
                                                      "problem": str(exc)})

    def _in_progress(self) -> bool:
        """Whether leaving the current game would lose a game under way (a move made, or
        a linked game)."""
        s = self.host.session
        return not s.ended and (bool(s.plies) or s.link is not None)

    def _hold_invitation(self, invited: Start | SeatView) -> bool:
        """An invitation while a game is in progress waits for the player's consent
        (:meth:`accept`); True when it waits."""
        assert self.remote is not None
        if not self._in_progress():
            return False
        waiting = self.remote.invited
        self.remote.invited = invited
        if waiting is None or waiting.game_id != invited.game_id:
            self.notice = Text("an invitation to {game}: accept it to leave this "
                               "game, or play on", game=invited.game_id)
            log.info("invitation waits", extra={"link_game": invited.game_id})
            self.host.changed()
        return True

    def accept(self, accept: bool = True) -> None:
        """The player's answer to the invitation waiting: leave this game and join it
        (``accept``), or not.  :class:`LinkRefused` when none waits."""
        invited = self.remote.invited if self.remote is not None else None
        if invited is None:
            raise LinkRefused(Text("no invitation is waiting"))
        assert self.remote is not None
        self.remote.invited = None
        self.notice = None
        if accept and isinstance(invited, SeatView):
            self._fog_view(invited, consent=True)
        elif accept:
            self.join(invited, consent=True)
        self.host.changed()

    def _fog_view(self, view: SeatView, consent: bool = False) -> None:
        """The referee's view for this board: the refereed game goes on — or begins,
        when this board asked for it or plays one of its seats (a game in progress is
        left only with the player's consent)."""
        assert self.remote is not None
        fog, refereed = self.fog, self.remote.refereed
        link = self.host.session.link
        if fog is not None and link is not None and link.game_id == view.game_id:
            if refereed is not None and refereed.follow(fog, view):
                self.host.changed()
            return
        if view.result is not None or view.seats[view.seat] != self.board_name:
            return  # an ended game's view (retained)
        if view.game_id != self.requested and (
                not self.remote.accept_invitations
                or self.scorebook.has_link_game(view.game_id)):
            return  # not accepted here, or a game this board already played or left
        if view.game_id != self.requested and not consent and self._hold_invitation(view):
            return
        try:
            game = get_game(view.game, **view.options)
            pos = game.parse_view(view.position)
        except RulesError as exc:
            log.warning("refereed game refused", extra={"link_game": view.game_id,
                                                        "problem": str(exc)})
            return
        self.requested = None
        self.pending = None
        self.problem = None
        self.remote.detach()
        start = Start(view.game_id, view.game, dict(view.options), view.position, view.seats)
        session = self.host.begin_refereed(game, start, pos)
        log.info("refereed game", extra={"game_id": session.game_id,
                                         "link_game": view.game_id, "seat": view.seat})
        self.fog_attach(start)
        assert self.remote.refereed is not None and self.fog is not None
        self.remote.refereed.follow(self.fog, view)

    def fog_attach(self, link: Start) -> None:
        """The board becomes its seat's own board in the refereed game ``link``."""
        assert self.host.board is not None and self.remote is not None
        self.fog_detach()
        seat = link.seats.index(self.remote.board)
        self.fog = FogSync(self.host.board, seat)
        self.fog.show(0, link.setup)

    def fog_detach(self) -> None:
        if self.fog is not None:
            self.fog.detach()
            self.fog = None

    # -- what the page reads ----------------------------------------------------------------
    def json(self) -> dict[str, Any] | None:
        """The link for the page: connection, the linked game's seats, a stop."""
        if self.remote is None:
            return None
        return dict(self.remote.status(), problem=self.problem, notice=self.notice)

    def club_json(self) -> dict[str, Any]:
        """The club's linked games for the spectators' page.  A game with hidden
        information shows its moves only once it has ended."""
        if self.remote is None:
            return {"link": None, "games": []}
        games = []
        for g in self.remote.club_games():
            cls = GAMES.get(g["game"])
            hidden = cls is None or (cls.hidden_information and not g.get("result"))
            moves = g.get("moves") or []
            games.append({"game_id": g["game_id"], "game": g["game"],
                          "title": cls.title if cls else g["game"], "seats": g["seats"],
                          "clock": g.get("clock", ""), "plies": len(moves),
                          "moves": None if hidden else moves,
                          "result": g.get("result"), "reason": g.get("reason")})
        return {"link": {"club": self.remote.settings.club,
                         "connected": self.remote.connected}, "games": games}

    def close(self) -> None:
        if self.remote is not None:
            with contextlib.suppress(Exception):  # shutting down
                self.remote.close()


__all__ = ["LinkHost", "LinkRefused", "LinkSeat", "link_movers", "link_plies", "open_remote"]
