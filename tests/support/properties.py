"""Busy Lùotuoqí positions for the property tests and the soak."""

from __future__ import annotations

BUSY = [
    "r1d1k2r/e1et32e1/1eT22m2/3e1E2/2D1T32e/1E3t22/E1E1E1E1/R3K1MR w KQkq b 0 12",
    "4k3/1t22e3/2T31t33/3D4/4T33/1d3T22/8/4K3 b - w 3 30",
    "r3k2r/8/2t21t33/8/3D4/8/2T21T33/R3K2R w KQkq b* 0 20",
    "4k3/8/8/5d2/1E3MEM/7D/8/4K3 w - - 0 1",  # rules §8.3: flank promotions
    "k7/8/8/3e4/2e1e3/3e4/1D6/K7 w - - 0 1",  # a Bypasser and its victims
]


def _special(move) -> bool:
    return (move.kind in ("split", "merge", "promote", "castle") or bool(move.token)
            or len(move.captures) > 1)
