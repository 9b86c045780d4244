"""A worker server that outlives one run, so that a re-check after an edit costs the kernels
that changed and not numba-cuda's import and warm-up (about a second and a half here).

The first run that compiles starts it in the background (``python -m kernlint.workers.daemon``,
its own session, its output in a log file); later runs of the same interpreter, the same kernlint
code and toolchain and the same environment (``NUMBA_*``, ``CUDA*``, ``PYTHONPATH``, ...) use it.
It ends after ``KERNLINT_SERVER_IDLE`` seconds (300) without a request. ``KERNLINT_SERVER=0``
turns it off: each run then starts its own forkserver, as before.

Each request gets a fresh pair of processes forked from the warmed-up server: a handler, and a
worker under it that compiles the file (``job``) and sends its progress and result straight to
the run. The handler waits for the worker and reports how it ended when it did not send a
result (a crash, ``os._exit`` in the user's module). The run kills a worker past its time
limit by the pid the worker sends first. Its socket lives in a directory only its user can
enter (``$XDG_RUNTIME_DIR`` or the temporary directory; ``KERNLINT_SERVER_DIR`` moves it).
The standard library has no such server: multiprocessing's forkserver ends with its run.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from typing import Optional

IDLE_SECONDS = 300.0
START_SECONDS = 60.0  # the longest a run waits for a server to come up before starting its own forkserver
# the environment numba-cuda, NVVM, hipcc and the user's modules read: a server started under
# another one is another server
_ENVIRONMENT = ("NUMBA_", "CUDA", "NVIDIA", "NVCC", "HIP", "ROCM", "PYTHON", "LD_LIBRARY_PATH", "PATH",
                "VIRTUAL_ENV", "CONDA_PREFIX", "KERNLINT_")
_MAX_SOCKET_PATH = 100  # sockaddr_un holds 108 bytes
# (relative to kernlint)
_WORKER_MODULES = ("workers.job", "hip.kernels", "hip.host_reader", "compile.irfile", "compile.numba_cuda",
                   "python.project", "python.slicing", "python.syntax", "python.static_types")


def enabled() -> bool:
    from ..background import enabled as allowed  # KERNLINT_WORKERS, KERNLINT_SERVER, workers = false, CI

    return allowed()


def idle_seconds() -> float:
    try:
        return max(0.1, float(os.environ.get("KERNLINT_SERVER_IDLE", IDLE_SECONDS)))
    except ValueError:
        return IDLE_SECONDS


def _directory() -> Optional[str]:
    """The directory of this user's servers, created private; None where it is not private."""
    parent = os.environ.get("KERNLINT_SERVER_DIR") or os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    directory = os.path.join(parent, f"kernlint-{os.getuid()}")
    try:
        os.makedirs(directory, mode=0o700, exist_ok=True)
        status = os.lstat(directory)
    except OSError:
        return None
    if not stat.S_ISDIR(status.st_mode) or status.st_uid != os.getuid() or status.st_mode & 0o077:
        return None  # someone else's, or open to others: a request's pickles would not be private
    return directory


def base_path() -> Optional[str]:
    """Where this interpreter's, kernlint's and this environment's server keeps its files (a
    path without a suffix); None where there can be no server."""
    if not enabled() or not hasattr(socket, "AF_UNIX") or not hasattr(os, "fork"):
        return None
    directory = _directory()
    if directory is None:
        return None
    from ..compile.toolchain import identity

    environment = sorted((k, v) for k, v in os.environ.items() if k.startswith(_ENVIRONMENT))
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # which checkout, beside its code
    # the environment's prefix and the interpreter itself: `python` and `python3` of one venv are one
    interpreter = [sys.prefix, os.path.realpath(sys.executable), sys.version]
    key = hashlib.sha256(json.dumps([interpreter, package, identity(), environment]).encode()).hexdigest()
    base = os.path.join(directory, key[:24])
    return base if len(base) + len(".sock") <= _MAX_SOCKET_PATH else None


# -- the run's side ----------------------------------------------------------------------

class Starter:
    """Starts this environment's server unless one runs, and connects to it."""

    def __init__(self, base: str):
        self.base = base
        self.process: Optional[subprocess.Popen] = None
        self.failed = False

    def ensure(self) -> None:
        """Start a server in the background unless one is running or starting (a server holds
        the lock from before its import to its end)."""
        if self.process is not None or _held(self.base + ".lock"):
            return
        package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        try:
            with open(self.base + ".log", "ab") as log:
                self.process = subprocess.Popen(
                    [sys.executable, "-m", "kernlint.workers.daemon", self.base],
                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                    cwd=package_parent,  # imports this kernlint, whatever the run's directory
                    start_new_session=True, close_fds=True)
        except OSError:
            self.failed = True
            return
        from ..background import announce_once

        announce_once()  # a process the user did not ask for: say so, the first time

    def connect(self, wait: float = START_SECONDS) -> Optional[Connection]:
        """A connection to the server, waiting while it starts; None where there is none."""
        if self.failed:
            return None
        deadline = time.monotonic() + wait
        while True:
            connection = _connect(self.base)
            if connection is not None:
                return connection
            self.ensure()
            starting = (self.process is not None and self.process.poll() is None) or _held(self.base + ".lock")
            if not starting or time.monotonic() > deadline:
                self.failed = True  # this run goes on with its own forkserver
                return None
            time.sleep(0.01)


def _connect(base: str) -> Optional[Connection]:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(base + ".sock")
    except OSError:
        sock.close()
        return None
    return Connection(sock.detach())


def _held(path: str) -> bool:
    """Whether a server holds the lock file (it does from before its import to its end)."""
    try:
        descriptor = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(descriptor)


def request(connection: Connection, arguments: tuple) -> None:
    """Ask for one file's compile: the worker runs in this run's directory, environment and
    import path."""
    connection.send({"cwd": os.getcwd(), "environ": dict(os.environ), "sys_path": list(sys.path),
                     "arguments": arguments})


def running_pid(base: str) -> Optional[int]:
    try:
        with open(base + ".pid") as handle:
            return int(handle.read().strip())
    except (OSError, ValueError):
        return None


# -- the server's side -------------------------------------------------------------------

class _Idle(Exception):
    pass


def serve(base: str) -> int:
    lock = os.open(base + ".lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return 0  # another run started one first
    if os.path.exists(base + ".log"):
        os.truncate(base + ".log", 0)  # this server's output only (the user's modules may print)
    mine = base_path()  # this kernlint's code, read now, and the environment the run started it in
    import importlib

    importlib.import_module(f"{__package__}._preload")  # numba-cuda imported and warmed up, once for all requests
    # every module a worker imports, now: the code this server runs is the code its key was made
    # from, even where kernlint's files are edited while it runs (the next run's key differs)
    for name in _WORKER_MODULES:
        importlib.import_module(f"..{name}", __package__)
    if mine != base:  # another kernlint than the run's was imported: the run starts its own forkserver
        print(f"kernlint worker daemon: not started: this interpreter imports another kernlint "
              f"({os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}) or other code", flush=True)
        _remove(base, (".log", ".lock"))
        return 1

    path = base + ".sock"
    if os.path.exists(path):
        os.unlink(path)  # a server that was killed left it
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(128)
    with open(base + ".pid.tmp", "w") as handle:
        handle.write(str(os.getpid()))
    os.replace(base + ".pid.tmp", base + ".pid")
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # handlers are reaped by the kernel

    def idle(*_):
        raise _Idle

    signal.signal(signal.SIGALRM, idle)
    signal.signal(signal.SIGTERM, idle)
    print(f"kernlint worker daemon {os.getpid()} listening on {path}", flush=True)
    try:
        while True:
            signal.setitimer(signal.ITIMER_REAL, idle_seconds())
            try:
                client, _ = listener.accept()
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
            if os.fork() == 0:
                listener.close()
                for number in (signal.SIGCHLD, signal.SIGALRM, signal.SIGTERM):
                    signal.signal(number, signal.SIG_DFL)
                code = 1
                try:
                    _handle(client)
                    code = 0
                finally:
                    os._exit(code)
            client.close()
    except _Idle:
        pass
    finally:
        if running_pid(base) == os.getpid():
            _remove(base, (".sock", ".pid"))
        # it holds the lock still: no other daemon of this key can be using the log or the lock
        _remove(base, (".log", ".lock"))
    return 0


def _remove(base: str, suffixes) -> None:
    """An ended daemon leaves no files behind (a crash leaves its log, to be read)."""
    for suffix in suffixes:
        try:
            os.unlink(base + suffix)
        except OSError:
            pass


def _handle(client: socket.socket) -> None:
    connection = Connection(client.detach())
    try:
        asked = connection.recv()
    except (EOFError, OSError):
        return  # a run that went away before it asked
    os.chdir(asked["cwd"])
    os.environ.clear()
    os.environ.update(asked["environ"])
    sys.path[:] = asked["sys_path"]
    worker = os.fork()
    if worker == 0:
        code = 1
        try:
            from .job import compile_one_file

            connection.send(("pid", os.getpid()))
            compile_one_file(*asked["arguments"], connection)
            code = 0
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    _, status = os.waitpid(worker, 0)
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        try:
            connection.send(("exit", code))
        except OSError:
            pass  # the run is gone (it killed the worker past its time limit)


if __name__ == "__main__":
    sys.exit(serve(sys.argv[1]))
