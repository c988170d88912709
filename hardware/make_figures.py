"""Regenerate the build guides' figures in hardware/figures/ from the layout files.

    .venv/bin/python hardware/make_figures.py            # every shipped layout
    .venv/bin/python hardware/make_figures.py square8    # one layout

(The virtual environment that ``scripts/test`` makes has what it needs: the project and
Pillow, from the ``test`` extra.)

Any Python with fairyboard installed works (``pip install -e .`` gives cairosvg); Pillow is
optional: without it the PNGs are copied unreduced.

It runs the same generator as ``fairyboard board print`` and keeps what the guides show:
the PNG previews (reduced to a 256-colour palette to keep the repository small), the
wiring tables, the bill of materials, the schematic (SVG) and the KiCad netlist.  The
printable PDF files are not committed:
``fairyboard board print <layout> --out DIR`` writes them for your paper size.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

try:
    import cairosvg  # noqa: F401  (only to fail early, with one line, without it)

    from controller.boardprint import print_board
    from controller.layout import layout_names
except ImportError as exc:
    print(f"make_figures.py: {exc.name} is missing; run it with the Python fairyboard is "
          "installed in (pip install -e .), e.g. .venv/bin/python hardware/make_figures.py",
          file=sys.stderr)
    sys.exit(2)

try:
    from PIL import Image
except ImportError:  # the PNGs are then committed unreduced
    Image = None

FIGURES = ROOT / "hardware" / "figures"
KEEP = ("surface.png", "template.png", "wiring.png", "wiring.md", "wiring.csv", "bom.md",
        "bom.csv", "schematic.svg", "netlist.net", "strip-netlist.net")


def make_figures(name: str) -> list[Path]:
    out_dir = FIGURES / name
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in print_board(name, tmp, schematic=True):
            kind = path.name.removeprefix(f"{name}-")
            if kind not in KEEP:
                continue
            target = out_dir / path.name
            if path.suffix == ".png" and Image is not None:
                with Image.open(path) as img:
                    img.convert("RGB").quantize(colors=256).save(target, optimize=True)
            else:
                target.write_bytes(path.read_bytes())
            written.append(target)
    return written


def main(argv: list[str]) -> int:
    for name in argv or layout_names():
        for path in make_figures(name):
            print(path.relative_to(ROOT), f"{path.stat().st_size // 1024} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
