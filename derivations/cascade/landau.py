"""Sec. II.B / III: alignment (eq. 17) and the effective Landau loss (eq. 15).

``cascade.eq17`` (the regression matrix inherits the shared singular vectors) and ``cascade.landau``
(the loss of balanced aligned weights is a sum of one-variable Landau potentials in the layer singular value).

Model and conventions: :mod:`derivations.cascade.model`.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

import theorem_check as tc
from theorem_check import dln

from . import model as th
from .model import ALIGNED, LOSS, _antisym, _net_space, _src, _widths


# =======================================================================================
# eq. (17): alignment makes the SVD of the regression matrix inherited
# =======================================================================================
def _eq17_sample(rng, d, batch):
    dx, dy, k = d["dx"], d["dy"], d["k"]
    return {"A_R": _antisym(rng, dx, batch), "A_L": _antisym(rng, dy, batch),
            "kappa": np.exp(rng.uniform(-1.0, 1.0, size=(batch, dx))),
            "eta": rng.uniform(0.1, 2.0, size=(batch, k))}


def _eq17_moments(inst, ctx):
    R, L = th.cayley(inst.A_R, ctx), th.cayley(inst.A_L, ctx)
    k = inst.eta.shape[-1]
    Sxx = (R * inst.kappa[:, None, :]) @ ctx.T(R)
    Syx = (L[:, :, :k] * inst.eta[:, None, :]) @ ctx.T(R[:, :, :k])
    return R, L, Sxx, Syx


def _eq17_lhs(inst, ctx):
    R, L, Sxx, Syx = _eq17_moments(inst, ctx)
    return Syx @ ctx.inv(Sxx)


def _eq17_rhs(inst, ctx, *, op=lambda e, k: e / k):
    R, L, _, _ = _eq17_moments(inst, ctx)
    k = inst.eta.shape[-1]
    return (L[:, :, :k] * op(inst.eta, inst.kappa[:, :k])[:, None, :]) @ ctx.T(R[:, :, :k])


def _eq17_derivation():
    d = sp.Symbol("d", integer=True, positive=True)
    R, K, L, S = (sp.MatrixSymbol(x, d, d) for x in ("R", "K", "L", "S"))
    Syx, Sxx = L * S * R.I, R * K * R.I           # R^T = R^{-1} (R orthogonal)
    return tc.Derivation([
        tc.Step((Syx * Sxx.I).doit(), L * S * K.I * R.I,
                r"$\Sigma_{yx} \Sigma_{xx}^{-1} = L S R^{\top} (R K R^{\top})^{-1} = L S K^{-1} R^{\top}$, using $R^{\top} = R^{-1}$"),
    ], general=True)


_eq17_dims = tc.DimSpace({"dx": (1, 4), "dy": (1, 4), "k": (1, 4)}, where=lambda d: d["k"] <= min(d["dx"], d["dy"]))
_eq17 = tc.Statement(
    r"\Sigma_{xx}=R S_{xx}R^\top,\ \Sigma_{yx}=L S_{yx}R^\top \Rightarrow "
    r"\Sigma_{yx}\Sigma_{xx}^{-1} = L\,S_{yx}S_{xx}^{-1}R^\top",
    dims=_eq17_dims, sample=_eq17_sample, lhs=_eq17_lhs, rhs=_eq17_rhs, derivation=_eq17_derivation,
    note=r"$R$, $L$ exactly orthogonal at every precision (Cayley transforms); $S_{yx} = \operatorname{diag}(\eta)$ padded, $S_{xx} = \operatorname{diag}(\kappa)$.")
tc.register(tc.Claim(
    id="cascade.eq17", title=r"Alignment: the regression matrix inherits the shared singular vectors, values $\eta_{j}/\kappa_{j}$",
    source=_src("II.B / App. A3", "(17)", r"\Sigma_{xx} = R S_{xx} R^\top,\quad \Sigma_{yx} = L S_{yx} R^\top"
                r"\ \text{(the SVD of } \Sigma_{yx}\Sigma_{xx}^{-1} \text{ is inherited)}"),
    statement=_eq17,
    controls=(tc.double(_eq17), tc.transpose(_eq17),
              tc.perturb(_eq17, r"$\eta^*\kappa$ instead of $\eta/\kappa$",
                         rhs=lambda v, inst, ctx: _eq17_rhs(inst, ctx, op=lambda e, k: e * k))),
    aliases=("eq17",),
    assumptions=(ALIGNED, r"$\Sigma_{xx}$ invertible $(\kappa_{j} > 0)$"),
))


# =======================================================================================
# eq. (15): the effective (Landau) loss; which constant, which variable
# =======================================================================================
def _landau_sample(rng, d, batch):
    n, w = d["n"], _widths(d)
    r, k = d["r"], d["k"]
    N = w[0] + 2
    return {"A_R": _antisym(rng, w[0], batch), "A_L": _antisym(rng, w[-1], batch),
            "A_U": [_antisym(rng, w[i], batch) for i in range(1, n)], "A_N": _antisym(rng, N, batch),
            "kappa": np.exp(rng.uniform(-0.7, 0.7, size=(batch, w[0]))),
            "eta": rng.uniform(0.1, 1.5, size=(batch, k)), "sigma": rng.uniform(0.4, 1.3, size=(batch, r)),
            "noise": rng.standard_normal((batch, w[-1], N - w[0])), "beta": rng.uniform(0.05, 1.0, size=(batch,)),
            "w": w}


def _landau_data(inst, ctx):
    """A finite data set (uniform weights) whose second moments are exactly aligned; the balanced weights."""
    w = inst.w
    n = len(w) - 1
    R, L = th.cayley(inst.A_R, ctx), th.cayley(inst.A_L, ctx)
    Q = th.cayley(inst.A_N, ctx)                      # N x N orthogonal
    N = Q.shape[-1]
    rootN = ctx.sqrt(ctx.asarray(np.array([float(N)])))[0]
    X = (R * ctx.sqrt(inst.kappa)[:, None, :]) @ ctx.T(Q[:, :, :w[0]]) * rootN
    k = inst.eta.shape[-1]
    M = (L[:, :, :k] * (inst.eta / inst.kappa[:, :k])[:, None, :]) @ ctx.T(R[:, :, :k])   # Sigma_yx Sigma_xx^{-1}
    Y = M @ X + inst.noise @ ctx.T(Q[:, :, w[0]:]) * rootN
    U = [R] + [th.cayley(a, ctx) for a in inst.A_U] + [L]
    Ws = [U[i + 1] @ th.diag_embed(inst.sigma, w[i + 1], w[i], ctx) @ ctx.T(U[i]) for i in range(n)]
    return X, Y, Ws, N


def _landau_lhs(inst, ctx):
    X, Y, Ws, N = _landau_data(inst, ctx)
    resid = dln.product(Ws) @ X - Y
    reg = sum(ctx.sum_sq(W) for W in Ws)
    return ctx.sum_sq(resid) / N + inst.beta * reg


def _landau_rhs(inst, ctx, *, variable="layer", nfactor=True, const=True):
    X, Y, Ws, N = _landau_data(inst, ctx)
    n = len(inst.w) - 1
    r, k = inst.sigma.shape[-1], inst.eta.shape[-1]
    out = ctx.sum_sq(Y) / N if const else 0 * inst.beta             # the constant: tr Sigma_yy = E||y||^2
    for j in range(r):
        s = inst.sigma[:, j] if variable == "layer" else inst.sigma[:, j] ** n   # product's singular value
        eta = inst.eta[:, j] if j < k else 0 * s
        out = out + th.landau(s, eta, inst.kappa[:, j], inst.beta * (1 if nfactor else ctx.scalar(1.0 / n)), n)
    return out


def _landau_derivation():
    n = sp.Symbol("n", integer=True, positive=True)
    sig, eta, kap, beta, yy = sp.symbols("sigma_j eta_j kappa_j beta E_yy", positive=True)
    s = sig ** n
    data = kap * s ** 2 - 2 * eta * s + yy        # E[(s x_j - y_j)^2] along direction j, E x_j^2 = kappa_j, E y_j x_j = eta_j
    reg = n * beta * sig ** 2                    # each of the n layers has singular value sigma_j
    return tc.Derivation([
        tc.Step(data.subs(s, sig ** n) + reg - yy, kap * sig ** (2 * n) - 2 * eta * sig ** n + n * beta * sig ** 2,
                r"product singular value $s_{j} = \sigma_{j}^{n}$; balanced layers each contribute $\beta \sigma_{j}^{2}$"),
        tc.Step((kap * s ** 2 - 2 * eta * s + n * beta * s ** (sp.Integer(2) / n)).subs(s, sig ** n),
                kap * sig ** (2 * n) - 2 * eta * sig ** n + n * beta * sig ** 2,
                r"in the product's singular value $s$ the same potential reads $\kappa s^{2} - 2 \eta s + n \beta s^{2/n}$"),
    ], general=True)


def _landau_where(d):
    w = [d[f"d{i}"] for i in range(d["n"] + 1)]
    return d["r"] <= min(w) and d["k"] <= min(w[0], w[-1])


_landau_dims = _net_space((2, 4), (1, 3), extra={"r": (0, 3), "k": (0, 3)}, where=_landau_where)
_landau = tc.Statement(
    r"E\|W_n\cdots W_1x-y\|^2+\beta\sum_i\|W_i\|_F^2 = \operatorname{tr}\Sigma_{yy}"
    r"+\sum_j\big(\kappa_j\sigma_j^{2n}-2\eta_j\sigma_j^n+n\beta\sigma_j^2\big),\ \sigma_j=\text{layer singular value}",
    dims=_landau_dims, sample=_landau_sample, lhs=_landau_lhs, rhs=_landau_rhs, derivation=_landau_derivation,
    note="LHS from a finite data set (uniform weights) with exactly aligned moments; balanced weights "
         r"$W_{i} = U_{i} \operatorname{diag}(\sigma) U_{i-1}^{\top}$ with random orthogonal bases.")
tc.register(tc.Claim(
    id="cascade.landau", title=r"Effective Landau loss $L_{j} = \kappa s^{2n} - 2 \eta s^{n} + n \beta s^{2}$ in the layer singular value",
    source=_src("III / eq. (15)", "(15)", r"L(\sigma)=\sum_j\big(\kappa_j\sigma_j^{2n}-2\eta_j\sigma_j^n+n\beta\sigma_j^2\big)"),
    statement=_landau,
    variants=(tc.Statement(_landau.latex.replace("layer singular value", "singular value of W_n...W_1"),
                           name=r"reading: $\sigma_{j}$ = macrostate singular value", kind="reading", dims=_landau_dims,
                           sample=_landau_sample, lhs=_landau_lhs,
                           rhs=lambda inst, ctx: _landau_rhs(inst, ctx, variable="product")),),
    controls=(tc.perturb(_landau, r"$\beta$ instead of $n \beta$", rhs=lambda v, inst, ctx: _landau_rhs(inst, ctx, nfactor=False)),
              tc.perturb(_landau, r"constant $\operatorname{tr} \Sigma_{yy}$ dropped",
                         rhs=lambda v, inst, ctx: _landau_rhs(inst, ctx, const=False)),
              tc.double(_landau)),
    aliases=("eq15",),
    assumptions=(ALIGNED, r"balanced aligned weights $W_{i} = U_{i} \operatorname{diag}(\sigma) U_{i-1}^{\top}$ (the 0-balanced macrostates)", LOSS),
))
