"""The club's MQTT broker, provisioned from the server's records (docs/server.md,
"Linked boards"): each board that has a token gets broker credentials — its device id as
the user name, its token as the password — and the linked boards' access rules, so a
board linked over MQTT (docs/link.md) logs in to the club's Mosquitto with what the
server's *Your boards* page gave it, and a revoked token stops at the broker too.

Mosquitto reads two files: the password file (``user:$7$…``, Mosquitto's own PBKDF2-SHA512
format, so its ``mosquitto_passwd`` and this module write the same thing) and the ACL file.
The store keeps the broker's hash of each token beside its SHA-256 (never the token); the
files are written whole (a power cut leaves the old ones) whenever a token is issued or
revoked, and the broker is asked to read them again (SIGHUP).  ``fairyboard server
--broker-port N`` runs its own Mosquitto on loopback; a club with its own broker points its
``password_file`` and ``acl_file`` at the files in the server's data folder.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from controller.atomic import write_atomically
from controller.link.messages import ROOT, check_name

log = logging.getLogger("fairyboard.server.broker")

#: PBKDF2 rounds of a broker hash (Mosquitto's own default is 101; a token is 32 random
#: bytes, so the rounds only slow a stolen password file's owner a little more)
ITERATIONS = 1000
SALT_BYTES = 12
#: the referee's user name at the broker (docs/link.md's ACL gives it the whole club)
REFEREE = "referee"
PASSWORD_FILE = "broker.passwd"
ACL_FILE = "broker.acl"
REFEREE_SECRET_FILE = "broker-referee.secret"


class BrokerError(RuntimeError):
    """The club's broker cannot be started or provisioned (one line)."""


def broker_hash(secret: str, salt: bytes | None = None, iterations: int = ITERATIONS) -> str:
    """``secret`` as Mosquitto's password file holds it: ``$7$rounds$salt$hash``
    (PBKDF2-HMAC-SHA512, salt and hash in base64)."""
    salt = salt if salt is not None else os.urandom(SALT_BYTES)
    digest = hashlib.pbkdf2_hmac("sha512", secret.encode(), salt, iterations)
    return (f"$7${iterations}${base64.b64encode(salt).decode()}$"
            f"{base64.b64encode(digest).decode()}")


def hash_matches(secret: str, stored: str) -> bool:
    """Whether ``secret`` is the one ``stored`` (a ``broker_hash``) was made from."""
    try:
        _, kind, rounds, salt, _ = stored.split("$")
        if kind != "7":
            return False
        again = broker_hash(secret, base64.b64decode(salt), int(rounds))
    except (ValueError, TypeError):
        return False
    return hmac.compare_digest(again, stored)


def acl_text(club: str) -> str:
    """The linked boards' access rules for ``club`` (docs/link.md): a board writes only
    under its own name and reads only its own view of a refereed game; the referee reads
    and writes the whole club."""
    check_name("link.club", club)
    base = f"{ROOT}/{club}"
    return "\n".join([
        f"# the club {club!r}'s access rules, written by fairyboard server (docs/link.md)",
        "# a board writes only under its own name: presence, its games' moves and states,",
        "# its invitations; it reads every board's",
        f"pattern write {base}/boards/%u/#",
        f"pattern read {base}/boards/#",
        "# refereed games: the public start and state (the referee writes them), a board's",
        "# own view only; it tries moves and asks for games only as itself",
        f"pattern read {base}/games/#",
        f"pattern read {base}/seats/%u/view",
        f"pattern write {base}/seats/%u/attempt",
        f"pattern write {base}/seats/%u/request",
        "# the referee reads and writes everything of the club",
        f"user {REFEREE}",
        f"topic readwrite {base}/#",
        ""])


@dataclass(frozen=True)
class BrokerUser:
    """One login at the broker: a board (its device id) or the referee."""

    name: str
    hash: str


def password_text(users: list[BrokerUser]) -> str:
    lines = []
    for user in users:
        check_name("broker user", user.name)
        if ":" in user.hash or "\n" in user.hash:
            raise BrokerError(f"broker user {user.name}: a damaged hash in the store")
        lines.append(f"{user.name}:{user.hash}")
    return "".join(f"{line}\n" for line in lines)


class BrokerFiles:
    """The password and ACL files of one club in the server's data folder, and the
    referee's secret (made once, kept private)."""

    def __init__(self, folder: Path, club: str) -> None:
        self.folder = Path(folder)
        self.club = check_name("link.club", club)
        self.passwords = self.folder / PASSWORD_FILE
        self.acl = self.folder / ACL_FILE

    def referee_secret(self) -> str:
        """The referee's broker password: made on first use, 0600 in the data folder."""
        path = self.folder / REFEREE_SECRET_FILE
        try:
            text = path.read_text(encoding="ascii").strip()
            if len(text) >= 32:
                return text
        except (OSError, UnicodeDecodeError):
            pass
        text = secrets.token_urlsafe(32)
        write_atomically(path, text.encode("ascii") + b"\n", mode=0o600)
        return text

    def write(self, boards: list[BrokerUser]) -> None:
        """Both files, whole: every board given and the referee."""
        referee = BrokerUser(REFEREE, broker_hash(self.referee_secret()))
        if any(b.name == REFEREE for b in boards):
            raise BrokerError(f"a board may not be called {REFEREE!r} at the broker")
        write_atomically(self.passwords, password_text([*boards, referee]).encode(),
                         mode=0o600)
        write_atomically(self.acl, acl_text(self.club).encode(), mode=0o600)


def mosquitto_binary() -> str | None:
    found = shutil.which("mosquitto")
    if found:
        return found
    return "/usr/sbin/mosquitto" if os.access("/usr/sbin/mosquitto", os.X_OK) else None


class MosquittoProcess:
    """One Mosquitto on its configuration file: started until its port answers (one line
    if it exits or never listens), stopped (terminated, then killed)."""

    def __init__(self, config: Path, logfile: Path, host: str, port: int) -> None:
        self.config, self.logfile, self.host, self.port = config, logfile, host, port
        self.process: subprocess.Popen | None = None

    @staticmethod
    def common_lines(host: str, port: int, folder: Path, persistence: bool = True) -> list[str]:
        """The lines every broker here has: its listener, persistence in ``folder``, its
        log on stderr, and (as root) staying root, who can read ``folder``."""
        lines = [f"listener {port} {host}", f"persistence {str(persistence).lower()}",
                 f"persistence_location {folder}/", "log_dest stderr"]
        if os.geteuid() == 0:  # else Mosquitto drops to its own user, who cannot read here
            lines.append("user root")
        return lines

    def start(self, timeout_s: float = 10.0) -> None:
        binary = mosquitto_binary()
        if binary is None:
            raise BrokerError("mosquitto is not installed (sudo apt install mosquitto)")
        with open(self.logfile, "ab") as out:
            self.process = subprocess.Popen([binary, "-c", str(self.config)],
                                            stdout=out, stderr=out)
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                tail = self.logfile.read_text(errors="replace").strip().splitlines()[-1:]
                raise BrokerError(f"mosquitto exited at start: {' '.join(tail)}"[:200])
            try:
                socket.create_connection((self.host, self.port), timeout=0.2).close()
            except OSError:
                time.sleep(0.02)
                continue
            return
        self.stop()
        raise BrokerError(f"mosquitto did not open port {self.port}")

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def signal(self, number: int) -> None:
        if self.running():
            assert self.process is not None
            self.process.send_signal(number)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


class LocalBroker:
    """The club's own Mosquitto, run by the server on one port (loopback unless told):
    anonymous logins refused, the files of :class:`BrokerFiles`, client ids that are the
    user names (no board can take another's session)."""

    def __init__(self, files: BrokerFiles, port: int, host: str = "127.0.0.1") -> None:
        self.files = files
        self.port = port
        self.host = host
        self.config = files.folder / "broker.conf"
        self.logfile = files.folder / "broker.log"
        self.mosquitto = MosquittoProcess(self.config, self.logfile, host, port)

    def start(self, boards: list[BrokerUser], timeout_s: float = 10.0) -> None:
        if mosquitto_binary() is None:
            raise BrokerError("mosquitto is not installed (sudo apt install mosquitto), "
                              "or run the server without --broker-port")
        with socket.socket() as probe:  # a port in use would answer for another broker
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind((self.host, self.port))
            except OSError as exc:
                raise BrokerError(f"mosquitto cannot listen on {self.host}:{self.port}: "
                                  f"{exc.strerror or exc}") from None
        self.files.write(boards)
        lines = [*MosquittoProcess.common_lines(self.host, self.port, self.files.folder),
                 "allow_anonymous false", f"password_file {self.files.passwords}",
                 f"acl_file {self.files.acl}", "use_username_as_clientid true",
                 "set_tcp_nodelay true"]
        write_atomically(self.config, ("\n".join(lines) + "\n").encode(), mode=0o600)
        self.mosquitto.start(timeout_s)
        log.info("broker ready", extra={"port": self.port})

    def provision(self, boards: list[BrokerUser]) -> None:
        """Write the files again and have the broker read them (a revoked board's next
        login is refused; Mosquitto also drops its connected clients that the new files
        no longer admit)."""
        self.files.write(boards)
        self.mosquitto.signal(signal.SIGHUP)

    def stop(self) -> None:
        self.mosquitto.stop()
