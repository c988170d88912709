"""Files replaced whole or not at all (a power cut mid-write leaves the old file): the
backup archive and the owner's configuration are written this way."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_atomically(path: Path, data: bytes, mode: int | None = None) -> None:
    """``path`` holds ``data`` or what it held before, never a part: a temporary file
    beside it, fsynced, renamed over it, and the folder fsynced.  ``mode`` defaults to the
    replaced file's (a configuration holding a password stays private), else 0o644."""
    if mode is None:
        try:
            mode = path.stat().st_mode & 0o777
        except OSError:
            mode = 0o644
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, mode)
        try:
            os.fchmod(fd, mode)  # (the umask narrowed the mode os.open gave it)
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    fsync_folder(path.parent)


def fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (where the file system can)."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
