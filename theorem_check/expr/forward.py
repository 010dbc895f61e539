"""Forward-mode differentiation of an expression side: the directional derivative ``d/dt f(X + t V)`` at
``t = 0`` in one pass over the expression tree (a Jacobian-vector product), for the derivative oracle
along random directions (issue 21; docs/design-decisions.md, item 114).

Every node of the tree that depends on the differentiated variable ``X`` is evaluated as a pair (value,
tangent): the tangent of ``X`` is the direction ``V``, a node free of ``X`` has no tangent (zero) and is
evaluated by the ordinary recipe (:mod:`theorem_check.expr.compile`), and each node's tangent follows from
its arguments' by the rules of matrix calculus (Magnus & Neudecker, *Matrix Differential Calculus*, ch. 8-9;
the Matrix Cookbook, sec. 2):

=========================  ================================================================
node                       tangent (``dA`` the tangent of the argument ``A``)
=========================  ================================================================
sums, transposes, trace,   the same operation on the tangents (linear nodes)
vec, diag, entries
products (``*``, ``@``,    the product rule, ``sum_i A_1 ... dA_i ... A_k`` (chains in the
Hadamard, Kronecker)       order of :func:`~theorem_check.expr.compile.chain_product`)
``A^-1``                   ``-A^-1 dA A^-1``
``det A``                  ``det A tr(A^-1 dA)``; ``log det A``: ``tr(A^-1 dA)`` (no determinant)
``A^k`` (integer ``k``)    the product rule over ``k`` factors (``k < 0``: of ``A^-1``)
Hadamard power ``A^o p``   ``p A^o(p-1) o dA``
scalar ``a^p`` (number     ``p a^(p-1) da``; ``sqrt``: ``da / (2 sqrt a)``
``p``)
``exp``, ``log``,          ``f'(a) da`` entrywise (``exp a``, ``1/a``, ``1 - tanh^2 a``,
``tanh``, ``sigmoid``,     ``s (1 - s)``, ``s``, ``cos``, ``-sin``, ``1 / cos^2``, ``1/(1+a)``,
``softplus``, ``sin``,     ``exp a``)
``cos``, ``tan``,
``log1p``, ``expm1``
``softmax(A, axis)``       ``P o (dA - (sum along axis of P o dA) broadcast)``, ``P`` the softmax
entrywise functions        the rules above applied to the body at the argument's value and tangent
(``ElementwiseApplyFunction``)
=========================  ================================================================

Any other node on the variable's path (the matrix functions ``expm``, ``logm``, ``sqrtm``, ``cholesky``;
``abs``; a non-numeric exponent; ``logsumexp``; a derivative inside the function) makes
:func:`jvp_recipe` return None, and the oracle keeps its finite differences.  Values are computed only when
a tangent needs them (``tr(A^-1 dA)`` never forms ``det A``), except the function's own value, once per
instance batch: where it is not real and finite (``log(det(-X))``), the difference quotient takes over and
reports the function undefined, as it does at sizes small enough for the full oracle.

Precision and floors.  It is used at every precision (float32, float64, mp50), where the oracle checks a
first derivative along random directions (:mod:`theorem_check.numerics.directions`) and, for derivatives of
at most 16 entries, along each unit direction (:func:`theorem_check.numerics.derivatives.grad`, ``jvp=``;
design decision 116).  Values do not depend on the direction: one value memo per instance batch serves all
of its directions.  The forward pass runs at
the oracle's working precision (mp50: ``dps + 40`` digits,
:func:`~theorem_check.numerics.derivatives.at_oracle_precision`).  It has no step to divide by and no
truncation error, so its rounding stays below the floor the engine already keeps for the oracle
(:meth:`~theorem_check.numerics.directions.Projection.oracle_gain`, the difference quotient's).  The
refinement float32 -> float64 -> mp50 is of one quantity, the directional derivative, computed to the
working precision at every level.
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import sympy as sp
from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

from theorem_check.expr.nodes import ExprError, is_matrix
from theorem_check.expr.values import (
    ELEMENTWISE,
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
from theorem_check.numerics.balls import BallArray

__all__ = ["NoForward", "jvp_recipe", "directional_jvp"]


class NoForward(ExprError):
    """A node on the differentiated variable's path has no forward rule here (the oracle keeps finite
    differences)."""


_Pair = Callable[[Any], tuple]   # fenv -> (value thunk, tangent or None)


class _FEnv:
    """The recipe's :class:`~theorem_check.expr.compile.Env`, the tangents of the differentiated symbols
    (the variable's name, and the dummies of entrywise function bodies), and the values computed so far.

    Values do not depend on the direction, so one ``values`` dict serves every direction of an instance
    batch (:func:`directional_jvp`): ``inv(X)``, ``softmax(X)``, a product's partial chains are computed once,
    not once per direction.  Its keys are compile-time objects, one per memoised quantity of a node."""

    __slots__ = ("env", "tangents", "values")

    def __init__(self, env, tangents: dict, values: dict | None = None):
        self.env, self.tangents = env, tangents
        self.values = {} if values is None else values

    def memo(self, key, fn):
        """A thunk of ``fn()``, computed at most once for this instance batch (``key``: a compile-time object)."""
        values = self.values

        def get():
            if key not in values:
                values[key] = fn()
            return values[key]
        return get


def _value(v):
    return lambda: v


def _sum(terms):
    terms = [t for t in terms if t is not None]
    if not terms:
        return None
    out = terms[0]
    for t in terms[1:]:
        out = add(out, t)
    return out


def _neg(t):
    return mul(-1, t)


# entrywise f'(a) from (ctx, a, f(a)) for the functions of compile._ELEMENTWISE that are differentiable
_DERIV = {
    "exp": lambda ctx, a, v: v,
    "log": lambda ctx, a, v: 1 / a,
    "tanh": lambda ctx, a, v: 1 - v * v,
    "sigmoid": lambda ctx, a, v: v * (1 - v),
    "softplus": lambda ctx, a, v: ctx.sigmoid(a),
    "sin": lambda ctx, a, v: ctx.cos(a),
    "cos": lambda ctx, a, v: -ctx.sin(a),
    "tan": lambda ctx, a, v: 1 + v * v,
    "log1p": lambda ctx, a, v: 1 / (1 + a),
    "expm1": lambda ctx, a, v: v + 1,
}
_LINEAR = {"re": "real", "im": "imag", "conjugate": "conj"}


class _Forward:
    """Compiles a SymPy tree into ``fenv -> (value thunk, tangent)``; one ``_f_<ClassName>`` per node class."""

    def __init__(self, var: str, value: Callable):
        self.var, self.value = var, value

    def depends(self, e) -> bool:
        if isinstance(e, ElementwiseApplyFunction):    # the body's dummy stands for the argument
            fn = e.function
            body = fn.expr.free_symbols - set(fn.variables) if isinstance(fn, sp.Lambda) else set()
            return self.depends(e.expr) or any(getattr(s, "name", None) == self.var for s in body)
        if isinstance(e, sp.Dummy):
            return True          # a bound dummy of an entrywise body (its tangent may be None: checked at run)
        if isinstance(e, (sp.MatrixSymbol, sp.Symbol)):
            return e.name == self.var
        return any(self.depends(a) for a in e.args if isinstance(a, sp.Basic))

    def compile(self, e) -> _Pair:
        if not self.depends(e):
            rec, k = self.value(e), object()
            return lambda fe: (fe.memo(k, lambda: rec(fe.env)), None)
        for cls in type(e).__mro__:
            meth = getattr(self, f"_f_{cls.__name__}", None)
            if meth is not None:
                return meth(e)
            name = cls.__name__
            if isinstance(e, sp.Function) and (name in _DERIV or name in _LINEAR):
                return self._entrywise(e, name)
        raise NoForward(f"no forward rule for a {type(e).__name__} node")

    # -- leaves ---------------------------------------------------------------------------
    def _f_MatrixSymbol(self, e):
        rec = self.value(e)
        return lambda fe: (_value(rec(fe.env)), fe.tangents.get(e.name))

    _f_Symbol = _f_MatrixSymbol

    def _f_Dummy(self, e):
        rec = self.value(e)
        return lambda fe: (_value(rec(fe.env)), fe.tangents.get(e))

    # -- sums and products ----------------------------------------------------------------
    def _f_Add(self, e):
        parts, k = [self.compile(a) for a in e.args], object()

        def run(fe):
            res = [p(fe) for p in parts]

            def value():
                out = res[0][0]()
                for v, _ in res[1:]:
                    out = add(out, v())
                return out
            return fe.memo(k, value), _sum(t for _, t in res)
        return run

    _f_MatAdd = _f_Add

    def _product(self, args, combine):
        parts, k = [self.compile(a) for a in args], object()

        def run(fe):
            res = [p(fe) for p in parts]
            vals = [v for v, _ in res]
            ctx = fe.env.ctx
            value = fe.memo(k, lambda: combine(ctx, [v() for v in vals]))
            terms = [combine(ctx, [t if j == i else vals[j]() for j in range(len(res))])
                     for i, (_, t) in enumerate(res) if t is not None]
            return value, _sum(terms)
        return run

    def _f_Mul(self, e):
        return self._product(e.args, _fold(lambda ctx, a, b: mul(a, b)))

    def _f_MatMul(self, e):
        return self._product(chain_factors(e.args), _chain)

    def _f_HadamardProduct(self, e):
        return self._product(e.args, _fold(lambda ctx, a, b: ctx.hadamard(a, b)))

    def _f_KroneckerProduct(self, e):
        return self._product(e.args, _fold(lambda ctx, a, b: ctx.kron(a, b)))

    # -- powers ---------------------------------------------------------------------------
    def _f_Pow(self, e):
        base, ex = e.args
        if not ex.is_Number or self.depends(ex):
            raise NoForward(f"no forward rule for the power {e} (a numeric exponent only)")
        b, k, kd = self.compile(base), object(), object()

        def run(fe):
            bv, bt = b(fe)
            value = fe.memo(k, lambda: number_power(fe.env.ctx, bv(), ex))
            if bt is None:
                return value, None
            return value, mul(fe.memo(kd, lambda: _power_slope(fe.env.ctx, bv(), value, ex))(), bt)
        return run

    def _f_HadamardPower(self, e):
        base, ex = e.base, e.exp
        if not ex.is_Number or self.depends(ex):
            raise NoForward(f"no forward rule for the Hadamard power {e} (a numeric exponent only)")
        b, k, kd = self.compile(base), object(), object()

        def run(fe):   # d(A^o p) = p A^o(p-1) o dA
            ctx = fe.env.ctx
            bv, bt = b(fe)
            value = fe.memo(k, lambda: ctx.hadamard_power(bv(), const(ctx, ex)))
            if bt is None:
                return value, None
            slope = fe.memo(kd, lambda: mul(const(ctx, ex), ctx.hadamard_power(bv(), const(ctx, ex - 1))))
            return value, ctx.hadamard(slope(), bt)
        return run

    def _f_MatPow(self, e):
        base, ex = e.args
        if not ex.is_Integer or tuple(base.shape) == (1, 1):
            raise NoForward(f"no forward rule for the matrix power {e} (integer exponents only)")
        k = int(ex)
        from theorem_check.expr.normal_form import MAX_POWER

        if abs(k) > MAX_POWER:     # the product rule over k factors: k products (A**10**7 took hours)
            raise NoForward(f"no forward rule for the matrix power {e} (exponent beyond {MAX_POWER})")
        if k == 0:
            rec, key = self.value(e), object()
            return lambda fe: (fe.memo(key, lambda: rec(fe.env)), None)
        arg = sp.Inverse(base) if k < 0 else base
        return self._product([arg] * abs(k), _chain)

    # -- matrix nodes ---------------------------------------------------------------------
    def _linear(self, e, op):
        a, k = self.compile(e.args[0]), object()

        def run(fe):
            av, at = a(fe)
            ctx = fe.env.ctx
            return fe.memo(k, lambda: op(ctx, av())), (None if at is None else op(ctx, at))
        return run

    def _method(name):  # noqa: N805 - a helper of the class body: _f_Transpose = _method("T") etc.
        def rule(self, e):   # a linear node: the same context method on the value and on the tangent
            return self._linear(e, lambda ctx, x: getattr(ctx, name)(x))
        return rule

    _f_Transpose, _f_Adjoint, _f_Vec, _f_Real, _f_Imag, _f_Conj, _f_Tril, _f_Triu = map(
        _method, ("T", "H", "vec", "real", "imag", "conj", "tril", "triu"))
    del _method

    def _f_DiagonalOf(self, e):
        return self._linear(e, lambda ctx, x: ctx.diag_part(x)[..., :, None])

    def _f_DiagMatrix(self, e):
        col = e.args[0].shape[1] == 1
        return self._linear(e, lambda ctx, x: ctx.diag(x[..., :, 0] if col else x[..., 0, :]))

    def _f_MatrixElement(self, e):
        i, j = e.i, e.j
        parent, k = self.compile(e.parent), object()

        def run(fe):
            pv, pt = parent(fe)
            ii, jj = size(i, fe.env), size(j, fe.env)
            return fe.memo(k, lambda: pv()[..., ii, jj]), (None if pt is None else pt[..., ii, jj])
        return run

    def _f_Trace(self, e):
        args = e.arg.args if isinstance(e.arg, sp.MatMul) else ()
        if sum(map(is_matrix, args)) < 2 or not is_matrix(args[-1]):
            return self._linear(e, lambda ctx, x: ctx.trace(x))
        head, last, k = self._f_MatMul(sp.MatMul(*args[:-1])), self.compile(args[-1]), object()

        def run(fe):   # tr(M L) and its tangent tr(dM L) + tr(M dL), the last product never formed
            ctx = fe.env.ctx
            (hv, ht), (lv, lt) = head(fe), last(fe)
            terms = [None if ht is None else trace_product(ctx, ht, lv()),
                     None if lt is None else trace_product(ctx, hv(), lt)]
            return fe.memo(k, lambda: trace_product(ctx, hv(), lv())), _sum(terms)
        return run

    def _f_Inverse(self, e):
        a, k = self.compile(e.arg), object()

        def run(fe):
            av, at = a(fe)
            ctx = fe.env.ctx
            inv = fe.memo(k, lambda: ctx.inv(av()))
            return inv, (None if at is None else _neg(chain_product([inv(), at, inv()])))
        return run

    def _f_Determinant(self, e):
        a, k, ki = self.compile(e.arg), object(), object()

        def run(fe):
            av, at = a(fe)
            ctx = fe.env.ctx
            det = fe.memo(k, lambda: ctx.det(av()))
            if at is None:
                return det, None
            return det, mul(det(), trace_product(ctx, fe.memo(ki, lambda: ctx.inv(av()))(), at))
        return run

    def _f_Softmax(self, e):
        x, axis, k = self.compile(e.args[0]), (-2, -1)[e.axis], object()

        def run(fe):
            xv, xt = x(fe)
            ctx = fe.env.ctx
            p = fe.memo(k, lambda: ctx.softmax(xv(), axis=axis))
            if xt is None:
                return p, None
            P = p()
            s = ctx.hadamard(P, xt)
            r, c = P.shape[-2:]
            if axis == -1:   # each row's sum of P o dX, spread along the row
                tot = chain_product([s, ctx.ones((c, 1)), ctx.ones((1, c))])
            else:
                tot = chain_product([ctx.ones((r, 1)), ctx.ones((1, r)), s])
            return p, ctx.hadamard(P, xt - tot)
        return run

    def _f_ElementwiseApplyFunction(self, e):
        fn = e.function
        if not isinstance(fn, sp.Lambda) or len(fn.variables) != 1:
            fn = sp.Lambda(sp.Dummy("d"), fn(sp.Dummy("d")))
        var, body = fn.variables[0], self.compile(fn.expr)
        arg = self.compile(e.expr)

        def run(fe):
            av, at = arg(fe)
            env = fe.env.with_bound(var, av())
            out = body(_FEnv(env, {**fe.tangents, var: at}, fe.values))
            return out
        return run

    def _entrywise(self, e, name):
        if len(e.args) != 1:
            raise NoForward(f"{name} takes one argument")
        if name in _LINEAR:
            method = _LINEAR[name]
            return self._linear(e, lambda ctx, x: getattr(ctx, method)(x))
        if name == "log" and isinstance(e.args[0], sp.Determinant):
            return self._log_det(e.args[0].arg)
        a, method, deriv = self.compile(e.args[0]), ELEMENTWISE[name], _DERIV[name]
        k, kd = object(), object()

        def run(fe):
            ctx = fe.env.ctx
            av, at = a(fe)
            value = fe.memo(k, lambda: getattr(ctx, method)(av()))
            if at is None:
                return value, None
            return value, mul(fe.memo(kd, lambda: deriv(ctx, av(), value()))(), at)     # f'(a) o da
        return run

    def _log_det(self, arg):
        m, k, ki = self.compile(arg), object(), object()

        def run(fe):    # d log det A = tr(A^-1 dA): the determinant itself is never formed
            ctx = fe.env.ctx
            mv, mt = m(fe)
            value = fe.memo(k, lambda: ctx.logdet(mv()))   # finite where det overflows
            value.defined = lambda: _log_det_defined(mv(), value)
            return value, (None if mt is None else trace_product(ctx, fe.memo(ki, lambda: ctx.inv(mv()))(), mt))
        return run


def _log_det_defined(a, value) -> bool:
    """Whether ``log det a`` is real and finite: certain from a 64-bit ball determinant when ``a`` is a ball array
    whose determinants are positive (the value itself, at the oracle's precision, is then not computed for the
    check), else from the value."""
    if isinstance(a, BallArray) and a.det_positive():
        return True
    return _real_and_finite(value())


def _power_slope(ctx, a, value, ex):
    """``p a^(p-1)`` for the number ``p = ex`` (``1 / (2 sqrt a)`` for ``p = 1/2``, from ``value() = sqrt a``)."""
    if ex == sp.Rational(1, 2):
        return 1 / (2 * value())
    if ex.is_Integer:
        k = int(ex)
        return k * number_power(ctx, a, sp.Integer(k - 1)) if k != 1 else 1
    return const(ctx, ex) * ctx.power(a, const(ctx, ex - 1))


def _fold(op):
    """``(ctx, values) -> op(...op(op(v0, v1), v2)..., vk)``: a product of several factors, left to right."""
    def combine(ctx, vs):
        out = vs[0]
        for v in vs[1:]:
            out = op(ctx, out, v)
        return out
    return combine


def _chain(ctx, vs):
    return chain_product(vs)


@functools.lru_cache(maxsize=1024)
def jvp_recipe(expr, var: str, value: Callable):
    """``(env, V, values=None) -> (value, tangent)``: ``expr`` at the instance (a thunk, computed when called) and
    ``d/dt expr(X + t V)`` at ``t = 0`` for the variable ``var`` (a matrix or a scalar symbol's name) of
    the SymPy expression ``expr``; None when a node on the variable's path has no forward rule (see the
    module docstring).  ``value(e)`` is the ordinary recipe of a subexpression
    (:func:`theorem_check.expr.compile.compile_expr`), used for the nodes free of ``var``.  The tangent has
    ``expr``'s value's shape, or is None when ``expr`` does not depend on ``var`` (a zero derivative).
    ``values``: a dict kept by the caller across the directions of one instance batch (the same ``env``), so
    that the values, which do not depend on the direction, are computed once.  Cached by ``(expr, var, value)``."""
    try:
        pair = _Forward(var, value).compile(expr)
    except NoForward:
        return None

    def jvp(env, V, values: dict | None = None):
        return pair(_FEnv(env, {var: V}, values))
    return jvp


def _real_and_finite(v) -> bool:
    """True when every entry of ``v`` (float array, object array of mpmath numbers, ball array) is a finite
    real number."""
    import mpmath
    import numpy as np

    a = np.asarray(v)
    if a.dtype != object:
        return bool(np.isrealobj(a) and np.all(np.isfinite(a)))
    return all(isinstance(x, (int, mpmath.mpf)) and mpmath.isfinite(x) for x in a.reshape(-1))


def directional_jvp(f, var: str, env, x0, scalar_out: bool, label, value: Callable) -> Callable | None:
    """The oracle's ``jvp(V)`` for :meth:`~theorem_check.numerics.directions.Projection.oracle`: the
    directional derivative of the side ``f`` by ``var`` at ``x0`` along ``V``, shaped as the difference
    quotient's (``(batch,)`` for a scalar ``f``, ``(batch, *out)`` otherwise), at the oracle's precision; None
    when ``f`` has no forward recipe (``value``: as for :func:`jvp_recipe`).  The returned function gives None
    (the quotient decides, with its own errors) when the forward pass fails at these values, e.g. on a matrix
    singular to working precision, and when ``f`` itself is not real and finite at ``x0`` (checked on the first
    direction: ``log(det(-X))`` of an SPD ``X``, whose tangent ``tr(X^-1 dX)`` alone is finite), so a function
    undefined at the instance is reported as undefined at every size, not only where the quotient runs."""
    import numpy as np

    from theorem_check.numerics.derivatives import at_oracle_precision

    rec = jvp_recipe(f, var, value)
    if rec is None:
        return None
    env = env.bind(var, x0)
    batch = int(np.shape(x0)[0])

    defined: list = []     # f itself, once: where it is undefined the quotient reports it, as at any size
    values: dict = {}      # the values of the nodes, shared by the directions of this batch

    def jvp(V):
        def body():
            value, t = rec(env, V, values)
            if not defined:   # a node may know it more cheaply than by its value (log det: a 64-bit ball det)
                check = getattr(value, "defined", None)
                defined.append(check() if check is not None else _real_and_finite(value()))
            if not defined[0]:
                return None
            if t is None:   # f does not depend on the variable
                return np.broadcast_to(env.ctx.scalar(0), (batch,)).copy() if scalar_out else None
            t = as_scalar(t, label) if scalar_out else t
            return batched(t, batch)
        try:
            return at_oracle_precision(env.ctx, body)
        except Exception:  # noqa: BLE001 - the difference quotient evaluates f itself and reports its errors
            return None
    return jvp
