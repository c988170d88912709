"""Linked boards as tests and the link benchmarks drive them: services on simulated boards
linked through a real broker (optionally each through a :class:`FaultProxy`), playing a
game ply by ply — the mover's board makes the move, every other board shows it and the
person there makes it — and the check that both journals hold the same plies.
"""

from __future__ import annotations

import contextlib
import random
import socket
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from controller.config import Config
from controller.journal import Journal
from controller.rules.core import Game, Move, Position
from controller.service import BoardService
from tests.support.service import play, set_up


def linked_service(folder: Path, name: str, port: int, *, layout: str | None = None,
                   game: str | None = None, fast_reconnect: bool = True,
                   password: str = "", referee: bool = False) -> BoardService:
    """A board service named ``name`` in the club ``test``, its journal in ``folder/name``.
    ``fast_reconnect``: paho's back-off from 50 ms (not 1 s) so that a test with many
    cut connections spends its time on faults, not on waiting.  ``password``: log in as
    ``name`` (the documented broker); ``referee``: the club has a referee."""
    config = Config()
    config.journal.path = str(folder / name / "journal")
    config.sensing.settle_ms = 50.0
    config.sensing.debounce_ms = 5.0
    if layout is not None:
        config.board.layout = layout
    if game is not None:
        config.board.game = game
    config.link.broker = "127.0.0.1"
    config.link.port = port
    config.link.board = name
    config.link.club = "test"
    if password:
        config.link.username, config.link.password = name, password
    config.link.referee = referee
    svc = BoardService(config)
    if fast_reconnect:
        assert svc.remote is not None
        svc.remote.mqtt.client.reconnect_delay_set(0.05, 0.5)
    return svc


def until(condition: Callable[[], bool], services: Sequence[BoardService],
          timeout: float = 20.0) -> None:
    """Run the services' loops until ``condition`` holds (a failure names every
    service's phase, message and link)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out; states: " + ", ".join(
                f"{s.interaction.phase}: {s.interaction.message!r} {s.link_json()}"
                for s in services))
        for s in services:
            s.step(0.02)
        time.sleep(0.002)


def finishing_move(game: Game, pos: Position, rng: random.Random) -> Move:
    """A seeded player that ends games soon: a move that wins at once (tried among the
    captures and a sample of the rest), else often a capture, else any legal move.  Moves
    handing an off-board token over with them (the Lùotuoqí Cube) are left out while
    another move exists: the board commits the move and then amends it with the
    hand-over, which a linked board refuses (the move went out; the turn is the other
    board's — tests/test_link_faults.py)."""
    moves = game.legal_moves(pos)
    moves = [m for m in moves if not m.token] or moves
    captures = [m for m in moves if m.captures]
    quiet = [m for m in moves if not m.captures]
    mover = game.ply_mover(pos)
    for move in captures + rng.sample(quiet, min(len(quiet), 30)):
        pos.push(move, record=False)
        try:
            outcome = game.outcome(pos)
        finally:
            pos.pop()
        if outcome is not None and mover in outcome.winners:
            return move
    if captures and rng.random() < 0.8:
        return rng.choice(captures)
    return rng.choice(moves)


def short_game(game: Game, seed: int, limit: int, least: int = 4) -> list[str]:
    """The move texts of the first seeded game (from ``seed`` on) that ends within
    ``least``..``limit`` plies — pure rules, so finding it costs little (a test names a
    seed that works at once)."""
    for s in range(seed, seed + 200):
        rng = random.Random(s)
        pos = game.start()
        texts: list[str] = []
        while game.outcome(pos) is None and len(texts) < limit:
            move = finishing_move(game, pos, rng)
            texts.append(game.move_text(pos, move))
            pos.push(move)
        if game.outcome(pos) is not None and len(texts) >= least:
            return texts
    raise AssertionError(f"no {game.name} game of {least}..{limit} plies from seed {seed}")


class LinkedBoards:
    """Services by board name, one linked game at a time between them."""

    def __init__(self, services: dict[str, BoardService]) -> None:
        self.services = services
        self.all = list(services.values())
        self.expected: list[str] = []  # the plies made, as the mover's board showed them

    def wait(self, condition: Callable[[], bool], timeout: float = 20.0) -> None:
        until(condition, self.all, timeout)

    def connected(self) -> None:
        self.wait(lambda: all(s.remote is not None and s.remote.connected for s in self.all))

    def start(self, host: str, game: str, options: dict | None = None,
              remote: dict[int, str] | None = None) -> str:
        """``host`` starts ``game`` with ``remote`` seats on the other boards; every board
        joins and verifies its set-up.  The link's game id."""
        svc = self.services[host]
        svc.new_game(game, dict(options or {}), remote=remote)
        link_id = svc.link_json()["game_id"]
        self.wait(lambda: all(s.link_json()["game_id"] == link_id for s in self.all))
        for s in self.all:
            set_up(s)
        self.expected = []
        return link_id

    def mover(self) -> BoardService:
        any_svc = self.all[0]
        seat = any_svc.game.ply_mover(any_svc.position)
        assert any_svc.remote is not None and any_svc.remote.game is not None
        return self.services[any_svc.remote.game.start.seats[seat]]

    def ply(self, text: str, timeout: float = 20.0) -> None:
        """The mover's board makes ``text``; every other board shows it and its person
        makes it there."""
        here = self.mover()
        n = len(here.plies) + 1
        play(here, text)
        for there in self.all:
            if there is here:
                continue
            self.wait(lambda t=there: t.interaction.phase == "execute"
                      or t.link_problem is not None, timeout)
            assert there.link_problem is None, there.link_problem
            play(there, text)
            self.wait(lambda t=there: len(t.plies) == n, timeout)
        self.expected.append(text)

    def random_ply(self, rng: random.Random) -> None:
        here = self.mover()
        game, pos = here.game, here.position
        self.ply(game.move_text(pos, finishing_move(game, pos, rng)))

    def restore(self, svc: BoardService, moves: list[tuple[str, str]]) -> None:
        """The person at ``svc`` puts the pieces of the last ``moves`` (origin, target;
        simple moves) back, newest first: an earlier position, held still."""
        for origin, target in reversed(moves):
            svc.sim_action({"action": "lift", "spot": target})
            svc.step(0.05)
            svc.sim_action({"action": "place", "spot": origin})
            svc.step(0.05)

    def take_back_last(self, accept: bool, timeout: float = 20.0) -> bool:
        """The board that made the last ply takes it back; the other board agrees (takes
        it back too) or declines on its page (the move is then made again).  False when
        the last ply is not a plain move of one piece (nothing done)."""
        any_svc = self.all[0]
        pos = any_svc.position
        if not pos.moves or len(self.all) != 2:
            return False
        move = pos.moves[-1]
        if (move.kind != "move" or move.captures or move.also or move.token
                or move.left is not None or move.piece is None or move.piece.height != 1):
            return False
        assert any_svc.remote is not None and any_svc.remote.game is not None
        here = self.services[any_svc.remote.game.start.seats[move.piece.owner]]
        there = next(s for s in self.all if s is not here)
        names = any_svc.layout.spots
        step = (names[move.origin].name, names[move.target].name)
        n = len(self.expected)
        text = self.expected[-1]
        self.restore(here, [step])
        self.wait(lambda: len(here.plies) == n - 1, timeout)
        self.wait(lambda: (there.link_json()["takeback"] or {}).get("offered") == n - 1,
                  timeout)
        if accept:
            self.restore(there, [step])
            self.wait(lambda: len(there.plies) == n - 1
                      and here.link_json()["takeback"] is None, timeout)
            self.expected.pop()
        else:
            there.decline_takeback()
            self.wait(lambda: here.interaction.phase == "execute", timeout)
            play(here, text)
            self.wait(lambda: len(here.plies) == n, timeout)
        return True

    def journal_moves(self, link_id: str) -> dict[str, list[list[str]]]:
        """Each board's journal records of the linked game ``link_id``: their moves."""
        return {name: [r.moves for r in Journal(Path(s.config.journal.path)).games()
                       if r.link and r.link["game_id"] == link_id]
                for name, s in self.services.items()}

    def disagreements(self, link_id: str) -> dict[str, int]:
        """Against the plies made: plies ``lost`` (missing on a board or in a journal),
        ``duplicated`` (held twice) and ``forked`` (a different ply, or a board stopped
        for a disagreement)."""
        out = {"lost": 0, "duplicated": 0, "forked": 0}
        n = len(self.expected)
        for s in self.all:
            held = [t for _, t in s.plies]
            out["forked"] += int(s.link_problem is not None)
            out["forked"] += sum(a != b for a, b in zip(held, self.expected, strict=False))
            out["lost"] += max(0, n - len(held))
            out["duplicated"] += max(0, len(held) - n)
        journals = self.journal_moves(link_id)
        for records in journals.values():
            out["duplicated"] += max(0, len(records) - 1)
            moves = records[0] if records else []
            out["forked"] += sum(a != b for a, b in zip(moves, self.expected, strict=False))
            out["lost"] += max(0, n - len(moves))
            out["duplicated"] += max(0, len(moves) - n)
        firsts = {tuple(r[0]) for r in journals.values() if r}
        out["forked"] += len(firsts) - 1 if firsts else 0
        return out

    def check_agreement(self, link_id: str) -> None:
        """Both boards and both journals hold exactly the plies made (none lost, none
        doubled), nobody stopped for a disagreement."""
        for s in self.all:
            assert s.link_problem is None, s.link_problem
            assert [t for _, t in s.plies] == self.expected
        assert self.disagreements(link_id) == {"lost": 0, "duplicated": 0, "forked": 0}

    def close(self) -> None:
        for s in self.all:
            s.close()


def cut_network(svc: BoardService) -> None:
    """The board's network goes dead at once: paho's thread stops, its socket is shut
    without a goodbye (the broker publishes the board's last will); what the board
    publishes from now on stays in this process's memory."""
    assert svc.remote is not None
    client = svc.remote.mqtt.client
    sock = client.socket()
    client.loop_stop()
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)


def power_cut(svc: BoardService) -> None:
    """The power goes: the network with it (:func:`cut_network`), nothing more is written
    (the journal keeps what was fsynced, as every record is), no goodbye anywhere."""
    cut_network(svc)
    for part in (svc.opponent, svc.coach, svc.sensing, svc.session.writer):
        with contextlib.suppress(Exception):
            part.close()
