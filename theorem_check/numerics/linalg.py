"""Batched linear algebra and matrix functions of a precision context (a mixin of :class:`~theorem_check.numerics.precision.Ctx`).

Every operation acts on the last two axes of a batch; at float32/float64 it is NumPy/SciPy, at mp50 mpmath
(or python-flint's arb balls, :mod:`theorem_check.numerics.arb`), one code path per operation.
"""

from __future__ import annotations

import mpmath
import numpy as np

from theorem_check.errors import ShapeMismatch
from theorem_check.numerics.arb import arb_det, arb_eigvalsh, arb_expm, arb_inv, arb_solve
from theorem_check.numerics.balls import BallArray
from theorem_check.numerics.float_watch import engine_floats

__all__ = ["LinalgOps", "SINGULAR_EXPONENT", "is_complex", "rows_x_cols"]


def is_complex(x) -> bool:
    """True for a complex NumPy array or an object array holding at least one ``mpc``."""
    arr = np.asarray(x)
    if arr.dtype == object:
        return any(isinstance(v, (mpmath.mpc, complex)) for v in arr.flat)
    return np.iscomplexobj(arr)


SINGULAR_EXPONENT = 0.75
"""At a multiple-precision context a matrix is singular to working precision when its condition number
``|A|_F |A^-1|_F`` is at least ``eps**-SINGULAR_EXPONENT`` (mp50: 1e37): a matrix singular in exact arithmetic
reaches ~``1/eps`` after rounding (``I - u u^T / u^T u``: 1e50 at mp50), a sampled invertible one stays below
~1e6.  Design decision 188."""


def rows_x_cols(a: np.ndarray) -> str:
    """``"3 x 2"``: the matrix shape of a batch of matrices (its last two axes), for a one-line error message (the
    batch axis is the engine's, not the statement's)."""
    return " x ".join(map(str, a.shape[-2:])) if a.ndim >= 2 else f"shape {a.shape}"


def _frobenius(a: np.ndarray) -> float:
    """Frobenius norm of one object (mpf/mpc) matrix, in float64 (inf where an entry overflows it)."""
    return float(np.linalg.norm(np.asarray(a).astype(complex)))


def _refuse_singular(what: str, a: np.ndarray, x: np.ndarray, rhs: np.ndarray | None, eps: float) -> None:
    """Raise ``ZeroDivisionError`` when ``a`` (one matrix) is singular to working precision, judged from the computed
    ``x = a^-1`` (``rhs`` None) or ``x = a^-1 rhs``: ``|a| |x| / |rhs|`` is a lower bound on the condition number."""
    bound = _frobenius(a) * _frobenius(x) / (1.0 if rhs is None else _frobenius(rhs))
    if bound >= eps ** -SINGULAR_EXPONENT:     # nan (a zero right-hand side) and finite small values pass
        raise ZeroDivisionError(f"{what} of a matrix singular to working precision (condition >= {bound:.1e})")


class LinalgOps:
    """Linear algebra over the last two axes, batched; mixed into :class:`~theorem_check.numerics.precision.Ctx`
    (which provides ``is_mp``, ``dtype``, ``eye``, ``asarray``)."""

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
        (mpmath) or ``numpy.linalg.LinAlgError``; at mp50 so does a matrix singular to working precision
        (condition at least ``eps**-SINGULAR_EXPONENT``, 1e37, though rounding made it invertible).

        At mp50: ``arb_mat.inv`` / ``acb_mat.inv`` midpoints when :data:`USE_ARB`; a matrix that arb
        cannot invert at working precision goes to ``mpmath.inverse`` (its value or its error).
        """
        if not self.is_mp:
            return np.linalg.inv(a)
        out = a.inv() if isinstance(a, BallArray) else None   # a ball array inverts in its balls
        if out is not None:
            return out

        def one(m):
            out = arb_inv(m)
            out = out if out is not None else self._from_mp(mpmath.inverse(self._to_mp(m)))
            _refuse_singular("inverse", m, out, None, self.eps)
            return out

        return self._batched(one, a)

    def solve(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Solve ``a x = b`` over the last two axes (``b`` a matrix).

        At mp50: ``arb_mat.solve`` / ``acb_mat.solve`` midpoints when :data:`USE_ARB` and ``a`` is
        square, else (or when arb finds ``a`` singular at working precision) ``mpmath.lu_solve``; raises
        ``ZeroDivisionError`` where ``|a| |x| / |b|`` (a lower bound on the condition number) is at least
        ``eps**-SINGULAR_EXPONENT`` (singular to working precision, as :meth:`inv`).
        """
        if not self.is_mp:
            return np.linalg.solve(a, b)

        def one(m, r):
            out = arb_solve(m, r)
            if out is None:
                mm = self._to_mp(m)
                cols = [mpmath.lu_solve(mm, mpmath.matrix(r[:, j].tolist())) for j in range(r.shape[1])]
                out = np.array([[c[i] for c in cols] for i in range(r.shape[0])], dtype=object)
            _refuse_singular("solve", m, out, r, self.eps)
            return out

        return self._batched(one, a, b)

    def det(self, a: np.ndarray):
        """Determinant over the last two axes: ``(..., n, n) -> (...)``.

        At mp50: the midpoint of ``arb_mat.det`` / ``acb_mat.det`` when :data:`USE_ARB` and the ball
        excludes zero, else ``mpmath.det``.
        """
        if not self.is_mp:
            return np.linalg.det(a)
        out = a.det() if isinstance(a, BallArray) else None
        if out is not None:
            return out

        def one(m):
            out = arb_det(m)
            return out if out is not None else mpmath.det(self._to_mp(m))

        return self._batched(one, a)

    def logdet(self, a: np.ndarray):
        """``log(det(a))`` over the last two axes, ``(..., n, n) -> (...)``, without overflow at float precision.

        At float32/float64 from NumPy's ``slogdet``: where the determinant is a positive real number the
        result is ``log|det a|``, finite even where ``det a`` itself overflows (a ``256 x 256`` matrix with
        entries of scale 16: ``det`` is beyond 1e308, its logarithm about 1e3); elsewhere (a negative, zero
        or complex determinant) it is ``log(det(a))`` as :meth:`det` and :meth:`log` give it (NaN, ``-inf``,
        the principal branch).  At mp50 ``log(det(a))`` (mpmath's exponents do not overflow).
        """
        if self.is_mp:
            return self.log(self.det(a))
        sign, logabs = np.linalg.slogdet(a)
        positive = np.isreal(sign) & (np.real(sign) > 0)
        if np.all(positive):
            return np.real(logabs).astype(a.dtype, copy=False) if np.isrealobj(a) else logabs + 0j
        return np.where(positive, logabs, self.log(self.det(a)))

    def eigvalsh(self, a: np.ndarray) -> np.ndarray:
        """Ascending eigenvalues of symmetric matrices: ``(..., n, n) -> (..., n)``.

        At mp50: python-flint's approximate QR eigenvalues when :data:`USE_ARB` (validated, see
        :func:`~theorem_check.numerics.arb.arb_eigvalsh`), else ``mpmath.eigsy``.
        """
        if not self.is_mp:
            return np.linalg.eigvalsh(a)

        def one(m):
            out = arb_eigvalsh(m)
            if out is not None:
                return out
            ev = mpmath.eigsy(self._to_mp(m), eigvals_only=True)
            return np.array(sorted(ev[i] for i in range(ev.rows)), dtype=object)

        return self._batched(one, a)

    def _batched_tuple(self, fn, a: np.ndarray, k: int):
        """``fn(matrix) -> k arrays`` applied per batch element, each stacked back to ``lead + shape``."""
        lead = a.shape[:-2]
        if not lead:
            return tuple(fn(a))
        outs = [fn(a[idx]) for idx in np.ndindex(*lead)]
        return tuple(np.stack([o[i] for o in outs]).reshape(lead + np.shape(outs[0][i])) for i in range(k))

    @staticmethod
    def _square(a, what: str):
        a = np.asarray(a)
        if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
            raise ShapeMismatch(f"{what} needs a square matrix, got a {rows_x_cols(a)} matrix")
        return a

    def _float_loop(self, fn, a):
        """A SciPy matrix function applied per matrix, cast back to this context's real or complex dtype."""
        lead = a.shape[:-2]
        outs = [np.asarray(fn(a[idx])) for idx in np.ndindex(*lead)] if lead else [np.asarray(fn(a))]
        cplx = any(np.iscomplexobj(o) and np.any(o.imag != 0) for o in outs) or np.iscomplexobj(a)
        dt = self.complex_dtype if cplx else self.dtype
        outs = [o.astype(dt) if cplx else np.real(o).astype(dt) for o in outs]
        return np.stack(outs).reshape(a.shape) if lead else outs[0]

    def cholesky(self, a: np.ndarray) -> np.ndarray:
        """Lower-triangular Cholesky factor ``L`` with ``L L^H = A`` of SPD (Hermitian PD) matrices.

        ``(..., n, n) -> (..., n, n)``.  A matrix that is not positive definite raises
        ``numpy.linalg.LinAlgError`` (float) or ``ValueError`` (mpmath).
        """
        a = self._square(a, "cholesky")
        if not self.is_mp:
            return np.linalg.cholesky(a)
        a = self._hermitian_from_lower(a)
        return self._batched(lambda m: self._from_mp(mpmath.cholesky(self._to_mp(m))), a)

    def _hermitian_from_lower(self, a):
        """The Hermitian matrix whose lower triangle is that of ``a`` (NumPy's ``UPLO='L'`` reading)."""
        return self.tril(a) + self.H(self.tril(a, -1))

    def expm(self, a: np.ndarray) -> np.ndarray:
        """Matrix exponential ``sum_k A^k / k!`` of square matrices, ``(..., n, n) -> (..., n, n)``
        (``scipy.linalg.expm``; at mp50 ``arb_mat.exp`` / ``acb_mat.exp`` midpoints when :data:`USE_ARB`,
        else ``mpmath.expm``)."""
        a = self._square(a, "expm")
        if not self.is_mp:
            from scipy.linalg import expm  # batched over leading axes since SciPy 1.9

            return expm(a).astype(self.complex_dtype if np.iscomplexobj(a) else self.dtype)

        def one(m):
            out = arb_expm(m)
            return out if out is not None else self._from_mp(mpmath.expm(self._to_mp(m)))

        return self._batched(one, a)

    def logm(self, a: np.ndarray) -> np.ndarray:
        """Principal matrix logarithm (``expm(logm(A)) = A``; eigenvalues of the log in the strip
        ``|Im| < pi``), ``(..., n, n) -> (..., n, n)``.

        Real for matrices with no eigenvalue on the closed negative real axis (e.g. SPD), complex
        otherwise (``scipy.linalg.logm``; at mp50 see :func:`_mp_matfun`: an eigendecomposition for
        symmetric/Hermitian input, else ``mpmath.logm`` with an eigendecomposition fallback).  Singular
        input raises (``ZeroDivisionError`` at mp50) or is inf.
        """
        a = self._square(a, "logm")
        if not self.is_mp:
            import warnings

            from scipy.linalg import logm

            def one(m):
                if not np.all(np.isfinite(m)):   # scipy's logm([[inf]]) never returns (helper-38: expm overflowed)
                    return np.full(m.shape, np.nan)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return logm(m)

            return self._float_loop(one, a)
        return self._batched(lambda m: self._from_mp(_mp_matfun(m, "logm")), a)

    def sqrtm(self, a: np.ndarray) -> np.ndarray:
        """Principal matrix square root ``S`` with ``S @ S = A`` (eigenvalues with positive real part),
        ``(..., n, n) -> (..., n, n)``: symmetric positive definite for SPD input
        (``scipy.linalg.sqrtm``; at mp50 see :func:`_mp_matfun`: an eigendecomposition for
        symmetric/Hermitian input, so singular PSD matrices converge, else ``mpmath.sqrtm``'s
        Denman-Beavers iteration with an eigendecomposition fallback)."""
        a = self._square(a, "sqrtm")
        if not self.is_mp:
            import warnings

            from scipy.linalg import sqrtm

            def one(m):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    return sqrtm(m)

            return self._float_loop(one, a)
        return self._batched(lambda m: self._from_mp(_mp_matfun(m, "sqrtm")), a)

    def eigh(self, a: np.ndarray):
        """Eigen-decomposition of symmetric (Hermitian) matrices: ``(w, V)`` with ``A = V diag(w) V^H``.

        ``w`` of shape ``(..., n)``, ascending; ``V`` of shape ``(..., n, n)``, orthonormal
        eigenvectors as columns (each determined up to sign/phase).  Only the lower triangle of ``A``
        is read (as NumPy does).  ``numpy.linalg.eigh``;
        ``mpmath.eigsy`` (real) / ``mpmath.eighe`` (complex) at mp50.
        """
        a = self._square(a, "eigh")
        if not self.is_mp:
            return np.linalg.eigh(a)
        cplx = is_complex(a)
        a = self._hermitian_from_lower(a)

        def one(m):
            ev, q = (mpmath.eighe if cplx else mpmath.eigsy)(self._to_mp(m))
            w = [ev[i] for i in range(ev.rows)]
            order = sorted(range(len(w)), key=lambda i: w[i])
            qa = self._from_mp(q)
            return np.array([w[i] for i in order], dtype=object), qa[:, order]

        return self._batched_tuple(one, a, 2)

    def svd(self, a: np.ndarray):
        """Reduced singular value decomposition ``(U, s, Vt)`` with ``A = U diag(s) Vt``.

        For ``A`` of shape ``(..., m, n)`` and ``k = min(m, n)``: ``U (..., m, k)``, ``s (..., k)``
        descending and nonnegative, ``Vt (..., k, n)`` (singular vectors up to sign/phase).
        ``numpy.linalg.svd(full_matrices=False)``; ``mpmath.svd_r`` / ``svd_c`` at mp50.
        """
        a = np.asarray(a)
        if a.ndim < 2:
            raise ShapeMismatch(f"svd needs matrices (..., m, n), got shape {a.shape}")
        if not self.is_mp:
            return np.linalg.svd(a, full_matrices=False)
        cplx = is_complex(a)

        def one(m):
            u, s, vt = (mpmath.svd_c if cplx else mpmath.svd_r)(self._to_mp(m), full_matrices=False,
                                                               compute_uv=True)
            sv = [s[i] for i in range(s.rows)]
            order = sorted(range(len(sv)), key=lambda i: -sv[i])
            return (self._from_mp(u)[:, order], np.array([sv[i] for i in order], dtype=object),
                    self._from_mp(vt)[order, :])

        return self._batched_tuple(one, a, 3)


def _mp_scalar_fn(name: str):
    """The principal scalar function (``mpmath.sqrt`` / ``mpmath.log``: complex on the negative axis)."""
    if name == "sqrtm":
        return mpmath.sqrt

    def log(w):
        if w == 0:
            raise ZeroDivisionError("logm of a singular matrix (an eigenvalue is 0 to working precision)")
        return mpmath.log(w)
    return log


def _mp_matfun(m: np.ndarray, name: str):
    """``sqrtm`` or ``logm`` (principal) of one square matrix at mpmath's working precision, as an
    ``mpmath.matrix``.  Which route:

    1. **Symmetric (Hermitian) input**, tested entrywise exactly: the eigendecomposition
       ``A = Q diag(w) Q^H`` (``mpmath.eigsy`` / ``eighe``, 10 extra digits), ``f(A) = Q diag(f(w)) Q^H``.
       Eigenvalues within ``n * eps * max|w|`` of 0 are 0 (a PSD matrix rounded in the last digit, e.g.
       ``x x^T``): ``sqrtm`` of a singular PSD matrix converges (mpmath's Denman-Beavers iteration
       converges only linearly there and raised NoConvergence); ``logm`` of it raises
       ``ZeroDivisionError`` (undefined) instead of looping.  A negative eigenvalue gives the principal
       complex value (``sqrt(w) = i sqrt(|w|)``, ``log(w) = log|w| + i pi``).
    2. **Otherwise** ``mpmath.sqrtm`` / ``mpmath.logm`` (Denman-Beavers; inverse scaling and squaring),
       after refusing an exactly singular matrix for ``logm`` (``ZeroDivisionError``: mpmath's loop of
       square roots of a singular matrix never ends).  If it raises ``NoConvergence``, the
       eigendecomposition ``A = V diag(w) V^{-1}`` (``mpmath.eig``) at twice the working digits, so that
       an ill-conditioned ``V`` costs digits of the extra precision only; a defective matrix (``V``
       singular) re-raises ``NoConvergence``.
    """
    A = mpmath.matrix(m.tolist())
    n = A.rows
    f = _mp_scalar_fn(name)
    prec_dps = mpmath.mp.dps
    hermitian = all(A[i, j] == mpmath.conj(A[j, i]) for i in range(n) for j in range(i, n))
    if hermitian and all(mpmath.isfinite(A[i, j]) for i in range(n) for j in range(n)):
        cplx = any(isinstance(A[i, j], mpmath.mpc) and A[i, j].imag != 0 for i in range(n) for j in range(n))
        if not cplx:
            A = A.apply(mpmath.re)
        with mpmath.workdps(prec_dps + 10):
            w, Q = (mpmath.eighe if cplx else mpmath.eigsy)(A)
            ws = [w[i] for i in range(n)]
            tiny = n * mpmath.mpf(10) ** (-prec_dps) * max([abs(v) for v in ws] + [mpmath.mpf(0)])
            fw = [f(mpmath.mpf(0) if abs(v) <= tiny else v) for v in ws]
            B = Q * mpmath.diag(fw) * Q.transpose_conj()
        return B.apply(lambda v: +v)
    if name == "logm" and mpmath.det(A) == 0:
        raise ZeroDivisionError("logm of a singular matrix")
    try:
        with engine_floats():   # mpmath's own float constants (``mag1 < mag2 * 0.001``) are no claim code
            return getattr(mpmath, name)(A)
    except mpmath.libmp.NoConvergence:
        with mpmath.workdps(2 * prec_dps):
            w, V = mpmath.eig(A)
            try:
                Vi = mpmath.inverse(V)
            except ZeroDivisionError:
                raise mpmath.libmp.NoConvergence(f"{name}: Denman-Beavers did not converge and the matrix is not "
                                           "diagonalisable to working precision") from None
            ws = [w[i].real if isinstance(w[i], mpmath.mpc) and w[i].imag == 0 else w[i] for i in range(n)]
            B = V * mpmath.diag([f(v) for v in ws]) * Vi
        real = all(not isinstance(A[i, j], mpmath.mpc) or A[i, j].imag == 0 for i in range(n) for j in range(n))
        if real and not any(not isinstance(v, mpmath.mpc) and v < 0 for v in ws):
            B = B.apply(mpmath.re)   # a real matrix off the negative axis: the principal value is real
        return B.apply(lambda v: +v)
