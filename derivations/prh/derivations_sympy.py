"""SymPy derivations for the prh note (one function per claim; each returns a ``Derivation``).

Notation: ``E`` stands for ``e^{lam T}`` (symmetric, invertible, inverse ``e^{-lam T}``) when
``T`` is symmetric; the symmetry is applied with ``sympy.refine(..., Q.symmetric(E))``.
``d`` is a representation gradient ``grad_h l`` and ``h`` a representation (column vectors).
Derivations that use only ``MatrixSymbol`` or scalar algebra and close by simplification are
``general=True`` (valid for every size); those that expand entries are ``general=False`` and
say at which sizes they are exact.
"""

from __future__ import annotations

import sympy as sp

from theorem_check import Derivation, Step

_Q = sp.Q


def _ms(name, r, c):
    return sp.MatrixSymbol(name, r, c)


def _sym_explicit(name, n):
    """An explicit symmetric n x n matrix of real symbols."""
    s = {}
    for a in range(n):
        for b in range(a, n):
            s[(a, b)] = s[(b, a)] = sp.Symbol(f"{name}_{a}{b}", real=True)
    return sp.Matrix(n, n, lambda a, b: s[(a, b)])


def eq14() -> Derivation:
    """grad_{W_i} l = delta h^T (chain rule) and ||delta h^T||_F^2 = ||delta||^2 ||h||^2."""
    w = sp.Matrix(2, 2, sp.symbols("w_00 w_01 w_10 w_11", real=True))
    h = sp.Matrix(2, 1, sp.symbols("h_0 h_1", real=True))
    B = sp.Matrix(1, 2, sp.symbols("b_0 b_1", real=True))
    y = sp.Symbol("y", real=True)
    hp = sp.Matrix(2, 1, sp.symbols("g_0 g_1", real=True))      # h^{i+1} as a free variable
    loss_h = ((B * hp)[0] - y) ** 2
    delta = sp.Matrix([sp.diff(loss_h, v) for v in hp]).subs(dict(zip(hp, w * h)))
    loss_w = ((B * w * h)[0] - y) ** 2
    grad_w = sp.Matrix(2, 2, lambda a, b: sp.diff(loss_w, w[a, b]))
    sq = sum(g ** 2 for g in grad_w)
    return Derivation([
        Step(grad_w, delta * h.T, r"chain rule: $\nabla_{W_{i}} l = \nabla_{h^{i+1}} l (h^{i})^{\top}$"),
        Step(sq, (delta.T * delta)[0] * (h.T * h)[0], r"$\lVert a b^{\top}\rVert _{F}^{2} = \lVert a\rVert ^{2} \lVert b\rVert ^{2}$"),
    ], general=False, sizes="$d_i = d_{i+1} = 2$, one output (any downstream map $B$)")


def eq16() -> Derivation:
    """(W_{i+1} T)(T^{-1} W_i) = W_{i+1} W_i, so the network function and the loss are unchanged."""
    n = 3
    T = _ms("T", n, n)
    W1, W2 = _ms("W_i", n, 2), _ms("W_{i+1}", 4, n)
    MO, MI, WD = _ms("M^O", 5, 5), _ms("M^I", 2, 2), _ms("W_D", 5, 4)
    return Derivation([
        Step((W2 * T) * (T.I * W1), W2 * W1, "$T T^{-1} = I$"),
        Step(MO * WD * (W2 * T) * (T.I * W1) * MI, MO * WD * W2 * W1 * MI, "same end-to-end map, same loss"),
    ], general=True)


def eq18() -> Derivation:
    """h^{i+1} -> T^{-1} h^{i+1}: the kernel becomes h^T (T^{-1})^T T^{-1} h."""
    n = 3
    T, W = _ms("T", n, n), _ms("W_i", n, 2)
    h1, h2 = _ms("h^i(x_1)", 2, 1), _ms("h^i(x_2)", 2, 1)
    return Derivation([
        Step((T.I * W * h1).T * (T.I * W * h2), (W * h1).T * T.I.T * T.I * (W * h2),
             "$h^{i+1} = T^{-1} W_{i} h^{i}$ after the transformation; transpose of a product"),
    ], general=True)


def _eq20_common():
    n = 2
    MO, MI, Z, V = (_ms(s, n, n) for s in ("M^O", "M^I", "Z", "V^*"))
    W = MO.I * V * Z.I * MI.I
    return MO, MI, Z, V, W


def eq20_corrected() -> Derivation:
    """At a global minimum M^O W M^I Z = V*, hence W = (M^O)^{-1} V* Z^{-1} (M^I)^{-1}."""
    MO, MI, Z, V, W = _eq20_common()
    return Derivation([
        Step(MO * W * MI * Z, V, r"$\mathbb{E}\lVert (M^{O} W M^{I} Z - V^*) u\rVert ^{2} + \mathbb{E}\lVert \varepsilon\rVert ^{2}$ "
                                  r"vanishes in its first term iff $M^{O} W M^{I} Z = V^*$ ($\mathbb{E}[u u^{\top}] > 0, \varepsilon$ independent of $u$, zero mean)"),
    ], general=True)


def eq20_printed() -> Derivation:
    """The printed order of the inverses, compared with the derived one (fails: M^I, Z do not commute)."""
    MO, MI, Z, V, W = _eq20_common()
    return Derivation([
        Step(MO * W * MI * Z, V, "global minimum: $M^{O} W M^{I} Z = V^*$"),
        Step(Z.I * MI.I, MI.I * Z.I, "derived = printed, after the common factor $(M^{O})^{-1} V^*$"),
    ], general=False, sizes=r"$2 \times 2$")


def eq23() -> Derivation:
    """e^{-lam T} = (e^{lam T})^{-1}: the product W_{i+1} W_i, hence l, is unchanged."""
    n = 3
    E, W1, W2 = _ms("E", n, n), _ms("W_i", n, 2), _ms("W_{i+1}", 4, n)
    lam, t = sp.symbols("lambda t", real=True)
    return Derivation([
        Step(sp.exp(lam * t) * sp.exp(-lam * t), sp.Integer(1),
             r"in $T$'s eigenbasis $e^{\lambda T} e^{-\lambda T}$ has eigenvalues $e^{\lambda t} e^{-\lambda t} = 1$"),
        Step((W2 * E.I) * (E * W1), W2 * W1, r"$E = e^{\lambda T}$, $E^{-1} = e^{-\lambda T}$"),
    ], general=True)


def eq24(general_T: bool = False) -> Derivation:
    """grad_{W_i^lam} l = delta^lam h^T with delta^lam = (W_{i+1} E^{-1})^T delta; multiply by E."""
    n = 3
    E, W2 = _ms("E", n, n), _ms("W_{i+1}", 4, n)
    d, h = _ms("delta^{i+2}", 4, 1), _ms("h^i", 2, 1)
    grad_lam = (W2 * E.I).T * d * h.T          # h^i is upstream of the transformation: unchanged
    if general_T:
        return Derivation([Step(E.T * grad_lam, W2.T * d * h.T, r"$E^{\top} E^{-\top} = I$, no symmetry needed")],
                          general=True)
    return Derivation([
        Step(sp.refine(E * grad_lam, _Q.symmetric(E)), W2.T * d * h.T,
             r"$E = e^{\lambda T}$ is symmetric for symmetric $T$, so $E E^{-\top} = I$"),
    ], general=True)


def eq25(general_T: bool = False) -> Derivation:
    """grad_{W_{i+1}^lam} l = delta (E h^{i+1})^T; multiply by E^{-1} on the right."""
    n = 3
    E, W1 = _ms("E", n, n), _ms("W_i", n, 2)
    d, h = _ms("delta^{i+2}", 4, 1), _ms("h^i", 2, 1)
    grad_lam = d * (E * W1 * h).T               # delta^{i+2} is downstream: unchanged
    if general_T:
        return Derivation([Step(grad_lam * E.T.I, d * (W1 * h).T, r"$E^{\top} E^{-\top} = I$")], general=True)
    return Derivation([
        Step(sp.refine(grad_lam * E.I, _Q.symmetric(E)), d * (W1 * h).T, r"$E$ symmetric: $E^{\top} E^{-1} = I$"),
    ], general=True)


def eq26() -> Derivation:
    """Tr[E[G G^T]] = E||G||_F^2, so S = sum_k Tr E[G_k G_k^T]."""
    G = sp.Matrix(2, 3, sp.symbols("g_0:6", real=True))
    return Derivation([
        Step((G * G.T).trace(), sum(g ** 2 for g in G), r"$\operatorname{Tr}[G G^{\top}] = \lVert G\rVert _{F}^{2}$ (then take $E$, linear)"),
    ], general=False, sizes=r"$G$: $2 \times 3$")


def eq26_other() -> Derivation:
    """Layers other than i, i+1 see the unchanged products W_{i+1} W_i: their gradients do not change."""
    n = 3
    E = _ms("E", n, n)
    W1, W2 = _ms("W_i", n, 2), _ms("W_{i+1}", 4, n)
    Wd, Wu = _ms("W_{i+2}", 2, 4), _ms("W_{i-1}", 2, 3)
    d, h = _ms("delta^{i+3}", 2, 1), _ms("h^{i-1}", 3, 1)
    return Derivation([
        Step((Wd * (W2 * E.I) * (E * W1)).T * d * h.T, (Wd * W2 * W1).T * d * h.T,
             r"$\nabla_{W_{i-1}} l = (W_{i+2} W_{i+1} W_{i})^{\top} \delta^{i+3} (h^{i-1})^{\top}$, $E^{-1} E = I$"),
        Step(d * ((W2 * E.I) * (E * W1) * Wu * h).T, d * (W2 * W1 * Wu * h).T,
             r"$\nabla_{W_{i+2}} l = \delta^{i+3} (W_{i+1} W_{i} W_{i-1} h^{i-1})^{\top}$"),
    ], general=True)


def _trace_forms(n=3):
    """Symbols for eqs. (27)-(31): T = Q diag(t) Q^T; in T's eigenbasis (traces are basis-free)."""
    lam = sp.Symbol("lambda", real=True)
    t = sp.symbols(f"t_0:{n}", real=True)
    A = _sym_explicit("A", n)      # E[G_i G_i^T]          (in T's eigenbasis)
    B = _sym_explicit("B", n)      # E[G_{i+1}^T G_{i+1}]  (in T's eigenbasis)
    Td = sp.diag(*t)
    Ex = lambda c: sp.diag(*[sp.exp(c * ti) for ti in t])
    return lam, t, A, B, Td, Ex


def eq27() -> Derivation:
    """G_i^lam = E^{-1} G_i and G_{i+1}^lam = G_{i+1} E, then cyclicity of the trace."""
    lam, t, A, B, Td, Ex = _trace_forms()
    G = sp.Matrix(3, 2, sp.symbols("g_0:6", real=True))
    H = sp.Matrix(2, 3, sp.symbols("k_0:6", real=True))
    E, Ei = Ex(lam), Ex(-lam)
    return Derivation([
        Step(((Ei * G) * (Ei * G).T).trace(), (Ex(-2 * lam) * (G * G.T)).trace(),
             r"$\operatorname{Tr}[e^{-\lambda T} G G^{\top} e^{-\lambda T}] = \operatorname{Tr}[e^{-2 \lambda T} G G^{\top}]$"),
        Step(((H * E) * (H * E).T).trace(), (Ex(2 * lam) * (H.T * H)).trace(),
             r"$\operatorname{Tr}[G e^{\lambda T} e^{\lambda T} G^{\top}] = \operatorname{Tr}[e^{2 \lambda T} G^{\top} G]$: the second factor is $G^{\top} G$"),
    ], general=False, sizes=r"$T$: $3 \times 3$ (eigenbasis), $G_i$: $3 \times 2$, $G_{i+1}$: $2 \times 3$")


def eq28() -> Derivation:
    """d/dlam of Tr[e^{-2 lam T} A] + Tr[e^{2 lam T} B] = 2(-Tr[T e^{-2 lam T} A] + Tr[T e^{2 lam T} B])."""
    lam, t, A, B, Td, Ex = _trace_forms()
    f = (Ex(-2 * lam) * A).trace() + (Ex(2 * lam) * B).trace()
    return Derivation([
        Step(sp.diff(f, lam), 2 * (-(Td * Ex(-2 * lam) * A).trace() + (Td * Ex(2 * lam) * B).trace()),
             "termwise derivative; the proportionality constant is 2"),
    ], general=False, sizes=r"$T$: $3 \times 3$ in its eigenbasis")


def eq29() -> Derivation:
    """Tr[T e^{-2 lam T} A] = Tr[T E[G^lam G^lam^T]] and Tr[T e^{2 lam T} B] = Tr[T E[G^lam^T G^lam]]."""
    lam, t, A, B, Td, Ex = _trace_forms()
    return Derivation([
        Step((Td * Ex(-2 * lam) * A).trace(), (Td * Ex(-lam) * A * Ex(-lam)).trace(),
             r"$T$ commutes with $e^{-\lambda T}$; $\mathbb{E}[G_{i}^{\lambda} G_{i}^{\lambda T}] = e^{-\lambda T} A e^{-\lambda T}$"),
        Step((Td * Ex(2 * lam) * B).trace(), (Td * Ex(lam) * B * Ex(lam)).trace(),
             r"$\mathbb{E}[G_{i+1}^{\lambda T} G_{i+1}^{\lambda}] = e^{\lambda T} B e^{\lambda T}$"),
    ], general=False, sizes=r"$T$: $3 \times 3$ in its eigenbasis")


def eq31() -> Derivation:
    """dS/dlam at lam = 0 is 2 Tr[T (B - A)]; zero for every symmetric T forces A = B (take T = A - B)."""
    lam, t, A3, B3, Td, Ex = _trace_forms()
    f = (Ex(-2 * lam) * A3).trace() + (Ex(2 * lam) * B3).trace()
    A, B = _sym_explicit("A", 2), _sym_explicit("B", 2)
    D = sp.ImmutableMatrix(A - B)
    return Derivation([
        Step(sp.diff(f, lam).subs(lam, 0), 2 * (Td * (B3 - A3)).trace(),
             r"stationarity of $S$ along $e^{\lambda T}$ at a minimum: eq. (28) at "
             r"$\lambda = 0$, $A = \mathbb{E}[G_{i} G_{i}^{\top}]$, $B = \mathbb{E}[G_{i+1}^{\top} G_{i+1}]$"),
        Step(sp.Trace(sp.MatPow(D, 2)), sum(x ** 2 for x in D),
             r"$T = A - B$ (symmetric): $\operatorname{Tr}[(A-B)^{2}] = \sum_{ab} (A-B)_{ab} (A-B)_{ba} = \lVert A-B\rVert _{F}^{2}$ "
             "(the trace is kept unevaluated on the left); zero forces $A = B$"),
    ], general=False, sizes=r"$T$: $3 \times 3$ in its eigenbasis; $2 \times 2$")


def eq33() -> Derivation:
    """T = e_j e_j^T: Tr[T G G^T] = ||row j of G||^2 and Tr[T G^T G] = ||column j of G||^2."""
    G = sp.Matrix(3, 3, sp.symbols("g_0:9", real=True))
    P = sp.zeros(3, 3)
    P[1, 1] = 1
    return Derivation([
        Step((P * G * G.T).trace(), sum(G[1, b] ** 2 for b in range(3)), "row $j = 2$ of $W_{i}$'s gradient"),
        Step((P * G.T * G).trace(), sum(G[a, 1] ** 2 for a in range(3)), "column $j = 2$ of $W_{i+1}$'s gradient"),
    ], general=False, sizes=r"$3 \times 3$, $j = 2$")


def eq34_35(second: bool) -> Derivation:
    """e^{c lam e_j e_j^T} = I + (e^{c lam} - 1) e_j e_j^T, so Tr[e^{c lam T} M] = e^{c lam} M_jj + const."""
    lam = sp.Symbol("lambda", real=True)
    M = _sym_explicit("M", 3)
    P = sp.zeros(3, 3)
    P[1, 1] = 1
    c = 2 if second else -2
    return Derivation([
        Step((c * lam * P).exp(), sp.eye(3) + (sp.exp(c * lam) - 1) * P, r"$P = e_{j} e_{j}^{\top}$ is a projector"),
        Step(((c * lam * P).exp() * M).trace(), sp.exp(c * lam) * M[1, 1] + (M.trace() - M[1, 1]),
             r"constant in $\lambda$: sum of the other diagonal entries"),
    ], general=False, sizes=r"$3 \times 3$, $j = 2$")


def eq36() -> Derivation:
    """g = e^{-2 lam} a + e^{2 lam} b: g' = 0 iff e^{4 lam} = a/b, and g'' = 4 g > 0 (a, b > 0)."""
    lam = sp.Symbol("lambda", real=True)
    a, b = sp.symbols("a b", positive=True)
    g = sp.exp(-2 * lam) * a + sp.exp(2 * lam) * b
    star = sp.log(a / b) / 4
    return Derivation([
        Step(sp.diff(g, lam).subs(lam, star), sp.Integer(0), r"stationary at $e^{4 \lambda} = a / b$"),
        Step(sp.diff(g, lam, 2), 4 * g, "g'' = 4 g > 0: strictly convex, so the stationary point is the unique minimiser"),
    ], general=True)


def lambda_unique() -> Derivation:
    """In T's eigenbasis f = sum_t e^{-2 lam t} alpha_t + e^{2 lam t} beta_t, alpha, beta >= 0: convex."""
    lam, t = sp.symbols("lambda t", real=True)
    al, be = sp.symbols("alpha beta", nonnegative=True)
    f = sp.exp(-2 * lam * t) * al + sp.exp(2 * lam * t) * be
    return Derivation([
        Step(sp.diff(f, lam, 2), 4 * t ** 2 * f, r"each term is convex: $f'' = \sum 4 t^{2} (\dots ) \ge 0$"),
        Step(sp.diff(f, lam).subs({al: 0, be: 0}), sp.Integer(0),
             r"$\alpha_{t} = \beta_{t} = 0$ (a direction unused by both gradients) gives a term constant in $\lambda$"),
    ], general=True)


def thm1() -> Derivation:
    """Balanced layer => its kernel is fixed by V*, Sigma_u, Sigma_eps alone (docs/papers/prh.md).

    With X = A P Su A^T P^T... written with At = A P Su^{1/2} (X = At At^T), Bt = C^{1/2} B
    (Y = Bt^T Bt, C = 4 M^O^T Se M^O) and BA = (M^O)^{-1} V* P^{-1} (P = M^I Z): the balance
    X = kappa Y gives (At^T At)^2 = kappa R^T R with R = Bt At, and R^T R is free of M^O, M^I, Z.
    """
    k = sp.Symbol("kappa", positive=True)
    At, _Bt = _ms("At", 3, 2), _ms("Bt", 2, 3)
    n = 2
    O, P, V, Se, S = (_ms(s, n, n) for s in ("M^O", "P", "V^*", "Sigma_eps", "Sigma_u^{1/2}"))
    BA = O.I * V * P.I
    return Derivation([
        Step(At.T * (At * At.T / k) * At, (At.T * At) * (At.T * At) / k,
             r"$R^{\top} R$ = At$^{\top}$ (Bt$^{\top}$ Bt) At with Bt$^{\top}$ Bt = $X / \kappa$ = At At$^{\top} / \kappa$"),
        Step(S * P.T * BA.T * (4 * O.T * Se * O) * BA * P * S, 4 * S * V.T * Se * V * S,
             r"$R^{\top} R = \Sigma_u^{1/2} P^{\top}$ (BA)$^{\top} C$ (BA)$P \Sigma_u^{1/2}$: $M^{O}$, $M^{I}$ and $Z$ cancel"),
    ], general=False, sizes=r"$\tilde A$: $3 \times 2$; $2 \times 2$ task matrices")


def achievable() -> Derivation:
    """A factorisation through an r = rank V* bottleneck: W_3 W_2 W_1 = (M^O)^{-1} L R Z^{-1} (M^I)^{-1}."""
    J1, J2 = _ms("J_1", 3, 2), _ms("J_2", 4, 2)
    R, L = _ms("R", 2, 2), _ms("L", 2, 2)
    O, MI, Z = _ms("M^O", 2, 2), _ms("M^I", 2, 2), _ms("Z", 2, 2)
    W1 = J1 * R * Z.I * MI.I
    W2 = J2 * (J1.T * J1).I * J1.T
    W3 = O.I * L * (J2.T * J2).I * J2.T
    return Derivation([
        Step(W3 * W2 * W1, O.I * L * R * Z.I * MI.I,
             r"$J^{+} J = (J^{\top} J)^{-1} J^{\top} J = I_{r}$ needs every hidden width ≥ $r = \operatorname{rank} V^*$ ($J$ full column $\operatorname{rank}$)"),
    ], general=True)
