"""Sparring: matches between engine levels, a random mover and a one-ply greedy player.

Each match plays ``--games`` games with the seats swapped every game (with 3–4 players,
rotated), and prints wins, draws, losses, the score and an Elo difference with its 95 %
interval (normal approximation of the score's binomial spread).  Games that reach
``--max-plies`` count as draws.

    python -m benchmarks.spar --game gnuqi --a level:6 --b random --games 20
    python -m benchmarks.spar --ladder --game lotus39 --games 10   # 1 v 2, 2 v 3, …
"""

from __future__ import annotations

import argparse
import math
import random
import time
from dataclasses import dataclass

from controller.engine import Engine, Evaluator, Limits
from controller.rules import Game, Move, Position, get_game


class Player:
    name = "player"

    def choose(self, game: Game, pos: Position, moves: list[Move]) -> Move:
        raise NotImplementedError


class RandomMover(Player):
    name = "random"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, game, pos, moves):
        return self.rng.choice(moves)


class Greedy(Player):
    """One ply: the move after which the evaluation is best for the mover (ties at random)."""

    name = "greedy"

    def __init__(self, game: Game, seed: int) -> None:
        self.rng = random.Random(seed)
        self.evaluator = Evaluator(game)

    def choose(self, game, pos, moves):
        me = game.ply_mover(pos)
        best, choice = None, []
        for m in moves:
            pos.push(m)
            outcome = game.outcome(pos)
            if outcome is not None and me in outcome.winners:
                score = 10**9
            else:
                score = self.evaluator.score(pos, me)
            pos.pop()
            if best is None or score > best:
                best, choice = score, [m]
            elif score == best:
                choice.append(m)
        return self.rng.choice(choice)


class EnginePlayer(Player):
    def __init__(self, game: Game, level: int, seed: int) -> None:
        self.engine = Engine(game, level=level, seed=seed)
        self.name = f"level {level}"

    def choose(self, game, pos, moves):
        if game.hidden_information:  # fog of war: from its own view, as on the board
            from controller.engine.fog import choose_try

            level = self.engine.level
            view = game.player_view(pos, game.ply_mover(pos))
            limits = Limits(depth=min(level.depth, 3), movetime=level.movetime / 6)
            return choose_try(game, view, moves, limits, seed=len(pos.moves))
        return self.engine.choose(pos).move


def make_player(spec: str, game: Game, seed: int) -> Player:
    if spec == "random":
        return RandomMover(seed)
    if spec == "greedy":
        return Greedy(game, seed)
    if spec.startswith("level:"):
        return EnginePlayer(game, int(spec.split(":")[1]), seed)
    raise SystemExit(f"unknown player {spec!r} (random, greedy, level:N)")


@dataclass
class Score:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def elo(self) -> tuple[float, float, float]:
        """Elo difference of A over B with a 95 % interval (clamped at ±800)."""
        n = self.games
        p = (self.wins + self.draws / 2) / n

        def to_elo(x: float) -> float:
            x = min(max(x, 1e-3), 1 - 1e-3)
            return max(-800.0, min(800.0, -400 * math.log10(1 / x - 1)))

        sd = math.sqrt(max(p * (1 - p), 0.25 / n) / n)
        return to_elo(p), to_elo(p - 1.96 * sd), to_elo(p + 1.96 * sd)


def play_game(game: Game, seats: list[Player], max_plies: int, rng: random.Random) -> tuple:
    pos = game.start()
    for _ in range(max_plies):
        moves = game.legal_moves(pos)
        if not moves:
            break
        if moves[0].kind == "roll":
            move = rng.choice(moves)
        else:
            move = seats[game.ply_mover(pos)].choose(game, pos, moves)
            assert move in moves, "illegal move"
        pos.push(move)
    outcome = game.outcome(pos)
    return outcome.winners if outcome is not None else ()


def match(game_name: str, options: dict, a: str, b: str, games: int, max_plies: int,
          seed: int = 0) -> Score:
    game = get_game(game_name, **options)
    score = Score()
    rng = random.Random(seed)
    for i in range(games):
        pa = make_player(a, game, seed + 2 * i)
        pb = make_player(b, game, seed + 2 * i + 1)
        seat_a = i % game.players
        seats = [pb] * game.players
        seats[seat_a] = pa
        winners = play_game(game, seats, max_plies, rng)
        if not winners:
            score.draws += 1
        elif seat_a in winners:
            score.wins += 1
        else:
            score.losses += 1
    return score


def report(game_name: str, options: dict, a: str, b: str, score: Score, seconds: float) -> str:
    elo, low, high = score.elo()
    opts = "".join(f" {k}={v}" for k, v in options.items())
    return (f"| {game_name}{opts} | {a} | {b} | {score.games} | {score.wins} | {score.draws} "
            f"| {score.losses} | {(score.wins + score.draws / 2) / score.games:.2f} "
            f"| {elo:+.0f} [{low:+.0f}, {high:+.0f}] | {seconds:.0f} |")


HEADER = ("| game | A | B | games | A wins | draws | B wins | A score | Elo A−B [95 %] | s |\n"
          "|---|---|---|---|---|---|---|---|---|---|")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="gnuqi")
    parser.add_argument("--players", type=int)
    parser.add_argument("--dice", action="store_true")
    parser.add_argument("--a", default="level:6")
    parser.add_argument("--b", default="random")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--max-plies", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ladder", action="store_true",
                        help="levels 1-2, 2-3, … 5-6 instead of --a/--b")
    args = parser.parse_args(argv)
    options: dict = {}
    if args.players:
        options["players"] = args.players
    if args.dice:
        options["dice"] = True
    pairs = ([(f"level:{k + 1}", f"level:{k}") for k in range(1, 6)] if args.ladder
             else [(args.a, args.b)])
    print(HEADER)
    for a, b in pairs:
        started = time.monotonic()
        score = match(args.game, options, a, b, args.games, args.max_plies, args.seed)
        print(report(args.game, options, a, b, score, time.monotonic() - started), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
