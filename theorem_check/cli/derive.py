"""``theorem-check derive "EXPR" --wrt X``: a gradient (or Hessian) in closed matrix form, checked.

The expression is read in the syntax of ``check`` (:mod:`theorem_check.expr`), differentiated in closed form
by :mod:`theorem_check.expr.matrix_calculus` (which has already checked the result exactly at one concrete
size), printed in the same syntax (so it can be pasted into ``check``), and then checked as the statement
``grad(EXPR, X) = RESULT`` (``hessian(EXPR, X) = RESULT`` for ``--order 2``) by the engine path of ``check``:
same claim, instances, precisions (float32, float64, mp50), verdicts and table.

Conventions: ``G_ij = df/dX_ij`` (the Matrix Cookbook's layout, same shape as ``X``); for ``X`` declared
symmetric or spd (``--assume X=spd``) the gradient on the symmetric matrices, ``(G + G^T)/2`` with
``X^T = X`` (arXiv:1911.06491); the Hessian ``H_ij = d^2 f/dx_i dx_j`` of a column ``x``.

Exit codes: 0 when the check is PROVED or VERIFIED; 1 when it is INCONCLUSIVE (e.g. ``log(det(X))`` at a
general ``X`` whose determinant is negative: declare it spd); 2 for bad input or an expression outside the
closed-form rules (one line naming the node); 3 when the closed form disagrees with the numbers
(REFUTED/ILL-POSED, or the numbers refute what SymPy closed: a bug, reported as an internal error, never as a
finding about the expression).

JSON record (``--json``): the record of ``check --json`` with ``"kind": "derive"`` plus ``"expression"``,
``"wrt"``, ``"order"``, ``"result"`` (the closed form in the check syntax), ``"result_latex"`` and
``"statement"`` (the statement checked).
"""

from __future__ import annotations

import sys

import click

from theorem_check.cli.options import (
    EPILOG,
    check_environment,
    color_option,
    deprecations_noted,
    plural,
    report_broken,
    result_table,
    timeout_option,
    use_colour,
)
from theorem_check.errors import InternalError, InvalidArgument
from theorem_check.model.options import RunOptions
from theorem_check.model.verdicts import Outcome

__all__ = ["derive", "closed_form"]


def closed_form(expression: str, wrt: str, shapes: dict, structure: dict, order: int = 1):
    """``(f, X, D)``: the parsed expression, the variable and its gradient (order 1) or Hessian (order 2).

    Raises InvalidArgument (``--wrt`` not a declared matrix, a non-scalar expression), ParseError and
    NotDifferentiable (exit 2), InternalError (a closed form that fails its exact check, exit 3).
    """
    import sympy as sp

    from theorem_check import expr as ex
    from theorem_check.expr import matrix_calculus as mc

    if wrt not in shapes:
        raise InvalidArgument(f"--wrt {wrt!r} must be a matrix or vector declared with --shape {wrt}=ROWS,COLS")
    f = ex.parse(expression, shapes, what="EXPR")
    X = next((m for m in f.atoms(sp.MatrixSymbol) if m.name == wrt), None)
    if X is None:
        raise InvalidArgument(f"--wrt {wrt!r} does not occur in EXPR={expression!r}")
    if ex.is_matrix(f) and tuple(f.shape) != (1, 1):
        raise InvalidArgument(f"EXPR={expression!r} must be a scalar (its shape is {tuple(f.shape)}): derive "
                              "gives gradients and Hessians of scalar functions")
    if order == 2:
        if X.shape[1] != 1:
            raise InvalidArgument(f"--order 2 needs a column vector --wrt (shape n,1), got {wrt} of shape "
                                  f"{tuple(X.shape)}")
        if structure.get(wrt) in ("symmetric", "spd"):
            raise InvalidArgument(f"--order 2 with --assume {wrt}={structure[wrt]}: a vector has no symmetric domain")
        return f, X, mc.hessian(f, X)
    return f, X, mc.gradient(f, X, symmetric=structure.get(wrt) in ("symmetric", "spd"))


@click.command("derive", epilog=EPILOG)
@click.argument("expression", metavar="EXPR")
@click.option("--wrt", required=True, metavar="X", help="The variable (a name declared with --shape).")
@click.option("--shape", "shape", multiple=True, metavar="NAME=ROWS,COLS",
              help="A matrix and its shape; sizes are numbers or letters (drawn 1..4, and checked once beyond at 5..7, unless --size).")
@click.option("--assume", "assume", multiple=True, metavar="NAME=KIND",
              help="Structure: symmetric, spd, orthogonal, invertible, diagonal, antisymmetric (positive: scalars).")
@click.option("--size", "size", multiple=True, metavar="LETTER=LO:HI", help="Range of a size letter (default 1:4).")
@click.option("--order", type=click.IntRange(1, 2), default=1, show_default=True,
              help="1: the gradient; 2: the Hessian (of a column vector variable).")
@click.option("--latex", "as_latex", is_flag=True, help="Also print the result as LaTeX.")
@click.option("--trials", type=click.IntRange(1, 10_000), default=16, show_default=True,
              help="Random instances of the check: every size configuration when the sizes allow at most TRIALS "
                   "of them, else ceil(trials / 4) at each of min(trials, 4) drawn configurations.")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Same seed, same output.")
@click.option("--json", "as_json", is_flag=True, help="Write a JSON record to stdout instead of the text.")
@timeout_option
@color_option
def derive(expression, wrt, shape, assume, size, order, as_latex, trials, seed, as_json, timeout):
    """Differentiate the scalar EXPR with respect to X in closed matrix form, then check the answer.

    \b
    EXPR is in the syntax of `check`: `*` the matrix product, `.T`, `**-1`,
    trace, det, log(det(X)), hadamard, exp/log/sin/sigmoid/... (entrywise),
    softmax, logsumexp, diag, vec of a column, trace/det of kron.
    The gradient has X's shape (G_ij = df/dX_ij, the Matrix Cookbook's layout);
    for X declared symmetric or spd it is (G + G^T)/2 (arXiv:1911.06491).
    The result is checked as `grad(EXPR, X) = RESULT` by `check`'s engine
    (float32, float64, mp50; PROVED when SymPy closes it for all sizes).

    \b
    Examples:
      theorem-check derive "trace(A*X*B)" --wrt X --shape X=n,m --shape A=k,n --shape B=m,k
      theorem-check derive "log(det(X))" --wrt X --shape X=n,n --assume X=spd --latex
      theorem-check derive "x.T*A*x" --wrt x --shape x=n,1 --shape A=n,n --order 2
      theorem-check derive "logsumexp(x)" --wrt x --shape x=n,1 --json
    """
    from theorem_check.cli.check import build_claim, check_fits, parse_options
    from theorem_check.execution.workers import run_in_process
    from theorem_check.expr import ParseError
    from theorem_check.expr.matrix_calculus import NotDifferentiable
    from theorem_check.expr.printing import expr_latex, expr_text
    from theorem_check.output import terminal
    from theorem_check.output.json_record import dumps, run_record

    check_environment()
    shapes, structure, sizes = parse_options(shape, assume, size)
    from theorem_check.expr import COMPLEX_KINDS

    cplx = sorted(n for n, k in structure.items() if k in COMPLEX_KINDS)
    if cplx:   # the closed-form rules are real calculus: a complex name would get a real derivative
        raise InvalidArgument(f"--assume {cplx[0]}={structure[cplx[0]]}: derive gives closed forms over real "
                              f"variables; check a complex (Wirtinger) gradient with `theorem-check check`")
    f, X, D = closed_form(expression, wrt, shapes, structure, order)
    text, tex = expr_text(D), expr_latex(D)
    op = "grad" if order == 1 else "hessian"
    statement = f"{op}({expression}, {wrt}) = {text}"
    try:
        claim = build_claim(statement, shapes, structure, sizes)
    except ParseError as exc:  # the printed form does not parse back (an entrywise function outside the syntax)
        raise NotDifferentiable(f"the closed form {text} has no form in the statement syntax, so it cannot be "
                                f"checked by check's engine ({exc})") from None
    check_fits(shapes, claim.statement.dims.ranges, trials)
    with deprecations_noted():
        result = run_in_process(claim, options=RunOptions(seed=seed, trials=trials), timeout=timeout)
    verdict = result.results[0].verdict.value
    if as_json:
        rec = {**run_record(result, kind="derive"), "expression": expression, "wrt": wrt, "order": order,
               "result": text, "result_latex": tex, "statement": statement,
               "shapes": {k: list(v) for k, v in shapes.items()}, "assume": dict(structure),
               "sizes": {k: list(v) for k, v in claim.statement.dims.ranges.items()}}
        click.echo(dumps(rec))
    else:
        colour = use_colour()
        what = "gradient" if order == 1 else "Hessian"
        sym = " (symmetric domain: (G + G^T)/2)" if order == 1 and structure.get(wrt) in ("symmetric", "spd") else ""
        click.echo(f"{what} of {expression} with respect to {wrt}{sym}:")
        click.echo(f"  {text}")
        if as_latex:
            click.echo(f"  LaTeX: {tex}")
        click.echo(f"checked: {statement}")
        click.echo(result_table(result, colour=colour), color=colour)
        counts = ", ".join(f"{n} {terminal.style_verdict(v, colour)}" for v, n in result.counts().items())
        click.echo(f"{plural(len(result.results), 'claim')}: {counts} in {result.seconds:.1f} s (seed {seed})",
                   color=colour)
    report_broken(result)
    st = result.results[0].printed
    numeric_fails = st.numeric is not None and st.numeric.outcome is Outcome.FAILS
    if verdict in ("REFUTED", "ILL-POSED") or numeric_fails:   # numeric_fails: also the INCONCLUSIVE of a
        # symbolic/numeric contradiction (the closed form proved equal to itself, refuted by the numbers)
        raise InternalError(f"the closed form {text!r} of {op}({expression}, {wrt}) fails the numeric check "
                            f"({verdict}): a bug of the matrix-calculus rules, please report it")
    sys.exit(result.exit_code)
