"""The board service playing online against the loopback Board API server
(tests/support/lichess.py): configured with a token, its moves made with the simulated
hand, the opponent's moves played on the server and carried out on the board."""

from __future__ import annotations

import time

from controller.online.token import save_token
from controller.service import BoardService
from controller.web.simulator import move_actions
from tests.support.lichess import FakeLichess
from tests.support.service import make_config

OWNER, TOKEN = "owner", "tok-owner"


def online_config(tmp_path, server: FakeLichess, **board):
    config = make_config(tmp_path, **board)
    config.online.server = server.url
    config.online.token_file = str(tmp_path / "online-token")
    save_token(tmp_path / "online-token", TOKEN)
    return config


def online_service(tmp_path, server: FakeLichess, **board) -> BoardService:
    svc = BoardService(online_config(tmp_path, server, **board))
    svc.online.backoff_s = (0.05, 0.1, 0.2)
    return svc


def pump(svc: BoardService, until, limit_s: float = 20.0) -> None:
    """Let the board run (simulated time) while the server answers (real time)."""
    deadline = time.monotonic() + limit_s
    while not until():
        assert time.monotonic() < deadline, (svc.interaction.phase, svc.interaction.message,
                                            svc.online.json()["notices"])
        svc.step(0.03)
        time.sleep(0.005)


def make(svc: BoardService, uci: str, on_pad: bool = True) -> None:
    """The person at the board makes ``uci`` (a promotion answered on the option pads)."""
    game, pos = svc.game, svc.position
    move = game.parse_move(pos, uci)
    text = game.move_text(pos, move)
    before = len(svc.plies)
    for action in move_actions(game, pos, move, svc.layout):
        svc.sim_action(action)
        svc.step(0.03)
    svc.step(0.2)
    if svc.interaction.phase == "choice":
        labels = svc.choice_labels()
        assert text in labels, labels
        option = next(o for o in svc.interaction.options if o.label == text)
        if on_pad:  # from the board alone: a piece touches the option's pad
            pad = svc.layout.spots[option.spot].name
            svc.sim_action({"action": "take", "object": "white-E"})
            svc.sim_action({"action": "place", "spot": pad})
            svc.step(0.1)
            svc.sim_action({"action": "lift", "spot": pad})
            svc.sim_action({"action": "set_aside"})
            svc.step(0.1)
        else:
            svc.answer_choice(labels.index(text))
            svc.step(0.05)
    pump(svc, lambda: len(svc.plies) > before, 5)


def started(svc: BoardService, server: FakeLichess) -> str:
    """The online game the server started is on the board, set up: its id."""
    pump(svc, lambda: svc.online.seat is not None and svc.online.seat.server is not None)
    svc.sim_action({"action": "arrange"})
    pump(svc, lambda: svc.interaction.phase in ("turn", "execute"))
    return svc.online.record["id"]


def play_line(svc: BoardService, server: FakeLichess, gid: str, moves: list[str],
              owner_seat: int = 0, first_ply: int = 0) -> None:
    """Plies ``first_ply``… of the game: the owner's made on the board, the opponent's
    played on the server and then made on the board as it shows them."""
    for i, uci in enumerate(moves, start=first_ply):
        if i % 2 == owner_seat:
            pump(svc, lambda: svc.interaction.phase == "turn")
            make(svc, uci)
            pump(svc, lambda i=i: len(server.games[gid].moves) > i)
        else:
            server.play(gid, uci)
            pump(svc, lambda: svc.interaction.phase == "execute")
            shown = svc.board.progress.execute
            assert shown == svc.game.parse_move(svc.position, uci)
            make(svc, uci)


def board_uci(svc: BoardService) -> list[str]:
    """The board's moves in the Board API's notation (castling as the King's step)."""
    from controller.online.game import board_uci as uci

    game = svc.game
    pos = game.parse_position(svc.setup)
    out = []
    for move in svc.position.moves:
        out.append(uci(game, pos, move, False))
        pos.push(move)
    return out


def sent_moves(server: FakeLichess) -> list[str]:
    return [path.rsplit("/", 1)[1] for method, path in server.requests if "/move/" in path]
