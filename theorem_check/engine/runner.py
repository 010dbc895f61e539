"""The runner: symbolic stage + numeric stage per statement, verdict per claim, timings.

Statement verdict (DESIGN.md, "Verdicts"):

============================  ===========================  =============
numeric stage                 symbolic stage               verdict
============================  ===========================  =============
shapes do not conform         any                          ILL-POSED
fails                         closed (contradiction)       INCONCLUSIVE
fails                         other / none                 REFUTED
holds                         closed, general              PROVED
holds                         closed at fixed sizes        VERIFIED
holds                         refuted (contradiction)      INCONCLUSIVE
holds                         none / undecided             VERIFIED
holds, a mutant also holds    any                          INCONCLUSIVE (INSENSITIVE)
grey                          any                          INCONCLUSIVE
none                          closed, general / fixed      PROVED / VERIFIED
none                          refuted / undecided          REFUTED / INCONCLUSIVE
not ill-posed                 a step timed out / raised    INCONCLUSIVE
============================  ===========================  =============

Claim verdict: the printed statement's verdict when it passes; ERRATUM when it is REFUTED or
ILL-POSED and a corrected form or reading passes; otherwise the printed statement's verdict.
"""

from __future__ import annotations

import dataclasses
import platform
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable

from theorem_check.engine import symcache
from theorem_check.engine.cut_stage import cut_stage
from theorem_check.engine.deep_stage import deep_stage
from theorem_check.engine.exact import EXACT_BUDGET, ExactCounterexample, exact_counterexample
from theorem_check.engine.far import far_stage
from theorem_check.engine.frame_chunk import on_a_fresh_chunk
from theorem_check.engine.numeric import NumericResult, derive_seed, run_numeric
from theorem_check.engine.size_screen import size_screen
from theorem_check.engine.switch_stage import switch_stage
from theorem_check.engine.symbolic import SymbolicResult, check_derivation
from theorem_check.engine.vacuous_sweep import vacuous_sweep
from theorem_check.expr import sympy_rng
from theorem_check.expr.matrix_proof import ROUTES
from theorem_check.model.checks import forget_measurements
from theorem_check.model.claims import Claim, Statement
from theorem_check.model.derivation import STATEMENT_SIZES
from theorem_check.model.options import RunOptions
from theorem_check.model.verdicts import Outcome, Verdict
from theorem_check.validation import plural

__all__ = ["StatementResult", "counterexample_text", "ClaimResult", "RunResult", "MutantResult", "run_statement", "run_claim", "run_claims",
           "versions"]


@dataclass(frozen=True)
class MutantResult:
    """One automatic mutant of a statement: its name and outcome; ``survived`` when it also holds."""

    name: str
    outcome: Outcome

    @property
    def survived(self) -> bool:
        """True when the mutant holds too: the statement's check cannot tell it apart (INSENSITIVE)."""
        return self.outcome is Outcome.HOLDS

    @property
    def refuted(self) -> bool:
        """True when the mutant fails, as a wrong statement must."""
        return self.outcome is Outcome.FAILS


@dataclass(frozen=True)
class StatementResult:
    """Verdict and evidence of one statement (printed, corrected, reading or control)."""

    name: str
    kind: str
    latex: str
    verdict: Verdict
    evidence: str
    symbolic: SymbolicResult | None
    numeric: NumericResult | None
    seed: int
    seconds: float
    exact: ExactCounterexample | None = None
    """For a REFUTED statement with rational sides: an exact counterexample (:mod:`theorem_check.engine.exact`)."""

    @property
    def decided_by(self) -> str:
        """``"engine"`` (every built-in statement), or ``"check"`` for a deprecated decided Measurement."""
        return self.numeric.decided_by if self.numeric is not None else "engine"

    @property
    def mutants(self) -> tuple[MutantResult, ...]:
        """The automatic mutants' outcomes (empty unless the numeric stage holds and the engine decided it)."""
        if self.numeric is None:
            return ()
        return tuple(MutantResult(n, o) for n, o in self.numeric.mutant_outcomes.items())

    @property
    def sensitivity(self) -> float | None:
        """Smallest relative perturbation (ladder 1e-2 ... 1e-14) the statement's numeric stage refutes."""
        return self.numeric.sensitivity if self.numeric is not None else None

    @property
    def configs(self) -> tuple[dict, ...]:
        """The dimension configurations the numeric stage ran, the generic one first."""
        return tuple(dict(c) for c in self.numeric.configs) if self.numeric is not None else ()


@dataclass(frozen=True)
class ClaimResult:
    """Verdict of one claim, with the results of its statements (and controls if run)."""

    claim: Claim
    verdict: Verdict
    evidence: str
    printed: StatementResult
    variants: tuple[StatementResult, ...]
    controls: tuple[StatementResult, ...]
    seed: int
    seconds: float

    @property
    def id(self) -> str:
        """The claim id."""
        return self.claim.id


@dataclass(frozen=True)
class RunResult:
    """A whole run: claim results, seed, options, versions and timing."""

    results: tuple[ClaimResult, ...]
    seed: int
    trials: int
    versions: dict
    started: str
    seconds: float = 0.0
    skipped_slow: tuple[str, ...] = field(default_factory=tuple)

    @property
    def broken(self) -> list[str]:
        """One line per statement that is a bad claim (a side returned no batched array, a check returned
        malformed data) or none of whose instances could be evaluated (a side or check raised on every
        instance, or gave NaN/inf): a broken definition, not a verdict."""
        out = []
        for r in self.results:
            for st in (r.printed, *r.variants, *r.controls):
                if st.numeric is not None and st.numeric.bad:
                    out.append(f"claim {r.id} ({st.name}) is malformed: {st.numeric.bad}")
                    continue
                why = st.numeric.unevaluated if st.numeric is not None else None
                if why and st.exact is None:   # an exact counterexample decided it: a verdict, not a broken claim
                    out.append(f"claim {r.id} ({st.name}) could not be evaluated on any instance: {why}")
        return out

    @property
    def unrefuted_controls(self) -> list[str]:
        """``"claim (control)"`` for every negative control that came back neither REFUTED nor ILL-POSED."""
        return [f"{r.id} ({c.name})" for r in self.results for c in r.controls if not c.verdict.fails]

    @property
    def controls_run(self) -> int:
        """Number of negative controls run (``--controls``)."""
        return sum(len(r.controls) for r in self.results)

    @property
    def exit_code(self) -> int:
        """2 when a statement could not be evaluated at all (:attr:`broken`); else 0 when every
        claim run is PROVED or VERIFIED and every control run is refuted, 1 otherwise."""
        if self.broken:
            return 2
        return 0 if all(r.verdict.ok for r in self.results) and not self.unrefuted_controls else 1

    def counts(self) -> dict[str, int]:
        """Number of claims per verdict."""
        out: dict[str, int] = {}
        for r in self.results:
            out[r.verdict.value] = out.get(r.verdict.value, 0) + 1
        return out


def versions() -> dict:
    """Versions of Python and of the libraries a verdict depends on.

    A library already imported reports its ``__version__``; one not imported is read from its installed
    metadata, so that recording the versions imports nothing (Hypothesis alone took 0.17 s of every
    ``check`` that never fuzzed).
    """
    from theorem_check._version import __version__
    from theorem_check.numerics import arb

    out = {"theorem_check": __version__, "python": sys.version.split()[0], "platform": platform.platform()}
    for module, dist in (("numpy", "numpy"), ("scipy", "scipy"), ("sympy", "sympy"), ("mpmath", "mpmath"),
                         ("hypothesis", "hypothesis")):
        out[module] = _library_version(module, dist)
    if arb.USE_ARB:   # the mp50 rung's inv/solve/det/expm ran in python-flint's arb (design decision 42)
        out["python-flint"] = _library_version("flint", "python-flint")
    return out


def _library_version(module: str, dist: str) -> str:
    if module in sys.modules:
        return sys.modules[module].__version__
    from importlib import metadata

    return metadata.version(dist)


def _fmt(x: float) -> str:
    return f"{x:.1e}" if x == x else "nan"


def _dims_text(d) -> str:
    return " ".join(f"{k}={v}" for k, v in d.items())


def counterexample_text(c) -> str:
    """``counterexample dims {'n': 2} seed S`` of an instance, with its real scalar inputs
    (``at x = 0.0249``; matrices are given by dims and seed only)."""
    text = f"counterexample dims {dict(c.dims)} seed {c.seed}" if c.dims else f"counterexample seed {c.seed}"
    values = getattr(c, "values", None) or {}
    if values:
        text += " at " + ", ".join(f"{k} = {v:.4g}" for k, v in values.items())
    if getattr(c, "scale", 1.0) != 1.0:
        text += f", inputs at scale {c.scale:g}"
    return text


def _evidence(sym: SymbolicResult | None, num: NumericResult | None) -> str:
    parts = []
    if num is not None and num.survivors:
        parts.append(f"INSENSITIVE: mutant{'s' if len(num.survivors) > 1 else ''} "
                     f"{', '.join(repr(n) for n in num.survivors)} also hold{'' if len(num.survivors) > 1 else 's'} "
                     "(the check cannot tell the statement from a wrong one)")
    if sym is not None:
        n_ok = sum(s.closed for s in sym.steps)
        scope = ("all sizes" if sym.sizes != STATEMENT_SIZES else f"{STATEMENT_SIZES}, every matrix of them") \
            if sym.general else f"fixed sizes {sym.sizes}".strip()
        routes = sorted({s.method for s in sym.steps if s.closed and s.method in ROUTES})
        if routes:   # the normal-form proof and its assumptions (rules: show / report)
            scope += "; " + ", ".join(routes) + (
                ", assuming every inverted matrix invertible" if any("assuming" in s.note for s in sym.steps
                                                                    if s.method in ROUTES) else "")
        checked = [k for k, s in enumerate(sym.steps, 1) if s.closed and not s.certified]
        parts.append(f"sympy {n_ok}/{len(sym.steps)} steps ({scope})" + (
            f", step{'s' if len(checked) > 1 else ''} {', '.join(map(str, checked))} only numerically checked at "
            f"random points, not proved ({sym.steps[checked[0] - 1].note.split(', but ', 1)[-1]})" if checked else ""))
    if num is not None:
        if num.ill_posed:
            parts.append(f"ill-posed at {num.ill_posed}")
        elif num.counterexample is not None:
            c = num.counterexample
            floors = c.floors or {}
            res = ", ".join(f"{k} {_fmt(v)}" + (f" (within its floor {_fmt(floors[k])})" if v <= floors.get(k, -1.0)
                                                 else "") for k, v in c.residuals.items())
            parts.append(f"{counterexample_text(c)}: residual {res}" + (f"; {c.detail}" if c.detail else ""))
        else:
            inst = num.instances
            if inst and inst[0].residuals and inst[0].predicted is None:
                levels = list(dict.fromkeys(k for i in inst for k in i.residuals))   # mp100 where escalated
                # over the instances that decided: a vacuous one's relative residual (both sides ~0) is ~1 and
                # says nothing (helper-63: "max residual 1.0 -> 1.0 -> 1.0" beside VERIFIED)
                decided = [i for i in inst if not i.vacuous] or inst
                worst = {lv: max(i.residuals.get(lv, 0.0) for i in decided) for lv in levels}
                parts.append(f"{plural(len(inst), 'instance')}, max residual " + " -> ".join(f"{k} {_fmt(v)}" for k, v in worst.items()))
            elif inst and inst[0].predicted is not None:
                parts.append(f"{len(inst)} runs: predicted {inst[0].predicted}, measured {inst[0].measured}"
                             + (f" ({inst[0].detail})" if inst[0].detail else ""))
            else:
                parts.append(plural(len(inst), "instance"))
            if any(num.configs):
                parts.append("dims " + " | ".join(_dims_text(c) for c in num.configs))
            if num.vacuous:
                parts.append("vacuous: both sides vanish on every instance (below the floor of their "
                             "computation's magnitude, so the numbers cannot tell 0 from a small gap; "
                             "docs/verdicts.md: a proof decides it, or a nonzero equivalent form, or in a pack "
                             "tc.identity(..., scale=))")
            elif any(i.vacuous for i in inst):
                parts.append(f"{sum(i.vacuous for i in inst)} of {len(inst)} instances vacuous")
            if num.bad:
                parts.append(f"malformed claim: {num.bad}")
            elif num.outcome is Outcome.GREY:
                grey = [i for i in inst if i.outcome is Outcome.GREY]
                parts.append(f"grey: {grey[0].detail or 'residual neither at floor nor stalled'}" if grey else "grey")
    if num is not None:   # the far instances' and the fuzzing's lines of the note
        parts += [p for p in num.note.split("; ") if p.startswith(("far from the origin", "hypothesis fuzz",
                                                                   "every instance vacuous",
                                                                   "beside the branch switches",
                                                                   "on the branch cut", "beyond 50 digits"))]
    if sym is not None and sym.undecided:
        parts.append(sym.undecided)
    elif sym is not None and not sym.closed:
        bad = next(s for s in sym.steps if not s.closed)
        parts.append(f"step '{bad.why}' {bad.method}" + (f" at {bad.point}" if bad.point else ""))
    return "; ".join(parts)


def _statement_verdict(sym: SymbolicResult | None, num: NumericResult | None) -> Verdict:
    if sym is not None and sym.undecided and not (num is not None and num.ill_posed):
        return Verdict.INCONCLUSIVE  # a SymPy step timed out or raised: never silent, never decided
    if num is not None:
        if num.ill_posed:
            return Verdict.ILL_POSED
        if num.outcome is Outcome.FAILS:   # an exact derivation against the numerics: undecided
            return Verdict.INCONCLUSIVE if (sym is not None and sym.closed and sym.certified) else Verdict.REFUTED
        if num.outcome is Outcome.GREY or num.survivors:
            return Verdict.INCONCLUSIVE
        if num.vacuous and not (sym is not None and sym.closed and sym.general):
            return Verdict.INCONCLUSIVE  # both sides vanish on every instance: no evidence either way
        if sym is None:
            return Verdict.VERIFIED
        if sym.refuted:
            return Verdict.INCONCLUSIVE
        return Verdict.PROVED if (sym.closed and sym.certified and sym.general) else Verdict.VERIFIED
    assert sym is not None
    if sym.closed:   # steps only checked at random points (not certified) are evidence, not a proof
        return Verdict.PROVED if (sym.general and sym.certified) else Verdict.VERIFIED
    if any(s.method == "shape-mismatch" for s in sym.steps):
        return Verdict.ILL_POSED
    return Verdict.REFUTED if sym.refuted else Verdict.INCONCLUSIVE


def _fuzz(statement: Statement, num: NumericResult, *, seed: int, examples: int) -> NumericResult:
    from theorem_check.engine.fuzz import fuzz_statement

    fz = fuzz_statement(statement, max_examples=examples, seed=seed)
    note = f"{num.note}; hypothesis fuzz: {fz.examples} examples".lstrip("; ")
    if fz.counterexample is None:
        return dataclasses.replace(num, note=note + ", no counterexample")
    return dataclasses.replace(num, outcome=Outcome.FAILS, counterexample=fz.counterexample, ill_posed=fz.ill_posed,
                               note=note + ", counterexample found and shrunk")


def run_statement(statement: Statement, *, seed: int, trials: int = 16, fuzz: int = 0,
                  dims: dict | None = None, claim_id: str | None = None) -> StatementResult:
    """Run the symbolic and numeric stages of one statement; never raises for a false statement.

    ``fuzz > 0`` adds a Hypothesis search of that many examples for a counterexample
    (identities only) when the random instances all hold.  ``dims`` runs the numeric stage at those
    sizes only (names of the statement's DimSpace; see :func:`~theorem_check.engine.numeric.user_configuration`).
    The symbolic stage's pure results are cached on disk (:mod:`~theorem_check.engine.symcache`): its steps
    by ``srepr``, and the whole stage (derivation built and checked) by ``claim_id`` when given.
    SymPy's own random generators are seeded by ``seed`` for the run (:mod:`~theorem_check.expr.sympy_rng`).
    """
    with sympy_rng.seeded(seed):
        return on_a_fresh_chunk(_run_statement, statement, seed=seed, trials=trials, fuzz=fuzz, dims=dims,
                                claim_id=claim_id)


def _checked(derivation, seed: int) -> SymbolicResult | None:
    """The checked derivation, or None when the statement's derivation callable found none."""
    return None if derivation is None else check_derivation(derivation, seed=seed, memo=symcache.cached_step)


def _run_statement(statement: Statement, *, seed: int, trials: int, fuzz: int, dims: dict | None,
                   claim_id: str | None) -> StatementResult:
    t0 = time.perf_counter()
    sym = None
    if statement.derivation is not None:
        key = symcache.statement_key(statement.derivation, claim_id=claim_id, name=statement.name,
                                     kind=statement.kind, seed=seed) if claim_id and symcache.enabled() else None
        sym = symcache.cached_symbolic(key, lambda: _checked(statement.derivation(), seed))
    num = None
    if statement.is_identity or statement.check is not None:
        num = run_numeric(statement, seed=seed, trials=trials, dims=dims)
        if dims is None:
            num = vacuous_sweep(statement, num, seed=seed)
            num = size_screen(statement, num, seed=seed)
        num = far_stage(statement, num, seed=seed, beyond_sizes=dims is None)   # --dims: those sizes only
        num = switch_stage(statement, num, seed=seed)
        num = cut_stage(statement, num, seed=seed)
        num = deep_stage(statement, num, seed=seed)
        if fuzz > 0 and statement.is_identity and num.outcome is Outcome.HOLDS:
            num = _fuzz(statement, num, seed=seed, examples=fuzz)
    verdict = _statement_verdict(sym, num)
    exact = None
    if verdict is Verdict.REFUTED and num is not None and num.counterexample is not None:
        exact = _exact(statement, num.counterexample.dims, seed)
    evidence = _evidence(sym, num) + (f"; {exact.text}" if exact is not None else "")
    if verdict is Verdict.VERIFIED and num is not None and statement.is_identity and num.instances:
        first = dict(num.instances[0].dims)
        for dims in ([first] + [c for c in map(dict, num.configs) if c != first])[:EXACT_GAP_CONFIGS]:   # generic first
            exact = _exact(statement, dims, seed, tries=EXACT_GAP_TRIES, budget=EXACT_GAP_BUDGET)
            if exact is not None:
                break
        if exact is not None:
            verdict = Verdict.REFUTED
            evidence += (f"; but the sides differ below the numeric stages' resolution: {exact.text}")
    elif verdict is Verdict.INCONCLUSIVE and num is not None and statement.is_identity and num.instances:
        exact = _exact(statement, num.instances[0].dims, seed, tries=EXACT_GAP_TRIES)
        if exact is not None:   # exact arithmetic decides what the floating-point levels could not (10**400 = 1)
            verdict = Verdict.REFUTED
            evidence += f"; but exact arithmetic shows the sides differ: {exact.text}"
    return StatementResult(statement.name, statement.kind, statement.latex, verdict, evidence, sym, num,
                           seed, time.perf_counter() - t0, exact)


def _exact(statement: Statement, dims, seed: int, **kw) -> ExactCounterexample | None:
    """An exact counterexample at ``dims`` (None: none), for sides given as expressions
    (:func:`~theorem_check.engine.exact.exact_counterexample`; ``kw``: its ``tries``)."""
    lhs, rhs = (getattr(statement.lhs, "symbolic", None), getattr(statement.rhs, "symbolic", None))
    if dims is None or lhs is None or rhs is None:
        return None
    return exact_counterexample(lhs, rhs, dict(dims), getattr(statement.lhs, "structure", None), seed=seed, **kw)


EXACT_GAP_BUDGET = EXACT_BUDGET / 3
"""The work one exact evaluation of the gap search (below) may take: its ``EXACT_GAP_TRIES`` evaluations are
paid by every true statement, so together they cost what one counterexample search's evaluation may
(``jacobian(A*X*B, X) = kron(A, B.T)`` at ``n = 16``, 6.6 million units, spent 6 s there; stop 39)."""


EXACT_GAP_TRIES = 3
"""Exact points tried on a VERIFIED rational identity at each configuration of :data:`EXACT_GAP_CONFIGS`: a gap
below every level's resolution (``x + 10**-60 = x``: mp50 cannot see it, rational arithmetic can)."""

EXACT_GAP_CONFIGS = 4
"""Configurations the gap search looks at, :data:`EXACT_GAP_TRIES` points each: the generic one, then the others run
(helper-70: ``x*(1 + 10**-60*(n - 3)) = x`` holds at the generic n = 3 only, and was VERIFIED).  A true statement
pays at most ``EXACT_GAP_TRIES * EXACT_GAP_CONFIGS`` exact evaluations, each within :data:`EXACT_GAP_BUDGET`."""


def _dims_for(statement: Statement, dims: dict | None) -> dict | None:
    if not dims or statement.dims is None:
        return None
    own = {k: v for k, v in dims.items() if k in statement.dims.ranges}
    return own or None


def run_claim(claim: Claim, *, seed: int = 0, trials: int = 16, controls: bool = False, fuzz: int = 0,
              dims: dict | None = None, options: RunOptions | None = None) -> ClaimResult:
    """Run a claim's printed statement, its variants, and (``controls=True``) its negative controls.

    ``dims`` (``{"d1": 5}``) runs every statement that has those dimensions at those sizes (the others
    of its configuration generic).  ``options`` (a :class:`~theorem_check.model.options.RunOptions`)
    replaces the keyword options when given (the CLI and the workers pass one).  Raises InvalidArgument
    when an option is out of range, a name is a dimension of no statement of the claim, a size is not
    an integer >= 0, or lies outside its statement's range or constraint (:meth:`RunOptions.check_claim`).
    """
    t0 = time.perf_counter()
    if options is None:
        options = RunOptions(seed=seed, trials=trials, controls=controls, fuzz=fuzz, dims=dims or ())
    options.check_claim(claim)
    forget_measurements()
    seed, trials, controls, fuzz, dims = (options.seed, options.trials, options.controls, options.fuzz,
                                          options.dims_dict() or None)
    runs = [run_statement(s, seed=derive_seed(seed, claim.id, s.name), trials=trials, fuzz=fuzz,
                          dims=_dims_for(s, dims), claim_id=claim.id)
            for s in claim.statements()]
    printed, variants = runs[0], tuple(runs[1:])
    ctl = tuple(run_statement(s, seed=derive_seed(seed, claim.id, s.seed_of or s.name), trials=trials,
                              dims=_dims_for(s, dims), claim_id=claim.id)
                for s in claim.controls) if controls else ()
    verdict = printed.verdict
    evidence = printed.evidence
    if printed.verdict.fails:
        good = [v for v in variants if v.verdict.ok]
        if good:
            verdict = Verdict.ERRATUM
            evidence = f"as printed {printed.verdict.value}: {printed.evidence} | {good[0].name} {good[0].verdict.value}: {good[0].evidence}"
    return ClaimResult(claim, verdict, evidence, printed, variants, ctl, seed, time.perf_counter() - t0)


def run_claims(claims: Iterable[Claim], *, seed: int = 0, trials: int = 16, controls: bool = False, fuzz: int = 0,
               progress: Callable[[int, int, Claim], None] | None = None, skipped_slow: tuple[str, ...] = (),
               dims: dict | None = None, options: RunOptions | None = None) -> RunResult:
    """Run several claims in order; ``progress(k, n, claim)`` is called before each.  ``options`` replaces
    the keyword options when given."""
    if options is None:
        options = RunOptions(seed=seed, trials=trials, controls=controls, fuzz=fuzz, dims=dims or ())
    claims = list(claims)
    t0 = time.perf_counter()
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    out = []
    for k, c in enumerate(claims):
        if progress:
            progress(k, len(claims), c)
        out.append(run_claim(c, options=options))
    return run_result(out, options, started, time.perf_counter() - t0, skipped_slow)


def run_result(results, options: RunOptions, started: str, seconds: float,
               skipped_slow: tuple[str, ...] = ()) -> RunResult:
    """The :class:`RunResult` of a run (the one place it is built: in process, on workers, in sweeps)."""
    return RunResult(tuple(results), options.seed, options.trials, versions(), started, seconds, skipped_slow)
