"""The check of a closed-form derivative at one concrete size (:func:`verify`), used by
:mod:`theorem_check.expr.matrix_calculus` before any result is returned.

Each size letter is set to a distinct integer (2, 3, ...); the other matrices and the point get random
positive rational entries ``p/q`` (``1 <= p, q <= 9``, seed :data:`CHECK_SEED`), square ones made strictly
diagonally dominant (invertible, positive determinant: ``log det`` and inverses are defined).  At two
points, the derivative of ``f`` along each entry direction of ``X`` (``f(point + t E_k)``, a function of one
number) is compared with the closed form evaluated there: exactly (SymPy rationals) when ``f`` and the
closed form are rational, otherwise to 1e-40 relative at 60 digits (``mpmath.diff`` of the expression
evaluated in 60+-digit numbers).  A mismatch is :class:`~theorem_check.errors.InternalError`.
"""

from __future__ import annotations

import functools
import random

import sympy as sp

from theorem_check.errors import InternalError
from theorem_check.expr.nodes import ExprError, LogSumExp, LogSumExpAxis, NotDifferentiable, Softmax, is_matrix

__all__ = ["verify", "explicit", "CHECK_SEED"]

CHECK_SEED = 20261202
"""Seed of the random rational points of :func:`verify` (fixed: a derivation is deterministic)."""


# ---------------------------------------------------------------------------------------------
def explicit(e, env: dict):
    """``e`` with its matrix symbols replaced by the explicit matrices of ``env``: a SymPy Matrix or scalar."""
    if isinstance(e, sp.MatrixSymbol):
        return env[e]
    if isinstance(e, (sp.Identity, sp.ZeroMatrix, sp.OneMatrix)):
        return e.as_explicit().as_mutable()
    if not e.args or isinstance(e, (sp.Symbol, sp.Number, sp.NumberSymbol)):
        return e
    rule = _EXPLICIT.get(type(e).__name__)
    if rule is not None:
        return rule(e, lambda a: explicit(a, env))
    args = [explicit(a, env) for a in e.args]
    args = [a[0, 0] if isinstance(a, sp.MatrixBase) and a.shape == (1, 1) and not is_matrix(e) else a
            for a in args]
    return e.func(*args)


def _softmax(M, axis):
    E = M.applyfunc(sp.exp)
    if axis == 0:
        return sp.Matrix(E.rows, E.cols, lambda i, j: E[i, j] / sum(E[:, j]))
    return sp.Matrix(E.rows, E.cols, lambda i, j: E[i, j] / sum(E[i, :]))


def _lse(M, axis, total):
    E = M.applyfunc(sp.exp)
    if total:
        return sp.log(sum(E))
    if axis == 1:
        return sp.Matrix(E.rows, 1, lambda i, j: sp.log(sum(E[i, :])))
    return sp.Matrix(1, E.cols, lambda i, j: sp.log(sum(E[:, j])))


_EXPLICIT = {
    "MatMul": lambda e, ev: functools.reduce(lambda a, b: a * b, [ev(a) for a in e.args]),
    "MatAdd": lambda e, ev: functools.reduce(lambda a, b: a + b, [ev(a) for a in e.args]),
    "Transpose": lambda e, ev: ev(e.arg).T,
    "Inverse": lambda e, ev: ev(e.arg).inv(),
    "MatPow": lambda e, ev: ev(e.args[0]) ** int(e.args[1]),
    "Trace": lambda e, ev: ev(e.arg).trace(),
    "Determinant": lambda e, ev: ev(e.arg).det(method="berkowitz"),
    "HadamardProduct": lambda e, ev: functools.reduce(lambda a, b: a.multiply_elementwise(b), [ev(a) for a in e.args]),
    "HadamardPower": lambda e, ev: ev(e.args[0]).applyfunc(lambda t: t ** e.args[1]),
    "ElementwiseApplyFunction": lambda e, ev: ev(e.expr).applyfunc(e.function),
    "KroneckerProduct": lambda e, ev: functools.reduce(sp.kronecker_product, [ev(a) for a in e.args]),
    "DiagMatrix": lambda e, ev: sp.diag(*list(ev(e.args[0]))),
    "DiagonalOf": lambda e, ev: sp.Matrix(ev(e.arg).diagonal()).reshape(min(ev(e.arg).shape), 1),
    "Softmax": lambda e, ev: _softmax(ev(e.args[0]), e.axis),
    "LogSumExp": lambda e, ev: _lse(ev(e.args[0]), e.axis, True),
    "LogSumExpAxis": lambda e, ev: _lse(ev(e.args[0]), e.axis, False),
    "Vec": lambda e, ev: ev(e.args[0]).T.reshape(e.shape[0], 1),
}


def _sizes(*exprs, reverse: bool = False) -> dict:
    letters = sorted({s for e in exprs for m in e.atoms(sp.MatrixSymbol) for s in m.shape if isinstance(s, sp.Symbol)},
                     key=str, reverse=reverse)
    return {s: 2 + k for k, s in enumerate(letters)}


def _value(rnd: random.Random):
    """A random positive rational p/q with 1 <= p, q <= 9."""
    return sp.Rational(rnd.randint(1, 9), rnd.randint(1, 9))


def _concrete(m, sizes, rnd, sym: bool):
    """The matrix symbol ``m`` at ``sizes`` with random positive rational entries (``sym``: symmetrised)."""
    r, c = (int(sp.sympify(v).subs(sizes)) for v in m.shape)
    M = sp.Matrix(r, c, lambda i, j: _value(rnd))
    if sym:
        M = (M + M.T) / 2
    if r == c:   # strictly diagonally dominant (entries <= 9): invertible, positive determinant (log det)
        M += sp.Integer(9 * r + 1) * sp.eye(r)
    return M


def _close(a, b) -> bool:
    """``a == b`` for exact SymPy numbers: exactly when the difference is rational, else to 1e-40 relative at
    60 digits (``exp`` and ``log`` of rationals)."""
    d = sp.sympify(a - b)
    if d.is_Rational:
        return d == 0
    try:   # each side to 60 digits once (the difference's own evalf is a third evaluation of both)
        av, bv = sp.N(a, 60), sp.N(b, 60)
        scale = max(abs(av), abs(bv), 1)
        return bool(abs(av - bv) <= sp.Float("1e-40", 60) * scale)
    except (TypeError, ValueError):
        return False


def _transcendental(e) -> bool:
    """True when ``e`` has a function (``exp``, ``log``, ``Abs``, entrywise ones, softmax, ...) or a non-integer
    power: its derivatives are then compared in 60-digit numbers, not exactly."""
    return bool(e.atoms(sp.Function, Softmax, LogSumExp, LogSumExpAxis)) or \
        any(not sp.sympify(p.exp).is_Integer for p in e.atoms(sp.Pow, sp.HadamardPower))


def _mp(v):
    """A SymPy number (or a 1x1 Matrix of one) as an mpmath number."""
    import mpmath

    if isinstance(v, sp.MatrixBase):
        v = v[0, 0]
    v = sp.N(v, mpmath.mp.dps + 5)
    if v.is_real:
        return mpmath.mpf(v._mpf_)
    re, im = (sp.Float(part, mpmath.mp.dps + 5) for part in v.as_real_imag())
    return mpmath.mpc(re._mpf_, im._mpf_)


def _unit(shape, k):
    M = sp.zeros(*shape)
    M[k] = 1   # row-major position k
    return M


def _numeric_want(along, point, N, s, t, *, jac: bool, order: int):
    """The entrywise derivatives at ``point`` to 60 digits: ``mpmath.diff`` of ``f`` evaluated numerically along
    each direction (the explicit expression in ``s``, ``t`` compiled once for mpmath by ``sympy.lambdify``, never
    differentiated symbolically: SymPy's exact derivative of an expression full of ``exp`` swells)."""
    import mpmath

    def entry(dirs, i=0):
        """f (its entry ``i``) at ``point`` + the numbers ``hs`` along ``dirs``, SymPy's own evaluation."""
        def fn(*hs):
            e = along(*[(sp.Float(h, mpmath.mp.dps + 5), k) for h, k in zip(hs, dirs)])
            return _mp(list(sp.Matrix([e]))[i])
        return fn

    with mpmath.workdps(60):
        if jac:
            rows = None
            cols = []
            for j in range(N):
                out = list(sp.Matrix([along((t, j))]))
                cols.append([mpmath.diff(_numeric(e, (t,), entry((j,), i)), 0) for i, e in enumerate(out)])
                rows = len(out)
            return sp.Matrix(rows, N, lambda i, j: sp.Float(mpmath.re(cols[j][i]), 60))
        if order == 2:
            return sp.Matrix(N, N, lambda i, j: sp.Float(mpmath.re(
                mpmath.diff(_numeric(along((s, i), (t, j)), (s, t), entry((i, j))), (0, 0), (1, 1))), 60))
        vals = [sp.Float(mpmath.re(mpmath.diff(_numeric(along((t, k)), (t,), entry((k,))), 0)), 60)
                for k in range(N)]
        return sp.Matrix(*point.shape, vals)


def _numeric(expr, syms: tuple, fallback):
    """``expr`` (a scalar, or a 1 x 1 matrix, in the symbols ``syms``) as an mpmath function compiled by
    ``sympy.lambdify`` (it evaluates at the working precision of each call, which ``mpmath.diff`` raises);
    ``fallback`` (SymPy's evaluation of the explicit expression at each point: 10-100x slower) where lambdify
    cannot print a node or mpmath cannot evaluate it."""
    import mpmath

    if isinstance(expr, sp.MatrixBase):
        expr = expr[0, 0]
    try:
        fn = sp.lambdify(syms, expr, modules="mpmath", docstring_limit=0)   # no str(expr) for a docstring
        fn(*[mpmath.mpf(0)] * len(syms))   # a node mpmath lacks fails here, not inside mpmath.diff
        return fn
    except Exception:  # noqa: BLE001 - any failure: SymPy's own evaluation, as before
        return fallback


def verify(f, X, D, *, order: int = 1, symmetric: bool = False, jac: bool = False) -> None:
    """Check a derivative ``D`` of ``f`` by ``X`` at one concrete size, entry by entry; InternalError if it differs.

    ``order=1``: ``D`` is the gradient (``symmetric``: ``(G + G^T)/2`` at a symmetric point) or, with
    ``jac=True``, the Jacobian of the column ``f``; ``order=2``: the Hessian of the scalar ``f`` by the column
    ``X``.  Sizes: each size letter a distinct integer from 2 (in alphabetical order; where a matrix is then
    singular, in the reverse order); other matrices and the point: random positive
    rationals (seed :data:`CHECK_SEED`), square ones made diagonally dominant.  Two points.  A comparison that
    SymPy cannot carry out at all (a node without explicit form) is NotDifferentiable.
    """
    first = _sizes(f, D, X)
    try:
        _verify_at(f, X, D, first, order, symmetric, jac)
    except NotDifferentiable:   # the sizes in the other order: log(det(X.T*X)) of an m x n X needs m >= n (helper-35)
        other = _sizes(f, D, X, reverse=True)
        if other == first:
            raise
        _verify_at(f, X, D, other, order, symmetric, jac)


def _verify_at(f, X, D, sizes: dict, order: int, symmetric: bool, jac: bool) -> None:
    """:func:`verify` at the concrete ``sizes`` (a letter -> integer)."""
    rnd = random.Random(CHECK_SEED)
    fs, Ds, Xc = f.subs(sizes), D.subs(sizes), X.subs(sizes)
    s, t = sp.Dummy("s", real=True), sp.Dummy("t", real=True)
    trans = _transcendental(fs) or _transcendental(Ds)
    try:
        for _ in range(2):
            env = {m: _concrete(m, sizes, rnd, False)
                   for m in (fs.atoms(sp.MatrixSymbol) | Ds.atoms(sp.MatrixSymbol)) - {Xc}}
            point = _concrete(Xc, sizes, rnd, symmetric)
            De = explicit(Ds, {**env, Xc: point})
            De = De if isinstance(De, sp.MatrixBase) else sp.Matrix([[De]])
            N = point.rows * point.cols

            def along(*dirs):
                """f at point + sum of (symbol * unit direction): a function of one or two symbols."""
                Xv = point + sum((v * _unit(point.shape, k) for v, k in dirs), sp.zeros(*point.shape))
                fe = explicit(fs, {**env, Xc: Xv})
                return fe[0, 0] if isinstance(fe, sp.MatrixBase) and not jac else fe

            if trans:
                want = _numeric_want(along, point, N, s, t, jac=jac, order=order)
            elif jac:   # column j: dF/dx_j
                want = sp.Matrix.hstack(*[sp.Matrix([sp.diff(e, t).subs(t, 0) for e in sp.Matrix([along((t, j))])])
                                          for j in range(N)])
            elif order == 2:
                want = sp.Matrix(N, N, lambda i, j: sp.diff(along((s, i), (t, j)), s, t).subs({s: 0, t: 0}))
            else:
                want = sp.Matrix(*point.shape, [sp.diff(along((t, k)), t).subs(t, 0) for k in range(N)])
            if symmetric:
                want = (want + want.T) / 2
            if want.shape != De.shape:
                raise InternalError(f"derivative of {f} by {X}: shape {De.shape} at sizes {sizes}, expected "
                                    f"{want.shape}")
            for w, d in zip(want, De):
                if not _close(w, d):
                    raise InternalError(f"derivative of {f} by {X}: the closed form {D} disagrees with the entrywise "
                                        f"derivative at sizes {dict((str(k), v) for k, v in sizes.items())} "
                                        f"({sp.N(d, 8)} != {sp.N(w, 8)}): a bug of the matrix-calculus rules")
    except (InternalError, ExprError):
        raise
    except Exception as exc:  # noqa: BLE001 - SymPy could not evaluate a node explicitly
        from theorem_check.expr.printing import expr_text

        try:
            shown = expr_text(f)
        except Exception:  # noqa: BLE001 - the message still names the expression, as SymPy prints it
            shown = str(f)
        why = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), "SymPy cannot evaluate it entry by entry")
        raise NotDifferentiable(f"cannot check the derivative of {shown} by {X} at a concrete size "
                                f"({type(exc).__name__}: {why})") from None

