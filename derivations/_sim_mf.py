"""Simulator of two-layer linear networks (matrix factorisation) trained by online SGD or GD.

Model and loss (noise paper, eq. 12 with gamma = 0): ``l = ||U W x - y||^2`` with
``W: (d, d0)``, ``U: (d2, d)``, Gaussian inputs ``x ~ N(0, diag(sx))``, labels
``y = V x + eps``, ``eps ~ N(0, diag(se))`` independent of ``x``.  SGD draws a fresh minibatch of
``S`` samples each step (online SGD: the population is the data distribution) and steps on the
minibatch mean of ``l``; GD steps on the exact population gradient.

The noise-equilibrium quantities of Theorem 5.2 are computed in closed form from Gaussian
moments (Isserlis), never by Monte Carlo.  With ``E = U W - V``:

* ``Gamma_W = E[||r||^2 x x^T] = tr(E^T E Sx) Sx + 2 Sx E^T E Sx + tr(Se) Sx``,
* ``Gamma_U = E[||x||^2 r r^T] = E (tr(Sx) Sx + 2 Sx^2) E^T + tr(Sx) Se``,

and the balance of Theorem 5.2 compares ``A = W Gamma_W W^T`` with ``B = U^T Gamma_U U`` (both
``d x d``).  Every array has the replicas on axis 0.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .simulation import Progress

__all__ = ["MFProblem", "gammas", "balance_terms", "output_balance_terms", "population_gradients", "run_mf"]


def _T(a):
    return np.swapaxes(a, -1, -2)


@dataclass(frozen=True)
class MFProblem:
    """A matrix-factorisation task: diagonal input/noise covariances and a teacher ``V`` (d2 x d0).

    ``sx`` has shape ``(d0,)``; ``se`` has shape ``(d2,)`` or ``(R, d2)`` (one noise covariance
    per replica, as in Figure 2 where each point is a run with its own ``Sigma_eps``).
    """

    sx: np.ndarray
    se: np.ndarray
    V: np.ndarray

    @property
    def d0(self) -> int:
        return len(self.sx)

    @property
    def d2(self) -> int:
        return np.shape(self.se)[-1]


def gammas(prob: MFProblem, U: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(Gamma_W, Gamma_U)`` of Theorem 5.2 (gamma = 0), shapes ``(R, d0, d0)`` and ``(R, d2, d2)``."""
    E = U @ W - prob.V
    sx = prob.sx
    se = np.broadcast_to(prob.se, (U.shape[0], prob.d2))
    EtE = _T(E) @ E
    tr = np.einsum("rii,i->r", EtE, sx)
    GW = (tr + se.sum(axis=-1))[:, None, None] * np.diag(sx) + 2 * sx[:, None] * EtE * sx[None, :]
    GU = (E * (sx.sum() * sx + 2 * sx ** 2)[None, None, :]) @ _T(E) + sx.sum() * (se[:, :, None] * np.eye(prob.d2))
    return GW, GU


def balance_terms(prob: MFProblem, U: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``A = W Gamma_W W^T`` and ``B = U^T Gamma_U U`` (each ``(R, d, d)``): Theorem 5.2 says A = B."""
    GW, GU = gammas(prob, U, W)
    return W @ GW @ _T(W), _T(U) @ GU @ U


def output_balance_terms(prob: MFProblem, U: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``U A U^T = P Gamma_W P^T`` and ``U B U^T = G Gamma_U G`` with ``P = U W``, ``G = U U^T`` (each ``d2 x d2``).

    The balance ``A = B`` of Theorem 5.2 mapped to output space: necessary, and sufficient on the
    range of ``U^T``; used for wide networks (width 2000) where the ``d x d`` matrices are costly.
    """
    GW, GU = gammas(prob, U, W)
    P = U @ W
    G = U @ _T(U)
    return P @ GW @ _T(P), G @ GU @ G


def population_gradients(prob: MFProblem, U, W):
    """Exact gradients of ``L = E l``: ``G_U = 2 E Sx W^T``, ``G_W = 2 U^T E Sx`` with ``E = UW - V``."""
    ES = (U @ W - prob.V) * prob.sx[None, None, :]
    return 2 * ES @ _T(W), 2 * _T(U) @ ES


def run_mf(rng: np.random.Generator, prob: MFProblem, U: np.ndarray, W: np.ndarray, *, eta: float, S: int,
           steps: int, burn: int, every: int = 10, gd: bool = False, progress: Progress | None = None,
           done0: float = 0.0, observe=None) -> dict:
    """Train ``steps`` steps from ``(U, W)`` (copied); average observables over the last ``steps - burn``.

    ``observe(U, W) -> dict of arrays (R, ...)`` with at least keys ``A`` and ``B`` is evaluated every
    ``every`` steps after ``burn`` (default: the balance terms ``A``, ``B`` of :func:`balance_terms`); the returned dict holds, per observable, the
    averages over the first and the second half of the window (``"<name>_1"``, ``"<name>_2"``)
    and over all of it (``"<name>"``), the end state ``U``, ``W`` and a thinned history of the
    relative imbalance ``||A - B|| / ||A||`` (replica mean) for figures.
    """
    U, W = U.copy(), W.copy()
    R = U.shape[0]
    observe = observe or (lambda U, W: dict(zip("AB", balance_terms(prob, U, W))))
    sqrt_sx = np.sqrt(prob.sx)
    sqrt_se = np.broadcast_to(np.sqrt(prob.se), (R, prob.d2))
    sums: dict[str, list] = {}
    n_half = [0, 0]
    half_at = burn + (steps - burn) // 2
    hist_t, hist_v = [], []
    hist_every = max(every, steps // 200)
    for t in range(steps):
        if gd:
            gU, gW = population_gradients(prob, U, W)
        else:
            X = rng.standard_normal((R, prob.d0, S)) * sqrt_sx[None, :, None]
            Y = prob.V @ X + rng.standard_normal((R, prob.d2, S)) * sqrt_se[:, :, None]
            H = W @ X
            Rr = U @ H - Y
            gU = (2.0 / S) * Rr @ _T(H)
            gW = (2.0 / S) * _T(U) @ Rr @ _T(X)
        U -= eta * gU
        W -= eta * gW
        if t % hist_every == 0:
            obs = observe(U, W)
            A, B = obs["A"], obs["B"]
            hist_t.append(t)
            hist_v.append(float(np.mean(np.linalg.norm(A - B, axis=(1, 2)) / np.linalg.norm(A, axis=(1, 2)))))
        if t >= burn and (t - burn) % every == 0:
            h = 0 if t < half_at else 1
            n_half[h] += 1
            for k, v in observe(U, W).items():
                sums.setdefault(k, [0.0, 0.0])
                sums[k][h] = sums[k][h] + v
        if progress is not None and t % 200 == 0:
            progress.update(done0 + t)
    if not np.all(np.isfinite(U)) or not np.all(np.isfinite(W)):
        raise FloatingPointError(f"training diverged at eta={eta}")
    out: dict = {"U": U, "W": W, "hist_t": hist_t, "hist_v": hist_v}
    for k, (s1, s2) in sums.items():
        out[f"{k}_1"] = s1 / max(n_half[0], 1)
        out[f"{k}_2"] = s2 / max(n_half[1], 1)
        out[k] = (s1 + s2) / max(sum(n_half), 1)
    return out
