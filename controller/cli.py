"""The ``fairyboard`` command line.

Rules commands (``moves``, ``perft``, ``show``, ``view``) work for every game in the
registry; ``board`` generates a printed board's templates; ``run`` starts the board
service.  Bad input gets one line on stderr naming the problem and exit status 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from controller.rules import GAMES, IllegalMoveError, Position, RulesError, get_game

EXIT_BAD_INPUT = 2
#: deepest perft the command accepts: deeper trees would run for years in every game
MAX_PERFT_DEPTH = 12


class CommandError(Exception):
    """Bad input from the command line; printed as one line, exit status 2."""


def _option_value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    try:
        return int(text)
    except ValueError:
        return text


def _game_and_position(args: argparse.Namespace) -> tuple[Any, Position]:
    options: dict[str, Any] = {}
    if getattr(args, "players", None) is not None:
        options["players"] = args.players
    if getattr(args, "dice", False):
        options["dice"] = True
    for item in getattr(args, "set", None) or []:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise CommandError(f"--set expects KEY=VALUE, got {item!r}")
        options[key.replace("-", "_")] = _option_value(value)
    game = get_game(args.game, **options)
    if args.position is not None and not args.position.strip():
        raise CommandError("--position is empty (leave it out for the starting position)")
    if args.position is None:
        pos = game.start()
    else:
        pos = game.parse_position(args.position)
        game.check_playable(pos)
    for text in getattr(args, "moves_played", None) or []:
        try:
            pos.push(game.parse_move(pos, text))
        except IllegalMoveError as exc:
            # the command line is the referee: it may name the position even in Lao Tzu,
            # whose board never does
            message = str(exc)
            if " in " not in message:
                message += f" in {game.position_text(pos)}"
            raise CommandError(message) from None
    return game, pos


def cmd_moves(args: argparse.Namespace) -> int:
    game, pos = _game_and_position(args)
    moves = game.generate_moves(pos)  # a rules study: what the pieces may do (see ``show``)
    if args.json:
        import json  # lazy: only --json needs it

        print(json.dumps([game.move_json(pos, m) for m in moves], ensure_ascii=False, indent=1))
    else:
        for m in moves:
            print(game.move_text(pos, m))
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    if not 0 <= args.depth <= MAX_PERFT_DEPTH:
        raise CommandError(f"--depth must be 0 or more, at most {MAX_PERFT_DEPTH}, "
                           f"got {str(args.depth)[:30]}")
    game, pos = _game_and_position(args)
    if args.divide and args.depth > 0:
        total = 0
        for m in game.legal_moves(pos):
            text = game.move_text(pos, m)
            pos.push(m, record=False)
            n = game.perft(pos, args.depth - 1)
            pos.pop()
            print(f"{text}: {n}")
            total += n
        print(total)
    else:
        print(game.perft(pos, args.depth))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    game, pos = _game_and_position(args)
    if game.provisional:
        print(f"[{game.provisional}]")
    print(game.render_text(pos))
    print(game.position_text(pos))
    outcome = game.outcome(pos)
    if outcome:
        print(f"game over: {outcome.result} ({outcome.reason})")
    else:
        print(f"{game.player_names[game.ply_mover(pos)]} to move"
              + (" (check)" if game.in_check(pos) else ""))
    return 0


def cmd_view(args: argparse.Namespace) -> int:
    game, pos = _game_and_position(args)
    if not game.hidden_information:
        raise CommandError(f"game {args.game!r} has no hidden information; use 'show'")
    names = [n.lower() for n in game.player_names]
    if args.player.lower() not in names:
        raise CommandError(f"unknown player {args.player!r} (one of {', '.join(names)})")
    print(game.view_text(pos, names.index(args.player.lower())))
    return 0


def cmd_say(args: argparse.Namespace) -> int:
    """One move in words, as the board's voice says it (``--out``: a WAV file too)."""
    from controller.i18n.lang import check_language, speaking
    from controller.speech import voice  # lazy: only this command speaks
    from controller.speech.words import announce_move

    game, pos = _game_and_position(args)
    check_language(args.lang)
    try:
        move = game.parse_move(pos, args.move)
    except IllegalMoveError as exc:
        raise CommandError(str(exc)) from None
    listener = None
    if args.listener is not None:
        names = [n.lower() for n in game.player_names]
        if args.listener.lower() not in names:
            raise CommandError(f"unknown player {args.listener!r} (one of {', '.join(names)})")
        listener = names.index(args.listener.lower())
    after = pos.copy()
    after.push(move)
    with speaking(args.lang):
        text = announce_move(game, pos, move, after, listener)
    print(text)
    if args.out:
        voice.render(text, args.lang, Path(args.out))
    elif args.aloud:
        voice.speak(text, args.lang)
    return 0


def cmd_online(args: argparse.Namespace) -> int:
    """The online account: save the token (read from standard input, never from the
    command line, which other users can see), or check it against the server."""
    from controller.config import load_config
    from controller.online.api import BoardApi
    from controller.online.token import load_token, masked, save_token

    config = load_config(args.config)
    path = Path(config.online.token_file).expanduser()
    if args.online_command == "token":
        save_token(path, sys.stdin.readline())
        print(f"token {masked(load_token(path))} saved in {path}")
        return 0
    api = BoardApi(config.online.server, load_token(path))
    try:
        account = api.account()
    finally:
        api.close()
    print(f"{config.online.server}: playing as {account.get('username', '?')}")
    return 0


def cmd_board(args: argparse.Namespace) -> int:
    from controller.boardprint import print_board  # lazy: only this command needs it

    for path in print_board(args.layout, args.out, paper=args.paper,
                            schematic=args.schematic):
        print(path)
    return 0


def _engine(game: Any, args: argparse.Namespace) -> Any:
    from controller.engine import Engine  # lazy: only these commands search

    if not 1 <= args.level <= 10:
        raise CommandError(f"--level must be a whole number from 1 to 10, got {args.level}")
    if args.movetime is not None and not 0 < args.movetime <= 3600:
        raise CommandError(f"--movetime must be more than 0 and at most 3600 seconds, "
                           f"got {args.movetime}")
    return Engine(game, level=args.level, seed=args.seed)


def cmd_bestmove(args: argparse.Namespace) -> int:
    game, pos = _game_and_position(args)
    engine = _engine(game, args)
    result = engine.choose(pos, movetime=args.movetime, view=not args.full)
    if result.move is None:
        outcome = game.outcome(pos)
        raise CommandError("no legal move: the game is over"
                           + (f" ({outcome.result}, {outcome.reason})" if outcome else ""))
    mate = f" mate {result.mate_in}" if result.mate_in is not None else ""
    if game.hidden_information and not args.full:  # the fog engine ranks, gives no score
        print(f"info from {game.player_names[game.ply_mover(pos)]}'s view "
              f"time {result.seconds:.3f}")
    else:
        print(f"info depth {result.depth} score {result.score}{mate} nodes {result.nodes} "
              f"time {result.seconds:.3f} pv {' '.join(_line(game, pos, result.pv))}")
    print(game.move_text(pos, result.move))
    return 0


def _line(game: Any, pos: Position, moves: list) -> list[str]:
    """A principal variation in the game's notation."""
    texts = []
    for move in moves:
        texts.append(game.move_text(pos, move))
        pos.push(move)
    for _ in moves:
        pos.pop()
    return texts


def cmd_uci(args: argparse.Namespace) -> int:
    from controller.engine.uci_server import serve  # lazy: only this command searches

    return serve()


def cmd_play(args: argparse.Namespace) -> int:
    """The engine against itself or a random mover, move by move on the terminal."""
    import random

    game, pos = _game_and_position(args)
    engine = _engine(game, args)
    rng = random.Random(args.seed)
    seats = {p: "engine" for p in range(game.players)}
    if args.against == "random":
        seats = {p: ("engine" if p == 0 else "random") for p in range(game.players)}
    for ply in range(1, args.max_plies + 1):
        moves = game.legal_moves(pos)
        if not moves:
            break
        mover = game.ply_mover(pos)
        if moves[0].kind == "roll" or seats[mover] == "random":
            move = rng.choice(moves)
        else:
            move = engine.choose(pos, movetime=args.movetime, view=not args.full).move
        print(f"{ply:>4}. {game.player_names[mover]:<6} {game.move_text(pos, move)}")
        pos.push(move)
    outcome = game.outcome(pos)
    if outcome is None:
        print(f"stopped after {args.max_plies} plies")
    else:
        print(f"{outcome.result} ({outcome.reason})")
    return 0


def cmd_diagram(args: argparse.Namespace) -> int:
    from controller.diagram import diagram_svg, draw_figures  # lazy: only this command

    if args.batch:
        batch = Path(args.batch)
        if batch.exists() and not batch.is_file():  # a FIFO or /dev/zero never ends
            raise CommandError(f"diagram: --batch {args.batch}: not a regular file")
        for path in draw_figures(args.batch, args.out):
            print(path)
        return 0
    if not args.game:
        raise CommandError("diagram needs --game (or --batch FILE)")
    game, pos = _game_and_position(args)
    svg = diagram_svg(game, pos, args.piece, args.caption or "")
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(svg)
        print(args.out)
    else:
        print(svg, end="")
    return 0


def _journal(args: argparse.Namespace):
    from controller.config import load_config
    from controller.journal import Journal

    folder = args.journal or load_config(args.config).journal.path
    return Journal(folder)


def cmd_games_list(args: argparse.Namespace) -> int:
    """Every game file, oldest first, as an aligned table with a legend; a damaged,
    unreadable or quarantined file is listed as such (one bad file never stops it)."""
    from controller.journal import JournalProblem

    journal = _journal(args)
    records, problems = journal.scan()
    rows = [(r.path.name, r) for r in records] + [(p.path.name, p) for p in problems]
    rows += [(path.name, path) for path in journal.quarantined()]
    if not rows:
        print(f"no games in {journal.folder}")
        return 0
    table: list[tuple[str, ...]] = []
    for _, item in sorted(rows, key=lambda row: row[0]):
        if isinstance(item, Path):
            table.append((item.name, "quarantined"))
        elif isinstance(item, JournalProblem):
            table.append((item.path.stem, f"unreadable: {item.problem}"))
        else:
            n = len(item.moves)
            table.append((item.id, item.game, f"{n} move{'' if n == 1 else 's'}",
                          item.result or "unfinished", " - ".join(item.players)
                          + (f"  [damaged: {item.damage}]" if item.damage else "")))
    full = [row for row in table if len(row) == 5]
    widths = [max(len(row[k]) for row in full) for k in range(4)] if full else []
    for row in table:
        if len(row) == 5:
            cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1]),
                     row[2].rjust(widths[2]), row[3].ljust(widths[3]), row[4]]
            print("  ".join(cells).rstrip())
        else:
            print("  ".join(row))
    print("\nresult: 1-0 White won, 0-1 Black won, 1/2-1/2 drawn, * stopped unfinished "
          "(a new game was started), unfinished: resumed at the next start; "
          "'fairyboard games export ID' prints a game")
    return 0


def cmd_games_export(args: argparse.Namespace) -> int:
    """Games as PGN (``controller/pgn.py``), one after another as in any PGN file: the
    ids given, or with ``--all`` every readable game, oldest first.  A game with hidden
    information that has not ended is not printed (its moves would show what its players
    may not see, as the page's archive refuses it): named, it is refused; ``--all`` skips
    it and says so."""
    from controller.pgn import game_pgn

    journal = _journal(args)
    if args.all == bool(args.game_ids):
        raise CommandError("games export needs game ids (from 'games list') or --all")
    records = journal.games() if args.all else [journal.find(i) for i in args.game_ids]
    secret = [r.id for r in records if r.game_rules().hidden_information and not r.finished]
    if secret and not args.all:
        raise CommandError(f"game {secret[0]} hides information from its players and has "
                           "not ended: it can be exported once it has ended")
    print("".join(game_pgn(record) for record in records if record.id not in secret),
          end="")
    if secret:
        print(f"not exported (hidden information, not ended yet): {', '.join(secret)}",
              file=sys.stderr)
    return 0


def cmd_backup(args: argparse.Namespace) -> int:
    """The journal, the configuration and the calibration in one archive."""
    from controller.backup import backup_path, make_backup
    from controller.config import apply_overrides, load_config

    config = apply_overrides(load_config(args.config), journal=args.journal)
    out = backup_path(args.out)
    backup = make_backup(config, args.config, out)
    print(f"{out}: {backup.summary()}")
    return 0


def cmd_restore(args: argparse.Namespace) -> int:
    """An archive of ``backup`` back in place; a damaged one changes nothing."""
    from controller.backup import restore_backup

    restored = restore_backup(args.archive, args.config, args.journal)
    print(f"restored {restored.backup.summary()} from {args.archive}")
    for path in restored.placed:
        print(f"  {path}")
    if restored.kept:
        print("the files it replaced are kept beside them (*.before-restore-*)")
    return 0


def _bringup_config(args: argparse.Namespace):
    from controller.config import apply_overrides, load_config

    return apply_overrides(load_config(args.config), layout=args.layout)


def cmd_selftest(args: argparse.Namespace) -> int:
    from controller.bringup import run_live, run_self_test

    if args.live:
        run_live(_bringup_config(args), seconds=args.seconds)
        return 0
    try:
        report = run_self_test(_bringup_config(args))
    except (EOFError, KeyboardInterrupt):
        print("\nfairyboard: self-test stopped before its summary", file=sys.stderr)
        return 130
    return 0 if report.ok else 1


def cmd_calibrate(args: argparse.Namespace) -> int:
    from controller.bringup import run_calibration

    try:
        run_calibration(_bringup_config(args), out=args.out, pieces=args.pieces)
    except (EOFError, KeyboardInterrupt):
        print("\nfairyboard: calibration stopped; what was measured is kept, and the next "
              "'fairyboard calibrate' continues from there", file=sys.stderr)
        return 130
    return 0


def _layouts_playing(game: str) -> list[str]:
    from controller.layout import layout_names, load_layout

    return [name for name in layout_names() if game in load_layout(name).games]


def choose_board(args: argparse.Namespace) -> None:
    """Fill in ``--layout`` or ``--game`` when only the other is given and one choice fits.

    ``run --game gnuqi`` needs the 9×9 board and there is only one: the configured (or
    default) layout is replaced by it.  ``run --layout square9`` alone picks the game that
    layout plays when the configured game does not fit it and it plays only one."""
    from controller.config import load_config
    from controller.layout import load_layout

    if args.game and args.layout:
        return
    try:
        board = load_config(args.config).board
    except (ValueError, OSError):
        return  # run_service reports the configuration's problem in its own words
    if args.game and not args.layout and args.game in GAMES:
        try:
            fits = args.game in load_layout(board.layout).games
        except ValueError:
            fits = False
        layouts = _layouts_playing(args.game)
        if not fits and len(layouts) == 1:
            args.layout = layouts[0]
    elif args.layout and not args.game:
        try:
            games = load_layout(args.layout).games
        except ValueError:
            return
        if board.game not in games and len(games) == 1:
            args.game = games[0]


def cmd_run(args: argparse.Namespace) -> int:
    from controller.process import run_service  # lazy: pulls in the web stack

    choose_board(args)
    return run_service(args)


def cmd_server(args: argparse.Namespace) -> int:
    """The club's fairyboard server (docs/server.md): one command, SQLite by default."""
    from controller.process import setup_logging
    from controller.server.app import serve
    from controller.server.broker import BrokerError
    from controller.server.store import StoreError

    if not 1 <= args.port <= 65535:
        raise CommandError(f"server: --port must be 1-65535, got {args.port}")
    if args.broker_port is not None and not (1 <= args.broker_port <= 65535
                                             and args.broker_port != args.port):
        raise CommandError(f"server: --broker-port must be 1-65535 and not --port, got "
                           f"{args.broker_port}")
    database = os.environ.get("FAIRYBOARD_SERVER_DATABASE") or args.database
    data = Path(args.data).expanduser()
    cluster = None
    if args.cluster:
        from controller.server.cluster import cluster_settings

        try:
            cluster = cluster_settings(
                args.cluster, args.worker,
                os.environ.get("FAIRYBOARD_SERVER_CLUSTER_USER", ""),
                os.environ.get("FAIRYBOARD_SERVER_CLUSTER_PASSWORD", ""))
        except ValueError as exc:
            raise CommandError(f"server: {exc}") from None
    elif (args.worker or args.referee or args.use_referees or args.link_boards
          or args.referee_seed):
        raise CommandError("server: --worker, --referee, --use-referees, --link-boards and "
                           "--referee-seed are for a process of --cluster")
    if args.referee_seed is not None and not args.referee:
        raise CommandError("server: --referee-seed is for a --referee process")
    setup_logging("info", args.log_format)
    try:
        if args.referee:
            return _referee_process(database, cluster, args.referee_seed)
        serve(data, host=args.host, port=args.port, database=database,
              broker_port=args.broker_port, cluster=cluster,
              use_referees=args.use_referees, link_boards=args.link_boards)
    except (StoreError, BrokerError) as exc:
        raise CommandError(f"server: {exc}") from None
    except KeyboardInterrupt:  # Ctrl-C: stopped as asked
        pass
    return 0


def _referee_process(database: str | None, cluster, seed: str | None = None) -> int:
    """``fairyboard server --cluster … --referee``: until interrupted or terminated."""
    import signal

    from controller.server.refereeing import RefereeProcess
    from controller.server.store import StoreError, open_store

    if not (database or "").startswith(("postgresql://", "postgres://")):
        raise StoreError("--referee needs PostgreSQL (--database postgresql://…), as the "
                         "workers it serves do")
    store = open_store(database)
    process = RefereeProcess(store, cluster, seed)
    signal.signal(signal.SIGTERM, lambda *_: process.stop())
    try:
        process.run()
    finally:
        store.close()
    return 0


def cmd_referee(args: argparse.Namespace) -> int:
    """The referee of the club's hidden-information games (docs/link.md)."""
    import signal
    import threading

    from controller.config import load_config
    from controller.link.client import BrokerSettings
    from controller.link.messages import check_name
    from controller.link.referee import Referee, RefereeJournal, serve
    from controller.process import setup_logging

    link = load_config(args.config).link
    broker = args.broker or link.broker
    if not broker:
        raise CommandError("referee: no broker: give --broker or set link.broker")
    port = link.port if args.port is None else args.port
    if not 1 <= port <= 65535:
        raise CommandError(f"referee: --port must be 1-65535, got {port}")
    club = link.club if args.club is None else args.club
    from controller.config import check_host

    check_host("referee: --broker", broker)
    check_name("--club", club)  # (an empty --club is refused, not the configured one)
    settings = BrokerSettings(
        host=broker, port=port, club=club,
        board=args.name, username=args.username or link.username,
        password=args.password if args.password is not None else link.password,
        tls_ca=args.tls_ca or link.tls_ca)
    delay = link.referee_delay if args.delay is None else args.delay
    if delay < 0:
        raise CommandError(f"referee: --delay must be 0 or more plies, got {delay}")
    journal = RefereeJournal(Path(args.journal or link.referee_journal).expanduser())
    referee = Referee(settings.club, journal, delay or None,  # the journal read first
                      seed=args.seed, numbered=True)
    setup_logging("info", args.log_format)
    stop = threading.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: stop.set())
    serve(settings, referee, stop)
    return 0


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("fairyboard")
    except PackageNotFoundError:  # running from a checkout that was never installed
        return "(not installed)"


def _build() -> str:
    """Whether the rules and the search run compiled (``FAIRYBOARD_COMPILE=1 pip install``,
    setup.py) or as pure Python, by the files the two cores were imported from."""
    from importlib.machinery import EXTENSION_SUFFIXES

    import controller.engine.search as search
    import controller.rules.core as core

    compiled = [module.__file__ is not None and module.__file__.endswith(
        tuple(EXTENSION_SUFFIXES)) for module in (core, search)]
    return "compiled" if all(compiled) else "partly compiled" if any(compiled) else "pure Python"


class _VersionAction(argparse.Action):
    """``--version``, looked up only when asked (reading the package metadata costs more
    CPU than a whole ``moves`` command)."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: Any, option_string: str | None = None) -> None:
        # on stdout, as argparse's own version action
        print(f"fairyboard {_version()} (rules and search: {_build()})")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fairyboard",
        description="Electronic-board controller for Lùotuoqí, Lao Tzu Chess, Gnu Qi, "
        "KaleidoChess and Lotus-39.",
    )
    parser.add_argument("--version", action=_VersionAction, help="show the version and exit")
    sub = parser.add_subparsers(dest="command", required=True)

    def game_args(p: argparse.ArgumentParser, required: bool = True) -> None:
        p.add_argument("--game", required=required, type=str.lower,
                       help=f"one of: {', '.join(GAMES)}")
        p.add_argument("--position", help="position text (default: the starting position)")
        p.add_argument("--moves", dest="moves_played", nargs="*", metavar="MOVE",
                       help="moves to play from the position first")
        p.add_argument("--players", type=int, help="number of players (KaleidoChess)")
        p.add_argument("--dice", action="store_true", help="dice variant (KaleidoChess)")
        p.add_argument("--set", action="append", metavar="KEY=VALUE",
                       help="a game option, e.g. --set castling=chess480")

    p = sub.add_parser("moves", help="list the moves the rules allow from a position")
    game_args(p)
    p.add_argument("--json", action="store_true", help="JSON: from, to, captured, kind, notation")
    p.set_defaults(func=cmd_moves)

    p = sub.add_parser("perft", help="count the nodes of the move tree")
    game_args(p)
    p.add_argument("--depth", type=int, required=True)
    p.add_argument("--divide", action="store_true", help="also print the count per first move")
    p.set_defaults(func=cmd_perft)

    p = sub.add_parser("show", help="draw the position as text")
    game_args(p)
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("view", help="what one player may know (Lao Tzu Chess)")
    game_args(p)
    p.add_argument("--player", required=True)
    p.set_defaults(func=cmd_view)

    p = sub.add_parser("say", help="say one move in words, as the board's voice does")
    game_args(p)
    p.add_argument("--move", required=True, help="the move, in the game's notation")
    p.add_argument("--lang", default="en", help="language: en, de, fr, es, it, zh")
    p.add_argument("--listener", metavar="PLAYER", help="who hears it (hidden-information "
                   "games: another player hears only what he may know; default: the mover)")
    p.add_argument("--out", metavar="FILE.wav", help="also speak it into this WAV file")
    p.add_argument("--aloud", action="store_true", help="speak it through the sound output")
    p.set_defaults(func=cmd_say)

    p = sub.add_parser("online", help="the online account: save the token, check it")
    online_sub = p.add_subparsers(dest="online_command", required=True)
    for name, text in (("token", "save the token (paste it on standard input)"),
                       ("check", "check the token against the server")):
        op = online_sub.add_parser(name, help=text)
        op.add_argument("--config", help="TOML configuration file (its [online] table)")
        op.set_defaults(func=cmd_online)

    def engine_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--level", type=int, default=6, help="strength 1-10 (default 6)")
        p.add_argument("--movetime", type=float, metavar="SECONDS",
                       help="think at most this long per move (default: the level's budget)")
        p.add_argument("--seed", type=int, default=0, help="seed of the weak levels' noise")
        p.add_argument("--full", action="store_true",
                       help="hidden-information games (Lao Tzu): search the whole position "
                            "(default: decide from the mover's view, as the board does)")

    p = sub.add_parser("bestmove", help="the computer's move (last line, in the game's notation)")
    game_args(p)
    engine_args(p)
    p.set_defaults(func=cmd_bestmove)

    p = sub.add_parser("play", help="the computer plays a whole game on the terminal")
    game_args(p)
    engine_args(p)
    p.add_argument("--against", choices=["self", "random"], default="self",
                   help="the opponent: the engine itself or a random mover (default self)")
    p.add_argument("--max-plies", type=int, default=400, help="stop after this many plies")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("uci", help="speak UCI on standard input and output (every game: "
                                   "the UCI_Variant option chooses it)")
    p.set_defaults(func=cmd_uci)

    p = sub.add_parser("diagram", help="draw a position on its board as SVG (players' guides)")
    game_args(p, required=False)
    p.add_argument("--piece", metavar="CELL", help="mark the legal targets of the piece on CELL")
    p.add_argument("--caption", help="title of the picture")
    p.add_argument("--out", help="SVG file to write (default: standard output); with --batch, "
                   "the folder (default: beside the figure file)")
    p.add_argument("--batch", metavar="FIGURES.toml", help="draw every figure listed in a file")
    p.set_defaults(func=cmd_diagram)

    p = sub.add_parser("board", help="printed boards: templates, wiring, bill of materials")
    board_sub = p.add_subparsers(dest="board_command", required=True)
    bp = board_sub.add_parser("print", help="write the printable files of a layout")
    bp.add_argument("layout", help="layout name in boards/layouts (square8, square9, …)")
    bp.add_argument("--out", default="out", help="output folder (default: out)")
    bp.add_argument("--paper", default="A4", choices=["A4", "Letter"])
    bp.add_argument("--schematic", action="store_true",
                    help="also write the electrical schematic (SVG, PDF) and a KiCad netlist")
    bp.set_defaults(func=cmd_board)

    p = sub.add_parser("games", help="the game journal: list and export games")
    games_sub = p.add_subparsers(dest="games_command", required=True)
    for name, func, text in (("list", cmd_games_list, "list recorded games"),
                             ("export", cmd_games_export, "print games as PGN")):
        gp = games_sub.add_parser(name, help=text)
        gp.add_argument("--config", help="configuration file naming the journal folder")
        gp.add_argument("--journal", help="journal folder (overrides the configuration)")
        if name == "export":
            gp.add_argument("game_ids", nargs="*", metavar="ID",
                            help="game ids as printed by 'games list'")
            gp.add_argument("--all", action="store_true", help="every readable game")
        gp.set_defaults(func=func)

    p = sub.add_parser("backup", help="the journal, configuration and calibration in one "
                       "archive")
    p.add_argument("--config", help="the configuration file (backed up too)")
    p.add_argument("--journal", help="journal folder (overrides the configuration)")
    p.add_argument("--out", help="archive file or folder (default: the current folder)")
    p.set_defaults(func=cmd_backup)
    p = sub.add_parser("restore", help="put a backup archive back (a damaged one changes "
                       "nothing; the replaced files are kept aside)")
    p.add_argument("archive", help="a file written by 'fairyboard backup'")
    p.add_argument("--config", help="where the configuration goes (default: where it was "
                   "backed up from)")
    p.add_argument("--journal", help="journal folder (default: the restored configuration's)")
    p.set_defaults(func=cmd_restore)

    for name, func, text in (
            ("selftest", cmd_selftest, "check a built board: LEDs and their colour order, every "
             "sensor and diode, faults named by wire (exit 1 when faults are found)"),
            ("calibrate", cmd_calibrate, "measure the linear hall sensors of an analog board")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--config", help="TOML configuration file (sensing and LEDs)")
        p.add_argument("--layout", help="layout name (overrides the configuration)")
        if name == "selftest":
            p.add_argument("--live", action="store_true",
                           help="show me what you see: light the LED of every spot whose "
                                "sensor reads, until Ctrl-C (no game running)")
            p.add_argument("--seconds", type=float,
                           help="with --live: stop after this many seconds")
        if name == "calibrate":
            p.add_argument("--out", help="where to store it (default: sensing.calibration)")
            p.add_argument("--pieces", type=int, default=1,
                           help="spots lit at a time: how many White (and Black) pieces "
                                "you have at hand (default 1)")
        p.set_defaults(func=func)

    p = sub.add_parser("run", help="run the board service (default: the simulated board)")
    p.add_argument("--config", help="TOML configuration file")
    p.add_argument("--layout", type=str.lower,
                   help="layout name (overrides the configuration; found from --game when "
                   "only one layout plays it)")
    p.add_argument("--game", type=str.lower, help="game name (overrides the configuration)")
    p.add_argument("--journal", help="folder of the game journal (overrides the configuration)")
    p.add_argument("--log-format", choices=["json", "text"],
                   help="log lines as JSON (for journald) or text (for a terminal)")
    p.add_argument("--web-port", type=int, help="port of the companion web page")
    p.add_argument("--web-host", help="address to bind the web page to (default localhost)")
    p.add_argument("--no-browser", action="store_true", help="accepted for scripts; no effect")
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("server", help="the club's server: accounts, lobby and games for "
                       "boards and browsers (docs/server.md)")
    p.add_argument("--data", default="~/.local/share/fairyboard/server",
                   help="its folder: the SQLite database and the referee's journal")
    p.add_argument("--database", help="postgresql://user@host/db instead of SQLite (a "
                   "password goes in FAIRYBOARD_SERVER_DATABASE, never on the command line)")
    p.add_argument("--host", default="127.0.0.1", help="address to serve on")
    p.add_argument("--port", type=int, default=8090, help="port to serve on")
    p.add_argument("--broker-port", type=int, help="also run the club's Mosquitto on this "
                   "port, its logins the boards' tokens (docs/server.md, Linked boards)")
    p.add_argument("--cluster", metavar="HOST:PORT", help="one worker of several on one "
                   "PostgreSQL, told of the others' changes through this MQTT broker (its "
                   "login in FAIRYBOARD_SERVER_CLUSTER_USER/_PASSWORD; docs/server.md, "
                   "Growing past one machine)")
    p.add_argument("--worker", help="this worker's name at the broker (default: "
                   "host-pid)")
    p.add_argument("--referee", action="store_true", help="with --cluster: a referee "
                   "process (no web page) judging the hidden-information games of workers "
                   "started with --use-referees")
    p.add_argument("--use-referees", action="store_true", help="with --cluster: leave the "
                   "hidden-information games to referee processes (--referee)")
    p.add_argument("--referee-seed", help="with --referee: draw the hidden set-ups from this "
                   "text and the number of games this process started instead of at random: "
                   "for tests and demos only (whoever knows it can work out the hidden "
                   "pieces)")
    p.add_argument("--link-boards", action="store_true", help="with --cluster: also play "
                   "the referee's part for boards linked over MQTT on that broker (each "
                   "board's message to one worker; the linked games in the store; the "
                   "boards' logins provisioned at the broker, see docs/server.md)")
    p.add_argument("--log-format", choices=["json", "text"], default="text",
                   help="log lines as JSON (for journald) or text")
    p.set_defaults(func=cmd_server)

    p = sub.add_parser("referee", help="referee the club's hidden-information games "
                       "(Lao Tzu Chess on two boards; docs/link.md)")
    p.add_argument("--config", help="TOML configuration file (its [link] table)")
    p.add_argument("--broker", help="the MQTT broker's address (default: link.broker)")
    p.add_argument("--port", type=int, help="the broker's port (default: link.port)")
    p.add_argument("--club", help="the club (default: link.club)")
    p.add_argument("--name", default="referee", help="the referee's name on the broker "
                   "(its client id; default: referee)")
    p.add_argument("--username", help="its user on the broker (default: link.username)")
    p.add_argument("--password", help="its password (default: link.password)")
    p.add_argument("--tls-ca", help="CA certificate: connect with TLS (default: link.tls_ca)")
    p.add_argument("--journal", help="its journal file (default: link.referee_journal)")
    p.add_argument("--seed", help="draw the hidden set-ups from this text and the game's "
                   "number instead of at random: for tests and demos only (whoever knows "
                   "it can work out the hidden pieces)")
    p.add_argument("--delay", type=int, help="show moves to the club this many plies late "
                   "(default: link.referee_delay; 0: only at the end)")
    p.add_argument("--log-format", choices=["json", "text"], default="text",
                   help="log lines as JSON (for journald) or text")
    p.set_defaults(func=cmd_referee)
    return parser


def _bad_input() -> tuple[type[Exception], ...]:
    """The errors printed as one line: a :class:`SensingError` only if sensing was
    imported at all (a rules command never imports it, so it cannot have raised one)."""
    kinds: tuple[type[Exception], ...] = (RulesError, CommandError, KeyError, ValueError,
                                          OSError)
    frame = sys.modules.get("controller.sensing.frame")
    return kinds if frame is None else (*kinds, frame.SensingError)


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except BrokenPipeError:  # the reader (``| head``) closed the pipe: stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except _bad_input() as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"fairyboard: error: {message}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
