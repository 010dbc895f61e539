"""Terminal behaviour: colour, progress, did-you-mean, argument cutting, encodings, environment errors.

Unit tests of :mod:`theorem_check.output.terminal`, then the command line in subprocesses (each
environment error with its exit code).
"""

import io
import json
import os
import pty
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from theorem_check.output import terminal

ROOT = Path(__file__).resolve().parents[1]
PACK = str(ROOT / "examples" / "transpose_pack.py")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def tc(*args, env=None, stdout=subprocess.PIPE, **kw):
    full = {**os.environ, **(env or {})}
    for k, v in list(full.items()):
        if v is None:
            del full[k]
    p = subprocess.run([sys.executable, "-m", "theorem_check", *args], stdout=stdout, stderr=subprocess.PIPE,
                       cwd=ROOT, env=full, **kw)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def tc_main(capsys, *args, env=None, monkeypatch=None):
    """The CLI in this process (fast): (exit code, stdout, stderr)."""
    from theorem_check.cli import main

    for k, v in (env or {}).items():
        monkeypatch.setenv(k, v)
    with pytest.raises(SystemExit) as exc:
        main(list(args))
    out, err = capsys.readouterr()
    return exc.value.code, out, err


class _Stream(io.StringIO):
    def __init__(self, tty):
        super().__init__()
        self._tty = tty

    def isatty(self):
        return self._tty


# --- colour -------------------------------------------------------------------------------------

@pytest.mark.parametrize("mode,tty,no_color,expected", [
    ("always", False, "", True), ("always", True, "1", True),      # an explicit flag wins
    ("never", True, "", False), ("auto", True, "", True), ("auto", False, "", False),
    ("auto", True, "1", False), (None, True, "", True),
])
def test_colour_enabled(monkeypatch, mode, tty, no_color, expected):
    monkeypatch.delenv("TERM", raising=False)
    monkeypatch.setenv("NO_COLOR", no_color)
    assert terminal.colour_enabled(mode, _Stream(tty)) is expected


def test_colour_dumb_terminal_and_bad_mode(monkeypatch):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "dumb")
    assert not terminal.colour_enabled("auto", _Stream(True))
    with pytest.raises(ValueError, match="color='sometimes' must be one of auto, always, never"):
        terminal.colour_enabled("sometimes")


def test_style_verdict_pads_outside_the_colour():
    plain = terminal.style_verdict("ERRATUM", False, width=12)
    coloured = terminal.style_verdict("ERRATUM", True, width=12)
    assert plain == "ERRATUM     " and ANSI.sub("", coloured) == plain and coloured != plain
    assert "\x1b[31" in terminal.style_verdict("REFUTED", True)   # red


def test_cli_colour_always_never(capsys):
    always = tc_main(capsys, "run", "noise.eq3", "noise.eq31", "--color", "always")[1]
    never = tc_main(capsys, "run", "noise.eq3", "noise.eq31", "--color", "never")[1]
    group = tc_main(capsys, "--color", "always", "run", "noise.eq3")[1]
    piped = tc_main(capsys, "run", "noise.eq3")[1]                        # auto, not a terminal
    assert ANSI.search(always) and ANSI.search(group)
    assert not ANSI.search(never) and not ANSI.search(piped)
    timeless = lambda text: re.sub(r"\d+\.\d+ ?s", "", text)  # noqa: E731 - the times differ
    assert timeless(ANSI.sub("", always)) == timeless(never)


def _run_on_pty(args, env, which="stdout"):
    """Run the CLI with stdout (or stderr) on a pseudo-terminal; returns (code, pty bytes, other stream)."""
    master, slave = pty.openpty()
    kw = {"stdout": slave, "stderr": subprocess.PIPE} if which == "stdout" else {"stdout": subprocess.PIPE,
                                                                                  "stderr": slave}
    p = subprocess.Popen([sys.executable, "-m", "theorem_check", *args], cwd=ROOT, env={**os.environ, **env}, **kw)
    os.close(slave)
    data = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO once the child closed its end
            break
        if not chunk:
            break
        data += chunk
    other = (p.stderr if which == "stdout" else p.stdout).read()
    code = p.wait()
    os.close(master)
    return code, data, other


def test_colour_auto_on_a_terminal_and_no_color():
    env = {"TERM": "xterm", "NO_COLOR": ""}
    code, out, _ = _run_on_pty(["run", "--pack", PACK], env)
    assert code == 1 and ANSI.search(out.decode())
    code, out, _ = _run_on_pty(["run", "--pack", PACK], {**env, "NO_COLOR": "1"})
    assert code == 1 and not ANSI.search(out.decode()) and b"PROVED" in out


# --- progress -----------------------------------------------------------------------------------

class _Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def test_progress_elapsed_eta_and_clear():
    clock, buf = _Clock(), io.StringIO()
    p = terminal.Progress(stream=buf, width=80, clock=clock, tty=True)
    p(0, 4, "prh.eq31")
    assert "[1/4]   0% 0:00 elapsed, ETA --:--  prh.eq31" in buf.getvalue()
    clock.t += 10.0
    p(1, 4, "prh.eq36")                    # 1 done in 10 s, 3 left: ETA 30 s
    assert buf.getvalue().split("\r")[-1].rstrip() == "[2/4]  25% 0:10 elapsed, ETA 0:30  prh.eq36"
    p.clear()
    assert re.search(r"\r {40,}\r$", buf.getvalue())


def test_progress_cut_to_width_and_disabled():
    buf = io.StringIO()
    p = terminal.Progress(3, stream=buf, width=30, tty=True)
    p.update(0, "x" * 100)
    assert max(len(s) for s in buf.getvalue().split("\r")) <= 29
    off = io.StringIO()
    q = terminal.Progress(3, stream=off, enabled=False)
    q.update(1, "a")
    q.clear()
    assert off.getvalue() == ""


def test_progress_refresh_thread_stops():
    buf = io.StringIO()
    with terminal.Progress(2, stream=buf, refresh=0.01, tty=True) as p:
        p.update(0, "a")
        import time

        time.sleep(0.05)
    assert p._thread is None and buf.getvalue().count("\r[1/2]") >= 2


@pytest.mark.parametrize("seconds,text", [(0, "0:00"), (59.4, "0:59"), (61, "1:01"), (3725, "1:02:05"),
                                          (float("nan"), "--:--"), (-1, "--:--"), (float("inf"), "--:--")])
def test_format_seconds(seconds, text):
    assert terminal.format_seconds(seconds) == text


def test_cli_progress_on_a_terminal_is_cleared():
    code, err, out = _run_on_pty(["run", "--pack", PACK], {}, which="stderr")
    text = err.decode()
    assert code == 1 and "elapsed, ETA" in text and "demo.transpose_right" in text
    last = text.rsplit("\r", 2)
    assert last[-1] == "" and last[-2].strip() == ""   # the line is blanked before the table
    assert b"elapsed" not in out


# --- did you mean -------------------------------------------------------------------------------

IDS = ["prh.eq31", "prh.eq30", "prh.eq33", "noise.eq31", "noise.thm5_4", "cascade.eq25"]


@pytest.mark.parametrize("name,first", [("PRH.EQ31", "prh.eq31"), ("prh.eq3", "prh.eq30"),
                                        ("noise.thm54", "noise.thm5_4"), ("Cascade.Eq25", "cascade.eq25")])
def test_did_you_mean(name, first):
    hint = terminal.did_you_mean(name, IDS)
    assert hint.startswith(f" (did you mean {first!r}")


def test_did_you_mean_same_up_to_case_is_the_only_answer_and_far_gets_none():
    assert terminal.did_you_mean("PRH.EQ31", IDS) == " (did you mean 'prh.eq31'?)"
    assert terminal.did_you_mean("zzzzzz", IDS) == ""
    assert terminal.did_you_mean("p" * 300, IDS) == ""
    assert "prh.eq31" in terminal.did_you_mean("prh.eq3", IDS)


@pytest.mark.parametrize("args,hint", [
    (("run", "prh.eq3"), "did you mean 'prh.eq30', 'prh.eq31'"),
    (("run", "PRH.EQ31"), "did you mean 'prh.eq31'?"),
    (("show", "noise.thm54"), "did you mean 'noise.thm5_4'"),
    (("run", "--paper", "PRH"), "did you mean 'prh'?"),
    (("list", "--paper", "nosie"), "did you mean 'noise'?"),
    (("run", "EQ31"), "did you mean 'eq31'?"),
])
def test_cli_did_you_mean(capsys, args, hint):
    code, _, err = tc_main(capsys, *args)
    assert code == 2 and hint in err and len(err.strip().splitlines()) == 1, err


# --- truncation ---------------------------------------------------------------------------------

def test_shorten():
    assert terminal.shorten("abc", 5) == "abc"
    assert terminal.shorten("a" * 300) == "a" * 200 + "... [300 characters]"


@given(st.text(min_size=201, max_size=2000))
def test_shorten_args_cuts_every_long_argument(arg):
    msg = terminal.shorten_args(f"claim id={arg!r} matches nothing; also {arg}", [arg])
    assert arg not in msg and len(msg) < 2 * len(repr(arg[:200])) + 200


BIG = "q" * 100_000


@pytest.mark.parametrize("args", [("run", BIG), ("run", "--paper", BIG), ("show", BIG), ("run", "--seed", BIG, "x"),
                                  ("run", "--pack", BIG), ("run", "--pack", BIG + ".py"), ("run", "--trials", BIG)])
def test_cli_long_arguments_are_cut(capsys, args):
    code, _, err = tc_main(capsys, *args)
    assert code == 2 and len(err) < 700 and re.search(r"\[1000\d\d characters\]", err), err[:300]
    assert len(err.strip().splitlines()) == 1


# --- encodings ----------------------------------------------------------------------------------

def test_to_ascii():
    assert terminal.to_ascii("└ corrected: ≤ 1e-3 — β·x, é") == "`- corrected: <= 1e-3 -- beta.x, e"
    assert terminal.to_ascii("中") == "?"


@pytest.mark.parametrize("encoding", ["latin-1", "ascii", "cp1252"])
def test_install_ascii_fallback(encoding):
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding=encoding)
    terminal.install_ascii_fallback(stream)
    stream.write("└ corrected é\n")
    stream.flush()
    text = raw.getvalue().decode(encoding)
    assert text.startswith("`- corrected ")
    utf = io.TextIOWrapper(io.BytesIO(), encoding="utf-8")
    terminal.install_ascii_fallback(utf)
    assert utf.errors == "strict"


@pytest.mark.parametrize("encoding", ["latin-1", "ascii", "cp1252", "utf-8"])
def test_cli_output_in_any_encoding(encoding):
    """PYTHONIOENCODING=latin-1 used to crash on the tree character (internal error, exit 3)."""
    code, out, err = tc("run", "--pack", PACK, env={"PYTHONIOENCODING": encoding})
    assert code == 1 and "Traceback" not in err and err == ""
    text = out.decode(encoding)      # strict: every byte is valid in the requested encoding
    assert ("└ corrected" if encoding == "utf-8" else "`- corrected") in text
    assert "demo.transpose_wrong" in text and "ERRATUM" in text


def test_cli_show_and_errors_in_ascii():
    code, out, _ = tc("show", "prh.eq31", env={"PYTHONIOENCODING": "ascii"})
    assert code == 0 and out.decode("ascii")
    code, _, err = tc("run", "prh.eq3", env={"PYTHONIOENCODING": "ascii"})
    assert code == 2 and "did you mean" in err


# --- environment errors -------------------------------------------------------------------------

def test_budget_checked_before_any_claim_runs(capsys, monkeypatch):
    code, out, err = tc_main(capsys, "run", "eq31", env={"THEOREM_CHECK_BUDGET": "bogus"}, monkeypatch=monkeypatch)
    assert code == 2 and out == ""
    assert err.strip() == "theorem-check: error: THEOREM_CHECK_BUDGET='bogus' must be 'ci', 'paper' or a positive number"
    code, _, err = tc_main(capsys, "report", "eq31", "-o", "/nonexistent-never", env={"THEOREM_CHECK_BUDGET": "-1"},
                           monkeypatch=monkeypatch)
    assert code == 2 and "THEOREM_CHECK_BUDGET='-1'" in err and not Path("/nonexistent-never").exists()
    assert tc("run", "--pack", PACK, env={"THEOREM_CHECK_BUDGET": "paper"})[0] == 1   # valid values still run


@pytest.mark.parametrize("out_dir,message", [
    ("/proc/self", "is not writable"),                 # exists, a directory, and nobody can write there
    ("/proc/self/no/such", "cannot be created"),
    ("/dev/null", "exists and is not a directory"),
    (__file__ + "/sub", "cannot be created"),
])
def test_report_out_dir_checked_before_any_claim_runs(capsys, out_dir, message):
    code, out, err = tc_main(capsys, "report", "eq31", "-o", out_dir)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    assert out == ""


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("args", [("run", "--pack", PACK), ("list", "--json"), ("show", "prh.eq31")])
def test_full_disk_on_stdout_is_one_line_exit_2(args):
    with open("/dev/full", "wb") as full:
        code, _, err = tc(*args, stdout=full)
    assert code == 2, err
    assert err.strip() == "theorem-check: error: cannot write output: No space left on device (errno ENOSPC)"


def test_closed_pipe_is_quiet_exit_2():
    p = subprocess.Popen([sys.executable, "-m", "theorem_check", "list", "--json"], cwd=ROOT,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.close()  # no reader left: the first write meets EPIPE
    err = p.stderr.read().decode()
    assert p.wait() == 2 and "Traceback" not in err and "Exception ignored" not in err


def test_closed_stdout_is_one_line_exit_2():
    """``theorem-check list >&-``: Python's sys.stdout is None; one line on stderr, exit 2 (was a traceback)."""
    p = subprocess.run([sys.executable, "-m", "theorem_check", "list"], cwd=ROOT, stderr=subprocess.PIPE,
                       preexec_fn=lambda: os.close(1), text=True, timeout=120)
    assert p.returncode == 2 and "Traceback" not in p.stderr and "stdout is closed" in p.stderr, p.stderr


def test_environment_error_text():
    import errno

    assert terminal.environment_error(OSError(errno.EROFS, "Read-only file system", "/x/report.tex")) == \
        "/x/report.tex: Read-only file system (errno EROFS)"


# --- widths and help ----------------------------------------------------------------------------

def test_list_fits_100_columns():
    code, out, _ = tc("list", env={"COLUMNS": "200"})
    lines = out.decode().splitlines()
    recs = json.loads(tc("list", "--json")[1])["claims"]
    assert code == 0 and len(lines) == len(recs) and max(map(len, lines)) <= 100
    assert all(line.startswith(r["id"] + " ") for line, r in zip(lines, recs))


@pytest.mark.parametrize("columns", [80, 120])
def test_show_wraps_to_the_terminal_width(columns):
    code, out, _ = tc("show", "prh.eq31", env={"COLUMNS": str(columns)})
    lines = out.decode().splitlines()
    assert code == 0 and max(map(len, lines)) <= columns and "as printed:" in lines[2]


def test_show_latex_is_raw_and_unwrapped():
    import theorem_check as tc_

    tc_.load_builtin()
    from theorem_check.output.latex import claim_latex

    code, out, _ = tc("show", "prh.eq31", "--latex", env={"COLUMNS": "60"})
    assert code == 0 and out.decode().rstrip("\n") == claim_latex(tc_.REGISTRY.get("prh.eq31")).rstrip("\n")


@pytest.mark.parametrize("command", [(), ("run",), ("report",)])
def test_help_lists_exit_codes_verdicts_budget(capsys, command):
    code, text, _ = tc_main(capsys, *command, "--help")
    assert code == 0
    for word in ("Exit codes:", "INCONCLUSIVE", "ILL-POSED", "THEOREM_CHECK_BUDGET", "NO_COLOR", "--color"):
        assert word in text, word


def test_progress_without_a_terminal_writes_plain_lines():
    """Non-terminal mode (a log, CI): whole lines, at most one per tenth of the work plus the end, no \\r."""
    buf = io.StringIO()
    p = terminal.Progress(30, stream=buf, width=80, tty=False)
    for k in range(31):
        p(k, 30, "prh.eq31")
    p.clear()
    out = buf.getvalue()
    assert "\r" not in out
    lines = out.splitlines()
    assert 2 <= len(lines) <= 12 and lines[-1].startswith("theorem-check: [30/30] 100%")


def test_elapsed_clock_moves_before_the_first_claim_ends():
    """Issue 23: the line stayed at '0:00 elapsed' until a claim ended; the commands' Progress redraws itself."""
    import threading

    from theorem_check.cli.options import progress_fn

    assert progress_fn(True).refresh == terminal.REFRESH_SECONDS > 0
    now = [0.0]
    seen = threading.Event()

    class Buf(io.StringIO):
        def write(self, s):
            now[0] += 7.0            # each redraw: the (fake) clock has moved on
            if "0:14 elapsed" in s:
                seen.set()
            return super().write(s)

    buf = Buf()
    with terminal.Progress(3, stream=buf, refresh=0.001, tty=True, clock=lambda: now[0]) as p:
        p.update(0, "prh.slow")        # one event only; the redraws come from the refresh thread
        assert seen.wait(10), buf.getvalue()


def test_every_command_takes_color():
    """The user guide says each command accepts ``--color``; ``sweep`` did not (helper-40, exit 2)."""
    from theorem_check.cli.main import cli

    for name, cmd in cli.commands.items():
        assert any("--color" in p.opts for p in cmd.params), name


def test_what_native_code_writes_to_descriptor_1_goes_to_stderr(tmp_path):
    """helper-69: LAPACK's ``** On entry to DLASCL parameter number 4 had an illegal value`` (written by Fortran to
    file descriptor 1, not through Python) came before ``--json``'s output and made it invalid JSON."""
    pack = tmp_path / "noisy_pack.py"
    pack.write_text(
        "import os\nimport theorem_check as tc\n\n\n"
        "def lhs(inst, ctx):\n"
        "    os.write(1, b' ** On entry to DLASCL parameter number  4 had an illegal value\\n')\n"
        "    return inst['x']\n\n\n"
        "tc.identity('noisy.same', lhs, 'x', shapes={'x': ('n', 1)}, derive=False)\n")
    code, out, err = tc("run", "--pack", str(pack), "--json", "--trials", "2", env={"THEOREM_CHECK_JOBS": "1"})
    assert code == 0, err
    assert json.loads(out)["claims"][0]["verdict"] == "VERIFIED"
    assert "DLASCL" in err
