"""Net-A and Net-B of the noise paper's Appendix A.1: scale-invariant two-layer tanh networks.

``u`` has shape ``(R, dy, h)`` (column ``u_j`` = output weights of hidden unit ``j``), ``w`` has
shape ``(R, h, dx)`` (row ``w_j`` = input weights of unit ``j``), replicas on axis 0; inputs
``X`` of shape ``(n, dx)`` or ``(R, n, dx)``, labels ``Y`` of shape ``(n, dy)`` or ``(R, n, dy)``; per-sample loss ``||f(x) - y||^2``.

* Net-A: ``f(x) = sum_j u_j / ||w||_F * tanh(w_j^T x / ||u||_F)`` -- invariant under
  ``(u, w) -> (rho u, rho w)`` only;
* Net-B: ``f(x) = sum_j u_j / ||u||_F * tanh(w_j^T x / ||w||_F)`` -- invariant under scaling
  ``u`` and ``w`` separately (three scale symmetries).

Gradients are written out by hand (checked against finite differences in the tests); by the
scale invariance ``<theta, grad l> = 0`` for every sample.
"""

from __future__ import annotations

import numpy as np

__all__ = ["forward", "per_sample_grads"]


def forward(net: str, u, w, X):
    """Outputs ``f`` of shape ``(R, n, dy)`` and the intermediates ``(a, b, z, s)``.

    ``X`` may be shared, ``(n, dx)``, or per replica, ``(R, n, dx)``.
    """
    X = np.broadcast_to(X, (u.shape[0],) + np.shape(X)[-2:])
    a = np.sqrt(np.sum(u * u, axis=(1, 2)))[:, None, None]
    b = np.sqrt(np.sum(w * w, axis=(1, 2)))[:, None, None]
    if net == "A":
        z = np.einsum("rhd,rnd->rnh", w, X) / a
        s = np.tanh(z)
        f = np.einsum("ryh,rnh->rny", u, s) / b
    elif net == "B":
        z = np.einsum("rhd,rnd->rnh", w, X) / b
        s = np.tanh(z)
        f = np.einsum("ryh,rnh->rny", u, s) / a
    else:
        raise ValueError(f"net={net!r} must be 'A' or 'B'")
    return f, (a, b, z, s)


def per_sample_grads(net: str, u, w, X, Y):
    """Per-sample gradients ``(g_u (R, n, dy, h), g_w (R, n, h, dx))`` and losses ``(R, n)``."""
    X = np.broadcast_to(X, (u.shape[0],) + np.shape(X)[-2:])
    Y = np.broadcast_to(Y, (u.shape[0],) + np.shape(Y)[-2:])
    f, (a, b, z, s) = forward(net, u, w, X)
    gf = 2.0 * (f - Y)                                          # (R, n, dy)
    loss = np.sum((f - Y) ** 2, axis=-1)
    a3, b3 = a[:, :, 0], b[:, :, 0]                             # (R, 1)
    if net == "A":
        delta = (1 - s ** 2) * np.einsum("ryh,rny->rnh", u, gf) / b3[..., None]     # dl/dz
        dz_a = -np.sum(delta * z, axis=-1) / a3                                      # dl/da (R, n)
        gu = np.einsum("rny,rnh->rnyh", gf, s) / b3[..., None, None] + dz_a[..., None, None] * (u / a)[:, None]
        fb = -np.sum(gf * f, axis=-1) / b3                                           # dl/db
        gw = np.einsum("rnh,rnd->rnhd", delta, X) / a3[..., None, None] + fb[..., None, None] * (w / b)[:, None]
    else:
        uh, wh = u / a, w / b
        G_uh = np.einsum("rny,rnh->rnyh", gf, s)
        gu = (G_uh - np.einsum("rnyh,ryh->rn", G_uh, uh)[..., None, None] * uh[:, None]) / a[:, None]
        delta = (1 - s ** 2) * np.einsum("ryh,rny->rnh", uh, gf)
        G_wh = np.einsum("rnh,rnd->rnhd", delta, X)
        gw = (G_wh - np.einsum("rnhd,rhd->rn", G_wh, wh)[..., None, None] * wh[:, None]) / b[:, None]
    return gu, gw, loss
