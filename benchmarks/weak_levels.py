"""Level 1 against the one-ply greedy player (``benchmarks/spar.py``): does the weakest
level lose most of its games, as a beginner's opponent should?

Level 1 plays as a beginner (``controller/engine/human.py``): it keeps what it sees is
attacked and takes what it sees is free, but it sees only captures near it and now and
then forgets a piece; the greedy player takes the best one-ply evaluation, whatever the
distance.  Seats are swapped every game; a game that reaches ``--max-plies`` is
adjudicated as the ladder does (a lead of three Pawns' worth by the game's evaluation
wins, less is a draw): the greedy player rarely mates.
Lao Tzu's level 1 plays from its view with the fog engine (unchanged by the beginner:
it has a view, not the position).

Levels 1–3 can be measured (``--level``); each row also says how its games ended (the
draws' reasons) and how often each side's move undid its own move before (a piece going
back where it came from: a shuffling player's mark).

    python -m benchmarks.weak_levels [--games 20] [--level 1 --level 2] [--write-docs]
"""

from __future__ import annotations

import argparse
import random
import time
from collections import Counter
from dataclasses import dataclass, field

from benchmarks.benchtools import write_section
from benchmarks.spar import DOCS, Player, Score, make_player, wilson
from controller.engine import Evaluator
from controller.rules import GAMES, Game, Move, get_game

#: the games measured (Lotus-39's modern rules play as Lotus-39 here)
MEASURED = tuple(name for name in GAMES if name != "lotus39-modern")
#: a game at the ply cap is won by a lead of this many centipawns (the ladder's rule)
MARGIN = 300


@dataclass
class Tally:
    """One match's score for the weak level, how its games ended, and the shuffling."""

    score: Score = field(default_factory=Score)
    ends: Counter = field(default_factory=Counter)  #: "winner: reason" / "draw: reason"
    undone: list[int] = field(default_factory=lambda: [0, 0])  #: weak, greedy
    moved: list[int] = field(default_factory=lambda: [0, 0])
    plies: int = 0


def _undoes(move: Move, before: Move | None) -> bool:
    """Whether ``move`` takes a piece straight back where its owner's last move took it
    from (nothing taken either time)."""
    return (before is not None and move.kind == before.kind == "move"
            and not move.captures and not before.captures
            and move.origin == before.target and move.target == before.origin)


def play(game: Game, seats: list[Player], weak_seat: int, max_plies: int,
         rng: random.Random, tally: Tally) -> None:
    """One game, counted into ``tally`` (a game at the cap adjudicated by ``MARGIN``, as
    the ladder's ``play_adjudicated`` does)."""
    pos = game.start()
    last: list[Move | None] = [None, None]
    for _ in range(max_plies):
        moves = game.legal_moves(pos)
        if not moves:
            break
        mover = game.ply_mover(pos)
        if moves[0].kind == "roll":
            move = rng.choice(moves)
        else:
            move = seats[mover].choose(game, pos, moves)
            assert move in moves, "illegal move"
            side = 0 if mover == weak_seat else 1
            tally.moved[side] += 1
            tally.undone[side] += _undoes(move, last[mover])
            last[mover] = move
        pos.push(move)
        tally.plies += 1
        if game.outcome(pos) is not None:
            break
    outcome = game.outcome(pos)
    if outcome is not None:
        winners, reason = outcome.winners, str(outcome.reason)
    else:
        lead = Evaluator(game).score(pos, 0)
        winners = (0,) if lead >= MARGIN else (1,) if lead <= -MARGIN else ()
        reason = "cap"
    who = "draw" if not winners else "weak" if weak_seat in winners else "greedy"
    tally.ends[f"{who}: {reason}"] += 1
    tally.score.record(winners, weak_seat)


def match(name: str, games: int, seed: int = 1, max_plies: int = 200,
          level: int = 1) -> Tally:
    """``games`` games of ``level`` against the greedy player in ``name``, seats swapped
    every game (the level's score; a game at the cap adjudicated by ``MARGIN``)."""
    game = get_game(name)
    tally = Tally()
    rng = random.Random(seed)
    for i in range(games):
        weak = make_player(f"level:{level}", game, seed + 2 * i)
        greedy = make_player("greedy", game, seed + 2 * i + 1)
        seat = i % 2
        seats = [greedy, greedy]
        seats[seat] = weak
        play(game, seats, seat, max_plies, rng, tally)
    return tally


def _ends(tally: Tally) -> str:
    return ", ".join(f"{k} {v}" for k, v in sorted(tally.ends.items()))


def table(games: int, seed: int, max_plies: int, names: tuple[str, ...] = MEASURED,
          levels: tuple[int, ...] = (1,)) -> str:
    lines = ["| game | level | games | level wins | draws | greedy wins | greedy's share of "
             "the decided games [95 %] | how they ended | own move undone: level / greedy "
             "| CPU s a game |", "|---|---|---|---|---|---|---|---|---|---|"]
    for name in names:
        for level in levels:
            cpu = time.process_time()
            tally = match(name, games, seed, max_plies, level)
            cpu = time.process_time() - cpu
            score = tally.score
            decided = score.wins + score.losses
            low, high = wilson(score.losses, decided)
            share = (f"{score.losses / decided:.0%} [{low:.0%}, {high:.0%}]" if decided
                     else "—")
            undone = " / ".join(f"{u / m:.0%}" if m else "—"
                                for u, m in zip(tally.undone, tally.moved, strict=True))
            lines.append(f"| {name} | {level} | {score.games} | {score.wins} | {score.draws} "
                         f"| {score.losses} | {share} | {_ends(tally)} | {undone} "
                         f"| {cpu / max(1, score.games):.1f} |")
            print(lines[-1], flush=True)
    only = "".join(f" --game {n}" for n in names) if names != MEASURED else ""
    only += "".join(f" --level {k}" for k in levels) if levels != (1,) else ""
    lines.append(f"\n{time.strftime('%Y-%m-%d')}: `python -m benchmarks.weak_levels "
                 f"--games {games} --seed {seed} --max-plies {max_plies}{only}` (a game at the "
                 f"cap adjudicated: a lead of {MARGIN} centipawns wins).")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-plies", type=int, default=200)
    ap.add_argument("--game", action="append", choices=MEASURED,
                    help="only this game (repeatable; default: every game)")
    ap.add_argument("--level", action="append", type=int, choices=(1, 2, 3),
                    help="this weak level (repeatable; default: level 1)")
    ap.add_argument("--write-docs", action="store_true")
    args = ap.parse_args()
    text = table(args.games, args.seed, args.max_plies, tuple(args.game or MEASURED),
                 tuple(args.level or (1,)))
    if args.write_docs:
        write_section(DOCS, "weak-levels", text)


if __name__ == "__main__":
    main()
