"""Reports: files, contents, the CLI, PDF compilation (skipped without TeX Live), every paper."""

import os
import subprocess
import sys

import pytest

from theorem_check import REGISTRY, RunResult, run_claims
from theorem_check.report import NoLatexEngine, render_report, write_report
from theorem_check.runner import versions

from .conftest import HAVE_PDFTOTEXT, PACKS, ROOT, builtin_claims, cached_results, needs_latex


def tc(*args, env=None):
    p = subprocess.run([sys.executable, "-m", "theorem_check", *args], capture_output=True, text=True, cwd=ROOT,
                       env=env)
    return p.returncode, p.stdout, p.stderr


def _run(claims, **kw):
    return run_claims(claims, seed=0, trials=kw.pop("trials", 8), **kw)


def _pdf_text(pdf):
    return subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                          errors="replace").stdout


def test_report_tex_json_and_figures(tmp_path, pack_claims):
    claims = pack_claims("transpose", "inverse")
    run = _run(claims, controls=True)
    path = write_report(run, tmp_path)
    assert path == tmp_path / "report.tex"
    tex = path.read_text()
    for r in run.results:
        assert r.id.replace("_", r"\_") in tex
        assert f"{{{r.verdict.value}}}" in tex
    assert (tmp_path / "report.json").is_file()
    figs = sorted(p.name for p in (tmp_path / "figures").iterdir())
    assert "invdemo-inverse-wrong-residuals.pdf" in figs and "invdemo-inverse-wrong-residuals.png" in figs
    assert any(n.startswith("invdemo-orbit-minimum-s0-") for n in figs)  # the custom check's figure data
    assert "Negative controls" in tex and r"\section{Errata}" in tex


def test_same_seed_same_report(pack_claims):
    claims = pack_claims("inverse")
    a, b = render_report(_run(claims)), render_report(_run(claims))
    strip = lambda s: [ln for ln in s.splitlines() if "\\,s" not in ln and "trials per statement" not in ln]
    assert strip(a) == strip(b)


def test_empty_run_renders():
    tex = render_report(RunResult((), 0, 16, versions(), "2026-01-01T00:00:00"))
    assert "This report contains no claims." in tex


def test_malformed_figure_data_is_a_note_not_a_crash(tmp_path):
    import dataclasses

    import theorem_check as tc_

    def check(rng, d):
        return tc_.Measurement(tc_.Outcome.HOLDS, residuals={"a": 1e-3, "b": 1e-9},
                               figure={"kind": "curve", "x": [1, 2], "y": [1, 2, 3]})

    st = tc_.Statement("x = x", dims=tc_.DimSpace({"n": (1, 1)}), check=check)
    claim = tc_.Claim(id="figbad.c", title="t", source=tc_.Source("figbad", "1", "(1)", "x = x"), statement=st,
                      controls=(dataclasses.replace(st, name="control: none", kind="control"),))
    write_report(run_claims([claim], trials=8), tmp_path)
    tex = (tmp_path / "report.tex").read_text()
    assert "is malformed: figure.series{[}0{]}: x has 2 values, y has 3" in tex


def test_pdf_without_latexmk_exits_2_in_one_line(tmp_path):
    env = dict(os.environ, PATH=str(tmp_path))  # no latexmk on this PATH
    code, out, err = tc("report", "--pack", str(PACKS["transpose"]), "-o", str(tmp_path / "o"), "--pdf", env=env)
    assert code == 2 and "Traceback" not in err
    assert err.count("\n") == 1 and "--pdf needs latexmk" in err
    assert not (tmp_path / "o").exists()  # checked before running anything


def test_write_report_pdf_raises_without_engine(tmp_path, monkeypatch, pack_claims):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(NoLatexEngine):
        write_report(_run(pack_claims("transpose")), tmp_path, pdf=True)


def _check_pdf(pdf, results):
    assert pdf.is_file()
    if HAVE_PDFTOTEXT:
        txt = _pdf_text(pdf)
        flat = " ".join(txt.split())
        for r in results:
            assert r.id in flat, r.id
            assert r.verdict.value in flat


@needs_latex
def test_cli_report_pdf_packs_with_specials(tmp_path):
    """The pack claims whose titles, statements and notes are full of LaTeX specials compile."""
    out = tmp_path / "o"
    code, stdout, err = tc("report", "--pack", str(PACKS["transpose"]), "--pack", str(PACKS["inverse"]), "--pack",
                           str(PACKS["specials"]), "-o", str(out), "--pdf", "--controls", "--trials", "8")
    assert code == 1, err  # the packs hold errata
    assert stdout.strip() == str(out / "report.pdf"), err
    if HAVE_PDFTOTEXT:
        flat = " ".join(_pdf_text(out / "report.pdf").split())
        for cid in ("demo.transpose_right", "demo.transpose_wrong", "invdemo.inverse_wrong", "invdemo.orbit_minimum",
                    "specials.title_and_statement", "specials.broken_latex"):
            assert cid in flat
        for v in ("PROVED", "VERIFIED", "ERRATUM", "REFUTED", "ILL-POSED"):
            assert v in flat
        assert "Specials _ ^ & % # { } \\ ~ in a title" in flat  # printed literally


@pytest.mark.parametrize("paper", ["prh", "noise", "cascade"])
@needs_latex
def test_report_of_every_paper_compiles(tmp_path, paper):
    """A claim whose text breaks LaTeX fails CI here."""
    claims = [c for c in builtin_claims() if c.paper == paper and not c.slow]
    if not claims:
        pytest.skip(f"paper {paper!r} has no claims yet")
    results = cached_results(claims)
    run = RunResult(tuple(results), 0, 16, versions(), "2026-01-01T00:00:00",
                    skipped_slow=tuple(c.id for c in REGISTRY if c.paper == paper and c.slow))
    pdf = write_report(run, tmp_path, pdf=True)
    _check_pdf(pdf, results)
