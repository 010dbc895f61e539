"""The claim model: :class:`Source`, :class:`Statement`, :class:`Claim`, and perturbation helpers.

A **claim** is one checkable statement of a paper.  It owns a primary :class:`Statement` (the
statement *as printed*), optional variants (``kind="corrected"`` for the form that holds when
the printed one is wrong, ``kind="reading"`` for each reading of an ambiguous statement) and
negative controls (``kind="control"``: slightly wrong statements that the same code path must
REFUTE).  A statement is data plus small pure functions; the engine owns sampling, precision,
decisions, timing, shrinking and reporting.

Three ways to give a statement its numeric stage (pick exactly one):

``lhs`` / ``rhs``
    Identities.  ``lhs(inst, ctx)`` and ``rhs(inst, ctx)`` return arrays of shape
    ``(batch, ...)`` computed with ``ctx``'s operations; the engine evaluates them at float32,
    float64 and mpmath on the same instance and decides by refinement.  ``scale(inst, ctx)``
    (shape ``(batch,)``) optionally replaces the default reference magnitude
    ``max(|lhs|, |rhs|)`` of the relative residual (use it for statements ``... = 0``).
``check``
    Anything else (optima, flows, Monte Carlo): ``check(rng, dims)`` refines its own computation
    and returns what it measured and what the statement predicts, per level
    (:class:`~theorem_check.model.checks.Refinement`) or as a Monte Carlo estimate
    (:class:`~theorem_check.model.checks.MonteCarlo`); the engine decides.  Returning a decided
    :class:`Measurement` still works but is deprecated (``decided_by: "check"``).
``derivation`` only
    Pure algebra: PROVED when the derivation closes for all sizes.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

import numpy as np

from theorem_check.errors import ClaimDefinitionError, TheoremCheckDeprecationWarning
from theorem_check.model.derivation import Derivation
from theorem_check.model.dims import Dims, DimSpace
from theorem_check.model.verdicts import Outcome, Verdict

__all__ = ["Source", "Statement", "Claim", "Measurement", "Instance", "perturb", "negate", "double", "transpose",
           "plain_text", "check_plain_text", "problem_listing"]

KINDS = ("printed", "corrected", "reading", "control")
_ID_RE = re.compile(r"^[a-z][a-z0-9_]*(\.[a-z0-9_]+)+$")


_DOLLAR_SPAN = re.compile(r"(?<!\\)\$(.+?)(?<!\\)\$", re.S)
_BARE_MARKUP = re.compile(r"_\{|\^\{|\\[A-Za-z]+")


def check_plain_text(value: str, where: str) -> None:
    """Refuse LaTeX markup outside ``$...$`` in a plain-text field (``Step.why``, checked by the registry tests).

    Plain-text fields are printed literally (specials escaped) except for ``$...$`` spans, which are
    math; a bare ``_{``, ``^{`` or ``\\command`` outside them would print as raw markup in a report.
    Raises ClaimDefinitionError naming ``where`` (the claim and field) and the offending piece.
    Claim and statement fields go through :func:`plain_text` instead (a warning, not an error).
    """
    m = _BARE_MARKUP.search(_DOLLAR_SPAN.sub("", str(value)))
    if m:
        raise ClaimDefinitionError(f"{where}: {m.group(0)!r} outside $...$ in plain text {value!r} "
                                   "(write mathematics as $...$, e.g. '$W_{i+1}$')")


_MARKUP_WORD = re.compile(r"[_^]|\\[A-Za-z]+")
_JOIN_WORD = re.compile(r"^(?:[=+\-<>*/]|->|\\[A-Za-z]+)$")


def _wrap_bare_math(text: str) -> str:
    """Wrap each run of words with bare markup (``T^{-1} W_i``, ``\\nabla^\\top\\nabla``) in ``$...$``."""
    out = []
    for k, part in enumerate(re.split(r"((?<!\\)\$.+?(?<!\\)\$)", text)):
        if k % 2 or not _BARE_MARKUP.search(part):
            out.append(part)
            continue
        words = re.split(r"(\s+)", part)
        res, run = [], []

        def flush():
            rest = []
            while run and (not run[-1].strip() or not _MARKUP_WORD.search(run[-1])) and \
                    "".join(run[:-1]).count("{") == "".join(run[:-1]).count("}"):
                rest.insert(0, run.pop())   # trailing spaces and plain words stay outside the maths
            if run:
                body = "".join(run)
                lead = re.match(r"^[(\[]*", body).group(0)
                end = re.search(r"[,;:.)\]]*$", body).group(0)
                core = body[len(lead):len(body) - len(end)].replace("->", r"\to")
                ok = core.count("{") == core.count("}") and not core.endswith("\\")
                res.append(lead + (f"${core}$" if ok else core) + end)
            res.extend(rest)
            run.clear()

        for w in words:
            if w.isspace() or not w:
                (run if run else res).append(w)
            elif (_MARKUP_WORD.search(w) or (run and _JOIN_WORD.match(w))
                  or (run and "".join(run).count("{") > "".join(run).count("}"))):
                run.append(w)
            else:
                flush()
                res.append(w)
        flush()
        out.append("".join(res))
    return "".join(out)


def plain_text(value: str, where: str, problems: list[str] | None = None) -> str:
    """A plain-text field (title, assumption, statement name, note) as the report will typeset it.

    Bare LaTeX markup outside ``$...$`` (``T^{-1}``, ``\\nabla``) is deprecated: the run of words
    holding it is wrapped in ``$...$`` and a TheoremCheckDeprecationWarning names ``where``, the piece and the
    fixed text (packs of the previous release keep loading; a later release refuses it, see
    docs/writing-claims.md).  Returns the (fixed) text.
    """
    value = str(value)
    m = _BARE_MARKUP.search(_DOLLAR_SPAN.sub("", value))
    if not m:
        return value
    fixed = _wrap_bare_math(value)
    warn_at_definition(f"{where}: {m.group(0)!r} outside $...$ in plain text {value!r} is deprecated and typeset as "
                       f"{fixed!r}; write mathematics as $...$ (e.g. '$W_{{i+1}}$')")
    return fixed


def warn_at_definition(message: str) -> None:
    """A TheoremCheckDeprecationWarning attributed to the line that defined the claim: the innermost frame outside the
    ``theorem_check`` package (a pack's ``tc.identity(...)``, a catalogue module), not the registry's line that
    validated it (helper-56: the warnings all pointed at ``registry.py:120``)."""
    import os
    import sys
    import warnings

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frame = sys._getframe(1)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame = frame.f_back
    if frame is None:
        warnings.warn(message, TheoremCheckDeprecationWarning, stacklevel=2)
        return
    warnings.warn_explicit(message, TheoremCheckDeprecationWarning, frame.f_code.co_filename, frame.f_lineno,
                           module=frame.f_globals.get("__name__"),
                           registry=frame.f_globals.setdefault("__warningregistry__", {}))


def problem_listing(problems: list[str]) -> str:
    """One error message for several definition problems: the only one, or all of them numbered."""
    if len(problems) == 1:
        return problems[0]
    return f"{len(problems)} definition problems: " + "; ".join(f"({k}) {p}" for k, p in enumerate(problems, 1))


class Instance(dict):
    """A random instance: a dict of arrays (leading batch axis) with attribute access.

    Values may be arrays, Python scalars, or lists/tuples of arrays (e.g. the weights
    ``W = [W_1, ..., W_D]`` of a deep linear network, whose shapes differ).
    """

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError as exc:
            raise AttributeError(name) from exc


@dataclass(frozen=True)
class Source:
    """Where a claim comes from.

    Parameters
    ----------
    paper : str
        The paper key (``"prh"``, ``"noise"``, ``"cascade"``, or a user pack's key).
    section : str
        Section (``"4"``, ``"Appendix B"``).
    equation : str
        Equation/theorem label as printed (``"31"``, ``"Theorem 5.4"``, ``"footnote 14"``).
    printed : str
        The statement as printed, in LaTeX.
    """

    paper: str
    section: str
    equation: str
    printed: str


@dataclass(frozen=True)
class Measurement:
    """Deprecated: a custom check's *decided* result for one instance.

    New checks return :class:`~theorem_check.model.checks.Refinement` or
    :class:`~theorem_check.model.checks.MonteCarlo` (measured and predicted values; the engine decides and
    evaluates mutants).  A check returning a Measurement keeps working, with a
    ``TheoremCheckDeprecationWarning`` and ``decided_by: "check"``; no mutant can test it.

    ``outcome`` must come from :func:`~theorem_check.model.verdicts.decide_refinement` or
    :func:`~theorem_check.model.verdicts.decide_zscore`.  ``residuals`` / ``levels`` record the
    refinement sequence (e.g. ``{"tol=1e-6": 3e-4, "tol=1e-10": 2e-8}``); ``predicted`` and
    ``measured`` are for human-readable evidence ("predicted 0.35, measured 0.349 +- 0.002").
    ``figure`` may hold data for plots (any JSON-able mapping).
    """

    outcome: Outcome
    residuals: Mapping[str, float] = field(default_factory=dict)
    detail: str = ""
    predicted: Any = None
    measured: Any = None
    figure: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Statement:
    """One checkable form of a claim (as printed, corrected, a reading, or a negative control).

    Parameters
    ----------
    latex : str
        The statement in LaTeX (for the printed form: as printed).
    name : str
        Short label: ``"as printed"``, ``"corrected"``, ``"reading: h = pre-activation"``,
        ``"control: sign"``.
    kind : str
        One of ``"printed"``, ``"corrected"``, ``"reading"``, ``"control"``.
    dims : DimSpace, optional
        Sizes to draw instances from (required with ``lhs``/``rhs`` or ``check``).
    sample : callable(rng, dims, batch) -> mapping
        Draws a batch of instances: arrays with leading axis ``batch``.
    lhs, rhs, scale : callable(Instance, Ctx) -> array, optional
        See the module docstring.
    check : callable(rng, dims) -> Measurement, optional
        Custom numeric stage (optima, flows, Monte Carlo).
    derivation : callable() -> Derivation or None, optional
        The SymPy derivation.  The callable may return None (no derivation found: a short form's derivation
        search runs when the statement runs, under its clock and ``--timeout``); the statement then has no
        symbolic stage, as without one.
    contexts : tuple of str
        Precisions for identities; drop ``"mp50"`` only when a side cannot run in mpmath
        (eigen-decompositions of large matrices, ODE solvers).
    cond : float
        Bound on the error amplification of the instance (condition numbers), scaling floors.
    note : str
        Conventions or remarks shown with the statement.
    undefined : str
        ``"error"`` (default): a side that raises or is NaN/inf makes that instance unevaluated (a
        statement no instance can evaluate is a broken definition, exit 2).  ``"fails"``: on an
        instance inside the statement's domain, a side that raises a linear-algebra error
        (singular matrix, division by zero) or is NaN/inf at the highest precision is a
        counterexample ("undefined at ..."): "for every square A, A^{-1} A = I" is REFUTED.
    seed_of : str, optional
        A control of a custom check only: the name of the claim's statement whose instance seeds it uses,
        so that it re-uses that statement's measurement (same seeds and sizes: the check runs once, see
        :func:`theorem_check.model.checks.measure`) and differs only in its prediction.  Set by
        ``perturb(..., predicted=..., same_measurement=True)``; None (default): the control draws its own.
    sample_at_scale : callable(rng, dims, batch, scale) -> mapping, optional
        An identity's sampler at other input scales: the instances of ``sample`` with every input multiplied by
        ``scale`` (a positive number, or an array of one per batch element), the structure kept (an SPD
        matrix's eigenvalues scaled, an orthogonal matrix's generator).  Given, the engine also evaluates the
        statement far from the origin once the ordinary instances hold (:mod:`theorem_check.engine.far`):
        statements false only where inputs are large (``logm(expm(X)) = X``) are REFUTED there.  The short
        forms (``tc.identity``, ``tc.erratum``, ``tc.gradient``, ``check``) set it; None (default): no far
        instances.  Design decision 131.
    far_scales : tuple of float
        Input scales the statement's own constants suggest (``abs(t - 300) = 300 - t`` is false only beyond
        ``t = 300``; ``abs(trace(A.T*A) - 1e-6) = ...`` only within ``1e-3`` of the origin), evaluated by the far
        stage beside its own ladder.  A hint of where to look, never a verdict: the short forms set it from the
        numbers of string and SymPy sides (:func:`theorem_check.authoring.spec.constant_scales`); () (default):
        the engine's ladder only.  Design decision 172.
    far_dims : tuple of mapping name -> int
        Configurations beyond the statement's own size ranges where it is still meant to hold (a short form's
        size letter given no range is a statement for every size, sampled at 1..4), evaluated by the far stage,
        which never proves (``x*(n-1)*(n-2)*(n-3)*(n-4) + x = x`` fails at ``n = 5``; a statement undefined there
        is INCONCLUSIVE).  () (default): none.
        Design decision 175.
    """

    latex: str
    name: str = "as printed"
    kind: str = "printed"
    dims: DimSpace | None = None
    sample: Callable[[np.random.Generator, Dims, int], Mapping[str, Any]] | None = None
    lhs: Callable | None = None
    rhs: Callable | None = None
    scale: Callable | None = None
    check: Callable[[np.random.Generator, Dims], Measurement] | None = None
    derivation: Callable[[], Derivation | None] | None = None
    contexts: tuple[str, ...] = ("float32", "float64", "mp50")
    cond: float = 100.0
    note: str = ""
    undefined: str = "error"
    seed_of: str | None = None
    sample_at_scale: Callable[[np.random.Generator, Dims, int, Any], Mapping[str, Any]] | None = None
    far_scales: tuple[float, ...] = ()
    far_dims: tuple[Mapping[str, int], ...] = ()

    @property
    def is_identity(self) -> bool:
        """True when the numeric stage compares ``lhs`` with ``rhs``."""
        return self.lhs is not None

    def validate(self, where: str) -> None:
        """Raise one ClaimDefinitionError (naming ``where``) listing every problem of the statement."""
        problems = self.problems(where)
        if problems:
            raise ClaimDefinitionError(problem_listing(problems))

    def problems(self, where: str) -> list[str]:
        """Every definition problem of the statement, each naming ``where`` and its fix ([] when well formed).

        Bare LaTeX markup in ``name``/``note`` is typeset (:func:`plain_text`, a TheoremCheckDeprecationWarning);
        a degenerate ``dims`` without ``scalar=True`` warns too (packs of the previous release load).
        """
        out: list[str] = []
        if self.kind not in KINDS:
            out.append(f"{where}: kind={self.kind!r} must be one of {KINDS}")
        if not isinstance(self.latex, str) or not self.latex.strip():
            out.append(f"{where}: latex must be a non-empty string")
        object.__setattr__(self, "name", plain_text(self.name, f"{where} name"))
        object.__setattr__(self, "note", plain_text(self.note, f"{where} note"))
        bad = sorted({repr(ch) for ch in str(self.latex) + self.name + self.note if ord(ch) < 32 and ch not in "\n\t"})
        if bad:
            out.append(f"{where}: text contains control characters {', '.join(bad)} "
                       "(a LaTeX escape such as \\f or \\b in a non-raw string?)")
        if (self.lhs is None) != (self.rhs is None):
            out.append(f"{where}: lhs and rhs must be given together")
        if self.lhs is not None and self.check is not None:
            out.append(f"{where}: give either lhs/rhs or check, not both")
        if self.lhs is None and self.check is None and self.derivation is None:
            out.append(f"{where}: needs a verifier (lhs/rhs, check or derivation)")
        if (self.lhs is not None or self.check is not None) and (self.dims is None or self.sample is None
                                                                and self.lhs is not None):
            out.append(f"{where}: a numeric stage needs dims (and sample for lhs/rhs)")
        if self.undefined not in ("error", "fails"):
            out.append(f"{where}: undefined={self.undefined!r} must be 'error' or 'fails'")
        if self.sample_at_scale is not None and (self.lhs is None or not callable(self.sample_at_scale)):
            out.append(f"{where}: sample_at_scale must be a callable (rng, dims, batch, scale) of an identity "
                       "(lhs/rhs): a custom check draws its own instances")
        if self.seed_of is not None and (self.kind != "control" or self.check is None):
            out.append(f"{where}: seed_of={self.seed_of!r} is for a control of a custom check (perturb(..., "
                       "predicted=..., same_measurement=True))")
        if self.lhs is not None and self.dims is not None and self.dims.degenerate and not self.dims.scalar:
            warn_at_definition(
                f"{where}: every configuration of dims {dict(self.dims.ranges)} is degenerate (all sizes <= 1, "
                "where matrices commute and equal their transposes); this is deprecated: widen the ranges, or "
                "declare DimSpace(..., scalar=True) for a statement about scalars")
        from theorem_check.numerics.precision import CONTEXTS

        unknown = set(self.contexts) - set(CONTEXTS)
        if unknown or len(self.contexts) < 2 and self.lhs is not None:
            out.append(f"{where}: contexts={self.contexts!r} must be >= 2 of {', '.join(CONTEXTS)}")
        return out


@dataclass(frozen=True)
class Claim:
    """One checkable statement of a paper, with its variants and negative controls.

    Parameters
    ----------
    id : str
        ``"<paper>.<label>"``, lower case, e.g. ``"prh.eq31"``, ``"noise.thm5_4"``.
    title : str
        One line.
    source : Source
    statement : Statement
        The statement as printed (``kind="printed"``).
    variants : tuple of Statement
        Corrected forms and readings.
    controls : tuple of Statement
        Hand-written negative controls.  Required (at least one) when the printed statement has no
        numeric stage; otherwise optional, since the engine's automatic mutants (sign, factor 2,
        factor 1/2, small relative perturbation) run on every statement.
    aliases : tuple of str
        Bare labels (``"eq31"``) that ``theorem-check run`` accepts; several papers may share one.
    assumptions : tuple of str
        Shapes, invertibility, conventions, "at a global minimum", ...
    slow : bool
        True for simulations that run only with ``--slow`` (or when named explicitly).
    expected : str, optional
        The verdict the team derived for this claim when it is not PROVED/VERIFIED/ERRATUM
        (e.g. ``"REFUTED"`` for a printed statement with no correction); the registry-wide
        test checks the run against it.  Never set it to silence a failing check.
    """

    id: str
    title: str
    source: Source
    statement: Statement
    variants: tuple[Statement, ...] = ()
    controls: tuple[Statement, ...] = ()
    aliases: tuple[str, ...] = ()
    assumptions: tuple[str, ...] = ()
    slow: bool = False
    expected: str | None = None

    @property
    def paper(self) -> str:
        """The paper key, i.e. the id's prefix."""
        return self.id.split(".", 1)[0]

    @property
    def label(self) -> str:
        """The id without its paper prefix (``"eq31"`` for ``"prh.eq31"``)."""
        return self.id.split(".", 1)[1]

    def statements(self) -> tuple[Statement, ...]:
        """The printed statement followed by its variants (not the controls)."""
        return (self.statement, *self.variants)

    def validate(self) -> None:
        """Raise one ClaimDefinitionError naming the claim and listing every problem, each with its fix."""
        problems = self.problems()
        if problems:
            raise ClaimDefinitionError(problem_listing(problems))

    def problems(self) -> list[str]:
        """Every definition problem of the claim and its statements ([] when well formed).

        Plain-text fields with bare LaTeX markup are typeset with a TheoremCheckDeprecationWarning (:func:`plain_text`).
        """
        if not isinstance(self.id, str) or not _ID_RE.match(self.id):
            return [f"claim id={self.id!r} must look like 'paper.label' (lower case, digits, _)"]
        out: list[str] = []
        if not self.title:
            out.append(f"claim {self.id}: title must be non-empty")
        object.__setattr__(self, "title", plain_text(self.title, f"claim {self.id} title"))
        object.__setattr__(self, "assumptions", tuple(plain_text(a, f"claim {self.id} assumptions[{k}]")
                                                      for k, a in enumerate(self.assumptions)))
        if not isinstance(self.source, Source) or not self.source.printed.strip():
            out.append(f"claim {self.id}: source must be a Source with the printed statement")
        else:
            bad = sorted({repr(ch) for ch in self.title + self.source.printed + "".join(self.assumptions)
                          if ord(ch) < 32 and ch not in "\n\t"})
            if bad:
                out.append(f"claim {self.id}: text contains control characters {', '.join(bad)} "
                           "(a LaTeX escape such as \\f or \\b in a non-raw string?)")
            if self.source.paper != self.paper:
                out.append(f"claim {self.id}: source.paper={self.source.paper!r} must match the id prefix")
        if not isinstance(self.statement, Statement):
            return out + [f"claim {self.id}: statement must be a tc.Statement"]
        if self.statement.kind != "printed":
            out.append(f"claim {self.id}: statement.kind must be 'printed'")
        out += self.statement.problems(f"claim {self.id} (as printed)")
        for v in self.variants:
            out += v.problems(f"claim {self.id} variant {v.name!r}")
            if v.kind not in ("corrected", "reading"):
                out.append(f"claim {self.id} variant {v.name!r}: kind must be corrected/reading")
        for c in self.controls:
            out += c.problems(f"claim {self.id} control {c.name!r}")
            if c.kind != "control":
                out.append(f"claim {self.id} control {c.name!r}: kind must be 'control'")
        numeric = self.statement.is_identity or self.statement.check is not None
        if not self.controls and not numeric:
            out.append(f"claim {self.id}: needs at least one negative control (a derivation-only "
                       "statement has no automatic mutants)")
        if self.expected is not None:     # the pytest plugin refused it, run did not (helper-56)
            if str(self.expected).strip().upper().replace("_", "-") not in {v.value for v in Verdict}:
                out.append(f"claim {self.id}: expected={self.expected!r} must be a verdict "
                           f"({', '.join(v.value for v in Verdict)}, any case)")
        names = [s.name for s in (*self.statements(), *self.controls)]
        if len(set(names)) != len(names):
            out.append(f"claim {self.id}: statement names {names} must be unique")
        return out

    # notebooks
    def _repr_latex_(self) -> str:
        """The claim's LaTeX block (as ``theorem-check show ID --latex``; used by nbconvert to LaTeX/PDF)."""
        from theorem_check.output.latex import claim_latex

        return claim_latex(self)

    def _repr_markdown_(self) -> str:
        s = self.source
        return (f"**{self.id}** — {self.title}  \n*{s.paper}, §{s.section}, {s.equation}*\n\n"
                f"$${s.printed}$$")


def perturb(statement: Statement, name: str, *, rhs: Callable | None = None, lhs: Callable | None = None,
            predicted: Callable | None = None, latex: str | None = None, same_measurement: bool = False,
            **changes) -> Statement:
    """A negative control: ``statement`` with its ``rhs`` (or ``lhs``, or a check's prediction) passed
    through a map.

    ``rhs(value, inst, ctx) -> value'`` receives the original side's value, so that the
    control runs through exactly the same code path as the statement.  For a custom check that
    returns :class:`~theorem_check.model.checks.Refinement` or :class:`~theorem_check.model.checks.MonteCarlo`,
    ``predicted(value) -> value'`` maps the prediction at every level (the measurement is untouched).
    Other fields (e.g. a different ``check``) can be replaced through ``changes``.  The derivation is
    dropped (a control's derivation, if any, must be passed explicitly as ``derivation=``).

    ``same_measurement=True`` (with ``predicted=`` only): the control is decided on the statement's own
    measurement (its instance seeds, :attr:`Statement.seed_of`) instead of a fresh one; the check runs once
    for both.  For simulations of minutes, whose measurement does not depend on the prediction: the
    control then tests the comparison with a wrong prediction, at half the cost.

    Raises ClaimDefinitionError if ``rhs``/``lhs``/``predicted`` is given for a statement without that side,
    or ``same_measurement`` without ``predicted``.
    """
    fields: dict[str, Any] = dict(name=f"control: {name}", kind="control", derivation=None)
    fields.update(changes)
    if predicted is not None:
        if statement.check is None:
            raise ClaimDefinitionError(f"perturb({name!r}, predicted=...): statement {statement.name!r} has no "
                                       "custom check (identities perturb rhs=/lhs=)")
        fields["check"] = _perturbed_check(statement.check, predicted, name)
        if same_measurement:
            fields["seed_of"] = statement.name
    elif same_measurement:
        raise ClaimDefinitionError(f"perturb({name!r}, same_measurement=True) re-uses a measurement with another "
                                   "prediction: give predicted=...")
    for side, given in (("rhs", rhs), ("lhs", lhs)):
        if given is not None and getattr(statement, side) is None:
            raise ClaimDefinitionError(
                f"perturb({name!r}, {side}=...): statement {statement.name!r} has no {side} to perturb "
                "(a derivation-only statement's control passes derivation=..., a custom check's check=...)")
    if rhs is not None:
        orig = statement.rhs
        fields["rhs"] = lambda inst, ctx: rhs(orig(inst, ctx), inst, ctx)
    if lhs is not None:
        orig_l = statement.lhs
        fields["lhs"] = lambda inst, ctx: lhs(orig_l(inst, ctx), inst, ctx)
    fields["latex"] = latex or f"{statement.latex}\\quad\\text{{[perturbed: {name}]}}"
    return dataclasses.replace(statement, **fields)


def _perturbed_check(check: Callable, fn: Callable, name: str) -> Callable:
    from theorem_check.errors import BadClaim
    from theorem_check.model.checks import MonteCarlo, Refinement

    def perturbed(rng, dims):
        from theorem_check.model.checks import measure

        res = measure(check, rng, dims)
        if isinstance(res, Refinement):
            return dataclasses.replace(res, levels=tuple(dataclasses.replace(lv, predicted=fn(lv.predicted))
                                                         for lv in res.levels))
        if isinstance(res, MonteCarlo):
            return dataclasses.replace(res, predicted=fn(res.predicted))
        raise BadClaim(f"perturb({name!r}, predicted=...): the check returned {type(res).__name__}, which has no "
                       "prediction to perturb (return tc.Refinement or tc.MonteCarlo)")

    perturbed.perturbs = check          # measure() remembers the inner check's result, not this wrapper's
    return perturbed


def _map_side(statement: Statement, fn: Callable) -> dict:
    """The fields of a control that maps the right side (identity) or the prediction (custom check)."""
    if statement.is_identity or statement.check is None:
        return {"rhs": lambda v, inst, ctx: fn(v)}
    return {"predicted": lambda p: fn(np.asarray(p, dtype=object) if np.asarray(p).dtype == object else np.asarray(p))}


def negate(statement: Statement, *, same_measurement: bool = False) -> Statement:
    """Control: the right-hand side (or a custom check's prediction) with its sign flipped; ``same_measurement``
    as for :func:`perturb` (a custom check only)."""
    return perturb(statement, "sign", same_measurement=same_measurement, **_map_side(statement, lambda v: -v))


def double(statement: Statement, *, same_measurement: bool = False) -> Statement:
    """Control: the right-hand side (or a custom check's prediction) multiplied by 2; ``same_measurement``
    as for :func:`perturb` (a custom check only)."""
    return perturb(statement, "factor 2", same_measurement=same_measurement,
                   **_map_side(statement, lambda v: 2 * v))


def transpose(statement: Statement) -> Statement:
    """Control: the right-hand side transposed (last two axes)."""
    return perturb(statement, "transpose", rhs=lambda v, inst, ctx: np.swapaxes(v, -1, -2))
