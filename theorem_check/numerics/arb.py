"""python-flint's arb/acb balls for the mp50 linear algebra (``inv``, ``solve``, ``det``, ``expm``, ``eigvalsh``).

Each helper takes one matrix (a 2-d object array of ``mpf``/``mpc``) and returns None when the operation
must take the mpmath path instead: python-flint absent or switched off (:data:`USE_ARB`), an entry that is
not finite, or (for division-like operations) a ball that contains a singular matrix at working precision.
"""

from __future__ import annotations

import contextlib
import os

import mpmath
import numpy as np

__all__ = ["ARB_ENV", "ARB_OFF", "ARB_ON", "USE_ARB", "arb_inv", "arb_solve", "arb_det", "arb_expm", "arb_eigvalsh"]

# python-flint, optional extra [arb] (no import cost in practice: SymPy >= 1.13 imports it as its ground
# types whenever it is installed)
try:
    import flint as _flint
except ImportError:  # mpmath does the work alone
    _flint = None

ARB_ENV = "THEOREM_CHECK_ARB"
"""Environment variable: ``0`` (or ``off``, ``false``, ``no``) keeps mp50 linear algebra in mpmath."""
ARB_OFF = ("0", "off", "false", "no")
"""The values of :data:`ARB_ENV` that turn python-flint off (case and surrounding spaces ignored)."""
ARB_ON = ("", "1", "on", "true", "yes")
"""The values of :data:`ARB_ENV` that leave it on; any other is refused by the command line (exit 2)."""
USE_ARB: bool = _flint is not None and os.environ.get(ARB_ENV, "1").strip().lower() not in ARB_OFF
"""Route mp50 ``inv`` / ``solve`` / ``det`` / ``expm`` through python-flint's ``arb_mat`` / ``acb_mat``.

True when python-flint is importable and ``THEOREM_CHECK_ARB`` does not turn it off; tests set it to
False (monkeypatch) to exercise the mpmath path.
"""



# -- python-flint (arb) for the mp50 linear algebra ------------------------------------------
# Each helper takes one matrix (a 2-d object array) and returns None when the operation must take the
# mpmath path instead: python-flint absent or switched off, an entry that is not finite, or (for
# division-like operations) a ball that contains a singular matrix at working precision.
@contextlib.contextmanager
def _flint_prec():
    """python-flint's working precision set to mpmath's (``mpmath.mp.prec`` bits) for the block."""
    old = _flint.ctx.prec
    _flint.ctx.prec = mpmath.mp.prec
    try:
        yield
    finally:
        _flint.ctx.prec = old


def _ball_matrix(m: np.ndarray):
    """An ``arb_mat`` (real entries) or ``acb_mat`` (any complex entry) holding the entries of ``m``
    exactly (mpmath's binary mantissa and exponent, no decimal string); None if an entry is not finite
    or not a number mpmath converts."""
    rows = m.tolist()
    cplx = False
    for row in rows:
        for j, v in enumerate(row):
            if not isinstance(v, (mpmath.mpf, mpmath.mpc)):
                try:
                    v = row[j] = mpmath.mpmathify(v)
                except (TypeError, ValueError):
                    return None
            if not mpmath.isfinite(v):
                return None
            cplx = cplx or isinstance(v, mpmath.mpc)
    return _flint.acb_mat(rows) if cplx else _flint.arb_mat(rows)


def _mp_of_ball(x):
    """The midpoint of an ``arb`` / ``acb`` ball as ``mpf`` / ``mpc`` (exact at the same precision)."""
    if isinstance(x, _flint.arb):
        return mpmath.mp.make_mpf(x.mid()._mpf_)
    return mpmath.mp.make_mpc(x.mid()._mpc_)


def _mp_of_ball_matrix(bm) -> np.ndarray:
    """Ball matrix -> object array of midpoints (``mpf`` for ``arb_mat``, ``mpc`` for ``acb_mat``)."""
    vals = [_mp_of_ball(x) for x in bm.entries()]
    out = np.empty(len(vals), dtype=object)
    out[:] = vals
    return out.reshape(bm.nrows(), bm.ncols())


_ARB_MIN_N = 2
"""Smallest size at which ``inv``, ``solve`` and ``det`` take arb: at n = 1 it is only 2.4-3.1x faster than
mpmath (below the 3x bar of docs/design-decisions.md, item 42), and mpmath's value stays exact there."""


def arb_inv(m: np.ndarray):
    if not USE_ARB or m.shape[0] != m.shape[1] or m.shape[0] < _ARB_MIN_N:
        return None
    with _flint_prec():
        bm = _ball_matrix(m)
        if bm is None:
            return None
        try:
            return _mp_of_ball_matrix(bm.inv())
        except ZeroDivisionError:  # the ball holds a singular matrix: mpmath decides, as before
            return None


def arb_solve(m: np.ndarray, r: np.ndarray):
    if not USE_ARB or r.ndim != 2 or m.shape[0] != m.shape[1] or r.shape[0] != m.shape[0] or m.shape[0] < _ARB_MIN_N:
        return None
    with _flint_prec():
        bm, br = _ball_matrix(m), _ball_matrix(r)
        if bm is None or br is None:
            return None
        if type(bm) is not type(br):
            bm, br = _flint.acb_mat(bm), _flint.acb_mat(br)
        try:
            return _mp_of_ball_matrix(bm.solve(br))
        except ZeroDivisionError:
            return None


def arb_expm(m: np.ndarray):
    if not USE_ARB or m.shape[0] != m.shape[1]:
        return None
    with _flint_prec():
        bm = _ball_matrix(m)
        return None if bm is None else _mp_of_ball_matrix(bm.exp())


def arb_det(m: np.ndarray):
    if not USE_ARB or m.shape[0] != m.shape[1] or m.shape[0] < _ARB_MIN_N:
        return None
    with _flint_prec():
        bm = _ball_matrix(m)
        if bm is None:
            return None
        d = bm.det()
        if d.contains(0):  # singular to working precision: mpmath's value (often exactly 0), as before
            return None
        return _mp_of_ball(d)


_ARB_MIN_EIG = 4
"""Smallest size at which ``eigvalsh`` takes arb: below it mpmath's ``eigsy`` is as fast (measured at n = 2: 0.3 ms
against 0.7 ms; n = 5: 2.5 ms against 0.4 ms)."""


def arb_eigvalsh(m: np.ndarray):
    """Ascending eigenvalues of a real symmetric matrix (2-d object array of ``mpf``) as a 1-d object array of
    ``mpf``, from ``acb_mat.eig(algorithm="approx")`` (QR iteration at working precision, clusters allowed);
    None when arb is off, ``m`` is complex or not square, or the result fails the validation.

    The approximate eigenvalues carry no error bound, so they are validated against two invariants computed
    from the entries at working precision: ``sum(lambda) = tr(m)`` and ``sum(lambda^2) = ||m||_F^2`` (for a
    symmetric matrix), each to ``2^(-prec/2)`` relative, and every imaginary part below that; a failure
    (no convergence) returns None and mpmath's ``eigsy`` decides.  5-8x faster than ``eigsy`` at n = 18-30.
    """
    if not USE_ARB or m.ndim != 2 or m.shape[0] != m.shape[1] or m.shape[0] < _ARB_MIN_EIG:
        return None
    with _flint_prec():
        bm = _ball_matrix(m)
        if bm is None or isinstance(bm, _flint.acb_mat):
            return None
        try:
            ev = _flint.acb_mat(bm).eig(algorithm="approx")
        except (ValueError, ZeroDivisionError):
            return None
        vals = sorted(_mp_of_ball(x.real) for x in ev)
        im = max((abs(_mp_of_ball(x.imag)) for x in ev), default=mpmath.mpf(0))
        tr = mpmath.fsum(m[i, i] for i in range(m.shape[0]))
        fro = mpmath.fsum(v * v for v in m.flat)
        tol = mpmath.ldexp(1, -mpmath.mp.prec // 2)
        scale = mpmath.sqrt(fro) + 1
        if (im > tol * scale or abs(mpmath.fsum(vals) - tr) > tol * scale * m.shape[0]
                or abs(mpmath.fsum(v * v for v in vals) - fro) > tol * (fro + 1) * m.shape[0]):
            return None
        out = np.empty(len(vals), dtype=object)
        out[:] = vals
        return out
