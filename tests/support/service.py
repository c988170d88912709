"""The service on the simulated board as tests drive it: configured, set up, played."""

from __future__ import annotations

import time

from controller.config import Config
from controller.service import BoardService
from controller.web.simulator import move_actions


def make_config(tmp_path, **board) -> Config:
    config = Config()
    config.journal.path = str(tmp_path / "journal")
    config.sensing.settle_ms = 50.0
    config.sensing.debounce_ms = 5.0
    config.timing.correction_s = 1.0
    config.online.token_file = str(tmp_path / "online-token")  # never the owner's token
    for key, value in board.items():
        setattr(config.board, key, value)
    return config


def make_service(tmp_path, **board) -> BoardService:
    svc = BoardService(make_config(tmp_path, **board))
    return svc


def set_up(svc: BoardService) -> None:
    svc.sim_action({"action": "arrange"})
    svc.step(0.1)
    assert svc.interaction.phase == "turn", svc.interaction


def play(svc: BoardService, text: str, answer_on_pad: bool = False) -> None:
    """Carry out ``text`` with human actions; answer a choice the board asks."""
    game, pos = svc.game, svc.position
    move = game.parse_move(pos, text)
    for action in move_actions(game, pos, move, svc.layout):
        svc.sim_action(action)
        svc.step(0.03)
    svc.step(0.2)
    if svc.interaction.phase == "choice":
        labels = svc.choice_labels()
        assert text in labels, labels
        if answer_on_pad:  # from the board alone: touch the option pad with a piece
            option = next(o for o in svc.interaction.options if o.label == text)
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
    assert svc.plies and svc.plies[-1][1] == text, (svc.plies, svc.interaction)


def page_service(tmp_path, game: str = "luotuoqi", *, layout: str | None = None,
                 seed: int | None = None, scan_hz: float | None = None,
                 **options) -> BoardService:
    """The service the page tests drive: the simulated board with a short settle and
    debounce, its journal in ``tmp_path``; ``layout`` defaults to the configured one."""
    config = Config()
    config.journal.path = str(tmp_path / "journal")
    config.sensing.settle_ms = 50.0
    config.sensing.debounce_ms = 5.0
    if scan_hz is not None:
        config.sensing.scan_hz = scan_hz
    config.board.game = game
    config.online.token_file = str(tmp_path / "online-token")  # never the owner's token
    if layout is not None:
        config.board.layout = layout
    config.board.options = options
    return BoardService(config) if seed is None else BoardService(config, seed=seed)


def wait_for(svc: BoardService, done, seconds: float = 30.0) -> None:
    """Let simulated time pass while the worker process thinks in real time."""
    deadline = time.monotonic() + seconds
    while not done():
        assert time.monotonic() < deadline, svc.interaction
        svc.step(0.05)
        time.sleep(0.01)


def safe_moves(game, pos) -> list:
    """The mover's legal moves after which it has not lost (a random person who does not
    step his Wizard out of its last castle, say)."""
    mover = game.ply_mover(pos)
    safe = []
    for move in game.legal_moves(pos):
        pos.push(move)
        outcome = game.outcome(pos)
        pos.pop()
        if outcome is None or mover in outcome.winners:
            safe.append(move)
    return safe


def not_losing_at_once(game, pos) -> list:
    """The safe moves, or every legal move when each one loses."""
    return safe_moves(game, pos) or game.legal_moves(pos)
