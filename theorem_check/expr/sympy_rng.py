"""SymPy's own random generators, seeded so that one seed gives one output.

SymPy 1.14 shuffles the order in which its assumption system asks questions with a generator seeded from
the operating system (``sympy.core.random._assumptions_rng``), and draws random points for
``Expr.equals`` from another (``sympy.core.random.rng``).  Where SymPy has an order-dependent bug (a
question that raises in one order and not in another), a statement's verdict then changed between two
runs with the same ``--seed``.  :func:`seeded` fixes both generators for a block and restores them after,
so a library caller's own SymPy state is left as it was (design decision 118).
"""

import contextlib
from typing import Iterator

from sympy.core import random as _sympy_random

__all__ = ["seeded"]


@contextlib.contextmanager
def seeded(seed: int) -> Iterator[None]:
    """Run the block with SymPy's generators seeded by the integer ``seed``; restore their states after.

    Raises nothing of its own (``seed`` is any Python integer).  Source: SymPy 1.14,
    ``sympy/core/random.py`` (``seed`` seeds both generators).
    """
    states = (_sympy_random.rng.getstate(), _sympy_random._assumptions_rng.getstate())
    _sympy_random.seed(seed)
    try:
        yield
    finally:
        _sympy_random.rng.setstate(states[0])
        _sympy_random._assumptions_rng.setstate(states[1])
