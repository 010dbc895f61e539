"""Sec. III.A.1 / App. C, Tables II, III, VII, and the review's minor comment 2: Hessian spectra.

``cascade.hessian_n2``, ``cascade.hessian_n3``, ``cascade.hessian_kappa`` (the full Hessian's spectrum at
aligned critical points in closed form), ``cascade.hessian_sectors`` (multiplicities of the zero and
``4 beta`` sectors) and ``cascade.minor2`` (the count of eigenvalues in ``(0, 4 beta]``).

Model, conventions and closed forms (``th``): :mod:`derivations.cascade.model`.
"""

from __future__ import annotations

import itertools

import numpy as np
import sympy as sp

import theorem_check as tc
from theorem_check import dln

from . import model as th
from .model import ALIGNED, LOSS, _antisym, _net_space, _sqrt, _src, _widths


# =======================================================================================
# Hessian spectra of the full network at aligned critical points (Tables II, III, VII)
# =======================================================================================
def _hess_space(depth, wmax):
    def where(d):
        w = _widths(d)
        return d["r"] <= min(w) and d["r"] <= d["k"] <= min(w[0], w[-1])
    return _net_space(depth, (1, wmax), extra={"r": (1, wmax), "k": (1, wmax)}, where=where)


def _hess_sampler(*, kappa_one):
    def sample(rng, d, batch):
        w, n = _widths(d), d["n"]
        r, k = d["r"], d["k"]
        return {"A_R": _antisym(rng, w[0], batch), "A_L": _antisym(rng, w[-1], batch),
                "A_U": [_antisym(rng, w[i], batch) for i in range(1, n)],
                "kappa": np.ones((batch, w[0])) if kappa_one else np.exp(rng.uniform(-1.0, 1.0, size=(batch, w[0]))),
                "sigma": rng.uniform(0.5, 1.4, size=(batch, r)), "eta_in": rng.uniform(0.0, 1.5, size=(batch, k - r)),
                "beta": float(rng.uniform(0.1, 1.0)), "w": w}
    return sample


def _hess_point(inst, ctx):
    """Weights, moments and Hessian at the aligned critical point of an instance (at ctx's precision)."""
    w = inst.w
    n = len(w) - 1
    R, L = th.cayley(inst.A_R, ctx), th.cayley(inst.A_L, ctx)
    U = [R] + [th.cayley(a, ctx) for a in inst.A_U] + [L]
    Ws = [U[i + 1] @ th.diag_embed(inst.sigma, w[i + 1], w[i], ctx) @ ctx.T(U[i]) for i in range(n)]
    r = inst.sigma.shape[-1]
    eta_act = th.eta_from_sigma(inst.sigma, inst.kappa[:, :r], inst.beta, n)      # criticality fixes eta_p, p < r
    eta = np.concatenate([eta_act, inst.eta_in], axis=-1)
    k = eta.shape[-1]
    Sxx = (R * inst.kappa[:, None, :]) @ ctx.T(R)
    Syx = (L[:, :, :k] * eta[:, None, :]) @ ctx.T(R[:, :, :k]) if k else ctx.zeros((R.shape[0], w[-1], w[0]))
    H = dln.population_hessian(Ws, Sxx, Syx, beta=inst.beta)
    return Ws, Sxx, Syx, H


def _hess_lhs(inst, ctx):
    return ctx.eigvalsh(_hess_point(inst, ctx)[3])


def _hess_pred(inst, ctx, **kw):
    n = len(inst.w) - 1
    sq = _sqrt(ctx)
    rows = []
    for b in range(inst.sigma.shape[0]):
        vals = th.predicted_hessian_spectrum(n, inst.w, list(inst.sigma[b]), list(inst.kappa[b]), list(inst.eta_in[b]),
                                             inst.beta, sqrt=sq, **kw)
        rows.append(sorted(vals))
    return np.array(rows, dtype=ctx.dtype)


def _hess_rhs(inst, ctx):
    return _hess_pred(inst, ctx)


def _hess_derivation(n, *, kappa_one):
    """SymPy derivation of the block characteristic polynomials for ``n`` (an int or a tuple of depths)."""
    def build_n(n):
        lam, beta = sp.Symbol("lambda"), sp.Symbol("beta", positive=True)
        sp_, sq_, kp, kq, eq = sp.symbols("sigma_p sigma_q kappa_p kappa_q eta_q", positive=True)
        if kappa_one:
            kp = kq = sp.Integer(1)
        ep = th.eta_from_sigma(sp_, kp, beta, n)                  # criticality of the active directions
        eqa = th.eta_from_sigma(sq_, kq, beta, n)
        steps = []
        # diagonal, active
        Hd = th.sym_diag_block(n, sp_, ep, kp, beta)
        steps.append(tc.Step(th.charpoly(Hd, lam), sp.expand((4 * beta - lam) ** (n - 1)
                                                             * (2 * n * kp * sp_ ** (2 * n - 2) - 2 * (n - 2) * beta - lam)),
                             f"diagonal block (active $p$): $(4\\beta)^{{{n - 1}}}$ and $2n\\kappa\\sigma^{{2n-2}} - 2(n-2)\\beta$"))
        # pair, both active
        Hp = th.sym_pair_block(n, sp_, sq_, ep, eqa, kp, kq, beta)
        Tn, Tm = th._T(sp_, sq_, n), th._T(sp_, sq_, n - 2)
        tr = 4 * beta + 2 * (kp + kq) * Tn
        det = 4 * Tn * (beta * (kp + kq) + kp * kq * Tn - beta ** 2 * Tm / (sp_ * sq_) ** (2 * (n - 2)))
        claimed = (-lam) ** (n - 1) * (4 * beta - lam) ** (n - 1) * (lam ** 2 - tr * lam + det)
        steps.append(tc.Step(sp.expand(th.charpoly(Hp, lam) * (sp_ * sq_) ** (2 * (n - 2))),
                             sp.expand(claimed * (sp_ * sq_) ** (2 * (n - 2))),
                             f"pair block, both active: $0^{{{n - 1}}}$, $(4\\beta)^{{{n - 1}}}$, roots of $l^2 - \\operatorname{{tr}}\\, l + \\det$"))
        # pair, p active, q inactive (sigma_q = 0, free eta_q)
        Hs = th.sym_pair_block(n, sp_, 0, ep, eq, kp, kq, beta)
        a11, a22, a12 = 2 * (kq * sp_ ** (2 * n - 2) + beta), 2 * ep * sp_ ** (n - 2), -2 * eq * sp_ ** (n - 2)
        claimed = (-lam) ** (n - 1) * (4 * beta - lam) ** (n - 1) * ((a11 - lam) * (a22 - lam) - a12 ** 2)
        steps.append(tc.Step(sp.expand(th.charpoly(Hs, lam)), sp.expand(claimed),
                             f"pair block, $p$ active, $q$ inactive: $0^{{{n - 1}}}$, $(4\\beta)^{{{n - 1}}}$, swap block "
                             r"$2\begin{pmatrix}\kappa_q s^{2n-2}+\beta & -\eta_q s^{n-2}\\ -\eta_q s^{n-2} & \eta_p s^{n-2}\end{pmatrix}$"))
        if kappa_one:
            ep_, eq_ = sp.symbols("eta_p eta_q", positive=True)
            if n == 2:
                steps.append(tc.Step(sp.expand((a11 - lam) * (a22 - lam) - a12 ** 2).subs(sp_ ** 2, ep_ - beta),
                                     sp.expand((2 * (ep_ - eq) - lam) * (2 * (ep_ + eq) - lam)).subs(sp_ ** 2, ep_ - beta),
                                     r"$\Sigma_{xx} = 1$, $n = 2$: swap eigenvalues 2($\eta_{p}$ -+ $\eta_{q}$): negative iff $\eta_{q} > \eta_{p}$"))
                steps.append(tc.Step(sp.expand(lam ** 2 - tr * lam + det),
                                     sp.expand((lam - 2 * (sp_ ** 2 + sq_ ** 2)) * (lam - 2 * (sp_ ** 2 + sq_ ** 2) - 4 * beta)),
                                     r"$\Sigma_{xx} = 1$, $n = 2$: both active: $2(\eta_{p}+\eta_{q}) - 4 \beta$ and $2(\eta_{p}+\eta_{q})$"))
            else:
                steps.append(tc.Step(sp.expand(((a11 - lam) * (a22 - lam) - a12 ** 2)),
                                     sp.expand((2 * sp_ * (ep - eq) - lam) * (2 * sp_ * (ep + eq) - lam)),
                                     r"$\Sigma_{xx} = 1$, $n = 3$: swap eigenvalues $2 \sigma_{p}$ ($\eta_{p}$ -+ $\eta_{q}$)"))
        # inactive entries
        Hi = th.sym_pair_block(n, 0, 0, sp.Symbol("eta_p", positive=True), eq, kp, kq, beta)
        ep0 = sp.Symbol("eta_p", positive=True)
        inactive = ((2 * beta - lam) ** 2 - 4 * ep0 ** 2) * ((2 * beta - lam) ** 2 - 4 * eq ** 2) if n == 2 \
            else (2 * beta - lam) ** (2 * n)
        steps.append(tc.Step(th.charpoly(Hi, lam), sp.expand(inactive),
                             r"pair block, both inactive: $2 \beta \pm 2 \eta (n = 2)$, $2 \beta (n \ge 3)$"))
        return steps

    def derivation():
        steps = [st for m in (n if isinstance(n, tuple) else (n,)) for st in build_n(m)]
        return tc.Derivation(steps, general=False,
                             sizes=f"$n = {n}$: the $2n \\times 2n$ pair blocks and $n \\times n$ diagonal blocks (block structure: all widths, numerically)")
    return derivation


_HESS_NOTE = (r"lhs: eigenvalues of the full Hessian (dln.population_hessian) at $W_{i} = U_{i} \operatorname{diag}(\sigma) U_{i-1}^{\top}$ "
              r"with exactly orthogonal random bases, $\eta_{p}$ of the active directions fixed by criticality; rhs: "
              "the block closed forms (model.predicted_hessian_spectrum). Every aligned critical point, minima included.")


def _hess_claim(cid, title, depth, wmax, *, kappa_one, printed, equation, derivation_n, aliases=(), extra_variants=()):
    st = tc.Statement(printed, dims=_hess_space(depth, wmax), sample=_hess_sampler(kappa_one=kappa_one),
                      lhs=_hess_lhs, rhs=_hess_rhs, note=_HESS_NOTE,
                      derivation=_hess_derivation(derivation_n, kappa_one=kappa_one) if derivation_n else None)
    tc.register(tc.Claim(
        id=cid, title=title, source=_src("III.A.1, III.B, App. C", equation, printed), statement=st,
        variants=tuple(v(st) for v in extra_variants),
        controls=(tc.double(st), tc.negate(st),
                  tc.perturb(st, r"$\beta$ sector $2 \beta$", rhs=lambda v, inst, ctx: _hess_pred(inst, ctx, beta_sector=2.0))),
        aliases=aliases,
        assumptions=(ALIGNED, LOSS, r"critical point $W_{i} = U_{i} \operatorname{diag}(\sigma) U_{i-1}^{\top}$ (balanced, aligned), generic parameters"),
    ))


_hess_claim("cascade.hessian_n2", r"Full Hessian spectrum, one hidden layer, $\Sigma_{xx} = 1$: closed forms and sectors", (2, 2), 4,
            kappa_one=True, equation="Table II", derivation_n=2, aliases=("table2",),
            printed=r"n=2,\ \Sigma_{xx}=1:\ \{4(\eta_p-\beta)\}_{p\le r}\cup\{4\beta\}^{\frac{r(r+1)}{2}+r(d_1-r)}"
                    r"\cup\{0\}^{\frac{r(r-1)}{2}+r(d_1-r)}\cup\{2(\eta_p+\eta_q)-4\beta,\,2(\eta_p+\eta_q)\}_{p<q\le r}"
                    r"\cup\{2(\eta_p\pm\eta_q)\}_{p\le r<q}\cup\{2\beta\pm2\eta_q\}_{\text{inactive}}")
_hess_claim("cascade.hessian_n3", r"Full Hessian spectrum, two hidden layers, $\Sigma_{xx} = 1$: closed forms and sectors", (3, 3), 3,
            kappa_one=True, equation="Table III", derivation_n=3, aliases=("table3",),
            printed=r"n=3,\ \Sigma_{xx}=1:\ \{0\}^{2[\frac{r(r-1)}{2}]+r\sum_i(d_i-r)},\ \{4\beta\}^{2\frac{r(r+1)}{2}+r\sum_i(d_i-r)},"
                    r"\ 6\sigma_p^4-2\beta,\ 2\sigma_p(\eta_p\pm\eta_q),\ 2(\beta+T_3)\pm\frac{2\beta(\sigma_p^2+\sigma_q^2)}{\sigma_p\sigma_q},"
                    r"\ \{2\beta\}_{\text{inactive}}")


def _table2_anykappa(st):
    return tc.Statement(r"\text{Table II/III forms } (\Sigma_{xx}=1) \text{ used for any aligned } \Sigma_{xx}",
                        name=r"reading: $\Sigma_{xx} = 1$ tables for any aligned $\Sigma_{xx}$", kind="reading",
                        dims=st.dims, sample=st.sample, lhs=_hess_lhs,
                        rhs=lambda inst, ctx: _hess_pred(_instance_with(inst, kappa=np.ones_like(inst.kappa) * ctx.scalar(1.0)), ctx))


def _instance_with(inst, **changes):
    """A shallow copy of an instance with some fields replaced."""
    out = tc.Instance(dict(inst))
    out.update(changes)
    return out


_hess_claim("cascade.hessian_kappa",
            r"Aligned $\Sigma_{xx}$ with $\kappa_{j} \ne 1$ (review's major comment 2): zero and $4 \beta$ sectors unchanged, data sector in closed form",
            (2, 3), 3, kappa_one=False, equation="Tables II, III, VII (general aligned Sigma_xx)", derivation_n=(2, 3),
            extra_variants=(_table2_anykappa,),
            printed=r"\text{aligned } \Sigma_{xx}:\ \{0\},\{4\beta\}\ \text{as for } \Sigma_{xx}=1;\ "
                    r"2n\kappa_p\sigma_p^{2n-2}-2(n-2)\beta;\ \lambda^2-(4\beta+2(\kappa_p+\kappa_q)T_n)\lambda"
                    r"+4T_n\big(\beta(\kappa_p+\kappa_q)+\kappa_p\kappa_qT_n-\beta^2T_{n-2}/(\sigma_p\sigma_q)^{2(n-2)}\big)=0;\ "
                    r"\text{swap } 2\begin{pmatrix}\kappa_q\sigma_p^{2n-2}+\beta&-\eta_q\sigma_p^{n-2}\\-\eta_q\sigma_p^{n-2}&\eta_p\sigma_p^{n-2}\end{pmatrix}")


def _tau(ev, ctx):
    """Counting tolerance at ctx's precision: eps * P * 100 * max|lambda| (the engine's floor, per eigenvalue)."""
    P = ev.shape[-1]
    scale = np.max(np.abs(np.asarray(ev)), axis=-1)
    return scale * (ctx.eps * P * 100.0)


def _sector_lhs(inst, ctx, *, swap=False):
    ev = _hess_lhs(inst, ctx)
    tau = _tau(ev, ctx)[:, None]
    four = 4 * inst.beta
    z = np.sum(np.abs(ev) <= tau, axis=-1)
    f = np.sum(np.abs(ev - four) <= tau, axis=-1)
    out = np.stack([f, z] if swap else [z, f], axis=-1).astype(float)
    return ctx.asarray(out)


def _sector_rhs(inst, ctx, *, zero_formula=None):
    n, r = len(inst.w) - 1, inst.sigma.shape[-1]
    c = th.sector_counts(n, inst.w, r)
    z = c["zero"] if zero_formula is None else zero_formula(n, inst.w, r)
    return ctx.asarray(np.tile([float(z), float(c["four_beta"])], (inst.sigma.shape[0], 1)))


_sectors = tc.Statement(
    r"\#\{\lambda=0\}=(n-1)\tfrac{r(r-1)}{2}+r\sum_{i=1}^{n-1}(d_i-r),\quad "
    r"\#\{\lambda=4\beta\}=(n-1)\tfrac{r(r+1)}{2}+r\sum_{i=1}^{n-1}(d_i-r)",
    dims=_hess_space((2, 4), 3), sample=_hess_sampler(kappa_one=False), lhs=_sector_lhs, rhs=_sector_rhs,
    note=r"eigenvalues of the full Hessian counted within $\varepsilon^*P^*100\cdot \max|\lambda|$ of 0 and of $4 \beta$ "
         r"(the engine's floor); generic $\kappa$, $\sigma$, $\eta$ so that no data eigenvalue coincides with 0 or $4 \beta$")
tc.register(tc.Claim(
    id="cascade.hessian_sectors",
    title=r"Sector multiplicities at a $\operatorname{rank}-r$ critical point: exact zero modes and $4 \beta$ modes from $r$ and the widths (any $n$, any aligned $\Sigma_{xx}$)",
    source=_src("III.A.1, App. C", "Tables II, III, VII",
                r"\text{zero modes (macrostate degeneracy) and }\beta\text{-modes (broken symmetries), counted from } r "
                r"\text{ and the network dimensions}"),
    statement=_sectors,
    controls=(tc.perturb(_sectors, "sectors swapped", lhs=lambda v, inst, ctx: _sector_lhs(inst, ctx, swap=True)),
              tc.perturb(_sectors, "zeros r(r+1)/2", rhs=lambda v, inst, ctx: _sector_rhs(
                  inst, ctx, zero_formula=lambda n, w, r: (n - 1) * r * (r + 1) // 2 + r * sum(w[i] - r for i in range(1, n)))),
              tc.double(_sectors)),
    aliases=("sectors",),
    assumptions=(ALIGNED, r"generic parameters (no accidental degeneracy with 0 or $4 \beta$)", r"$r \ge 1$ active directions"),
))


# =======================================================================================
# Review's minor comment 2: "another nine eigenvalues 0 < lambda <= 4 beta" (full-rank example, n = 2)
# =======================================================================================
def _minor2_sampler(regime):
    def sample(rng, d, batch):
        beta = float(rng.uniform(0.15, 0.5))
        rows = []
        while len(rows) < batch:
            if regime == "above":                    # eta_p > 2 beta for every p: data sector above 4 beta
                s = rng.uniform(np.sqrt(1.3 * beta), 1.4, size=3)
            else:
                s = rng.uniform(0.2, 1.2, size=3)
            s2 = s ** 2                              # eta_p - beta
            sums = s2[:, None] + s2[None, :]
            if np.all(np.abs(s2 - beta) > 0.05) and np.all(np.abs(sums[np.triu_indices(3, 1)] - 2 * beta) > 0.05):
                rows.append(s)
        return {"A_R": _antisym(rng, 3, batch), "A_L": _antisym(rng, 3, batch), "A_U": [_antisym(rng, 3, batch)],
                "kappa": np.ones((batch, 3)), "sigma": np.array(rows), "eta_in": np.zeros((batch, 0)), "beta": beta,
                "w": [3, 3, 3]}
    return sample


def _count_in(inst, ctx, *, closed_left):
    ev = _hess_lhs(inst, ctx)
    tau = _tau(ev, ctx)[:, None]
    four = 4 * inst.beta
    lo = ev >= -tau if closed_left else ev > tau
    return ctx.asarray(np.sum(lo & (ev <= four + tau), axis=-1).astype(float))


def _count_formula(inst, ctx):
    eta = np.asarray(inst.sigma, dtype=float) ** 2 + float(inst.beta)      # Sigma_xx = 1, n = 2: eta = beta + sigma^2
    beta = float(inst.beta)
    a = np.sum(eta <= 2 * beta, axis=-1)
    b = sum((eta[:, p] + eta[:, q] <= 4 * beta) for p, q in itertools.combinations(range(3), 2))
    return ctx.asarray((6 + a + b).astype(float))


_m2_dims = tc.DimSpace({"d": (3, 3)})
_M2_NOTE = ('review, minor comment 2: "The main-text sentence after Fig. 5 says there are \'another nine eigenvalues $\\lambda$ '
            r"with $0<\lambda\le 4\beta'$ for the full-rank example; according to Table II with $r=3$, the $\beta$-sector "
            r"contains six $4\beta$ eigenvalues and the zero sector contains three zero eigenvalues, so the sentence appears "
            'to misstate the count." Fig. 5\'s $\\eta$ are not in the review; drawn in the regime of the review\'s argument '
            r"(separated sectors: the data sector above $4 \beta, \eta_{3} > 2 \beta$). For other $\eta$ "
            r"the count in ($0, 4 \beta$] is 6 + #{eta_p ≤ 2 beta} + #{eta_p + eta_q ≤ 4 beta} and can be 9 (e.g. "
            r"$\eta = (3, 1.8, 1.5), \beta = 1$): the erratum is conditional on Fig. 5 lying in the separated regime.")
_minor2 = tc.Statement(r"\#\{\lambda:\ 0<\lambda\le 4\beta\}=9\quad(n=2,\ d=3,\ r=3,\ \Sigma_{xx}=1)",
                       dims=_m2_dims, sample=_minor2_sampler("above"), note=_M2_NOTE, lhs=lambda i, c: _count_in(i, c, closed_left=False),
                       rhs=lambda inst, ctx: ctx.asarray(np.full(inst.sigma.shape[0], 9.0)))
tc.register(tc.Claim(
    id="cascade.minor2",
    title=r"Minor comment 2 settled: nine eigenvalues in $[0, 4 \beta]$ (six $4 \beta$, three 0), not in ($0, 4 \beta$]",
    source=_src("III.A.2 (after Fig. 5)", "minor comment 2", r"\text{another nine eigenvalues } \lambda \text{ with } 0<\lambda\le 4\beta"),
    statement=_minor2,
    variants=(
        tc.Statement(r"\#\{\lambda:\ 0\le\lambda\le4\beta\}=9=6\,(\lambda=4\beta)+3\,(\lambda=0)\ \text{ when }\ \eta_3>2\beta",
                     name=r"corrected: closed interval, data sector above $4 \beta$", kind="corrected", dims=_m2_dims,
                     sample=_minor2_sampler("above"), lhs=lambda i, c: _count_in(i, c, closed_left=True),
                     rhs=lambda inst, ctx: ctx.asarray(np.full(inst.sigma.shape[0], 9.0))),
        tc.Statement(r"\#\{0<\lambda\le4\beta\}=6+\#\{p:\eta_p\le2\beta\}+\#\{p<q:\eta_p+\eta_q\le4\beta\}",
                     name=r"corrected: general count (any $\eta$)", kind="corrected", dims=_m2_dims, sample=_minor2_sampler("any"),
                     lhs=lambda i, c: _count_in(i, c, closed_left=False), rhs=_count_formula),
    ),
    controls=(tc.perturb(_minor2, r"review's count 6 in $[0, 4 \beta]$", lhs=lambda v, i, c: _count_in(i, c, closed_left=True),
                         rhs=lambda v, inst, ctx: ctx.asarray(np.full(inst.sigma.shape[0], 6.0)),
                         sample=_minor2_sampler("above")),),
    aliases=("minor2",),
    assumptions=(r"$n = 2$, $d_{\mathrm{in}} = d_{\mathrm{hidden}} = d_{\mathrm{out}} = 3$, full $\operatorname{rank} r = 3$, $\Sigma_{xx} = 1$, $\Sigma_{yx}$ aligned",
                 r"the paper's Fig. 5 parameters are not in the review: $\eta_{p}$ are drawn at random"),
))
