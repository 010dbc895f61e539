"""Section 2 of the prh note: eq. (14), the "entropy" S couples representation gradients and representations.

``S = sum_i E||grad_{W_i} l||^2 = sum_i E[||grad_{h^{i+1}} l||^2 ||h^i||^2]``, checked layer by layer with
per-sample gradients from exact central differences of the quadratic loss (independent of backpropagation).
Theorem 1, stated in the same section, is :mod:`.theorem1` (its claims are registered last).
"""

from __future__ import annotations

import numpy as np

import theorem_check as tc
from theorem_check import dln

from . import derivations_sympy as Y
from . import model as M
from .model import _SETUP, _ident, _sample, _src


# ---------------------------------------------------------------------------------------
# eq. (14): S from the definition (exact central differences) vs the outer-product form
# ---------------------------------------------------------------------------------------
def _unit(W, a, c, ctx):
    E = np.zeros(W.shape)
    E[..., a, c] = 1.0
    return ctx.asarray(E)


def fd_weight_grads(Ws, X, Y, M_O, M_I, ctx):
    """Per-sample ``grad_{W_k} l`` by central differences with unit steps: exact for the quadratic ``l``.

    ``l(W + E) - l(W - E) = 2 <grad l, E>`` holds exactly because ``l`` is quadratic in each
    ``W_k``; only rounding remains.  Shapes ``(b, N, d_k, d_{k-1})``; independent of backprop.
    """
    out = []
    for k, W in enumerate(Ws):
        b, p, q = W.shape
        G = np.empty((b, X.shape[-1], p, q), dtype=W.dtype)
        for a in range(p):
            for c in range(q):
                E = _unit(W, a, c, ctx)
                Wp, Wm = list(Ws), list(Ws)
                Wp[k], Wm[k] = W + E, W - E
                G[:, :, a, c] = (M.per_sample_losses(Wp, X, Y, M_O, M_I) - M.per_sample_losses(Wm, X, Y, M_O, M_I)) / 2
        out.append(G)
    return out


def fd_representation_grads(Ws, X, Y, M_O, M_I, ctx):
    """Per-sample ``grad_{h^k} l`` for dln layers ``k = 1..D`` by exact central differences in ``h``."""
    hs = dln.representations(Ws, X, M_I)
    out = []
    for k in range(1, len(Ws) + 1):
        H = hs[k]
        down = Ws[k:]

        def loss_from(Hk):
            R = (M_O @ (dln.product(down) @ Hk if down else Hk)) - Y
            return np.sum(R * R, axis=-2)

        g = np.empty(H.shape, dtype=H.dtype)
        for a in range(H.shape[1]):
            E = np.zeros(H.shape)
            E[:, a, :] = 1.0
            E = ctx.asarray(E)
            g[:, a, :] = (loss_from(H + E) - loss_from(H - E)) / 2
        out.append(g)
    return out, hs


def eq14_lhs(inst, ctx):
    """``[E||grad_{W_k} l||^2]_k`` with gradients from the definition (central differences)."""
    X, Y = M.data(inst)
    G = fd_weight_grads(inst.Ws, X, Y, inst.M_O, inst.M_I, ctx)
    return np.stack([np.sum(g * g, axis=(2, 3)).sum(axis=1) / g.shape[1] for g in G], axis=1)


def eq14_rhs(inst, ctx, shift=0):
    """``[E[||grad_{h^{k+1}} l||^2 ||h^k||^2]]_k`` (note's indexing); ``shift=-1`` pairs ``grad_{h^k}``."""
    X, Y = M.data(inst)
    g, hs = fd_representation_grads(inst.Ws, X, Y, inst.M_O, inst.M_I, ctx)
    out = []
    for k in range(len(inst.Ws)):            # dln W_{k+1}: h^k -> h^{k+1}; gradient g[k] is at h^{k+1}
        gk = g[k + shift] if k + shift >= 0 else g[0]
        h = hs[k]
        out.append(np.sum(np.sum(gk * gk, axis=1) * np.sum(h * h, axis=1), axis=1) / h.shape[-1])
    return np.stack(out, axis=1)


# =======================================================================================
# eq. (14)
# =======================================================================================
P14 = (r"S=\sum_{i}\mathbb{E}\|\nabla_{W_{i}}\ell\|^{2}"
       r"=\sum_{i}\mathbb{E}[{\|\nabla_{h^{i+1}}\ell\|^{2}}{\|h^{i}\|^{2}}]")
s14 = _ident(P14, eq14_lhs, eq14_rhs, derivation=Y.eq14, dims=M.edln_dims(width=(1, 4), io=(1, 2)),
             sample=_sample(n_u=2, n_eps=2),
             note="checked layer by layer (a stronger statement than the sum); gradients by exact central "
                  "differences of the quadratic l, independent of backpropagation")
tc.register(tc.Claim(
    id="prh.eq14", title="The entropy S couples representation gradients and representations",
    source=_src("2", "(14)", P14), statement=s14,
    controls=(tc.perturb(s14, r"index shift $\nabla_{h^{i}}$", rhs=lambda v, inst, ctx: eq14_rhs(inst, ctx, shift=-1)),
              tc.double(s14)),
    aliases=("entropy_S",), assumptions=_SETUP,
))
