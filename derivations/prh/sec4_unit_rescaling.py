"""Section 4 of the prh note: eqs. (32)-(36) and footnote 14, the rescaling of one unit, and lambda*'s uniqueness.

Gradient balance of unit ``j``: row ``j`` of ``grad W_i`` vs column ``j`` of ``grad W_{i+1}`` (32)-(33);
footnote 14: the two terms under the rescaling of unit ``j`` (34), (35) and its unique minimiser (36);
the "(!!!)" observation after eq. (27) that the minimising lambda is unique.
"""

from __future__ import annotations

import functools

import numpy as np

import theorem_check as tc
from theorem_check import Refinement, ShapeMismatch, dln

from . import derivations_sympy as Y
from . import gauge
from . import model as M
from .checks import (
    _G0,
    OPT_RESOLUTION,
    _check_conform,
    _fmt,
    _inst64,
    _levels_refinement,
    _nonvanishing,
    _scalar_levels,
    _second_moments,
    _single_net,
    _tr,
    dS_dlam,
    two_terms,
)
from .model import _SETUP, _chk, _ident, _src


# ---------------------------------------------------------------------------------------
# eqs. (34)-(35): rescaling of unit j
# ---------------------------------------------------------------------------------------
def _unit_T(inst, ctx):
    P = np.zeros(inst.T.shape)
    P[:, inst.j, inst.j] = 1.0
    return ctx.asarray(P)


def eq34_side(inst, ctx, lam, *, which="34", rate=-2, norm="row", magnitude=False):
    """``Tr[e^{c lam T} M] - e^{rate lam} m_j`` with ``T = e_j e_j^T`` (constant in lam iff the statement holds).

    ``which="34"``: ``c = -2``, ``M = E[G_i G_i^T]``, ``m_j = E||row j of G_i||^2``;
    ``"35 printed"``: ``c = -2``, ``M = E[G_{i+1} G_{i+1}^T]``; ``"35"``: ``c = +2``, ``M = E[G_{i+1}^T G_{i+1}]``,
    ``m_j = E||column j of G_{i+1}||^2``.
    """
    G = _G0(inst)
    i, j = inst.i, inst.j
    P = _unit_T(inst, ctx)
    if which == "34":
        Mm, _ = _second_moments(G[i - 1])
        g, c = G[i - 1], -2
    else:
        BBt, BtB = _second_moments(G[i])
        Mm = BBt if which == "35 printed" else BtB
        g, c = G[i], (-2 if which == "35 printed" else 2)
    if norm == "row":
        m = np.sum(g[:, :, j, :] * g[:, :, j, :], axis=(1, 2)) / g.shape[1] if g.shape[2] > j else None
    else:
        m = np.sum(g[:, :, :, j] * g[:, :, :, j], axis=(1, 2)) / g.shape[1] if g.shape[3] > j else None
    if m is None:
        raise ShapeMismatch(f"unit j={j} does not index a {norm} of a {g.shape[2]}x{g.shape[3]} gradient")
    Ec = M.sym_exp(ctx, P, c * lam)
    _check_conform(Ec.shape, Mm.shape, r"$e^{c\lambda T}\,\mathbb{E}[\dots]$")
    if magnitude:                 # reference size of the two terms (the constant may vanish exactly)
        return ctx.abs(_tr(Ec @ Mm)) + ctx.abs(ctx.exp(rate * lam) * m)
    return _tr(Ec @ Mm) - ctx.exp(rate * lam) * m


def eq34_pair(inst, ctx, **kw):
    """The side at ``lam`` and at ``lam_2``: equal iff the difference is constant in lambda."""
    return eq34_side(inst, ctx, inst.lam, **kw), eq34_side(inst, ctx, inst.lam2, **kw)


def eq34_scale(inst, ctx, **kw):
    """Reference magnitude of eq. (34)/(35)'s comparison: the sizes of both terms at both lambdas.

    Needed because the "constant in lambda" is exactly 0 when the hidden layer has one unit.
    """
    return eq34_side(inst, ctx, inst.lam, magnitude=True, **kw) + eq34_side(inst, ctx, inst.lam2, magnitude=True, **kw)


# ---------------------------------------------------------------------------------------
# the lambda-uniqueness claim: spectral form of the two terms
# ---------------------------------------------------------------------------------------
def sample_dead(rng, d, batch, dead=True):
    """Like :func:`.model.sample_edln`; with ``dead`` unit ``j`` of dln ``h^i`` is dead.

    Dead: row ``j`` of the note's ``W_i`` and column ``j`` of ``W_{i+1}`` are zero, so unit ``j``
    neither receives nor sends a signal (the gradients of both vanish along it).
    """
    inst = M.sample_edln(rng, d, batch)
    if dead:
        i, j = inst["i"], inst["j"]
        inst["Ws"][i - 1][:, j, :] = 0.0
        inst["Ws"][i][:, :, j] = 0.0
        P = np.zeros_like(inst["T"])
        P[:, j, j] = 1.0
        inst["T"] = P
    return inst


def spectral_terms(inst, ctx, swap=False):
    """``sum_k e^{-2 lam t_k} alpha_k + e^{2 lam t_k} beta_k``, ``alpha_k = q_k^T A q_k``, ``beta_k = q_k^T B q_k``."""
    import mpmath

    G = _G0(inst)
    i = inst.i
    A, _ = _second_moments(G[i - 1])
    _, B = _second_moments(G[i])
    out = []
    for b in range(A.shape[0]):
        if ctx.is_mp:
            ev, Q = mpmath.eigsy(mpmath.matrix(inst.T[b].tolist()))
            t = np.array([ev[k] for k in range(ev.rows)], dtype=object)
            Q = np.array(Q.tolist(), dtype=object)
        else:
            t, Q = np.linalg.eigh(inst.T[b])
        al = np.sum(Q * (A[b] @ Q), axis=0)
        be = np.sum(Q * (B[b] @ Q), axis=0)
        if swap:
            al, be = be, al
        lam = inst.lam[b]
        out.append(np.sum(ctx.exp(-2 * lam * t) * al + ctx.exp(2 * lam * t) * be))
    return np.array(out, dtype=A.dtype)


# ---------------------------------------------------------------------------------------
# custom checks at optima: eqs. (33), (36) and the uniqueness of lambda*
# ---------------------------------------------------------------------------------------
def _diag_round(net, polish=False, gtol=1e-8):
    """Minimise S over diagonal rescalings ``G_k = diag(exp(s_k))`` (the rescaling symmetry only).

    BFGS with tolerance ``gtol`` on the log-scales, or (``polish``) Levenberg-Marquardt on the
    stationarity equations; the weights are re-centred (the found scaling is applied).
    """
    import scipy.optimize as so

    Xc, Yc = net.covariances()
    D = len(net.Ws)
    hid = net.widths[1:D]
    sizes = np.cumsum([0] + hid)

    def Gs(s):
        return [np.eye(net.widths[0])] + [np.diag(np.exp(s[sizes[k]:sizes[k + 1]])) for k in range(len(hid))] \
            + [np.eye(net.widths[-1])]

    S0 = gauge._S_closed(Gs(np.zeros(sizes[-1])), Xc, Yc)[0]

    def f(s):
        G = Gs(s)
        val, g = gauge._S_closed(G, Xc, Yc)
        grad = np.concatenate([np.diag(gk) * np.diag(Gk) for gk, Gk in zip(g[1:-1], G[1:-1])])
        return val / S0, grad / S0

    s0 = np.zeros(sizes[-1])
    if polish:
        res = so.root(lambda s: f(s)[1], s0, method="lm", options={"xtol": 1e-15, "ftol": 1e-15})
    else:
        res = so.minimize(f, s0, jac=True, method="BFGS", options={"gtol": gtol})
    x = res.x if np.all(np.isfinite(res.x)) and f(res.x)[0] <= 1 + 1e-12 else s0
    G = Gs(x)
    return net.with_weights([G[k + 1] @ W @ np.linalg.inv(G[k]) for k, W in enumerate(net.Ws)])


def check_eq33(norm="column", rescaling_only=False, minimise=True):
    """Eq. (33): ``E||row j of grad W_i||^2 = E||column j of grad W_{i+1}||^2`` for all i, j at the minimiser."""

    def check(rng, d):
        task, net0, levels = _single_net(rng, d)
        if rescaling_only:                        # same three levels as gauge.LEVELS, diagonal G only
            coarse = _diag_round(net0, gtol=1e-3)
            fine = _diag_round(_diag_round(coarse))
            levels = [coarse, fine, _diag_round(fine, polish=True)]
        nets = levels if minimise else [net0] * len(levels)
        meas, pred, vals = [], [], []
        for net in nets:
            G = net.grads()
            ms, ps, worst = [], [], 0.0
            for i in range(1, len(G)):
                rows = np.sum(G[i - 1] ** 2, axis=(0, 2)) / G[i - 1].shape[0]
                if norm == "column":
                    other = np.sum(G[i] ** 2, axis=(0, 1)) / G[i].shape[0]
                else:
                    other = np.sum(G[i] ** 2, axis=(0, 2)) / G[i].shape[0]
                    if other.shape != rows.shape:
                        raise ShapeMismatch(f"W_{i + 1} has {other.shape[0]} rows, h^{i + 1} has {rows.shape[0]} units")
                # every unit j weighs the same: both sides of unit j over their common magnitude (> 0: no unit
                # of these networks is dead), so a small unit's imbalance is not hidden by a large one's
                s = np.maximum(np.maximum(rows, other), np.finfo(float).tiny)
                ms.append(rows / s)
                ps.append(other / s)
                worst = max(worst, float(np.max(np.abs(rows - other) / s)))
            meas.append(np.concatenate(ms))
            pred.append(np.concatenate(ps))
            vals.append(worst)
        return _levels_refinement(meas, pred, detail=f"max over i, j of relative gap: {_fmt(vals)}")

    return check


def check_eq36(mode="printed"):
    """Eq. (36): the minimiser of S along the rescaling of unit j satisfies e^{4 lam} = a / b."""

    def check(rng, d):
        inst, ctx = _inst64(rng, d)
        P = np.zeros_like(inst.T)
        P[:, inst.j, inst.j] = 1.0
        inst = type(inst)(dict(inst, T=P))
        G = _G0(inst)
        i, j = inst.i, inst.j
        a = float(np.sum(G[i - 1][:, :, j, :] ** 2) / G[i - 1].shape[1])
        b = float(np.sum(G[i][:, :, :, j] ** 2) / G[i].shape[1])
        pred = {"printed": np.log(a / b) / 4, "factor 2": np.log(a / b) / 2, "swapped": np.log(b / a) / 4}[mode]
        fun = lambda z: float(two_terms(inst, ctx, np.array([z]))[0])
        dfun = lambda z: float(dS_dlam(inst, ctx, np.array([z]))[0])
        lams = _scalar_levels(fun, dfun)
        vals = [abs(z - pred) / (1 + abs(pred)) for z in lams]
        # lambda is dimensionless and its Brent/brentq errors are absolute: scale 1 + |lam_pred|
        return _levels_refinement(lams, [pred] * len(lams), scalar=True, scale=1.0 + abs(pred),
                                  detail=f"lam* = {lams[-1]:.6g}, predicted {pred:.6g}; "
                                         f"|lam* - lam_pred|/(1+|lam_pred|): {_fmt(vals)}")

    return check


def check_unique_printed():
    """The printed claim "Eq. (27) has a unique minimiser" at a global minimum with a dead unit.

    The instance is a global minimum (hidden width > rank V*) whose unit ``j`` of ``h^{i+1}`` is
    dead, and ``T = e_j e_j^T``.  Uniqueness fails iff S(lam) is constant: decided by precision
    refinement of ``|S(lam) - S(0)| / S(0)`` at lam = +-1 (float64 -> mpmath 50 digits).
    """
    from theorem_check import FLOAT64, MP50

    def check(rng, d):
        n = d["n"]
        task = gauge.shared_task(rng, n, n)
        hidden = [n + d[f"o{k}"] for k in range(1, d["D"])]
        k = int(np.argmax(hidden))                   # a hidden layer wider than rank V*
        j = int(rng.integers(hidden[k]))
        net = gauge.random_net(rng, hidden, task, dead=(k + 1, j))
        inst = {"M_O": net.M_O[None], "M_I": net.M_I[None], "Z": net.Z[None], "V": task[0][None],
                "U": task[1][None], "E": task[2][None], "Ws": [W[None] for W in net.Ws], "i": k + 1, "j": j}
        P = np.zeros((1, hidden[k], hidden[k]))
        P[0, j, j] = 1.0
        inst["T"] = P
        vals = []
        for ctx in (FLOAT64, MP50):
            ci = M.to_ctx(inst, ctx)
            with ctx.active():
                f0 = two_terms(ci, ctx, ctx.asarray(np.zeros(1)))
                dev = max(abs(float((two_terms(ci, ctx, ctx.asarray(np.array([s]))) - f0)[0])) for s in (-1.0, 1.0))
                vals.append(dev / float(f0[0]))
        # a unique minimiser needs S(lambda) not constant: "the variation does not vanish", resolved at the
        # precision's floor eps * 1e3 (the two-term sum of a few hundred products); see _nonvanishing
        floors = [FLOAT64.eps * 1e3, MP50.eps * 1e3]
        return _nonvanishing(["float64", "mp50"], vals, floors, precisions=["float64", "mp50"],
                             detail=f"dead unit j={j} of h^{k + 2}, T = e_j e_j^T: |S(+-1) - S(0)|/S(0) = {_fmt(vals)} "
                                    "(S constant in lambda: every lambda minimises)")

    return check


IFF_WINDOWS = (2.0, 5.0, 8.0)
"""Half-widths ``L`` of the windows ``[-L, L]`` over which the iff check locates the minimiser of (27)."""


def _two_unit_net(rng, d):
    """A global minimum whose widest hidden layer has two one-sided units (for :func:`check_unique_iff`).

    Built with two units fewer there (still ``>= rank V*``), then unit ``a`` gets a zero row in the note's
    ``W_i`` and a random column in ``W_{i+1}`` (it sends but receives nothing: ``h_a = 0``), unit ``b`` a
    random row and a zero column (receives but sends nothing: ``delta_b = 0``).  Neither changes the
    product ``W_{i+1} W_i``, so the point is still a global minimum.  Returns ``(inst, i, a, b)`` with a
    float64 instance of batch 1 (``T`` to be set).
    """
    n = d["n"]
    task = gauge.shared_task(rng, n, n)
    hidden = [n + d[f"o{k}"] for k in range(1, d["D"])]
    k = int(np.argmax(hidden))
    w = hidden[k]
    hid = list(hidden)
    hid[k] -= 2
    net = gauge.random_net(rng, hid, task)
    Ws = list(net.Ws)
    W_in, W_out = Ws[k], Ws[k + 1]
    row = rng.standard_normal((1, W_in.shape[1])) * np.linalg.norm(W_in) / np.sqrt(W_in.size)
    col = rng.standard_normal((W_out.shape[0], 1)) * np.linalg.norm(W_out) / np.sqrt(W_out.size)
    W_in = np.vstack([W_in, np.zeros((1, W_in.shape[1])), row])          # unit w-2: zero row; w-1: random row
    W_out = np.hstack([W_out, col, np.zeros((W_out.shape[0], 1))])       # unit w-2: random column; w-1: zero
    perm = rng.permutation(w)
    Ws[k], Ws[k + 1] = W_in[perm], W_out[:, perm]
    inv = np.argsort(perm)
    a, b = int(inv[w - 2]), int(inv[w - 1])
    inst = {"M_O": net.M_O[None], "M_I": net.M_I[None], "Z": net.Z[None], "V": task[0][None],
            "U": task[1][None], "E": task[2][None], "Ws": [W[None] for W in Ws], "i": k + 1, "j": a,
            "T": np.zeros((1, w, w)), "lam": np.zeros(1)}
    return inst, k + 1, a, b


def check_unique_iff():
    """'(27) has a unique minimiser iff it is coercive', for rank-one ``T = q q^T`` (issue 10).

    In ``T``'s eigenbasis (27) is ``f(lam) = alpha e^{-2 lam} + beta e^{2 lam} + const`` with
    ``alpha = q^T E[G_i G_i^T] q``, ``beta = q^T E[G_{i+1}^T G_{i+1}] q`` (the verified spectral form); it
    is coercive iff ``alpha, beta > 0``, and then its unique minimiser solves ``e^{4 lam*} = alpha / beta``.
    If ``beta = 0`` (``alpha = 0``) it decreases (increases) strictly: no minimiser, the infimum is at
    ``+inf`` (``-inf``).  On the compactified line ``w = 1 / (1 + e^{-4 lam})`` all three cases read
    ``w* = alpha / (alpha + beta)``: interior (unique minimiser) iff coercive, ``1`` or ``0`` (none) otherwise.

    Per instance, on one global minimum (:func:`_two_unit_net`): three directions, a random unit ``q``
    (coercive), unit ``a`` (``beta = 0``) and unit ``b`` (``alpha = 0``).  Predicted: ``w*`` from
    ``alpha, beta`` (second moments of the gradients at ``lam = 0``).  Measured: the minimiser of ``f`` over
    ``[-L, L]`` located from its definition (S of the transformed network; ``f`` is convex, so it is the
    root of the complex-step ``dS/dlam`` by ``brentq`` when ``f'(-L) < 0 < f'(L)``, else the end where
    ``f`` is smallest), mapped to ``w``.  Levels ``L = 2, 5, 8``; floor ``e^{-4L}`` (what a minimiser at
    infinity leaves in ``w``) plus a rounding floor ``1e3 eps S / (alpha_q + beta_q)`` (``dS/dlam`` is
    exact to ``eps S``, ``f'' = 4 (alpha e^{-2 lam} + beta e^{2 lam})``).
    """

    from theorem_check import FLOAT64

    def check(rng, d):
        import scipy.optimize as so  # here, not at import: `list` and `show` need no SciPy

        raw, i, a, b = _two_unit_net(rng, d)
        ctx = FLOAT64
        inst = M.to_ctx(raw, ctx)
        w = raw["T"].shape[-1]
        G = _G0(inst)
        A, _ = _second_moments(G[i - 1])
        _, B = _second_moments(G[i])
        S0 = float(sum(dln.mean_squared_norms(g) for g in G)[0])
        q = rng.standard_normal(w)
        q /= np.linalg.norm(q)
        dirs = {"q": q, "a": np.eye(w)[a], "b": np.eye(w)[b]}
        pred, meas, lam_hat, ab = [], [[] for _ in IFF_WINDOWS], [[] for _ in IFF_WINDOWS], {}
        for nm, v in dirs.items():
            al, be = float(v @ A[0] @ v), float(v @ B[0] @ v)
            ab[nm] = (al, be)
            pred.append(al / (al + be))
            one = type(inst)(dict(inst, T=ctx.asarray(np.outer(v, v)[None])))
            dfun = lambda z, one=one: float(dS_dlam(one, ctx, np.array([z]))[0])
            for k, L in enumerate(IFF_WINDOWS):
                lo, hi = dfun(-L), dfun(L)
                if lo < 0 < hi:
                    z = so.brentq(dfun, -L, L, xtol=1e-15, rtol=4 * np.finfo(float).eps)
                else:                       # monotone on the window: the minimum is at an end
                    z = L if hi <= 0 else -L
                lam_hat[k].append(z)
                meas[k].append(1.0 / (1.0 + np.exp(-4.0 * z)))
        al_q, be_q = ab["q"]
        rounding = 1e3 * np.finfo(float).eps * S0 / (al_q + be_q)
        floors = [float(np.exp(-4 * L)) + rounding for L in IFF_WINDOWS]
        detail = (f"h^{i + 1} width {w}: alpha, beta = " + ", ".join(f"{nm} ({x:.3g}, {y:.3g})" for nm, (x, y) in ab.items())
                  + f"; minimiser over [-L, L] (L = {IFF_WINDOWS[-1]:g}): " + ", ".join(f"{z:.6g}" for z in lam_hat[-1])
                  + "; predicted w* = alpha/(alpha+beta): " + ", ".join(f"{p:.6g}" for p in pred))
        return Refinement.of([f"L={L:g}" for L in IFF_WINDOWS], measured=[np.array(m) for m in meas],
                             predicted=np.array(pred), floors=floors, resolution=OPT_RESOLUTION, detail=detail)

    return check


# =======================================================================================
# eqs. (32)-(36), footnote 14, uniqueness of lambda*
# =======================================================================================
one_dims = M.single_dims()          # as in sec4_gradient_balance (eq. 31)
P33 = r"\mathbb{E}[\|\nabla_{W_{i}^{j:}}\ell\|^{2}]=\mathbb{E}[\|\nabla_{W_{i+1}^{:j}}\ell\|^{2}]"
s33 = _chk(P33, check_eq33(), dims=one_dims, derivation=Y.eq33,
           note="every i and j, at an S-minimiser over the gauge group")
r33 = _chk(P33 + r"\quad\text{(rescaling symmetry only)}", check_eq33(rescaling_only=True),
           name="reading: minimiser over rescalings only", kind="reading", dims=one_dims,
           note="$T$ of eq. (32) only: $S$ minimised over diagonal $G_{k}$")
tc.register(tc.Claim(
    id="prh.eq33", title="Gradient balance of unit $j$: row of $W_{i}$ vs column of $W_{i+1}$",
    source=_src("4", "(32)-(33)", P33), statement=s33, variants=(r33,),
    controls=(_chk(P33, check_eq33(norm="row"), name="control: row $j$ of $W_{i+1}$", kind="control", dims=one_dims),
              _chk(P33, check_eq33(minimise=False), name="control: generic global minimum", kind="control",
                   dims=one_dims)),
    aliases=("eq32",), assumptions=(*_SETUP, "$T_{kl} = 1$ iff $k = l = j$ (eq. 32)"),
))


def _const_in_lambda(**kw):
    return dict(lhs=lambda inst, ctx: eq34_side(inst, ctx, inst.lam, **kw),
                rhs=lambda inst, ctx: eq34_side(inst, ctx, inst.lam2, **kw),
                scale=lambda inst, ctx: eq34_scale(inst, ctx, **kw))


P34 = (r"{\rm Tr}[e^{-2\lambda T}\mathbb{E}[\nabla_{W_{i}}\ell\nabla_{W_{i}}^{\top}\ell]]"
       r"=e^{-2\lambda}\mathbb{E}[\|\nabla_{W_{i}^{j:}}\ell\|^{2}]+\text{ constants in }\lambda")
s34 = _ident(P34, **_const_in_lambda(which="34", rate=-2, norm="row"), derivation=functools.partial(Y.eq34_35, False),
             note=r"$T = e_{j} e_{j}^{\top}$; 'constant in $\lambda'$: the difference of the sides is equal at $\lambda_{1}$ and $\lambda_{2}$")
tc.register(tc.Claim(
    id="prh.eq34", title="Footnote 14: the $W_{i}$ term under the rescaling of unit $j$",
    source=_src("4", "footnote 14, (34)", P34), statement=s34,
    controls=(_ident(P34, **_const_in_lambda(which="34", rate=-1, norm="row"), name=r"control: $e^{-\lambda}$",
                     kind="control"),),
    aliases=("fn14",), assumptions=_SETUP,
))

P35 = (r"{\rm Tr}[e^{-2\lambda T}\mathbb{E}[\nabla_{W_{i+1}}\ell\nabla_{W_{i+1}}^{\top}\ell]]"
       r"=e^{2\lambda}\mathbb{E}[\|\nabla_{W_{i+1}^{:j}}\ell\|^{2}]\ \text{constants in }\lambda")
s35 = _ident(P35, **_const_in_lambda(which="35 printed", rate=2, norm="column"),
             note=r"printed: $e^{-2 \lambda T}$ with the $d_{i+2} \times d_{i+2}$ matrix $\mathbb{E}[\nabla \nabla^{\top}]$")
v35 = _ident(r"{\rm Tr}[e^{2\lambda T}\mathbb{E}[\nabla_{W_{i+1}}^{\top}\ell\nabla_{W_{i+1}}\ell]]"
             r"=e^{2\lambda}\mathbb{E}[\|\nabla_{W_{i+1}^{:j}}\ell\|^{2}]+\text{ constants in }\lambda",
             **_const_in_lambda(which="35", rate=2, norm="column"), name=r"corrected: $e^{+2 \lambda T}$, $\nabla^{\top} \nabla$",
             kind="corrected", derivation=functools.partial(Y.eq34_35, True))
tc.register(tc.Claim(
    id="prh.eq35", title="Footnote 14: the $W_{i+1}$ term under the rescaling of unit $j$",
    source=_src("4", "footnote 14, (35)", P35), statement=s35, variants=(v35,),
    controls=(_ident(P35, **_const_in_lambda(which="35", rate=-2, norm="column"), name=r"control: $e^{-2 \lambda}$",
                     kind="control"),),
    assumptions=_SETUP,
))

P36 = r"e^{4\lambda}=\frac{\mathbb{E}[\|\nabla_{W_{i}^{j:}}\ell\|^{2}]}{\mathbb{E}[\|\nabla_{W_{i+1}^{:j}}\ell\|^{2}]}"
s36 = _chk(P36, check_eq36("printed"), dims=M.edln_dims(), derivation=Y.eq36,
           note=r"$\lambda^*$ minimises $S$ along the rescaling of unit $j$ (SciPy), compared with the printed formula")
tc.register(tc.Claim(
    id="prh.eq36", title="Footnote 14: the unique minimiser of the rescaling",
    source=_src("4", "footnote 14, (36)", P36), statement=s36,
    controls=(tc.perturb(s36, r"$e^{2 \lambda}$", predicted=lambda p: 2 * p),       # lam = log(a/b)/2
              tc.perturb(s36, "ratio swapped", predicted=lambda p: -p)),       # lam = log(b/a)/4
    assumptions=(*_SETUP, "arbitrary weights; a, b > 0 (unit j receives and sends a signal)"),
))

Puniq = (r"\text{(27) reaches its minimum at a unique }\lambda=\lambda^{*}\ \text{for any symmetric } T"
         r"\ \text{at any solution of (20)}")
uniq_dims = M.single_dims(offsets=(1, 3))
suniq = _chk(Puniq, check_unique_printed(), dims=uniq_dims,
             note=r"instance: a global minimum with a dead hidden unit $j$ (hidden width > $\operatorname{rank} V^*$), $T = e_{j} e_{j}^{\top}$")
dead_dims = M.edln_dims()
vuniq = _ident(r"\mathbb{E}\|\nabla_{W_i^\lambda}\ell\|^2+\mathbb{E}\|\nabla_{W_{i+1}^\lambda}\ell\|^2="
               r"\sum_k e^{-2\lambda t_k}\alpha_k+e^{2\lambda t_k}\beta_k,\ \alpha_k=q_k^\top A q_k,\ "
               r"\beta_k=q_k^\top B q_k\ \text{(convex in }\lambda\text{; constant along directions unused by both)}",
               two_terms, spectral_terms, name="corrected: spectral form (convex; unique iff coercive)", kind="corrected",
               sample=functools.partial(sample_dead, dead=False), derivation=Y.lambda_unique,
               note=r"$A = \mathbb{E}[\nabla_{Wi} \nabla_{Wi}^{\top}]$, $B = \mathbb{E}[\nabla_{Wi}+1^{\top} \nabla_{Wi}+1]$, "
                    r"$T = \sum t_{k} q_{k} q_{k}^{\top}$; unique minimiser iff (some $t_{k}>0$ has $\beta_{k}>0$ "
                    r"or $t_{k}<0$ has $\alpha_{k}>0$) and (some $t_{k}>0$ has $\alpha_{k}>0$ or $t_{k}<0$ has $\beta_{k}>0$)")
viff = _chk(r"T=qq^{\top}:\ \text{(27) has a unique minimiser iff it is coercive } (\alpha=q^{\top}Aq>0,\ "
           r"\beta=q^{\top}Bq>0)\text{, then } e^{4\lambda^{*}}=\alpha/\beta\text{; else } \lambda^{*}\to\pm\infty",
           check_unique_iff(), name=r"corrected: unique iff coercive (rank-one $T = q q^{\top}$)", kind="corrected",
           dims=M.single_dims(offsets=(2, 4)),
           note=r"one global minimum, three directions of its widest hidden layer: a random unit $q$ (coercive), "
                r"a unit that receives nothing ($\beta = 0$) and one that sends nothing ($\alpha = 0$); the minimiser "
                r"over $[-L, L]$ (from $S$'s definition) against $w^* = \alpha/(\alpha+\beta)$ on the compactified line "
                r"$w = 1/(1+e^{-4 \lambda})$: interior iff coercive. $\alpha = \beta = 0$ ($S$ constant) is the printed "
                r"counterexample")
tc.register(tc.Claim(
    id="prh.lambda_unique", title=r"Uniqueness of the minimising $\lambda$ (the '(!!!)' observation)",
    source=_src("4", "after (27)", Puniq), statement=suniq, variants=(vuniq, viff),
    controls=(tc.perturb(vuniq, r"$\alpha$ and $\beta$ swapped", rhs=lambda v, inst, ctx: spectral_terms(inst, ctx, swap=True)),
              tc.perturb(viff, r"$\alpha$ and $\beta$ swapped in $w^*$", predicted=lambda p: 1 - p),
              tc.perturb(viff, "a finite minimiser also when not coercive",      # the 'only if' half
                         predicted=lambda p: np.where((p == 0) | (p == 1), 0.5, p))),
    aliases=("unique_lambda",),
    assumptions=(*_SETUP, "the printed claim is tested where it can fail: hidden widths > rank V* = n"),
))
