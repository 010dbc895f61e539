"""Theorem 1 of the prh note (stated in Section 2, proved in Section 4): perfect Platonic representations.

Part 1: any two learned representations of network A are perfectly aligned; part 2: of network B; part 3:
across A and B, for any invertible embeddings, at S-minimisers of both.  Its claims are registered last,
after Section 4's; the check, shared with eq. (17), is :func:`.checks.check_theorem`.
"""

from __future__ import annotations

import theorem_check as tc

from . import derivations_sympy as Y
from . import model as M
from .checks import check_theorem
from .model import _SETUP, _chk, _src

# =======================================================================================
# Theorem 1
# =======================================================================================
PT = (r"\text{For any invertible } M^{O}_{A},M^{I}_{A},Z_{A},M^{O}_{B},M^{I}_{B},Z_{B}\text{ and any } i,j:\ ")
_parts = {
    1: (r"h^{i}_{A}\ \text{and}\ h^{j}_{A}\ \text{are perfectly aligned}", "within network A"),
    2: (r"h^{i}_{B}\ \text{and}\ h^{j}_{B}\ \text{are perfectly aligned}", "within network B"),
    3: (r"h^{i}_{A}\ \text{and}\ h^{j}_{B}\ \text{are perfectly aligned}", "across networks A and B"),
}
_READINGS = (
    ("with_input", r"(1\le i,j\le D)", "reading: $i$, $j$ also the module input $h^{1} = M^{I} x$",
     r"$h^{1} = M^{I} Z u$ has the kernel $Z^{\top} M^{I\top} M^{I} Z$, fixed by the arbitrary $M^{I}$, $Z$: not learned"),
    ("with_output", r"(2\le i,j\le D+1)", "reading: $i$, $j$ also the module output $h^{D+1}$",
     "at a global minimum $h^{D+1} = (M^{O})^{-1} V^* u$, fixed by the arbitrary $M^{O}$: not learned"),
)
for part, (txt, where) in _parts.items():
    dims = M.pair_dims(n=(2, 3)) if part == 3 else M.pair_dims(n=(2, 3), depth=(3, M.DMAX))
    sT = _chk(PT + txt + r"\quad(2\le i,j\le D)", check_theorem(part, layers="hidden"), dims=dims,
              derivation=Y.thm1,
              note="$i$, $j$ over the learned representations $h^{2}$..$h^{D}$ (outputs of $W_{1}$..$W_{D-1}$; "
                   "eq. 14's indexing); the common kernel is "
                   r"$Q^* = \Sigma_u^{-1/2}(\Sigma_u^{1/2} V^{*\top} \Sigma_\varepsilon V^* \Sigma_u^{1/2})^{1/2} \Sigma_u^{-1/2}$ (derived); $n \ge 2$ and, within one network, depth ≥ 3 (otherwise every instance is trivially aligned)")
    readings = tuple(
        _chk(PT + txt + r"\quad" + rng_tex, check_theorem(part, layers=layers), name=name, kind="reading",
             dims=M.pair_dims(n=(2, 3)), note=why + " (n >= 2; for n = 1 every pair is trivially aligned)")
        for layers, rng_tex, name, why in _READINGS)
    tc.register(tc.Claim(
        id=f"prh.thm1_{part}", title=f"Theorem 1 part {part}: perfect alignment {where}",
        source=_src("2", f"Theorem 1 ({part})", PT + txt), statement=sT, variants=readings,
        controls=(_chk(PT + txt, check_theorem(part, layers="hidden", minimise=False),
                       name="control: generic global minima (S not minimised)", kind="control", dims=dims),),
        aliases=("thm1",),
        assumptions=(*_SETUP, "two networks with their own depth (2..4), hidden widths $n$ + (0..2)(all different), "
                              r"random $M^{O}$, $M^{I}$, $Z$; same task $V^* (n \times n, \operatorname{rank} n)$, "
                              r"same $u$ and $\varepsilon$; label noise with $V^{*\top} \Sigma_\varepsilon V^*$ of $\operatorname{rank} n$",
                     "each network at a global minimum of the loss, $S$ minimised over its gauge group "
                     r"$W_{k} \to G_{k} W_{k} G_{k-1}^{-1}$ (SciPy BFGS, then trust-region least squares on the stationarity equations)"),
    ))
