"""The sizes a user fixes for a run (``run --dims``, ``check --size n=64:64``): one configuration of a statement's space."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from theorem_check.errors import InvalidArgument
from theorem_check.model.claims import Statement

__all__ = ["user_configuration"]


def user_configuration(statement: Statement, dims: Mapping[str, int]) -> dict[str, int]:
    """The statement's generic configuration with the sizes in ``dims`` put in (``run --dims``).

    Names must be dimensions of the statement's DimSpace; values integers >= 0, inside the space's ranges
    and constraint (checked once, by :meth:`RunOptions.check_claim`).  Raises InvalidArgument.
    """
    space = statement.dims
    unknown = sorted(set(dims) - set(space.ranges))
    if unknown:
        raise InvalidArgument(f"dims name={unknown[0]!r} is not a dimension of statement {statement.name!r} "
                              f"(its dimensions: {', '.join(space.ranges)})")
    for k, v in dims.items():
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 0:
            raise InvalidArgument(f"dims {k}={v!r} must be an integer >= 0")
    if (out := space.with_sizes(dims)) is None:
        raise InvalidArgument(f"dims {space.violation(dims)} (statement {statement.name!r})")
    return out
