"""Figures of a report, drawn with matplotlib from frozen results (vector PDF + PNG).

* :func:`residual_figure`: residuals of the numeric stage against the refinement level
  (float32 -> float64 -> mpmath for identities; the levels a custom check reports otherwise),
  every statement of a claim on one plot: the printed statement, its corrected forms and
  readings, and the negative controls when they were run.  A true statement follows the floors
  down; a false one stalls.  This is the decision rule of ``docs/verdicts.md`` made visible.
* :func:`spec_figure`: a claim-specific figure from ``Measurement.figure`` data
  (see :mod:`theorem_check.output.report.figspec` for the convention).

pyplot is never imported: figures are :class:`matplotlib.figure.Figure` objects saved through
the PDF backend and the Agg canvas, so a notebook's backend and global state are untouched.
"""

from __future__ import annotations

import logging
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
from matplotlib import rc_context
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullLocator

from theorem_check.output.report.figspec import figure_errors

__all__ = ["FigureFile", "residual_figure", "spec_figure", "plain_label", "RC"]

RC = {
    "font.family": "serif", "font.serif": ["DejaVu Serif"], "mathtext.fontset": "cm", "font.size": 9,
    "axes.titlesize": 9, "axes.labelsize": 9, "legend.fontsize": 7.5, "xtick.labelsize": 8, "ytick.labelsize": 8,
    "axes.spines.top": False, "axes.spines.right": False, "axes.grid": True, "grid.alpha": 0.25,
    "grid.linewidth": 0.5, "lines.linewidth": 1.2,
}
ROLE_COLOURS = {"printed": "#1f4e99", "corrected": "#1b7837", "reading": "#6a3d9a", "control": "#c0392b"}
MARKERS = ("o", "s", "^", "v", "D", "P", "X", "<", ">", "h")
"""Point markers, one per series (colour and marker both change, so prints in grey stay readable)."""
LINE_MARKS = ((":", "0.1"), ("--", "0.35"), ("-.", "0.2"), ((0, (1, 2)), "0.5"), ((0, (5, 1, 1, 1)), "0.15"),
              ((0, (3, 1, 1, 1, 1, 1)), "0.4"))
"""Styles of vertical/horizontal marker lines: each its own dash pattern and grey (data keep the colours)."""
_PNG_DPI = 130
RESIDUAL_MARGINS = {"left": 0.11, "right": 0.79, "bottom": 0.15, "top": 0.97}
"""Axes position of :func:`residual_figure` (fractions of its 6.2 x 3.0 in): fixed, not matplotlib's constrained
layout, which measured every text's extent on every figure (a fifth of its drawing time); its legend's labels
are short (``as printed``, ``corrected 2``, ``control 3``, the floor) and fit in the right 21 %.  A series
label longer than :data:`RESIDUAL_LABEL_FITS` characters gets the constrained layout instead."""
RESIDUAL_LABEL_FITS = 14
"""Longest series label (characters) the fixed :data:`RESIDUAL_MARGINS` leave room for."""


@dataclass(frozen=True)
class FigureFile:
    """A figure written to disk: ``stem.pdf`` and ``stem.png``; ``name`` is the stem's file name."""

    pdf: Path
    png: Path
    name: str


def _save(fig: Figure, stem: Path) -> FigureFile:
    stem.parent.mkdir(parents=True, exist_ok=True)
    pdf, png = stem.with_suffix(".pdf"), stem.with_suffix(".png")
    quiet = logging.getLogger("fontTools")      # font subsetting chatters about font timestamps
    level = quiet.level
    quiet.setLevel(logging.ERROR)
    try:
        fig.savefig(pdf, metadata={"CreationDate": None, "Creator": "theorem-check"})
        fig.set_layout_engine("none")   # the PDF's layout holds for the PNG: lay out once, not twice
        fig.savefig(png, dpi=_PNG_DPI)
    finally:
        quiet.setLevel(level)
    return FigureFile(pdf, png, stem.name)


_MATHTEXT = ((r"\\operatorname\*?\{([^{}]*)\}", r"\\mathrm{\1}"), (r"\\lVert|\\rVert", r"\\Vert"),
             (r"\\lvert|\\rvert", "|"), (r"\\dots\b", r"\\ldots"), (r"\\mathbb\{E\}", r"\\mathrm{E}"),
             (r"\\left|\\right", ""), (r"\\bigl|\\bigr", ""), (r"\\,|\\;|\\!", " "))


def _label(s: Any) -> str:
    """Text for matplotlib: keep ``$...$`` math if mathtext parses it (after mapping the LaTeX it lacks:
    ``\\operatorname``, ``\\lVert``, ``\\dots``), else show it literally."""
    s = str(s)
    if "$" not in s:
        s = plain_label(s)
    if "$" not in s:
        return s
    for pat, rep in _MATHTEXT:
        s = re.sub(pat, rep, s)
    from matplotlib.mathtext import MathTextParser

    try:
        MathTextParser("path").parse(s)
        return s
    except Exception:  # noqa: BLE001 - any parse failure: print the dollars literally
        return s.replace("$", r"\$")


_SUPERSCRIPT = str.maketrans("-0123456789", "\u207b\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def _pow10(v: float, _pos=None) -> str:
    """Tick label ``10⁻¹⁶`` (only at exact powers of ten).  Plain text with Unicode superscripts, not
    mathtext ``$10^{-16}$``: matplotlib parses each mathtext label again for every figure and backend
    (about half of a residual figure's drawing time); DejaVu Serif has the glyphs."""
    if v <= 0:
        return ""
    e = math.log10(v)
    return "10" + str(round(e)).translate(_SUPERSCRIPT) if abs(e - round(e)) < 1e-9 else ""


_SCI_WORD = re.compile(r"(?<![\w.])([+-]?\d+(?:\.\d+)?)e([+-]?\d+)(?![\w.])")
_SUB_WORD = re.compile(r"(?<![\w$\\])([A-Za-z]+)_(\{[^{}$]*\}|[A-Za-z0-9]+)(?![\w])")


def plain_label(s: str) -> str:
    """A legend or axis text without ``$`` made mathtext where it is maths: ``gtol=1e-3`` ->
    ``gtol$=10^{-3}$``, ``s_1`` -> ``$s_{1}$``; everything else stays as it is."""
    def sci(m: re.Match) -> str:
        mant, exp = m.group(1), int(m.group(2))
        if float(mant) == 1.0:
            return f"$10^{{{exp}}}$"
        return f"${mant}\\times 10^{{{exp}}}$"

    def sub(m: re.Match) -> str:
        arg = m.group(2)
        return f"${m.group(1)}_{{{arg.strip('{}')}}}$"

    out = _SUB_WORD.sub(sub, _SCI_WORD.sub(sci, s))
    return out.replace("$$", "")


# -- residuals against refinement --------------------------------------------------------------

@dataclass(frozen=True)
class ResidualSeries:
    """Residuals of one statement: ``instances`` is a list of ``{level: residual}``."""

    label: str
    role: str
    instances: Sequence[Mapping[str, float]]
    floors: Mapping[str, float]


def residual_series(statement_result, label: str) -> ResidualSeries | None:
    """The residual data of a :class:`~theorem_check.engine.runner.StatementResult` (None if it has none)."""
    num = statement_result.numeric
    if num is None:
        return None
    insts = [i for i in num.instances if i.residuals]
    if num.counterexample is not None and num.counterexample.residuals:
        insts = insts + [num.counterexample]
    if not insts:
        return None
    floors: dict[str, float] = {}
    for i in insts:
        for k, f in i.floors.items():
            floors[k] = max(floors.get(k, 0.0), float(f))
    return ResidualSeries(label, statement_result.kind, [dict(i.residuals) for i in insts], floors)


def residual_figure(series: Sequence[ResidualSeries], stem: Path) -> FigureFile | None:
    """Residual against refinement level, one line per instance, coloured by statement role.

    Exact zeros are drawn as downward triangles on the bottom edge.  Returns None when no
    series has at least two levels, or when every residual is exactly 0 (nothing to plot).
    """
    series = [s for s in series if s is not None]
    levels: list[str] = []
    for s in series:
        for inst in s.instances:
            for k in inst:
                if k not in levels:
                    levels.append(k)
    if len(levels) < 2:
        return None
    pos = {lv: k for k, lv in enumerate(levels)}
    vals = [float(v) for s in series for inst in s.instances for v in inst.values()
            if isinstance(v, (int, float)) and math.isfinite(v) and v > 0]
    vals += [f for s in series for f in s.floors.values() if f > 0]
    if not any(float(v) != 0 for s in series for inst in s.instances for v in inst.values()):
        return None   # every residual exactly 0: a plot of triangles on an empty axis says nothing
    lo = min(vals) / 30 if vals else 1e-20
    hi = max(vals) * 3 if vals else 1.0
    with rc_context(RC):
        fixed = max(len(plain_label(s.label)) for s in series) <= RESIDUAL_LABEL_FITS
        fig = Figure(figsize=(6.2, 3.0), layout=None if fixed else "constrained")
        if fixed:
            fig.subplots_adjust(**RESIDUAL_MARGINS)
        ax = fig.add_subplot()
        handles = []
        rng = np.random.default_rng(0)
        for k, s in enumerate(series):
            colour = ROLE_COLOURS.get(s.role, "#555555")
            ls = "--" if s.role == "control" else "-"
            jitter = (k - (len(series) - 1) / 2) * 0.04
            # one artist per series, not one per instance (a line collection draws each instance's line
            # on its own, so overlapping instances still darken as separate lines did)
            lines, points, zeros = [], [], []
            for inst in s.instances:
                xs = [pos[lv] + jitter + rng.uniform(-0.015, 0.015) for lv in levels if lv in inst]
                ys = [float(inst[lv]) for lv in levels if lv in inst]
                ys_plot = [y if (math.isfinite(y) and y > 0) else (lo if y == 0 else hi) for y in ys]
                lines.append(list(zip(xs, ys_plot)))
                points += lines[-1]
                zeros += [(x, lo) for x, y in zip(xs, ys) if y == 0]
            ax.add_collection(LineCollection(lines, colors=colour, linestyles=ls, alpha=0.55, linewidths=0.9))
            ax.plot(*zip(*points), ls="none", color=colour, alpha=0.55, marker="o", ms=2.5)
            if zeros:
                ax.plot(*zip(*zeros), "v", color=colour, ms=4)
            handles.append(Line2D([], [], color=colour, ls=ls, marker="o", ms=3, label=_label(s.label)))
        fl = series[0].floors
        if fl:
            xs = [pos[lv] for lv in levels if lv in fl]
            ax.plot(xs, [fl[lv] for lv in levels if lv in fl], color="black", ls=":", lw=1.0, marker="_", ms=10)
            handles.append(Line2D([], [], color="black", ls=":", label=r"floor $\epsilon\, n\, \kappa$"))
        ax.set_yscale("log")
        ax.set_ylim(lo / 2, hi)
        ax.yaxis.set_major_locator(LogLocator(base=10.0, numticks=8))
        ax.yaxis.set_major_formatter(FuncFormatter(_pow10))
        ax.yaxis.set_minor_locator(NullLocator())
        ax.set_xticks(range(len(levels)), [str(lv) for lv in levels])
        ax.set_xlim(-0.3, len(levels) - 0.7)
        ax.set_xlabel("refinement level")
        ax.set_ylabel("relative residual")
        _legend_outside(ax, handles=handles, side="right")
        return _save(fig, stem)


def _legend_outside(ax, handles=None, side: str = "below") -> None:
    """A legend outside the data: to the right of the axes, or below them in up to 3 columns."""
    kw = {"handles": handles} if handles is not None else {}
    n = len(handles) if handles is not None else len(ax.get_legend_handles_labels()[0])
    if n == 0:
        return
    if side == "right":
        ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), frameon=False, borderaxespad=0.0, **kw)
    else:
        labels = [h.get_label() for h in handles] if handles is not None else ax.get_legend_handles_labels()[1]
        longest = max((len(str(x)) for x in labels), default=0)
        ncols = 1 if longest > 45 else 2 if longest > 22 else 3
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), ncols=min(ncols, n), frameon=False,
                  borderaxespad=0.0, columnspacing=1.2, handlelength=2.2, **kw)


def _monotone_runs(x: np.ndarray) -> list[slice]:
    """Split indexes where ``x`` reverses direction (an up-sweep followed by a down-sweep)."""
    if x.size < 3:
        return [slice(0, x.size)]
    d = np.sign(np.diff(x))
    runs, start, cur = [], 0, 0.0
    for k, v in enumerate(d):
        if v == 0:
            continue
        if cur != 0 and v != cur:
            runs.append(slice(start, k + 1))
            start = k
        cur = v
    runs.append(slice(start, x.size))
    return runs


# -- claim-specific figures -------------------------------------------------------------------

def _arr(v) -> np.ndarray:
    return np.asarray([float(x) for x in v], dtype=float)


def _scale(ax, axis: str, scale: str, values: np.ndarray) -> None:
    if scale == "symlog":
        nz = np.abs(values[np.isfinite(values) & (values != 0)])
        lin = float(np.min(nz)) if nz.size else 1.0
        getattr(ax, f"set_{axis}scale")("symlog", linthresh=max(lin, 1e-12))
    elif scale == "log":
        getattr(ax, f"set_{axis}scale")("log")


def _draw_curve(ax, spec: Mapping[str, Any]) -> None:
    series = list(spec.get("series", []))
    if "y" in spec:
        series.append({k: spec[k] for k in ("x", "y", "label", "style") if k in spec})
    ys_all = []
    for k, s in enumerate(series):
        y = _arr(s["y"])
        x = _arr(s["x"]) if "x" in s else np.arange(len(y), dtype=float)
        ys_all.append(y)
        style = s.get("style", "-")
        label = _label(s["label"]) if s.get("label") else None
        colour, marker = f"C{k % 10}", MARKERS[k % len(MARKERS)]
        runs = _monotone_runs(x) if style in ("-", "--", ":", "-.", "o-") else [slice(0, x.size)]
        for r_i, run in enumerate(runs):
            # a sweep that turns back is drawn as separate lines: up and down never joined
            kw = dict(color=colour, label=label if r_i == 0 else None)
            ls = style if r_i == 0 else {"-": "--", "--": "-", ":": "-.", "-.": ":", "o-": "o--"}.get(style, style)
            if style == "step":
                ax.step(x[run], y[run], where="mid", **kw)
            elif style in ("o", "x"):
                ax.plot(x[run], y[run], ls="none", marker=marker if style == "o" else "x", ms=3.2, mfc="none"
                        if k % 2 else colour, **kw)
            elif ls.startswith("o"):
                ax.plot(x[run], y[run], ls=ls[1:], marker=marker, ms=3, **kw)
            else:
                ax.plot(x[run], y[run], ls=ls, **kw)
    for m in spec.get("marks", []):
        ax.plot([float(m["x"])], [float(m["y"])], "*", color="black", ms=9, zorder=5)
        if m.get("label"):
            ax.annotate(_label(m["label"]), (float(m["x"]), float(m["y"])), textcoords="offset points",
                        xytext=(6, 6), fontsize=7.5)
    for k, v in enumerate(spec.get("vlines", [])):
        ls, colour = LINE_MARKS[k % len(LINE_MARKS)]
        ax.axvline(float(v["x"]), color=colour, ls=ls, lw=1.0, label=_label(v["label"]) if v.get("label") else None)
    for k, h in enumerate(spec.get("hlines", [])):
        ls, colour = LINE_MARKS[(k + len(spec.get("vlines", []))) % len(LINE_MARKS)]
        ax.axhline(float(h["y"]), color=colour, ls=ls, lw=1.0, label=_label(h["label"]) if h.get("label") else None)
    xs = np.concatenate([_arr(s["x"]) for s in series if "x" in s]) if any("x" in s for s in series) else np.zeros(1)
    _scale(ax, "x", spec.get("xscale", "linear"), xs)
    _scale(ax, "y", spec.get("yscale", "linear"), np.concatenate(ys_all) if ys_all else np.zeros(1))
    if spec.get("xscale", "linear") == "linear":
        ax.xaxis.set_major_locator(MaxNLocator(nbins=6))   # few ticks: labels never overprint
    if spec.get("yscale", "linear") == "linear":
        ax.yaxis.set_major_locator(MaxNLocator(nbins=6))
    if any(s.get("label") for s in series) or any(v.get("label") for v in (*spec.get("vlines", []),
                                                                          *spec.get("hlines", []))):
        _legend_outside(ax)


def _draw_spectrum(ax, spec: Mapping[str, Any]) -> None:
    groups = spec["groups"]
    pred = spec.get("predicted", {}) or {}
    allv = []
    for k, (name, vals) in enumerate(groups.items()):
        v = _arr(vals)
        allv.append(v)
        ax.hlines(v, k - 0.28, k + 0.28, color=f"C{k % 10}", lw=1.4)
        if name in pred:
            p = _arr(pred[name])
            allv.append(p)
            ax.plot(np.full(p.shape, k + 0.38), p, "o", mfc="none", mec="black", ms=4)
    if pred:
        ax.plot([], [], "o", mfc="none", mec="black", ms=4, label="predicted")
        ax.plot([], [], "-", color="C0", lw=1.4, label="measured")
        _legend_outside(ax)
    names = [_label(g) for g in groups]
    long_names = sum(len(str(g)) for g in groups) > 40 or len(groups) > 5
    ax.set_xticks(range(len(groups)), names, rotation=30 if long_names else 0, ha="right" if long_names else "center")
    ax.set_xlim(-0.6, len(groups) - 0.4)
    ax.axhline(0.0, color="0.6", lw=0.6)
    _scale(ax, "y", spec.get("yscale", "linear"), np.concatenate(allv) if allv else np.zeros(1))


def _draw(ax, spec: Mapping[str, Any]) -> None:
    if spec["kind"] == "curve":
        _draw_curve(ax, spec)
    else:
        _draw_spectrum(ax, spec)
    if spec.get("title"):
        ax.set_title(_label(spec["title"]))
    if spec.get("xlabel"):
        ax.set_xlabel(_label(spec["xlabel"]))
    if spec.get("ylabel"):
        ax.set_ylabel(_label(spec["ylabel"]))


def spec_figure(spec: Mapping[str, Any], stem: Path) -> FigureFile:
    """Draw a figure spec (see :mod:`~theorem_check.output.report.figspec`); raises ValueError if malformed."""
    errors = figure_errors(spec)
    if errors:
        raise ValueError("; ".join(errors))
    panels = list(spec["panels"]) if spec["kind"] == "panels" else [spec]
    ncols = min(3, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    width = {1: 5.0, 2: 6.4, 3: 6.8}[ncols]

    def entries(p):
        if p.get("kind") == "spectrum":
            return 2 if p.get("predicted") else 0
        ser = list(p.get("series", [])) + ([p] if "y" in p else [])
        return sum(bool(x.get("label")) for x in (*ser, *p.get("vlines", []), *p.get("hlines", [])))

    def label_len(p):
        ser = list(p.get("series", [])) + ([p] if "y" in p else [])
        return max((len(str(x.get("label", ""))) for x in (*ser, *p.get("vlines", []), *p.get("hlines", []))), default=0)

    legend_rows = max(math.ceil(entries(p) / (1 if label_len(p) > 45 else 2 if label_len(p) > 22 else 3))
                      for p in panels)
    height = (2.9 if ncols == 1 else 2.5) + 0.17 * legend_rows + (0.2 if legend_rows else 0.0)
    with rc_context(RC):
        fig = Figure(figsize=(width, height * nrows), layout="constrained")
        axes = fig.subplots(nrows, ncols, squeeze=False)
        for k, p in enumerate(panels):
            _draw(axes[k // ncols][k % ncols], p)
        for k in range(len(panels), nrows * ncols):
            axes[k // ncols][k % ncols].set_visible(False)
        return _save(fig, stem)
