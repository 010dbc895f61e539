"""Claims of "Parameter Symmetry and Noise Equilibrium of Stochastic Gradient Descent" (``noise.*``).

One module per section or appendix of the paper.  They are imported below in the order that registers the
claims in the catalogue's order, which follows the paper's argument and visits an appendix where a section
needs it (the map says where such claims live):

* ``model`` -- the paper's model: losses, per-sample gradients, noise covariances, exact SGD expectations,
  drift matrices; the ``claim``/``variant``/``control`` helpers; the samplers and DimSpaces several sections
  share; the orbit ``e^{lambda A} theta`` and the root finding of its fixed points (imports no section);
* ``sec4_noether`` -- Sections 3-4.1: the example symmetries (eqs. 2, 10; the generators of Sec. 4.2), eq. 3,
  eq. 4, the Noether flow (eq. 5) and its derivation in Appendix B.1 (eqs. 29-31);
* ``sec4_2_exponential_symmetry`` -- Section 4.2: the charge (eq. 6), weight decay (eq. 7; eq. 24 of
  Appendix A.1), ``Tr[Sigma A]`` split by sign;
* ``sec4_3_noise_equilibrium`` -- Section 4.3: the fixed point (eq. 9, the text before eq. 8), the exponential
  map (eq. 8), Lemma B.1 and eqs. 35-37 of Appendix B.2, Theorem 4.3 (1)-(4), the signs after Remark 4.4;
* ``appendix_b2`` -- Appendix B.2: the proof of Theorem 4.3 (eigenvalues, ``I(lambda)``, eqs. 40-43);
* ``sec5_1_matrix_factorisation`` -- Section 5.1: eq. 11, Proposition 5.1 (proof: Appendix B.4), the rank-1
  case, Appendix C's charges (eqs. 79-81);
* ``sec5_2_noise_balance`` -- Section 5.2: Theorem 5.2 and its proof in Appendix C (eqs. 82-92), eq. 14;
* ``sec5_2_sharpness`` -- Section 5.2: Proposition 5.3 (proof: Appendix B.5), eq. 15, Xavier and Kaiming;
* ``sec5_3_deep_linear`` -- Section 5.3: Theorem 5.4 (eqs. 17-18), eq. 19, the charge of the pair symmetry;
* ``appendix_e`` -- Appendix E: Theorem E.1 (eqs. 109-110), eqs. 112-113, eqs. 121-122;
* ``sec5_4_approximate_symmetry`` -- Section 5.4: approximate symmetry, eqs. 20-23;
* ``appendix_e_eqs127_130`` -- Appendix E: the closing steps of the proof of Theorem 5.4 (eqs. 127-130);
* ``appendix_b3`` -- Appendix B.3: Lemmas B.2, B.3, B.5, Corollary B.4, Theorem B.6, eq. 75;
* ``appendix_d`` -- Appendix D: discrete-time SGD (eqs. 93-108), Theorem D.1;
* ``simulators`` -- the SGD/GD simulators of the slow claims, and how those claims measure and report;
* ``simulations_fig2`` -- Figure 2 (Sections 5.1-5.2): Theorem 5.2's balance under SGD, eq. 11 under GD;
* ``simulations_appendix_a`` -- Appendix A: Figure 8 (A.3), eq. 24 on Net-A and Net-B (A.1);
* ``simulations_fig4`` -- Figure 4 / eq. 15 (Section 5.2): progressive flattening;
* ``simulations_fig5`` -- Figure 5 / Theorem 5.4 (Section 5.3): the layer norms of a deep linear net.

The ``simulations_*`` claims are ``slow=True`` (``theorem-check run --slow``).

Every constant is derived from the paper's own conventions: the SDE of eq. 1 with
``sigma^2 = eta/(2S)``, the loss of eq. 12 without a factor 1/2, ``Sigma`` the covariance of
per-sample gradients.  Left-hand sides are computed from definitions: per-sample gradients on a
finite data set, and the drift of a charge under discrete SGD by enumerating every minibatch
(``model.sgd_noise_drift``); right-hand sides are the printed formulas.  The notes and
errata are in ``docs/papers/noise.md``.
"""

from . import sec4_noether  # noqa: F401
from . import sec4_2_exponential_symmetry  # noqa: F401
from . import sec4_3_noise_equilibrium  # noqa: F401
from . import appendix_b2  # noqa: F401
from . import sec5_1_matrix_factorisation  # noqa: F401
from . import sec5_2_noise_balance  # noqa: F401
from . import sec5_2_sharpness  # noqa: F401
from . import sec5_3_deep_linear  # noqa: F401
from . import appendix_e  # noqa: F401
from . import sec5_4_approximate_symmetry  # noqa: F401
from . import appendix_e_eqs127_130  # noqa: F401
from . import appendix_b3  # noqa: F401
from . import appendix_d  # noqa: F401
from . import simulations_fig2  # noqa: F401
from . import simulations_appendix_a  # noqa: F401
from . import simulations_fig4  # noqa: F401
from . import simulations_fig5  # noqa: F401
