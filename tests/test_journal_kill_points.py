"""``fairyboard run`` killed at every fsync of a scripted game: no move the page showed as
done is ever lost.

The game (played through the page's API on the simulated board, as in
test_service_restart.py): two moves, the Cube handed over after Black's move (one amend
record), another move, a takeback, a resignation from the page, a new game from the page
and a move in it.  ``FAIRYBOARD_KILL_AT_FSYNC=N`` makes the service end itself as abruptly
as SIGKILL (``os._exit``) at its N-th journal fsync — after the write, before the fsync
returns — so every durable point is hit exactly, without timing.  After each kill the
journal is resumed by a new service (in process) and compared with what the page showed:
it must be the last state shown or that state with the operation in flight completed.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from tests.support.killpoints import FSYNCS, SCRIPT_STATES, _kill_and_resume


def test_a_kill_at_every_fsync_of_a_game_loses_no_shown_move(tmp_path):
    with ThreadPoolExecutor(max_workers=2) as pool:
        outcomes = list(pool.map(lambda n: (n, *_kill_and_resume(tmp_path / f"kill-{n}", n)),
                                 range(FSYNCS + 1)))
    states = [(0, (), None), *SCRIPT_STATES]
    for kill_at, shown, resumed, problems in outcomes:
        if kill_at == 0:  # never killed: the whole script ran
            assert shown[-1] == SCRIPT_STATES[-1] and resumed == SCRIPT_STATES[-1]
            continue
        step = 0  # where in the script the page got (states repeat: follow them in order)
        for seen in shown:
            if seen != states[step]:
                step = states.index(seen, step + 1)
        # what the page showed last, or that with the operation in flight completed
        assert resumed in states[step:step + 2], (kill_at, shown[-3:], resumed)
        if kill_at == 1:  # killed before the first start record: an empty file
            assert problems and "empty journal file" in problems[0], problems
    # every fsync point was hit: each run showed a different amount of the script
    assert len({o[1][-1] if o[1] else None for o in outcomes}) >= 8
