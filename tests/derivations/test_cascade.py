"""Tests of the cascade paper's claims and of the closed forms behind them.

The registry-wide test (tests/test_registry.py) runs every claim and every negative control;
here: the catalogue of ids, the CLI listing, and Hypothesis properties of the closed forms
against independent computations (full-network Hessians, finite differences, potentials).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theorem_check as tc
from derivations.cascade import model as th
from tests.conftest import claim_result
from theorem_check import dln, sampling

tc.load_builtin()
ROOT = Path(__file__).resolve().parents[2]

EXPECTED = {
    "cascade.eq17", "cascade.landau", "cascade.n2_cascade", "cascade.bifurcation", "cascade.level_crossing",
    "cascade.hessian_n2", "cascade.hessian_n3", "cascade.hessian_kappa", "cascade.hessian_sectors", "cascade.minor2",
    "cascade.top_r", "cascade.top_r_kappa", "cascade.balance_identity", "cascade.balance_critical",
    "cascade.balance_flow", "cascade.slowing_exact", "cascade.slowing_riccati", "cascade.slowing_mode",
    "cascade.settle_it", "cascade.settle_crossing", "cascade.onset_nonaligned", "cascade.later_thresholds",
    "cascade.hysteresis",
}
ERRATA = {"cascade.minor2", "cascade.top_r_kappa"}
# natural reading holds; the literal reading is a refuted kind="reading" variant (audit-cascade)
READING_SETTLED = {"cascade.settle_it", "cascade.later_thresholds", "cascade.landau", "cascade.slowing_riccati",
                   "cascade.slowing_mode", "cascade.hessian_kappa", "cascade.top_r", "cascade.n2_cascade"}


def _claims():
    # the fast claims only: the slow simulations of derivations/cascade/simulations.py are tested in
    # test_cascade_simulations.py
    return {c.id: c for c in tc.REGISTRY if c.paper == "cascade" and not c.slow}


def test_every_statement_of_the_issue_is_registered():
    assert set(_claims()) == EXPECTED


def test_each_claim_documented_with_controls_and_source():
    doc = (ROOT / "docs" / "papers" / "cascade.md").read_text()
    for cid, c in _claims().items():
        assert c.controls, cid
        assert c.source.printed.strip(), cid
        assert f"`{cid}`" in doc, f"{cid} missing from docs/papers/cascade.md"


def test_errata_have_a_corrected_variant():
    for cid in ERRATA:
        assert any(v.kind == "corrected" for v in _claims()[cid].variants), cid


def test_cli_lists_the_paper():
    out = subprocess.run([sys.executable, "-m", "theorem_check", "list", "--paper", "cascade"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    for cid in EXPECTED:
        assert cid in out


# ---------------------------------------------------------------------------------------------
# Hypothesis properties of the closed forms
# ---------------------------------------------------------------------------------------------
@settings(max_examples=25)
@given(sampling.seeds(), st.integers(2, 4), st.lists(st.integers(1, 3), min_size=5, max_size=5), st.booleans())
def test_closed_form_spectrum_equals_full_hessian(seed, n, widths, kappa_one):
    """The block closed forms reproduce the full Hessian's spectrum at any aligned critical point."""
    rng = np.random.default_rng(seed)
    d = widths[: n + 1]
    r = int(rng.integers(0, min(d) + 1))
    k = int(rng.integers(r, min(d[0], d[-1]) + 1))
    beta = rng.uniform(0.1, 1.0)
    kappa = np.ones(d[0]) if kappa_one else np.exp(rng.uniform(-1, 1, size=d[0]))
    sig, eta_in = rng.uniform(0.5, 1.4, size=r), rng.uniform(0, 1.5, size=k - r)
    eta = np.array([th.eta_from_sigma(sig[p], kappa[p], beta, n) for p in range(r)] + list(eta_in))
    R, L = sampling.orthogonal(rng, d[0]), sampling.orthogonal(rng, d[-1])
    Sxx = (R * kappa) @ R.T
    Syx = dln.aligned_moments(kappa, eta, R, L)[1] if k else np.zeros((d[-1], d[0]))
    Ws = dln.aligned_weights(sig, d, R=R, L=L, U=[sampling.orthogonal(rng, d[i]) for i in range(1, n)])
    H = dln.population_hessian([W[None] for W in Ws], Sxx[None], Syx[None], beta=beta)[0]
    pred = np.sort(th.predicted_hessian_spectrum(n, d, sig, kappa, eta_in, beta))
    assert np.allclose(np.linalg.eigvalsh(H), pred, atol=1e-9 * max(1.0, np.abs(pred).max()))


@given(st.integers(3, 8), st.floats(0.1, 3.0), st.floats(0.2, 5.0))
def test_thresholds_bracket_and_level_crossing(n, eta, kappa):
    """beta* < beta_det; at beta* the nonzero critical point has L_j = 0 and sigma^n = u*; at beta_det it is double."""
    bs, bd = th.beta_star(eta, kappa, n), th.beta_det(eta, kappa, n)
    assert bs < bd
    s = th.u_star(eta, kappa, n) ** (1.0 / n)
    assert abs(th.landau(s, eta, kappa, bs, n)) <= 1e-10 * eta * s ** n
    assert abs(kappa * s ** (2 * n - 2) - eta * s ** (n - 2) + bs) <= 1e-10 * eta * s ** (n - 2)
    sd = th.u_det(eta, kappa, n) ** (1.0 / n)
    g = lambda x: x ** (n - 2) * (eta - kappa * x ** n)
    assert abs(g(sd) - bd) <= 1e-12 * bd and g(sd * 1.001) < bd and g(sd * 0.999) < bd


@given(st.integers(3, 6), st.floats(0.2, 2.0), st.floats(0.3, 3.0), st.floats(0.05, 0.95))
def test_global_minimum_switches_at_beta_star(n, eta, kappa, frac):
    """Scanning beta: the potential's global minimiser is nonzero below beta* and zero above."""
    bs = th.beta_star(eta, kappa, n)
    assert th.global_min_sigma(eta, kappa, bs * frac, n) > 0
    assert th.global_min_sigma(eta, kappa, bs * (1 + frac), n) == 0


@given(sampling.seeds(), st.integers(2, 4))
def test_landau_equals_full_loss_for_balanced_aligned_weights(seed, n):
    rng = np.random.default_rng(seed)
    d = 3
    kappa, eta = np.exp(rng.uniform(-1, 1, size=d)), rng.uniform(0.1, 2, size=d)
    sig, beta = rng.uniform(0.2, 1.3, size=d), rng.uniform(0.05, 1)
    R, L = sampling.orthogonal(rng, d), sampling.orthogonal(rng, d)
    Sxx, Syx = dln.aligned_moments(kappa, eta, R, L)
    Ws = dln.aligned_weights(sig, [d] * (n + 1), R=R, L=L, U=[sampling.orthogonal(rng, d) for _ in range(n - 1)])
    full = dln.population_loss([W[None] for W in Ws], Sxx[None], Syx[None], np.zeros((1, d, d)), beta=beta)[0]
    assert np.isclose(full, np.sum(th.landau(sig, eta, kappa, beta, n)), rtol=1e-10, atol=1e-12)


@given(st.floats(0.1, 2.0), st.floats(0.3, 3.0), st.floats(0.0, 1.0), st.floats(0.05, 2.0))
def test_scalar_slowing_solution_solves_the_flow(s0, kappa, eta, gap):
    """The logistic solution satisfies ds/dt = 4 s (eta - beta - kappa s), incl. beta = eta (gap 0 branch)."""
    for beta in (eta, eta + gap - 1.0):
        t = np.array([0.3, 1.7])
        h = 1e-6
        ds = (th.slowing_product(t + h, s0, kappa, eta, beta) - th.slowing_product(t - h, s0, kappa, eta, beta)) / (2 * h)
        s = th.slowing_product(t, s0, kappa, eta, beta)
        assert np.allclose(ds, 4 * s * (eta - beta - kappa * s), rtol=1e-5, atol=1e-9)


@given(st.integers(2, 5), st.lists(st.integers(1, 4), min_size=6, max_size=6), st.integers(0, 4))
def test_sector_counts_fit_in_the_parameter_count(n, widths, r):
    d = widths[: n + 1]
    r = min(r, min(d))
    c = th.sector_counts(n, d, r)
    P = sum(d[i] * d[i + 1] for i in range(n))
    data = r * (d[0] + d[-1]) - r * r        # dimension of the rank-r end-to-end maps (directions that move W)
    assert c["zero"] + c["four_beta"] + data <= P
    assert c["four_beta"] - c["zero"] == (n - 1) * r


@settings(max_examples=10)
@given(sampling.seeds())
def test_kkt_threshold_reduces_to_eta2_when_aligned(seed):
    """The non-aligned threshold machinery gives beta_2 = eta_2 for Sigma_xx = 1 (aligned)."""
    from derivations.cascade.nonaligned import _beta2_kkt

    rng = np.random.default_rng(seed)
    eta = np.array([rng.uniform(1.2, 2.0), rng.uniform(0.3, 0.9)])
    Syx = dln.aligned_moments(np.ones(2), eta, sampling.orthogonal(rng, 2), sampling.orthogonal(rng, 2))[1]
    assert abs(_beta2_kkt(np.eye(2), Syx) - eta[1]) <= 1e-8


@pytest.mark.parametrize("cid", sorted(ERRATA))
def test_errata_verdicts(cid):
    assert claim_result(_claims()[cid], seed=0).verdict is tc.Verdict.ERRATUM


@pytest.mark.parametrize("cid", sorted(READING_SETTLED))
def test_natural_reading_holds_and_a_reading_is_refuted(cid):
    r = claim_result(_claims()[cid], seed=0)
    assert r.verdict in (tc.Verdict.PROVED, tc.Verdict.VERIFIED), (cid, r.verdict)
    kinds = {v.name: v.kind for v in _claims()[cid].variants}
    refuted = [s.name for s in r.variants if s.verdict is tc.Verdict.REFUTED]
    assert refuted and all(kinds[n] == "reading" for n in refuted), (cid, refuted)


IDENTITY_CLAIMS = ["cascade.eq17", "cascade.landau", "cascade.hessian_n2", "cascade.hessian_n3", "cascade.hessian_kappa",
                   "cascade.balance_identity", "cascade.onset_nonaligned"]


@pytest.mark.parametrize("cid", IDENTITY_CLAIMS)
def test_identity_claims_hold_on_hypothesis_drawn_instances(cid):
    """Hypothesis draws the dims (from the claim's own DimSpace) and the seed: no instance of the identity fails
    by the engine's refinement rule (float32 -> float64 -> mp50), and on the same draw the sign-flipped control
    fails on at least one instance.  (It asserted a float64 floor of its own, ``eps * size * cond``, which the
    engine never decides by: cascade.balance_identity left 7.3e-14 above it at some random dims.)"""
    from theorem_check.engine.numeric import evaluate_instances
    from theorem_check.model.verdicts import Outcome

    st_ = _claims()[cid].statement

    @settings(max_examples=12, deadline=None)
    @given(st_.dims.strategy(), sampling.seeds())
    def prop(dims, seed):
        held = evaluate_instances(st_, dims, seed, 2)
        assert not [r for r in held if r.outcome is Outcome.FAILS], (dims, [r.residuals for r in held])
        flipped = evaluate_instances(tc.negate(st_), dims, seed, 2)
        zero = all(r.residuals and max(r.residuals.values()) == 0 for r in held + flipped)
        assert zero or any(r.outcome is Outcome.FAILS for r in flipped), (dims, [r.residuals for r in flipped])

    prop()


# ---------------------------------------------------------------------------------------------
# Issue 10: custom checks report measured and predicted values; the engine decides
# ---------------------------------------------------------------------------------------------
SIGN_FLIPPED = ["cascade.bifurcation", "cascade.level_crossing", "cascade.slowing_exact"]


@pytest.mark.parametrize("cid", SIGN_FLIPPED)
def test_sign_flipped_prediction_is_refuted(cid):
    """Regression (issue 10): these checks divided by the signed prediction, so the sign-flipped statement
    left a residual of -2.00 at every level and was VERIFIED.  Now the check returns measured and predicted
    values, the engine takes |measured - predicted| / scale: the negated statement is REFUTED with a gap of
    about 2, and the statement itself holds with its automatic sign mutant refuted."""
    st = _claims()[cid].statement
    flipped = tc.run_statement(tc.negate(st), seed=3)
    assert flipped.verdict is tc.Verdict.REFUTED, flipped.evidence
    gaps = [v for i in flipped.numeric.instances for v in i.residuals.values()]
    assert gaps and min(gaps) >= 1.9, gaps                      # |m + p| / max(|m|, |p|) = 2 for m ~ p
    ok = tc.run_statement(st, seed=3)
    assert ok.verdict in (tc.Verdict.PROVED, tc.Verdict.VERIFIED), ok.evidence
    assert ok.decided_by == "engine"
    mut = {m.name: m.outcome for m in ok.mutants}
    assert mut["sign"] is tc.Outcome.FAILS and all(o is tc.Outcome.FAILS for o in mut.values()), mut


def test_check_results_are_refinements_not_decisions():
    """No cascade check returns a decided tc.Measurement (deprecated, no mutant can test it); the cheap ones
    are called directly here (the registry test runs them all)."""
    for cid in ("cascade.bifurcation", "cascade.level_crossing", "cascade.top_r", "cascade.top_r_kappa"):
        for st in _claims()[cid].statements():  # noqa: F402 - a statement, not the strategies module
            if st.check is None:
                continue
            out = st.check(np.random.default_rng(0), dict(st.dims.generic()))
            assert isinstance(out, tc.Refinement), (cid, st.name, type(out).__name__)


def test_top_r_misclassification_is_a_gap_of_one_point():
    """cascade.top_r's encoding: measured class (1 = saddle) at float32 and float64 against the predicted
    class, scale one critical point.  The reversed ordering misclassifies at least one point at both
    precisions: a stalled gap >= 1, REFUTED; the statement's gap is exactly 0."""
    c = _claims()["cascade.top_r"]
    good = tc.run_statement(c.statement, seed=1)
    assert good.verdict is tc.Verdict.VERIFIED
    assert all(v == 0.0 for i in good.numeric.instances for v in i.residuals.values())
    bad = tc.run_statement(c.controls[0], seed=1)
    assert bad.verdict is tc.Verdict.REFUTED
    assert any(min(i.residuals.values()) >= 1.0 for i in bad.numeric.instances)


def test_kkt_threshold_when_the_top_direction_sits_at_the_end_of_the_angle_grid():
    """Regression (found by Hypothesis in CI): Syx's top right singular vector at angle pi - 8.6e-4, just
    inside the end of the [0, pi] grid of _rank1_min; the bracket was clamped at 0 and beta_2 came out
    2.3e-7 off eta_2.  The direction is pi-periodic, so the bracket now wraps."""
    from derivations.cascade.nonaligned import _beta2_kkt

    Syx = np.array([[-1.8544315, -0.09319119], [0.24732213, -0.70919379]])
    assert abs(_beta2_kkt(np.eye(2), Syx) - np.linalg.svd(Syx, compute_uv=False)[1]) <= 1e-12
