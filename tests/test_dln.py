"""Shared deep-linear-network math against plain references (finite differences, loops)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from theorem_check import dln, sampling
from theorem_check.library.dln import dln_dims

SPACE = dln_dims(depth=(1, 3), width=(1, 4), distinct=False)


def _net(seed, d, beta_on):
    rng = np.random.default_rng(seed)
    D = d["D"]
    shapes = [(d[f"d{i}"], d[f"d{i - 1}"]) for i in range(1, D + 1)]
    Ws = [rng.standard_normal((1,) + s) for s in shapes]
    dx, dy = d["d0"], d[f"d{D}"]
    MI = sampling.invertible(rng, dx, batch=1)
    MO = sampling.invertible(rng, dy, batch=1)
    Sxx = sampling.spd(rng, dx, batch=1)
    Syx = rng.standard_normal((1, dy, dx))
    return [d[f"d{i}"] for i in range(D + 1)], Ws, MI, MO, Sxx, Syx, (0.37 if beta_on else 0.0)


@settings(max_examples=25)
@given(seed=sampling.seeds(), d=SPACE.strategy(), beta_on=st.booleans())
def test_gradient_matches_finite_differences(seed, d, beta_on):
    dims, Ws, MI, MO, Sxx, Syx, beta = _net(seed, d, beta_on)
    Syy = np.eye(Syx.shape[1])[None]
    th = dln.flatten_weights(Ws)
    p, h = th.shape[1], 1e-6
    L = lambda t: dln.population_loss(dln.unflatten_weights(t, dims), Sxx, Syx, Syy, M_O=MO, M_I=MI, beta=beta)[0]
    g = dln.flatten_weights(dln.population_gradients(Ws, Sxx, Syx, M_O=MO, M_I=MI, beta=beta))[0]
    E = np.eye(p) * h
    gfd = np.array([(L(th + E[k]) - L(th - E[k])) / (2 * h) for k in range(p)])
    assert np.allclose(g, gfd, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(g).max()))


@settings(max_examples=25)
@given(seed=sampling.seeds(), d=SPACE.strategy(), beta_on=st.booleans())
def test_hessian_matches_gradient_differences(seed, d, beta_on):
    dims, Ws, MI, MO, Sxx, Syx, beta = _net(seed, d, beta_on)
    H = dln.population_hessian(Ws, Sxx, Syx, M_O=MO, M_I=MI, beta=beta)[0]
    th = dln.flatten_weights(Ws)
    p, h = th.shape[1], 1e-6
    grad = lambda t: dln.flatten_weights(dln.population_gradients(dln.unflatten_weights(t, dims), Sxx, Syx, M_O=MO, M_I=MI, beta=beta))[0]
    E = np.eye(p) * h
    Hfd = np.stack([(grad(th + E[k]) - grad(th - E[k])) / (2 * h) for k in range(p)], axis=1)
    assert np.allclose(H, Hfd, rtol=1e-5, atol=1e-5 * max(1.0, np.abs(H).max()))


@given(seed=sampling.seeds(), d=SPACE.strategy())
def test_per_sample_gradients_average_to_population(seed, d):
    rng = np.random.default_rng(seed)
    dims, Ws, MI, MO, _, _, _ = _net(seed, d, False)
    n = 5
    X = rng.standard_normal((1, d["d0"], n))
    Y = rng.standard_normal((1, d[f"d{d['D']}"], n))
    per = dln.per_sample_gradients(Ws, X, Y, M_O=MO, M_I=MI)
    pop = dln.population_gradients(Ws, X @ dln.T(X) / n, Y @ dln.T(X) / n, M_O=MO, M_I=MI)
    for a, b in zip(per, pop):
        assert np.allclose(a.mean(axis=1), b, atol=1e-10 * max(1.0, np.abs(b).max()))


def test_representations_and_product():
    rng = np.random.default_rng(0)
    Ws = [rng.standard_normal((2, 3, 2)), rng.standard_normal((2, 4, 3))]
    X = rng.standard_normal((2, 2, 5))
    hs = dln.representations(Ws, X)
    assert np.allclose(hs[-1], dln.product(Ws) @ X)
    assert np.allclose(dln.prefix_products(Ws)[2], Ws[1] @ Ws[0])
    assert np.allclose(dln.suffix_products(Ws)[0], Ws[1] @ Ws[0])
