"""Numeric stages shared by several sections of the prh note (each section module has its own).

Identity sides take ``(inst, ctx)`` (see :mod:`theorem_check.numerics.precision`) and recompute the data
``X = Z u``, ``Y = V* u + eps`` and every derived quantity in the context's precision, so that
the float32 -> float64 -> mpmath refinement applies to the whole computation.  Custom checks
take ``(rng, dims)`` and refine an optimiser (levels and floors of the S-minimisation in :mod:`.gauge`).

Indexing: see :mod:`.model` (note's ``h^k`` = dln ``h^{k-1}``; the note's layer ``i``
couples dln ``Ws[i-1]`` (= note's ``W_i``) and ``Ws[i]`` (= ``W_{i+1}``) through dln's ``h^i``).

Here: small helpers; the gradients before and after eqs. (21)-(22), the two terms of S they change
and ``dS/dlam`` (eqs. 26-30, 36 and the uniqueness of lambda*); the refinement over optimiser levels
(``_levels_refinement``, ``_nonvanishing``, ``_scalar_levels``; eqs. 30, 31, 33, 36, Section 3,
Theorem 1); and the alignment check on pairs of networks (``check_theorem``: eq. 17 and Theorem 1).
"""

from __future__ import annotations

import numpy as np

from theorem_check import BadClaim, Level, Refinement, ShapeMismatch, dln

from . import gauge
from . import model as M


# ---------------------------------------------------------------------------------------
# small helpers
# ---------------------------------------------------------------------------------------
def _fmt(xs) -> str:
    return " -> ".join(f"{x:.1e}" for x in xs)


def _second_moments(G):
    return dln.layer_gradient_moments(G)


def _tr(x):
    return np.trace(x, axis1=-2, axis2=-1)


def _check_conform(a_shape, b_shape, what):
    if a_shape[-1] != b_shape[-2] or a_shape[-2] != b_shape[-1]:
        raise ShapeMismatch(f"{what}: {a_shape[-2]}x{a_shape[-1]} times {b_shape[-2]}x{b_shape[-1]} does not conform")


# ---------------------------------------------------------------------------------------
# S along eqs. (21)-(22): gradients before and after, the two terms it changes, dS/dlam
# ---------------------------------------------------------------------------------------
def _G0(inst):
    X, Y = M.data(inst)
    return M.grads(inst.Ws, inst, X, Y)


def _Glam(inst, ctx, lam=None):
    X, Y = M.data(inst)
    return M.grads(M.transformed(inst, ctx, lam), inst, X, Y)


def two_terms(inst, ctx, lam=None):
    """``E||G_i^lam||^2 + E||G_{i+1}^lam||^2``: the part of S that the transformation changes."""
    G = _Glam(inst, ctx, lam)
    i = inst.i
    return dln.mean_squared_norms(G[i - 1]) + dln.mean_squared_norms(G[i])


def dS_dlam(inst, ctx, lam=None):
    """``dS/dlam`` of the full S (definition, eq. 14) along eqs. (21)-(22), by the complex step."""
    lam = inst.lam if lam is None else lam

    def S_of(z):
        X, Y = M.data(inst)
        Ws = M.transformed(inst, ctx, z)
        Wc = [M.as_complex(W, ctx) for W in Ws]
        G = dln.per_sample_gradients(Wc, M.as_complex(X, ctx), M.as_complex(Y, ctx),
                                     M_O=M.as_complex(inst.M_O, ctx), M_I=M.as_complex(inst.M_I, ctx))
        return sum(dln.mean_squared_norms(g) for g in G)

    return M.complex_step(S_of, lam, ctx)


# ---------------------------------------------------------------------------------------
# custom checks at optima: refinement over the optimiser levels
# ---------------------------------------------------------------------------------------
SCALAR_LEVELS = ("brent tol=1e-3", "brent tol=1e-8", "brentq on dS/dlam xtol=1e-15")
"""Refinement levels of the one-dimensional minimisations (eqs. 30, 36)."""


SCALAR_FLOORS = (1e-3, 1e-7, 1e-11)
"""Their floors: Brent's relative tolerance (its ``1e-8`` is limited to ~``sqrt(eps)``, hence
``1e-7``), and for ``brentq`` on the exact complex-step derivative a rounding floor."""


OPT_RESOLUTION = 1e-5
"""Finest relative perturbation of a prediction the three-level optimum checks resolve: with floors
``1e-3 / 1e-8 / 1e-11`` (or ``1e-3 / 1e-7 / 1e-11``) a mutant ``(1 + delta)`` leaves ``~delta`` at the two
fine levels (a stall), which the rule calls *fails* once ``delta > f_last sqrt(rho) ~ 1e-7`` (and
``>= 2 f_last + f_prev``; :func:`derivations.simulation.resolvable`)."""


def _levels_refinement(measured, predicted, detail="", scalar=False, scale=None, resolution=OPT_RESOLUTION):
    """A :class:`~theorem_check.Refinement` over the optimiser levels (S-minimisation or scalar minimisation).

    ``measured`` and ``predicted`` are one value (scalar or array) per level: the engine decides.
    """
    levels, floors = (SCALAR_LEVELS, SCALAR_FLOORS) if scalar else (gauge.LEVELS, gauge.FLOORS)
    return Refinement.of(levels, measured=list(measured), predicted_levels=list(predicted), floors=list(floors),
                         scale=scale, resolution=resolution, detail=detail)


def _nonvanishing(names, gaps, floors, detail, precisions=None):
    """Encode "the gap ``g`` does not vanish" (a negated statement) as a refinement for the engine.

    At level ``k`` the check measured a gap ``g_k >= 0`` (a misalignment, a variation) whose vanishing is
    resolved at ``f_k`` (what a *vanishing* gap still leaves there: the level's floor).  The statement
    "``g`` does not vanish" is reported as ``measured_k = f_k / (f_k + g_k)``, ``predicted = 0``,
    ``scale = 1``: the fraction of the level's resolution in the gap.  For a true statement (``g_k -> g > 0``)
    it falls like the floors, ``f_k / g``, and the rule decides *holds* when it ends near the finest floor,
    ``f_last / g <= f_last sqrt(f_prev / f_last)``, i.e. ``g > sqrt(f_last / f_prev)`` (``0.032`` for the
    optimiser floors ``1e-8 -> 1e-11``, ``2e-17`` for float64 -> mp50); a smaller gap that stays is GREY
    (resolved by no level); a vanishing gap (``g_k <= f_k``) leaves ``>= 1/2`` at every fine level, a
    stall: *fails*.  The prediction is zero, so the automatic mutants are additive (``+-1``,
    ``+2``, ``+1/2``, ``+resolution`` on a ``[0, 1]`` quantity): they check that the comparison resolves a
    shift of the quantity itself; the statement's own fallibility is shown by its variants and controls
    (aligned or constant cases), which run through this same encoding and are refuted.
    """
    precisions = precisions or ["float64"] * len(names)
    lv = tuple(Level(str(nm), float(f / (f + g)), 0.0, float(f), 1.0, pr)
               for nm, g, f, pr in zip(names, gaps, floors, precisions))
    return Refinement(lv, resolution=1e-3, detail=detail)


def _single_net(rng, d):
    n = d["n"]
    task = gauge.shared_task(rng, n, n)
    hidden = [n + d[f"o{k}"] for k in range(1, d["D"])]
    net = gauge.random_net(rng, hidden, task)
    return task, net, gauge.minimise_S(net)


def _pair_normalised(left, right):
    """``left / s`` and ``right / s`` with the pair's common magnitude ``s = max(||left||, ||right||)``.

    A common positive factor per compared pair, so that every layer (unit, pair of layers) weighs the same
    in the Frobenius gap of the stacked arrays whatever its magnitude; the statement ``left = right`` is
    unchanged by it, and a prediction mutant still acts on ``right`` only.
    """
    s = max(float(np.linalg.norm(left)), float(np.linalg.norm(right)))
    s = s if s > 0 else 1.0
    return np.ravel(left) / s, np.ravel(right) / s


def _scalar_levels(fun, dfun, bracket_hint=(-1.0, 1.0)):
    """Minimiser of a smooth convex scalar function at three refinement levels.

    Brent (``tol = 1e-3``), Brent (``tol = 1e-8``), then ``brentq`` on the derivative
    (complex step, exact to rounding) with ``xtol = 1e-15``.
    """
    import scipy.optimize as so

    out = []
    r1 = so.minimize_scalar(fun, bracket=bracket_hint, tol=1e-3)
    out.append(r1.x)
    r2 = so.minimize_scalar(fun, bracket=bracket_hint, tol=1e-8)
    out.append(r2.x)
    a, b = r2.x - 1e-3, r2.x + 1e-3
    for _ in range(60):
        if dfun(a) < 0 < dfun(b):
            break
        a, b = a - (b - a), b + (b - a)
    out.append(so.brentq(dfun, a, b, xtol=1e-15, rtol=4 * np.finfo(float).eps))
    return out


def _inst64(rng, d):
    from theorem_check import FLOAT64

    return M.to_ctx(M.sample_edln(rng, d, 1), FLOAT64), FLOAT64


# ---------------------------------------------------------------------------------------
# Theorem 1 and eq. (17): alignment of the representations of two networks
# ---------------------------------------------------------------------------------------
def _kernel_residual(QA, QB, c_free=True):
    if c_free:
        return float(dln.alignment_residual(QA[None], QB[None])[0])
    return float(np.linalg.norm(QA - QB) / max(np.linalg.norm(QA), np.linalg.norm(QB)))


def check_theorem(part, layers="hidden", minimise=True, c_free=True):
    """Theorem 1 part 1 (within A), 2 (within B) or 3 (A vs B) at S-minimisers.

    ``layers="hidden"``: the note's learned representations ``h^2 .. h^D`` (outputs of
    ``W_1 .. W_{D-1}``); ``"with_input"``: ``h^1 = M^I x .. h^D`` (eq. 14's ``h^i``, the inputs of
    ``W_1 .. W_D``); ``"with_output"``: ``h^2 .. h^{D+1}`` (the outputs of ``W_1 .. W_D``); ``"all"``:
    ``h^1 .. h^{D+1}``.  ``c_free=False`` requires ``c = 1``.  The residual is the worst pair's
    ``min_c ||c Q_i - Q_j|| / ||Q_j||`` (kernels as bilinear forms in ``u``: equal on every pair of
    inputs).  The detail lists the pairs.
    """
    pick = {"hidden": gauge.hidden_layers, "all": gauge.all_layers,
            "with_input": lambda net: [1, *gauge.hidden_layers(net)],
            "with_output": lambda net: [*gauge.hidden_layers(net), len(net.Ws) + 1]}[layers]

    def check(rng, d):
        task, As, Bs, A0, B0 = gauge.platonic_pair(rng, d)
        if not minimise:
            As, Bs = [A0] * len(As), [B0] * len(Bs)
        vals, per_pair, meas, pred = [], {}, [], []
        for A, B in zip(As, Bs):
            if part == 1:
                prs = [((A, a), (A, b)) for a, b in gauge.pairs(pick(A), pick(A), same=True)]
                names = [f"A{a}-A{b}" for a, b in gauge.pairs(pick(A), pick(A), same=True)]
            elif part == 2:
                prs = [((B, a), (B, b)) for a, b in gauge.pairs(pick(B), pick(B), same=True)]
                names = [f"B{a}-B{b}" for a, b in gauge.pairs(pick(B), pick(B), same=True)]
            else:
                prs = [((A, a), (B, b)) for a, b in gauge.pairs(pick(A), pick(B))]
                names = [f"A{a}-B{b}" for a, b in gauge.pairs(pick(A), pick(B))]
            if not prs:
                raise BadClaim(f"check_theorem({part}, {layers!r}): no pair of layers to compare at depths "
                               f"{len(A.Ws)}, {len(B.Ws)} (the dims must allow one)")
            res = [_kernel_residual(x.kernel(a), y.kernel(b), c_free) for (x, a), (y, b) in prs]
            for nm, r in zip(names, res):
                per_pair.setdefault(nm, []).append(r)
            vals.append(max(res, default=0.0))
            # measured: the kernel of the second layer of each pair, predicted: that of the first (aligned: equal
            # up to c > 0, so each is taken over its own Frobenius norm; c = 1: over the pair's common magnitude)
            ms, ps = [], []
            for (x, a), (y, b) in prs:
                Qi, Qj = x.kernel(a), y.kernel(b)
                if c_free:
                    ms.append(np.ravel(Qj) / np.linalg.norm(Qj))
                    ps.append(np.ravel(Qi) / np.linalg.norm(Qi))
                else:
                    m, p = _pair_normalised(Qj, Qi)
                    ms.append(m)
                    ps.append(p)
            meas.append(np.concatenate(ms))
            pred.append(np.concatenate(ps))
        ok = [nm for nm, r in per_pair.items() if r[-1] <= gauge.FLOORS[-1]]
        bad = [f"{nm} ({r[-1]:.2f})" for nm, r in per_pair.items() if r[-1] > gauge.FLOORS[-1]]
        Qs = gauge.universal_kernel(task)
        univ = max((_kernel_residual(Qs, net.kernel(k)) for net in (As[-1], Bs[-1]) for k in gauge.hidden_layers(net)),
                   default=0.0)
        detail = (f"depths {len(As[0].Ws)},{len(Bs[0].Ws)}, widths {As[0].widths},{Bs[0].widths}; "
                  f"aligned pairs: {', '.join(ok) or 'none'}; not aligned: {', '.join(bad) or 'none'}; "
                  f"hidden kernels vs Q*: {univ:.1e}; worst pair per level {_fmt(vals)}")
        return _levels_refinement(meas, pred, detail=detail)

    return check
