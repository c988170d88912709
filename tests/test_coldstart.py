"""Cold start: a command imports only the game it needs (the registry is names -> module
paths, imported on first use), none of the standard library's dear modules a rules
command can do without, and builds of a game's heavy per-cell tables only the cells it
looks at.  The CPU time against ``import chess`` is measured by
``benchmarks/bench_coldstart.py`` (``docs/performance.md``), never asserted here.

Also here: the lazily built tables are the tables built eagerly before (cell by cell),
and the shape cache that spares a command the TOML parser is exact and survives damage."""

from __future__ import annotations

import ast
import logging
import marshal
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from controller import geometry
from controller.rules import GAME_PATHS, game_class
from controller.rules.core import LazyTable, Move

ROOT = Path(__file__).resolve().parent.parent
SHAPES = ("square8", "square9", "kaleido89", "lotus39")
#: the product's games (a test may register more in its process)
GAMES = ("luotuoqi", "laotzu", "gnuqi", "kaleidochess", "lotus39", "lotus39-modern", "chess")

#: the tables each game builds a cell at a time: where they live (``module`` globals or
#: the game's ``tables``) and their names; a moves command must leave most cells unbuilt
LAZY: dict[str, tuple[str, tuple[str, ...]]] = {
    "kaleidochess": ("module", ("_PASSED", "FLYER_DESTINATIONS", "WALKER_PATHS",
                                "SLIDE_PATHS", "_ATTACKS", "_AWAY_FROM_CASTLES")),
    "gnuqi": ("tables", ("leaps", "slides", "pawns", "rev_leaps", "rev_rays")),
    "lotus39": ("tables", ("lotus_tries", "lotus_near", "ride_attackers", "step_attackers")),
    "lotus39-modern": ("tables", ("lotus_tries", "lotus_near", "ride_attackers",
                                  "step_attackers")),
}

PROBE = """
import sys
import controller.cli as cli
made = []
real_get_game = cli.get_game
cli.get_game = lambda *a, **k: made.append(real_get_game(*a, **k)) or made[-1]
cli.main(["moves", "--game", sys.argv[1]])
loaded = sorted(sys.modules)
from controller.rules.core import LazyTable

def tables(value, depth=3):
    if isinstance(value, LazyTable):
        return [(len(value), value.size)]
    if depth == 0:
        return []
    if isinstance(value, dict):
        value = list(value.values())
    if isinstance(value, (list, tuple)):
        return [t for v in value for t in tables(v, depth - 1)]
    return []

where, names = eval(sys.argv[2])
game = made[0]
home = vars(sys.modules[type(game).__module__]) if where == "module" else game.tables
get = home.get if where == "module" else lambda n: getattr(home, n)
print(repr({"modules": loaded, "lazy": {n: tables(get(n)) for n in names}}))
"""


def _modules_of(path: str) -> str:
    return path.partition(":")[0]


#: what no ``moves`` command needs: the page's server, the link, the board's machine,
#: the voice's catalogues, the engine's processes — and the standard library's modules
#: that cost a command's start more than its rules (dataclasses pulls in inspect, ast and
#: tokenize; tomllib its regular expressions; the shapes come from the cache)
NOT_NEEDED = {"httpx", "babel", "uvicorn", "starlette", "paho", "transitions", "chess",
              "concurrent", "multiprocessing", "asyncio", "dataclasses", "inspect", "ast",
              "tomllib", "json", "random", "logging", "hashlib"}


@pytest.fixture(scope="module")
def cache_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder holding every shape, as after a first command."""
    home = tmp_path_factory.mktemp("cache")
    subprocess.run([sys.executable, "-c", "from controller.geometry import load_shape; "
                    f"[load_shape(n) for n in {SHAPES!r}]"], cwd=ROOT, check=True,
                   env={"PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(home)})
    return home


def _probe(game: str, cache_home: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, game, repr(LAZY.get(game, ("module", ())))],
        capture_output=True, text=True, cwd=ROOT, check=True,
        env={"PYTHONPATH": str(ROOT), "XDG_CACHE_HOME": str(cache_home)}).stdout
    return ast.literal_eval(out.splitlines()[-1])


@pytest.mark.parametrize("game", GAMES)
def test_moves_imports_only_its_game_and_builds_few_cells(game: str, cache_home: Path) -> None:
    found = _probe(game, cache_home)
    everything = set(found["modules"])
    tops = {m.split(".")[0] for m in everything}
    assert not tops & NOT_NEEDED, sorted(tops & NOT_NEEDED)
    loaded = {m for m in everything if m.startswith("controller")}
    own = _modules_of(GAME_PATHS[game])
    assert own in loaded
    bases = {c.__module__ for c in game_class(game).__mro__}  # Lao Tzu is chess plus
    others = {_modules_of(p) for p in GAME_PATHS.values()} - {own} - bases
    assert not loaded & others, sorted(loaded & others)
    # nothing of the board, the engine, the web page, the service or sensing either
    assert not {m for m in loaded if m.split(".")[1:2] in (
        ["engine"], ["web"], ["board"], ["service"], ["speech"], ["link"], ["leds"],
        ["sensing"], ["layout"])}
    for name, tables in found["lazy"].items():
        assert tables, f"{game}: {name} is no longer built a cell at a time"
        for built, size in tables:
            # the cells its pieces stand on and the few its King's safety asks about
            assert built <= max(1, size // 4), f"{game}: {name} built {built} of {size}"


# --- the lazy tables are the eager ones -----------------------------------------------


def test_kaleidochess_path_tables_are_the_eager_ones() -> None:
    """Every field and kind, against the tables as they were built at import before."""
    from controller.rules import kaleidochess as k

    for kind, pt in k.PIECE_TYPES.items():
        for start in range(k.N_CELLS):
            passed: dict[int, set[int]] = {}
            for path in k.enumerate_paths(start, pt.steps, pt.flies, pt.ring_free):
                mask = 0
                for c in path[1:-1]:
                    mask |= 1 << c
                passed.setdefault(path[-1], set()).add(mask)
            targets = sorted(passed)
            if pt.flies:
                assert k.FLYER_DESTINATIONS[kind][start] == tuple(targets)
                slides = tuple((t, (k._or(passed[t]),)) for t in targets)
                attacks = {t: (0,) for t in targets}
            else:
                walker = tuple((t, k._minimal_masks(passed[t])) for t in targets)
                assert k.WALKER_PATHS[kind][start] == walker
                slides = tuple((t, tuple(sorted(passed[t]))) for t in targets)
                attacks = dict(walker)
            assert k.SLIDE_PATHS[kind][start] == slides
            assert k._ATTACKS[kind][start] == attacks
            assert k._AWAY_FROM_CASTLES[kind][start] == (start not in k.CASTLE_SET and not any(
                t in k.CASTLE_SET for t in targets))
    assert kind not in k.WALKER_PATHS or kind not in k.FLYER_DESTINATIONS


def test_gnuqi_tables_are_the_eager_ones() -> None:
    """The leap tables from the geometry's leap tables with the River test, and the
    reverse tables as the reverse of the leap and Pawn capture tables (how they were
    built before)."""
    from controller.rules import gnuqi as q

    tables = q._tables("square9")
    g, rank = tables.geometry, tables.rank
    for owner in (0, 1):
        reverse: list[dict[int, str]] = [{} for _ in g.cells]
        for kind, offsets in q.LEAPS.items():
            piece = q.PIECES[owner, kind]
            table = g.leap_table(offsets)
            for o in range(len(g.cells)):
                expected = tuple((t, Move("move", o, t, piece),
                                  Move("move", o, t, piece, captures=(t,)))
                                 for t in table[o] if q.river_allows(kind, owner, rank[o], rank[t]))
                assert tables.leaps[owner][kind][o] == expected
                for t, _, _ in expected:
                    reverse[t][o] = reverse[t].get(o, "") + kind
        for o in range(len(g.cells)):
            for t, _ in tables.pawns[owner][o][1]:
                reverse[t][o] = reverse[t].get(o, "") + "P"
        for t in range(len(g.cells)):
            assert tables.rev_leaps[owner][t] == tuple(sorted(reverse[t].items()))


def test_lotus_attack_tables_are_the_eager_ones() -> None:
    """Who attacks a cell by a step or a pawn capture: the reverse of the step and pawn
    tables over the whole board (how it was built before); the lotus-near cells from the
    lotus paths."""
    from controller.geometry import load_shape
    from controller.rules import lotus39 as lotus

    t = lotus.lotus_tables(load_shape("lotus39"))
    n = len(t.lotus_adjacent)
    for owner in (0, 1):
        per_target: list[dict[int, set[str]]] = [{} for _ in range(n)]
        for kind, table in t.steps.items():
            for x in range(n):
                for target in table[x]:
                    per_target[target].setdefault(x, set()).add(kind)
        for x in range(n):
            for target in t.pawn_captures[owner][x]:
                per_target[target].setdefault(x, set()).update(lotus.PAWN_KINDS)
        for target in range(n):
            assert t.step_attackers[owner][target] == tuple(
                (x, frozenset(ks)) for x, ks in sorted(per_target[target].items()))
    for c in range(n):
        assert t.lotus_tries[c] == lotus._lotus_trie(t.lotus_adjacent, c)
        assert t.lotus_near[c] == frozenset(
            node.cell for top in t.lotus_tries[c] for node in (top, *top.onward))


def test_lao_tzu_slider_tables_are_slid_for_every_subset() -> None:
    """Every subset of every square's blocking cells, against sliding (how the tables were
    built before they were built a direction at a time)."""
    from controller.rules import laotzu_board as b

    for deltas, masks, tables in (
            (((1, 1), (-1, -1), (1, -1), (-1, 1)), b.DIAG_MASK, b.DIAG_ATT),
            (((1, 0), (-1, 0)), b.RANK_MASK, b.RANK_ATT),
            (((0, 1), (0, -1)), b.FILE_MASK, b.FILE_ATT)):
        for sq in range(64):
            mask = 0
            for df, dr in deltas:  # every cell of the ray but its far end can block
                f, r = (sq & 7) + df, (sq >> 3) + dr
                while 0 <= f + df < 8 and 0 <= r + dr < 8:
                    mask |= 1 << (r * 8 + f)
                    f, r = f + df, r + dr
            assert masks[sq] == mask
            assert len(tables[sq]) == 1 << mask.bit_count()
            for sub, attack in tables[sq].items():
                assert sub & ~mask == 0 and attack == b._slide(sq, sub, deltas)


def test_lazy_table_refuses_cells_off_the_board() -> None:
    table = LazyTable(3, lambda c: c * 10)
    assert table and not LazyTable(0, int)  # true as the tuple it stands for, built or not
    assert table[2] == 20 and len(table) == 1
    for bad in (3, -1, True, "a"):
        with pytest.raises(IndexError):
            table[bad]  # type: ignore[index]


# --- the shape cache ------------------------------------------------------------------


@pytest.fixture
def fresh_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def _shape_copy(tmp_path: Path, name: str = "square8") -> Path:
    copy = tmp_path / f"{name}.toml"
    copy.write_bytes((geometry.SHAPES_DIR / f"{name}.toml").read_bytes())
    return copy


def _no_parsing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object) -> dict:
        raise AssertionError("parsed although the cache holds this text")

    monkeypatch.setattr(geometry, "_parse_toml", refuse)


def test_a_shape_is_parsed_once_then_read_from_the_cache(
        fresh_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shape = _shape_copy(tmp_path, "lotus39")
    parsed = tomllib.loads(shape.read_text(encoding="utf-8"))
    assert geometry._shape_data(shape) == parsed
    cache = geometry.shape_cache_file(shape)
    assert cache is not None and cache.is_relative_to(fresh_cache) and cache.exists()
    _no_parsing(monkeypatch)
    assert geometry._shape_data(shape) == parsed


def test_a_changed_shape_file_is_parsed_again(
        fresh_cache: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    shape = _shape_copy(tmp_path)
    geometry._shape_data(shape)
    shape.write_text(shape.read_text(encoding="utf-8").replace('title = "', 'title = "New '),
                     encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        data = geometry._shape_data(shape)
    assert data["title"].startswith("New ") and not caplog.records  # stale is not damaged


@pytest.mark.parametrize("damage", ["garbage", "truncated", "flipped", "empty", "not-tuple"])
def test_a_damaged_cache_is_rebuilt_with_one_log_line(
        damage: str, fresh_cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    shape = _shape_copy(tmp_path)
    parsed = geometry._shape_data(shape)
    cache = geometry.shape_cache_file(shape)
    assert cache is not None
    good = cache.read_bytes()
    body = marshal.dumps(["not", "a", "tuple"])
    cache.write_bytes({
        "garbage": b"\x00\xff" * 40,
        "truncated": good[:len(good) // 2],
        "flipped": good[:-3] + bytes([good[-3] ^ 0x10]) + good[-2:],
        "empty": b"",
        "not-tuple": geometry.zlib.crc32(body).to_bytes(4, "big") + body,
    }[damage])
    with caplog.at_level(logging.WARNING, logger="controller.geometry"):
        assert geometry._shape_data(shape) == parsed
    assert [r.levelno for r in caplog.records] == [logging.WARNING]
    assert "damaged" in caplog.records[0].getMessage()
    _no_parsing(monkeypatch)  # rewritten: the next read takes it from the cache again
    assert geometry._shape_data(shape) == parsed


def test_a_cache_folder_that_cannot_be_written_only_goes_unused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    shape = _shape_copy(tmp_path)
    assert geometry._shape_data(shape) == tomllib.loads(shape.read_text(encoding="utf-8"))


def test_a_relative_cache_home_is_ignored(monkeypatch: pytest.MonkeyPatch,
                                          tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.setenv("HOME", str(tmp_path))
    cache = geometry.shape_cache_file(Path("square8.toml"))
    assert cache is not None and cache.is_relative_to(tmp_path / ".cache" / "fairyboard")


def test_a_shape_read_from_the_cache_compiles_as_parsed(fresh_cache: Path) -> None:
    """The same Geometry from the cache as from the parser, for every shape."""
    for name in SHAPES:
        path = geometry.SHAPES_DIR / f"{name}.toml"
        parsed = geometry.parse_shape(tomllib.loads(path.read_text(encoding="utf-8")), path)
        geometry._shape_data(path)  # writes the cache
        cached = geometry.load_shape_file(path)
        assert vars(cached) == vars(parsed)


def test_no_import_circle_between_configuration_back_ends_and_simulator() -> None:
    """The simulator learns its circuits from ``controller.sensing.circuits``, not from the
    back ends (which the configuration imports): importing it pulls in neither."""
    probe = ("import sys; import controller.sensing.sim.rig; "
             "print(sorted(m for m in ('controller.sensing.backends', 'controller.config') "
             "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         cwd=ROOT, env={"PYTHONPATH": str(ROOT)}, check=True).stdout
    assert out.strip() == "[]"


def test_the_geometry_is_immutable() -> None:
    g = geometry.load_shape("square8")
    with pytest.raises(AttributeError):
        g.name = "other"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del g.cells

