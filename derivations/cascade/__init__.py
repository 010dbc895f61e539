"""Claims of the cascade paper (``cascade.*``), one module per section of the review.

Source: the public review (Pith, 2026-08-15) of B. Ladewig, I. T. Ersoy, K. Wiesner, "Cascading
Through the Hierarchy: Regularizer-Induced Feature Detection as Phase Transitions in Deep Linear
Neural Networks", arXiv 2608.06597.  The review cites the paper's eqs. (15), (17), (25), (26) and
Tables II, III, VII without always printing them: each claim encodes what the review states and
derives the result from scratch (closed forms in :mod:`derivations.cascade.model`, experiments
in :mod:`derivations.cascade.training`, notes in ``docs/papers/cascade.md``).

Model and conventions (fixed once for every claim):
``L = E||W_n ... W_1 x - y||^2 + beta sum_i ||W_i||_F^2`` (no 1/2), gradient flow
``dW_i/dt = -dL/dW_i``; alignment (eq. 17) ``Sigma_xx = R diag(kappa) R^T``,
``Sigma_yx = L diag(eta) R^T``; ``sigma`` is a *layer's* singular value, ``s = sigma^n`` the
end-to-end map's ("macrostate").

The package, in the order its claims are registered:

* ``model``            -- the model: conventions, closed forms (Landau potentials, thresholds, Hessian
  blocks, SymPy blocks), the source helper, dimension spaces and samplers shared by every module;
* ``training``         -- minimisation (trust-region Newton) and gradient flow of the full network;
* ``landau``           -- Sec. II.B / III, eqs. (17), (15): alignment and the effective Landau loss
  (``eq17``, ``landau``);
* ``one_hidden_layer`` -- Sec. III.A: the n = 2 cascade of continuous transitions (``n2_cascade``);
* ``thresholds``       -- Sec. III.B, eqs. (25)-(26): n >= 3 bifurcation and level crossing
  (``bifurcation``, ``level_crossing``);
* ``hessian_sectors``  -- Sec. III.A.1 / App. C, Tables II, III, VII, minor comment 2: Hessian spectra
  and sectors (``hessian_n2``, ``hessian_n3``, ``hessian_kappa``, ``hessian_sectors``, ``minor2``);
* ``top_r``            -- Sec. III / App. C, ordering of minima (``top_r``, ``top_r_kappa``);
* ``balance``          -- Sec. II.C / App. A1, eqs. (10)-(11): 0-balance (``balance_identity``,
  ``balance_critical``, ``balance_flow``);
* ``slowing_down``     -- App. E1: critical slowing down (``slowing_exact``, ``slowing_riccati``,
  ``slowing_mode``);
* ``settle_it``        -- the review's "What would settle it" (``settle_it``, ``settle_crossing``);
* ``nonaligned``       -- Sec. IV.B, major comment 1: non-aligned covariances (``onset_nonaligned``,
  ``later_thresholds``);
* ``hysteresis``       -- Sec. III.B ("If this is right"): n = 3 hysteresis under gradient flow
  (``hysteresis``);
* ``simulations``      -- the slow training-dynamics claims (``sweep_n2_sim``, ``sweep_n3_sim``,
  ``slowing_down_sim``; ``slow=True``), on the simulators of ``simulators`` (gradient descent with
  weight decay, replicas batched) and the shared :mod:`derivations.simulation`; imported last.
"""

from . import landau, one_hidden_layer, thresholds, hessian_sectors, top_r, balance  # noqa: F401
from . import slowing_down, settle_it, nonaligned, hysteresis  # noqa: F401
from . import simulations  # noqa: F401,E402  (slow claims register last)
