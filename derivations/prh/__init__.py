"""Claims of the prh note: "Proof of a perfect platonic representation hypothesis", part 2.

Embedded deep linear networks ``f(x) = M^O W_D ... W_1 M^I x`` with inputs ``x = Z u``, targets
``y = V* u + eps`` and per-sample loss ``l = ||f(x) - y||^2``; the "entropy" ``S = sum_i
E||grad_{W_i} l||^2`` (eq. 14); Theorem 1 (perfect Platonic representations); Section 3 (most
global minima are not Platonic); the proof of Section 4 (eqs. 19-36, footnote 14).

Every claim is checked from definitions: the data are a finite product set (exact
expectations, ``u`` independent of ``eps``), gradients come from backpropagation
(:mod:`theorem_check.library.dln`) or, for eq. (14), from exact central differences; the printed right-hand
sides are evaluated as printed.  Where a printed statement fails, the corrected form derived in
``docs/papers/prh.md`` is checked next to it.

Map of the package (one module per section of the note; the claims are registered in this order):

* :mod:`.model`: the EDLN, its data (exact expectations), S, the samplers, the dims shared by several
  sections and the helpers the claims are built with (``_ident``, ``_chk``, ``_SETUP``, ...).
* :mod:`.gauge`: networks at a global minimum and the minimisation of S over the gauge group.
* :mod:`.checks`: numeric stages shared by several sections (S along ``e^{lam T}``, optimiser levels,
  the alignment check of eq. 17 and Theorem 1).
* :mod:`.derivations_sympy`: the SymPy derivations of every section.
* :mod:`.sec2_entropy`: Section 2, eq. (14) (``prh.eq14``).
* :mod:`.sec3_not_platonic`: Section 3, "most global minima are not platonic", eqs. (16)-(18)
  (``prh.eq16``, ``eq17``, ``eq18``, ``sec3``).
* :mod:`.sec4_global_minimum`: Section 4, eqs. (19)-(20) and achievability (``prh.eq20``, ``achievable``).
* :mod:`.sec4_equivariance`: Section 4, eqs. (21)-(25) (``prh.eq23``, ``eq24``, ``eq25``).
* :mod:`.sec4_gradient_balance`: Section 4, eqs. (26)-(31) (``prh.eq26``, ``eq26_other``, ``eq27`` ..
  ``eq31``).
* :mod:`.sec4_unit_rescaling`: Section 4, eqs. (32)-(36), footnote 14, uniqueness of lambda*
  (``prh.eq33`` .. ``eq36``, ``lambda_unique``).
* :mod:`.theorem1`: Theorem 1 (Section 2, proved in Section 4) (``prh.thm1_1`` .. ``thm1_3``).
"""

# the order of these imports is the registration order of the claims (``theorem-check list --paper prh``)
from . import sec2_entropy
from . import sec3_not_platonic
from . import sec4_global_minimum
from . import sec4_equivariance
from . import sec4_gradient_balance
from . import sec4_unit_rescaling
from . import theorem1

__all__ = ["sec2_entropy", "sec3_not_platonic", "sec4_global_minimum", "sec4_equivariance", "sec4_gradient_balance",
           "sec4_unit_rescaling", "theorem1"]
