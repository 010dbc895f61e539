"""Matrix calculus in closed form: :func:`gradient`, :func:`jacobian`, :func:`hessian` of parsed expressions.

The gradient of a scalar ``f`` with respect to a matrix ``X`` is computed by reverse mode on the
expression tree (the adjoint, or "backward", rules of matrix calculus; Giles, "An extended collection
of matrix derivative results for forward and reverse mode AD", 2008, sec. 2-3; the reverse mode of
Laue, Mitterreiter & Giesen, "Computing Higher Order Derivatives of Matrix and Tensor Expressions",
NeurIPS 2018): every node passes its adjoint ``bar`` (same shape as the node, ``df/dnode``) to its
arguments, and the adjoints reaching ``X`` are summed.  The rules are closed matrix expressions, so the
result is one (``A.T*B.T``, ``det(X)*X.T**-1``, ``hadamard(B, exp(X))``):

* ``A*B``: ``bar*B^T`` to ``A``, ``A^T*bar`` to ``B``; ``A + B``: ``bar`` to both; ``A^T``: ``bar^T``;
  ``A^-1 = Y``: ``-Y^T bar Y^T``; ``A^k`` (integer ``k``): ``sum_j (A^T)^j bar (A^T)^(k-1-j)``;
* ``tr(A)``: ``bar I``; ``det(A)``: ``bar det(A) A^-T`` (Matrix Cookbook eq. 49); scalar functions
  (``log``, powers, products, ``exp``, ...) by SymPy's scalar ``diff`` (the chain rule);
* ``A o B`` (Hadamard): ``bar o B`` to ``A``; ``f(A)`` entrywise: ``bar o f'(A)``;
* ``softmax(X, axis)`` ``= S``: ``S o (bar - 1 1^T (S o bar))`` (columns) or ``S o (bar - (S o bar) 1 1^T)``
  (rows); ``logsumexp(x)``: ``bar softmax(x)``; ``diag``: ``diag`` of the adjoint; ``vec`` of a column;
  ``tr(kron(A, B)) = tr(A) tr(B)`` and ``det(kron(A, B)) = det(A)^m det(B)^n`` first.

Jacobians (``J_ij = dF_i/dx_j`` of a column ``F`` by a column ``x``) and Hessians of a scalar by a column
(the Jacobian of its gradient) come from SymPy's matrix derivative (``sympy.diff`` of a matrix
expression, which is the index-form method of SymPy's array expressions; it returns ``J^T``), taken term
by term (SymPy 1.14 returns ``ZeroMatrix`` for some sums).

**Every result is checked before it is returned** (:func:`~theorem_check.expr.derivative_check.verify`): at one concrete size (each size
letter a distinct integer 2, 3, ...), with explicit matrices, the entrywise derivative of ``f`` (SymPy
``diff`` of the explicit scalar) is compared with the result at two random points with rational
entries: exactly where the difference is rational, to 1e-40 relative at 60 digits where it is
transcendental (``exp``, ``log`` of entries).  A mismatch is :class:`~theorem_check.errors.InternalError`
(a bug of these rules or of SymPy), never a verdict.  An expression outside the rules is
:class:`NotDifferentiable` (one line naming the node).

Symmetric domain: with ``symmetric=True`` the gradient is the one on the symmetric matrices,
``(G + G^T)/2`` with ``G`` the free gradient and ``X^T`` written ``X`` (Srinivasan & Panda,
arXiv:1911.06491; the convention of ``check`` for a ``wrt`` declared symmetric or spd).

>>> import sympy as sp
>>> n = sp.Symbol("n", integer=True, positive=True)
>>> X, A = sp.MatrixSymbol("X", n, n), sp.MatrixSymbol("A", n, n)
>>> gradient(sp.Trace(A * X), X)
A.T
>>> gradient(sp.log(sp.Determinant(X)), X, symmetric=True)
X**(-1)
"""

from __future__ import annotations

import sympy as sp
from sympy.matrices.expressions.diagonal import DiagMatrix, DiagonalOf

from theorem_check.errors import InternalError, ShapeMismatch
from theorem_check.expr.derivative_check import CHECK_SEED, verify
from theorem_check.expr.nodes import NotDifferentiable, Softmax, entrywise, is_matrix

__all__ = ["NotDifferentiable", "gradient", "jacobian", "hessian", "verify", "entrywise", "CHECK_SEED"]

def _wrt(X) -> None:
    if not isinstance(X, sp.MatrixSymbol):
        raise NotDifferentiable(f"wrt={X} must be a matrix or vector name (a MatrixSymbol)")


def _no_long_powers(f) -> None:
    """NotDifferentiable for an integer matrix power beyond ``normal_form.MAX_POWER``: the derivative of
    ``A**k`` is a sum of ``k`` products (``trace(A**10**7)`` ran for hours)."""
    from theorem_check.expr.normal_form import MAX_POWER

    for p in sp.sympify(f).atoms(sp.MatPow):
        if p.exp.is_Integer and abs(int(p.exp)) > MAX_POWER:
            raise NotDifferentiable(f"{p.base}**{p.exp}: the closed-form derivative of a matrix power beyond "
                                    f"{MAX_POWER} is a sum of {abs(int(p.exp))} products (not written out)")
    for t in sp.sympify(f).atoms(sp.Trace):   # trace(x) of an n x 1 x: bad input, not a bug of the rules (exit 2)
        r, c = t.arg.shape
        if sp.simplify(r - c) != 0:
            from theorem_check.expr.printing import expr_text

            raise ShapeMismatch(f"trace of {expr_text(t.arg)}, which is {r} x {c}, not square")


def _scalar(f):
    """``f`` as a scalar: a 1x1 matrix expression is kept (its adjoint is ``bar * I_1``)."""
    if is_matrix(f) and tuple(f.shape) != (1, 1):
        raise NotDifferentiable(f"the gradient needs a scalar function, got shape {tuple(f.shape)}")
    return f


def _T(e):
    return sp.Transpose(e).doit()


def _rewrite_kron(e):
    """``tr(kron(A, B)) -> tr(A) tr(B)``, ``det(kron(A, B)) -> det(A)^m det(B)^n`` (A n x n, B m x m)."""
    def tr(t):
        a = t.arg
        return sp.Mul(*[sp.Trace(m) for m in a.args]) if isinstance(a, sp.KroneckerProduct) else t

    def det(t):
        a = t.arg
        if not isinstance(a, sp.KroneckerProduct) or len(a.args) != 2:
            return t
        A, B = a.args
        if A.shape[0] != A.shape[1] or B.shape[0] != B.shape[1]:
            return t
        return sp.Determinant(A) ** B.shape[0] * sp.Determinant(B) ** A.shape[0]
    return e.replace(lambda t: isinstance(t, sp.Trace), tr).replace(lambda t: isinstance(t, sp.Determinant), det)


class _Backward:
    """Reverse-mode accumulation of the adjoints that reach ``X`` (see the module docstring)."""

    def __init__(self, X):
        self.X = X
        self.terms: list = []

    def run(self, e, bar) -> None:
        if not e.has(self.X):
            return
        if e == self.X:
            self.terms.append(bar)
            return
        if is_matrix(e):
            name = f"_m_{type(e).__name__}"
        else:
            name = f"_s_{type(e).__name__}"
        rule = getattr(self, name, None)
        if rule is None:
            rule = self._s_generic if not is_matrix(e) else None
        if rule is None:
            raise NotDifferentiable(f"no closed-form derivative rule for {type(e).__name__} ({e}) with respect "
                                    f"to {self.X}")
        rule(e, bar)

    # scalar nodes ----------------------------------------------------------------------------
    def _s_Trace(self, e, bar):
        self.run(e.arg, bar * sp.Identity(e.arg.shape[0]))

    def _s_Determinant(self, e, bar):
        A = e.arg
        self.run(A, bar * e * sp.Inverse(sp.Transpose(A)))

    def _s_LogSumExp(self, e, bar):
        self.run(e.args[0], bar * Softmax(e.args[0], e.axis))

    def _s_Abs(self, e, bar):
        a = e.args[0]
        self.run(a, bar * a / e)   # d|a| = a/|a| da (a != 0; |a| is not differentiable at 0)

    def _s_generic(self, e, bar):
        """A scalar function of scalar arguments: the chain rule with SymPy's ``diff``."""
        if isinstance(e, (sp.Symbol, sp.Number)) or not e.args:
            return
        if any(is_matrix(a) and tuple(a.shape) != (1, 1) for a in e.args) or not isinstance(e, sp.Expr):
            raise NotDifferentiable(f"no closed-form derivative rule for {type(e).__name__} ({e})")
        dummies = [sp.Dummy(f"a{k}", real=True) for k in range(len(e.args))]   # statements are real
        g = e.func(*dummies)
        back = dict(zip(dummies, e.args))
        for d, a in zip(dummies, e.args):
            if a.has(self.X):
                da = sp.diff(g, d)
                if da.has(sp.Derivative, sp.Subs):
                    raise NotDifferentiable(f"no closed-form derivative of {e} (SymPy leaves {da})")
                self.run(a, bar * da.xreplace(back))

    # matrix nodes ----------------------------------------------------------------------------
    def _m_MatAdd(self, e, bar):
        for a in e.args:
            self.run(a, bar)

    def _m_MatMul(self, e, bar):
        c, mats = e.as_coeff_matrices()
        if c.has(self.X):   # a scalar factor (tr(X) A): d<bar, c M> = tr(bar^T M) dc
            self.run(c, sp.Trace(sp.MatMul(_T(bar), *mats)))
        for i, m in enumerate(mats):
            if not m.has(self.X):
                continue
            left, right = mats[:i], mats[i + 1:]
            parts = ([_T(sp.MatMul(*left))] if left else []) + [bar] + ([_T(sp.MatMul(*right))] if right else [])
            self.run(m, c * sp.MatMul(*parts) if len(parts) > 1 else c * bar)

    def _m_Transpose(self, e, bar):
        self.run(e.arg, _T(bar))

    def _m_Inverse(self, e, bar):
        Yt = sp.Transpose(e).doit()
        self.run(e.arg, -Yt * bar * Yt)

    def _m_MatPow(self, e, bar):
        base, k = e.args
        if not (sp.sympify(k).is_Integer):
            raise NotDifferentiable(f"no closed-form derivative of the matrix power {e} (a non-integer power)")
        k = int(k)
        if k < 0:
            self.run(sp.MatPow(sp.Inverse(base), -k) if k != -1 else sp.Inverse(base), bar)
            return
        At = _T(base)
        for j in range(k):
            self.run(base, sp.MatMul(At ** j, bar, At ** (k - 1 - j)).doit() if k > 1 else bar)

    def _m_HadamardProduct(self, e, bar):
        for i, a in enumerate(e.args):
            if a.has(self.X):
                others = e.args[:i] + e.args[i + 1:]
                self.run(a, sp.HadamardProduct(bar, *others))

    def _m_HadamardPower(self, e, bar):
        base, p = e.args
        if p.has(self.X):
            raise NotDifferentiable(f"no closed-form derivative of {e} (the exponent depends on {self.X})")
        if p == 1:
            self.run(base, bar)
            return
        self.run(base, sp.HadamardProduct(bar, p * sp.HadamardPower(base, p - 1)))

    def _m_ElementwiseApplyFunction(self, e, bar):
        fprime = e._get_function_fdiff()
        if isinstance(fprime, sp.Basic) and fprime.has(sp.Derivative, sp.Subs, sp.re, sp.im):   # abs: SymPy
            #   differentiates at a complex dummy (fprime is the class exp for exp: nothing to do)
            fprime = _real_fdiff(e.function)
        self.run(e.expr, sp.HadamardProduct(bar, entrywise(fprime, e.expr)))

    def _m_Softmax(self, e, bar):
        r, c = e.shape
        sb = sp.HadamardProduct(e, bar)
        sums = sp.OneMatrix(r, r) * sb if e.axis == 0 else sb * sp.OneMatrix(c, c)
        self.run(e.args[0], sp.HadamardProduct(e, bar - sums))

    def _m_LogSumExpAxis(self, e, bar):
        x = e.args[0]
        r, c = x.shape
        spread = bar * sp.OneMatrix(1, c) if e.axis == 1 else sp.OneMatrix(r, 1) * bar
        self.run(x, sp.HadamardProduct(spread, Softmax(x, e.axis)))

    def _m_DiagMatrix(self, e, bar):
        self.run(e.args[0], DiagonalOf(bar) if e.args[0].shape[1] == 1 else _T(DiagonalOf(bar)))

    def _m_DiagonalOf(self, e, bar):
        self.run(e.arg, DiagMatrix(bar))

    def _m_Vec(self, e, bar):
        a = e.args[0]
        if a.shape[1] != 1:
            raise NotDifferentiable(f"no closed-form derivative through vec of a matrix ({e}): the adjoint is "
                                    "an unvec (reshape), which the expression syntax has no node for")
        self.run(a, bar)


def _real_scalars(G):
    """Scalar factors simplified with traces and determinants known to be real (``det/|det|^2 * det = 1``)."""
    atoms = sorted(G.atoms(sp.Determinant, sp.Trace), key=str)
    if not atoms:
        return G
    real = {a: sp.Dummy(f"r{k}", real=True) for k, a in enumerate(atoms)}
    back = {v: k for k, v in real.items()}
    H = G.xreplace(real)
    terms = sp.MatAdd.make_args(H) if is_matrix(H) else [H]
    out = []
    for t in terms:
        if isinstance(t, sp.MatMul):
            c, mats = t.as_coeff_matrices()
            t = sp.MatMul(sp.simplify(c), *mats) if mats else t
        out.append(t)
    return (sp.MatAdd(*out) if len(out) > 1 else out[0]).xreplace(back).doit()


def _tidy(G):
    """A derivative in a readable canonical form: ``doit`` and, where it is cheap, SymPy's simplify."""
    G = _real_scalars(G.doit())
    try:
        H = sp.simplify(G)
        if is_matrix(H) and tuple(H.shape) == tuple(G.shape) and sp.count_ops(H) <= sp.count_ops(G):
            return H
    except Exception:  # noqa: BLE001 - simplification is cosmetic
        pass
    return G


def _symmetrise(G, X):
    """``(G + G^T)/2`` with ``X^T`` written ``X`` (valid on the symmetric matrices)."""
    sub = {sp.Transpose(X): X}
    G = G.xreplace(sub).doit().xreplace(sub)
    H = ((G + sp.Transpose(G)) / 2).doit().xreplace(sub).doit()
    return _tidy(H)


def gradient(f, X, *, symmetric: bool = False, check: bool = True):
    """The gradient ``G_ij = df/dX_ij`` (same shape as ``X``) of the scalar ``f`` in closed matrix form.

    Parameters
    ----------
    f : SymPy scalar expression (or a 1x1 matrix expression)
        A parsed side (:func:`theorem_check.expr.parse`) over ``MatrixSymbol`` objects of symbolic sizes.
    X : sympy.MatrixSymbol
        The variable (matrix, column or row).
    symmetric : bool
        The gradient on the symmetric matrices, ``(G + G^T)/2`` (arXiv:1911.06491), for ``X`` declared
        symmetric or spd.
    check : bool
        Verify the result at one concrete size (:func:`verify`; default True).

    Returns
    -------
    A SymPy matrix expression of ``X``'s shape (``ZeroMatrix`` when ``f`` does not depend on ``X``).

    Raises
    ------
    NotDifferentiable
        ``f`` has a node outside the rules (a matrix function, ``kron`` outside ``tr``/``det``, ...).
    InternalError
        The result disagrees with the entrywise derivative at the concrete size (a bug, never a verdict).
    """
    _no_long_powers(f)
    _wrt(X)
    f = _scalar(f)
    f0 = _rewrite_kron(f)
    back = _Backward(X)
    try:
        back.run(f0, sp.Identity(1) if is_matrix(f0) else sp.S.One)
    except (NotDifferentiable, InternalError):
        raise
    except Exception as exc:  # noqa: BLE001 - SymPy could not apply a rule: no closed form, never a wrong one
        raise NotDifferentiable(f"no closed-form derivative of {f} by {X} (SymPy: {type(exc).__name__}: "
                                f"{' '.join(str(exc).split())[:120]})") from None
    G = sp.MatAdd(*back.terms) if back.terms else sp.ZeroMatrix(*X.shape)
    G = _symmetrise(G, X) if symmetric else _tidy(G)
    if G.has(sp.Derivative) or not is_matrix(G) or tuple(G.shape) != tuple(X.shape):
        raise InternalError(f"gradient of {f} by {X}: got {G} (shape {getattr(G, 'shape', None)}), not a "
                            f"matrix of shape {tuple(X.shape)}")
    if check:
        verify(f, X, G, order=1, symmetric=symmetric)
    return G


def _real_fdiff(fn):
    """The derivative of the entrywise function ``fn`` (a ``Lambda``) at a real argument, ``sign(a)`` written
    ``a/|a|`` (the statements' real entries; as ``d|a| = a/|a| da`` of a scalar): ``derive`` of
    ``ones(n,1).T*log(abs(x))`` exited 3 on SymPy's complex-argument Piecewise (helper-40).  Raises
    NotDifferentiable when SymPy leaves a derivative unevaluated."""
    d = sp.Dummy("a", real=True)
    da = sp.diff(fn(d), d).replace(sp.sign, lambda a: a / sp.Abs(a))
    if da.has(sp.Derivative, sp.Subs):
        raise NotDifferentiable(f"no closed-form derivative of {fn(d)} (SymPy leaves {da})")
    return sp.Lambda(d, da)


def _column(x, what: str) -> None:
    _wrt(x)
    if x.shape[1] != 1:
        raise NotDifferentiable(f"{what} with respect to {x} of shape {tuple(x.shape)}: only a column vector "
                                "(n x 1) has a closed matrix form here")


def _sympy_diff(F, x):
    """SymPy's matrix derivative of the column ``F`` by the column ``x``, term by term (``J^T``)."""
    terms = sp.MatAdd.make_args(F) if is_matrix(F) else sp.Add.make_args(F)
    out = []
    for t in terms:
        if not t.has(x):
            continue
        if isinstance(t, sp.MatMul):
            scal = [a for a in t.args if not is_matrix(a)]
            mats = [a for a in t.args if is_matrix(a)]
            if any(a.has(x) for a in scal):   # c(x) M(x): SymPy drops grad(c) M^T (helper-35: the Hessian of
                c, m = sp.Mul(*scal), sp.MatMul(*mats)   # exp(-x^T x / 2))
                out.append(gradient(c, x, check=False) * sp.Transpose(m))
                out += [c * d for d in _sympy_diff(m, x)]
                continue
            if len(mats) >= 2 and isinstance(mats[0], DiagMatrix) and t.shape[1] == 1:
                had = sp.HadamardProduct(mats[0].args[0], _product(mats[1:]))   # diag(a) b = a o b
                out += [sp.Mul(*scal) * d for d in _entrywise_rule(had, x)]
                continue
            if scal and len(mats) == 1:       # c M(x), c constant: the rules below see M
                out += [sp.Mul(*scal) * d for d in _sympy_diff(mats[0], x)]
                continue
            if len(mats) > 1 and not mats[0].has(x) and t.shape[1] == 1 and _needs_rules(t):
                tail = _product(mats[1:])   # c A m(x): J^T = J_m^T A^T c
                out += [sp.Mul(*scal) * d * sp.Transpose(mats[0]) for d in _sympy_diff(tail, x)]
                continue
        rule = _entrywise_rule(t, x)
        if rule is not None:
            out += rule
            continue
        try:
            d = sp.diff(t, x)
        except Exception as exc:  # noqa: BLE001 - SymPy's matrix calculus raises many types
            raise NotDifferentiable(f"no closed-form derivative of {t} by {x} (SymPy: "
                                    f"{type(exc).__name__})") from None
        if not is_matrix(d) or d.has(sp.Derivative) or isinstance(d, sp.ZeroMatrix):
            raise NotDifferentiable(f"no closed-form derivative of {t} by {x} (SymPy returned {d})")
        out.append(d)
    return out


def _needs_rules(e) -> bool:
    """True when ``e`` holds a node whose column derivative :func:`_entrywise_rule` takes (SymPy's fails)."""
    from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

    return e.has(ElementwiseApplyFunction, sp.HadamardProduct, sp.HadamardPower, Softmax, DiagMatrix, DiagonalOf)


def _entrywise_rule(t, x):
    """``J^T`` of a column ``t`` built entrywise from columns (a list of terms), or None for SymPy's own rules.

    ``d f(a) = f'(a) o da``, ``d (a o b) = b o da + a o db`` and ``d a^p = p a^(p-1) o da``, so
    ``J^T = J_a^T diag(f'(a))``, ``J_a^T diag(b) + J_b^T diag(a)`` and ``J_a^T diag(p a^(p-1))``; a column
    softmax's ``J = diag(s) - s s^T``.  SymPy 1.14 raises IndexError or RecursionError on these (the Hessians
    of ``sum(sigmoid(x))``, ``sum(tanh(x))``, ``logsumexp(W*x)``)."""
    from sympy.matrices.expressions.applyfunc import ElementwiseApplyFunction

    if not is_matrix(t) or t.shape[1] != 1:
        return None
    if isinstance(t, ElementwiseApplyFunction):
        slope = entrywise(t._get_function_fdiff(), t.expr)
        return [d * DiagMatrix(slope) for d in _sympy_diff(t.expr, x)]
    if isinstance(t, sp.HadamardProduct):
        out = []
        for i, a in enumerate(t.args):
            if a.has(x):
                others = t.args[:i] + t.args[i + 1:]
                rest = others[0] if len(others) == 1 else sp.HadamardProduct(*others)
                out += [d * DiagMatrix(rest) for d in _sympy_diff(a, x)]
        return out
    if isinstance(t, sp.HadamardPower) and not t.exp.has(x):
        base, p = t.args
        slope = p * (sp.OneMatrix(*base.shape) if p == 1 else base if p == 2 else sp.HadamardPower(base, p - 1))
        return [d * DiagMatrix(slope) for d in _sympy_diff(base, x)]
    if isinstance(t, DiagonalOf) and isinstance(t.arg, sp.MatMul):
        scal = sp.Mul(*[a for a in t.arg.args if not is_matrix(a)])
        mats = [a for a in t.arg.args if is_matrix(a)]    # diag(a b^T) = a o b for columns a, b
        if len(mats) >= 2 and mats[0].shape[1] == 1 and not scal.has(x):
            return [scal * d for d in _entrywise_rule(sp.HadamardProduct(mats[0], _T(_product(mats[1:]))), x)]
    if isinstance(t, Softmax) and t.axis == 0:    # J = diag(s) - s s^T (symmetric)
        jac = DiagMatrix(t) - t * sp.Transpose(t)
        return [jac] if t.args[0] == x else [d * jac for d in _sympy_diff(t.args[0], x)]
    return None


def _product(mats):
    """The matrix product of the factors ``mats`` (the factor itself when there is one: SymPy's one-factor
    ``MatMul`` is not that factor)."""
    return mats[0] if len(mats) == 1 else sp.MatMul(*mats)


def jacobian(F, x, *, check: bool = True):
    """The Jacobian ``J_ij = dF_i/dx_j`` of the column ``F`` (or a scalar: a row) by the column ``x``.

    Shape ``(numel F, n)``.  SymPy's matrix derivative (``J^T``), transposed; checked as :func:`gradient`.
    Raises NotDifferentiable (a non-column ``x`` or ``F``, a node SymPy cannot differentiate) and
    InternalError (a result that disagrees with the entrywise derivative).
    """
    _no_long_powers(F)
    _column(x, "jacobian")
    if not is_matrix(F) or tuple(F.shape) == (1, 1):
        J = _T(gradient(F, x, check=False))
    else:
        if F.shape[1] != 1:
            raise NotDifferentiable(f"jacobian of {F} of shape {tuple(F.shape)}: only a column has a closed "
                                    "matrix form here")
        parts = _sympy_diff(F, x)
        J = _tidy(_T(sp.MatAdd(*parts))) if parts else sp.ZeroMatrix(F.shape[0], x.shape[0])
    if check:
        verify(F, x, J, order=1, jac=True)
    return J


def hessian(f, x, *, check: bool = True):
    """The Hessian ``H_ij = d^2 f/dx_i dx_j`` (``n x n``) of the scalar ``f`` by the column ``x``.

    The Jacobian of :func:`gradient`; checked against the entrywise second derivatives at one concrete
    size.  Raises NotDifferentiable (``x`` not a column, a node without rule) and InternalError.
    """
    _no_long_powers(f)
    _column(x, "hessian")
    g = gradient(f, x, check=check)
    parts = _sympy_diff(g, x)
    H = _tidy(_T(sp.MatAdd(*parts))) if parts else sp.ZeroMatrix(x.shape[0], x.shape[0])
    if check:
        verify(f, x, H, order=2)
    return H
