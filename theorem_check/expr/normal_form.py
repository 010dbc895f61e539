"""A normal form of matrix expressions over symbolic sizes: equal normal forms prove an identity for all sizes.

A matrix expression (SymPy ``MatrixSymbol`` algebra with ``Symbol`` sizes, as :func:`theorem_check.expr.parse`
builds it) is rewritten into a canonical sum ``sum_k c_k M_k``: each ``c_k`` a commutative SymPy expression
(rational in the scalar symbols and in scalar *atoms*: canonical traces, determinants and ``1 x 1``
products), each ``M_k`` a word (a tuple) of :class:`Leaf` objects.  The rules, each valid for every
size at which both sides are defined (names as recorded in :attr:`Normalizer.rules`):

- products expanded over sums, scalar factors collected (commutative coefficients), identity and zero
  absorbed;
- transpose pushed to the leaves, ``(AB)^T = B^T A^T``; inverse pushed to the leaves only through a
  product whose factors are all square, ``(AB)^{-1} = B^{-1} A^{-1}`` (square factors of an invertible
  product are invertible); otherwise the inverse of a sum or of a rectangular product stays one leaf;
  ``X X^{-1} = X^{-1} X = I`` for adjacent leaves;
- a ``1 x 1`` sub-product (``v^T A u`` inside ``u v^T A u v^T``) is a scalar and commutes out (the
  canonical representative of it and its transpose);
- ``tr`` linear, ``tr(I_n) = n``, cyclic rotation (valid for rectangular factors) to the smallest
  rotation of the word or of its transpose (``tr(X^T) = tr(X)``), ``tr(P kron Q) = tr(P) tr(Q)``;
- ``det(c M_1 ... M_k) = c^n det(M_1) ... det(M_k)`` for square factors, ``det(X^T) = det(X)``,
  ``det(X^{-1}) = 1/det(X)``, ``det(P kron Q) = det(P)^q det(Q)^p`` (``P`` p x p, ``Q`` q x q), and the
  determinant lemma ``det(A + sum x_i y_i^T) = det(A) det(I + [y_i^T A^-1 x_j])`` for ``A`` declared
  ``invertible``/``spd``/``orthogonal``;
- Kronecker products bilinear, transposed and inverted (square factors) factor by factor, mixed
  product ``(P kron Q)(R kron S) = PR kron QS`` where the factors conform, ``I_m kron I_n = I_{mn}``;
- ``vec`` linear, ``(P kron Q) vec(X) = vec(Q X P^T)`` (Magnus & Neudecker, ch. 2, Theorem 2), so
  ``vec(A X B) = (B^T kron A) vec(X)`` and ``vec(X)^T vec(Y) = tr(X^T Y)``; ``vec`` of a column is itself;
- a fractional power ``b^(p/q)`` of a scalar: ``b`` as one canonical rational function, then SymPy's own
  power of it, which takes out only factors known positive (``(P/n^2)^(1/2) = P^(1/2)/n`` for ``n > 0``,
  valid for every complex ``P``); bases equal only by a branch rule (``sqrt(1/t)``, ``1/sqrt(t)``) stay
  different atoms: no proof, never a wrong one;
- structure (``structure={name: kind}``): ``symmetric``/``spd``/``diagonal``: ``X^T = X``;
  ``antisymmetric``: ``X^T = -X``; ``orthogonal``: ``Q^{-1} = Q^T``, ``Q^T Q = Q Q^T = I``;
- a ``1 x 1`` product or a trace whose transpose is its own negative (``x^T K x``, ``tr(S K)``, ``K``
  antisymmetric and ``S`` symmetric) is 0 (``s = s^T = -s``), and so is ``diag(K)`` (the only ``diag`` the
  normal form reads).

Canonical keys are strings built from the names (``A``, ``A.T``, ``A^-1``, ``inv(...)``, ``kron(...)``);
equal keys mean equal objects, so an equal normal form is a proof; an unequal one proves nothing (the
form is not complete: ``det(A + B)`` is an atom).  Expressions outside the grammar (elementwise and
matrix functions, Hadamard products, derivatives) raise :class:`NormalFormError`.

>>> import sympy as sp
>>> n, m = sp.symbols("n m", integer=True, positive=True)
>>> A, B, C, nz = sp.MatrixSymbol("A", n, m), sp.MatrixSymbol("B", n, m), sp.MatrixSymbol("C", m, n), Normalizer()
>>> nz.matrix((A + B) * C).key == nz.matrix(A * C + B * C).key
True

Source: the rules are those of the Matrix Cookbook (Petersen & Pedersen, 2012, sections 1-3, 10.2) and
Magnus & Neudecker, *Matrix Differential Calculus* (3rd ed., 2019), chapter 2.
"""

from __future__ import annotations

from typing import Mapping

import sympy as sp
from sympy.matrices.expressions.diagonal import DiagonalOf

from theorem_check.expr.det_lemma import det_lemma
from theorem_check.expr.nf_terms import Leaf, NormalForm, word_key
from theorem_check.expr.nodes import ExprError, Vec, is_matrix

__all__ = ["Leaf", "NormalForm", "Normalizer", "NormalFormError", "SYMMETRIC_KINDS"]

SYMMETRIC_KINDS = ("symmetric", "spd", "diagonal")
"""Structure kinds for which ``X^T = X`` is used."""


MAX_POWER = 64
"""The largest exponent :meth:`Normalizer.power` expands (``A**10**7`` expanded ten million products)."""


class NormalFormError(ExprError):
    """The expression is outside the normal form's grammar (no proof from it; not a user error)."""


def _simp(c):
    return sp.cancel(sp.together(c)) if c.free_symbols else c


def _make(rows, cols, acc: dict) -> NormalForm:
    terms = []
    for w, c in acc.items():
        c = _simp(c)
        if c != 0:
            terms.append((w, c))
    terms.sort(key=lambda t: word_key(t[0], rows))
    return NormalForm(rows, cols, tuple(terms))


class Normalizer:
    """Builds normal forms (:meth:`matrix`, :meth:`scalar`) and records the rules it applied (:attr:`rules`).

    ``structure`` maps a matrix name to its kind (``symmetric``, ``spd``, ``diagonal``, ``antisymmetric``,
    ``orthogonal``; others are ignored).  Raises :class:`NormalFormError` outside the grammar or for
    shapes that do not conform symbolically.
    """

    def __init__(self, structure: Mapping[str, str] | None = None):
        self.structure = dict(structure or {})
        self.rules: list[str] = []
        self.atoms: dict[str, sp.Symbol] = {}
        self._quiet = 0

    def note(self, rule: str) -> None:
        """Record that ``rule`` was applied (kept in first-use order; not while only a canonical key is sought)."""
        if not self._quiet and rule not in self.rules:
            self.rules.append(rule)

    def _silent_transpose(self, a: NormalForm) -> NormalForm:
        """``a^T`` computed only to choose a canonical key (its rules are not recorded)."""
        self._quiet += 1
        try:
            return self.transpose(a)
        finally:
            self._quiet -= 1

    # ------------------------------------------------------------------ construction
    def identity(self, n) -> NormalForm:
        """``I_n``."""
        return NormalForm(n, n, (((), sp.S.One),))

    def of_word(self, word: tuple, rows, cols, c=sp.S.One) -> NormalForm:
        """``c * word`` as a normal form (the word reduced first)."""
        return self.scale(self.reduce(word, rows, cols), c)

    def sym(self, name: str, rows, cols, t: bool = False, inv: bool = False) -> NormalForm:
        """The leaf of a matrix symbol (its own shape ``rows x cols``), transposed and/or inverted, with the
        structure rules applied."""
        c, leaf = self._sym_leaf(name, rows, cols, t, inv)
        return self.of_word((leaf,), leaf.rows, leaf.cols, c)

    def _sym_leaf(self, name: str, rows, cols, t: bool, inv: bool):
        kind = self.structure.get(name)
        c = sp.S.One
        if t and kind in SYMMETRIC_KINDS:
            self.note(f"{name} symmetric: {name}^T = {name}")
            t = False
        elif t and kind == "antisymmetric":
            self.note(f"{name} antisymmetric: {name}^T = -{name}")
            t, c = False, -c
        if inv and kind == "orthogonal":
            self.note(f"{name} orthogonal: {name}^-1 = {name}^T")
            t, inv = not t, False
        if inv and rows != cols:
            raise NormalFormError(f"inverse of the non-square {name}")
        r, k = (cols, rows) if t else (rows, cols)
        return c, Leaf(name + (".T" if t else "") + ("^-1" if inv else ""), r, k, "sym", (name, t, inv))

    def _raw_transpose(self, word: tuple):
        """``(c, word')`` with ``word^T = c word'`` leaf by leaf, without reducing (None if a leaf's
        transpose is not one leaf)."""
        c, out = sp.S.One, []
        self._quiet += 1
        try:
            for leaf in reversed(word):
                if leaf.kind == "sym":
                    name, t, inv = leaf.data
                    rows, cols = (leaf.cols, leaf.rows) if t else (leaf.rows, leaf.cols)
                    k, new = self._sym_leaf(name, rows, cols, not t, inv)
                elif leaf.kind == "ones":
                    k, new = sp.S.One, Leaf(f"ones({leaf.cols},{leaf.rows})", leaf.cols, leaf.rows, "ones")
                else:
                    tr = self._transpose_leaf(leaf)
                    if len(tr.terms) != 1 or len(tr.terms[0][0]) != 1:
                        return None
                    (k, new) = tr.terms[0][1], tr.terms[0][0][0]
                c *= k
                out.append(new)
        finally:
            self._quiet -= 1
        return c, tuple(out)

    def ones(self, rows, cols) -> NormalForm:
        """``ones(rows, cols)`` (``ones(1, 1) = I_1``)."""
        return self.identity(1) if rows == 1 and cols == 1 else \
            self.of_word((Leaf(f"ones({rows},{cols})", rows, cols, "ones"),), rows, cols)

    # ------------------------------------------------------------------ algebra
    def add(self, a: NormalForm, b: NormalForm) -> NormalForm:
        """``a + b`` (shapes must agree symbolically)."""
        return self.total([a, b], a.rows, a.cols)

    def scale(self, a: NormalForm, c) -> NormalForm:
        """``c * a`` for a scalar ``c``."""
        if c == 1:
            return a
        return _make(a.rows, a.cols, {w: k * c for w, k in a.terms})

    def total(self, forms, rows, cols) -> NormalForm:
        """The sum of normal forms of shape ``(rows, cols)``."""
        acc: dict = {}
        for f in forms:
            if f.rows != rows or f.cols != cols:
                raise NormalFormError(f"sum of shapes ({rows}, {cols}) and ({f.rows}, {f.cols})")
            for w, c in f.terms:
                acc[w] = acc.get(w, 0) + c
        return _make(rows, cols, acc)

    def mul(self, a: NormalForm, b: NormalForm) -> NormalForm:
        """``a b`` expanded (inner sizes must agree symbolically)."""
        if a.cols != b.rows:
            raise NormalFormError(f"product of shapes ({a.rows}, {a.cols}) and ({b.rows}, {b.cols})")
        if len(a.terms) > 1 or len(b.terms) > 1:
            self.note("products expanded over sums")
        return self.total([self.of_word(w1 + w2, a.rows, b.cols, c1 * c2)
                           for w1, c1 in a.terms for w2, c2 in b.terms], a.rows, b.cols)

    def transpose(self, a: NormalForm) -> NormalForm:
        """``a^T``, pushed to the leaves."""
        out = []
        for w, c in a.terms:
            if len(w) > 1:
                self.note("(AB)^T = B^T A^T")
            acc = self.identity(a.cols)
            for leaf in reversed(w):
                acc = self.mul(acc, self._transpose_leaf(leaf))
            out.append(self.scale(acc, c))
        return self.total(out, a.cols, a.rows)

    def _transpose_leaf(self, leaf: Leaf) -> NormalForm:
        if leaf.kind == "sym":
            name, t, inv = leaf.data
            rows, cols = (leaf.cols, leaf.rows) if t else (leaf.rows, leaf.cols)   # the symbol's own shape
            return self.sym(name, rows, cols, not t, inv)
        if leaf.kind == "inv":
            self.note("(X^-1)^T = (X^T)^-1")
            return self.inverse(self.transpose(leaf.data[0]))
        if leaf.kind == "kron":
            self.note("(P kron Q)^T = P^T kron Q^T")
            return self.kron(self.transpose(leaf.data[0]), self.transpose(leaf.data[1]))
        if leaf.kind == "vec":
            x, t = leaf.data
            return self._vec_leaf(x, not t)
        return self.ones(leaf.cols, leaf.rows)

    def inverse(self, a: NormalForm) -> NormalForm:
        """``a^{-1}``: through a single product of square factors, else an ``inv`` leaf."""
        if a.rows != a.cols:
            raise NormalFormError(f"inverse of shape ({a.rows}, {a.cols})")
        if a.is_zero:
            raise NormalFormError("inverse of the zero matrix")
        if len(a.terms) == 1:
            w, c = a.terms[0]
            if all(leaf.square for leaf in w):
                if len(w) > 1:
                    self.note("(AB)^-1 = B^-1 A^-1 (square factors)")
                acc = self.identity(a.rows)
                for leaf in reversed(w):
                    acc = self.mul(acc, self._inverse_leaf(leaf))
                return self.scale(acc, 1 / c)
            monic = NormalForm(a.rows, a.cols, ((w, sp.S.One),))
            return self.of_word((Leaf(f"inv({monic.key})", a.rows, a.cols, "inv", (monic,)),), a.rows, a.cols,
                                1 / c)
        return self.of_word((Leaf(f"inv({a.key})", a.rows, a.cols, "inv", (a,)),), a.rows, a.cols)

    def _inverse_leaf(self, leaf: Leaf) -> NormalForm:
        if leaf.kind == "sym":
            name, t, inv = leaf.data
            rows, cols = (leaf.cols, leaf.rows) if t else (leaf.rows, leaf.cols)
            return self.sym(name, rows, cols, t, not inv)
        if leaf.kind == "inv":
            return leaf.data[0]
        if leaf.kind == "kron":
            p, q = leaf.data
            if p.rows == p.cols and q.rows == q.cols:
                self.note("(P kron Q)^-1 = P^-1 kron Q^-1")
                return self.kron(self.inverse(p), self.inverse(q))
        monic = NormalForm(leaf.rows, leaf.cols, (((leaf,), sp.S.One),))
        return self.of_word((Leaf(f"inv({monic.key})", leaf.rows, leaf.cols, "inv", (monic,)),), leaf.rows,
                            leaf.cols)

    def power(self, a: NormalForm, k: int) -> NormalForm:
        """``a^k`` for an integer ``k`` (negative: of the inverse; square ``a``); NormalFormError beyond
        :data:`MAX_POWER` (a word of ten million letters is no normal form anyone can read or compare)."""
        if abs(k) > MAX_POWER:
            raise NormalFormError(f"power {k} beyond {MAX_POWER}: no normal form is written out")
        base, acc = (self.inverse(a) if k < 0 else a), self.identity(a.rows)
        for _ in range(abs(k)):
            acc = self.mul(acc, base)
        return acc

    def kron(self, a: NormalForm, b: NormalForm) -> NormalForm:
        """``a kron b``, bilinear; ``I kron I = I``, a ``1 x 1`` identity factor dropped."""
        out = []
        rows, cols = a.rows * b.rows, a.cols * b.cols
        for w1, c1 in a.terms:
            for w2, c2 in b.terms:
                c = c1 * c2
                if not w1 and a.rows == 1:
                    out.append(NormalForm(rows, cols, ((w2, c),)))
                elif not w2 and b.rows == 1:
                    out.append(NormalForm(rows, cols, ((w1, c),)))
                elif not w1 and not w2:
                    self.note("I kron I = I")
                    out.append(self.scale(self.identity(rows), c))
                else:
                    p = NormalForm(a.rows, a.cols, ((w1, sp.S.One),))
                    q = NormalForm(b.rows, b.cols, ((w2, sp.S.One),))
                    leaf = Leaf(f"kron({p.key}; {q.key})", rows, cols, "kron", (p, q))
                    out.append(self.of_word((leaf,), rows, cols, c))
        return self.total(out, rows, cols)

    def vec(self, a: NormalForm) -> NormalForm:
        """``vec(a)`` (columns stacked), linear; ``vec`` of a column is the column."""
        return self.total([self.scale(self._vec_leaf(NormalForm(a.rows, a.cols, ((w, sp.S.One),)), False), c)
                           for w, c in a.terms], a.rows * a.cols, sp.S.One)

    def _vec_leaf(self, x: NormalForm, t: bool) -> NormalForm:
        if x.cols == 1:
            return self.transpose(x) if t else x
        if x.rows == 1:
            self.note("vec of a row is its transpose")
            return x if t else self.transpose(x)
        n = x.rows * x.cols
        leaf = Leaf(f"vec({x.key})" + (".T" if t else ""), 1 if t else n, n if t else 1, "vec", (x, t))
        return self.of_word((leaf,), leaf.rows, leaf.cols)

    # ------------------------------------------------------------------ word reduction
    def reduce(self, word: tuple, rows, cols) -> NormalForm:
        """The word with the adjacent-factor rules applied until none applies (each shortens the word)."""
        for i in range(len(word)):
            hit = self._rule_at(word, i)
            if hit is not None:
                j, mid = hit
                return self.total([self.scale(self.reduce(word[:i] + w + word[j:], rows, cols), c)
                                   for w, c in mid.terms], rows, cols)
        if not word and rows != cols:
            raise NormalFormError(f"empty word of shape ({rows}, {cols})")
        return NormalForm(rows, cols, ((word, sp.S.One),))

    def _rule_at(self, word: tuple, i: int):
        """``(j, nf)``: ``word[i:j]`` equals the normal form ``nf`` by one rule, or None."""
        x = word[i]
        y = word[i + 1] if i + 1 < len(word) else None
        if y is not None:
            if x.kind == y.kind == "sym" and x.data[0] == y.data[0]:
                (name, tx, ix), (_, ty, iy) = x.data, y.data
                if tx == ty and ix != iy:
                    self.note("X X^-1 = X^-1 X = I")
                    return i + 2, self.identity(x.rows)
                if self.structure.get(name) == "orthogonal" and tx != ty and not ix and not iy:
                    self.note(f"{name} orthogonal: {name}^T {name} = {name} {name}^T = I")
                    return i + 2, self.identity(x.rows)
            if x.kind == y.kind == "kron":
                (p1, q1), (p2, q2) = x.data, y.data
                if p1.cols == p2.rows and q1.cols == q2.rows:
                    self.note("(P kron Q)(R kron S) = PR kron QS")
                    return i + 2, self.kron(self.mul(p1, p2), self.mul(q1, q2))
            if x.kind == "kron" and y.kind == "vec" and not y.data[1]:
                (p, q), (v, _) = x.data, y.data
                if q.cols == v.rows and p.cols == v.cols:
                    self.note("(P kron Q) vec(X) = vec(Q X P^T)")
                    return i + 2, self.vec(self.mul(self.mul(q, v), self.transpose(p)))
            if x.kind == y.kind == "ones" and x.cols == y.rows:
                self.note("ones(r,k) ones(k,c) = k ones(r,c)")
                return i + 2, self.scale(self.ones(x.rows, y.cols), x.cols)
        if x.kind == "inv" and len(x.data[0].terms) == 1:   # inv(M) M = I for a word M
            m = x.data[0].terms[0][0]
            if word[i + 1:i + 1 + len(m)] == m:
                self.note("X X^-1 = X^-1 X = I")
                return i + 1 + len(m), self.identity(x.rows)
        for j in range(i + 1, len(word)):   # M inv(M) = I
            z = word[j]
            if z.kind == "inv" and len(z.data[0].terms) == 1 and word[i:j] == z.data[0].terms[0][0]:
                self.note("X X^-1 = X^-1 X = I")
                return j + 1, self.identity(x.rows)
        if x.rows == 1:   # a 1 x 1 sub-product commutes out as a scalar
            for j in range(i, len(word)):
                if word[j].cols == 1:
                    tail = word[i + 1:j + 1]   # reduced first: x^T 1 1 x = n x^T 1 x
                    red = self.reduce(tail, tail[0].rows, tail[-1].cols) if tail else None
                    if red is not None and red.terms != ((tail, sp.S.One),):
                        return j + 1, self.mul(self.of_word((x,), x.rows, x.cols), red)
                    return j + 1, self.scale(self.identity(1), self.scalar_atom(word[i:j + 1]))
        return None

    # ------------------------------------------------------------------ scalars
    def scalar_atom(self, word: tuple):
        """The ``1 x 1`` product ``word`` as a commutative scalar (the canonical one of it and its transpose)."""
        self.note("a 1x1 product is a scalar")
        if len(word) == 2 and word[0].kind == "vec" and word[1].kind == "vec":
            self.note("vec(X)^T vec(Y) = tr(X^T Y)")
            return self.trace(self.mul(self.transpose(word[0].data[0]), word[1].data[0]))
        best = (word_key(word, 1), sp.S.One)
        tr = self._raw_transpose(word)
        if tr is not None:
            if word_key(tr[1], 1) == best[0] and tr[0] != 1:   # x^T K x with K^T = -K: s = s^T = -s
                self._note_antisymmetric(word)
                self.note("a 1x1 product equals its transpose, here its negative: it is 0")
                return sp.S.Zero
            best = min(best, (word_key(tr[1], 1), tr[0]), key=lambda t: t[0])
        return best[1] * self._atom(f"[{best[0]}]")

    def _note_antisymmetric(self, word: tuple) -> None:
        """Record the rule ``X^T = -X`` of each antisymmetric matrix in ``word`` (a transpose taken quietly)."""
        for name in dict.fromkeys(leaf.data[0] for leaf in word if leaf.kind == "sym"):
            if self.structure.get(name) == "antisymmetric":
                self.note(f"{name} antisymmetric: {name}^T = -{name}")

    def _atom(self, key: str) -> sp.Symbol:
        if key not in self.atoms:
            self.atoms[key] = sp.Symbol(key)
        return self.atoms[key]

    def trace(self, a: NormalForm, depth: int = 0):
        """``tr(a)`` as a scalar: linear, ``tr(I_n) = n``, cyclic rotation to a canonical word."""
        if a.rows != a.cols:
            raise NormalFormError(f"trace of shape ({a.rows}, {a.cols})")
        return sp.Add(*[c * self._trace_word(w, a.rows, depth) for w, c in a.terms])

    def _trace_word(self, w: tuple, n, depth: int):
        if not w:
            return n
        if len(w) == 1 and w[0].kind == "kron":
            p, q = w[0].data
            if p.rows == p.cols and q.rows == q.cols:
                self.note("tr(P kron Q) = tr(P) tr(Q)")
                return self.trace(p, depth + 1) * self.trace(q, depth + 1)
        cands = []
        for k in range(len(w)):
            rot = w[k:] + w[:k]
            if k:
                red = self.reduce(rot, rot[0].rows, rot[-1].cols)
                if red.terms != ((rot, sp.S.One),) and depth < 50:
                    self.note("tr(AB) = tr(BA) (cyclic)")
                    return self.trace(red, depth + 1)
            cands.append((word_key(rot, n), sp.S.One))
        tr = self._raw_transpose(w)
        if tr is not None:
            c2, w2 = tr
            cands += [(word_key(w2[k:] + w2[:k], n), c2) for k in range(len(w2))]
        first: dict = {}
        for key, c in cands:   # every candidate equals the trace: one word with two coefficients means tr = -tr
            if first.setdefault(key, c) != c:
                self._note_antisymmetric(w)
                self.note("tr(X^T) = tr(X) and the transpose is the negative (antisymmetric factors): the trace is 0")
                return sp.S.Zero
        best = min(cands, key=lambda t: t[0])
        if best != cands[0]:
            self.note("tr(AB) = tr(BA) (cyclic), tr(X^T) = tr(X): canonical rotation")
        return best[1] * self._atom(f"tr({best[0]})")

    def det(self, a: NormalForm):
        """``det(a)`` as a scalar: split over a product of square factors, else a canonical atom."""
        if a.rows != a.cols:
            raise NormalFormError(f"det of shape ({a.rows}, {a.cols})")
        n = a.rows
        if a.is_zero:
            return sp.S.Zero
        if len(a.terms) == 1:
            w, c = a.terms[0]
            if all(leaf.square for leaf in w):
                if len(w) > 1 or c != 1:
                    self.note("det(c AB) = c^n det(A) det(B) (square factors)")
                out = c ** n
                for leaf in w:
                    out *= self._det_leaf(leaf)
                return out
        lemma = det_lemma(self, a)
        if lemma is not None:
            return lemma
        return self._atom(f"det({min(a.key, self._silent_transpose(a).key)})")

    def _det_leaf(self, leaf: Leaf):
        if leaf.kind == "sym":
            name, t, inv = leaf.data
            if t:
                self.note("det(X^T) = det(X)")
            d = self._atom(f"det({name})")
            return 1 / d if inv else d
        if leaf.kind == "inv":
            self.note("det(X^-1) = 1/det(X)")
            return 1 / self.det(leaf.data[0])
        if leaf.kind == "kron":
            p, q = leaf.data
            if p.rows == p.cols and q.rows == q.cols:
                self.note("det(P kron Q) = det(P)^q det(Q)^p")
                return self.det(p) ** q.rows * self.det(q) ** p.rows
        return self.det(NormalForm(leaf.rows, leaf.cols, (((leaf,), sp.S.One),))) if leaf.kind != "ones" \
            else self._atom(f"det({leaf.key})")

    # ------------------------------------------------------------------ from SymPy
    def matrix(self, e) -> NormalForm:
        """The normal form of a SymPy matrix expression (raises :class:`NormalFormError` outside the grammar)."""
        if isinstance(e, sp.MatrixSymbol):
            return self.sym(e.name, *e.shape)
        if isinstance(e, sp.Identity):
            self.note("identity absorbed")
            return self.identity(e.shape[0])
        if isinstance(e, sp.ZeroMatrix):
            return NormalForm(e.shape[0], e.shape[1], ())
        if isinstance(e, sp.OneMatrix):
            return self.ones(*e.shape)
        if isinstance(e, sp.MatAdd):
            return self.total([self.matrix(a) for a in e.args], *e.shape)
        if isinstance(e, sp.MatMul):
            coeff, acc = sp.S.One, None
            for a in e.args:
                if is_matrix(a):
                    f = self.matrix(a)
                    acc = f if acc is None else self.mul(acc, f)
                else:
                    coeff *= self.scalar(a)
            if coeff != 1:
                self.note("scalar factors collected")
            return self.scale(acc, coeff)
        if isinstance(e, sp.Transpose):
            return self.transpose(self.matrix(e.arg))
        if isinstance(e, sp.Inverse):
            return self.inverse(self.matrix(e.arg))
        if isinstance(e, sp.MatPow):
            k = sp.sympify(e.args[1])
            if not k.is_Integer:
                raise NormalFormError(f"matrix power {k}")
            return self.power(self.matrix(e.args[0]), int(k))
        if isinstance(e, sp.KroneckerProduct):
            acc = self.matrix(e.args[0])
            for a in e.args[1:]:
                acc = self.kron(acc, self.matrix(a))
            return acc
        if isinstance(e, Vec):
            return self.vec(self.matrix(e.args[0]))
        if isinstance(e, DiagonalOf):   # only diag(K) = 0 of an antisymmetric K (K_ii = -K_ii), K or K^T
            arg = e.arg.arg if isinstance(e.arg, sp.Transpose) else e.arg
            if isinstance(arg, sp.MatrixSymbol) and self.structure.get(arg.name) == "antisymmetric":
                self.note(f"{arg.name} antisymmetric: its diagonal is 0 (K_ii = -K_ii)")
                return NormalForm(e.shape[0], e.shape[1], ())
        raise NormalFormError(f"no normal form for {type(e).__name__}")

    def scalar(self, e):
        """A scalar SymPy expression with traces, determinants and ``1 x 1`` products in canonical atoms."""
        e = sp.sympify(e)
        if e.is_Float:   # a float literal is not the fraction it prints as: no exact proof through it
            raise NormalFormError(f"float literal {e}")
        if e.is_Number or isinstance(e, sp.NumberSymbol):
            return e
        if isinstance(e, sp.Symbol):
            return e
        if isinstance(e, sp.Add):
            return sp.Add(*[self.scalar(a) for a in e.args])
        if isinstance(e, sp.Mul):
            return sp.Mul(*[self.scalar(a) for a in e.args])
        if isinstance(e, sp.Pow):
            base, k = e.base, sp.sympify(e.exp)
            if k.is_integer or (isinstance(base, sp.Symbol) and base.is_positive and k.is_Rational):
                return self.scalar(base) ** self.scalar(k)
            if k.is_Rational:   # (module docstring: a fractional power of a canonical base)
                self.note("fractional power of a canonical base")
                return sp.cancel(sp.together(self.scalar(base))) ** k
            raise NormalFormError(f"power {e}")
        if isinstance(e, sp.Trace):
            return self.trace(self.matrix(e.arg))
        if isinstance(e, sp.Determinant):
            return self.det(self.matrix(e.arg))
        raise NormalFormError(f"no normal form for {type(e).__name__}")
