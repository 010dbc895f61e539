"""Noise paper, Appendix E: the closing steps of the proof of Theorem 5.4 (eqs. 127-130).

They register after Section 5.4, as in the catalogue; the rest of Appendix E is
:mod:`derivations.noise.appendix_e`.
"""

from __future__ import annotations

import numpy as np

import theorem_check as tc

from . import model as M
from .model import claim, sample_gmin, variant
from .sec5_3_deep_linear import T54_DIMS, _t54_normalize, _t54_weights

# ----------------------------------------------------------------------------------------------
# the proof's eqs. 127-130 evaluated at the true equilibrium (the corrected eq. 18)
# ----------------------------------------------------------------------------------------------
T54_3_DIMS = tc.DimSpace({"D": (3, 4), "dx": (1, 3), "dy": (1, 3), "r": (1, 2), "e1": (0, 1), "e2": (0, 1), "e3": (0, 1)},
                         where=lambda d: d["r"] <= min(d["dx"], d["dy"]), normalize=_t54_normalize)


def _e127(inst, ctx, side):
    Ws, rx, re, info = _t54_weights(inst, ctx, "corrected")
    c2 = info["c"] ** 2
    S1, SD = info["S1"] ** 2, info["SD"] ** 2
    if side == "lhs":
        return c2[:, None] * SD / np.sum(SD, -1)[:, None]
    norm = info["d"] if side == "printed" else info["a"]
    return S1 / (norm[:, None] if isinstance(norm, np.ndarray) and norm.ndim else norm)


_e127s = tc.Statement(r"c^2\frac{\Sigma_D^2}{\mathrm{Tr}[\Sigma_D^2]}=\frac{\Sigma_1^2}{d}", dims=T54_3_DIMS, sample=sample_gmin,
                      lhs=lambda i, c: _e127(i, c, "lhs"), rhs=lambda i, c: _e127(i, c, "printed"),
                      note=r"$\Sigma_{1}$, $\Sigma_{D}$, $c$ of the true equilibrium (corrected eq. 18, verified by noise.thm5_4)")
claim("eq127", r"Proof of Thm 5.4: eq. 127 at $i = 1$ normalises by $d$ where eq. 122 has $\operatorname{Tr}[\Sigma_{x}]$", "Appendix E", "(127)-(129)",
      r"\frac{\Sigma_{2}^{2}\cdots\Sigma_{D}^{2}}{{\rm Tr}[\Sigma_{3}^{2}\dots\Sigma_{D}^{2}]}=c^{2}\frac{\Sigma_{D}^{2}}{{\rm Tr}[\Sigma_{D}^{2}]}=\frac{\Sigma_{1}^{2}}{d}",
      _e127s, aliases=("eq128", "eq129"),
      variants=[variant(_e127s, r"corrected: $\Sigma_{1}^{2} / \operatorname{Tr}[\Sigma_{x}]$", latex=r"c^2\frac{\Sigma_D^2}{\mathrm{Tr}\Sigma_D^2}=\frac{\Sigma_1^2}{\mathrm{Tr}\Sigma_x}",
                        rhs=lambda i, c: _e127(i, c, "corrected"))],
      controls=[tc.double(_e127s)])


def _e130(inst, ctx, form):
    Ws, rx, re, info = _t54_weights(inst, ctx, "corrected")
    D, c = info["D"], info["c"]
    cp = M.pw(c, D - 2, 1, ctx)[:, None]
    if form == "lhs":
        return info["S1"] ** 2 * cp
    if form == "corrected_lhs":
        return info["S1"] * info["SD"] * cp
    return info["sp"]


_e130s = tc.Statement(r"\Sigma_1^2c^{D-2}=S'", dims=T54_DIMS, sample=sample_gmin, lhs=lambda i, c: _e130(i, c, "lhs"),
                      rhs=lambda i, c: _e130(i, c, "sp"))
claim("eq130", r"Proof of Thm 5.4: $\Sigma_{1}^{2} c^{D-2} = S'$ (uses $\Sigma_{1} = \Sigma_{D}$)", "Appendix E", "(130)",
      r"\Sigma_{1}^{2}c^{D-2}=S^{\prime}", _e130s,
      variants=[variant(_e130s, r"corrected: $\Sigma_{D} \Sigma_{1} c^{D-2} = S'$", latex=r"\Sigma_D\Sigma_1c^{D-2}=S'",
                        lhs=lambda i, c: _e130(i, c, "corrected_lhs"))],
      controls=[tc.double(_e130s)])
