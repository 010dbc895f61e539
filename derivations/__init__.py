"""The built-in claim catalogue: one package per paper, claims only (the engine knows no paper).

``PAPERS`` lists the packages :func:`theorem_check.authoring.registry.load_builtin` imports, in order; each
package's ``__init__`` imports its modules in catalogue order (its slow simulations last).

* ``prh/``     -- the proof note on the perfect Platonic representation hypothesis (embedded deep
  linear networks, the entropy S, equivariance and gradient balance; module map in ``prh/__init__``);
* ``noise/``   -- parameter symmetry and the noise equilibrium of SGD (Noether flow, Theorems 4.3,
  5.2, 5.4, Appendices B-E; module map in ``noise/__init__``);
* ``cascade/`` -- the review of L2-regularisation phase-transition cascades in deep linear networks
  (Landau potentials, thresholds, Hessian sectors; module map in ``cascade/__init__``);
* ``simulation`` -- the machinery the simulation claims of several papers share (budget, progress,
  replica statistics, refinement floors).

In each package ``model.py`` holds the paper's model, samplers and shared helpers; every other
module is one section or appendix of the paper, named after it.  Modules import ``model`` (and
at most an earlier section) and never the package back: ``tests/test_imports.py`` checks that
there is no import cycle.  Shared mathematics lives in :mod:`theorem_check.library.dln` (deep linear
networks, gradients, noise covariances, Hessians), never copied per paper.
"""

PAPERS = ["prh", "noise", "cascade"]
