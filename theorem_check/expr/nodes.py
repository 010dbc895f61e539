"""The expression nodes SymPy lacks (softmax, logsumexp, vec, matrix functions, grad/jacobian/hessian)
and the errors of the expression layer."""


import sympy as sp
from sympy.matrices.exceptions import ShapeError

from theorem_check.errors import TheoremCheckError

__all__ = ["Cholesky", "Expm", "ExprError", "Grad", "Hessian", "Jacobian", "LogSumExp", "Logm", "ParseError", "Softmax", "Sqrtm", "Tril", "Triu", "Vec", "expm1", "grad", "hessian", "is_matrix", "jacobian", "log1p", "need_matrix", "sigmoid", "softplus"]


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


def need_matrix(what: str, x) -> None:
    if not is_matrix(x):
        raise ExprError(f"{what} needs a matrix argument, got the scalar {x}")


class Softmax(_MatNode):
    """``softmax(x)``: a column vector's entries, or each row of a matrix, normalised (see module doc)."""

    _op = "softmax"

    def __new__(cls, x):
        need_matrix("softmax", x)
        return super().__new__(cls, x)

    def _shape(self):
        return self.args[0].shape


class LogSumExp(sp.Expr):
    """``logsumexp(x) = log sum_i exp(x_i)`` of a vector (a scalar)."""

    is_commutative = True

    def __new__(cls, x):
        need_matrix("logsumexp", x)
        if not (x.shape[0] == 1 or x.shape[1] == 1):
            raise ExprError(f"logsumexp needs a vector, got shape {x.shape}")
        return sp.Expr.__new__(cls, x)

    def _latex(self, printer):
        return rf"\operatorname{{logsumexp}}\left({printer._print(self.args[0])}\right)"


class Vec(_MatNode):
    """``vec(A)``: the columns of ``A`` stacked (column-major), shape ``(rows*cols, 1)``."""

    _op = "vec"

    def __new__(cls, a):
        need_matrix("vec", a)
        return super().__new__(cls, a)

    def _shape(self):
        r, c = self.args[0].shape
        return (r * c, sp.Integer(1))


class _SquareFn(_MatNode):
    def __new__(cls, a):
        need_matrix(cls._op, a)
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
