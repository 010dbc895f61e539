"""Proofs of matrix identities for all sizes: equal normal forms, or equal after clearing inverses.

:func:`prove_identity` decides ``lhs = rhs`` (SymPy matrix expressions over symbolic sizes, or scalars
built from traces and determinants of them) by two sound routes, and returns a :class:`MatrixProof`
naming the route and the rules, or None when neither closes (which proves nothing either way):

1. **normal form**: the normal forms (:mod:`theorem_check.expr.normal_form`) of ``lhs - rhs`` cancel.
2. **normal form, inverses cleared** (rational identities: Woodbury, push-through, Sherman-Morrison,
   ``(A^-1 + B^-1)^-1 = A (A + B)^-1 B``): with ``D`` the normal form of ``lhs - rhs``,

   - for an inverse ``W = S^-1`` at the left (right) end of a term, ``D`` is replaced by ``S D``
     (``D S``): ``S W = I`` on those terms, the others are expanded.  ``S`` is invertible wherever the
     statement is defined (its inverse appears in it), so ``S D = 0`` iff ``D = 0``;
   - inside a word, ``S W = I`` with ``S = c_1 M_1 + sum_i c_i M_i`` (``M_1`` the longest word of
     ``S``) rewrites ``M_1 W`` to ``(I - sum_i c_i M_i W) / c_1``, and ``W M_1`` likewise: an equality
     wherever ``W`` exists (each rewrite lowers the word in degree-lexicographic order).

   A zero result is a proof for every size at which every inverted matrix of the statement is
   invertible (where both sides are defined); the multipliers used are listed.  The route is not
   complete: a true identity it cannot close stays with the numeric evidence (VERIFIED).

Scalar statements are compared as rational functions (``sympy.cancel``) of the scalar symbols and of the
canonical trace/determinant atoms, which are treated as independent indeterminates: a zero difference
is a zero for any values they take.

>>> import sympy as sp
>>> n, m = sp.symbols("n m", integer=True, positive=True)
>>> A, B = sp.MatrixSymbol("A", n, m), sp.MatrixSymbol("B", m, n)
>>> I = sp.Identity(n)
>>> prove_identity((I + A * B).inv() * A, A * (sp.Identity(m) + B * A).inv()).route
'normal form, inverses cleared'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import sympy as sp

from theorem_check.expr.nodes import is_matrix
from theorem_check.expr.normal_form import NormalForm, NormalFormError, Normalizer

__all__ = ["MatrixProof", "prove_identity", "one_entry", "over_symbolic_sizes", "ROUTES"]

ROUTES = ("normal form", "normal form, inverses cleared")
"""The routes :func:`prove_identity` names in a :class:`MatrixProof`."""

_ASSUMPTION = "every matrix inverted in the statement is invertible (both sides defined)"


@dataclass(frozen=True)
class MatrixProof:
    """A proof that two matrix expressions are equal for all sizes.

    ``route``: one of :data:`ROUTES`; ``rules``: the rewrite rules applied (names); ``multipliers``:
    for the second route, ``"left by S"`` / ``"right by S"`` for each invertible factor multiplied in;
    ``assumptions``: under which the proof holds; ``structure``: the structure kinds used.
    """

    route: str
    rules: tuple[str, ...]
    multipliers: tuple[str, ...] = ()
    assumptions: str = ""
    structure: tuple[str, ...] = ()

    def describe(self) -> str:
        """One paragraph for a derivation step's ``why``/``note``: route, assumptions, rules."""
        text = f"{self.route} (all sizes)"
        if self.multipliers:
            text += "; multiplied " + ", ".join(self.multipliers)
        if self.assumptions:
            text += f"; assuming {self.assumptions}"
        if self.structure:
            text += "; structure used: " + ", ".join(self.structure)
        if self.rules:
            text += "; rules: " + "; ".join(self.rules)
        return text


def _inverse_leaves(d: NormalForm, where: str):
    """The ``inv`` leaves and inverted symbols at the left (``where="left"``) or right end of some term."""
    out = []
    for w, _ in d.terms:
        if not w:
            continue
        leaf = w[0] if where == "left" else w[-1]
        if (leaf.kind == "inv" or (leaf.kind == "sym" and leaf.data[2])) and leaf not in out:
            out.append(leaf)
    return out


def _factor(nz: Normalizer, leaf) -> NormalForm:
    """``S`` with ``leaf = S^-1``."""
    if leaf.kind == "inv":
        return leaf.data[0]
    name, t, _ = leaf.data
    rows, cols = (leaf.cols, leaf.rows) if t else (leaf.rows, leaf.cols)
    return nz.sym(name, rows, cols, t, False)


def _clear(nz: Normalizer, d: NormalForm, leaf, side: str) -> NormalForm:
    """``S d`` (``side="left"``) or ``d S``, with ``S leaf = I`` on the terms that start (end) with ``leaf``."""
    s = _factor(nz, leaf)
    parts = []
    for w, c in d.terms:
        if side == "left" and w and w[0] == leaf:
            parts.append(nz.of_word(w[1:], d.rows, d.cols, c))
        elif side == "right" and w and w[-1] == leaf:
            parts.append(nz.of_word(w[:-1], d.rows, d.cols, c))
        else:
            term = NormalForm(d.rows, d.cols, ((w, c),))
            parts.append(nz.mul(s, term) if side == "left" else nz.mul(term, s))
    return nz.total(parts, d.rows, d.cols)


def _find(word: tuple, pattern: tuple) -> int:
    for i in range(len(word) - len(pattern) + 1):
        if word[i:i + len(pattern)] == pattern:
            return i
    return -1


def _rewrite_once(nz: Normalizer, d: NormalForm):
    """One rewrite ``M_1 W -> (I - sum c_i M_i W)/c_1`` (or its mirror) somewhere in ``d``; None if none applies."""
    leaves = {leaf for w, _ in d.terms for leaf in w if leaf.kind == "inv" and len(leaf.data[0].terms) > 1}
    for leaf in sorted(leaves, key=lambda x: x.key):
        s = leaf.data[0]
        (lead, c1) = max(s.terms, key=lambda t: (len(t[0]), "*".join(x.key for x in t[0])))
        rest = [(w, c) for w, c in s.terms if w != lead]
        for k, (w, c) in enumerate(d.terms):
            for pattern, mirror in ((lead + (leaf,), False), ((leaf,) + lead, True)):
                i = _find(w, pattern)
                if i < 0:
                    continue
                pre, post = w[:i], w[i + len(pattern):]
                # lead W = (I - sum c_i M_i W) / c_1 ;  W lead = (I - sum c_i W M_i) / c_1
                repl = [(pre + post, c / c1)] + [
                    ((pre + (leaf,) + m + post) if mirror else (pre + m + (leaf,) + post), -c * ci / c1)
                    for m, ci in rest]
                nz.note("S S^-1 = S^-1 S = I inside a product (longest word of S eliminated)")
                others = [NormalForm(d.rows, d.cols, (t,)) for j, t in enumerate(d.terms) if j != k]
                new = [nz.of_word(ww, d.rows, d.cols, cc) for ww, cc in repl]
                return nz.total(others + new, d.rows, d.cols)
    return None


def _close(nz: Normalizer, d: NormalForm, rounds: int, multipliers: list) -> bool:
    for _ in range(rounds):
        for _ in range(200):   # rewrites inside words to a fixed point (each lowers a word)
            if d.is_zero:
                return True
            nxt = _rewrite_once(nz, d)
            if nxt is None:
                break
            d = nxt
        if d.is_zero:
            return True
        for side in ("left", "right"):
            leaves = _inverse_leaves(d, side)
            if leaves:
                leaf = leaves[0]
                s = _factor(nz, leaf)
                multipliers.append(f"{side} by {s.text}")
                d = _clear(nz, d, leaf, side)
                break
        else:
            return False
    return d.is_zero


def prove_identity(lhs, rhs, structure: Mapping[str, str] | None = None, *, rounds: int = 8) -> MatrixProof | None:
    """A :class:`MatrixProof` of ``lhs = rhs`` for all sizes, or None (outside the grammar, or not closed).

    ``lhs``/``rhs``: SymPy matrix expressions of the same symbolic shape, or scalar expressions (traces,
    determinants, scalar symbols).  ``structure``: name -> kind as for
    :class:`~theorem_check.expr.normal_form.Normalizer`.  ``rounds``: how many inverses may be cleared.
    Never raises for expressions outside the grammar (None).
    """
    nz = Normalizer(structure)
    used = tuple(sorted(f"{k} {v}" for k, v in nz.structure.items()
                        if v in ("symmetric", "spd", "diagonal", "antisymmetric", "orthogonal")))
    try:
        if is_matrix(lhs) != is_matrix(rhs):   # a 1 x 1 matrix against a scalar: its one entry, tr(M)
            lhs, rhs = one_entry(lhs), one_entry(rhs)
            if lhs is None or rhs is None:
                return None
        if not is_matrix(lhs):
            diff = sp.cancel(sp.together(nz.scalar(lhs) - nz.scalar(rhs)))
            if diff != 0:
                return None
            return MatrixProof(ROUTES[0], tuple(nz.rules), (), _assumption(nz), _used(nz, used))
        if tuple(lhs.shape) != tuple(rhs.shape):
            return None
        d = nz.add(nz.matrix(lhs), nz.scale(nz.matrix(rhs), -1))
        if d.is_zero:
            return MatrixProof(ROUTES[0], tuple(nz.rules), (), _assumption(nz), _used(nz, used))
        multipliers: list = []
        if not _close(nz, d, rounds, multipliers):
            return None
        return MatrixProof(ROUTES[1], tuple(nz.rules), tuple(multipliers), _ASSUMPTION, _used(nz, used))
    except (NormalFormError, RecursionError, TypeError, ValueError, AttributeError):
        return None


def one_entry(x):
    """A scalar as is, a ``1 x 1`` matrix expression as its trace (its one entry), else None: how a ``1 x 1``
    side is compared with a scalar one (``x^T K x = 0``)."""
    if not is_matrix(x):
        return x
    return sp.Trace(x) if tuple(x.shape) == (1, 1) else None


def over_symbolic_sizes(x) -> bool:
    """True for a matrix expression without explicit matrices whose matrix symbols have some symbolic
    size (a letter), or a scalar holding a trace/det of one: what :func:`prove_identity` is for (fixed
    sizes keep the exact entrywise check)."""
    if not isinstance(x, sp.Basic) or isinstance(x, sp.MatrixBase) or x.atoms(sp.MatrixBase):
        return False
    if not any(not sp.sympify(d).is_Integer for m in x.atoms(sp.MatrixSymbol) for d in m.shape):
        return False
    return isinstance(x, sp.MatrixExpr) or x.has(sp.Trace, sp.Determinant)


def _assumption(nz: Normalizer) -> str:
    return _ASSUMPTION if any("^-1" in r and "orthogonal" not in r and not r.startswith("det(A + sum") for r in nz.rules) or any("^-1" in k or "inv(" in k for k in nz.atoms) \
        else ""


def _used(nz: Normalizer, declared: tuple) -> tuple:
    """The declared structures whose rules were applied."""
    return tuple(d for d in declared if any(r.startswith(d.split()[0] + " ") for r in nz.rules))
