"""LaTeX of SymPy expressions and symbol names (the expression layer's printer).

:data:`SYMBOL_NAMES` maps SymPy symbol names that SymPy's printer would mangle to their LaTeX;
:func:`expr_latex` prints an expression with the engine's conventions (``\\det``, ``\\operatorname{tr}``).
"""

from __future__ import annotations

import functools as _functools
import re

__all__ = ["SYMBOL_NAMES", "symbol_latex", "expr_latex", "sympy_latex", "retex"]


SYMBOL_NAMES: dict[str, str] = {
    "sigma2": r"\sigma^{2}", "TrSigmaA": r"\operatorname{Tr}\Sigma A", "Sigma_eps": r"\Sigma_{\varepsilon}",
    "Sigma_u^{1/2}": r"\Sigma_u^{1/2}", "h^i(x_1)": r"h^{i}(x_1)", "h^i(x_2)": r"h^{i}(x_2)",
}
"""LaTeX for SymPy symbol names that SymPy's printer would mangle (``sigma2`` -> ``\\sigma_{2}``,
``TrSigmaA`` verbatim).  Keys are ``Symbol.name``; extend it from a claim pack
(``theorem_check.output.latex.SYMBOL_NAMES["rho2"] = r"\\rho^{2}"``).  Names that start with a Greek
letter's word followed by ``_`` or ``^`` (``delta^{i+2}``, ``Sigma_u``) get the backslash
automatically (:func:`symbol_latex`)."""

_GREEK_WORDS = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi "
                "rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi "
                "Psi Omega").split()
_GREEK_HEAD = re.compile(r"^(" + "|".join(sorted(_GREEK_WORDS, key=len, reverse=True)) + r")(?=[_^])")


def symbol_latex(name: str) -> str | None:
    """LaTeX for a SymPy symbol name, or None when SymPy's own printing is right.

    >>> symbol_latex("sigma2"), symbol_latex("delta^{i+2}"), symbol_latex("W_i")
    ('\\\\sigma^{2}', '\\\\delta^{i+2}', None)
    """
    if name in SYMBOL_NAMES:
        return SYMBOL_NAMES[name]
    m = _GREEK_HEAD.match(name)
    if m and ("{" in name or "^" in name):
        return "\\" + name
    return None


def expr_latex(expr) -> str:
    """LaTeX of a parsed expression side (:mod:`theorem_check.expr`): ``sympy.latex`` except that a
    determinant prints as ``\\det\\left(X\\right)``, not SymPy's ``\\left|X\\right|`` (which reads as
    a norm, and as ``||X||`` inside ``abs``)."""
    return _expr_printer()().doprint(expr)


@_functools.lru_cache(maxsize=1)
def _expr_printer():
    """The printer class of :func:`expr_latex` (built once; SymPy is imported lazily)."""
    from sympy import HadamardPower, HadamardProduct, KroneckerProduct
    from sympy.printing.latex import LatexPrinter

    class _Printer(LatexPrinter):
        def _print_Determinant(self, e):
            return r"\det\left(" + self._print(e.arg) + r"\right)"

        def _print_MatMul(self, expr):
            """SymPy's, except that a Hadamard or Kronecker factor is parenthesised: SymPy prints
            ``A (B \\circ C)`` as ``A B \\circ C``, which papers read as ``(A B) \\circ C``."""
            from sympy import MatMul, Mul
            from sympy.printing.precedence import precedence_traditional

            def parens(x):
                if isinstance(x, (HadamardProduct, KroneckerProduct, HadamardPower)):
                    return self._add_parens(self._print(x))
                if isinstance(x, Mul) and not isinstance(x, MatMul):
                    return self._print(x)
                return self.parenthesize(x, precedence_traditional(expr), False)

            args = list(expr.args)
            if expr.could_extract_minus_sign():
                if args[0] == -1:
                    args = args[1:]
                else:
                    args[0] = -args[0]
                return "- " + " ".join(map(parens, args))
            return " ".join(map(parens, args))

    return _Printer


def sympy_latex(expr) -> str:
    """``sympy.latex(expr)`` with :func:`symbol_latex` names for the symbols SymPy would mangle."""
    import sympy as sp

    names = {}
    try:
        free = expr.free_symbols
    except AttributeError:
        free = set()
    for s in free:
        tex = symbol_latex(getattr(s, "name", ""))
        if tex is not None:
            names[s] = tex
    return sp.latex(expr, symbol_names=names) if names else sp.latex(expr)


_RETEX: list[tuple[re.Pattern, str]] | None = None


def retex(src: str) -> str:
    """Rewrite SymPy's default printing of the :data:`SYMBOL_NAMES` symbols in an already printed string.

    Derivation steps reach the report as LaTeX strings (printed by :mod:`theorem_check.engine.symbolic`);
    this maps e.g. ``\\sigma_{2}`` (SymPy's rendering of the name ``sigma2``) to ``\\sigma^{2}``,
    at token boundaries.  Only the explicit table is applied (a rendering such as ``\\sigma_{2}``
    could also come from a symbol named ``sigma_2``: keep the table's names distinctive).
    """
    global _RETEX
    import sympy as sp

    if _RETEX is None or len(_RETEX) != len(SYMBOL_NAMES):
        pats = []
        for name, tex in SYMBOL_NAMES.items():
            default = sp.latex(sp.Symbol(name))
            if default != tex:
                pats.append((re.compile(re.escape(default) + r"(?![A-Za-z0-9])"), tex))
        _RETEX = pats
    for pat, tex in _RETEX:
        src = pat.sub(lambda _m, t=tex: "{" + t + "}", src)
    return src
