"""Working-precision contexts: the same residual code evaluated at float32, float64 and mpmath.

A statement's two sides are written once against a context ``ctx`` (``ctx.inv``, ``ctx.sqrt``,
``@``, ``+``, ...) and the engine evaluates them at several working precisions on the *same*
instance.  A true identity's residual follows the precision down (about ``eps`` of the
context times a size/conditioning factor); a false one stalls at a level set by the
mathematics.  That is the refinement rule of DESIGN.md ("Verdicts").

Arrays carry a leading batch axis: shape ``(batch, ...)``.  Matrix functions act on the last
two axes.  In the mpmath context arrays are NumPy ``object`` arrays of ``mpmath.mpf``; NumPy's
``@``, ``+``, ``*``, ``.swapaxes``, ``np.trace`` and ``np.sum`` work on them unchanged.

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

__all__ = ["Ctx", "FLOAT32", "FLOAT64", "MP50", "CONTEXTS", "to_float"]


def _vectorize(fn):
    return np.vectorize(fn, otypes=[object])


@dataclass(frozen=True)
class Ctx:
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

    def asarray(self, x) -> np.ndarray:
        """Convert ``x`` (any array-like of reals) to this context's arrays, exactly where possible."""
        if self.is_mp:
            arr = np.asarray(x)
            if arr.dtype == object:
                return _vectorize(mpmath.mpf)(arr) if arr.size else arr
            return _vectorize(mpmath.mpf)(arr.astype(np.float64)) if arr.size else arr.astype(object)
        return np.asarray(x, dtype=self.dtype)

    def scalar(self, x):
        """A scalar constant of this context (``mpf`` or NumPy scalar)."""
        return mpmath.mpf(x) if self.is_mp else self.dtype(x)

    @contextlib.contextmanager
    def active(self):
        """Context manager setting mpmath's working precision while the sides are evaluated."""
        if self.is_mp:
            with mpmath.workdps(self.dps):
                yield self
        else:
            with np.errstate(all="ignore"):
                yield self

    # -- constructors --------------------------------------------------------------------
    def eye(self, n: int) -> np.ndarray:
        """Identity of size ``n`` (broadcastable against a batch)."""
        return self.asarray(np.eye(n))

    def zeros(self, shape) -> np.ndarray:
        """Zeros of ``shape`` in this context."""
        return self.asarray(np.zeros(shape))

    # -- elementwise ---------------------------------------------------------------------
    def sqrt(self, x):
        """Elementwise square root."""
        return _vectorize(mpmath.sqrt)(x) if self.is_mp else np.sqrt(x)

    def exp(self, x):
        """Elementwise exponential."""
        return _vectorize(mpmath.exp)(x) if self.is_mp else np.exp(x)

    def log(self, x):
        """Elementwise natural logarithm."""
        return _vectorize(mpmath.log)(x) if self.is_mp else np.log(x)

    def abs(self, x):
        """Elementwise absolute value."""
        return _vectorize(abs)(x) if self.is_mp else np.abs(x)

    def power(self, x, p):
        """Elementwise ``x**p``."""
        return _vectorize(lambda v: mpmath.power(v, p))(x) if self.is_mp else np.power(x, p)

    # -- reductions ----------------------------------------------------------------------
    @staticmethod
    def T(x: np.ndarray) -> np.ndarray:
        """Transpose of the last two axes (``(..., m, n) -> (..., n, m)``)."""
        return np.swapaxes(x, -1, -2)

    def trace(self, x: np.ndarray):
        """Trace over the last two axes: ``(..., n, n) -> (...)``."""
        return np.trace(x, axis1=-2, axis2=-1)

    def sum_sq(self, x: np.ndarray, *, batch_axes: int = 1):
        """Sum of squares over every axis but the first ``batch_axes``: ``(b, ...) -> (b,)``."""
        x = np.asarray(x)
        axes = tuple(range(batch_axes, x.ndim))
        return np.sum(x * x, axis=axes) if axes else x * x

    def norm(self, x: np.ndarray, *, batch_axes: int = 1):
        """Frobenius norm over every axis but the first ``batch_axes``: ``(b, ...) -> (b,)``."""
        return self.sqrt(self.sum_sq(x, batch_axes=batch_axes))

    # -- linear algebra (last two axes, batched) -----------------------------------------
    def _batched(self, fn, *arrays):
        a0 = arrays[0]
        lead = a0.shape[:-2]
        if not lead:
            return fn(*arrays)
        outs = [fn(*(a[idx] for a in arrays)) for idx in np.ndindex(*lead)]
        out = np.empty(lead, dtype=object) if np.ndim(outs[0]) == 0 else None
        if out is not None:
            for k, idx in enumerate(np.ndindex(*lead)):
                out[idx] = outs[k]
            return out
        stacked = np.stack(outs)
        return stacked.reshape(lead + stacked.shape[1:])

    @staticmethod
    def _to_mp(a):
        return mpmath.matrix(a.tolist())

    @staticmethod
    def _from_mp(m):
        return np.array(m.tolist(), dtype=object)

    def inv(self, a: np.ndarray) -> np.ndarray:
        """Matrix inverse over the last two axes.  Singular input raises ``ZeroDivisionError``
        (mpmath) or ``numpy.linalg.LinAlgError``."""
        if not self.is_mp:
            return np.linalg.inv(a)
        return self._batched(lambda m: self._from_mp(mpmath.inverse(self._to_mp(m))), a)

    def solve(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Solve ``a x = b`` over the last two axes (``b`` a matrix)."""
        if not self.is_mp:
            return np.linalg.solve(a, b)

        def one(m, r):
            mm = self._to_mp(m)
            cols = [mpmath.lu_solve(mm, mpmath.matrix(r[:, j].tolist())) for j in range(r.shape[1])]
            return np.array([[c[i] for c in cols] for i in range(r.shape[0])], dtype=object)

        return self._batched(one, a, b)

    def det(self, a: np.ndarray):
        """Determinant over the last two axes: ``(..., n, n) -> (...)``."""
        if not self.is_mp:
            return np.linalg.det(a)
        return self._batched(lambda m: mpmath.det(self._to_mp(m)), a)

    def eigvalsh(self, a: np.ndarray) -> np.ndarray:
        """Ascending eigenvalues of symmetric matrices: ``(..., n, n) -> (..., n)``."""
        if not self.is_mp:
            return np.linalg.eigvalsh(a)

        def one(m):
            ev = mpmath.eigsy(self._to_mp(m), eigvals_only=True)
            return np.array(sorted(ev[i] for i in range(ev.rows)), dtype=object)

        return self._batched(one, a)


FLOAT32 = Ctx("float32", float(np.finfo(np.float32).eps))
"""Single precision, eps = 2**-23."""
FLOAT64 = Ctx("float64", float(np.finfo(np.float64).eps))
"""Double precision, eps = 2**-52."""
MP50 = Ctx("mp50", 1e-49, dps=50)
"""mpmath with 50 significant decimal digits."""
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
