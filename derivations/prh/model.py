"""The embedded deep linear network (EDLN) of the prh note: instances, data, the entropy S.

Source: Ziyin et al., "Proof of a perfect platonic representation hypothesis", part 2 (the
setting of part 1 is restated in issue 2).  The model is

    f(x) = M^O W_D ... W_1 M^I x,    x = Z u,    y = V* u + eps,    l = ||f(x) - y||^2,

with ``W_i`` of shape ``d_{i+1} x d_i`` in the note's indexing and invertible ``M^O``, ``M^I``,
``Z``.  **Indexing.**  The note's representation ``h^i`` is the *input* of ``W_i``
(``h^1 = M^I x``, ``h^{i+1} = W_i h^i``); :mod:`theorem_check.library.dln` counts from 0
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

Also here: the dims shared by several sections (:func:`edln_dims`, :func:`pair_dims`,
:func:`single_dims`) and the helpers the section modules build their claims with (``PAPER``,
``_SETUP``, ``_TRANSFORM``, ``_src``, ``_sample``, ``_ident``, ``_chk``).  Networks at a global
minimum and the minimisation of S over the gauge group are in :mod:`.gauge`.
"""

from __future__ import annotations

import functools
from typing import Any, Mapping

import mpmath
import numpy as np

import theorem_check as tc
from theorem_check import DimSpace, Instance, dln, sampling

DMAX = 4
"""Largest depth drawn (the issue asks for depths 2 to 4)."""


def invertible(rng, n, *, cond=10.0, batch=()):
    """:func:`theorem_check.numerics.sampling.invertible` times a random scale ``e^s``, ``s ~ U(-1, 1)``.

    Written when the engine's sampler fixed the extreme singular values at ``cond^-1/2`` and
    ``cond^1/2`` (only ``+-1`` at ``n = 1``); since issue 18 its spectra are generic at every size,
    and the extra scale (which leaves ``cond`` unchanged) is kept so that this paper's instances
    range over ``e^{+-1}`` more.
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
# dims of one network, and of two networks on one task (n_in = n_out = rank V* = n)
# ---------------------------------------------------------------------------------------
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


@functools.lru_cache(maxsize=None)
def single_dims(*, n=(1, 3), offsets=(0, 2), depth=(2, DMAX)):
    """Dims of one network with ``n_in = n_out = rank V* = n`` and hidden widths ``n + o_k`` (all different)."""
    hi = depth[1] - 1
    ranges = {"n": n, "D": depth, **{f"o{k}": offsets for k in range(1, hi + 1)}}

    def normalize(d):
        for k in range(d["D"], hi + 1):
            d[f"o{k}"] = offsets[0]
        return d

    def where(d):
        o = [d[f"o{k}"] for k in range(1, d["D"])]
        return len(set(o)) == len(o)

    return DimSpace(ranges, where=where, normalize=normalize)


# ---------------------------------------------------------------------------------------
# helpers of the claims (every section module builds its statements with these)
# ---------------------------------------------------------------------------------------
PAPER = "prh"
_SETUP = (
    r"$f(x) = M^{O} W_{D} \dots W_{1} M^{I} x$, $W_{i}$ of shape $d_{i+1} \times d_{i}$; $M^{O}$, $M^{I}$, $Z$ invertible (cond 10)",
    r"$x = Z u$, $y = V^* u + \varepsilon$; $u$ and $\varepsilon$ range over finite sets, the data "
    r"set is their product with uniform weights (exact expectations, $\varepsilon$ centred and independent of $u$)",
    r"$l = \lVert f(x) - y\rVert ^{2}$ per sample; $h^{1} = M^{I} x$, $h^{i+1} = W_{i} h^{i}$ ($h^{i}$ is the input of $W_{i}$, as eq. 14 implies)",
)
_TRANSFORM = (r"$T$ symmetric with spectral norm 1, $\lambda$ uniform in [-1, 1]; layer $i$ in 1..$D-1$",)


def _src(section, equation, printed):
    return tc.Source(PAPER, section, equation, printed)


def _sample(**kw):
    return functools.partial(_sample_impl, **kw)


def _sample_impl(rng, d, batch, **kw):
    inst = sample_edln(rng, d, batch, **kw)
    inst["lam2"] = rng.uniform(-1.0, 1.0, size=batch)
    return inst


def _ident(latex, lhs=None, rhs=None, *, name="as printed", kind="printed", dims=None, sample=None, derivation=None,
           scale=None, cond=100.0, note="", contexts=("float32", "float64", "mp50")):
    return tc.Statement(latex, name=name, kind=kind, dims=dims or edln_dims(), sample=sample or _sample(),
                        lhs=lhs, rhs=rhs, derivation=derivation, scale=scale, cond=cond, note=note,
                        contexts=contexts)


def _chk(latex, check, *, name="as printed", kind="printed", dims, derivation=None, note=""):
    return tc.Statement(latex, name=name, kind=kind, dims=dims, check=check, derivation=derivation, note=note)
