"""The product's rooms stay rooms (issue 32): the page is reached only by the web package
and the process, and no module or class grows past its size without saying why."""

from __future__ import annotations

import ast
from pathlib import Path

CONTROLLER = Path(__file__).resolve().parent.parent / "controller"
#: a module this long, or a class with this many fields, says why in its docstring
MAX_LINES = 900
MAX_FIELDS = 25
#: the words that start that reason
LONG_MODULE = "Long module:"
MANY_FIELDS = "Many fields:"
#: who may import the page: the page itself, the process, and the club server (its HTTP
#: protocol and the board drawing)
WEB_USERS = ("web", "process.py", "server")


def _modules() -> list[Path]:
    return sorted(CONTROLLER.rglob("*.py"))


def _imports(tree: ast.AST) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def test_only_the_web_package_and_the_process_import_the_page() -> None:
    found = []
    for path in _modules():
        rel = path.relative_to(CONTROLLER)
        if rel.parts[0] in WEB_USERS:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if any(n == "controller.web" or n.startswith("controller.web.")
               for n in _imports(tree)):
            found.append(str(rel))
    assert found == []


def test_the_check_sees_an_import_of_the_page() -> None:
    tree = ast.parse("def f():\n    from controller.web.state import build_state\n")
    assert "controller.web.state" in _imports(tree)
    tree = ast.parse("from controller import web\n")
    assert "controller.web" in _imports(tree)


def test_no_module_is_long_without_saying_why() -> None:
    found = []
    for path in _modules():
        text = path.read_text(encoding="utf-8")
        if text.count("\n") <= MAX_LINES:
            continue
        doc = ast.get_docstring(ast.parse(text)) or ""
        if LONG_MODULE not in doc:
            found.append(f"{path.relative_to(CONTROLLER)}: {text.count(chr(10))} lines")
    assert found == []


def fields_of(cls: ast.ClassDef) -> set[str]:
    """The fields of a class: annotated class attributes (dataclasses) and every
    ``self.name`` its methods assign."""
    names = {n.target.id for n in cls.body
             if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)}
    for fn in cls.body:
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                targets = [node.target]
            for t in targets:
                for el in (t.elts if isinstance(t, ast.Tuple) else [t]):
                    if (isinstance(el, ast.Attribute) and isinstance(el.value, ast.Name)
                            and el.value.id == "self"):
                        names.add(el.attr)
    return names


def test_no_class_has_many_fields_without_saying_why() -> None:
    found = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            n = len(fields_of(node))
            if n > MAX_FIELDS and MANY_FIELDS not in (ast.get_docstring(node) or ""):
                found.append(f"{path.relative_to(CONTROLLER)}:{node.name}: {n} fields")
    assert found == []


def test_the_field_count_sees_assignments_and_annotations() -> None:
    tree = ast.parse("class C:\n    a: int\n    def f(self):\n        self.b = 1\n"
                     "        self.c, self.d = 1, 2\n        self.e: int = 3\n"
                     "        self.b += 1\n")
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert fields_of(cls) == {"a", "b", "c", "d", "e"}


def test_the_board_service_only_wires() -> None:
    """The carve's own measure: the service is the loop and the wiring (issue 32)."""
    text = (CONTROLLER / "service.py").read_text(encoding="utf-8")
    tree = ast.parse(text)
    (cls,) = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "BoardService"]
    assert len(fields_of(cls)) <= MAX_FIELDS


def test_a_page_does_not_keep_its_service_alive(tmp_path) -> None:
    import gc
    import weakref

    from controller.web.page import page_state
    from tests.support.service import make_service

    svc = make_service(tmp_path)
    assert page_state(svc)["game"]["name"] == svc.game.name
    svc.close()
    gone = weakref.ref(svc)
    del svc
    gc.collect()
    assert gone() is None


# -- no import circle through the configuration and the sensing back ends ------------------

#: modules that must lie on no import circle (issue 32: config ↔ backends ↔ simulator;
#: the sensing kinds once reached back to the layout and the schematic; the schematic and the
#: bill of materials once imported each other for the rails' figures, now in parts.py)
ACYCLIC = ("controller.config", "controller.sensing.backends", "controller.sensing.settings",
           "controller.sensing.circuits", "controller.sensing.sim.rig",
           "controller.sensing.kinds", "controller.layout", "controller.boardprint",
           "controller.schematic", "controller.parts")


def _module_name(path: Path) -> str:
    rel = path.relative_to(CONTROLLER.parent).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


def _runtime_imports(tree: ast.AST, known: set[str]) -> set[str]:
    """Every controller module a module imports when run — at the top or inside a function
    (a lazy import still closes a circle), not under ``if TYPE_CHECKING:``."""
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for b in node.body for n in ast.walk(b))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        found.update(n for n in names if n in known)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in _modules()}
    known = set(modules)
    return {name: _runtime_imports(ast.parse(path.read_text(encoding="utf-8")), known)
            for name, path in modules.items()}


def circle_through(graph: dict[str, set[str]], start: str) -> list[str]:
    """An import path from ``start`` back to itself, or ``[]``."""
    seen: set[str] = set()
    stack = [(start, [start])]
    while stack:
        name, path = stack.pop()
        for nxt in sorted(graph.get(name, ())):
            if nxt == start:
                return [*path, start]
            if nxt not in seen:
                seen.add(nxt)
                stack.append((nxt, [*path, nxt]))
    return []


def test_no_import_circle_through_the_configuration_and_the_back_ends() -> None:
    graph = import_graph()
    assert all(m in graph for m in ACYCLIC)
    assert {m: circle_through(graph, m) for m in ACYCLIC} == {m: [] for m in ACYCLIC}


def test_the_circle_check_sees_a_lazy_import() -> None:
    code = ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from controller.b import X\n"
            "def f():\n    from controller.c import Y\n")
    assert _runtime_imports(ast.parse(code), {"controller.b", "controller.c"}) == {
        "controller.c"}
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circle_through(graph, "a") == ["a", "b", "c", "a"]
    assert circle_through(graph, "d") == []


# -- the sensing kinds' names in one home -------------------------------------------------


def sensing_name_decisions(tree: ast.AST) -> list[int]:
    """Lines that compare a sensing (``layout.sensing``, ``sensing``) with a text: code
    deciding by a sensing kind's name instead of asking its ``SensingKind``."""
    def is_sensing(node: ast.AST) -> bool:
        return (isinstance(node, ast.Name) and node.id == "sensing") or (
            isinstance(node, ast.Attribute) and node.attr == "sensing")

    def is_text(node: ast.AST) -> bool:
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(is_text(e) for e in node.elts)
        return isinstance(node, ast.Constant) and isinstance(node.value, str)

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(map(is_sensing, sides)) and any(map(is_text, sides)):
                found.append(node.lineno)
    return found


def test_only_the_sensing_kinds_decide_by_a_kinds_name() -> None:
    home = CONTROLLER / "sensing" / "kinds.py"
    found = [f"{p.relative_to(CONTROLLER)}:{n}" for p in _modules() if p != home
             for n in sensing_name_decisions(ast.parse(p.read_text(encoding="utf-8")))]
    assert found == []
    tree = ast.parse("if layout.sensing == 'matrix':\n    pass\nok = sensing in ('a', 'b')\n"
                     "fine = kind.switches\n")
    assert sensing_name_decisions(tree) == [1, 3]


def test_nothing_reaches_into_the_board_machines_private_state() -> None:
    """The service once read ``getattr(self.board, "_choice", None)`` beside a public
    ``Board.choice`` (issue 32): the rooms use the board's accessors."""
    import re

    private = re.compile(r"\.board\._[a-z]|getattr\((?:self\.|svc\.)?board,\s*[\"']_")
    found = [f"{p.relative_to(CONTROLLER)}:{n}" for p in _modules()
             if p.relative_to(CONTROLLER).parts[0] != "board"
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if private.search(line)]
    assert found == []
    assert private.search('getattr(self.board, "_choice", None)')
    assert private.search("svc.board._attempt")
