"""How a claim is run: one frozen :class:`RunOptions`, validated once where it is built.

The CLI (``run``, ``report``, ``sweep``, ``check``), the pytest plugin, the worker tasks and
:func:`theorem_check.run_claim` all build a :class:`RunOptions` and pass it on unchanged; a worker
receives ``(claim id, options)``.  Nothing downstream validates the same option again.

>>> RunOptions(seed=1, trials=4, dims=RunOptions.parse_dims("D=10,d0=2048")).dims_dict()
{'D': 10, 'd0': 2048}
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping

from theorem_check.errors import InvalidArgument

__all__ = ["RunOptions", "SEED_MAX", "TRIALS_MAX", "FUZZ_MAX"]

SEED_MAX = 2**32 - 1
"""Largest run seed (seeds are 32-bit, as NumPy's ``SeedSequence`` entropy words)."""
TRIALS_MAX = 10_000
"""Largest ``--trials``."""
FUZZ_MAX = 100_000
"""Largest ``--fuzz``."""


def _int(name: str, value, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
        raise InvalidArgument(f"{name}={value!r} must be an integer in {lo}..{hi}")
    v = int(value)
    if not lo <= v <= hi:
        raise InvalidArgument(f"{name}={value!r} must be an integer in {lo}..{hi}")
    return v


@dataclass(frozen=True)
class RunOptions:
    """The options of one run of a claim (picklable: it crosses to worker processes).

    Attributes
    ----------
    seed : int
        Run seed, ``0 .. 2**32 - 1``; same seed, same result.
    trials : int
        Random instances per identity statement, ``1 .. 10_000`` (custom checks run ``ceil(trials / 8)``).
    controls : bool
        Also run the claim's negative controls.
    fuzz : int
        Hypothesis examples per statement when every random instance holds (``0`` = off).
    dims : tuple of (name, size) pairs, sorted
        Sizes to run at (``run --dims``); names must be dimensions of the claim (:meth:`check_claim`).

    Raises
    ------
    InvalidArgument
        One line naming the option and its value (``trials=0 must be an integer in 1..10000``).
    """

    seed: int = 0
    trials: int = 16
    controls: bool = False
    fuzz: int = 0
    dims: tuple[tuple[str, int], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "seed", _int("seed", self.seed, 0, SEED_MAX))
        object.__setattr__(self, "trials", _int("trials", self.trials, 1, TRIALS_MAX))
        object.__setattr__(self, "fuzz", _int("fuzz", self.fuzz, 0, FUZZ_MAX))
        object.__setattr__(self, "controls", bool(self.controls))
        dims = self.dims.items() if isinstance(self.dims, Mapping) else (self.dims or ())
        out = {}
        for name, v in dims:
            if not isinstance(name, str) or not name.isidentifier():
                raise InvalidArgument(f"dims name {name!r} must be an identifier (e.g. --dims D=10,d0=2048)")
            if name in out:
                raise InvalidArgument(f"dims name {name!r} is given twice")
            if isinstance(v, bool) or not hasattr(v, "__index__") or int(v) < 0:
                raise InvalidArgument(f"dims {name}={v!r} must be an integer >= 0")
            out[name] = int(v)
        object.__setattr__(self, "dims", tuple(sorted(out.items())))

    def dims_dict(self) -> dict[str, int]:
        """``dims`` as a dict (empty when no sizes are given)."""
        return dict(self.dims)

    def check_claim(self, claim) -> None:
        """Every name in ``dims`` must be a dimension of some statement or control of ``claim``, every
        value inside that statement's declared range, and the configuration it makes must satisfy the
        DimSpace's ``where`` constraint (:meth:`~theorem_check.model.dims.DimSpace.violation`).

        Raises InvalidArgument naming the unknown name and the claim's dimensions, or the value and
        the range (``dims D=0 is outside D in 2..4 (claim noise.thm5_4)``).
        """
        if not self.dims:
            return
        names: set[str] = set()
        spaces = [st.dims for st in (*claim.statements(), *claim.controls) if st.dims is not None]
        for space in spaces:
            names |= set(space.ranges)
        unknown = sorted(set(self.dims_dict()) - names)
        if unknown:
            raise InvalidArgument(f"dims name={unknown[0]!r} is not a dimension of claim {claim.id} "
                                  f"(its dimensions: {', '.join(sorted(names)) or 'none'})")
        for space in {id(s): s for s in spaces}.values():
            why = space.violation(self.dims_dict())
            if why:
                raise InvalidArgument(f"dims {why} (claim {claim.id})")

    def check_claims(self, claims: Iterable) -> None:
        """:meth:`check_claim` for each claim (before any worker starts)."""
        for c in claims:
            self.check_claim(c)

    @staticmethod
    def parse_dims(text: str | None) -> dict[str, int]:
        """Parse ``"NAME=VALUE,NAME=VALUE"`` (``run --dims``) into a dict of non-negative integers.

        >>> RunOptions.parse_dims("D=10, d0=2048")
        {'D': 10, 'd0': 2048}

        Raises InvalidArgument naming the bad item (missing ``=``, a value that is not a
        non-negative integer, a name given twice).
        """
        out: dict[str, int] = {}
        if text is None or not text.strip():
            return out
        for item in text.split(","):
            item = item.strip()
            name, eq, value = item.partition("=")
            name, value = name.strip(), value.strip()
            if not eq or not name.isidentifier():
                raise InvalidArgument(f"dims item {item!r} must read NAME=VALUE (e.g. --dims D=10,d0=2048)")
            if name in out:
                raise InvalidArgument(f"dims name {name!r} is given twice")
            try:
                v = int(value, 10)
            except ValueError:
                raise InvalidArgument(f"{name}={value!r} must be a non-negative integer") from None
            if v < 0:
                raise InvalidArgument(f"{name}={v!r} must be a non-negative integer")
            out[name] = v
        return out
