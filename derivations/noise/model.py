"""The noise paper's model: its networks and exact expectations, the shared samplers, the ``claim(...)`` helper.

"Parameter Symmetry and Noise Equilibrium of Stochastic Gradient Descent" (the noise paper), Sections 3-5 and
Appendices B-E.  Every section module of :mod:`derivations.noise` takes its model from here (``from . import
model as M`` for the mathematics, ``from .model import ...`` for the samplers and helpers); this module imports
no section.  Samplers used by one section only live next to its claims.

Everything here runs at every working precision of :mod:`theorem_check.numerics.precision` (float32,
float64, NumPy object arrays of ``mpmath.mpf``): only ``@``, ``+``, ``*``, sums, transposes and
the ``ctx`` functions are used.  Arrays carry a leading batch axis ``b``.

Conventions (derived, not copied from the paper; see ``docs/papers/noise.md``):

* per-sample loss without a factor 1/2 (paper eq. 12, 16): ``l = ||f(x) - y||^2``;
* ``Sigma`` is the covariance of per-sample gradients over a finite data set with uniform
  weights (paper Sec. 3); ``Sigma_d`` (App. D) is the uncentred second moment;
* SGD step ``theta' = theta - eta (g_B + 2 gamma theta)`` with ``g_B`` the mean gradient of a
  minibatch of ``S`` indices drawn uniformly *with replacement* (all ``n**S`` ordered tuples
  enumerated) or *without replacement* (all subsets enumerated);
* the SDE of eq. 1 with ``sigma^2 = eta / (2 S)``; its Ito generator on ``C`` is
  ``-grad C . grad L_gamma + sigma^2 Tr[Sigma Hess C]``.

Flattened parameters of the two-layer net ``f = U W x`` (``U: d_y x d``, ``W: d x d_x``) are
``theta = (vec_row(U), vec_row(W))``; the double-rotation generator for a symmetric ``B`` is
``A = diag(I_{d_y} (x) B, -(B (x) I_{d_x}))`` so that ``A theta = (U B, -B W)``.


Contents: structured matrices; the two-layer linear net (matrix factorization); exact SGD expectations; product
data sets; the scale-invariant model and the ReLU neuron; drift matrices; the claim, variant and control helpers
and :func:`counted`; the samplers and DimSpaces several sections share; the orbit ``theta_lambda = e^{lambda A}
theta`` and the root finding of its fixed points.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
from types import SimpleNamespace

import numpy as np

import theorem_check as tc
from theorem_check import dln, sampling

from .symmetry_models import relu_grads, relu_losses, scale_inv_grads  # noqa: F401 - M.relu_grads, ...

T = dln.T


def tr(a):
    """Trace over the last two axes: ``(..., n, n) -> (...)``."""
    return np.trace(a, axis1=-2, axis2=-1)


def inner(a, b):
    """Batched inner product over all but the first axis: ``(b, ...) x (b, ...) -> (b,)``."""
    return np.sum((a * b).reshape(a.shape[0], -1), axis=-1)


def pos(v):
    """Positive part ``max(v, 0)`` elementwise, at any precision."""
    return v * (v > 0)


def eye(n, ctx):
    """Identity ``(1, n, n)`` in ``ctx``, read-only: built once per ``(n, ctx)`` (at mp50 each entry an mpf)."""
    return _eye(int(n), ctx)


@functools.lru_cache(maxsize=256)
def _eye(n, ctx):
    out = ctx.asarray(np.eye(n))[None]
    out.flags.writeable = False
    return out


# ----------------------------------------------------------------------------------------------
# structured matrices built inside a context (exact to the working precision)
# ----------------------------------------------------------------------------------------------
def cayley(K, ctx):
    """Orthogonal ``Q = (I - K)(I + K)^{-1}`` from antisymmetric ``K`` (b, n, n), in ``ctx``."""
    n = K.shape[-1]
    I = eye(n, ctx)
    return (I - K) @ ctx.inv(I + K)


def sym(Q, mu):
    """``Q diag(mu) Q^T`` for ``Q`` (b, n, n), ``mu`` (b, n)."""
    return (Q * mu[:, None, :]) @ T(Q)


def kron(a, b):
    """Batched Kronecker product ``(b, m, n) (x) (b, p, q) -> (b, mp, nq)``."""
    bb, m, n = a.shape
    _, p, q = b.shape
    return (a[:, :, None, :, None] * b[:, None, :, None, :]).reshape(bb, m * p, n * q)


def blockdiag(a, b):
    """Batched block-diagonal ``diag(a, b)``."""
    bb, m, _ = a.shape
    n = b.shape[-1]
    za = a[:, :, :1] * 0
    top = np.concatenate([a, np.repeat(za, n, axis=2)], axis=2)
    zb = b[:, :, :1] * 0
    bot = np.concatenate([np.repeat(zb, m, axis=2), b], axis=2)
    return np.concatenate([top, bot], axis=1)


# ----------------------------------------------------------------------------------------------
# the two-layer linear net (matrix factorization), paper eqs. 10-15, App. C
# ----------------------------------------------------------------------------------------------
def mf_flat(U, W):
    """``theta = (vec_row(U), vec_row(W))`` of shape (b, d_y d + d d_x)."""
    b = U.shape[0]
    return np.concatenate([U.reshape(b, -1), W.reshape(b, -1)], axis=1)


def mf_unflat(theta, dy, d, dx):
    """Inverse of :func:`mf_flat`."""
    b = theta.shape[0]
    return theta[:, :dy * d].reshape(b, dy, d), theta[:, dy * d:].reshape(b, d, dx)


def mf_grads(U, W, X, Y):
    """Per-sample gradients of ``l = ||U W x - y||^2``, flattened: (b, n, P)."""
    gW, gU = dln.per_sample_gradients([W, U], X, Y)
    b, n = gU.shape[:2]
    return np.concatenate([gU.reshape(b, n, -1), gW.reshape(b, n, -1)], axis=2)


def mf_losses(U, W, X, Y):
    """Per-sample losses ``||U W x_k - y_k||^2``: (b, n)."""
    R = U @ W @ X - Y
    return np.sum(R * R, axis=1)


def mf_A(B, dy, dx, ctx, *, printed_inverse=False):
    """Double-rotation generator ``diag(I (x) B, -(B (x) I))`` (b, P, P).

    ``printed_inverse=True`` builds the paper's printed ``diag(B, ..., B, B^{-1}, ..., B^{-1})``.
    """
    Iy, Ix = eye(dy, ctx), eye(dx, ctx)
    b = B.shape[0]
    Iy, Ix = np.repeat(Iy, b, 0), np.repeat(Ix, b, 0)
    lower = kron(ctx.inv(B), Ix) if printed_inverse else -kron(B, Ix)
    return blockdiag(kron(Iy, B), lower)


def mf_orbit(U, W, Q, mu, lam, ctx):
    """``e^{lam A} theta = (U e^{lam B}, e^{-lam B} W)`` with ``B = Q diag(mu) Q^T``."""
    lam = np.asarray(lam)
    e_plus = sym(Q, ctx.exp(mu * lam.reshape(-1, 1)))
    e_minus = sym(Q, ctx.exp(-mu * lam.reshape(-1, 1)))
    return U @ e_plus, e_minus @ W


# ----------------------------------------------------------------------------------------------
# noise covariance and the discrete / continuous drift of a quadratic charge
# ----------------------------------------------------------------------------------------------
def mean_grad(G):
    """``E_z grad l`` over the data: (b, n, P) -> (b, P)."""
    return np.sum(G, axis=1) / G.shape[1]


second_moment = dln.gradient_second_moment
"""``E_z[grad l grad l^T]`` (b, P, P) (the paper's Sigma_d of App. D, eq. 100)."""

covariance = dln.noise_covariance
"""``Sigma = E[g g^T] - E[g] E[g]^T`` (b, P, P): the gradient-noise covariance of Sec. 3."""


def quad(theta, A):
    """``theta^T A theta`` (b,)."""
    return inner(theta, (A @ theta[:, :, None])[..., 0])


def minibatches(n, S, replace=True):
    """All ordered ``S``-tuples (with replacement) or all ``S``-subsets (without) of ``range(n)``."""
    if replace:
        return np.array(list(itertools.product(range(n), repeat=S)), dtype=int)
    return np.array(list(itertools.combinations(range(n), S)), dtype=int)


def sgd_expected_charge(theta, G, A, eta, S, gamma=0.0, *, replace=True):
    """``E_B[C(theta - eta (g_B + 2 gamma theta))]`` over every minibatch, exactly (b,).

    ``C(t) = t^T A t``; ``G`` (b, n, P) per-sample gradients of the data term at ``theta``.
    """
    mb = minibatches(G.shape[1], S, replace)
    gB = np.sum(G[:, mb, :], axis=2) / S                      # (b, M, P)
    th = theta[:, None, :]
    new = th - eta * (gB + 2 * gamma * th)
    C = np.sum(new * (new @ T(A)), axis=-1)                    # (b, M)
    return np.sum(C, axis=1) / mb.shape[0]


def gd_charge(theta, G, A, eta, gamma=0.0):
    """``C(theta - eta (grad L + 2 gamma theta))`` for the full-batch step (b,)."""
    new = theta - eta * (mean_grad(G) + 2 * gamma * theta)
    return quad(new, A)


def sgd_noise_drift(theta, G, A, eta, S, gamma=0.0, *, replace=True):
    """Noise part of the charge's drift per unit time ``t = eta * steps``, exactly (b,).

    ``(E_B[C(theta'_SGD)] - C(theta'_GD)) / eta``: the SGD step minus the GD step from the same
    ``theta``.  For a quadratic ``C`` this equals ``eta Tr[Cov(g_B) A]`` (no approximation).
    """
    return (sgd_expected_charge(theta, G, A, eta, S, gamma, replace=replace) - gd_charge(theta, G, A, eta, gamma)) / eta


def flow_drift(theta, G, A, gamma=0.0):
    """Gradient-flow part ``-grad C . grad L_gamma`` with ``C = theta^T A theta`` (b,)."""
    grad_C = 2 * (A @ theta[:, :, None])[..., 0]
    return -inner(grad_C, mean_grad(G) + 2 * gamma * theta)


def ito_noise_drift(G, hess_C, sigma2):
    """``sigma^2 Tr[Sigma Hess C]`` (the eq.-1 Ito term), ``Sigma`` the covariance (b,)."""
    return sigma2 * tr(covariance(G) @ hess_C)


def charge_drift(theta, G, A, eta, S, gamma=0.0, *, max_batches=64):
    """``dC/dt`` of ``C = theta^T A theta`` under SGD to first order in the step: flow + noise (b,).

    The noise part is the exact minibatch enumeration (with replacement) when there are at most
    ``max_batches`` minibatches, else the Ito term ``sigma^2 Tr[Sigma Hess C]`` with
    ``sigma^2 = eta/(2S)`` (the two agree exactly, claim ``noise.eq5``).
    """
    n = G.shape[1]
    if n ** S <= max_batches:
        noise = sgd_noise_drift(theta, G, A, eta, S, gamma)
    else:
        noise = ito_noise_drift(G, A + T(A), eta / (2 * S))
    return flow_drift(theta, G, A, gamma) + noise


# ----------------------------------------------------------------------------------------------
# data sets
# ----------------------------------------------------------------------------------------------
def product_data(sqrt_Sx, sqrt_Se, V, ctx):
    """A finite data set in which ``x`` and ``eps`` are exactly independent.

    Points ``x in {+-sqrt(d_x) Sx^{1/2} e_j}``, ``eps in {+-sqrt(d_y) Se^{1/2} e_k}``, all pairs,
    uniform weights: ``E[x x^T] = Sx``, ``E[eps eps^T] = Se``, ``E x = E eps = 0``,
    ``E[eps x^T] = 0`` and every moment factorises.  Returns ``X (b, d_x, n)``, ``Y = V X + E``,
    ``E`` with ``n = 4 d_x d_y``.
    """
    b, dx, _ = sqrt_Sx.shape
    dy = sqrt_Se.shape[-1]
    xs = np.concatenate([sqrt_Sx, -sqrt_Sx], axis=2) * ctx.sqrt(ctx.scalar(dx))   # (b, dx, 2dx)
    es = np.concatenate([sqrt_Se, -sqrt_Se], axis=2) * ctx.sqrt(ctx.scalar(dy))   # (b, dy, 2dy)
    X = np.repeat(xs, 2 * dy, axis=2)                                        # x index slow
    E = np.tile(es, (1, 1, 2 * dx))                                          # eps index fast
    return X, V @ X + E, E


def isotropic_root(n, scale, b, ctx):
    """``sqrt(scale) I`` (b, n, n) in ``ctx``: the square root of an isotropic covariance."""
    return np.repeat(eye(n, ctx), b, 0) * ctx.sqrt(ctx.asarray(np.array(scale, dtype=float)))


# ----------------------------------------------------------------------------------------------
# the matrix of a double-rotation charge's drift: dC_B/dt = Tr[B M] for every symmetric B
# ----------------------------------------------------------------------------------------------
def sym_part(a):
    """``a + a^T``."""
    return a + T(a)


def pair_drift_matrix(G_in, G_out, W_in, W_out, sigma2, *, gamma=0.0, parts=False):
    """The symmetric ``M`` with ``dC_B/dt = Tr[B M]`` for ``C_B = Tr[W_in^T B W_in] - Tr[W_out B W_out^T]``.

    ``W_in (b, k, m)`` feeds the hidden layer of width ``k`` that ``W_out (b, p, k)`` reads;
    ``G_in (b, n, k, m)``, ``G_out (b, n, p, k)`` are per-sample gradients of the data term.
    Ito generator of eq. 1 with ``Sigma`` the covariance and loss ``L + gamma ||theta||^2``:
    ``M = -(W_in gbar_in^T + gbar_in W_in^T) + (gbar_out^T W_out + W_out^T gbar_out)
    + 2 sigma^2 E[dG_in dG_in^T - dG_out^T dG_out]`` with ``gbar`` including ``2 gamma W``.
    With ``parts=True`` returns ``(M_flow, M_noise_in, M_noise_out)``.
    """
    n = G_in.shape[1]
    g_in = np.sum(G_in, axis=1) / n
    g_out = np.sum(G_out, axis=1) / n
    d_in = G_in - g_in[:, None]
    d_out = G_out - g_out[:, None]
    gb_in, gb_out = g_in + 2 * gamma * W_in, g_out + 2 * gamma * W_out
    flow = -sym_part(W_in @ T(gb_in)) + sym_part(T(gb_out) @ W_out)
    n_in = 2 * sigma2 * np.sum(d_in @ T(d_in), axis=1) / n
    n_out = 2 * sigma2 * np.sum(T(d_out) @ d_out, axis=1) / n
    if parts:
        return flow, n_in, n_out
    return flow + n_in - n_out


def mf_drift_matrix(U, W, X, Y, sigma2, *, gamma=0.0, parts=False):
    """:func:`pair_drift_matrix` for the two-layer net: ``C_B = Tr[W^T B W] - Tr[U B U^T]``."""
    gW, gU = dln.per_sample_gradients([W, U], X, Y)
    return pair_drift_matrix(gW, gU, W, U, sigma2, gamma=gamma, parts=parts)


def dln_pair_matrices(Ws, X, Y, sigma2, *, parts=False):
    """``[M_1, ..., M_{D-1}]``: the drift matrix of the charge of every pair (W_{i+1}, W_i)."""
    gs = dln.per_sample_gradients(Ws, X, Y)
    return [pair_drift_matrix(gs[i], gs[i + 1], Ws[i], Ws[i + 1], sigma2, parts=parts) for i in range(len(Ws) - 1)]


def scale_of(parts):
    """Reference magnitude of a drift matrix: the sum of its terms' Frobenius norms (b,)."""
    return sum(np.sqrt(np.sum((p * p).reshape(p.shape[0], -1), axis=-1).astype(float)) for p in parts)


def pw(x, num, den, ctx):
    """``x ** (num/den)`` for positive ``x`` with an exact rational exponent in ``ctx``."""
    return ctx.exp(ctx.log(x) * (ctx.scalar(num) / ctx.scalar(den)))


# ----------------------------------------------------------------------------------------------
# the claim helpers; the two-layer linear net with a random double-rotation generator B = Q diag(mu) Q^T
# ----------------------------------------------------------------------------------------------
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
    Q = cayley(inst.K, ctx)
    B = sym(Q, inst.mu)
    A = mf_A(B, dy, dx, ctx)
    th = mf_flat(U, W)
    G = mf_grads(U, W, inst.X, inst.Y)
    return SimpleNamespace(U=U, W=W, Q=Q, B=B, A=A, th=th, G=G, dy=dy, d=d, dx=dx, n=inst.X.shape[-1])


def mf_moved(inst, p, U, W):
    """:func:`mf` at other weights ``U, W`` of the same instance: ``Q, B, A`` (weight-independent) taken from ``p``."""
    return SimpleNamespace(U=U, W=W, Q=p.Q, B=p.B, A=p.A, th=mf_flat(U, W), G=mf_grads(U, W, inst.X, inst.Y),
                           dy=p.dy, d=p.d, dx=p.dx, n=p.n)


def mf_absA(inst, p, ctx):
    """``|A| = diag(I (x) |B|, |B| (x) I)``: the magnitudes of both eigen-directions (for scales)."""
    b = p.Q.shape[0]
    aB = sym(p.Q, ctx.abs(inst.mu))
    return blockdiag(kron(np.repeat(eye(p.dy, ctx), b, 0), aB), kron(aB, np.repeat(eye(p.dx, ctx), b, 0)))


def mf_eig(p, ctx):
    """Eigenvectors ``N`` (columns) and eigenvalues ``nu`` of the double-rotation ``A``."""
    b = p.Q.shape[0]
    Iy = np.repeat(eye(p.dy, ctx), b, 0)
    Ix = np.repeat(eye(p.dx, ctx), b, 0)
    N = blockdiag(kron(Iy, p.Q), kron(p.Q, Ix))
    return N, None


def mf_nu(inst, p):
    """Eigenvalues of ``A`` in the order of :func:`mf_eig`'s columns: ``(tile(mu, dy), -repeat(mu, dx))``."""
    mu = inst.mu
    return np.concatenate([np.tile(mu, (1, p.dy)), -np.repeat(mu, p.dx, axis=1)], axis=1)


def exp_A(N, nu, lam, ctx):
    """``e^{lam A} = N diag(e^{lam nu}) N^T``; ``lam`` (b,) or scalar."""
    lam = np.asarray(lam)
    lam = lam.reshape(-1, 1) if lam.ndim else lam
    return sym(N, ctx.exp(nu * lam))


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


# ----------------------------------------------------------------------------------------------
# samplers and DimSpaces several sections share
# ----------------------------------------------------------------------------------------------
S = S_BATCH
SIGMA2 = ETA / (2 * S)


def _sigma2(inst):
    return inst.eta / (2 * S)


SI_DIMS = tc.DimSpace({"p": (2, 4), "n": (2, 5)})


def sample_si(rng, d, batch):
    """Scale-invariant model ``l = (x^T theta/||theta|| - y)^2``: ``theta (p,)``, ``X (p, n)``, ``y (n,)``."""
    return {"th": rng.standard_normal((batch, d["p"])) + 0.5,
            "X": sampling.gaussian(rng, d["p"], d["n"], batch=batch),
            "y": rng.standard_normal((batch, d["n"])),
            "rho": rng.uniform(-0.6, 2.0, size=batch), "eta": ETA}


# deep linear networks: every neighbouring pair (W_{i+1}, W_i) has the double rotation
DLN3_DIMS = tc.dln_dims(depth=(2, 4), width=(1, 3), distinct=False, extra={"n": (2, 4), "pair": (1, 3)})


def sample_dln_pair(rng, d, batch):
    D = d["D"]
    ws = [d[f"d{i}"] for i in range(D + 1)]
    i = min(d["pair"], D - 1)
    return {"Ws": [sampling.gaussian(rng, ws[k + 1], ws[k], batch=batch) for k in range(D)],
            "X": sampling.gaussian(rng, ws[0], d["n"], batch=batch),
            "Y": sampling.gaussian(rng, ws[D], d["n"], batch=batch),
            "Bp": sampling.symmetric(rng, ws[i], batch=batch), "pair": i}


# global minima on product data sets (exact independence of x and eps)
def sample_gmin(rng, d, batch):
    """Orthogonal frames (Cayley data) and spectra for Sigma_x, Sigma_eps, the SVD of V' and hidden frames."""
    dx, dy, r = d["dx"], d["dy"], d["r"]
    D = d.get("D", 2)
    widths = [dx] + [r + d.get(f"e{i}", 0) for i in range(1, D)] + [dy]
    out = {"Kx": 0.6 * sampling.antisymmetric(rng, dx, batch=batch), "sx": rng.uniform(0.3, 2.0, (batch, dx)),
           "Ke": 0.6 * sampling.antisymmetric(rng, dy, batch=batch), "se": rng.uniform(0.3, 2.0, (batch, dy)),
           "KL": 0.6 * sampling.antisymmetric(rng, dy, batch=batch), "KR": 0.6 * sampling.antisymmetric(rng, dx, batch=batch),
           "sp": rng.uniform(0.5, 2.0, (batch, r)),
           "KU": [0.6 * sampling.antisymmetric(rng, widths[i], batch=batch) for i in range(1, D)],
           "Bs": [sampling.symmetric(rng, widths[i], batch=batch) for i in range(1, D)]}
    return out


def _roots(inst, ctx, iso=False):
    """``sqrt(Sigma_x)``, its inverse, ``sqrt(Sigma_eps)``, its inverse (symmetric roots, in ctx)."""
    Qx, Qe = cayley(inst.Kx, ctx), cayley(inst.Ke, ctx)
    sx, se = inst.sx, inst.se
    return (sym(Qx, ctx.sqrt(sx)), sym(Qx, 1 / ctx.sqrt(sx)), sym(Qe, ctx.sqrt(se)), sym(Qe, 1 / ctx.sqrt(se)))


def _svd_factors(inst, ctx, r):
    L = cayley(inst.KL, ctx)[:, :, :r]
    R = T(cayley(inst.KR, ctx)[:, :, :r])
    return L, inst.sp, R


# ----------------------------------------------------------------------------------------------
# the orbit theta_lambda = e^{lambda A} theta; fixed points on it (float64 root finding, tolerance refined)
# ----------------------------------------------------------------------------------------------
def _lam_arr(lam, ctx, b):
    """``lam`` (a Python float or a context array) as a context array of shape (b,)."""
    if isinstance(lam, np.ndarray) and (lam.dtype == object or not ctx.is_mp):
        return np.broadcast_to(lam, (b,)) if lam.dtype == object else ctx.asarray(np.broadcast_to(lam, (b,)))
    return ctx.asarray(np.full(b, float(lam)))


def _orbit(inst, ctx, lam):
    """``mf`` namespace at ``e^{lam A} theta``; ``lam`` scalar or (b,)."""
    p = mf(inst, ctx)
    lam = _lam_arr(lam, ctx, p.U.shape[0])
    U, W = mf_orbit(p.U, p.W, p.Q, inst.mu, lam, ctx)
    return mf_moved(inst, p, U, W)


F64 = tc.FLOAT64


def _mf_instance(rng, d):
    raw = sample_mf(rng, d, 1)
    return tc.Instance({k: (tc.FLOAT64.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in raw.items()})


_BASE: list = [None, None]   # the last instance's mf(inst, F64): a root search evaluates many lam on one instance


def _orbit_point(inst, lam):
    if _BASE[0] is not inst:
        _BASE[:] = [inst, mf(inst, F64)]
    p = _BASE[1]
    U, W = mf_orbit(p.U, p.W, p.Q, inst.mu, np.array([lam]), F64)
    return mf_moved(inst, p, U, W)


_DRIFTS: list = [None, {}]   # the last instance's drifts by (lam, gamma): root searches on one instance at several
#                              tolerances evaluate the same bracket and the same first Brent iterates (same values)


def _drift_at(inst, lam, gamma):
    if _DRIFTS[0] is not inst:
        _DRIFTS[:] = [inst, {}]
    key = (float(lam), float(gamma))
    if key not in _DRIFTS[1]:
        q = _orbit_point(inst, lam)
        _DRIFTS[1][key] = float((flow_drift(q.th, q.G, q.A, gamma)
                                 + ito_noise_drift(q.G, 2 * q.A, _sigma2(inst)))[0])
    return _DRIFTS[1][key]


def _root(fun, xtol):
    seen: dict = {}

    def f(x):    # brentq starts by evaluating both ends, which the bracket search has just evaluated
        if x not in seen:
            seen[x] = fun(x)
        return seen[x]

    lo, hi = -0.5, 0.5
    for _ in range(60):
        if f(lo) > 0:
            break
        lo *= 2
    for _ in range(60):
        if f(hi) < 0:
            break
        hi *= 2
    from scipy.optimize import brentq

    return brentq(f, lo, hi, xtol=xtol, rtol=4 * np.finfo(float).eps, maxiter=500)


XTOLS = (1e-3, 1e-7, 1e-12)


FP_DIMS = tc.DimSpace({"dx": (1, 2), "d": (1, 2), "dy": (1, 2), "n": (3, 4)},
                      where=lambda d: d["dx"] + d["d"] + d["dy"] > 3)
"""Sizes for fixed-point checks.  All-ones is excluded: there (u, w scalars) the equilibrium has C* = 0 and
Tr[Sigma A] = 0 at once, so every relation between the two holds trivially."""
