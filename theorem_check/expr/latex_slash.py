"""``a / b c``: a slash with factors juxtaposed after its denominator (design decision 224).

The grammar's left-to-right product made ``x^\\top x / 2n`` ``(x^\\top x / 2) n``.  Papers that write ``x/2n``,
``\\|x - y\\|^2 / 2\\ell^2`` mean ``x/(2n)`` (helper-83: true statements REFUTED); others write ``1/2 \\lambda w`` for
``(1/2) \\lambda w`` (helper-85: read as ``1/(2\\lambda) w``, the false ``1/2 \\lambda w = \\frac{1}{2\\lambda} w`` was
PROVED).  Both conventions are in print, so the tree keeps ``("slash", a, b, [c, ...])`` and the emitter, which knows
the shapes, reads only what has one meaning:

* a row denominator takes the factors that make it a scalar (``x^\\top y / x^\\top x`` is ``/(x^\\top x)``: a division by
  a row has no other meaning; helper-84: it was the entrywise reciprocal of ``x^\\top`` times ``x``);
* a vector or matrix after the denominator multiplies the quotient (``1/n\\, x``, ``\\eta/2 g``), and so does a scalar
  that is not a plain name or number after a number (``1/2 \\|x\\|^2``);
* a scalar name, number or power after the denominator, or any scalar after a denominator that is not a number
  (``x/2n``, ``1/2 \\lambda``, the cosine ``x^\\top y/\\|x\\|\\|y\\|``), is refused as ambiguous: write ``\\frac{}{}``;
* a derivative divided by an expression in its variable (``\\nabla_x x^\\top y / x^\\top x``: the operator takes the
  product only) is refused, as decision 223d refuses a sum after it.

An explicit ``\\cdot`` ends the denominator as written (``a/2 \\cdot n`` is ``(a/2) n``), and so does a parenthesised one
(``a/(b) c`` is ``(a/b) c``).
"""

from __future__ import annotations

from theorem_check.expr.latex_refusals import refuse_derivative_quotient
from theorem_check.expr.latex_sizes import is_1x1

__all__ = ["e_slash"]


def _atom(node) -> bool:
    if node[0] in ("num", "name"):
        return True
    return node[0] == "pow" and node[1][0] in ("num", "name") and node[2][0] in ("num", "name")


def _scalar(self, node) -> bool:
    sh = self.shape(self.emit(node)[0])
    return sh is None or (isinstance(sh, tuple) and is_1x1(sh))


def e_slash(self, n, hint):
    """``("slash", a, b, [c, ...])`` as ``(a / (b c ...)) d ...`` (see the module docstring); a method of
    :class:`theorem_check.expr.latex._Emit`."""
    _, a, b, rest = n
    den, k = b, 0
    while k < len(rest) and not _scalar(self, den):    # x^T y / x^T x: the row x^T takes x, a 1 x 1 denominator
        den, k = ("mul", den, rest[k]), k + 1
    if k < len(rest) and _scalar(self, rest[k]) and (den[0] != "num" or _atom(rest[k])):
        self.fail(f"'{self.emit(a)[0]}/{self.emit(den)[0]}' followed by the scalar {self.emit(rest[k])[0]} is "
                  r"ambiguous (x/2n is x/(2n) in most papers, 1/2 \lambda w is (1/2) \lambda w in others, and "
                  r"x^\top y/\|x\|\|y\| divides by both norms): write \frac{}{} for the quotient")
    refuse_derivative_quotient(self.text, a, den)      # \nabla_x x^\top y / x^\top x: the operator takes the product
    out = ("div", a, den)
    for c in rest[k:]:
        out = ("mul", out, c)
    return self.emit(out, hint)
