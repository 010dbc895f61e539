"""``a / b c``: a slash with factors juxtaposed after its denominator, read as papers mean it (design decision 224).

``x^\\top x / 2n``, ``\\|x - y\\|^2 / 2\\ell^2``, ``g / \\lambda\\eta`` are ``x^\\top x / (2n)``, ... in papers (typography
binds juxtaposition tighter than the slash: ``1/2\\pi`` is ``1/(2\\pi)``), where the grammar's left-to-right product made
them ``(x^\\top x / 2) n`` and true statements REFUTED (helper-83).  But ``1/n\\, x`` and ``1/2n \\|x\\|^2`` mean ``(1/n) x``
and ``(1/(2n)) \\|x\\|^2``.  The tree keeps ``("slash", a, b, [c, ...])`` and the emitter, which knows the shapes, moves
into the denominator each juxtaposed factor, left to right, while it is an atom of the notation (a number, a name, a
power or subscript of one) whose value is a scalar; the first other factor and those after it multiply the quotient
(``(a / (b c)) d``).  Where a name joined the denominator and more factors follow, the statement is refused as
ambiguous (``1/2n \\|x\\|^2`` and ``1/2 \\lambda \\|w\\|^2`` have one shape and two meanings).  An explicit ``\\cdot``
ends the denominator as written (``a/2 \\cdot n`` is ``(a/2) n``).
"""

from __future__ import annotations

__all__ = ["e_slash"]


def _atom(node) -> bool:
    if node[0] in ("num", "name"):
        return True
    return node[0] == "pow" and node[1][0] in ("num", "name") and node[2][0] in ("num", "name")


def e_slash(self, n, hint):
    """``("slash", a, b, [c, ...])`` as ``(a / (b c ...)) d ...`` (see the module docstring); a method of
    :class:`theorem_check.expr.latex._Emit`."""
    _, a, b, rest = n
    den, k = b, 0
    while k < len(rest) and _atom(rest[k]) and self.shape(self.emit(rest[k])[0]) is None:
        den, k = ("mul", den, rest[k]), k + 1
    if k < len(rest) and any(r[0] != "num" for r in rest[:k]):
        self.fail(f"'{self.emit(a)[0]}/{self.emit(den)[0]} ...' followed by more factors is ambiguous (papers mean "
                  r"1/2n \|x\|^2 as 1/(2n) \|x\|^2 and 1/2 \lambda \|w\|^2 as (1/2) \lambda \|w\|^2): write rac{}{} "
                  "for the quotient")
    out = ("div", a, den)
    for c in rest[k:]:
        out = ("mul", out, c)
    return self.emit(out, hint)
