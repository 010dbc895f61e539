"""A derivation as data: a chain of equalities (:class:`Step`) from definitions to a statement.

The engine checks it (:func:`theorem_check.engine.symbolic.check_derivation`); this module only
describes it, so that a claim can carry one without importing the engine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import sympy as sp

__all__ = ["Step", "Derivation", "STATEMENT_SIZES"]

STATEMENT_SIZES = "the statement's only sizes"
"""``Derivation.sizes`` of a derivation whose matrix symbols have fixed sizes that are every size its statement is
about (a statement without size letters, e.g. ``A`` declared ``2 x 2``): a step closed exactly on the explicit
entries of those symbols (method ``"explicit entries"``) then proves the statement, and ``general`` stays True."""


@dataclass(frozen=True)
class Step:
    """One equality of a derivation.

    Parameters
    ----------
    lhs, rhs : sympy expressions or matrices (explicit ``sympy.Matrix`` or ``MatrixExpr``)
        The two sides; they must have the same shape.
    why : str
        The justification in words ("cyclicity of the trace", "eq. (21) substituted").
    """

    lhs: object
    rhs: object
    why: str = ""


@dataclass(frozen=True)
class Derivation:
    """A derivation: steps from definitions to the statement.

    Parameters
    ----------
    steps : sequence of Step
    general : bool
        True if the steps hold for every size (scalar or ``MatrixSymbol`` algebra); False if they
        use explicit matrices of fixed sizes (then ``sizes`` says which).
    sizes : str
        Human-readable sizes of explicit matrices, e.g. ``"D=2, d=(2,3,2)"``; :data:`STATEMENT_SIZES` when the
        fixed sizes of the matrix symbols are all the statement is about.
    domain : mapping Symbol -> callable(random.Random) -> number, optional
        How to draw exact values of free symbols for the random-point test (default: positive
        rationals for positive/real symbols, integers 2..9 for integer symbols).
    structure : mapping name -> kind, optional
        Structures of matrix symbols (``symmetric``, ``spd``, ``diagonal``, ``antisymmetric``,
        ``orthogonal``) that a step's normal-form proof may use
        (:func:`theorem_check.expr.matrix_proof.prove_identity`); other kinds are ignored.
    """

    steps: Sequence[Step]
    general: bool = True
    sizes: str = ""
    domain: Mapping[sp.Symbol, Callable[[random.Random], object]] = field(default_factory=dict)
    structure: Mapping[str, str] = field(default_factory=dict)
