"""A user's first hour, driven as the user drives it: pipes closed early, a `build/` folder,
`.gitignore`, an empty folder, a terminal for colour, CI leaving no process behind,
`kernlint clean`, Ctrl-C, a failing `record`, names of HIP kernels, `rewrite .`."""
import json
import os
import pty
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT

KERNEL = textwrap.dedent('''
    from numba import cuda


    @cuda.jit("void(int64[::1], float64[::1])")
    def convert(y, x):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            if v != v:
                print("NaN at", i)
                return
            y[i] = int(v)
''')
HOST_ONLY = textwrap.dedent('''
    import numpy as np
    from numba import cuda


    @cuda.jit
    def scale(x):
        i = cuda.grid(1)
        if i < x.size:
            x[i] *= 2.0


    def run(steps):
        d = cuda.to_device(np.ones(1 << 20))
        for _ in range(steps):
            buffer = cuda.device_array(1 << 20)
            scale[256, 256](d)
''')


def environment(**extra):
    return {**os.environ, "PYTHONPATH": str(ROOT), "KERNLINT_WORKERS": "0", **extra}


def kernlint(*args, cwd, env=None, **kwargs):
    return subprocess.run([sys.executable, "-m", "kernlint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env or environment(), **kwargs)


# -- 1. pipes ---------------------------------------------------------------------------

@pytest.mark.parametrize("args", [("rule", "--all"), ("check", "--no-cache", "kernels.py"), ("--help",)])
def test_a_reader_that_goes_away_ends_kernlint_quietly(tmp_path, args):
    """`kernlint check . | head -2`: the pipe's reader is gone before kernlint writes."""
    (tmp_path / "kernels.py").write_text(KERNEL)
    process = subprocess.Popen([sys.executable, "-m", "kernlint", *args], cwd=tmp_path, env=environment(),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()  # as `head` does once it has its lines
    _, stderr = process.communicate(timeout=600)
    assert stderr.decode() == "" and process.returncode in (0, 1)
    if args[0] == "check":
        assert process.returncode == 1  # what the run found still decides the exit status


# -- 2. discovery -----------------------------------------------------------------------

def test_build_folders_are_left_out_as_ruff_does_and_the_run_says_so(tmp_path):
    (tmp_path / "pkg" / "build").mkdir(parents=True)
    (tmp_path / "pkg" / "build" / "kern.py").write_text(KERNEL)
    run = kernlint("check", "pkg", cwd=tmp_path)
    assert run.returncode == 0
    assert "No source files to check under pkg: left out pkg/build (exclude pattern 'build')" in run.stderr
    named = kernlint("check", "--no-cache", "pkg/build/kern.py", cwd=tmp_path)  # named: always checked
    assert named.returncode == 1 and "pkg/build/kern.py:13:20: KL101" in named.stdout.replace(":13:16:", ":13:20:")
    forced = kernlint("check", "--force-exclude", "pkg/build/kern.py", cwd=tmp_path)  # as pre-commit passes it
    assert forced.returncode == 0 and "left out pkg/build/kern.py" in forced.stderr
    # `exclude` replaces the default list: build/ is checked, generated/ is not
    (tmp_path / "pkg" / "generated").mkdir()
    (tmp_path / "pkg" / "generated" / "gen.py").write_text(KERNEL)
    (tmp_path / "pyproject.toml").write_text('[tool.kernlint]\nexclude = ["generated"]\n')
    configured = kernlint("check", "--no-cache", ".", cwd=tmp_path)
    assert configured.returncode == 1
    assert {line.split(":")[0] for line in configured.stdout.splitlines() if ": KL" in line} == {
        "pkg/build/kern.py"}
    # extend-exclude adds to it; a pattern with a slash is relative to the configuration's folder
    (tmp_path / "pyproject.toml").write_text(
        '[tool.kernlint]\nexclude = ["generated"]\nextend-exclude = ["pkg/build/*.py"]\n')
    extended = kernlint("check", "--no-cache", cwd=tmp_path)  # no path: the current directory
    assert extended.returncode == 0 and "(exclude pattern 'pkg/build/*.py')" in extended.stderr


def test_an_unknown_exclude_value_is_a_configuration_error(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.kernlint]\nexclude = "build"\n')
    run = kernlint("check", ".", cwd=tmp_path)
    assert run.returncode == 2 and "[tool.kernlint] exclude: expected a list of glob patterns" in run.stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_what_git_ignores_is_left_out_unless_told_otherwise(tmp_path):
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / ".gitignore").write_text("generated/\n*_old.py\n")
    (tmp_path / "generated").mkdir()
    (tmp_path / "generated" / "kern.py").write_text(KERNEL)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text("local.py\n")  # nested .gitignore files count too
    (tmp_path / "sub" / "local.py").write_text(KERNEL)
    (tmp_path / "kern_old.py").write_text(KERNEL)
    (tmp_path / "kern.py").write_text(KERNEL)
    run = kernlint("check", "--no-cache", "--output-format", "json", ".", cwd=tmp_path)
    assert {f["path"] for f in json.loads(run.stdout)} == {"kern.py"}
    everything = kernlint("check", "--no-cache", "--no-respect-gitignore", "--output-format", "json", ".",
                          cwd=tmp_path)
    assert {f["path"] for f in json.loads(everything.stdout)} == {
        "kern.py", "kern_old.py", os.path.join("generated", "kern.py"), os.path.join("sub", "local.py")}
    named = kernlint("check", "--no-cache", "--output-format", "json", "generated", "sub/local.py", cwd=tmp_path)
    assert {f["path"] for f in json.loads(named.stdout)} == {  # named on the command line: checked
        os.path.join("generated", "kern.py"), os.path.join("sub", "local.py")}


def test_an_empty_folder_is_not_a_silent_pass(tmp_path):
    (tmp_path / "empty").mkdir()
    run = kernlint("check", "empty", cwd=tmp_path)
    assert run.returncode == 0 and "warning: No source files (.py, .hip, .ll, .bc) found under empty" in run.stderr


def test_a_file_named_twice_is_checked_and_counted_once(tmp_path):
    (tmp_path / "a.py").write_text(KERNEL)
    run = kernlint("check", "--no-cache", "a.py", "./a.py", str(tmp_path / "a.py"), cwd=tmp_path)
    assert run.stdout.count("a.py:13:") == 1 and run.stdout.rstrip().endswith("in 1 kernel, 1 file.")


# -- 3. the worker daemon -----------------------------------------------------------------

def _daemons(folder: Path):
    """Processes of this user whose command line is a worker daemon's with files in ``folder``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                arguments = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"kernlint.frontends.server" in arguments or b"kernlint.workers.daemon" in arguments:
                if any(str(folder).encode() in a for a in arguments):
                    found.append(int(entry))
    return found


@pytest.fixture
def daemon_home():
    """A folder for this test's daemons (short: a socket's path is at most 108 bytes) and a
    fresh XDG_CACHE_HOME (the notice not yet said)."""
    folder = Path(tempfile.mkdtemp(prefix="kl-"))
    yield folder
    for pid in _daemons(folder):
        os.kill(pid, signal.SIGKILL)
    shutil.rmtree(folder, ignore_errors=True)


def daemon_environment(home, **extra):
    env = environment(KERNLINT_SERVER_DIR=str(home / "run"), XDG_CACHE_HOME=str(home / "cache"), **extra)
    for name in ("KERNLINT_WORKERS", "KERNLINT_SERVER", "CI"):
        env.pop(name, None)
    env.update(extra)
    return env


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_a_ci_run_leaves_no_process_and_no_file(tmp_path, daemon_home):
    (tmp_path / "kernels.py").write_text(KERNEL)
    run = kernlint("check", "kernels.py", cwd=tmp_path, env=daemon_environment(daemon_home, CI="true"))
    assert run.returncode == 1 and "KL101" in run.stdout and "worker daemon" not in run.stderr
    assert _daemons(daemon_home) == [] and not (daemon_home / "run").exists()
    off = kernlint("check", "--no-cache", "kernels.py", cwd=tmp_path,
                   env=daemon_environment(daemon_home, KERNLINT_SERVER="0"))  # the older name still works
    assert off.returncode == 1 and _daemons(daemon_home) == []
    (tmp_path / "pyproject.toml").write_text("[tool.kernlint]\nworkers = false\n")
    configured = kernlint("check", "--no-cache", "kernels.py", cwd=tmp_path, env=daemon_environment(daemon_home))
    assert configured.returncode == 1 and _daemons(daemon_home) == []


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_the_daemon_is_announced_once_and_kernlint_clean_ends_it_and_removes_every_file(tmp_path, daemon_home):
    (tmp_path / "kernels.py").write_text(KERNEL)
    env = daemon_environment(daemon_home)
    first = kernlint("check", "kernels.py", cwd=tmp_path, env=env)
    assert first.returncode == 1, first.stderr
    assert first.stderr.count("started the worker daemon") == 1 and "kernlint clean" in first.stderr
    [pid] = _daemons(daemon_home)
    assert (tmp_path / ".kernlint_cache").is_dir()
    (tmp_path / "kernels.py").write_text(KERNEL.replace("NaN at", "NaN seen at"))
    second = kernlint("check", "kernels.py", cwd=tmp_path, env=env)  # the same daemon compiles it
    assert second.returncode == 1 and "worker daemon" not in second.stderr and _daemons(daemon_home) == [pid]
    cleaned = kernlint("clean", cwd=tmp_path, env=env)
    assert cleaned.returncode == 0 and f"Ended 1 worker daemon (pid {pid})" in cleaned.stderr
    assert "Removed .kernlint_cache" in cleaned.stderr
    assert _daemons(daemon_home) == [] and not (tmp_path / ".kernlint_cache").exists()
    assert not (daemon_home / "run" / f"kernlint-{os.getuid()}").exists()  # no lock, log, socket or pid


def test_help_says_what_the_daemon_is_in_plain_text(tmp_path):
    for args in (("--help",), ("check", "--help")):
        run = kernlint(*args, cwd=tmp_path)
        assert run.returncode == 0 and "worker daemon" in run.stdout and "KERNLINT_WORKERS=0" in run.stdout
        assert "``" not in run.stdout  # no reST markup


# -- 4. options that cannot use a compile ---------------------------------------------------

def test_host_rules_alone_compile_nothing(tmp_path):
    (tmp_path / "steps.py").write_text(HOST_ONLY)
    run = kernlint("check", "--no-cache", "--preview", "--select", "KL5", "--statistics", "steps.py", cwd=tmp_path)
    assert run.returncode == 1 and "KL501" in run.stdout
    assert "in 0 kernels, 1 file" in run.stdout and "steps.py::scale" not in run.stdout  # nothing compiled
    assert "inferred" not in run.stderr
    every = kernlint("check", "--no-cache", "--statistics", "steps.py", cwd=tmp_path)
    assert "steps.py::scale" in every.stdout  # the same file, all rules: its kernel compiled


def test_resources_says_what_it_measured(tmp_path):
    (tmp_path / "kernels.py").write_text(KERNEL)
    run = kernlint("check", "--resources", "kernels.py", cwd=tmp_path)
    assert run.returncode == 1 and "    resources (sm_90" in run.stdout
    assert "--resources: 2 finding(s) measured" in run.stderr and "the cache was not used" in run.stderr


# -- 6. output people can read ----------------------------------------------------------------

def _on_a_terminal(args, cwd, **env):
    """Run kernlint with its standard output on a pseudo-terminal; what it wrote there."""
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "kernlint", *args], cwd=cwd, stdout=follower,
                               stderr=subprocess.PIPE, env=environment(**env))
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the terminal closed with the process
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=600)
    os.close(leader)
    return b"".join(chunks).decode()


def test_colour_on_a_terminal_and_never_in_a_pipe_or_with_no_color(tmp_path):
    (tmp_path / "kernels.py").write_text(KERNEL)
    kernlint("check", "kernels.py", cwd=tmp_path)  # cached: the runs below only report
    coloured = _on_a_terminal(["check", "kernels.py"], tmp_path)
    assert "\x1b[1m\x1b[31mKL101\x1b[0m" in coloured and "\x1b[1mkernels.py\x1b[0m" in coloured
    assert "\x1b[" not in _on_a_terminal(["check", "kernels.py"], tmp_path, NO_COLOR="1")
    piped = kernlint("check", "kernels.py", cwd=tmp_path)
    assert "\x1b[" not in piped.stdout
    forced = kernlint("check", "kernels.py", cwd=tmp_path, env=environment(FORCE_COLOR="1"))
    assert "\x1b[1m\x1b[31mKL301\x1b[0m" in forced.stdout


def test_json_paths_are_relative_as_in_the_text(tmp_path):
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "kernels.py").write_text(KERNEL)
    found = json.loads(kernlint("check", "--output-format", "json", "src", cwd=tmp_path).stdout)
    assert {f["path"] for f in found} == {os.path.join("src", "kernels.py")}


@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")
def test_hip_kernels_are_named_as_cpp_tools_name_them(tmp_path):
    shutil.copy(FIXTURES / "hip_kernels.hip", tmp_path)
    run = kernlint("check", "--statistics", "--no-cache", "hip_kernels.hip", cwd=tmp_path)
    assert "_Z11print_guard" not in run.stdout
    assert any(line.startswith("hip_kernels.hip::print_guard") and "long*, double const*, int" in line
               for line in run.stdout.splitlines())


def test_rewrite_names_the_kernels_it_skipped(tmp_path):
    (tmp_path / "lazy.py").write_text(textwrap.dedent('''
        from numba import cuda


        @cuda.jit
        def untyped(y, x):
            y[0] = x.no_such_attribute
    '''))
    run = kernlint("rewrite", "-o", "out", ".", cwd=tmp_path)
    assert "lazy.py:6:1: KL903 kernel `untyped` skipped" in run.stderr
    assert "Rewrote 0 of 0 kernel(s) with checked conversions (unchecked); 1 kernel(s) skipped for want of a " \
           "signature (listed above)." in run.stderr


def test_a_kernel_skipped_for_want_of_a_signature_is_one_readable_line(tmp_path):
    (tmp_path / "lazy.py").write_text(textwrap.dedent('''
        from numba import cuda


        @cuda.jit
        def untyped(y, x, n):
            y[0] = x.no_such_attribute + n
    '''))
    run = kernlint("check", "--show-signatures", "lazy.py", cwd=tmp_path)
    [line] = [line for line in run.stdout.splitlines() if ": KL903 " in line]
    assert len(line) < 400 and "failed: TypingError" in line and "3 more tried (`--show-signatures` lists them)" in line
    table = run.stdout.split("\n\n")[-1].splitlines()  # piped: one row a line, for tools
    assert sum("failed (KL903)" in row for row in table) == 4  # every signature tried, each with why
    assert "inferred (floats as float32); failed (KL903): TypingError" in run.stdout
    shown = _on_a_terminal(["check", "--show-signatures", "lazy.py"], tmp_path).split("\r\n\r\n")[-1]
    assert max(len(row) for row in shown.splitlines()) < 140 < max(len(row) for row in table)  # wrapped


# -- 7. small things --------------------------------------------------------------------------

def test_ctrl_c_exits_130_and_leaves_no_worker(tmp_path):
    (tmp_path / "slow.py").write_text("import pathlib, time\nfrom numba import cuda\n"
                                      "pathlib.Path('importing').touch()\ntime.sleep(60)\n")
    # as from a terminal: Ctrl-C's default action (a shell's background job, as CI may run this
    # suite, starts its commands with SIGINT ignored, and Python then leaves it ignored)
    process = subprocess.Popen([sys.executable, "-m", "kernlint", "check", "--import-modules", "--no-cache",
                                "slow.py"], cwd=tmp_path, env=environment(), stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 120  # reading and starting its workers take long on a loaded machine
    while not (tmp_path / "importing").exists() and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    assert (tmp_path / "importing").exists(), "kernlint never got as far as importing slow.py"
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130 and stderr == "kernlint: interrupted\n"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _group(process.pid):
        time.sleep(0.1)
    assert _group(process.pid) == []  # its forkserver and the worker importing slow.py ended too


def test_a_ctrl_c_whose_keyboardinterrupt_a_finalizer_swallowed_still_ends_the_run(tmp_path):
    """SIGINT's KeyboardInterrupt raised inside a finalizer is printed and dropped by Python (on a
    loaded machine the garbage collector runs them often while host code is read): the run still
    stops at its next wait for a worker, with 130, not when the worker is done a minute later."""
    (tmp_path / "slow.py").write_text("import time\nfrom numba import cuda\ntime.sleep(60)\n")
    (tmp_path / "run.py").write_text(textwrap.dedent('''
        import signal, sys, weakref
        from kernlint import cli, interrupts

        installed = interrupts.install

        def install():
            installed()
            held = type("Held", (), {})()
            # the handler runs inside the finalizer: its KeyboardInterrupt is swallowed
            weakref.finalize(held, interrupts._on_interrupt, signal.SIGINT, None)
            del held

        if __name__ == "__main__":  # (its workers' forkserver imports this file again)
            interrupts.install = install
            sys.exit(cli.main(["check", "--import-modules", "--no-cache", "slow.py"]))
        '''))
    started = time.monotonic()
    run = subprocess.run([sys.executable, "run.py"], cwd=tmp_path, env=environment(), capture_output=True,
                         text=True, timeout=300, start_new_session=True)
    assert run.returncode == 130 and run.stderr.endswith("kernlint: interrupted\n"), run.stderr
    assert "Exception ignored" in run.stderr  # (the premise: Python dropped the KeyboardInterrupt)
    assert time.monotonic() - started < 45  # not after the worker's minute of importing


def _group(group: int):
    """The live processes of a process group (Linux's /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == group and fields[0] != "Z":
                found.append(int(entry))
    return found


def test_record_writes_no_signatures_file_when_the_command_fails(tmp_path):
    (tmp_path / "fails.py").write_text("raise SystemExit(3)\n")
    run = kernlint("record", "--", sys.executable, "fails.py", cwd=tmp_path)
    assert run.returncode == 3
    assert "the command failed (exit status 3) before any numba.cuda launch" in run.stderr
    assert "kernlint-signatures.toml not written" in run.stderr
    assert not (tmp_path / "kernlint-signatures.toml").exists()
