"""Shared pytest configuration: Hypothesis profiles (deterministic in CI)."""

import functools
import os

import pytest
from hypothesis import HealthCheck, settings

from theorem_check.engine.frame_chunk import on_a_fresh_chunk

settings.register_profile("default", deadline=None, max_examples=30,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", parent=settings.get_profile("default"), derandomize=True, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "default")

# pytest-xdist already runs one test process per core: command-line runs started by tests use one
# worker each (tests of the workers pass --jobs explicitly)
os.environ.setdefault("THEOREM_CHECK_JOBS", "1")

# cost data and cached SymPy results (theorem_check.cachedir) go to a scratch folder of this test run, shared by
# its pytest-xdist workers (a catalogue derivation built and checked by one worker is read by the other),
# never ~/.cache and never a previous run's
if "THEOREM_CHECK_CACHE_DIR" not in os.environ:
    import tempfile

    _run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if _run and _run.isalnum():
        _dir = os.path.join(tempfile.gettempdir(), f"theorem-check-tests-{_run}")
        os.makedirs(_dir, exist_ok=True)
    else:
        _dir = tempfile.mkdtemp(prefix="theorem-check-cache-")
    os.environ["THEOREM_CHECK_CACHE_DIR"] = _dir

_RESULTS: dict = {}


def pytest_addoption(parser):
    """``--slow``: also run the tests marked ``slow`` (README's test command and CI do; design decision 14)."""
    parser.addoption("--slow", action="store_true", default=False,
                     help="also run the tests marked slow (the long simulations and the many-seed sweeps; README's test "
                          "command and CI pass it)")


def _named(config, item) -> bool:
    """True when the command line named ``item`` (or a test function or class it belongs to) by its node id."""
    for arg in config.args:
        path, sep, rest = str(arg).partition("::")
        if not sep:
            continue
        try:
            same = os.path.samefile(path, item.path)
        except OSError:
            same = False
        if same and item.nodeid.partition("::")[2].startswith(rest):
            return True
    return False


def _all_asked(config) -> bool:
    """True when the run keeps the tests marked slow: ``--slow``, or ``-m`` choosing a selection of its own."""
    return bool(config.getoption("--slow") or config.option.markexpr)


def pytest_collection_modifyitems(config, items):
    """Without ``--slow``, deselect the tests marked ``slow`` (the default suite stays under 5 minutes on 2 cores),
    unless ``-m`` chose a selection of its own or the command line named the test by its node id."""
    if _all_asked(config):
        return
    slow = [item for item in items if item.get_closest_marker("slow") and not _named(config, item)]
    if slow:
        drop = {id(item) for item in slow}
        config.hook.pytest_deselected(items=slow)
        items[:] = [item for item in items if id(item) not in drop]


def pytest_terminal_summary(terminalreporter, config):
    """Say that the slow tests were left out (pytest-xdist's controller does not see the deselection's count)."""
    if not _all_asked(config):
        terminalreporter.write_line("tests marked slow were not run: --slow runs them (README's test command does)")


def pytest_configure(config):
    """One BLAS thread in every test process (unless the environment chose a number), as the command line
    gives a claim it runs in process (``execution.tasks.blas_threads``): pytest-xdist already runs one test
    process per core, and each process's BLAS threads spinning on the other's core made the simulations'
    tests 1.5-3x slower (``noise.fig8_sweep_sim`` 34 s against 11 s; the six slowest simulations 133 against
    92 s of CPU, one run).  NumPy has loaded BLAS before this file (the package's pytest plugin imports it),
    so only threadpoolctl can still change it; the tests of ``blas_threads`` set their own limits."""
    from theorem_check.execution.tasks import blas_threads

    config._tc_blas_limit = blas_threads()   # applied now, kept for the session (a no-op if the environment chose)


@pytest.hookimpl(hookwrapper=True)
def pytest_pyfunc_call(pyfuncitem):
    """Each test runs from a fresh frame-stack chunk (:mod:`theorem_check.engine.frame_chunk`): some 60 frames of
    pytest and Hypothesis put a chunk boundary inside the engine's inner loops, where every call mapped and
    faulted in a new chunk (a fifth of the CPU time of the metamorphic self-test was the kernel's)."""
    fn = pyfuncitem.obj
    pyfuncitem.obj = functools.wraps(fn)(lambda *args, **kwargs: on_a_fresh_chunk(fn, *args, **kwargs))
    try:
        yield
    finally:
        pyfuncitem.obj = fn


def claim_result(claim, *, seed: int = 0, trials: int = 16, controls: bool = False):
    """``run_claim(claim, seed=seed, trials=trials, controls=controls)``, run once per test run.

    Many tests assert on the same built-in claim at the same seed (the registry test, the paper's pinned
    verdicts, the report tests): same seed, same result, so it is computed once and each test makes its own
    assertions on it.  A result with controls serves a request without them (the printed statement's and the
    variants' seeds do not depend on the controls), and a built-in claim is always run with its controls (the
    registry test asks for them; one run instead of two).  Kept in this process and, as a pickle, in the run's
    scratch folder for the other xdist workers (a missing or unreadable pickle is computed again).
    Only for claims registered from a catalogue or a pack, never for a claim a test modifies.
    """
    import dataclasses
    import pickle

    from theorem_check import run_claim

    for ctl in ((True, False) if not controls else (True,)):
        key = (claim.id, seed, trials, ctl)
        if key in _RESULTS:
            return _RESULTS[key]
    if not controls and claim.paper in builtin_papers():
        # the registry test runs every built-in claim with its controls: computing them now, not a second run of
        # the claim then (126 of 135 claims were run twice, ~30 s of CPU), and the result a test sees no longer
        # depends on which test asked first
        controls = True
    key = (claim.id, seed, trials, controls)
    name = lambda ctl: os.path.join(os.environ["THEOREM_CHECK_CACHE_DIR"], "results",  # noqa: E731
                                    f"{claim.id}-{seed}-{trials}-{int(ctl)}.pickle")
    path, result = name(controls), None
    for ctl in ((True, False) if not controls else (True,)):
        try:
            with open(name(ctl), "rb") as fh:
                result = dataclasses.replace(pickle.load(fh), claim=claim)
            break
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, TypeError, ValueError):
            pass
    if result is None:
        result = run_claim(claim, seed=seed, trials=trials, controls=controls)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            tmp = f"{path}.{os.getpid()}.tmp"
            with open(tmp, "wb") as fh:
                pickle.dump(dataclasses.replace(result, claim=claim.id), fh)
            os.replace(tmp, path)
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            pass
    _RESULTS[key] = result
    return result


def builtin_papers() -> frozenset:
    """The catalogue's paper names (derivations.PAPERS)."""
    import derivations

    return frozenset(derivations.PAPERS)
