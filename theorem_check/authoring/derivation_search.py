"""The derivation search of a short form (:mod:`theorem_check.authoring.shortforms`): a one-step proof of
``lhs = rhs`` for all sizes, or none.

Gradients, Jacobians and Hessians are replaced by their closed forms (:mod:`theorem_check.expr.matrix_calculus`),
then the normal form (:func:`theorem_check.expr.matrix_proof.prove_identity`) or SymPy's own simplification
decides; a proof is never required (without one the numeric stage decides).  Results are cached on disk
(:func:`derivation`).  Design decisions 92, 117, 145.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import itertools
import math
import pickle
import time
from typing import Any

import sympy as sp

from theorem_check import expr as ex
from theorem_check.authoring.spec import MAX_OPS, Side, Spec, complex_names
from theorem_check.engine import symcache
from theorem_check.engine.symbolic import Derivation, Step, has_fractional_matpow, simplifies_to_zero
from theorem_check.engine.time_limit import StepTimeout, run_limited
from theorem_check.errors import InternalError, ShapeMismatch
from theorem_check.expr.matrix_proof import one_entry, over_symbolic_sizes, prove_identity
from theorem_check.model.derivation import STATEMENT_SIZES

__all__ = ["DERIVATION_SECONDS", "DERIVATION_TOTAL_SECONDS", "Found", "derivation", "letters_for_large_sizes",
           "replace_grads", "search", "bounded_sizes", "pinned_sizes",
           "symbolic_side", "symmetric_sides"]


def symbolic_side(s: Side, spec: Spec):
    """The SymPy form of a side at symbolic sizes, or None (callable, or does not conform)."""
    if isinstance(s, sp.Basic):
        return s
    if isinstance(s, str):
        try:
            return ex.parse(s, dict(spec.mats), what="side", complex_names=complex_names(spec),
                            sizes=tuple(spec.ranges))
        except ShapeMismatch:
            return None
    return None


@functools.lru_cache(maxsize=512)
def replace_grads(e, symmetric: frozenset = frozenset()):
    """``grad``/``jacobian``/``hessian`` nodes replaced by their closed forms
    (:mod:`theorem_check.expr.matrix_calculus`); None when some node has none (the numeric stage decides).

    Each closed form has been checked exactly at one concrete size before it is returned; a closed form
    that disagrees there (an :class:`~theorem_check.errors.InternalError`: a bug of the rules, which
    ``derive`` reports with exit 3) attaches no derivation here, so a user's statement is still decided
    by the numeric stage, never by the faulty rule and never refused.
    ``symmetric``: names declared symmetric or spd; a gradient with respect to one of them is the
    symmetric-domain gradient ``(G + G^T)/2`` (the oracle's ``sym_grad``).
    """
    from theorem_check.expr import matrix_calculus as mc

    rules = {ex.Grad: mc.gradient, ex.Jacobian: mc.jacobian, ex.Hessian: mc.hessian}
    rep = {}
    for g in e.atoms(ex.Grad, ex.Jacobian, ex.Hessian):
        f, X = g.args
        if isinstance(g, ex.Jacobian) and isinstance(X, sp.Symbol):
            # df/dt of a scalar by a scalar (the 1x1 jacobian that grad(f, t) is): SymPy's scalar diff, taken
            # only when it is the whole side (a scalar in place of the 1x1 node inside a matrix sum would not conform)
            if g != e or ex.is_matrix(f):
                return None
            try:
                d = sp.diff(f, X)
            except Exception:  # noqa: BLE001 - SymPy has no rule (NotImplementedError for tr(A expm(t B))): no proof
                return None
            return None if d.has(sp.Derivative, sp.Subs) else d
        try:
            d = mc.gradient(f, X, symmetric=X.name in symmetric) if isinstance(g, ex.Grad) else rules[type(g)](f, X)
        except mc.NotDifferentiable:
            return None
        except InternalError:
            # a closed form that fails its own entrywise check is a bug of ours (`derive` reports it, exit 3);
            # here it only means no proof: the statement is still decided by the numeric stage
            return None
        except Exception:  # noqa: BLE001 - SymPy cannot (a shape it learns only at a concrete size): no proof
            return None
        if not ex.is_matrix(d) or tuple(d.shape) != tuple(g.shape):
            return None
        rep[g] = d
    return e.xreplace(rep) if rep else e


def symmetric_sides(e, names: frozenset):
    """``e`` with ``S^T`` written ``S`` for the matrices named in ``names`` (transposes pushed to the leaves first);
    None where SymPy's ``doit`` fails (its Kronecker canonicalisation raises AttributeError on a scalar factor
    such as ``(2 A B)^-1`` of ``1 x 1`` matrices): no proof, the numeric stage decides."""
    if not isinstance(e, sp.Basic):
        return e
    sub = {sp.Transpose(m): m for m in e.atoms(sp.MatrixSymbol) if m.name in names}
    if not sub:
        return e
    try:
        return e.xreplace(sub).doit().xreplace(sub)
    except Exception:  # noqa: BLE001 - a SymPy internal error: no proof from this route
        return None


DERIVATION_SECONDS = 5.0
"""Seconds SymPy's own simplification may spend deciding whether a short form's derivation closes (at
definition time): over it, no derivation is attached and the numeric stage decides (a proof is never
required)."""

DERIVATION_TOTAL_SECONDS = 15.0
"""Seconds the whole decision may take (closed-form derivatives, normal forms and the simplification
above): before issue 21 the closed-form derivatives had no limit.  The attention gradient of the gallery
needs 3-6 s of closed form (then SymPy closes it at once), so the total is not the simplification's 5 s."""


def derivation(lhs: Side, rhs: Side, spec: Spec, names_used: set):
    """A one-step derivation (a function returning the :class:`~theorem_check.engine.symbolic.Derivation`) when
    ``lhs = rhs`` is proved for all sizes, else None: :func:`search` under one time limit of
    :data:`DERIVATION_TOTAL_SECONDS` (None when over it).

    The result is cached on disk (:mod:`theorem_check.engine.symcache`: off with ``THEOREM_CHECK_CACHE=0``) under
    the sides' ``srepr``, the structures of the names used and the code's fingerprint: the search is a pure
    function of those, except a time limit reached, which is never stored.  ``check`` of one statement at
    several sizes (n = 8, 64, 256) searches once; the layer-norm gradient's search is about 3 s.
    """
    key = _key(lhs, rhs, spec, names_used)
    hit = _load(key)
    if hit is not None:
        return None if hit is _NONE else _wrap(hit)
    deadline = time.monotonic() + DERIVATION_TOTAL_SECONDS
    try:
        found = run_limited(lambda: search(lhs, rhs, spec, names_used, deadline), DERIVATION_TOTAL_SECONDS)
    except StepTimeout:
        return None
    _store(key, found)
    return None if found is None else _wrap(found)


def _wrap(found: "Found"):
    sizes = STATEMENT_SIZES if found.why.startswith(EXPLICIT_WHY) else ""   # no size letter: its only sizes
    steps = [Step(found.lhs, found.rhs, found.why)] + [Step(l, r, why) for l, r, why in found.more]
    return lambda: Derivation(steps, general=True, sizes=sizes, structure=found.structure)


@dataclasses.dataclass(frozen=True)
class Found:
    """A closed derivation's step: its sides (after the closed-form derivatives and the symmetric rewriting), its
    ``why``, and the structures the normal form used (empty for SymPy's own algebra, which knows none)."""

    lhs: Any
    rhs: Any
    why: str
    structure: dict
    more: tuple = ()
    """Further steps ``(lhs, rhs, why)``: the statement at each other size configuration of bounded ranges
    (:func:`_bounded_entries`), each decided again by the engine."""


_NONE = object()

EXPLICIT_WHY = "explicit entries of every matrix (its declared structure written out), an identity of polynomials"
"""The ``why`` of a step closed by :func:`theorem_check.expr.explicit.decide`."""


def _key(lhs: Side, rhs: Side, spec: Spec, names_used: set) -> str | None:
    if not symcache.enabled():
        return None
    l, r = symbolic_side(lhs, spec), symbolic_side(rhs, spec)
    if l is None or r is None:
        return None
    try:
        sides = [sp.srepr(l), sp.srepr(r)]
    except Exception:  # noqa: BLE001 - a side SymPy cannot print is not cached
        return None
    kinds = sorted((n, str(k)) for n, k in spec.structure.items() if n in names_used)
    return symcache.derivation_key(["short form", sides, kinds, sorted(names_used), DERIVATION_SECONDS, MAX_OPS,
                                    [sorted(c.items()) for c in bounded_sizes(spec)]])   # a bounded decision holds
    #                                                                                   at its sizes only


def _load(key: str | None):
    entry = symcache.load_entry(key)
    if entry is None:
        return None
    if entry.get("none"):
        return _NONE
    try:
        l, r = (pickle.loads(base64.b64decode(entry[k])) for k in ("lhs", "rhs"))
        more = tuple(pickle.loads(base64.b64decode(entry["more"]))) if "more" in entry else ()
        return Found(l, r, str(entry["why"]), dict(entry["structure"]), more)
    except Exception:  # noqa: BLE001 - an unreadable entry is computed again
        return None


def _store(key: str | None, found: "Found | None") -> None:
    if key is None:
        return
    if found is None:
        symcache.store_entry(key, {"none": True})
        return
    try:
        sides = {k: base64.b64encode(pickle.dumps(v)).decode() for k, v in (("lhs", found.lhs), ("rhs", found.rhs))}
        if found.more:
            sides["more"] = base64.b64encode(pickle.dumps(list(found.more))).decode()
    except Exception:  # noqa: BLE001 - a side that does not pickle is not cached
        return
    symcache.store_entry(key, {**sides, "why": found.why, "structure": found.structure})


def letters_for_large_sizes(l, r):
    """``l``, ``r`` with every fixed size above :data:`~theorem_check.expr.explicit.MAX_SIZE` (``--shape
    X=128,128``) replaced by a size letter, one per distinct value (``128 -> n128``), in matrix symbols and in
    ``eye``/``zeros``/``ones``: an identity proved at every size is proved at 128, and the search works at symbolic
    sizes (its closed-form derivatives are checked at a small concrete size, not at 128 x 128: 15 s before).
    Sides that use a large size as a number elsewhere (``trace(eye(128)) = 128``) are kept as they are (no proof
    from the letters would be one of the statement)."""
    from theorem_check.expr.explicit import MAX_SIZE

    big = sorted({int(d) for x in (l, r) if isinstance(x, sp.Basic)
                  for m in x.atoms(sp.MatrixSymbol, sp.Identity, sp.ZeroMatrix, sp.OneMatrix)
                  for d in m.shape if sp.sympify(d).is_Integer and int(d) > MAX_SIZE})
    if not big:
        return l, r
    if any(sp.Integer(v) in x.atoms(sp.Integer) - {d for m in x.atoms(sp.MatrixExpr) for d in m.shape}
           for v in big for x in (l, r) if isinstance(x, sp.Basic)):
        return l, r
    letter = {sp.Integer(v): sp.Symbol(f"n{v}", integer=True, positive=True) for v in big}

    def size(d):
        return letter.get(sp.sympify(d), d)

    def rename(x):
        if not isinstance(x, sp.Basic):
            return x
        rep = {}
        for m in x.atoms(sp.MatrixSymbol):
            rep[m] = sp.MatrixSymbol(m.name, size(m.shape[0]), size(m.shape[1]))
        for m in x.atoms(sp.Identity):
            rep[m] = sp.Identity(size(m.shape[0]))
        for m in x.atoms(sp.ZeroMatrix, sp.OneMatrix):
            rep[m] = type(m)(size(m.shape[0]), size(m.shape[1]))
        return x.xreplace(rep)
    return rename(l), rename(r)


def _explicit_entries(l, r, structure: dict, notes: str, deadline: float, pinned: bool = False) -> Found | None:
    """The step decided by exact polynomial arithmetic on explicit entries of the declared structures
    (:func:`theorem_check.expr.explicit.decide`): a statement without size letters is about these sizes only, so
    an identity of the entries' rational functions proves it.  None when it is not one, when the statement is
    outside that fragment, or over :data:`DERIVATION_SECONDS` (raises StepTimeout, as SymPy's simplification)."""
    from theorem_check.expr.explicit import decide

    # a statement at pinned sizes needs a matrix (det(ones(3, 3)) = 0 has no matrix name: helper-53); one without
    # size letters a matrix name (a scalar identity in a size letter, tr(n ones(1, 1)) = n, is SymPy's: all sizes)
    if not ((ex.has_matrix(l) or ex.has_matrix(r)) if pinned else (l.atoms(sp.MatrixSymbol) or r.atoms(sp.MatrixSymbol))):
        return None
    ok = run_limited(lambda: decide(l, r, structure), max(min(DERIVATION_SECONDS, deadline - time.monotonic()), 0.01))
    if not ok:
        return None
    return Found(l, r, EXPLICIT_WHY + notes, structure)


def search(lhs: Side, rhs: Side, spec: Spec, names_used: set, deadline: float) -> Found | None:
    """:func:`search_all_sizes`, else, for a statement whose every size letter is pinned to one value of at most
    :data:`PINNED_MAX` (``--size n=2:2``), the exact decision on explicit entries at those sizes
    (:func:`_pinned_entries`): ``--shape A=2,2`` was PROVED where ``--shape A=n,n --size n=2:2`` was INCONCLUSIVE
    (helper-38)."""
    found = search_all_sizes(lhs, rhs, spec, names_used, deadline)
    combos = bounded_sizes(spec)
    if found is None and combos:
        return _bounded_entries(lhs, rhs, spec, names_used, combos, deadline)
    return found


PINNED_MAX = 5
"""The largest pinned size decided on explicit entries (:func:`theorem_check.expr.explicit.decide` takes matrices of
at most :data:`~theorem_check.expr.explicit.MAX_SIZE` rows and columns)."""


BOUNDED_MAX = 8
"""At most this many size configurations of declared ranges are decided one by one on explicit entries
(:func:`bounded_sizes`)."""


def bounded_sizes(spec: Spec) -> list[dict]:
    """Every size configuration of ``spec`` (``{letter: value}``, sorted) when each size letter's range was declared
    (none defaulted: the statement is about those sizes only), each at most :data:`PINNED_MAX`, with at most
    :data:`BOUNDED_MAX` configurations; else ``[]``.  ``--size n=2:4`` gives ``[{n: 2}, {n: 3}, {n: 4}]``; a pinned
    statement (:func:`pinned_sizes`) its one configuration.  Design decision 189."""
    ranges = dict(spec.ranges)
    if not ranges or getattr(spec, "defaulted", ()) or any(hi > PINNED_MAX or lo > hi for lo, hi in ranges.values()):
        return []
    if math.prod(hi - lo + 1 for lo, hi in ranges.values()) > BOUNDED_MAX:
        return []
    names = sorted(ranges)
    return [dict(zip(names, vals)) for vals in itertools.product(*(range(ranges[k][0], ranges[k][1] + 1)
                                                                   for k in names))]


def pinned_sizes(spec: Spec) -> dict:
    """``{letter: value}`` when every size letter of ``spec`` has a one-value range of at most :data:`PINNED_MAX`
    (:func:`bounded_sizes` has one configuration), else ``{}``."""
    combos = bounded_sizes(spec)
    return combos[0] if len(combos) == 1 else {}


def _bounded_entries(lhs: Side, rhs: Side, spec: Spec, names_used: set, combos: list[dict],
                     deadline: float) -> Found | None:
    """The statement at each configuration of ``combos`` (:func:`bounded_sizes`), decided on explicit entries, one
    step per configuration; None when one of them is not decided there (:func:`_pinned_entries`)."""
    steps = []
    for pinned in combos:
        found = _pinned_entries(lhs, rhs, spec, names_used, pinned, deadline)
        if found is None:
            return None
        steps.append(found)
    first, rest = steps[0], steps[1:]
    return dataclasses.replace(first, more=tuple((f.lhs, f.rhs, f.why) for f in rest))


def _pinned_entries(lhs: Side, rhs: Side, spec: Spec, names_used: set, pinned: dict, deadline: float) -> Found | None:
    """The statement at its pinned sizes (the letters replaced by their values), decided on explicit entries; None
    when a side does not parse there, has a derivative, or is outside :func:`~theorem_check.expr.explicit.decide`."""
    if not all(isinstance(s, str) for s in (lhs, rhs)):
        return None
    try:
        l, r = (ex.parse(s, dict(spec.mats), pinned, what="side", complex_names=complex_names(spec),
                         sizes=tuple(spec.ranges)) for s in (lhs, rhs))
    except Exception:  # noqa: BLE001 - the statement's own parse reports what is wrong
        return None
    if any(e.atoms(ex.Grad, ex.Jacobian, ex.Hessian) for e in (l, r)):
        return None
    structure = {n: k for n, k in spec.structure.items() if n in names_used}
    shown = ", ".join(f"{k} = {v}" for k, v in pinned.items())
    return _explicit_entries(l, r, structure, f" at the pinned sizes {shown}", deadline, pinned=True)


def search_all_sizes(lhs: Side, rhs: Side, spec: Spec, names_used: set, deadline: float) -> Found | None:
    """The step of a one-step derivation when ``lhs = rhs`` is proved for all sizes; None otherwise (raises
    StepTimeout when SymPy's simplification reaches its time limit, :data:`DERIVATION_SECONDS`).

    Gradients, Jacobians and Hessians are first replaced by their closed forms
    (:mod:`theorem_check.expr.matrix_calculus`, each checked entrywise at one size); for a symmetric or
    spd ``S`` both sides are written with ``S^T = S`` (an identity of the rewritten sides at every matrix
    holds at every symmetric one, where the rewriting changes nothing) and a gradient by ``S`` is the
    symmetric-domain one.  Then two routes: equal normal forms
    (:func:`theorem_check.expr.matrix_proof.prove_identity`: products expanded, transposes and inverses to
    the leaves, traces rotated, Kronecker/vec rules, inverses cleared for rational identities; it uses the
    structures ``symmetric``/``spd``/``diagonal`` (``X^T = X``), ``antisymmetric`` and ``orthogonal``),
    named with its rules in the step's ``why``; else SymPy's own simplification, attached only when every
    name involved is generic (``invertible`` or none) or symmetric (rewritten as above): SymPy's matrix
    algebra knows no other structure, so a proof there would be of another statement.
    """
    kinds = {n: spec.structure.get(n) for n in names_used}
    sym = frozenset(n for n, k in kinds.items() if k in ("symmetric", "spd"))
    l, r = symbolic_side(lhs, spec), symbolic_side(rhs, spec)
    if l is None or r is None:
        return None
    l, r = letters_for_large_sizes(l, r)
    if has_fractional_matpow(l) or has_fractional_matpow(r):   # SymPy folds (A*A)**(1/2) to A: no proof there
        return None   # (tested on the sides as written: the rewriting below would fold them first)
    nodes = l.atoms(ex.Grad, ex.Jacobian, ex.Hessian) | r.atoms(ex.Grad, ex.Jacobian, ex.Hessian)
    diffed = bool(nodes)
    wrt = {getattr(g.args[1], "name", None) for g in nodes}
    if any(kinds.get(w) not in (None, "invertible", "symmetric", "spd") for w in wrt):
        return None   # closed-form derivatives know the free and the symmetric domain only (of the variable: the
        # structure of another matrix, a constant of the derivative, does not change it: x^T K x, K antisymmetric)
    l, r = replace_grads(l, sym), replace_grads(r, sym)
    if l is None or r is None:
        return None
    if ex.is_matrix(l) != ex.is_matrix(r):   # a 1 x 1 matrix against a scalar (x^T K x = 0): its one entry, tr
        l, r = one_entry(l), one_entry(r)
        if l is None or r is None:
            return None
    if sym:
        l, r = symmetric_sides(l, sym), symmetric_sides(r, sym)
        if l is None or r is None:
            return None
    if ex.is_matrix(l) and tuple(l.shape) != tuple(r.shape):
        return None
    if has_fractional_matpow(l) or has_fractional_matpow(r):
        return None
    structure = {n: k for n, k in spec.structure.items() if n in names_used}
    notes = (" (derivative in closed form, matrix_calculus)" if diffed else "") \
        + (f" with {', '.join(sorted(sym))} symmetric (S^T = S)" if sym else "")
    if over_symbolic_sizes(l) or over_symbolic_sizes(r):
        proof = prove_identity(l, r, structure)
        if proof is not None:
            return Found(l, r, proof.describe() + notes, structure)
    else:
        found = _explicit_entries(l, r, structure, notes, deadline)
        if found is not None:
            return found
    if any(k not in (None, "invertible", "symmetric", "spd") for k in kinds.values()):
        return None
    if sp.count_ops(l) + sp.count_ops(r) > MAX_OPS:
        return None
    try:   # the test check_step applies (what closes here closes there), bounded: SymPy's expansion can blow up
        closes = run_limited(lambda: simplifies_to_zero(l - r),
                             max(min(DERIVATION_SECONDS, deadline - time.monotonic()), 0.01))
    except StepTimeout:
        raise       # not decided in time: no derivation, and nothing cached (it depends on the machine's speed)
    except Exception:  # noqa: BLE001 - SymPy cannot decide: numeric evidence only
        return None
    if not closes:
        return _constant_gap(l, r, deadline)
    return Found(l, r, "SymPy matrix-expression algebra" + notes, {})


def _constant_gap(l, r, deadline: float) -> Found | None:
    """For scalar sides whose difference SymPy simplifies to a nonzero number (``sigmoid(x) + sigmoid(-x) = 1 +
    10**-55``: a gap below every numeric level's resolution, VERIFIED before; helper-36), the step ``l = r``
    anyway: the symbolic stage then checks it, does not close it (a nonzero difference at exact points, or an
    undecided one), and the runner calls the statement INCONCLUSIVE instead of VERIFIED.  None otherwise (or
    when SymPy cannot say in the time left)."""
    if ex.is_matrix(l) or ex.is_matrix(r):
        return None
    try:
        d = run_limited(lambda: sp.simplify(l - r), max(min(DERIVATION_SECONDS, deadline - time.monotonic()), 0.01))
    except Exception:  # noqa: BLE001 - a timeout or a SymPy error: no step, the numeric stage decides
        return None
    if not (isinstance(d, sp.Number) and d.is_finite and d != 0):
        return None
    return Found(l, r, f"SymPy simplifies lhs - rhs to the nonzero constant {d}: a gap the numbers may not "
                       "resolve", {})
