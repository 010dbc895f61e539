"""LaTeX of papers -> a small tree of tuples (the first half of :mod:`theorem_check.expr.latex`).

The grammar is ``latex.lark`` beside this file (lark, LALR(1)).  Before lark sees the text a pre-pass
(:mod:`theorem_check.expr.latex_prepass`) removes what carries no mathematics (``\\left``, ``\\right``,
spacing, ``\\label{..}``, ...), decides for every ``|`` and ``\\|`` whether it opens or closes a bar, writes
``{\\bf I}`` as ``\\mathbf{I}``, and delimits an operator's argument where the paper delimits it
(``\\det{A}``, ``\\operatorname{tr}[A B]``, ``\\det X \\, X^{-\\top}``).  Columns in error messages are
columns of the text as given.

The tree: tuples whose first entry names the node.

``("name", base, sub, sup, letter)``
    ``W_1`` is ``("name", "W", "1", "", "W")``; ``W^{(l)}`` has ``sup = "l"``; ``\\hat{x}`` has
    ``base = "xhat"`` and ``letter = "x"`` (the Latin letter the shape conventions read; the name of an
    upper-case Greek letter, ``Sigma``, read as an upper-case one; "" for lower-case Greek and multi-letter names).  The string-syntax name is :func:`name_text`: ``W_1``, ``W__l``
    (SymPy prints ``__`` as a superscript), ``lamda`` for ``\\lambda`` (``lambda`` is a Python keyword).
``("num", "2.5")``, ``("ident", size or None)``, ``("ones", size or None)``
``("add"|"sub"|"mul"|"div", a, b)``, ``("had"|"kron", a, b, bare)`` (``bare``: which operand is a product written
without parentheses), ``("neg", a)``, ``("T"|"inv"|"invT"|"H"|"conj", a)``, ``("pow", a, e)``, ``("call", fname, args)``
(``fname`` ends in ``@`` when written entrywise: ``\\exp_\\odot``)
``("hpow", a, k)`` (``A^{\\circ 2}``), ``("fpow", call, k)`` (``\\tanh^2(x)``: the power of the value, entrywise), ``("bars", a)``, ``("norm", a, subscript)``, ``("inner", a, b)``
``("grad", f, wrt)``, ``("hess", f, wrt)``, ``("partial", f, [(wrt, transposed), ...])``; ``("sumop", ...)``, read by latex_sums;
``("slash", a, b, [c, ...])``: ``a / b c ...`` (juxtaposed after a slash), read by latex_slash

Raises :class:`~theorem_check.errors.ParseError` (one line: the token, its column) for text the
grammar does not read, and for notation it reads but refuses (``\\oplus``, ``\\max``, ``'``).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from theorem_check.errors import ParseError
from theorem_check.expr.latex_prepass import GREEK
from theorem_check.expr.latex_prepass import prepass as _prepass
from theorem_check.expr.latex_sums import expand_sides, sum_node
from theorem_check.expr.latex_unread import error_line
from theorem_check.validation import quoted

__all__ = ["GREEK", "FUNCTION_NAMES", "REFUSED", "applied_names", "prepass", "read", "name_text", "names_of", "walk"]

EULER = "exp(1)"
"""The string syntax of ``\\mathrm{e}``: Euler's number as a number node (a name ``E`` would meet a matrix ``E``)."""
_GREEK_NAME = {"lambda": "lamda", "varepsilon": "epsilon", "vartheta": "theta", "varphi": "phi", "varpi": "pi",
               "varrho": "rho", "varsigma": "sigma"}

FUNCTION_NAMES: dict[str, str] = {
    "tr": "trace", "Tr": "trace", "trace": "trace", "Trace": "trace", "det": "det", "exp": "exp", "log": "log",
    "ln": "log", "tanh": "tanh", "sin": "sin", "cos": "cos", "tan": "tan", "diag": "diag", "Diag": "diag",
    "vec": "vec", "vecop": "vec", "logdet": "logdet", "softmax": "softmax", "sigmoid": "sigmoid", "sigma": "sigmoid",
    "softplus": "softplus", "logsumexp": "logsumexp", "LSE": "logsumexp", "expm": "expm", "logm": "logm",
    "sqrtm": "sqrtm", "Re": "real", "Im": "imag", "real": "real", "imag": "imag", "tril": "tril", "triu": "triu",
    "chol": "cholesky", "sqrt": "sqrt", "ReLU": "relu", "relu": "relu", "Relu": "relu",
}
"""LaTeX operator names (``\\operatorname{tr}``, ``\\mathrm{Tr}``, ``\\det``, ...) -> string-syntax functions."""

REFUSED: dict[str, str] = {
    "max": "a maximum", "min": "a minimum", "sup": "a supremum", "inf": "an infimum", "lim": "a limit", "rank": "a rank",
    "argmax": "an argmax", "argmin": "an argmin", "sign": "a sign", "sgn": "a sign", "E": "an expectation",
    "Var": "a variance", "Cov": "a covariance", "KL": "a divergence",
}
"""Operator names read but refused (one line saying what they are): no node evaluates them."""
_WORDS = sorted(set(FUNCTION_NAMES) | set(REFUSED), key=len, reverse=True)

_STYLE_SUFFIX = {"hat": "hat", "widehat": "hat", "tilde": "tilde", "widetilde": "tilde", "check": "check", "dot": "dot",
                 "ddot": "ddot", "breve": "breve", "mathcal": "cal", "mathscr": "scr", "mathfrak": "frak", "underline": "underline"}


@functools.lru_cache(maxsize=1)
def _grammar() -> str:
    """``latex.lark`` with the operator names substituted (read once for the parser and the pre-pass)."""
    grammar = (Path(__file__).with_name("latex.lark")).read_text(encoding="utf-8")
    return grammar.replace("FUNCTION_WORDS", "|".join(_WORDS))


@functools.lru_cache(maxsize=1)
def _parser():
    import lark

    return lark.Lark(_grammar(), parser="lalr", lexer="contextual", propagate_positions=False,
                     maybe_placeholders=False)


# --------------------------------------------------------------------------------------------------
# pre-pass
# --------------------------------------------------------------------------------------------------
def prepass(text: str) -> tuple[str, list[int]]:
    """The text lark reads and, for each of its characters, the index of the character of ``text``
    it comes from (:func:`theorem_check.expr.latex_prepass.prepass`, with the grammar's operators)."""
    return _prepass(text, _token("FUNC"), _gradient_operator())


@functools.lru_cache(maxsize=1)
def _gradient_operator() -> re.Pattern:
    """``NABLA`` or ``\\frac{\\partial}{\\partial W}`` (the operator form): what explicit spacing ends (helper-71:
    ``\\frac{\\partial}{\\partial W} f \\, W^\\top`` was the derivative of the product)."""
    return re.compile(_token("NABLA").pattern + r"|\\[dt]?frac\s*\{\s*\\partial\s*\}\s*\{\s*\\partial(?:[^{}]|\{[^{}]*\})*\}")


@functools.lru_cache(maxsize=None)
def _token(name: str) -> re.Pattern:
    """The grammar's token ``name`` as a regular expression: ``FUNC``, the operators (``\\det``,
    ``\\operatorname{tr}``, ...), whose bare argument the pre-pass delimits; ``NABLA`` (``\\nabla_x``,
    ``\\nabla^2_{W_1}``), whose product explicit spacing ends."""
    line = next(x for x in _grammar().splitlines() if x.startswith(f"{name}."))
    return re.compile(line[line.index("/") + 1:line.rindex("/")])


# --------------------------------------------------------------------------------------------------
# lark tree -> tuples
# --------------------------------------------------------------------------------------------------
_CONDITION = re.compile(r"(?:,\s*)?(?:\\q?quad\s*|\\[,;:]\s*|~\s*)*(?:\\forall(?![A-Za-z])|\\(?:text|textrm|mathrm)\s*"
                        r"\{\s*(?:for|for all|if|where|when|with|s\.t\.)(?![A-Za-z]))")
"""A condition after the identity: ``\\quad \\text{for all } x``, ``, \\forall x``, ``\\text{ if } x > 0``."""


def read(text: str, *, what: str = "statement", power_names: frozenset = frozenset()) -> tuple[list, list[str]]:
    """``text`` -> (its sides as trees, its relations in order: ``["="]`` for an identity).  ``power_names``: the
    names among ``T``, ``H`` declared scalars or sizes, whose ``^T``/``^H`` is a power, not a transpose
    (helper-64: ``\\gamma^T`` with ``T \\in \\mathbb{N}`` declared)."""
    return _read(text, what, frozenset(power_names) & {"T", "H"})


@functools.lru_cache(maxsize=1024)
def _read(text: str, what: str, power_names: frozenset = frozenset()):
    import lark

    if not text.strip():
        raise ParseError(f"{what}={quoted(text)}: empty")
    cond = _CONDITION.search(text) if what == "statement" else None
    if cond:     # "= ... \quad \text{for all } x \in ...": a quantifier, not a side (helper-64)
        raise ParseError(f"statement={quoted(text)}: the condition {quoted(text[cond.start():].strip())} is not read: "
                         r"give the identity alone and its domain with --where (e.g. --where 'x \in \mathbb{R}^n', "
                         r"'\sigma > 0')")
    src, where = prepass(text)
    try:
        tree = _parser().parse(src)
    except lark.exceptions.UnexpectedInput as exc:
        raise ParseError(error_line(text, src, where, exc, what)) from None
    kids = tree.children
    build = _Build(text, what, power_names)
    sides = expand_sides([build.node(k) for k in kids[0::2]], build.fail)
    rels = [str(k) for k in kids[1::2]]
    return sides, rels


def _name_part(tex: str, text: str, what: str) -> str:
    """A subscript or superscript label as identifier characters: ``{ij}`` -> ``ij``, ``{l+1}`` ->
    ``lp1``, ``{\\text{out}}`` -> ``out``, ``{\\sigma}`` -> ``sigma``."""
    s = tex.strip()
    s = re.sub(r"\\(text|mathrm|textrm|mathbf|boldsymbol|bm|mathit|operatorname|rm)\s*", "", s)
    s = re.sub(r"\\([A-Za-z]+)", lambda m: _GREEK_NAME.get(m.group(1), m.group(1)), s)
    s = re.sub(r"[{}()\[\] ,]", "", s)
    s = s.replace("+", "p").replace("-", "m").replace("'", "prime")
    if not re.fullmatch(r"[A-Za-z0-9_]+", s):
        raise ParseError(f"{what}={quoted(text)}: cannot read {quoted(tex)} as part of a name")
    return s


def _sub_text(tok: str) -> str:
    """The content of a subscript token ``_1``, ``_{ij}``, ``_\\sigma``."""
    s = tok[1:].strip()
    return s[1:-1] if s.startswith("{") else s


class _Build:
    """lark tree -> tuples (see the module docstring)."""

    def __init__(self, text: str, what: str, power_names: frozenset = frozenset()):
        self.text, self.what, self.power_names = text, what, power_names

    def _power_of_name(self, a, tok):
        """``a^T`` (``a^H``) as the power ``a**T`` when ``T`` (``H``) is a declared scalar or size, else None."""
        m = re.fullmatch(r"\^\s*(?:([TH])|\{\s*([TH])\s*\})", str(tok).strip())
        letter = m and (m.group(1) or m.group(2))
        return ("pow", self.node(a), ("name", letter, "", "", letter)) if letter in self.power_names else None

    def fail(self, msg: str):
        raise ParseError(f"{self.what}={quoted(self.text)}: {msg}")

    def node(self, t):
        import lark

        if isinstance(t, lark.Token):
            self.fail(f"unexpected {quoted(str(t))}")
        out = getattr(self, "n_" + t.data)(*t.children)
        if t.data in _POSTFIX and len(out) > 1 and isinstance(out[1], tuple) and out[1][-1:] == ("sigma",):
            _, left, right, _ = out[1]           # \sigma^2 (M)^{-1}: the power is the bracket's, not the product's
            return ("mul", left, (out[0], right, *out[2:]))
        return out

    # atoms -----------------------------------------------------------------------------------
    def n_name(self, tok):
        s = str(tok)
        if s.startswith("\\"):
            word = s[1:]
            plain = _GREEK_NAME.get(word, word)
            if word.startswith("var") and re.search(rf"\\{plain}(?![A-Za-z])", self.text):
                plain = word          # \epsilon and \varepsilon in one statement are two names (helper-44)
            # an upper-case Greek letter is a matrix by the conventions (\Sigma, \Lambda), a lower-case one a scalar
            return ("name", plain, "", "", plain if plain[0].isupper() else "")
        if s == "I":
            return ("ident", None)
        return ("name", s, "", "", s)

    def n_styled(self, tok):
        m = re.match(r"\\([A-Za-z]+)\s*(.*)$", str(tok), re.S)
        style, arg = m.group(1), m.group(2).strip()
        inner = arg[1:-1].strip() if arg.startswith("{") else arg
        if inner in ("I", "0") and style in ("mathbb", "mathbf", "boldsymbol", "bm", "mathrm"):   # SymPy prints
            return ("ident", None) if inner == "I" else ("num", "0")   # \mathbb{I}; bold I, bold 0 (helper-77)
        if style == "mathbb":
            self.fail(rf"\mathbb{{{inner}}} is not a name or an operator the LaTeX reader knows "
                      "(an expectation or a set?)")
        if style in ("text", "textrm", "mathrm") and inner in FUNCTION_NAMES:
            self.fail(rf"\{style}{{{inner}}} needs an argument")
        if style in ("text", "textrm", "mathrm", "operatorname") and inner in REFUSED:
            self.fail(rf"\{style}{{{inner}}} is {REFUSED[inner]}: not an expression theorem-check evaluates")
        if inner == "e" and style in ("mathrm", "text", "textrm"):
            return ("num", EULER)       # an upright e is Euler's number (ISO 80000-2), never a name (helper-73)
        sub = _read(inner, "name")[0][0] if inner else None
        if sub is None or sub[0] not in ("name", "ident"):
            if re.fullmatch(r"[A-Za-z]+", inner or ""):
                return ("name", inner, "", "", "")
            self.fail(f"cannot read {quoted(str(tok))} as a name")
        if sub[0] == "ident":
            sub = ("name", "I", "", "", "I")       # \hat{I}, \mathcal{I}: a name
        _, base, s, sup, letter = sub
        suffix = _STYLE_SUFFIX.get(style, "")
        return ("name", base + suffix, s, sup, letter)

    def n_number(self, tok):
        return ("num", str(tok))

    def n_ones(self, tok):
        return ("ones", None)

    def n_group(self, _open, inner, _close):
        return self.node(inner)

    def n_frac_digits(self, tok):
        a, b = re.findall(r"\d", str(tok))[-2:]
        return ("div", ("num", a), ("num", b))

    def n_frac(self, _tok, a, b):
        num, den = self.node(a), self.node(b)
        if _leftmost_d(num) and _leftmost_d(den) and den[0] == "mul":   # \frac{d}{dx}, \frac{d f}{d x}
            self.fail(r"'\frac{d}{dx}' (a total derivative) is not read: write \frac{\partial}{\partial x} or "
                      r"\nabla_x (read as d divided by d x it would be a different statement)")
        return ("div", num, den)

    def n_sqrt(self, _tok, a):
        return ("call", "sqrt", [self.node(a)])

    def n_root(self, _tok, _o, n, _c, a):
        return ("pow", self.node(a), ("div", ("num", "1"), self.node(n)))

    def n_bars(self, _o, a, _c):
        return ("bars", self.node(a))

    def n_norm(self, _o, a, _c):
        return ("norm", self.node(a), None)

    def n_inner(self, _o, a, _comma, b, _c):
        return ("inner", self.node(a), self.node(b))

    def n_conj(self, _tok, a):
        """``("conj", a)``; of a single name ``("conj", a, barred)``, ``barred`` the name ``xbar`` that
        ``\\bar{x}`` is unless ``x`` is complex (a mean, an average iterate in ML papers; helper-44: ``\\bar{x} = x``
        was VERIFIED as ``conj(x) = x``): the emitter decides, knowing the complex names."""
        node = self.node(a)
        if node[0] == "name":
            _, base, s, sup, letter = node
            return ("conj", node, ("name", base + "bar", s, sup, letter))
        return ("conj", node)

    def n_call(self, tok, *rest):
        s = str(tok)
        if _sigma_product(tok, self.text):
            # \sigma^2 (\sigma^2 I + K)^{-1} with \sigma a name elsewhere: the product, not the sigmoid (helper-44)
            power = re.search(r"\^\s*\{?\s*([0-9]+)", s)
            left = ("pow", ("name", "sigma", "", "", ""), ("num", power.group(1)))
            args = [self.node(r) for r in rest if not _is_punct(r)]
            return ("mul", left, args[0], "sigma")
        head = re.sub(r"\s*_\s*(\{\s*\\(odot|circ)\s*\}|\\(odot|circ))$", "", s)
        power = re.search(r"\^\s*\{?\s*(-?[0-9][0-9/. ]*?)\s*\}?$", head)    # \tanh^2(x): the square of tanh(x)
        if power and not re.fullmatch(r"[1-9][0-9]*", power.group(1)):
            self.fail(f"{quoted(s)}: only a positive integer power is read after an operator's name (\\tanh^2 x); write "
                      f"the power of the value, (\\det A)^{{1/2}}, or an inverse function by its name")
        head = head[:power.start()] if power else head
        m = re.search(r"\{\s*\\?([A-Za-z]+)\s*\}", head) or re.match(r"\\([A-Za-z]+)", head)
        word = m.group(1)
        args = [self.node(r) for r in rest if not _is_punct(r)]
        if word in ("max", "min") and len(args) == 2 and not power and "_" not in s:
            return ("call", word, args)      # \max(0, x): the string syntax's entrywise max of two (helper-64)
        if word in REFUSED:
            self.fail(f"{quoted(s)} is {REFUSED[word]}: not an expression theorem-check evaluates")
        if word not in FUNCTION_NAMES:
            self.fail(f"unknown operator {quoted(s)} (known: {', '.join(sorted(set(FUNCTION_NAMES)))})")
        entrywise = bool(re.search(r"_\s*\{?\s*\\(odot|circ)", s))
        out = ("call", FUNCTION_NAMES[word] + ("@" if entrywise else ""), args)
        return ("fpow", out, int(power.group(1))) if power else out

    def n_sum_op(self, tok, body):
        return sum_node(str(tok), self.node(body), self.fail)

    def n_nabla(self, tok, *rest):
        s = str(tok)
        order = 2 if re.search(r"\^\s*\{?\s*2", s) else 1
        m = re.search(r"_\s*(\{(?:[^{}]|\{(?:[^{}]|\{[^{}]*\})*\})*\}|\\[A-Za-z]+|[A-Za-z])", s)
        if not m:
            self.fail(rf"{quoted(s.strip())} needs the variable as a subscript (\nabla_X f)")
        wrt = self.wrt(_sub_text("_" + m.group(1)))
        f = self.node([r for r in rest if not _is_punct(r)][0])
        return ("hess" if order == 2 else "grad", f, wrt)

    def wrt(self, tex: str):
        (w,), _ = _read(tex, "variable")
        if w[0] != "name":
            self.fail(f"the variable of a derivative must be a name, got {quoted(tex)}")
        return w

    def n_partial_frac(self, _frac, _o, partial, f, _c, _o2, *parts):
        return self.partial(str(partial), self.node(f), [p for p in parts if not _is_punct(p)])

    def n_partial_op(self, _frac, _o, partial, _c, _o2, *rest):
        rest = [r for r in rest if not _is_punct(r)]
        return self.partial(str(partial), self.node(rest[-1]), rest[:-1])

    def partial(self, partial: str, f, parts):
        order = 2 if "^" in partial else 1
        wrts = []
        for p in parts:
            v = self.node(p.children[1])
            transposed = v[0] == "T"
            v = v[1] if transposed else v
            if v[0] == "pow" and v[2] == ("num", "2"):
                wrts += [(v[1], False), (v[1], False)]
                continue
            if v[0] != "name":
                self.fail("the variable of a derivative must be a name (\\partial X)")
            wrts.append((v, transposed))
        if len(wrts) != order or (order == 2 and wrts[0][0] != wrts[1][0]):
            self.fail(f"a derivative of order {order} needs {order} variables (the same for a Hessian), "
                      f"got {len(wrts)}")
        if order == 2:
            return ("hess", f, wrts[0][0])
        return ("partial", f, wrts)

    # operators -------------------------------------------------------------------------------
    def bin(kind):  # noqa: N805 - a factory of methods
        def f(self, a, _op, b):
            return (kind, self.node(a), self.node(b))
        return f

    n_add, n_sub = bin("add"), bin("sub")

    def n_div(self, a, _op, b):   # "/": read by latex_slash with the factors juxtaposed after it (n_mul); a/(b) is closed
        return ("div", self.node(a), self.node(b)) if getattr(b, "data", "") == "group" else ("slash", *map(self.node, (a, b)), [])

    def product(kind):  # noqa: N805 - a factory of methods
        def f(self, a, _op, b):
            bare = tuple(getattr(t, "data", "") == "mul" for t in (a, b))
            return (kind, self.node(a), self.node(b), bare)
        return f

    n_hadamard, n_kron = product("had"), product("kron")

    def n_mul(self, a, *rest):
        """``("mul", a, b)``; ``("mul", a, b, True)`` when written ``a \\cdot b`` (the dot product of two
        column vectors, :meth:`theorem_check.expr.latex._Emit.e_mul`)."""
        if len(rest) == 2 and str(rest[0]).startswith("\\cdot"):
            return ("mul", self.node(a), self.node(rest[-1]), True)
        left, right = self.node(a), self.node(rest[-1])
        if len(rest) == 1 and left[0] == "slash":      # x/2n: the factors after a slash (latex_slash)
            return ("slash", *left[1:3], [*left[3], right])
        return ("mul", left, right)

    def n_oplus(self, a, op, b):
        self.fail(r"'\oplus' (the direct sum, a block-diagonal matrix) is not supported: write the blocks "
                  "as separate statements")

    def n_neg(self, _op, a):
        return ("neg", self.node(a))

    def n_signed(self, _op, a):                 # a unary '+'
        return self.node(a)

    def n_transpose(self, a, tok):
        return self._power_of_name(a, tok) or ("T", self.node(a))

    def n_inverse(self, a, _t):
        return ("inv", self.node(a))

    def n_inverse_transpose(self, a, _t):
        return ("invT", self.node(a))

    def n_hermitian(self, a, tok):
        """``("H", a, kind)``, ``kind`` ``"dagger"`` for ``^\\dagger``, ``"star"`` for ``^*``, ``^\\ast``, ``^\\star``
        (then with the name ``xstar`` a single name ``x`` is in a real statement: the optimum), ``"H"`` for ``^H``.
        The emitter decides, knowing the complex names (helper-44: ``A x^* = b`` was ``A x^H``)."""
        if (power := self._power_of_name(a, tok)) is not None:
            return power
        node, t = self.node(a), str(tok)
        if "dagger" in t:
            return ("H", node, "dagger")
        if re.search(r"\*|\\ast|\\star", t):
            if node[0] == "name":
                _, base, s, sup, letter = node
                return ("H", node, "star", ("name", base + "star", s, sup, letter))
            return ("H", node, "star")
        return ("H", node, "H")

    def n_prime_name(self, a, tok):
        r"""``S^{\prime}``: the name ``Sprime`` (``\theta^{\prime\prime}``: ``thetaprimeprime``), as ``\tilde{S}`` is
        ``Stilde``; papers' ``S'`` written with ``\prime`` is a new name, never a transpose or a derivative."""
        base = self.node(a)
        if base[0] != "name" or base[3]:
            self.fail(f"{quoted(str(tok))} marks a name only (S^{{\\prime}})")
        k = str(tok).count("prime")
        return ("name", base[1] + "prime" * k, base[2], base[3], base[4])

    def n_prime_name_transpose(self, a, tok):     # W^{\prime\top}: (W^{\prime})^\top
        return ("T", self.n_prime_name(a, "prime" * str(tok).count("prime")))

    def n_prime(self, a, _t):
        self.fail("\"'\" is ambiguous in LaTeX (a transpose, or another name): write ^\\top, or a new name")

    def n_hadamard_power(self, a, tok):
        k = int(re.findall(r"[0-9]+", str(tok))[-1])
        if not 1 <= k <= 16:
            self.fail(f"the Hadamard power {quoted(str(tok))} must be 1..16")
        return ("hpow", self.node(a), k)

    def n_power(self, a, _caret, e):
        return ("pow", self.node(a), self.node(e))

    def n_label(self, a, tok):
        base = self.node(a)
        if base[:4] == ("name", "e", "", "") and re.search(r"[+\-]", str(tok)):   # e^{(a + b)}: Euler's power
            return ("pow", base, _read(re.sub(r"^\^\s*\{(.*)\}\s*$", r"\1", str(tok), flags=re.S), "exponent")[0][0])
        if base[0] != "name" or base[3]:     # W_l^{(t)} as W^{(t)}_l (helper-66): W_l__t
            self.fail(f"{quoted(str(tok))} labels a name only (W^{{(l)}})")
        label = _name_part(re.sub(r"^\^\s*", "", str(tok)), self.text, self.what)
        return ("name", base[1], base[2], label, base[4])

    def n_label_transpose(self, a, tok):         # W^{(l)\top}, W^{[l]\top}: (W^{(l)})^\top
        label = re.match(r"\^\s*\{\s*(\([^()]*\)|\[[^\[\]]*\])", str(tok)).group(1)
        return ("T", self.n_label(a, "^{" + label + "}"))

    def n_subscript(self, a, tok):
        base = self.node(a)
        sub = _sub_text(str(tok))
        if base[0] == "name":
            if base[2]:
                self.fail(f"{base[1]}_{base[2]} has a second subscript {quoted(sub)}")
            return ("name", base[1], _name_part(sub, self.text, self.what), base[3], base[4])
        if base[0] in ("ident", "ones") and base[1] is None:
            size = _name_part(sub, self.text, self.what)
            if not re.fullmatch(r"[A-Za-z]|[0-9]+", size):
                self.fail(f"the size of {'I' if base[0] == 'ident' else chr(92) + 'mathbf{1}'} must be a "
                          f"letter or a number, got {quoted(sub)}")
            return (base[0], size)
        if base[0] == "norm" and base[2] is None:
            return ("norm", base[1], sub.strip())
        if base[0] == "inner" and re.fullmatch(r"F|\\(?:mathrm|text|rm)\s*\{\s*F\s*\}", sub.strip()):
            return base      # the Frobenius inner product, as \langle A, B \rangle reads it (helper-54)
        if base[0] == "pow" and base[1][0] == "norm" and base[1][2] is None:   # \|x\|^2_2, as \|x\|_2^2
            return ("pow", ("norm", base[1][1], sub.strip()), base[2])
        if base[0] in ("T", "inv", "invT", "H", "pow", "hpow") and base[1][0] == "name" and not base[1][2]:
            inner = base[1]      # W^\top_2 is W_2^\top, \sigma^2_i is \sigma_i^2: TeX sets both scripts on the name
            return (base[0], ("name", inner[1], _name_part(sub, self.text, self.what), inner[3], inner[4]), *base[2:])
        if "\\sum" in self.text and re.fullmatch(r"[a-z]", sub.strip()):    # (A x)_i in a sum (latex_sums)
            return ("subexpr", base, sub.strip())
        self.fail(f"unexpected subscript {quoted(str(tok))}")


def _is_punct(t) -> bool:
    import lark

    return isinstance(t, lark.Token)


_ONE_NAME = frozenset({"name", "number", "styled", "subscript", "label"})   # x, 2, \mathbf{x}, x_1, x^{(l)}
_POSTFIX = frozenset({"transpose", "inverse", "inverse_transpose", "hermitian", "hadamard_power", "power"})
"""The grammar's postfix rules whose node holds its operand second (``("inv", a)``)."""
_SIGMA_NAME = re.compile(r"\\sigma(?![A-Za-z])(?!\s*(?:\^\s*(?:\{\s*[1-9][0-9]*\s*\}|[1-9]))?\s*"
                         r"(?:\\(?:left|bigl|Bigl|biggl|Biggl|big|Big|bigg|Bigg)(?![A-Za-z])\s*)?\()")


def _sigma_product(tok, text: str) -> bool:
    """True for ``\\sigma^2 (`` (a power of ``\\sigma`` before a parenthesis) in a statement that uses ``\\sigma`` as
    a name elsewhere (``\\sigma^2 I``): the variance times the bracket, not the sigmoid squared.  A bare
    ``\\sigma (x + y)`` stays ambiguous (refused by the reader where \\sigma is also a name)."""
    return getattr(tok, "type", "") == "SIGMA_FN" and "^" in str(tok) and sigma_is_a_name(text)


def sigma_is_a_name(text: str) -> bool:
    """True when ``\\sigma`` is used as a name somewhere in ``text`` (not only before a parenthesis): then
    ``\\sigma(...)`` and ``\\sigma^2(...)`` are products with it, not the sigmoid (Gaussian-process notation
    ``(\\sigma^2 I + K)^{-1} K = I - \\sigma^2 (\\sigma^2 I + K)^{-1}`` was refused)."""
    return bool(_SIGMA_NAME.search(text))


@functools.lru_cache(maxsize=1024)
def applied_names(text: str) -> tuple[tuple[tuple[str, str], ...], bool]:
    """``(names, sigmoid)``: the ``(string-syntax name, LaTeX as written, atom)`` of each name directly before a
    parenthesis (``atom``: the one name or number the parenthesis holds, ``t`` in ``W(t)``, else "") (``\\phi(x + y)``,
    ``\\mathrm{ReLU}(x)``, ``W (x + y)``), which the grammar reads as products, and whether ``\\sigma(...)`` is
    read as the sigmoid.  :func:`theorem_check.expr.latex.parse_latex_statement` refuses such a name that no
    declaration makes a product: a paper's ``\\phi(x + y)`` is a function applied (decision 142)."""
    import lark

    src, _ = prepass(text)
    try:
        tree = _parser().parse(src)
    except lark.exceptions.UnexpectedInput:
        return (), False
    build, names, sigmoid = _Build(text, "statement"), [], False
    for t in tree.iter_subtrees():
        if t.data == "call" and isinstance(t.children[0], lark.Token) and t.children[0].type == "SIGMA_FN":
            sigmoid = sigmoid or not _sigma_product(t.children[0], text)
        if t.data != "mul" or len(t.children) != 2:          # juxtaposition only: 'a \\cdot (b)' is a product
            continue
        left, right = t.children
        while isinstance(right, lark.Tree) and right.data in _POSTFIX and right.children:   # f(x)^\top (helper-84)
            right = right.children[0]
        if not (isinstance(right, lark.Tree) and right.data == "group" and isinstance(right.children[0], lark.Token)
                and right.children[0].type == "LPAR"):
            continue
        while isinstance(left, lark.Tree) and left.data == "mul" and len(left.children) == 2:
            left = left.children[-1]                        # the factor just before the parenthesis
        powered = ""
        if isinstance(left, lark.Tree) and left.data in ("power", "inverse") and isinstance(left.children[0], lark.Tree):
            # f^{-1}(y), \phi^2(x): an inverse or a power of a function applied as much as a product (helper-64:
            # \sigma^{-1}(y), the logit, was read as y / sigma and REFUTED); the base name decides, as for f(y)
            left, *script = left.children         # the name, then the caret and exponent (or the ^{-1} token)
            powered = "".join(str(t) for c in script
                              for t in (c.scan_values(lambda v: isinstance(v, lark.Token)) if isinstance(c, lark.Tree)
                                        else (c,)))
        if isinstance(left, lark.Tree) and left.data in ("name", "styled", "subscript", "label"):   # W_2 (x), helper-78
            try:
                node = build.node(left)
            except ParseError:
                continue
            if node[0] == "name":
                inner = right.children[1] if len(right.children) > 2 else None   # one name (x, \mathbf{x}, x_1, \theta)
                atom = "".join(str(c) for c in inner.scan_values(lambda v: isinstance(v, lark.Token))) \
                    if isinstance(inner, lark.Tree) and inner.data in _ONE_NAME and not powered else ""   # (helper-78)
                names.append((name_text(node), "".join(str(c) for c in left.scan_values(lambda v: isinstance(v, lark.Token)))
                              + powered, atom))
    return tuple(dict.fromkeys(names)), sigmoid


def _leftmost_d(node) -> bool:
    """True when the leftmost factor of ``node`` is the name ``d`` (``d``, ``\\mathrm{d}``): a derivative's d."""
    while node[0] == "mul":
        node = node[1]
    return node[0] == "name" and node[1] == "d" and not node[2] and not node[3]


def name_text(node) -> str:
    """The string-syntax name of a ``("name", ...)`` node: ``W_1``, ``W__l``, ``W_1__l``."""
    _, base, sub, sup, _letter = node
    return base + (f"_{sub}" if sub else "") + (f"__{sup}" if sup else "")


def walk(node):
    """Every node of a tree, depth first."""
    yield node
    for a in node[1:]:
        if isinstance(a, tuple) and a and isinstance(a[0], str):
            yield from walk(a)
        elif isinstance(a, list):
            for b in a:
                if isinstance(b, tuple) and b and isinstance(b[0], str):
                    yield from walk(b)
                elif isinstance(b, tuple):       # (wrt, transposed) pairs of a partial
                    yield from walk(b[0])


def names_of(trees) -> dict[str, str]:
    """String-syntax name -> the Latin letter the conventions read ("" for Greek/multi-letter), in
    order of appearance."""
    out: dict[str, str] = {}
    for t in trees:
        for n in walk(t):
            if n[0] == "name":
                out.setdefault(name_text(n), n[4])
            elif n[0] == "conj" and len(n) > 2:      # \bar{x}: x's own shape is the barred name's too
                out.setdefault(name_text(n[2]), n[2][4])
            elif n[0] == "H" and len(n) > 3:         # x^*: the name xstar
                out.setdefault(name_text(n[3]), n[3][4])
    return out
