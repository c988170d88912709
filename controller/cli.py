"""The ``fairyboard`` command line.

Rules commands (``moves``, ``perft``, ``show``, ``view``) work for every game in the
registry; ``board`` generates a printed board's templates; ``run`` starts the board
service.  Bad input gets one line on stderr naming the problem and exit status 2.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from controller.rules import GAMES, Position, RulesError, get_game

EXIT_BAD_INPUT = 2


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
    pos = game.parse_position(args.position) if args.position else game.start()
    for text in getattr(args, "moves_played", None) or []:
        pos.push(game.parse_move(pos, text))
    return game, pos


def cmd_moves(args: argparse.Namespace) -> int:
    game, pos = _game_and_position(args)
    moves = game.legal_moves(pos)
    if args.json:
        print(json.dumps([game.move_json(pos, m) for m in moves], ensure_ascii=False, indent=1))
    else:
        for m in moves:
            print(game.move_text(pos, m))
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    if args.depth < 0:
        raise CommandError("--depth must be 0 or more")
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
    view_text = getattr(game, "view_text", None)
    if view_text is None:
        raise CommandError(f"game {args.game!r} has no hidden information; use 'show'")
    names = [n.lower() for n in game.player_names]
    if args.player.lower() not in names:
        raise CommandError(f"unknown player {args.player!r} (one of {', '.join(names)})")
    print(view_text(pos, names.index(args.player.lower())))
    return 0


def cmd_board(args: argparse.Namespace) -> int:
    from controller.boardprint import print_board  # lazy: only this command needs it

    for path in print_board(args.layout, args.out, paper=args.paper,
                            schematic=args.schematic):
        print(path)
    return 0


def _journal(args: argparse.Namespace):
    from controller.config import load_config
    from controller.journal import Journal

    folder = args.journal or load_config(args.config).journal.path
    return Journal(folder)


def cmd_games_list(args: argparse.Namespace) -> int:
    for record in _journal(args).games():
        state = record.result or "unfinished"
        names = " - ".join(record.players)
        print(f"{record.id}  {record.game:<14} {len(record.moves):>4} plies  {state:<10} {names}")
    return 0


def cmd_games_export(args: argparse.Namespace) -> int:
    from controller.journal import export_record

    print(export_record(_journal(args).find(args.game_id)), end="")
    return 0


def _bringup_config(args: argparse.Namespace):
    from controller.config import apply_overrides, load_config

    return apply_overrides(load_config(args.config), layout=args.layout)


def cmd_selftest(args: argparse.Namespace) -> int:
    from controller.bringup import run_self_test

    report = run_self_test(_bringup_config(args))
    return 0 if report.ok else 1


def cmd_calibrate(args: argparse.Namespace) -> int:
    from controller.bringup import run_calibration

    run_calibration(_bringup_config(args), out=args.out)
    return 0


def cmd_run(args: argparse.Namespace) -> int:
    from controller.service import run_service  # lazy: pulls in the web stack

    return run_service(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="fairyboard",
        description="Electronic-board controller for Lùotuoqí, Lao Tzu Chess, Gnu Qi, "
        "KaleidoChess and Lotus-39.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    def game_args(p: argparse.ArgumentParser) -> None:
        p.add_argument("--game", required=True, help=f"one of: {', '.join(GAMES)}")
        p.add_argument("--position", help="position text (default: the starting position)")
        p.add_argument("--moves", dest="moves_played", nargs="*", metavar="MOVE",
                       help="moves to play from the position first")
        p.add_argument("--players", type=int, help="number of players (KaleidoChess)")
        p.add_argument("--dice", action="store_true", help="dice variant (KaleidoChess)")
        p.add_argument("--set", action="append", metavar="KEY=VALUE",
                       help="a game option, e.g. --set castling=chess480")

    p = sub.add_parser("moves", help="list the legal moves")
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
                             ("export", cmd_games_export, "print a game with headers")):
        gp = games_sub.add_parser(name, help=text)
        gp.add_argument("--config", help="configuration file naming the journal folder")
        gp.add_argument("--journal", help="journal folder (overrides the configuration)")
        if name == "export":
            gp.add_argument("game_id", help="a game id as printed by 'games list'")
        gp.set_defaults(func=func)

    for name, func, text in (
            ("selftest", cmd_selftest, "check a built board: LEDs, every sensor, ghosting "
             "(exit 1 when faults are found)"),
            ("calibrate", cmd_calibrate, "measure the linear hall sensors of an analog board")):
        p = sub.add_parser(name, help=text)
        p.add_argument("--config", help="TOML configuration file (sensing and LEDs)")
        p.add_argument("--layout", help="layout name (overrides the configuration)")
        if name == "calibrate":
            p.add_argument("--out", help="where to store it (default: sensing.calibration)")
        p.set_defaults(func=func)

    p = sub.add_parser("run", help="run the board service (default: the simulated board)")
    p.add_argument("--config", help="TOML configuration file")
    p.add_argument("--layout", help="layout name (overrides the configuration)")
    p.add_argument("--game", help="game name (overrides the configuration)")
    p.add_argument("--web-port", type=int, help="port of the companion web page")
    p.add_argument("--web-host", help="address to bind the web page to (default localhost)")
    p.add_argument("--no-browser", action="store_true", help="accepted for scripts; no effect")
    p.set_defaults(func=cmd_run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (RulesError, CommandError, KeyError, ValueError, OSError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"fairyboard: error: {message}", file=sys.stderr)
        return EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
