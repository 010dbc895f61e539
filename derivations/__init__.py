"""The built-in claim catalogue: one module per paper, claims only (the engine knows no paper).

``PAPERS`` lists the modules :func:`theorem_check.registry.load_builtin` imports, in order.
Shared mathematics lives in :mod:`theorem_check.dln` (deep linear networks, gradients, noise
covariances, Hessians), never copied per paper.
"""

PAPERS = ["prh", "noise", "cascade"]
