r"""The LaTeX matrix notation of papers, read into the string syntax (one meaning: :func:`parse`).

A statement as printed (``\nabla_X \operatorname{tr}(X^\top A X) = (A + A^\top) X``) is read by a
grammar of our own (``latex.lark``, lark LALR(1); :mod:`theorem_check.expr.latex_tree`) and written
out in the string syntax (``grad(trace(X.T*A*X), X) = (A + A.T)*X``), which :func:`parse` turns into
the expression tree: a LaTeX statement and its string-syntax twin are the same tree, checked by the same engine.

Stable entry points (``theorem-check check --latex`` and ``theorem-check scan`` call these)::

    parse_latex_statement(text: str, shapes: Mapping | None = None) -> tuple[str, str]
        "LHS = RHS" in LaTeX -> (lhs, rhs) in the string syntax.  shapes: name -> (rows, cols) for
        the string-syntax names (W_1, Sigma, W__l); None: every name by convention_shapes.
        Raises ParseError (one line: the token and its column; "not an identity" for :=, \approx,
        \le, ... and chains a = b = c).
    parse_latex(text: str, shapes: Mapping, dims: Mapping | None = None) -> sympy expr: parse() of one side's reading.
    latex_names(text: str) -> dict[str, str]
        The string-syntax names a statement uses -> the Latin letter its convention reads ("" for
        lower-case Greek and multi-letter names; an upper-case Greek letter's own name).
    theorem_check.expr.declarations.parse_where(text) -> Declarations(shapes, structure, sizes)
        Declarations as papers state them (W \in \mathbb{R}^{h \times d}, \Sigma \succ 0, ...).
    convention_shapes(names: Mapping[str, str], declared: Mapping = {}, size: str = "n") -> dict
        Shapes for the names without a declaration (below).

What is read
------------
* products: juxtaposition, ``\cdot``, ``\times`` (``u \cdot v`` of two column vectors of one shape is their
  dot product ``u^\top v``, as in most papers); ``/`` and ``\frac{}{}`` (``\frac12``); ``+``, ``-``;
  ``\odot`` and ``\circ`` the Hadamard product, ``\otimes`` the Kronecker product; a product of
  matrices beside them without parentheses (``A B \odot C``) is refused as ambiguous (papers read it
  ``(AB) \odot C``, SymPy's printer ``A (B \odot C)``); a scalar factor is fine (``c A \odot B``);
  ``A^{\circ 2}`` the Hadamard power; ``\oplus`` (the direct sum) is refused.
* ``^\top``, ``^T``, ``^{\mathsf T}``, ``^\intercal`` transpose; ``^{-1}`` inverse; ``^{-\top}`` the
  inverse transposed; ``^H``, ``^*``, ``^\dagger`` the conjugate transpose (``.H``; ``conj(z)`` for a
  scalar ``z``); ``\bar{}``, ``\overline{}`` the conjugate (``conj``).  Of a single real name (not declared
  complex) ``x^*``, ``x^\star`` are the name ``xstar`` (an optimum) and ``\bar{x}`` the name ``xbar`` (a mean),
  as ``\hat{x}`` is ``xhat``; ``^\dagger`` in a statement without complex names is refused (a pseudo-inverse in
  most ML papers); ``^2``, ``^{1/2}`` powers (matrix powers of a matrix, as ``**`` in the string syntax); a positive integer power right after a
  function's name is the power of its value (``\tanh^2(x)`` is ``tanh(x)**2``, ``\sin^2 x``).
* ``\operatorname{tr}``, ``\mathrm{Tr}``, ``\tr``, ``\det``, ``\log\det``, ``\operatorname{diag}``,
  ``\operatorname{vec}``, ``\operatorname{softmax}``, ``\sigma(...)`` (the logistic function; ``\sigma``
  not followed by a parenthesis is a name), ``\exp``, ``\log``, ``\ln``, ``\sqrt{}``,
  ``\sqrt[n]{}``, ``\tanh``, ``\operatorname{expm}`` ...: ``\exp``, ``e^{}``, ``\log``, ``\sqrt`` of a
  *square* matrix are refused as ambiguous (the matrix function or the entrywise one): write
  ``\operatorname{expm}``, ``\operatorname{logm}``, ``X^{1/2}`` for the matrix functions and
  ``\exp_\odot(X)``, ``\log_\odot(X)``, ``\operatorname{sqrt}_\odot(X)`` (or ``_\circ``) for the
  entrywise ones (the string syntax's ``exp``, ``log``, ``sqrt``); of a vector or a non-square
  matrix they act entrywise, as do ``\sigma``, ``\tanh``, ``\sin``, ``\cos``.  An operator without parentheses takes the product that
  follows: ``\operatorname{tr} A B`` is ``tr(AB)``, ``\log\det X`` is ``log(det(X))``.
* ``\|X\|_F`` (and ``\|x\|``, ``\|x\|_2`` of a vector) the Frobenius/Euclidean norm ``norm2``; the
  spectral norm of a matrix is refused; ``|a|`` the absolute value of a scalar, ``|X|`` the determinant
  of a square matrix (the Matrix Cookbook's notation); ``\langle A, B\rangle`` is ``tr(A^\top B)``
  (refused for complex names: the conjugated slot differs between authors).
* ``\nabla_X f`` the gradient (``grad``, same shape as ``X``); ``\nabla^2_x f``, ``\nabla_x^2 f`` the
  Hessian; ``\frac{\partial f}{\partial X}`` the gradient of a scalar; ``\frac{\partial F}{\partial
  x^\top}`` the Jacobian of a vector ``F`` (rows ``F``'s entries); ``\frac{\partial F}{\partial x}`` of a
  vector ``F`` is refused (its layout differs between authors); ``\frac{\partial^2 f}{\partial x
  \partial x^\top}`` the Hessian; ``\frac{\partial}{\partial X} f``.  ``\nabla`` and ``\frac{\partial}{\partial x}``
  take the whole product that follows, parenthesised factors and ``\cdot``/``\times`` included:
  ``\nabla_x (a^\top x)(b^\top x)`` and ``\nabla_x \lambda \cdot x^\top x`` are the gradients of the products
  and ``\nabla_w (w^\top x - y)^2`` of the square (a function's parentheses, by
  contrast, close its argument: ``\operatorname{tr}(A) B`` is ``tr(A) B``); a sum needs parentheses; explicit
  spacing ends the product (``\nabla_X L \, X^\top`` is ``(\nabla_X L) X^\top``, as ``\det X \, Y`` is ``\det(X) Y``).
* ``I``, ``I_n`` the identity (a bare ``I`` takes its size from a term it is added to or a factor it
  multiplies), ``\mathbf{1}``, ``\mathbf{1}_n`` the column of ones; ``e^{x}`` is ``exp(x)`` unless
  ``e`` is declared; a side that is ``0`` against a matrix side is that matrix's zero (``K + K^\top = 0``).
* names: one Latin letter, a Greek letter (``\lambda`` is ``lamda``), with subscripts (``W_1``,
  ``W_{l+1}`` -> ``W_lp1``) and labels (``W^{(l)}`` -> ``W__l``; ``W^{(l)\top}`` is its transpose), in ``\mathbf``, ``\boldsymbol``,
  ``\bm`` (the same name), ``\hat``, ``\tilde`` (``xhat``, ``Wtilde``), ``\mathcal`` (``Lcal``).
* ``\sum`` (:mod:`theorem_check.expr.latex_sums`): written out for integer bounds, else over entries as whole arrays.
* ignored: ``\left``, ``\right``, ``\big``..., ``\,``, ``\;``, ``\!``, ``\quad``, ``~``, ``&``, ``\label``, a final ``.``/``,``.

A 1x1 product used as a scalar (``x^\top A x + c``, ``(x^\top y) z``, ``\exp(w^\top x)``) is read as its trace.

Shape conventions (without declarations; :func:`convention_shapes`, as matrixcalculus.org): a lower-case Latin
letter is a column ``n x 1``, an upper-case one (Latin or Greek: ``\Sigma``) an ``n x n`` matrix, every other name
(lower-case Greek, multi-letter) a scalar.  A declaration (``--shape``, ``--where``) overrides it name by name.

>>> parse_latex_statement(r"\operatorname{tr}(A B) = \operatorname{tr}(B A)")
('trace(A*B)', 'trace(B*A)')
>>> parse_latex_statement(r"\nabla_X \log\det X = X^{-\top}")
('grad(log(det(X)), X)', '(X**-1).T')
"""

from __future__ import annotations

import functools
import re
from typing import Iterable, Mapping

import sympy as sp

from theorem_check.errors import ExprError, ParseError, ShapeMismatch
from theorem_check.expr.latex_refusals import refuse_applied, refuse_differential, refuse_gradient_scope, refuse_indices
from theorem_check.expr.latex_sizes import is_1x1, is_column, is_one, quotient, size_text
from theorem_check.expr.latex_slash import e_slash
from theorem_check.expr.latex_sums import e_entry, e_scalar
from theorem_check.expr.latex_tree import EULER, name_text, names_of, read, walk
from theorem_check.expr.parse import parse
from theorem_check.validation import quoted

__all__ = ["parse_latex", "parse_latex_statement", "latex_names", "convention_shapes", "latex_side",
           "CONVENTION_SIZE"]

CONVENTION_SIZE = "n"   # the one size letter of the shape conventions

_ADD, _MUL, _NEG, _POW, _ATOM = 1, 2, 3, 4, 5
_SCALAR_FNS = {"exp", "log", "sqrt", "sigmoid", "softplus", "tanh", "sin", "cos", "tan", "abs", "real", "imag", "relu"}


def latex_names(text: str, power_names: Iterable[str] = ()) -> dict[str, str]:
    """String-syntax name -> its convention letter, for every name of a LaTeX statement or side; ``power_names``
    as for :func:`parse_latex_statement`'s ``sizes`` (``x^T`` is a power of the name ``T``)."""
    sides, _ = read(text, power_names=frozenset(power_names))
    names = names_of(sides)
    names.pop("e", None) if _euler_only(sides) else None
    for size in {n[1] for s in sides for n in walk(s) if n[0] in ("ident", "ones") and n[1]}:
        names.pop(size, None)    # I_k, \mathbf{1}_k: k is a size (a dimension), not a vector by the conventions
    return names


def _euler_only(sides) -> bool:
    """True when every ``e`` of the statement is a base of a power (``e^{x}``, read as exp)."""
    bases = sum(1 for s in sides for n in walk(s) if n[0] == "pow" and n[1][0] == "name" and name_text(n[1]) == "e")
    uses = sum(1 for s in sides for n in walk(s) if n[0] == "name" and name_text(n) == "e")
    return uses == bases


def convention_shapes(names: Mapping[str, str], declared: Mapping[str, tuple] | None = None,
                      size: str = CONVENTION_SIZE) -> dict[str, tuple]:
    """Shapes of the names without a declaration (the module docstring): lower-case letter -> ``(size, 1)``,
    upper-case -> ``(size, size)``; scalars and size letters of ``declared`` get none.

    >>> convention_shapes({"x": "x", "A": "A", "lamda": ""})
    {'x': ('n', 1), 'A': ('n', 'n')}
    """
    declared = dict(declared or {})
    letters = {v for s in declared.values() for v in s if isinstance(v, str)} | {size}
    out: dict[str, tuple] = {}
    for name, letter in names.items():
        if name in declared or name in letters or not letter:
            continue
        out[name] = (size, 1) if letter.islower() else (size, size)
    return out


def parse_latex_statement(text: str, shapes: Mapping[str, tuple] | None = None,
                          complex_names: Iterable[str] = (), scalars: Iterable[str] = (),
                          declared: Iterable[str] | None = None, sizes: Iterable[str] = ()) -> tuple[str, str]:
    """``"LHS = RHS"`` in LaTeX -> its two sides in the string syntax (see the module docstring).

    Parameters
    ----------
    text : str
        One identity as printed: exactly one ``=``.
    shapes : mapping name -> (rows, cols), optional
        Shapes of the string-syntax names; names without one are scalars.  None: the conventions.
    complex_names : iterable of str
        Names with complex values: ``\\langle A, B\\rangle`` of one is refused (which slot is conjugated
        differs between authors: ``tr(A^H B)`` or ``tr(A B^H)``; write the trace).
    scalars : iterable of str
        Names declared scalars (``--where '\\sigma > 0'``).  A name written directly before a parenthesis
        (``\\phi(x + y)``, ``\\mathrm{ReLU}(x)``) is a product only when declared (here or in ``shapes``);
        otherwise it is refused, as a function applied would be read as a product (a false linearity PROVED).
        ``\\sigma(...)`` is the sigmoid, refused when ``\\sigma`` is declared or also used as a name.
    declared : iterable of str, optional
        The names the user declared (``shapes`` may hold the conventions' too).  Given, a name before a
        parenthesis that holds one name or number (``W(t)``, ``W(0)``: a value at a time, in papers) is refused
        unless declared here (helper-44: ``W(t) = W(0)`` read as ``W t = W 0``).
    sizes : iterable of str
        Names declared sizes (``--where 'T \\in \\mathbb{N}'``).  A ``T`` or ``H`` declared a scalar or a size makes
        ``x^T`` (``x^H``) its power, not the transpose (helper-64: ``\\gamma^T \\gamma = \\gamma^{T+1}``).

    Raises
    ------
    ParseError
        One line: the unexpected token and its column; an operator or notation refused (and why);
        "not an identity" for a definition (``:=``), ``\\approx``, an inequality, a chain.
    """
    sides, rels = read(text, power_names=frozenset(scalars) | frozenset(sizes))
    if rels != ["="]:
        if not rels:
            raise ParseError(f"statement={quoted(text)} is not an identity: it has no '='")
        bad = [r for r in rels if r != "="]
        what = f"relation {quoted(bad[0])}" if bad else f"a chain of {len(rels)} '='"
        raise ParseError(f"statement={quoted(text)} is not an identity ({what}): give one 'LHS = RHS'")
    refuse_differential(text, sides)
    shapes = convention_shapes(latex_names(text)) if shapes is None else shapes
    refuse_applied(text, sides, shapes, frozenset(scalars), None if declared is None else frozenset(declared))
    if declared is not None:
        refuse_indices(text, sides, frozenset(declared) | frozenset(scalars))
    frozen, cplx, var = _freeze(shapes), frozenset(complex_names), frozenset(scalars) | frozenset(declared or ())
    lhs, rhs = (_Emit(text, frozen, cplx, variables=var).try_emit(s) for s in sides)
    if (lhs is None) != (rhs is None):   # W^T W = I: the bare I takes the other side's shape (not a 1x1 one's:
        shape = _shape((lhs or rhs)[0], frozen)     # 1 1^T x = 1^T x would size the first 1 as 1 x 1)
        if isinstance(shape, tuple) and not is_1x1(shape):
            out = _Emit(text, frozen, cplx, variables=var).try_emit(sides[0] if lhs is None else sides[1], shape)
            lhs, rhs = (out, rhs) if lhs is None else (lhs, out)
    if lhs is None or rhs is None:   # no context sizes it: the statement's one size letter (n by convention)
        default = _one_size(frozen)
        lhs, rhs = (o if o is not None else _Emit(text, frozen, cplx, default, var).emit(s) for o, s in
                    zip((lhs, rhs), sides))
    return _zero_matrix(lhs[0], rhs[0], frozen)


def _zero_matrix(lhs: str, rhs: str, shapes: tuple) -> tuple[str, str]:
    """``K + K^\top = 0``: a side that is the number 0 against a matrix side is that matrix's zero (papers write
    ``0`` for the zero matrix; it was ILL-POSED, "rhs has shape ()", helper-40), as a bare ``I`` takes the
    other side's size.  A 1 x 1 other side keeps the number (a 1 x 1 product is a scalar)."""
    zero = [t.strip() == "0" for t in (lhs, rhs)]
    if zero[0] == zero[1]:
        return lhs, rhs
    shape = _shape(rhs if zero[0] else lhs, shapes)
    if not isinstance(shape, tuple) or is_1x1(shape):
        return lhs, rhs
    z = f"zeros({size_text(shape[0])}, {size_text(shape[1])})"
    return (z, rhs) if zero[0] else (lhs, z)


def _one_size(shapes: tuple):
    """The size letter of every shaped name of the statement when there is exactly one (``n`` when none is
    shaped), else None: the size of a bare ``I`` or ``\\mathbf{1}`` nothing else sizes."""
    sizes = {v for _, shape in shapes for v in shape if v not in (1, "1")}
    if not sizes:
        return CONVENTION_SIZE
    return next(iter(sizes)) if len(sizes) == 1 and isinstance(next(iter(sizes)), str) else None


def latex_side(text: str, shapes: Mapping[str, tuple]) -> str:
    """One LaTeX side (no relation) in the string syntax."""
    sides, rels = read(text, what="expression")
    if rels:
        raise ParseError(f"expression={quoted(text)} is one side: it has the relation {rels[0]!r}")
    return _Emit(text, _freeze(shapes)).side(sides[0])


def parse_latex(text: str, shapes: Mapping[str, tuple], dims: Mapping[str, int] | None = None):
    """One LaTeX side -> the SymPy expression tree of its string-syntax reading
    (``parse(latex_side(text, shapes), shapes, dims)``: same shapes, dims and errors as :func:`parse`)."""
    return parse(latex_side(text, shapes), shapes, dims)


def _freeze(m: Mapping) -> tuple:
    return tuple(sorted((k, tuple(v)) for k, v in m.items()))


@functools.lru_cache(maxsize=4096)
def _shape(text: str, shapes: tuple):
    """The shape of a string-syntax expression with symbolic sizes: (rows, cols), None for a scalar,
    "?" when it does not parse or conform (a statement may be ILL-POSED: that is for the engine)."""
    try:
        e = parse(text, dict(shapes))
    except (ExprError, ShapeMismatch, ValueError, TypeError, AttributeError):
        return "?"
    try:
        return tuple(e.shape) if isinstance(e, sp.MatrixExpr) else None
    except (AttributeError, TypeError, ValueError):      # SymPy cannot say (a power of a scalar transposed)
        return "?"


class _NoSize(ParseError):
    """A bare ``I`` or ``\\mathbf{1}`` whose size the context has not given (yet)."""


class _Emit:
    """A tree of :mod:`latex_tree` -> string-syntax text (shape-aware where LaTeX leaves it open)."""

    def __init__(self, text: str, shapes: tuple, complex_names: frozenset = frozenset(), default_size=None,
                 variables: frozenset = frozenset()):   # variables: declared names (e \in R: e^2 is no exp)
        self.text, self.shapes, self.complex_names, self.variables = text, shapes, complex_names, variables
        self.shaped, self.default_size = {k for k, _ in shapes}, default_size   # a bare I's or 1's size

    def fail(self, msg: str):
        raise ParseError(f"statement={quoted(self.text)}: {msg}")

    e_entry, e_scalar, e_slash = e_entry, e_scalar, e_slash   # sums over entries (latex_sums), a / b c (latex_slash)

    def side(self, node) -> str:
        return self.emit(node)[0]

    def shape(self, txt: str):
        return _shape(txt, self.shapes)

    def wrap(self, t: str, p: int, need: int) -> str:
        return t if p >= need else f"({t})"

    def scalar(self, t: str, p: int) -> tuple[str, int]:
        """``t`` as a scalar: the trace of a 1x1 product."""
        return (f"trace({t})", _ATOM) if is_1x1(self.shape(t)) else (t, p)

    def emit(self, n, hint=None) -> tuple[str, int]:
        return getattr(self, "e_" + n[0])(n, hint)

    def try_emit(self, n, hint=None):
        """``emit(n, hint)``, or None when a constant in ``n`` needs a size the hint does not give."""
        try:
            return self.emit(n, hint)
        except _NoSize:
            return None

    # atoms -------------------------------------------------------------------------------------
    def e_name(self, n, hint):
        return name_text(n), _ATOM

    def e_num(self, n, hint):
        return n[1], _ATOM

    def e_ident(self, n, hint):
        size = n[1]
        if size is None:
            known = [h for h in (hint or ()) if h is not None and h != "?"] or [self.default_size]
            if known[0] is None:
                raise _NoSize(f"statement={quoted(self.text)}: I has no size here (write I_n)")
            size = size_text(known[0])
        return f"eye({size})", _ATOM

    def e_ones(self, n, hint):
        size = n[1]
        if size is None:
            rows = hint[0] if hint and hint[0] not in (None, "?") else self.default_size
            if rows is None:
                raise _NoSize(f"statement={quoted(self.text)}: \\mathbf{{1}} has no size here (write \\mathbf{{1}}_n)")
            size = size_text(rows)
        return f"ones({size}, 1)", _ATOM

    # sums and products -------------------------------------------------------------------------
    def terms(self, n, sign="+"):
        if n[0] == "add":
            return self.terms(n[1], sign) + self.terms(n[2], sign)
        if n[0] == "sub":
            return self.terms(n[1], sign) + self.terms(n[2], "-" if sign == "+" else "+")
        if n[0] == "neg":
            return self.terms(n[1], "-" if sign == "+" else "+")
        return [(sign, n)]

    def e_add(self, n, hint):
        terms = self.terms(n)
        out: list = [None] * len(terms)
        for i, (_, t) in enumerate(terms):
            out[i] = self.try_emit(t)
        sizes = [self.shape(o[0]) for o in out if o is not None]
        full = next((s for s in sizes if isinstance(s, tuple)), hint)
        for i, (_, t) in enumerate(terms):
            if out[i] is None:
                out[i] = self.emit(t, full)
        shapes = [self.shape(o[0]) for o in out]
        vec = next((s for s in shapes if isinstance(s, tuple) and not is_1x1(s) and (is_one(s[0]) or is_one(s[1]))),
                   None)
        if vec is not None:   # 1 - \tanh^2(W x): a number beside a vector is that many ones (helper-40; beside a
            for i, ((_, t), s) in enumerate(zip(terms, shapes)):   # square matrix it stays refused: I or ones?)
                if s is None or is_1x1(s):   # a scalar name or expression too (Adam's \sqrt{v} + \epsilon,
                    refuse_gradient_scope(self.text, terms, i)    # helper-49), a 1 x 1 product as the scalar it is
                    t_, p_ = self.scalar(*out[i])   # (helper-50); not one in a gradient's variable (helper-78)
                    out[i] = (f"{self.wrap(t_, p_, _MUL)}*ones({size_text(vec[0])}, {size_text(vec[1])})", _MUL)
            shapes = [self.shape(o[0]) for o in out]
        if any(s is None for s in shapes) and any(is_1x1(s) for s in shapes):
            out = [self.scalar(*o) for o in out]
        txt = ""
        for i, ((sign, _), (t, p)) in enumerate(zip(terms, out)):
            if i == 0:
                txt = t if sign == "+" else f"-{self.wrap(t, p, _MUL)}"
            else:
                txt += f" {sign} {self.wrap(t, p, _MUL if sign == '-' else _ADD)}"
        return txt, _ADD

    e_sub = e_add

    def e_neg(self, n, hint):
        if n[1][0] in ("add", "sub", "neg"):
            return self.e_add(n, hint)
        t, p = self.emit(n[1], hint)
        return f"-{self.wrap(t, p, _MUL)}", _NEG

    def e_mul(self, n, hint):
        a, b = n[1], n[2]
        ta, tb = self.try_emit(a), self.try_emit(b)
        if ta is None:   # a 1x1 partner is a scalar factor: the size comes from the product's (hint)
            if tb is None:   # the partner unsized too: only the rows are the product's
                ta = self.emit(a, ((hint or (None,))[0], None))
            else:
                sb = self.shape(tb[0])
                ta = self.emit(a, hint if not isinstance(sb, tuple) or is_1x1(sb)
                               else ((hint or (None,))[0], sb[0]))
        if tb is None:
            sa = self.shape(ta[0])
            if b[0] == "ones" and b[1] is None and is_column(sa):
                self.fail(f"'{ta[0]} \\mathbf{{1}}': {ta[0]} is a column vector here, so \\mathbf{{1}} would be 1 x 1; "
                          f"declare {ta[0]} a scalar (--where '{ta[0]} \\in \\mathbb{{R}}') or size the ones "
                          "(\\mathbf{1}_n)")
            tb = self.emit(b, hint if not isinstance(sa, tuple) or is_1x1(sa)
                           else (sa[1], (hint or (None, None))[1]))
        sa, sb = self.shape(ta[0]), self.shape(tb[0])
        if len(n) > 3 and n[3] is True and is_column(sa) and sa == sb:    # u \cdot v of two columns: their dot product
            return f"trace({self.wrap(ta[0], ta[1], _ATOM)}.T*{self.wrap(tb[0], tb[1], _NEG)})", _ATOM
        if is_1x1(sa) and isinstance(sb, tuple) and not is_one(sb[0]):
            ta = self.scalar(*ta)
        if is_1x1(sb) and isinstance(sa, tuple) and not is_one(sa[1]):
            tb = self.scalar(*tb)
        return f"{self.wrap(ta[0], ta[1], _MUL)}*{self.wrap(tb[0], tb[1], _NEG)}", _MUL

    def e_div(self, n, hint):
        ta, tb = self.emit(n[1], hint), self.emit(n[2])
        sa, sb = self.shape(ta[0]), self.shape(tb[0])
        if isinstance(sb, tuple) and not is_1x1(sb) and (is_one(sb[0]) or is_one(sb[1])) \
                and (sa is None or is_1x1(sa) or sa == sb):
            # \frac{m}{\sqrt{v} + \epsilon} of vectors: entrywise (a vector has no inverse; Adam, helper-49)
            num = (f"{self.wrap(self.scalar(*ta)[0], _ATOM if is_1x1(sa) else ta[1], _MUL)}*"
                   if sa is None or is_1x1(sa) else None)
            inv = f"hadamard_power({tb[0]}, -1)"
            return (f"{num}{inv}" if num else f"hadamard({ta[0]}, {inv})"), (_MUL if num else _ATOM)
        if isinstance(sb, tuple) and not is_1x1(sb):
            self.fail(f"division by {quoted(tb[0])}, which is {sb[0]} x {sb[1]} (by the conventions unless declared): "
                      "declare its name a scalar (--where 'NAME \\in \\mathbb{R}'), or write ^{-1} for a matrix inverse")
        if is_1x1(sb):
            tb = self.scalar(*tb)
            sb = None
        if is_1x1(sa) and sb is None:
            ta = self.scalar(*ta)
        return f"{self.wrap(ta[0], ta[1], _MUL)}/{self.wrap(tb[0], tb[1], _NEG)}", _MUL

    def binary_fn(self, fn: str, n, hint, given=None):
        ta, tb = given or (self.emit(n[1], hint), self.emit(n[2], hint))
        for side, bare in zip((n[1], n[2]), n[3]):
            if bare and all(isinstance(self.shape(self.emit(f)[0]), tuple) for f in side[1:3]):
                op = r"\odot" if fn == "hadamard" else r"\otimes"
                self.fail(f"a product of matrices beside {op} without parentheses is ambiguous (authors and SymPy "
                          rf"disagree on which binds tighter): write (A B) {op} C or A (B {op} C)")
        return f"{fn}({ta[0]}, {tb[0]})", _ATOM

    def e_had(self, n, hint):
        return self.binary_fn("hadamard", n, hint)

    def e_hpow(self, n, hint):
        t, _ = self.emit(n[1], hint)
        return (f"hadamard({', '.join([t] * n[2])})" if n[2] > 1 else t), _ATOM

    def e_fpow(self, n, hint):
        """``\\tanh^2(X)``: the power of the function's value, entrywise when that value is a matrix (as the
        function is), a power of the number otherwise (``\\det^2 A``)."""
        t, p = self.emit(n[1], hint)
        sh = self.shape(t)
        if isinstance(sh, tuple) and not is_1x1(sh):
            return self.e_hpow(("hpow", n[1], n[2]), hint)
        t, p = self.scalar(t, p)
        return f"{self.wrap(t, p, _ATOM)}**{n[2]}", _POW

    def e_kron(self, n, hint):
        """``A \\otimes I``: a bare ``I`` (or ``\\mathbf{1}``) beside a factor of known shape ``(r, c)`` in a Kronecker
        product of known shape ``(R, C)`` is ``(R / r) x (C / c)``, not the product's own size (helper-49: ``(B^\\top
        \\otimes I) \\operatorname{vec}(X)`` read ``I`` as ``eye(n*p)``, ILL-POSED); otherwise as any binary function."""
        if hint:
            own = [self.try_emit(f) for f in (n[1], n[2])]
            if (own[0] is None) != (own[1] is None):
                k = 0 if own[0] is not None else 1
                sh = self.shape(own[k][0])
                sub = tuple(quotient(h, v) for h, v in zip(hint, sh)) if isinstance(sh, tuple) else None
                if sub and any(v is not None for v in sub):
                    other = self.try_emit(n[2 - k], sub)
                    if other is not None:
                        return self.binary_fn("kron", n, hint, given=(own[0] or other, own[1] or other))
        return self.binary_fn("kron", n, hint)

    # postfix -----------------------------------------------------------------------------------
    def postfix(self, n, hint, suffix: str, transposed: bool = False):
        h = (hint[1], hint[0]) if (transposed and hint) else hint
        t, p = self.emit(n[1], h)
        if t.lstrip("-").replace(".", "").isdigit():
            p = _NEG
        return f"{self.wrap(t, p, _ATOM)}{suffix}", _ATOM

    def e_T(self, n, hint):
        return self.postfix(n, hint, ".T", transposed=True)

    def e_H(self, n, hint):
        real = n[1][0] != "name" or name_text(n[1]) not in self.complex_names
        if len(n) > 3 and real:                  # x^* of a real x: the name xstar (an optimum)
            return self.emit(n[3], hint)
        if len(n) > 2 and n[2] == "dagger" and not self.complex_names:
            self.fail(r"'^\dagger' in a real statement: the pseudo-inverse (as in most ML papers) or the transpose? "
                      r"theorem-check has no pseudo-inverse; write ^\top for the transpose, or declare the complex "
                      r"names (--assume A=complex) for the conjugate transpose")
        if n[1][0] == "name" and name_text(n[1]) not in self.shaped:
            return f"conj({name_text(n[1])})", _ATOM
        return self.postfix(n, hint, ".H", transposed=True)

    def e_inv(self, n, hint):
        t, p = self.emit(n[1], hint)
        return f"{self.wrap(t, p, _ATOM)}**-1", _POW

    def e_invT(self, n, hint):
        t, p = self.emit(n[1], hint)
        return f"({self.wrap(t, p, _ATOM)}**-1).T", _ATOM

    def e_conj(self, n, hint):
        if len(n) > 2 and name_text(n[1]) not in self.complex_names:     # \bar{x} of a real x: the name xbar
            return self.emit(n[2], hint)
        return f"conj({self.emit(n[1], hint)[0]})", _ATOM

    def e_pow(self, n, hint):
        base, ex = n[1], n[2]
        if (base[0] == "name" and name_text(base) == "e" and "e" not in self.shaped | self.variables) \
                or base == ("num", EULER):
            t, p = self.scalar(*self.emit(ex))
            self.ambiguous_square("exp", t)
            return f"exp({t})", _ATOM
        tb, pb = self.scalar(*self.emit(base, hint))
        te, pe = self.emit(ex)
        if self.shape(tb) is None and is_column(she := self.shape(te)):   # \beta_1^t, t a column (helper-66)
            self.fail(f"the exponent {quoted(te)} is a {she[0]} x {she[1]} vector by the conventions: declare it a "
                      rf"size or a scalar (--where '{te} \in \mathbb{{N}}' or \mathbb{{R}})")
        if tb.lstrip("-").replace(".", "").isdigit():
            pb = _NEG
        sh = self.shape(tb)   # \tanh(W x)^2 of a vector: no matrix power exists, papers mean the entries' square
        if te.lstrip("-").replace("/", "").isdigit() and isinstance(sh, tuple) and not is_1x1(sh) \
                and sp.sympify(sh[0]) != sp.sympify(sh[1]):   # (helper-40: it was ILL-POSED); g^2 of a name: or g^T g?
            if base[0] != "call":
                self.fail(f"{tb}^{te} of a {sh[0]} x {sh[1]} vector: write {tb} \\odot {tb} or {tb}^{{\\circ {te}}} "
                          "(entrywise), or the product meant")
            return f"hadamard_power({tb}, {te})", _ATOM
        return f"{self.wrap(tb, pb, _ATOM)}**{self.wrap(te, pe, _ATOM)}", _POW

    # functions ---------------------------------------------------------------------------------
    def ambiguous_square(self, fn: str, t: str) -> None:
        """ParseError when ``exp``/``log``/``sqrt`` (written without ``_\\odot``) gets a square matrix:
        papers mean the matrix function as often as the entrywise one."""
        sh = self.shape(t)
        if isinstance(sh, tuple) and not is_1x1(sh) and sh[0] == sh[1]:
            matrix = {"exp": r"\operatorname{expm}", "log": r"\operatorname{logm}", "sqrt": "X^{1/2}"}[fn]
            self.fail(rf"\{fn} of the square matrix {t} is ambiguous: write {matrix} for the matrix function or "
                      rf"\{'operatorname{sqrt}' if fn == 'sqrt' else fn}_\odot(...) for the entrywise one")

    def e_call(self, n, hint):
        fn, args = n[1], n[2]
        entrywise = fn.endswith("@")
        fn = fn.rstrip("@")
        texts = [self.emit(a)[0] for a in args]
        if fn in ("exp", "log", "sqrt") and len(texts) == 1 and not entrywise:
            self.ambiguous_square(fn, texts[0])
        if fn in _SCALAR_FNS and len(args) == 1:
            texts = [self.scalar(texts[0], _ATOM)[0]]
        if fn == "logdet":
            return f"log(det({', '.join(texts)}))", _ATOM
        return f"{fn}({', '.join(texts)})", _ATOM

    def e_bars(self, n, hint):
        t, _ = self.emit(n[1])
        sh = self.shape(t)
        if sh is None or sh == "?":
            return f"abs({t})", _ATOM
        if is_1x1(sh):
            return f"abs(trace({t}))", _ATOM
        if sh[0] == sh[1]:
            return f"det({t})", _ATOM
        self.fail(f"|{t}| of a {sh[0]} x {sh[1]} matrix: a norm? (write \\|{t}\\|_F)")

    def e_norm(self, n, hint):
        t, _ = self.emit(n[1])
        sub = n[2]
        sh = self.shape(t)
        vector = isinstance(sh, tuple) and (is_one(sh[0]) or is_one(sh[1]))
        if sh is None:
            return f"abs({t})", _ATOM
        if sub in ("F", r"\mathrm{F}", r"\text{F}", "Fro", r"\mathrm{Fro}") or (sub in (None, "2") and vector) \
                or sh == "?":
            return f"norm2({t})", _ATOM
        if sub in (None, "2"):
            self.fail(rf"\|{t}\|{'_2' if sub else ''} of a matrix: the spectral norm is not supported "
                      r"(write \|X\|_F for the Frobenius norm)")
        self.fail(rf"the norm \|.\|_{{{sub}}} is not supported (\|X\|_F and \|x\|_2 are)")

    def e_inner(self, n, hint):
        ta, tb = self.emit(n[1]), self.emit(n[2])
        cplx = sorted(self.complex_names & set(re.findall(r"[A-Za-z_]\w*", f"{ta[0]} {tb[0]}")))
        if cplx:
            self.fail(rf"\langle .,. \rangle of the complex {cplx[0]}: which slot is conjugated differs between "
                      r"authors; write the trace (\operatorname{tr}(A^H B) or \operatorname{tr}(A B^H))")
        sa = self.shape(ta[0])
        if sa is None:
            return f"{self.wrap(ta[0], ta[1], _MUL)}*{self.wrap(tb[0], tb[1], _NEG)}", _MUL
        return f"trace({self.wrap(ta[0], ta[1], _ATOM)}.T*{self.wrap(tb[0], tb[1], _NEG)})", _ATOM

    def e_grad(self, n, hint):
        f, _ = self.scalar(*self.emit(n[1]))
        return f"grad({f}, {name_text(n[2])})", _ATOM

    def e_hess(self, n, hint):
        f, _ = self.scalar(*self.emit(n[1]))
        return f"hessian({f}, {name_text(n[2])})", _ATOM

    def e_partial(self, n, hint):
        (wrt, transposed), = n[2]
        f, p = self.emit(n[1])
        sh = self.shape(f)
        w = name_text(wrt)
        if sh is None or is_1x1(sh) or sh == "?":
            f, _ = self.scalar(f, p)
            return (f"grad({f}, {w}).T", _ATOM) if transposed else (f"grad({f}, {w})", _ATOM)
        if transposed and is_one(sh[1]):
            return f"jacobian({f}, {w})", _ATOM
        self.fail(rf"\frac{{\partial F}}{{\partial {w}}} of a non-scalar F: the layout differs between authors "
                  rf"(write \frac{{\partial F}}{{\partial {w}^\top}} for the Jacobian of a column F)")
