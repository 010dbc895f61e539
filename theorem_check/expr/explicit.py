"""Explicit entries: a statement about matrices of fixed sizes decided exactly, as an identity of rational functions
of the matrices' entries.

``A*A - trace(A)*A + det(A)*eye(2) = zeros(2, 2)`` for a ``2 x 2`` ``A`` (Cayley-Hamilton) or ``det(K) = 0`` for an
antisymmetric ``3 x 3`` ``K`` hold at every matrix the statement is about, but the random instances cannot tell
their exact zero from rounding (both sides vanish: INCONCLUSIVE), and SymPy's matrix-expression algebra, which
knows neither the size nor the structure, does not close them.  Here every matrix name becomes a matrix of real
symbols with its declared structure (``A = [[A_11, A_12], [A_21, A_22]]``; ``K_21 = -K_12``, ``K_ii = 0``) and
both sides are evaluated in exact polynomial arithmetic (SymPy's ``DomainMatrix`` over ``QQ[entries, scalars]``):
each value is a polynomial matrix over one polynomial denominator, an inverse is ``adj(N) d / det(N)``, a
determinant ``det(N) / d^n``.  :func:`decide` compares ``N_lhs d_rhs`` with ``N_rhs d_lhs``: equal polynomials
prove the statement wherever its inverses and quotients are defined (their common domain), for every matrix of
the declared structure; unequal ones disprove it as an identity.  No simplification heuristics, no random points.

Structures written out: none/``invertible`` (free entries), ``symmetric`` and ``spd`` (``X_ji = X_ij``: an
identity of all symmetric matrices holds at the SPD ones), ``diagonal``, ``antisymmetric``.  Outside the
fragment (:func:`decide` returns None): ``orthogonal`` and complex kinds, symbolic sizes, a matrix with more than
:data:`MAX_SIZE` rows or columns or more than :data:`MAX_SYMBOLS` entry symbols in all, floats, and any node but
sums, products, integer powers, transposes, inverses, traces, determinants, Hadamard products and integer powers,
``diag``, identity/zero/ones matrices.  Design decision 153.
"""

from __future__ import annotations

import sympy as sp
from sympy.matrices.expressions.diagonal import DiagMatrix, DiagonalOf
from sympy.polys.matrices import DomainMatrix

__all__ = ["MAX_SIZE", "MAX_SYMBOLS", "EXPLICIT_KINDS", "decide", "entry_matrices"]

MAX_SIZE = 5
"""Largest row or column count of a matrix written out (a ``5 x 5`` determinant has 120 terms: 5 ms for an
antisymmetric one, 0.4 s for the inverse of a free one; ``det(S) = 0`` for an antisymmetric ``5 x 5`` ``S`` was
INCONCLUSIVE at 4, helper-53)."""
MAX_SYMBOLS = 32
"""Most entry symbols in all (two free ``4 x 4`` matrices)."""
EXPLICIT_KINDS = (None, "invertible", "symmetric", "spd", "diagonal", "antisymmetric")
"""Declared structures written out as explicit entries."""


class _Outside(Exception):
    """A node outside the fragment (the statement is left to the other routes)."""


def _entry(name: str, i: int, j: int) -> sp.Symbol:
    return sp.Symbol(f"{name}_{i + 1}{j + 1}", real=True)


def _entries_of(name: str, r: int, c: int, kind) -> list[list]:
    def at(i, j):
        if kind == "diagonal":
            return _entry(name, i, i) if i == j else sp.S.Zero
        if kind == "antisymmetric":
            return sp.S.Zero if i == j else (_entry(name, i, j) if i < j else -_entry(name, j, i))
        if kind in ("symmetric", "spd"):
            return _entry(name, min(i, j), max(i, j))
        return _entry(name, i, j)
    return [[at(i, j) for j in range(c)] for i in range(r)]


def entry_matrices(exprs, structure: dict) -> dict | None:
    """``{MatrixSymbol: rows of entry symbols}`` for the matrix names in ``exprs`` (``structure``: name -> declared
    kind; empty when there are none), or None when one cannot be written out (see the module docstring) or a scalar already has an entry's
    name (``A_11``)."""
    mats: set = set()
    scalars: set = set()
    for e in exprs:
        if isinstance(e, sp.Basic):
            mats |= e.atoms(sp.MatrixSymbol)
            scalars |= {s.name for s in e.free_symbols if isinstance(s, sp.Symbol)}
    out, count = {}, 0
    for m in mats:
        kind = structure.get(m.name)
        if kind not in EXPLICIT_KINDS or not all(sp.sympify(d).is_Integer for d in m.shape):
            return None
        r, c = (int(d) for d in m.shape)
        if max(r, c) > MAX_SIZE or (kind not in (None, "invertible") and r != c):
            return None
        out[m] = _entries_of(m.name, r, c, kind)
        names = {x.name for row in out[m] for x in row if isinstance(x, sp.Symbol)}
        if names & scalars:
            return None
        count += len(names)
    return out if count <= MAX_SYMBOLS else None


class _Eval:
    """Values ``(N, d)``: a ``DomainMatrix`` ``N`` over the polynomial ring (a ``1 x 1`` one for a scalar) and a
    nonzero polynomial ``d``; the value is ``N / d``."""

    def __init__(self, entries: dict, ring):
        self.entries, self.K = entries, ring

    def const(self, v):
        return self.K.from_sympy(sp.sympify(v))

    def mat(self, rows):
        return DomainMatrix([[self.const(x) for x in row] for row in rows], (len(rows), len(rows[0])), self.K)

    def scalar(self, v):
        return DomainMatrix([[v]], (1, 1), self.K)

    def lift(self, a, b):
        """``a``, ``b`` over one denominator."""
        (Na, da), (Nb, db) = a, b
        return Na * db, Nb * da, da * db

    def total(self, terms):
        """The sum of the terms' values (scalars or matrices), over the product of their denominators."""
        out = self.value(terms[0])
        for a in terms[1:]:
            x, y, d = self.lift(out, self.value(a))
            out = (x + y, d)
        return out

    def value(self, e):
        if isinstance(e, sp.MatrixExpr) or isinstance(e, sp.MatrixBase):
            return self.matrix(e)
        return self.number(e)

    # -- scalars --------------------------------------------------------------------------------
    def number(self, e):
        one = self.K.one
        if e.is_Rational or isinstance(e, sp.Symbol):
            return self.scalar(self.const(e)), one
        if e.is_Add:
            return self.total(e.args)
        if e.is_Mul:
            n, d = one, one
            for a in e.args:
                Na, da = self.number(a)
                n, d = n * Na[0, 0].element, d * da
            return self.scalar(n), d
        if e.is_Pow and e.exp.is_Integer:
            N, d = self.number(e.base)
            k = int(e.exp)
            n = N[0, 0].element
            if k < 0:
                if not n:
                    raise _Outside("a power of zero")
                n, d, k = d, n, -k
            return self.scalar(n ** k), d ** k
        if isinstance(e, sp.Trace):
            N, d = self.matrix(e.arg)
            if N.shape[0] != N.shape[1]:
                raise _Outside("trace of a non-square matrix")
            return self.scalar(sum((N[i, i].element for i in range(N.shape[0])), self.K.zero)), d
        if isinstance(e, sp.Determinant):
            N, d = self.matrix(e.arg)
            if N.shape[0] != N.shape[1]:
                raise _Outside("determinant of a non-square matrix")
            return self.scalar(N.det()), d ** N.shape[0]
        raise _Outside(f"{type(e).__name__}")

    # -- matrices -------------------------------------------------------------------------------
    def matrix(self, e):
        one = self.K.one
        if isinstance(e, sp.MatrixSymbol):
            return self.mat(self.entries[e]), one
        if isinstance(e, sp.Identity):    # (dense: a sparse and a dense operand do not mix in mul_elementwise)
            return DomainMatrix.eye(int(e.shape[0]), self.K).to_dense(), one
        if isinstance(e, sp.ZeroMatrix):
            return DomainMatrix.zeros(tuple(int(s) for s in e.shape), self.K).to_dense(), one
        if isinstance(e, sp.OneMatrix):
            return DomainMatrix.ones(tuple(int(s) for s in e.shape), self.K).to_dense(), one
        if isinstance(e, sp.MatrixBase):
            vals = [self.number(x) for x in e]
            d = one
            for _, dx in vals:
                d = d * dx
            flat = []
            for i, (N, _) in enumerate(vals):    # n_i times every other entry's denominator: all over d
                n = N[0, 0].element
                for j, (_, dx) in enumerate(vals):
                    if j != i:
                        n = n * dx
                flat.append(n)
            r, c = e.shape
            return DomainMatrix([flat[i * c:(i + 1) * c] for i in range(r)], (r, c), self.K), d
        if isinstance(e, sp.MatAdd):
            return self.total(e.args)
        if isinstance(e, sp.MatMul):
            N, d = None, one
            s = self.scalar(one)
            for a in e.args:
                Na, da = self.value(a)
                d = d * da
                if not (isinstance(a, sp.MatrixExpr) or isinstance(a, sp.MatrixBase)):
                    s = s * Na
                else:
                    N = Na if N is None else N * Na
            return (N.scalarmul(s[0, 0].element) if N is not None else s), d
        if isinstance(e, sp.Transpose):
            N, d = self.matrix(e.arg)
            return N.transpose(), d
        if isinstance(e, sp.Inverse):
            return self.inverse(self.matrix(e.arg))
        if isinstance(e, sp.MatPow) and sp.sympify(e.exp).is_Integer:
            base, k = self.matrix(e.base), int(e.exp)
            if k < 0:
                base, k = self.inverse(base), -k
            N, d = base
            out, dd = DomainMatrix.eye(N.shape[0], self.K).to_dense(), one
            for _ in range(k):
                out, dd = out * N, dd * d
            return out, dd
        if isinstance(e, sp.HadamardProduct):
            N, d = self.value(e.args[0])
            for a in e.args[1:]:
                Na, da = self.value(a)
                N, d = N.mul_elementwise(Na), d * da
            return N, d
        if isinstance(e, sp.HadamardPower) and sp.sympify(e.exp).is_Integer and int(e.exp) >= 0:
            N, d = self.value(e.base)
            out, dd = DomainMatrix.ones(N.shape, self.K).to_dense(), one
            for _ in range(int(e.exp)):
                out, dd = out.mul_elementwise(N), dd * d
            return out, dd
        if isinstance(e, DiagMatrix):
            N, d = self.matrix(e.args[0])
            v = [N[i, 0].element for i in range(N.shape[0])] if N.shape[1] == 1 else \
                [N[0, i].element for i in range(N.shape[1])]
            return DomainMatrix.diag(v, self.K).to_dense(), d
        if isinstance(e, DiagonalOf):
            N, d = self.matrix(e.arg)
            n = min(N.shape)
            return DomainMatrix([[N[i, i].element] for i in range(n)], (n, 1), self.K), d
        raise _Outside(f"{type(e).__name__}")

    def inverse(self, v):
        N, d = v
        if N.shape[0] != N.shape[1]:
            raise _Outside("inverse of a non-square matrix")
        adj, det = N.adj_det()
        if not det:
            raise _Outside("singular at every point")   # undefined everywhere: the numeric stage says so
        return adj * d, det


def decide(lhs, rhs, structure: dict) -> bool | None:
    """True when ``lhs = rhs`` holds as an identity of rational functions of the explicit entries (every matrix of
    the declared structures, wherever both sides are defined), False when it does not, None when the statement is
    outside the fragment (see the module docstring) or SymPy's polynomial matrices raise.  Callers bound the
    time (a ``4 x 4`` inverse inside a product of several is the costly case)."""
    entries = entry_matrices((lhs, rhs), structure)
    if entries is None:
        return None
    is_mat = [isinstance(s, (sp.MatrixExpr, sp.MatrixBase)) for s in (lhs, rhs)]
    if is_mat[0] != is_mat[1] or (is_mat[0] and tuple(lhs.shape) != tuple(rhs.shape)):
        return None
    gens = sorted({x for rows in entries.values() for row in rows for x in row if isinstance(x, sp.Symbol)}
                  | {s for e in (lhs, rhs) if isinstance(e, sp.Basic) for s in e.free_symbols
                     if isinstance(s, sp.Symbol)}, key=str)
    ev = _Eval(entries, sp.QQ[tuple(gens) or (sp.Dummy("none"),)])
    try:
        a, b = ev.value(sp.sympify(lhs)), ev.value(sp.sympify(rhs))
        x, y, _ = ev.lift(a, b)
        return (x - y).is_zero_matrix     # (not ==: a dense and a sparse DomainMatrix of equal entries differ)
    except _Outside:
        return None
    except Exception:  # noqa: BLE001 - SymPy's polynomial matrices refuse a case (a bug of ours or theirs):
        return None    # no decision here, never a wrong one; the other routes decide
