"""Tests of the noise paper's simulation machinery (the claims themselves run in tests/test_registry.py).

Fast: gradients of Net-A/Net-B against finite differences and their scale invariance, the closed-form
Gaussian moments Gamma_W / Gamma_U against per-sample gradients, the exact discrete Noether identity
that the floors rely on, the derived deep-linear equilibrium against the balance equations, and the
replica statistics.
"""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theorem_check as tc
from derivations import simulation as sc
from derivations.noise.simulators import (
    MFProblem,
    balance_terms,
    equilibrium_norms,
    layer_norms,
    output_balance_terms,
    per_sample_grads,
    printed_norms,
)
from theorem_check import dln


@given(st.sampled_from("AB"), st.integers(0, 2**32 - 1), st.integers(1, 3), st.integers(1, 5), st.integers(1, 4))
@settings(max_examples=20)
def test_scale_nets_gradients_and_invariance(net, seed, dy, h, dx):
    rng = np.random.default_rng(seed)
    R, n = 2, 3
    X, Y = rng.normal(size=(n, dx)), rng.normal(size=(n, dy))
    u, w = rng.normal(size=(R, dy, h)), rng.normal(size=(R, h, dx))
    gu, gw, loss = per_sample_grads(net, u, w, X, Y)
    # <theta, grad l> = 0 for every sample (global scale invariance, both nets)
    inner = np.einsum("rnyh,ryh->rn", gu, u) + np.einsum("rnhd,rhd->rn", gw, w)
    assert np.max(np.abs(inner)) < 1e-10 * (1 + np.max(np.abs(loss)))
    if net == "B":   # layer-wise invariance
        assert np.max(np.abs(np.einsum("rnyh,ryh->rn", gu, u))) < 1e-10 * (1 + np.max(np.abs(loss)))
    e = 1e-6
    du = np.zeros_like(u)
    du[0, rng.integers(dy), rng.integers(h)] = e
    fd = (per_sample_grads(net, u + du, w, X, Y)[2] - per_sample_grads(net, u - du, w, X, Y)[2]) / (2 * e)
    assert np.allclose(fd, np.einsum("rnyh,ryh->rn", gu, du / e), atol=1e-6, rtol=1e-5)
    dw = np.zeros_like(w)
    dw[1, rng.integers(h), rng.integers(dx)] = e
    fd = (per_sample_grads(net, u, w + dw, X, Y)[2] - per_sample_grads(net, u, w - dw, X, Y)[2]) / (2 * e)
    assert np.allclose(fd, np.einsum("rnhd,rhd->rn", gw, dw / e), atol=1e-6, rtol=1e-5)


def test_gammas_match_per_sample_gradient_moments():
    """4 W Gamma_W W^T = E[g_U^T g_U] and 4 U^T Gamma_U U = E[g_W g_W^T] (Monte Carlo, z-test on every entry)."""
    rng = np.random.default_rng(1)
    d0, d, d2, n = 3, 4, 2, 200_000
    sx, se = rng.uniform(0.5, 2, d0), rng.uniform(0.5, 2, d2)
    prob = MFProblem(sx, se, rng.normal(size=(d2, d0)))
    U, W = rng.normal(size=(1, d2, d)), rng.normal(size=(1, d, d0))
    X = rng.normal(size=(1, d0, n)) * np.sqrt(sx)[None, :, None]
    Y = prob.V @ X + rng.normal(size=(1, d2, n)) * np.sqrt(se)[None, :, None]
    gW, gU = dln.per_sample_gradients([W, U], X, Y)            # (1, n, d, d0), (1, n, d2, d)
    mU = np.einsum("bnij,bnik->bnjk", gU, gU)[0]                # g_U^T g_U, (n, d, d)
    mW = np.einsum("bnij,bnkj->bnik", gW, gW)[0]                # g_W g_W^T
    A, B = balance_terms(prob, U, W)
    for samples, target in ((mU, 4 * A[0]), (mW, 4 * B[0])):
        m, s = samples.mean(0), samples.std(0) / math.sqrt(n)
        assert np.max(np.abs(m - target) / s) < 6


def test_output_balance_is_the_balance_mapped_by_U():
    rng = np.random.default_rng(2)
    prob = MFProblem(np.ones(3), np.ones(3), np.eye(3))
    U, W = rng.normal(size=(2, 3, 5)), rng.normal(size=(2, 5, 3))
    A, B = balance_terms(prob, U, W)
    oa, ob = output_balance_terms(prob, U, W)
    assert np.allclose(oa, U @ A @ np.swapaxes(U, 1, 2)) and np.allclose(ob, U @ B @ np.swapaxes(U, 1, 2))


def test_discrete_noether_identity():
    """One SGD step changes W W^T - U^T U by eta^2 (g_W g_W^T - g_U^T g_U) exactly (Appendix D, double rotation)."""
    rng = np.random.default_rng(3)
    U, W = rng.normal(size=(1, 2, 4)), rng.normal(size=(1, 4, 3))
    X, Y = rng.normal(size=(1, 3, 5)), rng.normal(size=(1, 2, 5))
    gW, gU = [g.mean(1) for g in dln.per_sample_gradients([W, U], X, Y)]
    eta = 0.37
    U1, W1 = U - eta * gU, W - eta * gW
    C = lambda U, W: W @ np.swapaxes(W, 1, 2) - np.swapaxes(U, 1, 2) @ U   # noqa: E731
    pred = eta ** 2 * (gW @ np.swapaxes(gW, 1, 2) - np.swapaxes(gU, 1, 2) @ gU)
    assert np.allclose(C(U1, W1) - C(U, W), pred, atol=1e-12)


def _ansatz(V, sx, se, D, rng):
    """Weights of eq. 17's form with the derived Sigma_i (hidden widths = rank)."""
    Vp = np.sqrt(se)[:, None] * V * np.sqrt(sx)[None, :]
    L, s, Rt = np.linalg.svd(Vp, full_matrices=False)
    d = len(s)
    tau, ax, ae = s.sum(), sx.sum(), se.sum()
    c = (tau / math.sqrt(ax * ae)) ** (1.0 / D)
    sig1 = c * math.sqrt(ax / tau) * np.sqrt(s)
    sigD = s / (sig1 * c ** (D - 2))
    Us = [np.linalg.qr(rng.normal(size=(d, d)))[0] for _ in range(D - 1)]
    Ws = [(Us[0] * sig1) @ Rt / np.sqrt(sx)[None, :]]
    Ws += [c * Us[i] @ Us[i - 1].T for i in range(1, D - 1)]
    Ws.append((L * sigD) @ Us[-1].T / np.sqrt(se)[:, None])
    return Ws


@given(st.integers(0, 2**32 - 1), st.integers(2, 5))
@settings(max_examples=15)
def test_derived_equilibrium_solves_the_balance(seed, D):
    """The derived norms come from weights that (i) multiply to V and (ii) zero every pair's Noether flow."""
    rng = np.random.default_rng(seed)
    dx, dy = 3, 4
    sx, se = rng.uniform(0.3, 3, dx), rng.uniform(0.3, 3, dy)
    V = rng.normal(size=(dy, dx))
    Ws = _ansatz(V, sx, se, D, rng)
    P = Ws[0]
    for W in Ws[1:]:
        P = W @ P
    assert np.allclose(P, V, atol=1e-9)
    Sx, Se = np.diag(sx), np.diag(se)
    for i in range(D - 1):            # pair (W_{i+1}, W_{i+2}) in 1-based terms: layers i, i+1 here
        Bi = np.eye(dx)
        for W in Ws[:i]:
            Bi = W @ Bi
        A = np.eye(Ws[i + 1].shape[0])  # W_{D-1} ... W_{i+2} (0-based): the map after the pair
        for W in Ws[i + 2:]:
            A = W @ A
        lhs = np.trace(Bi @ Sx @ Bi.T) * Ws[i + 1].T @ A.T @ Se @ A @ Ws[i + 1]
        rhs = np.trace(A.T @ Se @ A) * Ws[i] @ Bi @ Sx @ Bi.T @ Ws[i].T
        assert np.allclose(lhs, rhs, atol=1e-9 * (1 + np.abs(lhs).max()))
    measured = layer_norms([W[None] for W in Ws], sx[None], se[None])[0]
    assert np.allclose(measured, equilibrium_norms(V, sx, se, D), rtol=1e-9)


def test_printed_eq19_only_when_traces_equal_rank():
    rng = np.random.default_rng(5)
    V = rng.normal(size=(3, 3))
    sx = np.array([0.5, 1.0, 1.5])            # trace 3 = d
    se = np.array([2.0, 0.5, 0.5])            # trace 3 = d
    assert np.allclose(printed_norms(V, sx, se, 4), equilibrium_norms(V, sx, se, 4))
    assert not np.allclose(printed_norms(V, 2 * sx, se, 4), equilibrium_norms(V, 2 * sx, se, 4), rtol=1e-3)


@given(st.integers(0, 2**32 - 1))
@settings(max_examples=20)
def test_ustat_is_exact_for_constant_replicas(seed):
    rng = np.random.default_rng(seed)
    m = rng.normal(size=(3, 4))
    q, se = sc.sq_norm_ustat(np.broadcast_to(m, (5, 3, 4)))
    assert math.isclose(q, float(np.sum(m * m)), rel_tol=1e-12) and se < 1e-9 * (1 + q)


def test_ustat_centred_under_zero_mean():
    rng = np.random.default_rng(6)
    zs = [sc.sq_norm_ustat(rng.normal(size=(12, 40))) for _ in range(400)]
    qs = np.array([q for q, _ in zs])
    assert abs(qs.mean()) < 4 * qs.std() / math.sqrt(len(qs))
    assert 0.5 < np.mean([se for _, se in zs]) / qs.std() < 2.0


def test_richardson_removes_first_order_bias():
    h = 0.1
    f = lambda h: 3.0 + 2.0 * h   # noqa: E731
    assert math.isclose(sc.richardson(f(h), f(h / 2)), 3.0)


@pytest.mark.parametrize("raw,expected", [("ci", 1.0), ("paper", 4.0), ("2.5", 2.5), (None, 1.0)])
def test_budget(monkeypatch, raw, expected):
    monkeypatch.setattr(sc, "BUDGET", None)
    if raw is None:
        monkeypatch.delenv("THEOREM_CHECK_BUDGET", raising=False)
    else:
        monkeypatch.setenv("THEOREM_CHECK_BUDGET", raw)
    assert sc.budget() == expected


@pytest.mark.parametrize("raw", ["fast", "-1", "0"])
def test_budget_rejects_bad_values(monkeypatch, raw):
    monkeypatch.setattr(sc, "BUDGET", raw)
    with pytest.raises(tc.InvalidArgument, match="THEOREM_CHECK_BUDGET"):
        sc.budget()


def test_figures_follow_the_report_convention():
    from theorem_check.output.report.figspec import figure_errors

    fig = {"title": "t", "panels": [
        {"kind": "line", "xlabel": "step", "ylabel": "y", "yscale": "log", "vlines": [{"x": 1.0, "label": "a"}],
         "series": [{"label": "a", "x": [1, 2, 3], "y": [1.0, 0.5, 0.25]}]},
        {"kind": "scatter", "xlabel": "x", "ylabel": "y", "diagonal": True,
         "series": [{"label": "b", "x": np.arange(3), "y": np.arange(3) + 0.1, "style": "points"}]}]}
    assert figure_errors(sc.as_figspec(fig)) == []
    assert figure_errors(sc.as_figspec({"title": "one", "panels": fig["panels"][:1]})) == []
    assert sc.as_figspec(None) is None


def test_extrapolated_test_counts_the_last_correction():
    rng = np.random.default_rng(7)
    truth, a, b, eta = 1.0, 0.4, 3.0, 0.1
    coarse = truth + a * eta + b * eta ** 2 + 1e-4 * rng.normal(size=50)
    fine = truth + a * eta / 2 + b * eta ** 2 / 4 + 1e-4 * rng.normal(size=50)
    t = sc.extrapolated_test(coarse, fine, truth)
    assert t["outcome"] is tc.Outcome.HOLDS            # the O(eta^2) remainder is inside the stated error
    assert t["sys"] > abs(t["mean"] - truth)
    assert sc.extrapolated_test(coarse, fine, 2 * truth)["outcome"] is tc.Outcome.FAILS


def test_zero_test_allowance():
    rng = np.random.default_rng(8)
    D = 0.01 + 1e-3 * rng.normal(size=(20, 3, 3))     # a small systematic offset, resolved by the noise level
    assert sc.zero_test(D, 1.0)["outcome"] is tc.Outcome.FAILS
    assert sc.zero_test(D, 1.0, allowance=2 * 9 * 0.01 ** 2)["outcome"] is tc.Outcome.HOLDS
    assert sc.zero_test(D + 1.0, 1.0, allowance=2 * 9 * 0.01 ** 2)["outcome"] is tc.Outcome.FAILS


# --- trust model 2: what the simulation checks report (issue 10) -------------------------------------------------

@given(st.integers(0, 2**32 - 1), st.floats(-3, 3))
@settings(max_examples=40)
def test_ratio_perp_encodes_every_multiple(seed, c):
    """||A - c B||^2 / ||B||^2 = (rho - c)^2 + perp^2 for every c: (rho, perp) vs (c, 0) is A vs c B."""
    rng = np.random.default_rng(seed)
    A, B = rng.normal(size=(3, 4, 4)), rng.normal(size=(3, 4, 4))
    rho, perp = sc.ratio_perp(A, B)
    lhs = np.sum((A - c * B) ** 2, axis=(1, 2)) / np.sum(B * B, axis=(1, 2))
    assert np.allclose(lhs, (rho - c) ** 2 + perp ** 2, rtol=1e-10)
    rho2, perp2 = sc.ratio_perp(2.5 * B, B)
    assert np.allclose(rho2, 2.5) and np.allclose(perp2, 0.0, atol=1e-12)


@given(st.lists(st.floats(1e-12, 1e-1), min_size=2, max_size=4, unique=True), st.integers(0, 2**32 - 1))
@settings(max_examples=80)
def test_resolvable_perturbation_is_refuted_whatever_the_true_residual(floors, seed):
    """The stated resolution is refuted by the refinement rule for every true residual pattern within the floors."""
    floors = sorted(floors, reverse=True)
    delta = sc.resolvable(floors)
    rng = np.random.default_rng(seed)
    for _ in range(20):
        true = rng.uniform(0, 1, len(floors)) * np.array(floors)
        sign = rng.choice([-1.0, 1.0], len(floors))
        mutant = np.abs(delta + sign * true)
        assert tc.decide_refinement(list(mutant), floors) is tc.Outcome.FAILS
        assert tc.decide_refinement(list(true), floors) is tc.Outcome.HOLDS


def test_require_converged_raises_not_converged():
    sc.require_converged({"a": {"converged": True, "z": 0.3}})
    with pytest.raises(sc.NotConverged, match="b: z=7.0"):
        sc.require_converged({"a": {"converged": True, "z": 0.3}, "b": {"converged": False, "z": 7.0}})


def test_montecarlo_helper_is_decided_by_the_engine_and_refutes_a_sign_flip():
    """A check's MonteCarlo is decided by the engine; its sign, factor and 12.2-se mutants are refuted."""
    from theorem_check.engine.evaluate import evaluate_result

    est, se = np.array([2.01, 1.98]), np.array([0.02, 0.03])
    ev = evaluate_result(sc.montecarlo(est, [2.0, 2.0], se), "test")
    assert ev.outcome is tc.Outcome.HOLDS
    assert all(o is tc.Outcome.FAILS for o in ev.mutants.values()), ev.mutants
    assert evaluate_result(sc.montecarlo(est, [-2.0, -2.0], se), "test").outcome is tc.Outcome.FAILS
    assert evaluate_result(sc.montecarlo(est, [1.0, 1.0], se), "test").outcome is tc.Outcome.FAILS


def test_extrapolated_estimate_matches_extrapolated_test():
    rng = np.random.default_rng(9)
    coarse, fine = 1.2 + 0.01 * rng.normal(size=20), 1.1 + 0.01 * rng.normal(size=20)
    m, se = sc.extrapolated_estimate(coarse, fine)
    t = sc.extrapolated_test(coarse, fine, 1.0)
    assert math.isclose(float(m), t["mean"]) and math.isclose(float(se), t["se"])


@given(st.integers(0, 2**32 - 1), st.floats(0.005, 0.05))
@settings(max_examples=20)
def test_gd_floor_bounds_the_drift_of_the_conserved_charge(seed, eta):
    """The floor of noise.fig2_gd_sim: ||C_T - C_0|| <= sum_t eta^2 ||g_W g_W^T - g_U^T g_U|| along population GD."""
    from derivations.noise.simulators import population_gradients

    rng = np.random.default_rng(seed)
    prob = MFProblem(rng.uniform(0.5, 1.5, 3), rng.uniform(0.5, 1.5, 2), rng.normal(size=(2, 3)))
    U, W = 0.5 * rng.normal(size=(1, 2, 4)), 0.5 * rng.normal(size=(1, 4, 3))
    T = lambda a: np.swapaxes(a, -1, -2)   # noqa: E731
    C0, bound = W @ T(W) - T(U) @ U, 0.0
    for _ in range(50):
        gU, gW = population_gradients(prob, U, W)
        bound += eta ** 2 * float(np.linalg.norm(gW[0] @ gW[0].T - gU[0].T @ gU[0]))
        U, W = U - eta * gU, W - eta * gW
    drift = float(np.linalg.norm(W @ T(W) - T(U) @ U - C0))
    assert drift <= bound * (1 + 1e-9) + 1e-12


def test_dynamics_checks_no_longer_decide_themselves():
    """No check of the simulation claims builds a decided tc.Measurement (trust model 2, issue 10)."""
    import inspect

    import derivations.cascade.simulations as cd
    from derivations.noise import simulations_appendix_a, simulations_fig2, simulations_fig4, simulations_fig5

    for mod in (simulations_fig2, simulations_appendix_a, simulations_fig4, simulations_fig5, cd, sc):
        src = inspect.getsource(mod)
        assert "tc.Measurement(" not in src and "sc.measurement(" not in src and "decide_refinement(" not in src.replace(
            "``decide_refinement``", "")
