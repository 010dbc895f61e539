"""theorem-check: a symbolic-numeric checker for the mathematics of deep-learning-theory papers.

The public surface (what claim authors and users import) is re-exported here; the machinery
lives in the submodules.  See ``docs/writing-claims.md`` for a worked example.

>>> import theorem_check as tc
>>> sorted(tc.Verdict.__members__)[:3]
['ERRATUM', 'ILL_POSED', 'INCONCLUSIVE']
"""

from ._version import __version__

from . import expr, sampling
from .checks import Level, MonteCarlo, Refinement
from .claims import Claim, Instance, Measurement, Source, Statement, double, negate, perturb, transpose
from .dims import DimSpace, dln_dims
from .errors import (BadClaim, ClaimDefinitionError, InvalidArgument, PackError, ShapeMismatch, TheoremCheckError,
                     UnknownClaim)
from .numeric import TheoremCheckDeprecationWarning
from .precision import CONTEXTS, FLOAT32, FLOAT64, MP50, Ctx
from .registry import REGISTRY, load_builtin, load_pack, register, resolve
from .runner import ClaimResult, MutantResult, RunResult, StatementResult, run_claim, run_claims, run_statement
from .shortforms import erratum, gradient, identity
from .symbolic import Derivation, Step, check_derivation
from .verdicts import Outcome, Verdict, decide_refinement, decide_zscore

__all__ = [
    "__version__",
    "expr", "sampling", "identity", "gradient", "erratum",
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
