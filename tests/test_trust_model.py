"""Trust model 2 (DESIGN.md): the engine decides, mutants prove a check can fail, coverage, undefined, bad claims."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import theorem_check as tc
from theorem_check import sampling
from theorem_check.errors import InvalidArgument

SQ = tc.DimSpace({"n": (1, 4)})


def _two(rng, d, batch):
    return {"A": sampling.gaussian(rng, d["n"], batch=batch), "B": sampling.gaussian(rng, d["n"], batch=batch)}


def _claim(cid, lhs, rhs, *, sample=_two, dims=SQ, controls=(), **kw) -> tc.Claim:
    st_ = tc.Statement("x", dims=dims, sample=sample, lhs=lhs, rhs=rhs, **kw)
    c = tc.Claim(id=cid, title=cid, source=tc.Source("tm", "1", "1", "x"), statement=st_, controls=controls)
    c.validate()
    return c


# statements false in general but true at size 1: the generic configuration is always among the instances
FALSE_AT_SIZE_GT_1 = {
    "tm.commute": (lambda i, c: i.A @ i.B, lambda i, c: i.B @ i.A),
    "tm.symmetric": (lambda i, c: c.T(i.A), lambda i, c: i.A),
    "tm.trace_product": (lambda i, c: c.trace(i.A @ i.B), lambda i, c: c.trace(i.A) * c.trace(i.B)),
    "tm.det_sum": (lambda i, c: c.det(i.A + i.B), lambda i, c: c.det(i.A) + c.det(i.B)),
}


@pytest.mark.parametrize("cid", sorted(FALSE_AT_SIZE_GT_1))
def test_statements_true_only_at_size_one_are_refuted_on_every_seed(cid):
    claim = _claim(cid, *FALSE_AT_SIZE_GT_1[cid])
    for seed in range(200):
        r = tc.run_claim(claim, seed=seed, trials=1)  # --trials 1 still covers the generic configuration
        assert r.verdict is tc.Verdict.REFUTED, (seed, r.evidence)


def test_generic_configuration_is_run_first_and_named():
    claim = _claim("tm.cyclic", lambda i, c: c.trace(i.A @ i.B), lambda i, c: c.trace(i.B @ i.A))
    r = tc.run_claim(claim, seed=3, trials=16)
    assert r.verdict is tc.Verdict.VERIFIED
    assert r.printed.configs[0] == {"n": 3}
    assert len({tuple(c.items()) for c in r.printed.configs}) == len(r.printed.configs)  # without replacement
    assert "dims n=3" in r.evidence


def test_generic_configuration_prefers_sizes_at_least_two_and_distinct():
    space = tc.DimSpace({"m": (1, 4), "k": (1, 4), "n": (1, 4)})
    g = space.generic()
    assert min(g.values()) >= 2 and len(set(g.values())) == 3
    assert tc.DimSpace({"n": (1, 4)}).generic() == {"n": 3}


def test_degenerate_space_warns_unless_scalar():
    """Issue 23: a scalar identity over DimSpace({"one": (1, 1)}) loads as in the previous release, with a
    deprecation warning asking for scalar=True (a later release refuses it)."""
    import warnings

    with pytest.warns(tc.TheoremCheckDeprecationWarning, match="degenerate"):
        _claim("tm.deg", lambda i, c: i.A, lambda i, c: i.A, dims=tc.DimSpace({"one": (1, 1)}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _claim("tm.scalar", lambda i, c: i.A, lambda i, c: i.A, dims=tc.DimSpace({"n": (1, 1)}, scalar=True))
    # custom checks draw their own data: any space (packs written before trust model 2 keep registering)
    st_ = tc.Statement("x", dims=tc.DimSpace({"k": (1, 1)}), check=lambda rng, d: None)
    tc.Claim(id="tm.chk", title="t", source=tc.Source("tm", "1", "1", "x"), statement=st_).validate()


def test_true_identity_mutants_all_refuted_and_sensitivity_fine():
    claim = _claim("tm.cyclic2", lambda i, c: c.trace(i.A @ i.B), lambda i, c: c.trace(i.B @ i.A))
    r = tc.run_claim(claim, seed=0)
    muts = {m.name: m for m in r.printed.mutants}
    assert set(muts) == {"sign", "factor 2", "factor 1/2", "relative 1e-06"}
    assert all(m.refuted for m in muts.values())
    assert r.printed.sensitivity is not None and r.printed.sensitivity <= 1e-12
    assert r.printed.decided_by == "engine"


def test_zero_right_side_gets_additive_mutants():
    def sample(rng, d, batch):
        return {"A": sampling.symmetric(rng, d["n"], batch=batch)}

    # a declared scale says what the zero is measured against: additive mutants of that size are refuted
    claim = _claim("tm.zero", lambda i, c: i.A - c.T(i.A), lambda i, c: 0 * i.A, sample=sample,
                   scale=lambda i, c: c.norm(i.A))
    r = tc.run_claim(claim, seed=1)
    assert r.verdict is tc.Verdict.VERIFIED
    assert r.printed.mutants and all(m.refuted for m in r.printed.mutants)
    # without one, both sides vanish on every instance: vacuous (trust model 3), never VERIFIED
    bare = _claim("tm.zero_bare", lambda i, c: i.A - c.T(i.A), lambda i, c: 0 * i.A, sample=sample)
    r = tc.run_claim(bare, seed=1)
    assert r.verdict is tc.Verdict.INCONCLUSIVE and "vacuous" in r.evidence


# --------------------------------------------------------------------------- custom checks: engine decides
def _opt_check(sign=1.0, floors=(1e-4, 1e-8, 1e-12)):
    """Newton iterations for sqrt(2) at three tolerances; the statement predicts sqrt(2)."""

    def check(rng, d):
        x, measured = 1.0 + rng.uniform(), []
        for tol in floors:
            while abs(x * x - 2) / 2 > tol:
                x = 0.5 * (x + 2 / x)
            measured.append(x)
        return tc.Refinement.of([f"tol={t:g}" for t in floors], measured=measured, predicted=sign * np.sqrt(2.0),
                                floors=list(floors), resolution=1e-6)

    return check


def _check_claim(cid, check, controls_fn=None):
    s = tc.Statement("x = \\sqrt 2", dims=tc.DimSpace({"k": (2, 3)}), check=check)
    controls = controls_fn(s) if controls_fn else ()
    c = tc.Claim(id=cid, title=cid, source=tc.Source("tm", "1", "1", "x"), statement=s, controls=controls)
    c.validate()
    return c


def test_refinement_check_verified_and_mutants_refuted():
    r = tc.run_claim(_check_claim("tm.newton", _opt_check()), seed=0, controls=False)
    assert r.verdict is tc.Verdict.VERIFIED, r.evidence
    assert all(m.refuted for m in r.printed.mutants), r.printed.mutants


def test_sign_flipped_custom_check_is_refuted():
    r = tc.run_claim(_check_claim("tm.newton_sign", _opt_check(sign=-1.0)), seed=0)
    assert r.verdict is tc.Verdict.REFUTED


def test_perturb_predicted_runs_through_the_same_path():
    claim = _check_claim("tm.newton_ctl", _opt_check(), lambda s: (tc.negate(s), tc.double(s),
                                                                    tc.perturb(s, "1e-4", predicted=lambda p: p * (1 + 1e-4))))
    r = tc.run_claim(claim, seed=0, controls=True)
    assert [c.verdict for c in r.controls] == [tc.Verdict.REFUTED] * 3


def test_a_control_may_reuse_its_statements_measurement():
    """``same_measurement=True``: the controls are decided on the statement's own measurement (the check runs
    for the statement's instances only, plus the shrinking of a refuted control to a smaller size: a
    simulation of minutes is not run again) and are still REFUTED; without it each control draws and
    measures anew.  The controls' measured values are the statement's."""
    calls = []

    def counting(rng, d):
        calls.append(dict(d))
        return _opt_check()(rng, d)

    def run(same, controls):
        calls.clear()
        claim = _check_claim(f"tm.reuse{int(same)}", counting,
                             lambda s: (tc.double(s, same_measurement=same), tc.negate(s, same_measurement=same)))
        return tc.run_claim(claim, seed=0, controls=controls), len(calls)

    counts = {}
    for same in (True, False):
        r, counts[same] = run(same, True)
        assert r.verdict is tc.Verdict.VERIFIED and [c.verdict for c in r.controls] == [tc.Verdict.REFUTED] * 2
        measured = [i.measured for i in r.printed.numeric.instances]
        if same:
            assert all([i.measured for i in c.numeric.instances] == measured for c in r.controls)
    alone = run(True, False)[1]
    assert counts[True] - alone < counts[False] - alone, (counts, alone)   # shrinking only vs every instance again
    with pytest.raises(tc.ClaimDefinitionError, match="give predicted="):
        tc.perturb(tc.Statement("x", dims=tc.DimSpace({"k": (2, 3)}), check=_opt_check()), "x", same_measurement=True)


def test_check_that_cannot_fail_is_insensitive():
    # floors so loose that the factor-2 prediction also "holds": the engine calls it INSENSITIVE
    r = tc.run_claim(_check_claim("tm.loose", _opt_check(floors=(0.9, 0.8))), seed=0)
    assert r.verdict is tc.Verdict.INCONCLUSIVE
    assert "INSENSITIVE" in r.evidence


def test_floor_below_working_precision_is_a_bad_claim():
    def check(rng, d):
        return tc.Refinement.of(["a", "b"], measured=[1.0, 1.0], predicted=1.0, floors=[1e-10, 1e-30])

    r = tc.run_claim(_check_claim("tm.lowfloor", check), seed=0)
    assert r.printed.numeric.bad and "below what float64 can resolve" in r.printed.numeric.bad


@pytest.mark.parametrize("noise", [1e-17, -3e-16, 0.0])
def test_zero_prediction_without_scale_is_a_bad_claim_not_a_verdict(noise):
    """A quantity that should vanish, measured as rounding noise: |m - 0| / |m| = 1 at every level would
    REFUTE a true statement (issue 18, left open last round); the engine asks for scale= instead."""
    def check(rng, d):
        return tc.Refinement.of(["a", "b"], measured=[noise, noise / 2], predicted=0.0, floors=[1e-6, 1e-12])

    r = tc.run_claim(_check_claim(f"tm.zeropred{abs(hash(noise)) % 1000}", check), seed=0)
    assert r.printed.numeric.bad and "predicted is 0 and no scale=" in r.printed.numeric.bad
    assert r.verdict is not tc.Verdict.REFUTED


def test_zero_prediction_with_scale_decides():
    def check(rng, d, sign=1.0):
        return tc.Refinement.of(["a", "b"], measured=[1e-7, 1e-13], predicted=0.0, floors=[1e-6, 1e-12], scale=1.0)

    r = tc.run_claim(_check_claim("tm.zeroscaled", check), seed=0)
    assert r.verdict is tc.Verdict.VERIFIED, r.evidence


@pytest.mark.parametrize("gap, verdict", [(1e-13, tc.Verdict.VERIFIED), (1e-3, tc.Verdict.REFUTED)])
def test_a_scalar_zero_prediction_of_an_array_decides(gap, verdict):
    """helper-74: the docs' "predicted=0 and a positive scale=" for an array x = 0 was a shape error ("measured has
    shape (3,), predicted ()"); a scalar prediction is that value in every entry, and a gap that stalls refutes."""
    def check(rng, d):
        g = np.array([1.0, -2.0, 0.5])
        return tc.Refinement.of(["a", "b"], measured=[g * 1e-7, g * max(gap, 1e-13)], predicted=0, floors=[1e-6, 1e-12],
                                scale=1.0)

    r = tc.run_claim(_check_claim(f"tm.zeroarray{int(gap < 1e-6)}", check), seed=0)
    assert r.verdict is verdict, r.evidence


def test_montecarlo_check_decided_by_z_test():
    def mc(sign):
        def check(rng, d):
            x = rng.standard_normal(20000) + 1.0
            return tc.MonteCarlo(x.mean(), sign * 1.0, x.std(ddof=1) / np.sqrt(x.size))
        return check

    good = tc.run_claim(_check_claim("tm.mc", mc(1.0)), seed=0)
    assert good.verdict is tc.Verdict.VERIFIED and all(m.refuted for m in good.printed.mutants)
    assert tc.run_claim(_check_claim("tm.mc_sign", mc(-1.0)), seed=0).verdict is tc.Verdict.REFUTED


def test_deprecated_measurement_still_runs_and_says_so():
    def check(rng, d):
        return tc.Measurement(tc.decide_refinement([1e-3, 1e-9], [1e-3, 1e-9]), residuals={"a": 1e-3, "b": 1e-9})

    with pytest.warns(tc.TheoremCheckDeprecationWarning):
        r = tc.run_claim(_check_claim("tm.old", check, lambda s: (tc.perturb(s, "c", check=check),)), seed=0)
    assert r.verdict is tc.Verdict.VERIFIED and r.printed.decided_by == "check" and not r.printed.mutants


# --------------------------------------------------------------------------- decision functions
@given(st.lists(st.floats(-1e3, -1e-300), min_size=1, max_size=3))
@settings(max_examples=30)
def test_decide_refinement_refuses_negative_residuals(neg):
    with pytest.raises(InvalidArgument, match="must be >= 0"):
        tc.decide_refinement(neg + [1e-9], [10.0 ** -k for k in range(1, len(neg) + 2)])


def test_decide_refinement_refuses_the_measured_case_and_bad_stderr():
    with pytest.raises(InvalidArgument):
        tc.decide_refinement([-1.0, -1.0], [1e-3, 1e-9])
    for se in (0.0, -1.0, float("nan"), float("inf")):
        with pytest.raises(InvalidArgument):
            tc.decide_zscore(1.0, 1.0, se)


# --------------------------------------------------------------------------- undefined as failure
def _singular(rng, d, batch):
    A = sampling.gaussian(rng, d["n"], batch=batch)
    if d["n"] >= 2:
        A[..., :, 1] = A[..., :, 0]  # two equal columns: exactly singular at every precision
    else:
        A[...] = 0.0
    return {"A": A}


def test_undefined_fails_refutes_every_square_matrix_is_invertible():
    claim = _claim("tm.inv", lambda i, c: c.inv(i.A) @ i.A, lambda i, c: np.broadcast_to(c.eye(i.A.shape[-1]), i.A.shape),
                   sample=_singular, undefined="fails")
    r = tc.run_claim(claim, seed=0)
    assert r.verdict is tc.Verdict.REFUTED, r.evidence
    assert "undefined" in r.evidence


def test_undefined_default_is_a_broken_definition_not_a_verdict():
    claim = _claim("tm.inv2", lambda i, c: c.inv(i.A) @ i.A, lambda i, c: np.broadcast_to(c.eye(i.A.shape[-1]), i.A.shape),
                   sample=_singular)
    r = tc.run_claim(claim, seed=0)
    assert r.verdict is not tc.Verdict.VERIFIED


def test_undefined_fails_keeps_true_statements_verified():
    def sample(rng, d, batch):
        return {"A": sampling.invertible(rng, d["n"], batch=batch)}

    claim = _claim("tm.inv3", lambda i, c: c.inv(i.A) @ i.A, lambda i, c: np.broadcast_to(c.eye(i.A.shape[-1]), i.A.shape),
                   sample=sample, undefined="fails")
    assert tc.run_claim(claim, seed=0).verdict is tc.Verdict.VERIFIED


# --------------------------------------------------------------------------- claim bugs are not mathematics
@pytest.mark.parametrize("side,what", [
    (lambda i, c: "abc", "str"),
    (lambda i, c: c.trace(i.A)[0], "drops the leading batch axis"),
    (lambda i, c: None, "NoneType"),
])
def test_side_returning_garbage_is_a_bad_claim(side, what):
    claim = _claim("tm.garbage", side, lambda i, c: c.trace(i.A))
    r = tc.run_claim(claim, seed=0)
    assert r.printed.numeric.bad and what in r.printed.numeric.bad
    assert r.verdict is not tc.Verdict.ILL_POSED


def test_a_sampler_that_drops_the_batch_axis_is_a_bad_claim():
    """helper-74: ``gaussian(rng, n, n)`` without ``batch=`` made ``A@A = A@A`` ILL-POSED (exit 1), a verdict about the
    mathematics; it is a malformed claim now, as a side that drops the axis is."""
    from theorem_check.numerics import sampling

    st = tc.Statement("A A = A A", lhs=lambda i, c: i.A @ i.A, rhs=lambda i, c: i.A @ i.A,
                      sample=lambda rng, d, batch: {"A": sampling.gaussian(rng, d["n"], d["n"])},
                      dims=tc.DimSpace({"n": (2, 4)}))
    r = tc.run_claim(tc.Claim(id="tm.nobatch", title="t", source=tc.Source("tm", "1", "2", "x"), statement=st), seed=0)
    assert r.printed.numeric.bad and "every array needs the leading batch axis" in r.printed.numeric.bad
    assert r.verdict is not tc.Verdict.ILL_POSED


def test_run_claim_dims_override():
    claim = _claim("tm.dims", lambda i, c: c.trace(i.A @ i.B), lambda i, c: c.trace(i.B @ i.A))
    r = tc.run_claim(claim, seed=0, trials=2, dims={"n": 3})
    assert r.verdict is tc.Verdict.VERIFIED and r.printed.configs == ({"n": 3},)
    with pytest.raises(InvalidArgument, match="not a dimension"):
        tc.run_claim(claim, dims={"q": 2})
    with pytest.raises(InvalidArgument, match="integer >= 0"):
        tc.run_claim(claim, dims={"n": -1})
    with pytest.raises(InvalidArgument, match=r"dims n=7 is outside n in 1\.\.4 \(claim tm.dims\)"):
        tc.run_claim(claim, dims={"n": 7})


# --------------------------------------------------------------------------- CLI: controls gate, bad claims exit 2
PACK = '''
import numpy as np
import theorem_check as tc
from theorem_check import sampling
sq = tc.DimSpace({"n": (1, 4)})
def sample(rng, d, batch):
    return {"A": sampling.gaussian(rng, d["n"], batch=batch), "B": sampling.gaussian(rng, d["n"], batch=batch)}
s = tc.Statement("x", dims=sq, sample=sample, lhs=lambda i, c: c.trace(i.A @ i.B), rhs=lambda i, c: c.trace(i.B @ i.A))
tc.register(tc.Claim(id="ctl.weak", title="t", source=tc.Source("ctl", "1", "1", "x"), statement=s,
                     controls=(tc.perturb(s, "no-op", rhs=lambda v, i, c: v),)))
'''


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "theorem_check", *args], capture_output=True, text=True, cwd=cwd)


def test_controls_that_are_not_refuted_exit_1(tmp_path):
    (tmp_path / "pack.py").write_text(PACK)
    out = _cli("run", "--pack", "pack.py", "--controls", cwd=tmp_path)
    assert out.returncode == 1, out.stdout + out.stderr
    assert "controls: 0/1 refuted" in out.stdout
    assert _cli("run", "--pack", "pack.py", cwd=tmp_path).returncode == 0


def test_bad_claim_exit_2_one_line(tmp_path):
    (tmp_path / "pack.py").write_text(PACK.replace("rhs=lambda i, c: c.trace(i.B @ i.A)", "rhs=lambda i, c: 'x'"))
    out = _cli("run", "--pack", "pack.py", cwd=tmp_path)
    assert out.returncode == 2
    err = [ln for ln in out.stderr.splitlines() if ln.startswith("theorem-check: error")]
    assert len(err) == 1 and "rhs returned str" in err[0] and "Traceback" not in out.stderr


# --------------------------------------------------------------------------- undefined per instance (issue 18)
def _one_singular(rng, d, batch):
    A = sampling.invertible(rng, d["n"], batch=batch)
    A[0] = 0.0          # one singular instance in each batch, the others invertible
    return {"A": A}


def _inv_like_mpmath_lu(i, c):
    """``inv(A) @ A`` whose mp50 inverse raises a TypeError on a singular matrix (as mpmath's LU did)."""
    if c.is_mp and all(v == 0 for v in i.A.flat):
        raise TypeError("cannot create mpf from None (inside LU_decomp)")
    return c.inv(i.A) @ i.A


def _eye_like(i, c):
    return np.broadcast_to(c.eye(i.A.shape[-1]), i.A.shape)


def test_undefined_fails_any_error_at_mp50_is_per_instance():
    """A TypeError at mp50 on the singular instance (float64: LinAlgError) is that instance's
    counterexample; it no longer spoils the batch into INCONCLUSIVE (exit 2)."""
    claim = _claim("tm.inv_type", _inv_like_mpmath_lu, _eye_like, sample=_one_singular, undefined="fails")
    r = tc.run_claim(claim, seed=0)
    assert r.verdict is tc.Verdict.REFUTED, r.evidence
    assert "undefined at mp50" in r.evidence and "TypeError" in r.evidence


def test_undefined_fails_error_only_at_mp50_is_not_a_counterexample():
    """An error at mp50 on instances float64 evaluates fine (a side calling np.linalg) is a broken
    side, never a counterexample: a true statement is not REFUTED."""
    def lhs(i, c):
        if c.is_mp:
            raise TypeError("np.linalg on an object array")
        return c.inv(i.A) @ i.A

    claim = _claim("tm.inv_np", lhs, _eye_like, sample=lambda rng, d, b: {"A": sampling.invertible(rng, d["n"], batch=b)},
                   undefined="fails")
    assert tc.run_claim(claim, seed=0).verdict is tc.Verdict.INCONCLUSIVE


def test_undefined_fails_negative_control_still_refuted():
    claim = _claim("tm.inv_ctl", _inv_like_mpmath_lu, lambda i, c: 1.001 * _eye_like(i, c),
                   sample=lambda rng, d, b: {"A": sampling.invertible(rng, d["n"], batch=b)}, undefined="fails")
    assert tc.run_claim(claim, seed=0).verdict is tc.Verdict.REFUTED


# --------------------------------------------------------------------------- float literals at mp50 (issue 18)
def test_float_literal_in_claim_code_is_flagged_and_never_passes():
    """``0.1 * A`` is A/10 only to float64 accuracy: at mp50 the gap is what the rounded literal makes, so the
    instance is undecided (INCONCLUSIVE, design decision 204; REFUTED before stop 45, helper-63's Adam bias
    correction with ``beta = 0.9``), never VERIFIED, with the literal named in the evidence.  A statement false by
    less than the literal's rounding is INCONCLUSIVE too, never passes."""
    claim = _claim("tm.lit", lambda i, c: 0.1 * i.A, lambda i, c: i.A / 10)
    r = tc.run_claim(claim, seed=0)
    assert r.verdict is tc.Verdict.INCONCLUSIVE
    assert "float literal in the claim code (0.1)" in r.evidence and "undecided" in r.evidence
    tiny = tc.run_claim(_claim("tm.lit4", lambda i, c: 0.1 * i.A, lambda i, c: i.A / 10 + i.A / 10**17), seed=0)
    assert tiny.verdict is tc.Verdict.INCONCLUSIVE
    # negative control: the wrong factor is refuted by the same path, a true exact one is not flagged
    assert tc.run_claim(_claim("tm.lit2", lambda i, c: 0.1 * i.A, lambda i, c: i.A / 5), seed=0).verdict \
        is tc.Verdict.REFUTED
    ok = tc.run_claim(_claim("tm.lit3", lambda i, c: 0.5 * i.A, lambda i, c: i.A / 2), seed=0)
    assert ok.verdict is tc.Verdict.VERIFIED and "float literal" not in ok.evidence


# --------------------------------------------------------------------------- what the evidence's numbers say
def _cov_claim(cid, third=3):
    """The population covariance two ways, ``D D^T / N`` (``D = G - mean``) against ``G G^T / N - mean mean^T``
    (written as ``(G/3) (third G)^T``): at ``N = 1`` both sides are 0 and the float64 residual of those vacuous
    instances is ~1 (one side exactly 0, the other rounding)."""
    dims = tc.DimSpace({"N": (1, 4), "p": (1, 3)})

    def mean(i):
        return i.G.sum(axis=-1, keepdims=True) / i.G.shape[-1]

    def lhs(i, c):
        d = i.G - mean(i)
        return d @ c.T(d) / i.G.shape[-1]

    def rhs(i, c):
        return (i.G / 3) @ c.T(i.G * third) / i.G.shape[-1] - mean(i) @ c.T(mean(i))

    return _claim(cid, lhs, rhs, dims=dims, sample=lambda rng, d, b: {"G": sampling.gaussian(rng, d["p"], d["N"],
                                                                                              batch=b)})


def test_max_residual_is_over_the_instances_that_decided():
    """helper-63: "VERIFIED ... max residual float32 1.0e+00 -> float64 1.0e+00 -> mp50 1.0e+00": the maximum
    took in the vacuous instances, whose relative residual says nothing.  Negative control: with the factor 3
    where the statement has 6 (so the sides differ by G G^T / N) the same path REFUTES it."""
    import re

    r = tc.run_claim(_cov_claim("tm.cov"), seed=0)
    assert r.verdict is tc.Verdict.VERIFIED and "instances vacuous" in r.evidence, r.evidence
    worst = dict(re.findall(r"(float32|float64|mp50) ([0-9.e+-]+)", r.evidence.split(";")[0]))
    assert float(worst["float64"]) < 1e-10 and float(worst["mp50"]) < 1e-40, r.evidence
    assert any(i.vacuous and i.residuals.get("float64", 0) > 0.5 for i in r.printed.numeric.instances)
    assert tc.run_claim(_cov_claim("tm.cov6", third=6), seed=0).verdict is tc.Verdict.REFUTED


def test_fixed_sizes_are_the_only_sizes_run():
    """helper-63: ``run --dims h=1`` of a statement true at h = 1 only came back REFUTED with a counterexample at
    h = 2, from the far stage's sizes beyond the default, which ignored the sizes the user fixed."""
    shapes = {"A": ("n", "n"), "B": ("n", "n")}
    claim = tc.identity("tm.commute_n1", "A*B", "B*A", shapes=shapes, register=False)
    pinned = tc.run_claim(claim, seed=0, dims={"n": 1})
    assert pinned.verdict is tc.Verdict.VERIFIED and "beyond" not in pinned.evidence, pinned.evidence
    assert tc.run_claim(claim, seed=0, dims={"n": 2}).verdict is tc.Verdict.REFUTED     # the same path can fail
