"""`check` names nearby statements that hold after a REFUTED one (cli/nearby.py, design decision 197)."""

import json

import pytest

from theorem_check.cli import main
from theorem_check.cli.nearby import nearby


def run_main(capsys, *args):
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return info.value.code, out, err


def test_a_transposed_gradient_gets_its_transpose_named(capsys):
    code, out, _ = run_main(capsys, "check", "grad(trace(X*X*B), X) = X*B + B*X", "--shape", "X=n,n",
                            "--shape", "B=n,n")
    assert code == 1 and "REFUTED" in out
    assert "nearby statement that holds (transpose): grad(trace(X*X*B), X) = (X*B + B*X).T" in out, out


def test_a_missing_factor_2_in_json(capsys):
    code, out, _ = run_main(capsys, "check", "grad(x.T*A*x, x) = A*x", "--shape", "x=n,1", "--shape", "A=n,n",
                            "--assume", "A=symmetric", "--json")
    rec = json.loads(out)
    assert code == 1 and rec["claims"][0]["verdict"] == "REFUTED"
    assert [(n["slip"], n["statement"]) for n in rec["nearby"]] == [("factor 2", "grad(x.T*A*x, x) = 2*(A*x)")]
    assert all(n["verdict"] in ("PROVED", "VERIFIED") for n in rec["nearby"])


def test_nothing_nearby_for_a_true_statement_or_with_no_nearby(capsys):
    code, out, _ = run_main(capsys, "check", "(A*B).T = B.T*A.T", "--shape", "A=n,n", "--shape", "B=n,n", "--json")
    assert code == 0 and json.loads(out)["nearby"] == []
    code, out, _ = run_main(capsys, "check", "grad(x.T*A*x, x) = A*x", "--shape", "x=n,1", "--shape", "A=n,n",
                            "--assume", "A=symmetric", "--no-nearby")
    assert code == 1 and "nearby" not in out


def test_only_statements_that_hold_are_named():
    """A wrong gradient with no slip of these kinds (A for A + A.T): none of the four holds, none is named; the
    nearby statements are run, not assumed (the sign slip of a true statement is itself REFUTED)."""
    shapes = {"X": ("n", "n"), "A": ("n", "n")}
    assert nearby("grad(trace(X.T*A*X), X)", "A*X", shapes, {}, {}, seed=0, trials=16, timeout=60) == []
    [n] = nearby("grad(trace(X.T*A*X), X)", "-(A + A.T)*X", shapes, {}, {}, seed=0, trials=16, timeout=60)
    assert n.slip == "sign" and n.statement == "grad(trace(X.T*A*X), X) = -(-(A + A.T)*X)"


def test_a_candidate_that_holds_by_its_form_is_not_named():
    """``A.T = A`` (false): its transpose reading ``A.T = (A).T`` holds by its form alone and says nothing; it was
    named as the nearby statement.  The sign reading of ``A.T = -A`` is ``A.T = -(-A)``, not the same form, and fails."""
    assert nearby("A.T", "A", {"A": ("n", "n")}, {}, {}, seed=0, trials=16, timeout=60) == []
