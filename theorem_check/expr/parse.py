"""The string syntax: the names it knows (:data:`FUNCTIONS`), tokens, parsing of sides and statements."""

import ast
import functools
import io
import keyword
import re
import tokenize
from typing import Any, Mapping

import sympy as sp
from sympy.matrices.exceptions import NonInvertibleMatrixError, ShapeError

from theorem_check.errors import InvalidArgument, ShapeMismatch
from theorem_check.expr.functions import ARITY, FUNCTIONS, norm2, unevaluated_on_sympy_error
from theorem_check.expr.nodes import (
    ExprError,
    LogSumExp,
    LogSumExpAxis,
    ParseError,
    Softmax,
    apply_entrywise,
    as_matrix,
    check_axis,
    default_axis,
    entry_beside_scalar,
    is_matrix,
    is_total,
)
from theorem_check.expr.textual import carets, primes
from theorem_check.expr.textual import tokens as _tokens
from theorem_check.validation import did_you_mean

__all__ = ["FUNCTIONS", "names_in", "parse", "parse_statement", "primes", "size_symbol"]


NOT_NUMBERS = {"nan": "SymPy's not-a-number", "oo": "SymPy's infinity", "zoo": "SymPy's complex infinity",
               "NaN": "not-a-number", "NAN": "not-a-number", "inf": "infinity", "Inf": "infinity",
               "INF": "infinity", "infinity": "infinity", "Infinity": "infinity"}
"""Names SymPy reads as values that are not real numbers, and NumPy's and Python's spellings of them (``inf``,
``NaN``: they were scalar names, helper-69): refused as scalar names (a side is a finite expression, so ``oo = oo``
is no statement), with the imaginary unit ``I`` (:data:`IMAGINARY`) in real statements."""
IMAGINARY = "I"


def _special_name(text: str, name: str, complex_names=()) -> ParseError | None:
    """The error for a scalar named like one of SymPy's special values (``nan``, ``oo``, ``zoo``, ``I``).

    ``I`` is the imaginary unit when some name of the statement is complex (``complex_names``, from
    ``--assume z=complex``); otherwise it is refused, so that a user who meant the identity matrix
    (``I`` in papers) is not silently given ``sqrt(-1)``.
    """
    if name in NOT_NUMBERS:
        return ParseError(f"{text!r}: {name!r} is not a number ({NOT_NUMBERS[name]}): sides are finite "
                          "expressions")
    if name == IMAGINARY and not complex_names:
        return ParseError(f"{text!r}: 'I' is SymPy's imaginary unit, allowed only when a name is complex "
                          "(--assume z=complex), and this statement is real: name a real scalar otherwise, write "
                          "eye(n) for the identity matrix")
    return None


def _not_finite(text: str, expr) -> None:
    """ParseError when SymPy folded a side to a value that is not a finite real number (``x/0`` is
    ``zoo*x``, ``0/0`` is ``nan``)."""
    if isinstance(expr, sp.Basic) and expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        raise ParseError(f"{text!r} is not a number: SymPy evaluates it to {expr} (a division by zero?)")


def size_symbol(name: str) -> sp.Symbol:
    """The SymPy symbol of a size letter (``integer=True, positive=True``)."""
    return sp.Symbol(name, integer=True, positive=True)


def names_in(text: str, what: str) -> list[tuple[str, bool, bool]]:
    """(name, called, used_as_matrix) for each NAME token that is not an attribute."""
    text = primes(text)
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
            return dims[v] if isinstance(dims[v], sp.Basic) else int(dims[v])
        return size_symbol(v)
    return int(v)


_DRAWN_ONE = sp.Symbol("_drawn_one", integer=True, positive=True)
"""Stands for every size letter drawn as 1 when the declared reductions are replayed (:class:`_Axes`)."""


class _Axes:
    """The declared-shape decisions of ``softmax``/``logsumexp`` calls (their default axis; whether
    ``logsumexp`` is a scalar), in the order the calls are evaluated.

    A size letter drawn as 1 (``m = 1`` in ``S = n x m``) makes a matrix look like a column vector.
    The decisions are therefore taken on a *declared* pass, where every letter drawn as 1 is a
    symbol (``_drawn_one``), never the literal 1, and the other letters keep their values (so the
    pass conforms where the drawn sizes do), and replayed in the same order on the pass at the
    drawn sizes (the same AST evaluates its calls in the same order).  Where the declared pass does
    not conform (a letter drawn as 1 must meet a literal 1), the calls it reached keep their declared
    decisions and the drawn shapes decide the others.
    """

    def __init__(self, replay=None):
        self.recorded: list[tuple] = []
        self.replay = list(replay) if replay is not None else None

    def _decide(self, what, x, axis, fresh):
        if self.replay:
            got = self.replay.pop(0)
            if got[0] == what:
                self.recorded.append(got)
                return got[1:]
            self.replay = None        # out of step (never expected): decide on the shapes at hand
        out = (what,) + fresh(x, axis)
        self.recorded.append(out)
        return out[1:]

    def softmax(self, x, axis=None):
        x = as_matrix(x)
        (a,) = self._decide("softmax", x, axis, lambda x, axis: (
            default_axis(x) if axis is None else check_axis("softmax", axis),))
        return Softmax(x, a)

    def logsumexp(self, x, axis=None):
        x = as_matrix(x)

        def fresh(x, axis):
            a = default_axis(x) if axis is None else check_axis("logsumexp", axis)
            return a, bool(is_total(x, a))
        a, total = self._decide("logsumexp", x, axis, fresh)
        return LogSumExp(x, a) if total else LogSumExpAxis(x, a)


@functools.lru_cache(maxsize=2048)
def _declared_axes(text: str, shapes: tuple, dims: tuple, complex_names: tuple = (), sizes=()) -> tuple:
    """The decisions of :class:`_Axes` on the declared pass at ``dims`` (letters drawn as 1 made
    symbolic); where that pass stops (it does not conform), the decisions taken before it stopped: a
    call's axis is the declared one even where a later operation conforms only at the drawn sizes
    (``grad(logsumexp(x), x) = softmax(x)`` with ``x`` of ``n x k``, ``k = 1`` drawn, read ``logsumexp`` down
    the column and ``softmax`` along the rows, and was REFUTED: helper-53); the calls after it decide on the
    drawn shapes."""
    shapes_d, dims_d = dict(shapes), dict(dims)
    letters = {v for sh in shapes_d.values() for v in sh if isinstance(v, str)}
    declared = {k: (_DRAWN_ONE if k in letters and int(v) == 1 else v) for k, v in dims_d.items()}
    axes = _Axes()
    try:
        _build(text, shapes_d, declared, axes, complex_names, sizes)
    except (ExprError, ShapeMismatch, InvalidArgument):
        pass
    return tuple(axes.recorded)


def parse(text: str, shapes: Mapping[str, tuple], dims: Mapping[str, int] | None = None, *,
          what: str = "expression", complex_names=(), sizes=()):
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
    complex_names : iterable of str, optional
        Names whose values are complex (``--assume z=complex``, ``hermitian``): a complex scalar is a
        SymPy ``Symbol`` without the ``real`` assumption (others are ``real=True``), and ``I`` is the
        imaginary unit when this is nonempty (a ParseError otherwise).
    sizes : iterable of str, optional
        Size letters no shape uses (``n`` of ``trace(eye(n)) = n``: :func:`size_names_in` of the
        statement); with ``dims`` they take its values, as the shapes' letters do.

    Raises
    ------
    ParseError
        One line naming the offending token; an unknown function; a scalar used as a matrix.
    ShapeMismatch
        The expression does not conform (with concrete dims, or a structural mismatch).
    """
    rewritten = carets(primes(text))
    try:
        return _parse(rewritten, _freeze(shapes), _freeze(dims) if dims is not None else None,
                      tuple(sorted(complex_names)), tuple(sorted(sizes)))
    except (ParseError, ShapeMismatch) as exc:
        msg = str(exc)
        if rewritten != text and msg.startswith(repr(rewritten)):   # quote what the user wrote, not A' -> A.T
            msg = repr(text) + msg[len(repr(rewritten)):]
        raise type(exc)(f"{what}={msg}" if msg.startswith(("'", '"')) else msg) from None


def _freeze(m):
    return tuple(sorted((k, tuple(v) if isinstance(v, (list, tuple)) else v) for k, v in m.items()))


@functools.lru_cache(maxsize=2048)
def _parse(text: str, shapes: tuple, dims: tuple | None, complex_names: tuple = (), sizes: tuple = ()):
    """Cached parse; error messages start with ``repr(text)`` (:func:`parse` prefixes the side's name)."""
    shapes_d = dict(shapes)
    dims_d = dict(dims) if dims is not None else None
    replay = None
    if dims_d is not None and ("softmax" in text or "logsumexp" in text):
        letters = {v for sh in shapes_d.values() for v in sh if isinstance(v, str)}
        if any(int(dims_d.get(k, 0)) == 1 for k in letters):
            replay = _declared_axes(text, shapes, dims, complex_names, sizes)
    return _build(text, shapes_d, dims_d, _Axes(replay), complex_names, sizes)


def _build(text: str, shapes_d: dict, dims_d: dict | None, axes: _Axes, complex_names: tuple = (), sizes=()):
    """Parse ``text`` with these shapes and sizes; ``softmax``/``logsumexp`` decided by ``axes``."""
    if not text.strip():
        raise ParseError(f"{text!r}: empty side")
    letters = {v for s in shapes_d.values() for v in s if isinstance(v, str)} | set(sizes)
    local: dict[str, Any] = {}
    for name, called, dotted in names_in(text, ""):
        if name in shapes_d:
            if called:   # helper-36: "'MatrixSymbol' object is not callable"
                raise ParseError(f"{text!r}: {name!r} is a matrix, not a function: {name}(...) is no product "
                                 f"(write {name}*(...))")
            r, c = (_shape_value(v, dims_d) for v in shapes_d[name])
            local[name] = sp.MatrixSymbol(name, r, c)
        elif name in FUNCTIONS:
            if name not in ("pi", "E") and not called:
                raise ParseError(f"{text!r}: function {name!r} must be called, as {name}(...)")
            local[name] = getattr(axes, name) if name in ("softmax", "logsumexp") else FUNCTIONS[name]
            if name in _DERIVATIVES and complex_names:
                local[name] = _complex_checked(name, FUNCTIONS[name], complex_names)
            if name == "norm2" and complex_names:
                local[name] = _complex_norm2(complex_names)
        elif called:
            known = sorted(k for k in FUNCTIONS if k not in ("pi", "E"))   # trcae -> trace, as a mistyped id (helper-57)
            raise ParseError(f"{text!r}: unknown function {name!r}{did_you_mean(name, known, n=1)} (known: "
                             f"{', '.join(known)})")
        elif name in letters:
            local[name] = sp.sympify(dims_d[name]) if dims_d is not None else size_symbol(name)
        else:
            if dotted:
                raise ParseError(f"{text!r}: {name!r} is used as a matrix ({name}.…) but has no shape "
                                 f"(declare it, e.g. --shape {name}=n,n)")
            special = _special_name(text, name, complex_names)
            if special is not None:
                raise special
            if name == IMAGINARY:
                local[name] = sp.I
                continue
            local[name] = sp.Symbol(name) if name in complex_names else sp.Symbol(name, real=True)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ParseError(f"{text!r}: parse error at {_syntax_error_token(text.strip(), exc)!r}") from None
    tree = ast.fix_missing_locations(_Rewrite(text.strip()).visit(tree))
    env = {"__builtins__": {}, "_T": _transpose, "_H": _adjoint, "_num": _num, "_pow": _pow, "_div": _div,
           "_add": _add, "_sub": _sub, "_mul": _mul, **local}
    try:
        expr = eval(compile(tree, "<statement>", "eval"), env)  # noqa: S307 - names restricted to `env`
    except ShapeError as exc:
        raise ShapeMismatch(f"{text!r} does not conform: {_shape_msg(exc)}") from None
    except ExprError:
        raise
    except TypeError as exc:
        msg = str(exc)
        if "Mix of Matrix and Scalar" in msg:
            raise ShapeMismatch(f"{text!r} adds a matrix to a scalar (beside a column or a row a scalar is that many "
                                "ones; beside another matrix write c*eye(n) or c*ones(m, n); a 1 x 1 matrix is read as "
                                "its entry)") from None
        raise ParseError(f"{text!r}: cannot interpret: {msg.splitlines()[0]}") from None
    except NotImplementedError:   # SymPy's MatrixExpr.__rtruediv__: a scalar divided by a matrix
        raise ShapeMismatch(f"{text!r} divides by a matrix (write the inverse: X**-1, or an entrywise "
                            "function of the entries)") from None
    except NonInvertibleMatrixError as exc:   # SymPy inverts a constant (ones(1,1) - eye(1) at n = 1) while building
        raise ParseError(f"{text!r}: a matrix it inverts is singular at these sizes ({exc})") from None
    except (AttributeError, ValueError, IndexError, KeyError, NameError, ZeroDivisionError) as exc:
        raise ParseError(f"{text!r}: cannot interpret: {str(exc).splitlines()[0] or type(exc).__name__}") \
            from None
    if isinstance(expr, (tuple, list)):
        raise ParseError(f"{text!r}: a side is one expression (found a tuple: a stray ',')")
    if not isinstance(expr, sp.Basic):
        expr = sp.sympify(expr)
    _not_finite(text, expr)
    return expr


_DERIVATIVES = ("grad", "grad_xy", "jacobian", "hessian")


def _complex_norm2(complex_names):
    """``norm2`` of a statement with complex names: ``sqrt(real(trace(x.H*x)))`` where ``x`` involves one (the
    norm of a complex vector or matrix: ``x.T*x`` is no norm there, ``trace(z.T*z)`` is complex), the real
    form otherwise (the same tree as in a real statement)."""
    def complex_norm2(x):
        names = {getattr(a, "name", None) for a in sp.sympify(x).atoms(sp.MatrixSymbol, sp.Symbol)}
        if not is_matrix(x) or not names & set(complex_names):
            return norm2(x)
        return sp.sqrt(FUNCTIONS["real"](sp.Trace(sp.Adjoint(x) * x)))
    complex_norm2.__name__ = "norm2"
    return complex_norm2


def _complex_checked(name: str, fn, complex_names):
    """``fn`` (a derivative) refusing a complex variable it does not differentiate: ``jacobian``/``hessian`` by
    any complex name, ``grad`` by a complex scalar (the Wirtinger ``grad`` takes a matrix or vector variable)."""
    def f(F, x, *args):
        if getattr(x, "name", None) in complex_names:
            if name in ("jacobian", "hessian"):
                raise ParseError(f"{name}(..., {x}): derivatives by a complex variable are grad and grad_xy only")
            if not is_matrix(x):
                raise ParseError(f"{name}(..., {x}): {x} is a complex scalar: declare it as a 1x1 matrix "
                                 f"(--shape {x}=1,1) for its Wirtinger gradient")
        return fn(F, x, *args)
    f.__name__ = name
    return f


def _adjoint(x):
    """``x.H``: the conjugate transpose (SymPy's ``Adjoint``, kept unevaluated); of a scalar, its conjugate."""
    return sp.Adjoint(x) if is_matrix(x) else sp.conjugate(x)


def _is_zero(x) -> bool:
    """True when the scalar ``x`` is identically 0 (``trace((x - x).T*(x - x))``: SymPy keeps ``Trace(0)``
    unevaluated, so its value is asked of ``doit()``)."""
    x = sp.sympify(x)
    if is_matrix(x):
        return False
    zero = x.is_zero
    if zero is None and x.has(sp.Trace, sp.Determinant):
        try:
            zero = x.doit().is_zero
        except Exception:  # noqa: BLE001 - no decision: not known to be zero
            zero = None
    return zero is True


def _transpose(x):
    """``x.T``: ``Transpose`` of a matrix, ``x`` itself of a scalar expression (``sqrt(trace(x.T*x)).T`` raised
    "'Pow' object has no attribute 'shape'"; helper-39).  An undeclared name with ``.T`` is refused before.  The
    transpose of an entrywise function is the function of the transpose, built as :func:`apply_entrywise` builds it:
    SymPy's own transpose of such a node at ``1 x 1`` (``abs(W*x).T``, ``W`` 1 x 2) called the function of the matrix
    itself and raised "Matrices are not aligned", so a true gradient statement was ILL-POSED at ``m = 1`` (stop 44)."""
    from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

    if not is_matrix(x):
        return x
    if not any(isinstance(a, ElementwiseApplyFunction) and tuple(a.shape) == (1, 1) for a in sp.preorder_traversal(x)):
        return sp.Transpose(x)
    return _pushed_transpose(x)


def _pushed_transpose(x):
    """The transpose of the matrix expression ``x`` pushed down to its leaves through sums, products, transposes and
    entrywise functions (:func:`_transpose`), without SymPy's transpose of an entrywise function."""
    from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

    if isinstance(x, ElementwiseApplyFunction):
        return apply_entrywise(x.function, _pushed_transpose(x.expr))
    if isinstance(x, sp.MatAdd):
        return sp.MatAdd(*(_pushed_transpose(a) for a in x.args))
    if isinstance(x, sp.MatMul):
        scalars = [a for a in x.args if not is_matrix(a)]
        return sp.MatMul(*scalars, *(_pushed_transpose(a) for a in reversed(x.args) if is_matrix(a)))
    if isinstance(x, sp.Transpose):
        return x.arg
    return sp.Transpose(x)


def _add(a, b):
    """``a + b`` (:func:`~theorem_check.expr.nodes.entry_beside_scalar`)."""
    a, b = entry_beside_scalar(a, b)
    return a + b


def _mul(a, b):
    """``a * b``; a ``1 x 1`` matrix factor that does not conform with its neighbour as a matrix is read as its
    entry, as MATLAB reads a 1 x 1 array: ``(x.T*A*x)*x`` is the textbook's scalar times a vector (helper-60; was
    ILL-POSED while ``--latex`` read it so).  Where the matrix product conforms it is the matrix product, and the
    two readings have the same value there (design decision 203)."""
    if is_matrix(a) and is_matrix(b):
        if tuple(a.shape) == (1, 1) and b.shape[0] != 1:
            a = sp.Trace(a)
        elif tuple(b.shape) == (1, 1) and a.shape[1] != 1:
            b = sp.Trace(b)
    return a * b


def _sub(a, b):
    """``a - b`` (:func:`~theorem_check.expr.nodes.entry_beside_scalar`)."""
    a, b = entry_beside_scalar(a, b)
    return a - b


def _div(num, den):
    """``num / den``, refusing a division by a scalar that is identically 0: SymPy's ``ZeroMatrix * zoo`` is the zero
    matrix, and ``1/Trace(0)`` stays unevaluated, so ``(x - x)/trace((x - x).T*(x - x)) = x - x`` (0/0 at every
    point) was PROVED (helper-39); a number over the number 0 is ``zoo`` or ``nan``, refused by :func:`_not_finite`
    (with its message)."""
    if is_matrix(den) and tuple(den.shape) == (1, 1):   # divided by a 1 x 1 matrix: by its one entry
        den = sp.Trace(den)
    if (is_matrix(num) or not sp.sympify(den).is_Number) and _is_zero(den):
        raise ZeroDivisionError(f"a division by zero: the denominator {den} is identically 0 (at these sizes)")
    if is_matrix(den) and sp.simplify(den.shape[0] - den.shape[1]) != 0:   # helper-51: SymPy said "Power of
        raise ShapeError(f"divides by the non-square matrix {den} (an entrywise quotient is "   # non-square matrix v"
                         f"hadamard({num}, hadamard_power({den}, -1)))")
    return num / den


def _pow(base, exponent):
    """``base ** exponent`` as written.  A matrix power stays an unevaluated ``MatPow`` unless the
    base is a single matrix symbol with an integer exponent: SymPy's own ``**`` folds
    ``(A*A)**(1/2)`` into ``A`` (false: the principal root of ``A^2`` is ``|A|``, not ``A``) and
    rewrites ``(A*B)**-1`` as ``B**-1*A**-1``, so the statement typed would never be evaluated."""
    if isinstance(exponent, sp.MatrixExpr) and exponent.shape != (1, 1):
        raise ParseError(f"{base}**{exponent}: the exponent {exponent} is a {exponent.shape[0]} x {exponent.shape[1]} "
                         "matrix (a power's exponent is a number or a scalar: expm(...) is the matrix exponential)")
    if isinstance(base, sp.MatrixExpr):
        exponent = sp.sympify(exponent)
        scalars = sorted(str(s) for s in exponent.free_symbols if not s.is_integer)
        if scalars and base.shape != (1, 1):
            raise ParseError(f"the matrix power {sp.MatPow(base, exponent)} needs an integer exponent: {scalars[0]!r} is a "
                             f"scalar (a size letter is an integer: --size {scalars[0]}=1:4)")
        if exponent.free_symbols and exponent.is_integer is not True and base.shape != (1, 1):
            raise ParseError(f"the matrix power {sp.MatPow(base, exponent)} needs an exponent that is an integer at "
                             f"every size ({exponent} is not: write A**k with k a size letter, or sqrtm)")
        if not (isinstance(base, sp.MatrixSymbol) and exponent.is_Integer):
            return sp.MatPow(base, exponent)
        return base ** exponent
    if sp.sympify(exponent).is_negative and _is_zero(base):   # 1/trace(0) is no number (a zero matrix absorbs it)
        raise ZeroDivisionError(f"a division by zero: {base} is identically 0 (at these sizes) and raised to "
                                f"{exponent}")
    _exact_power_size(base, exponent)
    return unevaluated_on_sympy_error(lambda: base ** exponent, lambda: sp.Pow(base, exponent, evaluate=False))


MAX_EXACT_POWER_BITS = 100_000
"""The largest exact power of two numbers the parser computes, in bits of its numerator and denominator
(about 30,000 digits): ``10**10**10`` would take hours and gigabytes before any time limit applies."""


def _exact_power_size(base, exponent) -> None:
    """ParseError when ``base ** exponent`` of two exact numbers would exceed :data:`MAX_EXACT_POWER_BITS`."""
    b, e = sp.sympify(base), sp.sympify(exponent)
    if not (b.is_Rational and e.is_Rational) or b in (0, 1, -1):
        return
    bits = max(abs(b.p).bit_length(), abs(b.q).bit_length()) * abs(e.p) / e.q
    if bits > MAX_EXACT_POWER_BITS:
        shown = str(b) if len(str(b)) <= 30 else f"(a {len(str(abs(b.p)))}-digit/{len(str(b.q))}-digit fraction)"
        power = str(e) if len(str(e)) <= 30 else f"{float(e):.3g}"
        raise ParseError(f"{shown}**{power}: an exact power of about {bits:.3g} bits (more than "
                         f"{MAX_EXACT_POWER_BITS:,}); write it as a floating-point value or rescale the statement")


def _num(text: str):
    """A numeric literal as an exact SymPy number (``0.1`` is ``1/10``)."""
    return sp.Rational(text) if any(c in text for c in ".eE") else sp.Integer(int(text))


class _Rewrite(ast.NodeTransformer):
    """``x.T`` -> ``Transpose(x)`` and ``x.H`` -> ``Adjoint(x)`` (kept unevaluated, so the statement prints as
    written), numeric literals -> exact SymPy numbers, ``**`` (and ``^``, replaced by :func:`carets`) ->
    :func:`_pow` (matrix powers of products kept as written); anything but expressions is refused."""

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

    def visit_Call(self, node):
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name in ("eye", "zeros", "ones"):   # before the literals become _num(...) calls
            for a in node.args:
                v = a.operand.value if isinstance(a, ast.UnaryOp) and isinstance(a.op, ast.USub) and isinstance(
                    a.operand, ast.Constant) else (a.value if isinstance(a, ast.Constant) else None)
                if isinstance(a, ast.UnaryOp) and v is not None:
                    v = -v
                if isinstance(v, (int, float)) and not isinstance(v, bool) and (v < 1 or v != int(v)):
                    raise ParseError(f"{self.text!r}: {name}(...) needs sizes that are integers >= 1, got {v}")
        self.generic_visit(node)
        if name in ARITY:
            lo, hi = ARITY[name]
            got = len(node.args) + len(node.keywords)
            if got < lo or (hi is not None and got > hi):
                want = f"{lo}" if lo == hi else (f"{lo} or more" if hi is None else f"{lo} or {hi}")
                raise ParseError(f"{self.text!r}: {name}(...) takes {want} argument{'s' if want != '1' else ''}, "
                                 f"got {got}")
        return node

    def visit_Attribute(self, node):
        self.generic_visit(node)
        if node.attr in ("T", "H"):
            return ast.copy_location(ast.Call(ast.Name(f"_{node.attr}", ast.Load()), [node.value], []), node)
        # any other attribute reached SymPy's objects (A.__class__ was "cannot evaluate a type node": helper-54)
        raise ParseError(f"{self.text!r}: unexpected attribute '.{node.attr}' at column {node.end_col_offset - len(node.attr)}"
                         " (a side takes .T, the transpose, and .H, the conjugate transpose)")

    def visit_Constant(self, node):
        if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
            raise ParseError(f"{self.text!r}: unexpected {node.value!r} at column {node.col_offset + 1}")
        seg = ast.get_source_segment(self.text, node) or repr(node.value)
        return ast.copy_location(ast.Call(ast.Name("_num", ast.Load()), [ast.Constant(seg)], []), node)

    def visit_BinOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Pow):   # ``^`` is ``**`` already (:func:`carets`); keep what was written
            return ast.copy_location(ast.Call(ast.Name("_pow", ast.Load()), [node.left, node.right], []), node)
        if isinstance(node.op, ast.Div):
            return ast.copy_location(ast.Call(ast.Name("_div", ast.Load()), [node.left, node.right], []), node)
        if isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.MatMult)):
            name = {ast.Add: "_add", ast.Sub: "_sub", ast.Mult: "_mul", ast.MatMult: "_mul"}[type(node.op)]
            return ast.copy_location(ast.Call(ast.Name(name, ast.Load()), [node.left, node.right], []), node)
        return node


_LAMBDA = re.compile(r"Lambda\((_?\w+), (\w+)\(\1\)\)\.\(")


def _shape_msg(exc: Exception) -> str:
    """SymPy's shape error in the statement's words: an entrywise function as written (SymPy prints ``sin`` of a
    matrix as ``Lambda(_d, sin(_d)).(x)``), and what ``**`` of a non-square matrix is."""
    args = getattr(exc, "args", ())
    msg = _LAMBDA.sub(lambda m: m.group(2) + "(", " ".join(str(a) for a in args) if args else str(exc))
    if msg.startswith("Matrices have mismatching shape"):   # SymPy names neither term's shape (helper-53)
        msg = ("the terms of a matrix sum (or the factors of an entrywise product) have different shapes "
               f"(SymPy: {msg})")
    if msg.startswith("Power of non-square matrix"):
        msg += " (** of a matrix is the matrix power; the entrywise square is hadamard(M, M))"
    return msg


def parse_statement(text: str) -> tuple[str, str]:
    """Split ``"LHS = RHS"`` at its one top-level ``=``; ParseError otherwise (``x'`` is read as ``x.T``)."""
    written, text = text, primes(text)
    toks = _tokens(text, "statement")
    eqs = [t for t in toks if t.type == tokenize.OP and t.string in ("=", "==")]
    if len(eqs) != 1:
        raise ParseError(f"statement={written!r} must have exactly one '=' (found {len(eqs)})")
    t = eqs[0]
    col = t.start[1]
    lines = text.splitlines() or [text]
    flat_off = sum(len(ln) + 1 for ln in lines[:t.start[0] - 1]) + col
    lhs, rhs = text[:flat_off], text[flat_off + len(t.string):]
    if not lhs.strip():
        raise ParseError(f"statement={written!r}: nothing left of '='")
    if not rhs.strip():
        raise ParseError(f"statement={written!r}: nothing right of '='")
    return lhs.strip(), rhs.strip()
