"""``a / b c``: a slash with factors juxtaposed after its denominator, read as papers mean it (design decision 224).

``x^\\top x / 2n``, ``\\|x - y\\|^2 / 2\\ell^2``, ``g / \\lambda\\eta`` are ``x^\\top x / (2n)``, ... in papers (typography
binds juxtaposition tighter than the slash: ``1/2\\pi`` is ``1/(2\\pi)``), where the grammar's left-to-right product made
them ``(x^\\top x / 2) n`` and true statements REFUTED (helper-83).  But ``1/n\\, x`` means ``(1/n) x``.  The tree keeps ``("slash", a, b, [c, ...])`` and the emitter, which knows the shapes, moves
into the denominator each juxtaposed factor, left to right, while it is an atom of the notation (a number, a name, a
power or subscript of one) whose value is a scalar, after first taking what makes a row denominator a scalar
(``x^\\top y / x^\\top x``); the first other factor and those after it multiply the quotient (``(a / (b c)) d``).  A
denominator that is not a number followed by another scalar is refused as ambiguous (``x^\\top y/\\|x\\|\\|y\\|``
means ``/(\\|x\\|\\|y\\|)``, ``1/2 \\lambda \\|w\\|^2`` means ``(1/2)\\lambda \\|w\\|^2``: the same shape; helper-84).  An
explicit ``\\cdot`` ends the denominator as written (``a/2 \\cdot n`` is ``(a/2) n``), and so does a parenthesised one
(``a/(b) c`` is ``(a/b) c``).
"""

from __future__ import annotations

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
    while k < len(rest) and _atom(rest[k]) and self.shape(self.emit(rest[k])[0]) is None:
        den, k = ("mul", den, rest[k]), k + 1
    if k < len(rest) and den[0] != "num" and _scalar(self, rest[k]):
        self.fail(f"'{self.emit(a)[0]}/({self.emit(den)[0]})' followed by the scalar {self.emit(rest[k])[0]} is "
                  r"ambiguous (papers mean x^\top y/\|x\|\|y\| as x^\top y/(\|x\|\|y\|) and 1/2 \lambda \|w\|^2 as "
                  r"(1/2) \lambda \|w\|^2): write \frac{}{} for the quotient")
    out = ("div", a, den)
    for c in rest[k:]:
        out = ("mul", out, c)
    return self.emit(out, hint)
