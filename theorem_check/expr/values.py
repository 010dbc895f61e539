"""Values of an expression side on a batch, and the helpers both compilers of a SymPy tree share: the
ordinary recipe (:mod:`theorem_check.expr.compile`) and forward mode (:mod:`theorem_check.expr.forward`).

Layout: a scalar is ``()`` (a constant) or ``(batch,)``; a matrix ``(rows, cols)`` (a constant) or
``(batch, rows, cols)``; at mp50 a large real matrix may be a ball array
(:class:`~theorem_check.numerics.balls.BallArray`).  A scalar meeting a matrix is lifted to
``(batch, 1, 1)`` (:func:`lift`).
"""

from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np
import sympy as sp

from theorem_check.errors import ShapeMismatch
from theorem_check.expr.chain import chain_order
from theorem_check.expr.nodes import ExprError
from theorem_check.numerics.balls import product_operand

__all__ = ["Env", "Recipe", "ELEMENTWISE", "is_mat_value", "as_scalar", "lift", "mul", "add", "batched", "matmul",
           "chain_product", "chain_factors", "const", "size", "number_power", "trace_product"]


# ---------------------------------------------------------------------------------------------
# values
# ---------------------------------------------------------------------------------------------
@dataclass
class Env:
    """What a recipe is applied to: the context, the instance's values, its sizes, structures, bound dummies,
    and the values of repeated subexpressions computed so far (``memo``)."""

    ctx: Any
    values: Mapping[str, Any]
    dims: Mapping[str, int] = field(default_factory=dict)
    structure: Mapping[str, str] = field(default_factory=dict)
    bound: Mapping[Any, Any] = field(default_factory=dict)
    memo: dict = field(default_factory=dict, compare=False, repr=False)
    """Values of the subexpressions that occur more than once in the expression, computed once for this
    environment (:func:`theorem_check.expr.compile.compile_expr`); a copy (:meth:`bind`, :meth:`with_bound`)
    starts empty, since its values differ."""

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


def is_mat_value(v) -> bool:
    """True for a matrix value (two or more axes: ``(rows, cols)`` or ``(batch, rows, cols)``)."""
    return np.ndim(v) >= 2


def as_scalar(v, what: str):
    """A value used as a scalar: a ``1 x 1`` matrix becomes its entry; a larger matrix is a shape error."""
    if is_mat_value(v):
        if np.shape(v)[-2:] == (1, 1):
            return v[..., 0, 0]
        raise ShapeMismatch(f"{what}: a matrix of shape {np.shape(v)[-2:]} is used as a scalar")
    return v


def lift(s, m):
    """Scalar ``s`` (``()`` or ``(batch,)``) shaped to multiply/add the matrix ``m``."""
    if np.ndim(s) == 1 and is_mat_value(m):
        return s[:, None, None]
    return s


def mul(a, b):
    """``a * b`` with a scalar lifted against a matrix (:func:`lift`); two matrices multiply entrywise."""
    if is_mat_value(a) != is_mat_value(b):
        a, b = (lift(a, b), b) if is_mat_value(b) else (a, lift(b, a))
    return a * b


def add(a, b):
    """``a + b`` with a scalar lifted against a matrix (:func:`lift`)."""
    if is_mat_value(a) != is_mat_value(b):
        a, b = (lift(a, b), b) if is_mat_value(b) else (a, lift(b, a))
    return a + b


def batched(v, batch: int):
    """``v`` with the leading batch axis: a constant scalar ``()`` or matrix ``(rows, cols)`` (no
    batch axis, as SymPy folds ``eye(1) - ones(1, 1)`` to a number) repeated ``batch`` times."""
    if np.ndim(v) in (0, 2):
        return np.broadcast_to(v, (batch,) + np.shape(v)).copy()
    return v


def matmul(a, b):
    """The matrix product ``a @ b`` (a scalar operand: :func:`mul`); a product of ``mpf`` object arrays runs
    in balls (:func:`~theorem_check.numerics.balls.product_operand`).  Raises ShapeMismatch when the inner
    sizes differ."""
    if not (is_mat_value(a) and is_mat_value(b)):
        return mul(a, b)
    if a.shape[-1] != b.shape[-2]:
        raise ShapeMismatch(f"matrix product of shapes {a.shape[-2:]} and {b.shape[-2:]} does not conform")
    return product_operand(a, b) @ b


def chain_product(values: list):
    """The product of ``values`` in order (matrices ``(..., r, c)`` and scalars ``()``/``(batch,)``), the
    matrices associated by :func:`chain_order` and the scalars multiplying their product.  The same product as left-to-right evaluation up to rounding: ``ones(n,1)*ones(1,n)*x`` no
    longer forms the n x n matrix of ones (at mp50 and n = 256, 65,536 ``mpf`` products per evaluation: it
    made the layer-norm gradient check take 41 s).  Raises ShapeMismatch for non-conforming neighbours."""
    mats = [v for v in values if is_mat_value(v)]
    scalars = [v for v in values if not is_mat_value(v)]
    for a, b in zip(mats, mats[1:]):
        if a.shape[-1] != b.shape[-2]:
            raise ShapeMismatch(f"matrix product of shapes {a.shape[-2:]} and {b.shape[-2:]} does not conform")
    if not mats:
        out = scalars[0]
        for v in scalars[1:]:
            out = mul(out, v)
        return out
    split = chain_order([tuple(m.shape[-2:]) for m in mats])

    def prod(i, j):
        if i == j:
            return mats[i]
        m = split[i][j]
        return matmul(prod(i, m), prod(m + 1, j))
    out = prod(0, len(mats) - 1)
    for v in scalars:
        out = mul(v, out)
    return out


def const(ctx, e):
    """A SymPy number as a constant of ``ctx`` (rationals exact to the working precision)."""
    if e.is_Integer:
        return int(e)
    if e.is_Rational:
        return ctx.scalar(int(e.p)) / ctx.scalar(int(e.q))
    if e is sp.pi:
        return ctx.pi
    if e is sp.E:
        return ctx.exp(ctx.scalar(1))
    if e is sp.I:
        return ctx.scalar(1j)
    if e.is_Float:
        if ctx.is_mp:
            import mpmath

            return mpmath.mpf(str(e))
        return ctx.scalar(float(e))
    raise ExprError(f"cannot evaluate the number {e} ({type(e).__name__}): real constants and I only")


def size(e, env: Env) -> int:
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


ELEMENTWISE = {"sin": "sin", "cos": "cos", "tan": "tan", "tanh": "tanh", "exp": "exp", "log": "log",
                "Abs": "abs", "sigmoid": "sigmoid", "softplus": "softplus", "log1p": "log1p", "expm1": "expm1",
                "re": "real", "im": "imag", "conjugate": "conj"}
"""SymPy function class name -> ``ctx`` method (elementwise on any shape)."""


def chain_factors(args) -> list:
    """The factors of a SymPy matrix product as a chain: ``ones(r, c)`` (``r, c > 1``) becomes
    ``ones(r, 1) ones(1, c)``, so that :func:`chain_product`'s order never forms ``ones(n, n) @ X``
    (``n^2`` work, not ``n^3``)."""
    return [b for a in args for b in ((sp.OneMatrix(a.shape[0], 1), sp.OneMatrix(1, a.shape[1]))
                                      if isinstance(a, sp.OneMatrix) and 1 not in a.shape else (a,))]


def number_power(ctx, a, ex):
    """``a ** ex`` for a SymPy number ``ex`` (scalars, or entrywise on arrays): ``sqrt`` for ``1/2`` and
    ``-1/2``, repeated products for integers (``1 / a^k`` for ``-k``), :meth:`Ctx.power` otherwise."""
    if ex == sp.Rational(1, 2):
        return ctx.sqrt(a)
    if ex == sp.Rational(-1, 2):
        return 1 / ctx.sqrt(a)
    if ex.is_Integer:
        k = int(ex)
        return a ** k if k >= 0 else 1 / (a ** (-k))
    return ctx.power(a, const(ctx, ex))


def trace_product(ctx, a, b):
    """``tr(a b)``: :meth:`Ctx.trace_product` (the product never formed) for two matrices, else the trace of
    the (scalar-lifted) product."""
    if is_mat_value(a) and is_mat_value(b):
        return ctx.trace_product(a, b)
    return ctx.trace(mul(a, b))
