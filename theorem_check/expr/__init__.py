"""SymPy expressions as statement sides: parse -> cached recipe -> apply, at every precision.

A side of an identity can be a SymPy (matrix) expression over ``MatrixSymbol`` and ``Symbol``
objects, or a string in SymPy syntax.  The same expression then serves the derivation (SymPy
algebra) and the numerics: :func:`compile_expr` walks the tree once and returns a *recipe*, a
closure that evaluates it on a batch of instances with a precision context ``ctx`` (float32,
float64, or NumPy object arrays of ``mpmath.mpf``), calling only ``ctx``'s operations.  Compiling
dispatches on the SymPy node's class, like SymPy's printers (``_print_<Class>``): each supported
node has a ``_c_<Class>`` method; an unsupported node is a one-line :class:`ExprError` naming it,
raised when the side is defined (not when it runs).

Why a tree evaluator rather than ``sympy.lambdify`` with a module mapping: lambdify's generated
code assumes unbatched arrays (``MatMul`` becomes ``dot``, ``Trace`` a 2-D ``trace``) and does not
know the batch axis, the 1x1-matrix-as-scalar rule, or derivative nodes whose argument is itself
an expression to be re-evaluated at perturbed points; a ~300-line evaluator covers those directly.

Conventions
-----------
* Values are batched: matrices ``(batch, rows, cols)``, scalars ``(batch,)``; constants (an
  ``Identity``, a number) carry no batch axis and broadcast.
* A ``1 x 1`` matrix counts as a scalar where a scalar is expected, and a side whose value is
  ``1 x 1`` is compared as a scalar.
* ``sin``, ``exp``, ``log``, ``sqrt``, ``Abs``, ``sigmoid``, ... of a matrix act **elementwise**
  (as in NumPy and PyTorch); the matrix functions are ``expm``, ``logm``, ``sqrtm`` (and
  ``X**(1/2)``).  ``X**-1`` is the inverse.
* ``softmax(x, axis)``: ``axis = 1`` each row (attention ``softmax(Q K^T / sqrt(d)) V``), ``0`` each
  column.  Without ``axis``: a column vector's entries, any other matrix's rows, where "column
  vector" is the *declared* shape (a literal 1 column; a size letter drawn as 1 is not one:
  :func:`nodes.default_axis`, the replay in :mod:`parse`).  ``logsumexp(x, axis)``: a scalar for a
  vector, else the column (``axis = 1``) or row (``0``) of per-row / per-column values.
* ``grad(f, X)`` is the gradient in the layout of the Matrix Cookbook, SymPy, PyTorch and JAX
  (``G_ij = df/dX_ij``, same shape as ``X``), computed by the engine's derivative oracle
  ``ctx.grad``; when ``X`` is declared symmetric or SPD it is the gradient on the symmetric
  matrices, ``ctx.sym_grad`` = ``(G + G^T)/2`` (Srinivasan & Panda, arXiv:1911.06491).
  ``jacobian(F, x)`` is ``J_ij = dF_i/dx_j`` with row-major flattening of ``F`` and ``x``, shape
  ``(prod F.shape, prod x.shape)``; ``hessian(f, x)`` is ``(prod x.shape, prod x.shape)``.
* ``vec`` stacks columns (column-major), ``vec(A X B) = (B^T kron A) vec(X)``.
* Complex values (names of structure ``complex`` or ``hermitian``, :data:`COMPLEX_KINDS`): ``conj``,
  ``real``, ``imag`` entrywise (:class:`Conj`, :class:`Real`, :class:`Imag` for matrices), ``X.H`` the
  conjugate transpose (SymPy's ``Adjoint``), ``I`` the imaginary unit (parsed only when a name is
  complex).  ``grad(f, Z)`` of a complex ``Z`` is the conjugate Wirtinger derivative
  ``df/d conj(Z) = (df/dRe Z + i df/dIm Z)/2`` (Kreutz-Delgado, arXiv:0906.4835), ``grad_xy`` twice it
  (:class:`GradXY`); design decision 93.

>>> import numpy as np, sympy as sp
>>> from theorem_check.numerics.precision import FLOAT64
>>> A, B = sp.MatrixSymbol("A", 2, 3), sp.MatrixSymbol("B", 3, 2)
>>> recipe = compile_expr(sp.Trace(A * B))                      # parse once (cached)
>>> vals = {"A": np.ones((5, 2, 3)), "B": np.ones((5, 3, 2))}    # a batch of 5
>>> evaluate(recipe, FLOAT64, vals).shape                         # scalars: (batch,)
(5,)
>>> parse("(A*B).T", {"A": (2, 3), "B": (3, 2)})
(A*B).T
"""

from __future__ import annotations

from theorem_check.expr import sympy_shapes, sympy_signsimp

sympy_shapes.install()   # before any SymPy simplification runs: MatMul.shape remembered per node (decision 137)
sympy_signsimp.install()  # signsimp's pre-pass leaves a MatMul it cannot rebuild as it was (decision 147)

from theorem_check.expr.compile import COMPLEX_KINDS, Env, Recipe, compile_expr, evaluate, side, with_balls  # noqa: F401
from theorem_check.expr.nodes import (  # noqa: F401
    Cholesky,
    Conj,
    Expm,
    ExprError,
    Grad,
    GradXY,
    Hessian,
    Imag,
    Jacobian,
    Logm,
    LogSumExp,
    LogSumExpAxis,
    ParseError,
    Real,
    Softmax,
    Sqrtm,
    Tril,
    Triu,
    Vec,
    expm1,
    grad,
    grad_xy,
    has_matrix,
    hessian,
    is_matrix,
    is_zero_as_built,
    jacobian,
    log1p,
    logsumexp,
    need_matrix,
    sigmoid,
    softplus,
)
from theorem_check.expr.parse import (  # noqa: F401
    FUNCTIONS,
    names_in,
    parse,
    parse_statement,
    size_symbol,
)
from theorem_check.expr.textual import denominators, domain_calls, inverted_bases, size_names_in  # noqa: F401

__all__ = ["ExprError", "ParseError", "sigmoid", "softplus", "log1p", "expm1", "Softmax", "LogSumExp", "LogSumExpAxis", "logsumexp", "Vec", "Grad", "GradXY", "Jacobian", "Hessian", "Expm", "Logm", "Sqrtm", "Cholesky", "grad", "grad_xy", "jacobian", "hessian", "compile_expr", "evaluate", "side", "with_balls", "parse", "parse_statement", "denominators", "domain_calls", "inverted_bases", "size_names_in", "FUNCTIONS", "has_matrix", "is_matrix", "is_zero_as_built", "COMPLEX_KINDS", "Conj", "Real", "Imag"]
