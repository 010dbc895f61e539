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
to the working precision), ``invertible`` (condition number below 10), ``diagonal``, ``antisymmetric``,
``hermitian`` (``(G + G^H)/2``, ``G`` complex Gaussian); ``complex`` for matrices of any shape and scalars
(i.i.d. ``CN(0, 1)`` entries ``(x + iy)/sqrt 2``; ``grad`` by such a name is the conjugate Wirtinger
derivative, design decision 93); for scalars ``positive`` (log-uniform on [10^-1/2, 10^1/2]).  Every kind is generic at every size,
1 and 2 included (random distinct spectra, no fixed determinant or trace).  A SymPy ``Symbol(..., positive=True)`` is positive.

Symmetric-domain gradients: for a ``wrt`` declared ``symmetric`` or ``spd``, the gradient is the
one on the space of symmetric matrices, ``sym(G) = (G + G^T)/2`` with ``G`` the free gradient
(Srinivasan & Panda, "What is the gradient of a scalar function of a symmetric matrix?",
arXiv:1911.06491); the formula ``G + G^T - diag(G)`` found in older texts is not a gradient for the
Frobenius inner product, and is the classic wrong variant.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Mapping, Sequence

import numpy as np
import sympy as sp

from theorem_check import expr as ex
from theorem_check.authoring.derivation_search import derivation, symbolic_side
from theorem_check.authoring.spec import (
    DEFAULT_SIZE,
    SCALAR_STRUCTURES,
    STRUCTURES,
    Side,
    Spec,
    beyond_default,
    build_spec,
    constant_scales,
    make_side,
    sampler,
    scaled_sampler,
    size_witness,
)
from theorem_check.errors import ClaimDefinitionError
from theorem_check.model.claims import Claim, Instance, Source, Statement, double, negate, perturb
from theorem_check.model.dims import DimSpace

__all__ = ["identity", "gradient", "erratum", "derived_controls", "structure_of", "STRUCTURES", "SCALAR_STRUCTURES",
           "DEFAULT_SIZE"]


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


def _generic_instance(st: Statement) -> Instance:
    """One instance (batch 1, seed 12345) of a generic configuration of ``st``'s sizes: the probes' point."""
    return Instance(st.sample(np.random.default_rng(PROBE_SEED), _generic_dims(st.dims), 1))


def _probe_rhs(st: Statement):
    """The right side at float64 on one instance of a generic configuration (None if it raises)."""
    from theorem_check.numerics.precision import FLOAT64

    try:
        inst = _generic_instance(st)
        with FLOAT64.active():
            v = np.asarray(st.rhs(inst, FLOAT64))
            return v if np.iscomplexobj(v) else v.astype(float)   # a complex side stays complex (no cast)
    except Exception:  # noqa: BLE001 - a statement that does not evaluate gets the sign/factor controls
        return None


def derived_controls(st: Statement) -> tuple[Statement, ...]:
    """Negative controls of an identity, by the same code path: sign and factor 2 of the right side,
    its transpose where it is square and not symmetric, ``+ 1`` where it is zero; for a complex right
    side also its conjugate where it is not real and its conjugate transpose where it is square and not
    Hermitian (the controls keep the side's complex values: no cast to real)."""
    v = _probe_rhs(st)
    if v is not None and v.size and np.all(v == 0):
        return (perturb(st, "plus one", rhs=lambda x, inst, ctx: x + 1),)
    out = [negate(st), double(st)]
    if v is not None and v.ndim == 3 and v.shape[-1] == v.shape[-2] > 1:
        scale = np.max(np.abs(v)) or 1.0
        if np.max(np.abs(v - np.swapaxes(v, -1, -2))) > 1e-6 * scale:
            # a 1x1 right side (at size 1) is a scalar: its transpose is itself
            out.append(perturb(st, "transpose", rhs=lambda x, inst, ctx: ctx.T(x) if np.ndim(x) >= 3 else x))
    if v is not None and np.iscomplexobj(v) and v.size:
        scale = np.max(np.abs(v)) or 1.0
        if np.max(np.abs(v.imag)) > 1e-6 * scale:
            out.append(perturb(st, "conjugate", rhs=lambda x, inst, ctx: ctx.conj(x)))
        if v.ndim == 3 and v.shape[-1] == v.shape[-2] > 1 and \
                np.max(np.abs(v - np.conj(np.swapaxes(v, -1, -2)))) > 1e-6 * scale:
            out.append(perturb(st, "conjugate transpose",
                               rhs=lambda x, inst, ctx: ctx.H(x) if np.ndim(x) >= 3 else ctx.conj(x)))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# public short forms
# ---------------------------------------------------------------------------------------------
def _latex(s: Side, spec: Spec) -> str:
    e = symbolic_side(s, spec)
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


def _far_dims(sides, spec, space) -> tuple:
    """The statement's configurations beyond the default sizes: where its sizes alone make it false
    (:func:`~theorem_check.authoring.spec.size_witness`), that one for every seed; else the rotations of
    :func:`~theorem_check.authoring.spec.beyond_default`."""
    witness = size_witness(sides, spec, space)
    return (witness,) if witness is not None else beyond_default(spec, space)


def _statement(lhs, rhs, spec, *, name, kind, latex, cond, contexts, scale, note, derive, where) -> Statement:
    space = _space(dict(spec.ranges))
    used = _names_used((lhs, rhs), spec)
    st = Statement(
        latex or f"{_latex(lhs, spec)} = {_latex(rhs, spec)}", name=name, kind=kind, dims=space,
        sample=sampler(spec), sample_at_scale=scaled_sampler(spec), far_scales=constant_scales((lhs, rhs), spec),
        far_dims=_far_dims((lhs, rhs), spec, space),
        lhs=make_side(lhs, spec, "lhs", where),
        rhs=make_side(rhs, spec, "rhs", where),
        scale=scale, derivation=None, contexts=tuple(contexts), cond=cond, note=note)
    if not derive or _false_at_a_generic_instance(st):
        return st
    return dataclasses.replace(st, derivation=_searched(lhs, rhs, spec, used))


def _searched(lhs, rhs, spec, used):
    """The statement's derivation callable: the derivation search (:func:`derivation`, cached on disk) runs when the
    statement runs, under the run's clock and ``--timeout``, not when the claim is built (a ``128 x 128`` search
    once took 15 s that no timing showed); it returns None when no derivation is found."""
    def searched():
        found = derivation(lhs, rhs, spec, used)
        return None if found is None else found()
    return searched


PROBE_GAP = 1e-6
""":func:`_false_at_a_generic_instance`: a gap of the sides at mp50 above this times ``max(1, |lhs|, |rhs|)``."""
PROBE_MAX_ENTRIES = 256
""":func:`_false_at_a_generic_instance` probes instances whose arrays have at most this many entries."""
PROBE_SEED = 12345
""":func:`_false_at_a_generic_instance`: the seed of its instance and of its random directions."""


def _false_at_a_generic_instance(st: Statement) -> bool:
    """True when ``lhs = rhs`` is false at one instance of a generic configuration, seen at mp50: the sides
    differ there by more than :data:`PROBE_GAP` times ``max(1, max|lhs|, max|rhs|)``.  Then no derivation can
    close (a proof for all sizes would be of a false statement), so none is searched for: the closed-form
    derivatives, the normal form and SymPy's simplification (up to :data:`DERIVATION_SECONDS`) are skipped.
    Nothing else changes: a statement without a derivation is decided by the numeric stage, as one whose
    derivation search failed.  A true statement's gap at mp50 is rounding, about ``1e-50`` times the size of
    its computation, so it would need a computation of size ``1e44`` to be skipped (and then lose only a
    proof, never its verdict's soundness).  False (the search runs as before) when the probe cannot evaluate
    a side, the sides do not conform, or a value is not finite.  A derivative side the numeric stage checks
    along random directions (more than 16 entries, :mod:`theorem_check.engine.projection`) is compared along
    such directions here too: a gradient by a 256-vector at mp50 took 256 forward passes (2 s) in full, 8 along
    directions, and a false identity differs along a random direction with probability 1.  Design decision 117."""
    from theorem_check.engine.projection import plan, projected_sides
    from theorem_check.engine.vacuity import convert
    from theorem_check.numerics.precision import MP50

    try:
        inst = _generic_instance(st)
        if any(np.size(v) > PROBE_MAX_ENTRIES for v in inst.values() if isinstance(v, np.ndarray)):
            return False   # object arrays of mpf: kept to small instances (no search is skipped above)
        proj = plan(st, inst, PROBE_SEED)
        cinst = Instance({k: convert(v, MP50) for k, v in inst.items()})
        with MP50.active():
            if proj is not None:
                (a, b), _ = projected_sides(st, cinst, MP50, proj, lambda fn, which: np.asarray(fn(cinst, MP50)))
                a, b = np.asarray(a), np.asarray(b)
            else:
                a, b = np.asarray(st.lhs(cinst, MP50)), np.asarray(st.rhs(cinst, MP50))
            if a.shape != b.shape or not a.size:
                return False
            vals = [complex(v) for v in a.reshape(-1)] + [complex(v) for v in b.reshape(-1)]
            gap = max(abs(complex(u - v)) for u, v in zip(a.reshape(-1), b.reshape(-1)))
    except Exception:  # noqa: BLE001 - the probe is an optimisation: on any failure the search runs
        return False
    if not all(np.isfinite(v) for v in vals):
        return False
    return gap > PROBE_GAP * max(1.0, max(abs(v) for v in vals))


def _assumptions(spec: Spec, extra) -> tuple[str, ...]:
    out = []
    for n in sorted(spec.mats):
        r, c = spec.mats[n]
        kind = spec.structure.get(n)
        out.append(f"{n} is {r} x {c}" + (f", {kind}" if kind else ""))
    for n, pos in spec.scalars:
        kind = "positive " if pos else ("complex " if spec.structure.get(n) == "complex" else "")
        out.append(f"{n} is a {kind}scalar")
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
        Attach a one-step derivation when the identity is proved for all sizes (normal form, see
        :func:`theorem_check.expr.matrix_proof.prove_identity`, or SymPy's simplification).
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
            wkind = structure_of(lhs).get(wrt)
            sym = kind == "grad" and wkind in ("symmetric", "spd")

            def fn(xv):
                env = ex.Env(ctx, inst).bind(wrt, xv)
                return f(Instance(env.values), ctx)
            if wkind == "complex":      # kind "grad" (gradient() refuses the others): df/dconj(Z)
                return ctx.wirtinger_grad(fn, x0)
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
    ``(numel x, numel x)``.  When ``structure[wrt]`` is ``complex``, ``kind="grad"`` is the conjugate
    Wirtinger derivative ``df/d conj(X)`` (``ctx.wirtinger_grad``; design decision 93) and the other kinds
    are a ClaimDefinitionError.  ``f`` and ``claimed`` are callables, SymPy expressions or strings; other
    keywords as for :func:`identity`.
    """
    if claimed is None:
        raise ClaimDefinitionError(f"claim {id}: gradient() needs claimed=...")
    wkind = dict(structure or {}).get(wrt)
    if wkind in ex.COMPLEX_KINDS and (kind != "grad" or wkind != "complex"):
        raise ClaimDefinitionError(f"claim {id}: kind={kind!r} with respect to {wrt!r} of structure {wkind!r} is not "
                                   "supported (the Wirtinger grad of a variable declared complex is)")
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
