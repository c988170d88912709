"""The ``[sensing]`` settings: what every back end shares, plus each back end's own
settings table, declared beside its back end (``MatrixSettings`` in ``gpio.py``,
``AnalogSettings`` in ``analog.py``, ``SerialSettings`` in ``serial_link.py``).

Below the configuration (``controller/config.py`` re-exports :class:`SensingSettings`,
:class:`ConfigError` and :func:`calibration_path`) and the back ends
(``controller/sensing/backends.py``), so neither imports the other: no import circle.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.sensing.analog import AnalogSettings
from controller.sensing.gpio import MatrixSettings, ShiftRegisterSettings
from controller.sensing.serial_link import SerialSettings


class ConfigError(ValueError):
    """A configuration file or option is invalid; the message names the setting."""


@dataclass
class SensingSettings(SerialSettings, AnalogSettings, ShiftRegisterSettings, MatrixSettings):
    """``[sensing]``: the back end, its pipeline's timing and the simulator's choices;
    each back end's own settings come from its class (the bases)."""

    #: simulated | gpio-matrix | gpio-shift-register | gpio-analog | serial
    #: (controller/sensing/backends.py)
    backend: str = "simulated"
    #: linear halls: calibration file ({layout} is replaced by the layout name)
    calibration: str = "~/.local/share/fairyboard/calibration-{layout}.json"
    #: a cell's reading must be stable this long before it counts
    debounce_ms: float = 20.0
    #: a move that could still be extended (a slider) waits this long before it commits
    settle_ms: float = 200.0
    #: scans per second of a direct GPIO back end
    scan_hz: float = 200.0
    #: simulated back end: emulate a matrix without diodes (to demonstrate ghosting)
    simulate_diodes: bool = True
    #: simulated back end: an emulated Pico running firmware/ over a pseudo-terminal and
    #: the serial link (the ``serial`` back end's path) instead of the Pi's GPIO
    simulated_link: bool = False


def calibration_path(config: Any, layout: str) -> Path:
    """``sensing.calibration`` for ``layout``: ``{layout}`` is the only placeholder
    (``config`` is the :class:`~controller.config.Config`)."""
    template = config.sensing.calibration
    try:
        return Path(template.format(layout=layout)).expanduser()
    except (AttributeError, IndexError, KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"sensing.calibration: {template!r} may use only "
                          f"{{layout}} as a placeholder ({type(exc).__name__}: {exc})"
                          ) from None
