"""Spaces of dimensions (sizes, depths, widths) that a claim's instances are drawn from.

A :class:`DimSpace` maps names to inclusive integer ranges, with an optional constraint
(``where``) and an optional ``normalize`` that puts a configuration into canonical form
(e.g. widths beyond the depth set to their minimum).  The engine draws configurations with
:meth:`DimSpace.draw`, walks them in order of size with :meth:`DimSpace.ordered` and shrinks
counterexamples with :meth:`DimSpace.smaller`.

>>> space = DimSpace({"m": (1, 4), "n": (1, 4)}, where=lambda d: d["m"] != d["n"])
>>> space.draw(np.random.default_rng(0)) in list(space.ordered())
True
>>> next(space.ordered())
{'m': 1, 'n': 2}
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass, field
from typing import Callable, Iterator, Mapping

import numpy as np

from theorem_check.errors import ClaimDefinitionError, InvalidArgument

__all__ = ["DimSpace"]

Dims = dict[str, int]

MAX_CONFIGURATIONS = 250_000
"""Largest product of range sizes a :class:`DimSpace` accepts (configurations are enumerated)."""


def _size_order(d: Dims):
    """Smallest total size first, then the sizes in name order (:meth:`DimSpace.ordered`)."""
    return sum(d.values()), tuple(d.values())


@functools.lru_cache(maxsize=None)
def _product(ranges: tuple) -> list[Dims]:
    """Every configuration of ``ranges`` (``((name, lo, hi), ...)``), sorted by :func:`_size_order`: a space without
    ``where``/``normalize`` has every product valid and distinct.  Cached by the ranges and shared read-only between
    equal spaces, as each space's own cache is: every short form of a pack with ``sizes={"h": (1, 256), "k": (1,
    256)}`` has its own DimSpace, and each enumerated 65,536 configurations (helper-63: 2.6 s to import five)."""
    names = [k for k, _, _ in ranges]
    out = [dict(zip(names, v)) for v in itertools.product(*(range(lo, hi + 1) for _, lo, hi in ranges))]
    return sorted(out, key=_size_order)


def _generic_key(d: Dims):
    """Sizes >= 2, distinct sizes, sizes >= 3, then the smallest total (:meth:`DimSpace.generic`)."""
    v = list(d.values())
    return (sum(x >= 2 for x in v), len(set(v)), sum(x >= 3 for x in v), -sum(v))


@dataclass(frozen=True)
class DimSpace:
    """Integer dimensions with inclusive ranges.

    Parameters
    ----------
    ranges : mapping name -> (lo, hi)
        Inclusive bounds, ``0 <= lo <= hi``.
    where : callable(dims) -> bool, optional
        Constraint a configuration must satisfy (e.g. "widths all differ").
    normalize : callable(dims) -> dims, optional
        Canonical form applied before ``where`` (e.g. unused widths set to ``lo``).
    scalar : bool
        Declare that the statement is about scalars (or 1x1 objects) on purpose.  Without it, a space
        every configuration of which is *degenerate* (every size <= 1, where matrices commute, equal
        their transposes and vectors equal matrices) is refused when an identity (``lhs``/``rhs``)
        using it registers.  Custom checks draw their own data and may use any space.

    Raises
    ------
    ClaimDefinitionError
        If a range is malformed (not two integers ``0 <= lo <= hi``), the space has more than
        :data:`MAX_CONFIGURATIONS` configurations, or no configuration satisfies ``where``.
    """

    ranges: Mapping[str, tuple[int, int]]
    where: Callable[[Dims], bool] | None = None
    normalize: Callable[[Dims], Dims] | None = None
    scalar: bool = False
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self):
        for name, rng in self.ranges.items():
            if not (isinstance(rng, tuple) and len(rng) == 2
                    and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in rng)
                    and 0 <= rng[0] <= rng[1]):
                raise ClaimDefinitionError(f"dims range {name}={rng!r} must be a tuple (lo, hi) of integers "
                                           "with 0 <= lo <= hi")
        total = 1
        for lo, hi in self.ranges.values():
            total *= int(hi) - int(lo) + 1
        if total > MAX_CONFIGURATIONS:
            raise ClaimDefinitionError(f"DimSpace({dict(self.ranges)!r}) has {total:.3g} configurations, more than "
                                       f"{MAX_CONFIGURATIONS:,} (they are enumerated to draw and shrink): narrow the "
                                       "ranges, or tie dimensions together in `sample`")
        if next(self._valid(), None) is None:   # stops at the first valid configuration: _all() stays lazy
            raise ClaimDefinitionError(f"DimSpace({dict(self.ranges)!r}) has no configuration satisfying its constraint")

    def _ok(self, d: Dims) -> bool:
        return all(self.ranges[k][0] <= v <= self.ranges[k][1] for k, v in d.items()) and (
            self.where is None or bool(self.where(d))
        )

    def _norm(self, d: Dims) -> Dims:
        return dict(self.normalize(dict(d))) if self.normalize else dict(d)

    def _valid(self) -> Iterator[Dims]:
        """The valid configurations, distinct after ``normalize``, in enumeration order (lazily)."""
        names = list(self.ranges)
        seen = set()
        for values in itertools.product(*(range(int(lo), int(hi) + 1) for lo, hi in self.ranges.values())):
            d = self._norm(dict(zip(names, values)))
            key = tuple(sorted(d.items()))
            if key not in seen and self._ok(d):
                seen.add(key)
                yield d

    def _all(self) -> list[Dims]:
        """Every valid configuration, smallest total size first; enumerated on first use and cached
        (not at construction: importing the catalogue stays cheap, and the worker fork server
        enumerates the spaces once for all workers, see ``theorem_check.execution.workers``)."""
        if "all" not in self._cache:
            if self.where is None and self.normalize is None:
                out = _product(tuple((k, int(lo), int(hi)) for k, (lo, hi) in self.ranges.items()))
            else:
                out = sorted(self._valid(), key=_size_order)
            self._cache["all"] = out
        return self._cache["all"]

    def warm(self) -> "DimSpace":
        """Enumerate and cache the configurations and the generic one now; returns ``self``."""
        self._all()
        self.generic()
        return self

    def ordered(self) -> Iterator[Dims]:
        """Every valid configuration, smallest total size first."""
        return iter(self._all())

    def generic(self) -> Dims:
        """The most generic configuration: every size >= 2, as many distinct sizes as the space allows,
        then as many sizes >= 3, then the smallest total (DESIGN.md, "Trust model": instances always include
        it, so that statements true only at size 1 or only for equal sizes are not verified by luck)."""
        if "generic" not in self._cache:
            self._cache["generic"] = max(self._all(), key=_generic_key)
        return dict(self._cache["generic"])

    def largest(self) -> Dims:
        """The valid configuration of largest total size (the last of :meth:`ordered`): where a statement false from
        some size on fails first (helper-68: ``--size n=1:20`` drew n = 3, 1, 5, 2 and ``det(B*A + I_10) = det(B*A +
        I_10) + det(B*A)``, false from n = 10, was VERIFIED; the far stage evaluates it, decision 209)."""
        return dict(self._all()[-1])

    @property
    def degenerate(self) -> bool:
        """True when every configuration has every size <= 1 (see ``scalar``)."""
        configs = self._cache["all"] if "all" in self._cache else self._valid()   # lazily: stops at a size >= 2
        return all(max(d.values(), default=0) <= 1 for d in configs)

    def configurations(self, rng: np.random.Generator, k: int) -> list[Dims]:
        """``k`` configurations: :meth:`generic` first, then others drawn uniformly without replacement
        (fewer when the space has fewer than ``k``)."""
        return self._with_draws(rng, [self.generic()], k)

    def _with_draws(self, rng: np.random.Generator, fixed: list, k: int) -> list[Dims]:
        """``fixed`` (configurations), then ``k - len(fixed)`` others drawn uniformly without replacement."""
        rest = [d for d in self._all() if d not in fixed]
        take = min(max(k - len(fixed), 0), len(rest))
        idx = rng.choice(len(rest), size=take, replace=False) if take else []
        return [dict(d) for d in fixed] + [dict(rest[int(i)]) for i in idx]

    def plan(self, rng: np.random.Generator, k: int, budget: int) -> list[Dims]:
        """The configurations an identity runs (design decision 121): every valid configuration when the
        space has at most ``budget`` of them (:meth:`generic` first, then smallest total first), so that a
        statement false at a single size of a small space is never verified because that size went
        untried; otherwise the generic configuration, the smallest one (least total size: where statements
        degenerate, ``n = 1`` of ``--size n=1:100``, a helper's ``trace(A) = trace(A) + 0**(n-1)`` was VERIFIED
        there) and ``k - 2`` drawn uniformly from the rest.  Draws from ``rng`` only in the second case."""
        every = self._all()
        first = self.generic()
        if len(every) <= budget:
            return [first] + [dict(d) for d in every if d != first]
        smallest = dict(min(every, key=lambda d: (sum(d.values()), sorted(d.items()))))
        if k < 2 or smallest == first:
            return self.configurations(rng, k)
        return self._with_draws(rng, [first, smallest], k)   # the smallest sizes always run: where a statement
        #                                                       degenerates (n = 1 of --size n=1:100)

    def draw(self, rng: np.random.Generator) -> Dims:
        """A uniformly random valid configuration."""
        options = self._all()
        return dict(options[int(rng.integers(len(options)))])

    def validate(self, dims: Mapping[str, int]) -> Dims:
        """Return ``dims`` if valid for this space, else raise InvalidArgument naming the value."""
        d = {k: int(v) for k, v in dims.items()}
        if set(d) != set(self.ranges):
            raise InvalidArgument(f"dims={dims!r} must have exactly the keys {sorted(self.ranges)}")
        for k, v in d.items():
            if v < 0:
                raise InvalidArgument(f"{k}={v!r} must be >= 0")
        if not self._ok(d):
            raise InvalidArgument(f"dims={dims!r} must lie in {dict(self.ranges)} and satisfy the claim's constraint")
        return d

    def violation(self, sizes: Mapping[str, int]) -> str | None:
        """Why ``sizes`` (some or all of this space's names, ``run --dims``) cannot be run, or None.

        A value outside its inclusive range (``D=0 is outside D in 2..4``); else the configuration
        they make (the :meth:`generic` one with ``sizes`` put in, normalised) breaks the ``where``
        constraint.  Names not in the space are ignored.
        """
        own = {k: int(v) for k, v in sizes.items() if k in self.ranges}
        for k, v in own.items():
            lo, hi = self.ranges[k]
            if not lo <= v <= hi:
                return f"{k}={v} is outside {k} in {lo}..{hi}"
        if own and self.with_sizes(own) is None:
            given = ", ".join(f"{k}={v}" for k, v in own.items())
            return f"{given} breaks the constraint of the dimensions (no valid configuration has these sizes)"
        return None

    def with_sizes(self, sizes: Mapping[str, int]) -> Dims | None:
        """The configuration to run ``sizes`` at: the :meth:`generic` one with ``sizes`` put in (normalised)
        when valid, else the most generic valid configuration that has these sizes; None when none has."""
        own = {k: int(v) for k, v in sizes.items() if k in self.ranges}
        d = self._norm({**self.generic(), **own})
        if self._ok(d):
            return d
        fits = [c for c in self._all() if all(c.get(k) == v for k, v in own.items())]
        return dict(max(fits, key=_generic_key)) if fits else None

    def smaller(self, dims: Dims) -> Iterator[Dims]:
        """Valid configurations strictly smaller than ``dims`` in total size, smallest first."""
        total = sum(dims.values())
        return (d for d in self._all() if sum(d.values()) < total)

    def strategy(self):
        """Hypothesis strategy over the valid configurations (shrinks towards the smallest)."""
        from hypothesis import strategies as st

        return st.sampled_from(self._all())
