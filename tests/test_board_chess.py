"""Chess on the simulated square8 board through the service: the moves a chess player
expects — castling either order, en passant, promotion answered on the option pads, a
takeback — each made with human actions on the simulated electronics and journalled."""

from __future__ import annotations

from test_service import make_config, play, set_up

from controller.service import BoardService


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
