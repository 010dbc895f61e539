"""Short forms of the claim API: :func:`identity`, :func:`gradient`, :func:`erratum`.

One call defines and registers a whole :class:`~theorem_check.model.claims.Claim`: the dimension space
(a :class:`~theorem_check.model.dims.DimSpace` over the size letters of ``shapes``), a Gaussian sampler
with the declared structures, the two sides (callables ``(inst, ctx) -> array``, SymPy
expressions, or strings in SymPy syntax, see :mod:`theorem_check.expr`), a SymPy derivation
where SymPy closes the identity for all sizes, and negative controls derived from the statement
(sign, factor 2, transpose where the right side is square and not symmetric, ``+1`` where it is
zero); the engine's automatic mutants apply on top.

>>> import theorem_check as tc
>>> c = tc.identity("demo.short_transpose", "(A*B).T", "B.T*A.T",
...                 shapes={"A": ("m", "k"), "B": ("k", "n")}, register=False)
>>> sorted(c.statement.dims.ranges), [s.name for s in c.controls][:2]
(['k', 'm', 'n'], ['control: sign', 'control: factor 2'])

Structure kinds (``structure={"X": "spd"}``): ``symmetric``, ``spd`` (condition number below 10),
``orthogonal`` (a signed Cayley transform computed in each precision context, so it is orthogonal
to the working precision), ``invertible`` (condition number below 10), ``diagonal``, ``antisymmetric``;
for scalars ``positive`` (log-uniform on [10^-1/2, 10^1/2]).  Every kind is generic at every size,
1 and 2 included (random distinct spectra, no fixed determinant or trace).  A SymPy ``Symbol(..., positive=True)`` is positive.

Symmetric-domain gradients: for a ``wrt`` declared ``symmetric`` or ``spd``, the gradient is the
one on the space of symmetric matrices, ``sym(G) = (G + G^T)/2`` with ``G`` the free gradient
(Srinivasan & Panda, "What is the gradient of a scalar function of a symmetric matrix?",
arXiv:1911.06491); the formula ``G + G^T - diag(G)`` found in older texts is not a gradient for the
Frobenius inner product, and is the classic wrong variant.
"""

from __future__ import annotations

import functools
import random
from typing import Callable, Mapping, Sequence

import numpy as np
import sympy as sp

from theorem_check import expr as ex
from theorem_check.authoring.spec import (
    DEFAULT_SIZE,
    MAX_OPS,
    SCALAR_STRUCTURES,
    STRUCTURES,
    Side,
    Spec,
    build_spec,
    make_side,
    sampler,
)
from theorem_check.engine.symbolic import Derivation, Step, has_fractional_matpow, simplifies_to_zero
from theorem_check.errors import ClaimDefinitionError, ShapeMismatch
from theorem_check.model.claims import Claim, Instance, Source, Statement, double, negate, perturb
from theorem_check.model.dims import DimSpace

__all__ = ["identity", "gradient", "erratum", "derived_controls", "structure_of", "STRUCTURES", "SCALAR_STRUCTURES",
           "DEFAULT_SIZE"]


_DIFF_SAFE = (sp.MatrixSymbol, sp.MatMul, sp.MatAdd, sp.Transpose, sp.Inverse, sp.Trace, sp.Number, sp.Mul,
              sp.Add, sp.Identity, sp.NumberSymbol)


def _symbolic(s: Side, spec: Spec):
    """The SymPy form of a side at symbolic sizes, or None (callable, or does not conform)."""
    if isinstance(s, sp.Basic):
        return s
    if isinstance(s, str):
        try:
            return ex.parse(s, dict(spec.mats), what="side")
        except ShapeMismatch:
            return None
    return None


def _diff_safe(e) -> bool:
    if isinstance(e, sp.MatrixSymbol) or e.is_Number or isinstance(e, sp.Symbol):
        return True
    return isinstance(e, _DIFF_SAFE) and all(_diff_safe(a) for a in e.args)


@functools.lru_cache(maxsize=512)
def _replace_grads(e):
    """``grad(f, X)`` nodes replaced by SymPy's ``diff(f, X)`` where that is known to be right
    (traces of products, sums, transposes and inverses of matrix symbols); None otherwise.

    A sum is differentiated term by term (SymPy 1.14 returns ``ZeroMatrix`` for ``diff(tr(XA) + tr(XB), X)``),
    and every derivative is checked exactly, entry by entry, on explicit matrices at one concrete size
    (:func:`_diff_agrees`): a SymPy derivative that disagrees there attaches no derivation.
    """
    grads = list(e.atoms(ex.Grad))
    if e.atoms(ex.Jacobian, ex.Hessian):
        return None
    rep = {}
    for g in grads:
        f, X = g.args
        if not _diff_safe(f):
            return None
        if not f.has(sp.Trace):
            return None
        try:
            terms = sp.Add.make_args(f)
            d = sp.MatAdd(*[sp.diff(term, X) for term in terms]).doit() if len(terms) > 1 else sp.diff(f, X)
        except Exception:  # noqa: BLE001 - SymPy cannot: no derivation
            return None
        if d.has(sp.Derivative) or not ex.is_matrix(d) or not _diff_agrees(f, X, d):
            return None
        rep[g] = d
    return e.xreplace(rep) if rep else e


def _diff_agrees(f, X, d) -> bool:
    """``d`` equals the entrywise derivative of ``f`` by ``X`` on explicit symbolic matrices, every size
    letter set to a distinct small integer (2, 3, ...): an exact check of SymPy's matrix calculus at one
    size, so that a wrong rule (a dropped term) never becomes a proof."""
    try:
        letters = sorted({s for m in f.atoms(sp.MatrixSymbol) | {X} for s in m.shape if isinstance(s, sp.Symbol)},
                         key=str)
        sizes = {s: 2 + k for k, s in enumerate(letters)}
        mats = {m: sp.Matrix(*[int(sp.sympify(v).subs(sizes)) for v in m.shape],
                             lambda i, j, name=m.name: sp.Symbol(f"{name}_{i}_{j}"))
                for m in f.atoms(sp.MatrixSymbol) | d.atoms(sp.MatrixSymbol) | {X}}
        fe = sp.sympify(f.xreplace(mats).subs(sizes).doit())
        fe = fe[0, 0] if isinstance(fe, sp.MatrixBase) else fe
        de = sp.Matrix(d.xreplace(mats).subs(sizes).doit())
        Xe = mats[X]
        if de.shape != Xe.shape:
            return False
        rnd = random.Random(20261201)
        entries = sorted(set().union(*(v.free_symbols for v in mats.values())), key=str)
        for _ in range(2):  # exact values at two random rational points (the difference is rational)
            point = {s: sp.Rational(rnd.randint(-97, 97), rnd.randint(1, 89)) for s in entries}
            for i in range(Xe.shape[0]):
                for j in range(Xe.shape[1]):
                    if (sp.diff(fe, Xe[i, j]) - de[i, j]).xreplace(point) != 0:
                        return False
        return True
    except Exception:  # noqa: BLE001 - cannot check: no derivation (the numeric stage decides)
        return False


def _derivation(lhs: Side, rhs: Side, spec: Spec, names_used: set):
    """A one-step derivation when SymPy closes ``lhs = rhs`` for all sizes; None otherwise.

    Attached only when the structures of the names involved are generic (``invertible``): SymPy's
    matrix algebra knows no symmetry/orthogonality, so a proof there would be of another statement.
    """
    if any(spec.structure.get(n) not in (None, "invertible") for n in names_used):
        return None
    l, r = _symbolic(lhs, spec), _symbolic(rhs, spec)
    if l is None or r is None:
        return None
    diffed = bool(l.atoms(ex.Grad) or r.atoms(ex.Grad))
    l, r = _replace_grads(l), _replace_grads(r)
    if l is None or r is None or ex.is_matrix(l) != ex.is_matrix(r):
        return None
    if ex.is_matrix(l) and tuple(l.shape) != tuple(r.shape):
        return None
    if sp.count_ops(l) + sp.count_ops(r) > MAX_OPS:
        return None
    if has_fractional_matpow(l) or has_fractional_matpow(r):   # SymPy folds (A*A)**(1/2) to A: no proof there
        return None
    try:
        closes = simplifies_to_zero(l - r)  # the test check_step applies: what closes here closes there
    except Exception:  # noqa: BLE001 - SymPy cannot decide: numeric evidence only
        return None
    if not closes:
        return None
    why = "SymPy matrix-expression algebra" + (" (gradient by sympy.diff)" if diffed else "")
    return lambda: Derivation([Step(l, r, why)], general=True)


# ---------------------------------------------------------------------------------------------
# controls
# ---------------------------------------------------------------------------------------------
def _generic_dims(space: DimSpace) -> dict:
    options = list(space.ordered())
    for d in options:
        vals = list(d.values())
        if all(v >= 2 for v in vals) and len(set(vals)) == len(vals):
            return d
    return options[-1]


def _probe_rhs(st: Statement):
    """The right side at float64 on one instance of a generic configuration (None if it raises)."""
    from theorem_check.numerics.precision import FLOAT64

    try:
        d = _generic_dims(st.dims)
        inst = Instance(st.sample(np.random.default_rng(12345), d, 1))
        with FLOAT64.active():
            return np.asarray(st.rhs(inst, FLOAT64), dtype=float)
    except Exception:  # noqa: BLE001 - a statement that does not evaluate gets the sign/factor controls
        return None


def derived_controls(st: Statement) -> tuple[Statement, ...]:
    """Negative controls of an identity, by the same code path: sign and factor 2 of the right side,
    its transpose where it is square and not symmetric, ``+ 1`` where it is zero."""
    v = _probe_rhs(st)
    if v is not None and v.size and np.all(v == 0):
        return (perturb(st, "plus one", rhs=lambda x, inst, ctx: x + 1),)
    out = [negate(st), double(st)]
    if v is not None and v.ndim == 3 and v.shape[-1] == v.shape[-2] > 1:
        scale = np.max(np.abs(v)) or 1.0
        if np.max(np.abs(v - np.swapaxes(v, -1, -2))) > 1e-6 * scale:
            # a 1x1 right side (at size 1) is a scalar: its transpose is itself
            out.append(perturb(st, "transpose", rhs=lambda x, inst, ctx: ctx.T(x) if np.ndim(x) >= 3 else x))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# public short forms
# ---------------------------------------------------------------------------------------------
def _latex(s: Side, spec: Spec) -> str:
    e = _symbolic(s, spec)
    if e is not None:
        from theorem_check.expr.printing import expr_latex

        return expr_latex(e)
    if isinstance(s, str):
        esc = s.replace("\\", r"\backslash ").replace("_", r"\_").replace("^", r"\hat{}").replace("#", r"\#") \
            .replace("%", r"\%").replace("&", r"\&").replace("{", r"\{").replace("}", r"\}")
        return rf"\texttt{{{esc}}}"
    return r"\text{(callable)}"


def _text(s: Side) -> str:
    if isinstance(s, str):
        return s
    if isinstance(s, sp.Basic):
        return str(s)
    return getattr(s, "__name__", "callable")


def _names_used(sides, spec: Spec) -> set:
    out = set()
    for s in sides:
        if isinstance(s, str):
            out |= {n for n, _, _ in ex.names_in(s, "side")}
        elif isinstance(s, sp.Basic):
            out |= {a.name for a in s.atoms(sp.MatrixSymbol)} | {a.name for a in s.free_symbols
                                                                if isinstance(a, sp.Symbol)}
        else:
            out |= set(spec.mats)
    return out


def _space(ranges: dict) -> DimSpace:
    """The DimSpace of the size letters; a statement with no size above 1 (scalars, 1x1 matrices) is
    declared scalar on purpose where the engine asks for it (``DimSpace(scalar=True)``)."""
    if all(hi <= 1 for _, hi in ranges.values()) and "scalar" in getattr(DimSpace, "__dataclass_fields__", {}):
        return DimSpace(ranges, scalar=True)
    return DimSpace(ranges)


def _statement(lhs, rhs, spec, *, name, kind, latex, cond, contexts, scale, note, derive, where) -> Statement:
    space = _space(dict(spec.ranges))
    used = _names_used((lhs, rhs), spec)
    deriv = _derivation(lhs, rhs, spec, used) if derive else None
    return Statement(
        latex or f"{_latex(lhs, spec)} = {_latex(rhs, spec)}", name=name, kind=kind, dims=space,
        sample=sampler(spec), lhs=make_side(lhs, spec, "lhs", where), rhs=make_side(rhs, spec, "rhs", where),
        scale=scale, derivation=deriv, contexts=tuple(contexts), cond=cond, note=note)


def _assumptions(spec: Spec, extra) -> tuple[str, ...]:
    out = []
    for n in sorted(spec.mats):
        r, c = spec.mats[n]
        kind = spec.structure.get(n)
        out.append(f"{n} is {r} x {c}" + (f", {kind}" if kind else ""))
    for n, pos in spec.scalars:
        out.append(f"{n} is a {'positive ' if pos else ''}scalar")
    if spec.ranges:
        out.append("sizes " + ", ".join(f"{k} in {lo}..{hi}" for k, (lo, hi) in sorted(spec.ranges.items())))
    if isinstance(extra, str):
        extra = (extra,)
    return tuple(out) + tuple(extra or ())


def _source(id: str, source, paper, section, equation, printed, latex) -> Source:
    if source is not None:
        if not isinstance(source, Source):
            raise ClaimDefinitionError(f"claim {id}: source={source!r} must be a tc.Source")
        return source
    pfx, label = (id.split(".", 1) + [""])[:2] if isinstance(id, str) else ("", "")
    return Source(paper or pfx, section or "-", equation or label, printed or latex)


def _controls(controls, st: Statement, where: str) -> tuple[Statement, ...]:
    if controls is None:
        return derived_controls(st)
    out = []
    for c in controls:
        if isinstance(c, Statement):
            out.append(c)
        elif callable(c):
            out.append(c(st))
        else:
            raise ClaimDefinitionError(f"{where}: controls entry {c!r} must be a Statement or a function "
                                       "statement -> Statement (tc.negate)")
    return tuple(out)


def _finish(claim: Claim, register: bool) -> Claim:
    if register:
        from theorem_check.authoring.registry import register as _register

        return _register(claim)
    claim.validate()
    return claim


def identity(id: str, lhs: Side, rhs: Side, *, shapes: Mapping[str, tuple] | None = None,
             structure: Mapping[str, str] | None = None, sizes: Mapping[str, tuple[int, int]] | None = None,
             title: str | None = None, source: Source | None = None, paper: str | None = None,
             section: str | None = None, equation: str | None = None, printed: str | None = None,
             assumptions: Sequence[str] | str = (), controls=None, aliases: Sequence[str] = (),
             expected: str | None = None, note: str = "", latex: str | None = None, cond: float = 100.0,
             contexts: Sequence[str] = ("float32", "float64", "mp50"), scale: Callable | None = None,
             derive: bool = True, slow: bool = False, register: bool = True) -> Claim:
    """Define (and register) a claim ``lhs = rhs`` in one call.

    Parameters
    ----------
    id : str
        ``"paper.label"``.
    lhs, rhs : callable, SymPy expression or str
        Callables ``(inst, ctx) -> array`` as in :class:`~theorem_check.model.claims.Statement`; SymPy
        expressions over ``MatrixSymbol``/``Symbol``; or strings in SymPy syntax (``"(A*B).T"``,
        ``"grad(trace(X*B), X)"``), parsed per dimension configuration.
    shapes : mapping name -> (rows, cols)
        Sizes are ints or letters (``("m", "k")``); ``()`` declares a scalar.  Matrix symbols of
        SymPy sides need no entry (their own shapes are used).
    structure : mapping name -> kind
        ``symmetric``, ``spd``, ``orthogonal``, ``invertible``, ``diagonal``, ``antisymmetric``
        (square matrices), ``positive`` (scalars).
    sizes : mapping letter -> (lo, hi)
        Inclusive ranges of the size letters (default ``(1, 4)``).
    title, source / paper, section, equation, printed, assumptions, aliases, expected, note
        As for :class:`~theorem_check.model.claims.Claim`; the source defaults to the id's paper and
        label with the statement's LaTeX as printed; shapes and structures are added to the
        assumptions.
    controls : sequence of Statement or of functions ``statement -> Statement``, optional
        Default: :func:`derived_controls`.
    derive : bool
        Attach a one-step SymPy derivation when SymPy closes the identity for all sizes.
    register : bool
        Register in the global registry (default); False only validates and returns the claim.

    Raises
    ------
    ClaimDefinitionError
        Malformed shapes/structure/sizes, an unsupported SymPy node, an invalid claim.
    ParseError
        A string side that does not parse (the message names the token).
    """
    where = f"claim {id}"
    spec = build_spec((lhs, rhs), shapes, structure, sizes, where)
    st = _statement(lhs, rhs, spec, name="as printed", kind="printed", latex=latex, cond=cond, contexts=contexts,
                    scale=scale, note=note, derive=derive, where=where)
    src = _source(id, source, paper, section, equation, printed, st.latex)
    claim = Claim(id=id, title=title or f"{_text(lhs)} = {_text(rhs)}", source=src, statement=st,
                  controls=_controls(controls, st, where), aliases=tuple(aliases),
                  assumptions=_assumptions(spec, assumptions), slow=slow, expected=expected)
    return _finish(claim, register)


_KINDS = {"grad": ex.Grad, "jacobian": ex.Jacobian, "hessian": ex.Hessian}


def _oracle_side(f: Side, wrt: str, kind: str, spec_shapes) -> Side:
    """The left side of a derivative claim: the engine's oracle applied to ``f``."""
    if kind not in _KINDS:
        raise ClaimDefinitionError(f"kind={kind!r} must be one of {', '.join(_KINDS)}")
    if isinstance(f, str):
        import re

        if not isinstance(wrt, str) or not re.fullmatch(r"[A-Za-z_]\w*", wrt):
            raise ClaimDefinitionError(f"wrt={wrt!r} must be the name of a variable of f")
        if wrt not in spec_shapes and not re.search(rf"(?<![\w.]){re.escape(wrt)}(?!\w)", f):
            raise ClaimDefinitionError(f"wrt={wrt!r} is not a variable of f={f!r} (declared shapes: "
                                       f"{', '.join(sorted(spec_shapes)) or 'none'})")
        return f"{kind}({f}, {wrt})"
    if isinstance(f, sp.Basic):
        X = next((m for m in f.atoms(sp.MatrixSymbol) if m.name == wrt), None)
        if X is None and wrt in spec_shapes:
            X = sp.MatrixSymbol(wrt, *(ex.size_symbol(v) if isinstance(v, str) else v for v in spec_shapes[wrt]))
        if X is None:
            X = next((s for s in f.free_symbols if getattr(s, "name", None) == wrt), None)
        if X is None:
            raise ClaimDefinitionError(f"wrt={wrt!r} is not a variable of f={f}")
        return _KINDS[kind](f, X)
    if callable(f):
        def lhs(inst, ctx):
            x0 = inst[wrt]
            sym = kind == "grad" and structure_of(lhs).get(wrt) in ("symmetric", "spd")

            def fn(xv):
                env = ex.Env(ctx, inst).bind(wrt, xv)
                return f(Instance(env.values), ctx)
            op = "sym_grad" if sym else kind
            return getattr(ctx, op)(fn, x0)

        def derivative(inst):
            sym = kind == "grad" and structure_of(lhs).get(wrt) in ("symmetric", "spd")
            return ("sym_grad" if sym else kind), wrt

        def along(inst, ctx, projection):
            def fn(xv):
                return f(Instance(ex.Env(ctx, inst).bind(wrt, xv).values), ctx)
            return projection.oracle(ctx, fn, inst[wrt])
        lhs._structure, lhs.derivative, lhs.along = {}, derivative, along
        return lhs
    raise ClaimDefinitionError(f"f={f!r} must be a callable (inst, ctx) -> (batch,), a SymPy expression or a string")


def structure_of(fn) -> dict:
    """The structure mapping attached to an oracle side (internal)."""
    return getattr(fn, "_structure", {})


def gradient(id: str, f: Side, wrt: str = "X", claimed: Side = None, *, kind: str = "grad",
             structure: Mapping[str, str] | None = None, **kwargs) -> Claim:
    """A claimed gradient, Jacobian or Hessian of ``f``: ``oracle(f, wrt) = claimed``.

    ``kind="grad"``: ``G_ij = df/dX_ij`` (same shape as ``X``; Matrix Cookbook layout), by
    ``ctx.grad``, or by ``ctx.sym_grad`` = ``(G + G^T)/2`` when ``structure[wrt]`` is ``symmetric``
    or ``spd`` (the gradient on the symmetric matrices, arXiv:1911.06491).  ``kind="jacobian"``:
    ``J_ij = dF_i/dx_j``, shape ``(numel F, numel x)``, row-major flattening.  ``kind="hessian"``:
    ``(numel x, numel x)``.  ``f`` and ``claimed`` are callables, SymPy expressions or strings; other
    keywords as for :func:`identity`.
    """
    if claimed is None:
        raise ClaimDefinitionError(f"claim {id}: gradient() needs claimed=...")
    lhs = _oracle_side(f, wrt, kind, dict(kwargs.get("shapes") or {}))
    if callable(lhs) and not isinstance(lhs, (str, sp.Basic)):
        lhs._structure = dict(structure or {})
    return identity(id, lhs, claimed, structure=structure, **kwargs)


def erratum(id: str, *, printed: Side, corrected: Side, lhs: Side, shapes: Mapping[str, tuple] | None = None,
            structure: Mapping[str, str] | None = None, sizes: Mapping[str, tuple[int, int]] | None = None,
            title: str | None = None, source: Source | None = None, paper: str | None = None,
            section: str | None = None, equation: str | None = None, printed_latex: str | None = None,
            assumptions: Sequence[str] | str = (), controls=None, aliases: Sequence[str] = (),
            note: str = "", corrected_note: str = "", cond: float = 100.0,
            contexts: Sequence[str] = ("float32", "float64", "mp50"), scale: Callable | None = None,
            derive: bool = True, slow: bool = False, register: bool = True, expected: str | None = None) -> Claim:
    """A printed statement ``lhs = printed`` that is wrong, with its correction ``lhs = corrected``.

    Both share the dims, the sampler and the left side; the corrected form is a variant of kind
    ``"corrected"`` (so the claim comes back ERRATUM when the printed one is REFUTED/ILL-POSED and the
    correction holds), and the negative controls perturb the corrected form.  Keywords as for
    :func:`identity` (``printed_latex`` is the source's statement as printed, default the LaTeX of
    ``lhs = printed``; ``expected="erratum"`` is the verdict a pytest run expects, as ``tc.Claim``'s).
    """
    where = f"claim {id}"
    spec = build_spec((lhs, printed, corrected), shapes, structure, sizes, where)
    common = dict(cond=cond, contexts=contexts, scale=scale, derive=derive, where=where)
    # the printed form is the wrong one: a derivation is attached only when SymPy closes it, never
    # here, so no attempt is made (it would cost a failed simplify)
    st = _statement(lhs, printed, spec, name="as printed", kind="printed", latex=None, note=note,
                    **{**common, "derive": False})
    fix = _statement(lhs, corrected, spec, name="corrected", kind="corrected", latex=None, note=corrected_note,
                     **common)
    src = _source(id, source, paper, section, equation, printed_latex, st.latex)
    claim = Claim(id=id, title=title or f"{_text(lhs)} = {_text(corrected)}, not {_text(printed)}", source=src,
                  statement=st, variants=(fix,), controls=_controls(controls, fix, where), aliases=tuple(aliases),
                  assumptions=_assumptions(spec, assumptions), slow=slow, expected=expected)
    return _finish(claim, register)
