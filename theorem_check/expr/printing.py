"""LaTeX of SymPy expressions and symbol names (the expression layer's printer).

:data:`SYMBOL_NAMES` maps SymPy symbol names that SymPy's printer would mangle to their LaTeX;
:func:`expr_latex` prints an expression with the engine's conventions (``\\det``, ``\\operatorname{tr}``).
"""

from __future__ import annotations

import functools as _functools
import re

__all__ = ["SYMBOL_NAMES", "symbol_latex", "expr_latex", "expr_text", "sympy_latex", "retex"]


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
    a norm, and as ``||X||`` inside ``abs``), and a term with a minus sign is subtracted (SymPy's sum printed
    ``A + - \\operatorname{tr}(A) A``: its sign test and its product printer disagree on ``(-tr A) A``)."""
    return _expr_printer()().doprint(expr).replace(" + - ", " - ")


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
        def _print_DiagMatrix(self, e):
            return r"\operatorname{diag}\left(" + self._print(e.args[0]) + r"\right)"

        def _print_DiagonalOf(self, e):
            return r"\operatorname{diag}\left(" + self._print(e.arg) + r"\right)"

        def _print_OneMatrix(self, e):
            return r"\mathbf{1}_{" + self._print(e.rows) + r"\times " + self._print(e.cols) + "}"

    return _Printer


def expr_text(expr) -> str:
    """An expression in the string syntax of ``check`` (:mod:`theorem_check.expr.parse`), so that it can be
    pasted back into a statement: ``X.T**-1``, ``hadamard(A, B)``, ``exp(X)`` (entrywise), ``eye(n)``,
    ``ones(n, 1)``, ``diag(x)``, ``trace(A)``, ``det(X)``, ``softmax(x, 0)``, ``kron(A, B)``.

    >>> import sympy as sp
    >>> X = sp.MatrixSymbol("X", 2, 2)
    >>> expr_text(sp.Determinant(X) * sp.Inverse(X.T))
    'det(X)*X.T**-1'
    """
    return _text_printer()().doprint(expr)


@_functools.lru_cache(maxsize=1)
def _text_printer():
    """The printer class of :func:`expr_text` (SymPy's ``StrPrinter`` with the syntax's function names)."""
    from sympy.printing.precedence import PRECEDENCE
    from sympy.printing.str import StrPrinter

    class _Printer(StrPrinter):
        def _call(self, name, *args):
            return f"{name}({', '.join(self._print(a) for a in args)})"

        def _print_Trace(self, e):
            return self._call("trace", e.arg)

        def _print_Determinant(self, e):
            return self._call("det", e.arg)

        def _print_HadamardProduct(self, e):
            return self._call("hadamard", *e.args)

        def _print_KroneckerProduct(self, e):
            return self._call("kron", *e.args)

        def _print_Identity(self, e):
            return self._call("eye", e.rows)

        def _print_ZeroMatrix(self, e):
            return self._call("zeros", e.rows, e.cols)

        def _print_OneMatrix(self, e):
            return self._call("ones", e.rows, e.cols)

        def _print_DiagMatrix(self, e):
            return self._call("diag", e.args[0])

        def _print_DiagonalOf(self, e):
            return self._call("diag", e.arg)

        def _print_Inverse(self, e):
            return self.parenthesize(e.arg, PRECEDENCE["Pow"]) + "**-1"

        def _print_HadamardPower(self, e):
            k = e.exp
            if k == 1:
                return self._print(e.base)
            if k.is_Integer and 1 <= int(k) <= 8:
                return self._call("hadamard", *([e.base] * int(k)))
            return f"hadamard_power({self._print(e.base)}, {self._print(k)})"

        def _print_MatPow(self, e):
            return self.parenthesize(e.base, PRECEDENCE["Pow"]) + f"**{self._print(e.exp)}"

        def _print_Transpose(self, e):
            return self.parenthesize(e.arg, PRECEDENCE["Pow"]) + ".T"

        def _print_ElementwiseApplyFunction(self, e):
            fn = e.function
            body = fn.expr if isinstance(fn, sp_Lambda()) else None
            if body is not None and len(fn.variables) == 1 and body.args == fn.variables:
                return self._call(type(body).__name__, e.expr)
            from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

            from theorem_check.expr.nodes import entrywise

            node = entrywise(fn, e.expr)   # a body of sums, products, powers, g(d): hadamard, ones, sigmoid(X), ...
            if not isinstance(node, ElementwiseApplyFunction):
                return self._print(node)
            var = fn.variables[0]   # not in the string syntax: an unknown function name, never a wrong reading
            return f"entrywise({self._print(body.xreplace({var: _Entry('d')}))}, {self._print(e.expr)})"

        def _print__Entry(self, e):
            return e.name

        def _print_Softmax(self, e):
            return self._call("softmax", e.args[0], e.axis)

        def _print_LogSumExp(self, e):
            return self._call("logsumexp", e.args[0], e.axis)

        _print_LogSumExpAxis = _print_LogSumExp

        def _print_Vec(self, e):
            return self._call("vec", e.args[0])

        def _print_Symbol(self, e):
            return e.name

    return _Printer


def sp_Lambda():  # noqa: N802 - SymPy's class, imported lazily
    """SymPy's ``Lambda`` class (imported lazily, as the rest of this module does)."""
    import sympy as sp

    return sp.Lambda


def _Entry(name):  # noqa: N802
    """A placeholder symbol standing for an elementwise function's argument while it prints."""
    import sympy as sp

    class _EntrySym(sp.Symbol):
        pass
    _EntrySym.__name__ = "_Entry"
    return _EntrySym(name)


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
