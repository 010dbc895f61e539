"""Claims of "Parameter Symmetry and Noise Equilibrium of Stochastic Gradient Descent" (``noise.*``).

Sections 3-4 (symmetry, Noether flow, exponential symmetries, Theorem 4.3) live here;
Section 5 and Appendices C-E in :mod:`derivations._noise_sec5`, the convergence lemmas of
Appendix B.3 and the discrete-time Theorem D.1 in :mod:`derivations._noise_appendix`.

Every constant is derived from the paper's own conventions: the SDE of eq. 1 with
``sigma^2 = eta/(2S)``, the loss of eq. 12 without a factor 1/2, ``Sigma`` the covariance of
per-sample gradients.  Left-hand sides are computed from definitions: per-sample gradients on a
finite data set, and the drift of a charge under discrete SGD by enumerating every minibatch
(``_noise_models.sgd_noise_drift``); right-hand sides are the printed formulas.  The notes and
errata are in ``docs/papers/noise.md``.
"""

from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.optimize import brentq

import theorem_check as tc
from theorem_check import sampling

from . import _noise_models as M
from ._noise_common import (ETA, GAMMA, MF_DIMS, S_BATCH, boolean, claim, control, exp_A, mf, mf_absA, mf_eig, mf_nu,
                            refine, sample_mf, variant)

S = S_BATCH


def _sigma2(inst):
    return inst.eta / (2 * S)


# ==============================================================================================
# eq. 2 / eq. 10: the example symmetries leave the per-sample loss unchanged
# ==============================================================================================
RELU_DIMS = tc.DimSpace({"dx": (1, 3), "dy": (1, 3), "n": (2, 5)})


def sample_relu(rng, d, batch):
    """A ReLU neuron ``a relu(w^T x)``: ``a (dy,)``, ``w (dx,)``, data, ``rho > -1``."""
    return {"a": rng.standard_normal((batch, d["dy"])), "w": rng.standard_normal((batch, d["dx"])),
            "X": sampling.gaussian(rng, d["dx"], d["n"], batch=batch),
            "Y": sampling.gaussian(rng, d["dy"], d["n"], batch=batch),
            "rho": rng.uniform(-0.6, 2.0, size=batch)}


def _relu_rescaled(inst, ctx):
    f = (1 + inst.rho)[:, None]
    return M.relu_losses(inst.a * f, inst.w / f, inst.X, inst.Y)


_eq2 = tc.Statement(
    r"\ell(\theta,z)=\ell(Q_\rho(\theta),z),\ Q_\rho(a,b)=(a(\rho+1),b/(\rho+1))",
    dims=RELU_DIMS, sample=sample_relu, lhs=lambda i, c: M.relu_losses(i.a, i.w, i.X, i.Y), rhs=_relu_rescaled,
    note=r"ReLU neuron a relu$(w^{\top} x)$, per-sample loss $\lVert\cdot\rVert^{2}$; $\rho > -1$.")
claim("eq2", r"Rescaling $Q_{\rho}(a,b) = (a(1+\rho), b/(1+\rho))$ leaves the per-sample loss of a ReLU neuron unchanged",
      "3", "(2)", r"\ell(\theta,z)=\ell(Q_{\rho}(\theta),z),\forall\rho\in\mathbb{R}", _eq2,
      controls=[control(_eq2, "a and b both scaled by 1+rho",
                        rhs=lambda i, c: M.relu_losses(i.a * (1 + i.rho)[:, None], i.w * (1 + i.rho)[:, None], i.X, i.Y))],
      assumptions=("rho > -1 (the printed 'for all rho' needs 1+rho > 0 for ReLU)",))


def _mf_G(inst, ctx):
    return M.mf_losses(inst.U @ inst.Ginv_free, ctx.inv(inst.Ginv_free) @ inst.W, inst.X, inst.Y)


def sample_mf_G(rng, d, batch):
    out = sample_mf(rng, d, batch)
    out["Ginv_free"] = sampling.invertible(rng, d["d"], cond=10.0, batch=batch)
    return out


_eq10 = tc.Statement(r"\ell(U,W)=\ell(UG,G^{-1}W)", dims=MF_DIMS, sample=sample_mf_G,
                     lhs=lambda i, c: M.mf_losses(i.U, i.W, i.X, i.Y), rhs=_mf_G, cond=1e3)
claim("eq10", "Double rotation: $l$(UG, $G^{-1}W$)= $l(U, W)$ for every invertible $G$", "5.1", "(10)",
      r"\ell(U,W,\theta')=\ell(UA,A^{-1}W,\theta')", _eq10,
      controls=[control(_eq10, "G applied on both sides",
                        rhs=lambda i, c: M.mf_losses(i.U @ i.Ginv_free, i.Ginv_free @ i.W, i.X, i.Y))])


# ==============================================================================================
# eq. 3 and the three example generators A (Sec. 4.2)
# ==============================================================================================
def _dot_scale(G, J):
    """(b, n) dot products and their scale ||g|| ||J||."""
    dots = np.sum(G * J[:, None, :], axis=-1)
    gn = np.sum(G * G, axis=-1)
    jn = np.sum(J * J, axis=-1)[:, None]
    return dots, gn * jn


def _relu_A_theta(inst, sign_b=-1):
    return np.concatenate([inst.a, sign_b * inst.w], axis=1)


def _relu_lhs(inst, ctx, sign_b=-1):
    G = M.relu_grads(inst.a, inst.w, inst.X, inst.Y)
    return np.sum(G * _relu_A_theta(inst, sign_b)[:, None, :], axis=-1)


def _relu_scale(inst, ctx):
    G = M.relu_grads(inst.a, inst.w, inst.X, inst.Y)
    J = _relu_A_theta(inst)
    return ctx.sqrt(np.sum(np.sum(G * G, axis=-1), axis=-1) * np.sum(J * J, axis=-1))


_ex_rescaling = tc.Statement(
    r"A=\mathrm{diag}(I_a,-I_b):\ \nabla_\theta\ell(\theta,z)\cdot A\theta=0",
    dims=RELU_DIMS, sample=sample_relu, lhs=_relu_lhs, rhs=lambda i, c: _relu_lhs(i, c) * 0, scale=_relu_scale)
claim("ex_rescaling", r"Rescaling symmetry has generator $A = \operatorname{diag}(I_{a}, -I_{b})$: $\nabla l \cdot A \theta = 0$ per sample",
      "4.2", "rescaling example", r"A=\mathrm{diag}(I_{a},-I_{b})", _ex_rescaling,
      controls=[control(_ex_rescaling, "A = I", lhs=lambda i, c: _relu_lhs(i, c, sign_b=+1))])

SI_DIMS = tc.DimSpace({"p": (2, 4), "n": (2, 5)})


def sample_si(rng, d, batch):
    """Scale-invariant model ``l = (x^T theta/||theta|| - y)^2``: ``theta (p,)``, ``X (p, n)``, ``y (n,)``."""
    return {"th": rng.standard_normal((batch, d["p"])) + 0.5,
            "X": sampling.gaussian(rng, d["p"], d["n"], batch=batch),
            "y": rng.standard_normal((batch, d["n"])),
            "rho": rng.uniform(-0.6, 2.0, size=batch), "eta": ETA}


def _si_lhs(inst, ctx, J=None):
    G = M.scale_inv_grads(inst.th, inst.X, inst.y, ctx)
    J = inst.th if J is None else J
    return np.sum(G * J[:, None, :], axis=-1)


def _si_scale(inst, ctx):
    G = M.scale_inv_grads(inst.th, inst.X, inst.y, ctx)
    return ctx.sqrt(np.sum(np.sum(G * G, axis=-1), axis=-1) * np.sum(inst.th * inst.th, axis=-1))


_ex_scaling = tc.Statement(r"A=I:\ \nabla_\theta\ell(\theta,z)\cdot\theta=0", dims=SI_DIMS, sample=sample_si,
                           lhs=_si_lhs, rhs=lambda i, c: _si_lhs(i, c) * 0, scale=_si_scale)


def _first_coord_only(th):
    J = th * 0
    J[:, 0] = th[:, 0]
    return J


claim("ex_scaling", "Scaling symmetry (normalised model) has generator A = I", "4.2", "scaling example",
      r"Q_\rho\theta=(\rho+1)\theta,\quad A=I", _ex_scaling,
      controls=[control(_ex_scaling, r"$A = e_{1} e_{1}^{\top}$", lhs=lambda i, c: _si_lhs(i, c, _first_coord_only(i.th)))])


def _dr_lhs(inst, ctx, printed_inverse=False):
    p = mf(inst, ctx)
    A = M.mf_A(p.B, p.dy, p.dx, ctx, printed_inverse=printed_inverse)
    J = (A @ p.th[:, :, None])[..., 0]
    return np.sum(p.G * J[:, None, :], axis=-1)


def _dr_scale(inst, ctx):
    p = mf(inst, ctx)
    J = (p.A @ p.th[:, :, None])[..., 0]
    return ctx.sqrt(np.sum(np.sum(p.G * p.G, axis=-1), axis=-1) * np.sum(J * J, axis=-1))


DR_DIMS = tc.DimSpace({"dx": (1, 3), "d": (1, 3), "dy": (1, 3), "n": (2, 4)})


def _dr_group(inst, ctx, general=False, w_block="inverse"):
    """Per-sample losses after the printed block-diagonal transformation ``diag(B, ..., B, B^{-1}, ..., B^{-1})``.

    The transformation acts on ``theta = (u~_1, ..., u~_{d_y}, w~_1, ..., w~_{d_x})`` (rows of ``U``, columns
    of ``W``, the layout of Prop. 5.1): ``u~_i -> B u~_i``, ``w~_j -> B^{-1} w~_j``.  ``B`` is the group element
    ``e^{lambda B_0}`` of a symmetric generator ``B_0 = Q diag(mu) Q^T`` (``general=False``) or an arbitrary
    invertible matrix (``general=True``, the sentence's "arbitrary invertible matrix B").  ``w_block='same'``
    puts ``B`` in the W blocks too (negative control).  Returns ``(b, n)``.
    """
    p = mf(inst, ctx)
    Bg = inst.Ginv_free if general else M.sym(p.Q, ctx.exp(inst.mu * inst.lam[:, None]))
    Bw = Bg if w_block == "same" else ctx.inv(Bg)
    U2 = M.T(Bg @ M.T(p.U))                      # rows u~_i -> B u~_i
    W2 = Bw @ p.W                                # columns w~_j -> B^{-1} w~_j
    return M.mf_losses(U2, W2, inst.X, inst.Y)


_ex_dr = tc.Statement(
    r"\ell(\theta)=\ell(T\theta),\ T=\mathrm{diag}(B,\dots,B,B^{-1},\dots,B^{-1}),\ B=e^{\lambda B_0}",
    dims=DR_DIMS, sample=sample_mf_G, lhs=lambda i, c: M.mf_losses(i.U, i.W, i.X, i.Y), rhs=_dr_group, cond=1e3,
    note="the printed matrix read as the transformation (group element) acting on (rows of $U$, columns of "
         r"$W$); $B = e^{\lambda B_{0}}$, $B_{0}$ symmetric (an exponential symmetry has a symmetric generator, Def. 4.1)")
claim("ex_double_rotation", r"Double rotation: the exponential transformation is $\operatorname{diag}(B, \dots, B^{-1}, \dots)$ on (rows of $U$, columns of $W$)",
      "4.2", "double rotation example", r"\mathrm{diag}(B,...,B,B^{-1},...,B^{-1})", _ex_dr,
      variants=[variant(_ex_dr, r"reading: $B$ an arbitrary invertible (non-symmetric) matrix: the $U$ blocks need $B^{\top}$",
                        kind="reading", rhs=lambda i, c: _dr_group(i, c, general=True)),
                variant(_ex_dr, r"reading: the printed matrix as the generator $A (\nabla l \cdot A \theta = 0)$", kind="reading",
                        sample=sample_mf, latex=r"A=\mathrm{diag}(B,\dots,B,B^{-1},\dots,B^{-1}):\ \nabla_\theta\ell\cdot A\theta=0",
                        lhs=lambda i, c: _dr_lhs(i, c, printed_inverse=True),
                        rhs=lambda i, c: _dr_lhs(i, c, True) * 0, scale=_dr_scale),
                variant(_ex_dr, r"reading: its generator $A = \operatorname{diag}(I (x) B_{0}, -(B_{0} (x) I)) (\nabla l \cdot A \theta = 0)$",
                        kind="reading", sample=sample_mf,
                        latex=r"A=\mathrm{diag}(I_{d_y}\otimes B_0,\,-B_0\otimes I_{d_x}):\ \nabla_\theta\ell\cdot A\theta=0",
                        lhs=_dr_lhs, rhs=lambda i, c: _dr_lhs(i, c) * 0, scale=_dr_scale)],
      controls=[control(_ex_dr, "B in the W blocks too", rhs=lambda i, c: _dr_group(i, c, w_block="same"))],
      assumptions=(r"$B = e^{\lambda B_{0}}$ with $B_{0}$ symmetric; $\theta$ = (rows of $U$, columns of $W$) as in Prop. 5.1",))


# eq. 3 on deep linear networks: every neighbouring pair (W_{i+1}, W_i) has the double rotation
DLN3_DIMS = tc.dln_dims(depth=(2, 4), width=(1, 3), distinct=False, extra={"n": (2, 4), "pair": (1, 3)})


def sample_dln_pair(rng, d, batch):
    D = d["D"]
    ws = [d[f"d{i}"] for i in range(D + 1)]
    i = min(d["pair"], D - 1)
    return {"Ws": [sampling.gaussian(rng, ws[k + 1], ws[k], batch=batch) for k in range(D)],
            "X": sampling.gaussian(rng, ws[0], d["n"], batch=batch),
            "Y": sampling.gaussian(rng, ws[D], d["n"], batch=batch),
            "Bp": sampling.symmetric(rng, ws[i], batch=batch), "pair": i}


def _dln_J(inst, sign=-1):
    """J = dQ_rho/drho at 0 for W_i -> e^{rho B} W_i, W_{i+1} -> W_{i+1} e^{-rho B}: (B W_i, -W_{i+1} B)."""
    i = inst.pair
    J = [W * 0 for W in inst.Ws]
    J[i - 1] = inst.Bp @ inst.Ws[i - 1]
    J[i] = sign * (inst.Ws[i] @ inst.Bp)
    return J


def _dln_dots(inst, ctx, sign=-1):
    gs = M.dln.per_sample_gradients(inst.Ws, inst.X, inst.Y)
    J = _dln_J(inst, sign)
    return sum(np.sum((g * j[:, None]).reshape(g.shape[0], g.shape[1], -1), axis=-1) for g, j in zip(gs, J))


def _dln_dot_scale(inst, ctx):
    gs = M.dln.per_sample_gradients(inst.Ws, inst.X, inst.Y)
    g2 = sum(np.sum(g.reshape(g.shape[0], -1) ** 2, axis=-1) for g in gs)
    j2 = sum(np.sum(j.reshape(j.shape[0], -1) ** 2, axis=-1) for j in _dln_J(inst))
    return ctx.sqrt(g2 * j2)


_eq3 = tc.Statement(r"0=\nabla_\theta\ell(\theta,z)\cdot J(\theta)", dims=DLN3_DIMS, sample=sample_dln_pair,
                    lhs=_dln_dots, rhs=lambda i, c: _dln_dots(i, c) * 0, scale=_dln_dot_scale,
                    note=r"Deep linear net, pair $(W_{i+1}, W_{i})$, $Q_{\rho} = (W_{i+1} e^{-\rho B}, e^{\rho B} W_{i})$.")
claim("eq3", "A continuous symmetry makes every per-sample gradient orthogonal to J = dQ/drho", "4", "(3)",
      r"0=\nabla_{\theta}\ell(\theta,z)\cdot J(\theta)", _eq3,
      controls=[control(_eq3, "$J$ with the $W_{i+1}$ block's sign flipped", lhs=lambda i, c: _dln_dots(i, c, +1))])


# ==============================================================================================
# eq. 4 / 28: conservation under gradient flow; eq. 29-30: grad C is in the kernel of Sigma
# ==============================================================================================
def _flow(inst, ctx, A=None):
    p = mf(inst, ctx)
    return M.flow_drift(p.th, p.G, p.A if A is None else A)


def _flow_scale(inst, ctx):
    p = mf(inst, ctx)
    gc = 2 * (p.A @ p.th[:, :, None])[..., 0]
    gl = M.mean_grad(p.G)
    return ctx.sqrt(np.sum(gc * gc, -1) * np.sum(gl * gl, -1))


def _A_plus(inst, ctx):
    p = mf(inst, ctx)
    b = p.B.shape[0]
    return M.blockdiag(M.kron(np.repeat(M.eye(p.dy, ctx), b, 0), p.B), M.kron(p.B, np.repeat(M.eye(p.dx, ctx), b, 0)))


_eq4 = tc.Statement(r"\dot C(\theta_t)=-\nabla C\cdot\nabla L=0", dims=MF_DIMS, sample=sample_mf,
                    lhs=_flow, rhs=lambda i, c: _flow(i, c) * 0, scale=_flow_scale)
claim("eq4", r"The Noether charge $C = \theta^{\top} A \theta$ is conserved by gradient flow (eqs. 4, 28)", "4", "(4)",
      r"\dot{C}(\theta_{t})=0", _eq4, aliases=("eq28",),
      controls=[control(_eq4, r"charge $\operatorname{Tr}[U B U^{\top}] + \operatorname{Tr}[W^{\top} B W]$", lhs=lambda i, c: _flow(i, c, _A_plus(i, c)))])


def _kerSigma(inst, ctx, A=None):
    p = mf(inst, ctx)
    A = p.A if A is None else A
    gc = 2 * (A @ p.th[:, :, None])[..., 0]
    return (gc[:, None, :] @ M.covariance(p.G))[:, 0, :]


def _kerSigma_scale(inst, ctx):
    p = mf(inst, ctx)
    gc = 2 * (p.A @ p.th[:, :, None])[..., 0]
    Sg = M.covariance(p.G)
    return ctx.sqrt(np.sum(gc * gc, -1) * np.sum((Sg * Sg).reshape(Sg.shape[0], -1), -1))


_eq29 = tc.Statement(r"\nabla^\top C\,\Sigma=0", dims=MF_DIMS, sample=sample_mf, lhs=_kerSigma,
                     rhs=lambda i, c: _kerSigma(i, c) * 0, scale=_kerSigma_scale)
claim("eq29", r"$\nabla C$ is in the kernel of the noise covariance (eq. 29)", "Appendix B.1", "(29)",
      r"\nabla^{\top}C\Sigma=\mathbb{E}[\nabla^{\top}C\nabla\ell\nabla^{\top}\ell]-\mathbb{E}[\nabla^{\top}C\nabla\ell]\mathbb{E}[\nabla^{\top}\ell]=0",
      _eq29, controls=[control(_eq29, "charge with +B on W", lhs=lambda i, c: _kerSigma(i, c, _A_plus(i, c)))])


def _sqrtm_psd(Sg):
    w, V = np.linalg.eigh(Sg)
    return (V * np.sqrt(np.clip(w, 0, None))[..., None, :]) @ np.swapaxes(V, -1, -2)


def _ker_sqrt(inst, ctx, A=None):
    """``||grad C^T sqrt(Sigma)||^2`` with the PSD root by eigh (its square falls with eps, the root with sqrt eps)."""
    p = mf(inst, ctx)
    A = p.A if A is None else A
    gc = 2 * (A @ p.th[:, :, None])[..., 0]
    v = (gc[:, None, :] @ _sqrtm_psd(M.covariance(p.G)))[:, 0, :]
    return np.sum(v * v, axis=-1)


def _ker_sqrt_scale(inst, ctx):
    p = mf(inst, ctx)
    gc = 2 * (p.A @ p.th[:, :, None])[..., 0]
    Sg = M.covariance(p.G)
    return np.sum(gc * gc, -1) * np.trace(Sg, axis1=-2, axis2=-1)


_eq30 = tc.Statement(r"\|\nabla^\top C\sqrt{\sigma^2\Sigma}\|^2=0", dims=MF_DIMS, sample=sample_mf, lhs=_ker_sqrt,
                     rhs=lambda i, c: _ker_sqrt(i, c) * 0, scale=_ker_sqrt_scale, contexts=("float32", "float64"),
                     note="PSD square root by eigh (float32/float64 only); the squared norm is compared with "
                          r"$\lVert \nabla C\rVert ^{2} \operatorname{Tr} \Sigma$, so a null direction of $\Sigma$ rounded to $\varepsilon$ contributes $\varepsilon$.")
claim("eq30", r"$\nabla C$ annihilates $\sqrt{\Sigma}$, so the charge has no diffusion term (eq. 30)", "Appendix B.1", "(30)",
      r"\nabla^{\top}C\sqrt{\sigma^{2}\Sigma(\theta)}=0", _eq30,
      controls=[control(_eq30, "charge with +B on W", lhs=lambda i, c: _ker_sqrt(i, c, _A_plus(i, c)))])


# ==============================================================================================
# eq. 5 (Noether flow), eq. 31 (the appendix's version), discrete SGD as the reference
# ==============================================================================================
def _sgd_drift(inst, ctx, replace=True):
    p = mf(inst, ctx)
    return M.flow_drift(p.th, p.G, p.A) + M.sgd_noise_drift(p.th, p.G, p.A, inst.eta, S, replace=replace)


def _ito_rhs(inst, ctx, factor=1):
    """``factor * sigma^2 Tr[Sigma Hess C]`` with ``Hess C = 2A`` (C = theta^T A theta), sigma^2 = eta/(2S)."""
    p = mf(inst, ctx)
    return factor * M.ito_noise_drift(p.G, 2 * p.A, _sigma2(inst))


def _eq5_derivation():
    s2, Sg, h, eta, Sb = sp.symbols("sigma2 Sigma h eta S", positive=True)
    G = sp.sqrt(2 * s2 * Sg)
    return tc.Derivation([
        tc.Step(sp.Rational(1, 2) * G * h * G, s2 * Sg * h, r"Ito: $(1/2) G^{\top} (\operatorname{Hess} C) G$ with $G G^{\top} = 2 \sigma^{2} \Sigma$"),
        tc.Step(eta ** 2 * Sg * h / (2 * Sb), eta * (eta / (2 * Sb)) * Sg * h,
                r"discrete SGD: $\mathbb{E}[C(\theta'_{\mathrm{SGD}})] - C(\theta'_{\mathrm{GD}}) = \eta^{2} \operatorname{Tr}[\operatorname{Cov}(g_{B}) \operatorname{Hess} C]/2 = \eta \sigma^{2} \operatorname{Tr}[\Sigma \operatorname{Hess} C]$"),
    ], general=False, sizes="one parameter ($P = 1$); matrices: numeric stage")


_eq5 = tc.Statement(
    r"\dot C(\theta_t)=\sigma^2\mathrm{Tr}[\Sigma(\theta_t)\nabla^2C(\theta_t)],\ \sigma^2=\eta/(2S)",
    dims=MF_DIMS, sample=sample_mf, lhs=_sgd_drift, rhs=_ito_rhs, derivation=_eq5_derivation,
    note="LHS: exact enumeration of all $n^{S}$ minibatches (with replacement) of one SGD "
         r"step, $(E C(\theta') - C(\theta))/\eta$ minus the $O(\eta)$ GD term; $C = \theta^{\top} A \theta$ for the double rotation.")
claim("eq5", r"Noether flow: $\mathrm{d}C/\mathrm{d}t = \sigma^{2} \operatorname{Tr}[\Sigma \operatorname{Hess} C]$, checked against exact minibatch expectations of SGD",
      "4.1", "(5)", r"\dot{C}(\theta_{t})=\sigma^{2}{\rm Tr}\left[\Sigma(\theta_{t})\nabla^{2}C(\theta_{t})\right]", _eq5,
      variants=[variant(_eq5, r"reading: minibatches without replacement, $\sigma^{2} = \eta (n-S)/(2S(n-1))$", kind="reading",
                        lhs=lambda i, c: _sgd_drift(i, c, replace=False),
                        rhs=lambda i, c: _ito_rhs(i, c) * (i.X.shape[-1] - S) / (i.X.shape[-1] - 1))],
      controls=[tc.double(_eq5), tc.negate(_eq5),
                control(_eq5, "without replacement, no finite-population factor",
                        lhs=lambda i, c: _sgd_drift(i, c, replace=False))],
      assumptions=(r"SGD step $\theta' = \theta - \eta g_{B}$, $|B| = S = 2$, $\eta = 0.5$, minibatches i.i.d. uniform",
                   r"$C = \theta^{\top} A \theta$, A the double-rotation generator of a random symmetric $B$"))


def _eq31_derivation():
    s2, Sg, h = sp.symbols("sigma2 Sigma h", positive=True)
    return tc.Derivation([
        tc.Step(sp.Rational(1, 2) * sp.sqrt(2 * s2 * Sg) ** 2 * h, s2 * Sg * h, "Ito term under eq. (1)"),
        tc.Step(s2 * Sg * h, s2 / 2 * Sg * h, r"printed eq. (31): $\sigma^{2}/2 \operatorname{Tr}[\Sigma \operatorname{Hess} C]$"),
    ], general=True)


_eq31 = tc.Statement(r"dC=\frac{\sigma^2}{2}\mathrm{Tr}[\Sigma(\theta)\nabla^2C]dt", dims=MF_DIMS, sample=sample_mf,
                     lhs=_sgd_drift, rhs=lambda i, c: _ito_rhs(i, c, 0.5), derivation=_eq31_derivation)
claim("eq31", r"Appendix Ito computation $\mathrm{d}C = \sigma^{2}/2 \operatorname{Tr}[\Sigma \operatorname{Hess} C] \mathrm{d}t$ (eqs. 27, 31)", "Appendix B.1", "(31)",
      r"dC=\frac{\sigma^{2}}{2}{\rm Tr}[\Sigma(\theta)\nabla^{2}C]dt", _eq31, aliases=("eq27",),
      variants=[variant(_eq31, r"corrected: $\sigma^{2} \operatorname{Tr}[\Sigma \operatorname{Hess} C]$ (eq. 5; $G = \sqrt{2 \sigma^{2} \Sigma}$ of eq. 1)",
                        latex=r"dC=\sigma^2\mathrm{Tr}[\Sigma\nabla^2C]dt", rhs=_ito_rhs, derivation=_eq5_derivation),
                variant(_eq31, r"reading: appendix noise $G = \sqrt{\sigma^{2} \Sigma}$, i.e. $\sigma^{2} = \eta/S$", kind="reading",
                        latex=r"dC=\frac{\sigma^2}{2}\mathrm{Tr}[\Sigma\nabla^2C]dt,\ \sigma^2=\eta/S",
                        rhs=lambda i, c: _ito_rhs(i, c, 1.0))],
      controls=[tc.negate(_eq31)],
      assumptions=(r"eq. 27 uses $G_{t} = \sqrt{\sigma^{2} \Sigma}$, while eq. 1 has $\sqrt{2 \sigma^{2} \Sigma}$",))


# ==============================================================================================
# eq. 6: C = theta^T A theta as "antiderivative of J"
# ==============================================================================================
def _grad_by_differences(Cfun, th):
    """Exact gradient of a quadratic ``Cfun`` by unit central differences: (b, P)."""
    P = th.shape[1]
    cols = []
    for k in range(P):
        e = th * 0
        e[:, k] = e[:, k] + 1
        cols.append((Cfun(th + e) - Cfun(th - e)) / 2)
    return np.stack(cols, axis=1)


def _eq6_lhs(inst, ctx, half=False):
    p = mf(inst, ctx)
    f = (lambda t: M.quad(t, p.A) / 2) if half else (lambda t: M.quad(t, p.A))
    return _grad_by_differences(f, p.th)


def _Atheta(inst, ctx):
    p = mf(inst, ctx)
    return (p.A @ p.th[:, :, None])[..., 0]


def _eq6_derivation(half):
    a, b, c, t1, t2 = sp.symbols("a b c theta1 theta2", real=True)
    A = sp.Matrix([[a, b], [b, c]])
    th = sp.Matrix([t1, t2])
    C = (th.T * A * th)[0] * (sp.Rational(1, 2) if half else 1)
    grad = sp.Matrix([sp.diff(C, t1), sp.diff(C, t2)])
    return tc.Derivation([tc.Step(grad, A * th, r"$\nabla C = J = A \theta$")], general=False, sizes="$P = 2$")


_eq6 = tc.Statement(r"\nabla C=J=A\theta\ \text{ for }\ C(\theta)=\theta^\top A\theta", dims=MF_DIMS, sample=sample_mf,
                    lhs=_eq6_lhs, rhs=_Atheta, derivation=lambda: _eq6_derivation(False),
                    note=r"$\nabla C$ by exact unit central differences ($C$ is quadratic).")
claim("eq6", r"The charge of an exponential symmetry: is $C = \theta^{\top} A \theta$ the antiderivative of $J = A \theta$?",
      "4.2", "(6)", r"C(\theta)=\theta^{\top}A\theta", _eq6,
      variants=[variant(_eq6, r"corrected: $C = \theta^{\top} A \theta / 2$", latex=r"C(\theta)=\tfrac12\theta^\top A\theta",
                        lhs=lambda i, c: _eq6_lhs(i, c, True), derivation=lambda: _eq6_derivation(True))],
      controls=[tc.negate(_eq6)],
      assumptions=(r"Section 4 defines $C$ by $\nabla C = J$",))


# ==============================================================================================
# eq. 7 / eq. 9 / text of Sec. 4.3 / eq. 24: weight decay
# ==============================================================================================
def _wd_drift(inst, ctx, half=False):
    p = mf(inst, ctx)
    out = M.flow_drift(p.th, p.G, p.A, inst.gamma) + M.sgd_noise_drift(p.th, p.G, p.A, inst.eta, S, inst.gamma)
    return out / 2 if half else out


def _eq7_rhs(inst, ctx, half=False, noise_factor=1):
    p = mf(inst, ctx)
    C = M.quad(p.th, p.A) / (2 if half else 1)
    return -4 * inst.gamma * C + noise_factor * _sigma2(inst) * M.tr(M.covariance(p.G) @ p.A)


def _eq7_derivation(noise_coeff, half=False):
    """Ito drift under ``L + gamma||theta||^2`` (``grad C . grad L = 0`` by the symmetry), ``q = theta^T A theta``.

    ``half=True``: ``C = q/2`` (Sec. 4's definition ``grad C = J = A theta``), so ``grad C . 2 gamma theta = 2 gamma q``
    and ``Hess C = A``.  ``half=False``: ``C = q`` (eq. 6), ``grad C . 2 gamma theta = 4 gamma q``, ``Hess C = 2A``.
    """
    g, s2, Sa, q = sp.symbols("gamma sigma2 TrSigmaA q", real=True)
    if half:
        return tc.Derivation([tc.Step(-2 * g * q + s2 * Sa, -4 * g * (q / 2) + noise_coeff * s2 * Sa,
                                      r"Ito drift of $C = \theta^{\top} A \theta / 2 (\nabla C = J)$ under $L + \gamma\lVert \theta\rVert ^{2}$")],
                             general=True)
    return tc.Derivation([tc.Step(-4 * g * q + s2 * 2 * Sa, -4 * g * q + noise_coeff * s2 * Sa,
                                  r"Ito drift of $C = \theta^{\top} A \theta$ (eq. 6) under $L + \gamma\lVert \theta\rVert ^{2}$")], general=True)


def _half_quad(inst, ctx):
    p = mf(inst, ctx)
    return M.quad(p.th, p.A) / 2


_eq7 = tc.Statement(r"\dot C=-4\gamma C+\sigma^2\mathrm{Tr}[\Sigma A],\ \nabla C=J=A\theta\ (C=\tfrac12\theta^\top A\theta)",
                    dims=MF_DIMS, sample=sample_mf, lhs=lambda i, c: _wd_drift(i, c, True),
                    rhs=lambda i, c: _eq7_rhs(i, c, True), derivation=lambda: _eq7_derivation(1, half=True),
                    note=r"$C$ as Sec. 4 defines it ($\nabla C = J, J = A \theta$ by Def. 4.1); the LHS is the "
                         r"exact SGD drift of $\theta^{\top} A \theta$ (minibatch enumeration) halved")
claim("eq7", r"Noether flow with weight decay: $\mathrm{d}C/\mathrm{d}t = -4 \gamma C + \sigma^{2} \operatorname{Tr}[\Sigma A]$ ($C$ the antiderivative of $J$)",
      "4.2", "(7)",
      r"\dot{C}(\theta_{t})=-4\gamma C(\theta_{t})+\sigma^{2}{\rm Tr}[\Sigma(\theta_{t})A]=:G(\theta_{t})", _eq7,
      variants=[variant(_eq7, r"reading: $C = \theta^{\top} A \theta$ of eq. 6 with the printed constants", kind="reading",
                        latex=r"\dot C=-4\gamma C+\sigma^2\mathrm{Tr}[\Sigma A],\ C=\theta^\top A\theta",
                        lhs=_wd_drift, rhs=_eq7_rhs, derivation=lambda: _eq7_derivation(1)),
                variant(_eq7, r"reading: $C = \theta^{\top} A \theta$ of eq. 6: $-4 \gamma C + 2 \sigma^{2} \operatorname{Tr}[\Sigma A]$", kind="reading",
                        latex=r"\dot C=-4\gamma C+2\sigma^2\mathrm{Tr}[\Sigma A],\ C=\theta^\top A\theta",
                        lhs=_wd_drift, rhs=lambda i, c: _eq7_rhs(i, c, noise_factor=2),
                        derivation=lambda: _eq7_derivation(2))],
      controls=[tc.negate(_eq7), control(_eq7, r"$-2 \gamma C$ in place of $-4 \gamma C$",
                                         rhs=lambda i, c: _eq7_rhs(i, c, True) + 2 * i.gamma * _half_quad(i, c))],
      assumptions=(r"$L_{\gamma} = L + \gamma \lVert \theta\rVert ^{2}$; SGD on $L_{\gamma}$, exact minibatch enumeration",
                   r"$C$ defined by $\nabla C = J$ (Sec. 4); eq. 6's $\theta^{\top} A \theta$ is twice that (claim noise.eq6)"))


def _si_drift(inst, ctx, gamma):
    G = M.scale_inv_grads(inst.th, inst.X, inst.y, ctx)
    P = inst.th.shape[1]
    A = np.repeat(M.eye(P, ctx), inst.th.shape[0], 0)
    return M.flow_drift(inst.th, G, A, gamma) + M.sgd_noise_drift(inst.th, G, A, inst.eta, S, gamma)


def _eq24_rhs(inst, ctx, gamma, cg=1, cs=1):
    G = M.scale_inv_grads(inst.th, inst.X, inst.y, ctx)
    n2 = np.sum(inst.th * inst.th, -1)
    return -cg * gamma * n2 + cs * _sigma2(inst) * M.tr(M.covariance(G))


SI_DIMS24 = tc.DimSpace({"p": (2, 4), "n": (2, 5)})
_eq24 = tc.Statement(r"\frac{d}{dt}\|\theta_t\|^2=-\gamma\|\theta_t\|^2+\sigma^2\mathrm{Tr}[\Sigma(\theta_t)]",
                     dims=SI_DIMS24, sample=sample_si, lhs=lambda i, c: _si_drift(i, c, GAMMA),
                     rhs=lambda i, c: _eq24_rhs(i, c, GAMMA))
claim("eq24", r"Scale invariance: $d\lVert \theta\rVert ^{2}/\mathrm{d}t = -\gamma\lVert \theta\rVert ^{2} + \sigma^{2} \operatorname{Tr} \Sigma$", "Appendix A.1", "(24)",
      r"\frac{\mathrm{d}}{\mathrm{d}t}\|\theta_{t}\|^{2}=-\gamma\|\theta_{t}\|^{2}+\sigma^{2}{\rm Tr}[\Sigma(\theta_{t})]",
      _eq24,
      variants=[variant(_eq24, r"corrected: $-4 \gamma \lVert \theta\rVert ^{2} + 2 \sigma^{2} \operatorname{Tr} \Sigma$",
                        latex=r"\frac{d}{dt}\|\theta\|^2=-4\gamma\|\theta\|^2+2\sigma^2\mathrm{Tr}\Sigma",
                        rhs=lambda i, c: _eq24_rhs(i, c, GAMMA, 4, 2)),
                variant(_eq24, r"reading: $\gamma = 0$ (no weight decay), corrected constant $2 \sigma^{2}$", kind="reading",
                        latex=r"\frac{d}{dt}\|\theta\|^2=2\sigma^2\mathrm{Tr}\Sigma\ (\gamma=0)",
                        lhs=lambda i, c: _si_drift(i, c, 0.0), rhs=lambda i, c: _eq24_rhs(i, c, 0.0, 4, 2))],
      controls=[control(_eq24, r"corrected with $-2 \gamma$", rhs=lambda i, c: _eq24_rhs(i, c, GAMMA, 2, 2))],
      assumptions=(r"$l(\theta, z) = (x^{\top} \theta/\lVert \theta\rVert - y)^{2}$, weight decay $\gamma\lVert \theta\rVert ^{2} = 0.3\lVert \theta\rVert ^{2}$",))


def _sec42_lhs(inst, ctx):
    p = mf(inst, ctx)
    return M.tr(M.covariance(p.G) @ p.A)


def _sec42_rhs(inst, ctx, flip=False):
    p = mf(inst, ctx)
    N, _ = mf_eig(p, ctx)
    nu = mf_nu(inst, p)
    proj = np.sum(N * (M.covariance(p.G) @ N), axis=1)          # n_i^T Sigma n_i
    pos, neg = nu * (nu > 0), nu * (nu < 0)
    return np.sum(pos * proj, -1) + (-1 if flip else 1) * np.sum(neg * proj, -1)


_sec42 = tc.Statement(r"\mathrm{Tr}[\Sigma A]=\sum_{\mu_i>0}\mu_in_i^\top\Sigma n_i+\sum_{\mu_j<0}\mu_jn_j^\top\Sigma n_j",
                      dims=MF_DIMS, sample=sample_mf, lhs=_sec42_lhs, rhs=_sec42_rhs)
claim("sec4_2_spectral", r"$\operatorname{Tr}[\Sigma A]$ splits into positive- and negative-eigenvalue directions of A", "4.2",
      "display after (7)", r"{\rm Tr}[\Sigma A]=\sum_{i:\mu_{i}>0}\mu_{i}n_{i}^{\top}\Sigma n_{i}+\sum_{j:\mu_{j}<0}\mu_{j}n_{j}^{\top}\Sigma n_{j}",
      _sec42, controls=[control(_sec42, "negative part with + sign", rhs=lambda i, c: _sec42_rhs(i, c, True))])


# ----------------------------------------------------------------------------------------------
# fixed points on the orbit theta_lambda = e^{lambda A} theta (float64 root finding, tolerance refined)
# ----------------------------------------------------------------------------------------------
F64 = tc.FLOAT64


def _mf_instance(rng, d):
    raw = sample_mf(rng, d, 1)
    return tc.Instance({k: (tc.FLOAT64.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in raw.items()})


def _orbit_point(inst, lam):
    p = mf(inst, F64)
    U, W = M.mf_orbit(p.U, p.W, p.Q, inst.mu, np.array([lam]), F64)
    return mf(inst, F64, U, W)


def _drift_at(inst, lam, gamma):
    q = _orbit_point(inst, lam)
    return float((M.flow_drift(q.th, q.G, q.A, gamma)
                  + M.ito_noise_drift(q.G, 2 * q.A, _sigma2(inst)))[0])


def _root(fun, xtol):
    lo, hi = -0.5, 0.5
    for _ in range(60):
        if fun(lo) > 0:
            break
        lo *= 2
    for _ in range(60):
        if fun(hi) < 0:
            break
        hi *= 2
    return brentq(fun, lo, hi, xtol=xtol, rtol=4 * np.finfo(float).eps, maxiter=500)


XTOLS = (1e-3, 1e-7, 1e-12)


def _fixed_point_check(relation, gamma=GAMMA):
    """At lambda* (G(theta_lambda*) = 0, G from definitions), evaluate ``relation(q, inst) -> (gap, scale)``."""
    def check(rng, d):
        inst = _mf_instance(rng, d)
        res = []
        for xt in XTOLS:
            lam = _root(lambda l: _drift_at(inst, l, gamma), xt)
            gap, scale = relation(_orbit_point(inst, lam), inst)
            res.append(abs(gap) / scale)
        return refine(res, XTOLS, [f"xtol={x:g}" for x in XTOLS], detail=f"lambda*={lam:.6g}")
    return check


def _eq9_relation(cg, cs, half=False):
    """Gap ``cg gamma C - cs sigma^2 Tr[Sigma A]`` and its scale (both terms with |A| in place of A)."""
    def rel(q, inst):
        h = 2 if half else 1
        C = float(M.quad(q.th, q.A)[0]) / h
        Sg = M.covariance(q.G)
        TrSA = float(M.tr(Sg @ q.A)[0])
        aA = mf_absA(inst, q, F64)
        s2 = _sigma2(inst)
        scale = cg * GAMMA * float(M.quad(q.th, aA)[0]) / h + cs * s2 * float(M.tr(Sg @ aA)[0])
        return cg * GAMMA * C - cs * s2 * TrSA, scale
    return rel


FP_DIMS = tc.DimSpace({"dx": (1, 2), "d": (1, 2), "dy": (1, 2), "n": (3, 4)},
                      where=lambda d: d["dx"] + d["d"] + d["dy"] > 3)
"""Sizes for fixed-point checks.  All-ones is excluded: there (u, w scalars) the equilibrium has C* = 0 and
Tr[Sigma A] = 0 at once, so every relation between the two holds trivially."""
_eq9 = tc.Statement(r"4\gamma C(\theta^*)=\sigma^2\mathrm{Tr}[\Sigma(\theta^*)A],\ C=\tfrac12\theta^\top A\theta\ (\nabla C=J)",
                    dims=FP_DIMS, check=_fixed_point_check(_eq9_relation(4, 1, half=True)),
                    note=r"$\theta^* = e^{\lambda^* A} \theta$ with $\lambda^*$ the root of the SDE drift of "
                         "the charge (computed from per-sample gradients), brentq tolerance refined; $C$ as Sec. 4 defines it")
claim("eq9", r"Noise equilibrium with weight decay: $4 \gamma C(\theta^*) = \sigma^{2} \operatorname{Tr}[\Sigma(\theta^*) A]$ ($C$ the antiderivative of $J$)",
      "4.3", "(9)", r"4\gamma C(\theta^{*})={\sigma^{2}}{\rm Tr}\left[\Sigma(\theta^{*})A\right]", _eq9,
      variants=[variant(_eq9, r"reading: $C = \theta^{\top} A \theta$ of eq. 6 with the printed constants", kind="reading",
                        latex=r"4\gamma C(\theta^*)=\sigma^2\mathrm{Tr}[\Sigma(\theta^*)A],\ C=\theta^\top A\theta",
                        check=_fixed_point_check(_eq9_relation(4, 1))),
                variant(_eq9, r"reading: $C = \theta^{\top} A \theta$ of eq. 6: $2 \gamma C = \sigma^{2} \operatorname{Tr}[\Sigma A]$", kind="reading",
                        latex=r"2\gamma C(\theta^*)=\sigma^2\mathrm{Tr}[\Sigma(\theta^*)A],\ C=\theta^\top A\theta",
                        check=_fixed_point_check(_eq9_relation(2, 1)))],
      controls=[control(_eq9, r"$\gamma C = \sigma^{2} \operatorname{Tr}[\Sigma A]$", check=_fixed_point_check(_eq9_relation(1, 1, half=True)))],
      assumptions=(r"$C$ defined by $\nabla C = J$ (Sec. 4); eq. 9 is the zero of eq. 7",))

_fp_text = tc.Statement(r"-\gamma C(\theta)+\eta\mathrm{Tr}[\Sigma(\theta)A]=0,\ C=\tfrac12\theta^\top A\theta", dims=FP_DIMS,
                        check=_fixed_point_check(_eq9_relation(1, 2 * S, half=True)),
                        note=r"$C$ as Sec. 4 defines it; with eq. 6's $C = \theta^{\top} A \theta$ the printed relation fails too")
claim("sec4_3_stationary", r"Text of Sec. 4.3: the stationary point satisfies $-\gamma C + \eta \operatorname{Tr}[\Sigma A] = 0$", "4.3",
      "text before (8)", r"-\gamma C(\theta)+\eta{\rm Tr}[\Sigma(\theta)A]=0", _fp_text,
      variants=[variant(_fp_text, r"corrected: the zero of eq. 7, $-4 \gamma C + (\eta/(2S)) \operatorname{Tr}[\Sigma A] = 0$ (eq. 9)",
                        latex=r"-4\gamma C+\frac{\eta}{2S}\mathrm{Tr}[\Sigma A]=0,\ C=\tfrac12\theta^\top A\theta",
                        check=_fixed_point_check(_eq9_relation(4, 1, half=True))),
                variant(_fp_text, r"reading: $C = \theta^{\top} A \theta$ of eq. 6 with the printed constants", kind="reading",
                        check=_fixed_point_check(_eq9_relation(1, 2 * S)))],
      controls=[control(_fp_text, r"corrected with $\eta/S$", check=_fixed_point_check(_eq9_relation(4, 2, half=True)))],
      assumptions=(r"$\sigma^{2} = \eta/(2S)$ with $S = 2$ turns $\eta$ into $2 S \sigma^{2}$",))

from . import _noise_thm43  # noqa: E402,F401  (Theorem 4.3, Lemma B.1, exponential map)
from . import _noise_sec5  # noqa: E402,F401  (Section 5, Appendices C and E)
from . import _noise_appendix  # noqa: E402,F401  (Appendix B.3 convergence, Appendix D)
