"""Quiescence's captures-only listing (``Game.legal_captures``, issue 33): Lùotuoqí's own
(no quiet move listed) is its legal moves that capture, in their order, wherever the
Cube, a check or many Towers are; every game's hook is that filter; and the search with
it gives the values it gave listing every move, for fewer full listings."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.bench_engine import positions
from controller.engine import Engine
from controller.engine.search import INF, QUIESCENCE_PLIES, Search
from controller.rules import GAMES, Game, get_game
from controller.rules.luotuoqi import Luotuoqi
from tests.support.captures import filtered, sharp_walk
from tests.support.luotuoqi_oracle import literal_listing
from tests.test_luotuoqi_fast_listing import STARTS
from tests.test_luotuoqi_properties import BUSY

GAME = Luotuoqi()
#: many Towers of every height, Kings on open lines
TOWERS = [
    "4k3/t21t31t41t21/8/2T31T53/8/T2T11T4T31T11/8/4K3 w - w 0 20",
    "t8k1t5t13/8/3T71t32/8/1t4T61t23/8/T31T2T84/4K3 b - b 0 25",
]


class Listing(Luotuoqi):
    """Lùotuoqí as quiescence saw it before its own hook: every move listed, then filtered."""

    legal_captures = Game.legal_captures


def _walk(pos, choices, cube_flags):
    """The positions of a game played by ``choices`` (:func:`sharp_walk`), the mover
    handed the Cube where ``cube_flags`` says so."""
    def hand_the_cube(pos, i: int) -> None:
        if cube_flags[i] and not pos.state.get("cube_second"):
            pos.tokens["cube"] = pos.turn
            pos.keys[-1] = GAME.position_key(pos)

    return sharp_walk(GAME, pos, choices[:len(cube_flags)], hand_the_cube)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([None, *BUSY, *STARTS[1:], *TOWERS]),
       st.lists(st.integers(0, 10_000), min_size=1, max_size=40),
       st.lists(st.booleans(), min_size=40, max_size=40))
def test_luotuoqis_captures_are_its_legal_captures_in_order(start, choices, cube_flags):
    game = GAME.parse_position(start) if start else GAME.start()
    for pos in _walk(game, choices, cube_flags):
        assert GAME.legal_captures(pos) == filtered(GAME, pos), GAME.position_text(pos)


def test_the_walks_meet_the_cube_holder_checks_and_towers():
    """The positions the property test compares, seeded: the Cube holder, a side in check
    and Tower-heavy boards with captures are among them (so the comparison covers them);
    there the captures are also those of the rules read literally
    (``tests.support.luotuoqi_oracle``)."""
    seen = {"cube": 0, "check": 0, "towers": 0, "captures": 0}
    for k, start in enumerate([None, *BUSY, *STARTS[1:], *TOWERS]):
        rng = random.Random(k)
        game = GAME.parse_position(start) if start else GAME.start()
        choices = [rng.randrange(10_000) for _ in range(40)]
        for pos in _walk(game, choices, [rng.random() < 0.5 for _ in range(40)]):
            captures = GAME.legal_captures(pos)
            assert captures == filtered(GAME, pos), GAME.position_text(pos)
            captures = captures or []
            if GAME.rule_outcome(pos) is None:  # and the rules read literally agree
                assert Counter(captures) == Counter(
                    m for m in literal_listing(GAME, pos) if m.captures), GAME.position_text(pos)
            holder = pos.tokens.get("cube") == pos.turn and not pos.state.get("cube_second")
            seen["cube"] += holder and bool(captures)
            seen["check"] += GAME.in_check(pos) and bool(captures)
            seen["towers"] += sum(p is not None and p.kind == "T" for p in pos.board) >= 6 \
                and any(pos.board[m.origin].kind == "T" for m in captures)
            seen["captures"] += len(captures)
    assert all(n >= 5 for n in seen.values()), seen


def test_an_ended_game_has_none_a_quiet_position_an_empty_list():
    """None where the legal moves are empty, though a capture stands on the board: the
    move rule has ended the game; an empty list where quiet moves are left."""
    pos = GAME.parse_position("4k3/8/8/4e3/4M3/8/8/4K3 w - w 100 80")
    assert GAME.rule_outcome(pos) is not None
    assert GAME.legal_captures(pos) is None and GAME.legal_moves(pos) == []
    pos.halfmove = 0
    assert [GAME.move_text(pos, m) for m in GAME.legal_captures(pos)] == ["Me4xe5"]
    assert GAME.legal_captures(GAME.start()) == []


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_games_captures_are_its_legal_moves_that_capture(name):
    game = get_game(name)
    some = 0
    for pos in positions(game, 12, 3):
        assert game.legal_captures(pos) == filtered(game, pos), game.position_text(pos)
        some += bool(game.legal_captures(pos))
    assert some > 0


def _quiescence(search: Search, pos) -> tuple[int, int]:
    search.root = search.game.ply_mover(pos)
    search.nodes = 0
    return search._quiesce(pos, -INF, INF, 0, QUIESCENCE_PLIES), search.nodes


def test_luotuoqis_quiescence_values_are_those_of_the_full_listing():
    listing = Listing()
    for pos in positions(GAME, 40, 5):
        for cube in (False, True):
            if cube:
                pos.tokens["cube"] = pos.turn
                pos.state.pop("cube_second", None)
                pos.keys[-1] = GAME.position_key(pos)
            assert _quiescence(Search(GAME), pos) == _quiescence(Search(listing), pos), \
                GAME.position_text(pos)


@pytest.mark.parametrize("name, text", [
    ("luotuoqi", "k7/2K5/2M5/8/8/8/8/8 b - w 0 40"),
    ("chess", "k7/2Q5/1K6/8/8/8/8/8 b - - 0 1"),
])
def test_a_stalemate_in_quiescence_is_a_draw_not_a_stand_pat(name, text):
    """No capture and no move, not in check: quiescence scores the stalemate (a draw), as
    it did when an empty listing said so, not the material the side is down."""
    game = get_game(name)
    pos = game.parse_position(text)
    search = Search(game)
    assert game.legal_captures(pos) is None and not game.in_check(pos)
    value, _ = _quiescence(search, pos)
    assert value == 0
    assert search._static(pos) < -300  # a Mule, a Queen down


class Counted(Luotuoqi):
    """Lùotuoqí counting its full listings."""

    listings = 0

    def generate_moves(self, pos):
        Counted.listings += 1
        return super().generate_moves(pos)


class CountedListing(Counted):
    legal_captures = Game.legal_captures


def test_luotuoqis_depth_three_is_the_same_search_with_fewer_full_listings():
    """The depth-floor check's position 6 (it missed its floor): the same move, score and
    nodes; quiescence lists the whole set of moves only to answer a check, so the search
    makes under half the full listings."""
    pos = positions(GAME, 7, 7)[6]
    found, listings = [], []
    for game in (Counted(), CountedListing()):
        Counted.listings = 0
        engine = Engine(game, 6, seed=6)
        limits = replace(engine.limits(), depth=3, nodes=None, movetime=None)
        result = engine.search.best_move(pos.copy(), limits)
        found.append((result.move, result.score, result.depth, result.nodes))
        listings.append(Counted.listings)
    assert found[0] == found[1]
    assert found[0][2] == 3
    assert listings[0] < 0.5 * listings[1], listings
