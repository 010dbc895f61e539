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

_EXPORTS: dict[str, str] = {
    "expr": "theorem_check.expr",
    "REGISTRY": "theorem_check.authoring.registry",
    "load_builtin": "theorem_check.authoring.registry",
    "load_pack": "theorem_check.authoring.registry",
    "register": "theorem_check.authoring.registry",
    "resolve": "theorem_check.authoring.registry",
    "erratum": "theorem_check.authoring.shortforms",
    "gradient": "theorem_check.authoring.shortforms",
    "identity": "theorem_check.authoring.shortforms",
    "ClaimResult": "theorem_check.engine.runner",
    "MutantResult": "theorem_check.engine.runner",
    "RunResult": "theorem_check.engine.runner",
    "StatementResult": "theorem_check.engine.runner",
    "run_claim": "theorem_check.engine.runner",
    "run_claims": "theorem_check.engine.runner",
    "run_statement": "theorem_check.engine.runner",
    "Derivation": "theorem_check.engine.symbolic",
    "Step": "theorem_check.engine.symbolic",
    "STATEMENT_SIZES": "theorem_check.model.derivation",
    "check_derivation": "theorem_check.engine.symbolic",
    "BadClaim": "theorem_check.errors",
    "ClaimDefinitionError": "theorem_check.errors",
    "InvalidArgument": "theorem_check.errors",
    "PackError": "theorem_check.errors",
    "ShapeMismatch": "theorem_check.errors",
    "TheoremCheckDeprecationWarning": "theorem_check.errors",
    "TheoremCheckError": "theorem_check.errors",
    "UnknownClaim": "theorem_check.errors",
    "dln": "theorem_check.library.dln",
    "dln_dims": "theorem_check.library.dln",
    "Level": "theorem_check.model.checks",
    "MonteCarlo": "theorem_check.model.checks",
    "Refinement": "theorem_check.model.checks",
    "Claim": "theorem_check.model.claims",
    "Instance": "theorem_check.model.claims",
    "Measurement": "theorem_check.model.claims",
    "Source": "theorem_check.model.claims",
    "Statement": "theorem_check.model.claims",
    "double": "theorem_check.model.claims",
    "negate": "theorem_check.model.claims",
    "perturb": "theorem_check.model.claims",
    "transpose": "theorem_check.model.claims",
    "DimSpace": "theorem_check.model.dims",
    "Outcome": "theorem_check.model.verdicts",
    "Verdict": "theorem_check.model.verdicts",
    "decide_refinement": "theorem_check.model.verdicts",
    "decide_zscore": "theorem_check.model.verdicts",
    "sampling": "theorem_check.numerics.sampling",
    "CONTEXTS": "theorem_check.numerics.precision",
    "FLOAT32": "theorem_check.numerics.precision",
    "FLOAT64": "theorem_check.numerics.precision",
    "MP50": "theorem_check.numerics.precision",
    "Ctx": "theorem_check.numerics.precision",
}
"""Public name -> the module that defines it (a submodule re-exported whole maps to itself).  Resolved on first
use by :func:`__getattr__` (PEP 562), so ``import theorem_check`` does not import SymPy, NumPy or the engine:
the command line starts its worker processes before it pays for them (issue 21)."""

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
    "Derivation", "Step", "STATEMENT_SIZES", "check_derivation",
    "Outcome", "Verdict", "decide_refinement", "decide_zscore",
]

_missing = [n for n in __all__ if n not in globals() and n not in _EXPORTS]
assert not _missing, f"theorem_check.__all__ names missing exports: {_missing}"
del _missing


def __getattr__(name: str):
    """A public name of :data:`_EXPORTS`, imported on first use and then cached in the module's namespace; else
    ``tc.checks``, ``tc.precision``, ...: the old submodule attributes, resolved through :mod:`._compat`.
    Raises AttributeError for any other name."""
    import importlib

    where = _EXPORTS.get(name)
    if where is not None:
        if where.endswith(f".{name}"):       # a submodule re-exported whole (tc.expr, tc.sampling, tc.dln)
            value = importlib.import_module(where)
        else:
            value = getattr(importlib.import_module(where), name)
        globals()[name] = value
        return value
    target = _compat.OLD_PATHS.get(f"{__name__}.{name}")
    if target is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return importlib.import_module(target)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
