"""Shared test configuration: Hypothesis profiles.

CI (the ``CI`` environment variable is set) runs every property test **derandomized**:
the same examples on every run, so a landing is never blocked by chance.  Elsewhere the
``dev`` profile draws fresh examples each run (and keeps failures in the local example
database), which is how new failures are found; long random exploration lives in
``benchmarks/soak.py``.  Known failures stay as ``@example``s or regression tests.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True,
                          database=None)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE")
                      or ("ci" if os.environ.get("CI") else "dev"))
