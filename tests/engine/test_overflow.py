"""Undefined at float64 only stays undecided; mp50 exponentials beyond GMP's reach are infinite, not an abort."""

from __future__ import annotations

import subprocess
import sys

import theorem_check as tc


def test_a_log_of_a_negative_number_stays_grey():
    """A real statement undefined at float64 and complex at mp50 (a domain) is not decided, and neither is a float64
    overflow (decision 210 first decided those between mp50 and mp100 where mp50's sides were real, but a derivative
    of a log of a negative number is real too: ``grad(log(det(-X)), X)`` became VERIFIED; reverted)."""
    r = tc.run_claim(tc.identity("t.dom", "log(c)", "log(c)*(1 + 0*c)", register=False, derive=False), seed=0)
    assert r.verdict.value == "INCONCLUSIVE", r.evidence


def test_an_exponential_beyond_gmps_reach_is_infinite_not_an_abort():
    """``exp(exp(exp(x)))`` at a far instance asked GMP for an exponent of 1e86 digits: 'gmp: overflow in mpz type'
    and the process aborted.  Beyond 2**100 the mp50 exponential is infinite (or 0)."""
    code = ("import mpmath, numpy as np\n"
            "from theorem_check.numerics.precision import MP50\n"
            "with MP50.active():\n"
            "    x = np.array([mpmath.mpf(10) ** 40, -mpmath.mpf(10) ** 40], dtype=object)\n"
            "    print(MP50.exp(MP50.exp(x)).tolist(), MP50.sigmoid(-x).tolist())\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "+inf" in p.stdout, p.stdout + p.stderr


def test_softplus_of_a_complex_entry_beyond_the_guard_is_its_argument():
    """The guard compared an ``mpc`` with 0 (TypeError); it compares the real part."""
    import mpmath
    import numpy as np

    from theorem_check.numerics.precision import MP50

    with MP50.active():
        big = mpmath.mpc(mpmath.mpf(2) ** 101, 1)
        assert MP50.softplus(np.array([big], dtype=object))[0] == big
