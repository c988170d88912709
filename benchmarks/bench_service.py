"""Figures of the board service with the simulated board (prints; asserts nothing).

    python -m benchmarks.bench_service

* start-up of the service object;
* cost of one poll (``tick``) when nothing happens and when a frame is processed, in
  wall-clock time: at the default 200 scans/s this is the loop's CPU share;
* reaction latencies in the pipeline's own time (what a player experiences): lift → the
  LEDs show the targets, place → the move is on disk (a step, and a slide that waits for
  the settle time);
* the page's state: build time and JSON size per board;
* a whole game (8 plies, with a Cube turn and two choices) played by simulated actions;
* one journal record (write + fsync) on the journal's file system.
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path

from controller.config import Config
from controller.journal import Journal
from controller.service import BoardService
from controller.web.page import page_for, page_state
from controller.web.simulator import move_actions

MATE_GAME = ["Ee2-d3", "Ec7-b6+cube", "Eg7-f6", "T6d1-f3", "Ef7-e6", "T6f3-h5", "Ef6-f7",
             "T2h5xf7"]


def service(folder: Path, layout: str = "square8", game: str = "luotuoqi") -> BoardService:
    """A service with a journal of its own (a shared one would resume the last game)."""
    c = Config()
    c.journal.path = tempfile.mkdtemp(prefix=f"journal-{game}-", dir=folder)
    c.board.layout, c.board.game = layout, game
    return BoardService(c)


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def until(svc: BoardService, done, limit: float = 2.0) -> float:
    """Step one scan period at a time until ``done()``; the simulated time it took."""
    start = svc.sim.now
    while not done():
        svc.step(svc.sensing.period)
        if svc.sim.now - start > limit:
            raise RuntimeError("timed out")
    return svc.sim.now - start


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="fairyboard-bench-"))
    t = time.perf_counter()
    svc = service(folder)
    print(f"service start-up (square8, simulated matrix): {ms(time.perf_counter() - t)}")
    svc.sim_action({"action": "arrange"})
    svc.step(0.3)

    # idle polls
    samples = []
    for _ in range(400):
        t = time.perf_counter()
        svc.sim.advance(svc.sensing.period)
        svc.tick()
        samples.append(time.perf_counter() - t)
    idle = statistics.median(samples)
    print(f"idle poll (emulated scan + tick), median: {ms(idle)}  -> "
          f"{idle * 200 * 100:.1f} % of one core at 200 scans/s")

    # lift -> LEDs
    svc.sim_action({"action": "lift", "spot": "g1"})
    lit = until(svc, lambda: "target" in svc.led_frame.roles)
    print(f"lift -> targets lit, in board time: {ms(lit)} "
          f"(debounce {svc.config.sensing.debounce_ms:g} ms, scan period "
          f"{ms(svc.sensing.period)})")
    svc.sim_action({"action": "place", "spot": "f3"})
    plies = len(svc.plies)
    on_disk = until(svc, lambda: len(svc.plies) > plies)
    print(f"place (a leap, cannot be extended) -> move on disk: {ms(on_disk)}")

    # a slide that could go on waits for the settle time
    for a, b in (("d7", "e6"), ("d2", "e3"), ("b8", "c6")):
        svc.sim_action({"action": "lift", "spot": a})
        svc.step(0.05)
        svc.sim_action({"action": "place", "spot": b})
        svc.step(0.4)
    svc.sim_action({"action": "lift", "spot": "d1", "count": 8})
    svc.step(0.05)
    plies = len(svc.plies)
    svc.sim_action({"action": "place", "spot": "d2"})
    settled = until(svc, lambda: len(svc.plies) > plies or svc.interaction.phase == "choice")
    print(f"place (a Tower that could slide on) -> decided: {ms(settled)} "
          f"(settle {svc.config.sensing.settle_ms:g} ms)")

    # one tick that processes a frame (wall clock)
    svc.sim_action({"action": "lift", "spot": "a8"})
    svc.sim.advance(0.03)
    t = time.perf_counter()
    svc.tick()
    print(f"tick that handles a lift (reconciler, state machine, LED scene): "
          f"{ms(time.perf_counter() - t)}")
    svc.close()

    # the page's state
    for layout, game in (("square8", "luotuoqi"), ("kaleido89", "kaleidochess"),
                         ("lotus39", "lotus39"), ("square8", "laotzu")):
        s = service(folder, layout, game)
        s.sim_action({"action": "arrange"})
        s.step(0.2)
        times = []
        for _ in range(20):
            page_for(s).clear()
            t = time.perf_counter()
            state = page_state(s, 0)
            times.append(time.perf_counter() - t)
        size = len(json.dumps(state))
        print(f"page state {layout}/{game}: {ms(statistics.median(times))}, "
              f"{size / 1024:.1f} KiB JSON")
        s.close()

    # a whole game
    s = service(folder)
    s.sim_action({"action": "arrange"})
    s.step(0.2)
    t = time.perf_counter()
    board_time = s.sim.now
    for text in MATE_GAME:
        g, pos = s.game, s.position
        for action in move_actions(g, pos, g.parse_move(pos, text), s.layout):
            s.sim_action(action)
            s.step(0.03)
        s.step(0.3)
        if s.interaction.phase == "choice":
            s.answer_choice(s.choice_labels().index(text))
            s.step(0.05)
    assert [x for _, x in s.plies] == MATE_GAME
    print(f"whole game ({len(MATE_GAME)} plies by simulated actions): "
          f"{time.perf_counter() - t:.2f} s wall for {s.sim.now - board_time:.1f} s of board "
          "time")
    s.close()

    # journal record
    writer = Journal(folder / "fsync").new_game("luotuoqi", {}, "-", ["a", "b"])
    times = []
    for _ in range(50):
        t = time.perf_counter()
        writer.move("Mb1-c3")
        times.append(time.perf_counter() - t)
    writer.close()
    print("journal record (write + fsync) on a temporary folder's file system: "
          f"median {ms(statistics.median(times))}, max {ms(max(times))}")


if __name__ == "__main__":
    main()
