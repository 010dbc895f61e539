"""Noise paper, Sections 3-4.1: the example symmetries, eq. 3, conservation and the Noether flow (eqs. 4-5).

The example symmetries leave the per-sample loss unchanged (eq. 2, eq. 10) and have the generators of
Sec. 4.2 (rescaling, scaling, double rotation); eq. 3 on deep linear networks; conservation of the charge
under gradient flow (eq. 4) and ``grad C`` in the kernel of ``Sigma`` (eqs. 29-30, Appendix B.1); the Noether
flow (eq. 5) against exact minibatch expectations of SGD, and the appendix's Ito computation (eq. 31).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

import theorem_check as tc
from theorem_check import sampling

from . import model as M
from .model import (
    DLN3_DIMS,
    MF_DIMS,
    S_BATCH,
    SI_DIMS,
    _sigma2,
    claim,
    control,
    mf,
    sample_dln_pair,
    sample_mf,
    sample_si,
    variant,
)

S = S_BATCH


# ==============================================================================================
# eq. 2 / eq. 10: the example symmetries leave the per-sample loss unchanged
# ==============================================================================================
RELU_DIMS = tc.DimSpace({"dx": (1, 3), "dy": (1, 3), "n": (2, 5)})


def sample_relu(rng, d, batch):
    """A ReLU neuron ``a relu(w^T x)``: ``a (dy,)``, ``w (dx,)``, data, ``rho > -1``.

    The first data point is reflected (``x_0 -> -x_0``) where ``w^T x_0 < 0``, so the neuron is active on at least
    one sample: a neuron dead on every sample has all per-sample gradients 0, and its instances are no evidence
    (both sides 0, zero reference scale).
    """
    w = rng.standard_normal((batch, d["dx"]))
    X = np.array(sampling.gaussian(rng, d["dx"], d["n"], batch=batch), dtype=float)
    z0 = np.sum(X[:, :, 0] * w, axis=1)
    X[:, :, 0] *= np.where(z0 < 0, -1.0, 1.0)[:, None]
    return {"a": rng.standard_normal((batch, d["dy"])), "w": w, "X": X,
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
