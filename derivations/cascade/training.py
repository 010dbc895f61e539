"""Numerical experiments of the cascade claims: minimisation and gradient flow of the full network.

Everything here acts on one network (no batch axis) with weights ``[W_1, ..., W_n]`` and uses the
shared deep-linear-network code of :mod:`theorem_check.library.dln` (loss, gradients, exact Hessian,
``gradient_flow``).  The refinement levels (optimiser tolerance, integration time and ODE
tolerance) are chosen by the claims; these functions only compute.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from theorem_check import dln

__all__ = ["loss_and_grad", "minimize_network", "flow", "layer_svals", "product_svals", "random_init"]


def _dims(Ws) -> list[int]:
    return [Ws[0].shape[-1]] + [W.shape[-2] for W in Ws]


def loss_and_grad(theta, dims, Sigma_xx, Sigma_yx, beta):
    """Population loss (without ``tr Sigma_yy``) and its gradient at flattened weights ``theta``."""
    Ws = dln.unflatten_weights(theta, dims)
    P = dln.product(Ws)
    loss = np.trace(P @ Sigma_xx @ P.T) - 2 * np.trace(P @ Sigma_yx.T) + beta * sum(np.sum(W * W) for W in Ws)
    g = dln.flatten_weights(dln.population_gradients(Ws, Sigma_xx, Sigma_yx, beta=beta))
    return loss, g


def minimize_network(Ws0: Sequence[np.ndarray], Sigma_xx, Sigma_yx, beta: float, gtols: Sequence[float]):
    """Minimise the full loss from ``Ws0`` by trust-region Newton (exact Hessian), warm-started per level.

    Returns ``[(Ws, grad_norm) for each gtol]``: the weights reached when the gradient norm is
    below ``gtol`` (trust-exact escapes saddles through negative curvature).
    """
    from scipy.optimize import minimize  # here, not at import: `list` and `show` need no SciPy

    dims = _dims(Ws0)
    theta = dln.flatten_weights(list(Ws0))

    def hess(th, *_args):
        Ws = [W[None] for W in dln.unflatten_weights(th, dims)]
        return dln.population_hessian(Ws, Sigma_xx[None], Sigma_yx[None], beta=beta)[0]

    grad = lambda th: loss_and_grad(th, dims, Sigma_xx, Sigma_yx, beta)[1]
    out = []
    for g in gtols:
        res = minimize(loss_and_grad, theta, args=(dims, Sigma_xx, Sigma_yx, beta), jac=True, hess=hess,
                       method="trust-exact", options={"gtol": g, "maxiter": 5000})
        theta = res.x
        gn = float(np.linalg.norm(grad(theta)))
        for _ in range(30):
            # Newton polish on the gradient alone (the loss values no longer resolve the last digits near
            # the minimum); least squares handles the exact zero modes of the symmetry orbits.
            if gn <= g:
                break
            step = np.linalg.lstsq(hess(theta), -grad(theta), rcond=1e-10)[0]
            new_gn = float(np.linalg.norm(grad(theta + step)))
            if not new_gn < gn:
                break
            theta, gn = theta + step, new_gn
        out.append((dln.unflatten_weights(theta, dims), gn))
    return out


def flow(Ws0, Sigma_xx, Sigma_yx, beta, t_eval, *, rtol=1e-9, atol=1e-12, method="LSODA"):
    """Gradient flow of the full network (:func:`theorem_check.library.dln.gradient_flow`); returns ``(t, traj)``.

    ``LSODA`` with the exact Jacobian switches to implicit steps when the flow slows down (near a
    transition), which keeps long integrations cheap.
    """
    t, traj, sol = dln.gradient_flow(list(Ws0), Sigma_xx, Sigma_yx, beta=beta, t_eval=t_eval, method=method,
                                     rtol=rtol, atol=atol)
    if sol.status != 0:
        raise RuntimeError(f"gradient flow failed: {sol.message}")
    return t, traj


def layer_svals(W: np.ndarray) -> np.ndarray:
    """Singular values of one layer, descending."""
    return np.linalg.svd(W, compute_uv=False)


def product_svals(Ws: Sequence[np.ndarray]) -> np.ndarray:
    """Singular values of the end-to-end map ``W_n ... W_1`` (the macrostate), descending."""
    return np.linalg.svd(dln.product(list(Ws)), compute_uv=False)


def random_init(rng: np.random.Generator, dims: Sequence[int], scale: float) -> list[np.ndarray]:
    """Gaussian weights with entries of standard deviation ``scale``."""
    return [scale * rng.standard_normal((dims[i + 1], dims[i])) for i in range(len(dims) - 1)]
