"""``benchmarks/build_aarch64.py`` composes the aarch64 build's commands from an arm64
root's own ``sysconfig`` (the flags ``setup.py`` would get on a Pi), and the QEMU
options of the benchmarks refuse what they cannot do in one line.  No emulator, cross
compiler or arm64 root is needed: the root here is a fake one holding only a
``_sysconfigdata`` file."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks import bench_compiled, build_aarch64

VARIABLES = {"VERSION": "3.11", "CC": "aarch64-linux-gnu-gcc", "CCSHARED": "-fPIC",
             "CFLAGS": "-Wsign-compare -DNDEBUG -g -fwrapv -O2 -Wall -g ",
             "LDSHARED": "aarch64-linux-gnu-gcc -shared -Wl,-O1 -Wl,-Bsymbolic-functions ",
             "EXT_SUFFIX": ".cpython-311-aarch64-linux-gnu.so"}


def fake_root(tmp_path: Path) -> Path:
    folder = tmp_path / "usr" / "lib" / "python3.11"
    folder.mkdir(parents=True)
    (folder / "_sysconfigdata__linux_aarch64-linux-gnu.py").write_text(
        f"# system configuration\nbuild_time_vars = {VARIABLES!r}\n")
    return tmp_path


def test_the_roots_build_variables_are_read_without_running_its_python(tmp_path) -> None:
    assert build_aarch64.root_sysconfig(fake_root(tmp_path)) == VARIABLES
    with pytest.raises(SystemExit, match="no arm64 CPython"):
        build_aarch64.root_sysconfig(tmp_path / "empty")


def test_the_cross_commands_are_setuptools_composition_with_the_roots_headers() -> None:
    root, c_file = Path("/arm64"), Path("/b/controller/geometry.c")
    so_file = c_file.with_name("geometry" + VARIABLES["EXT_SUFFIX"])
    compile_cmd, link_cmd = build_aarch64.commands(VARIABLES, root, c_file, so_file,
                                                   [build_aarch64.CROSS_CC])
    assert compile_cmd[:9] == ["aarch64-linux-gnu-gcc", "-Wsign-compare", "-DNDEBUG", "-g",
                               "-fwrapv", "-O2", "-Wall", "-g", "-fPIC"]
    assert "-I/arm64/usr/include/python3.11" in compile_cmd
    assert compile_cmd[-1] == "-g0"  # the extension's own flag, last as setuptools puts it
    assert link_cmd == ["aarch64-linux-gnu-gcc", "-shared", "-Wl,-O1",
                        "-Wl,-Bsymbolic-functions", str(so_file.with_suffix(".o")), "-o",
                        str(so_file)]


def test_the_emulated_compiler_writes_assembly_the_cross_tools_finish() -> None:
    root, c_file = Path("/arm64"), Path("/b/x.c")
    emulated = [build_aarch64.QEMU, "-L", "/arm64", "/arm64/usr/bin/aarch64-linux-gnu-gcc"]
    steps = build_aarch64.commands(VARIABLES, root, c_file, Path("/b/x.so"), emulated)
    assert [step[0] for step in steps] == [build_aarch64.QEMU, build_aarch64.CROSS_CC,
                                           build_aarch64.CROSS_CC]
    assert "-S" in steps[0] and steps[1][-3:] == ["/b/x.s", "-o", "/b/x.o"]


def test_an_unknown_module_is_one_line(capsys) -> None:
    with pytest.raises(SystemExit):
        build_aarch64.main(["/nowhere", "--emulated-gcc", "controller.service"])
    assert "names no compiled module" in capsys.readouterr().err


def test_an_interpreter_without_a_build_for_it_is_refused(capsys) -> None:
    pytest.importorskip("Cython")
    assert bench_compiled.main(["--interpreter", "qemu-aarch64-static python3"]) == 2
    assert "needs a --keep directory" in capsys.readouterr().err
