"""The pytest plugin: a claim pack's claims as tests, one per claim (entry point ``pytest11``).

Installed with the package (``[project.entry-points.pytest11]``), it does nothing until a pack is
named, so a project's own test run is unchanged.  Name packs on the command line or in the
project's ``pyproject.toml`` (the rootdir's)::

    python -m pytest --tc-pack my_claims.py --tc-pack more_claims.py --tc-seed 3

    [tool.theorem_check]
    packs = ["claims/my_claims.py"]   # relative to the rootdir
    seed = 0                          # optional; --tc-seed wins
    trials = 16                       # optional; --tc-trials wins
    timeout = 120                     # optional, seconds per claim (and per pack's import); 0: none; --tc-timeout wins

Each claim becomes the item ``<pack path>::<claim id>`` (``-k``, ``-x``, ``--lf``, ``-n``
from pytest-xdist work as for any test, and the node id as an argument runs that claim alone).
A claim over the time limit (``--tc-timeout``, 120 s as the CLI's ``--timeout``) is INCONCLUSIVE, "timed out", and
a pack whose import does not finish within it is a collection error (helper-69: a pack looping at import hung the
session).  A claim whose code raises, or gives NaN, on every instance (the CLI's exit 2) is an error of its
test (``E``, raised in the item's setup) with the reason, not a failed verdict.  A claim passes when it is PROVED or VERIFIED, or, when
it declares ``expected=`` (``"erratum"``, ``"REFUTED"``, any verdict name, case-insensitive),
when it gets exactly that verdict.  A failure shows the verdict, the evidence of every statement,
the smallest counterexample, the seed and the command that reproduces it.  Every item carries
the marker ``theorem_check`` (``-m theorem_check`` selects the claims), slow claims also
``theorem_check_slow``.
"""

from __future__ import annotations

import shlex
import tomllib
from pathlib import Path

import pytest

__all__ = ["ClaimFailure", "PackFile", "ClaimItem", "expected_verdict", "configured_packs", "failure_text",
           "rerun_command"]

_DEFAULT_SEED = 0
_DEFAULT_TRIALS = 16
_PACKS_KEY = pytest.StashKey[list]()
_RUN_KEY = pytest.StashKey[tuple]()  # (seed, trials, timeout: seconds or None)
_LOADED_KEY = pytest.StashKey[dict]()  # pack path -> its claims: a pack imports once per session
_COLLECTED_KEY = pytest.StashKey[set]()  # packs that pytest's own collection reached (as arguments)


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--tc-pack FILE`` (repeatable), ``--tc-seed S``, ``--tc-trials N``, ``--tc-timeout S``."""
    group = parser.getgroup("theorem_check", "theorem-check claim packs")
    group.addoption("--tc-pack", action="append", default=[], dest="tc_packs", metavar="FILE.py",
                    help="Run this theorem-check claim pack as tests, one per claim (repeatable; also "
                         "[tool.theorem_check] packs = [...] in pyproject.toml).")
    group.addoption("--tc-seed", type=_nonneg_int("--tc-seed"), default=None, dest="tc_seed", metavar="S",
                    help=f"Seed of the claims' random instances (default {_DEFAULT_SEED}; same seed, same verdicts).")
    group.addoption("--tc-trials", type=_positive_int("--tc-trials"), default=None, dest="tc_trials", metavar="N",
                    help=f"Random instances per statement (default {_DEFAULT_TRIALS}).")
    group.addoption("--tc-timeout", type=_nonneg_int("--tc-timeout"), default=None, dest="tc_timeout", metavar="S",
                    help="Seconds a claim (and a pack's import) may run before it is INCONCLUSIVE, 'timed out' (default "
                         "120, as the CLI's --timeout; 0: no limit).")


def _int_option(name: str, lo: int, hi: int):
    def convert(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise pytest.UsageError(f"{name}={text!r} must be an integer") from None
        if not lo <= value <= hi:
            raise pytest.UsageError(f"{name}={value!r} must be between {lo} and {hi}")
        return value

    return convert


def _nonneg_int(name):
    return _int_option(name, 0, 2**32 - 1)


def _positive_int(name):
    return _int_option(name, 1, 10_000)


def _tool_config(rootpath: Path) -> dict:
    """``[tool.theorem_check]`` of ``rootpath/pyproject.toml`` ({} when absent)."""
    path = rootpath / "pyproject.toml"
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError, OSError) as exc:
        raise pytest.UsageError(f"{path}: cannot read [tool.theorem_check]: {exc}") from None
    section = data.get("tool", {}).get("theorem_check", {})
    if not isinstance(section, dict):
        raise pytest.UsageError(f"{path}: [tool.theorem_check] must be a table")
    return section


def configured_packs(config: pytest.Config) -> list[Path]:
    """The packs to run: ``--tc-pack`` (relative to the invocation directory) then the config's
    ``packs`` (relative to the rootdir), resolved, without duplicates.

    Raises pytest.UsageError naming the option or key for a missing file or a malformed value.
    """
    out: dict[Path, None] = {}
    for raw in config.getoption("tc_packs") or []:
        p = (Path(config.invocation_params.dir) / raw).resolve()
        if not p.is_file():
            raise pytest.UsageError(f"--tc-pack={raw!r} must be an existing .py file")
        out.setdefault(p, None)
    section = _tool_config(config.rootpath)
    packs = section.get("packs", [])
    if not isinstance(packs, list) or not all(isinstance(x, str) for x in packs):
        raise pytest.UsageError(f"[tool.theorem_check] packs={packs!r} must be a list of paths")
    for raw in packs:
        p = (config.rootpath / raw).resolve()
        if not p.is_file():
            raise pytest.UsageError(f"[tool.theorem_check] packs: {raw!r} must be an existing .py file "
                                    f"(relative to {config.rootpath})")
        out.setdefault(p, None)
    return list(out)


def _setting(config: pytest.Config, name: str, default: int, lo: int) -> int:
    value = config.getoption(f"tc_{name}")
    if value is not None:
        return value
    raw = _tool_config(config.rootpath).get(name, default)
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < lo:
        raise pytest.UsageError(f"[tool.theorem_check] {name}={raw!r} must be an integer >= {lo}")
    return raw


def pytest_configure(config: pytest.Config) -> None:
    """Resolve the packs once; register the markers; validate THEOREM_CHECK_BUDGET when packs run."""
    packs = configured_packs(config)
    config.stash[_PACKS_KEY] = packs
    config.stash[_LOADED_KEY] = {}
    config.stash[_COLLECTED_KEY] = set()
    config.addinivalue_line("markers", "theorem_check: a theorem-check claim (from --tc-pack)")
    config.addinivalue_line("markers", "theorem_check_slow: a slow theorem-check claim (a simulation)")
    if packs:
        from theorem_check.errors import InvalidArgument
        from theorem_check.validation import check_budget

        try:
            check_budget()
        except InvalidArgument as exc:
            raise pytest.UsageError(str(exc)) from None
        from theorem_check.execution.workers import DEFAULT_TIMEOUT

        timeout = _setting(config, "timeout", int(DEFAULT_TIMEOUT), 0)
        config.stash[_RUN_KEY] = (_setting(config, "seed", _DEFAULT_SEED, 0),
                                  _setting(config, "trials", _DEFAULT_TRIALS, 1), timeout or None)


def pytest_unconfigure(config: pytest.Config) -> None:
    """Drop the packs' claims from the registry, so that a later session in this process may load them."""
    loaded = config.stash.get(_LOADED_KEY, {})
    if loaded:
        from theorem_check.authoring.registry import REGISTRY

        for claims in loaded.values():
            for c in claims:
                REGISTRY.unregister(c.id)
        loaded.clear()


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path: Path, parent):
    """A pack that pytest collects itself (named as an argument, ``my_claims.py::mine.eq31``, or matching
    ``python_files``) is a :class:`PackFile`, never a test module imported a second time."""
    packs = parent.config.stash.get(_PACKS_KEY, [])
    if packs and Path(module_path).resolve() in packs:
        return PackFile.from_parent(parent, path=Path(module_path))
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    """Collect the claims of every pack pytest did not collect itself and append them to the items
    (before -k, -m, --lf and xdist see them)."""
    packs = config.stash.get(_PACKS_KEY, [])
    collected = config.stash.get(_COLLECTED_KEY, set())
    for path in [p for p in packs if p not in collected]:
        collector = PackFile.from_parent(session, path=path)
        ihook = collector.ihook
        ihook.pytest_collectstart(collector=collector)
        rep = ihook.pytest_make_collect_report(collector=collector)
        ihook.pytest_collectreport(report=rep)
        if rep.passed:
            items.extend(x for x in rep.result if isinstance(x, pytest.Item))


def expected_verdict(claim):
    """The :class:`~theorem_check.model.verdicts.Verdict` a claim declares with ``expected=``, or None.

    Case-insensitive (``"erratum"``, ``"ERRATUM"``, ``"ill-posed"``).  Raises
    ClaimDefinitionError naming the claim for a value that is not a verdict.
    """
    from theorem_check.errors import ClaimDefinitionError
    from theorem_check.model.verdicts import Verdict

    raw = claim.expected
    if raw is None:
        return None
    key = str(raw).strip().upper().replace("_", "-")
    for v in Verdict:
        if v.value == key:
            return v
    raise ClaimDefinitionError(f"claim {claim.id}: expected={raw!r} must be a verdict "
                               f"({', '.join(v.value for v in Verdict)}, any case)")


class PackFile(pytest.File):
    """A claim pack (a ``.py`` file calling ``tc.register``): one :class:`ClaimItem` per claim."""

    def collect(self):
        """Import the pack once per process (:func:`theorem_check.load_pack`) and yield its claims."""
        from theorem_check.authoring.registry import REGISTRY, load_pack
        from theorem_check.errors import TheoremCheckError

        path = Path(self.path).resolve()
        self.config.stash[_COLLECTED_KEY].add(path)
        loaded = self.config.stash[_LOADED_KEY]
        claims = loaded.get(path)
        if claims is None or any(c.id not in REGISTRY for c in claims):
            from theorem_check.engine.time_limit import StepTimeout, run_limited

            timeout = self.config.stash[_RUN_KEY][2]
            try:
                claims = run_limited(lambda: load_pack(path), timeout)
            except TheoremCheckError as exc:
                raise self.CollectError(str(exc)) from None
            except StepTimeout:
                raise self.CollectError(f"pack={str(path)!r} did not finish importing within {timeout} s (does it loop "
                                        "at import? see --tc-timeout)") from None
            loaded[path] = claims
        for claim in claims:
            try:
                expected_verdict(claim)
            except TheoremCheckError as exc:
                raise self.CollectError(str(exc)) from None
            item = ClaimItem.from_parent(self, name=claim.id, claim=claim)
            item.add_marker("theorem_check")
            if claim.slow:
                item.add_marker("theorem_check_slow")
            yield item


class ClaimFailure(AssertionError):
    """A claim whose verdict is not the one it should get; carries the :class:`ClaimResult`."""

    def __init__(self, result, expected, seed: int, trials: int, pack: Path) -> None:
        super().__init__(f"{result.id}: {result.verdict.value}")
        self.result, self.expected, self.seed, self.trials, self.pack = result, expected, seed, trials, pack


class ClaimItem(pytest.Item):
    """One claim as a test: runs it with the session's seed and trials, passes on the right verdict."""

    def __init__(self, *, claim, **kwargs) -> None:
        super().__init__(**kwargs)
        self.claim = claim
        self.result = None

    def setup(self) -> None:
        """Run the claim (:func:`theorem_check.run_claim`).  A claim that could not be evaluated at all
        (its code raised, or gave NaN, on every instance; a side returned no array: the CLI's exit 2) is
        an error of the test (pytest's ``E``), with the reason, not a failed verdict."""
        from theorem_check.engine.runner import run_result
        from theorem_check.execution.workers import run_in_process
        from theorem_check.model.options import RunOptions

        seed, trials, timeout = self.config.stash[_RUN_KEY]
        options = RunOptions(seed=seed, trials=trials)
        self.result = run_in_process(self.claim, options=options, timeout=timeout).results[0]
        self.user_properties.append(("verdict", self.result.verdict.value))
        self.user_properties.append(("seed", seed))
        broken = run_result((self.result,), options, "", 0.0).broken
        if broken:
            more = f" (and {len(broken) - 1} more statements)" if len(broken) > 1 else ""
            pytest.fail(f"{broken[0]}{more}\n  reproduce: {rerun_command(self.claim.id, Path(self.path), seed, trials)}",
                        pytrace=False)

    def runtest(self) -> None:
        """Raise ClaimFailure unless the claim got the verdict it should (PROVED/VERIFIED, or ``expected=``)."""
        seed, trials, _ = self.config.stash[_RUN_KEY]
        result = self.result
        expected = expected_verdict(self.claim)
        ok = (result.verdict is expected) if expected is not None else result.verdict.ok
        if not ok:
            raise ClaimFailure(result, expected, seed, trials, Path(self.path))

    def repr_failure(self, excinfo, style=None):
        """The verdict, each statement's evidence, the smallest counterexample, the seed, a rerun command."""
        exc = excinfo.value
        if not isinstance(exc, ClaimFailure):
            return super().repr_failure(excinfo, style=style)
        return failure_text(exc)

    def reportinfo(self):
        """(path, line, description) shown in the report header."""
        return self.path, None, f"claim {self.claim.id}"


def _counterexample_lines(st) -> list[str]:
    num = st.numeric
    if num is None:
        return []
    out = []
    c = num.counterexample
    if c is not None and not num.ill_posed:   # an ill-posed statement's evidence says where already
        res = ", ".join(f"{k} {v:.3g}" for k, v in c.residuals.items())
        values = ", ".join(f"{k} = {v:.4g}" for k, v in c.values.items())
        out.append(f"      smallest counterexample: dims {dict(c.dims)}, instance seed {c.seed}"
                   + (f", at {values}" if values else "") + (f", residual {res}" if res else "")
                   + (f"; {c.detail}" if c.detail else ""))
    if num.unevaluated:
        out.append(f"      could not be evaluated on any instance: {num.unevaluated}")
    return out


def failure_text(exc: ClaimFailure) -> str:
    """The text pytest shows for a failed claim (also used by the tests)."""
    r = exc.result
    want = exc.expected.value if exc.expected is not None else "PROVED or VERIFIED"
    lines = [f"claim {r.id}: {r.verdict.value}, expected {want}  (seed {exc.seed}, trials {exc.trials})"]
    if exc.expected is not None and r.verdict.value in ("PROVED", "VERIFIED"):   # a known erratum fixed (helper-46)
        lines.append(f"  the claim now holds: drop its expected={exc.expected.value.lower()!r} declaration")
    lines += [f"  {r.claim.title}",
             f"  source: {r.claim.source.paper}, section {r.claim.source.section}, {r.claim.source.equation}"]
    for st in (r.printed, *r.variants):
        lines.append(f"  [{st.kind}] {st.name}: {st.verdict.value}")
        lines.append(f"      evidence: {st.evidence}")
        lines += _counterexample_lines(st)
    lines.append(f"  reproduce: {rerun_command(r.id, exc.pack, exc.seed, exc.trials)}")
    return "\n".join(lines)


def rerun_command(claim_id: str, pack: Path, seed: int, trials: int) -> str:
    """``theorem-check run ID --pack PACK --seed S --trials N`` (the pack relative to the working
    directory when it is below it)."""
    text = str(pack)
    try:
        text = str(pack.relative_to(Path.cwd()))
    except ValueError:
        pass
    return shlex.join(["theorem-check", "run", claim_id, "--pack", text, "--seed", str(seed), "--trials", str(trials)])
