"""The game journal: every committed move is on disk before the board shows it as done.

One append-only file of JSON lines per game.  Each record is written with a single
``write`` to a file opened with ``O_APPEND``, then flushed and ``fsync``-ed; the folder is
synced when a file is created.  A power cut can therefore only lose a record whose write
had not returned — a move the board never acknowledged — and at worst leave a torn last
line, which reading skips (and reports).

Records: ``start`` (game, options, set-up, players, date), ``move`` (notation, long
form), ``takeback`` (plies), ``end`` (result, reason).
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.rules import Game, Position, get_game


class JournalError(ValueError):
    """A journal file cannot be read or replayed; the message names the file and line."""


@dataclass
class GameRecord:
    """A game as read back from its journal file."""

    path: Path
    game: str
    options: dict[str, Any]
    setup: str
    players: list[str]
    date: str
    moves: list[str] = field(default_factory=list)
    result: str | None = None
    reason: str | None = None
    torn_tail: bool = False

    @property
    def id(self) -> str:
        return self.path.stem

    @property
    def finished(self) -> bool:
        return self.result is not None

    def replay(self) -> tuple[Game, Position]:
        """The game and the position after every recorded move."""
        game = get_game(self.game, **self.options)
        pos = game.parse_position(self.setup)
        for ply, text in enumerate(self.moves, start=1):
            try:
                pos.push(game.parse_move(pos, text))
            except ValueError as exc:
                raise JournalError(f"{self.path.name}: ply {ply}: {exc}") from None
        return game, pos


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class GameWriter:
    """Appends the records of one game durably."""

    def __init__(self, path: Path):
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def _append(self, record: dict[str, Any]) -> None:
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        written = os.write(self._fd, line)
        if written != len(line):  # a short write on a regular file means the disk is full
            raise OSError(f"{self.path}: short write ({written} of {len(line)} bytes)")
        os.fsync(self._fd)

    def move(self, notation: str, long: str | None = None) -> None:
        """Record a committed move; returns only once it is on disk."""
        record = {"type": "move", "move": notation}
        if long and long != notation:
            record["long"] = long
        self._append(record)

    def takeback(self, plies: int = 1) -> None:
        self._append({"type": "takeback", "plies": plies})

    def end(self, result: str, reason: str) -> None:
        self._append({"type": "end", "result": result, "reason": reason})

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


class Journal:
    """The folder of game files."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder).expanduser()

    def new_game(self, game: str, options: dict[str, Any], setup: str, players: list[str],
                 now: float | None = None) -> GameWriter:
        self.folder.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
        # File names sort in creation order (games() and unfinished() rely on it): a
        # later game of the same second is "{stamp}~02-{game}" ('~' sorts after '-').
        same_second = len(list(self.folder.glob(f"{stamp}[-~]*.jsonl")))
        n = same_second + 1
        path = self.folder / (f"{stamp}-{game}.jsonl" if n == 1 else
                              f"{stamp}~{n:02d}-{game}.jsonl")
        while path.exists():
            n += 1
            path = self.folder / f"{stamp}~{n:02d}-{game}.jsonl"
        writer = GameWriter(path)
        _fsync_dir(self.folder)
        writer._append({
            "type": "start", "game": game, "options": options, "setup": setup,
            "players": players, "date": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(now)),
        })
        return writer

    def continue_game(self, record: GameRecord) -> GameWriter:
        """Append to a game read back.  A torn last line (a record whose write never
        returned, so a move never acknowledged) is cut off first: the next record must
        start on a line of its own."""
        if record.torn_tail:
            keep = record.path.read_bytes().rfind(b"\n") + 1
            fd = os.open(record.path, os.O_WRONLY)
            try:
                os.ftruncate(fd, keep)
                os.fsync(fd)
            finally:
                os.close(fd)
            record.torn_tail = False
        return GameWriter(record.path)

    def games(self) -> list[GameRecord]:
        """Every readable game, oldest first."""
        if not self.folder.exists():
            return []
        return [read_game(p) for p in sorted(self.folder.glob("*.jsonl"))]

    def find(self, game_id: str) -> GameRecord:
        path = self.folder / f"{game_id}.jsonl"
        if not path.exists():
            raise JournalError(f"no game {game_id!r} in {self.folder}")
        return read_game(path)

    def unfinished(self) -> GameRecord | None:
        """The most recent game without a result, if any (the one to offer to resume)."""
        for record in reversed(self.games()):
            return None if record.finished else record
        return None


def read_game(path: Path) -> GameRecord:
    lines = path.read_bytes().split(b"\n")
    torn = bool(lines and lines[-1])  # a last line without its newline was cut off
    complete = lines[:-1]
    if not complete:
        raise JournalError(f"{path.name}: empty journal file")
    try:
        start = json.loads(complete[0])
    except ValueError:
        raise JournalError(f"{path.name}: line 1 is not a start record") from None
    if start.get("type") != "start":
        raise JournalError(f"{path.name}: line 1 is not a start record")
    record = GameRecord(path=path, game=start["game"], options=start.get("options", {}),
                        setup=start["setup"], players=start.get("players", []),
                        date=start.get("date", ""), torn_tail=torn)
    for no, raw in enumerate(complete[1:], start=2):
        try:
            entry = json.loads(raw)
        except ValueError:
            raise JournalError(f"{path.name}: line {no} is corrupt") from None
        kind = entry.get("type")
        if kind == "move":
            record.moves.append(entry["move"])
        elif kind == "takeback":  # also after an end record: the game goes on
            del record.moves[len(record.moves) - entry.get("plies", 1):]
            record.result = record.reason = None
        elif kind == "end":
            record.result, record.reason = entry["result"], entry.get("reason")
        else:
            raise JournalError(f"{path.name}: line {no}: unknown record type {kind!r}")
    return record


def export_record(record: GameRecord) -> str:
    """The game in its notation with PGN-style headers (players, date, game, set-up, result)."""
    game = get_game(record.game, **record.options)
    pos = game.parse_position(record.setup)
    headers = {
        "Event": "fairyboard game",
        "Date": record.date.split("T")[0].replace("-", "."),
        "Game": game.title,
        "Variant": record.game,
    }
    names = record.players or list(game.player_names)
    for colour, name in zip(game.player_names, names, strict=False):
        headers[colour] = name
    headers["SetUp"] = record.setup
    if record.options:
        headers["Options"] = ", ".join(f"{k}={v}" for k, v in sorted(record.options.items()))
    if game.provisional:
        headers["Note"] = game.provisional
    headers["Result"] = record.result or "*"
    out = [f'[{k} "{v}"]' for k, v in headers.items()]
    body: list[str] = []
    for text in record.moves:
        move = game.parse_move(pos, text)
        if pos.turn == 0 and not pos.state.get("cube_second"):
            body.append(f"{pos.fullmove}.")
        body.append(text)
        pos.push(move)
    body.append(record.result or "*")
    out.append("")
    line = ""
    for token in body:
        if len(line) + len(token) + 1 > 79:
            out.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    out.append(line)
    return "\n".join(out) + "\n"
