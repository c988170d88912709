"""The linked boards' fault sweep: two board services play seeded random Lùotuoqí games
through a real Mosquitto, each behind a fault proxy (tests/support/faultproxy.py) that
cuts connections, delays, duplicates (DUP redeliveries) and reorders MQTT packets; the
broker is stopped and restarted (cleanly, or killed with SIGKILL), a board loses power
mid-game now and then, and now and then a move is taken back on one board and the other
agrees or declines.  After every game both boards and both journals are compared with
the plies made: lost, duplicated and forked plies are counted.

    python -m benchmarks.link_faults --faults 1000 [--seed 1] [--no-write]

The figures go into docs/reliability.md between ``<!-- link_faults -->`` and
``<!-- /link_faults -->`` (generated, never written by hand).
"""

from __future__ import annotations

import argparse
import datetime
import random
import signal
import tempfile
import time
from collections import Counter
from pathlib import Path

from benchmarks.benchtools import write_section
from tests.support.broker import Broker
from tests.support.faultproxy import FaultProxy, Faults
from tests.support.linkplay import LinkedBoards, linked_service, power_cut

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "reliability.md"
FAULTS = Faults(drop=0.01, duplicate=0.25, delay=0.15, reorder=0.2)
#: every so many plies: a broker restart (alternately clean and SIGKILL), a cut
#: connection, a power cut of one board
RESTART_EVERY, CUT_EVERY, POWER_CUT_EVERY = 15, 5, 40
#: every so many plies a takeback of the last ply, alternately agreed and declined
TAKEBACK_EVERY = 9


def restart_broker(broker: Broker, kill: bool) -> None:
    process = broker.mosquitto.process
    if kill and process is not None:
        process.send_signal(signal.SIGKILL)
        process.wait()
        broker.mosquitto.process = None
    else:
        broker.stop()
    broker.start()


def run(target: int, seed: int, say=print) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="link-faults-"))
    (folder / "broker").mkdir()
    broker = Broker(folder / "broker").start()
    names = ("alpha", "beta")
    proxies = {n: FaultProxy(broker.port, FAULTS, seed * 100 + i) for i, n in enumerate(names)}
    boards = LinkedBoards({n: linked_service(folder, n, p.port) for n, p in proxies.items()})
    rng = random.Random(seed)
    events: Counter[str] = Counter()
    problems: Counter[str] = Counter()
    stalls: list[str] = []
    plies = games = 0
    t0, cpu0 = time.monotonic(), time.process_time()

    def faults() -> int:
        return (sum(p.total for p in proxies.values()) + events["broker restart"]
                + events["broker SIGKILL"] + events["power cut"])

    try:
        boards.connected()
        while faults() < target:
            host = names[games % 2]
            link_id = boards.start(host, "luotuoqi",
                                   remote={1: names[(games + 1) % 2]})
            games += 1
            try:
                while boards.all[0].outcome is None and len(boards.expected) < 80:
                    boards.random_ply(rng)
                    plies += 1
                    if plies % RESTART_EVERY == 0:
                        kill = (plies // RESTART_EVERY) % 2 == 0
                        restart_broker(broker, kill)
                        events["broker SIGKILL" if kill else "broker restart"] += 1
                    elif plies % POWER_CUT_EVERY == 3:
                        name = rng.choice(names)
                        power_cut(boards.services[name])
                        events["power cut"] += 1
                        expected = boards.expected
                        svc = linked_service(folder, name, proxies[name].port)
                        boards = LinkedBoards({**boards.services, name: svc})
                        boards.expected = expected
                        svc.sim_action({"action": "arrange"})
                        boards.wait(lambda s=svc: s.interaction.phase in ("turn", "execute")
                                    and s.remote.game.epoch_known)
                    elif plies % CUT_EVERY == 0:
                        proxies[rng.choice(names)].cut()
                    if plies % TAKEBACK_EVERY == 0:
                        accept = (plies // TAKEBACK_EVERY) % 2 == 0
                        if boards.take_back_last(accept):
                            events["takeback " + ("agreed" if accept else "declined")] += 1
            except AssertionError as exc:  # a ply that never arrived, or a stop
                stalls.append(f"game {games}, ply {len(boards.expected) + 1}: "
                              f"{str(exc).splitlines()[0][:300]}")
                problems.update(boards.disagreements(link_id))
                break
            problems.update(boards.disagreements(link_id))
            say(f"game {games}: {len(boards.expected)} plies, {faults()} faults so far, "
                f"problems {dict(problems) or 0}")
    finally:
        boards.close()
        for p in proxies.values():
            p.close()
        broker.stop()
    counts = sum((p.counts for p in proxies.values()), Counter())
    return {"seed": seed, "games": games, "plies": plies, "faults": faults(),
            "kinds": dict(counts) | dict(events), "problems": dict(problems),
            "stalls": stalls, "wall_s": time.monotonic() - t0,
            "cpu_s": time.process_time() - cpu0}


def report(r: dict) -> str:
    kinds = ", ".join(f"{k} {v:,}" for k, v in sorted(r["kinds"].items(), key=lambda kv: -kv[1])
                      if not k.startswith("takeback"))
    takebacks = f"{r['kinds'].get('takeback agreed', 0)} / {r['kinds'].get('takeback declined', 0)}"
    p = r["problems"]
    lines = [
        f"Generated {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC by "
        f"`python -m benchmarks.link_faults --faults {r['target']} --seed {r['seed']}`.",
        "",
        "| games | plies | takebacks agreed / declined | faults | of which | lost | "
        "duplicated | forked | wall |",
        "|---:|---:|---:|---:|---|---:|---:|---:|---:|",
        f"| {r['games']} | {r['plies']:,} | {takebacks} | **{r['faults']:,}** | {kinds} | "
        f"**{p.get('lost', 0)}** | **{p.get('duplicated', 0)}** | **{p.get('forked', 0)}** | "
        f"{r['wall_s']:.0f} s |",
    ]
    if r["stalls"]:
        lines += ["", "Stopped early:", *[f"- {s}" for s in r["stalls"]]]
    return "\n".join(lines)


def write(text: str) -> None:
    write_section(DOC, "link_faults", text)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--faults", type=int, default=1000, help="stop after this many faults")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-write", action="store_true", help="print, leave the docs alone")
    args = ap.parse_args()
    r = run(args.faults, args.seed)
    r["target"] = args.faults
    text = report(r)
    print(text)
    if not args.no_write:
        write(text)
    bad = sum(r["problems"].values()) + len(r["stalls"])
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
