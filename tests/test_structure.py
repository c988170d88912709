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
#: who may import the page (the club server's own package will join them)
WEB_USERS = ("web", "process.py")


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
