"""Batched matrices held in python-flint ``arb_mat`` balls for the mp50 stage at large sizes.

At mp50 a matrix is an object array of ``mpf``: a product of two ``256 x 256`` matrices is 16.7 million
Python-level ``mpf`` multiplications (about 80 s), while ``arb_mat`` multiplies them in C in ~0.2 s.
A :class:`BallArray` is a batch of ``arb_mat`` (shape ``(batch, rows, cols)``) that an expression side
evaluates through unchanged: ``@``, ``+``, ``-`` (same shapes), a product or quotient by a scalar per batch
element, ``swapaxes(-1, -2)`` (:meth:`Ctx.T`) and the trace stay in balls; anything else (an elementwise
function, indexing, a NumPy function) converts it to the object array of its midpoints first
(``__array__``), so every operation keeps its meaning, the rare ones at the old speed.

Balls are computed at mpmath's working precision (``mpmath.mp.prec`` bits, read at each operation: the
derivative oracle's ``dps + 40`` digits included) and only their midpoints are kept when a value leaves
(a residual is not a rigorous bound; the midpoint of a ball product is the exactly rounded sum to within
the ball's radius, i.e. the working precision; docs/design-decisions.md, items 42 and 94).  Inputs are
converted exactly (float64 and ``mpf`` entries are dyadic).  Only the engine creates them
(:func:`balls_of`, for expression sides at mp50 whose matrices have at least :data:`BALL_MIN` entries);
claim code (callable sides) never sees one.
"""

from __future__ import annotations

import contextlib
import contextvars

import mpmath
import numpy as np

from theorem_check.numerics.arb import USE_ARB

try:
    import flint
except ImportError:  # no balls: the object-array path
    flint = None

__all__ = ["BallArray", "BALL_MIN", "ENTRYWISE", "balls_of", "product_operand", "from_float", "dot_directions", "polish", "spd_product",
           "usv_product", "midpoints", "kept", "keeping"]

_KEEP = contextvars.ContextVar("theorem_check_keep_balls", default=False)


@contextlib.contextmanager
def keeping():
    """Within the block, an expression side's value that is a :class:`BallArray` is returned as one
    (:func:`kept`), not as the object array of its midpoints.  The projection of a derivative identity's
    other side uses it (engine/projection.py): ``<E, U_i>`` is one ball product, and the 65,536 entries of a
    ``256 x 256`` side are not converted to ``mpf`` and back (about 0.4 s an instance)."""
    token = _KEEP.set(True)
    try:
        yield
    finally:
        _KEEP.reset(token)


def kept() -> bool:
    """True inside :func:`keeping`."""
    return _KEEP.get()

BALL_MIN = 256
"""Smallest number of entries (e.g. ``16 x 16``) of a matrix held in balls at mp50: below it, the
conversions cost more than the Python products they save."""


def _prec():
    flint.ctx.prec = mpmath.mp.prec


def _mpf(x):
    return mpmath.mp.make_mpf(x.mid()._mpf_)


def _scalar_ball(s):
    """``s`` (int, float, ``mpf``, 0-d array) as an ``arb``, or None when it is not a real number."""
    if isinstance(s, np.ndarray):
        if s.size != 1:
            return None
        s = s.reshape(-1)[0]
    if isinstance(s, (bool, np.bool_)):
        return None
    if isinstance(s, (int, np.integer)):
        return flint.arb(int(s))
    if isinstance(s, (float, np.floating)):
        return flint.arb(float(s))
    if isinstance(s, mpmath.mpf):
        return flint.arb(s)
    return None


class BallArray:
    """A batch of real matrices as ``arb_mat`` balls, shape ``(batch, rows, cols)``; see the module docstring.

    Construct with :func:`balls_of` or :func:`from_float`.  ``np.asarray(b)`` gives the object array of
    ``mpf`` midpoints (at the current mpmath precision).
    """

    __array_ufunc__ = None      # NumPy defers to the reflected operators below
    dtype = np.dtype(object)

    def __init__(self, mats):
        self.mats = list(mats)
        self.shape = (len(self.mats), self.mats[0].nrows(), self.mats[0].ncols())
        self._mid = None         # the midpoints, computed once (a BallArray is never changed in place)
        self._inv = None         # (precision, inverse or None), computed once at a precision

    ndim = 3

    @property
    def size(self) -> int:
        """Number of entries (batch included)."""
        return self.shape[0] * self.shape[1] * self.shape[2]

    def __len__(self):
        return self.shape[0]

    def __array__(self, dtype=None, copy=None):
        if self._mid is None or self._mid[0] != mpmath.mp.prec:
            _prec()
            vals = [_mpf(x) for m in self.mats for x in m.entries()]
            out = np.empty(len(vals), dtype=object)
            out[:] = vals
            self._mid = (mpmath.mp.prec, out.reshape(self.shape))
        out = self._mid[1].copy()        # a fresh array of the same (immutable) mpf objects
        return out if dtype in (None, object) else out.astype(dtype)

    def __repr__(self):
        return f"BallArray(shape={self.shape}, prec={flint.ctx.prec})"

    def abs_max(self) -> np.ndarray:
        """The largest ``|entry|`` of each batch element (float64, for step sizes)."""
        return np.array([max((abs(float(x)) for x in m.entries()), default=0.0) for m in self.mats])

    # -- helpers --------------------------------------------------------------------------
    def _other(self, o):
        """``o`` as a list of ``arb_mat`` of this shape, or None (not a matrix of the same shape)."""
        if isinstance(o, BallArray):
            if o.shape[1:] != self.shape[1:] or o.shape[0] not in (1, self.shape[0]):
                return None
            return o.mats if o.shape[0] == self.shape[0] else o.mats * self.shape[0]
        a = np.asarray(o)
        if a.ndim == 3 and a.shape[1:] == self.shape[1:] and a.shape[0] in (1, self.shape[0]) \
                and a.dtype.kind in "fiO" and (a.dtype != object or _all_real(a)):
            b = balls_of(a, force=True)
            if not isinstance(b, BallArray):   # a non-finite entry: balls_of gives the array back
                return None
            return b.mats if b.shape[0] == self.shape[0] else b.mats * self.shape[0]
        return None

    def _scalars(self, s):
        """``s`` as one ``arb`` per batch element (a number, or an array of shape ``(batch,)`` /
        ``(batch, 1, 1)`` / ``(1, 1, 1)``), or None."""
        if not isinstance(s, (np.ndarray, BallArray)):
            one = _scalar_ball(s)
            return None if one is None else [one] * self.shape[0]
        if isinstance(s, BallArray):
            return None
        a = np.asarray(s)
        if a.size == 1:
            one = _scalar_ball(a)
            return None if one is None else [one] * self.shape[0]
        if a.shape in ((self.shape[0],), (self.shape[0], 1, 1)):
            out = [_scalar_ball(v) for v in a.reshape(-1)]
            return None if any(v is None for v in out) else out
        return None

    def _fallback(self):
        return np.asarray(self)

    # -- arithmetic -----------------------------------------------------------------------
    def __matmul__(self, o):
        if isinstance(o, BallArray) or (isinstance(o, np.ndarray) and o.ndim in (2, 3)):
            ob = o if isinstance(o, BallArray) else balls_of(_batched(o), force=True)
            if isinstance(ob, BallArray) and ob.shape[1] == self.shape[2] and ob.shape[0] in (1, self.shape[0]):
                _prec()
                om = ob.mats if ob.shape[0] == self.shape[0] else ob.mats * self.shape[0]
                return BallArray([a * b for a, b in zip(self.mats, om)])
        return self._fallback() @ np.asarray(o)

    def __rmatmul__(self, o):
        ob = balls_of(_batched(o), force=True) if isinstance(o, np.ndarray) and o.ndim in (2, 3) else None
        if isinstance(ob, BallArray) and ob.shape[2] == self.shape[1] and ob.shape[0] in (1, self.shape[0]):
            _prec()
            om = ob.mats if ob.shape[0] == self.shape[0] else ob.mats * self.shape[0]
            return BallArray([b * a for a, b in zip(self.mats, om)])
        return np.asarray(o) @ self._fallback()

    def __add__(self, o):
        om = self._other(o)
        if om is None:
            return self._fallback() + o
        _prec()
        return BallArray([a + b for a, b in zip(self.mats, om)])

    def __radd__(self, o):
        return self.__add__(o)

    def __sub__(self, o):
        om = self._other(o)
        if om is None:
            return self._fallback() - o
        _prec()
        return BallArray([a - b for a, b in zip(self.mats, om)])

    def __rsub__(self, o):
        om = self._other(o)
        if om is None:
            return o - self._fallback()
        _prec()
        return BallArray([b - a for a, b in zip(self.mats, om)])

    def __neg__(self):
        return BallArray([-a for a in self.mats])

    def __mul__(self, o):
        s = self._scalars(o)
        if s is None:
            h = self.hadamard(o)
            if h is not None:
                return h
            return self._fallback() * (np.asarray(o) if isinstance(o, BallArray) else o)
        _prec()
        return BallArray([a * c for a, c in zip(self.mats, s)])

    def __rmul__(self, o):
        return self.__mul__(o)

    def __truediv__(self, o):
        s = self._scalars(o)
        if s is None:
            return self._fallback() / (np.asarray(o) if isinstance(o, BallArray) else o)
        _prec()
        return BallArray([a * (1 / c) for a, c in zip(self.mats, s)])

    def __rtruediv__(self, o):
        return o / self._fallback()

    def __pow__(self, k):
        return self._fallback() ** k

    def __getitem__(self, idx):
        return self._fallback()[idx]

    def __getattr__(self, name):    # any other ndarray attribute (reshape, astype, ...): on the midpoints
        if name.startswith("__") or name in ("mats", "shape", "_mid") or not hasattr(np.ndarray, name):
            raise AttributeError(name)
        return getattr(self._fallback(), name)

    # -- entrywise (ball arithmetic per entry, in C; a Python loop over the entries) ----------
    def _entrywise(self, fn, others=()):
        """``fn(x, *o)`` entry by entry (``others``: lists of ``arb_mat`` of this shape), or None when an entry is
        not finite (``log`` of a negative entry: the midpoints' path then gives mpmath's complex value)."""
        _prec()
        out = []
        for k, m in enumerate(self.mats):
            cols = [o[k].entries() for o in others]
            vals = [fn(x, *rest) for x, *rest in zip(m.entries(), *cols)]
            if not all(v.is_finite() for v in vals):
                return None
            out.append(flint.arb_mat(m.nrows(), m.ncols(), vals))
        return BallArray(out)

    def apply(self, name: str):
        """The elementwise function ``name`` (one of :data:`ENTRYWISE`: ``exp``, ``log``, ``sqrt``, ``tanh``,
        ``sigmoid``, ...) in balls, or None when it has no ball form here or an entry leaves the reals."""
        fn = ENTRYWISE.get(name)
        return None if fn is None else self._entrywise(fn)

    def hadamard(self, o):
        """The entrywise product with ``o`` (a ball or real array of this shape, or of batch 1), or None."""
        om = self._other(o)
        return None if om is None else self._entrywise(lambda x, y: x * y, (om,))

    def softmax(self, axis: int):
        """``exp(x) / sum(exp(x))`` along ``axis`` (-1: along each row, -2: down each column), shifted by the
        entry of largest midpoint (any shift gives the same value; this one avoids overflow); None when an
        entry is not finite."""
        if axis not in (-1, -2, 1, 2):
            return None
        _prec()
        out = []
        for m in self.mats:
            r, c = m.nrows(), m.ncols()
            e = m.entries()
            lines = [list(range(i * c, (i + 1) * c)) for i in range(r)] if axis in (-1, 2) \
                else [list(range(j, r * c, c)) for j in range(c)]
            vals = [None] * (r * c)
            for idx in lines:
                shift = max((e[i] for i in idx), key=lambda v: float(v.mid())).mid()
                ex = [(e[i] - shift).exp() for i in idx]
                total = sum(ex[1:], ex[0])
                for i, v in zip(idx, ex):
                    vals[i] = v / total
            if not all(v.is_finite() for v in vals):
                return None
            out.append(flint.arb_mat(r, c, vals))
        return BallArray(out)

    def trace_product(self, o):
        """``tr(self @ o)`` per batch element as ``sum_ij a_ij o_ji`` (an object array ``(batch,)`` of ``mpf``
        midpoints), or None when ``o`` is not a real matrix of the transposed shape."""
        if isinstance(o, BallArray):
            om = self._other(o.swapaxes(-1, -2))
        else:
            t = np.asarray(o)
            om = self._other(np.swapaxes(_batched(t), -1, -2)) if t.ndim in (2, 3) else None
        if om is None:
            return None
        _prec()
        out = np.empty(self.shape[0], dtype=object)
        for k, (m, q) in enumerate(zip(self.mats, om)):
            terms = [x * y for x, y in zip(m.entries(), q.entries())]
            out[k] = _mpf(sum(terms[1:], terms[0]))
        return out

    # -- linear algebra (arb_mat's own, on the balls: no round trip through mpf) ----------------
    def inv(self):
        """The inverse of each batch element in balls, or None when a ball holds a singular matrix (the
        caller's object path then decides, as for an object array) or the matrices are not square.  Computed once
        and kept (both sides of a statement invert the same sampled matrix): a request at a lower precision than the
        kept inverse's is that inverse's midpoints rounded to the working precision (more accurate than inverting
        again there, and 0.6 s less at ``256 x 256``: the derivative oracle's ``dps + 40`` digits come first)."""
        if self.shape[1] != self.shape[2]:
            return None
        _prec()
        prec = flint.ctx.prec
        if self._inv is not None and self._inv[0] == prec:
            return self._inv[1]
        if self._inv is not None and self._inv[0] > prec and self._inv[1] is not None:
            one = flint.arb(1)
            return BallArray([(m * one).mid() for m in self._inv[1].mats])   # rounded at ``prec`` bits
        try:
            out = BallArray([m.inv() for m in self.mats])
        except ZeroDivisionError:
            out = None
        self._inv = (flint.ctx.prec, out)   # both sides of a statement invert the same sampled matrix
        return out

    def det(self):
        """The determinant of each batch element, an object array ``(batch,)`` of ``mpf`` midpoints, or None
        when a ball contains 0 (singular to working precision: mpmath's value, as for an object array)."""
        if self.shape[1] != self.shape[2]:
            return None
        _prec()
        ds = [m.det() for m in self.mats]
        if any(d.contains(0) for d in ds):
            return None
        out = np.empty(len(ds), dtype=object)
        out[:] = [_mpf(d) for d in ds]
        return out

    def det_positive(self, prec: int = 64) -> bool:
        """True when every batch element's determinant is certainly positive: its ball at ``prec`` bits (an
        enclosure of the determinant of every matrix in the balls, the midpoints' included) lies right of 0.
        False when that is not certain (a ball holding 0 or a negative number, not square).  A cheap test of
        ``log det`` being defined, without the determinant at working precision (0.8 s at ``256 x 256``,
        300 bits)."""
        if self.shape[1] != self.shape[2]:
            return False
        old = flint.ctx.prec
        try:
            flint.ctx.prec = prec
            return all(d > 0 for d in (m.det() for m in self.mats))
        finally:
            flint.ctx.prec = old

    # -- structure ------------------------------------------------------------------------
    def swapaxes(self, a, b):
        """Transpose of the last two axes (``swapaxes(-1, -2)``); other axes through the midpoints."""
        if {a % 3, b % 3} == {1, 2}:
            return BallArray([m.transpose() for m in self.mats])
        return self._fallback().swapaxes(a, b)

    def trace(self) -> np.ndarray:
        """The trace of each batch element: an object array ``(batch,)`` of ``mpf`` midpoints."""
        _prec()
        out = np.empty(self.shape[0], dtype=object)
        out[:] = [_mpf(m.trace()) for m in self.mats]
        return out


ENTRYWISE = {
    "exp": lambda x: x.exp(), "log": lambda x: x.log(), "sqrt": lambda x: x.sqrt(), "log1p": lambda x: x.log1p(),
    "expm1": lambda x: x.expm1(), "sin": lambda x: x.sin(), "cos": lambda x: x.cos(), "tan": lambda x: x.tan(),
    "tanh": lambda x: x.tanh(), "abs": lambda x: abs(x),
    "sigmoid": lambda x: 1 / (1 + (-x).exp()), "softplus": lambda x: x.exp().log1p(),
}
"""Elementwise functions a :class:`BallArray` evaluates in its balls (the same definitions as
:class:`~theorem_check.numerics.precision.Ctx`'s mpmath ones; an entry where one leaves the reals, such as
``log`` of a negative number, sends the whole array through the midpoints and mpmath)."""


def _all_real(a: np.ndarray) -> bool:
    return all(isinstance(v, (mpmath.mpf, float, int, np.floating, np.integer)) for v in a.flat)


def _batched(o: np.ndarray) -> np.ndarray:
    """A matrix operand with a batch axis: a constant ``(r, c)`` (SymPy's ``ones(1, n)``, no batch axis) as
    ``(1, r, c)``, which broadcasts against every batch element."""
    return o[None] if o.ndim == 2 else o


def product_operand(a, b):
    """``a`` as balls when both factors of ``a @ b`` are object arrays of ``mpf`` (a Hadamard product's midpoints
    times SymPy's folded ``ones(n, n)``): one ball product, not NumPy's object matmul (``n^3`` ``mpf``
    products: 4.8 s of the attention gradient at n = 128); ``a`` itself otherwise."""
    if all(isinstance(v, np.ndarray) and v.dtype == object and v.ndim in (2, 3) for v in (a, b)):
        return balls_of(_batched(a))
    return a


def balls_of(a, *, force: bool = False):
    """A real batched matrix ``a`` (object array of ``mpf`` or a float array, shape ``(batch, r, c)``) as a
    :class:`BallArray`, or ``a`` itself when balls are off (:data:`~theorem_check.numerics.arb.USE_ARB`),
    python-flint is absent, ``a`` is not such a matrix, has fewer than :data:`BALL_MIN` entries per batch
    element (unless ``force``), or holds a complex or non-finite entry."""
    if flint is None or not USE_ARB or isinstance(a, BallArray):
        return a
    if not isinstance(a, np.ndarray) or a.ndim != 3 or a.shape[0] < 1 or 0 in a.shape:
        return a
    if not force and a.shape[1] * a.shape[2] < BALL_MIN:
        return a
    if a.dtype.kind in "fi":
        if not np.all(np.isfinite(a)):
            return a
        return from_float(a)
    if a.dtype != object:
        return a
    _prec()
    mats = []
    for m in a:
        rows = m.tolist()
        for row in rows:
            for v in row:
                if not isinstance(v, mpmath.mpf) or not mpmath.isfinite(v):
                    return a
        mats.append(flint.arb_mat(rows))
    return BallArray(mats)


def from_float(a: np.ndarray) -> BallArray:
    """A float array ``(batch, r, c)`` as exact balls (no rounding: a float64 is dyadic)."""
    _prec()
    return BallArray([flint.arb_mat(np.asarray(m, dtype=np.float64).tolist()) for m in a])


def dot_directions(E, U: np.ndarray):
    """``<E_b, U_b,i>`` for an object array ``E`` of ``mpf`` (``(batch, N)``) or a :class:`BallArray`
    (``(batch, r, c)``, ``N = r c``, entries in C order; its midpoints are used, as the object array of
    them would be) and float64 directions ``U`` (``(batch, k, N)``) as one ball product ``(1 x N)(N x k)``
    per batch element: an object array ``(batch, k)`` of midpoints, or None (balls off, fewer than
    :data:`BALL_MIN` entries, an entry that is not a finite real number)."""
    if flint is None or not USE_ARB:
        return None
    if isinstance(E, BallArray):
        if E.shape[1] * E.shape[2] < BALL_MIN or E.shape[0] != U.shape[0]:
            return None
        _prec()
        rows = [m.mid().entries() for m in E.mats]
        if not all(v.is_finite() for row in rows for v in row):
            return None
    else:
        if E.shape[1] < BALL_MIN or E.dtype != object:
            return None
        _prec()
        rows = [E[b].tolist() for b in range(E.shape[0])]
        if not all(isinstance(v, mpmath.mpf) and mpmath.isfinite(v) for row in rows for v in row):
            return None
    out = np.empty(U.shape[:2], dtype=object)
    for b, row in enumerate(rows):
        prod = flint.arb_mat([row]) * flint.arb_mat(np.ascontiguousarray(U[b].T).tolist())
        out[b, :] = [_mpf(x) for x in prod.entries()]
    return out


# ---------------------------------------------------------------------------------------
# Exact samples at mp50 (numerics/sampling.py recipes): the Newton-Schulz polish in balls
# ---------------------------------------------------------------------------------------
def _diag(values) -> "flint.arb_mat":
    d = flint.arb_mat(len(values), len(values))
    for i, v in enumerate(values):
        d[i, i] = float(v)
    return d


def polish(q0: np.ndarray, tol: float, max_steps: int):
    """Newton-Schulz polar iterations ``Q <- Q (3I - Q^T Q)/2`` of float64 near-orthonormal ``q0``
    (shape ``(..., m, k)``, ``k <= m``) in ``arb_mat`` at mpmath's working precision, until every batch
    element has ``||Q^T Q - I||_F <= tol``.

    The same iteration as ``numerics.sampling._polish`` on the object arrays, in C: at ``256 x 256`` a
    step costs about 0.1 s instead of about a minute.  Midpoints are kept after each step (a sample is
    a float value, not an enclosure).  Returns a list of ``arb_mat`` (leading axes flattened, C order),
    or None when balls are off (python-flint absent, :data:`~theorem_check.numerics.arb.USE_ARB` false)
    or ``q0`` is smaller than :data:`BALL_MIN` entries per matrix (the caller then takes the object-array
    path).  Raises RuntimeError if ``max_steps`` steps do not reach ``tol``.
    """
    if flint is None or not USE_ARB or q0.ndim < 2 or q0.shape[-2] * q0.shape[-1] < BALL_MIN:
        return None
    _prec()
    m, k = q0.shape[-2:]
    eye, half, three_halves = _diag(np.ones(k)), flint.arb(0.5), flint.arb(1.5)
    out = []
    for a in np.asarray(q0, dtype=np.float64).reshape(-1, m, k):
        q = flint.arb_mat(a.tolist())
        for _ in range(max_steps + 1):
            qtq = q.transpose() * q
            defect = (qtq - eye).mid()
            if sum(float(x) ** 2 for x in defect.entries()) ** 0.5 <= tol:
                break
            q = (q * (eye * three_halves - qtq * half)).mid()
        else:
            raise RuntimeError(f"Newton-Schulz did not orthonormalise a {q0.shape} sample to {tol:.1e} in "
                               f"{max_steps} steps (balls, {flint.ctx.prec} bits)")
        out.append(q)
    return out


def spd_product(qs: list, lam: np.ndarray) -> list:
    """``sym(Q diag(lam) Q^T)`` for each ``Q`` of :func:`polish` and float64 eigenvalue rows ``lam``
    (``(..., n)``, flattened like the ``Q``): the ``_SPD`` recipe of numerics/sampling.py in balls."""
    lam = np.asarray(lam, dtype=np.float64).reshape(len(qs), -1)
    out = []
    for q, row in zip(qs, lam):
        m = q * _diag(row) * q.transpose()
        out.append(((m + m.transpose()) * flint.arb(0.5)).mid())
    return out


def usv_product(us: list, s: np.ndarray, vs: list) -> list:
    """``U diag(s) V^T`` for :func:`polish` results ``U``, ``V`` and float64 rows ``s`` (the ``_USV`` recipe)."""
    s = np.asarray(s, dtype=np.float64).reshape(len(us), -1)
    return [(u * _diag(row) * v.transpose()).mid() for u, row, v in zip(us, s, vs)]


def midpoints(mats: list, shape: tuple) -> np.ndarray:
    """The object array of ``mpf`` midpoints of ``mats`` (``arb_mat``, C order), reshaped to ``shape``."""
    return np.asarray(BallArray(mats)).reshape(shape)
