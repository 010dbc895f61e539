"""The derivative oracle: closed forms at every precision, and the engine deciding derivative identities."""

import numpy as np
import pytest

import theorem_check as tc
from theorem_check.errors import InvalidArgument, ShapeMismatch
from theorem_check.numerics import derivative_floors, sampling
from theorem_check.numerics.precision import FLOAT32, FLOAT64, MP50, to_float
from theorem_check.numerics.sampling import gaussian

CTXS = [FLOAT32, FLOAT64, MP50]


def _tol(ctx, order: int) -> float:
    """What a true identity may leave: 100 x the oracle's error scale (eps^(4/5) first, eps^(2/3) second
    derivatives; at mp50 the 50-digit rounding of the closed form dominates)."""
    if ctx.is_mp:
        return 1e-45
    return 100 * ctx.eps ** (0.8 if order == 1 else 2 / 3)


def _rel(ctx, a, b) -> float:
    return float(np.max(to_float(ctx.norm(a - b) / ctx.norm(b))))


def _data(seed, n=3, batch=2):
    rng = np.random.default_rng(seed)
    return dict(A=gaussian(rng, n, batch=batch), B=gaussian(rng, n, batch=batch), X=gaussian(rng, n, batch=batch),
                S=sampling.spd(rng, n, cond=10.0, batch=batch), x=rng.standard_normal((batch, n)),
                Sym=sampling.symmetric(rng, n, batch=batch), M=gaussian(rng, n, 2, batch=batch))


def _quad(x, A):
    return np.einsum("bi,bij,bj->b", x, A, x)


CLOSED_FORMS = {
    # name: (order, lhs(ctx, v), rhs(ctx, v))
    "grad tr(AX) = A^T": (1, lambda c, v: c.grad(lambda X: c.trace(v["A"] @ X), v["X"]), lambda c, v: c.T(v["A"])),
    "grad tr(X^T A X) = (A + A^T) X": (1, lambda c, v: c.grad(lambda X: c.trace(c.T(X) @ v["A"] @ X), v["X"]),
                                       lambda c, v: (v["A"] + c.T(v["A"])) @ v["X"]),
    "grad tr(X X B) = (XB + BX)^T": (1, lambda c, v: c.grad(lambda X: c.trace(X @ X @ v["B"]), v["X"]),
                                     lambda c, v: c.T(v["X"] @ v["B"] + v["B"] @ v["X"])),
    "grad log det X = X^-T": (1, lambda c, v: c.grad(lambda X: c.log(c.det(X)), v["S"] + 0.1 * v["A"]),
                              lambda c, v: c.T(c.inv(v["S"] + 0.1 * v["A"]))),
    "grad x^T A x = (A + A^T) x": (1, lambda c, v: c.grad(lambda y: _quad(y, v["A"]), v["x"]),
                                   lambda c, v: np.einsum("bij,bj->bi", v["A"] + c.T(v["A"]), v["x"])),
    "grad of a (batch, 1, 1) scalar": (1, lambda c, v: c.grad(lambda y: y[:, None, :] @ v["A"] @ y[:, :, None], v["x"]),
                                       lambda c, v: np.einsum("bij,bj->bi", v["A"] + c.T(v["A"]), v["x"])),
    "jacobian softmax = diag(p) - p p^T": (1, lambda c, v: c.jacobian(c.softmax, v["x"]),
                                           lambda c, v: c.diag(c.softmax(v["x"]))
                                           - c.softmax(v["x"])[:, :, None] * c.softmax(v["x"])[:, None, :]),
    "jacobian Ax = A": (1, lambda c, v: c.jacobian(lambda y: np.einsum("bij,bj->bi", v["A"], y), v["x"]),
                        lambda c, v: v["A"]),
    "jacobian vec(A X M), order F = M^T kron A": (1, lambda c, v: c.jacobian(lambda X: v["A"] @ X @ v["M"], v["X"],
                                                                              order="F"),
                                                  lambda c, v: c.kron(c.T(v["M"]), v["A"])),
    "jacobian X^T, order C = commutation": (1, lambda c, v: c.jacobian(c.T, v["M"]),
                                            lambda c, v: c.asarray(np.broadcast_to(
                                                np.eye(6)[[0, 2, 4, 1, 3, 5]], (2, 6, 6)))),
    "hessian x^T A x = A + A^T": (2, lambda c, v: c.hessian(lambda y: _quad(y, v["A"]), v["x"]),
                                  lambda c, v: v["A"] + c.T(v["A"])),
    "hessian logsumexp = diag(p) - p p^T": (2, lambda c, v: c.hessian(c.logsumexp, v["x"]),
                                            lambda c, v: c.diag(c.softmax(v["x"]))
                                            - c.softmax(v["x"])[:, :, None] * c.softmax(v["x"])[:, None, :]),
    "hessian tr(X^T A X), order F = I kron (A + A^T)": (2, lambda c, v: c.hessian(
        lambda X: c.trace(c.T(X) @ v["A"] @ X), v["M"], order="F"),
        lambda c, v: c.kron(c.eye(2)[None], v["A"] + c.T(v["A"]))),
    "directional X X along V = XV + VX": (1, lambda c, v: c.directional(lambda X: X @ X, v["X"], v["B"]),
                                          lambda c, v: v["X"] @ v["B"] + v["B"] @ v["X"]),
    "directional log det along V = tr(X^-1 V)": (1, lambda c, v: c.directional(lambda X: c.log(c.det(X)), v["S"],
                                                                                v["A"]),
                                                 lambda c, v: c.trace(c.inv(v["S"]) @ v["A"])),
    "sym_grad tr(AX) = (A + A^T)/2": (1, lambda c, v: c.sym_grad(lambda X: c.trace(v["A"] @ X), v["Sym"]),
                                      lambda c, v: (v["A"] + c.T(v["A"])) / 2),
    "sym_grad sum(eigvalsh(X)^2) = 2X": (1, lambda c, v: c.sym_grad(lambda X: np.sum(c.power(c.eigvalsh(X), 2),
                                                                                      axis=-1), v["Sym"]),
                                         lambda c, v: 2 * v["Sym"]),
    "sym_grad log det X = X^-1 (SPD)": (1, lambda c, v: c.sym_grad(lambda X: c.log(c.det(c.cholesky(X))) * 2, v["S"]),
                                        lambda c, v: c.inv(v["S"])),
}


@pytest.mark.parametrize("ctx", CTXS, ids=lambda c: c.name)
@pytest.mark.parametrize("name", list(CLOSED_FORMS))
def test_oracle_matches_closed_form(ctx, name):
    order, lhs, rhs = CLOSED_FORMS[name]
    data = _data(11)
    with ctx.active():
        v = {k: ctx.asarray(a) for k, a in data.items()}
        v["S"] = (v["S"] + ctx.T(v["S"])) / 2
        left, right = lhs(ctx, v), rhs(ctx, v)
        assert np.shape(left) == np.shape(right)
        r = _rel(ctx, left, right)
    assert r < _tol(ctx, order), f"{name} at {ctx.name}: {r:.2e}"
    if not ctx.is_mp:
        assert np.asarray(left).dtype == ctx.dtype


def test_sym_grad_is_not_the_old_convention():
    """tr(AX) on symmetric X: (A + A^T)/2, not A + A^T - diag(A) (arXiv:1911.06491)."""
    d = _data(12)
    with FLOAT64.active() as c:
        A, S = c.asarray(d["A"]), c.asarray(d["Sym"])
        G = c.sym_grad(lambda X: c.trace(A @ X), S)
        old = A + c.T(A) - c.diag(c.diag_part(A))
        assert _rel(c, G, old) > 0.1
        # the defining property: tr(G V) is the directional derivative for symmetric V
        V = c.asarray(d["Sym"][::-1])
        dd = c.directional(lambda X: c.trace(A @ X), S, V)
        assert float(np.max(np.abs(c.trace(G @ V) - dd))) < 1e-10


def test_mp50_oracle_uses_extra_digits():
    """At mp50 a polynomial's gradient is exact to far beyond 50 digits (f evaluated at dps + 40)."""
    d = _data(13)
    with MP50.active() as c:
        B, X = c.asarray(d["B"]), c.asarray(d["X"])
        G = c.grad(lambda Y: c.trace(Y @ Y @ B), X)
        r = _rel(c, G, c.T(X @ B + B @ X))
    assert r < 1e-60


def test_oracle_errors():
    X = FLOAT64.asarray(np.zeros((2, 3, 3)))
    with pytest.raises(ShapeMismatch, match="scalar function"):
        FLOAT64.grad(lambda Y: Y, X)
    with pytest.raises(ShapeMismatch, match="batch axis"):
        FLOAT64.jacobian(lambda Y: Y[0], X)
    with pytest.raises(InvalidArgument, match="order="):
        FLOAT64.jacobian(lambda Y: Y, X, order="K")
    with pytest.raises(InvalidArgument, match="batch axis"):
        FLOAT64.grad(lambda Y: Y, np.float64(1.0))
    with pytest.raises(ShapeMismatch, match="square"):
        FLOAT64.sym_grad(lambda Y: FLOAT64.trace(Y), np.zeros((2, 2, 3)))
    with pytest.raises(ShapeMismatch, match="directional"):
        FLOAT64.directional(lambda Y: Y, X, np.zeros((2, 4)))


def test_floors_table_is_reproduced():
    """The module docstring's measured floors: float32 -> float64 falls by >= 2e4 (the refinement rule's
    rate) and mp50 is far below float64, for every row (a cheap re-measurement on 3 seeds)."""
    for name, r in derivative_floors.measure(seeds=3):
        assert r["float64"] <= r["float32"] / 2e4 and r["float64"] < 1.5e-7, name
        assert r["mp50"] < r["float64"] / 4.7e16 and r["mp50"] < 1e-45, name


# ---------------------------------------------------------------------------------------
# Through the engine: true derivative identities VERIFIED, slightly wrong ones REFUTED
# ---------------------------------------------------------------------------------------
DIMS = tc.DimSpace({"n": (2, 4)})


def _sample(rng, d, batch):
    n = d["n"]
    return {"X": gaussian(rng, n, batch=batch), "B": gaussian(rng, n, batch=batch),
            "S": sampling.invertible(rng, n, cond=10.0, batch=batch), "x": gaussian(rng, n, 1, batch=batch)[..., 0],
            "Sym": sampling.symmetric(rng, n, batch=batch)}


def _claim(label, latex, lhs, rhs, wrong):
    """A claim whose printed statement is the true identity and whose controls are the wrong variants."""
    s = tc.Statement(latex, dims=DIMS, sample=_sample, lhs=lhs, rhs=rhs)
    controls = tuple(tc.Statement(latex + r"\ \text{(wrong: " + name + ")}", name=f"control: {name}", kind="control",
                                  dims=DIMS, sample=_sample, lhs=lhs, rhs=w) for name, w in wrong.items())
    controls += (tc.perturb(s, "factor 2", rhs=lambda v, inst, ctx: 2 * v),
                 tc.perturb(s, "1 + 1e-6", rhs=lambda v, inst, ctx: v * (1 + 1e-6)))
    return tc.Claim(id=f"calc.{label}", title=f"${latex}$", source=tc.Source("calc", "test", label, latex),
                    statement=s, controls=controls)


ENGINE_CLAIMS = [
    _claim("trace_xxb", r"\nabla_X \operatorname{tr}(XXB) = (XB + BX)^\top",
           lambda inst, ctx: ctx.grad(lambda X: ctx.trace(X @ X @ inst.B), inst.X),
           lambda inst, ctx: ctx.T(inst.X @ inst.B + inst.B @ inst.X),
           {"missing transpose": lambda inst, ctx: inst.X @ inst.B + inst.B @ inst.X,
            "dropped product-rule term": lambda inst, ctx: ctx.T(inst.X @ inst.B)}),
    _claim("logdet", r"\nabla_X \log|\det X| = X^{-\top}",
           lambda inst, ctx: ctx.grad(lambda X: ctx.log(ctx.abs(ctx.det(X))), inst.S),
           lambda inst, ctx: ctx.T(ctx.inv(inst.S)),
           {"missing transpose": lambda inst, ctx: ctx.inv(inst.S)}),
    _claim("hess_quad", r"\nabla^2_x x^\top B x = B + B^\top",
           lambda inst, ctx: ctx.hessian(lambda y: np.einsum("bi,bij,bj->b", y, inst.B, y), inst.x),
           lambda inst, ctx: inst.B + ctx.T(inst.B),
           {"one term": lambda inst, ctx: 2 * inst.B}),
    _claim("sym_trace", r"\nabla^{\mathrm{sym}}_X \operatorname{tr}(BX) = (B + B^\top)/2",
           lambda inst, ctx: ctx.sym_grad(lambda X: ctx.trace(inst.B @ X), inst.Sym),
           lambda inst, ctx: (inst.B + ctx.T(inst.B)) / 2,
           {"G + G^T - diag(G) (old convention)":
            lambda inst, ctx: inst.B + ctx.T(inst.B) - ctx.diag(ctx.diag_part(inst.B)),
            "free gradient B^T": lambda inst, ctx: ctx.T(inst.B)}),
]


@pytest.mark.parametrize("claim", ENGINE_CLAIMS, ids=lambda c: c.id)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_engine_verifies_true_and_refutes_wrong_derivatives(claim, seed):
    claim.validate()
    res = tc.run_claim(claim, seed=seed, trials=8, controls=True)
    assert res.verdict is tc.Verdict.VERIFIED, res.evidence
    for c in res.controls:
        assert c.verdict is tc.Verdict.REFUTED, (c.name, c.evidence)


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st


@settings(max_examples=20, deadline=None)
@given(seed=sampling.seeds(), m=st.integers(1, 3), n=st.integers(1, 3))
def test_oracles_agree_with_each_other(seed, m, n):
    """<grad f, V> = directional(f, X, V); hessian = jacobian of grad (row-major); F-order = permuted C-order."""
    rng = np.random.default_rng(seed)
    X, V, A = rng.standard_normal((2, m, n)), rng.standard_normal((2, m, n)), rng.standard_normal((2, n, m))
    c = FLOAT64
    with c.active():
        f = lambda Y: c.trace(c.tanh(Y @ A) @ Y @ A) + np.sum(c.softplus(Y), axis=(1, 2))  # noqa: E731
        G = c.grad(f, X)
        d = c.directional(f, X, V)
        scale = np.sqrt(np.sum(G * G, axis=(1, 2)) * np.sum(V * V, axis=(1, 2)))
        assert np.all(np.abs(np.sum(G * V, axis=(1, 2)) - d) <= 1e-9 * scale)
        H = c.hessian(f, X)
        HJ = c.jacobian(lambda Y: c.grad(f, Y), X)
        assert np.max(np.abs(H - HJ)) <= 1e-5 * np.max(np.abs(H)) + 1e-8
        assert np.array_equal(H, np.swapaxes(H, 1, 2))
        p = np.arange(m * n).reshape(m, n).ravel(order="F")
        assert np.array_equal(c.hessian(f, X, order="F"), H[:, p][:, :, p])


# --------------------------------------------------------------------------- constants broadcast (issue 18)
def test_constant_function_broadcasts_over_the_batch():
    """A function SymPy folded to a constant (no batch axis) is differentiated, not a shape error."""
    X = np.random.default_rng(0).standard_normal((4, 2, 1))
    for ctx in (FLOAT64, MP50):
        with ctx.active():
            G = ctx.grad(lambda Y: 3.0 if not ctx.is_mp else ctx.scalar(3), ctx.asarray(X))
        assert G.shape == X.shape and np.all(to_float(G) == 0)


@pytest.mark.parametrize("rhs,verdict", [("2*(eye(N)-ones(N,N)/N)*x", ("VERIFIED", "PROVED")),
                                         ("3*(eye(N)-ones(N,N)/N)*x", ("REFUTED",))])   # negative control
def test_centring_gradient_at_size_one_is_not_ill_posed(rhs, verdict):
    """At N = 1 the centring matrix eye(1) - ones(1,1)/1 folds to 0 and f to a constant: the gradient
    is 0, not ILL-POSED ("f returned ()"), so the true statement holds at every size (PROVED since the
    closed-form gradients of issue 19, VERIFIED before)."""
    import theorem_check as tc
    c = tc.identity("t.centring", "grad(trace(x.T*(eye(N)-ones(N,N)/N)*x), x)", rhs, shapes={"x": ("N", 1)},
                    sizes={"N": (1, 3)}, register=False)
    r = tc.run_claim(c, seed=0, trials=8)
    assert r.verdict.name in verdict, r.evidence
    assert "ill-posed" not in r.evidence.lower()


def test_the_step_along_a_ball_array_is_not_a_claim_float():
    """At mp50 a large point is a ball array whose largest entry is a float64; it set the finite-difference step,
    and the float-literal watch reported it as the claim's own float (``grad(...) = ... + B/10**13`` at n = 128
    was INCONCLUSIVE, 'a float literal in the claim code (4.04..., 0.0310...)').  The step is now an mpf."""
    from theorem_check.numerics.balls import balls_of
    from theorem_check.numerics.derivatives import directional
    from theorem_check.numerics.precision import watch_floats

    rng = np.random.default_rng(0)
    X, V = rng.standard_normal((2, 16, 16)), rng.standard_normal((2, 16, 16))
    with MP50.active():
        Xb, Vm = balls_of(MP50.asarray(X)), MP50.asarray(V)
        with watch_floats() as seen:
            d = directional(MP50, lambda Y: MP50.trace(Y @ Y), Xb, Vm)
    assert not seen
    want = 2 * np.einsum("bij,bji->b", X, V)
    assert np.allclose(to_float(d).astype(float), want, rtol=1e-12)
