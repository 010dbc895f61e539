"""A fake LaTeX reader for the scan tests: the statements of tests/fixtures/scan, read by a table.

The real reader (``theorem_check.expr.latex``) is another module's job; scan takes parsing as one
injected function, so its finding and classifying are tested against this stand-in.
"""

import re

from theorem_check.expr import ParseError

FIXTURES = __import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures" / "scan"

TABLE = {
    r"(AB)^\top = B^\top A^\top": ("(A*B).T", "B.T*A.T"),
    r"\operatorname{tr}(X^\top X) = \operatorname{tr}(X X^\top)": ("trace(X.T*X)", "trace(X*X.T)"),
    r"C D = D C": ("C*D", "D*C"),
    r"\operatorname{tr}(AB) = \operatorname{tr}(BA)": ("trace(A*B)", "trace(B*A)"),
    r"\operatorname{tr}(BA) = \operatorname{tr}(A^\top B^\top)": ("trace(B*A)", "trace(A.T*B.T)"),
    r"\operatorname{tr}(X^\top X) = 2 \operatorname{tr}(X X^\top)": ("trace(X.T*X)", "2*trace(X*X.T)"),
    r"(Wx)^\top = x^\top W^\top": ("(W*x).T", "x.T*W.T"),
    r"(W_{1}x)^{\top} = x^{\top}W_{1}^{\top}": ("(W_1*x).T", "x.T*W_1.T"),
}


def name(latex: str) -> str:
    """``W_{1}`` -> ``W_1``, ``\\Sigma`` -> ``Sigma``."""
    return re.sub(r"[{}\\]", "", latex).replace(" ", "")


def fake_parse(latex: str):
    """``(lhs, rhs)`` in the string syntax for the fixtures' statements; ParseError otherwise."""
    key = " ".join(latex.split())
    m = re.fullmatch(r"(.+) = \1", key)
    if m and re.fullmatch(r"\\?[A-Za-z]+(?:_\{?[A-Za-z0-9]+\}?)?", m.group(1)):
        return name(m.group(1)), name(m.group(1))
    if key in TABLE:
        return TABLE[key]
    raise ParseError(f"statement={latex!r}: unexpected token at column 1 (fake reader)")
