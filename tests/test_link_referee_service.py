"""Two board services with a referee configured play Lao Tzu Chess over the documented
broker: the page's new-game request goes to the referee, each service's board holds its
player's view only, a power cut of one board resumes from its journal and the referee's
retained view, and neither journal nor page holds anything hidden."""

from __future__ import annotations

import json

from controller.config import Config
from controller.link.referee import Referee, RefereeJournal
from controller.service import BoardService
from controller.web.page import page_state
from controller.web.simulator import move_actions
from tests.support.linkplay import until as run_until
from tests.support.refereed import CLUB, RefereeThread, documented_broker

SEATS = ("alpha", "beta")


def refereed_service(tmp_path, name: str, port: int, password: str) -> BoardService:
    config = Config()
    config.journal.path = str(tmp_path / name / "journal")
    config.sensing.settle_ms = 50.0
    config.sensing.debounce_ms = 5.0
    config.link.broker = "127.0.0.1"
    config.link.port = port
    config.link.board = name
    config.link.club = CLUB
    config.link.username = name
    config.link.password = password
    config.link.referee = True
    return BoardService(config)



def until(condition, *services, timeout: float = 10.0) -> None:
    run_until(condition, services, timeout)


def arrange(svc: BoardService) -> None:
    """The simulated board set to what it must show (the guided gestures themselves are
    tested in tests/test_fog_boards.py)."""
    for _ in range(3):  # a cell whose piece changed is emptied first, then filled
        svc.sim_action({"action": "arrange"})
        svc.step(0.2)
        if svc.interaction.phase in ("turn", "game_over"):
            return
    raise AssertionError(svc.interaction)


def test_two_services_play_a_refereed_game_and_hold_only_their_views(tmp_path, caplog,
                                                                     game_id="svc-1"):
    caplog.set_level("INFO")
    broker, users = documented_broker(tmp_path / "broker")
    referee = Referee(CLUB, RefereeJournal(tmp_path / "referee.json"), seed="svc")
    ref = RefereeThread(broker.port, users, referee)
    alpha = refereed_service(tmp_path, "alpha", broker.port, users["alpha"])
    beta = refereed_service(tmp_path, "beta", broker.port, users["beta"])
    services = [alpha, beta]
    try:
        until(lambda: alpha.remote.connected and beta.remote.connected, *services)
        alpha.remote.new_game_id = lambda: game_id  # the referee's seed: the same game
        alpha.new_game("laotzu", {"castling": "chess960"}, remote={1: "beta"})
        until(lambda: alpha.fog is not None and beta.fog is not None, *services)
        (g,) = referee.games.values()
        for svc in services:
            arrange(svc)
        for ply in range(8):
            if ply == 4:  # beta loses power: it resumes from its journal and the referee
                beta.close()
                beta = refereed_service(tmp_path, "beta", broker.port, users["beta"])
                services = [alpha, beta]
                until(lambda b=beta: b.fog is not None and b.fog.ply == len(g.moves),
                      *services)
                arrange(beta)
            mover = g.game.ply_mover(g.pos)
            svc = services[mover]
            legal = set(g.game.legal_moves(g.pos))
            # (castling is played in tests/test_fog_boards.py: the page simulator's
            # actions for a King and Rook that swap cells end in a correction, on one
            # board too)
            move = next(m for m in g.game.board_moves(svc.position)
                        if m in legal and m.kind != "castle")
            for action in move_actions(svc.game, svc.position, move, svc.layout):
                svc.sim_action(action)
                svc.step(0.03)
            svc.step(0.3)
            until(lambda n=ply + 1, ss=services: all(s.fog.ply == n for s in ss), *services)
            for s in services:
                arrange(s)
                _assert_holds_the_view(s, g)
        assert len(g.moves) == 8
        for seat, s in enumerate(services):  # the page shows its own player's view
            assert page_state(s)["viewer"] == seat
        logged = "\n".join(f"{r.getMessage()} {vars(r)}" for r in caplog.records
                           if not r.name.endswith("referee"))
        for name, s in zip(SEATS, services, strict=True):
            _assert_nothing_hidden(tmp_path / name, json.dumps(page_state(s)) + logged, g,
                                   SEATS.index(name))
    finally:
        for s in services:
            s.close()
        ref.stop()
        broker.stop()


def _assert_holds_the_view(svc: BoardService, g) -> None:
    v = g.game.player_view(g.pos, svc.fog.seat)
    held = {(c, p) for c, p in enumerate(svc.position.board) if p is not None}
    assert held == set(v.own) | set(v.enemies)


def _assert_nothing_hidden(folder, page: str, g, seat: int) -> None:
    """Neither the board's journal, nor its page, holds a true position in which something
    was hidden from its player, nor the referee's seed."""
    game = g.game
    replay = game.start()
    secrets = set()
    for ply in range(len(g.moves) + 1):
        true_board = game.position_text(replay).split("[")[0]
        if true_board != game.position_text(game.view_position(replay, seat)).split("[")[0]:
            secrets.add(true_board)
        if ply < len(g.moves):
            replay.push(game.parse_move(replay, g.moves[ply]))
    assert secrets
    texts = [p.read_text() for p in folder.rglob("*") if p.is_file()] + [page]
    for text in texts:
        assert g.options["seed"] not in text
        assert not any(s in text for s in secrets)
