"""``theorem-check scan``: a paper's numbered equations, classified (issue 20, item 4).

:func:`scan_file` finds the numbered displays and shape declarations of a ``.tex``, ``.md`` or
plain-text file (:mod:`theorem_check.authoring.scan_find`) and classifies each equation:

``checkable``
    an identity (every top-level relation ``=``) that the LaTeX reader parses and whose names all
    have declared shapes: a pack skeleton can state it as ``tc.identity`` as is.
``needs shapes``
    an identity that parses, with names no declaration in the text gives a shape (listed).
``not an identity``
    a definition (``:=``, ``=:``, ``\\coloneqq``, ``\\equiv``, ``\\triangleq``, a ``cases``
    definition), ``\\approx``, ``\\propto``, ``\\sim``, an inequality, ``\\neq``, ``\\to``, ``\\in``, a
    limit, or no relation at all (an expression).
``unparsed``
    why: the LaTeX reader is not installed, it refused the statement (its one-line message), or the
    number is cited in the prose but its display is not in the text.

Parsing is ONE injected function, ``parse(latex) -> (lhs, rhs)``: the two sides of ``"A = B"`` in
the string syntax of :func:`theorem_check.expr.parse` (or SymPy expressions, printed with ``str``),
raising :class:`~theorem_check.expr.ParseError`.  :func:`default_parser` is
``theorem_check.expr.latex.parse_latex_statement`` when that module is installed, else ``None``
(every identity is then *unparsed*).  A declared name is read through the same function (the left
side of ``"NAME = NAME"``), so declarations and statements agree on names whatever the reader's
convention.  Finding and classifying do not depend on the parser: a chain ``a = b = c`` is read as
the identities ``a = b`` and ``b = c``, and a row that begins with a relation continues the row
before it (its last operand is the left side).

Conventions: a name is a free name of a side that is not called (``f(x)`` makes ``f`` a function),
not a function of the string syntax and not a constant (``pi``, ``E``).  A vector ``\\mathbb{R}^d``
is a column ``(d, 1)``; a size written ``d_{2}`` becomes the size letter ``d_2`` in a skeleton.
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Mapping

from theorem_check.authoring.scan_find import (
    Declaration,
    Display,
    find_declarations,
    find_displays,
    find_structures,
    read_text,
    strip_wrappers,
    text_format,
)
from theorem_check.authoring.scan_macros import expand_macros, find_macros
from theorem_check.errors import TheoremCheckError
from theorem_check.expr import FUNCTIONS, ParseError, names_in
from theorem_check.expr import parse as parse_syntax

__all__ = ["CLASSES", "Entry", "Scan", "Parser", "default_parser", "relations", "classify", "scan_text",
           "scan_file", "side_names", "side_text", "size_letter"]

CLASSES = ("checkable", "needs shapes", "not an identity", "unparsed")
"""The classes of a scanned equation, in the order tables and counts list them."""

Parser = Callable[[str], tuple]
"""``parse(latex) -> (lhs, rhs)`` for ``"A = B"``; raises ParseError (or any TheoremCheckError)."""

NO_READER = "LaTeX reader not installed (theorem_check.expr.latex)"

_DEFINITION = {":=", "=:", r"\coloneqq", r"\eqqcolon", r"\equiv", r"\triangleq", r"\doteq", r"\defeq"}
_OTHER = {
    r"\approx": "\\approx", r"\simeq": "\\simeq", r"\propto": "\\propto", r"\sim": "\\sim",
    "<": "an inequality", ">": "an inequality", r"\le": "an inequality", r"\leq": "an inequality",
    r"\ge": "an inequality", r"\geq": "an inequality", r"\leqslant": "an inequality",
    r"\geqslant": "an inequality", r"\ll": "an inequality", r"\gg": "an inequality",
    r"\preceq": "an inequality", r"\succeq": "an inequality", r"\prec": "an inequality",
    r"\succ": "an inequality", r"\neq": "\\neq", r"\ne": "\\neq", r"\to": "a map or limit (\\to)",
    r"\rightarrow": "a map or limit (\\to)", r"\longrightarrow": "a map or limit (\\to)", r"\mapsto": "\\mapsto",
    r"\in": "a membership (\\in)", r"\subset": "\\subset", r"\subseteq": "\\subseteq",
    r"\implies": "an implication", r"\Rightarrow": "an implication", r"\iff": "an equivalence",
    r"\Leftrightarrow": "an equivalence",
}
_REL_RE = re.compile(r":=|=:|\\(?:" + "|".join(sorted({k[1:] for k in (_DEFINITION | set(_OTHER)) if k.startswith("\\")},
                                                       key=len, reverse=True)) + r")(?![A-Za-z])|=|<|>")
_CONSTANTS = {"pi", "E", "oo"}


@dataclass(frozen=True)
class Entry:
    """One scanned equation.

    ``number``, ``line``, ``latex`` (as found, ``""`` when only cited), ``label`` (``.tex``),
    ``cls`` one of :data:`CLASSES`, ``reason`` a short why, ``relation`` the top-level relation
    (``"="``, ``"\\propto"``, ``"none"``, ...; ``"?"`` when the display is not in the text),
    ``sides`` the parsed identities ``((lhs, rhs), ...)`` in the string syntax, ``names`` the names
    they use, ``missing`` the names without a shape, ``shapes`` name -> shape for the names used,
    ``continues`` the LaTeX this row continues (``""`` if none), ``claims`` the built-in claims that
    cover it (filled by :func:`theorem_check.authoring.scan.Scan.with_coverage`), ``structure`` name -> kind
    (``spd``, ``symmetric``, ``positive``, ...) for the names used that the text declares so
    (:func:`~theorem_check.authoring.scan_find.find_structures`).
    """

    number: str
    line: int
    latex: str
    cls: str
    reason: str
    relation: str
    label: str = ""
    sides: tuple = ()
    names: tuple = ()
    missing: tuple = ()
    shapes: Mapping = field(default_factory=dict)
    continues: str = ""
    cited: bool = False
    claims: tuple = ()
    structure: Mapping = field(default_factory=dict)

    def record(self) -> dict:
        """The JSON form (docs/json.md, record kind ``scan``)."""
        return {"number": self.number, "line": self.line, "latex": self.latex, "label": self.label,
                "class": self.cls, "reason": self.reason, "relation": self.relation, "cited": self.cited,
                "continues": self.continues, "identities": [list(s) for s in self.sides],
                "names": list(self.names), "missing": list(self.missing),
                "shapes": {k: list(v) for k, v in self.shapes.items()}, "structure": dict(self.structure),
                "claims": list(self.claims)}


@dataclass(frozen=True)
class Scan:
    """The result of scanning one text: its ``path``, ``format``, ``entries`` (reading order, then
    cited-only numbers), ``declarations``, whether a ``reader`` parsed the identities, and the
    ``paper`` whose built-in claims were mapped (``""`` for none)."""

    path: str
    format: str
    entries: tuple
    declarations: tuple
    reader: bool
    paper: str = ""
    structures: tuple = ()

    def counts(self) -> dict:
        """Number of entries per class (every class of :data:`CLASSES`, zeros included)."""
        out = {c: 0 for c in CLASSES}
        for e in self.entries:
            out[e.cls] += 1
        return out

    def with_coverage(self, paper: str, claim_refs: Mapping[str, tuple]) -> "Scan":
        """This scan with each entry's ``claims``: ``claim_refs`` maps an equation number to claim ids."""
        entries = tuple(_replace(e, claims=tuple(claim_refs.get(e.number, ()))) for e in self.entries)
        return Scan(self.path, self.format, entries, self.declarations, self.reader, paper, self.structures)


def _replace(e: Entry, **kw) -> Entry:
    import dataclasses

    return dataclasses.replace(e, **kw)


def default_parser() -> Parser | None:
    """``theorem_check.expr.latex.parse_latex_statement`` when installed, else None; shape-aware: called with the
    text's declared shapes (``shapes=``), the names it declares have them and the others the conventions, as
    ``check --latex --where`` reads them (helper-49: scan read every name by the conventions, so a bare ``I``
    beside ``B`` (``m x n``) was ``eye(n)`` and the push-through identity ILL-POSED)."""
    try:
        mod = importlib.import_module("theorem_check.expr.latex")
    except ImportError:
        return None
    parse = getattr(mod, "parse_latex_statement", None)
    if parse is None or not all(hasattr(mod, a) for a in ("convention_shapes", "latex_names")):
        return parse    # a reader without the conventions (a stand-in): the text alone

    def read(text: str, shapes: Mapping[str, tuple] | None = None):
        if not shapes:
            return parse(text)
        declared = {k: tuple(v) for k, v in shapes.items()}
        return parse(text, {**mod.convention_shapes(mod.latex_names(text), declared), **declared})

    read.shape_aware = True
    return read


# ----------------------------------------------------------------------------------------------------
# relations
# ----------------------------------------------------------------------------------------------------
def relations(latex: str) -> tuple[list[str], list[str]]:
    """(operands, relations) of a statement at brace depth 0: ``"a = b \\propto c"`` ->
    ``(["a", "b", "c"], ["=", "\\propto"])``.  Relations inside braces (``\\text{if $k=l$}``,
    ``\\lim_{\\rho\\to 0}``, ``\\mathbb{E}_{x\\sim D}``) do not count; nor do those inside ``\\left(``
    ... ``\\right)`` or plain parentheses."""
    s = strip_wrappers(latex)
    s = re.sub(r"(?:(?:,|\\q?quad|\\[,;])\s*)+\\text\{\s*(?:for|where|if)\b.*$|(?:(?:,|\\q?quad|\\[,;])\s*)*\\forall.*$",
               "", s)
    depth = paren = 0
    ops, rels, start, i = [], [], 0, 0
    while i < len(s):
        c = s[i]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
        elif c == "(":
            paren += 1
        elif c == ")":
            paren = max(paren - 1, 0)
        if depth == 0 and paren == 0:
            m = _REL_RE.match(s, i)
            if m and not (c == "\\" and i > 0 and s[i - 1] == "\\"):
                ops.append(s[start:i].strip())
                rels.append(m.group(0))
                i = start = m.end()
                continue
        if c == "\\":
            m = re.match(r"\\[A-Za-z]+|\\.", s[i:])
            i += len(m.group(0)) if m else 1
            continue
        i += 1
    ops.append(s[start:].strip())
    return ops, rels


def _not_identity(rels: list[str], latex: str) -> str | None:
    """Why the statement is no identity (None when every relation is ``=``)."""
    if not rels:
        return "no relation (an expression)"
    for r in rels:
        if r in _DEFINITION:
            return f"a definition ({r})"
    for r in rels:
        if r != "=":
            return _OTHER.get(r, r)
    if re.search(r"\\begin\{[a-z]*cases\}", latex):
        return "a definition by cases"
    if re.search(r"\\(?:lim|limsup|liminf)(?![A-Za-z])", latex):
        return "a limit"
    return None


# ----------------------------------------------------------------------------------------------------
# names and shapes
# ----------------------------------------------------------------------------------------------------
def side_names(side) -> set[str]:
    """Free names of a parsed side (a string in the string syntax, or a SymPy expression)."""
    if isinstance(side, str):
        return {n for n, called, _ in names_in(side, "side") if not called and n not in FUNCTIONS
                and n not in _CONSTANTS}
    free = getattr(side, "free_symbols", set())
    return {getattr(s, "name", str(s)) for s in free}


_SPECIAL = {"Determinant": "det", "HadamardProduct": "hadamard", "KroneckerProduct": "kron", "DiagMatrix": "diag",
            "DiagonalOf": "diag"}


def side_text(side) -> str:
    """A parsed side in the string syntax: a string as is; a SymPy tree printed so that
    :func:`theorem_check.expr.parse` reads it back (``Trace`` -> ``trace``, ``Determinant`` -> ``det``,
    ``Grad`` -> ``grad``, ...: a node whose lower-cased class name is a function of the string syntax)."""
    if isinstance(side, str):
        return side
    import sympy as sp
    from sympy.printing.str import StrPrinter

    class _Syntax(StrPrinter):
        def _print_Basic(self, e):  # noqa: N802 - SymPy's printer dispatch names
            name = _SPECIAL.get(type(e).__name__, type(e).__name__.lower())
            if name in FUNCTIONS and e.args:
                return f"{name}({', '.join(self._print(a) for a in e.args)})"
            return super()._print_Basic(e)

        def _print_ElementwiseApplyFunction(self, e):  # noqa: N802 - exp(X), sigmoid(X) of a matrix
            f = e.function
            var = getattr(f, "variables", (None,))[0]
            body = getattr(f, "expr", None)
            if body is not None and body.args == (var,):
                return f"{self._print(body.func)}({self._print(e.expr)})"
            return super()._print_Basic(e)

        def _print_HadamardPower(self, e):  # noqa: N802 - hadamard(A, A) is folded to A∘²
            k = e.exp
            if getattr(k, "is_Integer", False) and 2 <= int(k) <= 8:
                return f"hadamard({', '.join([self._print(e.base)] * int(k))})"
            return super()._print_Basic(e)

        def _print_MatMul(self, e):  # noqa: N802 - 2*(A + B)*A would read back as (2*A + 2*B)*A
            coeff, mats = e.as_coeff_mmul()
            factors = mats.args if isinstance(mats, sp.MatMul) else (mats,)
            if coeff != 1 and len(factors) > 1 and isinstance(factors[0], sp.MatAdd):
                inner = sp.MatMul(*factors)   # SymPy distributes a number over a sum it multiplies alone
                return f"{self.parenthesize(coeff, 50)}*({super()._print_MatMul(inner)})"
            return super()._print_MatMul(e)

        def _print_Identity(self, e):  # noqa: N802
            return f"eye({self._print(e.rows)})"

        def _print_OneMatrix(self, e):  # noqa: N802
            return f"ones({self._print(e.rows)}, {self._print(e.cols)})"

        def _print_ZeroMatrix(self, e):  # noqa: N802
            return f"zeros({self._print(e.rows)}, {self._print(e.cols)})"

    printer = _Syntax()
    for cls in ("Trace", "Determinant", "HadamardProduct", "KroneckerProduct", "DiagMatrix", "DiagonalOf"):
        setattr(printer, f"_print_{cls}", printer._print_Basic)
    return printer.doprint(side) if isinstance(side, sp.Basic) else str(side)


def size_letter(size: str) -> str | int | None:
    """A size as written in a declaration -> an int or a size letter of the short forms
    (``"d_{2}"`` -> ``"d_2"``, ``"d_{i-1}"`` -> ``"d_i_1"``, ``"40"`` -> 40, ``"\\ell"`` -> ``"ell"``);
    None for a size that is an expression (``"d_{2}+d_{0}"``, ``"2n"``, ``"(d_x+d_y)d"``): no letter
    stands for it, and a fresh letter would break the shapes' relations."""
    s = size.strip()
    if s.isdigit():
        return int(s) if int(s) >= 1 else None
    if not re.fullmatch(r"(?:\\[A-Za-z]+|[A-Za-z])\s*(?:_\s*(?:\{[^{}]*\}|[A-Za-z0-9]))?", s):
        return None
    s = re.sub(r"\\([A-Za-z]+)", r"\1", s)
    return re.sub(r"[^A-Za-z0-9]+", "_", s).strip("_")


def _reader_name(d: Declaration, parse: Parser | None) -> str | None:
    """The reader's (string-syntax) name of a declared LaTeX name; None when it reads as no single name."""
    if parse is None:
        return d.name
    try:
        lhs, _ = parse(f"{d.name} = {d.name}")
        got = side_names(lhs)
    except (TheoremCheckError, ValueError, TypeError):
        return None
    return got.pop() if len(got) == 1 else None


def _declared_structure(structs: Iterable[Declaration], shapes: Mapping[str, tuple], parse: Parser | None) -> dict:
    """Reader name -> structure kind, the first declaration of each name whose shape fits the kind: a square
    matrix for a matrix kind, a scalar (no shape, or ``()``) for ``positive``."""
    out: dict = {}
    for d in structs:
        name = _reader_name(d, parse)
        if name is None or name in out:
            continue
        shape = shapes.get(name)
        if d.structure == "positive":
            if not shape:
                out[name] = "positive"
        elif shape is not None and len(shape) == 2 and shape[0] == shape[1]:
            out[name] = d.structure
    return out


def _square_of_structure(structs: Iterable[Declaration], shapes: Mapping[str, tuple], parse: Parser | None) -> dict:
    """``\\Sigma \\succ 0`` with no shape declared anywhere: a square matrix, ``k x k`` with ``k`` the one size (letter
    or number) the text's shapes use, ``n`` when it declares no shape, none when they use several (the name then
    needs a shape), as ``check --where`` makes a structure alone ``n x n`` (helper-49: scan said "no shape for
    Sigma"; helper-50: with ``x \\in \\mathbb{R}^3`` it was ``n x n``, an invented size)."""
    sizes = {v for sh in shapes.values() for v in sh if v not in (1, "1")}
    if len(sizes) > 1 or (shapes and not sizes):
        return {}
    k = next(iter(sizes), "n")     # the one size the text's shapes use (x in R^3: 3), n when it declares none
    out: dict = {}
    for d in structs:
        name = _reader_name(d, parse)
        # an upper-case name only (a matrix by the conventions): a lower-case one with "succ 0" is a step size or
        # a positive vector in prose (helper-50: eta succ 0 made eta a d x d matrix)
        if name is not None and d.structure != "positive" and not d.shape and name not in shapes and name[:1].isupper():
            out.setdefault(name, (k, k))
    return out


def _declared_shapes(decls: Iterable[Declaration], parse: Parser | None) -> dict:
    """Reader name -> shape tuple (sizes as :func:`size_letter`), the first declaration of each name."""
    out: dict = {}
    for d in decls:
        name = _reader_name(d, parse)
        if name is None:
            continue
        shape = tuple(size_letter(x) for x in d.shape)
        if len(shape) <= 2 and None not in shape:   # tensors and sizes that are expressions: no shape
            out.setdefault(name, shape)
    return out


# ----------------------------------------------------------------------------------------------------
# classification
# ----------------------------------------------------------------------------------------------------
def classify(display: Display, shapes: Mapping[str, tuple], parse: Parser | None,
             structure: Mapping[str, str] | None = None) -> Entry:
    """Classify one display (see the module docstring); never raises for a statement the reader refuses.
    ``structure``: name -> kind the text declares (kept for the names the display uses)."""
    base = dict(number=display.number, line=display.line, latex=display.latex, label=display.label,
                continues=display.continues, cited=display.cited)
    if display.cited:
        return Entry(cls="unparsed", reason="cited in the text; its display is not in it", relation="?", **base)
    ops, rels = relations(display.latex)
    if display.continues and rels and not ops[0]:
        prev_ops, _ = relations(display.continues)
        ops[0] = prev_ops[-1]
    relation = rels[0] if len(set(rels)) == 1 else (" ".join(dict.fromkeys(rels)) if rels else "none")
    why = _not_identity(rels, display.latex)
    if why:
        return Entry(cls="not an identity", reason=why, relation=relation, **base)
    if any(not o for o in ops):
        return Entry(cls="unparsed", reason="a side is empty", relation=relation, **base)
    if parse is None:
        return Entry(cls="unparsed", reason=NO_READER, relation=relation, **base)
    sides, names = [], set()
    for a, b in zip(ops, ops[1:]):
        try:
            lhs, rhs = parse(f"{a} = {b}", shapes=shapes) if getattr(parse, "shape_aware", False) else \
                parse(f"{a} = {b}")
        except (TheoremCheckError, ValueError, TypeError) as exc:
            msg = " ".join(str(exc).split())
            return Entry(cls="unparsed", reason=msg[:160], relation=relation, **base)
        try:
            names |= side_names(lhs) | side_names(rhs)
        except TheoremCheckError as exc:
            return Entry(cls="unparsed", reason=" ".join(str(exc).split())[:160], relation=relation, **base)
        sides.append((side_text(lhs), side_text(rhs)))
    scalars = {n: () for n, k in (structure or {}).items() if k == "positive" and n not in shapes}
    letters = {x for shp in shapes.values() for x in shp if isinstance(x, str) and x != "1"}
    known = {**shapes, **scalars}
    if len(sides) == 1 and re.fullmatch(r"[A-Za-z_]\w*", sides[0][0].strip()) \
            and sides[0][0].strip() not in side_names(rhs):      # the one link's right side, read above
        return Entry(cls="not an identity", reason=f"a definition of {sides[0][0].strip()} (its name alone on the "
                     "left, not on the right)", relation=relation, **base)
    missing = tuple(sorted(n for n in names if n not in known and n not in letters))   # eye(n): n a size
    used = {n: tuple(known[n]) for n in sorted(names) if n in known}
    kinds = {n: k for n, k in sorted((structure or {}).items()) if n in names}
    common = dict(relation=relation, sides=tuple(sides), names=tuple(sorted(names)), missing=missing,
                  shapes=used, structure=kinds, **base)
    if missing:
        return Entry(cls="needs shapes", reason="no shape for " + ", ".join(missing), **common)
    for pair in sides:
        for text in pair:
            try:
                parse_syntax(text, used)
            except ParseError as exc:   # the reader's tree has no form the string syntax reads back
                return _replace(Entry(cls="unparsed", reason="", **common),
                                reason=" ".join(f"no string-syntax form: {exc}".split())[:160])
            except (TheoremCheckError, ValueError, TypeError):   # shapes: the engine decides (ILL-POSED)
                pass
    what = "identity" if len(sides) == 1 else f"{len(sides)} identities (a chain)"
    return Entry(cls="checkable", reason=f"{what}; every name has a shape", **common)


def scan_text(text: str, fmt: str, *, path: str = "-", parse: Parser | None = None) -> Scan:
    """Scan ``text`` of format ``fmt`` (``tex``, ``md``, ``txt``) with the injected ``parse``."""
    macros = find_macros(text) if fmt == "tex" else {}
    displays = [dataclasses.replace(d, latex=expand_macros(d.latex, macros), continues=expand_macros(d.continues, macros))
                for d in find_displays(text, fmt)]        # the paper's \newcommand macros, expanded (helper-44)
    decls = tuple(dataclasses.replace(d, name=expand_macros(d.name, macros).strip()) for d in find_declarations(text))
    structs = tuple(dataclasses.replace(d, name=expand_macros(d.name, macros).strip()) for d in find_structures(text))
    shapes = _declared_shapes(decls + tuple(d for d in structs if d.shape), parse)
    shapes = {**_square_of_structure(structs, shapes, parse), **shapes}
    structure = _declared_structure(structs, shapes, parse)
    entries = tuple(classify(d, shapes, parse, structure) for d in displays)
    return Scan(path, fmt, entries, decls, parse is not None, "", structs)


_USE_DEFAULT = object()


def scan_file(path: str | Path, *, parse=_USE_DEFAULT) -> Scan:
    """Scan a file (format from its suffix, :func:`~theorem_check.authoring.scan_find.text_format`).

    ``parse`` defaults to :func:`default_parser` (None when the LaTeX reader is not installed).
    Raises InvalidArgument for a missing, unreadable or binary file.
    """
    text = read_text(path)
    return scan_text(text, text_format(path), path=str(path),
                     parse=default_parser() if parse is _USE_DEFAULT else parse)
