"""The players' guides' diagrams: drawn by the product, up to date, and bad input is one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.cli import main
from controller.diagram import DiagramError, diagram_svg, draw_figures, load_figures
from controller.rules import GAME_CLASSES, get_game

RULES_DOCS = Path(__file__).resolve().parents[1] / "docs" / "rules"


def test_committed_figures_are_what_the_product_draws(tmp_path: Path) -> None:
    written = draw_figures(RULES_DOCS / "figures.toml", tmp_path)
    assert len(written) == len(load_figures(RULES_DOCS / "figures.toml")) >= 10
    for path in written:
        committed = RULES_DOCS / path.relative_to(tmp_path)
        assert committed.read_text(encoding="utf-8") == path.read_text(encoding="utf-8"), (
            f"{committed.name} is stale: run fairyboard diagram --batch docs/rules/figures.toml")


def test_every_guide_picture_exists_and_every_game_has_a_guide() -> None:
    for guide in RULES_DOCS.glob("*.md"):
        for target in re.findall(r"!\[[^]]*\]\(([^)]+)\)", guide.read_text(encoding="utf-8")):
            assert (RULES_DOCS / target).exists(), f"{guide.name}: {target}"
    for cls in GAME_CLASSES:  # every registered game (a shared guide by its name)
        assert (RULES_DOCS / f"{cls.guide or cls.name}.md").exists(), cls.name


def test_marked_targets_are_the_rules_moves() -> None:
    game = get_game("luotuoqi")
    pos = game.parse_position("k7/8/8/3m1m2/4E3/8/1D6/K7 w - b 0 1")
    svg = diagram_svg(game, pos, "b2")
    # the Bypasser on b2 has eight moves (c3 d4 e5 f6 g7 h8 a3 c1), none lands on a piece
    assert svg.count('fill="#1f6fd1"') == 8 and 'stroke="#d1341f"' not in svg


def test_bad_figures_and_cells_are_one_line(tmp_path: Path, capsys) -> None:
    game = get_game("gnuqi")
    with pytest.raises(DiagramError, match="no piece on e5"):
        diagram_svg(game, game.start(), "e5")
    assert main(["diagram", "--game", "gnuqi", "--piece", "z9"]) == 2
    assert "no cell 'z9'" in capsys.readouterr().err
    bad = tmp_path / "f.toml"
    bad.write_text('[[figure]]\ngame = "gnuqi"\n', encoding="utf-8")
    assert main(["diagram", "--batch", str(bad)]) == 2
    assert "figure 1: missing 'out'" in capsys.readouterr().err
