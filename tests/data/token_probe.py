"""A module that mentions the Cube in its docstring (allowed) — the token test's probe."""

# a comment may name the Cube too


def pads(layout, holder):
    cube_pad = layout.pad("token", holder, "cube")  # two findings: a name and a string
    return cube_pad
