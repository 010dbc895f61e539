"""Working-precision contexts: the same residual code evaluated at float32, float64 and mpmath.

A statement's two sides are written once against a context ``ctx`` (``ctx.inv``, ``ctx.sqrt``,
``@``, ``+``, ...) and the engine evaluates them at several working precisions on the *same*
instance.  A true identity's residual follows the precision down (about ``eps`` of the
context times a size/conditioning factor); a false one stalls at a level set by the
mathematics.  That is the refinement rule of DESIGN.md ("Verdicts").

Arrays carry a leading batch axis: shape ``(batch, ...)``.  Matrix functions act on the last
two axes.  In the mpmath context arrays are NumPy ``object`` arrays of ``mpmath.mpf``; NumPy's
``@``, ``+``, ``*``, ``.swapaxes``, ``np.trace`` and ``np.sum`` work on them unchanged.
Complex arrays are ``complex64`` at float32, ``complex128`` at float64 and object arrays of
``mpmath.mpc`` at mp50 (``ctx.asarray`` of a complex array); :meth:`Ctx.norm` is ``sqrt(sum |z|^2)``.

Besides linear algebra, a context offers elementwise functions (``sin`` ... ``softplus``), stable
reductions (``softmax``, ``logsumexp``), structure (``kron``, ``vec``/``unvec``, ``diag``, ``tril``,
``hadamard``), matrix functions (``cholesky``, ``expm``, ``logm``, ``sqrtm``, ``eigh``, ``svd``) and a
derivative oracle (``grad``, ``jacobian``, ``hessian``, ``directional``, ``sym_grad``; see
:mod:`theorem_check.numerics.derivatives`), all with the same meaning at every precision.

At mp50, ``inv``, ``solve``, ``det`` and ``expm`` run through python-flint's ball arithmetic
(``arb_mat`` / ``acb_mat``, at mpmath's working precision ``mpmath.mp.prec``) when python-flint is
importable: the inputs are converted exactly, the ball midpoints come back as ``mpf``/``mpc``
(values agree with mpmath's to ~1e-48 relative; 4-80x faster with the conversions, ``expm``
20-50x; 1x1 ``inv``, ``solve`` and ``det`` stay in mpmath; docs/design-decisions.md, item 42).
A matrix whose ball arb cannot invert (singular to working precision), a determinant ball that
contains zero, non-finite entries or a non-square system take the mpmath path, with today's values
and errors.  ``USE_ARB`` (module attribute) is the one switch; the environment variable
``THEOREM_CHECK_ARB=0`` turns it off at import.  Only these operations use balls, and only their
midpoints are kept: a residual is not a rigorous bound.

>>> import numpy as np
>>> A = np.array([[[2.0, 1.0], [1.0, 3.0]]])          # batch of one 2x2 matrix
>>> for ctx in (FLOAT32, FLOAT64, MP50):
...     X = ctx.asarray(A)
...     r = ctx.norm(X @ ctx.inv(X) - ctx.eye(2))
...     assert float(r[0]) < 10 * ctx.eps
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from theorem_check.errors import ShapeMismatch
from theorem_check.numerics.arb import ARB_ENV, USE_ARB
from theorem_check.numerics.balls import BallArray
from theorem_check.numerics.float_watch import FLOAT_LITERAL_HINT, engine_floats, watch_floats
from theorem_check.numerics.linalg import LinalgOps, is_complex, rows_x_cols

__all__ = ["Ctx", "FLOAT32", "FLOAT64", "MP50", "MP100", "MP200", "MP400", "CONTEXTS", "to_float", "USE_ARB", "ARB_ENV",
           "watch_floats", "FLOAT_LITERAL_HINT"]


_EXP_HUGE = mpmath.mpf(2) ** 100
"""Beyond this argument mpmath's exponential is not computed: ``exp(exp(x))`` at a far instance (x = 200) asks GMP for
an exponent with 1e86 digits, and GMP aborts the whole process ("gmp: overflow in mpz type")."""


def _real(v):
    return v.real if isinstance(v, mpmath.mpc) else v


def _huge(v) -> bool:
    return abs(_real(v)) > _EXP_HUGE


def _mp_exp(v):
    """``mpmath.exp(v)``, or infinity (0) for a real part beyond +-:data:`_EXP_HUGE`: no number a statement compares."""
    if _huge(v):
        return mpmath.inf if _real(v) > 0 else mpmath.mpf(0)
    return mpmath.exp(v)


def _vectorize(fn):
    return np.vectorize(fn, otypes=[object])


def _mp_scalar(v):
    """One entry as ``mpf`` (real) or ``mpc`` (complex), at the current mpmath precision."""
    if isinstance(v, mpmath.mpc):
        return mpmath.mpc(v)
    if isinstance(v, (complex, np.complexfloating)):
        return mpmath.mpc(complex(v))
    if isinstance(v, np.floating):
        return mpmath.mpf(float(v))
    if isinstance(v, np.integer):
        return mpmath.mpf(int(v))
    return mpmath.mpf(v)




def _in_balls(x, name: str):
    """The elementwise function ``name`` of a ball array in its balls (:data:`~theorem_check.numerics.balls.ENTRYWISE`),
    or None (not a ball array, no ball form, or an entry leaving the reals: the caller's mpmath path decides)."""
    return x.apply(name) if isinstance(x, BallArray) else None


def _abs2(v):
    """``|v|^2`` of one mpmath entry (real for ``mpc``)."""
    if isinstance(v, (mpmath.mpc, complex)):
        return v.real * v.real + v.imag * v.imag
    return v * v


def _npconvert_cheap_refusal(x):
    """mpmath's ``npconvert`` (NumPy scalars to ``mpf``/``mpc``), refusing a non-scalar array by its shape."""
    if isinstance(x, np.ndarray) and x.ndim:
        raise TypeError(f"cannot create mpf from an array of shape {x.shape}")
    return type(mpmath.mp).npconvert(mpmath.mp, x)


@contextlib.contextmanager
def _arrays_refused_cheaply():
    """Within the block, mpmath refuses a NumPy array operand without printing it.

    ``mpf * ndarray`` (an mp50 scalar times an array: ``2 * beta * W``) first asks mpmath to convert the
    array; mpmath 1.3's ``npconvert`` refuses with ``TypeError("cannot create mpf from " + repr(x))``, and the
    arithmetic then returns NotImplemented so that NumPy multiplies entrywise.  The ``repr`` of an object array
    of ``mpf`` formats every entry at 50 digits to build a message nobody reads: about 1 ms a product, and
    ~3,000 such products (a tenth of the CPU) in ``run --all`` (measured; issue 21).  Here the context's
    ``npconvert`` refuses a non-scalar array with a message naming its shape; values, results and every
    other conversion are mpmath's.  Scoped (the outermost block installs it and removes it on exit) so that
    mpmath outside the engine's evaluations is untouched; docs/design-decisions.md, item 183.
    """
    ctx = mpmath.mp
    outermost = "npconvert" not in vars(ctx)
    if outermost:
        ctx.npconvert = _npconvert_cheap_refusal    # an instance attribute: mpmath's convert calls ctx.npconvert(x)
    try:
        yield
    finally:
        if outermost:
            del ctx.npconvert


@dataclass(frozen=True)
class Ctx(LinalgOps):
    """A working precision.

    Attributes
    ----------
    name : str
        ``"float32"``, ``"float64"`` or ``"mp50"``.
    eps : float
        Unit round-off of the context (``np.finfo(dtype).eps``, or ``10**(1-dps)`` for mpmath).
    dps : int
        Decimal digits, for mpmath contexts (0 for NumPy floats).
    """

    name: str
    eps: float
    dps: int = 0

    # -- construction -------------------------------------------------------------------
    @property
    def is_mp(self) -> bool:
        """True for the mpmath (object-array) context."""
        return self.dps > 0

    @property
    def dtype(self):
        """The NumPy dtype of arrays in this context (``object`` for mpmath)."""
        return {"float32": np.float32, "float64": np.float64}.get(self.name, object)

    @property
    def complex_dtype(self):
        """The dtype of complex arrays: ``complex64`` (float32), ``complex128`` (float64), ``object`` (mpc)."""
        return {"float32": np.complex64, "float64": np.complex128}.get(self.name, object)

    def asarray(self, x) -> np.ndarray:
        """Convert ``x`` (an array-like of reals or complex numbers) to this context's arrays.

        Reals become ``dtype`` (``mpf`` entries at mp50), complex input (a complex ndarray, Python
        ``complex`` or ``mpc`` entries) becomes ``complex_dtype`` (``mpc`` entries at mp50).  The
        conversion is exact where the target holds the value (float64 -> mp50 always is).
        """
        if self.is_mp:
            arr = np.asarray(x)
            if not arr.size:
                return arr.astype(object)
            if arr.dtype != object:
                arr = arr.astype(np.complex128 if np.iscomplexobj(arr) else np.float64)
            with engine_floats():
                return _vectorize(_mp_scalar)(arr)
        arr = np.asarray(x)
        if arr.dtype == object:
            arr = arr.astype(np.complex128 if is_complex(arr) else np.float64)
        return np.asarray(arr, dtype=self.complex_dtype if np.iscomplexobj(arr) else self.dtype)

    def scalar(self, x):
        """A scalar constant of this context (``mpf``/``mpc`` or a NumPy real/complex scalar)."""
        if self.is_mp:
            with engine_floats():
                return _mp_scalar(x)
        if isinstance(x, (complex, np.complexfloating)):
            return self.complex_dtype(x)
        return self.dtype(x)

    @property
    def pi(self):
        """The constant pi in this context (at mp50: at the current mpmath precision)."""
        return +mpmath.mp.pi if self.is_mp else self.dtype(np.pi)

    @contextlib.contextmanager
    def active(self):
        """Context manager setting mpmath's working precision while the sides are evaluated."""
        if self.is_mp:
            with mpmath.workdps(self.dps), _arrays_refused_cheaply():
                yield self
        else:
            with np.errstate(all="ignore"):
                yield self

    # -- constructors --------------------------------------------------------------------
    def eye(self, n: int) -> np.ndarray:
        """Identity of size ``n`` (broadcastable against a batch)."""
        if self.is_mp:       # the same mpf(0) / mpf(1) entries asarray gives, without converting each
            out = self.zeros((n, n))
            out[np.arange(n), np.arange(n)] = mpmath.mpf(1)
            return out
        return self.asarray(np.eye(n))

    def ones(self, shape) -> np.ndarray:
        """Ones of ``shape`` in this context (at mp50 the same ``mpf(1)`` entries, without converting each)."""
        if self.is_mp:
            return np.full(shape, mpmath.mpf(1), dtype=object)
        return self.asarray(np.ones(shape))

    def zeros(self, shape) -> np.ndarray:
        """Zeros of ``shape`` in this context."""
        if self.is_mp:
            return np.full(shape, mpmath.mpf(0), dtype=object)
        return self.asarray(np.zeros(shape))

    # -- elementwise ---------------------------------------------------------------------
    # Each acts entrywise on any shape (real or complex); at mp50 through the mpmath function of
    # the same name, at float32/float64 through NumPy/SciPy, keeping the dtype.
    def _map(self, mp_fn, np_fn, x):
        out = _in_balls(x, np_fn.__name__)
        if out is not None:
            return out
        return _vectorize(mp_fn)(x) if self.is_mp else np_fn(x)

    def sqrt(self, x):
        """Elementwise square root (principal branch; a negative real is NaN at float, ``mpc`` at mp50)."""
        return self._map(mpmath.sqrt, np.sqrt, x)

    def exp(self, x):
        """Elementwise exponential (at mp50: infinite or 0 beyond ``|x| = 2**100``, :func:`_mp_exp`)."""
        return self._map(_mp_exp, np.exp, x)

    def log(self, x):
        """Elementwise natural logarithm (principal branch)."""
        return self._map(mpmath.log, np.log, x)

    def log1p(self, x):
        """Elementwise ``log(1 + x)``, accurate for small ``|x|``."""
        return self._map(mpmath.log1p, np.log1p, x)

    def expm1(self, x):
        """Elementwise ``exp(x) - 1``, accurate for small ``|x|``."""
        return self._map(lambda v: _mp_exp(v) - 1 if _huge(v) else mpmath.expm1(v), np.expm1, x)

    def sin(self, x):
        """Elementwise sine (radians)."""
        return self._map(mpmath.sin, np.sin, x)

    def cos(self, x):
        """Elementwise cosine (radians)."""
        return self._map(mpmath.cos, np.cos, x)

    def tan(self, x):
        """Elementwise tangent (radians)."""
        return self._map(mpmath.tan, np.tan, x)

    def tanh(self, x):
        """Elementwise hyperbolic tangent."""
        return self._map(mpmath.tanh, np.tanh, x)

    def sigmoid(self, x):
        """Elementwise logistic function ``1 / (1 + exp(-x))`` (``scipy.special.expit`` for real floats)."""
        if self.is_mp:
            out = _in_balls(x, "sigmoid")
            return out if out is not None else _vectorize(lambda v: 1 / (1 + _mp_exp(-v)))(x)
        if np.iscomplexobj(x):
            return 1 / (1 + np.exp(-x))
        from scipy.special import expit

        return expit(x)

    def softplus(self, x):
        """Elementwise ``log(1 + exp(x))``, without overflow (``logaddexp(0, x)`` for real floats)."""
        if self.is_mp:
            out = _in_balls(x, "softplus")
            return out if out is not None else _vectorize(
                lambda v: v if _huge(v) and _real(v) > 0 else mpmath.log1p(_mp_exp(v)))(x)
        if np.iscomplexobj(x):
            return np.log1p(np.exp(x))
        return np.logaddexp(0, x)

    def arctan2(self, y, x):
        """Elementwise ``atan2(y, x)`` of real arrays (the angle of ``x + iy`` in ``(-pi, pi]``; SymPy writes
        ``re(sqrt(t))`` with it)."""
        return _vectorize(mpmath.atan2)(y, x) if self.is_mp else np.arctan2(y, x)

    def abs(self, x):
        """Elementwise absolute value (the modulus ``|z|``, real, for complex entries)."""
        out = _in_balls(x, "abs")
        return out if out is not None else _vectorize(abs)(x) if self.is_mp else np.abs(x)

    def power(self, x, p):
        """Elementwise ``x**p``; ``p`` a scalar or an array broadcasting against ``x``."""
        if not self.is_mp:
            return np.power(x, p)
        if np.ndim(p) == 0:
            return _vectorize(lambda v: mpmath.power(v, p))(x)
        return _vectorize(mpmath.power)(x, p)

    def hadamard(self, a, b):
        """Hadamard (entrywise) product ``a * b`` (NumPy broadcasting)."""
        return a * b

    def hadamard_power(self, a, p):
        """Hadamard power: entrywise ``a**p`` (same as :meth:`power`)."""
        return self.power(a, p)

    # -- complex numbers -------------------------------------------------------------------
    def conj(self, x):
        """Entrywise complex conjugate (the identity on real arrays)."""
        return np.conj(x) if not self.is_mp else _vectorize(lambda v: v.conjugate())(x)

    def real(self, x):
        """Entrywise real part, a real array of this context."""
        return np.real(x) if not self.is_mp else _vectorize(lambda v: mpmath.mpf(v.real))(x)

    def imag(self, x):
        """Entrywise imaginary part, a real array of this context (zeros for real input)."""
        if not self.is_mp:
            return np.imag(x) if np.iscomplexobj(x) else np.zeros_like(x)
        return _vectorize(lambda v: mpmath.mpf(v.imag))(x)

    def H(self, x):
        """Conjugate transpose of the last two axes: ``(..., m, n) -> (..., n, m)``."""
        return self.conj(np.swapaxes(x, -1, -2))

    # -- reductions along an axis ----------------------------------------------------------
    def _shift(self, x, axis):
        """The maximum along ``axis`` (keepdims; of the real part for complex input), 0 where not finite."""
        xr = self.real(x) if is_complex(x) else x
        m = np.max(xr, axis=axis, keepdims=True)
        if self.is_mp:
            return _vectorize(lambda v: v if mpmath.isfinite(v) else mpmath.mpf(0))(m)
        return np.where(np.isfinite(m), m, 0).astype(m.dtype)

    def softmax(self, x, axis: int = -1):
        """``exp(x) / sum(exp(x))`` along ``axis`` (shifted by the maximum: no overflow in any context).

        Same shape as ``x``; entries along ``axis`` are positive and sum to 1.
        """
        if isinstance(x, BallArray):
            out = x.softmax(axis)
            if out is not None:
                return out
        e = self.exp(x - self._shift(x, axis))
        return e / np.sum(e, axis=axis, keepdims=True)

    def logsumexp(self, x, axis: int = -1):
        """``log(sum(exp(x)))`` along ``axis`` (that axis removed), shifted by the maximum (stable)."""
        m = self._shift(x, axis)
        out = self.log(np.sum(self.exp(x - m), axis=axis, keepdims=True)) + m
        return np.squeeze(out, axis=axis)

    # -- structure (last two axes; leading axes are batch) ---------------------------------
    def kron(self, a, b):
        """Batched Kronecker product of the last two axes: ``(..., m, n), (..., p, q) -> (..., m*p, n*q)``.

        Block ``(i, j)`` of the result is ``a[..., i, j] * b`` (``numpy.kron`` per batch element).
        """
        a, b = np.asarray(a), np.asarray(b)
        if a.ndim < 2 or b.ndim < 2:
            raise ShapeMismatch(f"kron needs matrices (..., m, n), got shapes {a.shape} and {b.shape}")
        m, n = a.shape[-2:]
        p, q = b.shape[-2:]
        out = a[..., :, None, :, None] * b[..., None, :, None, :]
        return out.reshape(out.shape[:-4] + (m * p, n * q))

    def vec(self, a):
        """Column-major vectorisation: ``(..., m, n) -> (..., m*n, 1)`` (columns stacked).

        ``vec(A X B) = (B^T kron A) vec(X)`` (Magnus & Neudecker; Matrix Cookbook eq. 520).
        """
        a = np.asarray(a)
        if a.ndim < 2:
            raise ShapeMismatch(f"vec needs matrices (..., m, n), got shape {a.shape}")
        m, n = a.shape[-2:]
        return np.swapaxes(a, -1, -2).reshape(a.shape[:-2] + (m * n, 1))

    def unvec(self, v, m: int, n: int):
        """Inverse of :meth:`vec`: ``(..., m*n, 1)`` (or flat ``(batch, m*n)``) ``-> (..., m, n)``.

        A 2-d array ``(b, m*n)`` is read as ``b`` flat vectors (the batch convention).

        Raises ShapeMismatch if the last axes do not hold ``m*n`` entries.
        """
        v = np.asarray(v)
        mn = m * n
        if v.ndim >= 3 and v.shape[-2:] == (mn, 1):
            lead = v.shape[:-2]
        elif v.ndim >= 1 and v.shape[-1] == mn:          # (batch, m*n): flat vectors
            lead = v.shape[:-1]
        elif v.shape == (mn, 1):
            lead = ()
        else:
            raise ShapeMismatch(f"unvec(v, m={m}, n={n}) needs v of shape (..., {m * n}, 1), got {v.shape}")
        return np.swapaxes(v.reshape(lead + (n, m)), -1, -2)

    def diag(self, v):
        """Diagonal matrices from vectors: ``(..., n) -> (..., n, n)``."""
        v = np.asarray(v)
        if v.ndim < 1:
            raise ShapeMismatch(f"diag needs vectors (..., n), got shape {v.shape}")
        n = v.shape[-1]
        out = self.zeros(v.shape + (n,)) if v.dtype == object or self.is_mp else np.zeros(v.shape + (n,), v.dtype)
        idx = np.arange(n)
        out[..., idx, idx] = v
        return out

    def diag_part(self, a):
        """The diagonal of square matrices: ``(..., n, n) -> (..., n)``."""
        a = np.asarray(a)
        if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
            raise ShapeMismatch(f"diag needs a square matrix or a vector, got a {rows_x_cols(a)} matrix")
        return np.diagonal(a, axis1=-2, axis2=-1).copy()

    def _tri(self, a, k: int, lower: bool):
        a = np.asarray(a)
        if a.ndim < 2:
            raise ShapeMismatch(f"{'tril' if lower else 'triu'} needs matrices (..., m, n), got shape {a.shape}")
        m, n = a.shape[-2:]
        mask = np.tri(m, n, k, dtype=bool) if lower else ~np.tri(m, n, k - 1, dtype=bool)
        zero = mpmath.mpf(0) if a.dtype == object else a.dtype.type(0)
        out = np.where(mask, a, zero)
        return out.astype(object) if a.dtype == object else out

    def tril(self, a, k: int = 0):
        """Lower triangle of the last two axes: entries ``(i, j)`` with ``j - i <= k`` kept, others 0."""
        return self._tri(a, k, True)

    def triu(self, a, k: int = 0):
        """Upper triangle of the last two axes: entries ``(i, j)`` with ``j - i >= k`` kept, others 0."""
        return self._tri(a, k, False)

    # -- reductions ----------------------------------------------------------------------
    @staticmethod
    def T(x: np.ndarray) -> np.ndarray:
        """Transpose of the last two axes (``(..., m, n) -> (..., n, m)``)."""
        return np.swapaxes(x, -1, -2)

    def trace(self, x: np.ndarray):
        """Trace over the last two axes: ``(..., n, n) -> (...)`` (a ball array's in its balls)."""
        if isinstance(x, BallArray):
            return x.trace()
        return np.trace(x, axis1=-2, axis2=-1)

    def trace_product(self, a, b):
        """``tr(a @ b)`` over the last two axes without the product: ``sum_ij a_ij b_ji`` (``n^2`` work, not
        ``n^3``); ``a`` ``(..., m, n)``, ``b`` ``(..., n, m)``.  Ball arrays stay in their balls."""
        if isinstance(a, BallArray):
            out = a.trace_product(b)
            if out is not None:
                return out
        if isinstance(b, BallArray):
            out = b.trace_product(a)
            if out is not None:
                return out
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype != object and b.dtype != object:
            return np.einsum("...ij,...ji->...", a, b)
        return np.sum(a * np.swapaxes(b, -1, -2), axis=(-2, -1))

    def sum_sq(self, x: np.ndarray, *, batch_axes: int = 1):
        """Sum of squared moduli ``sum |x|^2`` over every axis but the first ``batch_axes``: ``(b, ...) -> (b,)``.

        Real for complex input (``|z|^2 = re^2 + im^2``, not ``z*z``), in every context.
        """
        x = np.asarray(x)
        if x.dtype == object:
            sq = _vectorize(_abs2)(x) if x.size else x
        elif np.iscomplexobj(x):
            sq = x.real * x.real + x.imag * x.imag
        else:
            sq = x * x
        axes = tuple(range(batch_axes, x.ndim))
        return np.sum(sq, axis=axes) if axes else sq

    def norm(self, x: np.ndarray, *, batch_axes: int = 1):
        """Frobenius norm ``sqrt(sum |x|^2)`` over every axis but the first ``batch_axes``: ``(b, ...) -> (b,)``."""
        return self.sqrt(self.sum_sq(x, batch_axes=batch_axes))

    # -- derivative oracle (theorem_check.numerics.derivatives) -------------------------------------
    def grad(self, f, X, *, jvp=None):
        """Gradient ``G_ij = df/dX_ij`` of a batched scalar ``f: (batch, *shape) -> (batch,)``; same shape
        as ``X`` (``jvp``: ``f``'s directional derivative by forward mode, optional).
        See :func:`theorem_check.numerics.derivatives.grad`."""
        from theorem_check.numerics import derivatives

        return derivatives.grad(self, f, X, jvp=jvp)

    def jacobian(self, F, x, *, order: str = "C", jvp=None):
        """Jacobian ``J_ij = dF_i/dx_j``, shape ``(batch, prod(out), prod(in))`` (``jvp`` as for :meth:`grad`).
        See :func:`theorem_check.numerics.derivatives.jacobian`."""
        from theorem_check.numerics import derivatives

        return derivatives.jacobian(self, F, x, order=order, jvp=jvp)

    def hessian(self, f, x, *, order: str = "C"):
        """Hessian ``H_ij = d^2 f / dx_i dx_j`` of a batched scalar ``f``, shape ``(batch, prod(in), prod(in))``.
        See :func:`theorem_check.numerics.derivatives.hessian`."""
        from theorem_check.numerics import derivatives

        return derivatives.hessian(self, f, x, order=order)

    def directional(self, F, X, V):
        """Directional derivative ``d/dt F(X + t V)`` at ``t = 0``, shape of ``F``'s output.
        See :func:`theorem_check.numerics.derivatives.directional`."""
        from theorem_check.numerics import derivatives

        return derivatives.directional(self, F, X, V)

    def wirtinger_grad(self, f, Z, *, factor: float = 0.5):
        """Conjugate Wirtinger derivative ``factor * (df/dx + i df/dy)`` of ``f`` at complex ``Z`` (``factor = 1/2``:
        ``df/d conj(Z)``, arXiv:0906.4835).  See :func:`theorem_check.numerics.derivatives.wirtinger_grad`."""
        from theorem_check.numerics import derivatives

        return derivatives.wirtinger_grad(self, f, Z, factor=factor)

    def sym_grad(self, f, X, *, jvp=None):
        """Gradient of ``f`` on the symmetric matrices at symmetric ``X`` (``(G + G^T)/2``, arXiv:1911.06491;
        ``jvp`` as for :meth:`grad`).  See :func:`theorem_check.numerics.derivatives.sym_grad`."""
        from theorem_check.numerics import derivatives

        return derivatives.sym_grad(self, f, X, jvp=jvp)


FLOAT32 = Ctx("float32", float(np.finfo(np.float32).eps))
"""Single precision, eps = 2**-23."""
FLOAT64 = Ctx("float64", float(np.finfo(np.float64).eps))
"""Double precision, eps = 2**-52."""
MP50 = Ctx("mp50", 1e-49, dps=50)
"""mpmath with 50 significant decimal digits."""
MP100 = Ctx("mp100", 1e-99, dps=100)
"""mpmath with 100 digits: not a statement's context, the engine's one extra level for an instance the
float64 -> mp50 pair leaves grey (design decision 120)."""
MP200 = Ctx("mp200", 1e-199, dps=200)
"""mpmath with 200 digits: mp100's partner where the engine looks for a gap below mp50's floor (decision 208)."""
MP400 = Ctx("mp400", 1e-399, dps=400)
"""mpmath with 400 digits: the engine's last look at a far instance undefined at mp50 and mp100, to tell a
cancellation (``1 - tanh(200)``, 1e-174) from a point where the statement is not defined (design decision 198)."""
CONTEXTS = {c.name: c for c in (FLOAT32, FLOAT64, MP50)}
"""All contexts by name."""


def to_float(x: Any) -> np.ndarray:
    """Convert a context array (float32/float64/object-of-mpf) to float64 for reporting."""
    arr = np.asarray(x)
    if arr.dtype == object:
        return np.vectorize(_real_float, otypes=[np.float64])(arr) if arr.size else arr.astype(np.float64)
    if np.iscomplexobj(arr):
        return np.where(arr.imag == 0, arr.real, np.nan).astype(np.float64)
    return arr.astype(np.float64)


def _real_float(v) -> float:
    """``float(v)``; a complex value (``mpc``, e.g. ``log`` of a negative number) is NaN unless real."""
    if isinstance(v, (mpmath.mpc, complex)):
        return float(v.real) if v.imag == 0 else float("nan")
    return float(v)


