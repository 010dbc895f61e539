"""An editable pack skeleton from a scan (``theorem-check scan FILE --pack-out PACK.py``, issue 20).

Each *checkable* equation becomes one live ``tc.identity`` per identity of its chain, with the
equation's number as id (``<key>.eq31``; a chain's later links ``eq31_2``, ...; ``B.3`` -> ``eqb_3``),
the sides in the string syntax the LaTeX reader produced, the declared shapes, the number as
``equation=`` and the display's LaTeX as ``latex=`` (what reports print).  Every other equation is a
commented TODO with its class, the reason and its LaTeX: a *needs shapes* identity keeps its parsed
sides, commented out, with the names to declare (a name without a shape would be read as a scalar,
so it is never written live).  The file loads with ``theorem-check run --pack PACK.py`` when it has
at least one live claim (a pack must register one).

The pack key ``key`` must be a lower-case identifier; it should not be a built-in paper's key
(``prh``, ``noise``, ``cascade``): the ids would collide with the catalogue's.
"""

from __future__ import annotations

import re

from theorem_check.authoring.scan import Entry, Scan
from theorem_check.errors import InvalidArgument

__all__ = ["pack_skeleton", "pack_key", "claim_id", "skeleton_claims"]


def pack_key(stem: str) -> str:
    """A pack key from a file stem: lower case, ``[a-z0-9_]``, starting with a letter (``"paper"``)."""
    k = re.sub(r"[^a-z0-9_]+", "_", stem.lower()).strip("_")
    if not k or not k[0].isalpha():
        k = "p" + k
    return k


def claim_id(key: str, number: str, link: int = 1) -> str:
    """``key.eqN`` for equation ``number`` (``B.3`` -> ``eqb_3``; ``*`` -> ``star``, ``'`` -> ``prime``: ``\\tag{*}``
    and ``\\tag{**}`` were both ``eq``, helper-46), ``_2``, ``_3``... for later links."""
    words = number.lower().replace("*", "_star").replace("'", "_prime").replace("+", "_plus")
    label = "eq" + re.sub(r"[^a-z0-9]+", "_", words).strip("_")
    return f"{key}.{label}" + (f"_{link}" if link > 1 else "")


def _py(s: str) -> str:
    """A Python literal for ``s``: a raw string where that is exact, else ``repr``."""
    if '"' not in s and not s.endswith("\\") and "\n" not in s:
        return f'r"{s}"'
    return repr(s)


def _shapes(e: Entry) -> str:
    items = ", ".join(f"{n!r}: ({', '.join(repr(x) for x in shape)}{',' if len(shape) == 1 else ''})"
                      for n, shape in e.shapes.items())
    return "{" + items + "}"


def _comment(text: str, prefix: str = "#     ") -> list[str]:
    return [prefix + ln for ln in text.splitlines() or [""]]


def _entry_lines(e: Entry, key: str) -> list[str]:
    where = f"({e.number}), line {e.line}"
    if e.cls == "checkable":
        out = [f"# {where}: {e.reason}"]
        for k, (lhs, rhs) in enumerate(e.sides, start=1):
            out.append(f"tc.identity({claim_id(key, e.number, k)!r}, {lhs!r}, {rhs!r},")
            out.append(f"            shapes={_shapes(e)},")
            if e.structure:
                out.append(f"            structure={dict(e.structure)!r},")
            out.append(f"            equation={'(' + e.number + ')'!r}, latex={_py(e.latex)})")
        return out
    out = [f"# TODO {where}: {e.cls}: {e.reason}"]
    if e.latex:
        out += _comment(e.latex)
    if e.cls == "needs shapes":
        for k, (lhs, rhs) in enumerate(e.sides, start=1):
            out.append(f"# tc.identity({claim_id(key, e.number, k)!r}, {lhs!r}, {rhs!r},")
            out.append(f"#             shapes={{{', '.join(repr(m) + ': (...)' for m in e.missing)}"
                       f"{', ' if e.shapes else ''}{_shapes(e)[1:-1]}}},")
            out.append(f"#             equation={'(' + e.number + ')'!r}, latex={_py(e.latex)})")
    return out


def pack_skeleton(scan: Scan, key: str) -> str:
    """The text of a pack file for ``scan`` with pack key ``key`` (see the module docstring).

    Raises InvalidArgument when ``key`` is not a lower-case identifier.
    """
    if not re.fullmatch(r"[a-z][a-z0-9_]*", key or ""):
        raise InvalidArgument(f"key={key!r} must be a lower-case identifier (a-z, 0-9, _), starting with a letter")
    live = sum(len(e.sides) for e in scan.entries if e.cls == "checkable")
    counts = ", ".join(f"{n} {c}" for c, n in scan.counts().items())
    head = [f'"""Pack skeleton written by `theorem-check scan {scan.path}` ({counts}).',
            "",
            f"{live} live claim(s); the rest are TODOs with their LaTeX.  Edit, then run:",
            "    theorem-check run --pack THIS_FILE.py",
            '"""',
            "",
            "import theorem_check as tc",
            ""]
    if not scan.reader:
        head += ["# The LaTeX reader (theorem_check.expr.latex) was not installed when this was written:",
                 "# no identity was parsed.  Write each side in the string syntax (docs/writing-claims.md).", ""]
    body: list[str] = []
    seen: set[str] = set()
    for e in scan.entries:
        if e.cls == "checkable" and e.number in seen:  # a restated equation: its first display is live
            body += [f"# ({e.number}), line {e.line}: restates ({e.number}) above", ""]
            continue
        seen.add(e.number)
        body += _entry_lines(e, key) + [""]
    return "\n".join(head + body).rstrip() + "\n"


def skeleton_claims(scan: Scan, key: str) -> list:
    """The live claims of :func:`pack_skeleton`, built (not registered) for ``scan --run``: one
    ``tc.identity`` per link of each checkable equation (a restated number once).  A side that the short
    forms refuse (ClaimDefinitionError, ParseError) raises, naming the claim."""
    from theorem_check.authoring.layouts import with_readings
    from theorem_check.authoring.shortforms import identity

    out, seen = [], set()
    for e in scan.entries:
        if e.cls != "checkable" or e.number in seen:
            continue
        seen.add(e.number)
        for k, (lhs, rhs) in enumerate(e.sides, start=1):
            claim = identity(claim_id(key, e.number, k), lhs, rhs, shapes=dict(e.shapes),
                             structure=dict(e.structure) or None, equation=f"({e.number})", latex=e.latex,
                             register=False)
            # the layout readings check gives the same statement (helper-50: scan --run left the numerator
            # layout's d tr(AB)/dB = A ILL-POSED where check says ERRATUM, holding in that reading)
            letters = {v for sh in e.shapes.values() for v in sh if isinstance(v, str)}
            out.append(with_readings(claim, lhs, rhs, dict(e.shapes), dict(e.structure), letters)[0])
    return out
