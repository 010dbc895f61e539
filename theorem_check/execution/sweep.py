"""``theorem-check sweep``: does a verdict depend on the seed?  (issue 13, item 2)

Every selected claim runs once per seed (a task per (claim, seed)), on the local workers
(:mod:`theorem_check.execution.workers`) or on a Dask cluster (``scheduler="dask"`` starts a
``dask.distributed.LocalCluster`` on this machine; ``"tcp://HOST:PORT"`` uses a running
scheduler).  For each claim and each of its statements the sweep counts the verdicts across
seeds, names the seeds that disagree with the most common verdict, and lists the automatic
mutants that survived (a statement result's ``mutants``, each with ``.name`` and ``.survived``).
Exit code 1 when any verdict changes across seeds, 2 for bad input or a statement no instance
could evaluate, else 0.

The JSON record (:func:`sweep_record`) starts with ``schema_version`` and ``"kind": "sweep"``
(:func:`theorem_check.output.json_record.header`) and follows the shipped JSON Schema.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

from theorem_check.errors import InvalidArgument
from theorem_check.model.options import RunOptions
from theorem_check.model.verdicts import Verdict
from theorem_check.validation import plural

__all__ = ["StatementRun", "SeedRun", "ClaimSweep", "SweepResult", "parse_seeds", "summarise",
           "run_sweep", "sweep_record", "format_sweep"]


MAX_SEEDS = 100_000


def parse_seeds(text: str) -> list[int]:
    """``"A:B"`` -> seeds ``A, A+1, ..., B-1`` (half-open, as a Python range); ``"N"`` -> ``0..N-1``.

    >>> parse_seeds("3:6"), parse_seeds("2")
    ([3, 4, 5], [0, 1])

    Raises InvalidArgument naming the value if it is not of that form, empty, negative or
    larger than 100,000 seeds.
    """
    t = str(text).strip()
    try:
        if ":" in t:
            a, b = (int(x, 10) for x in t.split(":"))
        else:
            a, b = 0, int(t, 10)
    except ValueError:
        raise InvalidArgument(f"seeds={text!r} must read A:B (seeds A..B-1) or a count N") from None
    if a < 0 or b <= a:
        raise InvalidArgument(f"seeds={text!r} must name at least one seed, all >= 0 (A:B with 0 <= A < B)")
    if b - a > MAX_SEEDS or b > 2**32:
        raise InvalidArgument(f"seeds={text!r} must name at most {MAX_SEEDS:,} seeds below 2**32")
    return list(range(a, b))


@dataclass(frozen=True)
class StatementRun:
    """One statement on one seed: verdict, evidence, and the names of its surviving mutants."""

    name: str
    kind: str
    verdict: str
    evidence: str
    survivors: tuple[str, ...] = ()
    unevaluated: str | None = None
    mutants: int = 0
    """Automatic mutants the engine evaluated on this statement (only statements that hold have them)."""
    refuted: int = 0
    """How many of them failed, as wrong statements must."""
    grey: tuple[str, ...] = ()
    """Names of mutants neither refuted nor holding (grey zone: no evidence either way)."""
    sensitivity: float | None = None
    """Smallest relative perturbation refuted (ladder 1e-2 ... 1e-14), None without mutants."""


@dataclass(frozen=True)
class SeedRun:
    """One claim on one seed (``failure`` is set when it timed out or its worker died)."""

    seed: int
    verdict: str
    evidence: str
    statements: tuple[StatementRun, ...]
    seconds: float
    failure: str = ""


def summarise(result, seed: int) -> SeedRun:
    """A :class:`SeedRun` from a ClaimResult (the claim itself is not needed: it may be an id)."""
    sts = []
    for st in (result.printed, *result.variants, *result.controls):
        muts = tuple(getattr(st, "mutants", ()))
        survivors = tuple(m.name for m in muts if m.survived)
        grey = tuple(m.name for m in muts if not m.survived and not m.refuted)
        unev = st.numeric.unevaluated if st.numeric is not None else None
        sens = getattr(st, "sensitivity", None) if muts else None
        sts.append(StatementRun(st.name, st.kind, st.verdict.value, st.evidence, survivors, unev,
                                len(muts), sum(m.refuted for m in muts), grey, sens))
    return SeedRun(seed, result.verdict.value, result.evidence, tuple(sts), result.seconds)


def _failed(claim, seed: int, controls: bool, message: str, seconds: float) -> SeedRun:
    names = [(s.name, s.kind) for s in (*claim.statements(), *(claim.controls if controls else ()))]
    return SeedRun(seed, "INCONCLUSIVE", message,
                   tuple(StatementRun(n, k, "INCONCLUSIVE", message) for n, k in names), seconds, failure=message)


def _majority(values: Sequence[str]) -> str:
    counts = Counter(values)
    best = max(counts.values())
    return next(v for v in values if counts[v] == best)  # ties: the first seen


@dataclass(frozen=True)
class ClaimSweep:
    """One claim across seeds."""

    claim_id: str
    title: str
    runs: tuple[SeedRun, ...]

    @property
    def counts(self) -> dict[str, int]:
        """Verdict -> number of seeds."""
        return dict(Counter(r.verdict for r in self.runs))

    @property
    def stable(self) -> bool:
        """True when the claim and each of its statements have one verdict on every seed."""
        return len(self.counts) == 1 and all(s["stable"] for s in self.statements())

    def disagreements(self) -> list[SeedRun]:
        """Runs whose claim verdict differs from the most common one."""
        maj = _majority([r.verdict for r in self.runs])
        return [r for r in self.runs if r.verdict != maj]

    def statements(self) -> list[dict]:
        """Per statement (by name, in first-seen order): verdict counts, majority, disagreeing
        seeds, and mutant survivors (mutant name -> seeds)."""
        by_name: dict[str, list[tuple[int, StatementRun]]] = {}
        for r in self.runs:
            for st in r.statements:
                by_name.setdefault(st.name, []).append((r.seed, st))
        out = []
        for name, items in by_name.items():
            verdicts = [st.verdict for _, st in items]
            maj = _majority(verdicts)
            surv: dict[str, list[int]] = {}
            grey: dict[str, list[int]] = {}
            sens: Counter = Counter()
            for seed, st in items:
                for m in st.survivors:
                    surv.setdefault(m, []).append(seed)
                for m in st.grey:
                    grey.setdefault(m, []).append(seed)
                if st.mutants:
                    sens[_sensitivity_key(st.sensitivity)] += 1
            out.append({"name": name, "kind": items[0][1].kind, "counts": dict(Counter(verdicts)), "majority": maj,
                        "stable": len(set(verdicts)) == 1,
                        "disagreements": [{"seed": seed, "verdict": st.verdict, "evidence": st.evidence}
                                          for seed, st in items if st.verdict != maj],
                        "mutant_survivors": [{"name": m, "seeds": s} for m, s in surv.items()],
                        "mutants": {"evaluated": sum(st.mutants for _, st in items),
                                    "refuted": sum(st.refuted for _, st in items),
                                    "grey": [{"name": m, "seeds": s} for m, s in grey.items()]},
                        "sensitivity": dict(sens)})
        return out


@dataclass(frozen=True)
class SweepResult:
    """A whole sweep: per-claim results, the seeds, options, versions and timing."""

    claims: tuple[ClaimSweep, ...]
    seeds: tuple[int, ...]
    trials: int
    controls: bool
    scheduler: str
    jobs: int
    timeout: float | None
    started: str
    seconds: float
    versions: dict = field(default_factory=dict)
    skipped_slow: tuple[str, ...] = ()

    @property
    def broken(self) -> list[str]:
        """One line per (claim, statement) that no instance could evaluate on some seed."""
        out = []
        for c in self.claims:
            for r in c.runs:
                for st in r.statements:
                    if st.unevaluated:
                        out.append(f"claim {c.claim_id} ({st.name}) could not be evaluated on any instance "
                                   f"(seed {r.seed}): {st.unevaluated}")
        return out

    @property
    def stable(self) -> bool:
        """True when no verdict changes across seeds."""
        return all(c.stable for c in self.claims)

    @property
    def unrefuted_controls(self) -> list[str]:
        """One line per (claim, control) that was neither REFUTED nor ILL-POSED on some seed (``--controls``)."""
        out = []
        for c in self.claims:
            bad: dict[str, list[int]] = {}
            for r in c.runs:
                for st in r.statements:
                    if st.kind == "control" and not _control_failed(st.verdict) and not r.failure:
                        bad.setdefault(st.name, []).append(r.seed)
            out += [f"{c.claim_id} ({name}) not refuted on seeds {', '.join(map(str, seeds[:8]))}"
                    + (" ..." if len(seeds) > 8 else "") for name, seeds in bad.items()]
        return out

    @property
    def exit_code(self) -> int:
        """2 when a statement could not be evaluated; 1 when a verdict changes across seeds or a
        control is not refuted on some seed (a check that cannot fail); else 0."""
        if self.broken:
            return 2
        return 0 if self.stable and not self.unrefuted_controls else 1


def _control_failed(verdict: str) -> bool:
    """A negative control does its job when it fails: REFUTED, or ILL-POSED (a transposed side that
    no longer conforms), as ``run --controls`` counts it (:attr:`Verdict.fails`)."""
    return Verdict(verdict).fails


def _sensitivity_key(value: float | None) -> str:
    """Histogram key of a sensitivity: ``"1e-14"`` ... ``"1e-02"``, or ``"none"`` (no rung refuted)."""
    return "none" if value is None else f"{value:.0e}"


def census(res: "SweepResult") -> dict:
    """Mutant census of a sweep: statements that hold (statement-seed pairs with mutants; controls
    excluded), mutants evaluated / refuted / grey / survived, the sensitivity histogram, and control
    runs (control-seed pairs) and how many of them were refuted."""
    pairs = muts = refuted = grey = survived = controls = ctrl_refuted = 0
    sens: Counter = Counter()
    names = set()
    for c in res.claims:
        for r in c.runs:
            for st in r.statements:
                if st.kind == "control":
                    controls += 1
                    ctrl_refuted += _control_failed(st.verdict)
                    continue     # a control that holds is a defect (unrefuted_controls), not a true statement
                if st.mutants:
                    pairs += 1
                    names.add((c.claim_id, st.name))
                    muts += st.mutants
                    refuted += st.refuted
                    grey += len(st.grey)
                    survived += len(st.survivors)
                    sens[_sensitivity_key(st.sensitivity)] += 1
    order = sorted(sens, key=lambda k: (k == "none", -float(k) if k != "none" else 0.0))
    return {"statements": len(names), "statement_runs": pairs, "mutants": muts, "refuted": refuted, "grey": grey,
            "survived": survived, "sensitivity": {k: sens[k] for k in order},
            "controls": controls, "controls_refuted": ctrl_refuted}


def _pack_payload(packs: Sequence[str]) -> tuple[tuple[str, str, str], ...]:
    from theorem_check.execution.workers import pack_files

    return tuple((p, Path(p).name, Path(p).read_text()) for p in pack_files(packs))


def _materialise(payload) -> list[str]:
    """Pack paths usable on this machine: the original path if it exists, else a copy in a temp dir."""
    import tempfile

    out = []
    for path, name, text in payload:
        if Path(path).is_file() and Path(path).read_text() == text:
            out.append(path)
            continue
        d = Path(tempfile.gettempdir()) / f"theorem-check-packs-{abs(hash(text))}"
        d.mkdir(exist_ok=True)
        (d / name).write_text(text)
        out.append(str(d / name))
    return out


def _dask_task(task, timeout, payload):
    """Run one (claim, seed) task on a Dask worker, in a worker process of its own (kept across tasks) or, on a
    daemonic worker, a child process per task: the time limit holds on any worker, and a claim that ends its
    process is that task's failure, not the worker's."""
    from theorem_check.execution.workers import run_isolated

    o = run_isolated(task, timeout, _materialise(payload))
    if o.kind == "ok":
        return ("ok", summarise(o.result, task.seed), o.seconds)
    return (o.kind, o.message, o.seconds)


def _dask_client(scheduler: str, jobs: int):
    try:
        import dask
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:
        raise InvalidArgument(f"scheduler={scheduler!r} needs Dask: pip install 'theorem-check[dask]' ({exc})") from None
    if scheduler == "dask":
        # non-daemonic workers keep one claim process each across tasks (closed before the cluster: no
        # "Worker process still alive ... killing"); daemonic ones would start a process per task
        with dask.config.set({"distributed.worker.daemon": False}):
            cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=None,
                                   silence_logs=logging.ERROR)
        return Client(cluster), cluster
    try:
        return Client(scheduler, timeout="20s"), None
    except (OSError, TimeoutError) as exc:
        raise InvalidArgument(f"scheduler={scheduler!r} could not be reached: {exc}") from None


def run_sweep(claims: Sequence, seeds: Sequence[int], *, trials: int = 16, controls: bool = False,
              jobs: int | None = None, timeout: float | None = None, packs: Sequence[str] = (),
              scheduler: str = "local", progress: Callable[[int, int, str], None] | None = None,
              skipped_slow: tuple[str, ...] = ()) -> SweepResult:
    """Run every claim on every seed; returns a :class:`SweepResult`.

    ``scheduler``: ``"local"`` (:mod:`theorem_check.execution.workers`, ``jobs`` processes), ``"dask"``
    (a LocalCluster with ``jobs`` single-threaded worker processes) or a Dask scheduler address
    ``"tcp://HOST:PORT"`` (packs are shipped to the workers as text).  ``timeout`` bounds each
    (claim, seed) run as in ``run``.  ``progress(done, total, label)`` after each run.

    Raises InvalidArgument for an unknown scheduler, or when Dask is missing or unreachable.
    """
    from theorem_check.engine.runner import versions
    from theorem_check.execution.workers import DEFAULT_TIMEOUT, Task, default_jobs, run_tasks, timeout_for

    claims = list(claims)
    seeds = list(seeds)
    jobs = default_jobs() if jobs is None else int(jobs)
    if jobs < 1:
        raise InvalidArgument(f"jobs={jobs!r} must be >= 1")
    if not (scheduler in ("local", "dask") or scheduler.startswith("tcp://") or scheduler.startswith("tls://")):
        raise InvalidArgument(f"scheduler={scheduler!r} must be 'local', 'dask' or a scheduler address tcp://HOST:PORT")
    timeout = DEFAULT_TIMEOUT if timeout is None else timeout
    pairs = [(c, s) for c in claims for s in seeds]
    tasks = [Task(c.id, RunOptions(seed=s, trials=trials, controls=controls)) for c, s in pairs]
    limits = [timeout_for(c, timeout) for c, _ in pairs]
    runs: list[SeedRun | None] = [None] * len(tasks)
    t0 = time.perf_counter()
    started = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    done = 0

    def record(i: int, kind: str, value, seconds: float) -> None:
        nonlocal done
        c, s = pairs[i]
        runs[i] = value if kind == "ok" else _failed(c, s, controls, value if kind != "error"
                                                     else f"claim raised: {value}", seconds)
        done += 1
        if progress:
            progress(done, len(tasks), f"{c.id} seed {s}")

    if scheduler == "local":
        def on_done(i, o):
            if o.kind == "ok":
                record(i, "ok", summarise(o.result, tasks[i].seed), o.seconds)
            else:
                record(i, o.kind, o.message, o.seconds)

        run_tasks(tasks, jobs=jobs, timeouts=limits, packs=packs, on_done=on_done, import_timeout=timeout or None,
                  keep=False)
    else:
        client, cluster = _dask_client(scheduler, jobs)     # InvalidArgument (exit 2) without Dask
        from dask.distributed import as_completed

        try:
            payload = _pack_payload(packs)
            futs = [client.submit(_dask_task, t, lim, payload, pure=False) for t, lim in zip(tasks, limits)]
            index = {f.key: i for i, f in enumerate(futs)}
            for fut in as_completed(futs):
                kind, value, secs = fut.result()
                record(index[fut.key], kind, value, secs)
        finally:
            from theorem_check.execution.workers import close_isolated

            try:
                client.run(close_isolated)
            except Exception:  # noqa: BLE001 - a worker already gone has nothing to close
                pass
            client.close()
            if cluster is not None:
                cluster.close()
    per_claim = []
    for k, c in enumerate(claims):
        rs = tuple(runs[k * len(seeds):(k + 1) * len(seeds)])
        per_claim.append(ClaimSweep(c.id, c.title, rs))  # type: ignore[arg-type]
    return SweepResult(tuple(per_claim), tuple(seeds), trials, controls, scheduler, jobs, timeout or None, started,
                       time.perf_counter() - t0, versions(), tuple(skipped_slow))


def _seed_range(seeds: Sequence[int]) -> str:
    seeds = list(seeds)
    if seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}:{seeds[-1] + 1}"
    return ",".join(map(str, seeds))


def sweep_record(res: SweepResult) -> dict:
    """The sweep as a JSON-able dict (``kind`` ``"sweep"``, ``schema_version``)."""
    claims = []
    for c in res.claims:
        claims.append({
            "id": c.claim_id, "title": c.title, "counts": c.counts, "stable": c.stable,
            "majority": _majority([r.verdict for r in c.runs]),
            "disagreements": [{"seed": r.seed, "verdict": r.verdict, "evidence": r.evidence} for r in c.disagreements()],
            "failures": [{"seed": r.seed, "reason": r.failure} for r in c.runs if r.failure],
            "seconds": round(sum(r.seconds for r in c.runs), 3),
            "statements": c.statements(),
        })
    from theorem_check.output.json_record import header

    return {**header("sweep"), "seeds": list(res.seeds),
            "seed_range": _seed_range(res.seeds), "trials": res.trials, "controls": res.controls,
            "scheduler": res.scheduler, "jobs": res.jobs, "timeout": res.timeout, "started": res.started,
            "seconds": round(res.seconds, 3), "versions": res.versions, "stable": res.stable,
            "exit_code": res.exit_code, "skipped_slow": list(res.skipped_slow),
            "unrefuted_controls": res.unrefuted_controls,
            "summary": {"claims": len(res.claims), "stable": sum(c.stable for c in res.claims),
                        "unstable": sum(not c.stable for c in res.claims), "runs": len(res.claims) * len(res.seeds),
                        "census": census(res)},
            "claims": claims}


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{v} x{n}" for v, n in sorted(counts.items(), key=lambda kv: -kv[1]))


def format_sweep(res: SweepResult) -> str:
    """Human-readable sweep: a line per claim (verdict counts, stable or the disagreeing seeds);
    below it, the statements that change or have surviving mutants."""
    width = max([len(c.claim_id) for c in res.claims] + [2])
    lines = []
    for c in res.claims:
        status = "stable" if c.stable else "CHANGES"
        dis = c.disagreements()
        extra = ""
        if dis:
            extra = "; seeds " + ", ".join(f"{r.seed} {r.verdict}" for r in dis[:8]) + (" ..." if len(dis) > 8 else "")
        lines.append(f"{c.claim_id:<{width}}  {status:<8} {_counts_text(c.counts)}{extra}")
        for st in c.statements():
            if st["stable"] and not st["mutant_survivors"] and not st["mutants"]["grey"]:
                continue
            label = st["name"] if st["name"].startswith(st["kind"]) else f"{st['kind']}: {st['name']}"
            text = f"    └ {label}: {_counts_text(st['counts'])}"
            if st["disagreements"]:
                d = st["disagreements"]
                text += "; seeds " + ", ".join(str(x["seed"]) for x in d[:8]) + (" ..." if len(d) > 8 else "")
                text += f" (e.g. seed {d[0]['seed']}: {d[0]['evidence'][:120]})"
            for m in st["mutant_survivors"]:
                text += f"; mutant {m['name']} survived on seeds {', '.join(map(str, m['seeds'][:8]))}"
            for m in st["mutants"]["grey"]:
                text += f"; mutant {m['name']} grey (not refuted) on seeds {', '.join(map(str, m['seeds'][:8]))}"
            lines.append(text)
    cs = census(res)
    if cs["mutants"] or cs["controls"]:
        hist = ", ".join(f"{k} x{n}" for k, n in cs["sensitivity"].items())
        lines.append(f"mutants: {plural(cs['statements'], 'statement')} that hold{'s' * (cs['statements'] == 1)} ({cs['statement_runs']} statement-seeds), "
                     f"{cs['mutants']} mutants, {cs['refuted']} refuted, {cs['grey']} grey, {cs['survived']} survived"
                     + (f"; sensitivity {hist}" if hist else "")
                     + (f"; control runs {cs['controls_refuted']}/{cs['controls']} refuted or ill-posed" if cs["controls"] else ""))
    for line in res.unrefuted_controls:
        lines.append(f"CONTROL NOT REFUTED: {line}")
    n_unstable = sum(not c.stable for c in res.claims)
    skip = f"; {len(res.skipped_slow)} slow skipped (--slow)" if res.skipped_slow else ""
    lines.append(f"{plural(len(res.claims), 'claim')} x {plural(len(res.seeds), 'seed')} ({_seed_range(res.seeds)}) "
                 f"on {res.scheduler}: "
                 f"{len(res.claims) - n_unstable} stable, {n_unstable} change across seeds in {res.seconds:.1f} s{skip}")
    return "\n".join(lines)
