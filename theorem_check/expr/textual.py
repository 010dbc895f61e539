"""What the text of a side says before it is parsed: its size letters, the bases it inverts, its carets.

The parser (:mod:`theorem_check.expr.parse`) builds SymPy expressions, and SymPy simplifies while it builds
(``M**-1*M`` is ``I``); these functions read the text itself, so that what the user wrote is not lost.
"""

from __future__ import annotations

import ast
import io
import tokenize

from theorem_check.errors import ParseError

__all__ = ["DOMAIN_FUNCTIONS", "SIZE_FUNCTIONS", "carets", "denominators", "domain_calls", "inverted_bases", "primes", "size_names_in", "tokens"]


_UNICODE_POSTFIX = {"\u1d40": ".T", "\u1d34": ".H", "\u207b\u00b9": "**-1"}
"""Postfix superscripts as typed from papers: ``Aᵀ`` ``Aᴴ`` ``A⁻¹``.  Python's tokenizer NFKC-normalises identifiers,
so ``Aᵀ`` was the name ``AT`` ("name 'AT' is not defined": helper-54)."""


def primes(text: str) -> str:
    """``x'`` -> ``x.T`` (matrixcalculus.org's transpose): a ``'`` after a name, a closing parenthesis or
    another ``'``; any other ``'`` is left for the tokenizer to refuse.  Also the superscripts ``ᵀ``, ``ᴴ``, ``⁻¹``
    (:data:`_UNICODE_POSTFIX`)."""
    for sup, op in _UNICODE_POSTFIX.items():
        text = text.replace(sup, op)
    if "'" not in text:
        return text
    out, quoted = "", False
    for ch in text:
        if ch == "'" and not quoted:
            body = out.rstrip()
            if body and (body[-1].isalnum() or body[-1] in "_)]"):   # after a name, ')' or ']' (or a prime: .T)
                out = body + ".T"
                continue
            quoted = True          # an opening quote: a string literal, refused as one by the parser, its closing
        elif ch == "'":            # quote kept as typed (f('x') was echoed as "f('x.T)": helper-54)
            quoted = False
        out += ch
    return out


def tokens(text: str, what: str):
    """The tokens of ``text`` (Python's tokenizer, layout tokens dropped); ParseError (one line, naming
    ``what``) for text that does not tokenize."""
    what = f"{what}=" if what else ""
    try:
        return [t for t in tokenize.generate_tokens(io.StringIO(text).readline)
                if t.type not in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT,
                                  tokenize.DEDENT)]
    except tokenize.TokenError as exc:
        msg = str(exc.args[0]) if exc.args else str(exc)
        if "EOF" in msg:
            opens = sum(text.count(c) for c in "([{") - sum(text.count(c) for c in ")]}")
            detail = f"{opens} '(' not closed" if opens > 0 else f"{-opens} ')' without its '('"   # helper-54
            raise ParseError(f"{what}{text!r}: unbalanced parenthesis ({detail})") from None
        raise ParseError(f"{what}{text!r}: cannot tokenize: {msg}") from None
    except (SyntaxError, IndentationError) as exc:
        raise ParseError(f"{what}{text!r}: cannot tokenize: {exc.msg}") from None




def carets(text: str) -> str:
    """``^`` -> ``**``: a power binds tighter than ``*`` and ``+`` whichever is typed (Python reads ``^`` as
    exclusive or, below ``+``: ``x^2 + 1`` would be ``x**3`` and ``A*B^2`` would be ``(A*B)**2``)."""
    return text.replace("^", "**")


def _tree(text: str):
    """``(source, Python expression tree)`` of a side's text as the parser reads it (primes and carets
    rewritten); the tree is None when the text does not parse (the parser reports that)."""
    src = carets(primes(text)).strip()
    try:
        return src, ast.parse(src, mode="eval")
    except SyntaxError:
        return src, None


def inverted_bases(text: str) -> list[str]:
    """The source text of every base the side raises to a negative constant power (``(X.T*X)**-1``,
    ``A^-2``) or passes to ``inv``, in order, once each; [] when the text does not parse (the parser
    reports that).  SymPy cancels ``M**-1*M`` while a side is built, so a matrix that is never invertible
    (``X.T*X`` with fewer rows than columns) would vanish with its inverse: the engine evaluates these
    inverses beside the side (:func:`theorem_check.authoring.spec.make_side`)."""
    src, tree = _tree(text)
    if tree is None:
        return []
    out: dict[str, None] = {}
    for node in ast.walk(tree):
        base = None
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            e = node.right
            if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub) and isinstance(e.operand, ast.Constant):
                base = node.left
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "inv" and node.args:
            base = node.args[0]
        if base is not None:
            seg = ast.get_source_segment(src, base)
            if seg:
                out[seg] = None
    return list(out)


def denominators(text: str) -> list[str]:
    """The source text of every divisor (the right operand of ``/``) and every inverted base
    (:func:`inverted_bases`) of a side, in order, once each; [] when the text does not parse.  SymPy cancels
    ``trace(K)`` in ``x*trace(K)/trace(K)`` while the side is built, so a divisor that is 0 at every point
    (``K`` antisymmetric, ``det(y*y.T)`` of a vector ``y`` with two or more rows) would vanish with its
    quotient: the engine evaluates the scalar ones beside the side
    (:func:`theorem_check.authoring.spec.make_side`)."""
    src, tree = _tree(text)
    if tree is None:
        return []
    out: dict[str, None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
            seg = ast.get_source_segment(src, node.right)
            if seg:
                out[seg] = None
    for seg in inverted_bases(text):
        out[seg] = None
    return list(out)


DOMAIN_FUNCTIONS = ("log", "log1p", "sqrt", "logdet", "logm", "sqrtm", "cholesky", "hadamard_power")
"""Statement functions defined on part of the reals only (a logarithm, a square root, a fractional power)."""


def domain_calls(text: str) -> list[str]:
    """The source text of every call of a function of :data:`DOMAIN_FUNCTIONS` and of every power with an
    exponent that is not an integer constant (``t**(1/2)``), in order, once each; [] when the text does not parse.
    SymPy removes such a call while it builds a side (``0*log(-1 - t**2)`` is 0, ``exp(log(t))`` is ``t``), so a
    statement undefined everywhere would be checked as if it were defined: the engine evaluates these beside the
    side (:mod:`theorem_check.authoring.guards`)."""
    src, tree = _tree(text)
    if tree is None:
        return []
    out: dict[str, None] = {}
    stack = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _COMPLEX_PARTS:
            continue        # imag(sqrt(trace(A))): the complex value is asked for
        hit = (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in DOMAIN_FUNCTIONS) \
            or (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow) and not _integer_constant(node.right))
        seg = ast.get_source_segment(src, node) if hit else None
        if seg:
            out[seg] = None
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
    return list(out)


_COMPLEX_PARTS = ("real", "imag", "conj")
"""Calls whose argument's complex value the statement asks for: what they contain is never guarded."""


def _integer_constant(node) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, int)


_CONSTANTS = ("pi", "E", "I")
"""Names that are numbers, not sizes, inside ``eye(...)``."""
SIZE_FUNCTIONS = ("eye", "ones", "zeros")
"""The functions whose arguments are sizes: a name among them is a size letter (``trace(eye(n)) = n``)."""


def size_names_in(text: str, what: str = "") -> list[str]:
    """The names used in the arguments of ``eye``/``ones``/``zeros`` (:data:`SIZE_FUNCTIONS`), in order
    of appearance, once each: size letters even when no declared shape uses them.  Raises ParseError
    as :func:`names_in` (text that does not tokenize)."""
    toks = tokens(primes(text), what)
    out: dict[str, None] = {}
    for i, t in enumerate(toks[:-1]):
        if t.type != tokenize.NAME or t.string not in SIZE_FUNCTIONS or toks[i + 1].string != "(":
            continue
        depth = 0
        for j in range(i + 1, len(toks)):
            u = toks[j]
            depth += (u.string in "([{") - (u.string in ")]}") if u.type == tokenize.OP else 0
            if depth == 0:
                break
            nxt = toks[j + 1].string if j + 1 < len(toks) else ""
            if u.type == tokenize.NAME and nxt != "(" and u.string not in _CONSTANTS:
                out[u.string] = None
    return list(out)
