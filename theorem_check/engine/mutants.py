"""Automatic mutants: slightly wrong statements computed from the evaluations a statement already made.

DESIGN.md, "Trust model (second version)": every statement carries mutants of its right side (identities)
or of its prediction (custom checks): times ``-1``, ``2``, ``1/2``, and a small relative perturbation
``1 + delta`` (``delta = 1e-6`` for identities; the finest the check can resolve for custom checks).
Where that side is identically zero on an instance, the mutants are *additive*: the side plus
``a * e`` with ``e`` the unit vector of equal entries and ``a`` the statement's scale (times -1, 2, 1/2,
delta).  A statement decided *holds* whose mutant also holds is INSENSITIVE: its check cannot tell the
statement from a wrong one, and the claim is INCONCLUSIVE, never VERIFIED.

Mutants cost next to nothing: for each instance and refinement level the engine keeps six scalars of
the two sides ``u`` (left side / measured) and ``v`` (right side / predicted), computed in the level's
own working precision (:class:`SideStats`), and the residual of any mutant ``v' = c v + a e`` follows
in closed form::

    d' = u - v' = d + (1 - c) v - a e,      d = u - v
    |d'|^2 = |d|^2 + (1-c)^2 |v|^2 + a^2 + 2 (1-c) <d, v> - 2 a <d, e> - 2 a (1-c) <v, e>
    |v'|^2 = c^2 |v|^2 + 2 c a <v, e> + a^2

The expansion is around ``d``, which is tiny for a statement that holds, so no cancellation occurs
for the mutants of holding statements (the only ones the engine evaluates).

The **sensitivity** of a statement is the smallest ``delta`` on the ladder ``1e-2, 1e-3, ..., 1e-14``
whose relative mutant is refuted: how fine a wrong right-hand side the check can still tell apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Sequence

import numpy as np

from theorem_check.model.verdicts import Outcome, decide_refinement

__all__ = ["SideStats", "MutantSpec", "LADDER", "identity_mutants", "side_stats", "stats_residual",
           "mutant_residual", "refinement_mutant_outcomes"]

LADDER: tuple[float, ...] = tuple(10.0 ** -k for k in range(2, 15))
"""Relative perturbations tried for the sensitivity of a statement, coarsest first."""


@dataclass(frozen=True)
class SideStats:
    """Scalars of one instance at one level, from which every mutant's residual follows.

    ``L = |u|^2``, ``R = |v|^2``, ``D = |u - v|^2``, ``X = <u - v, v>``, ``Sd = <u - v, e>``,
    ``Re = <v, e>`` with ``e`` the unit vector of equal entries (``1/sqrt(size)`` each);
    ``scale`` is the statement's reference magnitude when it gives one (``None``: the default
    ``max(|u|, |v|, mag)``, with ``mag`` the magnitude of the sides' computation when the engine
    knows it, see :mod:`theorem_check.expr.magnitude`; 0 otherwise).  Norms are Frobenius over the
    instance's entries.

    ``shift``: the scalars are those of ``2**-shift u`` and ``2**-shift v`` (and ``scale``, ``mag`` are
    scaled alike), so that the squared norms of sides beyond ~1e154 (or below ~1e-154; float32: ~1e19)
    stay finite and normal; 0 for every side within that range.  Residuals are ratios, so they do not
    depend on it; an absolute magnitude compared with the scalars is scaled by :meth:`scaled` first.
    """

    L: float
    R: float
    D: float
    X: float
    Sd: float
    Re: float
    scale: float | None = None
    mag: float = 0.0
    shift: int = 0

    def scaled(self, x: float) -> float:
        """An absolute magnitude ``x`` in the units of these scalars: ``x * 2**-shift`` (``inf`` where that is beyond
        float range: sides of ``e^-800`` against a magnitude of 1, helper-45's OverflowError)."""
        if not self.shift:
            return x
        try:
            return math.ldexp(x, -self.shift)
        except OverflowError:
            return math.inf

    @property
    def zero_side(self) -> bool:
        """True when the right side / prediction is exactly zero on this instance."""
        return self.R == 0.0

    @property
    def additive(self) -> float:
        """Magnitude ``a`` of additive mutants: the scale, else ``max(|u|, mag)``, else 1."""
        if self.scale is not None and self.scale > 0:
            return float(self.scale)
        a = max(math.sqrt(self.L) if self.L > 0 else 0.0, self.mag)
        return a if a > 0 else 1.0


def _flat_sum(x, axes) -> Any:
    return np.sum(x, axis=axes) if axes else x


def side_stats(u: np.ndarray, v: np.ndarray, *, batch_axes: int = 1, scale=None) -> list[SideStats]:
    """:class:`SideStats` of each batch element of ``u`` and ``v`` (same shape, leading batch axis).

    The sums are computed in the arrays' own precision (float32, float64 or mpmath object arrays) and
    only then converted to float, so the scalars carry the level's working precision.  A batch element
    whose scalars overflow or underflow (sides beyond ~1e154 or below ~1e-154 at float64 and mp50,
    ~1e19 / 1e-19 at float32) is computed again from its sides times a power of two (exact; the
    ``shift`` of :class:`SideStats`).
    """
    u, v = np.asarray(u), np.asarray(v)
    out = _side_stats(u, v, batch_axes, scale)
    fine = np.finfo(u.dtype if u.dtype.kind == "f" else u.real.dtype if u.dtype.kind == "c" else np.float64)
    for b, st in enumerate(out):
        if _out_of_range(st, float(fine.tiny / fine.eps), float(fine.max * fine.eps)):
            k = _exponent(u[b:b + 1], v[b:b + 1])
            if k:
                ub, vb = _ldexp(u[b:b + 1], -k), _ldexp(v[b:b + 1], -k)
                sc = None if st.scale is None else math.ldexp(st.scale, -k)
                out[b] = replace(_side_stats(ub, vb, batch_axes, None)[0], scale=sc, shift=k)
    return out


def _out_of_range(s: SideStats, tiny: float, huge: float) -> bool:
    """Scalars a power-of-two rescaling would make finite and accurate: one above ``huge`` (the
    precision's largest number times its epsilon: the mutant algebra multiplies them by up to 4) or
    infinite, or both squared norms below ``tiny`` (the smallest normal number over the epsilon: the
    difference's squared norm may have underflowed)."""
    if not all(abs(x) <= huge for x in (s.L, s.R, s.D, s.X)):
        return True
    return max(s.L, s.R) < tiny


def _exponent(u, v) -> int:
    """``k`` with the largest absolute entry of ``u`` and ``v`` in ``[2**(k-1), 2**k)``; 0 when every entry is
    zero or one is not finite."""
    if u.dtype != object and v.dtype != object:
        with np.errstate(all="ignore"):
            m = max(float(np.max(np.abs(u), initial=0.0)), float(np.max(np.abs(v), initial=0.0)))
        return math.frexp(m)[1] if 0.0 < m < math.inf else 0
    import mpmath

    ks = [int(mpmath.mag(x)) for a in (u, v) for x in np.asarray(a).flat if x != 0 and mpmath.isfinite(x)]
    return max(ks) if ks else 0


def _ldexp(x: np.ndarray, k: int) -> np.ndarray:
    """``x * 2**k`` exactly, in ``x``'s own precision (float, complex or mpmath object arrays; ``2**k`` itself
    need not be representable there: float32 holds no ``2**133``)."""
    if x.dtype.kind == "c":
        out = np.empty_like(x)
        out.real, out.imag = np.ldexp(x.real, k), np.ldexp(x.imag, k)
        return out
    if x.dtype != object:
        return np.ldexp(x if x.dtype.kind == "f" else x.astype(float), k)
    import mpmath

    two = mpmath.mpf(2) ** k
    return np.vectorize(lambda z: z * two, otypes=[object])(x)


def _side_stats(u: np.ndarray, v: np.ndarray, batch_axes: int, scale) -> list[SideStats]:
    from theorem_check.numerics.precision import to_float

    u, v = (x.astype(float) if x.dtype.kind in "biu" else x for x in (u, v))   # no int64 squares (they wrap)
    axes = tuple(range(batch_axes, u.ndim))
    size = int(np.prod(u.shape[batch_axes:])) if u.ndim > batch_axes else 1
    d = u - v
    e = 1.0 / math.sqrt(max(size, 1))

    def tot(x):
        return np.atleast_1d(to_float(_flat_sum(x, axes)))

    if u.dtype.kind == "c" or v.dtype.kind == "c" or (u.dtype == object and _has_complex(u, v)):
        conj = np.conj

        def re(x):  # real parts: the mutant algebra needs Re<., .> (float and mpc arrays alike)
            x = np.asarray(x)
            return np.vectorize(lambda z: z.real, otypes=[object])(x) if x.dtype == object else x.real

        L, R, D = tot(re(u * conj(u))), tot(re(v * conj(v))), tot(re(d * conj(d)))
        X = tot(re(d * conj(v)))
        Sd, Re = tot(re(d)) * e, tot(re(v)) * e
    else:
        L, R, D, X = tot(u * u), tot(v * v), tot(d * d), tot(d * v)
        Sd, Re = tot(d) * e, tot(v) * e
    n = L.shape[0]
    sc = [None] * n if scale is None else list(np.broadcast_to(np.atleast_1d(to_float(scale)), (n,)))
    return [SideStats(float(L[i]), float(R[i]), float(D[i]), float(X[i]), float(Sd[i]), float(Re[i]),
                      None if sc[i] is None else float(sc[i])) for i in range(n)]


def _has_complex(*arrays) -> bool:
    import mpmath

    return any(isinstance(x, (mpmath.mpc, complex)) for a in arrays for x in np.asarray(a).flat)


def stats_residual(s: SideStats) -> float:
    """The statement's own relative residual ``|u - v| / ref`` from its stats."""
    return _residual(s.D, s.L, s.R, s.scale, s.mag)


def _residual(D: float, L: float, R: float, scale: float | None, mag: float = 0.0) -> float:
    if D != D:
        return float("nan")
    if D <= 0:
        return 0.0
    ref = scale if scale is not None else max(math.sqrt(max(L, R, 0.0)), mag)
    if not ref > 0:
        return float("inf")
    return math.sqrt(D) / ref


def mutant_residual(s: SideStats, c: float, a: float) -> float:
    """Residual of the mutant ``v' = c v`` (nonzero side) or ``v' = a * additive * e`` (zero side)."""
    if s.zero_side:
        c, a = 1.0, a * s.additive
    else:
        a = 0.0
    one_c = 1.0 - c
    D = s.D + one_c * one_c * s.R + a * a + 2 * one_c * s.X - 2 * a * s.Sd - 2 * a * one_c * s.Re
    R = c * c * s.R + 2 * c * a * s.Re + a * a
    return _residual(max(D, 0.0), s.L, max(R, 0.0), s.scale, s.mag)


@dataclass(frozen=True)
class MutantSpec:
    """A mutant: the side times ``c`` (or, where the side is zero, ``a`` times the additive scale)."""

    name: str
    c: float
    a: float


def identity_mutants(delta: float) -> tuple[MutantSpec, ...]:
    """The automatic mutants: sign, factor 2, factor 1/2, and relative ``1 + delta``."""
    return (MutantSpec("sign", -1.0, -1.0), MutantSpec("factor 2", 2.0, 2.0), MutantSpec("factor 1/2", 0.5, 0.5),
            MutantSpec(f"relative {delta:g}", 1.0 + delta, delta))


def refinement_mutant_outcomes(stats: Sequence[SideStats], floors: Sequence[float], delta: float
                               ) -> tuple[dict[str, Outcome], dict[float, Outcome]]:
    """Outcome of every mutant and of every ladder perturbation on one instance decided by refinement.

    ``stats`` and ``floors`` are the levels the instance's own decision used, coarsest first.
    """
    out = {}
    for m in identity_mutants(delta):
        out[m.name] = decide_refinement([mutant_residual(s, m.c, m.a) for s in stats], floors)
    ladder = {d: decide_refinement([mutant_residual(s, 1.0 + d, d) for s in stats], floors) for d in LADDER}
    return out, ladder
