"""``theorem-check check "LHS = RHS" --shape X=n,n --assume X=spd``: one identity from the shell.

The statement is read in SymPy syntax (:mod:`theorem_check.expr`) or, with ``--latex``, as a paper
prints it (:mod:`theorem_check.expr.latex`, which writes it out in the string syntax: the note on stderr
shows that reading and the shapes the conventions gave); ``--where`` declares shapes and structures as
papers state them (:mod:`theorem_check.expr.declarations`, both syntaxes).  It is turned into a claim with
:func:`theorem_check.authoring.shortforms.identity` (not registered), and run like ``theorem-check run``:
same table, verdicts, smallest counterexample, ``--json`` record and exit codes (0 PROVED/VERIFIED,
1 REFUTED/ILL-POSED/INCONCLUSIVE, 2 bad input).  Bad input is one line on stderr: a parse error
naming the token, an unknown function, a malformed ``--shape``/``--assume``/``--size``, a name
declared but unused.  A statement whose shapes do not conform (``(A*B).T = A.T*B.T``) is not bad
input: it is ILL-POSED (or REFUTED at the sizes where it conforms), exit 1.

The statement runs in this process (it is no registered claim a worker could import), under
``--timeout`` as ``run --jobs 1`` does: a ``SIGALRM`` that stops Python code (mpmath's included), after
which the claim is INCONCLUSIVE ("timed out after 120 s"), exit 1.  Sizes whose instances cannot fit
(float64 batch plus mp50 object arrays at the top of every ``--size`` range, times 4 for the sides'
intermediates, over this machine's memory) are refused before anything runs, with the estimate.

JSON record: the record of ``run --json`` plus ``"kind": "check"``, ``"statement"`` (the text as
given), with ``--latex`` also ``"syntax": "latex"`` and ``"read_as"`` (the string-syntax reading), ``"shapes"``
(name -> [rows, cols], conventions included), ``"assume"`` (name -> kind), ``"sizes"`` (letter ->
[lo, hi]); the single claim has id ``check.statement``.
"""

from __future__ import annotations

import re
import sys

import click

from theorem_check.cli.memory import MP50_ENTRY_BYTES, check_fits, instance_bytes
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
from theorem_check.errors import InvalidArgument
from theorem_check.model.options import RunOptions
from theorem_check.model.verdicts import Verdict

__all__ = ["check", "build_claim", "parse_shape", "parse_assume", "parse_size", "instance_bytes", "check_fits",
           "MP50_ENTRY_BYTES"]

_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def parse_shape(text: str) -> tuple[str, tuple]:
    """``"X=n,n"`` -> ``("X", ("n", "n"))``; sizes are positive integers or letters."""
    name, sep, dims = text.partition("=")
    name = name.strip()
    if not sep or not _NAME.match(name):
        raise InvalidArgument(f"--shape {text!r} must read NAME=ROWS,COLS (e.g. X=n,n or A=2,3)")
    parts = [p.strip() for p in dims.split(",")]
    if len(parts) != 2:
        raise InvalidArgument(f"--shape {text!r} must give two sizes ROWS,COLS (got {len(parts)})")
    out = []
    for p in parts:
        if re.fullmatch(r"[0-9]+", p):
            if int(p) < 1:
                raise InvalidArgument(f"--shape {text!r}: size {p!r} must be >= 1")
            out.append(int(p))
        elif _NAME.match(p):
            if _reserved(p):
                raise InvalidArgument(f"--shape {text!r}: size {p!r} {_reserved(p)}: name the size with a letter "
                                      "(n, m, k) or give a positive integer")
            out.append(p)
        else:
            raise InvalidArgument(f"--shape {text!r}: size {p!r} must be a positive integer or a letter")
    return name, tuple(out)


def _reserved(name: str) -> str | None:
    """Why ``name`` cannot name a size, or None: SymPy's special values (``nan``, ``oo``, ``zoo``; ``inf``, which
    reads as infinity), its constants ``I``, ``E``, ``pi`` and the statement's functions (helper-38: ``--shape
    A=nan,2`` was a matrix with ``nan`` rows)."""
    from theorem_check.expr import FUNCTIONS
    from theorem_check.expr.parse import IMAGINARY, NOT_NUMBERS

    if name in NOT_NUMBERS or name.lower() in ("inf", "infinity", "nan"):
        return "is not a number"
    if name in (IMAGINARY, "E", "pi"):
        return "is a constant"
    if name in FUNCTIONS:
        return "is a function"
    return None


def parse_assume(text: str) -> tuple[str, str]:
    """``"X=spd"`` -> ``("X", "spd")``."""
    from theorem_check.authoring.shortforms import SCALAR_STRUCTURES, STRUCTURES

    name, sep, kind = text.partition("=")
    name, kind = name.strip(), kind.strip()
    if not sep or not _NAME.match(name):
        raise InvalidArgument(f"--assume {text!r} must read NAME=KIND (e.g. X=spd)")
    kinds = tuple(dict.fromkeys(STRUCTURES + SCALAR_STRUCTURES))
    if kind not in kinds:
        raise InvalidArgument(f"--assume {text!r}: KIND={kind!r} must be one of {', '.join(kinds)}")
    return name, kind


def parse_size(text: str) -> tuple[str, tuple[int, int]]:
    """``"n=2:5"`` -> ``("n", (2, 5))`` (inclusive); ``"n=3"`` fixes the size."""
    name, sep, rng = text.partition("=")
    name = name.strip()
    m = re.fullmatch(r"\s*([0-9]+)\s*(?::\s*([0-9]+)\s*)?", rng)
    if sep and _NAME.match(name) and not m and re.fullmatch(r"[^:]+(:[^:]+)?", rng.strip()):   # a bad value, not form
        raise InvalidArgument(f"--size {text!r}: LO and HI must be integers with 1 <= LO <= HI, got {rng.strip()!r}")
    if not sep or not _NAME.match(name) or not m:
        raise InvalidArgument(f"--size {text!r} must read LETTER=LO:HI or LETTER=N (e.g. n=2:5)")
    lo, hi = int(m.group(1)), int(m.group(2) or m.group(1))
    if not 1 <= lo <= hi:
        raise InvalidArgument(f"--size {text!r} must have 1 <= LO <= HI")
    return name, (lo, hi)


def _size_letters(shapes: dict, statement: str = "") -> set[str]:
    """The size letters of ``--shape`` options (``X=n,k`` -> ``{"n", "k"}``) and of the statement's
    ``eye``/``ones``/``zeros`` arguments (``trace(eye(n)) = n`` -> ``{"n"}``)."""
    from theorem_check import expr as ex
    from theorem_check.authoring.spec import statement_letters

    out = {v for s in shapes.values() for v in s if isinstance(v, str)}
    return out | (statement_letters(ex.parse_statement(statement))[0] if statement else set())


def _names_used(statement: str) -> list[tuple[str, bool]]:
    """``(name, called)`` for each name of the statement's two sides, in order of appearance."""
    from theorem_check import expr as ex

    lhs, rhs = ex.parse_statement(statement)
    return [(n, called) for side in (lhs, rhs) for n, called, _ in ex.names_in(side, "statement")]


def scalar_names(statement: str, shapes: dict, assume: dict | None = None, sizes=()) -> list[str]:
    """Names the statement uses that have no ``--shape`` and are neither size letters nor functions:
    they are real scalars, which a user who declared matrices may not mean (``A*B = B*A`` with only
    ``--shape A=n,n`` is then true).  Empty when no matrix is declared (a scalar statement).  Names
    assumed complex (``assume``) are not real scalars, nor is ``I`` (the imaginary unit) when any is, nor the
    letters of ``sizes`` (``--size n=1:4``: ``n`` is a size letter)."""
    from theorem_check import expr as ex

    if not shapes:
        return []
    assume = dict(assume or {})
    letters = _size_letters(shapes, statement) | set(sizes)
    skip = {n for n, k in assume.items() if k in ex.COMPLEX_KINDS}
    if skip:
        skip.add("I")
    names = dict.fromkeys(n for n, called in _names_used(statement) if not called)
    return [n for n in names if n not in shapes and n not in letters and n not in ex.FUNCTIONS and n not in skip]


def _zero_matrix_side(lhs: str, rhs: str, shapes: dict, assume: dict, quiet: bool = False) -> tuple[str, str]:
    """``grad(x.T*K*x, x) = 0``: a side that is the number 0 against a side that is a matrix (not 1 x 1) at every
    size is that matrix's zero, ``zeros(r, c)``, as ``--latex`` reads it (papers write 0 for the zero vector; it was
    ILL-POSED, "lhs has shape (2, 1), rhs has shape ()", helper-48); another constant against a column, a row or a
    matrix that is not square is that many ones (``sigmoid(x) + sigmoid(-x) = 1``: helper-67; against a square matrix
    it stays as written, the identity or the ones matrix?).  The other side's shape is its symbolic one; a side that
    does not parse symbolically is left to the parser's own message.  Prints a note when it applies."""
    from theorem_check import expr as ex

    letters = frozenset(_size_letters(shapes) | set(ex.size_names_in(lhs)) | set(ex.size_names_in(rhs)))
    complex_names = [n for n, k in assume.items() if k in ex.COMPLEX_KINDS]
    number = [_number(t, letters, shapes, complex_names) for t in (lhs, rhs)]
    if (number[0] is None) == (number[1] is None):
        return lhs, rhs
    value = number[0] if number[0] is not None else number[1]
    other = rhs if number[0] is not None else lhs
    try:
        e = ex.parse(other, shapes, complex_names=complex_names, sizes=ex.size_names_in(other))
    except Exception:  # noqa: BLE001 - the statement's own parse reports it
        return lhs, rhs
    shape = getattr(e, "shape", None)
    if not shape or all(v == 1 for v in shape) or (value != 0 and 1 not in shape and shape[0] == shape[1]):
        return lhs, rhs       # a number against a square matrix: the identity or the ones matrix? left as written
    text = (lhs if number[0] is not None else rhs).strip()
    z = f"zeros({shape[0]}, {shape[1]})" if value == 0 else f"({text})*ones({shape[0]}, {shape[1]})"
    what = "the zero matrix" if value == 0 else "that many ones"
    if not quiet:
        click.echo(f"theorem-check: note: read as {z if number[0] is not None else lhs} = "
                   f"{rhs if number[0] is not None else z} ({'0' if value == 0 else 'a number'} against a "
                   f"{shape[0]} x {shape[1]} side is {what})", err=True)
    return (z, rhs) if number[0] is not None else (lhs, z)


def _number(text: str, letters=frozenset(), shapes=None, complex_names=()):
    """The side ``text`` as a constant when it is one (``0``, ``1``, ``-2``, ``0.5``, ``2 - 1``, ``exp(0)``, ``1/n`` of
    a size letter ``n`` in ``letters``), else None (helper-70: ``= 2 - 1`` and ``= exp(0)`` were ILL-POSED beside
    ``= 1``).  Read with the statement's ``shapes``: without them every matrix was a scalar, ``A*B - B*A`` was the
    number 0 and ``A*B - B*A = zeros(n, n)`` became ``zeros(n, n) = zeros(n, n)``, PROVED (helper-77)."""
    import sympy as sp

    from theorem_check import expr as ex

    try:
        e = ex.parse(text, dict(shapes or {}), sizes=tuple(letters), complex_names=complex_names)
    except Exception:  # noqa: BLE001 - not a constant side
        return None
    if isinstance(e, sp.MatrixExpr) or not getattr(e, "is_number", False) and not (
            e.free_symbols and {str(v) for v in e.free_symbols} <= set(letters)):
        return None
    return e


def build_claim(statement: str, shapes: dict, assume: dict, sizes: dict | None = None, *, latex: str | None = None):
    """The claim ``check.statement`` for a shell statement (validated, not registered); ``latex``: the
    statement as the user typed it in LaTeX (its title and printed form), when it was read with ``--latex``.

    Raises ParseError / InvalidArgument / ClaimDefinitionError (all TheoremCheckError: exit 2).
    """
    from theorem_check import expr as ex
    from theorem_check.authoring.shortforms import identity

    lhs, rhs = _zero_matrix_side(*ex.parse_statement(statement), shapes, assume)
    used = {n for n, _ in _names_used(statement)}
    for name in list(shapes) + list(assume):
        if name not in used:
            raise InvalidArgument(f"{'--shape' if name in shapes else '--assume'} names {name!r}, which the "
                                  f"statement does not use")
    letters = _size_letters(shapes)
    for name in shapes:
        if name in letters:
            raise InvalidArgument(f"--shape {name}: {name!r} is both a matrix and a size letter")
    for name, kind in assume.items():
        if name in shapes:
            r, c = shapes[name]
            if r != c and kind not in ("complex", "positive"):
                raise InvalidArgument(f"--assume {name}={kind} needs a square shape, got --shape {name}={r},{c}")
        elif kind not in ("positive", "complex"):
            raise InvalidArgument(f"--assume {name}={kind}: {name!r} has no --shape (matrix kinds need one)")
    claim = identity("check.statement", lhs, rhs, shapes=shapes, structure=assume, sizes=sizes or {},
                     title=f"${latex}$" if latex else statement, printed=latex, latex=latex, register=False)
    from theorem_check.authoring.layouts import with_readings

    claim, unread = with_readings(claim, lhs, rhs, shapes, assume, letters)
    if unread:
        click.echo("theorem-check: note: jacobian/hessian by a matrix is read row by row (NumPy's layout); inside a "
                   "larger expression its vec reading (Magnus-Neudecker) is not tried: put the derivative alone on "
                   "one side to have both readings", err=True)
    return claim


def parse_options(shape, assume, size, declared=None, *, check_sizes: bool = True, statement: str = ""):
    """``--shape``/``--assume``/``--size`` (and the declarations of ``--where``, a
    :class:`~theorem_check.expr.declarations.Declarations`) -> ``(shapes, structure, sizes)``.

    A name given twice (two options, or an option and a ``--where`` clause) is InvalidArgument;
    ``--where`` scalars (``\\alpha \\in \\mathbb{R}``) get no shape.  A ``--size`` letter of no shape is
    InvalidArgument unless ``check_sizes`` is False (``--latex``: the shape conventions add letters later,
    :func:`check_size_letters`); ``statement``: the statement the letters may be names of."""
    shapes, structure, sizes = {}, {}, {}
    if declared is not None:
        from theorem_check.authoring.shortforms import SCALAR_STRUCTURES, STRUCTURES

        shapes.update(declared.matrices())
        for name, kind in declared.structure.items():
            if kind not in STRUCTURES + SCALAR_STRUCTURES:
                raise InvalidArgument(f"--where: {name} is declared {kind}, which this version does not draw "
                                      f"(known: {', '.join(STRUCTURES + SCALAR_STRUCTURES)})")
            structure[name] = kind
    for text in shape:
        name, dims = parse_shape(text)
        if name in shapes:
            raise InvalidArgument(f"--shape {name!r} is given twice" + (" (also in --where)" if declared is not None
                                                                         and name in declared.shapes else ""))
        shapes[name] = dims
    for text in assume:
        name, kind = parse_assume(text)
        if name in structure:
            raise InvalidArgument(f"--assume {name!r} is given twice" + (" (also in --where)" if declared is not None
                                                                          and name in declared.structure else ""))
        structure[name] = kind
    if check_sizes:
        check_size_letters(size, shapes, "the --shape options", statement)
    for text in size:
        name, rng = parse_size(text)
        if name in sizes:   # helper-36: the last one silently won (n=3 dropped from --size n=3 --size n=4)
            raise InvalidArgument(f"--size {name!r} is given twice ({name}={sizes[name][0]}:{sizes[name][1]} and "
                                  f"{text}): give one range, e.g. --size {name}=3:4")
        sizes[name] = rng
    return shapes, structure, sizes


def _declared_sizes(declared, shapes: dict, used: set) -> dict:
    """``c \\in \\mathbb{N}`` in ``--where``: a letter the statement uses and no shape does is a size letter given no
    range (``None``: the default range, and checked beyond it as every such letter is; helper-50: a range of its own
    stopped at 4, so ``(c-1)(c-2)(c-3)(c-4) + 1 = 1`` was VERIFIED) (helper-49: the declaration was dropped and ``c``
    read as a column vector by convention, ``\\operatorname{tr}(c A) = c \\operatorname{tr}(A)`` ILL-POSED).  Letters
    of the shapes are sizes already."""
    if declared is None:
        return {}
    shape_letters = _size_letters(shapes)
    return {k: None for k in declared.sizes if k in used and k not in shape_letters}


def check_size_letters(size, shapes: dict, where: str, statement: str = "") -> None:
    """InvalidArgument naming the first ``--size`` option (its text, ``n=8:8``) whose letter is neither a
    size letter of ``shapes`` or of the statement's ``eye``/``ones``/``zeros`` nor a (non-matrix) name the
    statement uses (``--size n=1:4`` makes ``n`` of ``2**n`` a size letter); ``where`` says which shapes."""
    from theorem_check import expr as ex
    from theorem_check.authoring.spec import statement_letters

    eye_letters, used = statement_letters(ex.parse_statement(statement)) if statement else (set(), set())
    letters, names = _size_letters(shapes) | eye_letters, used - set(shapes)   # the statement parsed once
    for text in size:
        name, _ = parse_size(text)
        if name not in letters and name not in names:
            raise InvalidArgument(f"--size {text!r}: {name!r} is no size letter of {where}"
                                  + (" and no name of the statement" if statement else ""))


def _power_names(declared) -> tuple[str, ...]:
    """The names declared (``--where``) sizes or scalars: their ``x^T``/``x^H`` is a power (helper-64)."""
    if declared is None:
        return ()
    return (*declared.sizes, *(k for k, v in declared.shapes.items() if v == ()))


def read_latex(statement: str, shapes: dict, declared=None, complex_names=(), sizes=()) -> tuple[str, dict, dict]:
    """A LaTeX statement -> ``(string-syntax statement, shapes with the conventions' added, the
    conventions' shapes alone)``: names without ``--shape``/``--where`` get the shape conventions of
    :func:`theorem_check.expr.latex.convention_shapes` (lower-case letter ``n x 1``, upper-case
    ``n x n`` (upper-case Greek too), lower-case Greek and multi-letter names scalars); a name given a range by ``--size`` (``sizes``) is a size,
    as in the string syntax (``2^k = 2k --size k=1:4``).  Raises ParseError (one line, exit 2)."""
    from theorem_check.expr.latex import convention_shapes, latex_names, parse_latex_statement

    names = {k: v for k, v in latex_names(statement, _power_names(declared)).items() if k not in sizes}
    scalars = {k: () for k, v in (declared.shapes.items() if declared is not None else ()) if v == ()}
    conv = convention_shapes(names, {**shapes, **scalars})
    full = {**shapes, **conv}
    lhs, rhs = parse_latex_statement(statement, full, complex_names, scalars=tuple(scalars),
                                     declared=set(shapes) | set(scalars),
                                     sizes=_power_names(declared))
    text = f"{lhs} = {rhs}"
    used = {n for n, _ in _names_used(text)}
    for k in [k for k in conv if k not in used]:   # \bar{W} of a complex W is conj(W): the name Wbar is not used
        del conv[k], full[k]
    return text, full, conv


def _where_used(declared, used: set):
    """``declared`` without the names the statement does not use, each named in one note on stderr: a paper's
    shared declaration block (``W \\in \\mathbb{R}^{m \\times n}, x \\in \\mathbb{R}^n, ...``) pasted for one of its
    equations (helper-71: 21 of 784 runs were refused).  A misspelt name is then a convention's shape, and the note
    ("declares 'W', which the statement does not use: ignored") says why."""
    if declared is None:
        return None
    unused = [n for n in dict.fromkeys([*declared.shapes, *declared.structure]) if n not in used]
    if not unused:
        return declared
    click.echo(f"theorem-check: note: --where declares {', '.join(map(repr, unused))}, which the statement does "
               f"not use: ignored", err=True)
    import dataclasses

    return dataclasses.replace(declared, shapes={k: v for k, v in declared.shapes.items() if k not in unused},
                               structure={k: v for k, v in declared.structure.items() if k not in unused})


def _shape_words(conv: dict) -> str:
    by: dict = {}
    for name, (r, c) in conv.items():
        by.setdefault(f"{r} x {c}", []).append(name)
    return "; ".join(f"{', '.join(v)} {k}" for k, v in by.items())


@click.command("check", epilog=EPILOG)
@click.argument("statement")
@click.option("--shape", "shape", multiple=True, metavar="NAME=ROWS,COLS",
              help="A matrix and its shape; sizes are numbers or letters (drawn 1..4, and checked once beyond at 5..7, unless --size).")
@click.option("--assume", "assume", multiple=True, metavar="NAME=KIND",
              help="Structure: symmetric, spd, orthogonal, invertible, diagonal, antisymmetric, hermitian "
                   "(square matrices); complex (any shape or a scalar: CN(0,1) entries (x+iy)/sqrt 2); "
                   "positive (scalars; entrywise for a vector or matrix of any shape).")
@click.option("--size", "size", multiple=True, metavar="LETTER=LO:HI", help="Range of a size letter (default 1:4).")
@click.option("--trials", type=click.IntRange(1, 10_000), default=16, show_default=True,
              help="Random instances: every size configuration when the sizes allow at most TRIALS of them "
                   "(ceil(trials / max(4, configurations)) instances each), else ceil(trials / 4) at each of "
                   "min(trials, 4) drawn configurations (--size n=64:64: 4 at the default).")
@click.option("--seed", type=click.IntRange(0, 2**32 - 1), default=0, show_default=True, help="Same seed, same output.")
@click.option("--json", "as_json", is_flag=True, help="Write a JSON record to stdout instead of the table.")
@click.option("--controls", is_flag=True, help="Also run the derived negative controls (they should be REFUTED).")
@click.option("--latex", "from_latex", is_flag=True,
              help="Read STATEMENT as LaTeX, as the paper prints it (matrix notation; see below).")
@click.option("--where", "where", multiple=True, metavar="DECLARATIONS",
              help="Shapes and structures as papers state them (both syntaxes): 'W_1 \\in \\mathbb{R}^{h \\times d}, "
                   "x \\in \\mathbb{R}^d, \\Sigma \\succ 0, Q \\in O(n), S \\in \\mathbb{S}^n, \\alpha > 0'.")
@click.option("--nearby/--no-nearby", default=True, show_default=True,
              help="After a REFUTED statement L = R, also run L = -(R), (R).T, 2*(R), (R)/2 and name those that hold.")
@timeout_option
@color_option
def check(statement, shape, assume, size, trials, seed, as_json, controls, from_latex, where, nearby, timeout):
    """Check one identity "LHS = RHS" given in SymPy syntax (or, with --latex, as the paper prints it).

    \b
    `*` is the matrix product, `.T` the transpose, `**-1` the inverse (Python's precedence: the
    transpose of an inverse is (X**-1).T; X**-1.T does not parse); trace, det, log(det(X)),
    grad(f, X), jacobian(F, x), hessian(f, x), softmax, logsumexp, sigmoid, softplus, vec, kron,
    diag, hadamard, hadamard_power(X, p) (entrywise power), expm, logm, sqrtm, cholesky, tril, triu,
    sin, cos, tan, tanh, exp, log, log1p, expm1, sqrt, abs, relu, max(a, b), min(a, b) (elementwise
    on matrices).
    jacobian(F, X) flattens F and X row by row (NumPy's, JAX's layout); where F or X has more
    columns than one, check also runs the vec reading (columns stacked, d vec(F)/d vec(X)^T, as
    Magnus-Neudecker and the Matrix Cookbook write it) and reports which holds; hessian(f, X) too.
    Names without --shape are scalars (size letters are integers).  grad with respect to a
    symmetric/spd matrix is the symmetric gradient (G + G^T)/2 (arXiv:1911.06491), and check also
    runs the unconstrained G and the Matrix Cookbook's G + G^T - diag(G); with respect to an
    antisymmetric/diagonal one it is G, and check also runs the reading within the subspace
    ((G - G^T)/2, diag(diag(G))); it reports which holds.
    Names from other tools: logdet, inv, norm2, sum, x' (transpose), as matrixcalculus.org;
    superscripts as papers type them: Aᵀ, Aᴴ, A⁻¹.

    \b
    --latex reads papers' notation: products by juxtaposition or \\cdot (u \\cdot v of two
    columns: u^\\top v), ^\\top ^T ^{-1} ^{-\\top},
    \\operatorname{tr}, \\det, \\log\\det, \\|X\\|_F, \\langle A, B\\rangle (also _F), \\odot, \\otimes,
    \\nabla_X f, \\frac{\\partial f}{\\partial X}, \\nabla^2_x f, I, I_n, \\mathbf{1}, W_1, W^{(l)}
    (names: \\lambda is lamda, W^{(l)} and W^{[l]} are W__l); \\exp, \\log, \\sqrt of a square matrix are refused
    as ambiguous: \\operatorname{expm}, \\operatorname{logm}, X^{1/2}, or entrywise \\exp_\\odot(X).
    \\sum_i x_i y_i, \\sum_{i,j} A_{ij} B_{ij}, \\sum_i A_{ii} are read over entries (1^T hadamard(x, y), ...);
    \\sum_{l=1}^{3} W_l is written out (W_1 + W_2 + W_3).
    Without --shape/--where, LaTeX names follow conventions (as matrixcalculus.org):
    a lower-case Latin letter is a column vector n x 1, an upper-case one (and \\Sigma,
    \\Lambda: upper-case Greek) an n x n matrix, lower-case Greek and multi-letter names are
    scalars (the note lists them); declarations override them name by name.

    \b
    Complex values (--assume z=complex, or A=hermitian): conj(x), X.H (conjugate
    transpose), real(x), imag(x), abs(x); I is the imaginary unit (an error in a
    statement with no complex name).  grad(f, z) of a complex z is the conjugate
    Wirtinger derivative df/dconj(z) = (df/dx + i df/dy)/2, z = x + iy
    (Kreutz-Delgado, arXiv:0906.4835): f(z + dz) ~ f(z) + 2 Re(dz^H grad) for real f.
    grad_xy(f, z) = df/dx + i df/dy = 2 df/dconj(z) is the steepest-ascent
    reading (PyTorch's z.grad).  Both by finite differences along the real and the
    imaginary direction of each entry, at float32 (complex64), float64 (complex128)
    and mp50 (mpmath mpc).

    \b
    Examples:
      theorem-check check "grad(trace(X*X*B), X) = (X*B + B*X).T" --shape X=n,n --shape B=n,n
      theorem-check check "grad(log(det(X)), X) = X**-1" --shape X=n,n --assume X=spd
      theorem-check check "(A*B).T = A.T*B.T" --shape A=m,k --shape B=k,n      # ILL-POSED, exit 1
      theorem-check check --latex '\\nabla_X \\log\\det X = X^{-\\top}' --where 'X \\succ 0'
      theorem-check check "grad(real(z.H*A*z), z) = A*z" --shape z=n,1 --shape A=n,n --assume z=complex --assume A=hermitian
    """
    from theorem_check.execution.workers import run_in_process
    from theorem_check.output import terminal
    from theorem_check.output.json_record import dumps, run_record

    check_environment()
    declared = None
    if where:
        from theorem_check.expr.declarations import parse_where

        declared = parse_where(", ".join(where))
        if from_latex:
            from theorem_check.expr.latex import latex_names
            from theorem_check.expr.latex_sums import entry_names
            from theorem_check.expr.latex_tree import read

            powers = frozenset(_power_names(declared))
            used = set(latex_names(statement, powers))   # e^{x} alone: latex_names drops e (Euler)
            used |= entry_names(read(statement, power_names=powers)[0])   # x_i of a sum
            declared = _where_used(declared, used | ({"e"} if re.search(r"(?<![\\A-Za-z])e(?![A-Za-z])", statement) else set()))
        else:
            declared = _where_used(declared, {n for n, _ in _names_used(statement)})
    shapes, structure, sizes = parse_options(shape, assume, size, declared, check_sizes=not from_latex,
                                             statement=statement)
    given = statement
    if from_latex:
        from theorem_check.expr.latex import latex_names

        powers = _power_names(declared)
        declared_names = set(latex_names(statement, powers))
        sizes = {**_declared_sizes(declared, shapes, declared_names), **sizes}
        from theorem_check.expr import COMPLEX_KINDS

        statement, shapes, conv = read_latex(statement, shapes, declared,
                                             [n for n, k in structure.items() if k in COMPLEX_KINDS], sizes=sizes)
        check_size_letters(size, shapes, "the shapes (--shape, --where and the LaTeX conventions)", statement)
        assumed = ", ".join(f"{n} {k}" for n, k in sorted(structure.items()))
        used = {n for n, _ in _names_used(statement)}
        conv_scalars = sorted(n for n, letter in latex_names(given, powers).items()
                              if not letter and n not in shapes and n not in sizes and n in used
                              and n not in ("pi", "E"))     # constants, not scalars by convention (helper-69)
        words = "; ".join(w for w in (_shape_words(conv), f"{', '.join(conv_scalars)} scalar" * bool(conv_scalars)) if w)
        click.echo(f"theorem-check: note: read as {statement}"
                   + (f" (by convention: {words})" if words else "")
                   + (f"; assumed: {assumed}" if assumed else "")
                   + "".join(f"; ^{t} is a power of the declared {t}, ^\\top the transpose" for t in ("T", "H")
                             if t in powers and re.search(rf"\^\s*\{{?\s*{t}(?![A-Za-z])", given)), err=True)
        scalars = []
    else:
        conv_scalars = []
        sizes = {**_declared_sizes(declared, shapes, {n for n, _ in _names_used(statement)}), **sizes}
        scalars = [n for n in scalar_names(statement, shapes, structure, sizes) if declared is None
                   or n not in declared.shapes]
    from theorem_check.authoring.spec import DEFAULT_SIZE
    from theorem_check.expr import COMPLEX_KINDS, parse_statement, size_names_in

    complex_names = {n for n, k in structure.items() if k in COMPLEX_KINDS}
    letters = _size_letters(shapes) | set(sizes) | set(size_names_in(statement))
    check_fits(shapes, {k: sizes.get(k) or DEFAULT_SIZE for k in letters}, trials, complex_names=complex_names,
               sides=parse_statement(statement))   # before the claim is built: its controls evaluate a side
    claim = build_claim(statement, shapes, structure, sizes, latex=given if from_latex else None)
    check_fits(shapes, claim.statement.dims.ranges, trials, complex_names=complex_names)
    if scalars:
        click.echo(f"theorem-check: note: {', '.join(scalars)} {'has' if len(scalars) == 1 else 'have'} no --shape: "
                   f"taken as real scalar{'s' if len(scalars) > 1 else ''}", err=True)
    with deprecations_noted():
        result = run_in_process(claim, options=RunOptions(seed=seed, trials=trials, controls=controls),
                                timeout=timeout)
    near = []
    if nearby and result.results and result.results[0].verdict is Verdict.REFUTED:
        from theorem_check import expr as ex
        from theorem_check.cli.nearby import nearby as nearby_statements

        lhs, rhs = _zero_matrix_side(*ex.parse_statement(statement), shapes, structure, quiet=True)
        near = nearby_statements(lhs, rhs, shapes, structure, sizes, seed=seed, trials=trials, timeout=timeout)
    if as_json:
        rec = {**run_record(result, kind="check"), "statement": given,
               "nearby": [{"slip": n.slip, "statement": n.statement, "verdict": n.verdict.value, "evidence": n.evidence}
                          for n in near],
               **({"syntax": "latex", "read_as": statement} if from_latex else {}),
               "shapes": {k: list(v) for k, v in shapes.items()}, "assume": dict(structure),
               "sizes": {k: list(v) for k, v in claim.statement.dims.ranges.items()}}
        click.echo(dumps(rec))
    else:
        colour = use_colour()
        click.echo(result_table(result, colour=colour), color=colour)
        counts = ", ".join(f"{n} {terminal.style_verdict(v, colour)}" for v, n in result.counts().items())
        click.echo(f"{plural(len(result.results), 'claim')}: {counts} in {result.seconds:.1f} s (seed {seed})",
                   color=colour)
        for n in near:
            click.echo(f"nearby statement that holds ({n.slip}): {n.statement}  "
                       f"{terminal.style_verdict(n.verdict, colour)}", color=colour)
    if conv_scalars and result.results and result.results[0].verdict is Verdict.ILL_POSED:
        from theorem_check.expr.latex_prepass import GREEK

        name = "lambda" if conv_scalars[0] == "lamda" else conv_scalars[0]   # helper-67: \mu, a Gaussian's mean
        tex = f"\\{name}" if name in GREEK else name
        click.echo(f"theorem-check: note: {', '.join(conv_scalars)} "
                   f"{'is a scalar' if len(conv_scalars) == 1 else 'are scalars'} by the conventions; if {tex} is a "
                   f"vector or a matrix, declare it (--where '{tex} \\in \\mathbb{{R}}^n')", err=True)
    if from_latex and "e" in conv and result.results and result.results[0].verdict is Verdict.ILL_POSED:
        click.echo("theorem-check: note: e is a column vector by the conventions; if it is Euler's number, write "
                   "\\mathrm{e}", err=True)
    report_broken(result)
    sys.exit(result.exit_code)


