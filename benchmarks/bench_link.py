"""Linked boards at club scale: N boards play random games in pairs through one real
Mosquitto on loopback; move propagation latency (publish → the other board has it),
the boards' process CPU and memory, and the broker's CPU.

    python -m benchmarks.bench_link --boards 10 50 200 --seconds 20

Every board is its own MQTT client (paho, its own network thread, persistent session),
as on a Pi.  The boards run in several processes (``--processes``; by default one per 25
boards, both boards of a game in the same one so that one clock times the move): a club's
boards are separate machines, and 200 paho threads behind one interpreter lock measure
that lock, not the link — with one process the latency includes queueing behind the
other boards' threads, an upper bound for one board on its own Pi.  Moves are random legal
Lùotuoqí moves with the real message format; a board answers ``--think`` seconds on
average after the other's move arrived (0: at once, which loads the broker and the
processes far more than people do); the games start staggered over the first ``--think``
seconds, as people do not all move at the same instant.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import resource
import statistics
import tempfile
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from controller.link.client import BrokerSettings, MqttLink
from controller.link.game import LinkedGame, Show
from controller.link.messages import MoveMessage, Start, game_topic, position_digest
from controller.rules import get_game
from tests.support.broker import Broker


@dataclass
class Pair:
    """Two boards playing one game; the rules position is shared (the link is measured)."""

    start: Start
    links: tuple[MqttLink, MqttLink]
    sides: tuple[LinkedGame, LinkedGame]
    pos: object
    sent: dict[int, float] = field(default_factory=dict)
    done: bool = False
    due: float | None = None  #: when the board to move answers


def _cpu_ticks(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _worker(pair_ids: range, port: int, seconds: float, think: float, seed: int,
            ready, go, results) -> None:
    """Play the games ``pair_ids`` (two boards each) until ``seconds`` have passed after
    ``go``; put (latencies, CPU seconds, peak RSS MiB) on ``results``."""
    game = get_game("luotuoqi")
    rng = random.Random(seed * 1000 + pair_ids.start)
    pairs: list[Pair] = []
    latencies: list[float] = []
    try:
        for k in pair_ids:
            names = (f"b{2 * k}", f"b{2 * k + 1}")
            start = Start(f"g{k}", "luotuoqi", {}, game.position_text(game.start()), names)
            links = tuple(MqttLink(BrokerSettings(port=port, club="bench", board=n))
                          for n in names)
            for link in links:
                link.subscribe(game_topic("bench", start.game_id, "moves"))
            pairs.append(Pair(start, links, (LinkedGame(start, names[0]),
                                             LinkedGame(start, names[1])), game.start()))
        deadline = time.monotonic() + 60
        while not all(link.connected for p in pairs for link in p.links):
            if time.monotonic() > deadline:
                raise RuntimeError("the boards did not all connect")
            time.sleep(0.05)
        time.sleep(0.5)  # subscriptions settle
        ready.release()
        go.wait()
        cpu0 = time.process_time()
        wall0 = time.monotonic()

        def move(p: Pair) -> None:
            legal = game.legal_moves(p.pos)
            outcome = game.outcome(p.pos)
            if not legal or outcome is not None or len(p.pos.moves) >= 150:
                p.done = True
                return
            m = rng.choice(legal)
            seat = game.ply_mover(p.pos)
            text = game.long_move_text(p.pos, m)
            p.pos.push(m)
            digest = position_digest(game.position_text(p.pos))
            message = p.sides[seat].local_move(seat, text, digest)
            p.sent[message.ply] = time.perf_counter()
            p.links[seat].publish(game_topic("bench", p.start.game_id, "moves"), message)

        for p in pairs:
            p.due = time.monotonic() + rng.uniform(0, 1) * think
        while time.monotonic() - wall0 < seconds:
            idle = True
            for p in pairs:
                for side in (0, 1):
                    for _topic, message in p.links[side].receive():
                        if not isinstance(message, MoveMessage):
                            continue
                        for action in p.sides[side].receive(message):
                            if isinstance(action, Show):
                                latencies.append(time.perf_counter() - p.sent[action.ply])
                                p.sides[side].remote_made(action.move, action.digest)
                                idle = False
                                p.due = time.monotonic() + rng.uniform(0.5, 1.5) * think
            now = time.monotonic()
            for p in pairs:
                if p.done:  # the next game on the same boards
                    p.start = replace(p.start, game_id=p.start.game_id + "n")
                    for link in p.links:
                        link.subscribe(game_topic("bench", p.start.game_id, "moves"))
                    p.sides = (LinkedGame(p.start, p.start.seats[0]),
                               LinkedGame(p.start, p.start.seats[1]))
                    p.pos, p.done = game.start(), False
                    p.sent.clear()
                    p.due = now + 0.2 + think  # its subscription settles first
                elif p.due is not None and p.due <= now:
                    p.due = None
                    move(p)
            if idle:
                time.sleep(0.001)
        cpu = time.process_time() - cpu0
    finally:
        for p in pairs:
            for link in p.links:
                link.close()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    results.put((latencies, cpu, rss))


def run(boards: int, seconds: float, think: float = 0.0, seed: int = 1,
        processes: int = 0) -> dict:
    """``boards`` boards in ``processes`` processes (0: one per 25 boards, as several
    Pis would be; the pairs are dealt out evenly)."""
    processes = processes or max(1, round(boards / 25))
    pair_count = boards // 2
    context = multiprocessing.get_context("spawn")
    folder = Path(tempfile.mkdtemp(prefix="bench-link-"))
    broker = Broker(folder, extra="max_queued_messages 10000\nset_tcp_nodelay true").start()
    ready, go, results = context.Semaphore(0), context.Event(), context.Queue()
    shares = [range(pair_count * i // processes, pair_count * (i + 1) // processes)
              for i in range(processes)]
    workers = [context.Process(target=_worker, args=(share, broker.port, seconds, think,
                                                     seed, ready, go, results))
               for share in shares]
    try:
        for w in workers:
            w.start()
        for _ in workers:
            if not ready.acquire(timeout=120):
                raise RuntimeError("a worker did not get its boards connected")
        broker0 = _cpu_ticks(broker.mosquitto.process.pid)
        wall0 = time.monotonic()
        go.set()
        outcomes = [results.get(timeout=seconds + 120) for _ in workers]
        wall = time.monotonic() - wall0
        broker_cpu = _cpu_ticks(broker.mosquitto.process.pid) - broker0
        for w in workers:
            w.join(30)
    finally:
        for w in workers:
            if w.is_alive():
                w.terminate()
        broker.stop()
    lat = sorted(x for latencies, _, _ in outcomes for x in latencies)
    cpu = sum(c for _, c, _ in outcomes)
    rss = sum(r for _, _, r in outcomes)
    q = (statistics.quantiles(lat, n=100, method="inclusive") if len(lat) >= 2
         else [float("nan")] * 99)
    return {"boards": boards, "processes": processes, "moves": len(lat),
            "moves_per_s": len(lat) / wall,
            "p50_ms": q[49] * 1000, "p99_ms": q[98] * 1000, "max_ms": lat[-1] * 1000,
            "boards_cpu_s": cpu, "boards_cpu_per_board_ms_per_s": cpu / wall / boards * 1000,
            "broker_cpu_pct": 100 * broker_cpu / wall, "rss_mib": rss,
            "rss_per_board_mib": rss / boards}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, nargs="+", default=[10, 50, 200])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--think", type=float, default=2.0,
                    help="seconds a board takes to answer, on average (0: at once)")
    ap.add_argument("--processes", type=int, default=0,
                    help="processes the boards run in (0: one per 25 boards)")
    ap.add_argument("--also-one-process", action="store_true",
                    help="then the most boards again, all in one process (for comparison)")
    args = ap.parse_args()
    print(f"think {args.think:g} s per move on average, {args.seconds:g} s per run, "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start")
    print("| boards | processes | moves | moves/s | p50 ms | p99 ms | max ms | boards' CPU "
          "per board (ms/s) | broker CPU % | boards' RSS MiB (per board) |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    runs = [(n, args.processes) for n in args.boards]
    if args.also_one_process:
        runs.append((max(args.boards), 1))
    for n, processes in runs:
        r = run(n, args.seconds, args.think, processes=processes)
        print(f"| {r['boards']} | {r['processes']} | {r['moves']} | {r['moves_per_s']:.0f} | "
              f"{r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['max_ms']:.1f} | "
              f"{r['boards_cpu_per_board_ms_per_s']:.2f} | {r['broker_cpu_pct']:.1f} | "
              f"{r['rss_mib']:.0f} ({r['rss_per_board_mib']:.2f}) |", flush=True)


if __name__ == "__main__":
    main()
