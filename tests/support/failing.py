"""Workers that fail, for the tests of failure containment: imported by name in the
worker process (spawn), so each fails there as a broken install or engine would."""

from __future__ import annotations


def refuse_to_start(*args, **kwargs) -> None:
    """A worker process that cannot start (its pool breaks: BrokenProcessPool)."""
    raise FileNotFoundError("controller/engine/values.toml: No such file or directory")


def search_raises(*args, **kwargs):
    """A search (or the coach's advice) that raises, as with a missing values file."""
    raise FileNotFoundError("controller/engine/values.toml: No such file or directory")


def view_search_raises(*args, **kwargs):
    """A search from a player's view whose error names what the other player may not see."""
    raise ValueError("the computer's King stands on e8 (SECRET)")
