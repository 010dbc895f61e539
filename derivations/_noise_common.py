"""Building blocks shared by the noise-paper claim modules: samplers, statement factories.

Not public API: the claims themselves live in :mod:`derivations.noise` and its ``_noise_*``
companions.  Conventions are those of :mod:`derivations._noise_models`.
"""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np

import theorem_check as tc
from theorem_check import sampling

from . import _noise_models as M

PAPER = "noise"
ETA, S_BATCH, GAMMA = 0.5, 2, 0.3
"""Learning rate, batch size and weight decay used by the exact minibatch enumerations."""


def claim(label, title, section, equation, printed, statement, *, variants=(), controls=(), aliases=(),
          assumptions=(), expected=None, slow=False):
    """Register ``noise.<label>`` (the paper key is fixed)."""
    c = tc.Claim(id=f"{PAPER}.{label}", title=title, source=tc.Source(PAPER, section, equation, printed),
                 statement=statement, variants=tuple(variants), controls=tuple(controls),
                 aliases=tuple(aliases), assumptions=tuple(assumptions), expected=expected, slow=slow)
    return tc.register(c)


def variant(statement, name, kind="corrected", **changes):
    """A copy of ``statement`` as a variant (``kind`` corrected/reading) with fields replaced."""
    return dataclasses.replace(statement, name=name, kind=kind, derivation=changes.pop("derivation", None),
                               **changes)


def control(statement, name, **changes):
    """A negative control: ``statement`` with fields replaced (same sampler, same code path)."""
    return dataclasses.replace(statement, name=f"control: {name}", kind="control", derivation=None,
                               latex=changes.pop("latex", statement.latex + rf"\quad\text{{[control: {name}]}}"),
                               **changes)


def zero_rhs(inst, ctx, like):
    """A zero array shaped like ``like`` (for statements ``expr = 0``)."""
    return like * 0


# ----------------------------------------------------------------------------------------------
# the two-layer linear net with a random double-rotation generator B = Q diag(mu) Q^T
# ----------------------------------------------------------------------------------------------
MF_DIMS = tc.DimSpace({"dx": (1, 3), "d": (1, 3), "dy": (1, 3), "n": (3, 5)})


def sample_mf(rng, d, batch):
    """Data ``X (dx, n)``, ``Y (dy, n)``, weights ``U (dy, d)``, ``W (d, dx)``, generator data ``K, mu``, ``lam``."""
    return {"X": sampling.gaussian(rng, d["dx"], d["n"], batch=batch),
            "Y": sampling.gaussian(rng, d["dy"], d["n"], batch=batch),
            "U": sampling.gaussian(rng, d["dy"], d["d"], batch=batch),
            "W": sampling.gaussian(rng, d["d"], d["dx"], batch=batch),
            "K": 0.7 * sampling.antisymmetric(rng, d["d"], batch=batch),
            "mu": rng.standard_normal((batch, d["d"])),
            "lam": rng.uniform(-0.8, 0.8, size=batch),
            "eta": ETA, "gamma": GAMMA}


def mf(inst, ctx, U=None, W=None):
    """Everything derived from an mf instance: ``U, W, Q, B, A, th, G`` (gradients at ``th``)."""
    U = inst.U if U is None else U
    W = inst.W if W is None else W
    dy, d, dx = U.shape[1], U.shape[2], W.shape[2]
    Q = M.cayley(inst.K, ctx)
    B = M.sym(Q, inst.mu)
    A = M.mf_A(B, dy, dx, ctx)
    th = M.mf_flat(U, W)
    G = M.mf_grads(U, W, inst.X, inst.Y)
    return SimpleNamespace(U=U, W=W, Q=Q, B=B, A=A, th=th, G=G, dy=dy, d=d, dx=dx, n=inst.X.shape[-1])


def mf_absA(inst, p, ctx):
    """``|A| = diag(I (x) |B|, |B| (x) I)``: the magnitudes of both eigen-directions (for scales)."""
    b = p.Q.shape[0]
    aB = M.sym(p.Q, ctx.abs(inst.mu))
    return M.blockdiag(M.kron(np.repeat(M.eye(p.dy, ctx), b, 0), aB), M.kron(aB, np.repeat(M.eye(p.dx, ctx), b, 0)))


def mf_eig(p, ctx):
    """Eigenvectors ``N`` (columns) and eigenvalues ``nu`` of the double-rotation ``A``."""
    b = p.Q.shape[0]
    Iy = np.repeat(M.eye(p.dy, ctx), b, 0)
    Ix = np.repeat(M.eye(p.dx, ctx), b, 0)
    N = M.blockdiag(M.kron(Iy, p.Q), M.kron(p.Q, Ix))
    return N, None


def mf_nu(inst, p):
    """Eigenvalues of ``A`` in the order of :func:`mf_eig`'s columns: ``(tile(mu, dy), -repeat(mu, dx))``."""
    mu = inst.mu
    return np.concatenate([np.tile(mu, (1, p.dy)), -np.repeat(mu, p.dx, axis=1)], axis=1)


def exp_A(N, nu, lam, ctx):
    """``e^{lam A} = N diag(e^{lam nu}) N^T``; ``lam`` (b,) or scalar."""
    lam = np.asarray(lam)
    lam = lam.reshape(-1, 1) if lam.ndim else lam
    return M.sym(N, ctx.exp(nu * lam))


# ----------------------------------------------------------------------------------------------
# trust model 2: what custom checks report (the engine decides)
# ----------------------------------------------------------------------------------------------
COUNT_FLOORS = (1e-12, 1e-13)
"""Floors of exactly computed counts / signs / indicators (a true statement leaves 0; float64 resolution)."""


def counted(names, measured, predicted=None, detail="", *, predicted_levels=None, **kw) -> tc.Refinement:
    """Exact counts (sign changes, zeros on a grid, indicator vectors) against the statement's count, at two levels.

    A count is computed exactly, so a true statement leaves a gap of 0 at both levels and a false one a gap of
    O(1): the floors are float64's resolution (:data:`COUNT_FLOORS`).  The levels refine what is counted (a finer
    grid, a wider range, float32 -> float64 evaluation).  The automatic mutants of a nonzero count (times -1, 2,
    1/2, 1 + 1e-3) are refuted whenever the count is right; the sensitivity of such a check to *wrong statements*
    lies in what it counts, which its negative controls exercise.
    """
    if len(names) != 2:
        raise ValueError(f"counted: names={list(names)!r} must name exactly two levels")
    preds = list(predicted_levels) if predicted_levels is not None else [predicted] * len(names)
    return tc.Refinement.of(list(names), measured=[np.asarray(m, dtype=float) for m in measured],
                            predicted_levels=[np.asarray(p, dtype=float) for p in preds],
                            floors=list(COUNT_FLOORS), detail=detail, **kw)
