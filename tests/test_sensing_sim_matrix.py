"""The emulated switch matrix with wiring faults: every line's level, found once for all
lines per pin and switch state (``SwitchMatrix._fault_levels``), is what a walk from that
line alone along the closed switches finds (the literal rule, written out here)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.sensing.sim.electrical import MatrixFaults, PinBank, SwitchMatrix


def walked_level(matrix: SwitchMatrix, line: int) -> bool | None:
    """The level of node ``line`` (rows first, then columns) by a walk from it: its own
    drive, else low if current flows from it to a line driven low through undriven
    lines, else high if it flows to it from a line driven high."""
    faults, state, bank = matrix.faults, matrix._state, matrix.bank
    assert faults is not None
    nr, nc = len(matrix.rows), len(matrix.columns)

    def drive(node: int) -> bool | None:
        pins = ([matrix.rows[k] for k in faults.net(node, "row", nr)] if node < nr else
                [matrix.columns[k] for k in faults.net(node - nr, "column", nc)])
        levels = {bank.driven(p) for p in pins} - {None}
        return (False not in levels) if levels else None

    def steps(node: int, toward_low: bool) -> list[int]:
        if node < nr:
            return [nr + col for row in faults.net(node, "row", nr) for col in range(nc)
                    if state[row][col] and faults.conducts(row, col, matrix.diodes,
                                                           from_row=toward_low)]
        return [row for col in faults.net(node - nr, "column", nc) for row in range(nr)
                if state[row][col] and faults.conducts(row, col, matrix.diodes,
                                                       from_row=not toward_low)]

    own = drive(line)
    if own is not None:
        return own
    for toward_low, level in ((True, False), (False, True)):
        seen, todo = {line}, [line]
        while todo:
            for nxt in steps(todo.pop(), toward_low):
                if nxt in seen:
                    continue
                seen.add(nxt)
                d = drive(nxt)
                if d is level:
                    return level
                if d is None:
                    todo.append(nxt)
    return None


@st.composite
def faulty_matrices(draw):
    nr, nc = draw(st.integers(2, 5)), draw(st.integers(2, 5))
    closed = [[draw(st.booleans()) for _ in range(nc)] for _ in range(nr)]
    cells = st.tuples(st.integers(0, nr - 1), st.integers(0, nc - 1))
    pair_rows = st.tuples(st.integers(0, nr - 1), st.integers(0, nr - 1))
    pair_columns = st.tuples(st.integers(0, nc - 1), st.integers(0, nc - 1))
    faults = MatrixFaults(
        open_rows=draw(st.sets(st.integers(0, nr - 1), max_size=1)),
        open_columns=draw(st.sets(st.integers(0, nc - 1), max_size=1)),
        shorted_rows=draw(st.lists(pair_rows, max_size=2)),
        shorted_columns=draw(st.lists(pair_columns, max_size=2)),
        diodes=draw(st.dictionaries(cells, st.sampled_from(MatrixFaults.DIODE_FAULTS),
                                    max_size=4)))
    diodes = draw(st.sampled_from(["row", "column", None]))
    # each pin: an input (pulled up, down or floating) or an output driving a level
    modes = st.sampled_from(["up", "down", "float", "high", "low"])
    pin_modes = [draw(modes) for _ in range(nr + nc)]
    return nr, nc, closed, faults, diodes, pin_modes


@settings(max_examples=300, deadline=None)
@given(faulty_matrices())
def test_every_lines_level_with_faults_is_what_a_walk_from_it_finds(case):
    nr, nc, closed, faults, diodes, pin_modes = case
    bank = PinBank(seed=1)
    rows, columns = [f"r{i}" for i in range(nr)], [f"c{i}" for i in range(nc)]
    matrix = SwitchMatrix(bank, rows, columns, lambda: closed, diodes, version=lambda: 0)
    matrix.inject(faults)
    for pin, mode in zip(rows + columns, pin_modes, strict=True):
        if mode in ("high", "low"):
            bank.set_output(pin, mode == "high")
        else:
            bank.set_input(pin, None if mode == "float" else mode)
    for line, pin in enumerate(matrix.rows + matrix.columns):
        assert matrix.level(pin) == walked_level(matrix, line), (pin, pin_modes)
    # a pin that changes is seen at once (the levels are kept per pin state)
    pin = rows[0]
    bank.set_output(pin, bank.driven(pin) is not True)
    for line, p in enumerate(matrix.rows + matrix.columns):
        assert matrix.level(p) == walked_level(matrix, line), (p, "after a change")
