"""The figure convention (Measurement.figure) and its drawing."""

import numpy as np
import pytest

from theorem_check.output.report.figspec import figure_errors, validate_figure

GOOD = [
    {"kind": "curve", "x": [0, 1, 2], "y": [1.0, 0.5, 0.9]},
    {"kind": "curve", "series": [{"x": [0, 1], "y": [1, 2], "label": "beta up", "style": "o-"},
                                 {"x": [1, 0], "y": [2, 1.5], "label": "beta down", "style": "--"}],
     "marks": [{"x": 0.5, "y": 1.2, "label": "minimum"}], "vlines": [{"x": 0.7}], "yscale": "log",
     "xlabel": "$\\beta$", "caption": "hysteresis"},
    {"kind": "spectrum", "groups": {"sym": np.array([1.0, 2.0]), "anti": [-1e-3, 0.0]},
     "predicted": {"sym": [1.0, 2.0]}, "yscale": "symlog"},
    {"kind": "panels", "panels": [{"kind": "curve", "y": [1, 2]}, {"kind": "spectrum", "groups": {"a": [1]}}]},
]
BAD = [
    (None, "must be a mapping"),
    ({"kind": "pie"}, "must be one of"),
    ({"kind": "curve"}, "needs 'series'"),
    ({"kind": "curve", "x": [1, 2], "y": [1]}, "x has 2 values, y has 1"),
    ({"kind": "curve", "y": ["a"]}, "sequence of numbers"),
    ({"kind": "curve", "y": [1, float("inf")]}, "must be finite"),
    ({"kind": "curve", "y": [1], "style": "wavy"}, "style='wavy'"),
    ({"kind": "curve", "y": [1], "yscale": "loglog"}, "yscale='loglog'"),
    ({"kind": "curve", "y": [1], "marks": [{"x": 1}]}, "marks[0] must be a mapping with x, y"),
    ({"kind": "curve", "y": [1], "title": 3}, "title must be a string"),
    ({"kind": "spectrum", "groups": {}}, "non-empty mapping 'groups'"),
    ({"kind": "panels", "panels": [{"kind": "panels", "panels": []}]}, "must not itself be 'panels'"),
]


@pytest.mark.parametrize("spec", GOOD, ids=[s["kind"] for s in GOOD])
def test_good_specs_validate_and_draw(spec, tmp_path):
    from theorem_check.output.report.figures import spec_figure

    assert validate_figure(spec) is spec
    f = spec_figure(spec, tmp_path / "f")
    assert f.pdf.stat().st_size > 1000 and f.png.stat().st_size > 1000


@pytest.mark.parametrize("spec,message", BAD, ids=[m for _, m in BAD])
def test_bad_specs_name_the_problem(spec, message):
    errors = figure_errors(spec)
    assert any(message in e for e in errors), errors
    with pytest.raises(ValueError):
        validate_figure(spec)


def test_figspec_needs_no_matplotlib():
    import subprocess
    import sys

    code = ("import sys; import theorem_check.output.report.figspec as f; "
            "assert 'matplotlib' not in sys.modules and 'jinja2' not in sys.modules")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0


def test_bad_math_label_is_printed_literally(tmp_path):
    from theorem_check.output.report.figures import spec_figure

    spec_figure({"kind": "curve", "y": [1, 2], "xlabel": "$\\notamacro{x}$", "title": "cost $5"}, tmp_path / "g")


def test_sweeps_are_split_and_legends_sit_outside_the_data(tmp_path):
    """Up- and down-sweeps in one series are drawn as separate lines; the legend is outside the axes."""
    from matplotlib.figure import Figure

    from theorem_check.output.report.figures import LINE_MARKS, _draw_curve, _monotone_runs

    x = np.array([0.0, 0.5, 1.0, 0.5, 0.0])
    assert [(r.start, r.stop) for r in _monotone_runs(x)] == [(0, 3), (2, 5)]
    fig = Figure(layout="constrained")
    ax = fig.add_subplot()
    spec = {"kind": "curve", "series": [{"x": x, "y": x ** 2, "label": "sweep"}],
            "vlines": [{"x": 0.2, "label": "a"}, {"x": 0.4, "label": "b"}]}
    _draw_curve(ax, spec)
    assert len(ax.get_lines()) == 2 + 2                   # two sweep segments + two marker lines
    styles = {(ln.get_linestyle(), ln.get_color()) for ln in ax.get_lines()[2:]}
    assert len(styles) == 2 and len(LINE_MARKS) >= 4      # marker lines differ from each other
    fig.canvas.draw()
    leg = ax.get_legend().get_window_extent()
    assert leg.y1 <= ax.get_window_extent().y0 + 1        # below the axes, not over the data


def test_residual_axis_ticks_are_powers_of_ten_in_plain_text():
    """Tick labels use Unicode superscripts, not mathtext: matplotlib parsed each ``$10^{k}$`` again for every
    figure and backend, half of a residual figure's drawing time."""
    from theorem_check.output.report.figures import _pow10

    assert [_pow10(v) for v in (1e-16, 1e3, 1.0, 3e-5, 0.0)] == ["10\u207b\u00b9\u2076", "10\u00b3", "10\u2070", "", ""]


def test_residual_figure_draws_each_series_as_one_line_collection(tmp_path, monkeypatch):
    from matplotlib.collections import LineCollection

    from theorem_check.output.report import figures as F

    insts = [{"float32": 1e-6 * (k + 1), "float64": 1e-15 * (k + 1), "mp50": 0.0 if k == 0 else 1e-50} for k in range(5)]
    series = [F.ResidualSeries("printed", "printed", insts, {"float64": 1e-15}),
              F.ResidualSeries("control", "control", [{"float32": 1e-3, "float64": 1e-3}], {})]
    seen = []
    real = F._save

    def capture(fig, stem):
        seen.append(fig)
        return real(fig, stem)

    monkeypatch.setattr(F, "_save", capture)
    f = F.residual_figure(series, tmp_path / "r")
    assert f.pdf.stat().st_size > 1000 and f.png.stat().st_size > 1000
    cols = [c for c in seen[0].axes[0].collections if isinstance(c, LineCollection)]
    assert [len(c.get_segments()) for c in cols] == [5, 1]   # one line per instance, one artist per series


@pytest.mark.parametrize("label", ["corrected 12", "a reading with a long name (transpose convention)"])
def test_residual_legend_stays_inside_the_figure(tmp_path, monkeypatch, label):
    """The short labels the report writes get fixed margins (no constrained layout, RESIDUAL_MARGINS); a longer
    one gets the constrained layout: either way the legend lies inside the saved figure."""
    from theorem_check.output.report import figures as F

    insts = [{"float32": 1e-6, "float64": 1e-15, "mp50": 1e-50}]
    series = [F.ResidualSeries("as printed", "printed", insts, {"float64": 1e-15}),
              F.ResidualSeries(label, "corrected", insts, {})]
    seen = []
    real = F._save
    monkeypatch.setattr(F, "_save", lambda fig, stem: (seen.append(fig), real(fig, stem))[1])
    F.residual_figure(series, tmp_path / "r")
    fig = seen[0]
    assert (fig.get_layout_engine() is None) == (len(label) <= F.RESIDUAL_LABEL_FITS)
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(fig).get_renderer()
    fig.draw(renderer)
    box = fig.axes[0].get_legend().get_window_extent(renderer)
    width, height = fig.bbox.width, fig.bbox.height
    assert 0 <= box.x0 and box.x1 <= width + 0.5 and 0 <= box.y0 and box.y1 <= height + 0.5, (box, width)
