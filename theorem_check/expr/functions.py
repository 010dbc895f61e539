"""The functions of the statement syntax (``trace``, ``det``, ``kron``, ``hadamard``, ``eye``, ``sigmoid``, ...): the
table :data:`FUNCTIONS` the parser (:mod:`theorem_check.expr.parse`) binds names to, and :data:`ARITY`, the number
of arguments each takes (checked before SymPy sees a call, so that ``trace(A, A)`` is refused with the function's
name).  Split from ``parse.py`` (stop 39) so that each module stays small."""

from __future__ import annotations

import inspect
from typing import Any

import sympy as sp
from sympy.matrices.expressions.diagonal import DiagMatrix, DiagonalOf

from theorem_check.expr.nodes import (
    Cholesky,
    Conj,
    Expm,
    ExprError,
    Imag,
    Logm,
    ParseError,
    Real,
    Softmax,
    Sqrtm,
    Tril,
    Triu,
    Vec,
    apply_entrywise,
    as_matrix,
    entry_beside_scalar,
    expm1,
    grad,
    grad_xy,
    hessian,
    is_matrix,
    jacobian,
    log1p,
    logsumexp,
    need_matrix,
    sigmoid,
    softplus,
)

__all__ = ["ARITY", "FUNCTIONS", "norm2", "unevaluated_on_sympy_error"]


def unevaluated_on_sympy_error(build, unevaluated):
    """``build()``, or ``unevaluated()`` when SymPy's automatic evaluation raises on a trace or determinant in
    the argument: ``sqrt(1/tr(A + B))`` reaches ``factor_terms``, which rebuilds ``Trace`` from a scalar ``Mul``
    and raises "input to Trace ... is not a matrix" (SymPy 1.14).  The unevaluated node means the same."""
    try:
        return build()
    except (TypeError, AttributeError) as exc:
        if not any(w in str(exc) for w in ("matrix", "Matrix", "shape")):
            raise
        return unevaluated()


def _elementwise_fn(name: str, scalar_fn):
    def f(x):
        if is_matrix(x):
            # SymPy's applyfunc on a 1 x 1 product calls the function on the matrix itself and keeps a matrix
            # result: abs(x.T*x) became (x^T x^H)^(1/2) (x x^TH)^(1/2), which does not conform (ILL-POSED);
            # sqrt keeps that route, where it is right: the principal root (x.T*x)**(1/2) of the 1 x 1 matrix
            return x.applyfunc(scalar_fn) if scalar_fn is sp.sqrt else apply_entrywise(scalar_fn, x)
        return unevaluated_on_sympy_error(lambda: scalar_fn(x), lambda: scalar_fn(x, evaluate=False))
    f.__name__ = name
    return f


def _trace(x):
    if not is_matrix(x):
        raise ExprError(f"trace needs a matrix, got the scalar {x}")
    return sp.Trace(x)


def _det(x):
    if not is_matrix(x):
        raise ExprError(f"det needs a matrix, got the scalar {x}")
    return sp.Determinant(x)


def _inv(x):
    return sp.Inverse(x) if is_matrix(x) else 1 / x


def _diag(x):
    x = as_matrix(x)
    if x.shape[1] == 1 or x.shape[0] == 1:
        if x.shape[0] == 1 and x.shape[1] != 1:
            x = x.T
        return DiagMatrix(x)
    return DiagonalOf(x)


def _kron(*args):
    """``kron(c A, B) = c kron(A, B)``: scalar factors are taken out of the factors first (SymPy's
    ``KroneckerProduct`` canonicalisation breaks on ``2*A*C``: 'Mul' object has no attribute 'is_Identity')."""
    args = tuple(as_matrix(a) for a in args)
    coeff, mats = sp.S.One, []
    for a in args:
        c, m = a.as_coeff_mmul() if isinstance(a, sp.MatMul) else (sp.S.One, a)
        coeff *= c
        mats.append(m)
    out = sp.KroneckerProduct(*mats)
    return out if coeff == 1 else coeff * out


def _logdet(x):
    """``logdet(X) = log(det(X))`` (matrixcalculus.org's name)."""
    return sp.log(_det(x))


def norm2(x):
    """``norm2(x)``: the Euclidean norm of a vector, the Frobenius norm of a matrix,
    ``sqrt(trace(x.T*x))`` (matrixcalculus.org's name; real entries); ``abs`` of a scalar."""
    if not is_matrix(x):
        return sp.Abs(x)
    return sp.sqrt(sp.Trace(sp.Transpose(x) * x))


def _sum(x):
    """``sum(X)``: the sum of all entries, ``trace(ones(1, rows) * X * ones(cols, 1))`` (a scalar)."""
    if not is_matrix(x):
        return x
    r, c = x.shape
    return sp.Trace(sp.OneMatrix(1, r) * x * sp.OneMatrix(c, 1))


def _entrywise(name: str, node, scalar_fn):
    """``conj``/``real``/``imag``: the node (:class:`Conj`, :class:`Real`, :class:`Imag`) of a matrix, SymPy's
    ``conjugate``/``re``/``im`` of a scalar."""
    def f(x):
        return node(x) if is_matrix(x) else scalar_fn(x)
    f.__name__ = name
    return f


def _hadamard(*args):
    return sp.HadamardProduct(*(as_matrix(a) for a in args))


def _hadamard_power(x, p):
    """``hadamard_power(X, p)``: the entrywise power ``X^{o p}`` (``[X^{o p}]_ij = X_ij^p``) of a matrix ``X`` for a
    number ``p``: ``p = -1`` the entrywise reciprocal, ``p = 1/2`` the entrywise square root (of positive entries).
    Raises ParseError for a scalar ``X`` or an exponent that is not a number."""
    need_matrix("hadamard_power", x)
    p = sp.sympify(p)
    if is_matrix(p) or not p.is_Number:
        raise ParseError(f"hadamard_power(X, p) needs a number p, got {p}")
    return sp.HadamardPower(x, p)


_abs = _elementwise_fn("abs", sp.Abs)
"""``abs`` of the string syntax: entrywise for a matrix (:func:`_elementwise_fn`)."""


def relu(x):
    """``relu(x) = max(x, 0) = (x + |x|)/2``, entrywise for a matrix: built from ``abs`` so that the symbolic stage
    proves with it (``relu(x) - relu(-x) = x``) and the engine's branch switches see it (design decision 195)."""
    return (x + _abs(x)) / 2


def _broadcast(a, b):
    """``(a, b)`` for an entrywise maximum or minimum: a ``1 x 1`` matrix beside a scalar is its entry
    (:func:`~theorem_check.expr.nodes.entry_beside_scalar`), and a scalar beside a larger matrix is that scalar in
    every entry (``max(A, 0)`` is ``relu(A)``: it said "adds a matrix to a scalar", helper-60)."""
    a, b = entry_beside_scalar(a, b)
    if is_matrix(a) and not is_matrix(b):
        b = b * sp.OneMatrix(*a.shape)
    elif is_matrix(b) and not is_matrix(a):
        a = a * sp.OneMatrix(*b.shape)
    return a, b


def _max(a, b):
    """``max(a, b) = (a + b + |a - b|)/2``, entrywise for two matrices of one shape, or a matrix and a scalar
    (:func:`_broadcast`; design decision 195)."""
    a, b = _broadcast(a, b)
    return (a + b + _abs(a - b)) / 2


def _min(a, b):
    """``min(a, b) = (a + b - |a - b|)/2``, as :func:`_max`."""
    a, b = _broadcast(a, b)
    return (a + b - _abs(a - b)) / 2


FUNCTIONS: dict[str, Any] = {
    "trace": _trace, "tr": _trace, "det": _det, "inv": _inv, "logdet": _logdet, "norm2": norm2, "sum": _sum,
    "grad": grad, "grad_xy": grad_xy, "jacobian": jacobian, "hessian": hessian,
    "softmax": Softmax, "logsumexp": logsumexp, "vec": Vec, "kron": _kron, "diag": _diag,
    "hadamard": _hadamard, "hadamard_power": _hadamard_power, "expm": Expm, "logm": Logm, "sqrtm": Sqrtm, "cholesky": Cholesky,
    "tril": Tril, "triu": Triu, "eye": sp.Identity, "zeros": sp.ZeroMatrix, "ones": sp.OneMatrix,
    "sin": _elementwise_fn("sin", sp.sin), "cos": _elementwise_fn("cos", sp.cos),
    "tan": _elementwise_fn("tan", sp.tan), "tanh": _elementwise_fn("tanh", sp.tanh),
    "exp": _elementwise_fn("exp", sp.exp), "log": _elementwise_fn("log", sp.log),
    "log1p": _elementwise_fn("log1p", log1p), "expm1": _elementwise_fn("expm1", expm1),
    "sqrt": _elementwise_fn("sqrt", sp.sqrt), "abs": _abs,
    "Abs": _elementwise_fn("Abs", sp.Abs), "sigmoid": _elementwise_fn("sigmoid", sigmoid),
    "softplus": _elementwise_fn("softplus", softplus),
    "relu": relu, "max": _max, "min": _min,
    "conj": _entrywise("conj", Conj, sp.conjugate), "real": _entrywise("real", Real, sp.re),
    "imag": _entrywise("imag", Imag, sp.im),
    "pi": sp.pi, "E": sp.E,
}
"""Names the string syntax knows (functions and constants).  Elementwise functions of a matrix act
entrywise; ``expm``/``logm``/``sqrtm`` are the matrix functions.  ``conj``, ``real``, ``imag`` act
entrywise (on real values: the identity, the identity and 0); ``X.H`` is the conjugate transpose.  ``logdet``,
``inv``, ``norm2``, ``sum`` and ``x'`` (the transpose, :func:`primes`) are the names matrixcalculus.org users bring."""


ARITY: dict[str, tuple[int, int | None]] = {}
"""Function name -> (least, most) arguments (:func:`_arity`; filled below): ``trace(A, A)`` and ``kron(A)`` are
refused with the function's name, not Python's ``_trace() takes 1 positional argument`` (helper-38)."""


def _arity(name: str, fn) -> tuple[int, int | None]:
    """``(least, most)`` arguments of the statement function ``name`` (None: any number), from its signature."""
    if name in ("kron", "hadamard"):
        return 2, None
    if name == "ones":
        return 2, 2
    params = list(inspect.signature(fn).parameters.values())
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return 1, None
    return sum(p.default is p.empty for p in params), len(params)


ARITY.update({k: _arity(k, v) for k, v in FUNCTIONS.items() if callable(v)})
