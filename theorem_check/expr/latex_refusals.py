"""What the LaTeX reader refuses in a whole statement, knowing what the user declared: a name before a
parenthesis that may be a function applied (``\\phi(x + y)``, ``W(t)``), an ambiguous ``\\sigma(...)``, an entry in
index notation (``A_{ij}``).  Each reading would be a product or a new matrix, and a wrong verdict (design decisions
142, 177; helper-44)."""

from __future__ import annotations

import re
from typing import Mapping

from theorem_check.errors import ParseError
from theorem_check.expr.latex_tree import applied_names, name_text, names_of, walk
from theorem_check.validation import quoted

__all__ = ["refuse_applied", "refuse_derivative_quotient", "refuse_differential", "refuse_gradient_scope",
           "refuse_indices"]

_DIFFERENTIAL = re.compile(r"\\(?:mathrm|text|textrm|operatorname|mathop|rm)\s*\{\s*d\s*\}|\{\s*\\rm\s+d\s*\}"
                           r"|\\mathrm\s+d(?![A-Za-z])")
"""An upright d: ``\\mathrm{d}``, ``{\\rm d}``, ``\\text{d}``, ``\\operatorname{d}`` (the differential's typesetting)."""


def _variables(node) -> list[str]:
    """The variables of a derivative node (``grad``, ``hess``, ``partial``) as string-syntax names; [] for another node."""
    if node[0] in ("grad", "hess"):
        return [name_text(node[2])]
    return [name_text(w) for w, _ in node[2]] if node[0] == "partial" else []


def refuse_differential(text: str, sides=()) -> None:
    """Refuse an upright ``d`` (``\\mathrm{d}x``): the differential of Magnus-Neudecker's calculus, which the reader
    would take for a column vector named ``d`` times ``x`` (helper-64: ``\\mathrm{d}(\\alpha\\beta) = \\alpha\\,
    \\mathrm{d}\\beta``, the product rule without a term, was PROVED as ``d*alpha*beta = alpha*d*beta``, and the
    correct ``\\mathrm{d}\\log\\alpha = \\mathrm{d}\\alpha/\\alpha`` REFUTED).  A plain ``d`` stays a name.

    Also refuse, in the trees ``sides``, a derivative of an expression in which its variable does not occur
    (``\\nabla_{W_1} \\ell``): a paper's abstract function, which the reader would take for a constant with the
    derivative 0 (helper-78: ``\\nabla_{W_1} \\ell = W_2 \\nabla_{W_2} \\ell``, false, was PROVED as 0 = 0)."""
    for s in sides:
        for n in walk(s):
            for w in _variables(n):
                if w not in names_of([n[1]]):
                    raise ParseError(f"statement={quoted(text)}: the derivative with respect to {w} of an "
                                     f"expression without {w} (an abstract function such as \\ell or L, "
                                     "which would read as a constant with derivative 0): write the function itself "
                                     "(e.g. \\frac{1}{2}\\|W_2 W_1 X - Y\\|_F^2)")
    m = _DIFFERENTIAL.search(text)
    if m:
        raise ParseError(f"statement={quoted(text)}: {quoted(m.group(0))} is a differential (d(x^2) = 2x\\,dx), "
                         "which theorem-check does not read: write the derivative (\\nabla_x f, "
                         "\\frac{\\partial f}{\\partial x}), or a plain d for a vector named d")


def refuse_indices(text: str, sides, declared: frozenset) -> None:
    """Refuse an undeclared name subscripted by two index letters (``A_{ij}``): an entry in index notation, which
    the reader would take for a new matrix ``A_ij`` (helper-44: ``A_{ij} = A_{ji}`` was REFUTED as two matrices)."""
    for s in sides:
        for n in walk(s):
            if n[0] == "name" and re.fullmatch(r"[ijklmnpqrst]{2}", n[2] or "") and name_text(n) not in declared:
                raise ParseError(f"statement={quoted(text)}: '{n[1]}_{{{n[2]}}}' reads as an entry (index notation), which "
                                 f"theorem-check does not evaluate: write the statement of whole matrices "
                                 f"({n[1]} = {n[1]}^\\top), or declare {name_text(n)} (--where) as a name")


COEFFICIENTS = frozenset({"eta", "alpha", "beta", "gamma", "epsilon"})   # \varepsilon reads as epsilon
"""Lower-case Greek letters that papers write before a parenthesis as a coefficient, a step size or a rate
(``x - \\eta (A x - b)``, ``(1 - \\beta)(g - m)``), seldom as a function: a product without a declaration
(helper-71: 7 refusals in 784 runs).  ``\\eta(t)`` (one name or number inside: a value at a time) and ``\\eta^2(x)``
stay refused, and so does ``\\lambda(A)`` (an eigenvalue), ``\\phi``, ``\\sigma``, ``\\rho``."""


def refuse_applied(text: str, sides, shapes: Mapping, scalars: frozenset, declared: frozenset | None = None) -> None:
    """Refuse a name before a parenthesis that no declaration makes a factor, and an ambiguous ``\\sigma(``
    (see :func:`parse_latex_statement`; a helper's find: ``\\phi(x + y) = \\phi(x) + \\phi(y)`` was PROVED)."""
    applied, sigmoid = applied_names(text)
    letters = {d for shape in shapes.values() for d in (shape or ()) if isinstance(d, str)}   # sizes: numbers
    for name, tex, atom in applied:
        if name in letters and "^" not in tex:   # m (\gamma \odot g) with g in R^m: a size times (helper-64)
            continue
        coefficient = name in COEFFICIENTS and not atom and "^" not in tex
        if name not in shapes and name not in scalars and not coefficient:
            raise ParseError(f"statement={quoted(text)}: '{tex}(...)' reads as a function applied or as a product: a "
                             f"name before a parenthesis is a factor only when declared (--where "
                             f"'{tex.split('^')[0]} \\in \\mathbb{{R}}'), or write '\\cdot' between them")
        if atom and (declared is not None or name in COEFFICIENTS) and name not in (declared or ()) \
                and name not in scalars:
            raise ParseError(f"statement={quoted(text)}: '{tex}({atom})' reads as {tex} at {atom} (a value at a time, as in "
                             f"W(0)) or as the product {tex} {atom}: name the value ({tex}_{{{atom}}}), or declare "
                             f"{tex} (--where) for the product")
    if sigmoid and ("sigma" in scalars or "sigma" in shapes or "sigma" in names_of(sides)):
        raise ParseError(f"statement={quoted(text)}: '\\sigma(...)' is read as the sigmoid, but \\sigma is also "
                         "declared or used as a name: write '\\sigma \\cdot (...)' for a product, or "
                         "'\\operatorname{sigmoid}(...)'")


def refuse_gradient_scope(text: str, terms, i: int) -> None:
    """Refuse the scalar term ``terms[i]`` (of a sum beside a vector, about to be read as that many ones) when it holds
    the variable of a derivative that is another term: ``\\nabla_w \\frac12\\|X w - y\\|^2 + \\frac{\\lambda}{2}\\|w\\|^2``,
    whose operator takes the product that follows, was the gradient of the first term plus the regulariser spread
    over a vector of ones (helper-78: the ridge gradient REFUTED); the paper means the gradient of the sum."""
    names = names_of([terms[i][1]])
    for _, t in terms:
        hit = next((w for w in _variables(t) if w in names), None)
        if hit:
            raise ParseError(f"statement={quoted(text)}: a derivative with respect to {hit} takes the product that "
                             f"follows, so a scalar term in {hit} after it is added to the derivative (as that "
                             f"many ones): write \\nabla_{{{hit}}} (f + g) for the derivative of the sum, or "
                             f"(\\nabla_{{{hit}}} f) + g \\mathbf{{1}} if that is meant")


def refuse_derivative_quotient(text: str, derivative, den) -> None:
    """Refuse ``derivative / den`` (a slash after a derivative, :mod:`theorem_check.expr.latex_slash`) when ``den``
    holds the derivative's variable: the operator takes the product that follows, so ``\\nabla_x x^\\top y / x^\\top x``
    divides the derivative (helper-85: the quotient rule REFUTED), as :func:`refuse_gradient_scope` refuses a sum."""
    if any(w in names_of([den]) for w in _variables(derivative)):
        raise ParseError(f"statement={quoted(text)}: a derivative takes the product that follows, so a division after "
                         r"it by an expression in its variable divides the derivative: write \nabla_x (f / g) or "
                         r"\frac{\nabla_x f}{g}")
