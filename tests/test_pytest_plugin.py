"""The pytest plugin in a temporary project: one passing claim, one failing, one expected erratum.

Runs pytest inside pytest (the ``pytester`` fixture).  The plugin is the package's ``pytest11``
entry point when theorem-check is installed (CI installs it with pip); otherwise it is loaded
with ``-p theorem_check.plugins.pytest``, the same module.
"""

import importlib.metadata
import os
import sys
import tomllib
from pathlib import Path

import pytest

# the plugin and the packs share one REGISTRY across pytester's inline sessions (run alone, this file failed: the
# second session re-imported the registry module); imported before pytester snapshots sys.modules (numpy loads once)
import theorem_check.authoring.registry  # noqa: F401
import theorem_check.plugins.pytest  # noqa: F401

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[1]

PACK = r'''
import theorem_check as tc
from theorem_check import sampling

dims = tc.DimSpace({"n": (2, 4)})


def sample(rng, d, batch):
    return {"A": sampling.gaussian(rng, d["n"], d["n"], batch=batch),
            "B": sampling.gaussian(rng, d["n"], d["n"], batch=batch)}


lhs = lambda i, c: c.T(i.A @ i.B)
right = tc.Statement(r"(AB)^T = B^T A^T", dims=dims, sample=sample, lhs=lhs, rhs=lambda i, c: c.T(i.B) @ c.T(i.A))
wrong = tc.Statement(r"(AB)^T = A^T B^T", dims=dims, sample=sample, lhs=lhs, rhs=lambda i, c: c.T(i.A) @ c.T(i.B))
fixed = tc.Statement(r"(AB)^T = B^T A^T", name="corrected", kind="corrected", dims=dims, sample=sample, lhs=lhs,
                     rhs=lambda i, c: c.T(i.B) @ c.T(i.A))
src = lambda eq: tc.Source("{paper}", "1", eq, r"(AB)^T")

tc.register(tc.Claim(id="{paper}.good", title="transpose reverses the factors", source=src("(1)"),
                     statement=right, controls=(tc.double(right),)))
tc.register(tc.Claim(id="{paper}.bad", title="transpose keeps the order", source=src("(2)"),
                     statement=wrong, controls=(tc.double(wrong),)))
tc.register(tc.Claim(id="{paper}.known", title="a known erratum", source=src("(3)"), statement=wrong,
                     variants=(fixed,), controls=(tc.double(wrong),), expected="{expected}"))
'''


def _entry_point_installed() -> bool:
    return any(ep.name == "theorem_check" and ep.value == "theorem_check.plugins.pytest"
               for ep in importlib.metadata.entry_points(group="pytest11"))


PLUGIN = [] if _entry_point_installed() else ["-p", "theorem_check.plugins.pytest"]


@pytest.fixture
def project(pytester):
    """A temporary project: claims.py (3 claims) and one ordinary test of its own."""
    pytester.makepyfile(claims=PACK.replace("{paper}", "mine").replace("{expected}", "erratum"))
    pytester.makepyfile(test_own="def test_own():\n    assert 1 + 1 == 2\n")
    return pytester


def run(pytester, *args, subprocess=False):
    call = pytester.runpytest_subprocess if subprocess else pytester.runpytest
    return call(*PLUGIN, "-p", "no:randomly", *args)


def test_entry_point_is_declared():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["project"]["entry-points"]["pytest11"] == {"theorem_check": "theorem_check.plugins.pytest"}


def test_one_passes_one_fails_one_expected_erratum(project):
    res = run(project, "--tc-pack", "claims.py", "-v")
    res.assert_outcomes(passed=3, failed=1)   # test_own, mine.good, mine.known pass; mine.bad fails
    res.stdout.fnmatch_lines(["*test_own.py::test_own PASSED*", "*claims.py::mine.good PASSED*",
                              "*claims.py::mine.bad FAILED*", "*claims.py::mine.known PASSED*"])


def test_failure_shows_evidence_counterexample_and_seed(project):
    res = run(project, "--tc-pack", "claims.py", "--tc-seed", "5", "--tc-trials", "8")
    res.stdout.fnmatch_lines([
        "*claim mine.bad: REFUTED, expected PROVED or VERIFIED  (seed 5, trials 8)*",
        "*evidence: counterexample dims {'n': 2}*",
        "*smallest counterexample: dims {'n': 2}, instance seed *, residual float32 *",
        "*reproduce: theorem-check run mine.bad --pack claims.py --seed 5 --trials 8*",
    ])


def test_expected_verdict_must_match_exactly(pytester):
    """A claim expected to be an ERRATUM that gets another verdict fails, saying what was expected."""
    pytester.makepyfile(claims=PACK.replace("{paper}", "exp").replace("{expected}", "VERIFIED"))
    res = run(pytester, "--tc-pack", "claims.py")
    res.assert_outcomes(passed=1, failed=2)
    res.stdout.fnmatch_lines(["*claim exp.known: ERRATUM, expected VERIFIED*"])


def test_bad_expected_value_is_a_collection_error(pytester):
    pytester.makepyfile(claims=PACK.replace("{paper}", "bogus").replace("{expected}", "maybe"))
    res = run(pytester, "--tc-pack", "claims.py")
    assert res.ret != 0
    res.stdout.fnmatch_lines(["*claim bogus.known: expected='maybe' must be a verdict*"])


def test_k_selects_claims_by_id(project):
    res = run(project, "--tc-pack", "claims.py", "-k", "good or known")
    res.assert_outcomes(passed=2, deselected=2)


def test_x_stops_at_the_first_failing_claim(project):
    res = run(project, "--tc-pack", "claims.py", "-x")
    res.assert_outcomes(passed=2, failed=1)     # test_own, mine.good, then mine.bad stops the run


def test_last_failed_reruns_only_the_failing_claim(project):
    run(project, "--tc-pack", "claims.py").assert_outcomes(passed=3, failed=1)
    res = run(project, "--tc-pack", "claims.py", "--lf", "-v")
    res.assert_outcomes(failed=1, deselected=1)   # test_own deselected; the pack's passing claims filtered
    res.stdout.fnmatch_lines(["*run-last-failure: rerun previous 1 failure*", "*claims.py::mine.bad FAILED*"])
    assert "mine.good" not in res.stdout.str() and "mine.known" not in res.stdout.str()


def test_marker_selects_only_the_claims(project):
    res = run(project, "--tc-pack", "claims.py", "-m", "theorem_check")
    res.assert_outcomes(passed=2, failed=1, deselected=1)


def test_pyproject_config(project):
    project.makepyprojecttoml('[tool.theorem_check]\npacks = ["claims.py"]\nseed = 3\ntrials = 4\n')
    res = run(project)
    res.assert_outcomes(passed=3, failed=1)
    res.stdout.fnmatch_lines(["*(seed 3, trials 4)*"])
    res = run(project, "--tc-seed", "9")       # the option wins over the file
    res.stdout.fnmatch_lines(["*(seed 9, trials 4)*"])


def test_pack_in_both_places_runs_once(project):
    project.makepyprojecttoml('[tool.theorem_check]\npacks = ["claims.py"]\n')
    run(project, "--tc-pack", "claims.py").assert_outcomes(passed=3, failed=1)


def test_nothing_happens_without_packs(project):
    """The project's own suite is unaffected: no --tc-pack, no config -> no claim items."""
    res = run(project)
    res.assert_outcomes(passed=1)
    res = run(project, "--collect-only", "-q")
    assert "mine." not in res.stdout.str()


def test_pack_named_like_a_test_module_is_collected_once(pytester):
    pytester.makepyfile(test_claims=PACK.replace("{paper}", "tmod").replace("{expected}", "erratum"))
    res = run(pytester, "--tc-pack", "test_claims.py")
    res.assert_outcomes(passed=2, failed=1)


@pytest.mark.parametrize("args,message", [
    (("--tc-pack", "missing.py"), "--tc-pack='missing.py' must be an existing .py file"),
    (("--tc-pack", "claims.py", "--tc-seed", "-1"), "--tc-seed=-1 must be between 0 and"),
    (("--tc-pack", "claims.py", "--tc-trials", "many"), "--tc-trials='many' must be an integer"),
])
def test_bad_options_are_usage_errors(project, args, message):
    res = run(project, *args)
    assert res.ret == pytest.ExitCode.USAGE_ERROR
    assert message in res.stderr.str()


def test_bad_config_is_a_usage_error(project):
    project.makepyprojecttoml('[tool.theorem_check]\npacks = "claims.py"\n')
    res = run(project)
    assert res.ret == pytest.ExitCode.USAGE_ERROR and "packs='claims.py' must be a list of paths" in res.stderr.str()


def test_budget_is_checked_when_packs_run(project, monkeypatch):
    monkeypatch.setenv("THEOREM_CHECK_BUDGET", "bogus")
    res = run(project, "--tc-pack", "claims.py")
    assert res.ret == pytest.ExitCode.USAGE_ERROR and "THEOREM_CHECK_BUDGET='bogus'" in res.stderr.str()
    run(project).assert_outcomes(passed=1)     # without packs the plugin does not care


def test_broken_pack_is_a_collection_error(pytester):
    pytester.makepyfile(claims="import theorem_check as tc\nraise RuntimeError('boom')\n")
    res = run(pytester, "--tc-pack", "claims.py")
    assert res.ret == pytest.ExitCode.INTERRUPTED
    res.stdout.fnmatch_lines(["*failed to import (line 2): RuntimeError: boom*"])


def test_xdist_distributes_claims(project, monkeypatch):
    pytest.importorskip("xdist")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    res = run(project, "--tc-pack", "claims.py", "-n", "2", "-p", "no:cacheprovider", subprocess=True)
    res.assert_outcomes(passed=3, failed=1)
    res.stdout.fnmatch_lines(["*FAILED claims.py::mine.bad*"])


def test_expected_verdict_is_case_insensitive():
    import theorem_check as tc
    from theorem_check.plugins.pytest import expected_verdict

    claim = lambda e: tc.Claim(id="x.y", title="t", source=tc.Source("x", "1", "1", "a"),  # noqa: E731
                               statement=tc.Statement("a", derivation=lambda: None), expected=e)
    assert expected_verdict(claim("erratum")) is tc.Verdict.ERRATUM
    assert expected_verdict(claim("ERRATUM")) is tc.Verdict.ERRATUM
    assert expected_verdict(claim("ill_posed")) is tc.Verdict.ILL_POSED
    assert expected_verdict(claim(None)) is None
    with pytest.raises(tc.ClaimDefinitionError, match="expected='nope' must be a verdict"):
        expected_verdict(claim("nope"))


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX paths")
def test_plugin_module_is_importable_without_side_effects():
    """Importing the plugin registers no claims (it does work only in a session with packs)."""
    from theorem_check import REGISTRY

    assert not [c for c in REGISTRY if c.paper in ("mine", "exp", "tmod", "bogus")]


# --------------------------------------------------------------------------- issue 23
def test_a_claim_is_rerun_by_its_node_id(project):
    res = run(project, "--tc-pack", "claims.py", "claims.py::mine.good", "-v")
    res.assert_outcomes(passed=1)
    res.stdout.fnmatch_lines(["*claims.py::mine.good PASSED*"])
    res = run(project, "--tc-pack", "claims.py", "claims.py::mine.bad", "claims.py::mine.known")
    res.assert_outcomes(passed=1, failed=1)


def test_the_pack_as_an_argument_is_collected_once(project):
    res = run(project, "--tc-pack", "claims.py", "claims.py")
    res.assert_outcomes(passed=2, failed=1)
    assert "registered twice" not in res.stdout.str()


RAISES = r'''
import theorem_check as tc
from theorem_check import sampling

def boom(inst, ctx):
    raise RuntimeError("no such thing")

tc.register(tc.Claim(id="err.boom", title="a claim whose code raises", source=tc.Source("err", "1", "(1)", "x"),
                     statement=tc.Statement("x", dims=tc.DimSpace({"n": (2, 3)}),
                                            sample=lambda r, d, b: {"A": sampling.gaussian(r, d["n"], d["n"], batch=b)},
                                            lhs=boom, rhs=lambda i, c: i.A)))
'''


def test_a_claim_whose_code_raises_is_an_error_with_the_reason(pytester):
    """The CLI exits 2 for it (bad input); under pytest it is an error (E), not a failed verdict."""
    pytester.makepyfile(claims=RAISES)
    res = run(pytester, "--tc-pack", "claims.py")
    res.assert_outcomes(errors=1)
    res.stdout.fnmatch_lines(["*ERROR at setup of claim err.boom*",
                              "*claim err.boom (as printed) could not be evaluated on any instance: lhs raised "
                              "RuntimeError: no such thing*",
                              "*reproduce: theorem-check run err.boom --pack claims.py --seed 0 --trials 16*"])
    assert "Traceback" not in res.stdout.str()


SHORT = r'''
import theorem_check as tc

tc.erratum("short.quad", lhs="grad(trace(X.T*A*X), X)", printed="2*A*X", corrected="(A + A.T)*X",
           shapes={"X": ("n", "m"), "A": ("n", "n")}, expected="erratum")
tc.erratum("short.order", lhs="(A*B).T", printed="A.T*B.T", corrected="B.T*A.T",
           shapes={"A": ("m", "k"), "B": ("k", "n")}, expected="refuted")
tc.gradient("short.logdet", "log(abs(det(X)))", wrt="X", claimed="X**-1", shapes={"X": ("n", "n")},
            structure={"X": "invertible"}, expected="REFUTED")
'''


def test_short_forms_take_expected(pytester):
    """tc.erratum/tc.gradient/tc.identity take expected= as tc.Claim does; an ILL-POSED printed form's
    failure text says where once (its evidence), not twice."""
    pytester.makepyfile(claims=SHORT)
    # -rN: no short summary, which repeats the failure text in full when CI is set (pytest does not cut it there)
    res = run(pytester, "--tc-pack", "claims.py", "-v", "-rN")
    res.assert_outcomes(passed=2, failed=1)
    res.stdout.fnmatch_lines(["*claims.py::short.quad PASSED*", "*claims.py::short.order FAILED*",
                              "*claims.py::short.logdet PASSED*",
                              "*claim short.order: ERRATUM, expected REFUTED*"])
    out = res.stdout.str()
    assert out.count("ill-posed at dims") == 1, out


def test_an_expected_erratum_that_now_holds_says_to_drop_the_declaration(pytester):
    """helper-46: the user guide promised the hint; the failure said only 'PROVED, expected ERRATUM'."""
    pytester.makepyfile(claims='import theorem_check as tc\n'
                               'tc.identity("fixed.t", "(A*B).T", "B.T*A.T", shapes={"A": ("n", "n"), "B": ("n", "n")},\n'
                               '            expected="erratum")\n')
    res = run(pytester, "--tc-pack", "claims.py", "-rN")
    res.assert_outcomes(failed=1)
    res.stdout.fnmatch_lines(["*claim fixed.t: PROVED, expected ERRATUM*",
                              "*the claim now holds: drop its expected='erratum' declaration*"])


def test_a_pack_that_loops_at_import_is_a_collection_error_within_the_timeout(pytester):
    """helper-69: a pack looping at import hung the session (the CLI stops it after --timeout)."""
    pytester.makepyfile(loops="while True:\n    pass\n")
    res = run(pytester, "--tc-pack", "loops.py", "--tc-timeout", "1")
    assert res.ret != 0
    res.stdout.fnmatch_lines(["*did not finish importing within 1 s*--tc-timeout*"])


def test_a_claim_over_the_timeout_is_inconclusive(pytester):
    pytester.makepyfile(slowpack=r'''
import time
import theorem_check as tc


def lhs(inst, ctx):
    time.sleep(3)
    return inst["x"]


tc.identity("slow.sleeper", lhs, "x", shapes={"x": ("n", 1)}, derive=False)
''')
    res = run(pytester, "--tc-pack", "slowpack.py", "--tc-timeout", "1")
    res.assert_outcomes(failed=1)
    res.stdout.fnmatch_lines(["*INCONCLUSIVE*", "*timed out after 1 s*"])
