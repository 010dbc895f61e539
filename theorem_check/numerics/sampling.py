"""Random structured matrices from a seeded :class:`numpy.random.Generator`, batched.

Every sampler takes the generator first and keyword-only options after, and returns a
float64 array whose leading axes are ``batch`` (an int or a shape tuple, default ``()``)
followed by the matrix axes.  The same families are exposed as Hypothesis strategies
(:func:`strategy`), built from a seed so that Hypothesis shrinks the seed and the sizes.

>>> rng = np.random.default_rng(0)
>>> M = invertible(rng, 3, cond=100.0, batch=5)      # (5, 3, 3), condition numbers below 100
>>> M.shape, bool((np.linalg.cond(M) < 100.0).all())
((5, 3, 3), True)
>>> T = symmetric(rng, 4)                             # (4, 4), T == T.T exactly
>>> bool((T == T.T).all())
True

Exact structure at every precision
----------------------------------
The engine evaluates a statement on the *same* instance at float32, float64 and mpmath-50.
A structure that holds only to float64 rounding (``Q^T Q - I ~ 1e-16`` for a Householder QR
factor) is, seen from 50 digits, a different matrix than the one promised, and a true identity
such as ``Q^T Q = I`` then stalls at ``1e-16`` and is (correctly) REFUTED.  So every promise a
sampler makes holds to the working precision of each context:

=========================================  ================================================  =============
sampler                                    promise, in every context ``ctx``                 how
=========================================  ================================================  =============
:func:`symmetric`, :func:`antisymmetric`   ``X^T = +-X`` exactly                             exact in IEEE
:func:`spd`                                ``X^T = X`` exactly, eigenvalues as drawn         recipe
:func:`orthogonal`, orthonormal_columns    ``||Q^T Q - I||_F <= c m k ctx.eps``              recipe
:func:`with_singular_values`, rank_r       singular values ``s`` to ``c ctx.eps max(s)``     recipe
:func:`invertible`, :func:`gaussian`       as drawn (no structure beyond float64 values)     plain
=========================================  ================================================  =============

(``rank_r``: the ``r`` drawn singular values, the others ``<= c ctx.eps max(s)``.)

Samplers marked *recipe* return an :class:`Exact` array: it *is* the float64 sample (any NumPy
use sees exactly those values) and carries the float64 ingredients it was built from, so that
:meth:`Exact.at` rebuilds it inside a context:

* float32 / float64: the float64 value, rounded entrywise to the context.  Rounding is a
  function of the value, so exact symmetry survives it, and it moves ``Q^T Q`` and the singular
  values by at most ``O(sqrt(k) * eps)`` of the context, which is the promise; a Newton-Schulz
  step in float32 could not do better than float32 rounding.
* mpmath (``ctx.is_mp``): the Haar factor ``Q0`` (float64 QR, sign-fixed) is polished inside the
  context by Newton-Schulz polar iterations ``Q <- Q (3I - Q^T Q) / 2`` (quadratic convergence:
  ``1e-16 -> 1e-32 -> <1e-50``, two steps at 50 digits) until ``||Q^T Q - I||_F <= m k ctx.eps``;
  ``spd`` is then ``M = (Q diag(lam)) Q^T`` followed by ``(M + M^T) / 2`` (exactly symmetric:
  ``a + b = b + a`` and halving are exact in binary floating point, IEEE or mpmath), and
  ``with_singular_values`` / ``rank_r`` are ``NS(U) diag(s) NS(V)^T``.

The mp matrix differs from the float64 one by ``O(1e-16)`` relative: both are the promised
structure at their own precision, around the same random draw, which is what the refinement rule
needs (DESIGN.md, "Verdicts").  Arrays *derived* from an :class:`Exact` (arithmetic, ufuncs,
slicing, ``Q.T``, ``Q[0]``, ``2 * Q``, ``Q @ D``) carry no recipe and are converted like any
float64 array, so a derived array never gets a stale recipe; an :class:`Exact` modified in place
loses its recipe too (:attr:`Exact.has_recipe` compares the current values with the recipe's).
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from theorem_check.errors import InvalidArgument
from theorem_check.numerics import balls
from theorem_check.validation import check_int, check_positive_int

__all__ = [
    "Exact",
    "gaussian",
    "orthogonal",
    "orthonormal_columns",
    "invertible",
    "symmetric",
    "antisymmetric",
    "complex_gaussian",
    "hermitian",
    "spd",
    "rank_r",
    "with_singular_values",
    "SPREAD",
    "strategy",
    "seeds",
]

Batch = int | tuple[int, ...]

_MAX_NS_STEPS = 8
"""Newton-Schulz steps allowed before :meth:`Exact.at` gives up (two suffice at 50 digits)."""


def _bshape(batch: Batch) -> tuple[int, ...]:
    if isinstance(batch, (int, np.integer)):
        return (check_int("batch", batch, min_value=0),)
    return tuple(int(b) for b in batch)


def _check_cond(cond):
    """``cond`` as a float, or as a float64 array when one is given per batch element."""
    c = np.asarray(cond, dtype=np.float64) if np.ndim(cond) else cond
    if not np.all(np.isfinite(c) & (np.asarray(c) >= 1.0)):
        raise InvalidArgument(f"cond={cond!r} must be a finite number >= 1")
    return c if np.ndim(c) else float(c)


# ---------------------------------------------------------------------------------------
# Exact arrays and their recipes
# ---------------------------------------------------------------------------------------
def _T(x: np.ndarray) -> np.ndarray:
    return np.swapaxes(x, -1, -2)


def _max_fro(e: np.ndarray) -> float:
    """Largest Frobenius norm over the matrices of a (batched, possibly ``object``) array, as a float."""
    if e.size == 0:
        return 0.0
    sq = np.sum(e * e, axis=(-2, -1))
    return float(max(float(v) for v in np.ravel(sq))) ** 0.5


def _ns_tol(q: np.ndarray, ctx) -> float:
    """The Newton-Schulz target ``m k eps`` of a ``(..., m, k)`` factor in ``ctx`` (see :func:`_polish`)."""
    m, k = q.shape[-2:]
    return float(m * k * ctx.eps)


def _polish(q: np.ndarray, ctx) -> np.ndarray:
    """Newton-Schulz polar iterations ``Q <- Q (3I - Q^T Q)/2`` in ``ctx`` until ``||Q^T Q - I||_F <= m k eps``.

    ``q`` has shape ``(..., m, k)`` with ``k <= m`` and is already (to float64 rounding) orthonormal;
    each step squares the defect (``E -> -3/4 E^2 + O(E^3)``).  Must run inside ``ctx.active()``.
    Raises RuntimeError if :data:`_MAX_NS_STEPS` steps do not reach the target (not observed:
    it would mean an input far from orthonormal).
    """
    eye = ctx.eye(q.shape[-1])
    tol = _ns_tol(q, ctx)       # above the context's own rounding of Q^T Q (~ m k u, u = unit round-off)
    half, three_halves = ctx.scalar(0.5), ctx.scalar(1.5)
    for _ in range(_MAX_NS_STEPS + 1):
        qtq = _T(q) @ q
        if _max_fro(qtq - eye) <= tol:
            return q
        q = q @ (three_halves * eye - half * qtq)
    raise RuntimeError(f"Newton-Schulz did not orthonormalise a {q.shape} sample to {tol:.1e} in "
                       f"{_MAX_NS_STEPS} steps ({ctx.name})")


class _Recipe:
    """Float64 ingredients of an :class:`Exact` sample and the way to rebuild it in a context.

    ``value`` is a copy of the float64 sample at construction (to detect in-place changes);
    every array attribute has the sample's leading batch axes first.
    """

    fields: tuple[str, ...] = ()

    def __init__(self, value: np.ndarray, **arrays: np.ndarray):
        self.value = np.array(value, dtype=np.float64)
        for name in self.fields:
            setattr(self, name, np.array(arrays[name], dtype=np.float64))

    def take(self, b: int) -> "_Recipe":
        """The recipe of batch entry ``b`` (every array sliced ``[b:b+1]`` along axis 0)."""
        return type(self)(self.value[b:b + 1], **{n: getattr(self, n)[b:b + 1] for n in self.fields})

    def mats(self, ctx) -> list | None:
        """The sample as ``arb_mat`` balls at ``ctx``'s precision, one per batch element (C order), or None
        where balls are off or the polish does not converge in them (then :meth:`build` takes the object
        path)."""
        return None

    def build(self, ctx) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def __getstate__(self):
        return {n: getattr(self, n) for n in ("value", *self.fields)}

    def __setstate__(self, state):
        self.__dict__.update(state)


class _Orthonormal(_Recipe):
    """``Q0`` (..., m, k) from float64 QR; in an mp context: Newton-Schulz polished ``Q0``."""

    fields = ("q0",)

    def mats(self, ctx):
        return balls.polish(self.q0, _ns_tol(self.q0, ctx), _MAX_NS_STEPS)

    def build(self, ctx):
        qs = self.mats(ctx)
        if qs is not None:
            return balls.midpoints(qs, self.q0.shape)
        return _polish(ctx.asarray(self.q0), ctx)


class _SPD(_Recipe):
    """``Q0`` (..., n, n) and eigenvalues ``lam`` (..., n): ``sym((NS(Q0) diag(lam)) NS(Q0)^T)``."""

    fields = ("q0", "lam")

    def mats(self, ctx):
        qs = balls.polish(self.q0, _ns_tol(self.q0, ctx), _MAX_NS_STEPS)
        return None if qs is None else balls.spd_product(qs, self.lam)

    def build(self, ctx):
        ms = self.mats(ctx)
        if ms is not None:
            return balls.midpoints(ms, self.q0.shape)
        q = _polish(ctx.asarray(self.q0), ctx)
        m = (q * ctx.asarray(self.lam)[..., None, :]) @ _T(q)
        return (m + _T(m)) * ctx.scalar(0.5)


class _USV(_Recipe):
    """``U0`` (..., m, k), ``s`` (..., k), ``V0`` (..., n, k): ``NS(U0) diag(s) NS(V0)^T``."""

    fields = ("u0", "s", "v0")

    def mats(self, ctx):
        us = balls.polish(self.u0, _ns_tol(self.u0, ctx), _MAX_NS_STEPS)
        vs = balls.polish(self.v0, _ns_tol(self.v0, ctx), _MAX_NS_STEPS) if us is not None else None
        return None if vs is None else balls.usv_product(us, self.s, vs)   # both factors in balls, or neither

    def build(self, ctx):
        ms = self.mats(ctx)
        if ms is not None:
            return balls.midpoints(ms, self.u0.shape[:-1] + self.v0.shape[-2:-1])
        u = _polish(ctx.asarray(self.u0), ctx)
        v = _polish(ctx.asarray(self.v0), ctx)
        return (u * ctx.asarray(self.s)[..., None, :]) @ _T(v)


class Exact(np.ndarray):
    """A sampled float64 array that carries a recipe to rebuild itself at any working precision.

    For every NumPy use it *is* the plain float64 sample (same dtype, shape and values).  Results
    of arithmetic and ufuncs (``2 * Q``, ``Q @ D``, ``np.sqrt(Q)``) are plain ``ndarray``; views
    and slices (``Q[0]``, ``Q.T``, ``Q[1:2]``) are :class:`Exact` *without* a recipe.  So nothing
    derived from a sample can carry a recipe that no longer describes it.

    Attributes set by the samplers (never construct one by hand): a private recipe and the
    number of leading batch axes.  See the module docstring for the constructions and what each
    guarantees.

    Pickling keeps the recipe (``__reduce__`` / ``__setstate__``), so instances sent to worker
    processes stay exact; ``copy.copy``/``copy.deepcopy`` keep it as well.
    """

    _recipe: _Recipe | None = None
    _nbatch: int = 0

    # -- construction ---------------------------------------------------------------------
    @classmethod
    def _make(cls, value: np.ndarray, recipe: _Recipe | None, nbatch: int) -> "Exact":
        out = np.asarray(value, dtype=np.float64).view(cls)
        out._recipe = recipe
        out._nbatch = int(nbatch)
        return out

    def __array_finalize__(self, obj):
        # every view, slice, copy or ufunc output of an Exact starts without a recipe
        self._recipe = None
        self._nbatch = 0

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        """Compute on the plain float64 values; results are plain ndarrays (``out=`` is honoured)."""
        args = tuple(x.view(np.ndarray) if isinstance(x, Exact) else x for x in inputs)
        outs = kwargs.get("out")
        if outs:
            kwargs["out"] = tuple(o.view(np.ndarray) if isinstance(o, Exact) else o for o in outs)
        result = getattr(ufunc, method)(*args, **kwargs)
        if outs:
            return outs[0] if len(outs) == 1 else outs
        return result

    # -- pickling and copies --------------------------------------------------------------
    def __reduce__(self):
        fn, args, state = super().__reduce__()
        return fn, args, (state, self._recipe, self._nbatch)

    def __setstate__(self, state):
        base, recipe, nbatch = state
        super().__setstate__(base)
        self._recipe, self._nbatch = recipe, nbatch

    def __copy__(self):
        return Exact._make(self.view(np.ndarray).copy(), self._recipe, self._nbatch)

    def __deepcopy__(self, memo):
        return self.__copy__()

    # -- the interface the engine uses ----------------------------------------------------
    @property
    def has_recipe(self) -> bool:
        """True when :meth:`at` rebuilds the sample from its recipe (False for derived arrays,
        samplers without one, or a sample whose values were changed in place)."""
        r = self._recipe
        return r is not None and r.value.shape == self.shape and np.array_equal(r.value, self.view(np.ndarray))

    def at(self, ctx) -> np.ndarray:
        """The sample at working precision ``ctx`` (a :class:`theorem_check.numerics.precision.Ctx`).

        Returns a float32/float64 ndarray, or an ``object`` array of ``mpmath.mpf`` for mp
        contexts, of the same shape, whose promised structure holds to ``ctx.eps`` (module
        docstring).  Without a recipe (:attr:`has_recipe` False) it is ``ctx.asarray`` of the
        float64 values.  For mp contexts the result is computed at ``ctx.dps`` digits.
        """
        plain = self.view(np.ndarray)
        if not ctx.is_mp or not self.has_recipe:
            return ctx.asarray(plain)
        with ctx.active():
            return np.asarray(self._recipe.build(ctx))

    def balls(self, ctx):
        """The sample at ``ctx`` (mp) as a :class:`~theorem_check.numerics.balls.BallArray` of the midpoints
        :meth:`at` would return (the same values, never turned into ``mpf``), or None: no recipe, not one
        batch axis of matrices ``(batch, r, c)`` with at least ``BALL_MIN`` entries each, or no ball form."""
        if not ctx.is_mp or not self.has_recipe or self.ndim != 3 or self._nbatch != 1 \
                or self.shape[1] * self.shape[2] < balls.BALL_MIN:
            return None
        with ctx.active():
            ms = self._recipe.mats(ctx)
            return None if ms is None else balls.BallArray([m.mid() for m in ms])

    def take(self, b: int) -> "Exact":
        """Batch entry ``b`` as ``self[b:b+1]`` (leading axis kept), with its recipe sliced too.

        Without a recipe or without a batch axis the slice is returned without one.  Raises
        IndexError (like NumPy) when ``b`` is outside the leading axis.
        """
        b = int(b)
        n = self.shape[0] if self.ndim else 0
        if not -n <= b < n:
            raise IndexError(f"b={b} is outside the leading axis of length {n}")
        b = b % n
        plain = self.view(np.ndarray)[b:b + 1]
        if self._nbatch < 1 or not self.has_recipe:
            return Exact._make(plain, None, 0)
        return Exact._make(plain, self._recipe.take(b), self._nbatch)


def _exact(recipe_cls, value: np.ndarray, nbatch: int, **arrays) -> Exact:
    return Exact._make(value, recipe_cls(value, **arrays), nbatch)


# ---------------------------------------------------------------------------------------
# samplers
# ---------------------------------------------------------------------------------------
def gaussian(rng: np.random.Generator, m: int, n: int | None = None, *, batch: Batch = ()) -> np.ndarray:
    """I.i.d. standard normal matrix of shape ``batch + (m, n)`` (``n = m`` by default); a plain array."""
    m = check_positive_int("m", m)
    n = m if n is None else check_positive_int("n", n)
    return rng.standard_normal(_bshape(batch) + (m, n))


def _haar(rng: np.random.Generator, m: int, k: int, batch: Batch) -> np.ndarray:
    """Haar ``m x k`` orthonormal columns by float64 QR of a Gaussian with the sign fix ``diag(R) > 0``."""
    g = rng.standard_normal(_bshape(batch) + (m, k))
    q, r = np.linalg.qr(g)
    signs = np.sign(np.diagonal(r, axis1=-2, axis2=-1))
    signs[signs == 0] = 1.0
    return q * signs[..., None, :]


def orthogonal(rng: np.random.Generator, n: int, *, batch: Batch = ()) -> Exact:
    """Haar-distributed orthogonal matrices, shape ``batch + (n, n)``, orthogonal at every precision.

    An :class:`Exact` array: ``Q.at(ctx)`` satisfies ``||Q^T Q - I||_F <= n^2 * ctx.eps`` at mp
    contexts (Newton-Schulz in the context) and ``O(sqrt(n) * eps)`` at float32/float64.
    """
    return orthonormal_columns(rng, n, n, batch=batch)


def orthonormal_columns(rng: np.random.Generator, m: int, k: int, *, batch: Batch = ()) -> Exact:
    """``m x k`` matrices with orthonormal columns (``Q^T Q = I_k``), Haar-distributed; ``k <= m``.

    Returns an :class:`Exact` array (shape ``batch + (m, k)``) whose float64 value is the
    sign-fixed Householder QR factor of a Gaussian matrix and whose value in an mp context is
    that factor polished by Newton-Schulz to ``||Q^T Q - I||_F <= m k ctx.eps`` (``< 1e-45`` at
    mp50 for sizes up to 100; about ``1e-50`` in practice).
    Raises InvalidArgument if ``k > m``.
    """
    m, k = check_positive_int("m", m), check_positive_int("k", k)
    if k > m:
        raise InvalidArgument(f"k={k!r} must be <= m={m}")
    nb = len(_bshape(batch))
    q = _haar(rng, m, k, batch)
    return _exact(_Orthonormal, q, nb, q0=q)


def _usv(rng: np.random.Generator, m: int, n: int, s: np.ndarray, batch: Batch):
    """``(U diag(s) V^T, U, s broadcast to the batch, V)`` with float64 Haar factors (arguments validated)."""
    m, n = check_positive_int("m", m), check_positive_int("n", n)
    s = np.asarray(s, dtype=float)
    k = check_positive_int("k", s.shape[-1] if s.ndim else 0)
    for name, size in (("m", m), ("n", n)):
        if k > size:
            raise InvalidArgument(f"k={k!r} must be <= {name}={size}")
    u = _haar(rng, m, k, batch)
    v = _haar(rng, n, k, batch)
    value = (u * s[..., None, :]) @ np.swapaxes(v, -1, -2)
    return value, u, np.broadcast_to(s, u.shape[:-2] + (k,)), v


def with_singular_values(rng: np.random.Generator, m: int, n: int, s: np.ndarray, *, batch: Batch = ()) -> Exact:
    """``U diag(s) V^T`` with Haar ``U`` (m x k), ``V`` (n x k), ``k = len(s) <= min(m, n)``.

    ``s`` has shape ``(k,)`` or ``batch + (k,)``.  Returns an :class:`Exact` array of shape
    ``batch + (m, n)`` whose singular values are ``s`` to the precision of each context (in mp
    contexts ``U`` and ``V`` are Newton-Schulz polished before the product).
    """
    value, u, s_b, v = _usv(rng, m, n, s, batch)
    return _exact(_USV, value, len(_bshape(batch)), u0=u, s=s_b, v0=v)


SPREAD = 10.0
"""Smallest ratio between the ends of the range a spectrum is drawn from (a decade), whatever ``cond``."""


def _log_spectrum(rng: np.random.Generator, k: int, cond, batch: Batch) -> np.ndarray:
    """``k`` distinct positive values, ascending, whose largest/smallest ratio is below ``cond`` (a number, or one
    per batch element: shape ``batch``).

    Generic at every ``k`` (1 and 2 included): no fixed product, sum or ratio, no reciprocal pair.
    In log scale, the range ``[-S/2, S/2]`` with ``S = log max(cond, SPREAD)`` (``[cond^-1/2,
    cond^1/2]``, and at least a decade) holds a window of width ``W = log cond`` at a uniform random
    offset (none when ``cond >= SPREAD``); the window is cut into ``k`` equal strata and one value is
    drawn log-uniformly in each (a stratified draw: values distinct, a typical gap of ``1/k`` of the
    window).  So ``cond(X) < cond`` (and ``> cond^((k-2)/k)`` for ``k >= 2``); ``cond = 1`` gives
    ``s I`` with a random ``s``.
    """
    shape = _bshape(batch)
    width = np.log(cond)
    if np.ndim(width):                        # one condition bound per batch element (shape ``batch``)
        width = np.broadcast_to(width, shape)[..., None]
    span = np.maximum(width, np.log(SPREAD))
    lo = -0.5 * span + rng.uniform(0.0, span - width, size=shape + (1,))
    t = (np.arange(k) + rng.uniform(0.0, 1.0, size=shape + (k,))) / k
    return np.exp(lo + t * width)


def invertible(rng: np.random.Generator, n: int, *, cond: float | np.ndarray = 10.0, batch: Batch = ()) -> np.ndarray:
    """Random invertible ``n x n`` matrices with 2-norm condition number below ``cond`` (a number, or one per batch
    element: shape ``batch``).

    Singular values from :func:`_log_spectrum` (distinct, generic at every ``n``: a stratified
    log-uniform draw over a window of ratio ``cond`` inside ``[a^-1/2, a^1/2]``, ``a = max(cond, 10)``);
    singular vectors Haar (so random signs of the determinant).  A plain float64 array: invertibility needs no exact structure, and every context sees
    exactly these float64 values.  Raises InvalidArgument for ``n < 1`` or ``cond < 1``.
    """
    n = check_positive_int("n", n)
    cond = _check_cond(cond)
    return _usv(rng, n, n, _log_spectrum(rng, n, cond, batch), batch)[0]


def symmetric(rng: np.random.Generator, n: int, *, batch: Batch = ()) -> np.ndarray:
    """Random symmetric ``n x n`` matrices ``(G + G^T)/2`` with Gaussian ``G`` (GOE, scale 1/sqrt 2).

    Exactly symmetric in float64 (IEEE addition is commutative and halving is exact), hence also
    after entrywise rounding to float32 and exact conversion to mpmath: a plain array.
    """
    g = gaussian(rng, n, n, batch=batch)
    return 0.5 * (g + np.swapaxes(g, -1, -2))


def antisymmetric(rng: np.random.Generator, n: int, *, batch: Batch = ()) -> np.ndarray:
    """Random antisymmetric ``n x n`` matrices ``(G - G^T)/2``, exactly antisymmetric (as :func:`symmetric`)."""
    g = gaussian(rng, n, n, batch=batch)
    return 0.5 * (g - np.swapaxes(g, -1, -2))


def complex_gaussian(rng: np.random.Generator, m: int, n: int | None = None, *, batch: Batch = ()) -> np.ndarray:
    """I.i.d. standard circularly-symmetric complex normal entries ``CN(0, 1)``: ``(x + i y) / sqrt(2)`` with
    ``x``, ``y`` independent standard normal, so ``E|z|^2 = 1`` and ``E z^2 = 0``; a ``complex128`` array of
    shape ``batch + (m, n)`` (``n = m`` by default).  Converted exactly to ``complex64`` (rounded entrywise)
    and to ``mpc`` (exact) by the contexts."""
    m = check_positive_int("m", m)
    n = m if n is None else check_positive_int("n", n)
    x = rng.standard_normal(_bshape(batch) + (m, n, 2))
    return (x[..., 0] + 1j * x[..., 1]) * np.sqrt(0.5)


def hermitian(rng: np.random.Generator, n: int, *, batch: Batch = ()) -> np.ndarray:
    """Random Hermitian ``n x n`` matrices ``(G + G^H)/2`` with ``G`` from :func:`complex_gaussian` (GUE up
    to scale).  Exactly Hermitian in ``complex128`` (the diagonal's imaginary part is ``(y - y)/2 = 0`` and
    the off-diagonal pairs are exact conjugates), hence also after rounding to ``complex64`` and exact
    conversion to ``mpc``: a plain array."""
    g = complex_gaussian(rng, n, n, batch=batch)
    return 0.5 * (g + np.conj(np.swapaxes(g, -1, -2)))


def spd(rng: np.random.Generator, n: int, *, cond: float | np.ndarray = 10.0, batch: Batch = (),
        scale: float | np.ndarray = 1.0) -> Exact:
    """Random symmetric positive-definite ``n x n`` matrices with condition number below ``cond`` (a number, or one
    per batch element: shape ``batch``).

    Eigenvalues from :func:`_log_spectrum` (as :func:`invertible`'s singular values: distinct, no
    fixed determinant or trace at any ``n``), eigenvectors Haar.  An :class:`Exact`
    array, exactly symmetric in every context: ``M = (Q diag(lam)) Q^T`` is symmetrised as
    ``(M + M^T)/2`` (exact in binary floating point), with ``Q`` Newton-Schulz polished in mp
    contexts so that the eigenvalues are ``lam`` to the context's precision.  ``scale`` (a positive number,
    or one per batch element: shape ``batch``) multiplies the eigenvalues: the condition number is kept.
    """
    n = check_positive_int("n", n)
    cond = _check_cond(cond)
    q = _haar(rng, n, n, batch)
    lam = _log_spectrum(rng, n, cond, batch) * np.asarray(scale, dtype=np.float64)[..., None]
    m = (q * lam[..., None, :]) @ np.swapaxes(q, -1, -2)
    value = 0.5 * (m + np.swapaxes(m, -1, -2))
    return _exact(_SPD, value, len(_bshape(batch)), q0=q, lam=lam)


def rank_r(rng: np.random.Generator, m: int, n: int, r: int, *, cond: float = 10.0, batch: Batch = ()) -> np.ndarray:
    """Random ``m x n`` matrices of rank exactly ``r`` (nonzero singular values with ratio below ``cond``).

    An :class:`Exact` array (see :func:`with_singular_values`): in every context the ``r``
    nonzero singular values are as drawn and the others vanish to the context's precision
    (``r = 0`` gives exact zeros, a plain array).  Raises InvalidArgument unless
    ``0 <= r <= min(m, n)``.
    """
    m, n = check_positive_int("m", m), check_positive_int("n", n)
    r = check_int("r", r, min_value=0, max_value=min(m, n))
    if r == 0:
        return np.zeros(_bshape(batch) + (m, n))
    return with_singular_values(rng, m, n, _log_spectrum(rng, r, _check_cond(cond), batch), batch=batch)


# ---------------------------------------------------------------------------------------
# Hypothesis strategies
# ---------------------------------------------------------------------------------------
def seeds():
    """Hypothesis strategy of 32-bit seeds (shrinks towards 0)."""
    from hypothesis import strategies as st

    return st.integers(min_value=0, max_value=2**32 - 1)


def strategy(sampler: Callable[..., np.ndarray], *args_strategies, **kwargs):
    """A Hypothesis strategy drawing ``sampler(default_rng(seed), *args, **kwargs)``.

    ``args_strategies`` are strategies (or plain values) for the positional size arguments.
    The values drawn are exactly what the sampler returns (:class:`Exact` arrays, with their
    recipes, for the structured families).

    >>> from hypothesis import given, strategies as st
    >>> @given(strategy(spd, st.integers(1, 4), cond=50.0))
    ... def test_spd(S):
    ...     assert np.all(np.linalg.eigvalsh(S) > 0)
    >>> test_spd()
    """
    from hypothesis import strategies as st

    parts = [s if hasattr(s, "example") else st.just(s) for s in args_strategies]
    return st.tuples(seeds(), *parts).map(lambda t: sampler(np.random.default_rng(t[0]), *t[1:], **kwargs))
