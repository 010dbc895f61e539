"""Derivative checks along random directions: a claimed gradient, Jacobian or Hessian against the function.

A claimed derivative ``E`` of ``f`` at ``X`` is a linear map (a bilinear form for a Hessian).  Instead of
all ``N`` entries of the oracle's derivative (``N`` difference quotients, each a few evaluations of ``f``),
the engine compares the two sides along ``k`` random directions drawn once per instance:

==========  =====================================  =============================================
kind        claimed side, projected                oracle side (same directions)
==========  =====================================  =============================================
grad        ``<E, V_i>`` (Frobenius)               ``d/dt f(X + t V_i)``; ``f(X + t sym V_i)``
                                                   for the symmetric gradient (``sym V = (V + V^T)/2``)
jacobian    ``E v_i`` (``v_i = vec_C V_i``)        ``d/dt F(X + t V_i)``, flattened row-major
hessian     ``u_i^T E w_i``                        ``[D^2 f(U_i + W_i) - D^2 f(U_i - W_i)] / 4``
==========  =====================================  =============================================

``V_i`` (and ``U_i``, ``W_i``) are Gaussian, each scaled to unit Frobenius norm, drawn in float64 from the
instance's seed and converted to every context (exactly at mp50), so the refinement float32 -> float64 ->
mp50 is of one quantity.  The oracle is the difference quotient of :mod:`theorem_check.numerics.derivatives`
along ``V_i`` (4th order, step tied to the working precision), so its error follows the working precision
and the engine's refinement rule decides, as for full derivatives.  Cost: ``4 k`` evaluations of ``f``
(``10 k`` for a Hessian) whatever ``N``.

Why it keeps the sensitivity.  The two sides differ by a linear map ``D = E - G`` (for a Hessian a bilinear
form).  ``<D, V>`` for ``V`` Gaussian is a nonzero polynomial of ``V``'s entries unless ``D = 0``, so it
vanishes with probability 0: a map that agrees on one random direction agrees everywhere with
probability 1 (the same holds for ``u^T D w``).  Quantitatively, for ``V`` uniform on the unit sphere of
``R^N``, ``E <D, V>^2 = |D|_F^2 / N`` and ``E <G, V>^2 = |G|_F^2 / N``: the projected residual
``|<D, V>| / |<G, V>|`` is of the order of the full residual ``|D|_F / |G|_F``, so a claimed gradient wrong
in a single entry by ``delta`` (``|D|_F = delta``) leaves about ``delta / |G|_F`` at every ``N`` (times a
chi-square factor over the ``k`` directions, below 1/10 with probability ``< 10^-5`` at ``k = 8``), far
above the float64 and mp50 floors for any ``delta`` the full check would catch.

Floors (the oracle's rounding along a direction).  The difference quotient along ``V`` takes the step
``t = h / max|V|`` (``h`` the oracle's step, see :func:`~theorem_check.numerics.derivatives.rounding_gain`),
so a rounding error ``eps M_f`` of ``f`` moves the ``d``-th quotient by ``w_d eps M_f max|V|^d / h^d``:
the full oracle's per-entry gain times ``max|V|^d`` (:meth:`Projection.oracle_gain`; for a unit-norm
``V`` at most the gain of one entry, typically ``sqrt(2 log N / N)`` of it).  The polarised Hessian form adds
the two second quotients' gains over 4.  The claimed side's rounding ``dE`` (``|dE_ij| <= eps M_ij``, ``M``
the magnitude of its computation, :mod:`theorem_check.expr.magnitude`) projects to
``|<dE, V>| <= 10 eps sqrt(sum M_ij^2 V_ij^2)`` except with probability ``4e-22`` (Hoeffding over the
directions' signs, which are independent of the rounding; :meth:`Projection.apply_abs`); the residual's
reference is the same sum with factor 1.  The engine keeps the floor
``eps * size * cond`` with ``size`` the entries of the *unprojected* side (the full check's floor).

Source: randomised identity testing (Schwartz-Zippel; Freivalds, "Fast probabilistic algorithms",
MFCS 1979, for matrix products); directional checks of gradients as in JAX's ``check_grads``
(``jax.test_util``) and PyTorch's ``gradcheck(fast_mode=True)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from theorem_check.errors import InvalidArgument, ShapeMismatch
from theorem_check.numerics.balls import BallArray, balls_of, dot_directions
from theorem_check.numerics.derivatives import directional, rounding_gain, second_directional

__all__ = ["Projection", "DIRECTIONS", "FULL_LIMIT", "KINDS", "HOEFFDING_T", "projects"]

HOEFFDING_T = 10.0
"""Deviations in the rounding bound of a projected side (:meth:`Projection.apply_abs`): exceeded with
probability ``2 exp(-50) = 4e-22`` per direction."""

DIRECTIONS = 8
"""Random directions per instance (``k``)."""

FULL_LIMIT = 16
"""A derivative whose full oracle needs at most this many difference quotients (``N`` for a gradient or
Jacobian, ``N (N + 1) / 2`` for a Hessian) is computed in full, entry by entry; a larger one is checked
along :data:`DIRECTIONS` random directions (twice as many quotients as directions: the full oracle is
exact about the derivative's entries and costs no more).  Derivatives of the built-in catalogue with
respect to matrices up to ``4 x 4`` stay on the full path."""

KINDS = ("grad", "sym_grad", "jacobian", "hessian")


def projects(kind: str, numel: int) -> bool:
    """True when a derivative of ``kind`` with respect to a variable of ``numel`` entries is checked along
    random directions (its full oracle would need more than :data:`FULL_LIMIT` quotients)."""
    quotients = numel * (numel + 1) // 2 if kind == "hessian" else numel
    return quotients > FULL_LIMIT


def _unit(rng, shape):
    v = rng.standard_normal(shape)
    norm = np.sqrt(np.sum(v.reshape(shape[0], shape[1], -1) ** 2, axis=2))
    return v / norm.reshape(norm.shape + (1,) * (len(shape) - 2))


def _in(ctx, V):
    """A float64 direction in ``ctx``: at mp50 a large one in exact balls (numerics/balls.py)."""
    if ctx.is_mp:
        b = balls_of(V)
        if isinstance(b, BallArray):
            return b
    return ctx.asarray(V)


def _sym(ctx, V):
    return (V + ctx.T(V)) / 2


def _flat(a, batch):
    return np.asarray(a).reshape(batch, -1)


@dataclass(frozen=True)
class Projection:
    """The random directions of one batch, and both sides' projections on them.

    ``U`` (and ``W`` for a Hessian) are float64 arrays of shape ``(batch, k, *shape)`` (``shape`` the
    variable's, without batch axis), each ``U[b, i]`` of unit Frobenius norm; ``size`` is the number of
    entries of the unprojected derivative (the engine's floor uses it).  Projections have shape
    ``(batch, K)``: ``K = k`` (grad, sym_grad, hessian) or ``k * m`` (jacobian, ``m`` entries of ``F``).
    """

    kind: str
    U: np.ndarray
    W: np.ndarray | None = None
    size: int = 0

    @classmethod
    def draw(cls, rng, kind: str, x_shape, *, k: int = DIRECTIONS) -> "Projection":
        """Directions for a variable of batched shape ``x_shape`` (``(batch, *shape)``), from ``rng``.

        Raises InvalidArgument for an unknown kind or ``k < 1``.
        """
        if kind not in KINDS:
            raise InvalidArgument(f"kind={kind!r} must be one of {', '.join(KINDS)}")
        if k < 1:
            raise InvalidArgument(f"k={k!r} must be >= 1")
        batch, shape = int(x_shape[0]), tuple(x_shape[1:])
        n = int(np.prod(shape)) if shape else 1
        full = (batch, k) + shape
        U = _unit(rng, full)
        W = _unit(rng, full) if kind == "hessian" else None
        return cls(kind, U, W, n * n if kind == "hessian" else n)

    @property
    def k(self) -> int:
        """The number of directions."""
        return int(self.U.shape[1])

    def take(self, b: int) -> "Projection":
        """The directions of batch element ``b`` (a batch of one)."""
        return Projection(self.kind, self.U[b:b + 1], None if self.W is None else self.W[b:b + 1], self.size)

    def first(self, k: int) -> "Projection":
        """The same directions, only the first ``k`` of them."""
        return Projection(self.kind, self.U[:, :k], None if self.W is None else self.W[:, :k], self.size)

    def _dirs(self, ctx, which, i):
        V = _in(ctx, which[:, i])
        return _sym(ctx, V) if self.kind == "sym_grad" else V

    # -- the claimed side -----------------------------------------------------------------
    def _expect(self, E, m=None):
        shape = self.U.shape[2:]
        n = int(np.prod(shape)) if shape else 1
        want = {"jacobian": (m, n), "hessian": (n, n)}.get(self.kind, shape)
        got = tuple(np.shape(E)[1:])
        if self.kind in ("jacobian", "hessian") and got == () and want == (1, 1):
            got = (1, 1)
        if got != tuple(want):
            raise ShapeMismatch(f"lhs has shape {tuple(want)}, rhs has shape {got}")

    def apply(self, ctx, E, m: int | None = None) -> np.ndarray:
        """The claimed side ``E`` (``(batch, *derivative shape)`` in ``ctx``) projected: ``(batch, K)``.

        ``m`` is the number of entries of ``F`` (Jacobians).  Raises ShapeMismatch when ``E`` does not have
        the derivative's shape.
        """
        self._expect(E, m)
        batch = self.U.shape[0]
        if not isinstance(E, BallArray) or E.shape[0] != batch:   # a side kept in balls (balls.keeping) stays
            E = np.asarray(E)
            if E.shape[0] != batch:
                E = np.broadcast_to(E, (batch,) + E.shape[1:])
        if ctx.is_mp and self.kind in ("grad", "sym_grad"):
            fast = dot_directions(E if isinstance(E, BallArray) else E.reshape(batch, -1),
                                  self.U.reshape(batch, self.k, -1))
            if fast is not None:
                return fast
        E = np.asarray(E)
        out = []
        for i in range(self.k):
            V = ctx.asarray(self.U[:, i])       # the claimed side is paired with V itself (sym_grad too)
            if self.kind in ("grad", "sym_grad"):
                out.append(np.sum(_flat(E, batch) * _flat(V, batch), axis=1)[:, None])
            elif self.kind == "jacobian":
                out.append(np.reshape(E, (batch, m, -1)) @ _flat(V, batch)[:, :, None])
            else:
                w = _flat(ctx.asarray(self.W[:, i]), batch)
                Ew = (np.reshape(E, (batch, w.shape[1], -1)) @ w[:, :, None])[:, :, 0]
                out.append(np.sum(_flat(V, batch) * Ew, axis=1)[:, None])
        return np.concatenate([np.reshape(o, (batch, -1)) for o in out], axis=1)

    def apply_abs(self, M: np.ndarray, m: int | None = None, *, t: float = 1.0) -> np.ndarray:
        """The claimed side's rounding magnitude ``M`` (float64, its shape) along the directions: ``(batch, K)``.

        Per direction ``t * sqrt(sum_ij M_ij^2 V_ij^2)`` (a Jacobian: per row of ``M``; a Hessian form
        ``u^T E w``: ``t^2 * sqrt(sum_i u_i^2 sum_j M_ij^2 w_j^2)``).  The directions are independent of the
        rounding errors ``dE`` (``|dE_ij| <= eps M_ij``) and their signs are symmetric, so by Hoeffding's
        inequality ``|<dE, V>| <= t eps sqrt(sum M_ij^2 V_ij^2)`` except with probability ``2 exp(-t^2 / 2)``
        (``t = 10``: ``4e-22``; :data:`HOEFFDING_T`); ``t = 1`` gives the root-mean-square scale (the
        residual's reference).  The worst case ``<M, |V|>`` would be ``sqrt(N)`` times larger and make a
        wrong claim's residual that much smaller.
        """
        M = np.abs(np.asarray(M, dtype=float))
        batch = self.U.shape[0]
        if M.ndim == 0:
            M = np.full((batch,) + ((m or 1, int(np.prod(self.U.shape[2:]))) if self.kind == "jacobian"
                                    else self.U.shape[2:]), float(M))
        if self.kind == "jacobian" and m is None:
            m = int(np.prod(M.shape[1:])) // int(np.prod(self.U.shape[2:]))
        M2 = np.broadcast_to(M, (batch,) + M.shape[1:]) ** 2
        out = []
        for i in range(self.k):
            V2 = self.U[:, i] ** 2
            if self.kind in ("grad", "sym_grad"):
                out.append(t * np.sqrt(np.sum(_flat(M2, batch) * _flat(V2, batch), axis=1))[:, None])
            elif self.kind == "jacobian":
                out.append(t * np.sqrt((np.reshape(M2, (batch, m, -1)) @ _flat(V2, batch)[:, :, None])[:, :, 0]))
            else:
                w2 = _flat(self.W[:, i] ** 2, batch)
                Mw = (np.reshape(M2, (batch, w2.shape[1], -1)) @ w2[:, :, None])[:, :, 0]
                out.append(t * t * np.sqrt(np.sum(_flat(V2, batch) * Mw, axis=1))[:, None])
        return np.concatenate(out, axis=1)

    # -- the oracle side ------------------------------------------------------------------
    def oracle(self, ctx, f, X, jvp=None) -> tuple[np.ndarray, int]:
        """The derivative of ``f`` at ``X`` (batched, in ``ctx``) along the directions: ``((batch, K), m)``.

        ``f`` maps ``(batch, *shape) -> (batch,)`` (grad, sym_grad, hessian) or ``(batch, *out)`` (jacobian,
        ``m = prod(out)``; ``m = 1`` otherwise).  ``jvp(V)``, when given, is ``f``'s directional derivative
        along ``V`` by forward mode (:mod:`theorem_check.expr.forward`), used for first derivatives instead of
        the difference quotient (None from it: the quotient after all).  Raises ShapeMismatch when ``f`` drops
        the batch axis.
        """
        batch = self.U.shape[0]
        out, m = [], 1
        for i in range(self.k):
            V = self._dirs(ctx, self.U, i)
            if self.kind == "hessian":
                W = _in(ctx, self.W[:, i])
                d = (second_directional(ctx, f, X, V + W) - second_directional(ctx, f, X, V - W)) / 4
            else:
                d = jvp(V) if jvp is not None else None
                d = directional(ctx, f, X, V) if d is None else d
                if self.kind != "jacobian" and np.ndim(d) > 1:
                    if int(np.prod(np.shape(d)[1:])) != 1:
                        raise ShapeMismatch(f"grad needs a scalar function, shape (batch,) = ({batch},); f returned "
                                            f"{np.shape(d)}")
            d = np.reshape(d, (batch, -1))
            m = d.shape[1]
            out.append(d)
        return np.concatenate(out, axis=1), m

    def oracle_gain(self, level, xmax, m: int = 1) -> np.ndarray:
        """The oracle's rounding per unit of ``f``'s magnitude along each direction, ``(batch, K)``, in units
        of ``level.eps``: :func:`~theorem_check.numerics.derivatives.rounding_gain` times ``max|V|^d``
        (the step along ``V`` is ``h / max|V|``); for the polarised Hessian form the two quotients' over 4."""
        batch = self.U.shape[0]
        if self.kind == "hessian":
            g = rounding_gain(level, 2, xmax)
            a = np.abs(self.U + self.W).reshape(batch, self.k, -1).max(axis=2) ** 2
            b = np.abs(self.U - self.W).reshape(batch, self.k, -1).max(axis=2) ** 2
            return g[:, None] * (a + b) / 4
        g = rounding_gain(level, 1, xmax)
        V = self.U
        if self.kind == "sym_grad":
            V = (V + np.swapaxes(V, -1, -2)) / 2
        vmax = np.abs(V).reshape(batch, self.k, -1).max(axis=2)
        return np.repeat(g[:, None] * vmax, m, axis=1)
