"""The matrix determinant lemma as a rule of the normal form (:mod:`theorem_check.expr.normal_form`).

``det(c A + sum_i x_i y_i^T) = det(c A) det(I_r + [y_i^T (c A)^-1 x_j]_ij)`` (Sylvester's determinant identity;
Matrix Cookbook, Petersen & Pedersen 2012, eq. 24) for ``A`` the identity or a symbol declared invertible, and
every other term a product through a ``1``-wide inner size (an outer product of a column and a row).
"""

from __future__ import annotations

import sympy as sp

__all__ = ["det_lemma"]


def det_lemma(nz, a):
    """``det(a)`` by the determinant lemma, as a scalar of the normalizer ``nz``
    (a :class:`~theorem_check.expr.normal_form.Normalizer`); None when ``a`` (a
    :class:`~theorem_check.expr.normal_form.NormalForm`) has no invertible term (the identity, or a symbol
    declared ``invertible``/``spd``/``orthogonal``) or another term is not an outer product."""
    NormalForm = type(a)   # (no import: normal_form imports this module)
    invertible = [(w, c) for w, c in a.terms if not w or (len(w) == 1 and w[0].kind == "sym" and not w[0].data[2]
                  and nz.structure.get(w[0].data[0]) in ("invertible", "spd", "orthogonal"))]
    if not invertible:
        return None
    w0, c0 = invertible[0]
    cols, rows = [], []
    for w, c in a.terms:
        if w == w0:
            continue
        cut = next((k for k in range(1, len(w)) if w[k - 1].cols == 1), None)
        if cut is None:
            return None
        cols.append(NormalForm(a.rows, 1, ((w[:cut], c),)))
        rows.append(NormalForm(1, a.cols, ((w[cut:], sp.S.One),)))
    nz.note("det(A + sum x_i y_i^T) = det(A) det(I + [y_i^T A^-1 x_j]) (A invertible)")
    a_inv = nz.scale(nz.inverse(NormalForm(a.rows, a.cols, ((w0, sp.S.One),))), 1 / c0)
    gram = sp.Matrix(len(cols), len(cols), lambda i, j: sp.S(int(i == j)) + _one_by_one(
        nz.mul(nz.mul(rows[i], a_inv), cols[j])))
    return c0 ** a.rows * (nz._det_leaf(w0[0]) if w0 else 1) * sp.factor_terms(gram.det(method="berkowitz"))


def _one_by_one(x):
    """The scalar value of a ``1 x 1`` normal form (its words are empty: 1 x 1 products are scalars)."""
    return sp.Add(*[c for w, c in x.terms if not w]) if all(not w for w, _ in x.terms) else sp.Symbol(f"[{x.key}]")
