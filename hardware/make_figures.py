"""Regenerate the build guides' figures in hardware/figures/ from the layout files.

    .venv/bin/python hardware/make_figures.py            # every shipped layout
    .venv/bin/python hardware/make_figures.py square8    # one layout

(The virtual environment that ``scripts/test`` makes has what it needs: the project and
Pillow, from the ``test`` extra.)

It runs the same generator as ``fairyboard board print`` and keeps what the guides show:
the PNG previews (reduced to a 256-colour palette to keep the repository small), the
wiring tables and the bill of materials.  The printable SVG/PDF files are not committed:
``fairyboard board print <layout> --out DIR`` writes them for your paper size.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

try:
    from PIL import Image
except ImportError:
    sys.exit("make_figures: needs Pillow and fairyboard: run it with the virtual environment "
             "that scripts/test makes (.venv/bin/python hardware/make_figures.py)")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.boardprint import print_board  # noqa: E402
from controller.layout import layout_names  # noqa: E402

FIGURES = ROOT / "hardware" / "figures"
KEEP = ("surface.png", "template.png", "wiring.png", "wiring.md", "wiring.csv", "bom.md",
        "bom.csv")


def make_figures(name: str) -> list[Path]:
    out_dir = FIGURES / name
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in print_board(name, tmp):
            kind = path.name.removeprefix(f"{name}-")
            if kind not in KEEP:
                continue
            target = out_dir / path.name
            if path.suffix == ".png":
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
