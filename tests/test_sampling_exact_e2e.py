"""End to end: true statements about structured samples are VERIFIED on every seed (issue 9, item 4).

The samplers' structure used to hold only to float64 rounding, so the mp50 rung saw a matrix
``1e-16`` away from the promised structure and ``X^T = X`` (spd X), ``(X^{-1})^T = X^{-1}`` and
``Q^T Q = I`` stalled at ``1e-16`` and came back REFUTED on most seeds.  With
:class:`theorem_check.numerics.sampling.Exact` the engine rebuilds each sample inside the context.

The engine converts :class:`~theorem_check.numerics.sampling.Exact` arrays with ``.at(ctx)`` and slices
them with ``.take(b)`` (``vacuity.convert`` / ``sides.take``).  The negative controls
(the same statements with a wrong right-hand side) run through the same path and must be REFUTED.
"""

import numpy as np
import pytest

import theorem_check as tc
from theorem_check import sampling

SEEDS = range(20)


SQUARE = tc.DimSpace({"n": (1, 4)})
TALL = tc.DimSpace({"m": (1, 5), "k": (1, 4)}, where=lambda d: d["k"] <= d["m"])


def _eye_like(x, ctx):
    return ctx.eye(x.shape[-1]) + ctx.zeros(x.shape[:-2] + (x.shape[-1], x.shape[-1]))


def _statements():
    spd = lambda rng, d, b: {"X": sampling.spd(rng, d["n"], cond=10.0, batch=b)}
    sym = lambda rng, d, b: {"X": sampling.symmetric(rng, d["n"], batch=b)}
    orth = lambda rng, d, b: {"Q": sampling.orthogonal(rng, d["n"], batch=b)}
    cols = lambda rng, d, b: {"Q": sampling.orthonormal_columns(rng, d["m"], d["k"], batch=b)}
    gram = lambda i, c: c.T(i.Q) @ i.Q
    return {
        "spd symmetric": tc.Statement(r"X^\top = X", dims=SQUARE, sample=spd,
                                      lhs=lambda i, c: c.T(i.X), rhs=lambda i, c: i.X),
        "spd inverse symmetric": tc.Statement(r"(X^{-1})^\top = X^{-1}", dims=SQUARE, sample=spd,
                                              lhs=lambda i, c: c.T(c.inv(i.X)), rhs=lambda i, c: c.inv(i.X)),
        "orthogonal": tc.Statement(r"Q^\top Q = I", dims=SQUARE, sample=orth, lhs=gram,
                                   rhs=lambda i, c: _eye_like(i.Q, c)),
        "orthogonal rows": tc.Statement(r"Q Q^\top = I", dims=SQUARE, sample=orth,
                                        lhs=lambda i, c: i.Q @ c.T(i.Q), rhs=lambda i, c: _eye_like(i.Q, c)),
        "orthonormal columns": tc.Statement(r"Q^\top Q = I_k", dims=TALL, sample=cols, lhs=gram,
                                            rhs=lambda i, c: _eye_like(i.Q, c)),
        "symmetric": tc.Statement(r"X^\top = X", dims=SQUARE, sample=sym,
                                  lhs=lambda i, c: c.T(i.X), rhs=lambda i, c: i.X),
    }


def _claim(label: str, st: tc.Statement) -> tc.Claim:
    # controls: a relative perturbation far above every floor but far below O(1)
    small = tc.perturb(st, "1 + 1e-6", rhs=lambda v, i, c: v * c.scalar(1 + 1e-6))
    return tc.Claim(id=f"e2e.{label.replace(' ', '_')}", title=label,
                    source=tc.Source("e2e", "1", "(1)", st.latex), statement=st,
                    controls=(tc.double(st), small))


@pytest.mark.parametrize("label", list(_statements()))
def test_structure_statements_verified_on_every_seed(label):
    claim = _claim(label, _statements()[label])
    verdicts = {}
    for seed in SEEDS:
        r = tc.run_claim(claim, seed=seed, trials=8, controls=True)
        verdicts[seed] = r.verdict
        assert r.verdict is tc.Verdict.VERIFIED, f"seed {seed}: {r.verdict.value}: {r.evidence}"
        for ctl in r.controls:
            assert ctl.verdict is tc.Verdict.REFUTED, f"seed {seed} {ctl.name}: {ctl.verdict.value}: {ctl.evidence}"
    assert set(verdicts.values()) == {tc.Verdict.VERIFIED}


@pytest.mark.slow
@pytest.mark.parametrize("label", list(_statements()))
def test_structure_statements_verified_on_200_seeds(label):
    claim = _claim(label, _statements()[label])
    for seed in range(200):
        r = tc.run_claim(claim, seed=seed, trials=4)
        assert r.verdict is tc.Verdict.VERIFIED, f"seed {seed}: {r.verdict.value}: {r.evidence}"


def test_without_exact_conversion_the_mp_rung_sees_float64_structure():
    """Negative control of the fix: the same orthogonality statement on a *plain* float64 QR factor
    (what the samplers used to return) is not VERIFIED on most seeds, through the same code path."""
    def plain(rng, d, b):
        return {"Q": np.asarray(sampling.orthogonal(rng, d["n"], batch=b))}

    st = tc.Statement(r"Q^\top Q = I", dims=tc.DimSpace({"n": (3, 4)}), sample=plain,
                      lhs=lambda i, c: c.T(i.Q) @ i.Q, rhs=lambda i, c: _eye_like(i.Q, c))
    claim = _claim("plain qr", st)
    bad = sum(tc.run_claim(claim, seed=s, trials=8).verdict is not tc.Verdict.VERIFIED for s in range(10))
    assert bad >= 8
