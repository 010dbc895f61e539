"""Worker processes (theorem_check.execution.workers): time limits, dead workers, packs that misbehave at
import, Ctrl-C, and the same output whatever --jobs.  Packs are tiny files written to tmp_path."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from theorem_check.errors import InvalidArgument
from theorem_check.execution import workers
from theorem_check.model.options import RunOptions
from theorem_check.output import terminal

ROOT = Path(__file__).resolve().parents[1]

PACK = '''
import os, signal, time
import theorem_check as tc

dims = tc.DimSpace({{"n": (1, 3)}})

def sample(rng, d, batch):
    return {{"x": rng.standard_normal((batch, d["n"], d["n"]))}}

def ok(inst, ctx):
    return inst.x + inst.x

def bad(inst, ctx):
    {body}
    return inst.x + inst.x

def twice(inst, ctx):
    return 2 * inst.x

for label, lhs in (("ok", ok), ("bad", bad)):
    st = tc.Statement("x + x = 2x", dims=dims, sample=sample, lhs=lhs, rhs=twice)
    tc.register(tc.Claim(id=f"{paper}.{{label}}", title=f"doubling ({{label}})",
                         source=tc.Source("{paper}", "1", "(1)", "x + x = 2x"), statement=st,
                         controls=(tc.double(st),)))
'''


_COUNTER = [0]


def make_pack(tmp_path, body="pass", name="tiny_pack.py", prefix="", paper="tiny"):
    path = tmp_path / name
    path.write_text(prefix + PACK.format(body=body, paper=paper))
    return str(path)


@pytest.fixture
def pack_paper():
    """A paper key unique to this test; its claims leave the process-wide registry afterwards."""
    from theorem_check.authoring.registry import REGISTRY

    _COUNTER[0] += 1
    key = f"tiny{os.getpid()}x{_COUNTER[0]}"
    yield key
    REGISTRY.unregister_paper(key)


def tc_cli(*args, timeout=120, **kw):
    """The CLI in a fresh interpreter (for what must not run inside pytest: Ctrl-C, SIGALRM)."""
    p = subprocess.run([sys.executable, "-m", "theorem_check", *args], capture_output=True, text=True, cwd=ROOT,
                       timeout=timeout, **kw)
    return p.returncode, p.stdout, p.stderr


def tc_here(capsys, *args):
    """The CLI in this process (the catalogue is imported once per test process, workers fork
    from the preloaded fork server): returns (exit code, stdout, stderr)."""
    from theorem_check.cli import main

    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main(list(args))
    out, err = capsys.readouterr()
    return info.value.code, out, err


def claims_of(out):
    return {c["id"]: c for c in json.loads(out)["claims"]}


def test_hanging_side_times_out_and_the_run_goes_on(tmp_path, capsys, pack_paper):
    pack = make_pack(tmp_path, body="time.sleep(1000)", paper=pack_paper)
    t0 = time.monotonic()
    code, out, err = tc_here(capsys, "run", "--pack", pack, "--json", "--timeout", "3", "--jobs", "2")
    assert code == 1, err
    rec = claims_of(out)
    assert rec[f"{pack_paper}.bad"]["verdict"] == "INCONCLUSIVE"
    assert rec[f"{pack_paper}.bad"]["evidence"] == "timed out after 3 s"
    assert rec[f"{pack_paper}.ok"]["verdict"] in ("PROVED", "VERIFIED")
    assert time.monotonic() - t0 < 60


def test_hanging_side_in_process_jobs_1(tmp_path):
    """--jobs 1: the time limit is a SIGALRM (a fresh interpreter: its main thread is ours)."""
    pack = make_pack(tmp_path, body="while True:\n        pass")
    code, out, err = tc_cli("run", "--pack", pack, "--json", "--timeout", "2", "--jobs", "1")
    assert code == 1, err
    rec = claims_of(out)
    assert rec["tiny.bad"]["evidence"] == "timed out after 2 s"
    assert rec["tiny.ok"]["verdict"] in ("PROVED", "VERIFIED")


@pytest.mark.parametrize("body,message", [
    ("os._exit(0)", "worker died: exit code 0"),
    ("os.kill(os.getpid(), signal.SIGSEGV)", "worker died: killed by SIGSEGV"),
    ("import sys; sys.exit(3)", "claim raised: SystemExit: sys.exit(3) in claim code"),
])
def test_worker_that_dies_is_inconclusive_and_replaced(tmp_path, capsys, pack_paper, body, message):
    pack = make_pack(tmp_path, body=body, paper=pack_paper)
    code, out, err = tc_here(capsys, "run", "--pack", pack, "--json", "--jobs", "2")
    assert code == 1, err
    rec = claims_of(out)
    assert rec[f"{pack_paper}.bad"]["verdict"] == "INCONCLUSIVE"
    assert rec[f"{pack_paper}.bad"]["evidence"].startswith(message)
    assert rec[f"{pack_paper}.ok"]["verdict"] in ("PROVED", "VERIFIED")


@pytest.mark.parametrize("prefix,message", [
    ("import sys\nsys.exit(5)\n", "called sys.exit(5) at import"),
    ("import os\nos._exit(0)\n", "ended the process at import (exit code 0"),
    ("while True:\n    pass\n", "did not finish importing within 2 s"),
    ("raise RuntimeError('boom')\n", "failed to import (line 1): RuntimeError: boom"),
])
def test_pack_that_misbehaves_at_import_is_one_line_exit_2(tmp_path, capsys, pack_paper, prefix, message):
    pack = make_pack(tmp_path, prefix=prefix, paper=pack_paper)
    code, out, err = tc_here(capsys, "run", "--pack", pack, "--timeout", "2")
    assert code == 2, (out, err)
    assert message in err
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err


def test_same_json_verdicts_for_jobs_1_and_2(capsys):
    pack = str(ROOT / "examples" / "transpose_pack.py")

    def strip(x):
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in ("seconds", "started", "versions")}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    from theorem_check.authoring.registry import REGISTRY

    runs = []
    for j in ("1", "2"):
        try:
            runs.append(tc_here(capsys, "run", "--pack", pack, "eq31", "transpose", "demo.transpose_wrong", "--json",
                                "--controls", "--seed", "3", "--jobs", j))
        finally:
            REGISTRY.unregister_paper("demo")  # the next run imports the pack again
    assert runs[0][0] == runs[1][0] == 1
    a, b = (strip(json.loads(r[1])) for r in runs)
    assert [c["id"] for c in a["claims"]] == [c["id"] for c in b["claims"]]
    assert a == b  # verdicts, evidence, instances, residuals: all identical


def test_ctrl_c_stops_workers_and_exits_130(tmp_path):
    pidfile = tmp_path / "pids"
    pack = make_pack(tmp_path, body=f"open({str(pidfile)!r}, 'a').write(str(os.getpid()) + '\\n'); time.sleep(1000)")
    # preexec_fn: Ctrl-C's default action, even where pytest itself runs as a shell's background job (`cmd &`), which
    # starts with SIGINT ignored; Python then installs no KeyboardInterrupt handler and the run would never stop
    p = subprocess.Popen([sys.executable, "-m", "theorem_check", "run", "--pack", pack, "--jobs", "2"], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # liveness bounds, not speed targets: on a loaded machine the probe and the fork server's catalogue
    # import can take over a minute before the claim starts (this test once timed out at 60 s there)
    deadline = time.monotonic() + 300
    while not (pidfile.exists() and pidfile.read_text().strip()) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert pidfile.exists(), "the hanging claim never started"
    worker = int(pidfile.read_text().split()[0])
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert "Traceback" not in err
    for _ in range(300):  # the worker is gone
        try:
            os.kill(worker, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        pytest.fail(f"worker {worker} still alive after Ctrl-C")


def test_run_at_given_dims_jobs_1_and_2(tmp_path, capsys, pack_paper):
    from theorem_check.authoring.registry import REGISTRY

    pack = make_pack(tmp_path, paper=pack_paper)
    dims = []
    for j in ("1", "2"):
        code, out, err = tc_here(capsys, "run", "--pack", pack, f"{pack_paper}.ok", "--dims", "n=3", "--json",
                                 "--jobs", j)
        REGISTRY.unregister_paper(pack_paper)
        assert code == 0, err
        inst = claims_of(out)[f"{pack_paper}.ok"]["printed_result"]["numeric"]["instances"]
        dims.append({i["dims"]["n"] for i in inst})
    assert dims == [{3}, {3}]


@pytest.mark.parametrize("args,message", [
    (("--dims", "zz=3"), "dims name='zz' is not a dimension of claim tiny"),
    (("--dims", "n=-1"), "n=-1 must be a non-negative integer"),
    (("--dims", "n=1.5"), "n='1.5' must be a non-negative integer"),
    (("--dims", "n"), "dims item 'n' must read NAME=VALUE"),
    (("--jobs", "0"), "Invalid value for '--jobs'"),
    (("--timeout", "-1"), "Invalid value for '--timeout'"),
])
def test_bad_worker_options_are_one_line_exit_2(tmp_path, capsys, pack_paper, args, message):
    pack = make_pack(tmp_path, paper=pack_paper)
    code, _, err = tc_here(capsys, "run", "--pack", pack, f"{pack_paper}.ok", *args)
    assert code == 2 and message in err, err
    assert len(err.strip().splitlines()) == 1, err


def test_parse_dims():
    assert RunOptions.parse_dims("D=10, d0=2048") == {"D": 10, "d0": 2048}
    assert RunOptions.parse_dims("") == {} and RunOptions.parse_dims(None) == {}
    for bad in ("D", "D=x", "D=-2", "=3", "D=1,D=2", "D=1e3"):
        with pytest.raises(InvalidArgument):
            RunOptions.parse_dims(bad)


def test_defaults_and_timeouts():
    assert workers.default_jobs() >= 1
    slow = type("C", (), {"slow": True})()
    fast = type("C", (), {"slow": False})()
    assert workers.timeout_for(fast, 120) == 120 and workers.timeout_for(slow, 120) == 120 * workers.SLOW_TIMEOUT_FACTOR
    assert workers.timeout_for(fast, 0) is None and workers.timeout_for(fast, None) is None


def test_progress_lines(capsys):
    import io

    s = io.StringIO()
    pr = terminal.Progress(20, stream=s, tty=False)
    for k in range(1, 21):
        pr.update(k, "x")
    pr.close()
    lines = s.getvalue().splitlines()
    assert 2 <= len(lines) <= 11 and lines[-1].startswith("theorem-check: [20/20] 100%") and "ETA" in lines[-1]
    assert all(ln.startswith("theorem-check: [") for ln in lines)
    s = io.StringIO()
    terminal.Progress(5, stream=s, tty=False, enabled=False).update(1)
    assert s.getvalue() == ""


def test_pool_api(tmp_path):
    """WorkerPool directly: results in task order, a hang is a timeout, the next task still runs."""
    pack = make_pack(tmp_path, body="time.sleep(1000)", paper="tinypool")
    tasks = [workers.Task("tinypool.bad"), workers.Task("tinypool.ok"), workers.Task("tinypool.ok", RunOptions(seed=1))]
    with workers.WorkerPool(2, packs=[pack]) as pool:
        outs = pool.run(tasks, timeouts=[2, 60, 60])
    assert [o.kind for o in outs] == ["timeout", "ok", "ok"]
    assert outs[1].result.claim == "tinypool.ok" and outs[2].result.seed == 1


def test_claims_run_in_process_use_one_blas_thread(monkeypatch):
    """execution/tasks.blas_threads: one BLAS thread while a claim runs in this process (BLAS threads on
    busy cores made a 256 x 256 check 4x slower), unless the user chose a number."""
    import contextlib

    from threadpoolctl import threadpool_info, threadpool_limits

    from theorem_check.execution.tasks import BLAS_VARS, blas_threads

    for k in BLAS_VARS:
        monkeypatch.delenv(k, raising=False)
    with threadpool_limits(limits=2, user_api="blas"):   # tests/conftest.py sets 1 for the whole test run
        with blas_threads():
            blas = [p for p in threadpool_info() if p.get("user_api") == "blas"]
            assert blas and all(p["num_threads"] == 1 for p in blas)
        assert all(p["num_threads"] == 2 for p in threadpool_info() if p.get("user_api") == "blas")
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "2")
    assert isinstance(blas_threads(), contextlib.nullcontext)


def test_blas_threads_limits_scipys_own_blas_too():
    """SciPy's wheels bring a second OpenBLAS, loaded when scipy.linalg is first imported (the engine imports
    it lazily, inside a claim): ``blas_threads`` entered before that must limit it as well."""
    import subprocess
    import sys

    from theorem_check.execution.tasks import BLAS_VARS

    code = ("import threadpoolctl\nfrom theorem_check.execution.tasks import blas_threads\n"
            "with blas_threads():\n    import scipy.linalg\n"
            "    print(sorted((p['filepath'], p['num_threads']) for p in threadpoolctl.threadpool_info()"
            " if p['user_api'] == 'blas'))")
    env = {k: v for k, v in os.environ.items() if k not in BLAS_VARS}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    libs = eval(out.stdout)   # noqa: S307 - our own repr of a list of tuples
    assert libs and all(n == 1 for _, n in libs), libs


def test_the_pack_probe_forks_a_single_threaded_process_and_uses_the_fork_server_otherwise():
    """Decision 141: a command run in process (one thread, no fork server) forks itself for the pack probe instead
    of starting a fork server that imports everything again; with a running fork server (``--jobs`` above 1) or
    other threads it uses the fork server."""
    import subprocess
    import sys

    code = ("import threading, time\nfrom theorem_check.execution import pool\n"
            "print(pool.probe_context().get_start_method())\n"
            "t = threading.Thread(target=time.sleep, args=(2,)); t.start()\n"
            "print(pool.probe_context().get_start_method())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.stdout.split() == (["fork", "forkserver"] if sys.platform != "darwin" else ["forkserver"] * 2), \
        out.stdout + out.stderr


def test_the_probe_prints_whole_and_dies_with_its_command(tmp_path):
    """A helper's finds (decision 141): the probe was killed as soon as it reported, before its stdout buffer was
    written (3 of a pack's 6 printed lines lost, with ``--jobs 1``); a probe whose command was killed while the
    pack looped at import ran on forever (and, from the fork server, kept that alive too)."""
    import signal as _signal
    import time as _time

    noisy = make_pack(tmp_path, name="noisy_pack.py", prefix="print('NOISY 1')\nprint('NOISY 2')\n", paper="noisy")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}   # block-buffered, as in a pipe
    for jobs in ("1", "1", "2"):
        code, out, err = tc_cli("run", "--pack", noisy, "--jobs", jobs, "-q", env=env)
        # once, whole, on stderr: from the probe (the command's own import and the workers' are quiet)
        assert err.count("NOISY 1") == err.count("NOISY 2") == 1 and "NOISY" not in out, out + err
    loop = make_pack(tmp_path, name="loop_pack.py", prefix="while True:\n    pass\n", paper="loop")
    for jobs in ("1", "2"):   # the probe: a fork of the command (jobs 1), a child of the fork server (jobs 2)
        main = subprocess.Popen([sys.executable, "-m", "theorem_check", "run", "--pack", loop, "--jobs", jobs],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
        try:
            deadline = _time.monotonic() + 60
            family: set = set()
            while _time.monotonic() < deadline and not any(_cpu_bound(p) for p in family):
                _time.sleep(0.5)
                family = _descendants(main.pid)
            assert any(_cpu_bound(p) for p in family), f"jobs {jobs}: no probe looping at import"
        finally:
            main.kill()     # SIGKILL: no clean-up in the command; not reaped until its pipes close
        deadline = _time.monotonic() + 15
        while _time.monotonic() < deadline and any(_alive(p) for p in family):
            _time.sleep(0.5)
        left = [p for p in family if _alive(p)]
        for pid in left:
            os.kill(pid, _signal.SIGKILL)
        main.communicate(timeout=30)
        assert not left, f"jobs {jobs}: processes {left} outlived their command"


def test_what_a_pack_prints_at_import_goes_to_stderr_once_and_json_stays_json(tmp_path):
    """A helper's find: a pack that prints at import put its lines on stdout before ``--json``'s record (once per
    import: the probe's and the command's), so the record did not parse; a pack raising KeyboardInterrupt at
    import was "KeyboardInterrupt: " with nothing after, and a malformed claim's error named the pack twice."""
    noisy = make_pack(tmp_path, name="chatty_pack.py", prefix="print('CHATTY')\n", paper="chatty")
    for jobs in ("1", "2"):
        code, out, err = tc_cli("run", "--pack", noisy, "--jobs", jobs, "-q", "--json", "--paper", "chatty")
        assert json.loads(out)["claims"] and err.count("CHATTY") == 1, out + err
    ki = tmp_path / "ki_pack.py"
    ki.write_text("raise KeyboardInterrupt\n")
    code, out, err = tc_cli("run", "--pack", str(ki), "--all")
    assert code == 2 and err.strip().endswith(f"pack={str(ki)!r}: KeyboardInterrupt"), err
    bad = tmp_path / "bad_pack.py"
    bad.write_text(PACK.format(body="pass", paper="bad").replace('tc.Source("bad"', 'tc.Source("other"'))
    code, out, err = tc_cli("run", "--pack", str(bad), "--all")
    assert code == 2 and "definition problem" in err and err.count(f"pack={str(bad)!r}") == 1, err


def _children() -> dict:
    out: dict = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            out.setdefault(int(fields[1]), []).append(int(d))
    return out


def _descendants(pid: int) -> set:
    kids, out, todo = _children(), set(), [pid]
    while todo:
        for c in kids.get(todo.pop(), []):
            out.add(c)
            todo.append(c)
    return out


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return "gone"


def _alive(pid: int) -> bool:
    return _state(pid) not in ("gone", "Z", "X")


def _cpu_bound(pid: int) -> bool:
    return _state(pid) == "R"


def test_a_module_beside_the_pack_never_shadows_the_standard_library(tmp_path):
    """helper-69: with a ``string.py`` in the working directory (beside the pack), the console script's fork server
    (``python -c``: the working directory first on its path) imported it for SymPy's ``string`` and every worker
    died ("the catalogue ended the process at import").  The fork server starts with PYTHONSAFEPATH; the pack's
    folder is appended to the path instead, so the pack's own module beside it still imports."""
    (tmp_path / "string.py").write_text("x = 1\n")
    (tmp_path / "mystuff.py").write_text("LHS = '(A*B).T'\n")
    (tmp_path / "pack.py").write_text(
        "import theorem_check as tc\nfrom mystuff import LHS\n\n"
        "tc.identity('mine.s1', LHS, 'B.T*A.T', shapes={'A': ('n', 'n'), 'B': ('n', 'n')})\n"
        "tc.identity('mine.s2', LHS, 'A.T*B.T', shapes={'A': ('n', 'n'), 'B': ('n', 'n')})\n")
    script = tmp_path / "bin" / "tc_script.py"     # as the console script: its own folder first, not the cwd
    script.parent.mkdir()
    script.write_text("from theorem_check.launch import main\n\nif __name__ == '__main__':\n    main()\n")
    env = {k: v for k, v in os.environ.items() if k != "THEOREM_CHECK_JOBS"}
    p = subprocess.run([sys.executable, str(script), "run", "--pack", "pack.py", "--jobs", "2", "-q"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300, env=env)
    assert p.returncode == 1 and "2 claims: 1 PROVED, 1 REFUTED" in p.stdout, p.stdout + p.stderr
