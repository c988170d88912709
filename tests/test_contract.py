"""The game contract: every game is a registry class whose hooks and data the rest of the
product calls plainly (no probing for hooks, no game names outside the rules)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.layout import PAD_ROLES
from controller.rules import GAME_CLASSES, GAMES, Game, PlayerView, game_class, get_game
from controller.rules.core import GameOption, OptionError, RulesError, Termination

CONTROLLER = Path(__file__).resolve().parent.parent / "controller"
PROBE = re.compile(r"\b(?:getattr|hasattr)\((?:self\.)?(?:_?game|svc\.game|session\.game)\b")


def _code_outside_rules() -> list[Path]:
    return [p for p in CONTROLLER.rglob("*.py") if "rules" not in p.relative_to(CONTROLLER).parts]


def test_no_game_hook_is_probed_outside_the_rules() -> None:
    found = [f"{p.name}:{n}" for p in _code_outside_rules()
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if PROBE.search(line)]
    assert found == []


def test_no_hidden_information_game_list_outside_the_rules() -> None:
    for p in _code_outside_rules():
        text = p.read_text(encoding="utf-8")
        assert "HIDDEN_INFORMATION_GAMES" not in text and "GAME_SHAPES" not in text, p.name
        assert "GAME_PADS" not in text and "white_array" not in text, p.name


def test_the_registry_is_a_list_of_classes() -> None:
    assert list(GAMES) == [cls.name for cls in GAME_CLASSES]
    assert len(set(GAMES)) == len(GAME_CLASSES)
    for cls in GAME_CLASSES:
        assert issubclass(cls, Game) and cls.name and cls.title
        assert game_class(cls.name) is cls
    with pytest.raises(RulesError, match="unknown game 'nope'"):
        game_class("nope")


@pytest.mark.parametrize("cls", GAME_CLASSES, ids=lambda c: c.name)
def test_class_data_is_well_formed(cls: type[Game]) -> None:
    for need in cls.pads:
        assert need.role in PAD_ROLES and need.role != "option"
    names = [o.name for o in cls.option_specs]
    assert len(names) == len(set(names))
    for spec in cls.option_specs:
        assert isinstance(spec, GameOption) and spec.help
        assert spec.check(spec.default) == spec.default  # the default is allowed
    assert cls.hidden_options <= set(names)
    # every declared option is accepted by the game with its default
    game = get_game(cls.name, **{o.name: o.default for o in cls.option_specs})
    assert game.name == cls.name


@pytest.mark.parametrize("cls", GAME_CLASSES, ids=lambda c: c.name)
def test_hidden_information_hooks(cls: type[Game]) -> None:
    game = get_game(cls.name)
    pos = game.start()
    view = game.player_view(pos, 0)
    if not cls.hidden_information:
        assert view is None
        assert game.board_moves(pos) == game.legal_moves(pos)
        move = game.legal_moves(pos)[0]
        assert game.player_move_text(pos, move) == game.move_text(pos, move)
        with pytest.raises(RulesError, match="no hidden information"):
            game.view_text(pos, 0)
        return
    assert view is not None
    for name in ("player", "turn", "own", "visible", "enemies", "hands", "in_check",
                 "result", "piece_at", "targets", "drop_targets", "moves", "move_text"):
        assert hasattr(view, name), name
    assert _is_player_view(view)
    assert set(game.legal_moves(pos)) <= set(game.board_moves(pos))
    assert game.view_text(pos, 0)


def _is_player_view(view: PlayerView) -> bool:
    return view.player in (0, 1) and all(c in view.visible for c, _ in view.own)


@pytest.mark.parametrize("name, options, words", [
    ("luotuoqi", {"stone_budget": "abc"}, "stone_budget must be a whole number 0..512 or off, "
                                          "got 'abc'"),
    ("luotuoqi", {"stone_budget": -5}, "stone_budget must be a whole number 0..512"),
    ("luotuoqi", {"stone_budget": True}, "stone_budget must be a whole number"),
    ("luotuoqi", {"stone_budget": "16"}, "got '16'"),
    ("kaleidochess", {"players": [3]}, r"players must be one of 2, 3, 4, got \[3\]"),
    ("kaleidochess", {"dice": "yes"}, "dice must be true or false"),
    ("laotzu", {"seed": {"a": 1}}, "seed must be a number or a word or off"),
    ("gnuqi", {"speed": 1}, "game 'gnuqi' has no option 'speed'"),
])
def test_bad_options_are_refused_in_one_line(name: str, options: dict, words: str) -> None:
    with pytest.raises(OptionError, match=words) as exc:
        get_game(name, **options)
    assert "\n" not in str(exc.value)
    with pytest.raises(OptionError, match=words):
        game_class(name).validate_options(options)


def test_validate_options_from_json() -> None:
    cls = game_class("luotuoqi")
    assert cls.validate_options({"stone_budget": 16}) == {"stone_budget": 16}
    assert cls.validate_options({"stone-budget": None}) == {"stone_budget": None}
    assert cls.validate_options({}) == {}
    with pytest.raises(OptionError, match="options must be a table"):
        cls.validate_options([1, 2])  # type: ignore[arg-type]


# -- game end: one template, per-game data --------------------------------------------


def test_every_game_ends_with_a_declared_reason() -> None:
    spellings = set(Termination)
    for cls in GAME_CLASSES:
        assert set(cls.reason_text) <= spellings
        assert set(cls.endings.values()) <= {Termination.VARIANT_WIN, Termination.VARIANT_LOSS,
                                             Termination.VARIANT_DRAW}
        spellings |= set(cls.reason_text.values()) | set(cls.endings)
    # mate, stalemate and the draw rules, through the shared template
    gnuqi = get_game("gnuqi")
    assert gnuqi.outcome(gnuqi.parse_position("4k4/9/9/9/9/9/9/9/4K4 w - - 0 1")).reason \
        == "bare kings"
    assert gnuqi.termination("bare kings") is Termination.VARIANT_DRAW
    lotus = get_game("lotus39")
    pos = lotus.parse_position("a4=K,i4=k,c2=R,c3=P w - 99 60")
    pos.push(lotus.parse_move(pos, "Ka3"))
    assert lotus.outcome(pos).reason in spellings


def test_the_move_rule_and_repetition_are_data() -> None:
    from controller.rules.gnuqi import GnuQi

    class NoMoveRule(GnuQi):
        move_rule = None
        repetition_count = 2

    text = "4k4/9/9/9/9/9/9/R8/4K4 w - - 100 80"
    assert get_game("gnuqi").outcome(get_game("gnuqi").parse_position(text)).reason == (
        "fifty-move")
    game = NoMoveRule()
    pos = game.parse_position(text)
    assert game.outcome(pos) is None
    for text in ("Ra3", "Ke8", "Ra2", "Ke9"):
        pos.push(game.parse_move(pos, text))
    assert game.outcome(pos).reason == "repetition"  # the second occurrence, by data


def test_luotuoqi_keeps_its_recorded_words() -> None:
    game = get_game("luotuoqi")
    assert game.ended((), Termination.FIFTY_MOVE).reason == "fifty-move rule"
    assert game.ended((), Termination.CHECKMATE).reason == "checkmate"


def test_lao_tzu_player_knowledge_is_apart_from_the_referee() -> None:
    """What a player may know (``laotzu_view``) is built from the shared board tables and
    the position handed to ``view``; it never imports the referee's module."""
    view_src = (CONTROLLER / "rules" / "laotzu_view.py").read_text(encoding="utf-8")
    assert "controller.rules.laotzu import" not in view_src
    assert "from controller.rules.laotzu_board import" in view_src
    from controller.rules import laotzu, laotzu_view

    assert laotzu.view is laotzu_view.view and laotzu.PlayerView is laotzu_view.PlayerView


def _game_names_in_code(path: Path, names: set[str]) -> list[str]:
    """Game names in a file's code: names and string literals that are not docstrings
    (comments and docstrings may mention games; code may not decide by them)."""
    import io
    import tokenize

    pattern = re.compile(r"(?<![\w-])(" + "|".join(sorted(map(re.escape, names), key=len,
                                                              reverse=True)) + r")(?![\w-])")
    found, previous = [], None
    text = path.read_text(encoding="utf-8")
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.STRING and previous not in (
                None, tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE, tokenize.NL):
            if pattern.search(tok.string):
                found.append(f"{path.name}:{tok.start[0]}: {tok.string[:60]}")
        elif tok.type == tokenize.NAME and tok.string in names:
            found.append(f"{path.name}:{tok.start[0]}: {tok.string}")
        if tok.type not in (tokenize.COMMENT, tokenize.NL):
            previous = tok.type
    return found


def test_no_game_name_in_code_outside_the_rules() -> None:
    """Layouts name the games they play as data; everything else asks the game."""
    names = set(GAMES) | {n.replace("-", "_") for n in GAMES}
    found = [hit for p in _code_outside_rules() for hit in _game_names_in_code(p, names)]
    assert found == []
    # the check sees a name in code (and not in a docstring)
    probe = CONTROLLER.parent / "tests" / "data" / "contract_probe.py"
    assert _game_names_in_code(probe, names) == ["contract_probe.py:5: \"gnuqi\""]


def _token_names_in_code(path: Path, names: set[str]) -> list[str]:
    """A game's token names in a file's code, in any case: identifiers with the name as
    one of their ``_`` parts (``CUBE``, ``cube_pads``) and string literals that are not
    docstrings (comments and docstrings may mention a token)."""
    import io
    import tokenize

    pattern = re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, sorted(names))) + r")(?![\w])",
                         re.IGNORECASE)
    found, previous = [], None
    text = path.read_text(encoding="utf-8")
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.STRING and previous not in (
                None, tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE, tokenize.NL):
            if pattern.search(tok.string):
                found.append(f"{path.name}:{tok.start[0]}: {tok.string[:60]}")
        elif tok.type == tokenize.NAME and set(tok.string.lower().split("_")) & names:
            found.append(f"{path.name}:{tok.start[0]}: {tok.string}")
        if tok.type not in (tokenize.COMMENT, tokenize.NL):
            previous = tok.type
    return found


def test_no_token_name_in_code_outside_the_rules() -> None:
    """A game's off-board tokens are its declaration (``Game.tokens``) and the layout's
    ``token`` pads: no generic module spells one (issue 32)."""
    names = {w.lower() for cls in GAME_CLASSES for t in cls.tokens for w in (t.name, t.title)}
    assert "cube" in names  # Lùotuoqí declares its Cube: the check has something to find
    found = [hit for p in _code_outside_rules() for hit in _token_names_in_code(p, names)]
    assert found == []
    probe = CONTROLLER.parent / "tests" / "data" / "token_probe.py"
    assert _token_names_in_code(probe, names) == [
        "token_probe.py:7: cube_pad", "token_probe.py:7: \"cube\"",
        "token_probe.py:8: cube_pad"]


@pytest.mark.parametrize("cls", GAME_CLASSES, ids=lambda c: c.name)
def test_tokens_are_declared_with_their_pads(cls: type[Game]) -> None:
    """Every token a game declares has a token pad need per holder, and its positions
    name only declared tokens (a die roll's ``die:N`` is no token held)."""
    from controller.rules.core import Token

    for token in cls.tokens:
        assert isinstance(token, Token) and token.name.isidentifier() and token.title
        assert set(token.pads()) <= set(cls.pads)
    declared = {t.name for t in cls.tokens}
    assert {n.piece for n in cls.pads if n.role == "token"} <= declared
    game = get_game(cls.name)
    assert set(game.start().tokens) <= declared


# -- legal_moves is empty exactly where the game has ended ------------------------------


def _variants(cls: type[Game]) -> list[dict]:
    """The game's default and each other choice of an option with choices (3–4 players)."""
    found: list[dict] = [{}]
    for spec in cls.option_specs:
        found += [{spec.name: c} for c in spec.choices if c != spec.default]
    return found


@pytest.mark.parametrize("cls", GAME_CLASSES, ids=lambda c: c.name)
def test_legal_moves_are_empty_exactly_where_the_game_has_ended(cls: type[Game]) -> None:
    """The contract the engine, the board and the command line rely on: on a position
    reached by play, ``legal_moves`` is empty exactly where ``outcome`` is set — whatever
    ended the game (no move, the game's own ending, the move rule, repetition)."""
    import random

    ends: set[str] = set()
    for options in _variants(cls):
        game = get_game(cls.name, **options)
        for seed in range(3):
            rng = random.Random(seed)
            pos = game.start()
            for ply in range(160):
                moves, outcome = game.legal_moves(pos), game.outcome(pos)
                assert (not moves) == (outcome is not None), (options, seed, ply, outcome)
                if outcome is not None:
                    ends.add(outcome.reason)
                    assert game.termination(outcome.reason) is not None
                    break
                if game.move_rule is not None and ply % 20 == 5:  # the move rule, by data
                    kept, pos.halfmove = pos.halfmove, game.move_rule
                    assert game.legal_moves(pos) == [] and game.outcome(pos) is not None
                    pos.halfmove = kept
                pos.push(rng.choice(moves))
    if cls.repetition_count is not None:  # two pieces stepping back and forth
        game = get_game(cls.name)
        pos = game.start()
        line = _shuffle(game, pos)
        assert line, "no two pieces can step back and forth from the start"
        for ply in range(4 * game.repetition_count):
            if game.outcome(pos) is not None:
                break
            pos.push(line[ply % 4])
        outcome = game.outcome(pos)
        assert outcome is not None and game.legal_moves(pos) == []
        assert game.termination(outcome.reason) is Termination.REPETITION


def _back(game: Game, pos, move) -> object:
    """The legal move taking ``move``'s piece back where it came from, if any."""
    return next((m for m in game.legal_moves(pos) if (m.origin, m.target) ==
                 (move.target, move.origin) and not m.captures and m.kind == move.kind), None)


def _shuffle(game: Game, pos) -> list:
    """Four plies from ``pos`` that bring it back: each side steps a piece out and back."""
    quiet = [m for m in game.legal_moves(pos) if m.kind == "move" and not m.captures]
    for first in quiet:
        pos.push(first)
        try:
            for reply in [m for m in game.legal_moves(pos)
                          if m.kind == "move" and not m.captures]:
                pos.push(reply)
                back = _back(game, pos, first)
                if back is not None:
                    pos.push(back)
                    back_reply = _back(game, pos, reply)
                    pos.pop()
                    if back_reply is not None:
                        pos.pop()
                        return [first, reply, back, back_reply]
                pos.pop()
        finally:
            pos.pop()
    return []
