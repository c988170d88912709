"""The service's configuration: one TOML file, every setting with a sensible default.

The default is the simulated board playing Lùotuoqí with the web page on localhost, so
``fairyboard run`` works on any computer.  Unknown or invalid settings fail at start with
a message naming the setting (``config.toml: leds.brightness: expected a number from 0
to 1, got 3``).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_type_hints

from controller.i18n.lang import LANGUAGES
from controller.i18n.text import Text, text_of
from controller.leds.drivers import LED_DRIVER_NAMES, PIXEL_ORDERS
from controller.rules import DEFAULT_GAME, GAME_CLASSES
from controller.sensing.backends import SENSING_BACKENDS, check_pin_tables
from controller.sensing.settings import ConfigError, SensingSettings, calibration_path

__all__ = ["CHOICES", "RANGES", "Config", "ConfigError", "SensingSettings", "TomlError",
           "calibration_path", "config_from_dict", "load_config", "not_utf8", "parse_toml"]


@dataclass
class BoardSettings:
    #: printed board layout in boards/layouts (square8, square9, kaleido89, lotus39)
    layout: str = "square8"
    #: game to play (luotuoqi, laotzu, gnuqi, kaleidochess, lotus39, lotus39-modern, chess)
    game: str = DEFAULT_GAME
    #: game options passed to the rules (e.g. players = 3, dice = true, castling = "chess480")
    options: dict[str, Any] = field(default_factory=dict)
    #: honour takeback requests (the board restored to an earlier position)
    takeback: bool = True
    #: the board must show the earlier position this long before a takeback is made
    takeback_delay_s: float = 1.5
    #: both Kings held off the board this long open the command menu (boards without pads)
    command_hold_s: float = 1.0
    #: where choices are answered: auto (option pads when the layout has them), pads, cells
    answer_on: str = "auto"
    #: players the computer plays, by name (e.g. ["Black"]); empty: people play every side
    computer: list[str] = field(default_factory=list)
    #: the computer's strength, 1 (a beginner can win) to 10
    computer_level: int = 6
    #: simulated board: the simulated hand makes the computer's moves (a real board: you do)
    simulated_hand_moves: bool = True
    #: time control for every seat ("5", "3+2" Fischer, "5d3" Bronstein, "40/90:30+30");
    #: empty: no clock
    clock: str = ""
    #: a fallen flag: "end" the game as the rules say, or "report" it and play on
    on_flag: str = "end"
    #: the board's command menu offers a hint (the page always does)
    menu_hint: bool = False
    #: the coach: after each move a person makes, say when it loses this much or more
    #: (centipawns, a pawn is 100) against the engine's best move and show the better one
    coach: bool = False
    coach_margin: int = 150


@dataclass
class LedSettings:
    #: simulated | neopixel | neopixel-spi | serial | none (controller/leds/drivers.py)
    driver: str = "simulated"
    #: neopixel: data pin (10 = SPI MOSI, works as the service user; 18 = PWM, needs root)
    pin: int = 10
    #: global brightness 0..1
    brightness: float = 0.3
    #: supply budget for the whole chain in mA; the renderer caps brightness to stay below it
    current_budget_ma: float = 2000.0
    #: faint glow of cells that have nothing to show (0 = off; never under fog of war)
    dark_level: float = 0.0
    #: brightness of LEDs under the board's dark squares relative to light ones
    dark_square_level: float = 1.0
    #: colour order of the LED chips (WS2812B: GRB)
    pixel_order: str = "GRB"
    #: neopixel-spi: SPI clock in Hz
    spi_frequency: int = 6_400_000
    #: most LED frames written per second
    max_fps: float = 30.0
    #: colour overrides: name = [r, g, b], options = [[r, g, b], …] (names: docs/leds.md)
    palette: dict[str, Any] = field(default_factory=dict)


@dataclass
class TimingSettings:
    #: stable mismatch for this long starts guided correction, one piece at a time
    correction_s: float = 3.0


@dataclass
class PlayerSettings:
    names: list[str] = field(default_factory=lambda: ["White", "Black"])


@dataclass
class WebSettings:
    enabled: bool = True
    #: bound to localhost unless another address is configured on purpose; any other
    #: address serves the page to the network and requires the pairing code from the log
    host: str = "127.0.0.1"
    port: int = 8080
    #: further names the board answers to (Host header), e.g. ["chessboard.home"]; besides
    #: localhost, address literals and this machine's name (docs/service.md, "Web page")
    allowed_hosts: list[str] = field(default_factory=list)
    #: further web sites whose pages may use the board, e.g. ["https://club.example"]
    allowed_origins: list[str] = field(default_factory=list)


@dataclass
class JournalSettings:
    #: folder of the game journal (one append-only file per game)
    path: str = "~/.local/share/fairyboard/games"


@dataclass
class LogSettings:
    #: debug | info | warning | error
    level: str = "info"
    #: json (one structured record per line, for journald) or text
    format: str = "json"


@dataclass
class LinkSettings:
    #: the MQTT broker linking this board to others (docs/link.md); empty: plays alone
    broker: str = ""
    port: int = 1883
    #: boards of one club see each other's games (letters, digits, '.', '-', '_')
    club: str = "home"
    #: this board's name in the club, unique there (the same characters)
    board: str = "board"
    #: join the games other boards of the club invite this board to
    accept_invitations: bool = True
    #: this board's credentials on the broker (docs/link.md: one user per board)
    username: str = ""
    password: str = ""
    #: CA certificate file: connect with TLS and check the broker's certificate
    tls_ca: str = ""
    #: the club has a referee (``fairyboard referee``): games with hidden information are
    #: linked through it, each board holding only its player's view (docs/link.md)
    referee: bool = False
    #: for ``fairyboard referee``: its journal (every refereed game, replaced atomically)
    referee_journal: str = "~/.local/share/fairyboard/referee.json"
    #: for ``fairyboard referee``: the club's page shows a refereed game's moves this many
    #: plies late; 0: only once the game has ended
    referee_delay: int = 0


@dataclass
class EngineSettings:
    #: an external UCI engine program (e.g. "/usr/games/stockfish", a separate program the
    #: owner installs) for the games in uci_games; empty: the built-in search plays all
    uci_engine: str = ""
    #: games the external engine plays (their positions are FEN and their moves UCI)
    uci_games: list[str] = field(default_factory=lambda: [
        cls.name for cls in GAME_CLASSES if cls.uci_chess])
    #: UCI options sent to the external engine, e.g. { Threads = 2, Hash = 64 }
    uci_options: dict[str, Any] = field(default_factory=dict)
    #: how many times slower this machine searches than the one the levels were measured
    #: on; the computer's time per move is stretched by it so a level plays alike (0:
    #: measured by a short search when the computer first thinks; 1: the levels' own
    #: times, weaker on a slow machine)
    slowness: float = 0.0
    #: the computer's level for a new game moves after each game against it to keep the
    #: owner's score near 50 % (up after a win, down after a loss); the level chosen for
    #: the game is then only where it starts
    adaptive: bool = False


@dataclass
class SpeechSettings:
    #: the Pi's speaker plays short sounds for a move, a capture, check, a choice, an
    #: illegal or mismatched board, a move to execute, the game's end and low time
    sounds: bool = True
    #: the Pi's speaker says moves and events in words too (espeak-ng, a separate
    #: program: sudo apt install espeak-ng); the page has its own switch
    voice: bool = False
    #: the board's language: en, de, fr, es, it or zh — the Pi's voice, and the page's
    #: until a page chooses its own (kept in that browser)
    language: str = "en"
    #: loudness of the sounds, 0 (silent) to 1
    volume: float = 0.6
    #: words per minute
    speed: int = 160
    #: play on the Pi's own audio output (ALSA); off: only the page plays them
    speaker: bool = False
    #: the ALSA device ("default", or e.g. "plughw:1,0" for a USB speaker)
    device: str = "default"


@dataclass
class OnlineSettings:
    #: the Board API server: lichess for chess, or a club's fairyboard server
    server: str = "https://lichess.org"
    #: the owner's personal token (scope board:play), kept readable by the owner only
    token_file: str = "~/.config/fairyboard/online-token"
    #: light the legal targets of a lifted piece in online games too (off: the board only
    #: checks moves, as an over-the-board game with a referee would)
    targets: bool = False


@dataclass
class Config:
    board: BoardSettings = field(default_factory=BoardSettings)
    sensing: SensingSettings = field(default_factory=SensingSettings)
    leds: LedSettings = field(default_factory=LedSettings)
    timing: TimingSettings = field(default_factory=TimingSettings)
    players: PlayerSettings = field(default_factory=PlayerSettings)
    web: WebSettings = field(default_factory=WebSettings)
    journal: JournalSettings = field(default_factory=JournalSettings)
    log: LogSettings = field(default_factory=LogSettings)
    link: LinkSettings = field(default_factory=LinkSettings)
    engine: EngineSettings = field(default_factory=EngineSettings)
    speech: SpeechSettings = field(default_factory=SpeechSettings)
    online: OnlineSettings = field(default_factory=OnlineSettings)


CHOICES = {
    "sensing.backend": tuple(SENSING_BACKENDS),
    "board.answer_on": ("auto", "pads", "cells"),
    "board.on_flag": ("end", "report"),
    "leds.driver": LED_DRIVER_NAMES,
    "log.level": ("debug", "info", "warning", "error"),
    "log.format": ("json", "text"),
    "leds.pixel_order": PIXEL_ORDERS,
    "speech.language": tuple(LANGUAGES),
}
RANGES = {
    "leds.brightness": (0.0, 1.0),
    "leds.dark_level": (0.0, 1.0),
    "leds.dark_square_level": (0.0, 1.0),
    "leds.spi_frequency": (800_000, 20_000_000),
    "leds.current_budget_ma": (50.0, 100_000.0),
    "leds.max_fps": (1.0, 240.0),
    "leds.pin": (0, 27),
    "sensing.debounce_ms": (0.0, 1000.0),
    "sensing.settle_ms": (0.0, 5000.0),
    "sensing.scan_hz": (1.0, 10_000.0),
    "sensing.baudrate": (1200, 4_000_000),
    "timing.correction_s": (0.0, 600.0),
    "board.takeback_delay_s": (0.0, 60.0),
    "board.command_hold_s": (0.2, 60.0),
    "board.coach_margin": (10, 10_000),
    "sensing.i2c_bus": (0, 20),
    "web.port": (0, 65535),
    "link.port": (1, 65535),
    "link.referee_delay": (0, 10_000),
    "engine.slowness": (0.0, 16.0),
    "speech.volume": (0.0, 1.0),
    "speech.speed": (80, 450),
}


def _check_value(where: str, value: Any, typ: Any) -> Any:
    origin = getattr(typ, "__origin__", None)
    if typ is bool:
        if not isinstance(value, bool):
            raise ConfigError(Text("{where}: expected true or false, got {value}", where=where,
                                   value=repr(value)))
        return value
    if typ is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(Text("{where}: expected a whole number, got {value}", where=where,
                                   value=repr(value)))
    elif typ is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(Text("{where}: expected a number, got {value}", where=where,
                                   value=repr(value)))
        value = float(value)
    elif typ is str:
        if not isinstance(value, str):
            raise ConfigError(Text("{where}: expected a text, got {value}", where=where,
                                   value=repr(value)))
    elif origin is list:
        if not isinstance(value, list):
            raise ConfigError(Text("{where}: expected a list, got {value}", where=where,
                                   value=repr(value)))
        (item,) = typ.__args__
        value = [_check_value(f"{where}[{i}]", v, item) for i, v in enumerate(value)]
    elif origin is dict and not isinstance(value, dict):
        raise ConfigError(Text("{where}: expected a table, got {value}", where=where,
                               value=repr(value)))
    key = where.split(": ")[-1]
    if key in CHOICES and value not in CHOICES[key]:
        raise ConfigError(Text("{where}: expected one of {choices}, got {value}", where=where,
                               choices=", ".join(CHOICES[key]), value=repr(value)))
    if key in RANGES:
        lo, hi = RANGES[key]
        if not lo <= value <= hi:
            raise ConfigError(Text(
                "{where}: expected a number from {low} to {high}, got {value}",
                where=where, low=f"{lo:g}", high=f"{hi:g}", value=repr(value)))
    return value


#: tables and lists in a setting nest at most this deep (game and engine options are flat)
MAX_DEPTH = 8
#: a configuration file is a page of settings, never this big
MAX_BYTES = 1 << 20
HOST_LABEL = re.compile(r"^(?!-)[A-Za-z0-9-]{1,63}(?<!-)$")


def nesting_depth(value: Any, level: int = 0) -> int:
    """How deep tables and lists nest in ``value`` (counted up to just past
    :data:`MAX_DEPTH`): a configuration file and a page request are refused deeper."""
    if level > MAX_DEPTH:
        return level
    if isinstance(value, dict):
        return max((nesting_depth(v, level + 1) for v in value.values()), default=level + 1)
    if isinstance(value, list):
        return max((nesting_depth(v, level + 1) for v in value), default=level + 1)
    return level


def check_host(where: str, host: str) -> str:
    """A broker's address: an IP address or a DNS name (ASCII labels of letters, digits
    and '-'), so a typo is one line at start, not a crash of the link's thread later."""
    if not host:
        return host
    try:
        ipaddress.ip_address(host)
        return host
    except ValueError:
        pass
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    if len(host) > 253 or not all(HOST_LABEL.match(label) for label in labels):
        raise ConfigError(Text("{where}: {host} is not a host name or an IP address "
                               "(letters, digits, '-' and single dots, e.g. 'broker.local')",
                               where=where, host=repr(host[:80])))
    return host


def config_from_dict(data: dict[str, Any], source: str = "configuration") -> Config:
    """Build a :class:`Config` from parsed TOML, refusing unknown or invalid settings."""
    config = Config()
    sections = {f.name: f for f in dataclasses.fields(Config)}
    for name, table in data.items():
        if name not in sections:
            raise ConfigError(Text("{source}: unknown section [{name}] (known: {known})",
                                   source=source, name=name, known=", ".join(sections)))
        if not isinstance(table, dict):
            raise ConfigError(Text("{source}: {name}: expected a table [{name}]",
                                   source=source, name=name))
        section = getattr(config, name)
        hints = get_type_hints(type(section))
        for key, value in table.items():
            if key not in hints:
                raise ConfigError(Text("{source}: unknown setting {key} (known: {known})",
                                       source=source, key=f"{name}.{key}",
                                       known=", ".join(hints)))
            if nesting_depth(value) > MAX_DEPTH:
                raise ConfigError(Text("{source}: {key}: nested deeper than {depth}",
                                       source=source, key=f"{name}.{key}", depth=MAX_DEPTH))
            setattr(section, key, _check_value(f"{source}: {name}.{key}", value, hints[key]))
    _check_consistency(config, source)
    return config


def _check_consistency(config: Config, source: str) -> None:
    s = config.sensing
    problem = check_pin_tables(s) or SENSING_BACKENDS[s.backend].check(s)
    if problem:
        raise ConfigError(_in(source, problem))
    try:
        calibration_path(config, "layout")
    except ConfigError as exc:
        raise ConfigError(_in(source, text_of(exc))) from None
    problem = s.address_problem()
    if problem:
        raise ConfigError(_in(source, problem))
    from controller.leds.palette import LedError, Palette  # the palette's one validator

    try:
        Palette.from_config(config.leds.palette)
    except LedError as exc:
        raise ConfigError(_in(source, text_of(exc))) from None
    if config.board.clock:
        from controller.clock import ClockError, parse_time_control

        try:
            parse_time_control(config.board.clock)
        except ClockError as exc:
            raise ConfigError(_in(source, "board.clock", text_of(exc))) from None
    from controller.link.messages import LinkError, check_name

    check_host(f"{source}: link.broker", config.link.broker)
    try:
        check_name("link.club", config.link.club)
        check_name("link.board", config.link.board)
    except LinkError as exc:
        raise ConfigError(_in(source, text_of(exc))) from None
    if len(config.players.names) < 2:
        raise ConfigError(Text("{source}: players.names: need at least two names",
                               source=source))
    _check_engine(config.engine, source)
    server = config.online.server
    if not server.startswith(("https://", "http://127.0.0.1", "http://localhost",
                              "http://[::1]")):
        raise ConfigError(Text("{source}: online.server: expected an https:// address (plain "
                               "http only on this machine), got {server}", source=source,
                               server=repr(server[:60])))


def _check_engine(engine: EngineSettings, source: str) -> None:
    """The external engine exists, plays known perfect-information games, and its options
    are plain values (it would see what a hidden-information game hides)."""
    import shutil

    from controller.rules import GAMES

    for name in engine.uci_games:
        if name not in GAMES:
            raise ConfigError(Text("{source}: engine.uci_games: unknown game {game} "
                                   "(known: {known})", source=source, game=repr(name),
                                   known=", ".join(GAMES)))
        if GAMES[name].hidden_information:
            raise ConfigError(Text("{source}: engine.uci_games: {game} hides pieces from the "
                                   "players; an external engine would see them",
                                   source=source, game=name))
    for key, value in engine.uci_options.items():
        if not isinstance(value, (bool, int, float, str)) or "\n" in str(value) + key:
            raise ConfigError(Text("{source}: engine.uci_options.{key}: expected a number, "
                                   "true/false or a one-line text, got {value}",
                                   source=source, key=key, value=repr(value)))
    if engine.uci_engine and shutil.which(engine.uci_engine) is None:
        raise ConfigError(Text("{source}: engine.uci_engine: no program {program} "
                               "(Debian: apt install stockfish, then /usr/games/stockfish)",
                               source=source, program=repr(engine.uci_engine)))


def load_config(path: str | Path | None) -> Config:
    """The configuration in ``path``, or the defaults when ``path`` is None."""
    if path is None:
        return Config()
    path = Path(path)
    if path.exists() and not path.is_file() and not path.is_dir():
        # a FIFO or a device (/dev/zero) would never end
        raise ConfigError(Text("{file}: not a regular file, not a configuration file",
                               file=str(path)))
    try:
        with path.open("rb") as file:
            raw = file.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            raise ConfigError(Text("{file}: over {size} KiB: not a configuration file",
                                   file=path.name, size=MAX_BYTES // 1024))
        data = parse_toml(raw.decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError(Text("{file}: configuration file not found", file=str(path))) from None
    except IsADirectoryError:
        raise ConfigError(Text("{file}: is a folder, not a configuration file",
                               file=str(path))) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(_in(path.name, not_utf8(exc))) from None
    except TomlError as exc:
        raise ConfigError(_in(path.name, text_of(exc))) from None
    return config_from_dict(data, path.name)


class TomlError(ValueError):
    """A text that is not valid TOML: where and why, in words a page translates (the
    parser's own detail kept as it says it)."""


_TOML_AT = re.compile(r"^(.*) \(at line (\d+), column (\d+)\)$", re.S)


def parse_toml(text: str) -> dict[str, Any]:
    """``text`` read as TOML, or a :class:`TomlError` (its one line a :class:`Text`)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        detail = " ".join(str(exc).split())
        at = _TOML_AT.match(detail)
        if at:
            raise TomlError(Text("not valid TOML at line {line}, column {column} ({detail})",
                                 line=int(at.group(2)), column=int(at.group(3)),
                                 detail=at.group(1))) from None
        raise TomlError(Text("not valid TOML ({detail})", detail=detail)) from None
    except RecursionError:
        raise TomlError(Text("not valid TOML: nested too deeply")) from None


def not_utf8(exc: UnicodeDecodeError) -> Text:
    """A file that is not UTF-8 text, said where (the first bad byte)."""
    return Text("not UTF-8 text (byte {byte})", byte=exc.start)


def _in(source: str, *parts: Any) -> Text:
    """``source: part: …`` — each part said in the reader's language (a Text, or a plain
    line the catalogue knows), the file's and setting's names as they are."""
    return Text.join(": ", [source, *parts])


def apply_overrides(config: Config, **overrides: Any) -> Config:
    """Command-line options override the file: ``layout``, ``game``, ``web_port``,
    ``web_host``, ``journal``, ``log_format``."""
    mapping = {"layout": ("board", "layout"), "game": ("board", "game"),
               "web_port": ("web", "port"), "web_host": ("web", "host"),
               "journal": ("journal", "path"), "log_format": ("log", "format")}
    for key, value in overrides.items():
        if value is None:
            continue
        section, name = mapping[key]
        hints = get_type_hints(type(getattr(config, section)))
        setattr(getattr(config, section), name,
                _check_value(f"command line: {section}.{name}", value, hints[name]))
    return config
