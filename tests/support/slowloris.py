"""A slow-loris attacker, run as a process of its own (as an attacker is another machine):
``python -m tests.support.slowloris HOST PORT COUNT EVERY_S``.

``COUNT`` connections each send a request's headers one byte every ``EVERY_S`` seconds and
open again when the server closes one (a second later). It prints ``ready`` once all are
open, and ``CONNECTS CLOSED`` when its standard input closes, then ends. In one process with
the server under test it competed with it for the interpreter, and a loaded machine made
the server look slow (one ``/health`` of 40 timed out in a suite run with helpers running).
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import sys
import threading
import time

HEAD = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: "


class SlowLoris:
    def __init__(self, where: tuple[str, int], count: int, every_s: float) -> None:
        self.where, self.count, self.every_s = where, count, every_s
        self.selector = selectors.DefaultSelector()
        self.stop = threading.Event()
        self.connects = self.closed = 0

    def _open(self) -> None:
        try:
            s = socket.create_connection(self.where, timeout=1)
            s.sendall(HEAD[:1])
        except OSError:
            return
        s.setblocking(False)
        self.connects += 1
        self.selector.register(s, selectors.EVENT_READ, [1, time.monotonic()])

    def run(self, ready) -> None:
        for _ in range(self.count):
            self._open()
        ready()
        reopen_at: list[float] = []
        while not self.stop.is_set():
            for key, _ in self.selector.select(timeout=0.05):  # closed by the server
                with contextlib.suppress(OSError):
                    if key.fileobj.recv(4096):
                        continue
                self.selector.unregister(key.fileobj)
                key.fileobj.close()
                self.closed += 1
                reopen_at.append(time.monotonic() + 1.0)
            now = time.monotonic()
            for key in list(self.selector.get_map().values()):
                sent, last = key.data
                if now - last >= self.every_s:
                    with contextlib.suppress(OSError):
                        key.fileobj.send(HEAD[sent % len(HEAD):][:1] or b"a")
                    key.data[:] = [sent + 1, now]
            while reopen_at and reopen_at[0] <= now:
                reopen_at.pop(0)
                self._open()
        for key in list(self.selector.get_map().values()):
            key.fileobj.close()


def main(argv: list[str]) -> None:
    host, port, count, every = argv
    attack = SlowLoris((host, int(port)), int(count), float(every))

    def ready() -> None:
        print("ready", flush=True)
    thread = threading.Thread(target=attack.run, args=(ready,), daemon=True)
    thread.start()
    sys.stdin.read()  # until the test closes it
    attack.stop.set()
    thread.join(10)
    print(attack.connects, attack.closed, flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
