"""``fairyboard backup`` / ``fairyboard restore`` (issue #30, deliver 7): the journal, the
configuration, the calibration (and a referee's journal) in one archive with a manifest
and checksums; a restore puts them back and keeps what it replaced; a damaged, truncated
or foreign archive is refused in one line and every current file stays as it was."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from controller.backup import MANIFEST, read_backup
from controller.cli import main
from controller.journal import Journal


def _board(root: Path) -> Path:
    """A board's files under ``root/state``: its configuration (naming the others), two
    games, a calibration of two layouts and a referee journal; returns the configuration."""
    state = root / "state"
    (state / "cal").mkdir(parents=True)
    config = state / "config.toml"
    config.write_text(f"[journal]\npath = '{state / 'games'}'\n"
                      f"[sensing]\ncalibration = '{state / 'cal' / 'calibration-{layout}.json'}'\n"
                      f"[link]\nreferee_journal = '{state / 'referee.json'}'\n"
                      "[board]\ngame = 'chess'\nlayout = 'square8'\n")
    journal = Journal(state / "games")
    for n, moves in enumerate((["e2e4", "e7e5"], ["d2d4"])):
        writer = journal.new_game("chess", {"chess960": False},
                                  "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                                  ["White", "Black"], now=1_700_000_000 + 60 * n)
        for move in moves:
            writer.move(move)
        writer.close()
    (state / "cal" / "calibration-square8.json").write_text('{"square8": [1, 2, 3]}')
    (state / "cal" / "calibration-lotus39.json").write_text('{"lotus39": [4]}')
    (state / "cal" / "notes.txt").write_text("not a calibration")
    (state / "referee.json").write_text('{"games": []}')
    return config


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _backup(config: Path, out: Path, capsys) -> Path:
    assert main(["backup", "--config", str(config), "--out", str(out)]) == 0
    written, _, summary = capsys.readouterr().out.strip().partition(": ")
    assert summary == ("2 journal files, the configuration, 2 calibration(s), "
                       "the referee's journal"), summary
    assert Path(written) == out or Path(written).parent == out
    return Path(written)


def test_a_restore_puts_back_every_file_and_keeps_what_it_replaced(tmp_path, capsys):
    config = _board(tmp_path)
    state = tmp_path / "state"
    before = _files(state)
    archive = _backup(config, tmp_path / "board.tar.gz", capsys)
    # the owner loses a game, edits the configuration, a calibration is gone
    games = sorted((state / "games").iterdir())
    games[0].unlink()
    config.write_text(config.read_text() + "[log]\nlevel = 'debug'\n")
    (state / "cal" / "calibration-square8.json").unlink()
    (state / "games" / "20991231-000000-chess.jsonl").write_text("a newer game\n")
    changed = _files(state)
    assert main(["restore", str(archive)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"restored 2 journal files, the configuration, 2 calibration(s), "
                          f"the referee's journal from {archive}")
    after = _files(state)
    for name, data in before.items():
        assert after[name] == data, name
    # what was there is kept aside: the edited configuration, the journal folder as it was
    kept = {name: data for name, data in after.items() if ".before-restore-" in name}
    assert changed["config.toml"] in kept.values()
    assert any(n.endswith("20991231-000000-chess.jsonl") for n in kept)
    assert [n for n in after if n not in before and ".before-restore-" not in n] == []
    assert [g.moves for g in Journal(state / "games").games()] == [["e2e4", "e7e5"], ["d2d4"]]


def test_a_restore_onto_an_empty_board_and_with_the_configuration_elsewhere(tmp_path, capsys):
    config = _board(tmp_path)
    state = tmp_path / "state"
    before = _files(state)
    archive = _backup(config, tmp_path, capsys)  # a folder: a dated name inside it
    assert archive.parent == tmp_path and archive.name.startswith("fairyboard-backup-")
    for path in sorted(state.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    elsewhere = tmp_path / "etc" / "fairyboard.toml"
    assert main(["restore", str(archive), "--config", str(elsewhere)]) == 0
    capsys.readouterr()
    assert elsewhere.read_bytes() == before["config.toml"]
    after = _files(state)
    # (a file beside the calibrations that is none is not the board's: not backed up)
    assert {n: d for n, d in before.items() if n not in ("config.toml", "cal/notes.txt")
            } == after


def test_a_backup_without_a_configuration_file(tmp_path, capsys):
    _board(tmp_path)
    games = tmp_path / "state" / "games"
    out = tmp_path / "games.tar.gz"
    assert main(["backup", "--journal", str(games), "--out", str(out)]) == 0
    assert "2 journal files" in capsys.readouterr().out
    backup = read_backup(out)
    assert backup.count("config") == 0 and backup.count("journal") == 2
    target = tmp_path / "restored"
    assert main(["restore", str(out), "--journal", str(target)]) == 0
    assert _files(target) == _files(games)


# -- damaged archives: refused in one line, nothing changed ---------------------------------
def _members(archive: Path) -> list[tuple[str, bytes]]:
    with tarfile.open(archive) as tar:
        return [(m.name, tar.extractfile(m).read()) for m in tar]


def _pack(members: list[tuple[str, bytes]]) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def _manifest(members):
    return json.loads(dict(members)[MANIFEST])


def _with_manifest(members, manifest):
    return [(MANIFEST, json.dumps(manifest).encode())] + [m for m in members if m[0] != MANIFEST]


def _damage(kind: str, good: bytes, members: list[tuple[str, bytes]]) -> bytes:
    if kind == "truncated to half":
        return good[:len(good) // 2]
    if kind == "truncated by ten bytes":
        return good[:-10]
    if kind == "truncated to the gzip header":
        return good[:10]
    if kind == "a flipped byte":
        data = bytearray(good)
        data[len(data) // 2] ^= 0x40
        return bytes(data)
    if kind == "empty":
        return b""
    if kind == "not an archive":
        return b"[journal]\npath = '/tmp'\n"
    if kind == "a file changed inside":
        return _pack([(n, d + b"x" if n.startswith("journal/") else d) for n, d in members])
    if kind == "a file missing":
        return _pack([m for m in members if not m[0].startswith("calibration/")])
    if kind == "a file not in the manifest":
        return _pack(members + [("journal/extra.jsonl", b"{}\n")])
    if kind == "no manifest":
        return _pack([m for m in members if m[0] != MANIFEST])
    if kind == "a manifest that is not JSON":
        return _pack([(n, d[:-5] if n == MANIFEST else d) for n, d in members])
    if kind == "a name leaving its folder":
        manifest = _manifest(members)
        data = b"evil"
        manifest["files"].append({"role": "journal", "name": "../../evil", "size": 4,
                                  "sha256": hashlib.sha256(data).hexdigest()})
        return _pack(_with_manifest(members, manifest) + [("journal/../../evil", data)])
    if kind == "a link inside":
        out = io.BytesIO()
        with tarfile.open(fileobj=out, mode="w:gz") as tar:
            for name, data in members:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            link = tarfile.TarInfo("journal/link")
            link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tar.addfile(link)
        return out.getvalue()
    if kind == "an invalid configuration":
        bad = b"[board]\nnope = 1\n"
        manifest = _manifest(members)
        for item in manifest["files"]:
            if item["role"] == "config":
                item["size"], item["sha256"] = len(bad), hashlib.sha256(bad).hexdigest()
        return _pack([(n, bad if n == "config/config.toml" else d)
                      for n, d in _with_manifest(members, manifest)])
    if kind == "another format":
        manifest = _manifest(members)
        manifest["format"] = 99
        return _pack(_with_manifest(members, manifest))
    raise AssertionError(kind)


DAMAGE = ["truncated to half", "truncated by ten bytes", "truncated to the gzip header",
          "a flipped byte", "empty", "not an archive", "a file changed inside",
          "a file missing", "a file not in the manifest", "no manifest",
          "a manifest that is not JSON", "a name leaving its folder", "a link inside",
          "an invalid configuration", "another format"]


@pytest.mark.parametrize("kind", DAMAGE)
def test_a_damaged_archive_is_refused_in_one_line_and_nothing_changes(tmp_path, capsys,
                                                                        kind):
    config = _board(tmp_path)
    good = _backup(config, tmp_path / "good.tar.gz", capsys)
    # the board has moved on since: a new game, an edited configuration
    (tmp_path / "state" / "games" / "20991231-000000-chess.jsonl").write_text("newer\n")
    config.write_text(config.read_text() + "[log]\nlevel = 'debug'\n")
    before = _files(tmp_path)
    bad = tmp_path / "bad.tar.gz"
    bad.write_bytes(_damage(kind, good.read_bytes(), _members(good)))
    before["bad.tar.gz"] = bad.read_bytes()
    assert main(["restore", str(bad)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("fairyboard: error: "), captured.err
    assert "Traceback" not in captured.err
    assert _files(tmp_path) == before  # nothing written, nothing left behind
    assert not (tmp_path.parent / "evil").exists()


def test_a_missing_archive_is_one_line(tmp_path, capsys):
    assert main(["restore", str(tmp_path / "nope.tar.gz")]) == 2
    assert capsys.readouterr().err.strip() == (
        f"fairyboard: error: {tmp_path / 'nope.tar.gz'}: no such backup file; "
        "nothing was changed")


def test_the_archive_is_a_plain_tar_gz_with_its_manifest_first(tmp_path, capsys):
    config = _board(tmp_path)
    archive = _backup(config, tmp_path / "b.tar.gz", capsys)
    with gzip.open(archive) as raw, tarfile.open(fileobj=raw) as tar:  # any tar reads it
        names = tar.getnames()
    assert names[0] == MANIFEST
    manifest = _manifest(_members(archive))
    assert manifest["format"] == 1 and manifest["config_path"] == str(config.resolve())
    assert sorted(f["role"] + "/" + f["name"] for f in manifest["files"]) == sorted(names[1:])
    assert {"calibration/square8", "calibration/lotus39"} <= set(names)
    assert all(len(f["sha256"]) == 64 for f in manifest["files"])


def test_a_disk_full_while_writing_the_restored_files_changes_nothing(tmp_path, capsys,
                                                                      monkeypatch):
    """Every file is written beside its place before any is renamed: a write failing
    half way (a full disk) removes what was written and leaves the board as it was."""
    import controller.backup as backup

    config = _board(tmp_path)
    archive = _backup(config, tmp_path / "b.tar.gz", capsys)
    config.write_text(config.read_text() + "[log]\nlevel = 'debug'\n")
    before = _files(tmp_path)
    real, calls = backup._write_synced, []

    def full_disk(path, data):
        calls.append(path)
        if len(calls) == 5:
            raise OSError(28, "No space left on device")
        real(path, data)

    monkeypatch.setattr(backup, "_write_synced", full_disk)
    assert main(["restore", str(archive)]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "No space left on device" in err[0]
    assert "nothing was changed" in err[0]
    assert _files(tmp_path) == before
    assert sorted(p.name for p in (tmp_path / "state").iterdir()) == sorted(
        ["cal", "config.toml", "games", "referee.json"])


def test_two_restores_in_one_second_keep_both_earlier_states(tmp_path, capsys):
    config = _board(tmp_path)
    archive = _backup(config, tmp_path / "b.tar.gz", capsys)
    assert main(["restore", str(archive)]) == 0
    assert main(["restore", str(archive)]) == 0
    capsys.readouterr()
    kept = sorted(p.name for p in (tmp_path / "state").iterdir() if "before-restore" in p.name)
    assert len([k for k in kept if k.startswith("games.")]) == 2, kept
    assert len([k for k in kept if k.startswith("config.toml.")]) == 2, kept
