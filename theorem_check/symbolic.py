"""The symbolic stage: derivations as chains of equalities that SymPy checks.

A :class:`Derivation` is a sequence of :class:`Step` objects, each an equality ``lhs = rhs``
with a one-line justification.  Each step is checked by :func:`check_step`:

1. ``sympy.simplify(lhs - rhs)`` (entrywise for explicit matrices) is tested for zero;
2. if simplification does not close it, the difference is evaluated **exactly** at random
   rational points (``points`` of them, drawn from a seeded generator).  A nonzero value is a
   certificate that the step is false (the point is reported); zero at every point is a
   Schwartz-Zippel certificate for rational functions: a nonzero rational function of total
   degree ``<= deg`` vanishes at a uniformly random point of ``S^k`` with probability
   ``<= deg/|S|``, so with ``|S| = 10**6`` and 6 points the error probability is ``<=
   (deg * 1e-6)**6``.  Such a step is marked ``closed`` with ``method="schwartz-zippel"``.

``Derivation.general`` says whether the algebra holds for every size (scalar algebra, or
``MatrixSymbol`` algebra); a derivation with explicit matrices of fixed small sizes is exact
evidence at those sizes only (``general=False``), as DESIGN.md requires.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import sympy as sp

__all__ = ["Step", "Derivation", "StepResult", "SymbolicResult", "check_step", "check_derivation"]


@dataclass(frozen=True)
class Step:
    """One equality of a derivation.

    Parameters
    ----------
    lhs, rhs : sympy expressions or matrices (explicit ``sympy.Matrix`` or ``MatrixExpr``)
        The two sides; they must have the same shape.
    why : str
        The justification in words ("cyclicity of the trace", "eq. (21) substituted").
    """

    lhs: object
    rhs: object
    why: str = ""


@dataclass(frozen=True)
class Derivation:
    """A derivation: steps from definitions to the statement.

    Parameters
    ----------
    steps : sequence of Step
    general : bool
        True if the steps hold for every size (scalar or ``MatrixSymbol`` algebra); False if they
        use explicit matrices of fixed sizes (then ``sizes`` says which).
    sizes : str
        Human-readable sizes of explicit matrices, e.g. ``"D=2, d=(2,3,2)"``.
    domain : mapping Symbol -> callable(random.Random) -> number, optional
        How to draw exact values of free symbols for the random-point test (default: positive
        rationals for positive/real symbols, integers 2..9 for integer symbols).
    """

    steps: Sequence[Step]
    general: bool = True
    sizes: str = ""
    domain: Mapping[sp.Symbol, Callable[[random.Random], object]] = field(default_factory=dict)


@dataclass(frozen=True)
class StepResult:
    """Outcome of one step: ``closed`` is True when the equality was established.

    ``method`` is ``"simplify"``, ``"schwartz-zippel"``, or ``"counterexample"`` (then
    ``point`` holds the substitution and ``value`` the nonzero difference there).
    """

    lhs_latex: str
    rhs_latex: str
    why: str
    closed: bool
    method: str
    difference_latex: str = ""
    point: str = ""


@dataclass(frozen=True)
class SymbolicResult:
    """Outcome of a derivation: ``closed`` iff every step closed."""

    steps: tuple[StepResult, ...]
    closed: bool
    general: bool
    sizes: str
    seconds: float

    @property
    def refuted(self) -> bool:
        """True if some step has an exact counterexample point."""
        return any(s.method == "counterexample" for s in self.steps)


def _is_matrix(x) -> bool:
    return isinstance(x, (sp.MatrixBase, sp.MatrixExpr))


def _entries(diff) -> list:
    if isinstance(diff, sp.MatrixExpr) and not isinstance(diff, sp.MatrixBase):
        try:
            diff = diff.as_explicit()
        except (ValueError, TypeError, AttributeError):
            return [diff]
    if isinstance(diff, sp.MatrixBase):
        return list(diff)
    return [diff]


def _simplify_zero(e) -> bool:
    if isinstance(e, sp.MatrixExpr):
        z = sp.simplify(e)
        return z == sp.ZeroMatrix(*e.shape) or getattr(z, "is_ZeroMatrix", False) or z == 0
    if e == 0:
        return True
    try:
        return sp.simplify(sp.expand(e)) == 0 or sp.simplify(e) == 0
    except Exception:  # pragma: no cover - sympy internals
        return False


def _draw(sym: sp.Symbol, rnd: random.Random, domain) -> object:
    if sym in domain:
        return sp.nsimplify(domain[sym](rnd))
    if sym.is_integer:
        return sp.Integer(rnd.randint(2, 9))
    num = rnd.randint(1, 10**6)
    val = sp.Rational(num, rnd.randint(1, 10**3))
    if sym.is_positive or sym.is_nonnegative:
        return val
    return val if rnd.random() < 0.5 else -val


def _scalarize(e):
    """Replace the entries ``M[i, j]`` of matrix symbols in ``e`` by real scalar symbols.

    Traces of matrix expressions are first expanded entrywise.

    ``MatrixSymbol`` identities expanded with ``as_explicit`` have ``MatrixElement`` atoms whose
    ``free_symbols`` are the matrix symbols themselves; substituting numbers for those is
    meaningless, so the random-point test substitutes the entries instead.
    """
    from sympy.matrices.expressions.matexpr import MatrixElement

    e = sp.sympify(e)
    if e.has(sp.Trace):   # traces of MatrixSymbol products: expand to entries first
        e = e.replace(lambda x: isinstance(x, sp.Trace), lambda x: sp.Trace(x.arg.as_explicit()).doit())
    elems = e.atoms(MatrixElement)
    if not elems:
        return e
    return e.xreplace({m: sp.Symbol(f"{m.parent.name}_{m.i}_{m.j}", real=True) for m in elems})


def check_step(step: Step, *, seed: int = 0, points: int = 6, domain=None) -> StepResult:
    """Check one step; see the module docstring for the two methods and the certificate."""
    domain = domain or {}
    lhs, rhs = step.lhs, step.rhs
    if _is_matrix(lhs) != _is_matrix(rhs) or (_is_matrix(lhs) and lhs.shape != rhs.shape):
        shp = lambda x: getattr(x, "shape", "scalar")
        return StepResult(sp.latex(lhs), sp.latex(rhs), step.why, False, "shape-mismatch",
                          point=f"shapes {shp(lhs)} vs {shp(rhs)}")
    diff = lhs - rhs
    entries = _entries(diff)
    if all(_simplify_zero(e) for e in entries):
        return StepResult(sp.latex(lhs), sp.latex(rhs), step.why, True, "simplify")
    rnd = random.Random(seed)
    entries = [_scalarize(e) for e in entries]
    free = sorted(set().union(*(sp.sympify(e).free_symbols for e in entries)), key=str)
    for _ in range(points):
        subs = {s: _draw(s, rnd, domain) for s in free}
        for e in entries:
            try:
                val = sp.simplify(sp.sympify(e).subs(subs))
            except Exception:  # noqa: BLE001 - an entry that cannot be evaluated decides nothing
                return StepResult(sp.latex(lhs), sp.latex(rhs), step.why, False, "undecided",
                                  difference_latex=sp.latex(e))
            if val.is_number and val != 0 and val.is_finite is not False:
                pt = ", ".join(f"{k}={v}" for k, v in subs.items())
                return StepResult(sp.latex(lhs), sp.latex(rhs), step.why, False, "counterexample",
                                  difference_latex=sp.latex(sp.simplify(diff) if not _is_matrix(diff) else diff),
                                  point=f"{pt}: difference {val}")
            if not val.is_number:
                return StepResult(sp.latex(lhs), sp.latex(rhs), step.why, False, "undecided",
                                  difference_latex=sp.latex(e))
    return StepResult(sp.latex(lhs), sp.latex(rhs), step.why, True, "schwartz-zippel")


def check_derivation(derivation: Derivation, *, seed: int = 0) -> SymbolicResult:
    """Check every step of ``derivation``; returns a frozen :class:`SymbolicResult`.

    The declared scope is enforced: a derivation declared ``general`` is reported as fixed-size
    evidence when a step uses explicit matrices, or when a matrix-valued step closed only by the
    random-point test (which substitutes the entries of fixed-size matrix symbols).
    """
    t0 = time.perf_counter()
    steps = tuple(check_step(s, seed=seed + k, domain=derivation.domain) for k, s in enumerate(derivation.steps))
    general = derivation.general and not any(
        isinstance(st.lhs, sp.MatrixBase) or isinstance(st.rhs, sp.MatrixBase)
        or (_is_matrix(st.lhs) and res.method != "simplify")
        for st, res in zip(derivation.steps, steps))
    sizes = derivation.sizes or ("" if general or not derivation.general else "of the matrix symbols")
    return SymbolicResult(steps, all(s.closed for s in steps), general, sizes, time.perf_counter() - t0)


