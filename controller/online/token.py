"""The owner's personal token for an online server: kept in a file only its owner may read
(mode 0600, written atomically), shown masked, never logged.

A token file that others may read is refused with the command that fixes it, as ssh
refuses a private key that others may read: a token lets anyone play as the owner."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from controller.i18n import Text


class TokenError(ValueError):
    """The token file is missing, unreadable, too open or holds no token (one line, a
    :class:`Text`: the page reads it in its language)."""


def masked(token: str) -> str:
    """The token as the page shows it: its last four characters only."""
    if len(token) <= 8:
        return "•" * len(token)
    return "•" * 8 + token[-4:]


def check_token(token: str) -> str:
    token = token.strip()
    if not token or len(token) > 200 or any(c.isspace() or not c.isprintable() for c in token):
        raise TokenError(Text("that is not a token (create one with the scope board:play and "
                              "paste it whole)"))
    return token


def save_token(path: Path, token: str) -> None:
    """Write ``token`` to ``path`` (mode 0600) so that a power cut leaves the old or the new
    token, never half of one."""
    token = check_token(token)
    path = Path(path).expanduser()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.new")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, (token + "\n").encode())
        os.fsync(fd)
    finally:
        os.close(fd)
    os.replace(tmp, path)
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def load_token(path: Path) -> str:
    """The token in ``path``; refused when others may read the file."""
    path = Path(path).expanduser()
    try:
        info = path.stat()
    except FileNotFoundError:
        raise TokenError(Text("{file}: no token saved (set it on the page's settings, or "
                              "fairyboard online token)", file=str(path))) from None
    if not stat.S_ISREG(info.st_mode):
        raise TokenError(Text("{file}: not a regular file", file=str(path)))
    if info.st_mode & 0o077:
        raise TokenError(Text("{file}: others may read this token; chmod 600 {file}",
                              file=str(path)))
    if info.st_size > 1024:
        raise TokenError(Text("{file}: too large to be a token", file=str(path)))
    try:
        return check_token(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise TokenError(Text("{file}: cannot be read ({error})", file=str(path),
                              error=type(exc).__name__)) from None
