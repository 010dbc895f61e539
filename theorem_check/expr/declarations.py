r"""Shapes and structures as papers state them: ``W_1 \in \mathbb{R}^{h \times d}, \Sigma \succ 0``.

:func:`parse_where` reads a list of declarations (``check --where``; ``scan`` reads the same
sentences in a paper) into shapes and structures keyed by string-syntax names (the names of
:mod:`theorem_check.expr.latex`: ``W_1``, ``Sigma``, ``W__l``).  Clauses are separated by commas,
semicolons, ``\quad`` or ``\text{and}``; names before ``\in`` may be a list (``A, B \in
\mathbb{R}^{n \times n}``).

=======================================================  ==========================================
clause                                                   declares
=======================================================  ==========================================
``x \in \mathbb{R}``                                     a real scalar (no shape)
``x \in \mathbb{R}^d``, ``\mathbb{R}^{d}``               a column ``d x 1``
``W \in \mathbb{R}^{h \times d}`` (``^{h, d}``)          an ``h x d`` matrix
``a \in \mathbb{R}_{>0}`` (``_{++}``, ``_+``), ``a > 0`` a positive scalar (structure ``positive``)
``v \in \mathbb{R}^d_{>0}``, ``v > 0`` (``v`` a vector)   entrywise positive (structure ``positive``, any shape)
``z \in \mathbb{C}``, ``\mathbb{C}^{m \times n}``        the same shapes, structure ``complex``
``S \in \mathbb{S}^n``                                   a symmetric ``n x n`` matrix
``S \in \mathbb{S}^n_{++}``, ``\Sigma \succ 0``          symmetric positive definite (``spd``)
``Q \in O(n)`` (``\mathrm{O}(n)``, ``\mathcal{O}(n)``)   an orthogonal ``n x n`` matrix
``A \in GL(n)`` (``\mathrm{GL}_n``)                      an invertible ``n x n`` matrix
``A = A^\top``; ``A^\top = -A``; ``Q^\top Q = I``        symmetric; antisymmetric; orthogonal
``D \text{ diagonal}`` (``invertible``, ``symmetric``)   that structure
``n, d \in \mathbb{N}``                                  size letters (nothing to declare)
=======================================================  ==========================================

A structure without a shape (``\Sigma \succ 0`` alone) makes the matrix square, ``n x n``
(:data:`~theorem_check.expr.latex.CONVENTION_SIZE`).  Refused with one line: positive
*semi*definite (``\succeq 0``, ``\mathbb{S}^n_+``: the samplers draw definite matrices only, which
could verify a statement false on the singular ones), ``SO(n)``, anything else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from theorem_check.errors import InvalidArgument, ParseError
from theorem_check.expr.latex import CONVENTION_SIZE
from theorem_check.expr.latex_tree import name_text, read
from theorem_check.validation import quoted

__all__ = ["Declarations", "parse_where", "split_clauses"]


@dataclass(frozen=True)
class Declarations:
    """What a ``--where`` text declares.

    ``shapes``: name -> ``(rows, cols)`` (letters or ints), ``()`` for a declared scalar;
    ``structure``: name -> kind (``symmetric``, ``spd``, ``orthogonal``, ``invertible``, ``diagonal``,
    ``antisymmetric``, ``positive``, ``complex``); ``sizes``: letters declared as natural numbers.
    """

    shapes: dict = field(default_factory=dict)
    structure: dict = field(default_factory=dict)
    sizes: tuple = ()

    def matrices(self) -> dict:
        """``shapes`` without the declared scalars (the ``--shape`` of the string syntax)."""
        return {k: v for k, v in self.shapes.items() if v != ()}


_SPLIT = re.compile(r"\\text\s*\{\s*and\s*\}|\\quad|\\qquad|;|\band\b")


def split_clauses(text: str) -> list[str]:
    """Top-level clauses of a declaration list (commas outside braces and parentheses)."""
    parts, depth, cur = [], 0, []
    for ch in _SPLIT.sub(",", text):
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return [p.strip().rstrip(".") for p in parts if p.strip().rstrip(".").strip()]


_LETTER = r"[A-Za-z](?:_\{?[A-Za-z0-9]+\}?)?|[0-9]+"
_SIZE = r"\s*(?:\{\s*)?(" + _LETTER + r")(?:\s*\})?"
_DIMS = re.compile(r"\^\s*\{\s*(" + _LETTER + r")\s*(?:\\times|\\cross|x|\*|,)\s*(" + _LETTER + r")\s*\}")


def _size(v: str):
    """A size as written (``n``, ``n_{l}``, ``3``) -> a letter (``n_l``) or an int."""
    v = v.replace("{", "").replace("}", "").strip()
    return int(v) if v.isdigit() else v
_FIELD = re.compile(r"\\mathbb\s*\{?\s*([RC])\s*\}?|\\(R|C|Re)(?![A-Za-z])")
_STRUCT_WORDS = {"diagonal": "diagonal", "invertible": "invertible", "symmetric": "symmetric",
                 "orthogonal": "orthogonal", "positive definite": "spd", "nonsingular": "invertible",
                 "antisymmetric": "antisymmetric", "skew-symmetric": "antisymmetric"}


class _Reader:
    def __init__(self, text: str, what: str):
        self.text, self.what = text, what
        self.shapes: dict = {}
        self.structure: dict = {}
        self.sizes: list = []

    def fail(self, clause: str, msg: str):
        raise InvalidArgument(f"{self.what} {clause!r}: {msg}")

    def name(self, clause: str, tex: str) -> str:
        try:
            (node,), rels = read(tex, what="name")
        except (ParseError, ValueError):
            self.fail(clause, f"{tex.strip()!r} is not a name")
        if not rels and node[0] == "conj" and len(node) > 2:     # \bar{x}: the name xbar
            return name_text(node[2])
        if rels or node[0] != "name":
            self.fail(clause, f"{tex.strip()!r} is not a name")
        return name_text(node)

    def put(self, clause: str, names: list[str], shape=None, kind=None):
        for n in names:
            if shape is not None:
                if n in self.shapes and self.shapes[n] != shape:
                    self.fail(clause, f"{n} is declared twice with different shapes ({self.shapes[n]} and {shape})")
                self.shapes[n] = shape
            if kind is not None:
                if n in self.structure and self.structure[n] != kind:
                    self.fail(clause, f"{n} is declared {self.structure[n]} and {kind}: one structure a name")
                self.structure[n] = kind

    def clause(self, clause: str, pending: list[str]) -> bool:
        """Read one clause; False when it is a bare name waiting for the ``\\in`` of a later clause."""
        words = re.match(r"^(.*?)\s*\\(?:text|textrm|mathrm)\s*\{\s*(?:is\s+)?([a-z -]+?)\s*\}\s*$", clause)
        if words and words.group(2) in _STRUCT_WORDS:
            self.put(clause, [self.name(clause, words.group(1))], kind=_STRUCT_WORDS[words.group(2)])
            return True
        m = re.match(r"^(.*?)\\in(?![A-Za-z])(.*)$", clause, re.S)
        if m:
            names = pending + [self.name(clause, m.group(1))]
            pending.clear()
            self.member(clause, names, m.group(2).strip())
            return True
        m = re.match(r"^(.*?)(\\succeq|\\succ|\\geq|\\ge|>=|>)\s*0\s*$", clause)
        if m:
            rel, names = m.group(2), pending + [self.name(clause, m.group(1))]
            pending.clear()
            if rel == "\\succ":
                self.put(clause, names, kind="spd")
            elif rel == ">":     # shape decided at the end: a later \in \mathbb{R}^d makes it entrywise (helper-51)
                self.put(clause, names, kind="positive")
            else:
                self.fail(clause, "positive semidefinite / non-negative is not a structure theorem-check draws "
                                  "(its samplers draw definite or positive values only, which could verify a "
                                  r"statement false on the boundary): declare \succ 0 or > 0 if that is meant")
            return True
        if "=" in clause:
            self.equation(clause)
            return True
        try:
            (node,), rels = read(clause, what="name")
        except (ParseError, ValueError):
            node, rels = None, ["?"]
        if node is not None and not rels and node[0] == "name":
            pending.append(name_text(node))
            return False
        self.fail(clause, r"not a declaration (NAME \in \mathbb{R}^{m \times n}, \Sigma \succ 0, Q \in O(n), "
                          r"S \in \mathbb{S}^n, a > 0)")
        return False  # pragma: no cover

    def member(self, clause: str, names: list[str], rhs: str):
        s = rhs.strip()
        m = re.fullmatch(r"\\mathbb\s*\{?\s*([NZ])\s*\}?(_\s*\{?\s*(>\s*0|\+|\\geq?\s*1)\s*\}?)?|\\N", s)
        if m:
            if m.group(1) == "Z" and not m.group(2):   # helper-49: integers of either sign were drawn as sizes 1..4
                self.fail(clause, r"\mathbb{Z} (integers of either sign) is not drawn: size letters are positive "
                                  r"integers, \mathbb{N} or \mathbb{Z}_{>0}; a real scalar is \mathbb{R}")
            self.sizes.extend(names)
            return
        m = re.fullmatch(r"\\mathbb\s*\{?\s*S\s*\}?\s*(?:\^" + _SIZE + r")?\s*(?:_\s*\{?\s*(\+\+|\+)\s*\}?)?"
                         r"\s*(?:\^" + _SIZE + r")?", s)
        if m:
            size = m.group(1) or m.group(3)
            if not size:
                self.fail(clause, r"\mathbb{S} needs its size (\mathbb{S}^n)")
            if m.group(2) == "+":
                self.fail(clause, r"\mathbb{S}^n_+ (positive semidefinite) is not a structure theorem-check draws: "
                                  r"\mathbb{S}^n_{++} is")
            size = _size(size)
            self.put(clause, names, (size, size), "spd" if m.group(2) == "++" else "symmetric")
            return
        m = re.fullmatch(r"(\\mathrm\s*\{\s*|\\mathcal\s*\{\s*|\\operatorname\s*\{\s*)?(S?O|GL)\s*\}?\s*"
                         r"(?:\(\s*([A-Za-z]|[0-9]+)\s*(?:,\s*\\mathbb\s*\{?\s*R\s*\}?\s*)?\)|_" + _SIZE + r")"
                         r"(?:\s*\(\s*\\mathbb\s*\{?\s*R\s*\}?\s*\))?", s)
        if m:
            group, size = m.group(2), m.group(3) or m.group(4)
            if group == "SO":
                self.fail(clause, "SO(n) (rotations) is not a structure theorem-check draws: O(n) is")
            size = _size(size)
            self.put(clause, names, (size, size), "orthogonal" if group == "O" else "invertible")
            return
        f = _FIELD.match(s)
        if not f:
            self.fail(clause, r"unknown set (known: \mathbb{R}, \mathbb{R}^d, \mathbb{R}^{m \times n}, "
                              r"\mathbb{R}_{>0}, \mathbb{C}..., \mathbb{S}^n, \mathbb{S}^n_{++}, O(n), GL(n), \mathbb{N})")
        complex_ = (f.group(1) or f.group(2)) == "C"
        rest = s[f.end():].strip()
        kind = "complex" if complex_ else None
        if not rest:
            self.put(clause, names, (), kind)
            return
        if re.fullmatch(r"_\s*\{?\s*(>\s*0|\+\+|\+)\s*\}?|\^\s*\{?\s*\+\s*\}?", rest) and not complex_:
            self.put(clause, names, (), "positive")
            return
        pos = re.compile(r"_\s*\{?\s*(>\s*0|\+\+|\+)\s*\}?")
        m = pos.match(rest) or pos.search(rest)
        if m and not complex_ and (m.start() == 0 or m.end() == len(rest)):   # \mathbb{R}^d_{>0}: entrywise positive
            rest, kind = (rest[:m.start()] + rest[m.end():]).strip(), "positive"
        m = _DIMS.fullmatch(rest)
        if m:
            r, c = (_size(v) for v in m.groups())
            self.put(clause, names, (r, c), kind)
            return
        m = re.fullmatch(r"\^" + _SIZE, rest)
        if m:
            self.put(clause, names, (_size(m.group(1)), 1), kind)
            return
        self.fail(clause, f"cannot read the dimensions {rest!r} (write ^d or ^{{m \\times n}})")

    def equation(self, clause: str):
        try:
            sides, rels = read(clause, what="declaration")
        except ParseError as exc:
            self.fail(clause, str(exc).split(": ", 1)[-1])
        if rels != ["="]:
            self.fail(clause, "one '=' expected")
        a, b = sides
        for x, y in ((a, b), (b, a)):
            if x[0] == "name" and y == ("T", x):
                self.put(clause, [name_text(x)], kind="symmetric")
                return
            if x[0] == "name" and y == ("neg", ("T", x)):
                self.put(clause, [name_text(x)], kind="antisymmetric")
                return
            if x[0] == "T" and x[1][0] == "name" and y == ("neg", x[1]):
                self.put(clause, [name_text(x[1])], kind="antisymmetric")
                return
            if x[0] == "mul" and x[1][0] == "T" and x[1][1] == x[2] and x[2][0] == "name" and y[0] == "ident":
                self.put(clause, [name_text(x[2])], kind="orthogonal")
                return
        self.fail(clause, r"not a structure (A = A^\top, A^\top = -A, Q^\top Q = I)")


def parse_where(text: str, *, what: str = "--where") -> Declarations:
    """Read a declaration list (see the module docstring).

    Raises InvalidArgument (one line naming the clause) for a clause it cannot read, a name declared
    twice with different shapes or structures, or positive semidefinite / ``SO(n)``.

    >>> d = parse_where(r"W_1 \\in \\mathbb{R}^{h \\times d}, x \\in \\mathbb{R}^d, \\Sigma \\succ 0, Q \\in O(n)")
    >>> d.shapes, d.structure
    ({'W_1': ('h', 'd'), 'x': ('d', 1), 'Q': ('n', 'n'), 'Sigma': ('n', 'n')}, {'Sigma': 'spd', 'Q': 'orthogonal'})
    """
    r = _Reader(text, what)
    pending: list[str] = []
    for clause in split_clauses(text.replace("$", " ")):     # pasted from a paper: $W \in \mathbb{R}^{m\times n}$
        r.clause(clause, pending)
    if pending:
        raise InvalidArgument(f"{what} {quoted(text)}: {', '.join(pending)} declared as nothing (NAME \\in ...)")
    letters = {v for shp in r.shapes.values() for v in shp if isinstance(v, str)}
    for name in [n for n, k in r.structure.items() if k == "positive" and n in letters and not r.shapes.get(n)]:
        del r.structure[name]      # d_k > 0 of a size letter: every size is positive (helper-44)
        r.shapes.pop(name, None)
    for name in [n for n, k in r.structure.items() if k == "positive" and n not in r.shapes]:
        if name[:1].isupper():   # helper-51: A > 0 made A a positive *scalar* (A B = B A VERIFIED); for a matrix
            raise InvalidArgument(f"{what} {quoted(text)}: {name} > 0 of a matrix is ambiguous: write {name} "
                                  rf"\succ 0 (positive definite) or {name} \in \mathbb{{R}}^{{n \times n}}_{{>0}} "
                                  "(entrywise)")
        r.shapes[name] = ()      # a lower-case name > 0 with no shape: a positive scalar (c > 0, \sigma > 0)
    for name, kind in r.structure.items():
        if kind not in ("positive", "complex") and name not in r.shapes:
            r.shapes[name] = (CONVENTION_SIZE, CONVENTION_SIZE)
        if kind not in ("positive", "complex") and r.shapes[name] == ():
            raise InvalidArgument(f"{what} {quoted(text)}: {name} is a scalar and {kind}: a matrix structure needs a "
                                  "matrix")
        if kind not in ("positive", "complex") and r.shapes[name][0] != r.shapes[name][1]:
            raise InvalidArgument(f"{what} {quoted(text)}: {name} is {kind} but not square {r.shapes[name]}")
    return Declarations(dict(r.shapes), dict(r.structure), tuple(r.sizes))
