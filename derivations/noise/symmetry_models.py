"""Noise paper: the scale-invariant model (``A = I``) and a ReLU neuron (rescaling symmetry), per-sample gradients and
losses at any precision (object arrays included); re-exported by :mod:`.model` (``M.relu_grads``, ...)."""

from __future__ import annotations

import numpy as np


# ----------------------------------------------------------------------------------------------
# scale-invariant model (A = I) and a ReLU neuron (rescaling symmetry)
# ----------------------------------------------------------------------------------------------
def scale_inv_grads(theta, X, y, ctx):
    """Per-sample gradients of ``l = (x^T theta / ||theta|| - y)^2``: (b, n, P).

    ``theta (b, P)``, ``X (b, P, n)``, ``y (b, n)``.  ``l(rho theta) = l(theta)`` for rho > 0.
    """
    nrm2 = np.sum(theta * theta, axis=1)                       # (b,)
    nrm = ctx.sqrt(nrm2)
    proj = np.sum(X * theta[:, :, None], axis=1)              # (b, n) x^T theta
    r = proj / nrm[:, None] - y
    # d/dtheta (x^T theta/|theta|) = x/|theta| - (x^T theta) theta/|theta|^3
    dx = np.swapaxes(X, -1, -2) / nrm[:, None, None] - proj[:, :, None] * theta[:, None, :] / (nrm2 * nrm)[:, None, None]
    return 2 * r[:, :, None] * dx


def relu_grads(a, w, X, Y):
    """Per-sample gradients of ``l = ||a relu(w^T x) - y||^2`` w.r.t. ``(a, w)``: (b, n, d_y + d_x)."""
    z = np.sum(X * w[:, :, None], axis=1)                     # (b, n)
    h = z * (z > 0)                                           # relu, at any precision
    R = a[:, :, None] * h[:, None, :] - Y                     # (b, dy, n)
    ga = 2 * R * h[:, None, :]                                # (b, dy, n)
    s = np.sum(a[:, :, None] * R, axis=1) * (z > 0)           # (b, n)
    gw = 2 * X * s[:, None, :]                                # (b, dx, n)
    return np.concatenate([np.swapaxes(ga, 1, 2), np.swapaxes(gw, 1, 2)], axis=2)


def relu_losses(a, w, X, Y):
    """Per-sample losses of the ReLU neuron: (b, n)."""
    z = np.sum(X * w[:, :, None], axis=1)
    R = a[:, :, None] * (z * (z > 0))[:, None, :] - Y
    return np.sum(R * R, axis=1)
