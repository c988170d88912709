"""fairyboard's test suite (a package, so rigs and helpers import as ``tests.support``)."""
