"""Outside corpus for issue 18 ("trust model 3: sound in both directions").

About forty statements taken from public sources that nobody on the team wrote: the Matrix Cookbook
(Petersen & Pedersen) and a public cheat sheet derived from it, autodiff bug reports and pull requests
(PyTorch, JAX/autograd, TensorFlow, Liger-Kernel, llm.c, DyNet), the FlashAttention backward pass,
layer/RMS/batch normalisation, and a few published slips.  Each entry records:

``id``       short name, ``<source>.<what>``
``source``   citation / URL where the statement (or the formula it is built from) is printed
``printed``  the statement as the source prints it (plain text)
``truth``    True / False, derived by hand (``derivation`` gives the one-line argument); the source is
             never trusted: several sources below print false statements, and one (the PyTorch issue
             #137284) argues for the false one
``argv``     the arguments of ``python -m theorem_check check`` (statement first), without ``--seed``/``--json``
``degenerate`` True when the size ranges include a size-1 (or structured n = 1, 2) case on purpose
``note``     what the encoding changes with respect to the printed form (e.g. an eps added)

Conventions of the tool: ``grad(f, X)_ij = df/dX_ij``; on ``symmetric``/``spd`` matrices ``grad`` is the
symmetric gradient ``(G + G^T)/2`` (arXiv:1911.06491).  Importing this module has no side effects.
Cookbook equation numbers are those of the 2012 edition and are given only where checked; otherwise the section.
"""

from __future__ import annotations

__all__ = ["CORPUS", "by_id"]

COOKBOOK = "Petersen & Pedersen, The Matrix Cookbook (version Nov 15, 2012), https://www.math.uwaterloo.ca/~hwolkowi/matrixcookbook.pdf"
COOKBOOK_2005 = ("Petersen & Pedersen, The Matrix Cookbook (version Jan 5, 2005), sec. 2.4.2 'Second Order', page 11 "
                 "(text mirrored at http://www.hezhiquan.com/docs/view/76327657fd66444dab5e69b07ac9c5b6_3.html)")
CHEATSHEET = "Convex-optimisation cheat sheet, table of d/dX, https://github.com/wguo32/convex_opt/blob/master/misc.tex (fork of apvijay/convex_opt)"

# --- building blocks (SymPy syntax of the tool) ------------------------------------------------------------------
RMS = "sqrt(trace(x.T*x)/N)"                                  # root mean square of x (N x 1), no eps
P_N = "(eye(N) - ones(N, N)/N)"                                # centring projector
EPS = "0.00001"                                                # torch's default eps = 1e-5 (exact decimal)
S_LN = f"sqrt(trace(x.T*{P_N}*x)/N + {EPS})"                   # sqrt(var + eps), biased variance
XHAT = f"({P_N}*x/{S_LN})"                                     # normalised x
ATT = "softmax(Q*K.T/sqrt(d))"                                 # attention probabilities, n x m
DP = "G*V.T"                                                   # dP = dO V^T, n x m
DS = f"hadamard({ATT}, {DP} - hadamard({DP}, {ATT})*ones(m, m))"   # P o (dP - rowsum(dP o P))
ATT_SHAPES = ["--shape", "Q=n,d", "--shape", "K=m,d", "--shape", "V=m,e", "--shape", "G=n,e"]
ATT_F = f"trace(G.T*{ATT}*V)"


def _e(id, source, printed, truth, argv, derivation, degenerate=False, note=""):
    return {"id": id, "source": source, "printed": printed, "truth": truth, "argv": list(argv),
            "derivation": derivation, "degenerate": degenerate, "note": note}


CORPUS = [
    # ================================ Matrix Cookbook: algebra ==============================================
    _e("cookbook.det_rank1", COOKBOOK + ", sec. 1.1, eq. (24)",
       "det(I + u v^T) = 1 + u^T v", True,
       ["det(eye(n) + u*v.T) = 1 + trace(u.T*v)", "--shape", "u=n,1", "--shape", "v=n,1"],
       "eigenvalues of I + uv^T: 1 (n-1 times) and 1 + v^T u", degenerate=True),
    _e("cookbook.woodbury", COOKBOOK + ", sec. 3.2.2, eq. (156)",
       "(A + C B C^T)^{-1} = A^{-1} - A^{-1} C (B^{-1} + C^T A^{-1} C)^{-1} C^T A^{-1}", True,
       ["(A + C*B*C.T)**-1 = A**-1 - A**-1*C*(B**-1 + C.T*A**-1*C)**-1*C.T*A**-1",
        "--shape", "A=n,n", "--shape", "B=k,k", "--shape", "C=n,k", "--assume", "A=spd", "--assume", "B=spd"],
       "multiply the right side by A + CBC^T; A, B SPD keep every inverse defined", degenerate=True,
       note="A, B taken SPD so that A + CBC^T and B^-1 + C^T A^-1 C are invertible; k = 1 is Sherman-Morrison"),
    _e("cookbook.vec_axb", COOKBOOK + ", sec. 10.2 (Kronecker product and vec operator)",
       "vec(A X B) = (B^T (x) A) vec(X)", True,
       ["vec(A*X*B) = kron(B.T, A)*vec(X)", "--shape", "A=m,n", "--shape", "X=n,p", "--shape", "B=p,q"],
       "column j of AXB is sum_k B_kj A X_:k", degenerate=True),
    _e("cookbook.kron_mixed_product", COOKBOOK + ", sec. 10.2 (Kronecker product: mixed-product rule)",
       "(A (x) B)(C (x) D) = AC (x) BD", True,
       ["kron(A, B)*kron(C, D) = kron(A*C, B*D)", "--shape", "A=m,n", "--shape", "B=p,q", "--shape", "C=n,k",
        "--shape", "D=q,r"],
       "blockwise: block (i,j) of the product is sum_l A_il C_lj B D", degenerate=True),

    # ================================ Matrix Cookbook: derivatives ==========================================
    _e("cookbook.grad_det", COOKBOOK + ", sec. 2.1.1, eq. (49)",
       "d det(X) / dX = det(X) (X^{-1})^T", True,
       ["grad(det(X), X) = det(X)*X.T**-1", "--shape", "X=n,n", "--assume", "X=invertible"],
       "Jacobi: d det X = det(X) tr(X^{-1} dX), so G = det(X) X^{-T}", degenerate=True),
    _e("cookbook.grad_logabsdet", COOKBOOK + ", sec. 2.1.1, eq. (57)",
       "d ln|det(X)| / dX = (X^{-1})^T = (X^T)^{-1}", True,
       ["grad(log(abs(det(X))), X) = X.T**-1", "--shape", "X=n,n", "--assume", "X=invertible"],
       "d ln|det X| = tr(X^{-1} dX)", degenerate=True),
    _e("cookbook.grad_trace_axinvb", COOKBOOK + ", sec. 2.2, eq. (63)",
       "d Tr(A X^{-1} B) / dX = -(X^{-1} B A X^{-1})^T = -X^{-T} A^T B^T X^{-T}", True,
       ["grad(trace(A*X**-1*B), X) = -(X**-1*B*A*X**-1).T", "--shape", "A=m,n", "--shape", "X=n,n",
        "--shape", "B=n,m", "--assume", "X=invertible"],
       "dX^{-1} = -X^{-1} dX X^{-1}; cycle the trace", degenerate=True),
    _e("cookbook.grad_trace_axbxtc", COOKBOOK + ", sec. 2.5.2 (derivatives of traces, second order)",
       "d Tr(A X B X^T C) / dX = A^T C^T X B^T + C A X B", True,
       ["grad(trace(A*X*B*X.T*C), X) = A.T*C.T*X*B.T + C*A*X*B", "--shape", "A=p,n", "--shape", "X=n,m",
        "--shape", "B=m,m", "--shape", "C=n,p"],
       "product rule: tr(BX^TCA dX) + tr(CAXB dX^T)", degenerate=True),
    _e("cookbook.grad_norm_direction", COOKBOOK + ", sec. 2.6 (derivatives of vector norms: d (x-a)/||x-a|| / dx)",
       "d/dx (x - a)/||x - a|| = I/||x - a|| - (x - a)(x - a)^T/||x - a||^3", True,
       [("jacobian((x - a)/sqrt(trace((x - a).T*(x - a))), x) = eye(n)/sqrt(trace((x - a).T*(x - a))) "
        "- (x - a)*(x - a).T/sqrt(trace((x - a).T*(x - a)))**3"), "--shape", "x=n,1", "--shape", "a=n,1"],
       "quotient rule; at n = 1 both sides are 0 (x/|x| is a constant sign)", degenerate=True),

    # ================================ published slips (false) ==============================================
    _e("cookbook2005.grad_trace_x2", COOKBOOK_2005,
       "d Tr(X^2) / dX = 2X", False,
       ["grad(trace(X*X), X) = 2*X", "--shape", "X=n,n"],
       "d tr(X^2) = 2 tr(X dX) so the gradient is 2X^T (the 2012 edition prints 2X^T); false for n >= 2"),
    _e("cheatsheet.grad_lndet", CHEATSHEET,
       "d ln det(X) / dX = X^{-1}", False,
       ["grad(log(abs(det(X))), X) = X**-1", "--shape", "X=n,n", "--assume", "X=invertible"],
       "the gradient is X^{-T}; X^{-1} only for symmetric X (n >= 2 non-symmetric: false)",
       note="ln|det| so that det < 0 samples are in the domain"),
    _e("cheatsheet.grad_trace_xinv_a", CHEATSHEET,
       "d tr(X^{-1} A) / dX = -X^{-1} A^T X^{-1}", False,
       ["grad(trace(X**-1*A), X) = -X**-1*A.T*X**-1", "--shape", "X=n,n", "--shape", "A=n,n",
        "--assume", "X=invertible"],
       "d tr(X^{-1}A) = -tr(X^{-1} A X^{-1} dX): the gradient is -X^{-T} A^T X^{-T}"),
    _e("slip.grad_quadratic_2ax", "issue 18 brief; the symmetric-A special case of Cookbook eq. (108) used for general A",
       "d tr(X^T A X) / dX = 2 A X", False,
       ["grad(trace(X.T*A*X), X) = 2*A*X", "--shape", "X=n,m", "--shape", "A=n,n"],
       "the gradient is (A + A^T) X"),
    _e("mathse.sym_grad_cookbook_rule",
       "math.stackexchange q. 4144341 (quoting Matrix Cookbook sec. 2.8.2), "
       "https://math.techqa.club/why-is-the-derivative-of-frac-partial-tr-axb-partial-x-for-symmetric-matrix-x-equal-to-the-asymmetric-result-4144341",
       "X symmetric: d Tr(A^T X B) / dX = A B^T + B A^T - diag(A B^T)", False,
       ["grad(trace(A.T*X*B), X) = A*B.T + B*A.T - hadamard(A*B.T, eye(n))", "--shape", "A=n,m",
        "--shape", "X=n,n", "--shape", "B=n,m", "--assume", "X=symmetric"],
       "Frobenius gradient on Sym(n) is sym(G) = (AB^T + BA^T)/2 (Srinivasan & Panda); the rule doubles "
       "the off-diagonal; coincides at n = 1"),
    _e("pytorch137284.claimed_symmetrisation", "https://github.com/pytorch/pytorch/issues/137284 (closed, claim rejected)",
       "if dy = Tr(S dSigma) then Sigma_bar = S + S^T - diag(S)", False,
       ["grad(trace(S*X), X) = S + S.T - hadamard(S, eye(n))", "--shape", "S=n,n", "--shape", "X=n,n",
        "--assume", "X=spd"],
       "on Sym(n) with the Frobenius inner product the gradient is (S + S^T)/2; coincides at n = 1"),

    # ================================ autodiff bug reports: logdet / cholesky ==============================
    _e("autograd56.logdet_via_cholesky", "https://github.com/HIPS/autograd/pull/56",
       "for positive definite X, grad of 2 sum log diag(cholesky(X)) is inv(X) (after symmetrising)", True,
       ["grad(2*log(det(cholesky(X))), X) = X**-1", "--shape", "X=n,n", "--assume", "X=spd"],
       "2 log det L = log det X; symmetric gradient of log det on SPD is X^{-1}", degenerate=True,
       note="sum log diag L written as log det L (L triangular)"),
    _e("autograd56.prefix_lower_triangular_gradient", "https://github.com/HIPS/autograd/pull/56 (the output before the fix)",
       "grad(plogdet)(X) = lower triangle: 2 inv(X) below the diagonal, inv(X) on it, 0 above", False,
       ["grad(2*log(det(cholesky(X))), X) = 2*tril(X**-1) - hadamard(X**-1, eye(n))", "--shape", "X=n,n",
        "--assume", "X=spd"],
       "that is the free gradient of a function reading the lower triangle, not the gradient on Sym(n) "
       "(X^{-1}); coincides at n = 1"),
    _e("pytorch18825.inverse_via_cholesky", "https://github.com/pytorch/pytorch/issues/18825",
       "A^{-1} = L^{-T} L^{-1}; the gradient of tr(A^{-1}) through cholesky must equal the direct one", True,
       ["grad(trace(cholesky(X).T**-1*cholesky(X)**-1), X) = -X**-1*X**-1", "--shape", "X=n,n",
        "--assume", "X=spd"],
       "tr(X^{-1}) has symmetric gradient -X^{-2}", degenerate=True,
       note="the direct gradient -X^{-2} written out"),

    # ================================ softmax / logsumexp ==================================================
    _e("pytorch49724.grad_logsumexp", "https://github.com/pytorch/pytorch/issues/49724 (d logsumexp([x])/dx)",
       "d logsumexp(x) / dx = softmax(x), including a single element (= 1)", True,
       ["grad(logsumexp(z), z) = softmax(z)", "--shape", "z=n,1"],
       "d/dz_j log sum exp z = exp z_j / sum exp z", degenerate=True),
    _e("dynet218.logsoftmax_backward", "https://github.com/clab/dynet/issues/218",
       "gradient of logsoftmax: grad - sum(grad) * softmax(x)", True,
       ["grad(trace(g.T*log(softmax(z))), z) = g - trace(ones(1, n)*g)*softmax(z)", "--shape", "z=n,1",
        "--shape", "g=n,1"],
       "f = sum g_i (z_i - lse z); df/dz_j = g_j - (sum g) p_j; at n = 1 both sides are 0", degenerate=True),
    _e("flashattn.softmax_jacobian", "https://timashov.ai/blog/2026/attention-backward (softmax Jacobian)",
       "d softmax(x) / dx = diag(y) - y y^T", True,
       ["jacobian(softmax(z), z) = diag(softmax(z)) - softmax(z)*softmax(z).T", "--shape", "z=n,1"],
       "dy_i/dx_j = y_i (delta_ij - y_j); at n = 1 both sides are 0", degenerate=True),

    # ================================ normalisation layers ================================================
    _e("issue18.rmsnorm_known_wrong_verdict", "issue 18 brief (RMSNorm backward, weight 1; formula of Liger-Kernel PR #117)",
       "d/dx <g, x/rms(x)> = g/rms - x <g, x>/(N rms^3)", True,
       [f"grad(trace(g.T*x)/{RMS}, x) = g/{RMS} - x*trace(g.T*x)/(N*{RMS}**3)", "--shape", "x=N,1",
        "--shape", "g=N,1"],
       "rms' = x/(N rms); at N = 1 f = g sign(x) so both sides are 0", degenerate=True),
    _e("liger117.rmsnorm_dx", "https://github.com/linkedin/Liger-Kernel/pull/117 (docstring of _rms_norm_backward)",
       "dx = (1/RMS) * [dy*w - (1/N) * (1/RMS^2) * ((dy*w) . x) * x]", True,
       [f"grad(trace(g.T*hadamard(w, x))/{RMS}, x) = (hadamard(g, w) - x*trace(hadamard(g, w).T*x)/(N*{RMS}**2))/{RMS}",
        "--shape", "x=N,1", "--shape", "g=N,1", "--shape", "w=N,1"],
       "y = w o x / rms; same derivation with g replaced by g o w; 0 = 0 at N = 1", degenerate=True,
       note="no eps (the docstring's RMS has none)"),
    _e("llmc763.rmsnorm_forgot_weight", "https://github.com/karpathy/llm.c/pull/763 (review: 'forgot to multiply by the weight in the backward pass')",
       "dx = (1/RMS) * [dy - (1/N) * (1/RMS^2) * (dy . x) * x]   for y = w o x / RMS", False,
       [f"grad(trace(g.T*hadamard(w, x))/{RMS}, x) = (g - x*trace(g.T*x)/(N*{RMS}**2))/{RMS}",
        "--shape", "x=N,1", "--shape", "g=N,1", "--shape", "w=N,1"],
       "the weight multiplies dy inside the bracket; false for N >= 2 (0 = 0 at N = 1)"),
    _e("pytorch188372.layernorm_weight_grad", "https://github.com/pytorch/pytorch/issues/188372",
       "LayerNorm with normalized_shape=(1,): output = bias, so weight.grad must be exactly zero; in general "
       "d/dw <g, w o xhat + b> = g o xhat", True,
       [f"grad(trace(g.T*(hadamard(w, {XHAT}) + b)), w) = hadamard(g, {XHAT})", "--shape", "x=N,1",
        "--shape", "g=N,1", "--shape", "w=N,1", "--shape", "b=N,1"],
       "linear in w; xhat = 0 exactly at N = 1", degenerate=True, note="eps = 1e-5 as in the report"),
    _e("triton.layernorm_dx", "Triton tutorial 05-layer-norm, quoted in https://github.com/openxla/xla/pull/8225",
       "dx = (1/sigma) (dy o w - (1/N (xhat . (dy o w))) xhat - (1/N) (dy . w) 1)", True,
       [(f"grad(trace(g.T*hadamard(w, {XHAT})), x) = (hadamard(g, w) - {XHAT}*trace({XHAT}.T*hadamard(g, w))/N "
        f"- ones(N, 1)*trace(w.T*g)/N)/{S_LN}"),
        "--shape", "x=N,1", "--shape", "g=N,1", "--shape", "w=N,1"],
       "f = (g o w)^T P x / s, s = sqrt(x^T P x/N + eps); grad = P(g o w)/s - (g o w)^T P x P x/(N s^3); "
       "0 = 0 at N = 1", degenerate=True, note="sigma = sqrt(var + eps), eps = 1e-5"),
    _e("slip.layernorm_sigma_constant", "slip against the Triton formula (sigma treated as a constant)",
       "dx = (1/sigma) (dy o w - (1/N) (dy . w) 1)", False,
       [f"grad(trace(g.T*hadamard(w, {XHAT})), x) = (hadamard(g, w) - ones(N, 1)*trace(w.T*g)/N)/{S_LN}",
        "--shape", "x=N,1", "--shape", "g=N,1", "--shape", "w=N,1"],
       "drops -xhat (xhat . (dy o w))/N; false for N >= 2 (0 = 0 at N = 1)"),
    _e("cs231n.batchnorm_dx", "https://talwarabhimanyu.github.io/blog/2017/06/01/batchnorm-calculus (CS231n batchnorm_backward_alt)",
       "dx = (1/N) gamma (var + eps)^{-1/2} (N dy - sum(dy) - xhat sum(dy o xhat))", True,
       [(f"grad(trace(g.T*(gamma*{XHAT} + beta*ones(N, 1))), x) = gamma*(N*g - ones(N, 1)*trace(ones(1, N)*g) "
        f"- {XHAT}*trace(g.T*{XHAT}))/(N*{S_LN})"), "--shape", "x=N,1", "--shape", "g=N,1"],
       "one feature over a batch of N: the layer-norm derivation along the batch axis; 0 = 0 at N = 1",
       degenerate=True, note="gamma, beta scalars; eps = 1e-5"),

    # ================================ attention ============================================================
    _e("flashattn.dQ", "https://deepwiki.com/Dao-AILab/flash-attention/4.2-backward-pass-algorithm (FlashAttention backward)",
       "dP = dO V^T, dS = P o (dP - rowsum(dP o P)), dQ = dS K   (scale 1/sqrt(d) on S)", True,
       [f"grad({ATT_F}, Q) = {DS}*K/sqrt(d)", *ATT_SHAPES],
       "row-wise softmax JVP; with one key (m = 1) P = 1 and both sides are 0", degenerate=True),
    _e("flashattn.dK", "https://deepwiki.com/Dao-AILab/flash-attention/4.2-backward-pass-algorithm",
       "dK = dS^T Q   (scale 1/sqrt(d) on S)", True,
       [f"grad({ATT_F}, K) = {DS}.T*Q/sqrt(d)", *ATT_SHAPES],
       "S = QK^T/sqrt(d): dS contributes dS^T Q/sqrt(d) to K; 0 = 0 at m = 1", degenerate=True),
    _e("flashattn.dV", "https://deepwiki.com/Dao-AILab/flash-attention/4.2-backward-pass-algorithm",
       "dV = P^T dO", True,
       [f"grad({ATT_F}, V) = {ATT}.T*G", *ATT_SHAPES],
       "O = PV is linear in V", degenerate=True),
    _e("pytorchnlp2.single_key_weights", "https://github.com/PetrochukM/PyTorch-NLP/issues/2 (softmax over an axis of length 1 is identically 1)",
       "one key (m = 1): every query puts weight 1 on it, softmax(q K^T/sqrt(d)) = 1", True,
       ["softmax(Q*K.T/sqrt(d), 1) = ones(n, 1)", "--shape", "Q=n,d", "--shape", "K=1,d"],
       "row-wise softmax of an n x 1 score matrix: each row has one entry, exp(s)/exp(s) = 1", degenerate=True,
       note="the score matrix Q K^T is n x 1 (one column); the axis is given, as PyTorch code gives dim=-1: a declared n x 1 matrix is a column vector, whose default softmax normalises its entries"),
    _e("labml146.softmax_over_queries", "https://github.com/labmlai/annotated_deep_learning_paper_implementations/issues/146 "
       "(attention softmax taken over the query axis instead of the key axis)",
       "one key (m = 1): the attention weights sum to 1 over the queries, 1^T softmax(Q K^T/sqrt(d)) = 1", False,
       ["trace(ones(1, n)*softmax(Q*K.T/sqrt(d), 1)) = 1", "--shape", "Q=n,d", "--shape", "K=1,d"],
       "with the key-axis (row) softmax every weight is 1, so the sum is n; false for n >= 2"),
    _e("slip.attention_no_centering", "slip against the FlashAttention backward (rowsum term dropped)",
       "dS = P o dP, dQ = dS K", False,
       [f"grad({ATT_F}, Q) = hadamard({ATT}, {DP})*K/sqrt(d)", *ATT_SHAPES],
       "the softmax JVP needs - rowsum(dP o P); false even at m = 1 (left 0, right P o dP K != 0)"),

    # ================================ SPD: det / logm / sqrtm at n = 1, 2 ===================================
    _e("issue18.trace_logm_product", "issue 18 brief; follows from tr logm M = log det M",
       "A, B SPD: tr(logm(AB)) = tr(logm A) + tr(logm B)", True,
       ["trace(logm(A*B)) = trace(logm(A)) + trace(logm(B))", "--shape", "A=n,n", "--shape", "B=n,n",
        "--assume", "A=spd", "--assume", "B=spd", "--size", "n=1:2"],
       "AB ~ A^{1/2} B A^{1/2} has positive eigenvalues; tr logm = sum log lambda = log det(AB)", degenerate=True),
    _e("cheatsheet.logdet_trace_log", CHEATSHEET + " ('log det X = tr(log X)')",
       "log det X = tr(log X)", True,
       ["log(det(A)) = trace(logm(A))", "--shape", "A=n,n", "--assume", "A=spd", "--size", "n=1:2"],
       "sum of log eigenvalues", degenerate=True),
    _e("slip.logm_product", "slip: the scalar rule log(ab) = log a + log b applied to SPD matrices",
       "logm(AB) = logm(A) + logm(B)", False,
       ["logm(A*B) = logm(A) + logm(B)", "--shape", "A=n,n", "--shape", "B=n,n", "--assume", "A=spd",
        "--assume", "B=spd", "--size", "n=1:2"],
       "holds only when A, B commute; false at n = 2 for generic SPD A, B"),
    _e("slip.det_inverse_equals_det", COOKBOOK + ", sec. 1.1, eq. (22) prints det(A^{-1}) = 1/det(A); the slip drops the reciprocal",
       "det(A^{-1}) = det(A)", False,
       ["det(A**-1) = det(A)", "--shape", "A=n,n", "--assume", "A=spd", "--size", "n=1:2"],
       "det(A^{-1}) = 1/det(A) != det(A) unless det(A) = +-1; false for generic SPD A at n = 1 and n = 2"),
    _e("slip.grad_det_as_logdet", CHEATSHEET + " (rows 'det(X) -> det(X)(X^{-1})^T' and 'ln det(X) -> X^{-1}' confused)",
       "X SPD: d det(X) / dX = X^{-1}", False,
       ["grad(det(X), X) = X**-1", "--shape", "X=n,n", "--assume", "X=spd", "--size", "n=1:2"],
       "the gradient is det(X) X^{-1}; the printed form drops det(X); false unless det X = 1"),
    _e("higham.det_sqrtm", "Higham, Functions of Matrices (SIAM 2008), principal square root; det of f(A) = prod f(lambda)",
       "det(A^{1/2}) = sqrt(det A)", True,
       ["det(sqrtm(A)) = sqrt(det(A))", "--shape", "A=n,n", "--assume", "A=spd", "--size", "n=1:2"],
       "prod sqrt(lambda_i)", degenerate=True),
    _e("sympy20710.principal_root_of_square", "https://github.com/sympy/sympy/pull/20710 (M**S.Half); Higham Thm 1.29",
       "A SPD: (A^2)^{1/2} = A (principal root)", True,
       ["sqrtm(A*A) = A", "--shape", "A=n,n", "--assume", "A=spd", "--size", "n=1:2"],
       "A^2 is SPD with the positive root A", degenerate=True),
    _e("slip.sqrtm_product", "slip: (ab)^{1/2} = a^{1/2} b^{1/2} applied to SPD matrices",
       "(AB)^{1/2} = A^{1/2} B^{1/2}", False,
       ["sqrtm(A*B) = sqrtm(A)*sqrtm(B)", "--shape", "A=n,n", "--shape", "B=n,n", "--assume", "A=spd",
        "--assume", "B=spd", "--size", "n=1:2"],
       "the right side squared is A^{1/2}B^{1/2}A^{1/2}B^{1/2} != AB unless A, B commute; false at n = 2"),
    _e("tf20611.grad_trace_sqrtm", "https://github.com/tensorflow/tensorflow/pull/20611 (gradient of matrix square root)",
       "d tr(X^{1/2}) / dX = (1/2) X^{-1/2}", True,
       ["grad(trace(sqrtm(X)), X) = sqrtm(X)**-1/2", "--shape", "X=n,n", "--assume", "X=spd", "--size", "n=1:2"],
       "d tr f(X) = tr(f'(X) dX) with f = sqrt", degenerate=True),
    _e("tf20611.sqrtm_sylvester", "https://github.com/tensorflow/tensorflow/pull/20611 ('Kronecker products within the Sylvester equation')",
       "R = X^{1/2}: R dR' + dR' R = dR (Sylvester), vec(dX) = (I (x) R + R^T (x) I)^{-1} vec(G)", True,
       ["vec(grad(trace(G.T*sqrtm(X)), X)) = (kron(eye(n), sqrtm(X)) + kron(sqrtm(X), eye(n)))**-1*vec((G + G.T)/2)",
        "--shape", "X=n,n", "--shape", "G=n,n", "--assume", "X=spd", "--size", "n=1:2"],
       "R dR + dR R = dX; on Sym(n) the gradient Z solves RZ + ZR = sym(G)", degenerate=True,
       note="symmetric gradient (X spd), so G is symmetrised"),
    _e("geomstats348.grad_trace_logm", "https://github.com/geomstats/geomstats/pull/348 (differentials of matrix log)",
       "d tr(log X) / dX = X^{-1}", True,
       ["grad(trace(logm(X)), X) = X**-1", "--shape", "X=n,n", "--assume", "X=spd", "--size", "n=1:2"],
       "d tr log X = tr(X^{-1} dX)", degenerate=True),
    _e("srinivasan_panda.sym_grad", "Srinivasan & Panda, arXiv:1911.06491, 'G_s = sym(G)'",
       "X symmetric: d Tr(A^T X B)/dX = (A B^T + B A^T)/2", True,
       ["grad(trace(A.T*X*B), X) = (A*B.T + B*A.T)/2", "--shape", "A=n,m", "--shape", "X=n,n",
        "--shape", "B=n,m", "--assume", "X=symmetric", "--size", "n=1:2"],
       "Riesz representative on Sym(n) of tr(BA^T dX)", degenerate=True),

    # ================================ orthogonal / antisymmetric at n = 1, 2 ===============================
    _e("cookbook.orthogonal_inverse", COOKBOOK + ", sec. 9 (special matrices; orthogonal: Q^{-1} = Q^T)",
       "Q orthogonal: Q^{-1} = Q^T", True,
       ["Q**-1 = Q.T", "--shape", "Q=n,n", "--assume", "Q=orthogonal", "--size", "n=1:2"],
       "Q^T Q = I", degenerate=True),
    _e("cookbook.orthogonal_det", COOKBOOK + ", sec. 9 (special matrices; orthogonal: det Q = +-1)",
       "Q orthogonal: det(Q)^2 = 1", True,
       ["det(Q)**2 = 1", "--shape", "Q=n,n", "--assume", "Q=orthogonal", "--size", "n=1:2"],
       "det(Q^T Q) = 1", degenerate=True),
    _e("skew.quadratic_form_zero", "standard property of skew-symmetric matrices, https://en.wikipedia.org/wiki/Skew-symmetric_matrix",
       "A = -A^T: x^T A x = 0", True,
       ["trace(x.T*A*x) = 0", "--shape", "x=n,1", "--shape", "A=n,n", "--assume", "A=antisymmetric"],
       "x^T A x = (x^T A x)^T = -x^T A x", degenerate=True),
    _e("lie.expm_skew_orthogonal", "standard (exponential map so(n) -> SO(n)), https://en.wikipedia.org/wiki/Skew-symmetric_matrix",
       "A = -A^T: exp(A)^T exp(A) = I", True,
       ["expm(A).T*expm(A) = eye(n)", "--shape", "A=n,n", "--assume", "A=antisymmetric", "--size", "n=1:2"],
       "exp(A)^T = exp(-A)", degenerate=True),
    _e("skew.det_odd_order", "standard property of skew-symmetric matrices of odd order (Jacobi), https://en.wikipedia.org/wiki/Skew-symmetric_matrix",
       "A = -A^T, n odd: det(A) = 0", True,
       ["det(A) = 0", "--shape", "A=3,3", "--assume", "A=antisymmetric"],
       "det A = det A^T = det(-A) = (-1)^n det A", degenerate=False),
    # ================================ fixed sizes, wide ranges (helper-36, stop 38) ===========================
    _e("cayley_hamilton.n2", "Cayley-Hamilton theorem for 2 x 2 matrices, https://en.wikipedia.org/wiki/Cayley%E2%80%93Hamilton_theorem",
       "A^2 - tr(A) A + det(A) I = 0", True,
       ["A*A - trace(A)*A + det(A)*eye(2) = zeros(2, 2)", "--shape", "A=2,2"],
       "the characteristic polynomial t^2 - tr(A) t + det(A) annihilates A; both sides vanish numerically",
       note="was INCONCLUSIVE (vacuous) before the explicit entries of decision 153"),
    _e("cayley_hamilton.n2_factor", "Cayley-Hamilton theorem for 2 x 2 matrices (a factor-2 slip of it)",
       "A^2 - tr(A) A + 2 det(A) I = 0", False,
       ["A*A - trace(A)*A + 2*det(A)*eye(2) = zeros(2, 2)", "--shape", "A=2,2"],
       "the true form minus this one is det(A) I, nonzero for an invertible A"),
    _e("cookbook.sherman_morrison_3", COOKBOOK + ", sec. 3.2.2, eq. (160), at 3 x 3",
       "(A + b c^T)^{-1} = A^{-1} - A^{-1} b c^T A^{-1} / (1 + c^T A^{-1} b)", True,
       ["(A + b*c.T)**-1 = A**-1 - A**-1*b*c.T*A**-1/(1 + trace(c.T*A**-1*b))",
        "--shape", "A=3,3", "--shape", "b=3,1", "--shape", "c=3,1"],
       "multiply by A + b c^T", note="numeric shapes: proved on explicit entries (decision 153)"),
    _e("sizes.false_at_one_only", "a helper's statement (stop 38): false at n = 1 only, wide --size range",
       "tr(A) = tr(A) + 0^(n-1)", False,
       ["trace(A) = trace(A) + 0**(n-1)", "--shape", "A=n,n", "--size", "n=1:100"],
       "0^0 = 1 at n = 1, 0 above", degenerate=True,
       note="VERIFIED before the smallest configuration always ran (decision 156)"),
]


def by_id(cid: str) -> dict:
    """The corpus entry with id ``cid`` (KeyError if none)."""
    for e in CORPUS:
        if e["id"] == cid:
            return e
    raise KeyError(cid)
