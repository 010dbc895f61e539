"""A gallery of matrix calculus: the Matrix Cookbook and everyday deep learning, right and wrong.

Run it with ``theorem-check run --pack examples/matrix_calculus.py``.  Every case is one
:func:`tc.erratum` call: the *printed* form is the variant people write (a missing transpose, a
dropped term of the product rule, a factor 2, the free gradient taken on symmetric matrices...),
the *corrected* form is the identity (derived by hand, below each case's comment), so each claim
comes back ERRATUM: as printed REFUTED or ILL-POSED with its smallest counterexample, corrected
VERIFIED or PROVED.  Sides are strings in SymPy syntax (``*`` matrix product, ``.T``, ``**-1``);
``grad``/``jacobian``/``hessian`` are the engine's derivative oracle at float32, float64 and mp50.

Conventions: ``grad(f, X)_ij = df/dX_ij`` (Matrix Cookbook layout); ``jacobian(F, x)_ij = dF_i/dx_j``
with row-major flattening; ``softmax`` of a column vector normalises it, of a matrix each row; on a
matrix declared symmetric/SPD, ``grad`` is the symmetric gradient ``(G + G^T)/2`` (arXiv:1911.06491).
Sizes are drawn from 2..4: at size 1 several of the wrong forms coincide with the right ones
(``A = A^T``, scalars commute), which is true but teaches nothing.
"""

import theorem_check as tc

N = (2, 4)


def case(label, lhs, printed, corrected, shapes, **kw):
    """One gallery entry: ``lhs = printed`` (wrong) with ``lhs = corrected``; sizes 2..4."""
    sizes = {**{v: N for s in shapes.values() for v in s if isinstance(v, str)}, **kw.pop("sizes", {})}
    return tc.erratum(f"calculus.{label}", lhs=lhs, printed=printed, corrected=corrected, shapes=shapes,
                      sizes=sizes, section="gallery", **kw)


SQ = {"A": ("n", "n"), "B": ("n", "n")}
INV = {"structure": {"A": "invertible", "B": "invertible"}}

# --- algebra ----------------------------------------------------------------------------------------------------
# (AB)^T = B^T A^T: transposition reverses a product.
case("transpose_product", "(A*B).T", "A.T*B.T", "B.T*A.T", {"A": ("m", "k"), "B": ("k", "n")})
# (AB)^-1 = B^-1 A^-1, not A^-1 B^-1.
case("inverse_product", "(A*B)**-1", "A**-1*B**-1", "B**-1*A**-1", SQ, **INV)
# tr(ABC) = tr(CAB) (cyclic), not tr(BAC) (a transposition of factors).
case("trace_cyclic", "trace(A*B*C)", "trace(B*A*C)", "trace(C*A*B)",
     {"A": ("m", "k"), "B": ("k", "n"), "C": ("n", "m")})
# Q orthogonal: Q^-1 = Q^T (not Q).
case("orthogonal_inverse", "Q**-1", "Q", "Q.T", {"Q": ("n", "n")}, structure={"Q": "orthogonal"})
# Sherman-Morrison: (A + u v^T)^-1 = A^-1 - A^-1 u v^T A^-1 / (1 + v^T A^-1 u)  (sign of the denominator).
SM = {"A": ("n", "n"), "u": ("n", 1), "v": ("n", 1)}
case("sherman_morrison", "(A + u*v.T)**-1", "A**-1 - A**-1*u*v.T*A**-1/(1 - trace(v.T*A**-1*u))",
     "A**-1 - A**-1*u*v.T*A**-1/(1 + trace(v.T*A**-1*u))", SM, structure={"A": "invertible"})
# matrix determinant lemma: det(A + u v^T) = det(A) (1 + v^T A^-1 u), not det(A) (1 + v^T u).
case("determinant_lemma", "det(A + u*v.T)", "det(A)*(1 + trace(v.T*u))", "det(A)*(1 + trace(v.T*A**-1*u))", SM,
     structure={"A": "invertible"})
# det(expm(A)) = exp(tr A) (Jacobi), not exp(det A).
case("det_expm", "det(expm(A))", "exp(det(A))", "exp(trace(A))", {"A": ("n", "n")})

# --- Kronecker products and vec (column-major) ------------------------------------------------------------------
# vec(A X B) = (B^T kron A) vec(X)  (Magnus & Neudecker), not (A kron B^T) vec(X).
case("vec_axb", "vec(A*X*B)", "kron(A, B.T)*vec(X)", "kron(B.T, A)*vec(X)",
     {"A": ("m", "n"), "X": ("n", "p"), "B": ("p", "q")})
# (A kron B)^-1 = A^-1 kron B^-1 (the order is kept, unlike the product's inverse).
case("kron_inverse", "kron(A, B)**-1", "kron(B**-1, A**-1)", "kron(A**-1, B**-1)",
     {"A": ("m", "m"), "B": ("n", "n")}, **INV)
# det(A kron B) = det(A)^n det(B)^m for A m x m, B n x n (each power is the OTHER factor's size).
case("kron_det", "det(kron(A, B))", "det(A)**m*det(B)**n", "det(A)**n*det(B)**m",
     {"A": ("m", "m"), "B": ("n", "n")})

# --- gradients (Matrix Cookbook section 2) ----------------------------------------------------------------------
# d tr(AX)/dX = A^T  (G_ij = d f / d X_ij).
case("grad_trace_ax", "grad(trace(A*X), X)", "A", "A.T", {"A": ("n", "m"), "X": ("m", "n")})
# d tr(A X^T)/dX = A.
case("grad_trace_axt", "grad(trace(A*X.T), X)", "A.T", "A", {"A": ("m", "n"), "X": ("m", "n")})
# d tr(X X B)/dX = (XB + BX)^T: both terms of the product rule, transposed.
case("grad_trace_xxb", "grad(trace(X*X*B), X)", "2*X*B", "(X*B + B*X).T", {"X": ("n", "n"), "B": ("n", "n")})
# d tr(X^T A X)/dX = (A + A^T) X; 2AX only for symmetric A.
case("grad_quadratic_form", "grad(trace(X.T*A*X), X)", "2*A*X", "(A + A.T)*X", {"X": ("n", "m"), "A": ("n", "n")})
# d x^T A x / dx = (A + A^T) x.
case("grad_xtax", "grad(trace(x.T*A*x), x)", "2*A*x", "(A + A.T)*x", {"x": ("n", 1), "A": ("n", "n")})
# d log|det X| / dX = X^-T (the inverse transposed; X^-1 only for symmetric X).
case("grad_logdet", "grad(log(abs(det(X))), X)", "X**-1", "X.T**-1", {"X": ("n", "n")},
     structure={"X": "invertible"})
# d det X / dX = det(X) X^-T.
case("grad_det", "grad(det(X), X)", "det(X)*X**-1", "det(X)*X.T**-1", {"X": ("n", "n")},
     structure={"X": "invertible"})
# d tr(A X^-1) / dX = -(X^-1 A X^-1)^T: dX^-1 = -X^-1 dX X^-1.
case("grad_trace_inverse", "grad(trace(A*X**-1), X)", "-X**-1*A*X**-1", "-(X**-1*A*X**-1).T",
     {"A": ("n", "n"), "X": ("n", "n")}, structure={"X": "invertible"})
# J of X -> X^-1 (row-major flattening: vecr(A dX B) = (A kron B^T) vecr(dX)) = -(X^-1 kron X^-T).
case("jacobian_inverse", "jacobian(X**-1, X)", "-kron(X**-1, X**-1)", "-kron(X**-1, X.T**-1)",
     {"X": ("n", "n")}, structure={"X": "invertible"})
# symmetric domain (arXiv:1911.06491): for symmetric X, the gradient of tr(AX) is (A + A^T)/2;
# the "independent entries" formula G + G^T - diag(G) is not a gradient (it doubles off-diagonals).
case("sym_grad_trace", "grad(trace(A*X), X)", "A + A.T - hadamard(A, eye(n))", "(A + A.T)/2",
     {"A": ("n", "n"), "X": ("n", "n")}, structure={"X": "symmetric"})
# log det on SPD matrices: the symmetric gradient is X^-1, not 2 X^-1 - diag(X^-1).
case("sym_grad_logdet", "grad(log(det(X)), X)", "2*X**-1 - hadamard(X**-1, eye(n))", "X**-1",
     {"X": ("n", "n")}, structure={"X": "spd"})

# --- deep learning ----------------------------------------------------------------------------------------------
# least squares: d ||Ax - b||^2 / dx = 2 A^T (Ax - b)  (the factor 2 is dropped often).
case("grad_least_squares", "grad(trace((A*x - b).T*(A*x - b)), x)", "A.T*(A*x - b)", "2*A.T*(A*x - b)",
     {"A": ("m", "n"), "x": ("n", 1), "b": ("m", 1)})
# linear layer: d ||W X - Y||_F^2 / dW = 2 (W X - Y) X^T.
case("grad_linear_layer", "grad(trace((W*X - Y).T*(W*X - Y)), W)", "2*X.T*(W*X - Y)", "2*(W*X - Y)*X.T",
     {"W": ("m", "k"), "X": ("k", "n"), "Y": ("m", "n")})
# two-layer linear network: d ||W2 W1 X - Y||^2 / dW1 = 2 W2^T (W2 W1 X - Y) X^T.
case("grad_deep_linear", "grad(trace((V*W*X - Y).T*(V*W*X - Y)), W)", "2*V.T*(V*W*X - Y)*X",
     "2*V.T*(V*W*X - Y)*X.T", {"V": ("m", "h"), "W": ("h", "k"), "X": ("k", "n"), "Y": ("m", "n")})
# sigmoid layer: d g^T sigma(W x) / dW = (g o sigma'(Wx)) x^T, sigma' = sigma (1 - sigma); not g x^T.
case("grad_sigmoid_layer", "grad(trace(g.T*sigmoid(W*x)), W)", "g*x.T",
     "hadamard(hadamard(g, sigmoid(W*x)), ones(m, 1) - sigmoid(W*x))*x.T",
     {"g": ("m", 1), "W": ("m", "n"), "x": ("n", 1)})
# softmax cross-entropy: d/dz [-p^T log softmax(z)] = softmax(z) - p for a distribution p = softmax(u).
case("grad_softmax_xent", "grad(-trace(softmax(u).T*log(softmax(z))), z)", "softmax(u) - softmax(z)",
     "softmax(z) - softmax(u)", {"u": ("n", 1), "z": ("n", 1)})
# d logsumexp(z)/dz = softmax(z), not exp(z).
case("grad_logsumexp", "grad(logsumexp(z), z)", "exp(z)", "softmax(z)", {"z": ("n", 1)})
# J of softmax = diag(p) - p p^T (the outer-product term is dropped often).
case("jacobian_softmax", "jacobian(softmax(z), z)", "diag(softmax(z))",
     "diag(softmax(z)) - softmax(z)*softmax(z).T", {"z": ("n", 1)})
# Hessian of x^T A x = A + A^T, 2A only for symmetric A.
case("hessian_quadratic", "hessian(trace(x.T*A*x), x)", "2*A", "A + A.T", {"x": ("n", 1), "A": ("n", "n")})
# softplus' = sigmoid, not 1/(1 + e^x).
case("softplus_derivative", "grad(softplus(t), t)", "1/(1 + exp(t))", "sigmoid(t)", {"t": ()})
# layer norm y = P x / sigma, P = I - 11^T/n, sigma^2 = x^T P x / n:  J = (P - y y^T / n) / sigma;
# dropping the variance's dependence on x gives P / sigma.  (n >= 3: at n = 2, y = +-(1, -1) and J = 0.)
P, SIG = "(eye(n) - ones(n, n)/n)", "sqrt(trace(x.T*(eye(n) - ones(n, n)/n)*x)/n)"
case("jacobian_layer_norm", f"jacobian({P}*x/{SIG}, x)", f"{P}/{SIG}",
     f"({P} - {P}*x*x.T*{P}/({SIG}**2*n))/{SIG}", {"x": ("n", 1)}, sizes={"n": (3, 4)})
# attention O = softmax(Q K^T / sqrt(d)) V, f = tr(G^T O): with P = softmax(.), M = G V^T,
# dS = P o (M - rowsum(P o M)), grad_Q = dS K / sqrt(d); dropping the softmax Jacobian's centring term is wrong.
ATT = "softmax(Q*K.T/sqrt(d))"
case("grad_attention", f"grad(trace(G.T*{ATT}*V), Q)", f"hadamard({ATT}, G*V.T)*K/sqrt(d)",
     f"hadamard({ATT}, G*V.T - hadamard({ATT}, G*V.T)*ones(m, m))*K/sqrt(d)",
     {"Q": ("n", "d"), "K": ("m", "d"), "V": ("m", "e"), "G": ("n", "e")})
