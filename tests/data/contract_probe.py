"""A module that mentions gnuqi in its docstring (allowed) — the contract test's probe."""


def pick(name: str) -> bool:
    return name == "gnuqi"  # the game's name in code: found
