"""The seats other than the person at the board: the clock, the computer (and, on the
simulated board, the hand that makes its moves) and the coach.

Each is a small room that owns its state and learns about the game from the board's
events, called by :class:`controller.service.BoardService` (which only wires): a
committed move, a takeback, a new game, and the loop's tick.  None of them writes the
journal (the :class:`~controller.session.Scorebook` does) or knows the page.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable
from typing import Any

from controller.adaptive_seat import AdaptiveSeat
from controller.board import Board
from controller.clock import GameClock, format_clock, parse_time_control
from controller.coach import Coach, evaluation_words, parse_advice, review_words
from controller.config import Config, ConfigError
from controller.fogtable import FogTable, plays_on_view
from controller.i18n import Text
from controller.journal import GameRecord
from controller.opponent import Computer, Opponent
from controller.rules import Game, Move, Position, get_game
from controller.session import GameSession

log = logging.getLogger("fairyboard.service")

#: the board's phases in which the mover's clock runs (see ClockSeat.run)
CLOCK_PHASES = frozenset({"turn", "lifted", "settling", "choice", "execute"})
#: seconds between two actions of the simulated hand making the computer's move
HAND_STEP_S = 0.12
#: the simulated hand's first action waits until every open page was sent the computer's
#: move lit (a page on a loaded machine may lag the loop), but never longer than this
HAND_PAGE_WAIT_S = 3.0


class Failures:
    """Failures of the workers (the computer's search, the coach): each kind logged once
    with its traceback and then only counted — a broken worker never floods the log or
    slows the board; the page and ``/health`` say what failed and what to do."""

    def __init__(self) -> None:
        #: failures per kind ("computer: BrokenProcessPool"), since the service started
        self.counts: dict[str, int] = {}
        #: per room, what the page says while its failure stands
        self.active: dict[str, str] = {}

    def failed(self, room: str, exc: BaseException, says: str, private: bool = False) -> None:
        """``private``: a game with hidden information — the error's text (which may name
        what a player may not see) is neither shown nor logged, only its kind and where
        it was raised."""
        kind = f"{room}: {type(exc).__name__}"
        count = self.counts[kind] = self.counts.get(kind, 0) + 1
        reason = type(exc).__name__ if private else (
            " ".join(str(exc).split()) or type(exc).__name__)
        if count == 1 and private:
            where = "".join(traceback.format_list(traceback.extract_tb(exc.__traceback__)))
            log.error(f"{room} failed", extra={"failure": kind, "problem": reason,
                                               "where": where})
        elif count == 1:
            log.error(f"{room} failed", exc_info=(type(exc), exc, exc.__traceback__),
                      extra={"failure": kind, "problem": reason})
        else:
            log.debug(f"{room} failed again", extra={"failure": kind, "count": count})
        self.active[room] = Text(says, reason=reason[:200])  # (each page: its language)

    def cleared(self, room: str) -> None:
        self.active.pop(room, None)

    def lines(self) -> list[str]:
        return list(self.active.values())


#: what the page says when the computer's search failed
COMPUTER_FAILED = Text("The computer stopped working ({reason}). Its moves are yours to make "
                       "now: play on as two players, or start a new game to choose another "
                       "opponent.")
#: what the page says when the coach's worker failed
COACH_FAILED = Text("The coach stopped working ({reason}). Hint, Evaluate and Coach are off; "
                    "the game goes on. Ask for a hint or switch Coach on to try again.")


def record_of(session: GameSession, pos: Position) -> list[str]:
    """The moves of the game so far in long notation (what the engine's worker replays)."""
    game = session.game
    replay = game.parse_position(session.setup)
    texts = []
    for move in pos.moves:
        texts.append(game.long_move_text(replay, move))
        replay.push(move)
    return texts


# ---------------------------------------------------------------------------------
# the clock


class ClockSeat:
    """The seats' clocks: started by the first move, pressed by each, paused while the
    board is not waiting for a move; a flag falls once."""

    def __init__(self, time_control: str, on_flag: str) -> None:
        #: the time control of new games ("" no clock); the page's "New game" may change it
        self.time_control = time_control
        self.on_flag = on_flag
        self.low = False

    def new_clock(self, game: Game) -> GameClock | None:
        """The clocks of a new game on the current time control (None: no clock)."""
        if not self.time_control:
            return None
        return GameClock(parse_time_control(self.time_control), game.players)

    @staticmethod
    def resumed(game: Game, record: GameRecord, plies: list[tuple[int, str]]) -> GameClock:
        """The clocks of a resumed game as the journal left them: paused until the set-up
        is verified, each seat's moves counted for its periods."""
        control = parse_time_control(record.clock or "")
        moves = [0] * game.players
        for i, (player, _) in enumerate(plies):  # a die roll and its move are one press
            if i + 1 == len(plies) or plies[i + 1][0] != player:
                moves[player] += 1
        remaining = record.remaining or [control.initial] * game.players
        return GameClock.resumed(control, remaining, moves)

    @staticmethod
    def press(session: GameSession, mover: int, now: float) -> list[float] | None:
        """The move is made: the next mover's clock starts (not after a die roll, whose
        player moves on).  The seats' remaining seconds, for the journal."""
        clock = session.game_clock
        if clock is None:
            return None
        if clock.running is None:
            clock.start(mover, now)
        elif mover != clock.running:
            clock.press(mover, now)
        return [clock.remaining(seat, now) for seat in range(len(clock.seats))]

    @staticmethod
    def taken_back(session: GameSession, mover: int, now: float) -> None:
        clock = session.game_clock
        if clock is not None and clock.running is not None:
            clock.switch(mover, now)

    def run(self, session: GameSession, board: Board, may_run: bool, now: float) -> bool:
        """The mover's clock runs while the board waits for, or takes in, a move — not
        during the set-up, a correction, a takeback or a resume question (``may_run``
        False) — and a flag falls once: the game ends as the rules say, or the page
        reports it.  True when the page's clock changed state."""
        clock = session.game_clock
        if clock is None:
            return False
        running = board.state in CLOCK_PHASES and not session.ended and may_run
        if running and clock.running is None:
            clock.start(session.game.ply_mover(board.position), now)
        elif running and clock.paused:
            clock.resume(now)
        elif not running and not clock.paused:
            clock.pause(now)
        changed = False
        low = clock.running is not None and clock.low(clock.running, now) and running
        board.set_low_time(low)  # the mover's royal pieces breathe (publishes once)
        if low != self.low:
            self.low = low
            changed = True
        seat = clock.flagged(now)
        if seat is None or session.flag is not None:
            return changed
        session.flag = seat
        clock.pause(now)
        outcome = session.game.timeout_outcome(board.position, seat)
        log.info("flag fell", extra={"game_id": session.game_id, "player": seat,
                                     "on_flag": self.on_flag})
        if self.on_flag == "end":
            board.end_on_time(outcome)
        else:
            clock.resume(now)  # reported only: play on, the clock shows 0:00
        return True

    @staticmethod
    def json(session: GameSession, now: float) -> dict[str, Any] | None:
        """The seats' clocks for the page (None without a clock)."""
        clock = session.game_clock
        if clock is None:
            return None
        seats = range(len(clock.seats))
        return {"control": clock.control.text,
                "remaining": [round(clock.remaining(i, now), 1) for i in seats],
                "shown": [format_clock(clock.remaining(i, now)) for i in seats],
                "low": [clock.low(i, now) for i in seats],
                "running": clock.running, "paused": clock.paused, "flag": session.flag}

    @staticmethod
    def movetime(session: GameSession, pos: Position, now: float) -> float | None:
        """On a clock the computer spends its share of what it has left (more when moves
        are due at a time control, the increment mostly spent); None: the level's time."""
        clock = session.game_clock
        if clock is None:
            return None
        from controller.engine import clock_budget

        seat = session.game.ply_mover(pos)
        control = clock.control
        state = clock.seats[seat]
        period = control.periods[state.period]
        to_go = None
        if period.moves is not None:
            made_before = sum(p.moves or 0 for p in control.periods[:state.period])
            to_go = max(1, made_before + period.moves - state.moves)
        return clock_budget(clock.remaining(seat, now), control.increment + control.delay,
                            to_go)

    @staticmethod
    def stopped(session: GameSession, now: float) -> list[float] | None:
        """The seats' remaining seconds of a running game at shutdown (None: no clock
        running, or the game ended)."""
        clock = session.game_clock
        if clock is None or clock.running is None or session.ended:
            return None
        return clock.state(now)["remaining"]


# ---------------------------------------------------------------------------------
# the computer and the simulated hand


class ComputerSeat:
    """The computer's players: its move is asked for while the board waits for one of
    them, and shown with the board's execute flow once the search answers.  On the
    simulated board the simulated hand then makes it, one action at a time
    (``perform`` carries out one hand action; none: the person makes the move).  With
    hidden information and no simulated hand the table holds the person's view only
    (:attr:`table`, :class:`~controller.fogtable.FogTable`): the computer's moves are made
    on the whole position there, never shown."""

    def __init__(self, opponent: Opponent,
                 perform: Callable[[dict[str, Any]], None] | None,
                 failures: Failures, adaptive: AdaptiveSeat | None = None) -> None:
        self.opponent = opponent
        self.failures = failures
        #: the adaptive level (``controller/adaptive_seat.py``): the level of a new game
        self.adaptive = adaptive or AdaptiveSeat(False, None)
        self._perform = perform
        #: simulated board: actions of the simulated hand still to make (the computer's
        #: move), one every HAND_STEP_S so the sensors see each of them
        self.hand: list[dict[str, Any]] = []
        self._hand_at = 0.0
        self.hand_shown = 0  # the version showing the move the hand is to make
        self._hand_first = False  # the hand has not acted yet
        #: the game's whole position when the table holds the person's view only
        self.table: FogTable | None = None

    @property
    def seats(self) -> frozenset[int]:
        return self.opponent.computer.seats

    @property
    def busy(self) -> bool:
        """The search or the hand is under way (the loop runs at full speed)."""
        return bool(self.hand) or self.opponent.thinking

    def new_game(self, computer: Computer | None) -> None:
        """A new game: whatever was under way is dropped; ``computer`` plays it."""
        self.opponent.cancel()
        self.hand = []
        self.opponent.computer = computer or Computer()
        self.set_table(None)

    def lay_table(self, board: Board, session: GameSession, linked: bool,
                  commit: Callable[[Move], None],
                  taken_back: Callable[[list[Move]], None] = lambda moves: None) -> None:
        """``session`` is put on the board: with hidden information and no hand to make
        the computer's moves, the table holds the person's view only (``commit`` and
        ``taken_back`` journal the whole game's moves and takebacks)."""
        game = session.game
        person = plays_on_view(game, self.seats, self._perform is not None, linked)
        if person is None:
            self.set_table(None)
            return
        whole = game.parse_position(session.setup)  # the board's own, with its history
        for move in board.position.moves:
            whole.push(move)
        self.set_table(FogTable(board, game, whole, person, commit, taken_back))

    def take_back(self, allowed: bool) -> None:
        """The person takes back his last move (and the computer's reply) on a table that
        holds his view — the board has no history to restore by hand (``allowed``: the
        owner's ``board.takeback``).  Raises ValueError (one line) otherwise."""
        if self.table is None:
            raise ValueError(Text("a takeback is made on the board: put back the "
                                  "position before the move"))
        if not allowed:
            raise ValueError(Text("takebacks are off on this board"))
        self.opponent.cancel()  # a search of the position taken back is never used
        self.table.take_back()

    def set_table(self, table: FogTable | None) -> None:
        if self.table is not None:
            self.table.detach()
        self.table = table
        self.failures.cleared("computer")

    def hand_turn(self, now: float, pages_behind: bool) -> bool:
        """One action of the simulated hand when it is due (True: it acted).
        ``pages_behind``: an open page has not been sent the lit move yet — the first
        action waits for it (at most HAND_PAGE_WAIT_S)."""
        if self._hand_first and now - self._hand_at < HAND_PAGE_WAIT_S and pages_behind:
            return False
        if now - self._hand_at < HAND_STEP_S:
            return False
        self._hand_first = False
        self._hand_at = now
        assert self._perform is not None
        self._perform(self.hand.pop(0))
        return True

    def turn(self, board: Board, session: GameSession, movetime: float | None,
             layout: Any, now: float) -> tuple[Move | None, bool]:
        """Ask for, or collect, the computer's move.  (the move now shown with the execute
        flow or None, whether the page's "thinking" changed)."""
        table = self.table
        if table is not None and table.turn():  # the person's move on his view, judged
            return None, True
        if board.state != "turn" or session.ended or not self.seats or (
                table is not None and table.waiting):
            return None, False
        pos = board.position if table is None else table.position
        thinking = self.opponent.thinking
        try:
            move = self.opponent.poll(session.game, session.options, session.setup,
                                      record_of(session, pos), pos, movetime)
        except Exception as exc:  # noqa: BLE001 - any failure of the search or its process
            self._failed(exc, session.game.hidden_information)
            return None, True
        if move is None:
            return None, self.opponent.thinking != thinking
        hidden = session.game.hidden_information  # its move is told to no log either
        log.info("computer move", extra={"game_id": session.game_id, **(
            {} if hidden else {"move": session.game.move_text(pos, move)})})
        if table is not None:
            table.play(move)
            return move, True
        before = pos.copy()
        board.execute(move)
        if self._perform is not None:
            from controller.sensing.sim.hand import move_actions
            self.hand = move_actions(session.game, before, move, layout)
            self._hand_at = now
            self._hand_first = True
        return move, True

    def _failed(self, exc: BaseException, private: bool) -> None:
        """The search failed: the computer leaves its seats to the people (the game stays
        playable) and its worker is closed — a new game with the computer starts a new
        one."""
        self.failures.failed("computer", exc, COMPUTER_FAILED, private)
        self.opponent.cancel()
        self.opponent.close()
        self.opponent.computer = Computer(frozenset(), self.opponent.computer.level)

    def json(self, game: Game) -> dict[str, Any]:
        """The computer for the page; ``takeback``: the page offers the person a takeback
        (the table holds his view, so he cannot restore the position by hand), if the
        owner allows takebacks."""
        table = self.table
        return dict(self.opponent.computer.json(game), thinking=self.opponent.thinking,
                    problem=self.failures.active.get("computer"),
                    takeback=table is not None and table.board.options.takeback)

    def close(self) -> None:
        self.opponent.close()


# ---------------------------------------------------------------------------------
# the coach


class CoachSeat:
    """Hints, the coach's review of a person's move and the evaluation, answered by the
    coach's own worker process."""

    def __init__(self, coach: Coach, changed: Callable[[], None],
                 failures: Failures) -> None:
        self.coach = coach
        self.failures = failures
        self._changed = changed
        self.advice: dict[str, Any] = {}
        self._reviewing: tuple | None = None  # the coach's review under way: its key

    @property
    def busy(self) -> bool:
        return self.coach.busy

    @staticmethod
    def _key(session: GameSession, pos: Position) -> tuple:
        return (session.game_id, len(pos.moves))

    def ask(self, kind: str, session: GameSession, board: Board,
            played: str | None = None, now: Position | None = None) -> None:
        """Ask the coach's worker: a "hint" or an "evaluate" for the position now (``now``:
        the game's, when the board holds a view only), or a "review" of ``played`` (long
        notation), the move just made."""
        s = session
        now = board.position if now is None else now
        moves = record_of(s, now)
        if played is not None:
            moves = moves[:-1]
        pos = s.game.parse_position(s.setup)
        for move in now.moves[:len(moves)]:
            pos.push(move)
        if not s.game.legal_moves(pos):
            return
        key = self._key(s, now)
        # a review stays about its move while later plies are made (the computer's reply
        # comes before it); a takeback or a new game cancels it
        self._reviewing = key if kind == "review" else None
        try:
            self.coach.ask(kind, key, s.game, s.options, s.setup, moves, pos, played)
        except Exception as exc:  # noqa: BLE001 - its process cannot start or is broken
            self._failed(exc, s.game.hidden_information)
            return
        self.advice = dict(self.advice, busy=kind)
        self._changed()

    def moved(self, session: GameSession, board: Board, player: int, long: str,
              by_person: bool) -> None:
        """A move was made: a hint is about the last position; a person's move (of this
        board) is reviewed when the coach is on."""
        self.advice = {"note": self.advice.get("note")}
        if self.coach.on and not session.game.hidden_information and by_person:
            self.ask("review", session, board, played=long)

    def taken_back(self) -> None:
        self.advice = {}
        self.coach.cancel()
        self._reviewing = None

    def new_game(self) -> None:
        self.taken_back()

    def turn(self, session: GameSession, board: Board, now: Position | None = None) -> None:
        """An answer of the coach's worker: light the hint, note a poor move, show the
        evaluation (``now``: as for :meth:`ask`)."""
        reviewing = self._reviewing
        now = board.position if now is None else now
        try:
            got = self.coach.answer(reviewing or self._key(session, now))
        except Exception as exc:  # noqa: BLE001 - any failure of the worker
            self._failed(exc, session.game.hidden_information)
            return
        if got is not None:
            self._reviewing = None
        if got is None:
            if self.advice.get("busy") and not self.coach.busy:
                self.advice = dict(self.advice, busy=None)  # dropped: the position moved
                self._changed()
            return
        kind, advice = got
        self.failures.cleared("coach")
        s = session
        pos = now
        self.advice = dict(self.advice, busy=None)
        if kind == "hint":
            move = parse_advice(s.game, pos, advice)
            if move is not None and board.state == "turn":
                board.show_hint(move)
            self.advice["hint"] = advice.best or None
            self.advice["hint_text"] = advice.best_text or advice.best or None
        elif kind == "evaluate":
            self.advice["evaluation"] = (None if s.game.hidden_information else
                                         {"score": advice.score, "best": advice.best,
                                          "best_text": advice.best_text,
                                          "text": evaluation_words(advice),
                                          "ply": len(pos.moves)})
        elif kind == "review" and self.coach.remarks_on(advice):
            ply = advice.ply if advice.ply is not None else (
                reviewing or self._key(s, pos))[1]  # the move reviewed
            self.advice["note"] = {"ply": ply, "played": advice.played,
                                   "better": advice.best, "loss": advice.loss,
                                   "text": review_words(advice)}
            log.info("coach", extra={"game_id": s.game_id, **self.advice["note"]})
        self._changed()

    def _failed(self, exc: BaseException, private: bool) -> None:
        """The worker failed: the coach goes off and its process is closed (asking again
        starts a new one); the game goes on."""
        self.failures.failed("coach", exc, COACH_FAILED, private)
        self.coach.on = False
        self.coach.close()
        self._reviewing = None
        self.advice = dict(self.advice, busy=None)
        self._changed()

    def set_on(self, on: bool) -> None:
        """The page's Coach box."""
        self.coach.on = bool(on)
        self._changed()

    def json(self, game: Game) -> dict[str, Any]:
        """Hints, the coach and the evaluation for the page."""
        return {"coach": self.coach.on, "busy": self.advice.get("busy"),
                "hint": self.advice.get("hint"), "note": self.advice.get("note"),
                "hint_text": self.advice.get("hint_text"),
                "evaluation": self.advice.get("evaluation"),
                "hidden": game.hidden_information,
                "problem": self.failures.active.get("coach")}

    def close(self) -> None:
        self.coach.close()


def computer_from_config(config: Config) -> Computer:
    """``board.computer`` (player names) as player indices of the configured game."""
    if not 1 <= config.board.computer_level <= 10:
        raise ConfigError(f"board.computer_level must be 1..10, got {config.board.computer_level}")
    if not config.board.computer:
        return Computer(frozenset(), config.board.computer_level)
    names = [n.lower() for n in get_game(config.board.game, **config.board.options).player_names]
    seats = []
    for name in config.board.computer:
        if name.lower() not in names:
            raise ConfigError(f"board.computer: no player {name!r} in {config.board.game} "
                              f"(players: {', '.join(names)})")
        seats.append(names.index(name.lower()))
    return Computer(frozenset(seats), config.board.computer_level)


def resume_summary(computer: Computer, coach: Coach, session: GameSession,
                   other_boards: list[str], now: float) -> str:
    """What is resumed, in words: "against the computer, level 6, 4:12 – 3:58"."""
    parts: list[str] = []
    if computer.seats:
        parts.append(Text("against the computer, level {level}", level=computer.level))
    if other_boards:
        parts.append(Text("linked with {boards}", boards=", ".join(other_boards)))
    clock = session.game_clock
    if clock is not None:
        parts.append(" – ".join(format_clock(clock.remaining(i, now))
                                for i in range(len(clock.seats))))
    if coach.on:
        parts.append(Text("coach on"))
    return Text.join(", ", parts)  # (a Text: each page says it in its own language)


__all__ = ["CLOCK_PHASES", "COACH_FAILED", "COMPUTER_FAILED", "HAND_PAGE_WAIT_S", "HAND_STEP_S",
           "ClockSeat", "CoachSeat", "ComputerSeat", "Failures", "computer_from_config",
           "record_of", "resume_summary"]
