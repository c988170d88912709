"""The compiled build for aarch64, made on an x86-64 machine: Cython's C from the same
``.py``/``.pxd`` files on this machine, compiled by the ``aarch64-linux-gnu-gcc`` cross
compiler against an arm64 root's Python headers with the flags that root's CPython gives
``setup.py`` (its ``sysconfig``: ``CC CFLAGS CCSHARED`` + ``-g0``, linked by ``LDSHARED``).
The result is what ``FAIRYBOARD_COMPILE=1 pip install .`` builds on a Raspberry Pi, for
``benchmarks/pi_emulated.sh --compiled`` to measure under QEMU.

    python -m benchmarks.build_aarch64 DIR [--root /opt/arm64-bookworm] [--jobs 2]
    python -m benchmarks.build_aarch64 DIR --emulated-gcc controller.geometry

``--emulated-gcc MODULE`` compiles that one module with the arm64 root's own gcc under
``qemu-aarch64-static`` instead (the path a Pi's install takes, timed): its ``cc1``, the
compile proper, through the emulator; the assembly it writes is assembled and linked by
the cross tool chain (without binfmt_misc the emulated driver cannot start the root's
``as`` and ``ld``; they take seconds).  Cython's translation is this machine's either way.

Set-up, once, as root (Debian/Ubuntu x86-64)::

    apt-get install qemu-user-static debootstrap gcc-aarch64-linux-gnu
    debootstrap --foreign --arch=arm64 --variant=minbase \\
        --include=python3,python3-dev,gcc,libc6-dev bookworm /opt/arm64-bookworm \\
        http://deb.debian.org/debian
    cd /opt/arm64-bookworm && for f in var/cache/apt/archives/*.deb; do dpkg -x "$f" .; done

(``gcc`` and ``libc6-dev`` are only for ``--emulated-gcc``.)  Cython must be importable
here; the C it writes is for any CPython 3, and the headers, flags and extension suffix
are the root's.
"""

from __future__ import annotations

import argparse
import ast
import shlex
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks.bench_compiled import copy_tree

ROOT = Path(__file__).resolve().parents[1]
ARM64_ROOT = Path("/opt/arm64-bookworm")
CROSS_CC = "aarch64-linux-gnu-gcc"
QEMU = "qemu-aarch64-static"


def root_sysconfig(root: Path) -> dict:
    """The build variables of the root's CPython, read from its ``_sysconfigdata`` file
    (a literal ``build_time_vars = {...}``), without running it."""
    files = sorted((root / "usr" / "lib").glob("python3.*/_sysconfigdata__*aarch64*.py"))
    if not files:
        raise SystemExit(f"no arm64 CPython in {root}: see the set-up in "
                         "benchmarks/build_aarch64.py")
    tree = ast.parse(files[-1].read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == \
                "build_time_vars":
            return ast.literal_eval(node.value)
    raise SystemExit(f"{files[-1]} holds no build_time_vars")


def commands(variables: dict, root: Path, c_file: Path, so_file: Path,
             cc: list[str]) -> list[list[str]]:
    """The commands that build one module: setuptools' own composition
    (``customize_compiler``: ``CC CFLAGS CCSHARED``, the include directory, the
    extension's ``-g0``; then ``LDSHARED``), the compiler swapped for ``cc``; an emulated
    ``cc`` writes assembly (``-S``), which the cross compiler assembles."""
    version = variables["VERSION"]
    includes = [f"-I{root}/usr/include/python{version}",
                # Debian's pyconfig.h includes <aarch64-linux-gnu/python3.x/pyconfig.h>
                f"-idirafter{root}/usr/include"]
    obj = so_file.with_suffix(".o")
    flags = shlex.split(variables["CFLAGS"]) + shlex.split(variables["CCSHARED"])
    ldshared = shlex.split(variables["LDSHARED"])[1:]  # the compiler itself swapped
    link_cmd = [CROSS_CC, *ldshared, str(obj), "-o", str(so_file)]
    if cc[0] == QEMU:
        asm = so_file.with_suffix(".s")
        return [[*cc, *flags, *includes, "-S", str(c_file), "-o", str(asm), "-g0"],
                [CROSS_CC, "-c", str(asm), "-o", str(obj)], link_cmd]
    return [[*cc, *flags, *includes, "-c", str(c_file), "-o", str(obj), "-g0"], link_cmd]


def translate(dest: Path, names: list[str]) -> dict[str, Path]:
    """Cython's C for each module, in place in ``dest`` (``setup.py``'s directives)."""
    from Cython.Build import cythonize

    sys.path.insert(0, str(ROOT))
    from setup import DIRECTIVES

    out = {}
    for name in names:
        source = dest / Path(*name.split(".")).with_suffix(".py")
        cythonize([str(source)], compiler_directives=DIRECTIVES, quiet=True,
                  include_path=[str(dest)])
        out[name] = source.with_suffix(".c")
    return out


def run(cmd: list[str]) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"failed: {shlex.join(cmd)}\n{done.stderr[-2000:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path, help="directory for the copy and its modules")
    parser.add_argument("--root", type=Path, default=ARM64_ROOT, help="the arm64 root")
    parser.add_argument("--jobs", type=int, default=2, help="modules compiled at once")
    parser.add_argument("--emulated-gcc", metavar="MODULE",
                        help="compile only MODULE, with the root's gcc under QEMU")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from setup import COMPILED

    if args.emulated_gcc and args.emulated_gcc not in COMPILED:
        parser.error(f"--emulated-gcc names no compiled module (one of {', '.join(COMPILED)})")
    variables = root_sysconfig(args.root)
    if shutil.which(CROSS_CC) is None:
        raise SystemExit(f"no {CROSS_CC}: apt-get install gcc-aarch64-linux-gnu")
    if args.emulated_gcc:
        gcc = args.root / "usr" / "bin" / variables["CC"]
        if not gcc.exists() or shutil.which(QEMU) is None:
            raise SystemExit(f"no {gcc} or no {QEMU}: see the set-up in "
                             "benchmarks/build_aarch64.py")
        # the driver runs cc1 through the same emulator (no binfmt_misc here)
        cc = [QEMU, "-L", str(args.root), str(gcc), "-wrapper", f"{QEMU},-L,{args.root}"]
        names = [args.emulated_gcc]
    else:
        cc = [CROSS_CC]
        names = list(COMPILED)
    args.dest.mkdir(parents=True, exist_ok=True)
    if not (args.dest / "controller").exists():
        copy_tree(args.dest)
    t0 = time.perf_counter()
    c_files = translate(args.dest, names)
    print(f"Cython translated {len(names)} modules on this machine in "
          f"{time.perf_counter() - t0:.0f} s", flush=True)

    def one(name: str) -> float:
        so_file = c_files[name].with_name(c_files[name].stem + variables["EXT_SUFFIX"])
        steps = commands(variables, args.root, c_files[name], so_file, cc)
        start = time.perf_counter()
        run(steps[0])
        spent = time.perf_counter() - start
        for step in steps[1:]:
            run(step)
        for suffix in (".o", ".s"):
            so_file.with_suffix(suffix).unlink(missing_ok=True)
        print(f"  {name}: {so_file.name}, compiled in {spent:.0f} s", flush=True)
        return spent

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        spent = list(pool.map(one, names))
    compiler = cc[0] if len(cc) == 1 else f"{cc[3]} under {QEMU}"
    print(f"compiled {len(names)} modules with {compiler} in {time.perf_counter() - t0:.0f} s"
          f" wall ({sum(spent):.0f} s summed, {args.jobs} at once)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
