"""Every size configuration of a vacuous statement (engine/vacuous_sweep.py, design decision 193)."""

import pytest

import theorem_check as tc
from theorem_check.engine.numeric import run_numeric
from theorem_check.engine.vacuous_sweep import VACUOUS_SWEEP_ENTRIES, vacuous_sweep


@pytest.mark.parametrize("seed", range(3))
def test_a_vacuous_statement_runs_every_configuration_before_it_says_inconclusive(seed):
    """helper-55: det(A*B) = 0 (A n x m, B m x n, n = 4..8, m = 1..4) is false only at n = m = 4, one configuration of
    20 (4 planned); both sides vanish everywhere else, and it was INCONCLUSIVE at nine seeds in ten.  Where every
    planned instance is vacuous, the other configurations run one instance each (decision 193)."""
    shapes = {"A": ("n", "m"), "B": ("m", "n")}
    r = tc.run_claim(tc.identity("t.vac", "det(A*B)", "0", shapes=shapes, sizes={"n": (4, 8), "m": (1, 4)},
                                 register=False), seed=seed)
    assert r.verdict is tc.Verdict.REFUTED and r.printed.numeric.counterexample.dims == {"m": 4, "n": 4}, r.evidence
    true = tc.identity("t.vac_true", "det(A*B)", "0", shapes=shapes, sizes={"n": (5, 9), "m": (1, 4)}, register=False)
    r = tc.run_claim(true, seed=seed)
    assert r.verdict is tc.Verdict.INCONCLUSIVE and "other size configurations run too" in r.evidence, r.evidence


def test_no_sweep_where_an_instance_is_not_vacuous_or_the_configurations_are_large():
    shapes = {"A": ("n", "m"), "B": ("m", "n")}
    c = tc.identity("t.nvac", "trace(A*B)", "trace(B*A)", shapes=shapes, sizes={"n": (4, 8), "m": (1, 4)},
                    register=False)
    num = run_numeric(c.statement, seed=0)
    assert vacuous_sweep(c.statement, num, seed=0) is num          # not vacuous: nothing more to learn
    big = tc.identity("t.bigvac", "det(A*B)", "0", shapes=shapes, sizes={"n": (20, 24), "m": (13, 16)},
                      register=False)                                # rank <= m < n: vacuous; 20 configurations
    num = run_numeric(big.statement, seed=0, trials=4)
    assert num.vacuous and 20 * 13 > VACUOUS_SWEEP_ENTRIES
    assert vacuous_sweep(big.statement, num, seed=0) is num        # every left-out configuration too large
