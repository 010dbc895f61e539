"""A gallery of complex matrix calculus: Wirtinger gradients and Hermitian identities, right and wrong.

Run it with ``theorem-check run --pack examples/complex_calculus.py``.  Every case is one :func:`tc.erratum`
call, as in ``examples/matrix_calculus.py``: the *printed* form is a slip people make with complex
matrices (the conjugate left out, the transpose written for the conjugate transpose ``.H``, the factor 2
of the other gradient convention), the *corrected* form is the identity, derived by hand in the comment
above it.  Each comes back ERRATUM: as printed REFUTED with its smallest counterexample, corrected
VERIFIED.  Each statement is also a one-liner for ``theorem-check check``, e.g.::

    theorem-check check "grad(real(z.H*A*z), z) = A*z" --shape z=n,1 --shape A=n,n --assume z=complex --assume A=hermitian

Conventions: a name declared ``complex`` has i.i.d. ``CN(0, 1)`` entries ``(x + iy)/sqrt(2)``, a ``hermitian``
one is ``(G + G^H)/2``; ``X.H`` is the conjugate transpose, ``conj``/``real``/``imag``/``abs`` act entrywise.
``grad(f, Z)`` of a complex ``Z`` is the conjugate Wirtinger derivative ``df/d conj(Z) = (df/dX + i df/dY)/2``
(``Z = X + iY``; Kreutz-Delgado, "The Complex Gradient Operator and the CR-Calculus", arXiv:0906.4835), so
that ``f(Z + dZ) = f(Z) + 2 Re tr(grad^H dZ)`` for a real ``f``; ``grad_xy(f, Z) = 2 grad(f, Z)`` is the
steepest-ascent reading (PyTorch's ``z.grad``).  In the derivations ``Z`` and ``conj(Z)`` are independent
variables (the CR-calculus), and ``d tr(conj(Z)^T M) / d conj(Z) = M``.  Sizes are drawn from 2..4.
"""

import theorem_check as tc

N = (2, 4)


def case(label, lhs, printed, corrected, shapes, **kw):
    """One gallery entry: ``lhs = printed`` (wrong) with ``lhs = corrected``; sizes 2..4."""
    sizes = {**{v: N for s in shapes.values() for v in s if isinstance(v, str)}, **kw.pop("sizes", {})}
    return tc.erratum(f"complex.{label}", lhs=lhs, printed=printed, corrected=corrected, shapes=shapes,
                      sizes=sizes, section="gallery", **kw)


ZA = {"z": ("n", 1), "A": ("n", "n")}

# --- Wirtinger gradients ----------------------------------------------------------------------------------------
# f(z) = z^H A z with A Hermitian is real; f = conj(z)^T A z, so df/dconj(z) = A z.  The factor 2 belongs to
# the steepest-ascent reading df/dx + i df/dy (grad_xy), not to df/dconj(z).
case("wirtinger_quadratic", "grad(real(z.H*A*z), z)", "2*A*z", "A*z", ZA,
     structure={"z": "complex", "A": "hermitian"})
# f(X) = Re tr(X^H A X), A any complex matrix: tr(X^H A X) has df/dconj(X) = A X, its conjugate
# tr(X^T conj(A) conj(X)) = tr(conj(X)^T A^H X) has A^H X, so the gradient is (A + A^H) X / 2, not (A + A^T) X / 2.
case("wirtinger_trace_product", "grad(real(trace(X.H*A*X)), X)", "(A + A.T)*X/2", "(A + A.H)*X/2",
     {"X": ("n", "p"), "A": ("n", "n")}, structure={"X": "complex", "A": "complex"})
# f(z) = |a^H z|^2 = (a^H z)(z^H a): df/dconj(z) = a (a^H z); without the conjugate, a^T z is no inner product.
case("wirtinger_rank_one", "grad(abs(trace(a.H*z))**2, z)", "a*trace(a.T*z)", "a*trace(a.H*z)",
     {"z": ("n", 1), "a": ("n", 1)}, structure={"z": "complex", "a": "complex"})

# --- Hermitian identities ---------------------------------------------------------------------------------------
# (AB)^H = B^H A^H: the conjugate transpose reverses a product and conjugates; B^T A^T drops the conjugate.
case("adjoint_product", "(A*B).H", "B.T*A.T", "B.H*A.H", {"A": ("m", "k"), "B": ("k", "n")},
     structure={"A": "complex", "B": "complex"})
# tr(A^H A) = sum_ij |a_ij|^2 = tr(|A|^T |A|): real and >= 0.  tr(A^T A) = sum_ij a_ij^2 (conjugate missing) is
# neither.
case("trace_gram", "trace(A.H*A)", "trace(A.T*A)", "trace(abs(A).T*abs(A))", {"A": ("m", "n")},
     structure={"A": "complex"})
