"""Noise paper, Section 4.2: exponential symmetries, their charge (eq. 6) and the Noether flow with weight decay.

Eq. 6 (is ``C = theta^T A theta`` the antiderivative of ``J = A theta``?), eq. 7 (the drift with weight decay),
eq. 24 (the scale-invariant model of Appendix A.1) and the split of ``Tr[Sigma A]`` by the sign of A's
eigenvalues.  Drifts are exact expectations of one SGD step over every minibatch.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

import theorem_check as tc

from . import model as M
from .model import GAMMA, MF_DIMS, S_BATCH, _sigma2, claim, control, mf, mf_eig, mf_nu, sample_mf, sample_si, variant

S = S_BATCH


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
