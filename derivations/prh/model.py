"""The embedded deep linear network (EDLN) of the prh note: instances, data, the entropy S.

Source: Ziyin et al., "Proof of a perfect platonic representation hypothesis", part 2 (the
setting of part 1 is restated in issue 2).  The model is

    f(x) = M^O W_D ... W_1 M^I x,    x = Z u,    y = V* u + eps,    l = ||f(x) - y||^2,

with ``W_i`` of shape ``d_{i+1} x d_i`` in the note's indexing and invertible ``M^O``, ``M^I``,
``Z``.  **Indexing.**  The note's representation ``h^i`` is the *input* of ``W_i``
(``h^1 = M^I x``, ``h^{i+1} = W_i h^i``); :mod:`theorem_check.dln` counts from 0
(``h^0 = M_I x``), so the note's ``h^k`` is ``dln.representations(...)[k-1]``.  The note's
layer index ``i`` of eqs. (21)-(36) (``W_i``, ``W_{i+1}`` and the hidden representation
``h^{i+1}`` between them) is the dims key ``"i"``; the gauge matrix ``T`` acts on dln's
``h^i`` of width ``d{i}``.

**Data.**  Expectations are exact: ``u`` ranges over ``N_u`` fixed vectors and ``eps`` over
``N_eps`` centred vectors, and the data set is their product with uniform weights, so ``u``
and ``eps`` are independent, ``E[eps] = 0`` and ``E[eps u^T] = 0`` hold exactly.  Then the
empirical loss is minimised exactly where ``M^O W_D..W_1 M^I Z = V*``.

Dims keys: ``D`` (depth), ``d0`` (input width = dim u = dim x), ``d1..d{D-1}`` (hidden widths,
all different), ``d{D}`` (output width = dim y), ``i`` (the note's layer index, ``1..D-1``).
"""

from __future__ import annotations

import functools

import itertools
from typing import Any, Mapping

import mpmath
import numpy as np

from theorem_check import DimSpace, Instance, dln, sampling

DMAX = 4
"""Largest depth drawn (the issue asks for depths 2 to 4)."""


def invertible(rng, n, *, cond=10.0, batch=()):
    """:func:`theorem_check.sampling.invertible` times a random scale ``e^s``, ``s ~ U(-1, 1)``.

    The engine's sampler fixes the singular values to ``[cond^-1/2, cond^1/2]``; for ``n = 1`` that
    leaves only ``+-1``, which makes every 1 x 1 embedding trivial.  The random scale removes
    that degeneracy (and any accidental ``|det| ~ 1`` structure) without changing ``cond``.
    """
    A = sampling.invertible(rng, n, cond=cond, batch=batch)
    s = np.exp(rng.uniform(-1.0, 1.0, size=np.shape(A)[:-2]))
    return A * np.asarray(s)[..., None, None]


# ---------------------------------------------------------------------------------------
# dims
# ---------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=None)
def edln_dims(*, width=(1, 5), io=(1, 3), depth=(2, DMAX), square=False, equal_next=None) -> DimSpace:
    """Dims of one EDLN with a marked layer ``i``.

    Parameters
    ----------
    width : (lo, hi)
        Range of hidden widths ``d1..d{D-1}`` (all different from each other).
    io : (lo, hi)
        Range of the input width ``d0`` and the output width ``d{D}``.
    square : bool
        If True, ``d{D} == d0`` (then ``n_in = n_out``).
    equal_next : bool or None
        If True, require ``d{i} == d{i+1}`` (so that statements written with
        ``grad grad^T`` in place of ``grad^T grad`` typecheck); if False require them to differ.
    """
    lo, hi = depth
    ranges = {"D": depth, "d0": io, **{f"d{k}": (min(width[0], io[0]), max(width[1], io[1]))
                                        for k in range(1, DMAX + 1)},
              "i": (1, hi - 1)}

    def normalize(d):
        D = d["D"]
        for k in range(D + 1, DMAX + 1):
            d[f"d{k}"] = ranges[f"d{k}"][0]
        if d["i"] > D - 1:
            d["i"] = 1
        return d

    def where(d):
        D = d["D"]
        hidden = [d[f"d{k}"] for k in range(1, D)]
        if len(set(hidden)) != len(hidden) or not all(width[0] <= w <= width[1] for w in hidden):
            return False
        if not io[0] <= d[f"d{D}"] <= io[1]:
            return False
        if square and d[f"d{D}"] != d["d0"]:
            return False
        if d["i"] > D - 1:
            return False
        if equal_next is not None and (d[f"d{d['i']}"] == d[f"d{d['i'] + 1}"]) != equal_next:
            return False
        return True

    return DimSpace(ranges, where=where, normalize=normalize)


def widths(d: Mapping[str, int]) -> list[int]:
    """``[d0, d1, ..., dD]`` for dims ``d``."""
    return [d[f"d{k}"] for k in range(d["D"] + 1)]


# ---------------------------------------------------------------------------------------
# instances for identities (batched; every side recomputes derived data in its context)
# ---------------------------------------------------------------------------------------
def sample_edln(rng: np.random.Generator, d: Mapping[str, int], batch: int, *, cond: float = 10.0,
                T_kind: str = "symmetric", n_u: int | None = None, n_eps: int | None = None) -> dict[str, Any]:
    """A batch of EDLN instances (arbitrary weights, not at a minimum).

    Returns a dict with (leading axis ``batch``): ``M_O (dD, dD)``, ``M_I (d0, d0)``, ``Z (d0, d0)``
    (invertible, condition number ``cond``), ``V (dD, d0)`` (``V*``), ``U (d0, N_u)`` (the
    underlying inputs), ``E (dD, N_eps)`` (centred label noise), ``Ws`` (list of ``W_k (d_k, d_{k-1})``,
    Gaussian / sqrt(fan-in)), ``T (d_i, d_i)`` (``T_kind``: ``"symmetric"`` with spectral norm 1,
    ``"general"`` (Gaussian / sqrt(d)) or ``"invertible"`` (condition number ``cond``)),
    ``lam`` (shape ``(batch,)``, uniform in [-1, 1]), and the python ints ``i`` and ``j`` (a
    unit of the hidden layer ``h^{i+1}``, note's indexing).
    """
    w = widths(d)
    D, n_in, n_out, i = d["D"], w[0], w[-1], d["i"]
    n_u = n_u or n_in + 1
    n_eps = n_eps or n_out + 1
    E = rng.standard_normal((batch, n_out, n_eps))
    E = E - E.mean(axis=-1, keepdims=True)
    Ws = [sampling.gaussian(rng, w[k + 1], w[k], batch=batch) / np.sqrt(w[k]) for k in range(D)]
    di = w[i]
    if T_kind == "symmetric":
        Tm = sampling.symmetric(rng, di, batch=batch)
        Tm = Tm / np.max(np.abs(np.linalg.eigvalsh(Tm)), axis=-1)[:, None, None]
    elif T_kind == "general":
        Tm = sampling.gaussian(rng, di, batch=batch) / np.sqrt(di)
    elif T_kind == "invertible":
        Tm = invertible(rng, di, cond=cond, batch=batch)
    else:  # pragma: no cover - programming error
        raise ValueError(f"T_kind={T_kind!r} must be 'symmetric', 'general' or 'invertible'")
    return {
        "M_O": invertible(rng, n_out, cond=cond, batch=batch),
        "M_I": invertible(rng, n_in, cond=cond, batch=batch),
        "Z": invertible(rng, n_in, cond=cond, batch=batch),
        "V": sampling.gaussian(rng, n_out, n_in, batch=batch),
        "U": sampling.gaussian(rng, n_in, n_u, batch=batch) + 0.5,
        "E": E,
        "Ws": Ws,
        "T": Tm,
        "lam": rng.uniform(-1.0, 1.0, size=batch),
        "i": i,
        "j": int(rng.integers(w[i])),
    }


def to_ctx(inst: Mapping[str, Any], ctx) -> Instance:
    """An instance with every array (also inside lists) converted to ``ctx``'s arrays; ints kept."""
    def conv(v):
        if isinstance(v, np.ndarray):
            return ctx.asarray(v)
        if isinstance(v, (list, tuple)):
            return type(v)(conv(x) for x in v)
        return v

    return Instance({k: conv(v) for k, v in inst.items()})


def data(inst, ctx=None):
    """Inputs ``X = Z u`` and targets ``Y = V* u + eps`` over the product data set, in ``inst``'s arrays.

    Returns ``(X (b, d0, N), Y (b, dD, N))`` with ``N = N_u * N_eps``; sample ``a * N_eps + c``
    is ``(u_a, eps_c)``.  Computed from ``Z, V, U, E`` in the arrays' own precision; ``eps`` is
    re-centred in that precision, so that ``E[eps] = 0`` and ``E[eps u^T] = 0`` hold to working
    precision (the sampler's float64 centring is exact only to float64).
    """
    U, E = inst["U"], inst["E"]
    n_u, n_eps = U.shape[-1], E.shape[-1]
    E = E - np.sum(E, axis=-1, keepdims=True) / n_eps      # centred exactly in the working precision
    Urep = np.repeat(U, n_eps, axis=-1)
    Erep = np.tile(E, (1, 1, n_u))
    return inst["Z"] @ Urep, inst["V"] @ Urep + Erep


def sym_exp(ctx, Tm, lam):
    """``exp(lam * T)`` for symmetric ``T (b, d, d)`` and scalars ``lam (b,)`` (real or complex).

    Float contexts: ``T = Q diag(t) Q^T`` by ``numpy.linalg.eigh`` in the context's dtype;
    mpmath: ``mpmath.eigsy`` at the working precision.  Complex ``lam`` is allowed (complex-step
    derivatives), the result is then complex.
    """
    lam = np.asarray(lam)
    if ctx is None or not ctx.is_mp:
        t, Q = np.linalg.eigh(Tm)
        e = np.exp(lam[:, None] * t)
        return (Q * e[:, None, :]) @ np.swapaxes(Q, -1, -2)
    out = []
    for b in range(Tm.shape[0]):
        ev, Q = mpmath.eigsy(mpmath.matrix(Tm[b].tolist()))
        n = ev.rows
        Qa = np.array(Q.tolist(), dtype=object)
        e = np.array([mpmath.exp(lam[b] * ev[k]) for k in range(n)], dtype=object)
        out.append((Qa * e[None, :]) @ Qa.T)
    return np.stack(out)


def transformed(inst, ctx, lam=None, Tm=None):
    """The weights after eqs. (21)-(22): ``W_i -> e^{lam T} W_i``, ``W_{i+1} -> W_{i+1} e^{-lam T}``.

    ``inst.i`` is the note's layer index: the transform acts on dln's ``Ws[i-1]`` (rows) and
    ``Ws[i]`` (columns).  ``lam`` defaults to ``inst.lam``; ``Tm`` to ``inst.T``.
    """
    lam = inst["lam"] if lam is None else lam
    Tm = inst["T"] if Tm is None else Tm
    i = inst["i"]
    Ep, Em = sym_exp(ctx, Tm, lam), sym_exp(ctx, Tm, -np.asarray(lam))
    Ws = list(inst["Ws"])
    Ws[i - 1] = Ep @ Ws[i - 1]
    Ws[i] = Ws[i] @ Em
    return Ws


def per_sample_losses(Ws, X, Y, M_O, M_I):
    """``l = ||M^O W_D..W_1 M^I x - y||^2`` per sample: shape ``(b, N)``."""
    R = M_O @ dln.product(Ws) @ M_I @ X - Y
    return np.sum(R * R, axis=-2)


def grads(Ws, inst, X, Y):
    """Per-sample weight gradients ``[grad_{W_1} l, ..., grad_{W_D} l]`` (each ``(b, N, d_{k+1}, d_k)``)."""
    return dln.per_sample_gradients(Ws, X, Y, M_O=inst["M_O"], M_I=inst["M_I"])


def entropy_S(Ws, inst, X, Y):
    """The note's eq. (14): ``S = sum_i E||grad_{W_i} l||^2`` (exact mean over the data set): ``(b,)``."""
    return sum(dln.mean_squared_norms(G) for G in grads(Ws, inst, X, Y))


def complex_step(fun, lam, ctx):
    """``d fun / d lam`` by the complex step ``Im fun(lam + i h) / h`` (no cancellation).

    ``h = 1e-20`` in float contexts and ``1e-40`` in mpmath: the truncation error is
    ``O(h^2)``, below every context's unit round-off, so the derivative is exact to working
    precision for any holomorphic ``fun`` (here: matrix products, ``exp``, ``x*x``).
    """
    lam = np.asarray(lam)
    if ctx.is_mp:
        h = mpmath.mpf("1e-40")
        z = np.array([mpmath.mpc(v, h) for v in lam], dtype=object)
        out = fun(z)
        return np.array([mpmath.im(v) / h for v in out], dtype=object)
    cdt = np.complex64 if ctx.name == "float32" else np.complex128
    h = 1e-20
    out = fun(lam.astype(cdt) + 1j * np.asarray(h, dtype=cdt))
    return (np.imag(out) / h).astype(ctx.dtype)


def as_complex(x, ctx):
    """Promote a context array to complex (float -> complex; mpmath arrays are left as they are)."""
    if ctx.is_mp:
        return x
    return np.asarray(x, dtype=np.complex64 if ctx.name == "float32" else np.complex128)


# ---------------------------------------------------------------------------------------
# networks at a global minimum, and the minimisation of S over the gauge group (float64)
# ---------------------------------------------------------------------------------------
class Net:
    """One EDLN at a point of its parameter space (float64, no batch axis).

    Attributes: ``M_O, M_I, Z`` (invertible), ``Ws`` (list, note's ``W_1..W_D``), ``X, Y`` (data of
    the shared product set), ``widths`` (``[d0, .., dD]`` in dln indexing).
    """

    def __init__(self, M_O, M_I, Z, Ws, X, Y):
        self.M_O, self.M_I, self.Z, self.Ws, self.X, self.Y = M_O, M_I, Z, list(Ws), X, Y

    @property
    def widths(self):
        """``[d0, d1, ..., dD]``."""
        return [self.Ws[0].shape[1]] + [W.shape[0] for W in self.Ws]

    def with_weights(self, Ws) -> "Net":
        """Same embedding and data, other weights."""
        return Net(self.M_O, self.M_I, self.Z, Ws, self.X, self.Y)

    def batched(self):
        """``(Ws, X, Y, M_O, M_I)`` with a leading batch axis of 1, for :mod:`theorem_check.dln`."""
        return [W[None] for W in self.Ws], self.X[None], self.Y[None], self.M_O[None], self.M_I[None]

    def loss(self) -> float:
        """Mean per-sample loss over the data set (from the definition)."""
        Ws, X, Y, M_O, M_I = self.batched()
        return float(per_sample_losses(Ws, X, Y, M_O, M_I).mean())

    def grads(self):
        """Per-sample gradients (dln :func:`~theorem_check.dln.per_sample_gradients`), batch axis dropped."""
        Ws, X, Y, M_O, M_I = self.batched()
        return [G[0] for G in dln.per_sample_gradients(Ws, X, Y, M_O=M_O, M_I=M_I)]

    def S(self) -> float:
        """Eq. (14) from the definition: ``sum_i E||grad_{W_i} l||^2``."""
        return float(sum(np.sum(G * G) / G.shape[0] for G in self.grads()))

    def kernel(self, k: int) -> np.ndarray:
        """The kernel of the note's representation ``h^k`` (k = 1..D+1) as a bilinear form in ``u``.

        ``h^k(Z u_1)^T h^k(Z u_2) = u_1^T Q u_2`` with ``Q = (A M^I Z)^T (A M^I Z)``, ``A = W_{k-1}..W_1``.
        Equal kernels on all pairs of inputs <=> equal ``Q``.
        """
        A = self.M_I @ self.Z
        for W in self.Ws[:k - 1]:
            A = W @ A
        return A.T @ A

    def covariances(self):
        """``X_k = E[h h^T]``, ``Y_k = E[delta delta^T]`` for dln layers ``k = 0..D`` (from the data)."""
        Ws, X, Y, M_O, M_I = self.batched()
        hs = dln.representations(Ws, X, M_I)
        ds = dln.representation_gradients(Ws, X, Y, M_O=M_O, M_I=M_I)
        n = X.shape[-1]
        return [h[0] @ h[0].T / n for h in hs], [g[0] @ g[0].T / n for g in ds]


def global_minimum(rng, n_in, n_out, hidden, V, M_O, M_I, Z, X, Y, *, cond=10.0) -> Net:
    """A random global minimum of the empirical loss: ``W_D .. W_1 = (M^O)^{-1} V* Z^{-1} (M^I)^{-1}``.

    Every hidden width must be ``>= rank V*``.  ``W_1 .. W_{D-1}`` are random (condition number
    ``cond``; ``W_1``'s row space contains the target's, so that the constraint is solvable when
    a hidden width is below ``n_in``); ``W_D`` solves the product constraint plus a random
    component on the orthogonal complement of the range of ``W_{D-1} .. W_1``, so that the point
    is a generic member of the set of global minima, not a balanced one.
    """
    target = np.linalg.solve(M_O, V) @ np.linalg.inv(M_I @ Z)
    w = [n_in, *hidden, n_out]
    D = len(w) - 1
    r = np.linalg.matrix_rank(target)
    s = min(min(hidden), n_in)
    _, _, Vh = np.linalg.svd(target)
    F = np.vstack([Vh[:r], rng.standard_normal((max(0, s - r), n_in))])[:s]       # row space of W_1
    Ws = [sampling.invertible(rng, max(w[1], s), cond=cond)[:w[1], :s] @ F]
    for k in range(1, D - 1):
        Ws.append(sampling.invertible(rng, max(w[k + 1], w[k]), cond=cond)[:w[k + 1], :w[k]])
    A = dln.product([W[None] for W in Ws])[0]
    Ap = np.linalg.pinv(A)
    N = rng.standard_normal((n_out, w[D - 1]))
    Ws.append(target @ Ap + N @ (np.eye(w[D - 1]) - A @ Ap))
    return Net(M_O, M_I, Z, Ws, X, Y)


def shared_task(rng, n_in, n_out, rank=None, *, n_u=None, n_eps=None):
    """``V*`` (rank ``rank``, default full), underlying inputs ``U`` and centred noise ``E``.

    Returns ``(V, U, E, Urep, Erep)`` with the product-set repetitions ``Urep (n_in, N)``,
    ``Erep (n_out, N)``.
    """
    rank = min(n_in, n_out) if rank is None else rank
    V = sampling.rank_r(rng, n_out, n_in, rank, cond=4.0) * np.sqrt(n_in) * np.exp(rng.uniform(-1.0, 1.0)) \
        if rank else np.zeros((n_out, n_in))
    n_u = n_u or n_in + 2
    n_eps = n_eps or n_out + 2
    U = rng.standard_normal((n_in, n_u)) + 0.3
    E = rng.standard_normal((n_out, n_eps))
    E -= E.mean(axis=1, keepdims=True)
    return V, U, E, np.repeat(U, n_eps, axis=1), np.tile(E, (1, n_u))


def random_net(rng, hidden, task, *, cond=10.0, dead=None) -> Net:
    """A network of the given hidden widths with its own random ``M^O, M^I, Z``, at a global minimum.

    ``dead=(k, j)``: unit ``j`` of dln hidden layer ``h^k`` (note's ``h^{k+1}``) is dead: the
    network is built with one unit fewer there, then a zero row is inserted in ``W_k`` and a zero
    column in ``W_{k+1}`` (still a global minimum when ``hidden[k-1] - 1 >= rank V*``).
    """
    V, U, E, Urep, Erep = task
    n_out, n_in = V.shape
    M_O = invertible(rng, n_out, cond=cond)
    M_I = invertible(rng, n_in, cond=cond)
    Z = invertible(rng, n_in, cond=cond)
    X, Y = Z @ Urep, V @ Urep + Erep
    hid = list(hidden)
    if dead is not None:
        hid[dead[0] - 1] -= 1
    net = global_minimum(rng, n_in, n_out, hid, V, M_O, M_I, Z, X, Y, cond=cond)
    if dead is not None:
        k, j = dead
        Ws = list(net.Ws)
        Ws[k - 1] = np.insert(Ws[k - 1], j, 0.0, axis=0)
        Ws[k] = np.insert(Ws[k], j, 0.0, axis=1)
        net = net.with_weights(Ws)
    return net


def _S_closed(Gs, Xc, Yc):
    """``S(G) = sum_k tr(G_{k-1} X_{k-1} G_{k-1}^T) tr(G_k^{-T} Y_k G_k^{-1})`` and its gradient in ``G``.

    Valid at a global minimum of the product data set, where ``delta^k`` depends on the noise
    only and ``h^{k-1}`` on ``u`` only, so ``E[||delta||^2 ||h||^2] = E||delta||^2 E||h||^2``
    (derivation in docs/papers/prh.md; the verifier recomputes S from the definition).
    ``Gs`` has identity at both ends (input and output are not transformed).
    """
    D = len(Gs) - 1
    val = 0.0
    grad = [np.zeros_like(G) for G in Gs]
    invs = [np.linalg.inv(G) for G in Gs]
    for k in range(1, D + 1):
        Gp, Gi = Gs[k - 1], invs[k]
        a = np.trace(Gp @ Xc[k - 1] @ Gp.T)
        M = Gi.T @ Yc[k] @ Gi
        b = np.trace(M)
        val += a * b
        grad[k - 1] += 2.0 * b * Gp @ Xc[k - 1]
        grad[k] -= 2.0 * a * M @ Gi.T
    return val, grad


def _round(net: Net, gtol: float, maxiter: int = 3000, polish: bool = False):
    """One re-centred minimisation of S over symmetric ``G_k = I + sym(t_k)``; returns (net, |grad|/S)."""
    import scipy.optimize as so

    Xc, Yc = net.covariances()
    D = len(net.Ws)
    hid = net.widths[1:D]
    iu = [np.triu_indices(d) for d in hid]
    sizes = [len(r) for r, _ in iu]
    S0 = _S_closed([np.eye(net.widths[0])] + [np.eye(d) for d in hid] + [np.eye(net.widths[-1])], Xc, Yc)[0]

    def unpack(t):
        out, o = [], 0
        for d, (r, c), m in zip(hid, iu, sizes):
            M = np.zeros((d, d))
            M[r, c] = t[o:o + m]
            out.append(np.eye(d) + M + np.triu(M, 1).T)
            o += m
        return [np.eye(net.widths[0])] + out + [np.eye(net.widths[-1])]

    def f(t):
        val, g = _S_closed(unpack(t), Xc, Yc)
        gv = []
        for gk, (r, c) in zip(g[1:-1], iu):
            gg = gk + gk.T
            gg[np.diag_indices_from(gg)] *= 0.5
            gv.append(gg[r, c])
        return val / S0, np.concatenate(gv) / S0

    t0 = np.zeros(sum(sizes))
    if polish:
        res = so.root(lambda t: f(t)[1], t0, method="lm", options={"xtol": 1e-15, "ftol": 1e-15, "maxiter": 2000})
    else:
        res = so.minimize(f, t0, jac=True, method="BFGS", options={"gtol": gtol, "maxiter": maxiter})
    x = res.x
    if not np.all(np.isfinite(x)) or f(x)[0] > 1.0 + 1e-12:   # never accept a step that increases S
        x = t0
    Gs = unpack(x)
    Ws = [Gs[k + 1] @ W @ np.linalg.inv(Gs[k]) for k, W in enumerate(net.Ws)]
    new = net.with_weights(Ws)
    return new, _stationarity(new)


def _stationarity(net: Net) -> np.ndarray:
    """Relative imbalance ``||E[G_{k+1}^T G_{k+1}] - E[G_k G_k^T]|| / S`` per hidden layer (the Riemannian gradient)."""
    G = net.grads()
    S = sum(np.sum(g * g) / g.shape[0] for g in G)
    out = []
    for k in range(len(G) - 1):
        A = np.einsum("nab,ncb->ac", G[k], G[k]) / G[k].shape[0]
        B = np.einsum("nba,nbc->ac", G[k + 1], G[k + 1]) / G[k + 1].shape[0]
        out.append(np.linalg.norm(A - B) / S)
    return np.array(out)


LEVELS = ("bfgs gtol=1e-3", "bfgs gtol=1e-8 x4", "lm polish")
"""Refinement levels of the S-minimisation (coarse -> fine)."""
FLOORS = (1e-3, 1e-8, 1e-11)
"""What a true statement at an S-minimiser may still leave at each level: the optimiser's
relative gradient tolerance (BFGS ``gtol``), and for the Levenberg-Marquardt polish of the
stationarity equations a rounding floor ``~1e5 eps`` (stationarity is solved to ``~eps``;
the factor covers the conditioning of the kernels of the drawn instances, cond <= 10 each)."""


def minimise_S(net: Net) -> list[Net]:
    """Minimise S over the gauge group ``W_k -> G_k W_k G_{k-1}^{-1}`` at the three :data:`LEVELS`.

    SciPy BFGS on symmetric ``G_k = I + sym(t_k)`` (enough: S depends on ``G_k^T G_k`` only),
    re-centred after each round (the weights are transformed and ``G`` restarts at ``I``), then a
    Levenberg-Marquardt solve (``scipy.optimize.root(method="lm")``) of the stationarity
    equations.  Returns the network after each level (each continues from the previous one).
    The loss is unchanged by construction (gauge symmetry); S never increases.
    """
    out = []
    cur, _ = _round(net, 1e-3, maxiter=50)
    out.append(cur)
    for _ in range(4):
        cur, g = _round(cur, 1e-8)
        if g.max(initial=0.0) < 1e-9:
            break
    out.append(cur)
    for _ in range(3):
        cur, g = _round(cur, 0.0, polish=True)
        if g.max(initial=0.0) < 1e-14:
            break
    out.append(cur)
    return out


def hidden_layers(net: Net) -> list[int]:
    """The note's indices of the hidden representations ``h^2 .. h^D``."""
    return list(range(2, len(net.Ws) + 1))


def all_layers(net: Net) -> list[int]:
    """The note's indices of every representation ``h^1 = M^I x .. h^{D+1}``."""
    return list(range(1, len(net.Ws) + 2))


@functools.lru_cache(maxsize=None)
def pair_dims(*, n=(1, 3), offsets=(0, 2), depth=(2, DMAX)) -> DimSpace:
    """Dims of two networks A, B at a common task with ``n_in = n_out = rank V* = n``.

    Keys ``n``, ``DA``, ``oa1..oa3``, ``DB``, ``ob1..ob3``: hidden widths are ``n + o``, all
    different within a network; the two networks differ in depth or widths.
    """
    hi = depth[1] - 1
    ranges = {"n": n, "DA": depth, **{f"oa{k}": offsets for k in range(1, hi + 1)},
              "DB": depth, **{f"ob{k}": offsets for k in range(1, hi + 1)}}

    def normalize(d):
        for net, D in (("a", d["DA"]), ("b", d["DB"])):
            for k in range(D, hi + 1):
                d[f"o{net}{k}"] = offsets[0]
        return d

    def where(d):
        a = [d[f"oa{k}"] for k in range(1, d["DA"])]
        b = [d[f"ob{k}"] for k in range(1, d["DB"])]
        return len(set(a)) == len(a) and len(set(b)) == len(b) and a != b

    return DimSpace(ranges, where=where, normalize=normalize)


def pair_hidden(d) -> tuple[list[int], list[int]]:
    """Hidden widths of networks A and B for :func:`pair_dims` dims."""
    n = d["n"]
    return ([n + d[f"oa{k}"] for k in range(1, d["DA"])], [n + d[f"ob{k}"] for k in range(1, d["DB"])])


def platonic_pair(rng, d, *, rank=None):
    """Two networks (own random ``M^O, M^I, Z``) on one task, at global minima, with S minimised.

    Returns ``(task, [A at each level], [B at each level], A0, B0)`` (``A0, B0``: before the
    minimisation).
    """
    n = d["n"]
    task = shared_task(rng, n, n, rank)
    hA, hB = pair_hidden(d)
    A0 = random_net(rng, hA, task)
    B0 = random_net(rng, hB, task)
    return task, minimise_S(A0), minimise_S(B0), A0, B0


def universal_kernel(task) -> np.ndarray:
    """``Q* = Su^{-1/2} (Su^{1/2} V*^T Se V* Su^{1/2})^{1/2} Su^{-1/2}`` (derived, docs/papers/prh.md).

    ``Su = E[u u^T]``, ``Se = E[eps eps^T]`` over the data set.  Every hidden kernel at an
    S-minimiser is a positive multiple of ``Q*`` (for ``n_in = n_out = rank V*``).
    """
    import scipy.linalg as sla

    V, U, E, Urep, Erep = task
    Su = U @ U.T / U.shape[1]
    Se = E @ E.T / E.shape[1]
    w, Q = np.linalg.eigh(Su)
    r = (Q * np.sqrt(w)) @ Q.T
    ri = (Q / np.sqrt(w)) @ Q.T
    M = r @ V.T @ Se @ V @ r
    M = 0.5 * (M + M.T)
    return ri @ np.real(sla.sqrtm(M)) @ ri


def pairs(layers_a, layers_b, *, same=False):
    """Pairs ``(i, j)`` of layers (``i < j`` when ``same``)."""
    if same:
        return [(a, b) for a, b in itertools.combinations(layers_a, 2)]
    return [(a, b) for a in layers_a for b in layers_b]
