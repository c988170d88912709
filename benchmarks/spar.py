"""Sparring: matches between engine levels, a random mover and a one-ply greedy player.

Each match plays ``--games`` games with the seats swapped every game (with 3–4 players,
rotated), and prints wins, draws, losses, the score and an Elo difference with its 95 %
interval (normal approximation of the score's binomial spread).  Games that reach
``--max-plies`` count as draws.

    python -m benchmarks.spar --game gnuqi --a level:6 --b random --games 20
    python -m benchmarks.spar --ladder --game lotus39 --games 10   # 1 v 2, 2 v 3, …

Chess against other engines, at equal time per move, through our own UCI client
(``controller/engine/uci.py``): ``sunfish`` (PyPI's pure-Python engine, run as
``python -m sunfish``) and ``stockfish-lowest`` (Debian's Stockfish with
``UCI_LimitStrength`` at its lowest ``UCI_Elo``); any ``uci:PROGRAM`` works too.  Both GPL:
separate processes, here only.  Games start from a fixed list of openings, each played
with both colours.  ``--chess`` runs both matches; ``--write-docs`` puts the table in
docs/engine.md.

    python -m benchmarks.spar --chess --games 20 --movetime 0.25 --write-docs
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from controller.engine import Engine, Evaluator
from controller.rules import Game, Move, Position, get_game

STOCKFISH = "/usr/games/stockfish"  # Debian's package
DOCS = Path(__file__).resolve().parent.parent / "docs" / "engine.md"

#: chess openings (UCI), each played once with either colour: varied games from
#: deterministic players
OPENINGS = (
    "e2e4 e7e5 g1f3 b8c6",          # open game
    "e2e4 c7c5 g1f3 d7d6",          # Sicilian
    "d2d4 d7d5 c2c4 e7e6",          # Queen's Gambit declined
    "d2d4 g8f6 c2c4 g7g6",          # King's Indian
    "e2e4 e7e6 d2d4 d7d5",          # French
    "e2e4 c7c6 d2d4 d7d5",          # Caro-Kann
    "c2c4 e7e5 b1c3 g8f6",          # English
    "g1f3 d7d5 g2g3 g8f6",          # Réti
    "e2e4 d7d5 e4d5 d8d5",          # Scandinavian
    "d2d4 f7f5 g2g3 g8f6",          # Dutch
)


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
    """One ply: the move after which the evaluation is best for the mover (ties at random).

    In a game of hidden information it plays from its own view, as the engine does: on
    one position drawn from the view (the unseen enemy pieces placed at random), its best
    move there that is legal in the true position (a refused try is followed by the next,
    as at the board). Seeing the whole position would make it a cheat, not a yardstick."""

    name = "greedy"

    def __init__(self, game: Game, seed: int) -> None:
        self.rng = random.Random(seed)
        self.evaluator = Evaluator(game)

    def choose(self, game, pos, moves):
        if game.hidden_information:
            return self._from_view(game, pos, moves)
        scores = self._scores(game, pos, moves)
        best = max(scores)
        return self.rng.choice([m for m, sc in zip(moves, scores, strict=True) if sc == best])

    def _scores(self, game, pos, moves) -> list[int]:
        me = game.ply_mover(pos)
        scores = []
        for m in moves:
            pos.push(m)
            outcome = game.outcome(pos)
            if outcome is not None and me in outcome.winners:
                scores.append(10**9)
            else:
                scores.append(self.evaluator.score(pos, me))
            pos.pop()
        return scores

    def _from_view(self, game, pos, moves):
        from controller.engine.fog import same_try, sample_text
        from controller.rules import RulesError

        view = game.player_view(pos, game.ply_mover(pos))
        for _ in range(20):
            try:
                drawn = game.parse_position(sample_text(view, self.rng))
            except RulesError:
                continue  # not a possible position (the enemy King drawn into check)
            tries = game.legal_moves(drawn)
            scores = self._scores(game, drawn, tries)
            order = sorted(range(len(tries)), key=lambda i: (-scores[i], self.rng.random()))
            for i in order:
                for legal in moves:
                    if same_try(tries[i], legal):
                        return legal
            break
        return self.rng.choice(moves)


class EnginePlayer(Player):
    def __init__(self, game: Game, level: int, seed: int, movetime: float | None = None,
                 ) -> None:
        # process CPU time: other processes' load must not weaken the search
        self.engine = Engine(game, level=level, seed=seed, clock=time.process_time)
        self.name = f"level {level}"
        self.movetime = movetime

    def choose(self, game, pos, moves):
        if game.hidden_information:  # fog of war: from its own view, as on the board
            from controller.engine.fog import choose_try, sample_limits

            view = game.player_view(pos, game.ply_mover(pos))
            limits = sample_limits(self.engine.level)  # the level's own time, as documented
            return choose_try(game, view, moves, limits, seed=len(pos.moves),
                              clock=time.process_time)
        return self.engine.choose(pos, movetime=self.movetime).move


class UciPlayer(Player):
    """A UCI engine in its own process, asked through our client at ``movetime`` a move."""

    def __init__(self, name: str, command: list[str], level: int, movetime: float) -> None:
        from controller.engine.external import ExternalPlayer

        self.name = name
        self.level = level
        self.movetime = movetime
        self.external = ExternalPlayer(command, timeout=30.0)

    def choose(self, game, pos, moves):
        start = game.start()
        setup = game.position_text(start)
        record = []
        for move in pos.moves:
            record.append(game.long_move_text(start, move))
            start.push(move)
        return self.external.move(game, setup, record, self.level, self.movetime)

    def close(self) -> None:
        self.external.close()


def make_player(spec: str, game: Game, seed: int, movetime: float | None = None) -> Player:
    if spec == "random":
        return RandomMover(seed)
    if spec == "greedy":
        return Greedy(game, seed)
    if spec.startswith("level:"):
        return EnginePlayer(game, int(spec.split(":")[1]), seed, movetime)
    uci_time = movetime or 0.25
    if spec == "sunfish":
        return UciPlayer(spec, [sys.executable, "-m", "sunfish"], 10, uci_time)
    if spec == "stockfish-lowest":  # level 1: UCI_LimitStrength at the lowest UCI_Elo
        return UciPlayer(spec, [STOCKFISH], 1, uci_time)
    if spec.startswith("uci:"):
        return UciPlayer(spec, [spec[4:]], 10, uci_time)
    raise SystemExit(f"unknown player {spec!r} (random, greedy, level:N, sunfish, "
                     "stockfish-lowest, uci:PROGRAM)")


@dataclass
class Score:
    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    def record(self, winners, seat: int) -> None:
        """Count one game for the player in ``seat`` (no ``winners``: a draw)."""
        if not winners:
            self.draws += 1
        elif seat in winners:
            self.wins += 1
        else:
            self.losses += 1

    def elo(self) -> tuple[float, float, float]:
        """Elo difference of A over B with a 95 % interval (clamped at ±800)."""
        n = self.games
        p = (self.wins + self.draws / 2) / n

        def to_elo(x: float) -> float:
            x = min(max(x, 1e-3), 1 - 1e-3)
            return max(-800.0, min(800.0, -400 * math.log10(1 / x - 1)))

        sd = math.sqrt(max(p * (1 - p), 0.25 / n) / n)
        return to_elo(p), to_elo(p - 1.96 * sd), to_elo(p + 1.96 * sd)


def play_game(game: Game, seats: list[Player], max_plies: int, rng: random.Random,
              opening: str = "", clock: dict | None = None) -> tuple:
    """Play one game (after the ``opening`` moves); the winners' seats.  ``clock``
    collects seconds and moves per player."""
    pos = game.start()
    for text in opening.split():
        pos.push(game.parse_move(pos, text))
    for _ in range(max_plies):
        moves = game.legal_moves(pos)
        if not moves:
            break
        if moves[0].kind == "roll":
            move = rng.choice(moves)
        else:
            player = seats[game.ply_mover(pos)]
            started = time.monotonic()
            move = player.choose(game, pos, moves)
            if clock is not None:
                spent = clock.setdefault(id(player), [0.0, 0])
                spent[0] += time.monotonic() - started
                spent[1] += 1
            assert move in moves, "illegal move"
        pos.push(move)
        if game.outcome(pos) is not None:
            break
    outcome = game.outcome(pos)
    return outcome.winners if outcome is not None else ()


def match(game_name: str, options: dict, a: str, b: str, games: int, max_plies: int,
          seed: int = 0, movetime: float | None = None, openings: tuple[str, ...] = (),
          times: dict | None = None) -> Score:
    """``games`` games of ``a`` against ``b``, seats swapped every game (each opening
    played from both sides); ``times`` gets each side's mean seconds per move."""
    game = get_game(game_name, **options)
    score = Score()
    rng = random.Random(seed)
    spent = {"a": [0.0, 0], "b": [0.0, 0]}
    for i in range(games):
        pa = make_player(a, game, seed + 2 * i, movetime)
        pb = make_player(b, game, seed + 2 * i + 1, movetime)
        seat_a = i % game.players
        seats = [pb] * game.players
        seats[seat_a] = pa
        clock: dict = {}
        opening = openings[(i // 2) % len(openings)] if openings else ""
        try:
            winners = play_game(game, seats, max_plies, rng, opening, clock)
        finally:
            for p in (pa, pb):
                if isinstance(p, UciPlayer):
                    p.close()
        for side, p in (("a", pa), ("b", pb)):
            got = clock.get(id(p), [0.0, 0])
            spent[side][0] += got[0]
            spent[side][1] += got[1]
        score.record(winners, seat_a)
        print(f"  game {i + 1}: {'draw' if not winners else ('A' if seat_a in winners else 'B')}"
              f" (A {'White' if seat_a == 0 else 'Black'})", file=sys.stderr, flush=True)
    if times is not None:
        times.update({k: (v[0] / v[1] if v[1] else 0.0) for k, v in spent.items()})
    return score


def report(game_name: str, options: dict, a: str, b: str, score: Score, seconds: float) -> str:
    elo, low, high = score.elo()
    opts = "".join(f" {k}={v}" for k, v in options.items())
    return (f"| {game_name}{opts} | {a} | {b} | {score.games} | {score.wins} | {score.draws} "
            f"| {score.losses} | {(score.wins + score.draws / 2) / score.games:.2f} "
            f"| {elo:+.0f} [{low:+.0f}, {high:+.0f}] | {seconds:.0f} |")


HEADER = ("| game | A | B | games | A wins | draws | B wins | A score | Elo A−B [95 %] | s |\n"
          "|---|---|---|---|---|---|---|---|---|---|")


CHESS_HEADER = ("| A | B | games | A wins | draws | B wins | A score | Elo A−B [95 %] "
                "| s/move A | s/move B | minutes |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|")


def chess_report(a: str, b: str, score: Score, times: dict, seconds: float) -> str:
    elo, low, high = score.elo()
    return (f"| {a} | {b} | {score.games} | {score.wins} | {score.draws} | {score.losses} "
            f"| {(score.wins + score.draws / 2) / score.games:.2f} "
            f"| {elo:+.0f} [{low:+.0f}, {high:+.0f}] | {times['a']:.2f} | {times['b']:.2f} "
            f"| {seconds / 60:.0f} |")


def write_docs(marker: str, text: str) -> None:
    """Replace what stands between ``<!-- marker -->`` and ``<!-- /marker -->``."""
    docs = DOCS.read_text(encoding="utf-8")
    begin, end = f"<!-- {marker} -->", f"<!-- /{marker} -->"
    if begin not in docs or end not in docs:
        raise SystemExit(f"{DOCS.name} has no {begin} … {end} section")
    head, rest = docs.split(begin, 1)
    tail = rest.split(end, 1)[1]
    DOCS.write_text(f"{head}{begin}\n{text.strip()}\n{end}{tail}", encoding="utf-8")


def chess_matches(games: int, movetime: float, max_plies: int, seed: int,
                  opponents: list[str], write: bool) -> None:
    lines = [CHESS_HEADER]
    print(CHESS_HEADER, flush=True)
    for b in opponents:
        started = time.monotonic()
        times: dict = {}
        score = match("chess", {}, "level:10", b, games, max_plies, seed, movetime,
                      OPENINGS, times)
        line = chess_report("level:10", b, score, times, time.monotonic() - started)
        print(line, flush=True)
        lines.append(line)
    if write:
        note = (f"{time.strftime('%Y-%m-%d')}: `python -m benchmarks.spar --chess "
                f"--games {games} --movetime {movetime:g}`; {movetime:g} s per move for "
                f"both sides (our level 10 limited to that time), openings from "
                f"`OPENINGS` with both colours, a draw after {max_plies} plies.")
        write_docs("spar:chess", note + "\n\n" + "\n".join(lines))


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
    parser.add_argument("--movetime", type=float,
                        help="seconds per move for every engine player (equal time)")
    parser.add_argument("--chess", action="store_true",
                        help="chess: level 10 against sunfish and stockfish-lowest")
    parser.add_argument("--against", nargs="+", default=["sunfish", "stockfish-lowest"],
                        help="with --chess: the opponents")
    parser.add_argument("--write-docs", action="store_true",
                        help="with --chess: put the table in docs/engine.md")
    args = parser.parse_args(argv)
    if args.chess:
        chess_matches(args.games, args.movetime or 0.25, args.max_plies, args.seed,
                      args.against, args.write_docs)
        return 0
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
        score = match(args.game, options, a, b, args.games, args.max_plies, args.seed,
                      args.movetime)
        print(report(args.game, options, a, b, score, time.monotonic() - started), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
