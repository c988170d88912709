"""A power cut at a chosen fsync (torn or vanished writes) and the resume: test and sweep."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import pytest

import controller.journal as journal_module
from controller.config import Config
from controller.journal import Journal
from controller.service import BoardService
from controller.web.page import page_state
from controller.web.simulator import move_actions
from tests.support.killpoints import SCRIPT_STATES

#: page state after each step: (games started, moves of the newest game, its result)
#: page state after each step of the kill-point script, from before anything started
STATES = [(0, (), None), *SCRIPT_STATES]


class PowerCut(BaseException):
    """The power goes (a BaseException: nothing in the service may catch it)."""


class Disk:
    """Counts journal fsyncs and remembers what each made durable; at the ``cut_at``-th
    one the power goes: :meth:`after_cut` then leaves the folder as a disk would."""

    def __init__(self, folder: Path, cut_at: int, torn: float, vanish: bool):
        self.folder, self.cut_at, self.torn, self.vanish = folder, cut_at, torn, vanish
        self.count = 0
        self.durable: dict[str, int] = {}   # file name -> bytes made durable
        self.entries: set[str] = set()      # names whose folder entry was synced

    def fsync(self, fd: int) -> None:
        self.count += 1
        if self.count == self.cut_at:
            raise PowerCut
        path = Path(os.readlink(f"/proc/self/fd/{fd}"))
        if path.is_dir():
            self.entries |= {p.name for p in path.iterdir()}
        else:
            self.durable[path.name] = os.fstat(fd).st_size
        os.fsync(fd)

    def after_cut(self) -> None:
        for path in self.folder.glob("*.jsonl"):
            if path.name not in self.entries and self.vanish:
                path.unlink()
                continue
            data = path.read_bytes()
            keep = self.durable.get(path.name, 0)
            keep += int((len(data) - keep) * self.torn)
            path.write_bytes(data[:keep])


def _config(folder: Path) -> Config:
    config = Config()
    config.journal.path = str(folder)
    config.sensing.settle_ms = 50.0
    config.sensing.debounce_ms = 5.0
    config.board.takeback_delay_s = 0.3
    return config


class Page:
    """What the page showed, step by step."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.shown: list[tuple] = [STATES[0]]

    def look(self, svc: BoardService) -> None:
        state = page_state(svc)
        if state["game"]["id"] not in self.ids:
            self.ids.append(state["game"]["id"])
        self.shown.append((len(self.ids), tuple(m["text"] for m in state["moves"]),
                           state["result"] and state["result"]["text"]))


def _sim(svc: BoardService, *actions: dict) -> None:
    for action in actions:
        svc.sim_action(action)
        svc.step(0.05)
    svc.step(0.4)


def _move(svc: BoardService, text: str) -> None:
    move = svc.game.parse_move(svc.position, text)
    _sim(svc, *move_actions(svc.game, svc.position, move, svc.layout))


def _lift_place(a: str, b: str) -> list[dict]:
    return [{"action": "lift", "spot": a}, {"action": "place", "spot": b}]


STEPS = [
    lambda svc: _sim(svc, {"action": "arrange"}),
    lambda svc: _move(svc, "Mb1-c3"),
    lambda svc: _move(svc, "Eb7-a6"),
    lambda svc: _sim(svc, *_lift_place("black-cube", "white-cube")),
    lambda svc: _move(svc, "Mg8-f6"),
    lambda svc: _sim(svc, *_lift_place("f6", "g8")),
    lambda svc: svc.command("resign"),
    lambda svc: svc.new_game("luotuoqi"),
    lambda svc: (_sim(svc, {"action": "arrange"}), _move(svc, "Mb1-c3")),
]


def cut_and_resume(folder: Path, cut_at: int, torn: float, vanish: bool
                   ) -> tuple[list[tuple], tuple, BoardService]:
    """Play until the power goes at the ``cut_at``-th fsync; then restart.  Returns what
    the page showed, what the journal resumed and the restarted service (to close)."""
    disk = Disk(folder, cut_at, torn, vanish)
    page = Page()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(journal_module, "_fsync", disk.fsync)
        svc = None
        try:
            svc = BoardService(_config(folder))
            page.look(svc)
            for step in STEPS:
                step(svc)
                page.look(svc)
        except PowerCut:
            pass
        finally:
            if svc is not None:
                with contextlib.suppress(Exception):
                    svc.sensing.close()
                    svc.session.writer.close()
    disk.after_cut()
    records = Journal(folder).games()
    newest = records[-1] if records else None
    resumed = (len(records), tuple(newest.moves), newest.result) if newest else STATES[0]
    again = BoardService(_config(folder))
    if newest is not None and newest.result is None:
        assert again.game_id == newest.id
        assert tuple(t for _, t in again.plies) == resumed[1]
    return page.shown, resumed, again


def check(shown: list[tuple], resumed: tuple) -> None:
    """The journal holds what the page showed last, or that with the step in flight done."""
    step = 0
    for seen in shown:
        if seen != STATES[step]:
            step = STATES.index(seen, step + 1)
    assert resumed in STATES[step:step + 2], (shown[-2:], resumed)
