"""KaleidoChess with 3 and 4 players: paranoid against best-reply search (BRS).

Issue 18 asks for the two ways of searching several opponents *measured against each
other*.  Two kinds of match, at level 10 limited to ``--movetime`` seconds of **process
CPU time** per move (``time.process_time``: other work on a shared machine does not
weaken the search), its depth limit level 10's:

* **head to head** — one BRS seat, one paranoid seat and greedy players in the other
  seats (three players: one; four: two), every seating in turn (3 players: the 6 orders;
  4 players: the 12 distinct ones), so neither model always moves just before or after
  the other;
* **against greedy** — one seat of each model alone against greedy players in every
  other seat, the seat rotating game by game.

``--dice`` instead looks at the two-player dice variant: level 10 against the random
mover (or greedy), and for every loss whether the die left the engine only losing moves
(every move its roll allowed gave up its last castle) — and how the random mover does in
the top seat with the same dice (the same seeded die, roll by roll): the die's share.

Only a real win counts (a game reaching ``--max-plies`` is won by nobody).  Wins are given
with Wilson's 95 % interval.  Each finished match is appended to ``--results`` (JSON
lines), so runs for 3 and 4 players may go side by side; ``--write-docs`` writes the
table of every match in that file into docs/engine.md between the ``multiplayer``
markers.

    python -m benchmarks.multiplayer --games 24 --movetime 0.1 --write-docs
    python -m benchmarks.multiplayer --players 3 --games 6 --kind head
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import sys
import time
from pathlib import Path

from benchmarks.spar import Greedy, Player, make_player, wilson, write_docs
from controller.engine import Engine, Result
from controller.engine.search import DEFAULT_OPPONENTS, OPPONENT_MODELS
from controller.rules import Game, Move, Position, get_game

TOP_LEVEL = 10
#: finished matches (JSON lines; the docs' table is made from every line)
RESULTS = Path(__file__).resolve().parent / "results" / "multiplayer.jsonl"


class ModelPlayer(Player):
    """Level 10 searching its opponents one way, on a process-CPU-time budget."""

    def __init__(self, game: Game, opponents: str | None, seed: int, movetime: float,
                 ) -> None:
        self.name = opponents or "default"
        self.movetime = movetime
        self.last: Result | None = None  #: the last search (depth, score) for ``--trace``
        self.engine = Engine(game, level=TOP_LEVEL, seed=seed, clock=time.process_time,
                             opponents=opponents)

    def choose(self, game: Game, pos: Position, moves: list[Move]) -> Move:
        self.last = self.engine.choose(pos, movetime=self.movetime)
        return self.last.move


def seatings(players: int) -> list[tuple[str, ...]]:
    """Every distinct order of one BRS, one paranoid and greedy seats."""
    kinds = ("brs", "paranoid") + ("greedy",) * (players - 2)
    return sorted(set(itertools.permutations(kinds)))


def play(game: Game, seats: list[Player], max_plies: int, trace: list[str] | None = None,
         ) -> tuple[int, ...]:
    """One game; the winners' seats (none at the ply cap).  ``trace``: a line per ply is
    added (a searching seat's line with the position, its depth and score)."""
    pos = game.start()
    for ply in range(max_plies):
        moves = game.legal_moves(pos)
        if not moves:
            break
        mover = game.ply_mover(pos)
        seat = seats[mover]
        move = seat.choose(game, pos, moves)
        assert move in moves, "illegal move"
        if trace is not None:
            trace.append(trace_line(game, pos, ply, seat, move))
        pos.push(move)
        if game.outcome(pos) is not None:
            break
    outcome = game.outcome(pos)
    return outcome.winners if outcome is not None else ()


def trace_line(game: Game, pos: Position, ply: int, seat: Player, move: Move) -> str:
    """One ply for ``--trace``: who, the move, what it took; a searching seat also its
    depth, score (its view, centipawns) and nodes, and the position it searched."""
    mover = game.ply_mover(pos)
    taken = sorted({pos.board[c].owner for c in move.captures if pos.board[c] is not None})
    line = (f"ply {ply}: {game.player_names[mover]} ({seat.name}) "
            f"{game.move_text(pos, move)}" + (f" takes from {taken}" if taken else ""))
    last = seat.last if isinstance(seat, ModelPlayer) else None
    if last is not None:
        line += (f"  [depth {last.depth}, score {last.score}, {last.nodes} nodes]\n"
                 f"    {game.position_text(pos)}")
    return line


def make(kind: str, game: Game, seed: int, movetime: float) -> Player:
    return Greedy(game, seed) if kind == "greedy" else ModelPlayer(game, kind, seed, movetime)


def head_to_head(players: int, games: int, movetime: float, max_plies: int,
                 seed: int) -> dict:
    """BRS, paranoid and greedy seats at one table; wins per kind."""
    game = get_game("kaleidochess", players=players)
    orders = seatings(players)
    wins = {"brs": 0, "paranoid": 0, "greedy": 0, "nobody": 0}
    started = time.monotonic()
    for i in range(games):
        order = orders[i % len(orders)]
        seats = [make(kind, game, seed + 10 * i + s, movetime) for s, kind in enumerate(order)]
        winners = play(game, seats, max_plies)
        winner = order[winners[0]] if winners else "nobody"
        wins[winner] += 1
        print(f"  {players}p head game {i + 1}: {'-'.join(order)} -> {winner}",
              file=sys.stderr, flush=True)
    return {"players": players, "kind": "head to head", "games": games, **wins,
            "seconds": time.monotonic() - started}


def against_greedy(players: int, model: str, games: int, movetime: float, max_plies: int,
                   seed: int, trace: Path | None = None) -> dict:
    """One seat of ``model`` against greedy players, the seat rotating; ``trace``: every
    game not won is appended to this file, ply by ply (``trace_line``)."""
    game = get_game("kaleidochess", players=players)
    won = lost = capped = 0
    started = time.monotonic()
    for i in range(games):
        seat = i % players
        seats: list[Player] = [Greedy(game, seed + 10 * i + s) for s in range(players)]
        seats[seat] = ModelPlayer(game, model, seed + 10 * i + seat, movetime)
        plies: list[str] | None = [] if trace is not None else None
        winners = play(game, seats, max_plies, plies)
        if trace is not None and plies is not None and seat not in winners:
            with trace.open("a", encoding="utf-8") as out:
                out.write(f"{players}p {model} v greedy, seed {seed}, game {i + 1}, seat "
                          f"{game.player_names[seat]}: {'loss' if winners else 'cap'}\n"
                          + "\n".join(plies) + "\n\n")
        if not winners:
            capped += 1
        elif seat in winners:
            won += 1
        else:
            lost += 1
        print(f"  {players}p {model} v greedy game {i + 1}: "
              f"{'win' if seat in winners else 'cap' if not winners else 'loss'}",
              file=sys.stderr, flush=True)
    return {"players": players, "kind": f"{model} v greedy", "games": games, "wins": won,
            "losses": lost, "capped": capped, "seconds": time.monotonic() - started}


def dice_game(game: Game, seats: list[Player], top: int, max_plies: int, seed: int,
              ) -> tuple[str, bool, int]:
    """One dice game with a die seeded by ``seed``: the top seat's result ("win", "loss",
    "cap"), whether its last move was forced to lose (every move its roll allowed lost at
    once) and how many turns it had."""
    die = random.Random(seed)
    pos = game.start()
    forced, turns = False, 0
    for _ in range(max_plies):
        moves = game.legal_moves(pos)
        if not moves:
            break
        if moves[0].kind == "roll":
            move = die.choice(moves)
        else:
            mover = game.ply_mover(pos)
            move = seats[mover].choose(game, pos, moves)
            assert move in moves, "illegal move"
            if mover == top:
                turns += 1
                forced = all(_loses(game, pos, m, top) for m in moves)
        pos.push(move)
        if game.outcome(pos) is not None:
            break
    outcome = game.outcome(pos)
    result = ("cap" if outcome is None or not outcome.winners else
              "win" if top in outcome.winners else "loss")
    return result, forced and result == "loss", turns


def _loses(game: Game, pos: Position, move: Move, player: int) -> bool:
    pos.push(move)
    try:
        outcome = game.outcome(pos)
        return outcome is not None and player not in outcome.winners
    finally:
        pos.pop()


def dice(against: str, games: int, movetime: float, max_plies: int, seed: int) -> dict:
    """Level 10 against ``against`` in the dice variant, and the random mover in its seat
    with the same dice."""
    game = get_game("kaleidochess", dice=True)
    row = {"players": 2, "kind": f"dice v {against}", "games": games, "wins": 0,
           "losses": 0, "capped": 0, "forced": 0, "first_turn": 0, "random_wins": 0}
    started = time.monotonic()
    for i in range(games):
        top = i % 2
        for who in ("engine", "random"):
            seats = [make_player(against, game, seed + 2 * i + 1) for _ in range(2)]
            seats[top] = (ModelPlayer(game, None, seed + 2 * i, movetime)
                          if who == "engine" else make_player("random", game, seed + 2 * i))
            result, forced, turns = dice_game(game, seats, top, max_plies, seed + i)
            if who == "random":
                row["random_wins"] += result == "win"
                continue
            row[{"win": "wins", "loss": "losses", "cap": "capped"}[result]] += 1
            row["forced"] += forced
            row["first_turn"] += forced and turns == 1
            note = f" (forced, turn {turns})" if forced else ""
            print(f"  dice v {against} game {i + 1}: {result}{note}",
                  file=sys.stderr, flush=True)
    row["seconds"] = time.monotonic() - started
    return row


def dice_table(rows: list[dict]) -> str:
    lines = ["| against | s/move (CPU) | games | top wins % [95 %] | losses | of them forced "
             "by the die | on its first turn | random mover in the top seat, same dice: "
             "wins % [95 %] | minutes |", "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['kind'].split()[-1]} | {r['movetime']:g} | {r['games']} "
                     f"| {interval(r['wins'], r['games'])} | {r['losses']} | {r['forced']} "
                     f"| {r['first_turn']} | {interval(r['random_wins'], r['games'])} "
                     f"| {r['seconds'] / 60:.1f} |")
    return "\n".join(lines)


def interval(wins: int, games: int) -> str:
    lo, hi = wilson(wins, games)
    return f"{100 * wins / games:.0f} [{100 * lo:.0f}, {100 * hi:.0f}]"


def table(rows: list[dict]) -> str:
    head = ["| players | match | games | BRS wins % [95 %] | paranoid wins % [95 %] "
            "| greedy wins | nobody (cap) | minutes |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r["kind"] == "head to head":
            head.append(f"| {r['players']} | BRS v paranoid v greedy | {r['games']} "
                        f"| {interval(r['brs'], r['games'])} "
                        f"| {interval(r['paranoid'], r['games'])} | {r['greedy']} "
                        f"| {r['nobody']} | {r['seconds'] / 60:.1f} |")
        else:
            model = r["kind"].split()[0]
            share = interval(r["wins"], r["games"])
            head.append(f"| {r['players']} | {model.replace('brs', 'BRS')} alone v greedy "
                        f"| {r['games']} "
                        f"| {share if model == 'brs' else ''} "
                        f"| {share if model == 'paranoid' else ''} | {r['losses']} "
                        f"| {r['capped']} | {r['seconds'] / 60:.1f} |")
    return "\n".join(head)


def merged(rows: list[dict]) -> list[dict]:
    """Matches of one kind, player count and budget (runs with other seeds) added up."""
    out: dict[tuple, dict] = {}
    for row in rows:
        key = (row["players"], row["kind"], row["movetime"])
        seen = out.get(key)
        if seen is None:
            out[key] = dict(row)
            continue
        for name, value in row.items():
            if name not in ("players", "kind", "movetime", "max_plies"):
                seen[name] += value
    return list(out.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4], choices=[3, 4])
    parser.add_argument("--kind", nargs="+", default=["head", "greedy"],
                        choices=["head", "greedy"])
    parser.add_argument("--games", type=int, default=24, help="games per match")
    parser.add_argument("--movetime", type=float, default=0.1,
                        help="seconds of process CPU time per move for level 10")
    parser.add_argument("--max-plies", type=int, default=400)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--dice", nargs="+", choices=["random", "greedy"],
                        help="the dice variant against these opponents instead")
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--trace", type=Path,
                        help="append every game the model alone against greedy does not win "
                             "to this file, ply by ply (the model's depth and score)")
    parser.add_argument("--write-docs", action="store_true",
                        help="only write the table of the results file (no games)")
    args = parser.parse_args(argv)
    random.seed(args.seed)

    def keep(row: dict) -> None:
        row.update(movetime=args.movetime, max_plies=args.max_plies)
        args.results.parent.mkdir(parents=True, exist_ok=True)
        with args.results.open("a", encoding="utf-8") as out:
            out.write(json.dumps(row) + "\n")
        shown = dice_table if row["kind"].startswith("dice") else table
        print(shown([row]).splitlines()[-1], flush=True)

    for against in args.dice or () if not args.write_docs else ():
        keep(dice(against, args.games, args.movetime, args.max_plies, args.seed))
    for players in args.players if not (args.write_docs or args.dice) else ():
        if "head" in args.kind:
            keep(head_to_head(players, args.games, args.movetime, args.max_plies, args.seed))
        if "greedy" in args.kind:
            for model in OPPONENT_MODELS:
                keep(against_greedy(players, model, args.games, args.movetime,
                                    args.max_plies, args.seed, args.trace))
    rows = merged([json.loads(line) for line in
                   args.results.read_text(encoding="utf-8").splitlines()]
                  if args.results.exists() else [])
    rows.sort(key=lambda r: (r["players"], r["kind"] != "head to head", r["kind"],
                             r["movetime"]))
    text = table([r for r in rows if r["players"] > 2])
    dice_rows = [r for r in rows if r["players"] == 2]
    if dice_rows:
        text += ("\n\nThe dice variant (two players; `--dice random greedy`):\n\n"
                 + dice_table(dice_rows))
    print(text)
    if args.write_docs:
        budgets = sorted({r["movetime"] for r in rows if r["players"] > 2})
        defaults = ", ".join(f"{n} players {m}" for n, m in DEFAULT_OPPONENTS.items())
        note = (f"{time.strftime('%Y-%m-%d')}: `python -m benchmarks.multiplayer` — level 10 "
                f"with {', '.join(f'{b:g}' for b in budgets)} s of process CPU time per move "
                "(the dice rows: their own column), "
                "searching its opponents paranoid or by best-reply search "
                f"(`Search(opponents=…)`; the default: {defaults}); a game at "
                "the ply cap is won by nobody. Wins % with Wilson's 95 % interval; in "
                "\"alone v greedy\" the greedy column counts the model's losses.")
        write_docs("multiplayer", note + "\n\n" + text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
