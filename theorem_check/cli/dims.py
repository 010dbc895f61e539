"""``--dims NAME=VALUE,...``: parsed and checked against the claims" dimension spaces."""

from __future__ import annotations

from typing import Mapping, Sequence

from theorem_check.errors import InvalidArgument

__all__ = ["check_dims", "parse_dims"]


def parse_dims(text: str | None) -> dict[str, int]:
    """Parse ``"NAME=VALUE,NAME=VALUE"`` into a dict of non-negative integers.

    >>> parse_dims("D=10, d0=2048")
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


def check_dims(claims: Sequence, dims: Mapping[str, int]) -> None:
    """Every name in ``dims`` must be a dimension of some statement (or control) of every claim
    (the rule of :func:`~theorem_check.engine.runner.run_claim`, checked here before any worker starts).

    Raises InvalidArgument naming the unknown name and the claim's dimension names, or saying
    that this engine's ``run_claim`` does not take ``dims`` yet.
    """
    if not dims:
        return
    for c in claims:
        names: set[str] = set()
        for st in (*c.statements(), *c.controls):
            if st.dims is not None:
                names |= set(st.dims.ranges)
        unknown = sorted(set(dims) - names)
        if unknown:
            known = ", ".join(sorted(names)) or "none"
            raise InvalidArgument(f"dims name={unknown[0]!r} is not a dimension of claim {c.id} (its dimensions: "
                                  f"{known})")
    import inspect

    from theorem_check.engine.runner import run_claim

    if "dims" not in inspect.signature(run_claim).parameters:
        raise InvalidArgument(f"dims={dict(dims)!r}: this version of the engine cannot run claims at given sizes yet")


# ---------------------------------------------------------------------------------------------
# progress with elapsed time and ETA
