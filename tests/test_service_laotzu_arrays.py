"""Lao Tzu Chess draws both Chess960 arrays at random wherever a game starts (issue 30:
``fairyboard run --game laotzu`` started the orthodox 518/518 array although the guide
says both arrays are drawn): the service's own start, a new game from the page with the
set-up options left empty; arrays or a seed chosen are kept; the journal replays the draw."""

from __future__ import annotations

from controller.journal import read_game
from controller.rules import GAMES
from controller.rules.laotzu import ORTHODOX_ARRAY
from tests.support.laotzu import make_service


def arrays(svc) -> tuple[int, int]:
    return svc.game.white_array, svc.game.black_array


def test_the_service_starts_lao_tzu_with_arrays_drawn_and_recorded(tmp_path):
    svc = make_service(tmp_path / "a")
    other = make_service(tmp_path / "b")
    try:
        assert "seed" in svc.session.options
        assert arrays(svc) != arrays(other)  # two draws (the same: 1 in 921,600)
        record = read_game(svc.session.writer.path)
        assert record.game_rules().white_array == svc.game.white_array
        assert record.game_rules().black_array == svc.game.black_array
        svc.new_game("laotzu", {})  # the page's dialog with nothing filled in
        assert "seed" in svc.session.options
        svc.new_game("laotzu", {"castling": "chess480"})
        assert "seed" in svc.session.options and svc.game.castling == "chess480"
        svc.new_game("laotzu", {"white_array": ORTHODOX_ARRAY, "black_array": 0})
        assert arrays(svc) == (ORTHODOX_ARRAY, 0) and "seed" not in svc.session.options
        svc.new_game("laotzu", {"seed": "7"})
        assert svc.session.options["seed"] == "7"
    finally:
        svc.close()
        other.close()


def test_games_without_a_drawn_set_up_keep_their_options():
    for name, cls in GAMES.items():
        if name != "laotzu":
            assert cls.start_options({}) == {}
