"""The board for one game: sensor change → decision, the index build, commits, whole games.

Run: ``python -m benchmarks.bench_board --game G [--quick]`` (G: gnuqi, kaleidochess,
laotzu, lotus39, luotuoqi, chess; several ``--game`` may be given; default: all).

Positions come from seeded play (a driver that favours castling, promotions, placements
and captures, and keeps a KaleidoChess player in the game), for KaleidoChess with two,
three and four players.  For every legal move the pictures a player's hands produce are
replayed: the moving piece lifted (one stone or Pawn off a stack, a piece off its hand or
reserve pad), its victim lifted too, the move complete, the move made with a victim still
on the board, the new piece put down before the old one is lifted (Gnu Qi's Pawn → Wazir),
a stray piece.  Each picture is decided by ``Reconciler.decide`` (the pure decision) and,
when it commits nothing, fed to a ``Board`` (decision + state machine + the published
Interaction), followed by the position again.  A sample of moves is committed through
the ``Board`` (the commit builds the next position's index), and a piece exchanged after
the commit is lifted off.  Frames carry stack classes and polarities on analog layouts.

Times are process CPU time; garbage of the benchmark's own Boards is collected before each
position's Board is built (not between the build and the timed feeds: a full collection
walks the whole heap and leaves the CPU caches cold, which would charge the first feed
after it with the collector's work).

*Sensor frame in → LED frame out*: each seeded game is also played on the running board
service (simulated board, default settings: 200 scans/s, the LED current cap), every
move by simulator actions, and every poll (``BoardService.tick``) that takes in a sensed
frame is timed from its start until the LED driver has the new LED frame (the whole poll
when the LEDs stay as they were): debouncing, the settle gate, ``Board.feed`` (or the
gate's preview), the LED scene rendered and handed to the driver.  Polls that commit a
move (journal record, next index, then the LEDs) are reported apart.  Like ``fairyboard run``,
the service's start-up objects are frozen out of the garbage collector's walks.

Also: per-position rules times (legal moves, the moves a player may try, his view) and,
for Lotus-39 and KaleidoChess, whole games on the running board service in wall time per
ply and board time.

Goals (every game and player count): p99 ≤ 2 ms per sensor change; index build p99 ≤ 5 ms,
worst ≤ 10 ms; ``Board.feed`` p99 ≤ 0.2 ms; sensor frame in → LED frame out p99 ≤ 1 ms.
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import tempfile
import time
from collections.abc import Callable

from benchmarks.benchtools import per_call, percentile
from controller.board import Board
from controller.config import Config
from controller.layout import Layout, load_layout
from controller.leds.scene import LedFrame
from controller.reconcile import PositionIndex, Reconciler
from controller.rules import get_game
from controller.rules.core import Game, Move, Position
from controller.sensing.frame import Frame
from controller.service import BoardService
from controller.web.simulator import move_actions
from controller.web.state import position_objects

CLOCK = time.process_time
#: --game -> (layout, [(registered game, options, seed)] of the seeded games replayed)
GAMES: dict[str, tuple[str, list[tuple[str, dict, int]]]] = {
    "gnuqi": ("square9", [("gnuqi", {}, 22)]),
    "kaleidochess": ("kaleido89", [("kaleidochess", {"players": 2}, 1),
                                   ("kaleidochess", {"players": 3}, 2),
                                   ("kaleidochess", {"players": 4}, 0)]),
    "laotzu": ("square8", [("laotzu", {"seed": str(s)}, s) for s in range(4)]),
    "lotus39": ("lotus39", [("lotus39", {}, 0), ("lotus39-modern", {}, 0),
                            ("lotus39", {}, 1)]),
    "luotuoqi": ("square8", [("luotuoqi", {}, 5), ("luotuoqi", {}, 6)]),
    "chess": ("square8", [("chess", {}, 7), ("chess", {"chess960": True}, 8)]),
}
#: games played whole on the board service: (game, options, seed)
WHOLE_GAMES = {
    "lotus39": [("lotus39", {}, 1), ("lotus39-modern", {}, 1)],
    "kaleidochess": [("kaleidochess", {"players": 2, "move_cap": 60}, 1),
                     ("kaleidochess", {"players": 3, "move_cap": 90}, 6),
                     ("kaleidochess", {"players": 4, "move_cap": 90}, 0)],
}


# -- the driver ---------------------------------------------------------------------------
def ends_badly(game: Game, pos: Position, move: Move) -> bool:
    """Does ``move`` end the game or put its own player out (a castle given up)?"""
    mover = game.ply_mover(pos)
    pos.push(move, record=False)
    try:
        return mover in game.out_players(pos) or game.outcome(pos) is not None
    finally:
        pos.pop()


def choose(game: Game, pos: Position, rng: random.Random) -> Move:
    """A seeded player: mostly keeps the game going; castling, promotions, placements,
    drops and captures often; else any legal move."""
    moves = game.legal_moves(pos)
    if rng.random() < 0.97:
        going = [m for m in moves if not ends_badly(game, pos, m)]
        moves = going or moves
    for group, p in (([m for m in moves if m.kind == "castle"], 0.8),
                     ([m for m in moves if m.promotion or m.kind in ("place", "drop")], 0.6),
                     ([m for m in moves if m.captures], 0.5)):
        if group and rng.random() < p:
            return rng.choice(group)
    return rng.choice(moves)


def positions(game: Game, seed: int, every: int, limit: int) -> list[tuple[int, Position]]:
    """(ply, position): the start and every ``every``-th position of a seeded game."""
    rng = random.Random(seed)
    pos = game.start()
    out = [(0, pos.copy())]
    while game.outcome(pos) is None and len(pos.moves) < limit and game.legal_moves(pos):
        pos.push(choose(game, pos, rng))
        if len(pos.moves) % every == 0 and game.outcome(pos) is None \
                and game.legal_moves(pos):
            out.append((len(pos.moves), pos.copy()))
    return out


# -- pictures -----------------------------------------------------------------------------
Piles = list[list[str]]


def piles(game: Game, pos: Position, layout: Layout) -> Piles:
    """The objects (bottom first) on every spot of the layout in ``pos``."""
    out: Piles = [[] for _ in layout.spots]
    for spot, names in position_objects(game, pos, layout).items():
        out[spot] = list(names)
    return out


def frame_of(p: Piles, t: float, analog: bool) -> Frame:
    """What ideal sensors read for these piles (linear halls: stack class, polarity)."""
    occupied = tuple(bool(x) for x in p)
    if not analog:
        return Frame(t, occupied, None, None)
    return Frame(t, occupied, tuple(min(3, len(x)) for x in p),
                 tuple(0 if not x else -1 if x[-1].startswith("black") else 1 for x in p))


def pictures(game: Game, pos: Position, layout: Layout,
             idx: PositionIndex) -> list[tuple[Piles, int, bool]]:
    """(piles, cells seen empty before, complete move?) for every move's hand pictures."""
    before = piles(game, pos, layout)
    out: list[tuple[Piles, int, bool]] = []
    for m, e in zip(idx.moves, idx.effects, strict=True):
        hand = [list(x) for x in before]
        if m.origin >= 0:
            held = len(hand[m.origin]) - (m.left.height if m.left is not None else 0)
            hand[m.origin] = hand[m.origin][:len(hand[m.origin]) - max(1, held)]
        elif m.piece is not None and m.kind in ("drop", "place"):
            role = "hand" if m.kind == "drop" else "reserve"
            try:
                j = layout.spot_index(layout.pad(role, game.ply_mover(pos), m.piece.kind).name)
            except KeyError:  # no such pad on this layout
                j = -1
            if j >= 0:
                hand[j] = hand[j][:-1]
        seen = 1 << m.origin if m.origin >= 0 else 0
        out.append((hand, 0, False))
        if m.target >= 0 and m.target != m.origin and before[m.target]:
            both = [list(x) for x in hand]
            both[m.target] = []
            out.append((both, seen | 1 << m.target, False))  # the victim lifted too
        pos.push(m, record=False)
        after = piles(game, pos, layout)
        pos.pop()
        out.append((after, seen | e.must_lift, True))
        rest = [c for c in m.captures if c != m.target]
        if rest:  # arrived, a victim still on the board
            early = [list(x) for x in after]
            for c in rest:
                early[c] = before[c]
            out.append((early, seen | e.must_lift, False))
        if idx.swaps_piece(m) and m.target >= 0 and not before[m.target]:
            early = [list(x) for x in before]
            early[m.target] = after[m.target]
            out.append((early, 0, False))  # the new piece put down before the old lifted
    stray = [list(x) for x in before]
    empty = next(c for c in range(layout.cell_count) if not stray[c])
    stray[empty] = ["stray"]
    out.append((stray, 0, False))
    return out


# -- the replay ---------------------------------------------------------------------------
#: times every position's feeds are replayed, each on a new Board
FEED_ROUNDS = 3


def feed_round(game: Game, pos: Position, layout: Layout, here: Frame,
               frames: list[Frame]) -> list[float | None]:
    """CPU seconds of ``Board.feed`` per frame on a Board of ``pos`` (None where the frame
    committed a move: a commit builds the next index; the Board is then built again)."""
    gc.collect()  # before the Board is built, as a commit builds it (see the docstring)
    board = Board(game, layout, pos.copy())
    board.feed(here)
    out: list[float | None] = []
    for f in frames:
        t0 = CLOCK()
        board.feed(f)
        spent = CLOCK() - t0
        if board.position.moves != pos.moves:
            out.append(None)
            board = Board(game, layout, pos.copy())
            board.feed(here)
        else:
            out.append(spent)
    return out


class Figures:
    def __init__(self) -> None:
        self.build: list[float] = []
        self.decide: list[float] = []
        self.feed: list[float] = []  #: per frame, the median over the rounds
        self.feed_rounds: list[list[float]] = [[] for _ in range(FEED_ROUNDS)]
        self.commit: list[float] = []
        self.exchange: list[float] = []
        self.led: list[float] = []  #: service polls that take in a frame, commit nothing
        self.led_commit: list[float] = []  #: service polls that commit a move
        self.rules: list[tuple[int, int, float, float, float | None]] = []


def replay(game: Game, pos: Position, layout: Layout, figures: Figures, quick: bool) -> str:
    analog = layout.sensing == "analog"
    rec = Reconciler(game, layout, pos.copy())
    for _ in range(2 if quick else 3):
        t0 = CLOCK()
        PositionIndex(rec.view, pos)
        figures.build.append(CLOCK() - t0)
    idx = rec.index
    shots = pictures(game, pos, layout, idx)
    for p, seen, _ in shots:
        f = frame_of(p, 0.0, analog)
        t0 = CLOCK()
        rec.decide(f, seen)
        figures.decide.append(CLOCK() - t0)
    here = piles(game, pos, layout)
    frames = []
    now = 0.0
    for p, _, complete in shots[::3 if quick else 1]:
        if complete:
            continue
        for q in (p, here):
            now += 0.05
            frames.append(frame_of(q, now, analog))
    rounds = [feed_round(game, pos, layout, frame_of(here, 0.0, analog), frames)
              for _ in range(FEED_ROUNDS)]
    for r, times in enumerate(rounds):
        figures.feed_rounds[r] += [t for t in times if t is not None]
    # per frame the median over the rounds: a frame slowed by another process in one
    # round is not slow; a frame that is slow in every round stays so
    figures.feed += [statistics.median(ts) for ts in zip(*rounds, strict=True)
                     if None not in ts]
    commits = 0
    for i, m in enumerate(idx.moves):  # a sample of commits, every piece exchange
        e = idx.effects[i]
        swaps = idx.swaps_piece(m)
        if not swaps and i % (13 if quick else 7) or m.origin < 0 or e.must_lift \
                or i in idx.landing or len(idx.by_key.get(e.key, ())) != 1:
            continue
        pos.push(m, record=False)
        after = piles(game, pos, layout)
        pos.pop()
        gc.collect()
        board = Board(game, layout, pos.copy())
        board.feed(frame_of(here, 0.0, analog))
        lifted = [list(x) for x in here]
        lifted[m.origin] = []
        board.feed(frame_of(lifted, 0.05, analog))
        t0 = CLOCK()
        board.feed(frame_of(after, 0.1, analog))
        figures.commit.append(CLOCK() - t0)
        if len(board.position.moves) != 1:
            continue  # a slide that might go on waits for the settle gate: not a commit
        commits += 1
        if swaps and m.target >= 0:  # then the exchange: the old piece lifted off
            after[m.target] = []
            t0 = CLOCK()
            board.feed(frame_of(after, 0.15, analog))
            figures.exchange.append(CLOCK() - t0)
    tries = game.board_moves(pos)
    seconds = 0.05 if quick else 0.1
    figures.rules.append((
        len(idx.moves), len(tries),
        per_call(lambda: game.legal_moves(pos), seconds),
        per_call(lambda: game.board_moves(pos), seconds),
        per_call(lambda: game.player_view(pos, pos.turn), seconds)
        if game.hidden_information else None))
    return (f"{len(idx.moves):4d} moves {len(idx.by_key):4d} pictures {len(shots):5d} "
            f"replayed {commits:3d} commits")


def row(name: str, xs: list[float]) -> str:
    if not xs:
        return f"{name:<40} n=    0"
    ms = [x * 1e3 for x in xs]
    return (f"{name:<40} n={len(ms):5d}  p50 {statistics.median(ms):7.3f} ms  "
            f"p99 {percentile(ms, 99):7.3f} ms  max {max(ms):7.3f} ms")


def summary(xs: list[float]) -> dict[str, float]:
    return ({"n": len(xs), "p50": statistics.median(xs) * 1e3,
             "p99": percentile(xs, 99) * 1e3, "max": max(xs) * 1e3} if xs else {"n": 0})


def whole_game(name: str, options: dict, layout: str, seed: int) -> dict:
    """One game played to its end on the board service by simulator actions."""
    with tempfile.TemporaryDirectory() as folder:
        config = Config()
        config.journal.path = folder
        config.board.layout = layout
        config.board.game = name
        config.board.options = dict(options)
        config.sensing.scan_hz = 50.0
        svc = BoardService(config, seed=1)
        try:
            svc.sim_action({"action": "arrange"})
            svc.step(0.2)
            rng = random.Random(seed)
            sim0, t0, cpu0 = svc.sim.now, time.perf_counter(), CLOCK()
            while svc.outcome is None:
                game, pos = svc.game, svc.position
                move = choose(game, pos, rng)
                before = len(svc.plies)
                for action in move_actions(game, pos, move, svc.layout):
                    svc.sim_action(action)
                    svc.step(0.06)
                    if svc.interaction.phase == "choice" and len(svc.plies) == before:
                        svc.answer_choice(svc.choice_labels().index(game.move_text(pos, move)))
                svc.step(0.2)
                assert len(svc.plies) == before + 1, game.move_text(pos, move)
            wall, cpu = time.perf_counter() - t0, CLOCK() - cpu0
            simulated, plies = svc.sim.now - sim0, len(svc.plies)
            reason = str(svc.outcome.reason)
        finally:
            svc.close()
    return {"game": name, "options": options, "seed": seed, "plies": plies, "reason": reason,
            "wall_ms": wall / plies * 1e3, "cpu_ms": cpu / plies * 1e3,
            "board_s": simulated / plies, "speed": simulated / wall}


#: times every game is played on the service for the sensor frame -> LED frame figures
LED_ROUNDS = 3


def median_per_poll(rounds: list[list[float]]) -> list[float]:
    """Per poll the median over the rounds of one deterministic game (every poll pooled
    if the rounds did not see the same number of polls)."""
    if len({len(r) for r in rounds}) == 1:
        return [statistics.median(ts) for ts in zip(*rounds, strict=True)]
    return [t for r in rounds for t in r]


def play_label(registered: str, options: dict) -> str:
    """A game and player count as the goals name it (``kaleidochess (3 players)``)."""
    extra = [f"{options['players']} players"] if "players" in options else []
    extra += ["Chess960"] if options.get("chess960") else []
    return f"{registered} ({', '.join(extra)})" if extra else registered


def sensor_to_led(name: str, options: dict, layout: str, seed: int,
                  plies: int) -> tuple[list[float], list[float]]:
    """CPU seconds from the start of every poll of the board service that takes in a
    sensed frame until the LED driver has the new LED frame, while a seeded game is
    played by simulator actions: (polls that commit nothing, polls that commit a move —
    an amend too).  A move the simulated hands get wrong (the board asks for a
    correction) is undone by arranging the position again."""
    lit: list[float] = []
    committing: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        config = Config()
        config.journal.path = folder
        config.board.layout = layout
        config.board.game = name
        config.board.options = dict(options)
        svc = BoardService(config, seed=1)
        gc.collect()
        gc.freeze()  # as ``fairyboard run`` does after start-up
        board = svc.board
        assert board is not None and svc.leds is not None
        period = svc.sensing.period
        shown: list[float] = []  # CPU clock when the LED driver had the frame
        show = svc.leds.show

        def timed_show(frame: LedFrame) -> None:
            show(frame)
            shown.append(CLOCK())

        svc.leds.show = timed_show  # type: ignore[method-assign]
        commits = [0]  # moves committed (an amend too: the Cube handed over after a move)
        board.subscribe("move", lambda move: commits.__setitem__(0, commits[0] + 1))

        def poll_for(seconds: float) -> None:
            end = svc.sim.now + seconds - 1e-9
            while svc.sim.now < end:
                svc.sim.advance(period)
                frame, held, before = board.sensed.frame, svc._previewed, commits[0]
                shown.clear()
                t0 = CLOCK()
                svc.tick()
                # up to the LED frame handed to the driver (what follows it in the poll
                # waits for nothing the player sees); the whole poll if the LEDs stay
                spent = (shown[0] if shown else CLOCK()) - t0
                if commits[0] != before:
                    committing.append(spent)
                elif board.sensed.frame is not frame or svc._previewed is not held:
                    lit.append(spent)

        try:
            svc.sim_action({"action": "arrange"})
            poll_for(0.2)
            rng = random.Random(seed)
            tries = 0
            while svc.outcome is None and len(svc.plies) < plies and tries < 3 * plies:
                tries += 1
                game, pos = svc.game, svc.position
                move = choose(game, pos, rng)
                text = game.move_text(pos, move)
                before = len(svc.plies)
                for action in move_actions(game, pos, move, svc.layout):
                    svc.sim_action(action)
                    poll_for(0.06)
                poll_for(0.25)  # a slide that might go on waits for the settle gate
                if svc.interaction.phase == "choice" and len(svc.plies) == before:
                    svc.answer_choice(svc.choice_labels().index(text))
                    poll_for(0.06)
                if len(svc.plies) == before:
                    svc.sim_action({"action": "arrange"})
                    poll_for(0.1)
        finally:
            svc.close()
            gc.unfreeze()
    return lit, committing


def run(game_name: str, quick: bool = False, whole: bool = True,
        say: Callable[[str], None] = print) -> dict:
    """Every figure of one game (``benchmarks.run_all`` writes them to the docs)."""
    layout_name, plays = GAMES[game_name]
    layout = load_layout(layout_name)
    figures = Figures()
    count = 0
    by_play: dict[str, dict[str, list[float]]] = {}
    for registered, options, seed in plays[:2] if quick else plays:
        game = get_game(registered, **options)
        fed = len(figures.feed)
        fed_rounds = [len(xs) for xs in figures.feed_rounds]
        for ply, pos in positions(game, seed, every=12 if quick else 6,
                                  limit=60 if quick else 120):
            line = replay(game, pos, layout, figures, quick)
            count += 1
            say(f"  {registered} {options or ''} ply {ply:3d}: {line}")
        # the game played three times on a new service: the same polls (it is deterministic
        # in simulated time), each counted with the median of its three times
        played = [sensor_to_led(registered, options, layout_name, seed, 20 if quick else 60)
                  for _ in range(1 if quick else LED_ROUNDS)]
        lit = median_per_poll([x[0] for x in played])
        committing = median_per_poll([x[1] for x in played])
        say(f"  {registered} {options or ''}: sensor frame -> LED frame, {len(lit)} polls")
        figures.led += lit
        figures.led_commit += committing
        mine = by_play.setdefault(play_label(registered, options),
                                  {"feed": [], "led": [], "led_commit": [],
                                   **{f"feed_round{r}": [] for r in range(FEED_ROUNDS)},
                                   **{f"led_round{r}": [] for r in range(LED_ROUNDS)}})
        mine["feed"] += figures.feed[fed:]
        for r, xs in enumerate(figures.feed_rounds):
            mine[f"feed_round{r}"] += xs[fed_rounds[r]:]
        mine["led"] += lit
        mine["led_commit"] += committing
        for r, (xs, _) in enumerate(played):
            mine[f"led_round{r}"] += xs
    result = {"game": game_name, "layout": layout_name, "positions": count,
              "build": summary(figures.build), "decide": summary(figures.decide),
              "feed": summary(figures.feed), "commit": summary(figures.commit),
              "exchange": summary(figures.exchange),
              "led": summary(figures.led), "led_commit": summary(figures.led_commit),
              "feed_rounds_p99": [percentile(xs, 99) * 1e3 for xs in figures.feed_rounds],
              "plays": {label: {**{k: summary(v) for k, v in xs.items()
                                   if "_round" not in k},
                                "feed_rounds_p99": [percentile(xs[f"feed_round{r}"], 99) * 1e3
                                                    for r in range(FEED_ROUNDS)],
                                "led_rounds_p99": [percentile(xs[f"led_round{r}"], 99) * 1e3
                                                   for r in range(LED_ROUNDS)
                                                   if xs[f"led_round{r}"]]}
                        for label, xs in by_play.items()},
              "legal_ms": statistics.median(r[2] for r in figures.rules) * 1e3,
              "tries_ms": statistics.median(r[3] for r in figures.rules) * 1e3,
              "view_ms": (statistics.median(r[4] for r in figures.rules) * 1e3
                          if figures.rules[0][4] is not None else None),
              "moves": statistics.fmean(r[0] for r in figures.rules),
              "whole": []}
    say("")
    say(row("index build, once per position", figures.build))
    say(row("Reconciler.decide, per sensor change", figures.decide))
    say(row("Board.feed, per change (no commit)", figures.feed))
    say("  p99 of each round: " + ", ".join(f"{x:.3f} ms" for x in result["feed_rounds_p99"]))
    say(row("Board.feed, commit + next index", figures.commit))
    if figures.exchange:
        say(row("Board.feed, the exchange lift", figures.exchange))
    say(row("sensor frame -> LED frame (service poll)", figures.led))
    say(row("service poll that commits a move", figures.led_commit))
    for label, xs in by_play.items():
        say(row(f"  {label}: Board.feed", xs["feed"]))
        say(row(f"  {label}: sensor frame -> LED frame", xs["led"]))
    view = (f", the player's view {result['view_ms']:.3f} ms"
            if result["view_ms"] is not None else "")
    say(f"rules per position (median): legal moves {result['legal_ms']:.3f} ms, "
        f"moves a player may try {result['tries_ms']:.3f} ms{view}")
    ok = (percentile(figures.decide, 99) <= 2e-3 and percentile(figures.feed, 99) <= 2e-3)
    say(f"goal p99 <= 2 ms per sensor change (decision and machine): "
        f"{'met' if ok else 'MISSED'}")
    ok = all(percentile(xs["feed"], 99) <= 0.2e-3 for xs in by_play.values())
    say(f"goal Board.feed p99 <= 0.2 ms, every game and player count: "
        f"{'met' if ok else 'MISSED'}")
    ok = all(percentile(xs["led"], 99) <= 1e-3 for xs in by_play.values())
    say(f"goal sensor frame -> LED frame p99 <= 1 ms, every game and player count: "
        f"{'met' if ok else 'MISSED'}")
    if whole and game_name in WHOLE_GAMES:
        say("whole games on the board service (simulated board, simulator actions):")
        for name, options, seed in WHOLE_GAMES[game_name][:1] if quick \
                else WHOLE_GAMES[game_name]:
            g = whole_game(name, options, layout_name, seed)
            result["whole"].append(g)
            say(f"  {name} {options or ''} seed {seed}: {g['plies']:3d} plies to "
                f"{g['reason']}: {g['wall_ms']:6.1f} ms wall ({g['cpu_ms']:5.1f} ms CPU) "
                f"per ply, {g['board_s']:4.2f} s board time per ply "
                f"({g['speed']:5.1f}x real time)")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", action="append", choices=sorted(GAMES),
                        help="the game (repeatable; default: every game)")
    parser.add_argument("--quick", action="store_true", help="fewer positions")
    args = parser.parse_args()
    for name in args.game or sorted(GAMES):
        print(f"== {name} ({GAMES[name][0]})")
        run(name, args.quick)
        print()


if __name__ == "__main__":
    main()
