"""A small client for chess engines that speak UCI (Stockfish, sunfish, …), our own.

The engine is a separate program the owner installs (Debian's ``stockfish`` puts it at
``/usr/games/stockfish``); it is started as a child process and spoken to over its
standard input and output, never imported — so a GPL engine stays a separate work.

    with UciEngine("/usr/games/stockfish") as engine:
        engine.set_option("UCI_LimitStrength", True)
        engine.new_game()
        engine.position("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", ["e2e4"])
        print(engine.go(movetime=0.1).move)          # e.g. "e7e5"

Every wait has a timeout, and every failure is one :class:`UciError` with one line that
says what went wrong: the program is missing, it died, it said something that is not
UCI, or it did not answer in time.
"""

from __future__ import annotations

import queue
import re
import subprocess
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

#: a move in UCI's long algebraic notation (``e2e4``, ``e7e8q``), or no move at all
MOVE = re.compile(r"^(?:[a-z]\d{1,2}[a-z]\d{1,2}[qrbnkac]?|[A-Z]@[a-z]\d{1,2}|0000|\(none\))$")
_OPTION = re.compile(r"^option name (?P<name>.+?) type (?P<type>\S+)(?P<rest>.*)$")


class UciError(RuntimeError):
    """The engine cannot be used; the message is one line naming the engine and the cause."""


@dataclass(frozen=True)
class UciOption:
    """An option the engine offers (``option name … type …`` in its answer to ``uci``)."""

    name: str
    type: str  #: check, spin, combo, button or string
    default: str | None = None
    min: int | None = None
    max: int | None = None
    choices: tuple[str, ...] = ()


@dataclass
class BestMove:
    """The engine's answer to ``go``: the move and what it last said about its search."""

    move: str | None  #: None when the engine has no move (``(none)`` or ``0000``)
    ponder: str | None = None
    depth: int | None = None
    score_cp: int | None = None  #: centipawns from the mover's view
    mate: int | None = None  #: moves to mate (negative: the mover is mated)
    nodes: int | None = None
    seconds: float = 0.0
    info: list[str] = field(default_factory=list)  #: the last few ``info`` lines


def _one_line(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _parse_option(line: str) -> UciOption | None:
    m = _OPTION.match(line)
    if m is None:
        return None
    words = m["rest"].split()
    values: dict[str, str] = {}
    choices: list[str] = []
    key = None
    for word in words:
        if word in ("default", "min", "max", "var"):
            key = word
            if key == "var":
                choices.append("")
            else:
                values[key] = ""
        elif key == "var":
            choices[-1] = f"{choices[-1]} {word}".strip()
        elif key is not None:
            values[key] = f"{values[key]} {word}".strip()

    def number(text: str | None) -> int | None:
        try:
            return int(text) if text is not None else None
        except ValueError:
            return None

    default = values.get("default")
    if default == "<empty>":
        default = ""
    return UciOption(m["name"], m["type"], default, number(values.get("min")),
                     number(values.get("max")), tuple(choices))


class UciEngine:
    """One running engine process; not thread-safe (one conversation at a time).

    ``command`` is the program (a path or a name on ``PATH``) or the program and its
    arguments.  ``timeout`` bounds every wait that has no time of its own (start-up,
    ``isready``); ``go`` waits for its search time plus ``timeout``.
    """

    def __init__(self, command: str | Sequence[str], timeout: float = 10.0,
                 label: str | None = None) -> None:
        self.argv = [command] if isinstance(command, str) else list(command)
        self.label = label or self.argv[-1 if len(self.argv) > 1 else 0]
        self.timeout = timeout
        self.name = ""
        self.author = ""
        self.options: dict[str, UciOption] = {}  #: by lower-case name (UCI names ignore case)
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._last = ""  # the last line the engine said, for error messages
        self._asked_at = time.monotonic()
        try:
            self.process = subprocess.Popen(
                self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL, text=True, bufsize=1, encoding="utf-8",
                errors="replace")
        except FileNotFoundError:
            raise UciError(f"UCI engine {self.label!r}: program not found (Debian: "
                           "apt install stockfish puts it at /usr/games/stockfish)") from None
        except PermissionError:
            raise UciError(f"UCI engine {self.label!r}: not executable") from None
        except OSError as exc:
            raise UciError(f"UCI engine {self.label!r}: cannot start: {exc.strerror}") from None
        self._reader = threading.Thread(target=self._read, daemon=True,
                                        name=f"uci-{self.label}")
        self._reader.start()
        try:
            self._handshake()
        except BaseException:
            self.close(grace=0.1)  # it did not speak UCI: do not wait for it to quit
            raise

    # -- the conversation --------------------------------------------------------------
    def _read(self) -> None:
        assert self.process.stdout is not None
        try:
            for line in self.process.stdout:
                self._lines.put(line.rstrip("\r\n"))
        except (OSError, ValueError):
            pass
        self._lines.put(None)  # end of output: the engine has gone

    def send(self, line: str) -> None:
        """Send one command line."""
        if "\n" in line or "\r" in line:
            raise UciError(f"UCI engine {self.label!r}: a command must be one line")
        if self.process.poll() is not None:
            raise self._died()
        try:
            assert self.process.stdin is not None
            self.process.stdin.write(line + "\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise self._died() from None

    def _died(self) -> UciError:
        try:
            code = self.process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            code = None
        how = f"exit status {code}" if code is not None else "its output closed"
        last = f"; last line: {_one_line(self._last)!r}" if self._last else ""
        return UciError(f"UCI engine {self.label!r} died ({how}){last}")

    def _next_line(self, deadline: float, waiting_for: str) -> str:
        remaining = deadline - time.monotonic()
        try:
            line = self._lines.get(timeout=max(0.0, remaining))
        except queue.Empty:
            last = f"; last line: {_one_line(self._last)!r}" if self._last else ""
            raise UciError(f"UCI engine {self.label!r}: no {waiting_for!r} within "
                           f"{self._waited(deadline):.1f} s{last}") from None
        if line is None:
            self._lines.put(None)  # stay at the end for later reads
            raise self._died()
        if line.strip():
            self._last = line
        return line

    def _waited(self, deadline: float) -> float:
        return max(0.0, deadline - self._asked_at)

    def _ask(self, line: str, answer: str, timeout: float | None = None) -> list[str]:
        """Send ``line`` and read up to the line starting with ``answer``: the lines before."""
        self._asked_at = time.monotonic()
        deadline = self._asked_at + (self.timeout if timeout is None else timeout)
        self.send(line)
        said = []
        while True:
            got = self._next_line(deadline, answer)
            if got.split(" ", 1)[0] == answer:
                said.append(got)
                return said
            said.append(got)

    def _handshake(self) -> None:
        for line in self._ask("uci", "uciok"):
            if line.startswith("id name "):
                self.name = line[8:].strip()
            elif line.startswith("id author "):
                self.author = line[10:].strip()
            elif line.startswith("option "):
                option = _parse_option(line)
                if option is not None:
                    self.options[option.name.lower()] = option

    def is_ready(self, timeout: float | None = None) -> None:
        """Wait until the engine has done what it was told (``isready`` → ``readyok``)."""
        self._ask("isready", "readyok", timeout)

    def offers(self, name: str) -> bool:
        return name.lower() in self.options

    def set_option(self, name: str, value: bool | int | float | str | None = None) -> None:
        """Set an option the engine offers (a ``button`` takes no value); an option it
        does not offer is refused with one line."""
        option = self.options.get(name.lower())
        if option is None:
            raise UciError(f"UCI engine {self.label!r} ({self.name or 'unnamed'}) has no "
                           f"option {name!r}")
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif value is None:
            text = ""
        else:
            text = str(value)
        if option.type == "spin" and text:
            try:
                number = int(float(text))
            except ValueError:
                raise UciError(f"UCI engine {self.label!r}: option {option.name} needs a "
                               f"whole number, got {value!r}") from None
            if option.min is not None and option.max is not None:
                number = min(max(number, option.min), option.max)
            text = str(number)
        if "\n" in text:
            raise UciError(f"UCI engine {self.label!r}: option values are one line")
        self.send(f"setoption name {option.name}" + (f" value {text}" if text else ""))

    def new_game(self) -> None:
        """A new game begins (the engine may clear its tables); waits until it is ready."""
        self.send("ucinewgame")
        self.is_ready()

    def position(self, fen: str | None, moves: Sequence[str] = ()) -> None:
        """The position to search: ``fen`` (None: the standard start) then ``moves``."""
        for move in moves:
            if not MOVE.match(move):
                raise UciError(f"UCI engine {self.label!r}: {move!r} is not a UCI move")
        where = "startpos" if fen is None else f"fen {' '.join(fen.split())}"
        self.send(f"position {where}" + (f" moves {' '.join(moves)}" if moves else ""))

    def go(self, movetime: float | None = None, *, depth: int | None = None,
           nodes: int | None = None, wtime: float | None = None, btime: float | None = None,
           winc: float | None = None, binc: float | None = None,
           movestogo: int | None = None, timeout: float | None = None) -> BestMove:
        """Search the position and return its best move.  Times are in seconds.

        The answer is awaited for the search's own time (``movetime``, or the side's clock
        share) plus ``timeout`` (default: the engine's); then the search is told to stop,
        and if no ``bestmove`` follows soon the engine is ended and UciError raised."""
        words = ["go"]
        for key, value in (("wtime", wtime), ("btime", btime), ("winc", winc),
                           ("binc", binc), ("movetime", movetime)):
            if value is not None:
                words += [key, str(max(0, round(value * 1000)))]
        for key, count in (("movestogo", movestogo), ("depth", depth), ("nodes", nodes)):
            if count is not None:
                words += [key, str(int(count))]
        own = movetime if movetime is not None else max(wtime or 0.0, btime or 0.0)
        budget = own + (self.timeout if timeout is None else timeout)
        started = self._asked_at = time.monotonic()
        self.send(" ".join(words))
        info: list[str] = []
        try:
            line = self._await_bestmove(started + budget, info)
        except UciError:
            if self.process.poll() is not None:
                raise
            # over time: ask it to stop, give it a moment, then give up on it
            self.send("stop")
            try:
                line = self._await_bestmove(time.monotonic() + min(1.0, self.timeout), info)
            except UciError:
                self.close(grace=0.1)
                raise UciError(f"UCI engine {self.label!r}: no 'bestmove' within "
                               f"{budget:.1f} s (ended it)") from None
        return self._best(line, info, time.monotonic() - started)

    def _await_bestmove(self, deadline: float, info: list[str]) -> str:
        while True:
            line = self._next_line(deadline, "bestmove")
            if line.startswith("bestmove"):
                return line
            if line.startswith("info "):
                info.append(line)
                del info[:-8]

    def _best(self, line: str, info: list[str], seconds: float) -> BestMove:
        words = line.split()
        if len(words) < 2 or not MOVE.match(words[1]):
            raise UciError(f"UCI engine {self.label!r}: not a UCI answer: "
                           f"{_one_line(line)!r}")
        move = None if words[1] in ("(none)", "0000") else words[1]
        ponder = words[3] if len(words) >= 4 and words[2] == "ponder" else None
        best = BestMove(move, ponder, seconds=seconds, info=info)
        for text in info:  # the last value of each wins
            w = text.split()
            for key, attr in (("depth", "depth"), ("nodes", "nodes")):
                if key in w[:-1]:
                    value = w[w.index(key) + 1]
                    if value.lstrip("-").isdigit():
                        setattr(best, attr, int(value))
            if "score" in w[:-2]:
                kind, value = w[w.index("score") + 1: w.index("score") + 3]
                if value.lstrip("-").isdigit():
                    if kind == "cp":
                        best.score_cp, best.mate = int(value), None
                    elif kind == "mate":
                        best.mate, best.score_cp = int(value), None
        return best

    # -- the end ------------------------------------------------------------------------
    def close(self, grace: float = 1.0) -> None:
        """``quit``, then end the process if it has not gone within ``grace`` seconds."""
        process = self.process
        if process.poll() is None:
            try:
                assert process.stdin is not None
                process.stdin.write("quit\n")
                process.stdin.flush()
            except (BrokenPipeError, OSError, ValueError):
                pass
            try:
                process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                process.terminate()
                try:
                    process.wait(timeout=1.0)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
        self._reader.join(timeout=1.0)  # it ends at the end of the engine's output
        streams = [process.stdin] + ([process.stdout] if not self._reader.is_alive() else [])
        for stream in streams:
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def __enter__(self) -> UciEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
