"""Float64 overflow where mp50 is real (decided between mp50 and mp100), and mp50 exponentials beyond GMP's reach."""

from __future__ import annotations

import subprocess
import sys

import theorem_check as tc


def _big(i, c):
    y = c.exp(c.exp(c.exp(3 * i["x"] + 4)))
    return y / y


def _big_twice(i, c):
    y = c.exp(c.exp(c.exp(3 * i["x"] + 4)))
    return 2 * y / y


def test_an_overflow_at_float64_is_decided_between_mp50_and_mp100():
    """helper-69: ``expm(expm(expm(A)))`` overflows at float64 and is real at mp50; such an instance was grey with a
    hint about logs of negative numbers.  It is decided between mp50 and mp100 now: the false twin is REFUTED there,
    the true one is not (its instances far out are undefined at mp50 too, so it stays undecided)."""
    false = tc.run_claim(tc.identity("t.ovf", _big_twice, "1 + 0*x", register=False, derive=False), seed=0)
    assert false.verdict.value == "REFUTED", false.evidence
    assert "real at mp50: an overflow or underflow" in false.evidence
    true = tc.run_claim(tc.identity("t.ovf", _big, "1 + 0*x", register=False, derive=False), seed=0)
    assert true.verdict.value != "REFUTED", true.evidence


def test_a_log_of_a_negative_number_stays_grey():
    """The same branch for a real statement whose mp50 value is complex (a domain, not an overflow): not decided."""
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
