"""Shared pytest configuration: Hypothesis profiles (deterministic in CI)."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", deadline=None, max_examples=30,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")

# pytest-xdist already runs one test process per core: command-line runs started by tests use one
# worker each (tests of the workers pass --jobs explicitly)
os.environ.setdefault("THEOREM_CHECK_JOBS", "1")

# cost data (theorem_check.execution.durations) goes to a scratch folder per test process, never ~/.cache
if "THEOREM_CHECK_CACHE_DIR" not in os.environ:
    import tempfile

    os.environ["THEOREM_CHECK_CACHE_DIR"] = tempfile.mkdtemp(prefix="theorem-check-cache-")
