"""The files-longest-first order xdist hands test files out in (tests/support/filetimes.py):
read from a ``--durations=0`` report, written to and read back from ``file-times.txt``."""

from __future__ import annotations

from tests.support.filetimes import TIMES, file_seconds, load, longest_first, render

REPORT = """\
============================== slowest durations ===============================
12.50s call     tests/test_slow.py::test_a[de]
2.00s setup    tests/test_slow.py::test_a[de]
0.50s teardown tests/test_slow.py::test_b
3.25s call     tests/test_middle.py::test_c[with spaces :: and colons]
0.01s call     tests/test_fast.py::test_d
1 failed, 4 passed in 20.00s
"""


def test_a_report_gives_each_files_setup_call_and_teardown_summed():
    assert file_seconds(REPORT) == {"tests/test_slow.py": 15.0,
                                    "tests/test_middle.py": 3.25,
                                    "tests/test_fast.py": 0.01}


def test_the_times_file_reads_back_what_was_written(tmp_path):
    times = tmp_path / "file-times.txt"
    times.write_text(render(file_seconds(REPORT)))
    assert load(times) == {"tests/test_slow.py": 15.0, "tests/test_middle.py": 3.2,
                           "tests/test_fast.py": 0.0}
    assert load(tmp_path / "none.txt") == {}


def test_files_go_longest_first_keeping_their_tests_order_and_unknown_files_lead():
    nodeids = ["tests/test_fast.py::test_d", "tests/test_slow.py::test_a",
               "tests/test_slow.py::test_b", "tests/test_new.py::test_e",
               "tests/test_middle.py::test_c", "tests/test_slow.py::test_f"]
    seconds = {"tests/test_slow.py": 15.0, "tests/test_middle.py": 3.25,
               "tests/test_fast.py": 0.01}
    assert [nodeids[i] for i in longest_first(nodeids, seconds)] == [
        "tests/test_new.py::test_e", "tests/test_slow.py::test_a",
        "tests/test_slow.py::test_b", "tests/test_slow.py::test_f",
        "tests/test_middle.py::test_c", "tests/test_fast.py::test_d"]


def test_the_checked_in_times_are_read():
    times = load(TIMES)
    assert len(times) > 100
    assert all(name.startswith("tests/") and name.endswith(".py") for name in times)
