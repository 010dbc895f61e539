"""The terms of a matrix normal form (:mod:`theorem_check.expr.normal_form`): a leaf, a canonical sum of words, and
the canonical string of a word.  Equal keys mean equal objects (the normal form's proofs rest on it)."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Leaf", "NormalForm", "word_key"]


@dataclass(frozen=True, eq=False)
class Leaf:
    """One factor of a word: a matrix symbol (``kind="sym"``, ``data=(name, transposed, inverted)``), the
    inverse of a sum or of a rectangular product (``"inv"``, ``data=(NormalForm,)``), a Kronecker product
    of two monic words (``"kron"``, ``data=(NormalForm, NormalForm)``), ``vec`` of a word (``"vec"``,
    ``data=(NormalForm, transposed)``), or ``ones(rows, cols)`` (``"ones"``).  ``rows``/``cols`` are
    SymPy sizes; equality and hashing are by the canonical string ``key``."""

    key: str
    rows: object
    cols: object
    kind: str
    data: tuple = ()

    def __eq__(self, other):
        return isinstance(other, Leaf) and other.key == self.key

    def __hash__(self):
        return hash(self.key)

    @property
    def square(self) -> bool:
        """True when rows and cols are the same SymPy size (so for every instantiation)."""
        return self.rows == self.cols


def word_key(word: tuple, rows) -> str:
    """The canonical string of a word of leaves (``A*B.T``), ``I(rows)`` for the empty word."""
    return "*".join(w.key for w in word) if word else f"I({rows})"


@dataclass(frozen=True)
class NormalForm:
    """A canonical sum ``sum c_k word_k`` of shape ``(rows, cols)``; ``terms`` maps a word (tuple of
    :class:`Leaf`) to its nonzero coefficient (a SymPy expression); the empty word is the identity."""

    rows: object
    cols: object
    terms: tuple

    @property
    def is_zero(self) -> bool:
        """True when there is no term left (every coefficient cancelled)."""
        return not self.terms

    @property
    def key(self) -> str:
        """The canonical string of the sum (terms sorted by word)."""
        return " + ".join(f"({c})*{word_key(w, self.rows)}" for w, c in self.terms) or f"0({self.rows},{self.cols})"

    @property
    def text(self) -> str:
        """A short readable form (``A*B + I(n)``, ``-2*A.T``) for evidence."""
        parts = []
        for w, c in self.terms:
            word = word_key(w, self.rows)
            parts.append(word if c == 1 else f"-{word}" if c == -1 else f"({c})*{word}")
        return " + ".join(parts).replace("+ -", "- ") or "0"
