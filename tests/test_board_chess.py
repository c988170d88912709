"""Chess on the simulated square8 board through the service: the moves a chess player
expects — castling either order, en passant, promotion answered on the option pads, a
takeback — each made with human actions on the simulated electronics and journalled."""

from __future__ import annotations

from controller.service import BoardService
from tests.support.service import make_config, play, set_up


def chess_service(tmp_path, setup: str | None = None) -> BoardService:
    svc = BoardService(make_config(tmp_path, layout="square8", game="chess"))
    if setup:
        svc.new_game("chess", {}, setup)
    set_up(svc)
    return svc


def test_an_opening_with_en_passant_and_castling(tmp_path):
    svc = chess_service(tmp_path)
    try:
        for text in ("e4", "Nf6", "e5", "d5", "exd6", "e6", "Nf3", "Be7", "Bc4", "O-O", "O-O"):
            play(svc, text)
        assert [t for _, t in svc.plies] == ["e4", "Nf6", "e5", "d5", "exd6", "e6", "Nf3",
                                              "Be7", "Bc4", "O-O", "O-O"]
        record = svc.journal.games()[-1]
        assert record.game == "chess" and len(record.moves) == 11
        assert svc.position.board[svc.layout.spot_index("g1")].kind == "K"
    finally:
        svc.close()


def test_rook_first_castling_and_a_promotion_on_the_option_pads(tmp_path):
    svc = chess_service(tmp_path, "4k3/P7/8/8/8/8/8/R3K3 w Q - 0 1")
    try:
        play(svc, "a8=Q+", answer_on_pad=True)
        play(svc, "Kd7")
        # the Rook first (a legal move on its own), then the King: castling
        spot = svc.layout.spot_index
        svc.sim_action({"action": "lift", "spot": "a1"})
        svc.step(0.05)
        svc.sim_action({"action": "place", "spot": "d1"})
        svc.step(0.3)
        svc.sim_action({"action": "lift", "spot": "e1"})
        svc.step(0.05)
        svc.sim_action({"action": "place", "spot": "c1"})
        svc.step(0.4)
        assert [t for _, t in svc.plies][-1] == "O-O-O+" and svc.interaction.phase == "turn"
        assert svc.position.board[spot("c1")].kind == "K"
        assert svc.position.board[spot("d1")].kind == "R"
    finally:
        svc.close()


def test_an_en_passant_capture_taken_back_returns_the_captured_pawn(tmp_path):
    svc = chess_service(tmp_path)
    try:
        for text in ("e4", "Nf6", "e5", "d5", "exd6"):
            play(svc, text)
        # the earlier position set up again by hand: the Pawn back, the captured Pawn back
        for action in ({"action": "lift", "spot": "d6"}, {"action": "place", "spot": "e5"},
                       {"action": "take", "object": "black-P"},
                       {"action": "place", "spot": "d5"}):
            svc.sim_action(action)
            svc.step(0.05)
        svc.step(0.3)
        assert svc.interaction.phase == "takeback"
        svc.step(svc.board.options.takeback_delay)
        assert [t for _, t in svc.plies] == ["e4", "Nf6", "e5", "d5"]
        assert svc.interaction.phase == "turn"
        spot = svc.layout.spot_index
        assert svc.position.board[spot("d5")].kind == "P"
        assert svc.position.board[spot("d6")] is None
        assert svc.journal.games()[-1].moves == ["e4", "Nf6", "e5", "d5"]
        play(svc, "exd6")  # and the capture can be made again
        assert [t for _, t in svc.plies][-1] == "exd6"
    finally:
        svc.close()
