"""Declarations as papers state them (theorem_check.expr.declarations.parse_where)."""

import pytest

from theorem_check.errors import InvalidArgument
from theorem_check.expr.declarations import parse_where, split_clauses


@pytest.mark.parametrize("text,shapes,structure", [
    (r"W_1 \in \mathbb{R}^{h \times d}", {"W_1": ("h", "d")}, {}),
    (r"x \in \mathbb{R}^d", {"x": ("d", 1)}, {}),
    (r"x \in \mathbb{R}^{d}", {"x": ("d", 1)}, {}),
    (r"A, B \in \mathbb{R}^{n\times n}", {"A": ("n", "n"), "B": ("n", "n")}, {}),
    (r"W \in \mathbb{R}^{3 \times k}", {"W": (3, "k")}, {}),
    (r"W^{(l)} \in \mathbb{R}^{n_l \times n}", {"W__l": ("n_l", "n")}, {}),
    (r"\alpha \in \mathbb{R}", {"alpha": ()}, {}),
    (r"\alpha \in \mathbb{R}_{>0}", {"alpha": ()}, {"alpha": "positive"}),
    (r"\eta > 0", {"eta": ()}, {"eta": "positive"}),
    (r"\Sigma \succ 0", {"Sigma": ("n", "n")}, {"Sigma": "spd"}),
    (r"\Sigma \in \mathbb{R}^{d \times d}, \Sigma \succ 0", {"Sigma": ("d", "d")}, {"Sigma": "spd"}),
    (r"Q \in O(n)", {"Q": ("n", "n")}, {"Q": "orthogonal"}),
    (r"Q \in \mathrm{O}(d)", {"Q": ("d", "d")}, {"Q": "orthogonal"}),
    (r"S \in \mathbb{S}^n", {"S": ("n", "n")}, {"S": "symmetric"}),
    (r"S \in \mathbb{S}^n_{++}", {"S": ("n", "n")}, {"S": "spd"}),
    (r"G \in GL(m)", {"G": ("m", "m")}, {"G": "invertible"}),
    (r"G \in \mathrm{GL}_m", {"G": ("m", "m")}, {"G": "invertible"}),
    (r"A = A^\top", {"A": ("n", "n")}, {"A": "symmetric"}),
    (r"K^\top = -K", {"K": ("n", "n")}, {"K": "antisymmetric"}),
    (r"Q^\top Q = I", {"Q": ("n", "n")}, {"Q": "orthogonal"}),
    (r"D \text{ diagonal}", {"D": ("n", "n")}, {"D": "diagonal"}),
    (r"z \in \mathbb{C}^n", {"z": ("n", 1)}, {"z": "complex"}),
    (r"n, d \in \mathbb{N}", {}, {}),
    (r"A \in \mathbb{R}^{n\times n} \text{ and } x \in \mathbb{R}^n;\ B \in \mathbb{S}^n",
     {"A": ("n", "n"), "x": ("n", 1), "B": ("n", "n")}, {"B": "symmetric"}),
])
def test_declarations(text, shapes, structure):
    d = parse_where(text)
    assert d.shapes == shapes and d.structure == structure


@pytest.mark.parametrize("text,message", [
    (r"X \succeq 0", "semidefinite"),
    (r"S \in \mathbb{S}^n_+", "semidefinite"),
    (r"Q \in SO(n)", "SO(n)"),
    (r"x \in \mathbb{Q}", "unknown set"),
    (r"A B", "not a declaration"),
    (r"x \in \mathbb{R}^d, x \in \mathbb{R}^k", "declared twice"),
    (r"\Sigma \succ 0, \Sigma \in O(n)", "one structure a name"),
    (r"W \in \mathbb{R}^{m \times n}, W \succ 0", "not square"),
    (r"a \in \mathbb{R}, a \succ 0", "a matrix structure needs a matrix"),
    (r"A, B", "declared as nothing"),
])
def test_bad_declarations_are_one_line_naming_the_clause(text, message):
    with pytest.raises(InvalidArgument) as info:
        parse_where(text)
    msg = str(info.value)
    assert message in msg and "\n" not in msg and msg.startswith("--where")


def test_clauses_split_outside_braces():
    assert split_clauses(r"A \in \mathbb{R}^{m, n}, x \in \mathbb{R}^n.") == [r"A \in \mathbb{R}^{m, n}",
                                                                               r"x \in \mathbb{R}^n"]


def test_dollars_pasted_from_a_paper_and_a_size_declared_positive():
    """helper-44: ``--where '$W \\in \\mathbb{R}^{m\\times n}$'`` was "'$W' is not a name", and ``d_k > 0`` of a size
    letter "names 'd_k', which no shape or side uses"."""
    d = parse_where(r"$W \in \mathbb{R}^{m\times n}$")
    assert d.shapes == {"W": ("m", "n")}
    d = parse_where(r"Q, K \in \mathbb{R}^{n \times d_k}, d_k > 0")
    assert d.shapes == {"Q": ("n", "d_k"), "K": ("n", "d_k")} and d.structure == {}
