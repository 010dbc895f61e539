"""One cache folder decision for the cost data and the SymPy results (theorem_check/cachedir.py)."""

from pathlib import Path

import pytest

from theorem_check.cachedir import cache_dir
from theorem_check.engine import symcache
from theorem_check.execution import durations


@pytest.mark.parametrize("value", ["off", "OFF", "none", "0", "", " no ", "false"])
def test_off_values_turn_every_cache_off(monkeypatch, value):
    monkeypatch.setenv("THEOREM_CHECK_CACHE_DIR", value)
    assert cache_dir() is None and durations.cache_path() is None and symcache.folder() is None


def test_folder_from_the_environment_then_xdg_then_home(monkeypatch, tmp_path):
    monkeypatch.delenv("THEOREM_CHECK_CACHE", raising=False)   # a suite run with the SymPy cache switched off
    monkeypatch.setenv("THEOREM_CHECK_CACHE_DIR", str(tmp_path / "c"))
    assert cache_dir() == tmp_path / "c" and durations.cache_path() == tmp_path / "c" / "durations.json"
    assert symcache.folder() == tmp_path / "c" / "symbolic"
    monkeypatch.delenv("THEOREM_CHECK_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert cache_dir() == tmp_path / "x" / "theorem-check"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == Path.home() / ".cache" / "theorem-check"


def test_sympy_switch_leaves_the_cost_data_on(monkeypatch, tmp_path):
    monkeypatch.setenv("THEOREM_CHECK_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("THEOREM_CHECK_CACHE", "0")
    assert symcache.folder() is None and durations.cache_path() == tmp_path / "durations.json"
