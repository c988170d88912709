"""Find mate-in-one and mate-in-two positions for every game by exhaustive search, store
them as data, and measure the engine solving them.

Mate in one: random seeded games are played; in every position each legal move is tried
and the position is kept when at least one move ends the game with the mover winning.
The file ``tests/data/tactics/GAME.txt`` gets one line per position: the position text, a
tab, and every mating move in the game's notation (space separated).

Mate in two (``--mate 2``): the same seeded random play; where the mover has a mate in
one, the position at that player's previous turn is examined (random play rarely walks
into a forced mate elsewhere).  It is kept when the mover has no mate in one and a first
move after which *every* reply of every other player (three players: both opponents,
the "paranoid" meaning of forced) leaves a mate in one — all exhaustively over the game's
legal moves, through the ``Game`` contract only.  A "turn" is all the consecutive plies of
one player (Lùotuoqí's Cube gives two).  ``tests/data/tactics/mate2/GAME.txt`` has the same
line format as the mate-in-one files, after ``#`` header lines saying how it was made;
every first move that forces the mate is listed.  The position text is the whole position:
Lao Tzu's set is a perfect-information puzzle, like its mate-in-one set.

``--solve`` runs the engine at level 10 with a 2 s budget on every position of every set
and writes the table into ``docs/engine.md`` (between the ``tactics-table`` markers);
with ``--games``/``--mate`` only those sets are solved again, the other rows stay.

    python -m benchmarks.engine_tactics [--count 50] [--seed 1] [--mate 2] [--cpu 600]
    python -m benchmarks.engine_tactics --solve
"""

from __future__ import annotations

import argparse
import datetime
import math
import random
import re
import time
from collections.abc import Callable
from pathlib import Path

from controller.engine import Engine, Limits, Search, weights_for
from controller.rules import GAMES, RulesError, get_game

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "tactics"
OUT_MATE2 = OUT / "mate2"
DOCS = ROOT / "docs" / "engine.md"
#: seconds per move when solving, and the level
SOLVE_MOVETIME, SOLVE_LEVEL = 2.0, 10
#: plies one mate-in-two check may try before its position is dropped
MAX_PLIES = 200_000
#: --attack: how often the player not to move gets the Cube (with the mover's Cube the
#: exhaustive check took ten times longer a position and found fewer: 2 mates in 49 s of
#: CPU against 5 in 4 s with the defender's, seed 77)
DEFENDER_HOLDS = 0.85
#: the games and options the tactics sets cover (file name → game, options)
SETS = {name: (name, {}) for name in GAMES}
SETS["kaleidochess-3"] = ("kaleidochess", {"players": 3})


def mates(game, pos) -> list:
    mover = game.ply_mover(pos)
    found = []
    for move in game.legal_moves(pos):
        if move.kind == "roll":
            return []
        pos.push(move)
        outcome = game.outcome(pos)
        pos.pop()
        if outcome is not None and outcome.winners == (mover,):
            found.append(move)
    return found


def collect(name: str, count: int, seed: int) -> list[str]:
    game_name, options = SETS[name]
    game = get_game(game_name, **options)
    rng = random.Random(seed)
    lines: list[str] = []
    seen: set[str] = set()
    games = 0
    while len(lines) < count and games < 20_000:
        games += 1
        pos = game.start()
        for _ in range(rng.randint(10, 160)):
            moves = game.legal_moves(pos)
            if not moves:
                break
            found = mates(game, pos)
            text = game.position_text(pos)
            if found and text not in seen:
                seen.add(text)
                lines.append(text + "\t" + " ".join(game.move_text(pos, m) for m in found))
                break
            # prefer captures now and then so that material thins out and mates appear
            captures = [m for m in moves if m.captures]
            move = rng.choice(captures if captures and rng.random() < 0.5 else moves)
            pos.push(move)
    return lines


class TooLong(Exception):
    """An exhaustive check went past its ply budget: the position is not used."""


class Exhaustive:
    """Forced wins by trying every legal move (``Game`` contract only), with a budget of
    plies per check so that one huge tree (Lùotuoqí's Cube on both sides) cannot eat the
    whole run; a check over budget drops the position, it never guesses.

    Three things make it cheaper without changing any answer: results are remembered per
    position and move counter (a Cube turn's two plies in either order meet again); at
    the other players' nodes the reply that refuted a sibling is tried first (most
    candidates fall to the same defence); and where only mate decides the game
    (``mate_only`` in ``values.toml``) the last ply of the winner's last turn is looked at
    only when it gives check — a move that leaves nobody in check cannot win such a game."""

    def __init__(self, game, max_plies: int | None = None, mate_only: bool = False) -> None:
        self.game = game
        self.max_plies = max_plies
        self.mate_only = mate_only
        self.plies = 0
        self._known: dict[tuple, bool] = {}
        self._refuters: dict[tuple[int, int], object] = {}

    def _push(self, pos, move) -> None:
        self.plies += 1
        if self.max_plies is not None and self.plies > self.max_plies:
            raise TooLong
        pos.push(move)

    def forced_win(self, pos, root: int, turns: int, in_turn: bool = False,
                   waited: int = 0) -> bool:
        """Whether ``root`` wins within ``turns`` of its own turns whatever the others
        play.  ``in_turn``: ``root`` made the ply before, so its next ply continues that
        turn (a turn is all the consecutive plies of one player).  ``waited``: plies of
        the others since; past two rounds ``root`` is taken to be out (no win)."""
        key = (pos.keys[-1], pos.halfmove, root, turns, in_turn, waited) if pos.keys else None
        if key is not None:
            known = self._known.get(key)
            if known is not None:
                return known
        won = self._forced_win(pos, root, turns, in_turn, waited)
        if key is not None:
            self._known[key] = won
        return won

    def _forced_win(self, pos, root: int, turns: int, in_turn: bool, waited: int) -> bool:
        game = self.game
        outcome = game.outcome(pos)
        if outcome is not None:
            return outcome.winners == (root,)
        moves = game.legal_moves(pos)
        if not moves or moves[0].kind == "roll":
            return False
        if game.ply_mover(pos) == root:
            left = turns if in_turn else turns - 1
            if left < 0:
                return False
            for move in moves:
                self._push(pos, move)
                if left == 0 and self.mate_only:
                    after = game.ply_mover(pos)
                    # the last turn's last ply: only a check can be mate
                    won = (after == root or game.in_check(pos, after)) and self.forced_win(
                        pos, root, left, True)
                else:
                    won = self.forced_win(pos, root, left, True)
                pos.pop()
                if won:
                    return True
            return False
        if waited >= 2 * game.players:
            return False
        slot = (turns, waited)
        refuter = self._refuters.get(slot)
        if refuter is not None and refuter in moves:
            moves = [refuter] + [m for m in moves if m != refuter]
        for move in moves:
            self._push(pos, move)
            won = self.forced_win(pos, root, turns, False, waited + 1)
            pos.pop()
            if not won:
                self._refuters[slot] = move
                return False
        return True

    def mates_in_two(self, pos) -> list:
        """Every first move of the mover that forces a mate at its next turn; empty when
        there is a mate in one already (then it is no mate-in-two problem).  Raises
        :class:`TooLong` past the budget (``pos`` is then left part-way: use a copy)."""
        self.plies = 0
        self._known.clear()
        game = self.game
        root = game.ply_mover(pos)
        if game.outcome(pos) is not None or self.forced_win(pos, root, 1):
            return []
        found = []
        for move in game.legal_moves(pos):
            if move.kind == "roll":
                return []
            self._push(pos, move)
            won = self.forced_win(pos, root, 1, True)  # the rest of this turn, the next
            pos.pop()
            if won:
                found.append(move)
        return found



def mate2_line(game, exhaustive, text: str, listed: int | None = None) -> str | None:
    """The set's line for position ``text`` (its text, a tab, the first moves that mate in
    two) when it is a mate in two — and, given its number of ``listed`` moves, one that
    not every move wins; None otherwise.  Raises ``TooLong`` when the exhaustive search
    gives up."""
    found = exhaustive.mates_in_two(game.parse_position(text))
    if not found or (listed is not None and len(found) >= listed):
        return None
    problem = game.parse_position(text)
    return text + "\t" + " ".join(game.move_text(problem, m) for m in found)

def collect_mate2_sparse(name: str, count: int, seed: int, cpu: float,
                         max_plies: int = 50_000, most: int = 6, tokens_to_other: bool = False,
                         others_most: int | None = None) -> tuple[list[str], int, int]:
    """Mate-in-two lines from near-end positions: seeded random play (10–80 plies,
    captures preferred half the time), then pieces taken off at random (``thin_out``:
    never a royal one, and only what the game's own validation accepts) until each
    player has at most a few (random, 0 to ``most``; ``others_most`` for the players not
    to move) non-royal pieces left; ``tokens_to_other``: the next player then holds every
    off-board token.  Every such position is checked exhaustively
    (``Exhaustive.mates_in_two``) and kept when it is a puzzle: no mate in one, a forced
    mate in two, and at least one first move that does not force it.
    Returns the lines, the positions tried and those dropped over ``max_plies``."""
    game_name, options = SETS[name]
    game = get_game(game_name, **options)
    keep = _royal_kinds(game)
    exhaustive = Exhaustive(game, max_plies, weights_for(game).mate_only)
    rng = random.Random(seed)
    lines: list[str] = []
    seen: set[str] = set()
    tried = dropped = 0
    ends = time.process_time() + cpu
    while len(lines) < count and time.process_time() < ends:
        pos = game.start()
        for _ in range(rng.randint(10, 80)):
            moves = game.legal_moves(pos)
            if not moves or moves[0].kind == "roll" or game.outcome(pos) is not None:
                break
            captures = [m for m in moves if m.captures]
            pos.push(rng.choice(captures if captures and rng.random() < 0.5 else moves))
        if game.outcome(pos) is not None:
            continue
        pos = game.parse_position(game.position_text(pos))
        mover = game.ply_mover(pos)
        limit = {p: rng.randint(0, most if p == mover or others_most is None else others_most)
                 for p in range(game.players)}
        for _ in range(200):
            left = _non_royal(pos, keep)
            over = [p for p in range(game.players) if left.get(p, 0) > limit[p]]
            if not over:
                break
            pos = thin_out(game, pos, rng, keep | {k for k in _kinds(pos) if k[0] not in over})
        if tokens_to_other:  # the next player holds every off-board token (the Cube)
            for token in list(pos.tokens):
                pos.set_token(token, (game.ply_mover(pos) + 1) % game.players)
            try:
                pos = game.parse_position(game.position_text(pos))
            except RulesError:  # the token cannot be the mover's now (mid-turn)
                continue
        text = game.position_text(pos)
        if text in seen or game.outcome(pos) is not None:
            continue
        seen.add(text)
        tried += 1
        moves = game.legal_moves(pos)
        if not moves or moves[0].kind == "roll" or mates(game, pos):
            continue
        try:
            line = mate2_line(game, exhaustive, text, len(moves))
        except TooLong:
            dropped += 1
            continue
        if line is not None:
            lines.append(line)
    return lines, tried, dropped


def collect_mate2_attack(name: str, count: int, seed: int, cpu: float,
                         max_plies: int = 50_000, most: int = 4, others_most: int = 2,
                         found_one: Callable[[list[str], int, int], None] | None = None,
                         ) -> tuple[list[str], int, int]:
    """Mate-in-two lines from positions built around a King under attack: seeded random
    play (10-80 plies) that prefers captures and moves toward the enemy King; then the
    pieces farthest from the King of the player not to move are taken off first (each
    side down to a random 1 to ``most`` attackers, 0 to ``others_most`` defenders besides
    the royal pieces); each attacker is then put, one time in two, on a random empty cell
    near that King (within 2.5 cells); the Cube (every off-board token) goes to the player
    not to move ``DEFENDER_HOLDS`` of the time, else to the mover.  Only what the game's
    own position text reads back as playable is used.  Every such position is checked
    exhaustively (``Exhaustive.mates_in_two``) and kept when it is a puzzle: no mate in
    one, a forced mate in two, and at least one first move that does not force it;
    ``found_one(lines, tried, dropped)`` is called after each.
    Returns the lines, the positions tried and those dropped over ``max_plies``."""
    game_name, options = SETS[name]
    game = get_game(game_name, **options)
    keep = _royal_kinds(game)
    weights = weights_for(game)
    # the royal piece attacked: a royal kind worth nothing (the King), else any royal one
    targets = {k for k in keep if weights.values.get(k[1]) == 0} or keep
    centres = game.geometry.centres
    exhaustive = Exhaustive(game, max_plies, weights.mate_only)
    rng = random.Random(seed)
    lines: list[str] = []
    seen: set[str] = set()
    tried = dropped = 0
    ends = time.process_time() + cpu

    def distance(a: int, b: int) -> float:
        return math.dist(centres[a], centres[b])

    def king_of(pos, player: int) -> int:
        return next((c for c, p in enumerate(pos.board) if p is not None
                     and p.owner == player and (p.owner, p.kind) in targets), -1)

    while len(lines) < count and time.process_time() < ends:
        pos = game.start()
        for _ in range(rng.randint(10, 80)):
            moves = game.legal_moves(pos)
            if not moves or moves[0].kind == "roll" or game.outcome(pos) is not None:
                break
            mover = game.ply_mover(pos)
            aim = king_of(pos, (mover + 1) % game.players)
            roll = rng.random()
            captures = [m for m in moves if m.captures]
            if captures and roll < 0.35:
                moves = captures
            elif aim >= 0 and roll < 0.7:
                moves = sorted((m for m in moves if m.target >= 0),
                               key=lambda m: distance(m.target, aim))[:3] or moves
            pos.push(rng.choice(moves))
        if game.outcome(pos) is not None:
            continue
        pos = game.parse_position(game.position_text(pos))
        mover = game.ply_mover(pos)
        defender = (mover + 1) % game.players
        king = king_of(pos, defender)
        if king < 0:
            continue
        limit = {p: rng.randint(1, most) if p == mover else rng.randint(0, others_most)
                 for p in range(game.players)}
        for _ in range(200):
            left = _non_royal(pos, keep)
            over = [p for p in range(game.players) if left.get(p, 0) > limit[p]]
            if not over:
                break
            cells = [c for c, p in enumerate(pos.board) if p is not None
                     and p.owner in over and (p.owner, p.kind) not in keep]
            far = max(cells, key=lambda c: distance(c, king))
            pos = thin_out(game, pos, rng, keep, far if rng.random() < 0.75 else None)
        near = [c for c, p in enumerate(pos.board)
                if p is None and distance(c, king) <= 2.5]
        trial = pos.copy()
        for c, piece in enumerate(pos.board):
            if (piece is not None and piece.owner == mover and (mover, piece.kind) not in keep
                    and near and rng.random() < 0.5):
                to = near.pop(rng.randrange(len(near)))
                trial.put(c, None)
                trial.put(to, piece)
        holder = defender if rng.random() < DEFENDER_HOLDS else mover
        for token in list(trial.tokens):
            trial.set_token(token, holder)
        try:
            pos = game.parse_position(game.position_text(trial))
            game.check_playable(pos)
        except RulesError:  # refused (a castling right without its piece, a side in check)
            continue
        text = game.position_text(pos)
        if text in seen or game.outcome(pos) is not None:
            continue
        seen.add(text)
        tried += 1
        moves = game.legal_moves(pos)
        if not moves or moves[0].kind == "roll":
            continue
        try:
            line = mate2_line(game, exhaustive, text, len(moves))
        except TooLong:
            dropped += 1
            continue
        if line is not None:
            lines.append(line)
            print(f"  {len(lines)}: {lines[-1]}  ({tried} tried, "
                  f"{time.process_time() - ends + cpu:.0f} s CPU)", flush=True)
            if found_one is not None:
                found_one(lines, tried, dropped)
    return lines, tried, dropped


def _non_royal(pos, keep: set[tuple[int, str]]) -> dict[int, int]:
    counts: dict[int, int] = {}
    for piece in pos.board:
        if piece is not None and (piece.owner, piece.kind) not in keep:
            counts[piece.owner] = counts.get(piece.owner, 0) + 1
    return counts


def _kinds(pos) -> set[tuple[int, str]]:
    return {(p.owner, p.kind) for p in pos.board if p is not None}


def _previous_turn(history: list[tuple[int, str]], player: int) -> str | None:
    """The position text at the start of ``player``'s turn before the last other ply."""
    j = len(history) - 1
    while j >= 0 and history[j][0] != player:
        j -= 1
    while j >= 1 and history[j - 1][0] == player:
        j -= 1  # the first ply of that turn
    return history[j][1] if j >= 0 else None


def _royal_kinds(game) -> set[tuple[int, str]]:
    """(owner, kind) that a player has exactly one of at the start (the King, the Wazir):
    never taken off by thinning, so a thinned position keeps every royal piece."""
    counts: dict[tuple[int, str], int] = {}
    for piece in game.start().board:
        if piece is not None:
            key = (piece.owner, piece.kind)
            counts[key] = counts.get(key, 0) + 1
    return {key for key, n in counts.items() if n == 1}


def thin_out(game, pos, rng: random.Random, keep: set[tuple[int, str]],
             cell: int | None = None):
    """``pos`` with one random piece (or the one on ``cell``) taken off (not a royal one,
    see ``_royal_kinds``), as the game's own position text reads it back — or ``pos``
    unchanged when the game refuses that position (a castling right without its Rook, a
    side left holding no castle) or it has ended."""
    cells = [c for c, p in enumerate(pos.board)
             if p is not None and (p.owner, p.kind) not in keep]
    if not cells:
        return pos
    if cell is None or cell not in cells:
        cell = rng.choice(cells)
    trial = pos.copy()
    trial.put(cell, None)
    try:
        thinned = game.parse_position(game.position_text(trial))
        game.check_playable(thinned)
    except RulesError:  # the game's own validation refused it: keep the position
        return pos
    if game.outcome(thinned) is not None or not game.legal_moves(thinned):
        return pos
    return thinned


def collect_mate2(name: str, count: int, seed: int, cpu: float,
                  max_plies: int = MAX_PLIES) -> tuple[list[str], int, int]:
    """Mate-in-two lines for ``name`` (at most ``cpu`` seconds of CPU), games played and
    positions dropped because their check went past ``max_plies``."""
    game_name, options = SETS[name]
    game = get_game(game_name, **options)
    exhaustive = Exhaustive(game, max_plies, weights_for(game).mate_only)
    dropped = 0
    rng = random.Random(seed)
    lines: list[str] = []
    seen: set[str] = set()
    games = 0
    ends = time.process_time() + cpu
    while len(lines) < count and time.process_time() < ends:
        games += 1
        pos = game.start()
        history: list[tuple[int, str]] = []  # (who plies, position text) before each ply
        for _ in range(rng.randint(10, 200)):
            moves = game.legal_moves(pos)
            if not moves or moves[0].kind == "roll" or game.outcome(pos) is not None:
                break
            mover = game.ply_mover(pos)
            if mates(game, pos):
                text = _previous_turn(history, mover)
                if text is not None and text not in seen:
                    seen.add(text)
                    try:
                        line = mate2_line(game, exhaustive, text)
                    except TooLong:
                        line, dropped = None, dropped + 1
                    if line is not None:
                        lines.append(line)
                break
            history.append((mover, game.position_text(pos)))
            captures = [m for m in moves if m.captures]
            move = rng.choice(captures if captures and rng.random() < 0.5 else moves)
            pos.push(move)
    return lines, games, dropped


def _appended(earlier: str, name: str, header: list[str], lines: list[str], command: str,
              ) -> tuple[list[str], list[str]]:
    """The set ``earlier`` (a file's text) with this run's new positions after it: one first
    line counting them all, then each run's header (the earlier ones first, as they were)."""
    old = earlier.splitlines()
    kept = [line for line in old if line and not line.startswith("#")]
    texts = {line.split("\t")[0] for line in kept}
    added = [line for line in lines if line.split("\t")[0] not in texts]
    notes = [line for line in old if line.startswith("#")]
    if notes and notes[0].startswith(f"# {name}: mate in two, ") and "; runs:" in notes[0]:
        notes = notes[1:]  # the count line of an earlier append
    total = len(kept) + len(added)
    first = (f"# {name}: mate in two, {total} positions; runs: the earlier ones below, then "
             f"{len(added)} new from `{command}` (last).")
    run = [header[0].replace(f"mate in two, {len(lines)} positions",
                             f"mate in two, {len(added)} more positions"), *header[1:]]
    return [first, *notes, *run], kept + added


def read_set(path: Path) -> list[tuple[str, list[str]]]:
    """(position text, solving moves) per line of a tactics file; ``#`` lines are notes."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            text, moves = line.split("\t")
            out.append((text, moves.split()))
    return out


def solve(name: str, path: Path) -> tuple[int, int, float, float]:
    """Solved, total, slowest wall-clock and slowest CPU seconds of the engine on a set
    (its budget is process CPU time: the machine is shared).  For a position not solved,
    the depth the search reached and, searched again without the time limit (up to
    ``DIAGNOSE_CPU`` s), the depth at which it finds the mate."""
    game_name, options = SETS[name]
    game = get_game(game_name, **options)
    solved, total, wall, cpu = 0, 0, 0.0, 0.0
    for text, moves in read_set(path):
        pos = game.parse_position(text)
        t, c = time.monotonic(), time.process_time()
        # a fresh engine for every position, as the board's worker thinks every move
        # (``controller.opponent.think``): one engine kept from position to position
        # ordered each search by the history of unrelated ones
        engine = Engine(game, level=SOLVE_LEVEL, clock=time.process_time)
        result = engine.choose(pos, movetime=SOLVE_MOVETIME)
        move = result.move
        wall = max(wall, time.monotonic() - t)
        cpu = max(cpu, time.process_time() - c)
        total += 1
        ok = move is not None and game.move_text(pos, move) in moves
        solved += ok
        if not ok:
            print(f"  not solved: {name} {text} played {move and game.move_text(pos, move)} "
                  f"(depth {result.depth} in {SOLVE_MOVETIME:g} s); {mate_depth(game, text)}",
                  flush=True)
    return solved, total, wall, cpu


#: CPU seconds a position not solved is searched again to find the depth its mate needs
DIAGNOSE_CPU = 20.0


def mate_depth(game, text: str) -> str:
    """At what depth a fresh search without the 2 s limit finds the mate in ``text``."""
    pos = game.parse_position(text)
    c = time.process_time()
    result = Search(game, clock=time.process_time).best_move(
        pos, Limits(movetime=DIAGNOSE_CPU))
    spent = time.process_time() - c
    if result.mate_in is not None and result.mate_in > 0:
        return (f"mate found at depth {result.depth}: {result.nodes:,} nodes, "
                f"{spent:.1f} s CPU")
    return f"no mate found in {spent:.0f} s CPU (depth {result.depth}, {result.nodes:,} nodes)"


def solve_all(names: list[str], mates: tuple[int, ...] = (1, 2)) -> list[str]:
    """Table rows (markdown) for every set found among ``names`` and ``mates``."""
    rows = []
    for mate, folder in ((1, OUT), (2, OUT_MATE2)):
        if mate not in mates:
            continue
        for name in names:
            path = folder / f"{name}.txt"
            if not path.exists():
                continue
            solved, total, wall, cpu = solve(name, path)
            rows.append(f"| {name} | {mate} | {solved} | {total} | {wall:.2f} | {cpu:.2f} |")
            print(rows[-1], flush=True)
    return rows


TABLE_HEAD = ["| tactics set | mate in | solved | of | slowest answer (s, wall) "
              "| slowest answer (s, CPU) |", "|---|---|---|---|---|---|"]


def write_table(rows: list[str]) -> None:
    """Put ``rows`` into the table between the ``tactics-table`` markers of docs/engine.md:
    a row replaces the one of the same set and mate, the other rows stay (a run may
    solve only some sets); mate in one first, then mate in two, in ``SETS`` order."""
    text = DOCS.read_text(encoding="utf-8")
    pattern = re.compile(r"(<!-- tactics-table -->\n)(.*?)(\n<!-- /tactics-table -->)", re.S)
    found = pattern.search(text)
    if not found:
        raise SystemExit("docs/engine.md has no <!-- tactics-table --> markers")

    def key(row: str) -> tuple[str, int]:
        cells = [c.strip() for c in row.strip("|").split("|")]
        return cells[0], int(cells[1])

    table = {key(r): r for r in found.group(2).splitlines()[2:] if r.startswith("|")}
    table.update({key(r): r for r in rows})
    order = {name: i for i, name in enumerate(SETS)}
    ordered = sorted(table, key=lambda k: (k[1], order.get(k[0], len(order)), k[0]))
    body = "\n".join(TABLE_HEAD + [table[k] for k in ordered])
    DOCS.write_text(pattern.sub(lambda m: m.group(1) + body + m.group(3), text),
                    encoding="utf-8")


def collect_set(args: argparse.Namespace, name: str, path: Path) -> None:
    """Collect one mate-in-two set as ``args`` say and write it to ``path`` with a header
    saying how it was made (with ``--attack`` after every position found, so a run that is
    stopped keeps what it found, and its header says how far it got)."""
    started = time.process_time()
    earlier = path.read_text(encoding="utf-8") if args.append and path.exists() else None
    command = (f"python -m benchmarks.engine_tactics --mate 2 --seed {args.seed} "
               f"--count {args.count} --cpu {args.cpu:g}")
    if args.max_plies != MAX_PLIES:
        command += f" --max-plies {args.max_plies}"
    checked = ["# Each searched exhaustively: no mate in one; after each listed first move "
               "every reply of every other player allows a mate; and at least one first "
               "move does not force it."]
    if args.attack is not None:
        others = 2 if args.others_most is None else args.others_most
        command += f" --attack {args.attack} --others-most {others}"

        def how(tried: int) -> list[str]:
            return [f"# {tried} positions tried, built around a King under attack: seeded "
                    "random play (10-80 plies) preferring captures and moves toward the enemy "
                    "King; then the pieces farthest from the King of the player not to move",
                    f"# taken off first until the mover has 1-{args.attack} and the other "
                    f"0-{others} pieces besides the kinds a player starts with only one of (the "
                    "King, the Wazir, a lone Tower: never taken off); each attacker put, one "
                    "time in two, on a random empty cell within 2.5 cells of that King;",
                    f"# every off-board token (the Cube) to the player not to move "
                    f"{DEFENDER_HOLDS:.0%} of the time, else to the mover; only what the game's "
                    "own position text reads back as playable.", *checked]
    elif args.sparse is None:
        def how(tried: int) -> list[str]:
            return [f"# {tried} seeded random-play games (captures preferred half the time); "
                    "where the mover had a mate in one, the position at its previous turn was",
                    "# searched exhaustively: no mate in one, and after each listed first move "
                    "every reply of every other player allows a mate."]
    else:
        command += f" --sparse {args.sparse}" + (
            f" --others-most {args.others_most}" if args.others_most is not None
            else "") + (" --tokens-to-other" if args.tokens_to_other else "")

        def how(tried: int) -> list[str]:
            return [f"# {tried} near-end positions tried: seeded random play (10-80 plies), "
                    "then random pieces taken off (never one a player has only one of, such "
                    "as its King or Wazir;",
                    "# only what the game's own position text reads back as playable) until "
                    f"each player has at most a random 0-{args.sparse} such pieces"
                    + (f" (0-{args.others_most} for those not to move)"
                       if args.others_most is not None else "")
                    + ("; every off-board token (the Cube) handed to the player not to move"
                       if args.tokens_to_other else "") + ".", *checked]

    def write(lines: list[str], tried: int, dropped: int) -> None:
        spent = time.process_time() - started
        header = [f"# {name}: mate in two, {len(lines)} positions; made by `{command}` on "
                  f"{datetime.date.today()}", *how(tried),
                  f"# {dropped} positions dropped: their check went past {args.max_plies:,} "
                  "plies.",
                  f"# CPU: {spent:.0f} s.  Line: position text, a tab, every first move that "
                  "forces the mate."]
        if earlier is not None:
            header, lines = _appended(earlier, name, header, lines, command)
        path.write_text("\n".join(header + lines) + "\n", encoding="utf-8")

    if args.attack is not None:
        lines, tried, dropped = collect_mate2_attack(
            name, args.count, args.seed, args.cpu, args.max_plies, args.attack, others, write)
    elif args.sparse is None:
        lines, tried, dropped = collect_mate2(name, args.count, args.seed, args.cpu,
                                              args.max_plies)
    else:
        lines, tried, dropped = collect_mate2_sparse(
            name, args.count, args.seed, args.cpu, args.max_plies, args.sparse,
            args.tokens_to_other, args.others_most)
    write(lines, tried, dropped)
    print(f"{name}: {len(lines)} mate-in-two positions, {tried} tried, {dropped} dropped, "
          f"{time.process_time() - started:.0f} s CPU", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", nargs="*", default=list(SETS))
    parser.add_argument("--mate", type=int, choices=(1, 2),
                        help="collect: mate in 1 (default) or 2; --solve: only these sets")
    parser.add_argument("--cpu", type=float, default=600.0,
                        help="mate in two: CPU seconds at most per set")
    parser.add_argument("--sparse", type=int, metavar="MOST",
                        help="mate in two from near-end positions: at most MOST non-royal "
                             "pieces a player (collect_mate2_sparse)")
    parser.add_argument("--attack", type=int, metavar="MOST",
                        help="mate in two from positions built around a King under attack: "
                             "1 to MOST attackers (collect_mate2_attack)")
    parser.add_argument("--others-most", type=int,
                        help="with --sparse or --attack: at most this many for the players "
                             "not to move")
    parser.add_argument("--out", metavar="DIR",
                        help="mate in two: write the set here (default tests/data/tactics/mate2)")
    parser.add_argument("--append", action="store_true",
                        help="mate in two: keep the set's positions and header, add the new")
    parser.add_argument("--tokens-to-other", action="store_true",
                        help="with --sparse: the player not to move holds the tokens")
    parser.add_argument("--max-plies", type=int, default=MAX_PLIES,
                        help="mate in two: plies one exhaustive check may try")
    parser.add_argument("--solve", action="store_true",
                        help="solve every set with the engine; write docs/engine.md's table")
    args = parser.parse_args(argv)
    if args.solve:
        write_table(solve_all(args.games, (args.mate,) if args.mate else (1, 2)))
        return 0
    if args.mate == 2:
        out = Path(args.out) if args.out else OUT_MATE2
        out.mkdir(parents=True, exist_ok=True)
        for name in args.games:
            collect_set(args, name, out / f"{name}.txt")
        return 0
    OUT.mkdir(parents=True, exist_ok=True)
    for name in args.games:
        lines = collect(name, args.count, args.seed)
        (OUT / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{name}: {len(lines)} mate-in-one positions")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
