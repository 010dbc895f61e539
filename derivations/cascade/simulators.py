"""Gradient descent with weight decay on deep linear networks, for the cascade paper's dynamics.

Loss (cascade review, eq. 2 convention): ``L = tr(P Sxx P^T) - 2 tr(P Syx^T) + tr Syy + beta sum_i ||W_i||_F^2``
with ``P = W_n ... W_1``; under alignment (``Sxx = diag(kappa)``, ``Syx = diag(eta)``) a 0-balanced
critical point has per-layer singular values ``s_j`` with ``L = sum_j kappa_j s_j^{2n} - 2 eta_j s_j^n
+ n beta s_j^2`` (+ const), and ``P`` has singular values ``s_j^n``.  Replicas on axis 0; ``beta`` is
per replica.  GD (explicit Euler of gradient flow) has exactly the critical points of the flow, so
converged GD states are flow fixed points; exponents of algebraic relaxation are step-independent.
"""

from __future__ import annotations

import numpy as np

__all__ = ["gradients", "per_layer_s", "gd_to_tolerance", "landau_min_n2", "n3_branch", "beta_det", "beta_star"]


def _T(a):
    return np.swapaxes(a, -1, -2)


def gradients(Ws, Sxx, Syx, beta):
    """``dL/dW_i = 2 A_i^T (P Sxx - Syx) B_i^T + 2 beta W_i`` for every layer; ``beta`` of shape ``(R,)``."""
    n = len(Ws)
    pre = [None]
    for W in Ws:
        pre.append(W if pre[-1] is None else W @ pre[-1])
    E = pre[-1] @ Sxx - Syx
    suf = [None] * (n + 1)
    for i in range(n - 1, -1, -1):
        suf[i] = Ws[i] if suf[i + 1] is None else suf[i + 1] @ Ws[i]
    out = []
    b = np.asarray(beta, float)[:, None, None]
    for i, W in enumerate(Ws):
        G = E if suf[i + 1] is None else _T(suf[i + 1]) @ E
        G = G if pre[i] is None else G @ _T(pre[i])
        out.append(2 * G + 2 * b * W)
    return out


def per_layer_s(Ws) -> np.ndarray:
    """``sigma_j(P)^{1/n}``, descending, shape ``(R, min dims)``: each layer's singular value at 0-balance."""
    P = Ws[0]
    for W in Ws[1:]:
        P = W @ P
    sv = np.linalg.svd(P, compute_uv=False)
    return np.maximum(sv, 0.0) ** (1.0 / len(Ws))


def gd_to_tolerance(Ws, Sxx, Syx, beta, *, lr, tol, max_steps, check_every=50):
    """GD until every replica's gradient norm is below ``tol`` (or ``max_steps``).

    Returns ``(Ws, steps, gnorm (R,))``.
    """
    Ws = [W.copy() for W in Ws]
    g2 = None
    for step in range(max_steps):
        gs = gradients(Ws, Sxx, Syx, beta)
        if step % check_every == 0:
            g2 = sum(np.sum(g * g, axis=(1, 2)) for g in gs)
            if np.all(np.sqrt(g2) < tol):
                return Ws, step, np.sqrt(g2)
        for W, g in zip(Ws, gs):
            W -= lr * g
    gs = gradients(Ws, Sxx, Syx, beta)
    return Ws, max_steps, np.sqrt(sum(np.sum(g * g, axis=(1, 2)) for g in gs))


def landau_min_n2(eta, kappa, beta):
    """Global minimiser of ``kappa s^4 - 2 eta s^2 + 2 beta s^2`` over ``s >= 0``: ``sqrt(max(0, (eta - beta)/kappa))``."""
    return np.sqrt(np.maximum(0.0, (np.asarray(eta) - beta) / np.asarray(kappa)))


def n3_branch(eta, kappa, beta):
    """Nontrivial minimum of ``kappa s^6 - 2 eta s^3 + 3 beta s^2`` (largest root of ``kappa s^4 - eta s + beta``), or 0.

    Critical points: ``L' = 6 s (kappa s^4 - eta s + beta)``; the quartic's larger positive root is the
    minimum (``L'' > 0`` there), it exists iff ``beta <= beta_det``.
    """
    roots = np.roots([kappa, 0.0, 0.0, -eta, beta])
    real = roots[np.abs(roots.imag) < 1e-9].real
    pos = real[real > 0]
    return float(pos.max()) if len(pos) else 0.0


def beta_det(eta, kappa):
    """Spinodal of the n = 3 potential: the nontrivial minimum exists iff ``beta <= 3 eta^{4/3} / (4^{4/3} kappa^{1/3})``.

    (``g(s) = kappa s^4 - eta s + beta`` has its minimum at ``s_m = (eta / (4 kappa))^{1/3}``;
    ``g(s_m) <= 0`` iff ``beta <= 3/4 eta s_m``.)
    """
    return 3.0 * eta ** (4.0 / 3.0) / (4.0 ** (4.0 / 3.0) * kappa ** (1.0 / 3.0))


def beta_star(eta, kappa):
    """Level crossing of the n = 3 potential (``L(s*) = L(0)``): ``beta* = (eta^4 / (16 kappa))^{1/3}``.

    (``L = 0`` and ``L' = 0`` at ``s > 0`` give ``s = 2 beta / eta`` and ``16 kappa beta^3 = eta^4``.)
    """
    return (eta ** 4 / (16.0 * kappa)) ** (1.0 / 3.0)
