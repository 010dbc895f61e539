"""Which built-in claims cover which numbered equation of their paper (``theorem-check scan --paper``).

A claim names its source in ``Source.equation`` as printed in the catalogue: ``"(14)"``,
``"(19)-(20)"``, ``"Theorem 5.4, (17)-(18)"``, ``"(40), (43)"``, ``"eqs. 25-26 / hysteresis"``,
``"footnote 14, (34)"``.  :func:`equation_refs` reads the equation numbers such a label names: every
``(N)``, a range ``(a)-(b)`` (every number from a to b), ``eq. N`` / ``eqs. a-b``.  A number the label
places text *next to* (``"before (19)"``, ``"text after (14)"``, ``"display after (7)"``, and
``"proof of (4)"``, which in the catalogue is the proof of a theorem's part) is not covered by the
claim: it is returned apart, as *near*.  Theorem and lemma numbers (``Theorem 5.2``)
are not equation numbers and are ignored, and so are their parts (``"Theorem 1 (3)"``) and footnote numbers.

>>> equation_refs("Theorem 5.4, (17)-(18)")
(('17', '18'), ())
>>> equation_refs("before (19)")
((), ('19',))
"""

from __future__ import annotations

import re
from typing import Iterable

__all__ = ["equation_refs", "claim_map", "near_map"]

_NUM = r"[A-Z]?\.?\d{1,3}"
_RANGE = re.compile(r"\((" + _NUM + r")\)(?:\s*[-–]\s*\((" + _NUM + r")\))?")
_EQS = re.compile(r"\beqs?\.\s*(" + _NUM + r")(?:\s*[-–]\s*(" + _NUM + r"))?", re.I)
_PART = re.compile(r"\b(?:Theorem|Lemma|Proposition|Corollary|Definition|Remark)\s+[\w.]+\s*$")
_NEAR = re.compile(r"\b(?:before|after|next to|near|proof of)\s*$", re.I)


def _span(a: str, b: str | None) -> list[str]:
    if b and a.isdigit() and b.isdigit() and 0 <= int(b) - int(a) <= 50:
        return [str(k) for k in range(int(a), int(b) + 1)]
    return [a] + ([b] if b else [])


def equation_refs(label: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(covered, near): the equation numbers a ``Source.equation`` label names, in order, each once."""
    covered: list[str] = []
    near: list[str] = []
    for rx in (_RANGE, _EQS):
        for m in rx.finditer(label):
            if _PART.search(label[:m.start()]):  # "Theorem 1 (3)": a part of a theorem, no equation
                continue
            target = near if _NEAR.search(label[:m.start()].split(",")[-1]) else covered
            for n in _span(m.group(1), m.group(2)):
                if n not in target:
                    target.append(n)
    return tuple(covered), tuple(n for n in near if n not in covered)


def claim_map(claims: Iterable) -> dict[str, tuple[str, ...]]:
    """Equation number -> ids of the claims (objects with ``.id`` and ``.source.equation``) covering it."""
    out: dict[str, list[str]] = {}
    for c in claims:
        for n in equation_refs(c.source.equation)[0]:
            out.setdefault(n, []).append(c.id)
    return {k: tuple(v) for k, v in out.items()}


def near_map(claims: Iterable) -> dict[str, tuple[str, ...]]:
    """Equation number -> ids of the claims about text next to it (``"before (19)"``)."""
    out: dict[str, list[str]] = {}
    for c in claims:
        for n in equation_refs(c.source.equation)[1]:
            out.setdefault(n, []).append(c.id)
    return {k: tuple(v) for k, v in out.items()}
