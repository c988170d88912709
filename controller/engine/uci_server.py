"""``fairyboard uci``: the engine as a UCI engine other programs can use.

Chess and Chess960 speak plain UCI (FEN, moves as ``e2e4``, ``e7e8q``; castling ``e1g1``,
or King to Rook ``e1h1`` with ``UCI_Chess960``).  The other games are chosen with the
``UCI_Variant`` option, as Fairy-Stockfish does: its value is the game's registry name,
and positions and moves are the game's own texts — ``position fen <the game's position
text> moves <its long move texts>`` (a position text may hold spaces: everything between
``fen`` and ``moves`` is the position).  A hidden-information game is searched on the
whole position given, as a UCI engine is (the board's computer decides from its view).

Commands: ``uci``, ``isready``, ``setoption``, ``ucinewgame``, ``position``, ``go``
(``depth``, ``nodes``, ``movetime``, ``wtime``/``btime``/``winc``/``binc``/``movestogo``,
``infinite``), ``stop``, ``quit``.  The search runs in a thread so ``stop`` and
``isready`` are answered while it thinks.  A bad line gets one ``info string`` line and
changes nothing.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

from controller.rules import GAMES, Position, RulesError, get_game

NAME = "fairyboard"
#: the UCI option that turns on a game option of UCI's own game: ``UCI_Chess960`` sets
#: the option named by its tail, lower-cased (offered only where the game has it)
FLAG_OPTION = "UCI_Chess960"


def uci_game() -> str:
    """The registered game UCI speaks without ``UCI_Variant``: positions FEN, moves UCI
    (``Game.uci_chess``)."""
    return next(name for name, cls in GAMES.items() if cls.uci_chess)


def _flag(name: str) -> str:
    return name[len("UCI_"):].lower()
#: the strength option: the levels of ``controller.engine.LEVELS`` (10: no noise, no cap)
LEVEL_OPTION = "Level"
UCI_LEVEL = 10


class UciServer:
    """One UCI session over a pair of text streams."""

    def __init__(self, out: TextIO = sys.stdout) -> None:
        self.out = out
        self._lock = threading.Lock()
        self.variant = uci_game()
        self.chess960 = False  # the FLAG_OPTION's value
        self.level = UCI_LEVEL
        self.game: Any = None
        self.pos: Position | None = None
        self.engine: Any = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._new_game()

    # -- output --------------------------------------------------------------------------
    def send(self, line: str) -> None:
        with self._lock:
            self.out.write(line + "\n")
            self.out.flush()

    # -- state ---------------------------------------------------------------------------
    @staticmethod
    def _has_flag(variant: str) -> bool:
        return any(spec.name == _flag(FLAG_OPTION) for spec in GAMES[variant].option_specs)

    def _variants(self) -> list[str]:
        own = uci_game()
        return [own] + sorted(name for name in GAMES if name != own)

    def _new_game(self) -> None:
        """A fresh game of the chosen variant and a fresh engine (empty tables)."""
        flag = _flag(FLAG_OPTION)
        options = {flag: True} if self.chess960 and self._has_flag(self.variant) else {}
        self.game = get_game(self.variant, **options)
        self.pos = self.game.start()
        self._new_engine()

    def _new_engine(self) -> None:
        from controller.engine import Engine

        self.engine = Engine(self.game, level=self.level)
        self.engine.search.report = self._report
        self._searching: Position | None = None  # the position searched, for the pv
        self._started = time.monotonic()

    # -- commands ------------------------------------------------------------------------
    def handle(self, line: str) -> bool:
        """Obey one line; False after ``quit``."""
        words = line.split()
        if not words:
            return True
        command, args = words[0], words[1:]
        try:
            if command == "quit":
                self._halt()
                return False
            handler: Callable[[list[str]], None] | None = {
                "uci": self._uci, "isready": lambda a: self.send("readyok"),
                "setoption": self._setoption, "ucinewgame": self._ucinewgame,
                "position": self._position, "go": self._go, "stop": lambda a: self._halt(),
                "debug": lambda a: None, "ponderhit": lambda a: None,
                "register": lambda a: None,
            }.get(command)
            if handler is None:
                self.send(f"info string unknown command {command[:40]!r}")
            else:
                handler(args)
        except (RulesError, ValueError) as exc:
            self.send(f"info string error: {str(exc).splitlines()[0][:200]}")
        return True

    def _uci(self, args: list[str]) -> None:
        self.send(f"id name {NAME}")
        self.send("id author the fairyboard authors")
        self.send(f"option name UCI_Variant type combo default {uci_game()} "
                  + " ".join(f"var {v}" for v in self._variants()))
        if self._has_flag(uci_game()):
            self.send(f"option name {FLAG_OPTION} type check default false")
        self.send(f"option name {LEVEL_OPTION} type spin default {UCI_LEVEL} min 1 max 10")
        self.send("uciok")

    def _setoption(self, args: list[str]) -> None:
        text = " ".join(args)
        if not text.startswith("name "):
            raise ValueError("setoption: expected 'setoption name NAME [value VALUE]'")
        name, _, value = text[5:].partition(" value ")
        name, value = name.strip(), value.strip()
        self._halt()
        if name.lower() == "uci_variant":
            if value not in self._variants():
                raise ValueError(f"UCI_Variant: unknown variant {value[:40]!r} (known: "
                                 f"{', '.join(self._variants())})")
            self.variant = value
        elif name.lower() == FLAG_OPTION.lower():
            if value.lower() not in ("true", "false"):
                raise ValueError(f"{FLAG_OPTION} must be true or false, got {value[:20]!r}")
            self.chess960 = value.lower() == "true"
        elif name.lower() == LEVEL_OPTION.lower():
            if not value.isdigit() or not 1 <= int(value) <= 10:
                raise ValueError(f"{LEVEL_OPTION} must be a whole number from 1 to 10, "
                                 f"got {value[:20]!r}")
            self.level = int(value)
            self._new_engine()  # the position stays
            return
        else:
            raise ValueError(f"unknown option {name[:40]!r}")
        self._new_game()

    def _ucinewgame(self, args: list[str]) -> None:
        self._halt()
        self._new_game()

    def _position(self, args: list[str]) -> None:
        self._halt()
        game = self.game
        if "moves" in args:
            at = args.index("moves")
            head, moves = args[:at], args[at + 1:]
        else:
            head, moves = args, []
        if head[:1] == ["startpos"]:
            pos = game.start()
        elif head[:1] == ["fen"] and len(head) > 1:
            pos = game.parse_position(" ".join(head[1:]))
        else:
            raise ValueError("position: expected 'startpos' or 'fen TEXT'")
        for text in moves:
            pos.push(self._parse_move(pos, text))
        self.pos = pos

    def _parse_move(self, pos: Position, text: str) -> Any:
        """A move text; in standard chess also castling written King to Rook."""
        return self.game.parse_move(pos, text)

    def move_text(self, pos: Position, move: Any) -> str:
        """The move as the client reads it: the game's long text; chess castling as the
        King's two-square step unless Chess960 is on; a game whose long text is words
        (KaleidoChess') is written in its notation, one word."""
        text = self.game.long_move_text(pos, move)
        if any(c.isspace() for c in text):  # a spoken long text: the notation's, one word
            text = self.game.move_text(pos, move)
        if self.game.uci_chess and not self.chess960 and move.kind == "castle":
            cells = self.game.geometry.cells
            return cells[move.origin] + cells[move.target]
        return text

    def _go(self, args: list[str]) -> None:
        self._halt()
        from controller.engine import clock_budget

        values: dict[str, int] = {}
        infinite = False
        i = 0
        while i < len(args):
            word = args[i]
            if word in ("infinite", "ponder"):
                infinite = infinite or word == "infinite"
                i += 1
            elif word in ("depth", "nodes", "movetime", "wtime", "btime", "winc", "binc",
                          "movestogo", "mate"):
                if i + 1 >= len(args) or not args[i + 1].lstrip("-").isdigit():
                    raise ValueError(f"go: {word} needs a whole number")
                values[word] = int(args[i + 1])
                i += 2
            elif word == "searchmoves":
                break  # not supported: the whole position is searched
            else:
                raise ValueError(f"go: unknown word {word[:20]!r}")
        assert self.pos is not None
        pos = self.pos.copy()
        mover = self.game.ply_mover(pos)
        movetime: float | None = None
        if "movetime" in values:
            movetime = max(1, values["movetime"]) / 1000
        else:
            clock, inc = ("wtime", "winc") if mover == 0 else ("btime", "binc")
            if clock in values:
                movetime = clock_budget(max(1, values[clock]) / 1000,
                                        values.get(inc, 0) / 1000, values.get("movestogo"))
        depth = values.get("depth")
        nodes = values.get("nodes")
        if not infinite and movetime is None and depth is None and nodes is None:
            movetime = self.engine.level.movetime  # a bare "go": the level's own time
        self._stop.clear()
        self._thread = threading.Thread(
            target=self._think, args=(pos, depth, nodes, movetime), daemon=True)
        self._thread.start()

    def _think(self, pos: Position, depth: int | None, nodes: int | None,
               movetime: float | None) -> None:
        from controller.engine import LEVELS, Limits

        started = self._started = time.monotonic()
        self._searching = pos.copy()  # (the search's own copy is pushed and popped)
        try:
            if self.level == UCI_LEVEL or depth is not None:
                # the client's limits, as given (level 10 has no noise and no cap)
                level = LEVELS[self.level]
                limits = Limits(depth=depth, nodes=nodes, movetime=movetime,
                                noise=level.noise)
                result = self.engine.search.best_move(pos, limits, self._stop.is_set)
            else:
                result = self.engine.choose(pos, movetime=movetime, nodes=nodes,
                                            stop=self._stop.is_set)
        except Exception as exc:  # never a traceback on the client's stream
            why = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
            self.send(f"info string error: {why}")
            self.send("bestmove 0000")
            return
        if result.move is None:
            self.send("info depth 0 score mate 0" if self.game.in_check(pos)
                      else "info depth 0 score cp 0")
            self.send("bestmove 0000")
            return
        self.send(self._info(pos, result, int((time.monotonic() - started) * 1000)))
        self.send(f"bestmove {self.move_text(pos, result.move)}")

    def _info(self, pos: Position, result: Any, ms: int) -> str:
        if result.mate_in is not None:
            moves = (abs(result.mate_in) + 1) // 2
            score = f"mate {moves if result.mate_in > 0 else -moves}"
        else:
            score = f"cp {result.score}"
        # (a weak level's noise may play another move than the line searched best)
        line = result.pv if result.pv and result.pv[0] == result.move else [result.move]
        pv = self._pv_texts(pos, line)
        return (f"info depth {max(1, result.depth)} score {score} nodes {result.nodes} "
                f"time {ms} pv {' '.join(pv)}")

    def _report(self, result: Any) -> None:
        """Each completed depth, as it comes (an analysing client shows them)."""
        pos = self._searching
        if pos is not None and result.move is not None:
            self.send(self._info(pos, result, int((time.monotonic() - self._started) * 1000)))

    def _pv_texts(self, pos: Position, moves: list) -> list[str]:
        texts = []
        for move in moves:
            texts.append(self.move_text(pos, move))
            pos.push(move)
        for _ in moves:
            pos.pop()
        return texts

    def _halt(self) -> None:
        """Stop a running search (its ``bestmove`` is sent) and wait for it."""
        thread = self._thread
        if thread is not None and thread.is_alive():
            self._stop.set()
            thread.join()
        self._thread = None


def serve(inp: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    """Read UCI commands from ``inp`` until ``quit`` or the end of input."""
    server = UciServer(out)
    for line in inp:
        if not server.handle(line.strip()):
            return 0
    server._halt()
    return 0
