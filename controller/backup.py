"""Backup and restore of what an owner cannot make again: the game journal, the
configuration file, the sensors' calibration (and a club referee's journal).

A backup is one ``.tar.gz`` archive: ``manifest.json`` first (format, date, and for each
file its role, size and SHA-256), then the files under ``config/``, ``journal/``,
``calibration/`` and ``referee/``.  ``fairyboard backup`` writes it atomically (a
temporary file, fsync, rename), reading each file once so a game being played is copied
as of one moment.

``fairyboard restore`` checks everything before it changes anything: the archive must read
to its end (gzip's own checksum), hold exactly the files its manifest lists with their
sizes and checksums, and its configuration must pass the same validation as the file
(``controller/config.py``).  A damaged archive is refused in one line and nothing is
touched.  Then every file is written beside its place and fsynced, and only then renamed
into place; the files it replaces are kept beside them as ``NAME.before-restore-<time>``
(the journal folder as a whole), so a restore never loses anything either.  Files go
where the *restored* configuration puts them (the journal folder, ``sensing.calibration``
for each layout, ``link.referee_journal``); the configuration file where ``--config``
says, or where it was backed up from.  Stop the service before restoring.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import io
import json
import os
import re
import shutil
import tarfile
import time
import tomllib
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.atomic import fsync_folder as _fsync_folder
from controller.atomic import write_atomically
from controller.config import Config, ConfigError, calibration_path, config_from_dict

#: the archive format written by this version
FORMAT = 1
MANIFEST = "manifest.json"
#: the largest archive restore reads (a journal of many thousands of games is a few MB)
MAX_ARCHIVE_BYTES = 512 * 1024 * 1024
ROLES = ("config", "journal", "calibration", "referee")
_SAFE_NAME = re.compile(r"^[A-Za-z0-9._~+-]{1,200}$")


class BackupError(ValueError):
    """A backup that cannot be written or an archive that cannot be restored; one line."""


@dataclass(frozen=True)
class Entry:
    """One file of the archive: its role, its name within the role (a journal file's
    name, a calibration's layout) and its bytes."""

    role: str
    name: str
    data: bytes

    @property
    def member(self) -> str:
        return f"{self.role}/{self.name}"

    def json(self) -> dict[str, Any]:
        return {"role": self.role, "name": self.name, "size": len(self.data),
                "sha256": hashlib.sha256(self.data).hexdigest()}


@dataclass
class Backup:
    """What an archive holds, checked: its files and where the configuration came from."""

    entries: list[Entry] = field(default_factory=list)
    config_path: str | None = None
    created: str = ""

    def count(self, role: str) -> int:
        return sum(1 for e in self.entries if e.role == role)

    def summary(self) -> str:
        games = self.count("journal")
        parts = [f"{games} journal file{'' if games == 1 else 's'}"]
        if self.count("config"):
            parts.append("the configuration")
        if self.count("calibration"):
            parts.append(f"{self.count('calibration')} calibration(s)")
        if self.count("referee"):
            parts.append("the referee's journal")
        return ", ".join(parts)


# -- what a board has to back up --------------------------------------------------------
def _calibrations(config: Config) -> list[tuple[str, Path]]:
    """(layout, file) for every calibration file ``sensing.calibration`` names."""
    marker = "\0layout\0"
    pattern = str(calibration_path(config, marker))
    folder = Path(pattern).parent
    if marker in str(folder) or not folder.is_dir():
        return []
    before, _, after = Path(pattern).name.partition(marker)
    found = []
    for path in sorted(folder.iterdir()):
        name = path.name
        if (path.is_file() and name.startswith(before) and name.endswith(after)
                and len(name) > len(before) + len(after)):
            layout = name[len(before):len(name) - len(after)]
            if _SAFE_NAME.match(layout) and calibration_path(config, layout) == path:
                found.append((layout, path))
    return found


def collect(config: Config, config_path: str | Path | None) -> Backup:
    """Everything to back up, read now (each file once)."""
    backup = Backup(config_path=None if config_path is None else
                    str(Path(config_path).expanduser().resolve()),
                    created=time.strftime("%Y-%m-%dT%H:%M:%S"))
    if config_path is not None:
        backup.entries.append(Entry("config", "config.toml", Path(config_path).read_bytes()))
    journal = Path(config.journal.path).expanduser()
    if journal.is_dir():
        for path in sorted(journal.iterdir()):
            if (path.is_file() and _SAFE_NAME.match(path.name)
                    and not path.name.startswith(".")):  # (a restore's temporary files)
                backup.entries.append(Entry("journal", path.name, path.read_bytes()))
    for layout, path in _calibrations(config):
        backup.entries.append(Entry("calibration", layout, path.read_bytes()))
    referee = Path(config.link.referee_journal).expanduser()
    if referee.is_file():
        backup.entries.append(Entry("referee", "referee.json", referee.read_bytes()))
    return backup


def archive_bytes(backup: Backup) -> bytes:
    """The ``.tar.gz`` of a backup: its manifest first, then its files."""
    manifest = {"format": FORMAT, "program": "fairyboard", "created": backup.created,
                "config_path": backup.config_path,
                "files": [e.json() for e in backup.entries]}
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, data in [(MANIFEST, json.dumps(manifest, indent=1).encode())] + [
                (e.member, e.data) for e in backup.entries]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = int(time.time())
            info.mode = 0o644
            tar.addfile(info, io.BytesIO(data))
    return out.getvalue()


def make_backup(config: Config, config_path: str | Path | None, out: Path) -> Backup:
    """Write the archive to the file ``out`` atomically; returns what it holds."""
    backup = collect(config, config_path)
    write_atomically(out, archive_bytes(backup), 0o600)  # the journal and the passwords
    return backup


def backup_path(out: str | Path | None, now: float | None = None) -> Path:
    """Where a backup goes: ``out`` as given, or inside it when it is a folder, named
    ``fairyboard-backup-YYYYMMDD-HHMMSS.tar.gz``; the current folder by default."""
    name = time.strftime("fairyboard-backup-%Y%m%d-%H%M%S.tar.gz", time.localtime(now))
    if out is None:
        return Path.cwd() / name
    path = Path(out).expanduser()
    return path / name if path.is_dir() else path


# -- reading an archive back, checking everything -------------------------------------------
def read_backup(archive: str | Path) -> Backup:
    """The archive's files, every one checked against its manifest; a damaged archive is
    a :class:`BackupError` naming what is wrong (nothing has been changed)."""
    path = Path(archive).expanduser()
    try:
        size = path.stat().st_size
        if size > MAX_ARCHIVE_BYTES:
            raise BackupError(f"{path.name}: {size} bytes is larger than any backup "
                              f"({MAX_ARCHIVE_BYTES} at most)")
        raw = path.read_bytes()
    except FileNotFoundError:
        raise BackupError(f"{path}: no such backup file") from None
    except IsADirectoryError:
        raise BackupError(f"{path}: a folder, not a backup file") from None
    except OSError as exc:
        raise BackupError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    members: dict[str, bytes] = {}
    try:
        # the whole stream first: gzip's CRC and length at its end find a cut or a flipped
        # bit even in the padding the tar reader would stop before
        tar_bytes = gzip.decompress(raw)
        with tarfile.open(fileobj=io.BytesIO(tar_bytes), mode="r:") as tar:
            for info in tar:
                if not info.isfile():
                    raise BackupError(f"{path.name}: damaged archive ({info.name!r} is not "
                                      "a plain file)")
                if info.name in members:
                    raise BackupError(f"{path.name}: damaged archive ({info.name!r} twice)")
                handle = tar.extractfile(info)
                assert handle is not None
                members[info.name] = handle.read()
    except BackupError:
        raise
    except (tarfile.TarError, EOFError, zlib.error, OSError, MemoryError) as exc:
        words = " ".join(str(exc).split()) or type(exc).__name__
        raise BackupError(f"{path.name}: damaged or not a fairyboard backup "
                          f"(cannot read the archive: {words})") from None
    return _checked(path.name, members)


def _checked(name: str, members: dict[str, bytes]) -> Backup:
    def damaged(why: str) -> BackupError:
        return BackupError(f"{name}: damaged archive ({why})")

    if MANIFEST not in members:
        raise damaged(f"no {MANIFEST}: not a fairyboard backup")
    try:
        manifest = json.loads(members.pop(MANIFEST))
    except (ValueError, RecursionError):
        raise damaged(f"{MANIFEST} is not JSON") from None
    if not isinstance(manifest, dict) or manifest.get("program") != "fairyboard":
        raise damaged(f"{MANIFEST} is not a fairyboard backup's")
    if manifest.get("format") != FORMAT:
        raise BackupError(f"{name}: backup format {manifest.get('format')!r}: this version "
                          f"restores format {FORMAT}")
    files = manifest.get("files")
    config_path = manifest.get("config_path")
    if not isinstance(files, list) or not (config_path is None or isinstance(config_path, str)):
        raise damaged(f"{MANIFEST} lists no files")
    backup = Backup(config_path=config_path, created=str(manifest.get("created", "")))
    listed: set[str] = set()
    for item in files:
        if (not isinstance(item, dict) or item.get("role") not in ROLES
                or not isinstance(item.get("name"), str)
                or not _SAFE_NAME.match(item["name"]) or item["name"].startswith(".")
                or not isinstance(item.get("sha256"), str)
                or not isinstance(item.get("size"), int)):
            raise damaged(f"{MANIFEST} has an entry that is not a file: {str(item)[:60]}")
        member = f"{item['role']}/{item['name']}"
        if member in listed:
            raise damaged(f"{member} listed twice")
        listed.add(member)
        data = members.get(member)
        if data is None:
            raise damaged(f"{member} is missing")
        if len(data) != item["size"] or hashlib.sha256(data).hexdigest() != item["sha256"]:
            raise damaged(f"{member} does not match its checksum")
        backup.entries.append(Entry(item["role"], item["name"], data))
    extra = sorted(set(members) - listed)
    if extra:
        raise damaged(f"{extra[0]} is not in the manifest")
    if backup.count("config") > 1 or backup.count("referee") > 1:
        raise damaged("more than one configuration or referee journal")
    return backup


def backup_config(backup: Backup) -> Config:
    """The archive's configuration, validated as the file is (the defaults without one)."""
    entry = next((e for e in backup.entries if e.role == "config"), None)
    if entry is None:
        return Config()
    try:
        data = tomllib.loads(entry.data.decode("utf-8"))
        return config_from_dict(data, "the backup's configuration")
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise BackupError(f"the backup's configuration is not valid TOML ({exc})") from None
    except ConfigError as exc:
        raise BackupError(str(exc)) from None


# -- restoring ----------------------------------------------------------------------------
@dataclass
class Restored:
    """What a restore did: the backup, where each part went and what it kept aside."""

    backup: Backup
    placed: list[Path] = field(default_factory=list)
    kept: list[Path] = field(default_factory=list)


def restore_backup(archive: str | Path, config_path: str | Path | None = None,
                   journal: str | Path | None = None) -> Restored:
    """Restore ``archive`` (see the module text); ``config_path`` and ``journal`` put the
    configuration file and the journal folder elsewhere than the archive says."""
    try:
        backup = read_backup(archive)
        config = backup_config(backup)
    except BackupError as exc:
        raise BackupError(f"{exc}; nothing was changed") from None
    stamp = time.strftime("%Y%m%d-%H%M%S")
    plan: list[tuple[Path, bytes]] = []  # single files: target, content
    for entry in backup.entries:
        if entry.role == "config":
            target = config_path or backup.config_path
            if target is None:
                raise BackupError("the backup holds a configuration but not where it came "
                                  "from: name it with --config; nothing was changed")
            plan.append((Path(target).expanduser(), entry.data))
        elif entry.role == "calibration":
            plan.append((calibration_path(config, entry.name), entry.data))
        elif entry.role == "referee":
            plan.append((Path(config.link.referee_journal).expanduser(), entry.data))
    folder = Path(journal or config.journal.path).expanduser()
    games = [e for e in backup.entries if e.role == "journal"]
    restored = Restored(backup)
    staged: list[tuple[Path, Path]] = []  # temporary file or folder, its place
    try:
        for target, data in plan:  # 1. everything written beside its place and fsynced
            target.parent.mkdir(parents=True, exist_ok=True)
            tmp = target.with_name(f".{target.name}.restore-{stamp}-{os.getpid()}")
            _write_synced(tmp, data)
            staged.append((tmp, target))
        new_folder = folder.with_name(f".{folder.name}.restore-{stamp}-{os.getpid()}")
        new_folder.mkdir(parents=True)
        staged.append((new_folder, folder))
        for entry in games:
            _write_synced(new_folder / entry.name, entry.data)
        _fsync_folder(new_folder)
    except OSError as exc:
        for tmp, _ in staged:
            _remove(tmp)
        raise BackupError(f"cannot write the restored files ({exc}); nothing was "
                          "changed") from None
    for tmp, target in staged:  # 2. renamed into place, the current files kept aside
        if target.exists() or target.is_symlink():
            aside = target.with_name(f"{target.name}.before-restore-{stamp}")
            n = 1
            while aside.exists() or aside.is_symlink():  # a second restore this second
                n += 1
                aside = target.with_name(f"{target.name}.before-restore-{stamp}~{n}")
            os.replace(target, aside)
            restored.kept.append(aside)
        os.replace(tmp, target)
        _fsync_folder(target.parent)
        restored.placed.append(target)
    return restored


def _write_synced(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        if path.is_dir():
            shutil.rmtree(path)
        else:
            path.unlink()
