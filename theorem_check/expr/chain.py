"""The order in which a chain of matrix products is evaluated (one job: the matrix-chain problem).

Expression sides evaluate ``A_1 A_2 ... A_k`` as SymPy flattens it; left to right,
``ones(n,1) * ones(1,n) * x`` forms an ``n x n`` intermediate where the cheap order needs none.
:func:`chain_order` is the classic dynamic program (Cormen et al., *Introduction to Algorithms*,
sec. 15.2; the same as ``numpy.linalg.multi_dot``, whose helper is private), applied by
:func:`theorem_check.expr.compile.chain_product` to float arrays, object arrays of ``mpf`` and
python-flint ball arrays alike.
"""

from __future__ import annotations

__all__ = ["chain_order"]


def chain_order(shapes: list[tuple[int, int]]) -> list[list[int]]:
    """The cheapest association of a chain of matrix products (the classic matrix-chain dynamic program,
    as ``numpy.linalg.multi_dot``): ``split[i][j]`` is where ``M_i ... M_j`` splits, for matrices of
    ``shapes`` (rows, cols), conforming.  Cost of ``(p x q)(q x r)``: ``p q r`` multiplications."""
    k = len(shapes)
    dims = [shapes[0][0]] + [c for _, c in shapes]
    cost = [[0] * k for _ in range(k)]
    split = [[0] * k for _ in range(k)]
    for length in range(1, k):
        for i in range(k - length):
            j = i + length
            cost[i][j] = None
            for m in range(i, j):
                c = cost[i][m] + cost[m + 1][j] + dims[i] * dims[m + 1] * dims[j + 1]
                if cost[i][j] is None or c < cost[i][j]:
                    cost[i][j], split[i][j] = c, m
    return split
