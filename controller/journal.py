"""The game journal: every committed move is on disk before the board shows it as done.

One append-only file of JSON lines per game.  Each record is written with a single
``write`` to a file opened with ``O_APPEND``, then ``fsync``-ed; the folder is synced when a
file is created.  A power cut can therefore only lose a record whose write had not
returned — a move the board never acknowledged — and at worst leave a torn last line,
which reading skips (and :meth:`Journal.continue_game` cuts off).

Format 2 (``"format": 2`` in the start record): every line ends in its checksum, the CRC32
of the record's JSON text written as 32 blanks (space = 0, tab = 1, high bit first) before
the newline — JSON ignores them, so every line is still exactly its record for any JSON
reader, and a flipped bit is found.  Records: ``start`` (format, game, options, set-up,
players, date), ``move`` (notation, long form), ``amend`` (the last move replaced by
this one — a token handed over after the move: one record, so a kill can never lose the
shown move),
``takeback`` (plies), ``end`` (result, reason).  Files of format 1 (no ``format``, no
checksums) are still read.

Damage never stops anything: reading keeps every record before the first damaged one and
says what was dropped (:attr:`GameRecord.damage`); a file without a readable start record is
:class:`JournalError` for that file only — :meth:`Journal.scan` lists it among the problems
and :meth:`Journal.quarantine` renames it aside (``NAME.jsonl.bad-<time>``).  A torn or
damaged tail (a last line without its newline: a write cut by a power cut, or a block of
NULs a file system left) is damage like any other: reported, the original kept beside the
file as ``.bad-<time>`` when the game goes on.

Only regular files are read (a FIFO, a device or a symbolic link named ``*.jsonl`` is a
problem of that file, never a hang), line by line, at most ``MAX_LINE_BYTES`` a line and
``MAX_FILE_BYTES`` a file: what lies beyond is reported as dropped, so a 2 GB file costs
no more memory than a game.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import time
import zlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from controller.i18n import Text, text_of
from controller.rules import Game, Position, get_game

#: the format written by this version
FORMAT = 2
#: test hook: ``FAIRYBOARD_KILL_AT_FSYNC=N`` kills the process (SIGKILL-like ``os._exit``)
#: at the N-th journal fsync, after the write and before the fsync returns — the
#: fault-injection tests use it to stop the service at every durable point of a game
KILL_AT_FSYNC_ENV = "FAIRYBOARD_KILL_AT_FSYNC"
_fsyncs = 0
#: a record is a few hundred bytes; a longer "line" is damage (a block of NULs, junk)
MAX_LINE_BYTES = 64 * 1024
#: a game of thousands of moves is well under a megabyte; a bigger file is read this far
MAX_FILE_BYTES = 32 * 1024 * 1024


class JournalError(ValueError):
    """A journal file cannot be read or replayed; the message names the file and line
    (:attr:`problem`: the same without the file's name, a :class:`Text` a page reads in
    its own language)."""

    def __init__(self, message: str, problem: str | None = None) -> None:
        super().__init__(message)
        self.problem = problem


def _file_error(path: Path, problem: Text) -> JournalError:
    """``NAME.jsonl: problem`` (the problem said in the reader's language)."""
    return JournalError(Text.join(": ", [path.name, problem]), problem)


def _one_line(exc: BaseException) -> str:
    """An error's words on one line (its :class:`Text` kept when it is one)."""
    text = text_of(exc)
    return text if isinstance(text, Text) else " ".join(text.split())


def _crc_blanks(text: bytes) -> bytes:
    crc = zlib.crc32(text)
    return bytes(0x09 if crc >> (31 - i) & 1 else 0x20 for i in range(32))


def encode_record(record: dict[str, Any]) -> bytes:
    """One journal line: the record's JSON, its checksum in blanks, a newline."""
    text = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()
    return text + _crc_blanks(text) + b"\n"


def _fsync(fd: int) -> None:
    global _fsyncs
    kill_at = os.environ.get(KILL_AT_FSYNC_ENV)
    if kill_at:
        _fsyncs += 1
        if _fsyncs == int(kill_at):
            os._exit(137)  # as abrupt as SIGKILL: no cleanup, no flush
    os.fsync(fd)


@dataclass
class GameRecord:
    """A game as read back from its journal file.

    ``damage`` says what was dropped when the file holds a damaged record (reading stops
    there: the moves are those of every record before it); ``lines`` gives the file line
    of each move."""

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
    format: int = 1
    damage: str | None = None
    lines: list[int] = field(default_factory=list)
    #: the time control (``controller/clock.py``) when the game is played on a clock
    clock: str | None = None
    #: each seat's remaining seconds after each move (None where a move has none), and the
    #: latest reading (a move's, or a ``clock`` record written when the service stopped)
    clocks: list[list[float] | None] = field(default_factory=list)
    remaining: list[float] | None = None
    #: a linked game (``controller/link``): its id and the board playing each seat
    link: dict[str, Any] | None = None
    #: who plays and how, as the owner set the game up: the computer's players and level,
    #: the coach (``{"computer": [1], "level": 6, "coach": true, "coach_margin": 150}``);
    #: None in files written before it was kept
    seats: dict[str, Any] | None = None
    #: the game's number in this journal (start order, whatever the wall clock said)
    seq: int | None = None
    #: the raw bytes of every record kept (to rewrite a damaged file without its damage)
    kept: list[bytes] = field(default_factory=list, repr=False)

    @property
    def id(self) -> str:
        return self.path.stem

    @property
    def finished(self) -> bool:
        return self.result is not None

    def game_rules(self) -> Game:
        """The game with the recorded options; options it rejects are a JournalError."""
        try:
            return get_game(self.game, **self.options)
        except (TypeError, ValueError, KeyError) as exc:
            raise _file_error(self.path, Text("the start record's game or options are "
                                              "rejected: {problem}",
                                              problem=_one_line(exc))) from None

    def replay(self, salvage: bool = False) -> tuple[Game, Position]:
        """The game and the position after every recorded move.  An illegal move is a
        :class:`JournalError` — or, with ``salvage``, the end of the game as read: it and
        every later move are dropped and :attr:`damage` says so."""
        game = self.game_rules()
        try:
            pos = game.parse_position(self.setup)
        except ValueError as exc:
            raise _file_error(self.path, Text("bad set-up: {problem}",
                                              problem=_one_line(exc))) from None
        for ply, text in enumerate(self.moves, start=1):
            try:
                pos.push(game.parse_move(pos, text))
            except ValueError as exc:
                problem = Text("ply {ply}: {problem}", ply=ply, problem=_one_line(exc))
                if not salvage:
                    raise _file_error(self.path, problem) from None
                line = self.lines[ply - 1]
                later = len(self.kept) - line
                damage = Text.join(": ", [self.path.name, _dropped(problem, line, later)])
                self.damage = (Text("{damage} (and before that: {earlier})", damage=damage,
                                    earlier=self.damage) if self.damage else damage)
                del self.kept[line - 1:]
                _reload(self)
                return self.replay(salvage=True)
        return game, pos


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        _fsync(fd)
    finally:
        os.close(fd)


class GameWriter:
    """Appends the records of one game durably."""

    def __init__(self, path: Path):
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)

    def _append(self, record: dict[str, Any]) -> None:
        """Write one record and fsync it.  On any failure (a full disk) what was written of
        it is cut off again, so the file never keeps a torn record, and OSError is raised."""
        line = encode_record(record)
        size = os.fstat(self._fd).st_size
        try:
            written = os.write(self._fd, line)
            if written != len(line):  # a short write on a regular file: the disk is full
                raise OSError(f"{self.path}: short write ({written} of {len(line)} bytes)")
            _fsync(self._fd)
        except OSError:
            try:
                os.ftruncate(self._fd, size)
                os.fsync(self._fd)
            except OSError:
                pass  # reading skips a torn last line anyway
            raise

    def move(self, notation: str, long: str | None = None,
             clock: list[float] | None = None) -> None:
        """Record a committed move (with the seats' remaining seconds after it when the
        game has a clock); returns only once it is on disk."""
        self._append(_move_record("move", notation, long, clock))

    def amend(self, notation: str, long: str | None = None,
              clock: list[float] | None = None) -> None:
        """Replace the last recorded move (a token handed over after it) in one record."""
        self._append(_move_record("amend", notation, long, clock))

    def clock(self, remaining: list[float]) -> None:
        """The seats' remaining seconds when the clocks stop (the service stops)."""
        self._append({"type": "clock", "remaining": [round(r, 3) for r in remaining]})

    def takeback(self, plies: int = 1) -> None:
        self._append({"type": "takeback", "plies": plies})

    def seats(self, seats: dict[str, Any]) -> None:
        """Who plays and how, changed mid-game (the Coach box): a resume restores it."""
        self._append({"type": "seats", "seats": seats})

    def end(self, result: str, reason: str) -> None:
        self._append({"type": "end", "result": result, "reason": reason})

    def close(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1


def _move_record(kind: str, notation: str, long: str | None,
                 clock: list[float] | None) -> dict[str, Any]:
    record: dict[str, Any] = {"type": kind, "move": notation}
    if long and long != notation:
        record["long"] = long
    if clock is not None:
        record["clock"] = [round(r, 3) for r in clock]
    return record


@dataclass
class JournalProblem:
    """A journal file that cannot be read (or was quarantined)."""

    path: Path
    problem: str

    def __str__(self) -> str:
        return f"{self.path.name}: {self.problem}"

    @property
    def line(self) -> Text:
        """``NAME.jsonl: problem``, the problem said in the reader's language."""
        return Text.join(": ", [self.path.name, self.problem])


class Journal:
    """The folder of game files."""

    def __init__(self, folder: str | Path):
        self.folder = Path(folder).expanduser()

    def new_game(self, game: str, options: dict[str, Any], setup: str, players: list[str],
                 now: float | None = None, clock: str | None = None,
                 link: dict[str, Any] | None = None, seats: dict[str, Any] | None = None,
                 seq: int | None = None) -> GameWriter:
        self.folder.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
        # File names sort in creation order (games() and unfinished() rely on it): a
        # later game of the same second is "{stamp}~02-{game}" ('~' sorts after '-').
        same_second = len(list(self.folder.glob(f"{stamp}[-~]*.jsonl*")))
        n = same_second + 1
        path = self.folder / (f"{stamp}-{game}.jsonl" if n == 1 else
                              f"{stamp}~{n:02d}-{game}.jsonl")
        while path.exists() or list(self.folder.glob(path.name + ".bad-*")):
            n += 1
            path = self.folder / f"{stamp}~{n:02d}-{game}.jsonl"
        writer = GameWriter(path)
        try:
            _fsync_dir(self.folder)
            writer._append({
                "type": "start", "format": FORMAT, "game": game, "options": options,
                "setup": setup, "players": players,
                "date": time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(now)),
                **({"clock": clock} if clock else {}),
                **({"link": link} if link else {}),
                **({"seats": seats} if seats is not None else {}),
                **({"seq": seq} if seq is not None else {}),
            })
        except OSError:  # a full disk: no empty file left behind
            writer.close()
            path.unlink(missing_ok=True)
            raise
        return writer

    def continue_game(self, record: GameRecord) -> GameWriter:
        """Append to a game read back.  A torn last line (a record whose write never
        returned, so a move never acknowledged) is cut off first: the next record must
        start on a line of its own.  A damaged file is first rewritten with the records
        kept (the original stays beside it as ``NAME.jsonl.bad-<time>``), so the moves
        appended from now on are never hidden behind the damage."""
        if record.damage is not None:  # a torn tail is damage too (read_game)
            self._rewrite(record)
        record.torn_tail = False
        return GameWriter(record.path)

    def _rewrite(self, record: GameRecord) -> None:
        """Atomically: keep the original aside, then replace the file by its kept records
        (a power cut in between leaves the original, and the next start does it again)."""
        path = record.path
        aside = self._aside(path)
        try:
            os.link(path, aside)
        except OSError:
            shutil.copy2(path, aside)
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            data = b"".join(record.kept)
            if os.write(fd, data) != len(data):
                raise OSError(f"{tmp}: short write")
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
        _fsync_dir(self.folder)

    def _aside(self, path: Path) -> Path:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        aside = path.with_name(f"{path.name}.bad-{stamp}")
        n = 1
        while aside.exists():
            n += 1
            aside = path.with_name(f"{path.name}.bad-{stamp}~{n}")
        return aside

    def quarantine(self, path: Path) -> Path:
        """Rename an unreadable file aside (``NAME.jsonl.bad-<time>``): it no longer counts
        as a game, and nothing is deleted."""
        aside = self._aside(path)
        os.replace(path, aside)
        _fsync_dir(self.folder)
        return aside

    def scan(self) -> tuple[list[GameRecord], list[JournalProblem]]:
        """Every readable game, oldest first, and the files that cannot be read."""
        records: list[GameRecord] = []
        problems: list[JournalProblem] = []
        if not self.folder.exists():
            return records, problems
        for path in sorted(self.folder.glob("*.jsonl")):
            try:
                records.append(read_game(path, strict=False))
            except (JournalError, OSError) as exc:
                problems.append(JournalProblem(path, _problem_text(exc, path)))
        return records, problems

    def quarantined(self) -> list[Path]:
        """Files renamed aside earlier."""
        if not self.folder.exists():
            return []
        return sorted(self.folder.glob("*.jsonl.bad-*"))

    def games(self) -> list[GameRecord]:
        """Every readable game, oldest first (unreadable files are left out: see scan)."""
        return self.scan()[0]

    def find(self, game_id: str) -> GameRecord:
        path = self.folder / f"{game_id}.jsonl"
        if "/" in game_id or game_id.startswith(".") or not path.exists():
            raise JournalError(Text("no game {game} in {folder}", game=repr(game_id[:80]),
                                    folder=str(self.folder)))
        return read_game(path, strict=False)

    def unfinished(self) -> GameRecord | None:
        """The most recent game without a result, if any (the one to offer to resume)."""
        for record in reversed(self.games()):
            return None if record.finished else record
        return None


def _dropped(problem: Text, line: int, later: int) -> Text:
    """A bad move's damage: what was wrong, and the records dropped with it."""
    if later:
        return Text("{problem}; dropped line {line} and {count} later record(s)",
                    problem=problem, line=line, count=later)
    return Text("{problem}; dropped line {line}", problem=problem, line=line)


def _problem_text(exc: BaseException, path: Path) -> str:
    """What is wrong with the file at ``path``, without its name (a :class:`Text` when the
    journal said it)."""
    if isinstance(exc, JournalError) and exc.problem is not None:
        return exc.problem
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return " ".join(str(exc).removeprefix(f"{path.name}: ").split())


class _Damaged(Exception):
    """A record that cannot be taken (inside :func:`read_game`)."""


def _text_field(entry: dict[str, Any], key: str, optional: bool = False) -> Any:
    value = entry.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str) or (not value and not optional):
        raise _Damaged(Text("{key} missing or not text", key=repr(key)))
    return value


def _decode(raw: bytes, checksummed: bool) -> dict[str, Any]:
    text = raw.rstrip(b" \t")
    blanks = raw[len(text):]
    if len(blanks) == 32:
        if blanks != _crc_blanks(text):
            raise _Damaged(Text("checksum mismatch"))
    elif checksummed or blanks:
        raise _Damaged(Text("no checksum"))
    try:
        entry = json.loads(text)
    except (ValueError, RecursionError):
        raise _Damaged(Text("not JSON (corrupt)")) from None
    if not isinstance(entry, dict):
        raise _Damaged(Text("not a JSON object"))
    return entry


def _open_regular(path: Path) -> BinaryIO:
    """``path`` opened for reading if it is a regular file (not through a symbolic link:
    one to ``/dev/zero`` never ends; a FIFO would wait for a writer for ever)."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        raise _file_error(path, Text("no such journal file")) from None
    if stat.S_ISLNK(mode):
        raise _file_error(path, Text("a symbolic link, not a journal file"))
    if not stat.S_ISREG(mode):
        raise _file_error(path, Text("a FIFO, not a journal file") if stat.S_ISFIFO(mode)
                          else Text("a folder, not a journal file") if stat.S_ISDIR(mode)
                          else Text("a device or socket, not a journal file"))
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # replaced since the lstat
        os.close(fd)
        raise _file_error(path, Text("not a regular file"))
    return os.fdopen(fd, "rb")


def _lines(file: BinaryIO) -> Iterator[tuple[bytes, str | None]]:
    """The file's lines without their newline, each with what is wrong with it as a line:
    None, ``"torn"`` (the end of the file without a newline), ``"too long"``, or
    ``"beyond"`` (past ``MAX_FILE_BYTES``); nothing is read after a line that is wrong."""
    budget = MAX_FILE_BYTES
    while True:
        if budget <= 0:
            if file.read(1):
                yield b"", "beyond"
            return
        limit = min(MAX_LINE_BYTES, budget) + 1
        raw = file.readline(limit)
        if not raw:
            return
        budget -= len(raw)
        if raw.endswith(b"\n"):
            yield raw[:-1], None
            continue
        if len(raw) < limit:
            yield raw, "torn"
        else:
            yield raw[:64], "too long" if limit == MAX_LINE_BYTES + 1 else "beyond"
        return


def _tail_problem(raw: bytes, why: str) -> Text:
    if why == "beyond":
        return Text("the file is over {size} MiB, the rest is not read",
                    size=MAX_FILE_BYTES >> 20)
    if why == "too long":
        return Text("a line over {size} KiB", size=MAX_LINE_BYTES >> 10)
    if b"\0" in raw:
        return Text("torn, with NUL bytes (a block the file system never wrote)")
    return Text("torn: no end of line (a write cut off, a move never shown as done)")


def read_game(path: Path, strict: bool = True) -> GameRecord:
    """The game in ``path``.  A file without a readable start record is a JournalError.
    A damaged later record is a JournalError too when ``strict``; otherwise reading stops
    there and :attr:`GameRecord.damage` says what was dropped.  A torn tail (the last line
    without its newline) is never an error: it is dropped and :attr:`damage` says so."""
    with _open_regular(path) as file:
        lines = _lines(file)
        first = next(lines, None)
        if first is None or first[1] == "torn" and b"\0" not in first[0]:
            raise _file_error(path, Text("empty journal file (its start record torn)")
                              if first else Text("empty journal file"))
        if first[1] is not None:
            raise _file_error(path, Text("line 1 is not a start record ({problem})",
                                         problem=_tail_problem(*first)))
        record = _read_start(path, first[0])
        fmt = record.format
        for no, (raw, why) in enumerate(lines, start=2):
            try:
                if why is not None:
                    record.torn_tail = why == "torn"
                    raise _Damaged(_tail_problem(raw, why))
                _apply(record, _decode(raw, checksummed=fmt >= 2), no)
            except _Damaged as exc:
                if strict and why is None:
                    raise _file_error(path, Text("line {line} is corrupt ({problem})", line=no,
                                                 problem=text_of(exc))) from None
                rest = sum(1 for _ in lines)
                damage = (Text("line {line} is damaged ({problem}); dropped it and {count} "
                               "later record(s)", line=no, problem=text_of(exc), count=rest)
                          if rest else Text("line {line} is damaged ({problem}); dropped it",
                                            line=no, problem=text_of(exc)))
                record.damage = Text.join(": ", [path.name, damage])
                record.result = record.reason = None  # an end after the damage is not read
                break
            record.kept.append(raw + b"\n")
    return record


def _read_start(path: Path, line: bytes) -> GameRecord:
    try:
        start = _decode(line, checksummed=False)
        if start.get("type") != "start":
            raise _Damaged(Text("no start record"))
        fmt = start.get("format", 1)
        if not isinstance(fmt, int) or isinstance(fmt, bool) or not 1 <= fmt <= FORMAT:
            raise _Damaged(Text("unknown format {format}", format=repr(fmt)))
        if fmt >= 2:
            _decode(line, checksummed=True)
        options = start.get("options") or {}
        players = start.get("players") or []
        if not isinstance(options, dict):
            raise _Damaged(Text("'options' is not an object"))
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise _Damaged(Text("'players' is not a list of names"))
        record = GameRecord(path=path, game=_text_field(start, "game"), options=options,
                            setup=_text_field(start, "setup"), players=players,
                            date=_text_field(start, "date", optional=True) or "",
                            format=fmt,
                            clock=_text_field(start, "clock", optional=True) or None,
                            link=_link_field(start), seats=_seats_field(start),
                            seq=_seq_field(start))
    except _Damaged as exc:
        raise _file_error(path, Text("line 1 is not a start record ({problem})",
                                     problem=text_of(exc))) from None
    record.kept.append(line + b"\n")
    return record


def _reload(record: GameRecord) -> None:
    """Moves and result again from the kept records (after cutting some off)."""
    record.moves.clear()
    record.lines.clear()
    record.clocks.clear()
    record.remaining = None
    record.result = record.reason = None
    for no, raw in enumerate(record.kept[1:], start=2):
        _apply(record, _decode(raw.rstrip(b"\n"), checksummed=record.format >= 2), no)


def _apply(record: GameRecord, entry: dict[str, Any], no: int) -> None:
    kind = entry.get("type")
    if kind in ("move", "amend"):
        text = _text_field(entry, "move")
        clock = _seconds(entry, "clock") if "clock" in entry else None
        if kind == "amend":
            if not record.moves:
                raise _Damaged(Text("amends no move"))
            record.moves.pop()
            record.lines.pop()
            record.clocks.pop()
        record.moves.append(text)
        record.lines.append(no)
        record.clocks.append(clock)
        record.remaining = clock
    elif kind == "takeback":  # also after an end record: the game goes on
        plies = entry.get("plies", 1)
        if (not isinstance(plies, int) or isinstance(plies, bool)
                or not 1 <= plies <= len(record.moves)):
            raise _Damaged(Text("takes back {plies} plies of {count}", plies=repr(plies),
                                count=len(record.moves)))
        del record.moves[len(record.moves) - plies:]
        del record.lines[len(record.lines) - plies:]
        del record.clocks[len(record.clocks) - plies:]
        record.result = record.reason = None
    elif kind == "clock":
        record.remaining = _seconds(entry, "remaining")
    elif kind == "seats":
        record.seats = _seats_field(entry)
    elif kind == "end":
        record.result = _text_field(entry, "result")
        record.reason = _text_field(entry, "reason", optional=True)
    else:
        raise _Damaged(Text("unknown record type {kind}", kind=repr(kind)))


def _link_field(start: dict[str, Any]) -> dict[str, Any] | None:
    link = start.get("link")
    if link is None:
        return None
    if (not isinstance(link, dict) or not isinstance(link.get("game_id"), str)
            or not isinstance(link.get("seats"), list)
            or not all(isinstance(s, str) for s in link["seats"])):
        raise _Damaged(Text("'link' is not a game id and its seats"))
    return link


def _whole(value: Any, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _seats_field(start: dict[str, Any]) -> dict[str, Any] | None:
    seats = start.get("seats")
    if seats is None:
        return None
    if (not isinstance(seats, dict) or not isinstance(seats.get("computer", []), list)
            or not all(_whole(p, 0, 7) for p in seats.get("computer", []))
            or not _whole(seats.get("level", 6), 1, 10)
            or not isinstance(seats.get("coach", False), bool)
            or not _whole(seats.get("coach_margin", 0), 0, 100_000)):
        raise _Damaged(Text("'seats' is not the computer's players and level and the coach"))
    return seats


def _seq_field(start: dict[str, Any]) -> int | None:
    seq = start.get("seq")
    if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool) or seq < 1):
        raise _Damaged(Text("'seq' is not a game number: {seq}", seq=repr(seq)))
    return seq


def _seconds(entry: dict[str, Any], key: str) -> list[float]:
    value = entry.get(key)
    if (not isinstance(value, list) or not 2 <= len(value) <= 4
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        raise _Damaged(Text("{key} is not a list of 2 to 4 clock readings", key=repr(key)))
    return [float(v) for v in value]


def export_record(record: GameRecord) -> str:
    """The game as PGN (``controller/pgn.py`` writes it)."""
    from controller.pgn import game_pgn  # pgn imports this module

    return game_pgn(record)
