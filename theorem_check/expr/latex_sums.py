"""``\\sum`` as papers print it, read as a statement of whole vectors and matrices (design decision 221).

The grammar reads ``\\sum`` with its scripts as an operator on the product that follows (``\\sum_i x_i y_i + b`` is
``(\\sum_i x_i y_i) + b``, as ``\\nabla_x`` takes its product); :func:`sum_node` makes the tree node ``("sumop",
indices, lower, upper, body)`` and :func:`expand` replaces it, before names are collected or shapes decided, by one
of two readings:

* **a fixed number of terms**: both bounds are integers (``\\sum_{l=1}^{3} W_l x``) -- the terms written out
  (``W_1 x + W_2 x + W_3 x``), the index replaced in subscripts and labels (``W_{l+1}`` -> ``W_2``, ``W^{(l)}``) and
  where it stands as a number.  Refused where a subscripted name also stands alone in the statement (``\\sum_{i=1}^{3}
  x_i = \\mathbf{1}^\\top x``: entries of ``x``, or three names?).
* **entries**: otherwise (``\\sum_i``, ``\\sum_{i=1}^{n}``, ``\\sum_{i,j}``) the index runs over the entries of the
  names it subscripts, and the sum is written of whole arrays: ``\\sum_i f(x_i, y_i)`` is ``\\mathbf{1}^\\top
  f_\\odot(x, y)`` (products of entries are Hadamard products, functions and integer powers act entrywise, a number
  or scalar beside them is that many copies), ``\\sum_i A_{ii}`` is ``\\mathbf{1}^\\top \\operatorname{diag}(A)``,
  ``\\sum_{i,j} g(A_{ij}, B_{ji})`` is ``\\mathbf{1}^\\top g_\\odot(A, B^\\top) \\mathbf{1}``; factors of a product
  without the index stand outside (``\\sum_i c\\, x_i M = c\\, (\\mathbf{1}^\\top x) M``).  ``x_i`` is an entry of a
  column, ``A_{ij}`` of a matrix: the emitter checks each against the statement's shapes, checks an upper bound
  that is a letter against the size it runs over, and checks that what stands beside an entry inside a function,
  a sum or a Hadamard product is a scalar (nodes ``("entry", array, kind, bounds, written)`` and ``("scalar", node)``).
  An entry of an expression, ``(A x)_i`` or ``\\operatorname{softmax}(z)_i``, is the column it computes.

Refused, each with a one-line reason (a wrong reading would be a wrong verdict): the index anywhere but as the
whole subscript of a name (``x_{i+1}``, ``W_{l,ij}``), ``x_i^\\top`` (a family of vectors ``x_1, ..., x_n``, which
is not read), an entry divided by or in an exponent, vectors in a double sum, three indices, bounds other than
``1..n`` (or ``0..n-1``), an index that does not appear, and more than 64 terms written out.
"""

from __future__ import annotations

import itertools
import re

from theorem_check.expr.latex_sizes import is_1x1, is_one

__all__ = ["entry_names", "expand", "expand_sides", "sum_node", "e_entry", "e_scalar", "UNROLL_MAX"]

UNROLL_MAX = 64
"""Most terms a sum with integer bounds is written out to."""

_ENTRYWISE = {"exp", "log", "sqrt", "sigmoid", "softplus", "tanh", "sin", "cos", "tan", "abs", "relu"}
_SCRIPT = re.compile(r"([_^])\s*(\{((?:[^{}]|\{[^{}]*\})*)\}|\\[A-Za-z]+|[A-Za-z0-9])")


def sum_node(tok: str, body, fail):
    """``("sumop", indices, lower, upper, body)`` of the token ``\\sum_{i=1}^{n}`` (scripts in either order;
    ``_{i,j}``, ``_{ij}`` two indices; bounds as text or None)."""
    sub = sup = None
    for m in _SCRIPT.finditer(tok[len("\\sum"):]):
        text = (m.group(3) if m.group(3) is not None else m.group(2)).strip()
        if m.group(1) == "_":
            sub = text
        else:
            sup = text
    if sub is None:
        fail(r"'\sum' without an index (write \sum_i or \sum_{i=1}^{n})")
    head, _, lower = sub.partition("=")
    indices = tuple(re.sub(r"[\s,]", "", head))
    if not indices or not all(re.fullmatch(r"[a-z]", i) for i in indices) or len(set(indices)) != len(indices):
        fail(f"'\\sum_{{{sub}}}': the index is one or two single letters (\\sum_i, \\sum_{{i,j}}, \\sum_{{i=1}}^{{n}})")
    return ("sumop", indices, lower.strip() or None, sup, body)


def expand_sides(sides: list, fail) -> list:
    """The sides of a statement with their sums read (:func:`expand`); unchanged when there is none."""
    if not any(n[0] == "sumop" for s in sides for n in _walk(s)):
        return sides
    alone = frozenset(n[1] for s in sides for n in _walk(s) if n[0] == "name" and not n[2] and not n[3])
    indices = {i for s in sides for n in _walk(s) if n[0] == "sumop" for i in n[1]}
    out = [expand(s, fail, alone) for s in sides]
    for n in (n for s in out for n in _walk(s)):
        sub = n[2] if n[0] in ("name", "subexpr") else ""
        if n[0] == "subexpr" or isinstance(sub, str) and sub and set(sub) <= indices:
            fail(f"the index {sub} outside the sum it belongs to (\\sum takes the product that follows, as \\nabla "
                 "does: write \\sum_{i} (x_i + y_i) for the sum of a sum)")
    return out


def entry_names(sides) -> set[str]:
    """The names a sum read as entries, as the paper wrote them (``x_i``): a declaration of one of them declares a
    family member, which the entries reading would ignore (``check`` keeps it, and the emitter refuses it)."""
    return {n[4] for s in sides for n in _walk(s) if n[0] == "entry" and n[4]}


def _walk(node):
    if isinstance(node, list):
        for b in node:
            yield from _walk(b)
    elif isinstance(node, tuple) and node and isinstance(node[0], str):
        yield node
        for c in node[1:]:
            yield from _walk(c)


def expand(node, fail, alone: frozenset = frozenset()):
    """``node`` with every ``("sumop", ...)`` replaced by its reading (see the module docstring); ``alone``: the names
    that stand without a subscript anywhere in the statement (the fixed-number reading refuses them)."""
    if not isinstance(node, tuple) or not node or not isinstance(node[0], str):
        return node
    if node[0] != "sumop":
        return tuple(_expand_child(c, fail, alone) for c in node)
    indices, body = node[1], node[4]
    bounds = [(node[2], node[3])] * len(indices)
    while isinstance(body, tuple) and body[0] == "sumop":       # \sum_i \sum_j: one sum over (i, j)
        indices, bounds, body = indices + body[1], bounds + [(body[2], body[3])] * len(body[1]), body[4]
    if len(set(indices)) != len(indices):
        fail(f"the index {indices[0]} of a sum is the index of another sum around it")
    body = expand(body, fail, alone)
    numeric = [_integer(lo) is not None and _integer(hi) is not None for lo, hi in bounds]
    if all(numeric):
        return _unroll(indices, [(_integer(lo), _integer(hi)) for lo, hi in bounds], body, fail, alone)
    if any(numeric):
        fail("a sum with integer bounds inside or around a sum over entries is not read: give every bound as a letter "
             "or every bound as a number")
    return _entries(indices, [_bound(lo, hi, fail) for lo, hi in bounds], body, fail)


def _expand_child(c, fail, alone):
    if isinstance(c, list):
        return [expand(b, fail, alone) for b in c]
    return expand(c, fail, alone)


def _integer(text):
    return int(text) if text is not None and re.fullmatch(r"-?[0-9]+", text.strip()) else None


# --- a fixed number of terms ------------------------------------------------------------------------------------
def _unroll(indices, ranges, body, fail, alone):
    values = list(itertools.product(*(range(lo, hi + 1) for lo, hi in ranges)))
    if not values or len(values) > UNROLL_MAX:
        fail(f"a sum of {len(values)} terms is not written out (at most {UNROLL_MAX}): give the upper bound as a "
             "letter for a sum over entries")
    terms = [_substitute(body, dict(zip(indices, v)), fail, alone) for v in values]
    out = terms[0]
    for t in terms[1:]:
        out = ("add", out, t)
    return out


def _substitute(node, value: dict, fail, alone):
    if isinstance(node, list):
        return [_substitute(b, value, fail, alone) for b in node]
    if not isinstance(node, tuple) or not node or not isinstance(node[0], str):
        return node
    if node[0] == "name":
        _, base, sub, sup, letter = node
        if not sub and not sup and base in value:
            return ("num", str(value[base]))
        new_sub, new_sup = _script(sub, value), _script(sup, value)
        if (new_sub, new_sup) != (sub, sup) and base in alone:
            fail(f"'{base}_{{{sub}}}' in a sum with integer bounds reads as the names {base}_1, {base}_2, ... but "
                 f"{base} also stands alone: for its entries give the upper bound as a letter (\\sum_{{i=1}}^{{n}})")
        return ("name", base, new_sub, new_sup, letter)
    return tuple(_substitute(c, value, fail, alone) for c in node)


def _script(text: str, value: dict) -> str:
    """A subscript or label with the index replaced (``l`` -> ``2``; ``lp1`` from ``l+1`` -> ``3``)."""
    if not text:
        return text
    m = re.fullmatch(r"([a-z])(?:([pm])([0-9]+))?", text)
    if m and m.group(1) in value:
        k = value[m.group(1)] + (0 if not m.group(2) else int(m.group(3)) * (1 if m.group(2) == "p" else -1))
        return str(k) if k >= 0 else f"m{-k}"
    if all(c in value for c in text):           # W_{ij} at i = 1, j = 2: W_12
        return "".join(str(value[c]) for c in text)
    return text


# --- entries ------------------------------------------------------------------------------------------------------
def _entries(indices, hi: list, body, fail):
    if len(indices) > 2:
        fail(r"a sum over three or more indices is not read: write it of whole matrices")
    if not _carries(body, indices):
        if len(indices) == 1 and hi[0] is not None:       # \sum_{i=1}^{n} c = n c
            return ("mul", ("name", hi[0], "", "", ""), ("scalar", body))
        fail(f"the index {indices[0]} does not appear in the sum's term")
    missing = [i for i in indices if not _carries(body, (i,))]
    if missing:
        fail(f"the index {missing[0]} does not appear in the sum's term")
    outside, inside = [], []
    for f in _factors(body):
        (inside if _carries(f, indices) else outside).append(f)
    had = None
    for f in inside:
        t = _entrywise(f, indices, hi, fail)
        had = t if had is None else ("had", had, t, (False, False))
    ones = ("ones", None)
    total = ("mul", ("T", ones), had)
    if len(indices) == 2:
        total = ("mul", total, ones)
    out = ("scalar", total)
    for f in outside:
        out = ("mul", out, f)
    return out


def _bound(lower, upper, fail):
    """The size letter the index runs to (None: not given); refuses other ranges."""
    if lower in (None, "1") and (upper is None or re.fullmatch(r"[A-Za-z]", upper.strip())):
        return upper.strip() if upper else None
    m = re.fullmatch(r"([A-Za-z])\s*-\s*1", (upper or "").strip())
    if lower == "0" and m:
        return m.group(1)
    fail(f"a sum from {lower} to {upper} is not read: a sum over entries runs over all of them (\\sum_{{i=1}}^{{n}}, "
         "\\sum_i)")


def _factors(node):
    if isinstance(node, tuple) and node[0] == "mul":
        return _factors(node[1]) + _factors(node[2])
    return [node]


def _carries(node, indices) -> bool:
    if isinstance(node, list):
        return any(_carries(b, indices) for b in node)
    if not isinstance(node, tuple) or not node or not isinstance(node[0], str):
        return False
    if node[0] == "name":
        return any(i in (node[2] or "") + (node[3] or "") or (node[1] == i and not node[2]) for i in indices)
    if node[0] == "subexpr":
        return any(i in node[2] for i in indices) or _carries(node[1], indices)
    return any(_carries(c, indices) for c in node[1:])


def _entrywise(node, indices, hi, fail):
    """``node`` (a scalar that depends on the indices) as the array of its values over the entries."""
    if not _carries(node, indices):
        return ("scalar", node)
    kind = node[0]
    if kind == "name":
        return _entry_name(node, indices, hi, fail)
    if kind == "mul":
        a, b = (_entrywise(c, indices, hi, fail) for c in node[1:3])
        both = _carries(node[1], indices) and _carries(node[2], indices)
        return ("had", a, b, (False, False)) if both else ("mul", a, b)
    if kind in ("add", "sub"):
        return (kind, _entrywise(node[1], indices, hi, fail), _entrywise(node[2], indices, hi, fail))
    if kind == "neg":
        return ("neg", _entrywise(node[1], indices, hi, fail))
    if kind == "subexpr":
        return _entry_of_expression(node, indices, hi, fail)
    if kind == "slash":      # x_i / y_i, x_i / 2 (a slash's juxtaposed factors multiply here: nothing to absorb)
        out = ("div", node[1], node[2])
        for c in node[3]:
            out = ("mul", out, c)
        return _entrywise(out, indices, hi, fail)
    if kind == "div" and not _carries(node[2], indices):
        return ("div", _entrywise(node[1], indices, hi, fail), ("scalar", node[2]))
    if kind == "div":      # x_i / y_i: the entrywise quotient, as the reciprocal's Hadamard product
        den = ("call", "hadamard_power", [_entrywise(node[2], indices, hi, fail), ("num", "-1")])
        return ("had", _entrywise(node[1], indices, hi, fail), den, (False, False)) if _carries(node[1], indices) \
            else ("mul", ("scalar", node[1]), den)
    if kind == "pow" and _carries(node[2], indices) and not _carries(node[1], indices) and _euler(node[1]):
        return ("call", "exp@", [_entrywise(node[2], indices, hi, fail)])     # e^{x_i}
    if kind == "pow" and not _carries(node[2], indices) and node[2][0] == "num" and re.fullmatch(r"[1-9][0-9]*",
                                                                                                 node[2][1]):
        return ("hpow", _entrywise(node[1], indices, hi, fail), int(node[2][1]))
    if kind == "pow" and not _carries(node[2], indices):          # x_i^{1/2}, x_i^{-2}, x_i^{p}
        return ("call", "hadamard_power", [_entrywise(node[1], indices, hi, fail), ("scalar", node[2])])
    if kind == "inv":                                            # x_i^{-1}
        return ("call", "hadamard_power", [_entrywise(node[1], indices, hi, fail), ("num", "-1")])
    if kind == "call" and node[1] in ("max", "min") and len(node[2]) == 2:   # \max(0, x_i): entrywise, as ReLU
        return ("call", node[1], [_entrywise(a, indices, hi, fail) for a in node[2]])
    if kind == "hpow":
        return ("hpow", _entrywise(node[1], indices, hi, fail), node[2])
    if kind == "call" and node[1].rstrip("@") in _ENTRYWISE and len(node[2]) == 1:
        return ("call", node[1].rstrip("@") + "@", [_entrywise(node[2][0], indices, hi, fail)])
    if kind == "fpow":
        return ("fpow", _entrywise(node[1], indices, hi, fail), node[2])
    if kind == "bars":
        return ("call", "abs@", [_entrywise(node[1], indices, hi, fail)])
    if kind in ("T", "H", "invT"):
        fail("an entry transposed (x_i^\\top) reads as the i-th of a family of vectors or matrices (x_1, ..., x_n), "
             "which a sum is not read as: write the sum of whole matrices (X^\\top X for \\sum_i x_i x_i^\\top with "
             "x_i the rows of X)")
    fail("in a sum over entries, only products, quotients, sums, powers, \\max/\\min and the entrywise functions "
         "(exp, log, sqrt, tanh, \\sigma, ...) of entries are read; a family of matrices or vectors (W_1, ..., W_L: "
         "\\|W_l\\|, W_l x) is written out only for a number of terms (\\sum_{l=1}^{3})")


def _euler(node) -> bool:
    return (node[0] == "name" and node[1] == "e" and not node[2] and not node[3]) or node == ("num", "exp(1)")


def _entry_of_expression(node, indices, hi, fail):
    """``(A x)_i``, ``\\operatorname{softmax}(z)_i``: an entry of a column the expression computes."""
    _, expr, sub = node
    if len(indices) != 1 or sub != indices[0] or _carries(expr, indices):
        fail(f"an entry ({sub}) of an expression is read only in a sum over one index, {sub}, of a column")
    return ("entry", expr, "col", (hi[0],), "")


def _entry_name(node, indices, hi, fail):
    _, base, sub, sup, letter = node
    name = ("name", base, "", sup, letter)
    written = f"{base}_{sub}"
    if base == "e" and sub in indices:
        fail(f"e_{sub} reads as the {sub}-th standard basis vector in most papers, not as an entry of a vector e: "
             "write the statement without it (\\sum_i x_i e_i is x)")
    if base == "lamda" and sub in indices:
        fail(f"\\lambda_{sub} reads as an eigenvalue, which theorem-check does not compute: write \\operatorname{{tr}}(A) "
             "for the sum of the eigenvalues of A, \\log\\det A for the sum of their logarithms")
    if letter[:1].isupper() and len(sub) == 1 and sub in indices:
        fail(f"{base}_{sub} reads as a member of a family of matrices ({base}_1, {base}_2, ...), written out only for "
             f"a number of terms (\\sum_{{{sub}=1}}^{{3}})")
    if any(i in (sup or "") for i in indices):
        fail(f"'{base}' labelled by the index ({base}^{{({sup})}}) is a family member, which a sum whose upper bound "
             "is not a number does not write out: give the number of terms (\\sum_{l=1}^{3})")
    if not sub:
        fail(f"the index {base} stands as a value in the sum's term, which is not read")
    if len(indices) == 1 and sub == indices[0]:
        return ("entry", name, "col", (hi[0],), written)
    if len(indices) == 1 and sub == indices[0] * 2:
        return ("call", "diag", [("entry", name, "square", (hi[0], hi[0]), written)])
    if len(indices) == 2 and sub == indices[0] + indices[1]:
        return ("entry", name, "matrix", (hi[0], hi[1]), written)
    if len(indices) == 2 and sub == indices[1] + indices[0]:
        return ("T", ("entry", name, "matrix", (hi[1], hi[0]), written))
    if len(indices) == 2 and (sub in indices or sub in (indices[0] * 2, indices[1] * 2)):
        fail(f"'{base}_{{{sub}}}' in a sum over two indices: only entries A_{{ij}} (A_{{ji}}) of matrices are read there, "
             "not vectors or diagonals (write x^\\top A y for \\sum_{i,j} x_i A_{ij} y_j, \\operatorname{tr}(A) "
             "\\operatorname{tr}(B) for \\sum_{i,j} A_{ii} B_{jj})")
    fail(f"'{base}_{{{sub}}}': in a sum over entries the index is the whole subscript (x_i, A_{{ij}}, A_{{ii}})")


# --- the emitter's guards (methods of latex._Emit) --------------------------------------------------------------
def e_entry(self, n, hint):
    """An entry's array: ``x`` of ``x_i`` must be a column (``A`` of ``A_{ij}`` a matrix, of ``A_{ii}`` a square
    one), and an upper bound that is a letter must be the size the index runs over."""
    _, name, kind, bounds, written = n
    if written and written in self.shaped:
        self.fail(f"{written} is declared, a member of a family ({written[:-1]}1, {written[:-1]}2, ...), but a sum reads "
                  f"it as an entry of {written.split('_')[0]}: write the sum of whole matrices (W X \\mathbf{{1}} for "
                  "\\sum_i W x_i with x_i the columns of X)")
    t, p = self.emit(name)
    sh = self.shape(t)
    ok = isinstance(sh, tuple) and (kind != "col" or is_one(sh[1])) and (kind != "square" or sh[0] == sh[1])
    if not ok or (kind != "col" and is_one(sh[1])):
        what = {"col": "a column", "square": "a square matrix", "matrix": "a matrix"}[kind]
        self.fail(f"{t} is summed over as {what} but is {_shape_text(sh)} here (declare it with --where)")
    for size, bound in zip(sh, bounds):
        if bound is not None and str(size) != bound:
            want = bound if kind == "col" else " \\times ".join(b or str(s) for b, s in zip(bounds, sh))
            self.fail(f"the sum runs to {bound} but {t} has {size} rows or columns there (declare {t} with --where, "
                      f"e.g. {t} \\in \\mathbb{{R}}^{{{want}}})")
    return t, p


def e_scalar(self, n, hint):
    """What a sum over entries needs to be a scalar (a factor beside an entry; the sum's own value)."""
    t, p = self.emit(n[1])
    sh = self.shape(t)
    if isinstance(sh, tuple) and not is_1x1(sh):
        self.fail(f"in a sum over entries, {t} beside an entry must be a scalar but is {_shape_text(sh)}")
    return self.scalar(t, p)


def _shape_text(sh) -> str:
    return "a scalar" if sh is None else ("of unknown shape" if sh == "?" else f"{sh[0]} x {sh[1]}")
