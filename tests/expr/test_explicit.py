"""Explicit entries (theorem_check/expr/explicit.py): statements at fixed sizes decided exactly as identities of
polynomials in the matrices' entries, with the declared structures written out."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import theorem_check as tc
from theorem_check import expr as ex
from theorem_check.expr.explicit import MAX_SYMBOLS, decide, entry_matrices

SH = {"A": (3, 3), "B": (3, 3), "C": (2, 2), "S": (4, 4), "K": (3, 3), "L": (4, 4), "u": (3, 1), "v": (3, 1),
      "M": (2, 3), "D": (3, 3)}


def _decide(lhs, rhs, structure=None):
    return decide(ex.parse(lhs, SH), ex.parse(rhs, SH), structure or {})


@pytest.mark.parametrize("lhs, rhs, structure, want", [
    ("C*C - trace(C)*C + det(C)*eye(2)", "zeros(2, 2)", {}, True),                    # Cayley-Hamilton, n = 2
    ("C*C - trace(C)*C + det(C)*eye(2)", "eye(2)", {}, False),
    ("A*A*A - trace(A)*A*A + (trace(A)**2 - trace(A*A))/2*A - det(A)*eye(3)", "zeros(3, 3)", {}, True),
    ("A*A*A - trace(A)*A*A + (trace(A)**2 - trace(A*A))*A - det(A)*eye(3)", "zeros(3, 3)", {}, False),   # factor 2
    ("det(K)", "0", {"K": "antisymmetric"}, True),                                      # odd antisymmetric
    ("det(L)", "0", {"L": "antisymmetric"}, False),                                     # even: a Pfaffian squared
    ("det(K)", "0", {}, False),                                                         # the structure matters
    ("(A*B)**-1", "B**-1*A**-1", {}, True),
    ("(A*B)**-1", "A**-1*B**-1", {}, False),
    ("(A + u*v.T)**-1", "A**-1 - A**-1*u*v.T*A**-1/(1 + trace(v.T*A**-1*u))", {}, True),   # Sherman-Morrison
    ("(A + u*v.T)**-1", "A**-1 - A**-1*u*v.T*A**-1/(1 - trace(v.T*A**-1*u))", {}, False),
    ("det(S*S)", "det(S)**2", {"S": "symmetric"}, True),
    ("A.T*A", "A*A.T", {}, False),
    ("A.T*A", "A*A.T", {"A": "symmetric"}, True),
    ("A*D", "D*A", {"A": "diagonal", "D": "diagonal"}, True),
    ("A*D", "D*A", {"D": "diagonal"}, False),
    ("hadamard(A, B)", "hadamard(B, A)", {}, True),
    ("trace(M.T*M)", "trace(M*M.T)", {}, True),
    ("det(A**-1)", "1/det(A)", {}, True),
    ("t*A/t", "A", {}, True),
    ("diag(diag(A))*u", "hadamard(diag(A), u)", {}, True),
    # helper-37: eye/zeros/diag were sparse DomainMatrices, which mul_elementwise does not mix with dense ones
    ("diag(diag(A))", "hadamard(A, eye(3))", {}, True),
    ("diag(diag(A))", "hadamard(eye(3), A)", {}, True),
    ("hadamard(A, zeros(3, 3))", "zeros(3, 3)", {}, True),
    ("hadamard(A + eye(3), B)", "hadamard(A, B) + hadamard(eye(3), B)", {}, True),
    ("hadamard(A, diag(u))", "diag(hadamard(u, diag(A)))", {}, True),
    ("hadamard(A, eye(3))", "A", {}, False),
    ("hadamard(A, eye(3))", "A", {"A": "diagonal"}, True),
])
def test_fixed_size_statements_are_decided_exactly(lhs, rhs, structure, want):
    assert _decide(lhs, rhs, structure) is want


@pytest.mark.parametrize("lhs, rhs, structure", [
    ("expm(A)", "A", {}),                        # not a rational function of the entries
    ("A", "A", {"A": "orthogonal"}),             # no polynomial parametrisation
    ("pi*A", "A", {}),                           # not a rational number
    ("kron(C, C)", "kron(C, C)", {}),            # a node outside the fragment
])
def test_outside_the_fragment_there_is_no_decision(lhs, rhs, structure):
    assert _decide(lhs, rhs, structure) is None


def test_symbolic_sizes_and_too_many_entries_are_left_to_the_other_routes():
    shapes = {"X": ("n", "n")}
    assert decide(ex.parse("X", shapes), ex.parse("X.T.T", shapes), {}) is None
    big = {f"P{k}": (4, 4) for k in range(3)}
    e = ex.parse("P0 + P1 + P2", big)
    assert 3 * 16 > MAX_SYMBOLS and entry_matrices((e,), {}) is None
    assert entry_matrices((ex.parse("A", SH),), {}) is not None
    taken = ex.parse("A_11*A", {**SH})                       # a scalar named like an entry
    assert entry_matrices((taken,), {}) is None


_LEAVES = ["A", "B", "A.T", "eye(3)", "(A + B)", "2*A"]


@st.composite
def _expr(draw, depth=0):
    if depth >= 2 or draw(st.booleans()):
        return draw(st.sampled_from(_LEAVES))
    a, b = draw(_expr(depth + 1)), draw(_expr(depth + 1))
    return draw(st.sampled_from([f"({a})*({b})", f"({a}) + ({b})", f"({a}).T", f"trace({a})*({b})",
                                 f"det({a})*({b})"]))


@settings(max_examples=40, deadline=None)
@given(_expr(), st.integers(0, 2**31 - 1))
def test_the_decision_agrees_with_exact_evaluation_at_a_random_integer_point(e, seed):
    """An equivalent rewrite (``(X^T)^T``, ``X + 0``, a trace of a transpose) is decided True; a perturbed one
    (``+ A`` where ``A != 0``) False; and each decision agrees with the difference at random integer matrices."""
    rng = np.random.default_rng(seed)
    vals = {ex.parse(n, SH): sp.ImmutableMatrix(rng.integers(-5, 6, size=(3, 3)).tolist()) for n in ("A", "B")}
    lhs = ex.parse(e, SH)
    for rhs_text, want in [(f"(({e}).T).T", True), (f"({e}) + 0*A", True), (f"({e}) + A", False)]:
        rhs = ex.parse(rhs_text, SH)
        got = decide(lhs, rhs, {})
        assert got is want, (e, rhs_text)
        diff = sp.Matrix((lhs - rhs).xreplace(vals).doit())
        assert (diff == sp.zeros(3, 3)) or not got


@pytest.mark.parametrize("statement, shapes, assume, verdict", [
    ("A*A - trace(A)*A + det(A)*eye(2) = zeros(2, 2)", {"A": (2, 2)}, {}, "PROVED"),         # was INCONCLUSIVE
    ("A*A - trace(A)*A + 2*det(A)*eye(2) = zeros(2, 2)", {"A": (2, 2)}, {}, "REFUTED"),
    ("det(K) = 0", {"K": (3, 3)}, {"K": "antisymmetric"}, "PROVED"),                           # was INCONCLUSIVE
    ("det(K) = 0", {"K": (4, 4)}, {"K": "antisymmetric"}, "REFUTED"),
    ("(A*B)**-1 = B**-1*A**-1", {"A": (3, 3), "B": (3, 3)}, {}, "PROVED"),                   # was VERIFIED
    ("(A*B)**-1 = A**-1*B**-1", {"A": (3, 3), "B": (3, 3)}, {}, "REFUTED"),
])
def test_the_engine_proves_fixed_size_statements_and_still_refutes_their_mutants(statement, shapes, assume, verdict):
    lhs, rhs = statement.split(" = ")
    claim = tc.identity("t.explicit", lhs, rhs, shapes=shapes, structure=assume, register=False)
    r = tc.run_claim(claim, seed=0, trials=4)
    assert r.verdict.value == verdict, r.evidence
    if verdict == "PROVED":
        assert "the statement's only sizes" in r.evidence
