"""fairyboard: turns a sensor board with LEDs into a referee for five chess variants."""

__version__ = "0.1.0"
