"""The figure convention for custom checks: plain data in ``Measurement.figure``, no matplotlib.

A custom ``check`` (optima, flows, simulations) may attach plot data to its
:class:`~theorem_check.model.claims.Measurement` as ``figure=``; the report draws it with matplotlib
(vector PDF for LaTeX, PNG for the docs).  Claim code never imports matplotlib.  A spec is a
mapping with a ``kind``:

``"curve"`` -- lines or points ``y(x)``::

    {"kind": "curve", "title": "S along a symmetry orbit",
     "xlabel": "$\\lambda$", "ylabel": "$S(\\lambda)$",          # plain text, $...$ is math
     "series": [{"x": lam, "y": S, "label": "$S(\\lambda)$"},
                {"x": lam, "y": S2, "label": "perturbed", "style": "--"}],
     "marks": [{"x": lam_star, "y": S_min, "label": "unique minimum"}],
     "vlines": [{"x": 1.0, "label": "$\\lambda = 1$"}], "hlines": [{"y": 0.0}],
     "xscale": "linear", "yscale": "log",                        # linear | log | symlog
     "caption": "..."}

  ``"x"``/``"y"``/``"label"``/``"style"`` at the top level are shorthand for a single series.
  ``style`` is ``"-"`` (default), ``"--"``, ``":"``, ``"o"`` (points), ``"o-"``, ``"step"``.
  Hysteresis: give the forward and backward sweeps as two series (``"label": "beta up"`` /
  ``"beta down"``); the report draws them with arrows' worth of distinct styles.

``"spectrum"`` -- eigenvalues grouped by sector (Hessian spectra by symmetry sector)::

    {"kind": "spectrum", "groups": {"sector A": eigs_A, "sector B": eigs_B},
     "ylabel": "eigenvalue", "yscale": "symlog", "predicted": {"sector A": [0.5, 1.0]}}

  each group is a column of horizontal ticks; optional ``predicted`` values per group are
  drawn as open circles beside them (theory vs measurement).

``"panels"`` -- several specs side by side (at most 3 per row)::

    {"kind": "panels", "panels": [spec_n2, spec_n3], "caption": "order parameters, n = 2 and n = 3"}

Values may be lists, tuples or NumPy arrays of finite floats (NaN points are skipped).  Text
fields are plain text where ``$...$`` spans are math (matplotlib's mathtext for the figure,
sanitised LaTeX for the caption).  Keep data small (a few thousand points): it travels in the
JSON record too.  :func:`validate_figure` lists what is wrong with a spec; the report draws a
note instead of a malformed figure and never fails because of one.

Which instance's figure is drawn: for each statement, the figure of the first instance that
has one, plus the counterexample's if it has one.
"""

from __future__ import annotations

import math
from typing import Any, Mapping

__all__ = ["KINDS", "STYLES", "SCALES", "validate_figure", "figure_errors"]

KINDS = ("curve", "spectrum", "panels")
STYLES = ("-", "--", ":", "-.", "o", "o-", "x", "step")
SCALES = ("linear", "log", "symlog")
_TEXT = ("title", "xlabel", "ylabel", "caption", "label")


def _numbers(value: Any, where: str, errors: list[str]) -> int:
    try:
        seq = [float(v) for v in list(value)]
    except (TypeError, ValueError):
        errors.append(f"{where} must be a sequence of numbers")
        return -1
    if not seq:
        errors.append(f"{where} must not be empty")
    if any(math.isinf(v) for v in seq):
        errors.append(f"{where} must be finite (NaN marks a gap)")
    return len(seq)


def _series(s: Any, where: str, errors: list[str]) -> None:
    if not isinstance(s, Mapping):
        errors.append(f"{where} must be a mapping with x and y")
        return
    if "y" not in s:
        errors.append(f"{where} needs 'y'")
        return
    ny = _numbers(s["y"], f"{where}.y", errors)
    if "x" in s:
        nx = _numbers(s["x"], f"{where}.x", errors)
        if nx >= 0 and ny >= 0 and nx != ny:
            errors.append(f"{where}: x has {nx} values, y has {ny}")
    if s.get("style", "-") not in STYLES:
        errors.append(f"{where}.style={s.get('style')!r} must be one of {STYLES}")


def figure_errors(spec: Any, where: str = "figure") -> list[str]:
    """Everything wrong with a figure spec (empty list when it is fine)."""
    errors: list[str] = []
    if not isinstance(spec, Mapping):
        return [f"{where} must be a mapping, got {type(spec).__name__}"]
    kind = spec.get("kind")
    if kind not in KINDS:
        return [f"{where}.kind={kind!r} must be one of {KINDS}"]
    for key in _TEXT:
        if key in spec and not isinstance(spec[key], str):
            errors.append(f"{where}.{key} must be a string")
    for key in ("xscale", "yscale"):
        if spec.get(key, "linear") not in SCALES:
            errors.append(f"{where}.{key}={spec.get(key)!r} must be one of {SCALES}")
    if kind == "curve":
        series = list(spec.get("series", []))
        if "y" in spec:
            series.append({k: spec[k] for k in ("x", "y", "label", "style") if k in spec})
        if not series:
            errors.append(f"{where} (curve) needs 'series' or 'x'/'y'")
        for k, s in enumerate(series):
            _series(s, f"{where}.series[{k}]", errors)
        for key, need in (("marks", ("x", "y")), ("vlines", ("x",)), ("hlines", ("y",))):
            for k, m in enumerate(spec.get(key, [])):
                if not isinstance(m, Mapping) or any(n not in m for n in need):
                    errors.append(f"{where}.{key}[{k}] must be a mapping with {', '.join(need)}")
    elif kind == "spectrum":
        groups = spec.get("groups")
        if not isinstance(groups, Mapping) or not groups:
            errors.append(f"{where} (spectrum) needs a non-empty mapping 'groups'")
        else:
            for name, vals in groups.items():
                _numbers(vals, f"{where}.groups[{name!r}]", errors)
        pred = spec.get("predicted", {})
        if not isinstance(pred, Mapping):
            errors.append(f"{where}.predicted must be a mapping group -> values")
        else:
            for name, vals in pred.items():
                _numbers(vals, f"{where}.predicted[{name!r}]", errors)
    else:
        panels = spec.get("panels")
        if not isinstance(panels, (list, tuple)) or not panels:
            errors.append(f"{where} (panels) needs a non-empty list 'panels'")
        else:
            for k, p in enumerate(panels):
                if isinstance(p, Mapping) and p.get("kind") == "panels":
                    errors.append(f"{where}.panels[{k}] must not itself be 'panels'")
                else:
                    errors += figure_errors(p, f"{where}.panels[{k}]")
    return errors


def validate_figure(spec: Any) -> Mapping[str, Any]:
    """Return ``spec`` if it follows the convention; raise ValueError listing the problems.

    Use it in a claim's tests (``validate_figure(measurement.figure)``), not in the check itself.

    >>> validate_figure({"kind": "curve", "x": [0, 1, 2], "y": [1.0, 0.5, 0.9]})["kind"]
    'curve'
    """
    errors = figure_errors(spec)
    if errors:
        raise ValueError("; ".join(errors))
    return spec
