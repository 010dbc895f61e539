"""SymPy expressions as statement sides: parse -> cached recipe -> apply, at every precision.

A side of an identity can be a SymPy (matrix) expression over ``MatrixSymbol`` and ``Symbol``
objects, or a string in SymPy syntax.  The same expression then serves the derivation (SymPy
algebra) and the numerics: :func:`compile_expr` walks the tree once and returns a *recipe*, a
closure that evaluates it on a batch of instances with a precision context ``ctx`` (float32,
float64, or NumPy object arrays of ``mpmath.mpf``), calling only ``ctx``'s operations.  Compiling
dispatches on the SymPy node's class, like SymPy's printers (``_print_<Class>``): each supported
node has a ``_c_<Class>`` method; an unsupported node is a one-line :class:`ExprError` naming it,
raised when the side is defined (not when it runs).

Why a tree evaluator rather than ``sympy.lambdify`` with a module mapping: lambdify's generated
code assumes unbatched arrays (``MatMul`` becomes ``dot``, ``Trace`` a 2-D ``trace``) and does not
know the batch axis, the 1x1-matrix-as-scalar rule, or derivative nodes whose argument is itself
an expression to be re-evaluated at perturbed points; a ~300-line evaluator covers those directly.

Conventions
-----------
* Values are batched: matrices ``(batch, rows, cols)``, scalars ``(batch,)``; constants (an
  ``Identity``, a number) carry no batch axis and broadcast.
* A ``1 x 1`` matrix counts as a scalar where a scalar is expected, and a side whose value is
  ``1 x 1`` is compared as a scalar.
* ``sin``, ``exp``, ``log``, ``sqrt``, ``Abs``, ``sigmoid``, ... of a matrix act **elementwise**
  (as in NumPy and PyTorch); the matrix functions are ``expm``, ``logm``, ``sqrtm`` (and
  ``X**(1/2)``).  ``X**-1`` is the inverse.
* ``softmax(x)`` of a column vector normalises its entries; of any other matrix, each row (the
  last axis, as in attention ``softmax(Q K^T / sqrt(d)) V``).  ``logsumexp(x)`` takes a vector.
* ``grad(f, X)`` is the gradient in the layout of the Matrix Cookbook, SymPy, PyTorch and JAX
  (``G_ij = df/dX_ij``, same shape as ``X``), computed by the engine's derivative oracle
  ``ctx.grad``; when ``X`` is declared symmetric or SPD it is the gradient on the symmetric
  matrices, ``ctx.sym_grad`` = ``(G + G^T)/2`` (Srinivasan & Panda, arXiv:1911.06491).
  ``jacobian(F, x)`` is ``J_ij = dF_i/dx_j`` with row-major flattening of ``F`` and ``x``, shape
  ``(prod F.shape, prod x.shape)``; ``hessian(f, x)`` is ``(prod x.shape, prod x.shape)``.
* ``vec`` stacks columns (column-major), ``vec(A X B) = (B^T kron A) vec(X)``.

>>> import numpy as np, sympy as sp
>>> from theorem_check.precision import FLOAT64
>>> A, B = sp.MatrixSymbol("A", 2, 3), sp.MatrixSymbol("B", 3, 2)
>>> recipe = compile_expr(sp.Trace(A * B))                      # parse once (cached)
>>> vals = {"A": np.ones((5, 2, 3)), "B": np.ones((5, 3, 2))}    # a batch of 5
>>> evaluate(recipe, FLOAT64, vals).shape                         # scalars: (batch,)
(5,)
>>> parse("(A*B).T", {"A": (2, 3), "B": (3, 2)})
(A*B).T
"""

from __future__ import annotations

import ast
import functools
import io
import keyword
import tokenize
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import sympy as sp
from sympy.matrices.expressions.diagonal import DiagMatrix, DiagonalOf
from sympy.matrices.exceptions import ShapeError

from .errors import InvalidArgument, ShapeMismatch, TheoremCheckError

__all__ = ["ExprError", "ParseError", "sigmoid", "softplus", "log1p", "expm1", "Softmax", "LogSumExp", "Vec",
           "Grad", "Jacobian", "Hessian", "Expm", "Logm", "Sqrtm", "Cholesky", "grad", "jacobian", "hessian",
           "compile_expr", "evaluate", "side", "parse", "parse_statement", "FUNCTIONS", "is_matrix"]


class ExprError(TheoremCheckError, ValueError):
    """An expression side cannot be evaluated (unsupported node, missing value): one line naming it."""


class ParseError(ExprError):
    """A statement string cannot be parsed: the message names the offending token."""


def is_matrix(e) -> bool:
    """True for SymPy matrix expressions (``MatrixSymbol``, ``MatMul``, ``Grad``, ...)."""
    return isinstance(e, (sp.MatrixExpr, sp.MatrixBase))


# ---------------------------------------------------------------------------------------------
# custom SymPy nodes
# ---------------------------------------------------------------------------------------------
class sigmoid(sp.Function):  # noqa: N801 - named like SymPy's own functions (sin, exp)
    """The logistic function ``1 / (1 + exp(-x))`` (scalar; ``X.applyfunc(sigmoid)`` elementwise)."""

    def fdiff(self, argindex=1):
        s = sigmoid(self.args[0])
        return s * (1 - s)

    def _latex(self, printer):
        return rf"\sigma\left({printer._print(self.args[0])}\right)"


class softplus(sp.Function):  # noqa: N801
    """``log(1 + exp(x))`` (scalar; elementwise through ``applyfunc``); its derivative is ``sigmoid``."""

    def fdiff(self, argindex=1):
        return sigmoid(self.args[0])

    def _latex(self, printer):
        return rf"\operatorname{{softplus}}\left({printer._print(self.args[0])}\right)"


class log1p(sp.Function):  # noqa: N801
    """``log(1 + x)``, evaluated with ``ctx.log1p`` (accurate for small ``x``)."""

    def fdiff(self, argindex=1):
        return 1 / (1 + self.args[0])


class expm1(sp.Function):  # noqa: N801
    """``exp(x) - 1``, evaluated with ``ctx.expm1``."""

    def fdiff(self, argindex=1):
        return sp.exp(self.args[0])


class _MatNode(sp.MatrixExpr):
    """Base of the custom matrix-valued nodes: arguments are SymPy objects, shape from ``_shape``."""

    _op = ""

    def __new__(cls, *args):
        return sp.Basic.__new__(cls, *(sp.sympify(a, strict=False) if not isinstance(a, sp.Basic) else a
                                       for a in args))

    @property
    def shape(self):
        return self._shape()

    def _latex(self, printer):
        return rf"\operatorname{{{self._op}}}\left({', '.join(printer._print(a) for a in self.args)}\right)"


def _need_matrix(what: str, x) -> None:
    if not is_matrix(x):
        raise ExprError(f"{what} needs a matrix argument, got the scalar {x}")


class Softmax(_MatNode):
    """``softmax(x)``: a column vector's entries, or each row of a matrix, normalised (see module doc)."""

    _op = "softmax"

    def __new__(cls, x):
        _need_matrix("softmax", x)
        return super().__new__(cls, x)

    def _shape(self):
        return self.args[0].shape


class LogSumExp(sp.Expr):
    """``logsumexp(x) = log sum_i exp(x_i)`` of a vector (a scalar)."""

    is_commutative = True

    def __new__(cls, x):
        _need_matrix("logsumexp", x)
        if not (x.shape[0] == 1 or x.shape[1] == 1):
            raise ExprError(f"logsumexp needs a vector, got shape {x.shape}")
        return sp.Expr.__new__(cls, x)

    def _latex(self, printer):
        return rf"\operatorname{{logsumexp}}\left({printer._print(self.args[0])}\right)"


class Vec(_MatNode):
    """``vec(A)``: the columns of ``A`` stacked (column-major), shape ``(rows*cols, 1)``."""

    _op = "vec"

    def __new__(cls, a):
        _need_matrix("vec", a)
        return super().__new__(cls, a)

    def _shape(self):
        r, c = self.args[0].shape
        return (r * c, sp.Integer(1))


class _SquareFn(_MatNode):
    def __new__(cls, a):
        _need_matrix(cls._op, a)
        if a.shape[0] != a.shape[1]:
            raise ShapeError(f"{cls._op} needs a square matrix, got shape {a.shape}")
        return super().__new__(cls, a)

    def _shape(self):
        return self.args[0].shape


class Expm(_SquareFn):
    """The matrix exponential (``ctx.expm``)."""

    _op = "expm"


class Logm(_SquareFn):
    """The principal matrix logarithm (``ctx.logm``)."""

    _op = "logm"


class Sqrtm(_SquareFn):
    """The principal matrix square root (``ctx.sqrtm``)."""

    _op = "sqrtm"


class Cholesky(_SquareFn):
    """The lower Cholesky factor ``L`` of an SPD matrix, ``A = L L^T`` (``ctx.cholesky``)."""

    _op = "chol"


class Tril(_SquareFn):
    """The lower triangle, diagonal included (``ctx.tril``)."""

    _op = "tril"


class Triu(_SquareFn):
    """The upper triangle, diagonal included (``ctx.triu``)."""

    _op = "triu"


def _wrt_ok(x) -> None:
    if not isinstance(x, (sp.MatrixSymbol, sp.Symbol)):
        raise ExprError(f"a derivative is taken with respect to a variable (a name), got {x}")


class Grad(_MatNode):
    """``grad(f, X)``: the gradient of the scalar ``f`` with respect to ``X``, same shape as ``X``.

    Layout ``G_ij = df/dX_ij`` (Matrix Cookbook, SymPy, PyTorch, JAX).  Evaluated by the engine's
    oracle ``ctx.grad``, or ``ctx.sym_grad`` = ``(G + G^T)/2`` when ``X`` is declared symmetric/SPD.
    """

    _op = "grad"

    def __new__(cls, f, X):
        _wrt_ok(X)
        if not isinstance(X, sp.MatrixSymbol):
            raise ExprError(f"grad(f, {X}) needs a matrix or vector variable; for a scalar use jacobian or diff")
        if is_matrix(f) and tuple(f.shape) != (1, 1):
            raise ShapeError(f"grad needs a scalar function, got shape {f.shape} (use jacobian)")
        return super().__new__(cls, f, X)

    def _shape(self):
        return self.args[1].shape

    def _latex(self, printer):
        return rf"\nabla_{{{printer._print(self.args[1])}}}\left({printer._print(self.args[0])}\right)"


def _numel(x):
    return (x.shape[0] * x.shape[1]) if is_matrix(x) else sp.Integer(1)


class Jacobian(_MatNode):
    """``jacobian(F, x)``: ``J_ij = dF_i/dx_j`` (row-major flattening), shape ``(numel F, numel x)``."""

    _op = "jacobian"

    def __new__(cls, F, x):
        _wrt_ok(x)
        return super().__new__(cls, F, x)

    def _shape(self):
        return (_numel(self.args[0]), _numel(self.args[1]))

    def _latex(self, printer):
        return (rf"\frac{{\partial {printer._print(self.args[0])}}}"
                rf"{{\partial {printer._print(self.args[1])}}}")


class Hessian(_MatNode):
    """``hessian(f, x)``: ``H_ij = d^2 f / dx_i dx_j`` (row-major flattening of ``x``), shape ``(N, N)``."""

    _op = "hessian"

    def __new__(cls, f, x):
        _wrt_ok(x)
        if is_matrix(f) and tuple(f.shape) != (1, 1):
            raise ShapeError(f"hessian needs a scalar function, got shape {f.shape}")
        return super().__new__(cls, f, x)

    def _shape(self):
        n = _numel(self.args[1])
        return (n, n)

    def _latex(self, printer):
        return rf"\nabla^2_{{{printer._print(self.args[1])}}}\left({printer._print(self.args[0])}\right)"


def grad(f, X):
    """The node ``grad(f, X)`` (see :class:`Grad`); for a scalar variable ``x``, ``df/dx`` (a 1x1
    :class:`Jacobian`, compared as a scalar)."""
    if isinstance(X, sp.Symbol):
        return Jacobian(f, X)
    return Grad(f, X)


def jacobian(F, x) -> Jacobian:
    """The node ``jacobian(F, x)`` (see :class:`Jacobian`)."""
    return Jacobian(F, x)


def hessian(f, x) -> Hessian:
    """The node ``hessian(f, x)`` (see :class:`Hessian`)."""
    return Hessian(f, x)


# ---------------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------------
@dataclass
class Env:
    """What a recipe is applied to: the context, the instance's values, its sizes, structures, bound dummies."""

    ctx: Any
    values: Mapping[str, Any]
    dims: Mapping[str, int] = field(default_factory=dict)
    structure: Mapping[str, str] = field(default_factory=dict)
    bound: Mapping[Any, Any] = field(default_factory=dict)

    def bind(self, name: str, value) -> "Env":
        """A copy with ``values[name] = value`` (other values are broadcast if the oracle stacked a
        larger batch: ``value.shape[0] = q * batch`` repeats each other value ``q`` times, tiled)."""
        vals = dict(self.values)
        old = vals.get(name)
        nb = np.shape(value)[0] if np.ndim(value) else None
        ob = np.shape(old)[0] if old is not None and np.ndim(old) else None
        if nb is not None and ob and nb != ob and nb % ob == 0:
            q = nb // ob
            for k, v in vals.items():
                if isinstance(v, np.ndarray) and v.ndim and v.shape[0] == ob and k != name:
                    vals[k] = np.concatenate([v] * q, axis=0)
        vals[name] = value
        return Env(self.ctx, vals, self.dims, self.structure, self.bound)

    def with_bound(self, dummy, value) -> "Env":
        """A copy with the ``Lambda`` variable ``dummy`` bound to ``value``."""
        return Env(self.ctx, self.values, self.dims, self.structure, {**self.bound, dummy: value})


Recipe = Callable[[Env], Any]


def _is_mat_value(v) -> bool:
    return np.ndim(v) >= 2


def _as_scalar(v, what: str):
    """A value used as a scalar: a ``1 x 1`` matrix becomes its entry; a larger matrix is a shape error."""
    if _is_mat_value(v):
        if np.shape(v)[-2:] == (1, 1):
            return v[..., 0, 0]
        raise ShapeMismatch(f"{what}: a matrix of shape {np.shape(v)[-2:]} is used as a scalar")
    return v


def _lift(s, m):
    """Scalar ``s`` (``()`` or ``(batch,)``) shaped to multiply/add the matrix ``m``."""
    if np.ndim(s) == 1 and _is_mat_value(m):
        return s[:, None, None]
    return s


def _mul(a, b):
    if _is_mat_value(a) != _is_mat_value(b):
        a, b = (_lift(a, b), b) if _is_mat_value(b) else (a, _lift(b, a))
    return a * b


def _add(a, b):
    if _is_mat_value(a) != _is_mat_value(b):
        a, b = (_lift(a, b), b) if _is_mat_value(b) else (a, _lift(b, a))
    return a + b


def _matmul(a, b):
    if not (_is_mat_value(a) and _is_mat_value(b)):
        return _mul(a, b)
    if a.shape[-1] != b.shape[-2]:
        raise ShapeMismatch(f"matrix product of shapes {a.shape[-2:]} and {b.shape[-2:]} does not conform")
    return a @ b


def _const(ctx, e):
    """A SymPy number as a constant of ``ctx`` (rationals exact to the working precision)."""
    if e.is_Integer:
        return int(e)
    if e.is_Rational:
        return ctx.scalar(int(e.p)) / ctx.scalar(int(e.q))
    if e is sp.pi:
        return ctx.pi
    if e is sp.E:
        return ctx.exp(ctx.scalar(1))
    if e.is_Float:
        if ctx.is_mp:
            import mpmath

            return mpmath.mpf(str(e))
        return ctx.scalar(float(e))
    raise ExprError(f"cannot evaluate the number {e} ({type(e).__name__}): real constants only")


def _size(e, env: Env) -> int:
    """A SymPy size (integer or a size letter, or a product of them) as an int."""
    if isinstance(e, (int, np.integer)):
        return int(e)
    e = sp.sympify(e)
    if e.is_Integer:
        return int(e)
    try:
        v = e.subs({sp.Symbol(k, integer=True, positive=True): v for k, v in env.dims.items()})
        v = v.subs({sp.Symbol(k): v2 for k, v2 in env.dims.items()})
    except Exception as exc:  # noqa: BLE001
        raise ExprError(f"size {e} cannot be evaluated: {exc}") from None
    if not v.is_Integer:
        raise ExprError(f"size {e} has no value (sizes known: {dict(env.dims)})")
    return int(v)


_ELEMENTWISE = {"sin": "sin", "cos": "cos", "tan": "tan", "tanh": "tanh", "exp": "exp", "log": "log",
                "Abs": "abs", "sigmoid": "sigmoid", "softplus": "softplus", "log1p": "log1p", "expm1": "expm1"}
"""SymPy function class name -> ``ctx`` method (elementwise on any shape)."""


class _Lazy:
    """A message formatted on first use (SymPy's ``str`` is slow: not on the oracle's hot path)."""

    def __init__(self, fn):
        self.fn = fn

    def __str__(self):
        return self.fn()

    __format__ = lambda self, spec: format(str(self), spec)  # noqa: E731


class _Compiler:
    """Turns a SymPy tree into a recipe; one ``_c_<ClassName>`` method per supported node class."""

    def compile(self, e) -> Recipe:
        if isinstance(e, (int, float)) and not isinstance(e, bool):
            e = sp.sympify(e)
        for cls in type(e).__mro__:
            meth = getattr(self, f"_c_{cls.__name__}", None)
            if meth is not None:
                return meth(e)
            if cls.__name__ in _ELEMENTWISE and isinstance(e, sp.Function):
                return self._elementwise(e, _ELEMENTWISE[cls.__name__])
        raise ExprError(f"cannot evaluate a {type(e).__name__} node ({e}): not supported in expression sides")

    # -- leaves ---------------------------------------------------------------------------
    def _c_Number(self, e):
        return lambda env: _const(env.ctx, e)

    def _c_NumberSymbol(self, e):
        return lambda env: _const(env.ctx, e)

    def _c_ImaginaryUnit(self, e):
        raise ExprError("cannot evaluate the imaginary unit I: expression sides are real (write complex identities "
                        "as callables with the ctx's complex support)")

    def _c_Dummy(self, e):
        def run(env):
            try:
                return env.bound[e]
            except KeyError:
                raise ExprError(f"unbound variable {e}") from None
        return run

    def _c_Symbol(self, e):
        name = e.name

        def run(env):
            if name in env.values:
                return env.values[name]
            if name in env.dims:
                return int(env.dims[name])
            raise ExprError(f"symbol {name!r} has no value (not a sampled scalar or a size)")
        return run

    def _c_MatrixSymbol(self, e):
        name = e.name

        def run(env):
            try:
                return env.values[name]
            except KeyError:
                raise ExprError(f"matrix {name!r} has no value in the instance") from None
        return run

    def _c_Identity(self, e):
        n = e.shape[0]
        return lambda env: env.ctx.eye(_size(n, env))

    def _c_ZeroMatrix(self, e):
        r, c = e.shape
        return lambda env: env.ctx.zeros((_size(r, env), _size(c, env)))

    def _c_OneMatrix(self, e):
        r, c = e.shape
        return lambda env: env.ctx.zeros((_size(r, env), _size(c, env))) + 1

    def _c_MatrixElement(self, e):
        parent = self.compile(e.parent)
        i, j = e.i, e.j
        return lambda env: parent(env)[..., _size(i, env), _size(j, env)]

    # -- scalar algebra -------------------------------------------------------------------
    def _c_Add(self, e):
        parts = [self.compile(a) for a in e.args]

        def run(env):
            out = parts[0](env)
            for p in parts[1:]:
                out = _add(out, p(env))
            return out
        return run

    def _c_Mul(self, e):
        parts = [self.compile(a) for a in e.args]

        def run(env):
            out = parts[0](env)
            for p in parts[1:]:
                out = _mul(out, p(env))
            return out
        return run

    def _c_Pow(self, e):
        base, ex = e.args
        b = self.compile(base)
        if ex.is_Number:
            if ex == sp.Rational(1, 2):
                return lambda env: env.ctx.sqrt(b(env))
            if ex == sp.Rational(-1, 2):
                return lambda env: 1 / env.ctx.sqrt(b(env))
            if ex.is_Integer:
                k = int(ex)
                if k >= 0:
                    return lambda env: b(env) ** k
                return lambda env: 1 / (b(env) ** (-k))
            return lambda env: env.ctx.power(b(env), _const(env.ctx, ex))
        x = self.compile(ex)
        return lambda env: env.ctx.exp(_mul(x(env), env.ctx.log(b(env))))

    def _elementwise(self, e, method):
        if len(e.args) != 1:
            raise ExprError(f"{type(e).__name__} takes one argument")
        arg = self.compile(e.args[0])
        return lambda env: getattr(env.ctx, method)(arg(env))

    def _c_Max(self, e):
        raise ExprError("cannot evaluate Max: not supported in expression sides")

    # -- matrix algebra -------------------------------------------------------------------
    def _c_MatMul(self, e):
        parts = [self.compile(a) for a in e.args]

        def run(env):
            out = parts[0](env)
            for p in parts[1:]:
                out = _matmul(out, p(env))
            return out
        return run

    def _c_MatAdd(self, e):
        return self._c_Add(e)

    def _c_HadamardProduct(self, e):
        parts = [self.compile(a) for a in e.args]

        def run(env):
            out = parts[0](env)
            for p in parts[1:]:
                out = env.ctx.hadamard(out, p(env))
            return out
        return run

    def _c_HadamardPower(self, e):
        base, ex = self.compile(e.base), e.exp
        if not ex.is_Number:
            raise ExprError(f"HadamardPower with a symbolic exponent {ex} is not supported")
        return lambda env: env.ctx.hadamard_power(base(env), _const(env.ctx, ex))

    def _c_KroneckerProduct(self, e):
        parts = [self.compile(a) for a in e.args]

        def run(env):
            out = parts[0](env)
            for p in parts[1:]:
                out = env.ctx.kron(out, p(env))
            return out
        return run

    def _c_MatPow(self, e):
        base, ex = e.args
        b = self.compile(base)
        if ex == sp.Rational(1, 2):
            return lambda env: env.ctx.sqrtm(b(env))
        if ex == sp.Rational(-1, 2):
            return lambda env: env.ctx.inv(env.ctx.sqrtm(b(env)))
        if not ex.is_Integer:
            raise ExprError(f"cannot evaluate the matrix power {e}: integer or +-1/2 exponents only")
        k = int(ex)

        def run(env):
            m = b(env)
            if k < 0:
                m = env.ctx.inv(m)
            if k == 0:
                return env.ctx.eye(np.shape(m)[-1])
            out = m
            for _ in range(abs(k) - 1):
                out = out @ m
            return out
        return run

    def _c_Inverse(self, e):
        a = self.compile(e.arg)
        return lambda env: env.ctx.inv(a(env))

    def _c_Transpose(self, e):
        a = self.compile(e.arg)
        return lambda env: env.ctx.T(a(env))

    def _c_Trace(self, e):
        a = self.compile(e.arg)
        return lambda env: env.ctx.trace(a(env))

    def _c_Determinant(self, e):
        a = self.compile(e.arg)
        return lambda env: env.ctx.det(a(env))

    def _c_ElementwiseApplyFunction(self, e):
        fn, arg = e.function, self.compile(e.expr)
        if not isinstance(fn, sp.Lambda) or len(fn.variables) != 1:
            fn = sp.Lambda(sp.Dummy("d"), fn(sp.Dummy("d")))
        var, body = fn.variables[0], self.compile(fn.expr)
        return lambda env: body(env.with_bound(var, arg(env)))

    def _c_DiagMatrix(self, e):
        v = self.compile(e.args[0])
        col = e.args[0].shape[1] == 1

        def run(env):
            x = v(env)
            return env.ctx.diag(x[..., :, 0] if col else x[..., 0, :])
        return run

    def _c_DiagonalOf(self, e):
        a = self.compile(e.arg)
        return lambda env: env.ctx.diag_part(a(env))[..., :, None]

    def _c_Softmax(self, e):
        x = self.compile(e.args[0])
        axis = -2 if e.args[0].shape[1] == 1 else -1
        return lambda env: env.ctx.softmax(x(env), axis=axis)

    def _c_LogSumExp(self, e):
        x = self.compile(e.args[0])
        col = e.args[0].shape[1] == 1

        def run(env):
            v = x(env)
            return env.ctx.logsumexp(v[..., :, 0] if col else v[..., 0, :], axis=-1)
        return run

    def _c_Vec(self, e):
        a = self.compile(e.args[0])
        return lambda env: env.ctx.vec(a(env))

    def _c_Expm(self, e):
        a = self.compile(e.args[0])
        return lambda env: env.ctx.expm(a(env))

    def _c_Logm(self, e):
        a = self.compile(e.args[0])
        return lambda env: env.ctx.logm(a(env))

    def _c_Sqrtm(self, e):
        a = self.compile(e.args[0])
        return lambda env: env.ctx.sqrtm(a(env))

    def _c_Cholesky(self, e):
        a = self.compile(e.args[0])
        return lambda env: env.ctx.cholesky(a(env))

    def _c_Tril(self, e):
        a = self.compile(e.args[0])
        return lambda env: env.ctx.tril(a(env))

    def _c_Triu(self, e):
        a = self.compile(e.args[0])
        return lambda env: env.ctx.triu(a(env))

    # -- derivatives (the engine's oracle) --------------------------------------------------
    def _derivative(self, e, method):
        f, x = e.args
        body, name = self.compile(f), x.name
        scalar_out = method != "jacobian"
        label = _Lazy(lambda: f"{method}({f}, {x})")  # formatted only for an error message

        def run(env):
            x0 = env.values.get(name)
            if x0 is None:
                raise ExprError(f"{method}: variable {name!r} has no value in the instance")

            def fn(xv):
                out = body(env.bind(name, xv))
                return _as_scalar(out, label) if scalar_out else out

            op = method
            if method == "grad" and env.structure.get(name) in ("symmetric", "spd"):
                op = "sym_grad"
            return getattr(env.ctx, op)(fn, x0)
        return run

    def _c_Grad(self, e):
        return self._derivative(e, "grad")

    def _c_Jacobian(self, e):
        return self._derivative(e, "jacobian")

    def _c_Hessian(self, e):
        return self._derivative(e, "hessian")


_COMPILER = _Compiler()


@functools.lru_cache(maxsize=4096)
def compile_expr(expr) -> Recipe:
    """The recipe of a SymPy expression (cached by expression).

    Raises ExprError naming the first unsupported node (e.g. ``cannot evaluate a Max node``).
    """
    return _COMPILER.compile(sp.sympify(expr) if not isinstance(expr, sp.Basic) else expr)


def _batch_of(values: Mapping[str, Any]) -> int | None:
    for v in values.values():
        if isinstance(v, np.ndarray) and v.ndim >= 1:
            return int(v.shape[0])
    return None


def _normalize(v, batch: int | None):
    """A side's value in the engine's layout: ``(batch,)`` for scalars (1x1 matrices included),
    ``(batch, rows, cols)`` for matrices."""
    v = np.asarray(v) if not isinstance(v, np.ndarray) else v
    if v.ndim >= 2 and v.shape[-2:] == (1, 1):
        v = v[..., 0, 0]
    if batch is not None:
        if v.ndim == 0:
            v = np.broadcast_to(v, (batch,)).copy()
        elif v.ndim == 2:
            v = np.broadcast_to(v, (batch,) + v.shape).copy()
    return v


def evaluate(recipe: Recipe, ctx, values: Mapping[str, Any], dims: Mapping[str, int] | None = None,
             structure: Mapping[str, str] | None = None):
    """Apply ``recipe`` to a batch of ``values`` (arrays with a leading batch axis) at precision ``ctx``.

    Returns ``(batch,)`` for scalar (and 1x1) results, ``(batch, rows, cols)`` for matrices.
    """
    out = recipe(Env(ctx, values, dict(dims or {}), dict(structure or {})))
    return _normalize(out, _batch_of(values))


def side(expr, *, structure: Mapping[str, str] | None = None) -> Callable:
    """A statement side ``(inst, ctx) -> array`` from a SymPy expression (compiled now, so an
    unsupported node fails at definition time).  Sizes come from ``inst["_dims"]`` when present."""
    recipe = compile_expr(expr)
    structure = dict(structure or {})

    def fn(inst, ctx):
        dims = inst.get("_dims", {}) if hasattr(inst, "get") else {}
        return evaluate(recipe, ctx, inst, dims, structure)

    fn.expr = expr
    return fn


# ---------------------------------------------------------------------------------------------
# parsing strings
# ---------------------------------------------------------------------------------------------
def _elementwise_fn(name: str, scalar_fn):
    def f(x):
        if is_matrix(x):
            return x.applyfunc(scalar_fn)
        return scalar_fn(x)
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
    _need_matrix("diag", x)
    if x.shape[1] == 1 or x.shape[0] == 1:
        if x.shape[0] == 1 and x.shape[1] != 1:
            x = x.T
        return DiagMatrix(x)
    return DiagonalOf(x)


def _kron(*args):
    for a in args:
        _need_matrix("kron", a)
    return sp.KroneckerProduct(*args)


def _hadamard(*args):
    for a in args:
        _need_matrix("hadamard", a)
    return sp.HadamardProduct(*args)


FUNCTIONS: dict[str, Any] = {
    "trace": _trace, "tr": _trace, "det": _det, "inv": _inv,
    "grad": grad, "jacobian": jacobian, "hessian": hessian,
    "softmax": Softmax, "logsumexp": LogSumExp, "vec": Vec, "kron": _kron, "diag": _diag,
    "hadamard": _hadamard, "expm": Expm, "logm": Logm, "sqrtm": Sqrtm, "cholesky": Cholesky,
    "tril": Tril, "triu": Triu, "eye": sp.Identity, "zeros": sp.ZeroMatrix, "ones": sp.OneMatrix,
    "sin": _elementwise_fn("sin", sp.sin), "cos": _elementwise_fn("cos", sp.cos),
    "tan": _elementwise_fn("tan", sp.tan), "tanh": _elementwise_fn("tanh", sp.tanh),
    "exp": _elementwise_fn("exp", sp.exp), "log": _elementwise_fn("log", sp.log),
    "log1p": _elementwise_fn("log1p", log1p), "expm1": _elementwise_fn("expm1", expm1),
    "sqrt": _elementwise_fn("sqrt", sp.sqrt), "abs": _elementwise_fn("abs", sp.Abs),
    "Abs": _elementwise_fn("Abs", sp.Abs), "sigmoid": _elementwise_fn("sigmoid", sigmoid),
    "softplus": _elementwise_fn("softplus", softplus),
    "pi": sp.pi, "E": sp.E,
}
"""Names the string syntax knows (functions and constants).  Elementwise functions of a matrix act
entrywise; ``expm``/``logm``/``sqrtm`` are the matrix functions."""


def size_symbol(name: str) -> sp.Symbol:
    """The SymPy symbol of a size letter (``integer=True, positive=True``)."""
    return sp.Symbol(name, integer=True, positive=True)


def _tokens(text: str, what: str):
    what = f"{what}=" if what else ""
    try:
        return [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT,
                                  tokenize.DEDENT)]
    except tokenize.TokenError as exc:
        msg = str(exc.args[0]) if exc.args else str(exc)
        if "EOF" in msg:
            opens = sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")
            raise ParseError(f"{what}{text!r}: unbalanced parenthesis ({opens} '(' not closed)") from None
        raise ParseError(f"{what}{text!r}: cannot tokenize: {msg}") from None
    except (SyntaxError, IndentationError) as exc:
        raise ParseError(f"{what}{text!r}: cannot tokenize: {exc.msg}") from None


def _names(text: str, what: str) -> list[tuple[str, bool, bool]]:
    """(name, called, used_as_matrix) for each NAME token that is not an attribute."""
    toks = _tokens(text, what)
    what = f"{what}=" if what else ""
    out = []
    for i, t in enumerate(toks):
        if t.type == tokenize.OP and t.string not in "()[]{},+-*/@.=^" and t.string not in ("**",):
            raise ParseError(f"{what}{text!r}: unexpected token {t.string!r} at column {t.start[1] + 1}")
        if t.type == tokenize.ERRORTOKEN and t.string.strip():
            raise ParseError(f"{what}{text!r}: unexpected token {t.string!r} at column {t.start[1] + 1}")
        if t.type != tokenize.NAME:
            continue
        if i > 0 and toks[i - 1].string == ".":
            continue
        if keyword.iskeyword(t.string):
            raise ParseError(f"{what}{text!r}: unexpected token {t.string!r} at column {t.start[1] + 1}")
        nxt = toks[i + 1].string if i + 1 < len(toks) else ""
        out.append((t.string, nxt == "(", nxt == "."))
    return out


def _syntax_error_token(text: str, exc: SyntaxError) -> str:
    if not exc.offset or exc.offset - 1 >= len((exc.text or text).rstrip()):
        return "end of input"
    off = exc.offset - 1
    line = exc.text or text
    tok = line[off:off + 1].strip() or line[max(0, off - 1):off].strip()
    try:
        for t in tokenize.generate_tokens(io.StringIO(line).readline):
            if t.start[1] <= off < max(t.end[1], t.start[1] + 1):
                tok = t.string
                break
    except (tokenize.TokenError, SyntaxError):
        pass
    return tok or "end of input"


def _shape_value(v, dims):
    if isinstance(v, str):
        if dims is not None:
            if v not in dims:
                raise InvalidArgument(f"size {v!r} has no value in dims={dict(dims)!r}")
            return int(dims[v])
        return size_symbol(v)
    return int(v)


def parse(text: str, shapes: Mapping[str, tuple], dims: Mapping[str, int] | None = None, *,
          what: str = "expression"):
    """Parse one side in SymPy syntax into a SymPy expression.

    Parameters
    ----------
    text : str
        ``*`` matrix product, ``.T``, ``**-1``, ``trace``, ``det``, ``grad(f, X)``, ... (:data:`FUNCTIONS`).
    shapes : mapping name -> (rows, cols)
        Matrix names; rows/cols are ints or size letters.  Other names are scalars, except size
        letters (which are integers: ``sqrt(d)``) and the known function names.
    dims : mapping letter -> int, optional
        Concrete sizes (then a product that does not conform raises ShapeMismatch); without it
        sizes stay symbolic (``integer=True, positive=True`` symbols).

    Raises
    ------
    ParseError
        One line naming the offending token; an unknown function; a scalar used as a matrix.
    ShapeMismatch
        The expression does not conform (with concrete dims, or a structural mismatch).
    """
    try:
        return _parse(text, _freeze(shapes), _freeze(dims) if dims is not None else None)
    except (ParseError, ShapeMismatch) as exc:
        msg = str(exc)
        raise type(exc)(f"{what}={msg}" if msg.startswith("'") else msg) from None


def _freeze(m):
    return tuple(sorted((k, tuple(v) if isinstance(v, (list, tuple)) else v) for k, v in m.items()))


@functools.lru_cache(maxsize=2048)
def _parse(text: str, shapes: tuple, dims: tuple | None):
    """Cached parse; error messages start with ``repr(text)`` (:func:`parse` prefixes the side's name)."""
    shapes_d = dict(shapes)
    dims_d = dict(dims) if dims is not None else None
    if not text.strip():
        raise ParseError(f"{text!r}: empty side")
    letters = {v for s in shapes_d.values() for v in s if isinstance(v, str)}
    local: dict[str, Any] = {}
    for name, called, dotted in _names(text, ""):
        if name in shapes_d:
            r, c = (_shape_value(v, dims_d) for v in shapes_d[name])
            local[name] = sp.MatrixSymbol(name, r, c)
        elif name in FUNCTIONS:
            if name not in ("pi", "E") and not called:
                raise ParseError(f"{text!r}: function {name!r} must be called, as {name}(...)")
            local[name] = FUNCTIONS[name]
        elif called:
            raise ParseError(f"{text!r}: unknown function {name!r} (known: "
                             f"{', '.join(sorted(k for k in FUNCTIONS if k not in ('pi', 'E')))})")
        elif name in letters:
            local[name] = sp.Integer(dims_d[name]) if dims_d is not None else size_symbol(name)
        else:
            if dotted:
                raise ParseError(f"{text!r}: {name!r} is used as a matrix ({name}.…) but has no shape "
                                 f"(declare it, e.g. --shape {name}=n,n)")
            local[name] = sp.Symbol(name, real=True)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ParseError(f"{text!r}: parse error at {_syntax_error_token(text.strip(), exc)!r}") from None
    tree = ast.fix_missing_locations(_Rewrite(text.strip()).visit(tree))
    env = {"__builtins__": {}, "_T": sp.Transpose, "_num": _num, "_pow": _pow, **local}
    try:
        expr = eval(compile(tree, "<statement>", "eval"), env)  # noqa: S307 - names restricted to `env`
    except ShapeError as exc:
        raise ShapeMismatch(f"{text!r} does not conform: {_shape_msg(exc)}") from None
    except ExprError:
        raise
    except TypeError as exc:
        msg = str(exc)
        if "Mix of Matrix and Scalar" in msg:
            raise ShapeMismatch(f"{text!r} adds a matrix to a scalar (a 1x1 product x.T*x is a matrix to "
                                "SymPy: wrap it in trace(...) to add it to a scalar)") from None
        raise ParseError(f"{text!r}: cannot interpret: {msg.splitlines()[0]}") from None
    except (AttributeError, ValueError, IndexError, KeyError, NameError, ZeroDivisionError) as exc:
        raise ParseError(f"{text!r}: cannot interpret: {str(exc).splitlines()[0] or type(exc).__name__}") \
            from None
    if isinstance(expr, (tuple, list)):
        raise ParseError(f"{text!r}: a side is one expression (found a tuple: a stray ',')")
    if not isinstance(expr, sp.Basic):
        expr = sp.sympify(expr)
    return expr


def _pow(base, exponent):
    """``base ** exponent`` as written.  A matrix power stays an unevaluated ``MatPow`` unless the
    base is a single matrix symbol with an integer exponent: SymPy's own ``**`` folds
    ``(A*A)**(1/2)`` into ``A`` (false: the principal root of ``A^2`` is ``|A|``, not ``A``) and
    rewrites ``(A*B)**-1`` as ``B**-1*A**-1``, so the statement typed would never be evaluated."""
    if isinstance(base, sp.MatrixExpr):
        exponent = sp.sympify(exponent)
        if not (isinstance(base, sp.MatrixSymbol) and exponent.is_Integer):
            return sp.MatPow(base, exponent)
    return base ** exponent


def _num(text: str):
    """A numeric literal as an exact SymPy number (``0.1`` is ``1/10``)."""
    return sp.Rational(text) if any(c in text for c in ".eE") else sp.Integer(int(text))


class _Rewrite(ast.NodeTransformer):
    """``x.T`` -> ``Transpose(x)`` (kept unevaluated, so the statement prints as written), numeric
    literals -> exact SymPy numbers, ``^`` and ``**`` -> :func:`_pow` (matrix powers of products kept
    as written); anything but expressions is refused."""

    _ALLOWED = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Call, ast.Name, ast.Load, ast.Attribute, ast.Constant,
                ast.operator, ast.unaryop, ast.keyword)

    def __init__(self, text: str):
        self.text = text

    def generic_visit(self, node):
        if not isinstance(node, self._ALLOWED):
            col = getattr(node, "col_offset", 0)
            seg = ast.get_source_segment(self.text, node) or type(node).__name__
            raise ParseError(f"{self.text!r}: unexpected {seg!r} at column {col + 1}")
        return super().generic_visit(node)

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr == "T":
            return ast.copy_location(ast.Call(ast.Name("_T", ast.Load()), [node.value], []), node)
        return node

    def visit_Constant(self, node):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ParseError(f"{self.text!r}: unexpected {node.value!r} at column {node.col_offset + 1}")
        seg = ast.get_source_segment(self.text, node) or repr(node.value)
        return ast.copy_location(ast.Call(ast.Name("_num", ast.Load()), [ast.Constant(seg)], []), node)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, (ast.BitXor, ast.Pow)):   # ``^`` is ``**``; both keep what was written
            return ast.copy_location(ast.Call(ast.Name("_pow", ast.Load()), [node.left, node.right], []), node)
        return node


def _shape_msg(exc: Exception) -> str:
    args = getattr(exc, "args", ())
    return " ".join(str(a) for a in args) if args else str(exc)


def parse_statement(text: str) -> tuple[str, str]:
    """Split ``"LHS = RHS"`` at its one top-level ``=``; ParseError otherwise."""
    toks = _tokens(text, "statement")
    eqs = [t for t in toks if t.type == tokenize.OP and t.string in ("=", "==")]
    if len(eqs) != 1:
        raise ParseError(f"statement={text!r} must have exactly one '=' (found {len(eqs)})")
    t = eqs[0]
    col = t.start[1]
    lines = text.splitlines() or [text]
    flat_off = sum(len(ln) + 1 for ln in lines[:t.start[0] - 1]) + col
    lhs, rhs = text[:flat_off], text[flat_off + len(t.string):]
    if not lhs.strip():
        raise ParseError(f"statement={text!r}: nothing left of '='")
    if not rhs.strip():
        raise ParseError(f"statement={text!r}: nothing right of '='")
    return lhs.strip(), rhs.strip()
