"""expr.sympy_shapes: MatMul.shape remembered per node (decision 137)."""

import sympy as sp
from sympy.matrices.expressions.matexpr import MatrixSymbol
from sympy.matrices.expressions.matmul import MatMul

import theorem_check.expr  # noqa: F401 - installs the memo
from theorem_check.expr import sympy_shapes


def _nested(depth, leaves):
    """MatMul(MatMul(...), MatMul(...)) unflattened, both outer factors nested: SymPy's own shape costs 2^depth."""
    e = leaves[0]
    for k in range(depth):
        e = MatMul(e, MatMul(leaves[k % len(leaves)], e, evaluate=False), evaluate=False)
    return e


def test_installed_on_import_and_idempotent():
    assert sympy_shapes.installed()
    assert sympy_shapes.install() and sympy_shapes.installed()


def test_same_shapes_as_at_concrete_sizes():
    """The remembered shape is the shape: symbolic sizes substituted agree with the explicit matrix's."""
    m, n, k = sp.symbols("m n k", integer=True, positive=True)
    A, B, C = MatrixSymbol("A", m, n), MatrixSymbol("B", n, k), MatrixSymbol("C", k, m)
    cases = [(A * B, (m, k)), (A * B * C, (m, m)), ((A * B * C).T * A, (m, n)), (2 * A * B, (m, k)),
             (MatMul(MatMul(A, B, evaluate=False), C, evaluate=False), (m, m)), (B * C * A, (n, n))]
    for e, want in cases:
        assert e.shape == want
        assert e.shape == want   # the second read is the remembered value
        concrete = e.subs({m: 2, n: 3, k: 4}).as_explicit()
        assert concrete.shape == tuple(int(x.subs({m: 2, n: 3, k: 4})) for x in want)


def test_nested_products_touch_each_node_once(monkeypatch):
    """Depth 24 with both outer factors nested: 2^24 leaf visits without the memo, a few hundred with it."""
    n = sp.Symbol("n", integer=True, positive=True)
    leaves = [MatrixSymbol(x, n, n) for x in "ABC"]
    e = _nested(24, leaves)
    visits = [0]
    real = MatrixSymbol.shape

    def counted(self):
        visits[0] += 1
        return real.fget(self)

    monkeypatch.setattr(MatrixSymbol, "shape", property(counted))
    assert e.shape == (n, n)
    assert visits[0] < 200, visits[0]


def test_signsimp_leaves_a_matrix_product_it_cannot_rebuild():
    """``sqrt(1/trace(A*(U*V - A)))`` did not parse ("divides by a matrix"): SymPy's signsimp pre-pass rebuilt
    ``-A`` inside a MatMul as a noncommutative Mul and MatMul raised NotImplementedError (a Hypothesis example of
    test_normal_form).  Its pre-pass now keeps such an expression as it was."""
    from theorem_check import expr as ex
    from theorem_check.expr import sympy_signsimp

    assert sympy_signsimp.installed() and sympy_signsimp.install()
    shapes = {"A": ("n", "n"), "U": ("n", "k"), "V": ("k", "n")}
    got = ex.parse("sqrt(1/trace(A*(U*V - A)))", shapes, what="side")
    assert str(got) == "sqrt(1/Trace(A*(-A + U*V)))"
