"""The expression nodes SymPy lacks (softmax, logsumexp, vec, matrix functions, grad/jacobian/hessian)
and the errors of the expression layer."""


import sympy as sp
from sympy.matrices.exceptions import ShapeError

from theorem_check.errors import ExprError, ParseError  # noqa: F401 - re-exported: their old home

__all__ = ["Cholesky", "Conj", "Imag", "Real", "Expm", "ExprError", "Grad", "GradXY", "Hessian", "Jacobian", "LogSumExp", "LogSumExpAxis", "Logm", "NotDifferentiable", "ParseError", "Softmax", "Sqrtm", "Tril", "Triu", "Vec", "check_axis", "default_axis", "entry_beside_scalar", "entrywise", "expm1", "grad", "grad_xy", "hessian", "has_matrix", "is_matrix", "is_total", "is_zero_as_built", "jacobian", "log1p", "logsumexp", "need_matrix", "sigmoid", "softplus"]


class NotDifferentiable(ExprError):
    """An expression has a node outside the closed-form derivative rules (:mod:`theorem_check.expr.matrix_calculus`);
    one line naming it."""


def is_matrix(e) -> bool:
    """True for SymPy matrix expressions (``MatrixSymbol``, ``MatMul``, ``Grad``, ...)."""
    return isinstance(e, (sp.MatrixExpr, sp.MatrixBase))


def entry_beside_scalar(a, b):
    """``(a, b)`` with a ``1 x 1`` matrix beside a scalar read as its one entry (``trace``), as the LaTeX reader and
    the docs' convention ("a 1 x 1 matrix counts as a scalar") have it: ``1 + v.T*A**-1*u`` raised SymPy's "Mix of
    Matrix and Scalar", so Sherman-Morrison and the determinant lemma in the string syntax were ILL-POSED (helper-58;
    design decision 200).  A matrix that is ``1 x 1`` only at some sizes (``A + 1`` at ``n = 1``) is read so there and
    does not conform at the others, which the numeric stage runs too (ILL-POSED, as before).  A scalar beside a column
    or a row is that scalar times the vector of ones, as the LaTeX reader reads ``1 - \\sigma(x)`` (helper-73:
    ``sigmoid(-x) = 1 - sigmoid(x)`` of a column was ILL-POSED); beside any other matrix (square: the identity or the
    ones?) it stays a shape error.  Raises nothing."""
    if is_matrix(a) and not is_matrix(b) and tuple(a.shape) == (1, 1):
        return sp.Trace(a), b
    if is_matrix(b) and not is_matrix(a) and tuple(b.shape) == (1, 1):
        return a, sp.Trace(b)
    if is_matrix(a) and not has_matrix(b) and 1 in tuple(a.shape):
        return a, b * sp.OneMatrix(*a.shape)
    if is_matrix(b) and not has_matrix(a) and 1 in tuple(b.shape):
        return a * sp.OneMatrix(*b.shape), b
    return a, b


def has_matrix(e) -> bool:
    """True when the SymPy expression ``e`` is or contains a matrix expression (a matrix symbol, ``ones(3, 3)``,
    ``eye(n)``, a product of them), at any depth: ``det(ones(3, 3))`` is a scalar that has one."""
    return isinstance(e, sp.Basic) and any(isinstance(a, (sp.MatrixExpr, sp.MatrixBase)) for a in sp.preorder_traversal(e))


def is_zero_as_built(e) -> bool:
    """True when SymPy built ``e`` as zero, with no simplification: the number 0 or a ``ZeroMatrix`` (equality is
    structural, so a matrix expression equal to a zero matrix is one; no shape is built: ``diag`` of an ``n x k``
    argument has none, helper-53).  The one zero test of a difference ``lhs - rhs`` after SymPy's
    own folding (:func:`theorem_check.engine.symbolic.simplifies_to_zero`, :func:`theorem_check.authoring.spec.size_witness`)."""
    return e == 0 or bool(getattr(e, "is_ZeroMatrix", False))


def apply_entrywise(fn, A):
    """``fn`` (a scalar function or ``Lambda``) applied entrywise to the matrix ``A``: ``A.applyfunc(fn)``,
    except at 1 x 1.

    At 1 x 1, SymPy's ``ElementwiseApplyFunction`` first calls ``fn`` on the matrix itself (``tanh(X)`` of
    the matrix ``X``) and keeps a matrix result; whether that raises "Mix of Matrix and Scalar" depends on
    the order in which SymPy's assumption system, shuffled by an unseeded generator, asks its questions
    (SymPy 1.14), so the same statement was ILL-POSED in about one run of four.  There the node is built
    without that call, and ``f(g(A))`` is composed into one ``Lambda`` as SymPy's ``doit`` does at larger
    sizes, so no later ``doit`` takes that route either.  Raises nothing of its own.
    """
    if tuple(A.shape) != (1, 1):
        return A.applyfunc(fn)
    from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

    d = sp.Dummy("d")
    if isinstance(A, ElementwiseApplyFunction):
        inner, A = A.function, A.expr
        return sp.MatrixExpr.__new__(ElementwiseApplyFunction, sp.Lambda(d, fn(inner(d))), A)
    return sp.MatrixExpr.__new__(ElementwiseApplyFunction, sp.Lambda(d, fn(d)), A)


def entrywise(fn, A):
    """The scalar function ``fn`` (a ``Lambda`` of one variable) applied entrywise to ``A``, written with
    the nodes of the string syntax where the body allows: products become Hadamard products, sums matrix
    sums (a constant ``c`` is ``c ones``), ``g(d)`` the elementwise ``g(A)``, integer powers Hadamard powers
    (``sigmoid' = hadamard(sigmoid(A), ones - sigmoid(A))``), other numeric powers Hadamard powers
    (``log1p' = hadamard_power(ones + A, -1)``); otherwise SymPy's ``ElementwiseApplyFunction``."""
    if not isinstance(fn, sp.Lambda):   # SymPy returns the class itself for exp' = exp
        d = sp.Dummy("d")
        fn = sp.Lambda(d, fn(d))
    var, body = fn.variables[0], fn.expr
    r, c = A.shape

    def build(b):
        if b == var:
            return A
        if not b.has(var):
            return b * sp.OneMatrix(r, c)
        if isinstance(b, sp.Add):
            return sp.MatAdd(*[build(t) for t in b.args])
        if isinstance(b, sp.Mul):
            consts = [t for t in b.args if not t.has(var)]
            mats = [build(t) for t in b.args if t.has(var)]
            h = mats[0] if len(mats) == 1 else sp.HadamardProduct(*mats)
            return sp.Mul(*consts) * h if consts else h
        if isinstance(b, sp.Pow) and b.exp.is_Integer and int(b.exp) > 0 and not b.exp.has(var):
            base = build(b.base)
            return sp.HadamardProduct(*([base] * int(b.exp)))
        if isinstance(b, sp.Pow) and b.exp.is_Number:   # 1/(1 + d): hadamard_power(ones + A, -1)
            return sp.HadamardPower(build(b.base), b.exp)
        if isinstance(b, sp.Function) and len(b.args) == 1 and b.args[0] == var:
            return apply_entrywise(b.func, A)
        raise ValueError(b)
    try:
        return build(body)
    except ValueError:
        return apply_entrywise(fn, A)


# ---------------------------------------------------------------------------------------------
# custom SymPy nodes
# ---------------------------------------------------------------------------------------------
class sigmoid(sp.Function):  # noqa: N801 - named like SymPy's own functions (sin, exp)
    """The logistic function ``1 / (1 + exp(-x))`` (scalar; ``X.applyfunc(sigmoid)`` elementwise)."""

    def fdiff(self, argindex=1):
        s = sigmoid(self.args[0])
        return s * (1 - s)

    def _latex(self, printer, exp=None):
        out = rf"\sigma\left({printer._print(self.args[0])}\right)"
        return out if exp is None else rf"{out}^{{{exp}}}"   # sigmoid(x)**2: SymPy's printer passes the power


class softplus(sp.Function):  # noqa: N801
    """``log(1 + exp(x))`` (scalar; elementwise through ``applyfunc``); its derivative is ``sigmoid``."""

    def fdiff(self, argindex=1):
        return sigmoid(self.args[0])

    def _eval_evalf(self, prec):
        # SymPy evaluates a Function through mpmath's function of the same name; mpmath has no softplus
        return sp.log(1 + sp.exp(self.args[0]))._eval_evalf(prec)

    def _latex(self, printer, exp=None):
        out = rf"\operatorname{{softplus}}\left({printer._print(self.args[0])}\right)"
        return out if exp is None else rf"{out}^{{{exp}}}"


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


def as_matrix(x):
    """``x``, or a scalar ``x`` as the 1 x 1 matrix ``x * ones(1, 1)``: the argument of ``softmax``, ``logsumexp``,
    ``diag``, ``hadamard``, ``kron`` as the parser reads it (``softmax(x + 1)`` of a column ``x`` at n = 1, where ``x +
    1`` is read as x's entry plus 1, was "needs a matrix argument": helper-76)."""
    return x if is_matrix(x) else x * sp.OneMatrix(1, 1)


def need_matrix(what: str, x) -> None:
    if not is_matrix(x):
        raise ExprError(f"{what} needs a matrix argument, got the scalar {x}")


def default_axis(x) -> int:
    """The axis ``softmax(x)`` and ``logsumexp(x)`` reduce along when none is given: ``0`` (down the
    column, over its entries) when ``x``'s column count is the literal ``1`` (a column vector, as
    *declared*: ``z`` of shape ``(n, 1)``), else ``1`` (along each row, as in attention).

    The test is on the shape SymPy holds, which for the string syntax is the declared one: a size
    letter ``m`` is never the literal ``1``, even when ``m = 1`` is drawn (see :func:`theorem_check.expr.parse`).
    """
    return 0 if x.shape[1] == 1 else 1


def check_axis(what: str, axis) -> int:
    """``axis`` of a matrix reduction as ``0`` (down each column) or ``1`` (along each row);
    ``-2`` and ``-1`` are accepted (NumPy's counting from the end)."""
    try:
        a = int(axis)
    except (TypeError, ValueError):
        a = None
    if a is None or a != axis or a not in (0, 1, -1, -2):
        raise ExprError(f"{what}: axis={axis} must be 0 (down each column), 1 (along each row), -1 or -2")
    return a % 2


class Softmax(_MatNode):
    """``softmax(x, axis)``: ``exp(x) / sum exp(x)`` along ``axis`` of the matrix ``x`` (same shape).

    ``axis = 1`` normalises each row (attention: ``softmax(Q K^T / sqrt(d))``), ``axis = 0`` each
    column.  Without ``axis``, :func:`default_axis`: a column vector's entries, a matrix's rows.
    """

    _op = "softmax"

    def __new__(cls, x, axis=None):
        need_matrix("softmax", x)
        axis = default_axis(x) if axis is None else check_axis("softmax", axis)
        return super().__new__(cls, x, sp.Integer(axis))

    @property
    def axis(self) -> int:
        return int(self.args[1])

    def _shape(self):
        return self.args[0].shape

    def _latex(self, printer):
        return _reduction_latex(self, "softmax", printer)


def _reduction_latex(node, op, printer):
    x = node.args[0]
    extra = "" if node.axis == default_axis(x) else f", {node.axis}"
    return rf"\operatorname{{{op}}}\left({printer._print(x)}{extra}\right)"


class LogSumExp(sp.Expr):
    """``logsumexp(x) = log sum_i exp(x_i)`` of a vector (a scalar): the reduction along ``axis``
    (default :func:`default_axis`) must cover every entry, i.e. ``x`` is a column (``axis = 0``) or a
    row (``axis = 1``).  A matrix reduced along an axis is :class:`LogSumExpAxis` (use :func:`logsumexp`)."""

    is_commutative = True

    def __new__(cls, x, axis=None):
        need_matrix("logsumexp", x)
        axis = default_axis(x) if axis is None else check_axis("logsumexp", axis)
        if x.shape[1 - axis] != 1:
            raise ExprError(f"logsumexp needs a vector along axis {axis}, got shape {x.shape} "
                            "(a matrix reduced along an axis is logsumexp(x, axis): a column or a row)")
        return sp.Expr.__new__(cls, x, sp.Integer(axis))

    @property
    def axis(self) -> int:
        return int(self.args[1])

    def _latex(self, printer):
        return _reduction_latex(self, "logsumexp", printer)


class LogSumExpAxis(_MatNode):
    """``logsumexp(X, axis)`` of a matrix: ``axis = 1`` gives the column ``(rows, 1)`` of each row's
    logsumexp, ``axis = 0`` the row ``(1, cols)`` of each column's."""

    _op = "logsumexp"

    def __new__(cls, x, axis=None):
        need_matrix("logsumexp", x)
        axis = default_axis(x) if axis is None else check_axis("logsumexp", axis)
        return super().__new__(cls, x, sp.Integer(axis))

    @property
    def axis(self) -> int:
        return int(self.args[1])

    def _shape(self):
        r, c = self.args[0].shape
        return (r, sp.Integer(1)) if self.axis == 1 else (sp.Integer(1), c)

    def _latex(self, printer):
        return _reduction_latex(self, "logsumexp", printer)


def is_total(x, axis: int) -> bool:
    """True when reducing ``x`` along ``axis`` covers every entry (``x`` a declared column for
    ``axis = 0``, a declared row for ``axis = 1``): the result is a scalar."""
    return x.shape[1 - axis] == 1


def logsumexp(x, axis=None):
    """``logsumexp(x, axis)``: a scalar (:class:`LogSumExp`) when the reduction covers every entry
    of ``x`` (a vector, as declared), else a column or row of per-row/per-column values
    (:class:`LogSumExpAxis`).  ``axis`` defaults to :func:`default_axis`."""
    need_matrix("logsumexp", x)
    axis = default_axis(x) if axis is None else check_axis("logsumexp", axis)
    return LogSumExp(x, axis) if is_total(x, axis) else LogSumExpAxis(x, axis)


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


class _Entrywise(_MatNode):
    """A map applied to each entry of a matrix, kept unevaluated (SymPy rewrites ``re(M)`` of a matrix
    expression as ``(M + conj(M))/2``, which prints as something other than what was typed)."""

    def __new__(cls, a):
        need_matrix(cls._op, a)
        return super().__new__(cls, a)

    def _shape(self):
        return self.args[0].shape


class Conj(_Entrywise):
    """``conj(A)``: the entrywise complex conjugate of a matrix (``ctx.conj``); ``A`` itself when real."""

    _op = "conj"

    def _latex(self, printer):
        return rf"\overline{{{printer._print(self.args[0])}}}"


class Real(_Entrywise):
    """``real(A)``: the entrywise real part of a matrix (``ctx.real``), a real matrix of the same shape."""

    _op = "Re"


class Imag(_Entrywise):
    """``imag(A)``: the entrywise imaginary part of a matrix (``ctx.imag``); zeros when ``A`` is real."""

    _op = "Im"


def _wrt_ok(x) -> None:
    if not isinstance(x, (sp.MatrixSymbol, sp.Symbol)):
        raise ExprError(f"a derivative is taken with respect to a variable (a name), got {x}")


class Grad(_MatNode):
    """``grad(f, X)``: the gradient of the scalar ``f`` with respect to ``X``, same shape as ``X``.

    Layout ``G_ij = df/dX_ij`` (Matrix Cookbook, SymPy, PyTorch, JAX).  Evaluated by the engine's
    oracle ``ctx.grad``, or ``ctx.sym_grad`` = ``(G + G^T)/2`` when ``X`` is declared symmetric/SPD.
    When ``X`` is declared complex, the conjugate Wirtinger derivative ``df/d conj(X)`` =
    ``(df/dRe X + i df/dIm X)/2`` (``ctx.wirtinger_grad``; Kreutz-Delgado, arXiv:0906.4835): for a real
    ``f``, ``f(X + dX) = f(X) + 2 Re tr(G^H dX)``.  :class:`GradXY` is the other reading, ``2 df/d conj(X)``.
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


class GradXY(Grad):
    """``grad_xy(f, Z)``: ``df/dRe Z + i df/dIm Z`` = ``2 df/d conj(Z)``, the steepest-ascent direction of a
    real ``f`` in the Euclidean metric of the real and imaginary parts (what PyTorch stores in ``z.grad``);
    twice :class:`Grad` of a complex ``Z``, equal to it for a real ``Z``.  Shape of ``Z``."""

    _op = "grad_xy"

    def _latex(self, printer):
        return rf"2\,\frac{{\partial {printer._print(self.args[0])}}}{{\partial \overline{{{printer._print(self.args[1])}}}}}"


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


def grad_xy(f, Z):
    """The node ``grad_xy(f, Z)`` (see :class:`GradXY`); ``Z`` a matrix or vector variable."""
    return GradXY(f, Z)


def jacobian(F, x) -> Jacobian:
    """The node ``jacobian(F, x)`` (see :class:`Jacobian`)."""
    return Jacobian(F, x)


def hessian(f, x) -> Hessian:
    """The node ``hessian(f, x)`` (see :class:`Hessian`)."""
    return Hessian(f, x)
