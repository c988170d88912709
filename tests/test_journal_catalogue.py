"""The journal's corruption catalogue (issue 37, Found 7): 0 hangs, 0 crashes, 0 silent
losses over every way a game file can be damaged or not be a game file at all.

Each case damages one game of six moves (cut, NUL-overwritten, flipped, deleted, doubled,
padded, replaced by a FIFO, a device, a symbolic link, a folder, a 2 GB sparse file, …).
Reading the folder must return within seconds; the file is either listed as a problem
(start-up quarantines it) or read with the moves before the damage, and then the damage is
reported and, once the game goes on, the original kept as ``NAME.jsonl.bad-<time>``.  A file
cut exactly at a record's end is a clean shorter game (nothing to tell it from one).
The start-up of the real service under a 1.5 GB address-space limit with a 2 GB file is the
last test.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

import controller.journal as journal_module
from controller.journal import Journal, JournalError, encode_record, read_game
from controller.rules import get_game

ROOT = Path(__file__).resolve().parents[1]
OPENING = ["Mb1-c3", "Mb8-c6", "Mc3-b1", "Mc6-b8", "Ee2-d3", "Ef7-e6"]
GB = 1 << 30


def _write_game(folder: Path) -> Path:
    journal = Journal(folder)
    game = get_game("luotuoqi")
    pos = game.start()
    writer = journal.new_game("luotuoqi", {}, game.position_text(pos), ["Ann", "Bo"], now=0)
    for text in OPENING:
        move = game.parse_move(pos, text)
        writer.move(game.move_text(pos, move), game.long_move_text(pos, move))
        pos.push(move)
    writer.close()
    return writer.path


def _ends(data: bytes) -> list[int]:
    """Byte offsets just after each line."""
    return [i + 1 for i, b in enumerate(data) if b == 0x0A]


def _nul_tail(n: int) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        data = path.read_bytes()
        path.write_bytes(data[:-n] + b"\0" * n if n <= len(data) else b"\0" * len(data))
    return damage


def _extend_nul(n: int) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        with open(path, "r+b") as f:
            f.truncate(path.stat().st_size + n)  # sparse: NULs the file system never wrote
    return damage


def _cut(at: Callable[[bytes], int]) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        data = path.read_bytes()
        path.write_bytes(data[:at(data)])
    return damage


def _flip(line: int, offset: int) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        data = bytearray(path.read_bytes())
        ends = [0] + _ends(bytes(data))
        # from the line's start, or (negative) from its newline: its checksum blanks
        data[ends[line - 1] + offset if offset >= 0 else ends[line] - 1 + offset] ^= 0x04
        path.write_bytes(bytes(data))
    return damage


def _edit_lines(edit: Callable[[list[bytes]], list[bytes]]) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        lines = path.read_bytes().split(b"\n")[:-1]
        path.write_bytes(b"".join(line + b"\n" for line in edit(lines)))
    return damage


def _append(extra: bytes) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        with open(path, "ab") as f:
            f.write(extra)
    return damage


def _replace(make: Callable[[Path], None]) -> Callable[[Path], None]:
    def damage(path: Path) -> None:
        path.unlink()
        make(path)
    return damage


def _listening_socket(path: Path) -> None:
    """A socket named like a game file.  A socket's path may be at most ~107 bytes and a
    test's folder can be longer: bind it by a short path relative to its folder."""
    sock = socket.socket(socket.AF_UNIX)
    here = os.getcwd()
    os.chdir(path.parent)
    try:
        sock.bind(path.name)
    finally:
        os.chdir(here)
    _SOCKETS.append(sock)


_SOCKETS: list[socket.socket] = []


def _symlink_to_game(path: Path) -> None:
    other = path.with_name("elsewhere.json")
    _write_game(path.parent / "other")
    os.replace(next((path.parent / "other").glob("*.jsonl")), other)
    path.symlink_to(other)


def _move_line(text: str, checksum: bool = True) -> bytes:
    line = encode_record({"type": "move", "move": text})
    return line if checksum else line.rstrip(b" \t\n") + b"\n"


def _huge_game(path: Path) -> None:
    """Over MAX_FILE_BYTES of well-formed records: a knight going back and forth (the
    test lowers the limit to 1 MiB for this case, so it stays fast)."""
    head = path.read_bytes()
    pair = _move_line("Mc3-b1") + _move_line("Mc6-b8") + _move_line("Mb1-c3") + \
        _move_line("Mb8-c6")
    with open(path, "wb") as f:
        f.write(head)
        f.write(pair * ((1 << 20) // len(pair) + 10))


#: (name, damage, expected): "problem" — listed, start-up quarantines it; "damage" — read
#: with ``GameRecord.damage`` and the moves before it; "clean" — a shorter clean game
CASES: list[tuple[str, Callable[[Path], None], str]] = [
    *[(f"nul tail {n}", _nul_tail(n), "damage") for n in (1, 5, 33, 60, 120)],
    ("nul whole last two records", lambda p: _nul_tail(
        len(p.read_bytes()) - _ends(p.read_bytes())[-3])(p), "damage"),
    *[(f"nul extension {n}", _extend_nul(n), "damage") for n in (1, 512, 4096, 70_000)],
    ("nul extension to 2 GB (sparse)", lambda p: _extend_nul(2 * GB - p.stat().st_size)(p),
     "damage"),
    *[(f"cut {k} bytes into the last record", _cut(lambda d, k=k: _ends(d)[-2] + k),
       "damage") for k in (1, 10, 40)],
    *[(f"cut {k} bytes into line 4", _cut(lambda d, k=k: _ends(d)[2] + k), "damage")
      for k in (2, 20)],
    ("cut the newline only", _cut(lambda d: len(d) - 1), "damage"),
    *[(f"cut at the end of line {n}", _cut(lambda d, n=n: _ends(d)[n - 1]), "clean")
      for n in (2, 4, 6)],
    *[(f"flip line {n}", _flip(n, 12), "damage") for n in range(2, 8)],
    *[(f"flip line {n} checksum", _flip(n, -3), "damage") for n in (3, 7)],
    ("flip line 1", _flip(1, 30), "problem"),
    ("flip line 1 checksum blank", _flip(1, -10), "problem"),
    ("line 4 deleted in part", _edit_lines(lambda ls: ls[:3] + [ls[3][:10] + ls[3][30:]]
                                           + ls[4:]), "damage"),
    ("line 4 removed", _edit_lines(lambda ls: ls[:3] + ls[4:]), "damage"),
    ("line 4 doubled", _edit_lines(lambda ls: ls[:4] + [ls[3]] + ls[4:]), "damage"),
    ("lines 3 and 4 swapped", _edit_lines(lambda ls: ls[:2] + [ls[3], ls[2]] + ls[4:]),
     "damage"),
    ("CRLF line ends", _edit_lines(lambda ls: [ls[0]] + [x + b"\r" for x in ls[1:]]),
     "damage"),
    ("empty line inside", _edit_lines(lambda ls: ls[:3] + [b""] + ls[3:]), "damage"),
    ("a record without its checksum", _append(_move_line("Mb1-c3", checksum=False)),
     "damage"),
    ("an illegal move (checksummed)", _append(_move_line("Ka1-a8")),
     "damage"),
    ("junk bytes appended", _append(bytes(range(256))), "damage"),
    ("junk line appended", _append(b"\xff\xfe\x00garbage\n"), "damage"),
    ("a line of 100 KB", _append(b"{" + b" " * 100_000 + b"}\n"), "damage"),
    ("a line of 100 KB without newline", _append(b"x" * 100_000), "damage"),
    ("JSON nested 100,000 deep", _append(b"[" * 100_000 + b"]" * 100_000 + b"\n"), "damage"),
    ("NaN record", _append(b'{"type":"move","move":NaN}\n'), "damage"),
    ("an unknown record type", _append(encode_record({"type": "teleport"})), "damage"),
    ("a takeback of 99 plies", _append(encode_record({"type": "takeback", "plies": 99})),
     "damage"),
    ("a clock of one seat", _append(encode_record({"type": "clock", "remaining": [1]})),
     "damage"),
    ("an end without a result", _append(encode_record({"type": "end"})), "damage"),
    ("an amend on its own line torn", _append(b'{"type":"amend","mo'), "damage"),
    ("invalid UTF-8 in a move", _append(b'{"type":"move","move":"\xc3\x28"}\n'), "damage"),
    ("a BOM before the start", lambda p: p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes()),
     "problem"),
    ("a game over the size limit", _huge_game, "damage"),
    ("empty file", lambda p: p.write_bytes(b""), "problem"),
    ("only a newline", lambda p: p.write_bytes(b"\n"), "problem"),
    ("only NULs", lambda p: p.write_bytes(b"\0" * 4096), "problem"),
    ("only a torn start", lambda p: p.write_bytes(p.read_bytes()[:40]), "problem"),
    ("start without game", _edit_lines(lambda ls: [encode_record(
        {"type": "start", "format": 2, "setup": "x"}).rstrip(b"\n")] + ls[1:]), "problem"),
    ("start of format 99", _edit_lines(lambda ls: [encode_record(
        {"type": "start", "format": 99, "game": "luotuoqi", "setup": "x"}).rstrip(b"\n")]
        + ls[1:]), "problem"),
    ("start options a list", _edit_lines(lambda ls: [encode_record(
        {"type": "start", "format": 2, "game": "luotuoqi", "setup": "x", "options": [1]}
    ).rstrip(b"\n")] + ls[1:]), "problem"),
    ("start is a move", _edit_lines(lambda ls: ls[1:]), "problem"),
    ("start is JSON text 'null'", lambda p: p.write_bytes(b"null\n"), "problem"),
    ("a FIFO", _replace(lambda p: os.mkfifo(p)), "problem"),
    ("a symlink to /dev/zero", _replace(lambda p: p.symlink_to("/dev/zero")), "problem"),
    ("a symlink to /dev/urandom", _replace(lambda p: p.symlink_to("/dev/urandom")),
     "problem"),
    ("a symlink to a FIFO", _replace(lambda p: (os.mkfifo(p.with_name("fifo")),
                                                p.symlink_to(p.with_name("fifo")))),
     "problem"),
    ("a symlink to another file", _replace(_symlink_to_game), "problem"),
    ("a dangling symlink", _replace(lambda p: p.symlink_to(p.with_name("nowhere"))),
     "problem"),
    ("a symlink loop", _replace(lambda p: p.symlink_to(p.name)), "problem"),
    ("a folder", _replace(lambda p: p.mkdir()), "problem"),
    ("a socket", _replace(_listening_socket), "problem"),
]


def _timed(call: Callable[[], object], seconds: float = 10.0):
    box: dict[str, object] = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as exc:  # noqa: BLE001 — reported as the case's crash
            box["error"] = exc

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "hang"
    if "error" in box:
        raise box["error"]  # type: ignore[misc]
    return box.get("value")


def test_the_catalogue_has_sixty_cases_and_the_issue_s():
    names = [name for name, _, _ in CASES]
    assert len(names) >= 60 and len(set(names)) == len(names)
    for needed in ("a FIFO", "a symlink to /dev/zero", "nul extension to 2 GB (sparse)",
                   "nul tail 33"):
        assert needed in names


@pytest.mark.parametrize("name, damage, expected", CASES, ids=[c[0] for c in CASES])
def test_a_damaged_file_is_reported_and_kept_never_a_hang_or_crash(tmp_path, monkeypatch,
                                                                  name, damage, expected):
    if name == "a game over the size limit":
        monkeypatch.setattr(journal_module, "MAX_FILE_BYTES", 1 << 20)
    folder = tmp_path / "journal"
    path = _write_game(folder)
    damage(path)
    journal = Journal(folder)
    records, problems = _timed(journal.scan)
    if expected == "problem":
        assert not records and [p.path for p in problems] == [path], (records, problems)
        assert str(problems[0]).strip() and "\n" not in str(problems[0])
        aside = _timed(lambda: journal.quarantine(path))
        assert aside.name.startswith(path.name + ".bad-") and not os.path.lexists(path)
        return
    assert not problems, problems
    (record,) = records
    try:  # what start-up does: the moves replayed; an illegal one is damage too
        record.replay(salvage=True)
    except JournalError:
        pytest.fail(f"{name}: replay refused a salvaged game")
    shown = record.moves[:len(OPENING)]
    assert shown == OPENING[:len(shown)]  # the moves before the damage
    if expected == "clean":
        assert record.damage is None and len(record.moves) < len(OPENING)
        return
    assert record.damage and "\n" not in record.damage, record.damage  # reported
    before = path.stat()
    writer = _timed(lambda: journal.continue_game(record))
    writer.move("Mg8-f6")
    writer.close()
    (aside,) = folder.glob(path.name + ".bad-*")  # the original, kept
    assert aside.stat().st_size == before.st_size
    again = read_game(path)
    assert again.damage is None and again.moves == record.moves + ["Mg8-f6"]


def test_start_up_with_a_2_gb_file_under_a_1_5_gb_address_space(tmp_path):
    """The 2 GB file crashed start-up with MemoryError on a small Pi; a FIFO and a
    symlink to /dev/zero hung it."""
    folder = tmp_path / "journal"
    path = _write_game(folder)
    _extend_nul(2 * GB)(path)
    (folder / "20000101-000000-chess.jsonl").symlink_to("/dev/zero")
    os.mkfifo(folder / "20000102-000000-chess.jsonl")
    script = f"""
import json, resource
resource.setrlimit(resource.RLIMIT_AS, ({int(1.5 * GB)}, {int(1.5 * GB)}))
from controller.service import BoardService
from tests.support.service import make_config
svc = BoardService(make_config(__import__("pathlib").Path({str(tmp_path)!r})))
print(json.dumps({{"id": svc.game_id, "plies": [t for _, t in svc.plies],
                  "problems": svc.journal_problems}}))
svc.close()
"""
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=60,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["id"] == path.stem and out["plies"] == OPENING
    problems = " | ".join(out["problems"])
    assert "over 32 MiB" in problems or "line over" in problems or "NUL" in problems, problems
    assert "a symbolic link" in problems and "a FIFO" in problems, problems
    assert list(folder.glob(path.name + ".bad-*"))  # the 2 GB original kept (a hard link)
