"""Linked boards at club scale: N boards play random games in pairs through one real
Mosquitto on loopback; move propagation latency (publish → the other board has it),
the boards' process CPU and memory, and the broker's CPU.

    python -m benchmarks.bench_link --boards 10 50 200 --seconds 20

Every board is its own MQTT client (paho, its own network thread, persistent session),
as on a Pi; here all of them share one Python process, so the latency includes queueing
behind the other boards' threads — an upper bound for one board on its own Pi.  Moves are
random legal Lùotuoqí moves with the real message format; a board answers as soon as the
other's move arrives after ``--think`` seconds on average (0: at once, which loads the
broker and this one process far more than people do).
"""

from __future__ import annotations

import argparse
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


def run(boards: int, seconds: float, think: float = 0.0, seed: int = 1) -> dict:
    game = get_game("luotuoqi")
    rng = random.Random(seed)
    folder = Path(tempfile.mkdtemp(prefix="bench-link-"))
    broker = Broker(folder, extra="max_queued_messages 10000\nset_tcp_nodelay true").start()
    pairs: list[Pair] = []
    latencies: list[float] = []
    try:
        for k in range(boards // 2):
            names = (f"b{2 * k}", f"b{2 * k + 1}")
            start = Start(f"g{k}", "luotuoqi", {}, game.position_text(game.start()), names)
            links = tuple(MqttLink(BrokerSettings(port=broker.port, club="bench", board=n))
                          for n in names)
            for link in links:
                link.subscribe(game_topic("bench", start.game_id, "moves"))
            pairs.append(Pair(start, links, (LinkedGame(start, names[0]),
                                             LinkedGame(start, names[1])), game.start()))
        deadline = time.monotonic() + 30
        while not all(link.connected for p in pairs for link in p.links):
            if time.monotonic() > deadline:
                raise RuntimeError("the boards did not all connect")
            time.sleep(0.05)
        time.sleep(0.5)  # subscriptions settle
        cpu0, broker0 = time.process_time(), _cpu_ticks(broker.process.pid)
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
            move(p)
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
                if p.due is not None and p.due <= now:
                    p.due = None
                    move(p)
            if all(p.done for p in pairs):
                for p in pairs:  # the next game on the same boards
                    p.start = replace(p.start, game_id=p.start.game_id + "n")
                    for link in p.links:
                        link.subscribe(game_topic("bench", p.start.game_id, "moves"))
                    p.sides = (LinkedGame(p.start, p.start.seats[0]),
                               LinkedGame(p.start, p.start.seats[1]))
                    p.pos, p.done = game.start(), False
                    p.sent.clear()
                time.sleep(0.2)
                for p in pairs:
                    move(p)
            if idle:
                time.sleep(0.001)
        wall = time.monotonic() - wall0
        cpu = time.process_time() - cpu0
        broker_cpu = _cpu_ticks(broker.process.pid) - broker0
    finally:
        for p in pairs:
            for link in p.links:
                link.close()
        broker.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    lat = sorted(latencies)
    q = (statistics.quantiles(lat, n=100, method="inclusive") if len(lat) >= 2
         else [float("nan")] * 99)
    return {"boards": boards, "moves": len(lat), "moves_per_s": len(lat) / wall,
            "p50_ms": q[49] * 1000, "p99_ms": q[98] * 1000, "max_ms": lat[-1] * 1000,
            "boards_cpu_s": cpu, "boards_cpu_per_board_ms_per_s": cpu / wall / boards * 1000,
            "broker_cpu_pct": 100 * broker_cpu / wall, "rss_mib": rss}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--boards", type=int, nargs="+", default=[10, 50, 200])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--think", type=float, default=2.0,
                    help="seconds a board takes to answer, on average (0: at once)")
    args = ap.parse_args()
    print(f"think {args.think:g} s per move on average, {args.seconds:g} s per run")
    print("| boards | moves | moves/s | p50 ms | p99 ms | max ms | boards' CPU per board "
          "(ms/s) | broker CPU % | boards' RSS MiB |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in args.boards:
        r = run(n, args.seconds, args.think)
        print(f"| {r['boards']} | {r['moves']} | {r['moves_per_s']:.0f} | {r['p50_ms']:.1f} | "
              f"{r['p99_ms']:.1f} | {r['max_ms']:.1f} | "
              f"{r['boards_cpu_per_board_ms_per_s']:.2f} | {r['broker_cpu_pct']:.1f} | "
              f"{r['rss_mib']:.0f} |", flush=True)


if __name__ == "__main__":
    main()
