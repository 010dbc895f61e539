"""The symbolic stage: simplify, random rational points, shape mismatches."""

import sympy as sp

from theorem_check import Derivation, Step, check_derivation
from theorem_check.symbolic import check_step

x, y = sp.symbols("x y", positive=True)
n = sp.symbols("n", integer=True, positive=True)


def test_true_steps_close():
    r = check_derivation(Derivation([Step((x + y) ** 2, x**2 + 2 * x * y + y**2), Step(x ** (2 * n) / x**n, x**n)]))
    assert r.closed and r.general


def test_false_step_has_exact_counterexample():
    r = check_step(Step((x + y) ** 2, x**2 + y**2, "wrong expansion"))
    assert not r.closed and r.method == "counterexample" and "difference" in r.point


def test_factor_two_slip_is_caught():
    r = check_step(Step(sp.diff(x**2 / 2, x), 2 * x))
    assert r.method == "counterexample"


def test_matrix_transpose():
    A, B = sp.Matrix(2, 3, sp.symbols("a:6")), sp.Matrix(3, 2, sp.symbols("b:6"))
    assert check_step(Step((A * B).T, B.T * A.T)).closed
    assert check_step(Step((A * B).T, A.T * B.T)).method == "shape-mismatch"
    C = sp.Matrix(2, 2, sp.symbols("c:4"))
    D = sp.Matrix(2, 2, sp.symbols("d:4"))
    assert check_step(Step((C * D).T, C.T * D.T)).method == "counterexample"


def test_matrix_symbols_general():
    A, B = sp.MatrixSymbol("A", 3, 2), sp.MatrixSymbol("B", 2, 4)
    assert check_step(Step((A * B).T, B.T * A.T)).closed


def test_false_matrix_symbol_identity_is_not_certified():
    # regression: the random-point test substituted numbers for whole MatrixSymbols, every
    # evaluation raised, and the step was reported closed ("schwartz-zippel")
    M, Z = (sp.MatrixSymbol(s, 2, 2) for s in "MZ")
    r = check_step(Step(M * Z, Z * M, "matrices do not commute"))
    assert not r.closed and r.method == "counterexample"
    d, h = sp.MatrixSymbol("d", 2, 1), sp.MatrixSymbol("h", 2, 1)
    assert check_step(Step(sp.trace((d * h.T) * (d * h.T).T), sp.trace(d.T * d) * sp.trace(h.T * h))).closed
    assert check_step(Step(sp.trace((d * h.T) * (d * h.T).T), 2 * sp.trace(d.T * d) * sp.trace(h.T * h))).method \
        == "counterexample"


def test_declared_general_scope_is_enforced():
    # explicit matrices make a derivation fixed-size evidence even when declared general
    A = sp.Matrix(2, 2, sp.symbols("a:4"))
    r = check_derivation(Derivation([Step((A * A).T, A.T * A.T)], general=True))
    assert r.closed and not r.general
    x = sp.symbols("x", positive=True)
    assert check_derivation(Derivation([Step(x * (x + 1), x**2 + x)], general=True)).general
