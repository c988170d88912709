"""A damaged journal never stops the board: format 2 (checksums, one record per shown move),
old files still read, damaged records dropped with their reason, unreadable files
quarantined, a full disk stops the service without showing what is not on disk."""

from __future__ import annotations

import asyncio
import errno
import json
import os

import pytest

from controller.cli import main as cli_main
from controller.journal import Journal, JournalError, read_game
from controller.process import _serve
from controller.rules import get_game
from controller.service import BoardService, ServiceError
from controller.web.page import page_state
from controller.web.simulator import move_actions
from tests.support.service import make_config

OPENING = ["Mb1-c3", "Mb8-c6", "Mc3-b1", "Mc6-b8", "Ee2-d3", "Ef7-e6"]


_config = make_config  # the tests' service configuration


def _service(tmp_path) -> BoardService:
    return BoardService(_config(tmp_path))


def _set_up(svc: BoardService) -> None:
    svc.sim_action({"action": "arrange"})
    svc.step(0.1)
    assert svc.interaction.phase == "turn", svc.interaction


def _do(svc: BoardService, text: str) -> None:
    move = svc.game.parse_move(svc.position, text)
    for action in move_actions(svc.game, svc.position, move, svc.layout):
        svc.sim_action(action)
        svc.step(0.03)
    svc.step(0.2)
    assert svc.plies and svc.plies[-1][1] == text, (svc.plies, svc.interaction)


def _write_game(journal: Journal, moves: list[str], now: float = 0):
    game = get_game("luotuoqi")
    pos = game.start()
    writer = journal.new_game("luotuoqi", {}, game.position_text(pos), ["Ann", "Bo"], now=now)
    for text in moves:
        move = game.parse_move(pos, text)
        writer.move(game.move_text(pos, move), game.long_move_text(pos, move))
        pos.push(move)
    writer.close()
    return writer.path


def _lines(path) -> list[bytes]:
    return path.read_bytes().split(b"\n")[:-1]


# --- the format ------------------------------------------------------------------------


def test_every_line_is_its_record_and_carries_a_checksum(tmp_path):
    path = _write_game(Journal(tmp_path), OPENING[:2])
    lines = _lines(path)
    start = json.loads(lines[0])
    assert start["type"] == "start" and start["format"] == 2
    assert json.loads(lines[1]) == {"type": "move", "move": "Mb1-c3"}  # the record, exactly
    assert all(len(x) - len(x.rstrip(b" \t")) == 32 for x in lines)  # 32 checksum blanks


def test_a_flipped_bit_drops_that_record_and_everything_after_it(tmp_path):
    journal = Journal(tmp_path)
    path = _write_game(journal, OPENING)
    data = bytearray(path.read_bytes())
    at = data.index(b"Mc3-b1")
    data[at + 1] ^= 0x01  # "Mc3-b1" -> "Mb3-b1": still valid JSON
    path.write_bytes(bytes(data))
    record = read_game(path, strict=False)
    assert record.moves == OPENING[:2] and record.damage is not None
    assert "line 4 is damaged (checksum mismatch)" in record.damage
    assert "3 later record(s)" in record.damage
    with pytest.raises(JournalError, match="line 4 is corrupt"):
        read_game(path)  # strict reading (tools) still refuses it


@pytest.mark.parametrize("line,why", [
    (b"[1,2,3]", "not a JSON object"),
    (b'{"type":"move"}', "'move' missing"),
    (b'{"type":"takeback","plies":9}', "takes back 9 plies of 6"),
    (b'{"type":"takeback","plies":true}', "takes back True plies"),
    (b'{"type":"castle"}', "unknown record type"),
    (b'{"type":"end","result":7}', "'result' missing or not text"),
    (b"{" * 5000, "not JSON"),
])
def test_a_damaged_record_in_an_old_file_keeps_the_moves_before_it(tmp_path, line, why):
    """Format 1 files (no version, no checksums) are still read."""
    game = get_game("luotuoqi")
    old = [json.dumps({"type": "start", "game": "luotuoqi", "options": {},
                       "setup": game.position_text(game.start()), "players": [],
                       "date": "2025-01-01T10:00:00"})]
    old += [json.dumps({"type": "move", "move": m}) for m in OPENING]
    path = tmp_path / "20250101-100000-luotuoqi.jsonl"
    path.write_bytes(("\n".join(old) + "\n").encode() + line + b"\n"
                     + b'{"type":"move","move":"Mb1-c3"}\n')
    record = read_game(path, strict=False)
    assert record.format == 1 and record.moves == OPENING
    assert why in record.damage and "line 8" in record.damage
    assert record.replay(salvage=True)[1].snapshot() == record.replay()[1].snapshot()


def test_an_illegal_move_is_dropped_on_resuming_with_its_reason(tmp_path):
    journal = Journal(tmp_path / "journal")
    path = _write_game(journal, OPENING[:3])
    # a format-1 style record with a legal-looking but illegal move (a bit flipped before
    # checksums existed), then a move after it
    with open(path, "ab") as f:
        f.write(b'{"type":"move","move":"Mb8-a6"}\n{"type":"move","move":"Ee2-d3"}\n')
    svc = _service(tmp_path)
    try:
        # a record without its checksum in a format-2 file is damage
        assert [t for _, t in svc.plies] == OPENING[:3]
        assert "line 5 is damaged (no checksum)" in svc.resume_offer["dropped"]
        state = page_state(svc)
        assert state["resume"]["dropped"] == svc.resume_offer["dropped"]
        assert state["journal_problems"] == [svc.resume_offer["dropped"]]
        assert svc.health()["journal_problems"] == state["journal_problems"]
        # the file was rewritten without the damage (the original kept aside): moves
        # played now are not hidden behind it
        assert len(list((tmp_path / "journal").glob("*.jsonl.bad-*"))) == 1
        _set_up(svc)
        _do(svc, "Mc6-b8")
        assert Journal(tmp_path / "journal").find(svc.game_id).moves == OPENING[:4]
        assert Journal(tmp_path / "journal").find(svc.game_id).damage is None
    finally:
        svc.close()


def test_an_illegal_move_in_a_checksummed_file_is_dropped(tmp_path):
    journal = Journal(tmp_path)
    path = _write_game(journal, OPENING[:2])
    writer = journal.continue_game(read_game(path))
    writer.move("Ke8-e7")  # well-formed, checksummed, illegal
    writer.move("Mb1-c3")
    writer.close()
    record = read_game(path, strict=False)
    game, pos = record.replay(salvage=True)
    assert record.moves == OPENING[:2] and "ply 3" in record.damage and "line 4" in record.damage
    assert len(pos.moves) == 2


# --- unreadable files ---------------------------------------------------------------


def test_an_empty_file_is_quarantined_and_the_game_in_progress_resumed(tmp_path):
    """Issue 15, defect 2: an empty file (SIGKILL during "new game") stopped all resuming."""
    folder = tmp_path / "journal"
    folder.mkdir()
    (folder / "20000101-000000-luotuoqi.jsonl").write_bytes(b"")
    svc = _service(tmp_path)
    problems = svc.health()["journal_problems"]
    assert len(problems) == 1 and "20000101-000000-luotuoqi.jsonl: empty" in problems[0]
    assert "quarantined as 20000101-000000-luotuoqi.jsonl.bad-" in problems[0]
    assert page_state(svc)["journal_problems"] == problems
    assert not (folder / "20000101-000000-luotuoqi.jsonl").exists()
    assert len(list(folder.glob("20000101-000000-luotuoqi.jsonl.bad-*"))) == 1
    _set_up(svc)
    for text in OPENING[:3]:
        _do(svc, text)
    game_id = svc.game_id
    svc.close()
    (folder / "20000101-000000-luotuoqi.jsonl").write_bytes(b"")  # another one
    again = _service(tmp_path)
    try:
        assert again.game_id == game_id and [t for _, t in again.plies] == OPENING[:3]
        assert again.resume_offer["plies"] == 3
        assert len(again.health()["journal_problems"]) == 1
    finally:
        again.close()


@pytest.mark.parametrize("start", [
    b"",
    b"[1,2,3]\n",
    b'{"type":"start","game":"luotuoqi","options":{}}\n',  # no set-up
    b'{"type":"start","game":"luotuoqi","options":{"stone_budget":"16"},"setup":"x"}\n',
    b'{"type":"start","game":"luotuoqi","options":{},"setup":"not a position"}\n',
])
def test_the_newest_game_unreadable_is_quarantined_and_a_new_game_starts(tmp_path, start):
    """Also issue 15, defect 4 (restart half): options the game rejects in the start
    record crashed every restart."""
    folder = tmp_path / "journal"
    folder.mkdir()
    bad = folder / "29990101-000000-luotuoqi.jsonl"
    bad.write_bytes(start + b'{"type":"move","move":"Mb1-c3"}\n')
    svc = _service(tmp_path)
    try:
        assert svc.resume_offer is None and svc.plies == []
        assert not bad.exists() and len(list(folder.glob("*.bad-*"))) == 1
        assert len(svc.health()["journal_problems"]) == 1
        assert svc.health()["status"] in ("ok", "starting") or svc.health()["status"] == "ok"
    finally:
        svc.close()


def test_games_list_and_export_never_fail_on_one_bad_file(tmp_path, capsys):
    journal = Journal(tmp_path)
    good = _write_game(journal, OPENING[:2], now=1e9)  # 2001
    damaged = _write_game(journal, OPENING, now=1e9 + 100)
    damaged.write_bytes(damaged.read_bytes().replace(b"Mc3-b1", b"Mc3-b2"))
    (tmp_path / "20000101-000000-luotuoqi.jsonl").write_bytes(b"")
    (tmp_path / "20000102-000000-luotuoqi.jsonl").write_bytes(b"[1,2,3]\n")
    (tmp_path / "20000103-000000-luotuoqi.jsonl.bad-20000104-000000").write_bytes(b"")
    assert cli_main(["games", "list", "--journal", str(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("20000101-000000-luotuoqi  unreadable: empty journal file")
    assert out[1].startswith("20000102-000000-luotuoqi  unreadable: line 1 is not a start")
    assert out[2] == "20000103-000000-luotuoqi.jsonl.bad-20000104-000000  quarantined"
    assert out[3].startswith(good.stem) and "2 moves" in out[3] and "damaged" not in out[3]
    assert out[4].startswith(damaged.stem) and "2 moves" in out[4]
    assert "[damaged: " in out[4] and "checksum mismatch" in out[4]
    assert cli_main(["games", "export", "--journal", str(tmp_path), damaged.stem]) == 0
    exported = capsys.readouterr().out
    assert "[Damaged " in exported and "1. Mb1-c3 Mb8-c6 *" in exported
    assert cli_main(["games", "export", "--journal", str(tmp_path),
                     "20000101-000000-luotuoqi"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "empty journal file" in err[0]


# --- one record per shown move: the Cube hand-over ---------------------------------------


def test_the_cube_handed_over_after_the_move_is_one_amend_record(tmp_path):
    """Issue 15, defect 6: it was a takeback and a move; a kill between them lost the move
    the board showed."""
    svc = _service(tmp_path)
    try:
        _set_up(svc)
        _do(svc, "Mb1-c3")
        _do(svc, "Eb7-a6")  # committed and shown at once …
        path = svc.session.writer.path
        before = len(_lines(path))
        svc.sim_action({"action": "lift", "spot": "black-cube"})
        svc.step(0.05)
        svc.sim_action({"action": "place", "spot": "white-cube"})
        svc.step(0.3)
        assert [t for _, t in svc.plies] == ["Mb1-c3", "Eb7-a6+cube"]  # … then amended
        lines = _lines(path)
        assert len(lines) == before + 1
        assert json.loads(lines[-1]) == {"type": "amend", "move": "Eb7-a6+cube"}
        assert read_game(path).moves == ["Mb1-c3", "Eb7-a6+cube"]
    finally:
        svc.close()


# --- a full disk ------------------------------------------------------------------------


def test_disk_full_during_a_page_resign_stops_the_service_showing_nothing_unwritten(
        tmp_path, monkeypatch):
    """Issue 15, defect 7: resigning from the page on a full disk answered 500, the page
    showed 0-1, the journal held a torn record and /health stayed ok."""
    svc = _service(tmp_path)
    _set_up(svc)
    _do(svc, "Mb1-c3")
    path = svc.session.writer.path
    size = path.stat().st_size
    real_write = os.write

    def full_disk(fd, data):
        real_write(fd, data[:7])  # part of the record reaches the disk, then ENOSPC
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(ServiceError, match="journal write failed: No space left on device"):
        svc.command("resign")
    monkeypatch.setattr(os, "write", real_write)
    assert path.stat().st_size == size  # the torn part was cut off again
    record = read_game(path)
    assert record.result is None and record.moves == ["Mb1-c3"]
    health = svc.health()
    assert health["status"] == "failed" and "No space left" in health["failure"]
    state = page_state(svc)
    assert state["result"] is None and state["phase"] == "failed"
    assert [m["text"] for m in state["moves"]] == ["Mb1-c3"]
    with pytest.raises(ServiceError, match="stopping"):
        svc.command("offer draw")  # nothing more is accepted
    assert asyncio.run(asyncio.wait_for(_serve(svc), 10)) == 1  # exit status 1
    svc.close()


def test_disk_full_during_a_board_move_stops_the_service(tmp_path, monkeypatch):
    svc = _service(tmp_path)
    _set_up(svc)
    real_write = os.write

    def full_disk(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", full_disk)
    svc.sim_action({"action": "lift", "spot": "b1"})
    svc.sim_action({"action": "place", "spot": "c3"})
    assert asyncio.run(asyncio.wait_for(_serve(svc), 10)) == 1
    monkeypatch.setattr(os, "write", real_write)
    assert svc.plies == [] and page_state(svc)["moves"] == []
    assert svc.health()["status"] == "failed"
    assert read_game(svc.session.writer.path).moves == []
    svc.close()


def _full_journal_disk(monkeypatch) -> None:
    """Every write to a journal file fails with ENOSPC (other writes go through)."""
    real_write = os.write

    def write(fd, data):
        if os.readlink(f"/proc/self/fd/{fd}").endswith(".jsonl"):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", write)


def test_disk_full_during_a_page_new_game_stops_the_service(tmp_path, monkeypatch):
    svc = _service(tmp_path)
    _set_up(svc)
    _do(svc, "Mb1-c3")
    first = svc.game_id
    _full_journal_disk(monkeypatch)
    with pytest.raises(ServiceError, match="No space left on device"):
        svc.new_game("luotuoqi")
    monkeypatch.undo()
    assert svc.health()["status"] == "failed" and svc.game_id == first
    assert page_state(svc)["result"] is None
    assert [g.id for g in Journal(tmp_path / "journal").games()] == [first]
    assert Journal(tmp_path / "journal").find(first).result is None
    svc.close()


def test_disk_full_at_start_exits_with_status_1_and_one_line(tmp_path, monkeypatch, capsys):
    config = tmp_path / "board.toml"
    config.write_text(f"[journal]\npath = '{tmp_path / 'journal'}'\n[web]\nenabled = false\n")
    _full_journal_disk(monkeypatch)
    assert cli_main(["run", "--config", str(config)]) == 1
    monkeypatch.undo()
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "fairyboard: error: journal write failed: No space left on device"
    assert list((tmp_path / "journal").iterdir()) == []  # no empty file left behind


def test_a_game_whose_recorded_options_are_refused_is_quarantined_not_a_crash(tmp_path,
                                                                                capsys):
    """Issue 15, defect 4 (restart half): such a start record made every restart exit 1."""
    game = get_game("luotuoqi")
    folder = tmp_path / "journal"
    writer = Journal(folder).new_game("luotuoqi", {"stone_budget": "16"},
                                      game.position_text(game.start()), [], now=1e9)
    writer.move("Mb1-c3")
    writer.close()
    svc = _service(tmp_path)
    try:
        assert svc.resume_offer is None and svc.plies == []
        (problem,) = svc.health()["journal_problems"]
        assert "options are rejected: stone_budget must be a whole number" in problem
        assert not writer.path.exists()
    finally:
        svc.close()
    assert cli_main(["games", "list", "--journal", str(folder)]) == 0
    assert f"{writer.path.name}.bad-" in capsys.readouterr().out


def test_disk_full_during_a_page_request_over_http(tmp_path, monkeypatch):
    """The page's own view: the resign request fails with the one line, /health is 503
    "failed", the state shows no result (issue 15, defect 7)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from starlette.testclient import TestClient
    from controller.web.app import create_app

    svc = _service(tmp_path)
    client = TestClient(create_app(svc))
    _set_up(svc)
    _do(svc, "Mb1-c3")
    _full_journal_disk(monkeypatch)
    answer = client.post("/api/command", json={"command": "resign"})
    monkeypatch.undo()
    assert answer.status_code != 200
    assert "journal write failed: No space left on device" in answer.json()["error"]
    health = client.get("/health")
    assert health.status_code == 503 and health.json()["status"] == "failed"
    state = client.get("/api/state").json()
    assert state["result"] is None and state["phase"] == "failed"
    assert [m["text"] for m in state["moves"]] == ["Mb1-c3"]
    svc.close()
