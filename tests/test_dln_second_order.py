"""Second-order helpers of theorem_check.library.dln: HVPs and Hessians against finite differences,
mpmath agreement, Lanczos against the dense spectrum, aligned moments and weights."""

import mpmath as mp
import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from theorem_check import dln, sampling


def _net(seed, dims):
    rng = np.random.default_rng(seed)
    Ws = [rng.standard_normal((dims[i + 1], dims[i])) for i in range(len(dims) - 1)]
    Sxx = sampling.spd(rng, dims[0], cond=5.0)
    Syx = rng.standard_normal((dims[-1], dims[0]))
    return Ws, Sxx, Syx


def _grad_flat(theta, dims, Sxx, Syx, beta):
    return dln.flatten_weights(dln.population_gradients(dln.unflatten_weights(theta, dims), Sxx, Syx, beta=beta))


@given(sampling.seeds(), st.lists(st.integers(1, 3), min_size=2, max_size=4))
def test_hessian_matches_central_differences(seed, dims):
    Ws, Sxx, Syx = _net(seed, dims)
    H = dln.population_hessian([W[None] for W in Ws], Sxx[None], Syx[None], beta=0.3)[0]
    th, e = dln.flatten_weights(Ws), 1e-6
    I = np.eye(th.size)
    Hn = np.stack([(_grad_flat(th + e * I[i], dims, Sxx, Syx, 0.3) - _grad_flat(th - e * I[i], dims, Sxx, Syx, 0.3))
                   / (2 * e) for i in range(th.size)], axis=1)
    assert np.abs(H - Hn).max() <= 1e-6 * max(1.0, np.abs(H).max())


def test_hessian_runs_in_mpmath():
    Ws, Sxx, Syx = _net(3, [2, 3, 2])
    mp.mp.dps = 40
    to = np.vectorize(mp.mpf, otypes=[object])
    Hm = dln.population_hessian([to(W[None]) for W in Ws], to(Sxx[None]), to(Syx[None]), beta=mp.mpf("0.25"))[0]
    H = dln.population_hessian([W[None] for W in Ws], Sxx[None], Syx[None], beta=0.25)[0]
    assert np.abs(np.array(Hm, dtype=float) - H).max() < 1e-12 * np.abs(H).max()


def test_eigsh_matches_dense():
    Ws, Sxx, Syx = _net(5, [3, 4, 4, 2])
    H = dln.population_hessian([W[None] for W in Ws], Sxx[None], Syx[None], beta=0.1)[0]
    dense = np.linalg.eigvalsh(H)
    assert np.allclose(dln.hessian_eigsh(Ws, Sxx, Syx, beta=0.1, k=3, which="SA"), dense[:3], atol=1e-8)
    assert np.allclose(dln.hessian_eigsh(Ws, Sxx, Syx, beta=0.1, k=2, which="LA"), dense[-2:], atol=1e-8)


def test_aligned_weights_product_and_moments():
    rng = np.random.default_rng(0)
    R, L = sampling.orthogonal(rng, 3), sampling.orthogonal(rng, 2)
    Ws = dln.aligned_weights(np.array([1.3, 0.7]), [3, 4, 2], R=R, L=L)
    P = Ws[1] @ Ws[0]
    assert np.allclose(np.linalg.svd(P, compute_uv=False), [1.3**2, 0.7**2])
    Sxx, Syx = dln.aligned_moments(np.array([1.0, 2.0, 3.0]), np.array([0.5, 0.2]), R, L)
    assert np.allclose(L.T @ Syx @ R, np.array([[0.5, 0, 0], [0, 0.2, 0]]))
    assert np.allclose(R.T @ Sxx @ R, np.diag([1.0, 2.0, 3.0]))


def test_gradient_flow_decreases_loss():
    Ws, Sxx, Syx = _net(2, [2, 2, 2])
    t, traj, sol = dln.gradient_flow([0.1 * W for W in Ws], Sxx, Syx, beta=0.05, t_eval=[0.0, 1.0, 20.0])
    loss = [dln.population_loss([W[None] for W in Wt], Sxx[None], Syx[None], np.eye(2)[None], beta=0.05)[0]
            for Wt in traj]
    assert sol.status == 0 and loss[0] > loss[1] > loss[2]
