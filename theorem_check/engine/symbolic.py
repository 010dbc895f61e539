"""The symbolic stage: derivations as chains of equalities that SymPy checks.

A :class:`Derivation` is a sequence of :class:`Step` objects, each an equality ``lhs = rhs``
with a one-line justification.  Each step is checked by :func:`check_step`:

1. ``sympy.simplify(lhs - rhs)`` (entrywise for explicit matrices) is tested for zero;
2. if simplification does not close it, the difference is evaluated **exactly** at random
   rational points (``points`` of them, drawn from a seeded generator).  A nonzero value is a
   certificate that the step is false; the point is then shrunk coordinate by coordinate to the
   simplest values (0, 1, -1, 2, ...) that keep the difference nonzero, and reported.  A point
   where the difference is undefined (``nan``, ``zoo``, an infinity) is a failure, never skipped:
   the step does not close (``method="undefined"``).  Zero at every point is

   - a **proof** (``method="schwartz-zippel"``, :attr:`StepResult.certified`) when the difference is
     a rational function of its free symbols whose numerator degree ``d_v`` in each symbol is bounded
     (:func:`theorem_check.engine.certificate.point_plan`) and the bound below is ``<= 1e-6``;
   - otherwise only a **numerical check** (``method="random points"``, closed but not certified):
     a transcendental difference can vanish at every point drawn (``sin(pi u 1000!)`` vanishes at
     every fraction of height 1000).  The statement is then VERIFIED at best, never PROVED.

Random points have **bounded height**: each free real symbol gets a reduced fraction ``p/q``
with ``1 <= p, q <= H`` (:data:`POINT_HEIGHT` ``= 1000``), drawn uniformly from the
``N = 608383`` such fractions (times a random sign unless the symbol is nonnegative).  Integer
symbols get ``2..9`` for a numerical check, and for a rational difference ``2 .. 1 + S_v`` with
``S_v = max(8, H (d_v + e_v))`` values (``e_v`` the denominator degree): the population grows with
the degree.  Exact evaluation grows by at most ``log10 H = 3`` digits per unit of degree (plus
``log10 d`` for integers), so it cannot blow up into SymPy's 4300-digit integer-string limit on
ordinary derivations (and if it does, the step reports the error, below).  *Bound*: where the
difference ``P/Q`` is defined, it vanishes only where its numerator ``P`` does, and a real coordinate
takes any value with probability at most ``mu = 1/N`` (``1/(2N)`` with the sign), an integer one
``1/S_v``; by the Schwartz-Zippel-DeMillo-Lipton lemma (per-variable form) a nonzero ``P`` vanishes
at one point with probability ``p1 <= sum_v d_v mu_v`` and at all ``points`` independent points with
``p1^points``: ``(1.64e-6 d)^6`` for ``d`` real degrees, ``(1e-3)^6`` per integer symbol at most.  The
step's ``note`` states the degree and the bound.  A coordinate from a ``Derivation.domain`` has
unknown value probabilities: a difference that depends on one is never certified.

Limits (never a hang, never a silent give-up): each step runs under a time limit
(``time_limit`` seconds, else the environment variable ``THEOREM_CHECK_SYMPY_TIMEOUT``, else
:data:`DEFAULT_TIME_LIMIT` ``= 20``; :func:`resolve_time_limit`).  A step that exceeds it is
reported with ``method="timeout after 20 s"``; a step in which SymPy (or any Python code it runs)
raises is reported with ``method="sympy error: <ExceptionName>: <message>"``.  Either makes
:attr:`SymbolicResult.undecided` a reason string, and the runner then calls the statement
INCONCLUSIVE.  In the main thread the limit is a ``SIGALRM`` timer (``signal.setitimer``), which
interrupts pure-Python SymPy loops between bytecodes (a single long C-level operation, e.g. one
huge integer multiplication, finishes first); the timer and the previous handler are restored
when the step ends, however it ends, so no alarm stays pending.  Outside the main thread (where
signals cannot be used) the step runs in a forked child process that is killed at the limit
(only the step's text result crosses back).  On platforms without ``fork`` and ``SIGALRM``
(Windows) steps run without a limit.

``Derivation.general`` says whether the algebra holds for every size (scalar algebra, or
``MatrixSymbol`` algebra); a derivation with explicit matrices of fixed small sizes is exact
evidence at those sizes only (``general=False``), as DESIGN.md requires.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
from dataclasses import dataclass
from typing import Callable

import sympy as sp

from theorem_check.engine.certificate import CERTIFICATE_ALPHA, N_FRACTIONS, POINT_HEIGHT, point_plan
from theorem_check.engine.time_limit import (
    DEFAULT_TIME_LIMIT,
    TIME_LIMIT_ENV,
    ChildError,
    StepTimeout,
    describe_exception,
    resolve_time_limit,
    run_limited,
)
from theorem_check.expr.explicit import decide as decide_explicit
from theorem_check.expr.matrix_proof import ROUTES, over_symbolic_sizes, prove_identity
from theorem_check.expr.nodes import has_matrix, is_zero_as_built
from theorem_check.model.derivation import STATEMENT_SIZES, Derivation, Step

__all__ = ["Step", "Derivation", "StepResult", "SymbolicResult", "check_step", "check_derivation", "is_failure",
           "resolve_time_limit", "DEFAULT_TIME_LIMIT", "TIME_LIMIT_ENV", "POINT_HEIGHT", "N_FRACTIONS",
           "CERTIFICATE_ALPHA"]

CERTIFYING_METHODS = ("simplify", "schwartz-zippel", "explicit entries") + ROUTES
"""Step methods that prove a step (a ``"random points"`` step was only checked numerically)."""


@dataclass(frozen=True)
class StepResult:
    """Outcome of one step: ``closed`` is True when the equality was established.

    ``method`` is ``"simplify"``, ``"schwartz-zippel"`` (``note`` states the degree and the bound),
    ``"random points"`` (closed, but only checked numerically: the difference is not a rational
    function of known degree; ``note`` says why, and the step is not :attr:`certified`),
    ``"counterexample"`` (then ``point`` holds the substitution and the nonzero difference there),
    ``"undefined"`` (the difference is undefined at a drawn point, never a pass; ``point`` holds it),
    ``"shape-mismatch"``, ``"undecided"`` (the difference at a point is not a number, e.g. an
    undefined function remains), ``"timeout after T s"`` or ``"sympy error: <ExceptionName>:
    <message>"`` (the step could not be checked: see :attr:`SymbolicResult.undecided`).
    """

    lhs_latex: str
    rhs_latex: str
    why: str
    closed: bool
    method: str
    difference_latex: str = ""
    point: str = ""
    note: str = ""

    @property
    def certified(self) -> bool:
        """True if the step is *proved*: closed by simplification or by a valid Schwartz-Zippel certificate
        (a step closed by ``"random points"`` was only checked numerically)."""
        return self.closed and self.method in CERTIFYING_METHODS


@dataclass(frozen=True)
class SymbolicResult:
    """Outcome of a derivation: ``closed`` iff every step closed."""

    steps: tuple[StepResult, ...]
    closed: bool
    general: bool
    sizes: str
    seconds: float

    @property
    def certified(self) -> bool:
        """True if every step is proved (:attr:`StepResult.certified`), not only checked at random points."""
        return all(s.certified for s in self.steps)

    @property
    def refuted(self) -> bool:
        """True if some step has an exact counterexample point."""
        return any(s.method == "counterexample" for s in self.steps)

    @property
    def undecided(self) -> str | None:
        """Why the derivation could not be checked, or None.

        A reason string (``"step 3 'why': timeout after 20 s"``) naming the first step that timed
        out or in which SymPy raised; the runner turns it into INCONCLUSIVE for the statement.
        (A step whose method is plain ``"undecided"``, a difference that does not evaluate to a
        number, is not counted here: it keeps its previous meaning.)
        """
        for k, st in enumerate(self.steps, 1):
            if is_failure(st.method):
                return f"step {k} '{st.why}': {st.method}"
        return None


def is_failure(method: str) -> bool:
    """True for a step that could not be checked (timed out, SymPy raised): no pure result."""
    return method.startswith("timeout after ") or method.startswith("sympy error: ")


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


def has_fractional_matpow(e) -> bool:
    """True if ``e`` holds a matrix power with a non-integer exponent: SymPy folds
    ``(X**a)**b`` into ``X**(a*b)`` there (``(A**2)**(1/2) -> A``), which is false for matrices."""
    return any(not sp.sympify(p.exp).is_Integer for p in sp.sympify(e).atoms(sp.MatPow))


def simplifies_to_zero(e) -> bool:
    """True when SymPy reduces ``e`` to zero (for matrix expressions: ``simplify``, then ``simplify`` of the
    expansion, products distributed over sums in their order).  Never for expressions with fractional matrix powers
    (:func:`has_fractional_matpow`): SymPy's simplification of those is unsound, so they are left to
    the numeric stage.  Callers test the sides too: forming ``lhs - rhs`` already folds them."""
    if has_fractional_matpow(e):
        return False
    if isinstance(e, sp.MatrixExpr):
        zero = is_zero_as_built
        if zero(sp.simplify(e)):
            return True
        # products distributed over sums (noncommutative: the order of factors is kept), which SymPy's
        # simplify does not do for matrix expressions: (A + A^T) X - (A X + A^T X) closes
        try:
            return zero(sp.simplify(sp.expand(e).doit()))
        except Exception:  # noqa: BLE001 - SymPy cannot expand: not closed here
            return False
    if e == 0:
        return True
    try:
        return sp.simplify(sp.expand(e)) == 0 or sp.simplify(e) == 0
    except Exception:  # pragma: no cover - sympy internals
        return False


def _draw(sym: sp.Symbol, rnd: random.Random, domain, int_range: int = 8) -> object:
    if sym in domain:
        return sp.nsimplify(domain[sym](rnd))
    if sym.is_integer:
        k = sp.Integer(rnd.randint(2, 1 + int_range))
        return -k if sym.is_nonpositive else k
    while True:   # uniform over reduced fractions p/q, 1 <= p, q <= H (accepts with probability ~0.61)
        num, den = rnd.randint(1, POINT_HEIGHT), rnd.randint(1, POINT_HEIGHT)
        if math.gcd(num, den) == 1:
            break
    val = sp.Rational(num, den)
    if sym.is_positive or sym.is_nonnegative:
        return val
    return val if rnd.random() < 0.5 else -val


def _scalarize(e):
    """Replace the entries ``M[i, j]`` of matrix symbols in ``e`` by real scalar symbols.

    Traces and determinants of matrix expressions are first expanded entrywise.

    ``MatrixSymbol`` identities expanded with ``as_explicit`` have ``MatrixElement`` atoms whose
    ``free_symbols`` are the matrix symbols themselves; substituting numbers for those is
    meaningless, so the random-point test substitutes the entries instead.
    """
    from sympy.matrices.expressions.matexpr import MatrixElement

    e = sp.sympify(e)
    if e.has(sp.Trace):   # traces of MatrixSymbol products: expand to entries first
        e = e.replace(lambda x: isinstance(x, sp.Trace), lambda x: sp.Trace(x.arg.as_explicit()).doit())
    if e.has(sp.Determinant):   # and determinants (det(A + B) of 2 x 2 symbols: "Input to Determinant, 431/42")
        e = e.replace(lambda x: isinstance(x, sp.Determinant) and not x.arg.is_number,
                      lambda x: x.arg.as_explicit().det())
    elems = e.atoms(MatrixElement)
    if not elems:
        return e
    return e.xreplace({m: sp.Symbol(f"{m.parent.name}_{m.i}_{m.j}", real=True) for m in elems})


_SHRINK_POINT_SECONDS = 2.0


def _candidates(sym: sp.Symbol) -> list:
    """Simple values to try for ``sym`` when shrinking a counterexample point, simplest first."""
    if sym.is_integer:
        return [sp.Integer(2), sp.Integer(3)]
    if sym.is_positive:
        return [sp.Integer(1), sp.Integer(2), sp.Rational(1, 2), sp.Integer(3)]
    if sym.is_nonnegative:
        return [sp.Integer(0), sp.Integer(1), sp.Integer(2), sp.Rational(1, 2)]
    return [sp.Integer(0), sp.Integer(1), sp.Integer(-1), sp.Integer(2), sp.Integer(-2), sp.Rational(1, 2)]


def _nonzero_value(entries, subs):
    """The first nonzero finite exact value of the entries at ``subs`` (None if all vanish or one is undefined)."""
    for e in entries:
        try:
            v = sp.sympify(e).subs(subs)
            if not v.is_Rational:
                v = sp.simplify(v)
        except Exception:  # noqa: BLE001 - a point where an entry cannot be evaluated is not simpler
            return None
        if not v.is_number or v.is_finite is False or v.has(sp.nan, sp.zoo):
            return None
        if v != 0:
            return v
    return None


def _shrink_point(entries, subs: dict, val, domain) -> tuple[dict, object]:
    """Replace each coordinate of a counterexample point by the simplest value that keeps a nonzero difference.

    Coordinates drawn from a claim's ``domain`` are kept (the domain may encode constraints the
    candidates would break).  Greedy, in symbol order, within :data:`_SHRINK_POINT_SECONDS`.
    """
    t0 = time.perf_counter()
    subs = dict(subs)
    for sym in list(subs):
        if sym in domain:
            continue
        for cand in _candidates(sym):
            if time.perf_counter() - t0 > _SHRINK_POINT_SECONDS:
                return subs, val
            if cand == subs[sym]:
                break
            trial = {**subs, sym: cand}
            v = _nonzero_value(entries, trial)
            if v is not None:
                subs, val = trial, v
                break
    return subs, val


def _fmt_value(val) -> str:
    """``str(val)``, abbreviated for rationals beyond ~100 digits (str() of a huge integer can raise)."""
    if isinstance(val, sp.Rational):
        bits = max(abs(int(val.p)).bit_length(), int(val.q).bit_length())
        if bits > 330:
            return f"{sp.Float(val, 6)} (an exact rational of about {int(bits * math.log10(2)) + 1} digits)"
    return str(val)


def _normal_form_step(step: Step, structure) -> StepResult | None:
    """The step proved by :func:`~theorem_check.expr.matrix_proof.prove_identity` (method = its route), or None."""
    if not (over_symbolic_sizes(step.lhs) or over_symbolic_sizes(step.rhs)):
        return None
    proof = prove_identity(step.lhs, step.rhs, structure)
    if proof is None:
        return None
    return StepResult(sp.latex(step.lhs), sp.latex(step.rhs), step.why, True, proof.route, note=proof.describe())


def _explicit_step(step: Step, structure) -> StepResult | None:
    """The step proved by exact polynomial arithmetic on the explicit entries of its fixed-size matrix symbols (it has
    a matrix expression at least: ``det(ones(3, 3))`` has no symbol), with their declared structures (:func:`theorem_check.expr.explicit.decide`), or None (not an identity there, or
    outside that fragment: the other methods decide)."""
    sides = [x for x in (step.lhs, step.rhs) if isinstance(x, sp.Basic)]
    if not any(has_matrix(x) for x in sides) or any(over_symbolic_sizes(x) for x in sides) \
            or not decide_explicit(step.lhs, step.rhs, structure or {}):
        return None
    return StepResult(sp.latex(step.lhs), sp.latex(step.rhs), step.why, True, "explicit entries",
                      note="every entry of lhs - rhs is the zero polynomial (exact arithmetic in QQ[entries])")


def _check_step(step: Step, seed: int, points: int, domain, structure=None, explicit_first: bool = False) -> StepResult:
    """The step check proper (no time limit; exceptions propagate to :func:`check_step`)."""
    lhs, rhs = step.lhs, step.rhs
    if _is_matrix(lhs) != _is_matrix(rhs) or (_is_matrix(lhs) and lhs.shape != rhs.shape):
        shp = lambda x: getattr(x, "shape", "scalar")
        return StepResult(sp.latex(lhs), sp.latex(rhs), step.why, False, "shape-mismatch",
                          point=f"shapes {shp(lhs)} vs {shp(rhs)}")
    if has_fractional_matpow(lhs) or has_fractional_matpow(rhs):
        raise ValueError("a fractional matrix power: SymPy folds (X**a)**b into X**(a*b), false for matrices, "
                         "so the step is not checked symbolically")
    proved = _normal_form_step(step, structure) or (_explicit_step(step, structure) if explicit_first else None)
    if proved is not None:
        return proved
    sizes = _size_symbols(lhs, rhs)
    if not sizes:
        return _entries_step(step, seed, points, domain, structure, explicit_first)
    try:
        res = _entries_step(step, seed, points, domain, structure, explicit_first)
    except Exception:  # noqa: BLE001 - SymPy on symbolic sizes ("Mix of Matrix and Scalar symbols"): fixed sizes decide
        res = None
    if res is None or (not res.closed and res.method == "undecided"):
        fixed = _at_fixed_sizes(step, sizes, seed, points, domain, structure)
        if res is None or fixed.method in ("counterexample", "shape-mismatch"):
            return fixed
    return res


def _entries_step(step: Step, seed: int, points: int, domain, structure, explicit_first: bool) -> StepResult:
    """A step the normal form did not prove: simplified entrywise, on explicit entries, or at random points."""
    lhs, rhs = step.lhs, step.rhs
    diff = lhs - rhs     # (SymPy evaluates the difference: the guard above must look at the sides)
    entries = _entries(diff)
    if all(simplifies_to_zero(e) for e in entries):
        return StepResult(sp.latex(lhs), sp.latex(rhs), step.why, True, "simplify")
    proved = None if explicit_first else _explicit_step(step, structure)
    if proved is not None:
        return proved
    rnd = random.Random(seed)
    entries = [_scalarize(e) for e in entries]
    free = sorted(set().union(*(sp.sympify(e).free_symbols for e in entries)), key=str)
    ranges, p1, plan = point_plan(entries, free, domain)
    undefined = ""
    for _ in range(points):
        subs = {s: _draw(s, rnd, domain, ranges.get(s, 8)) for s in free}
        for e in entries:
            val = sp.simplify(sp.sympify(e).subs(subs))   # an error here is reported by check_step
            if val.is_number and (val.has(sp.nan, sp.zoo, sp.oo, -sp.oo) or val.is_finite is False):
                if not undefined:   # never a pass: the point is counted as a failure (a later point may refute)
                    undefined = (", ".join(f"{k}={v}" for k, v in subs.items()) or "every point") + \
                        f": difference {val}"
                break
            if val.is_number and val != 0:
                subs, val = _shrink_point(entries, subs, val, domain)
                pt = ", ".join(f"{k}={v}" for k, v in subs.items()) or "every point"   # (no free symbol left)
                return StepResult(sp.latex(lhs), sp.latex(rhs), step.why, False, "counterexample",
                                  difference_latex=sp.latex(sp.simplify(diff) if not _is_matrix(diff) else diff),
                                  point=f"{pt}: difference {_fmt_value(val)}")
            if not val.is_number:
                return StepResult(sp.latex(lhs), sp.latex(rhs), step.why, False, "undecided",
                                  difference_latex=sp.latex(e))
    if undefined:
        return StepResult(sp.latex(lhs), sp.latex(rhs), step.why, False, "undefined", point=undefined,
                          note="the difference is undefined at a random point: not a pass")
    if p1 is not None:
        bound = min(1.0, p1) ** points
        if bound <= CERTIFICATE_ALPHA:
            return StepResult(sp.latex(lhs), sp.latex(rhs), step.why, True, "schwartz-zippel",
                              note=f"{plan}: a false step passes {points} points with probability <= {bound:.1e}")
        plan = f"{plan}: {points} points leave probability {bound:.1e} > {CERTIFICATE_ALPHA:g}"
    return StepResult(sp.latex(lhs), sp.latex(rhs), step.why, True, "random points",
                      note=f"numerically checked, not a proof: zero at {points} exact random points, but {plan}")


def _size_symbols(*sides) -> list:
    """The symbols in the shapes of the sides' matrix symbols (``n`` of ``MatrixSymbol("A", n, n)``), sorted."""
    out = {v for x in sides for m in sp.sympify(x).atoms(sp.MatrixSymbol) for d in m.shape
           for v in sp.sympify(d).free_symbols}
    return sorted(out, key=str)


FIXED_SIZES = (2, 3)
"""The sizes at which a step over symbolic sizes that the normal form does not prove is decided on explicit entries."""


def _at_fixed_sizes(step: Step, sizes: list, seed: int, points: int, domain, structure) -> StepResult:
    """A step over symbolic sizes that neither the normal form nor the entrywise methods decide (SymPy raised, or
    undecided): decided on the explicit entries at every size symbol = 2, then 3 (:data:`FIXED_SIZES`).  A counterexample there refutes the step (it claims every size); a
    step that holds there is "undecided" (no proof for every size).  helper-74: ``A B = B A`` over ``n x n`` was
    "sympy error: TypeError: Mix of Matrix and Scalar symbols" and the claim INCONCLUSIVE."""
    for k in FIXED_SIZES:
        at = {s: k for s in sizes}
        fixed = Step(step.lhs.subs(at), step.rhs.subs(at), step.why)
        r = _check_step(fixed, seed, points, domain, structure, explicit_first=True)
        if not r.closed and r.method in ("counterexample", "shape-mismatch"):
            where = ", ".join(f"{s}={k}" for s in sizes)
            return dataclasses.replace(r, lhs_latex=sp.latex(step.lhs), rhs_latex=sp.latex(step.rhs),
                                       point=f"{where}: {r.point}" if r.point else where)
    return StepResult(sp.latex(step.lhs), sp.latex(step.rhs), step.why, False, "undecided",
                      note=f"no proof for every size; holds on the explicit entries at "
                           f"{' and '.join(str(k) for k in FIXED_SIZES)}")


def _safe_latex(x, seconds: float | None) -> str:
    """LaTeX of a side for a step that failed; a placeholder if printing itself fails or takes too long."""
    try:
        return run_limited(lambda: sp.latex(x), None if seconds is None else min(seconds, 5.0))
    except (Exception, StepTimeout):  # noqa: BLE001 - a step that could not be checked is still reported
        return r"\text{(expression not printable in time)}"


def check_step(step: Step, *, seed: int = 0, points: int = 6, domain=None,
               time_limit: float | None = None, structure=None, explicit_first: bool = False) -> StepResult:
    """Check one step; see the module docstring for the two methods, the certificate and the limits.

    ``time_limit`` (seconds; default: :func:`resolve_time_limit`) bounds the whole check of the
    step.  Never raises for a step that is false, hangs or makes SymPy raise: those come back as
    a StepResult with ``closed=False`` and ``method`` ``"counterexample"``, ``"timeout after T s"``
    or ``"sympy error: <ExceptionName>: <message>"``.  Raises InvalidArgument for a bad
    ``time_limit`` or ``THEOREM_CHECK_SYMPY_TIMEOUT``.  A step over symbolic sizes is first tried by
    the normal form (:func:`theorem_check.expr.matrix_proof.prove_identity`, with ``structure``: name
    -> kind): the route is then the ``method`` (certifying), its rules and assumptions the ``note``.  A step over
    fixed sizes is decided exactly on the explicit entries of its matrix symbols (method ``"explicit entries"``,
    :func:`theorem_check.expr.explicit.decide`) where SymPy's simplification does not close it, or before it with
    ``explicit_first`` (a derivation about its statement's only sizes: simplifying a ``4 x 4`` determinant's
    entries can take a minute).
    """
    limit = resolve_time_limit(time_limit)
    domain = domain or {}
    try:
        return run_limited(lambda: _check_step(step, seed, points, domain, structure, explicit_first), limit)
    except StepTimeout:
        method = f"timeout after {limit:g} s"
    except ChildError as exc:
        method = f"sympy error: {exc}"
    except Exception as exc:  # noqa: BLE001 - any SymPy/Python error inside a step is reported by name
        method = f"sympy error: {describe_exception(exc)}"
    return StepResult(_safe_latex(step.lhs, limit), _safe_latex(step.rhs, limit), step.why, False, method)


def check_derivation(derivation: Derivation, *, seed: int = 0, time_limit: float | None = None,
                     memo: Callable | None = None) -> SymbolicResult:
    """Check every step of ``derivation``; returns a frozen :class:`SymbolicResult`.

    The declared scope is enforced: a derivation declared ``general`` is reported as fixed-size
    evidence when a step uses explicit matrices, or when a matrix-valued step closed only by the
    random-point test or on explicit entries (both substitute the entries of fixed-size matrix symbols),
    unless its ``sizes`` is :data:`~theorem_check.model.derivation.STATEMENT_SIZES` (those fixed sizes are all the
    statement is about) for a step closed on explicit entries.

    ``time_limit`` is per step (seconds; default :func:`resolve_time_limit`: the environment
    variable ``THEOREM_CHECK_SYMPY_TIMEOUT``, else 20 s).  A step that times out or raises is
    reported by name and makes :attr:`SymbolicResult.undecided` non-None.  Raises
    InvalidArgument for a bad time limit.  ``memo(step, seed, domain, compute, structure=...)`` (optional) returns a
    step's result, from a cache or ``compute()`` (:func:`theorem_check.engine.symcache.cached_step`).
    """
    t0 = time.perf_counter()
    limit = resolve_time_limit(time_limit)
    limit_arg = math.inf if limit is None else limit
    structure = dict(getattr(derivation, "structure", None) or {})

    first = derivation.sizes == STATEMENT_SIZES
    key = {**structure, " explicit first": "yes"} if first else structure   # (not a name: a separate cache entry)

    def one(k: int, s: Step) -> StepResult:
        compute = lambda: check_step(s, seed=seed + k, domain=derivation.domain, time_limit=limit_arg,  # noqa: E731
                                     structure=structure, explicit_first=first)
        return compute() if memo is None else memo(s, seed + k, derivation.domain, compute, structure=key)

    steps = tuple(one(k, s) for k, s in enumerate(derivation.steps))
    exact = ("explicit entries",) if derivation.sizes == STATEMENT_SIZES else ()   # the entries of every matrix
    general = derivation.general and not any(                                        # the statement is about
        isinstance(st.lhs, sp.MatrixBase) or isinstance(st.rhs, sp.MatrixBase)
        or (_is_matrix(st.lhs) and res.method not in ("simplify", "counterexample") + ROUTES + exact)
        for st, res in zip(derivation.steps, steps))
    sizes = derivation.sizes or ("" if general or not derivation.general else "of the matrix symbols")
    return SymbolicResult(steps, all(s.closed for s in steps), general, sizes, time.perf_counter() - t0)


