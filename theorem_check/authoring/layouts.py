"""Readings of a derivative's layout: the vec (column-major) reading of ``jacobian`` and ``hessian`` by a matrix.

``jacobian(F, X)`` flattens ``F`` and ``X`` row by row (``J[i*q + j, k*n + l] = dF_ij / dX_kl``, docs/writing-claims.md),
as NumPy and JAX do; Magnus and Neudecker, the Matrix Cookbook's vec identities and most matrix-calculus papers
write ``d vec(F) / d vec(X)^T``, with ``vec`` stacking columns.  The two differ by row and column permutations
(commutation matrices) wherever ``F`` or ``X`` has more than one column: the textbook ``d vec(A X) / d vec(X)^T =
I (x) A`` is ``A (x) I`` row by row.  The LaTeX reader refuses such a Jacobian as ambiguous; the string syntax has
one meaning, and :func:`readings` adds the other as a ``reading`` variant of the statement, so that ``check``
reports which layout the statement holds in (an ERRATUM "holds in the vec reading" instead of a bare REFUTED).

The same holds for ``grad(f, X)`` of an ``X`` declared ``antisymmetric`` or ``diagonal``: ``grad`` is then the
unconstrained gradient ``G_ij = df/dX_ij`` (only ``symmetric``/``spd`` get the projected one, arXiv:1911.06491), and
:func:`readings` adds the gradient within the structure's subspace (the Frobenius projection of ``G``:
``(G - G^T)/2``, ``diag(diag(G))``) as a reading (helper-37 found ``grad(trace(A*X), X) = A.T`` VERIFIED for an
antisymmetric ``X`` with no word about the convention).

Only a side that is a single ``jacobian``/``hessian`` (``grad``) node gets the reading (the side's value is permuted; inside a
larger expression the permutation would not be the statement's).  The reading's side is a callable (the engine's
own side, its value permuted): decided by the numeric stage, without a derivation.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import sympy as sp

from theorem_check import expr as ex
from theorem_check.model.claims import Statement

__all__ = ["readings", "with_readings", "VEC_READING", "NUMERATOR_READING", "SUBSPACE_READINGS", "SYMMETRIC_READINGS"]

VEC_READING = "reading: vec layout (columns stacked, d vec(F)/d vec(X)^T, Magnus-Neudecker)"
"""The variant's name."""


NUMERATOR_READING = "reading: numerator layout (df/dX is the transpose of the gradient, X's transposed shape)"
"""The variant's name: ``grad(f, X)`` read as ``df/dX_ji`` (numerator layout, Magnus-Neudecker's ``Df``), tried only
where the other side has ``X``'s transposed shape and the printed statement is therefore ILL-POSED."""


def _cols_differ(shape) -> bool:
    """True unless the shape's column count is the number 1."""
    return sp.sympify(shape[1]) != 1


def _order(rows, cols) -> np.ndarray:
    """Row-major flat indices of a ``rows x cols`` matrix listed in vec (column-major) order."""
    return np.arange(rows * cols).reshape(rows, cols).ravel(order="F")


def _letters(inst, mats: dict) -> dict:
    """Size letter -> value at the instance (from the declared shapes of its matrices)."""
    out = {}
    for name, (r, c) in mats.items():
        v = inst.get(name) if hasattr(inst, "get") else None
        if v is None or np.ndim(v) < 3:
            continue
        for d, k in zip((r, c), np.shape(v)[1:]):
            if isinstance(d, str):
                out[ex.size_symbol(d)] = int(k)
    return out


def _size(d, letters: dict) -> int:
    return int(sp.sympify(d).xreplace(letters))


def _permuted(side, node, mats: dict):
    """``side``'s value (batch, rows, cols) with rows and columns in vec order."""
    f, x = node.args
    out_shape = tuple(f.shape) if ex.is_matrix(f) else (1, 1)
    in_shape = tuple(x.shape)

    def vec_side(inst, ctx):
        v = side(inst, ctx)
        if np.ndim(v) < 3:        # a 1 x 1 derivative, returned as a scalar per batch element: one layout
            return v
        letters = _letters(inst, mats)
        xr, xc = (_size(d, letters) for d in in_shape)
        cols = _order(xr, xc)
        rows = cols if isinstance(node, ex.Hessian) else _order(*(_size(d, letters) for d in out_shape))
        return v[:, rows][:, :, cols]

    if callable(getattr(side, "derivative", None)) and callable(getattr(side, "along", None)):
        _along_directions(vec_side, side, node, mats, out_shape, in_shape)
    return vec_side


def _scattered(projection, cols):
    """``projection`` with each direction ``V`` replaced by the ``U`` whose row-major entries at ``cols`` are
    ``V``'s row-major entries (``vec_R U = P^T vec_R V`` for the permutation ``P`` that takes row-major to vec
    order): a permutation, so unit norms and ``max |V|`` (the floors) stay as they are."""
    def scatter(D):
        if D is None:
            return None
        flat = np.reshape(D, D.shape[:2] + (-1,))
        out = np.empty_like(flat)
        out[..., cols] = flat
        return out.reshape(D.shape)
    return dataclasses.replace(projection, U=scatter(projection.U), W=scatter(projection.W))


def _along_directions(vec_side, side, node, mats, out_shape, in_shape):
    """Give the vec reading's side the engine's check along random directions (issue 21): the reading is
    ``P_r J P_c^T`` (``J`` the row-major derivative), so along ``V`` it is ``P_r`` times the row-major oracle
    along ``U = P_c^T V`` (:func:`_scattered`), and a Hessian's form ``u^T (P H P^T) w`` is ``H``'s along the
    scattered ``u``, ``w``.  Without it the reading took the full oracle: a true ``hessian`` statement by a
    16 x 16 matrix timed out after 120 s (helper-39)."""
    hess = isinstance(node, ex.Hessian)

    def orders(inst):
        letters = _letters(inst, mats)
        cols = _order(*(_size(d, letters) for d in in_shape))
        return cols, (None if hess else _order(*(_size(d, letters) for d in out_shape)))

    def along(inst, ctx, projection):
        cols, rows = orders(inst)
        d, m = side.along(inst, ctx, _scattered(projection, cols))
        if rows is not None and len(rows) > 1:
            d = np.asarray(d)
            d = d.reshape(d.shape[0], -1, len(rows))[:, :, rows].reshape(d.shape[0], -1)
        return d, m

    vec_side.derivative, vec_side.along = side.derivative, along
    if callable(getattr(side, "magnitude", None)):
        def magnitude(inst, levels, projection=None):
            """The side's magnitude: a norm per batch element, the same for the permuted side (along the
            scattered directions when projected)."""
            return side.magnitude(inst, levels, None if projection is None else _scattered(projection, orders(inst)[0]))
        vec_side.magnitude = magnitude


SUBSPACE_READINGS = {
    "antisymmetric": "reading: gradient within the antisymmetric matrices, (G - G^T)/2",
    "diagonal": "reading: gradient within the diagonal matrices, diag(diag(G))",
}
"""The subspace reading's name per declared structure."""


def _projected(side, kind: str):
    def sub_side(inst, ctx):
        g = side(inst, ctx)
        if np.ndim(g) < 3:      # a 1 x 1 variable: its one entry (antisymmetric 1 x 1 is 0, its gradient too)
            return g * 0 if kind == "antisymmetric" else g
        if kind == "antisymmetric":
            return (g - np.swapaxes(g, -1, -2)) / 2
        eye = np.eye(g.shape[-1], dtype=bool)
        return np.where(eye, g, g * 0)
    return sub_side


def _subspace_reading(statement: Statement, nodes: list, structure: dict) -> Statement | None:
    """The statement with its ``grad(f, X)`` side, ``X`` declared antisymmetric or diagonal, read as the gradient
    within that subspace (a ``reading`` variant), or None (no such side)."""
    sides, kinds = {}, set()
    for which, node, fn in zip(("lhs", "rhs"), nodes, (statement.lhs, statement.rhs)):
        if isinstance(node, ex.Grad) and not isinstance(node, ex.GradXY):
            kind = structure.get(getattr(node.args[1], "name", None))
            if kind in SUBSPACE_READINGS:
                sides[which] = _projected(fn, kind)
                kinds.add(kind)
    if len(kinds) != 1:
        return None
    (kind,) = kinds
    return dataclasses.replace(statement, name=SUBSPACE_READINGS[kind], kind="reading", derivation=None,
                               latex=statement.latex + rf"\quad(\text{{within the {kind} matrices}})", **sides)


SYMMETRIC_READINGS = {
    "free": "reading: the unconstrained gradient G (X symmetric only where it is evaluated)",
    "cookbook": "reading: the Matrix Cookbook's gradient for a symmetric X, G + G^T - diag(G)",
}
"""The readings of ``grad(f, X)`` for ``X`` declared ``symmetric`` or ``spd``, whose ``grad`` is ``sym(G) = (G + G^T)/2``
(the gradient on the symmetric matrices, arXiv:1911.06491): papers also write the unconstrained ``G`` (``\\nabla_\\Sigma
\\operatorname{tr}(A \\Sigma) = A^\\top`` for ``\\Sigma \\succ 0``) and the Matrix Cookbook's ``G + G^T - G \\circ I``
(sec. 2.8, eq. 141 with ``2 X^{-1} - X^{-1} \\circ I``); helper-77 and helper-78 met a bare REFUTED with no word about
the convention.  ``check`` reports which readings hold."""


def _cookbook_map(s):
    """``2 S - S \\circ I`` of matrices ``(..., n, n)``: the map from the symmetric gradient to the Cookbook's, which is
    its own adjoint in the Frobenius inner product (it scales entries)."""
    if np.ndim(s) < 3:
        return s
    return np.where(np.eye(s.shape[-1], dtype=bool), s, 2 * s)


def _cookbook(side):
    def cookbook_side(inst, ctx):
        return _cookbook_map(side(inst, ctx))      # sym(G); its diagonal is G's

    if callable(getattr(side, "derivative", None)) and callable(getattr(side, "along", None)):
        def along(inst, ctx, projection):
            """Along ``V`` the reading is ``<C(S), V> = <S, C(V)>`` (``C`` self-adjoint): the engine's side along the
            mapped directions, so that large sizes cost what the printed statement's check costs (at n = 64 the
            full oracle took 40 s)."""
            def mapped(D):
                return None if D is None else _cookbook_map(np.asarray(D))
            return side.along(inst, ctx, dataclasses.replace(projection, U=mapped(projection.U)))
        cookbook_side.derivative, cookbook_side.along = side.derivative, along
    return cookbook_side


def _symmetric_readings(statement: Statement, nodes: list, texts: tuple, mats: dict, structure: dict, letters) -> list:
    """The statement with its ``grad(f, X)`` side, ``X`` declared symmetric or spd, read as the unconstrained gradient
    and as the Cookbook's (two ``reading`` variants), or none.  The unconstrained side is the engine's own side of the
    same text without ``X``'s structure (:func:`~theorem_check.authoring.spec.make_side`: its derivative is checked
    along random directions at large sizes, as the printed one is; a bare compiled side took every entry's finite
    difference and timed out at n = 64)."""
    from theorem_check.authoring.spec import Spec, make_side

    found = [(which, node, text) for which, node, text in zip(("lhs", "rhs"), nodes, texts) if isinstance(node, ex.Grad)
             and not isinstance(node, ex.GradXY) and structure.get(getattr(node.args[1], "name", None)) in ("symmetric", "spd")]
    if len(found) != 1:
        return []
    which, node, text = found[0]
    spec = Spec(dict(mats), (), {k: v for k, v in structure.items() if k != node.args[1].name}, {k: None for k in letters})
    free = make_side(text, spec, which, "the unconstrained reading")
    free.symbolic = None     # no exact counterexample: it would draw X unconstrained too (helper-84: a non-symmetric X)
    return [dataclasses.replace(statement, name=SYMMETRIC_READINGS["free"], kind="reading", derivation=None,
                                latex=statement.latex + r"\quad(\text{unconstrained gradient})", **{which: free}),
            dataclasses.replace(statement, name=SYMMETRIC_READINGS["cookbook"], kind="reading", derivation=None,
                                latex=statement.latex + r"\quad(G + G^\top - G \circ I)",
                                **{which: _cookbook(getattr(statement, which))})]


def _differ(node) -> bool:
    f, x = node.args
    if isinstance(node, ex.Hessian):
        return ex.is_matrix(x) and _cols_differ(x.shape)
    return ex.is_matrix(x) and (_cols_differ(x.shape) or (ex.is_matrix(f) and _cols_differ(f.shape)))


def _vec_reading(statement: Statement, nodes: list, mats: dict) -> Statement | None:
    """The statement read with its ``jacobian``/``hessian`` side in the vec layout (a ``reading`` variant), or None
    when no side is a single such node by a matrix whose layouts differ."""
    sides = {}
    for which, node, fn in zip(("lhs", "rhs"), nodes, (statement.lhs, statement.rhs)):
        if isinstance(node, (ex.Jacobian, ex.Hessian)) and _differ(node):
            sides[which] = _permuted(fn, node, mats)
    if not sides:
        return None
    return dataclasses.replace(statement, name=VEC_READING, kind="reading", derivation=None,
                               latex=statement.latex + r"\quad(\operatorname{vec}\ \text{layout})", **sides)


def _transposed(side):
    def numerator_side(inst, ctx):
        v = side(inst, ctx)
        return v if np.ndim(v) < 3 else np.swapaxes(v, -1, -2)
    return numerator_side


def _numerator_reading(statement: Statement, nodes: list, complex_names=frozenset()) -> Statement | None:
    """The statement with its ``grad(f, X)`` side read in the numerator layout (transposed), when the other side has
    ``X``'s transposed shape and not ``X``'s own (``\\frac{\\partial x^\\top a}{\\partial x} = a^\\top``: ILL-POSED as
    the gradient, a row in the numerator layout; helper-48), or None.  A square ``X`` gets no such reading: its two
    layouts have one shape, and which one a statement means is the statement's (``grad(trace(A*X), X) = A`` stays
    REFUTED, not an erratum).  Nor does a complex ``X`` (its numerator layout is no plain transpose) or a statement
    whose other side holds a derivative too (``grad(f, X) = grad(g, Y)``: transposing one of them is no layout)."""
    for k, (node, other) in enumerate(zip(nodes, nodes[::-1])):
        if not (isinstance(node, ex.Grad) and not isinstance(node, ex.GradXY) and ex.is_matrix(node.args[1])
                and ex.is_matrix(other)):
            continue
        if getattr(node.args[1], "name", None) in complex_names:   # helper-50: a transpose is no complex layout
            continue
        if other.atoms(ex.Grad, ex.Jacobian, ex.Hessian):          # helper-50: grad(f, X) = grad(g, Y), or its own
            continue                                               # transpose: one side transposed is no reading
        r, c = (sp.sympify(v) for v in node.args[1].shape)
        orows, ocols = (sp.sympify(v) for v in other.shape)
        if (orows, ocols) == (c, r) and (r, c) != (c, r):
            which = ("lhs", "rhs")[k]
            side = _transposed(getattr(statement, which))
            return dataclasses.replace(statement, name=NUMERATOR_READING, kind="reading", derivation=None,
                                       latex=statement.latex + r"\quad(\text{numerator layout})", **{which: side})
    return None


def readings(statement: Statement, lhs: str, rhs: str, mats: dict, structure: dict, letters=()):
    """``(variants, unread)``: the reading variants of ``statement`` (the vec layout of a ``jacobian``/``hessian``
    side by a matrix, the subspace gradient of a ``grad`` side by an antisymmetric or diagonal matrix), and whether
    a derivative by a matrix whose two layouts differ sits inside a larger expression (``jacobian(X.T, X)*vec(X)``:
    the vec reading is not tried there, and ``check`` says so; helper-37).

    ``lhs``, ``rhs``: the sides as strings (parsed once here); ``mats``: name -> (rows, cols) (ints or letters);
    ``structure``: name -> declared kind; ``letters``: the size letters.  A side that does not parse gives no
    reading (the statement itself reports it).
    """
    try:
        nodes = [ex.parse(s, dict(mats), sizes=tuple(letters)) for s in (lhs, rhs)]
    except Exception:  # noqa: BLE001 - the statement's own parse reports what is wrong
        return (), False
    vec = _vec_reading(statement, nodes, mats)
    unread = vec is None and any(_differ(d) for n in nodes if not isinstance(n, (ex.Jacobian, ex.Hessian))
                                 for d in n.atoms(ex.Jacobian, ex.Hessian))
    complex_names = {n for n, k in structure.items() if k in ex.COMPLEX_KINDS}
    found = (vec, _subspace_reading(statement, nodes, structure), _numerator_reading(statement, nodes, complex_names),
             *_symmetric_readings(statement, nodes, (lhs, rhs), mats, structure, letters))
    return tuple(r for r in found if r is not None), unread


def with_readings(claim, lhs: str, rhs: str, mats: dict, structure: dict, letters=()):
    """``(claim with its reading variants added, unread)``: :func:`readings` of its printed statement appended to its
    variants (``check`` and ``scan --run`` build the same claims)."""
    variants, unread = readings(claim.statement, lhs, rhs, mats, structure, letters)
    return (dataclasses.replace(claim, variants=(*claim.variants, *variants)) if variants else claim), unread
