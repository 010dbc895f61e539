"""The one exception hierarchy of theorem-check.

Every error the package raises on purpose descends from :class:`TheoremCheckError`.
User-facing errors also subclass a built-in (``ValueError`` or ``TypeError``) so that
callers who do not know this package can still catch them.  A refuted claim is a
*result* (see :mod:`theorem_check.model.verdicts`), never an exception.
"""

from __future__ import annotations

__all__ = ["TheoremCheckDeprecationWarning", "ClaimWarning", 
    "TheoremCheckError",
    "InvalidArgument",
    "UnknownClaim",
    "ClaimDefinitionError",
    "PackError",
    "ShapeMismatch",
    "BadClaim",
    "ExprError",
    "ParseError",
    "InternalError",
]


class TheoremCheckError(Exception):
    """Base class of every error raised by theorem-check."""


class InvalidArgument(TheoremCheckError, ValueError):
    """A user-supplied value is out of range, of the wrong shape, NaN or singular.

    The message always reads ``"<name>=<value!r> must ..."`` so that it names the culprit.
    """


class UnknownClaim(TheoremCheckError, ValueError):
    """No registered claim has the requested id, alias or paper key."""


class ClaimDefinitionError(TheoremCheckError, TypeError):
    """A claim is malformed (duplicate id, missing source, statement or verifier).

    Raised at registration time, i.e. when the module that defines the claim is imported.
    """


class PackError(TheoremCheckError, ValueError):
    """A user claim pack (``--pack FILE.py``) could not be found or imported."""


class ShapeMismatch(TheoremCheckError, ValueError):
    """The two sides of a statement do not have conforming shapes (the statement is ILL-POSED)."""


class BadClaim(TheoremCheckError, TypeError):
    """A claim's code returned something that is not mathematics, found while it runs.

    Examples: a side returns a string or a non-array, or drops the leading batch axis; a custom check
    returns a signed or NaN residual, a non-positive scale, or floors below what its working precision
    can resolve.  The message names the claim (or statement), the side or level, and what it returned.
    The run goes on; the CLI reports these after the table and exits with code 2 (bad input).
    """


class InternalError(TheoremCheckError, RuntimeError):
    """A self-check of theorem-check failed: a bug, never a verdict and never bad input.

    Example: a closed-form derivative (:mod:`theorem_check.expr.matrix_calculus`) that disagrees with the
    entrywise derivative at a concrete size.  The CLI reports it as an internal error (one line, exit 3).
    """


class TheoremCheckDeprecationWarning(FutureWarning):
    """A deprecated part of the public claim API was used (shown by default, unlike DeprecationWarning)."""


class ClaimWarning(UserWarning):
    """A claim is valid but probably not what its author meant (a ``shapes`` key no side uses: a typo such as
    ``"b"`` for ``"B"`` makes ``B`` a scalar).  Shown by default; the claim is registered and runs as written."""


class ExprError(TheoremCheckError, ValueError):
    """An expression side cannot be evaluated (unsupported node, missing value): one line naming it."""


class ParseError(ExprError):
    """A statement (string syntax or LaTeX) cannot be parsed: one line naming the offending token and,
    where there is one, its column."""
