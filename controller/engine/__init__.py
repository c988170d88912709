"""The computer opponent: a search over the product's own rules, with levels.

``Engine(game, level).choose(pos)`` gives a :class:`~controller.engine.search.Result`
with the move to play.  Levels 1–10 limit depth, nodes and time and add deliberate noise at
the weak end, so a beginner can win; every level also stops at its time budget, so the
answer never takes longer than the level says (``LEVELS``).

``fairyboard bestmove`` and ``fairyboard play`` are the command-line faces of it.
"""

from __future__ import annotations

import time
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from controller.engine.evaluation import Evaluator, weights_for
from controller.engine.fog import SAMPLES
from controller.engine.human import Beginner, Style
from controller.engine.search import MATE, MATE_BOUND, Limits, Result, Search, SearchStopped
from controller.rules import DEFAULT_GAME, Game, Position, get_game

__all__ = ["DEFAULT_LEVEL", "FLOOR_CEILING", "FLOOR_WAIT", "KEPT_FLOOR", "LEVELS", "MATE",
           "VARIANT_CEILING",
           "Engine", "Evaluator", "Level", "Limits", "Result", "Search", "SearchStopped",
           "clock_budget", "machine_slowness", "weights_for"]


@dataclass(frozen=True)
class Level:
    """One playing strength: the deepest search, a time budget, a node cap and the noise.

    The node cap is what usually ends a middle level's search here, so the level plays the
    same moves for a seed whatever the machine's load; the time budget stays the longest a
    player waits (on a slower machine, such as a Raspberry Pi, it ends the search first).
    A fixed cap buys different depths in different games (about 130 moves a position in
    KaleidoChess, 9 in Lotus-39), so the cap never ends the search before ``floor`` — the
    deepest the level below may search — is complete: a level never plays shallower than
    the one below, in any game, unless its time runs out.  Where that depth does not fit
    the floor's budget in a game (levels 7–9 in the crowded games), the game's measured
    ceiling is the floor there (``floor_in``, ``FLOOR_CEILING``).
    """

    depth: int
    #: seconds here (where the levels were measured); the board's worker multiplies it by
    #: how many times slower its machine searches (``machine_slowness``: a Raspberry Pi 4
    #: about 8–10), so a level plays alike there, only slower
    movetime: float
    noise: int = 0  #: centipawns within which a weaker move may be chosen
    nodes: int | None = None  #: the most nodes one search may visit (None: no cap)
    floor: int = 0  #: the depth completed before the node cap may end the search
    #: fog of war (Lao Tzu): positions drawn from the view for a decision — the weak
    #: levels imagine fewer of the ways the hidden pieces may stand, so they walk into
    #: the defender they did not picture (``controller/engine/fog.py``)
    samples: int = SAMPLES
    #: a beginner's way of seeing the board (``controller/engine/human.py``): the level
    #: chooses as he does instead of searching (a game of hidden information still
    #: plays from its view, with the noise and samples above)
    style: Style | None = None
    #: seconds here (stretched by the machine's slowness as ``movetime`` is) the search
    #: of ``floor`` may take when that is longer than the budget: in a crowded position
    #: (KaleidoChess' 130–270 moves, Lùotuoqí's Cube) depth 3 costs up to six times the
    #: default level's 0.25 s, so the floor is waited for there rather than broken
    #: (0: the budget ends the floor search as any other)
    floor_wait: float = 0.0

    def budget(self, movetime: float | None = None, slowness: float = 1.0) -> float:
        """Seconds a search may take: the level's time stretched by the machine's
        ``slowness``, or a shorter ``movetime`` (a clock's share, real time) if given."""
        own = self.movetime * slowness
        return own if movetime is None else min(movetime, own)

    def floor_budget(self, movetime: float | None = None, slowness: float = 1.0) -> float:
        """Seconds the search of ``floor`` may take: the longer of the level's time and
        its ``floor_wait``, stretched by the machine's ``slowness``; never more than a
        ``movetime`` given (a clock's share is real time)."""
        own = max(self.movetime, self.floor_wait) * slowness
        return own if movetime is None else min(movetime, own)

    def floor_in(self, game: str, options: Mapping[str, Any] | None = None) -> int:
        """The depth this level completes before its cap may end the search in ``game``
        (played with ``options``): its ``floor``, but never past the game's
        ``FLOOR_CEILING`` (what the floor search completes on its budget in that game) —
        nor past the level's own depth, nor below ``KEPT_FLOOR``, which the ceilings leave
        as it was.  A variant with a ceiling of its own (``VARIANT_CEILING``: the dice's
        chance nodes) takes that one as measured, below ``KEPT_FLOOR`` too: there the
        wait would not reach the default level's depth, only cost its time."""
        variant = variant_ceiling(game, options)
        ceiling = variant if variant is not None else max(
            FLOOR_CEILING.get(game, self.floor), KEPT_FLOOR)
        return min(self.floor, self.depth, ceiling)


#: seconds (here) a capped level with a shorter budget may wait for its floor: over 100
#: random positions a game the dearest depth 3 — level 6's floor — took 1.6–1.8 s
#: (Lùotuoqí; 6–7 times level 6's 0.25 s), the dearest depth 2 0.77 s.  Levels 7 and 8
#: wait as long: their floors (depths 4 and 6) take longer still in those games, but
#: without the wait they stopped at depth 2 where level 6 now completes depth 3
#: (docs/engine.md, "Depth floor")
FLOOR_WAIT = 2.0

#: Noise falls steeply over levels 1–3, which look one ply ahead (level 1 plays almost at
#: random among reasonable moves); levels 3–6 then search a whole ply deeper each (depths
#: 1, 2, 3 and 4: a half-ply step, depth 3 against depth 3 and a little of 4, did not show
#: in self-play), under a node cap that does not stop the search before the level below's
#: depth is complete; the time budget doubles above the default; level 10 searches for
#: 4 s without a cap.  From a view (Lao Tzu) levels 1 and 2 also draw fewer positions
#: (one and two): the noise alone is averaged away by the vote over eight.  Level 3 draws
#: eight: with four, or two, its depth-1 searches lost to level 2 in self-play.
#: Levels 1 and 2 play as beginners (``Style``, ``controller/engine/human.py``): level 1
#: sees the opponent's captures from two cells away (not a Knight's jump), looks only at
#: the piece he moves nine times in ten and notices three in ten of his own captures; level
#: 2 sees four cells away, forgets now and then, notices most captures.
LEVELS: dict[int, Level] = {
    1: Level(1, 0.2, noise=400, samples=1,
             style=Style(horizon=2.0, overlook=0.9, noise=100, notice=0.3)),
    2: Level(1, 0.2, noise=150, samples=2,
             style=Style(horizon=4.0, overlook=0.3, noise=30, notice=0.8)),
    3: Level(1, 0.2, noise=50),
    4: Level(2, 0.2, nodes=3_000),
    5: Level(3, 0.2, nodes=4_500),
    6: Level(4, 0.25, nodes=6_000),
    7: Level(6, 0.5, nodes=15_000),
    8: Level(8, 1.0, nodes=40_000),
    9: Level(10, 2.0, nodes=100_000),
    10: Level(64, 4.0),
}
#: a capped level's floor is the depth of the level below (one home for that depth; in a
#: game never past its ``FLOOR_CEILING``), waited for up to ``FLOOR_WAIT`` where the
#: level's own time is shorter
LEVELS.update({n: replace(level, floor=LEVELS[n - 1].depth,
                          floor_wait=FLOOR_WAIT if level.movetime < FLOOR_WAIT else 0.0)
               for n, level in LEVELS.items() if level.nodes is not None})
DEFAULT_LEVEL = 6

#: per game, the deepest floor the floor search completes within its budget (every capped
#: level's ``floor_budget()`` is ``FLOOR_WAIT`` here) in at least 99 % of seeded random
#: positions; a level's floor in a game is the lower of the level below's depth and this
#: (``Level.floor_in``).  Data in ``floors.toml`` beside this file (the games are named
#: there, as data, not in code), not in values.toml (the evaluation's data): it is a fact
#: of the levels' budgets and the search's speed, measured again when either changes.
_FLOORS = tomllib.loads(Path(__file__).with_name("floors.toml").read_text(encoding="utf-8"))
FLOOR_CEILING: dict[str, int] = dict(_FLOORS["ceiling"])
#: a game's variant whose options make the floor dearer than the game's (KaleidoChess'
#: dice: every roll a chance node of six faces), its own ceiling: ``(game, option,
#: value)`` → depth, from ``floors.toml``'s ``[variant]`` (``"kaleidochess:dice=true"``)
def _variant_ceilings(table: Mapping[str, int]) -> dict[tuple[str, str, Any], int]:
    out = {}
    for key, depth in table.items():
        game, _, setting = key.partition(":")
        option, _, value = setting.partition("=")
        out[(game, option, tomllib.loads(f"v = {value}")["v"])] = depth  # a TOML value
    return out


VARIANT_CEILING: dict[tuple[str, str, Any], int] = _variant_ceilings(
    _FLOORS.get("variant", {}))


def variant_ceiling(game: str, options: Mapping[str, Any] | None) -> int | None:
    """The lowest ceiling a variant of ``game`` played with ``options`` has of its own
    (``VARIANT_CEILING``), or None: the game's own applies."""
    found = [depth for (name, option, value), depth in VARIANT_CEILING.items()
             if name == game and options and options.get(option) == value]
    return min(found) if found else None
#: the floor no ceiling lowers: the default level's (depth 3, held in 100 of 100 check
#: positions of every game by waiting for it; in Lùotuoqí the ceiling positions gave 2 —
#: depth 3 in 91 of 100 within the wait — and lowering the default level's floor, which
#: would stop it at depth 2 wherever depth 3 takes longer than its 0.25 s, is not done
#: by a ceiling measured on a slower machine under load — the ceilings were measured on
#: an AMD EPYC at load average 8–16, the morning's 100 of 100 on an Intel Xeon:
#: docs/engine.md, "Depth floor")
KEPT_FLOOR = LEVELS[DEFAULT_LEVEL].floor

#: process CPU seconds the calibration search (``machine_slowness``) took here, where the
#: levels were measured
CALIBRATION_SECONDS = 0.030
#: the most a machine's slowness is counted (a level 10 move then takes about a minute)
MAX_SLOWNESS = 16.0


def calibration_search() -> float:
    """Process CPU seconds of a fixed search: the default game's start position to depth 3
    (Lùotuoqí: about 1,400 nodes of move generation, make and unmake and evaluation —
    what a level spends its time on)."""
    game = get_game(DEFAULT_GAME)
    started = time.process_time()
    Search(game, seed=0).best_move(game.start(), Limits(depth=3))
    return time.process_time() - started


def machine_slowness(repeats: int = 3) -> float:
    """How many times longer this machine takes for a search than the one ``LEVELS`` was
    measured on (the fastest of ``repeats`` calibration searches; never below 1, at most
    ``MAX_SLOWNESS``): a Raspberry Pi gets the time the levels' searches need there, so
    level 6 still completes its depth 4 and answers in about 2 s rather than 0.25 s."""
    fastest = min(calibration_search() for _ in range(max(1, repeats)))
    return max(1.0, min(MAX_SLOWNESS, fastest / CALIBRATION_SECONDS))


def clock_budget(remaining: float, increment: float = 0.0, moves_to_go: int | None = None,
                 ) -> float:
    """Seconds to spend on this move with ``remaining`` on the clock (never the last half)."""
    share = remaining / (moves_to_go if moves_to_go else 30) + 0.8 * increment
    return max(0.01, min(share, remaining / 2))


class Engine:
    """A computer player for one game at one level (deterministic for a given seed)."""

    def __init__(self, game: Game, level: int = DEFAULT_LEVEL, seed: int = 0,
                 clock: Callable[[], float] = time.monotonic,
                 opponents: str | None = None, slowness: float = 1.0) -> None:
        if level not in LEVELS:
            raise ValueError(f"level must be a whole number from 1 to {max(LEVELS)}, "
                             f"got {level!r}")
        self.game = game
        self.level = LEVELS[level]
        #: how many times slower this machine searches than the levels' (their time
        #: budgets are stretched by it; ``machine_slowness``)
        self.slowness = slowness
        #: ``opponents``: how 3–4 players' opponents are searched ("paranoid" or "brs";
        #: None: the search's default)
        self.search = Search(game, seed=seed, clock=clock, opponents=opponents)
        self.beginner = (Beginner(game, self.level.style, self.search.rng,
                                  self.search.evaluator)
                         if self.level.style is not None else None)

    def limits(self, movetime: float | None = None, nodes: int | None = None) -> Limits:
        """The level's limits, with a shorter time budget (a clock) or fewer nodes when
        given."""
        level = self.level
        budget = level.budget(movetime, self.slowness)
        caps = [n for n in (nodes, level.nodes) if n is not None]
        return Limits(depth=level.depth, movetime=budget, nodes=min(caps) if caps else None,
                      noise=level.noise)

    def choose(self, pos: Position, movetime: float | None = None,
               nodes: int | None = None, stop=None, view: bool = False) -> Result:
        """The move to play in ``pos`` (``Result.move`` is None when there is none).

        A level with a node cap first searches its floor in this game
        (``Level.floor_in``) without the cap — for up to
        ``Level.floor_wait`` where its budget is shorter — then on with the nodes and the
        budget's time left (the table remembers the first search, so little is done
        twice).  A cap the caller gives (``nodes``) is kept as given.  ``view``: in a game
        with hidden information, decide as the board's computer does, from the mover's
        view and his earlier views only (:meth:`choose_from_view`)."""
        if view and self.game.hidden_information:
            return self.choose_from_view(pos, movetime)
        if self.beginner is not None:
            return self.choose_as_beginner(pos)
        limits = self.limits(movetime, nodes)
        floor = self.level.floor_in(self.game.name, self.game.options)
        if nodes is not None or limits.nodes is None or not floor:
            return self.search.best_move(pos, limits, stop)
        # the floor may take longer than the budget (``floor_wait``): a level plays
        # at least as deep as the one below, in every game, also where that is dear
        sure = self.search.best_move(pos, replace(
            limits, depth=floor, nodes=None,
            movetime=self.level.floor_budget(movetime, self.slowness)), stop)
        nodes_left = limits.nodes - sure.nodes
        time_left = limits.movetime - sure.seconds
        if (nodes_left <= 0 or time_left <= sure.seconds or sure.depth in (0, limits.depth)
                or abs(sure.score) >= MATE_BOUND or (stop is not None and stop())):
            # no nodes left; less time left than the floor took (the next depth costs
            # several times the last, so little of it would be searched); one move; as
            # deep as asked; a mate; or a stop request
            return sure
        # on also when the floor is not complete because its next depth was not expected
        # to fit in the time: the time left is still used
        rest = self.search.best_move(pos, replace(limits, movetime=time_left,
                                                  nodes=nodes_left), stop)
        best = rest if rest.depth >= sure.depth else sure
        return replace(best, nodes=sure.nodes + rest.nodes,
                       seconds=sure.seconds + rest.seconds)

    def choose_as_beginner(self, pos: Position) -> Result:
        """A beginner level's move (``controller/engine/human.py``); a die's roll is the
        search's, a virtual die.  The result's score is the position's evaluation."""
        moves = self.game.legal_moves(pos)
        if not moves or moves[0].kind == "roll":
            return self.search.best_move(pos, self.limits())
        started = time.monotonic()
        move = self.beginner.choose(pos, moves)
        return Result(move, self.search.evaluator.score(pos, self.game.ply_mover(pos)), 1,
                      0, time.monotonic() - started, [move])

    def choose_from_view(self, pos: Position, movetime: float | None = None) -> Result:
        """The move the mover would choose knowing only what he sees (the fog engine,
        ``controller/engine/fog.py``): the first of his ranked tries that is legal in
        ``pos`` — as at the board, where a refused try is followed by the next.  The
        result has no score: the fog engine ranks moves, it does not value the truth."""
        from controller.engine.fog import choose_try, earlier_views, sample_limits

        started = time.monotonic()
        legal = self.game.legal_moves(pos)
        if not legal:
            return Result(None, 0, 0, 0, 0.0)
        mover = self.game.ply_mover(pos)
        move = choose_try(self.game, self.game.player_view(pos, mover), legal,
                          sample_limits(self.level, movetime, self.slowness),
                          seed=self.search.rng.randrange(1 << 30),
                          clock=self.search.clock, samples=self.level.samples,
                          memory=earlier_views(self.game, pos, mover))
        return Result(move, 0, 0, 0, time.monotonic() - started, [move])
