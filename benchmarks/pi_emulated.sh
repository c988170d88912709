#!/bin/sh
# The rules benchmark (bench_rules) under QEMU user-mode emulation of a Cortex-A72 (the
# Raspberry Pi 4's core) with Debian's own arm64 CPython, from the repository root:
#
#   sh benchmarks/pi_emulated.sh [--compiled DIR] [--quick] [--game luotuoqi ...]
#
# --compiled DIR: the same benchmark on the compiled build in DIR, made for aarch64 by
# `python -m benchmarks.build_aarch64 DIR` (its header has the cross compiler's set-up);
# the modules imported are printed, each an aarch64 .so.  The engine's nodes/s, pure
# against compiled, under the same emulator (workers run through QEMU):
#
#   python -m benchmarks.bench_compiled --quick --keep DIR --interpreter \
#       "qemu-aarch64-static -L /opt/arm64-bookworm /opt/arm64-bookworm/usr/bin/python3"
#   (with QEMU_CPU=cortex-a72 and python-chess on PYTHONPATH for the listing part)
#
# Set-up, once, as root on a Debian/Ubuntu x86-64 machine (no binfmt_misc needed):
#
#   apt-get install qemu-user-static debootstrap
#   debootstrap --foreign --arch=arm64 --variant=minbase --include=python3 \
#       bookworm /opt/arm64-bookworm http://deb.debian.org/debian
#   cd /opt/arm64-bookworm && for f in var/cache/apt/archives/*.deb; do dpkg -x "$f" .; done
#
# (the first stage unpacks only the essential packages and leaves Python's in the cache,
# hence the dpkg -x; no second stage and no chroot are needed: the interpreter runs from
# there through qemu-aarch64-static -L, which finds its loader and libraries under the
# root).  The
# benchmark needs only the standard library and python-chess, which is pure Python: it is
# taken from the host's environment (PYTHON, default .venv/bin/python).
#
# QEMU translates arm64 code to x86-64 code: the times measure the emulator on this
# machine, not a Pi.  Ratios against python-chess, both running in the same emulated
# interpreter, are what carries over.  docs/performance.md says how to run on a real Pi.
set -eu
ARM64_ROOT=${ARM64_ROOT:-/opt/arm64-bookworm}
PYTHON=${PYTHON:-.venv/bin/python}
QEMU=${QEMU:-qemu-aarch64-static}
CPU=${QEMU_CPU:-cortex-a72}
PACKAGE=$(pwd)
if [ "${1:-}" = "--compiled" ]; then
    PACKAGE=$(cd "${2:?--compiled needs the directory of an aarch64 build}" && pwd)
    shift 2
    if ! ls "$PACKAGE"/controller/rules/luotuoqi.*aarch64*.so >/dev/null 2>&1; then
        echo "no aarch64 build in $PACKAGE: python -m benchmarks.build_aarch64 $PACKAGE" >&2
        exit 2
    fi
fi
if [ ! -x "$ARM64_ROOT/usr/bin/python3" ] || ! command -v "$QEMU" >/dev/null; then
    echo "no arm64 root at $ARM64_ROOT or no $QEMU: see the set-up at the top of benchmarks/pi_emulated.sh" >&2
    exit 2
fi
chess_dir=$("$PYTHON" -c 'import chess, os; print(os.path.dirname(os.path.dirname(chess.__file__)))')
site=$(mktemp -d)
trap 'rm -rf "$site"' EXIT
ln -s "$chess_dir/chess" "$site/chess"
REPO=$(pwd)
cd "$PACKAGE"  # python puts the current directory first on its path
PYTHONPATH="$PACKAGE:$REPO:$site" PYTHONDONTWRITEBYTECODE=1 QEMU_CPU="$CPU" \
    "$QEMU" -L "$ARM64_ROOT" "$ARM64_ROOT/usr/bin/python3" -c '
import platform
import controller.geometry, controller.rules.core, controller.rules.luotuoqi
print(f"emulated {platform.machine()} CPython {platform.python_version()}")
for module in (controller.geometry, controller.rules.core, controller.rules.luotuoqi):
    print(f"  {module.__name__}: {module.__file__}")'
PYTHONPATH="$PACKAGE:$REPO:$site" PYTHONDONTWRITEBYTECODE=1 QEMU_CPU="$CPU" \
    exec "$QEMU" -L "$ARM64_ROOT" "$ARM64_ROOT/usr/bin/python3" -m benchmarks.bench_rules "$@"
