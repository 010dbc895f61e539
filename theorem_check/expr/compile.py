"""Compiling an expression tree once into a recipe that evaluates it on a batch, in any precision context."""

import functools
from typing import Any, Callable, Mapping

import numpy as np
import sympy as sp

from theorem_check.expr.forward import directional_jvp
from theorem_check.expr.nodes import ExprError, is_matrix
from theorem_check.expr.values import (
    ELEMENTWISE,
    Env,
    Recipe,
    add,
    as_scalar,
    batched,
    chain_factors,
    chain_product,
    const,
    mul,
    number_power,
    size,
    trace_product,
)
from theorem_check.numerics.balls import BallArray, balls_of, kept

__all__ = ["COMPLEX_KINDS", "Env", "Recipe", "chain_product", "compile_expr", "evaluate", "side", "with_balls"]

COMPLEX_KINDS = ("complex", "hermitian")
"""Structure kinds whose values are complex: a ``grad`` by such a variable is the conjugate Wirtinger derivative."""


MATPOW_LOOP = 64
"""Integer matrix powers up to this exponent are left-to-right products (the rounding every recorded result was
computed with); larger ones are computed by repeated squaring."""


def matrix_power(m, k: int):
    """``m @ m @ ... @ m`` (``k >= 1`` factors, last two axes): left to right up to :data:`MATPOW_LOOP`, by repeated
    squaring beyond (``log2 k`` products: ``A**10**7`` took hours as ten million products)."""
    if k <= MATPOW_LOOP:
        out = m
        for _ in range(k - 1):
            out = out @ m
        return out
    out, sq = None, m
    while k:
        if k & 1:
            out = sq if out is None else out @ sq
        k >>= 1
        if k:
            sq = sq @ sq
    return out


class _Lazy:
    """A message formatted on first use (SymPy's ``str`` is slow: not on the oracle's hot path)."""

    def __init__(self, fn):
        self.fn = fn

    def __str__(self):
        return self.fn()

    __format__ = lambda self, spec: format(str(self), spec)  # noqa: E731


def _repeated(expr) -> dict:
    """``{subexpression: key}`` for each compound subexpression that occurs more than once in ``expr`` (equal
    subtrees share one key): the recipe computes each of them once per environment (``Env.memo``)."""
    counts: dict = {}
    for node in sp.preorder_traversal(expr):
        if node.args and not isinstance(node, (sp.Number, sp.MatrixSymbol)):
            counts[node] = counts.get(node, 0) + 1
    return {node: k for k, node in enumerate(n for n, c in counts.items() if c > 1)}


def _memoised(key: int, rec: Recipe) -> Recipe:
    """``rec``, its value kept in the environment's memo under ``key`` (a repeated subexpression: the second
    occurrence reads the first one's value, the same array)."""
    def run(env):
        memo = env.memo
        if key in memo:
            return memo[key]
        out = memo[key] = rec(env)
        return out
    return run


class _Compiler:
    """Turns a SymPy tree into a recipe; one ``_c_<ClassName>`` method per supported node class.

    ``repeated`` (:func:`_repeated`): the subexpressions computed once per environment.  A derivative node's
    recipe (which carries ``along``) is never memoised."""

    def __init__(self, repeated: dict | None = None):
        self.repeated = repeated or {}

    def compile(self, e) -> Recipe:
        if isinstance(e, (int, float)) and not isinstance(e, bool):
            e = sp.sympify(e)
        rec = self._compile(e)
        key = self.repeated.get(e)
        return rec if key is None or hasattr(rec, "along") else _memoised(key, rec)

    def _compile(self, e) -> Recipe:
        for cls in type(e).__mro__:
            meth = getattr(self, f"_c_{cls.__name__}", None)
            if meth is not None:
                return meth(e)
            if cls.__name__ in ELEMENTWISE and isinstance(e, sp.Function):
                return self._elementwise(e, ELEMENTWISE[cls.__name__])
        raise ExprError(f"cannot evaluate a {type(e).__name__} node ({e}): not supported in expression sides")

    # -- leaves ---------------------------------------------------------------------------
    def _c_Number(self, e):
        return lambda env: const(env.ctx, e)

    def _c_NumberSymbol(self, e):
        return lambda env: const(env.ctx, e)

    def _c_ImaginaryUnit(self, e):
        return lambda env: const(env.ctx, e)

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
        return lambda env: env.ctx.eye(size(n, env))

    def _c_ZeroMatrix(self, e):
        r, c = e.shape
        return lambda env: env.ctx.zeros((size(r, env), size(c, env)))

    def _c_OneMatrix(self, e):
        r, c = e.shape
        return lambda env: env.ctx.ones((size(r, env), size(c, env)))

    def _c_MatrixElement(self, e):
        parent = self.compile(e.parent)
        i, j = e.i, e.j
        return lambda env: parent(env)[..., size(i, env), size(j, env)]

    # -- scalar algebra -------------------------------------------------------------------
    def _c_Add(self, e):
        parts = [self.compile(a) for a in e.args]

        def run(env):
            out = parts[0](env)
            for p in parts[1:]:
                out = add(out, p(env))
            return out
        return run

    def _c_Mul(self, e):
        parts = [self.compile(a) for a in e.args]

        def run(env):
            out = parts[0](env)
            for p in parts[1:]:
                out = mul(out, p(env))
            return out
        return run

    def _c_Pow(self, e):
        base, ex = e.args
        b = self.compile(base)
        if ex.is_Number:
            return lambda env: number_power(env.ctx, b(env), ex)
        x = self.compile(ex)
        return lambda env: env.ctx.exp(mul(x(env), env.ctx.log(b(env))))

    def _elementwise(self, e, method):
        if len(e.args) != 1:
            raise ExprError(f"{type(e).__name__} takes one argument")
        arg = self.compile(e.args[0])
        return lambda env: getattr(env.ctx, method)(arg(env))

    def _c_atan2(self, e):
        y, x = (self.compile(a) for a in e.args)
        return lambda env: env.ctx.arctan2(y(env), x(env))

    def _c_Max(self, e):
        raise ExprError("cannot evaluate Max: not supported in expression sides")

    # -- matrix algebra -------------------------------------------------------------------
    def _c_MatMul(self, e):
        parts = [self.compile(a) for a in chain_factors(e.args)]

        def run(env):
            return chain_product([p(env) for p in parts])
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
        return lambda env: env.ctx.hadamard_power(base(env), const(env.ctx, ex))

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
        if ex.is_Rational and tuple(base.shape) == (1, 1):   # (x.T*x)**(3/2): the power of the one entry
            return lambda env: env.ctx.power(b(env), const(env.ctx, ex))
        if tuple(base.shape) == (1, 1):                      # (x.T*x)**eta
            kf = self.compile(ex)
            return lambda env: env.ctx.power(b(env), kf(env))
        if ex.free_symbols and not ex.is_Integer:
            return self._size_power(e, b)
        if not ex.is_Integer:
            raise ExprError(f"cannot evaluate the matrix power {e}: integer or +-1/2 exponents only")
        return _integer_power(b, int(ex))

    def _size_power(self, e, b):
        """``A**k``, ``A**(k + 1)`` with ``k`` a size letter: the integer power at the instance's sizes (GD's
        ``(I - eta*A)**t``); an exponent with a scalar in it, or not an integer, is an error."""
        names = sorted(s.name for s in e.exp.free_symbols)
        kf = self.compile(e.exp)

        def run(env):
            if any(n not in env.dims for n in names):
                raise ExprError(f"cannot evaluate the matrix power {e}: its exponent is an integer only when "
                                f"{', '.join(names)} are sizes (--size {names[0]}=1:4)")
            k = kf(env)
            if int(k) != k:
                raise ExprError(f"cannot evaluate the matrix power {e}: exponent {k} is not an integer")
            return _integer_power(b, int(k))(env)
        return run

    def _unary(method):  # noqa: N805 - a helper of the class body: _c_Expm = _unary("expm") etc.
        def run(self, e):
            a = self.compile(e.args[0])
            return lambda env: getattr(env.ctx, method)(a(env))
        return run

    _c_Expm, _c_Logm, _c_Sqrtm, _c_Cholesky, _c_Tril, _c_Triu, _c_Conj, _c_Real, _c_Imag = map(
        _unary, ("expm", "logm", "sqrtm", "cholesky", "tril", "triu", "conj", "real", "imag"))
    del _unary

    def _c_Inverse(self, e):
        a = self.compile(e.arg)
        return lambda env: env.ctx.inv(a(env))

    def _c_Transpose(self, e):
        a = self.compile(e.arg)
        return lambda env: env.ctx.T(a(env))

    def _c_Adjoint(self, e):
        a = self.compile(e.arg)
        return lambda env: env.ctx.H(a(env))

    def _c_Trace(self, e):
        args = e.arg.args if isinstance(e.arg, sp.MatMul) else ()
        if sum(map(is_matrix, args)) < 2 or not is_matrix(args[-1]):
            a = self.compile(e.arg)
            return lambda env: env.ctx.trace(a(env))
        head, last = self._c_MatMul(sp.MatMul(*args[:-1])), self.compile(args[-1])

        def run(env):   # tr(M L) = sum_ij M_ij L_ji: the last product of the chain is never formed
            m, x = head(env), last(env)
            return trace_product(env.ctx, m, x)
        return run

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
        x, axis = self.compile(e.args[0]), (-2, -1)[e.axis]   # axis fixed when the node was built
        return lambda env: env.ctx.softmax(x(env), axis=axis)

    def _c_LogSumExp(self, e):
        x, row = self.compile(e.args[0]), e.axis == 1    # a vector: the reduction covers every entry

        def run(env):
            v = x(env)
            return env.ctx.logsumexp(v[..., 0, :] if row else v[..., :, 0], axis=-1)
        return run

    def _c_LogSumExpAxis(self, e):
        x = self.compile(e.args[0])
        if e.axis == 1:
            return lambda env: env.ctx.logsumexp(x(env), axis=-1)[..., :, None]
        return lambda env: env.ctx.logsumexp(x(env), axis=-2)[..., None, :]

    def _c_Vec(self, e):
        a = self.compile(e.args[0])
        return lambda env: env.ctx.vec(a(env))

    # -- derivatives (the engine's oracle) --------------------------------------------------
    def _derivative(self, e, method, factor=0.5):
        f, x = e.args
        body, name = self.compile(f), x.name
        scalar_out = method != "jacobian"
        label = _Lazy(lambda: f"{method}({f}, {x})")  # formatted only for an error message

        def point(env):
            """``(f as a function of the variable alone, the variable's value)``."""
            x0 = env.values.get(name)
            if x0 is None:
                raise ExprError(f"{method}: variable {name!r} has no value in the instance")

            def fn(xv):
                out = body(env.bind(name, xv))
                out = as_scalar(out, label) if scalar_out else out
                return batched(out, np.shape(xv)[0])   # a constant (SymPy folded f) has no batch axis
            return fn, x0

        def op_of(structure):
            kind = structure.get(name)
            if kind in COMPLEX_KINDS:
                return None     # the Wirtinger oracle, in full (no random-direction projection)
            sym = method == "grad" and kind in ("symmetric", "spd")
            return "sym_grad" if sym else method

        def run(env):
            fn, x0 = point(env)
            kind = env.structure.get(name)
            if kind in COMPLEX_KINDS:
                if method != "grad" or kind != "complex":
                    raise ExprError(f"{method}({f}, {x}) with respect to a {kind} variable is not supported (grad "
                                    "and grad_xy of a variable declared complex are)")
                return env.ctx.wirtinger_grad(fn, x0, factor=factor)
            op = op_of(env.structure)
            if op == "hessian":
                return env.ctx.hessian(fn, x0)
            # first derivatives entry by entry, each unit direction by forward mode where f has a forward recipe
            jvp = directional_jvp(f, name, env, x0, scalar_out, label, compile_expr)
            return getattr(env.ctx, op)(fn, x0, jvp=jvp)

        def along(env, projection):
            """The derivative along ``projection``'s directions: ``((batch, K), m)`` (numerics/directions.py),
            by forward mode where every node on the variable's path has a rule (expr/forward.py)."""
            fn, x0 = point(env)
            jvp = directional_jvp(f, name, env, x0, scalar_out, label, compile_expr)
            return projection.oracle(env.ctx, fn, x0, jvp=jvp)

        def derivative(structure):
            """``(kind, variable)`` of this oracle node; None where it is not projected (complex variables)."""
            op = op_of(structure)
            return None if op is None else (op, name)

        run.derivative = derivative
        run.along = along
        return run

    def _c_Grad(self, e):
        return self._derivative(e, "grad")

    def _c_GradXY(self, e):
        return self._derivative(e, "grad", factor=1.0)

    def _c_Jacobian(self, e):
        return self._derivative(e, "jacobian")

    def _c_Hessian(self, e):
        return self._derivative(e, "hessian")


@functools.lru_cache(maxsize=4096)
def compile_expr(expr) -> Recipe:
    """The recipe of a SymPy expression (cached by expression).  A compound subexpression that occurs more
    than once (``P`` in ``hadamard(P, G - hadamard(P, G)*ones(n,1)*ones(1,n))``) is computed once per evaluation
    (the same operations on the same values: the result is the same to the bit).

    Raises ExprError naming the first unsupported node (e.g. ``cannot evaluate a Max node``).
    """
    expr = sp.sympify(expr) if not isinstance(expr, sp.Basic) else expr
    return _Compiler(_repeated(expr)).compile(expr)


def _batch_of(values: Mapping[str, Any]) -> int | None:
    for v in values.values():
        if isinstance(v, np.ndarray) and v.ndim >= 1:
            return int(v.shape[0])
    return None


def _normalize(v, batch: int | None):
    """A side's value in the engine's layout: ``(batch,)`` for scalars (1x1 matrices included),
    ``(batch, rows, cols)`` for matrices; a :class:`~theorem_check.numerics.balls.BallArray` matrix is kept as
    one inside :func:`~theorem_check.numerics.balls.keeping`."""
    if isinstance(v, BallArray) and kept() and v.shape[1:] != (1, 1) and batch in (None, v.shape[0]):
        return v      # the engine projects it in balls (numerics.balls.keeping)
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
    batch = _batch_of(values)
    out = recipe(Env(ctx, with_balls(ctx, values), dict(dims or {}), dict(structure or {})))
    return _normalize(out, batch)


def with_balls(ctx, values: Mapping[str, Any]) -> dict:
    """At mp50, ``values`` with every large real matrix held in python-flint balls
    (:func:`theorem_check.numerics.balls.balls_of`: products, sums, transposes and traces in C); unchanged
    at float precisions."""
    if not getattr(ctx, "is_mp", False):
        return dict(values)
    return {k: balls_of(v) for k, v in values.items()}


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


def _integer_power(b, k: int):
    """The evaluator of ``B**k`` for an integer ``k`` (``k < 0``: the inverse's power; 0: the identity)."""
    def run(env):
        m = b(env)
        if k < 0:
            m = env.ctx.inv(m)
        if k == 0:
            return env.ctx.eye(np.shape(m)[-1])
        return matrix_power(m, abs(k))
    return run
