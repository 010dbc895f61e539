"""theorem-check: a symbolic-numeric checker for the mathematics of deep-learning-theory papers.

The public surface (what claim authors and users import) is re-exported here; the machinery
lives in the submodules.  See ``docs/writing-claims.md`` for a worked example.

>>> import theorem_check as tc
>>> sorted(tc.Verdict.__members__)[:3]
['ERRATUM', 'ILL_POSED', 'INCONCLUSIVE']
"""

from theorem_check import _compat
from theorem_check._version import __version__

_compat.install()

from theorem_check import expr
from theorem_check.authoring.registry import REGISTRY, load_builtin, load_pack, register, resolve
from theorem_check.authoring.shortforms import erratum, gradient, identity
from theorem_check.engine.runner import (
    ClaimResult,
    MutantResult,
    RunResult,
    StatementResult,
    run_claim,
    run_claims,
    run_statement,
)
from theorem_check.engine.symbolic import Derivation, Step, check_derivation
from theorem_check.errors import (
    BadClaim,
    ClaimDefinitionError,
    InvalidArgument,
    PackError,
    ShapeMismatch,
    TheoremCheckDeprecationWarning,
    TheoremCheckError,
    UnknownClaim,
)
from theorem_check.library import dln
from theorem_check.library.dln import dln_dims
from theorem_check.model.checks import Level, MonteCarlo, Refinement
from theorem_check.model.claims import (
    Claim,
    Instance,
    Measurement,
    Source,
    Statement,
    double,
    negate,
    perturb,
    transpose,
)
from theorem_check.model.dims import DimSpace
from theorem_check.model.verdicts import Outcome, Verdict, decide_refinement, decide_zscore
from theorem_check.numerics import sampling
from theorem_check.numerics.precision import CONTEXTS, FLOAT32, FLOAT64, MP50, Ctx

__all__ = [
    "__version__",
    "expr", "sampling", "dln", "identity", "gradient", "erratum",
    "Level", "MonteCarlo", "Refinement",
    "Claim", "Instance", "Measurement", "Source", "Statement", "double", "negate", "perturb", "transpose",
    "DimSpace", "dln_dims",
    "BadClaim", "ClaimDefinitionError", "InvalidArgument", "TheoremCheckDeprecationWarning", "PackError", "ShapeMismatch", "TheoremCheckError", "UnknownClaim",
    "CONTEXTS", "FLOAT32", "FLOAT64", "MP50", "Ctx",
    "REGISTRY", "load_builtin", "load_pack", "register", "resolve",
    "ClaimResult", "MutantResult", "RunResult", "StatementResult", "run_claim", "run_claims", "run_statement",
    "Derivation", "Step", "check_derivation",
    "Outcome", "Verdict", "decide_refinement", "decide_zscore",
]

_missing = [n for n in __all__ if n not in globals()]
assert not _missing, f"theorem_check.__all__ names missing exports: {_missing}"
del _missing


def __getattr__(name: str):
    """``tc.checks``, ``tc.precision``, ...: the old submodule attributes, resolved through :mod:`._compat`."""
    target = _compat.OLD_PATHS.get(f"{__name__}.{name}")
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    return importlib.import_module(target)
