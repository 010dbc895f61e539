"""SymPy results cached on disk: a derivation that closed (or did not) last time, with the same code and inputs.

The symbolic stage is a pure function of its inputs: a step's two sides, its label, the seed of its
random points and the points' count (:func:`theorem_check.engine.symbolic.check_step`), run by the
engine's code on one SymPy, mpmath and NumPy.  Its result (closed or not, by which method, with
which counterexample) is therefore stored and read back instead of recomputed, under a key made of

- the inputs: ``sympy.srepr`` of each side, the label, the seed and the number of points (a step);
  or the claim id, the statement's name and kind and its seed (a whole statement of a catalogue
  package, which also skips *building* the derivation: the SymPy Hessians and characteristic
  polynomials of the cascade claims cost more than checking them); or a short form's sides and
  structures (its derivation search, :func:`derivation_key`, design decision 145);
- a fingerprint of the code: the SHA-256 of every ``.py`` file of ``theorem_check`` (and, for a
  statement, of the catalogue package that defines its derivation), with the package version;
- the versions of SymPy, mpmath, NumPy and Python.

Why a cached result cannot change a verdict: the value read back is the very ``StepResult`` or
``SymbolicResult`` the same code computed from the same inputs with the same libraries, and that
computation is deterministic (seeded random points, no clock).  What is not a pure result is never
stored: a step that timed out or in which SymPy raised (it depends on the machine's load and the
time limit), and a step or derivation with a custom ``domain`` (callables have no ``srepr``).  Only
the ``seconds`` field differs: it is the time of this run (the lookup).

Where: ``<cache dir>/symbolic/`` (:func:`theorem_check.cachedir.cache_dir`; tests use a temporary
folder).  ``THEOREM_CHECK_CACHE=0`` (or ``off``, ``no``, ``false``) turns this cache off; so does
``THEOREM_CHECK_CACHE_DIR=off``.  A missing, corrupt or unwritable entry is ignored (computed again;
a write that fails is silent), never an error.  Entries are small JSON files written atomically
(``os.replace``), so parallel workers never read half an entry.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import platform
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Callable

import mpmath
import numpy as np
import sympy as sp

from theorem_check._version import __version__
from theorem_check.cachedir import OFF_VALUES, cache_dir
from theorem_check.engine.symbolic import StepResult, SymbolicResult, is_failure
from theorem_check.model.derivation import Step

__all__ = ["enabled", "folder", "code_fingerprint", "step_key", "statement_key", "load_step", "store_step",
           "load_symbolic", "store_symbolic", "cached_step", "cached_symbolic", "derivation_key", "load_entry",
           "store_entry"]

_SUBDIR = "symbolic"
_FORMAT = 1


def enabled() -> bool:
    """True unless ``THEOREM_CHECK_CACHE`` is ``0``/``off``/``no``/``false`` or the cache folder is off."""
    flag = os.environ.get("THEOREM_CHECK_CACHE")
    if flag is not None and flag.strip().lower() in OFF_VALUES:
        return False
    return cache_dir() is not None


def folder() -> Path | None:
    """The folder of the entries, or None when the cache is off."""
    base = cache_dir() if enabled() else None
    return None if base is None else base / _SUBDIR


@functools.lru_cache(maxsize=None)
def _tree_hash(root: str) -> str:
    h = hashlib.sha256()
    for path in sorted(Path(root).rglob("*.py")):
        try:
            h.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
        except OSError:
            h.update(b"unreadable" + str(path).encode())
    return h.hexdigest()


def code_fingerprint(*packages: str) -> str:
    """SHA-256 over the versions of theorem-check, SymPy, mpmath, NumPy, Python and the source of the
    ``theorem_check`` package and of ``packages`` (top-level package names, already imported)."""
    roots = [Path(__file__).resolve().parents[1]]
    for name in packages:
        mod = sys.modules.get(name)
        path = getattr(mod, "__path__", None)
        if not path:
            raise ValueError(f"package={name!r} is not an imported package directory")
        roots.append(Path(list(path)[0]).resolve())
    parts = [f"format {_FORMAT}", __version__, sp.__version__, mpmath.__version__, np.__version__,
             platform.python_version()] + [_tree_hash(str(r)) for r in roots]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


def _digest(payload: list) -> str:
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def step_key(step: Step, *, seed: int, points: int, domain=None, structure=None) -> str | None:
    """The key of one step's check (None: not cacheable, a custom ``domain`` or no ``srepr``).

    ``structure`` (name -> kind, the derivation's declared structures) is part of the key: the normal form
    uses it (``X^T = X`` for a symmetric ``X``), so a step proved under a structure is another result
    than the same sides without it."""
    if domain:
        return None
    try:
        sides = [sp.srepr(step.lhs), sp.srepr(step.rhs)]
    except Exception:  # noqa: BLE001 - a side SymPy cannot print is simply not cached
        return None
    kinds = sorted((str(k), str(v)) for k, v in (structure or {}).items())
    return _digest(["step", sides, step.why, int(seed), int(points), kinds, code_fingerprint()])


def _identity(x, depth: int = 0):
    """A JSON-able identity of a derivation function and what it captured; ValueError when some part has
    none that is stable across processes (an object, a function outside an imported package directory)."""
    if depth > 8:
        raise ValueError("too deep")
    if x is None or isinstance(x, (bool, int, float, str)):
        return [type(x).__name__, repr(x)]
    if isinstance(x, (tuple, list, frozenset)):
        items = sorted(x, key=repr) if isinstance(x, frozenset) else x
        return [type(x).__name__, [_identity(v, depth + 1) for v in items]]
    if isinstance(x, sp.Basic):
        return ["sympy", sp.srepr(x)]
    if isinstance(x, functools.partial):
        return ["partial", _identity(x.func, depth + 1), _identity(x.args, depth + 1),
                _identity(tuple(sorted(x.keywords.items())), depth + 1)]
    if isinstance(x, types.FunctionType):
        top = (x.__module__ or "").split(".")[0]
        if not top or getattr(sys.modules.get(top), "__path__", None) is None:
            raise ValueError(f"{x.__qualname__} is not defined in a package directory")
        cells = [c.cell_contents for c in (x.__closure__ or ())]
        return ["function", x.__module__, x.__qualname__, top, _identity(tuple(cells), depth + 1),
                _identity(x.__defaults__, depth + 1),
                _identity(tuple(sorted((x.__kwdefaults__ or {}).items())), depth + 1)]
    raise ValueError(f"no stable identity for a {type(x).__name__}")


def statement_key(derivation: Callable, *, claim_id: str, name: str, kind: str, seed: int) -> str | None:
    """The key of a whole statement's symbolic stage, or None when it has none.

    The derivation function is identified by its module and name, what its closure captured
    (numbers, strings, SymPy objects, other such functions: recursively) and the fingerprint of the
    packages that define them; a function from a ``--pack`` file or a notebook, or a closure over
    any other object, has no key (its steps are still cached one by one, by ``srepr``).
    """
    try:
        ident = _identity(derivation)
        tops = sorted({t for t in _tops(ident) if t != "theorem_check"})
        fp = code_fingerprint(*tops)
    except (ValueError, AttributeError):
        return None
    return _digest(["statement", claim_id, name, kind, int(seed), ident, fp])


def derivation_key(payload: list) -> str | None:
    """The key of another pure SymPy result (a short form's derivation search,
    :mod:`theorem_check.authoring.derivation_search`): ``payload`` (JSON-able: the inputs) with the code's
    fingerprint; None when the cache is off."""
    if not enabled():
        return None
    return _digest(["derivation", payload, code_fingerprint()])


def load_entry(key: str | None) -> dict | None:
    """The stored entry of ``key`` (a dict), or None (no key, the cache off, missing or unreadable)."""
    return _read(key)


def store_entry(key: str | None, value: dict) -> None:
    """Store ``value`` (a JSON-able dict) under ``key``, atomically; silent when it cannot be written."""
    _write(key, value)


def _tops(ident) -> list[str]:
    if not isinstance(ident, list) or not ident:
        return []
    out = [ident[3]] if ident[0] == "function" else []
    for part in ident:
        if isinstance(part, list):
            out += _tops(part)
    return out


def _read(key: str | None) -> dict | None:
    base = folder()
    if key is None or base is None:
        return None
    try:
        data = json.loads((base / key[:2] / f"{key}.json").read_text(encoding="utf-8"))
        return data if isinstance(data, dict) and data.get("format") == _FORMAT else None
    except (OSError, ValueError):
        return None


def _write(key: str | None, value: dict) -> None:
    base = folder()
    if key is None or base is None:
        return
    tmp = None
    try:
        sub = base / key[:2]
        sub.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".entry-", suffix=".json", dir=sub)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump({"format": _FORMAT, **value}, fh)
        os.replace(tmp, sub / f"{key}.json")
    except (OSError, TypeError, ValueError):
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _step_from(d) -> StepResult:
    fields = {f.name for f in dataclasses.fields(StepResult)}
    if not isinstance(d, dict) or set(d) != fields or not isinstance(d["closed"], bool) \
            or not all(isinstance(d[k], str) for k in fields - {"closed"}):
        raise ValueError("not a step result")
    return StepResult(**d)


def load_step(key: str | None) -> StepResult | None:
    """The cached result of a step, or None (no entry, cache off, unreadable or corrupt entry)."""
    data = _read(key)
    try:
        return None if data is None else _step_from(data.get("step"))
    except (ValueError, TypeError):
        return None


def store_step(key: str | None, result: StepResult) -> None:
    """Keep a step's result, unless it is not pure (timed out, SymPy raised) or the cache is off."""
    if not is_failure(result.method):
        _write(key, {"step": dataclasses.asdict(result)})


def load_symbolic(key: str | None) -> SymbolicResult | None:
    """The cached result of a statement's symbolic stage (``seconds`` = 0.0), or None."""
    data = _read(key)
    if data is None:
        return None
    try:
        d = data["symbolic"]
        if not (isinstance(d["closed"], bool) and isinstance(d["general"], bool) and isinstance(d["sizes"], str)):
            return None
        steps = tuple(_step_from(s) for s in d["steps"])
        return SymbolicResult(steps, d["closed"], d["general"], d["sizes"], 0.0)
    except (KeyError, ValueError, TypeError):
        return None


def store_symbolic(key: str | None, result: SymbolicResult) -> None:
    """Keep a statement's symbolic result unless some step is not pure (:attr:`SymbolicResult.undecided`)."""
    if result.undecided is None:
        _write(key, {"symbolic": {"steps": [dataclasses.asdict(s) for s in result.steps], "closed": result.closed,
                                  "general": result.general, "sizes": result.sizes}})


def cached_symbolic(key: str | None, compute: Callable[[], SymbolicResult | None]) -> SymbolicResult | None:
    """``compute()`` (building and checking a derivation), or its cached result under ``key``.

    ``key`` from :func:`statement_key` (None: always compute).  The result read back carries the
    seconds of the lookup; a computed one is stored when it is pure (see the module docstring).
    """
    t0 = time.perf_counter()
    hit = load_symbolic(key)
    if hit is not None:
        return dataclasses.replace(hit, seconds=time.perf_counter() - t0)
    result = compute()
    if key is not None and result is not None:   # (None: the statement's derivation callable found none)
        store_symbolic(key, result)
    return result


def cached_step(step: Step, seed: int, domain, compute: Callable[[], StepResult], *, points: int = 6,
                structure=None) -> StepResult:
    """A step's result from the cache, else ``compute()`` (stored when pure): the ``memo`` of
    :func:`theorem_check.engine.symbolic.check_derivation`.  ``points`` is the random points' count
    ``compute`` uses, ``structure`` the derivation's declared structures (both part of the key)."""
    key = step_key(step, seed=seed, points=points, domain=domain, structure=structure) if enabled() else None
    hit = load_step(key)
    if hit is not None:
        return hit
    result = compute()
    store_step(key, result)
    return result
