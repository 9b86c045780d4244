"""The worker server that outlives runs (kernlint/workers/daemon.py): later runs use it and
find exactly what a run without it finds, a worker that hangs is killed, it ends when idle,
and it is never set up where other users could reach it."""
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

from kernlint.workers import daemon

KERNEL = textwrap.dedent('''
    from numba import cuda


    @cuda.jit("void(int64[::1], float64[::1])")
    def convert(y, x):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i] * SCALE
            if v != v:
                print("NaN at", i)
                return
            y[i] = int(v)
''')


@pytest.fixture
def servers():
    """A directory for this test's servers, short enough for a socket's path (108 bytes)."""
    directory = Path(tempfile.mkdtemp(prefix="kl-"))
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def _environment(servers, **extra):
    return {**os.environ, "KERNLINT_SERVER_DIR": str(servers), "KERNLINT_SERVER_IDLE": "4",
            "KERNLINT_SERVER": "1", **extra}


def _check(project, environment, *flags):
    return subprocess.run([sys.executable, "-m", "kernlint", "check", *flags, str(project)], env=environment,
                          capture_output=True, text=True, timeout=300)


def _servers(servers):
    directory = servers / f"kernlint-{os.getuid()}"
    return sorted(directory.glob("*.pid")) if directory.is_dir() else []


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _children(pid: int):
    """Processes whose parent is ``pid`` (Linux's /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _wait(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


def test_later_runs_use_the_server_find_what_a_run_without_it_finds_and_it_ends_when_idle(tmp_path, servers):
    project = tmp_path / "project"
    project.mkdir()
    kernel = project / "kernels.py"
    kernel.write_text("SCALE = 2.5\n" + KERNEL)
    environment = _environment(servers)
    first = _check(project, environment)
    assert first.returncode == 1 and "KL101" in first.stdout, first.stderr
    [pid_file] = _servers(servers)
    pid = int(pid_file.read_text())
    assert _alive(pid)
    kernel.write_text("SCALE = 3.5\n" + KERNEL)  # compiled again, by the same server
    second = _check(project, environment)
    assert _servers(servers) == [pid_file] and int(pid_file.read_text()) == pid
    alone = _check(project, {**environment, "KERNLINT_SERVER": "0"}, "--no-cache")
    assert (second.returncode, second.stdout) == (alone.returncode, alone.stdout)
    assert _wait(lambda: not _alive(pid), 30), "the server outlived its idle time"
    assert _servers(servers) == [] and not pid_file.with_suffix(".sock").exists()
    assert _wait(lambda: list(pid_file.parent.iterdir()) == [], 5)  # no lock or log left either


def test_a_worker_past_its_time_limit_is_killed_and_the_server_goes_on(tmp_path, servers):
    project = tmp_path / "project"
    project.mkdir()
    (project / "hangs.py").write_text("import time\nfrom numba import cuda\nwhile True:\n    time.sleep(1)\n")
    (project / "fine.py").write_text("SCALE = 2.5\n" + KERNEL)
    environment = _environment(servers, KERNLINT_SERVER_IDLE="30")
    hung = _check(project, environment, "--import-modules", "--timeout", "3", "--no-cache")
    assert "hangs.py:1:1: KL901" in hung.stdout and "longer than 3 s" in hung.stdout, hung.stdout + hung.stderr
    assert "fine.py" in hung.stdout and "KL101" in hung.stdout
    [pid_file] = _servers(servers)
    pid = int(pid_file.read_text())
    try:
        assert _wait(lambda: _children(pid) == [], 10), "the hung worker (or its handler) is still running"
        again = _check(project / "fine.py", environment, "--no-cache")
        assert "KL101" in again.stdout and int(pid_file.read_text()) == pid
    finally:
        os.kill(pid, 15)


def test_runs_started_together_share_one_server(tmp_path, servers):
    project = tmp_path / "project"
    project.mkdir()
    (project / "kernels.py").write_text("SCALE = 2.5\n" + KERNEL)
    environment = _environment(servers)
    runs = [subprocess.Popen([sys.executable, "-m", "kernlint", "check", "--no-cache", str(project)],
                             env=environment, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(3)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [1, 1, 1]
    assert len({stdout for stdout, _ in outputs}) == 1
    [pid_file] = _servers(servers)
    log = pid_file.with_suffix(".log").read_text()
    assert log.count("listening") == 1, log
    os.kill(int(pid_file.read_text()), 15)


def test_no_server_where_others_could_reach_it(tmp_path, servers, monkeypatch):
    shared = servers / f"kernlint-{os.getuid()}"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("KERNLINT_SERVER_DIR", str(servers))
    assert daemon.base_path() is None
    project = tmp_path / "project"
    project.mkdir()
    (project / "kernels.py").write_text("SCALE = 2.5\n" + KERNEL)
    run = _check(project, _environment(servers))  # this run's own forkserver compiles
    assert run.returncode == 1 and "KL101" in run.stdout
    assert list(shared.iterdir()) == []


@pytest.mark.parametrize("variable, value", [("NUMBA_OPT", "0"), ("CUDA_HOME", "/opt/elsewhere"),
                                             ("PYTHONPATH", "/somewhere")])
def test_another_environment_gets_another_server(servers, monkeypatch, variable, value):
    monkeypatch.setenv("KERNLINT_SERVER_DIR", str(servers))
    monkeypatch.delenv("KERNLINT_WORKERS", raising=False)
    monkeypatch.setenv("KERNLINT_SERVER", "1")  # on, also where CI is set (CI turns it off by default)
    before = daemon.base_path()
    monkeypatch.setenv(variable, value)
    assert daemon.base_path() not in (None, before)
    monkeypatch.setenv("KERNLINT_SERVER", "0")
    assert daemon.base_path() is None


def test_a_server_whose_code_or_environment_is_not_the_runs_does_not_serve(servers):
    """A run's key names its kernlint's code and place and its environment: a server that
    finds another (a checkout edited or moved while it started) refuses to listen."""
    directory = servers / f"kernlint-{os.getuid()}"
    directory.mkdir(mode=0o700)
    base = directory / ("0" * 24)  # not the key of this code and environment
    started = subprocess.run([sys.executable, "-m", "kernlint.workers.daemon", str(base)],
                             env=_environment(servers), capture_output=True, text=True, timeout=120)
    assert started.returncode == 1 and "another kernlint" in started.stdout
    assert not base.with_suffix(".sock").exists()


def test_python_and_python3_of_one_environment_share_a_server(servers):
    """The console script runs `python3`, `python -m kernlint` runs `python`: one server."""
    bindir = Path(sys.executable).parent
    code = "from kernlint.workers import daemon; print(daemon.base_path())"
    bases = {subprocess.run([str(bindir / name), "-c", code], env=_environment(servers), capture_output=True,
                            text=True, check=True).stdout.strip() for name in ("python", "python3")
             if (bindir / name).exists()}
    assert len(bases) == 1 and None not in bases
