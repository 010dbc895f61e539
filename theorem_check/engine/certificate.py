"""When a random-point test is a proof: degree bounds and the Schwartz-Zippel certificate.

A step whose difference did not simplify to zero is evaluated exactly at random points
(:func:`theorem_check.engine.symbolic.check_step`).  Zero at every point *proves* the step only if
the difference is a rational function of its free symbols of known degree and the points are drawn
from populations large enough for that degree (Schwartz-Zippel-DeMillo-Lipton); otherwise the step
is only checked numerically.  This module decides which, and how to draw integer symbols.
"""

from __future__ import annotations

import sympy as sp

__all__ = ["degree_bounds", "point_plan", "POINT_HEIGHT", "N_FRACTIONS", "CERTIFICATE_ALPHA"]

POINT_HEIGHT = 1000
"""Height bound ``H`` of random rational points: numerators and denominators in ``1..H``."""
N_FRACTIONS = 608383
"""The number of reduced fractions ``p/q`` with ``1 <= p, q <= POINT_HEIGHT``."""
CERTIFICATE_ALPHA = 1e-6
"""A random-point test is a certificate only if a false step passes it with probability at most this
(the engine's false-alarm rate, the ``alpha`` of :func:`~theorem_check.model.verdicts.decide_zscore`)."""


def degree_bounds(e, free: frozenset) -> tuple[dict, dict] | None:
    """Degree bounds ``(num, den)`` per free symbol of polynomials ``P``, ``Q`` with ``e = P / Q`` wherever
    ``e`` is defined, read off the expression tree without expanding it; None if ``e`` is not a rational
    function of its free symbols (a function, a non-integer or symbolic power, an unevaluated object).

    Sums put the terms over the product of their denominators (``deg P <= max_i(p_i - q_i) + sum q``),
    products add degrees, integer powers multiply them (a negative power swaps ``P`` and ``Q``).  Where
    ``e`` is defined every denominator in the tree is nonzero, so ``Q != 0`` there and ``e = 0`` only
    where ``P = 0``: the bound on ``deg P`` is what the Schwartz-Zippel lemma needs.
    """
    if not (e.free_symbols & free):
        return {}, {}
    if e in free:
        return {e: 1}, {}
    if e.is_Add or e.is_Mul:
        parts = [degree_bounds(a, free) for a in e.args]
        if any(p is None for p in parts):
            return None
        den: dict = {}
        for _, q in parts:
            for v, d in q.items():
                den[v] = den.get(v, 0) + d
        if e.is_Mul:
            num: dict = {}
            for p, _ in parts:
                for v, d in p.items():
                    num[v] = num.get(v, 0) + d
            return num, den
        syms = set(den).union(*(p for p, _ in parts))
        return {v: den.get(v, 0) + max(p.get(v, 0) - q.get(v, 0) for p, q in parts) for v in syms}, den
    if e.is_Pow and e.exp.is_Integer:
        base = degree_bounds(e.base, free)
        if base is None:
            return None
        n = int(e.exp)
        p, q = base if n >= 0 else base[::-1]
        return {v: abs(n) * d for v, d in p.items()}, {v: abs(n) * d for v, d in q.items()}
    return None


def point_plan(entries, free: list, domain) -> tuple[dict, float | None, str]:
    """How to draw the points, and whether zero at all of them will be a certificate.

    Returns ``(int_ranges, p1, text)``: the number of values each integer symbol is drawn from, the
    one-point bound ``p1`` (None when there is no certificate) and a text (the degree, or the reason
    there is no certificate).  For a rational
    difference with numerator degree ``d_v`` in symbol ``v`` (over all entries), an integer symbol is
    drawn uniformly from ``H * (d_v + e_v)`` consecutive integers (``e_v`` its denominator degree; at
    least 8), a real one from the ``N`` fractions of height ``H`` (times a sign: probability ``1/(2N)``
    of any value); then one point is a zero of a nonzero numerator with probability
    ``p1 <= sum_v d_v mu_v`` (Schwartz-Zippel-DeMillo-Lipton, per-variable form), all ``points`` with
    ``p1^points``, and the test certifies only when that is ``<= CERTIFICATE_ALPHA``.
    """
    fs = frozenset(free)
    num: dict = {}
    den: dict = {}
    for e in entries:
        d = degree_bounds(sp.sympify(e), fs)
        if d is None:
            return {}, None, "the difference is not a rational function of its symbols"
        for v, k in d[0].items():
            num[v] = max(num.get(v, 0), k)
        for v, k in d[1].items():
            den[v] = max(den.get(v, 0), k)
    if any(s in domain for s in free if num.get(s, 0)):
        return {}, None, "a coordinate is drawn from Derivation.domain, whose value probabilities are unknown"
    ranges = {s: max(8, POINT_HEIGHT * (num.get(s, 0) + den.get(s, 0))) for s in free if s.is_integer}
    mu = {s: (1.0 / ranges[s] if s in ranges else
              1.0 / N_FRACTIONS if (s.is_positive or s.is_nonnegative) else 0.5 / N_FRACTIONS) for s in free}
    p1 = sum(num.get(s, 0) * mu[s] for s in free)
    degree = ", ".join(f"{v} {d}" for v, d in sorted(num.items(), key=lambda t: str(t[0])) if d) or "0"
    return ranges, p1, f"rational difference, numerator degree <= {degree}, one-point bound {p1:.2g}"
