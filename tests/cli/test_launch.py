"""The console script starts the workers' fork server before the command line's imports (theorem_check/launch.py,
design decision 133), only where a worker pool will run."""

import subprocess
import sys

import pytest

from theorem_check.launch import workers_wanted


@pytest.mark.parametrize("args, wanted", [
    (["run", "--all"], True), (["report", "--all", "-o", "x"], True), (["sweep", "eq31"], True),
    (["run", "--all", "--jobs", "1"], False), (["run", "--all", "-j", "1"], False), (["run", "-j1", "x"], False),
    (["run", "--jobs=1", "x"], False), (["run", "--jobs", "2", "x"], True),
    (["check", "A = A"], False), (["list"], False), (["run", "--help"], False), ([], False), (["--version"], False),
])
def test_workers_are_wanted_only_by_pool_commands(args, wanted, monkeypatch):
    monkeypatch.delenv("THEOREM_CHECK_JOBS", raising=False)
    monkeypatch.setattr("theorem_check.execution.tasks.default_jobs", lambda: 2)
    assert workers_wanted(args) is wanted


def test_the_environment_and_one_core_keep_the_run_in_process(monkeypatch):
    monkeypatch.setenv("THEOREM_CHECK_JOBS", "1")
    assert not workers_wanted(["run", "--all"])
    monkeypatch.setenv("THEOREM_CHECK_JOBS", "01")        # one job, however written
    assert not workers_wanted(["run", "--all"])
    assert not workers_wanted(["run", "--all", "--jobs", " 1"])
    monkeypatch.delenv("THEOREM_CHECK_JOBS")
    monkeypatch.setattr("theorem_check.execution.tasks.default_jobs", lambda: 1)
    assert not workers_wanted(["run", "--all"])


def test_importing_the_package_or_the_launcher_imports_no_sympy():
    """``import theorem_check`` resolves its public names on first use (PEP 562), so the launcher can start the
    fork server before SymPy is imported; ``tc.identity`` still works."""
    code = ("import sys, theorem_check, theorem_check.launch; assert 'sympy' not in sys.modules; "
            "import theorem_check as tc; assert callable(tc.identity) and 'sympy' in sys.modules; "
            "assert set(tc.__all__) <= set(dir(tc))")
    subprocess.run([sys.executable, "-c", code], check=True)
