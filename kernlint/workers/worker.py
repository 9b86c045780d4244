"""Compile user files in isolated child processes, with a time limit each.

Importing user code runs it: it may hang, call ``sys.exit``, crash the interpreter or change
numba's global configuration. Each file is therefore compiled in its own process, forked from
a process that has imported and warmed up numba-cuda once, so a file costs a fork, not a numba
start-up: the worker server that outlives runs (``daemon``), or where there is none, a
forkserver of this run (``multiprocessing``'s, with a preload). The CLI's own process never
imports numba.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from multiprocessing.connection import wait
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from ..compile.numba_cuda import FileResult
from ..findings import TIMED_OUT, Finding, compile_failed, unreadable_file
from ..interrupts import interrupted
from ..source import buffers
from . import daemon
from .job import ALIVE, DONE, PASS, STARTING, compile_one_file

_PRELOAD = "kernlint.workers._preload"
_starters: Dict[str, daemon.Starter] = {}  # this process's worker servers, by their files' base path
_active: List[Dict[object, "_Running"]] = []  # the compiles under way, of each compile_files of this process


def end_running() -> None:
    """Kill every compile this process started (the run was interrupted: nobody will read them)."""
    for running in _active:
        for job in list(running.values()):
            job.kill()
            job.end()
        running.clear()


def _failure(path: str, reason: str) -> Finding:
    return unreadable_file(os.path.abspath(path), 1, 1, reason)


def _ended(code: Optional[int]) -> str:
    if code is None:
        return "the interpreter crashed while importing it"
    if code < 0:
        return f"the interpreter crashed while importing it (signal {-code})"
    return f"the import ended the process (exit code {code})"


def _context():
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([_PRELOAD])
    return context


def _starter() -> Optional[daemon.Starter]:
    base = daemon.base_path()
    if base is None:
        return None
    starter = _starters.get(base)
    if starter is None:
        starter = _starters[base] = daemon.Starter(base)
    return None if starter.failed else starter


def start_early() -> None:
    """Start the worker server (numba-cuda's import and warm-up, about a second) now, while
    the caller still reads the project, unless one is running; without a server, this run's
    forkserver, which ``stop_unused`` ends if no file needed it."""
    base = daemon.base_path()
    if base is not None:
        starter = _starters[base] = daemon.Starter(base)  # a server that failed before may work now
        starter.ensure()
        if not starter.failed:
            return
    from multiprocessing import forkserver

    _context()
    forkserver.ensure_running()


def stop_unused() -> None:
    """End a forkserver ``start_early`` started that forked nothing: it holds the caller's
    standard streams, and a caller reading them would wait for its import to finish. (The
    worker server holds none: it is left for the next run.)"""
    from multiprocessing import forkserver

    pid = getattr(getattr(forkserver, "_forkserver", None), "_forkserver_pid", None)
    if pid:
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except (OSError, ChildProcessError):
            pass
        forkserver._forkserver._forkserver_pid = None  # noqa: SLF001 - so that a later run starts a new one
        forkserver._forkserver._forkserver_address = None  # noqa: SLF001


class _Running:
    """One file (or shard) being compiled: by a worker of the server (its pid comes first) or
    by a process of this run's forkserver."""

    def __init__(self, path: str, shard: Tuple[int, int], skip: Tuple[tuple, ...], connection, deadline: float,
                 process=None):
        self.path, self.shard, self.connection, self.deadline = path, shard, connection, deadline
        self.skip = skip  # the kernels it was asked not to compile
        self.process = process
        self.pid: Optional[int] = None
        self.compiling: Optional[tuple] = None  # (qualname, line, column) of the kernel under way
        self.size = 0  # its compile size (compile.numba_cuda.compile_size)
        self.window = 0.0  # the seconds its compile may go without starting a new pass
        self.stage: Optional[str] = None  # numba-cuda's pass under way: "pass [function]"
        # the kernels it finished, with what each gave: a worker stopped on a later kernel
        # hands them to the next one's result instead of compiling them again
        self.done: List[Tuple[tuple, FileResult]] = []
        self.local = process is not None  # on this run's forkserver

    def kill(self) -> None:
        if self.process is not None:
            self.process.kill()
            self.process.join()
        elif self.pid is not None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except OSError:
                pass

    def end(self) -> None:
        self.connection.close()
        if self.process is not None:
            self.process.join(5)
            if self.process.is_alive():
                self.process.kill()


def _launch(path: str, shard: Tuple[int, int], skip: Tuple[tuple, ...], arguments: tuple, timeout: float,
            local: bool) -> _Running:
    starter = None if local else _starter()
    connection = starter.connect() if starter is not None else None  # waits while the server starts
    if connection is not None:
        try:
            daemon.request(connection, arguments)
            return _Running(path, shard, skip, connection, time.monotonic() + timeout)
        except OSError:
            connection.close()
    context = _context()
    reader, writer = context.Pipe(duplex=False)
    process = context.Process(target=compile_one_file, args=arguments + (writer,), daemon=True)
    process.start()  # returns once the forkserver forked it: after numba-cuda's import, not the file's time
    writer.close()
    return _Running(path, shard, skip, reader, time.monotonic() + timeout, process)


def compile_files(
    paths: Sequence[str],
    arch: str,
    timeout: float,
    jobs: Optional[int] = None,
    signatures: Optional[Dict[str, Dict[str, List[str]]]] = None,
    runnable: bool = False,
    offload_arch: str = "gfx90a",
    settings=None,
    reuse=None,
    kernel_counts: Optional[Dict[str, int]] = None,
) -> Iterator[FileResult]:
    """Yield one FileResult per path (in completion order). ``reuse`` (a KernelReuse): kernels
    whose findings are cached are not compiled. ``kernel_counts``: a file with many kernels is
    split among several workers (every core busy when one file holds most of the kernels)."""
    if not paths:
        return
    jobs = max(1, jobs or os.cpu_count() or 1)
    # (path, shard, on this run's forkserver, kernels not to compile: they ran past the time limit
    # or an earlier worker finished them, what those finished gave)
    tasks: List[Tuple[str, Tuple[int, int], bool, Tuple[tuple, ...], List[Tuple[tuple, FileResult]]]] = []
    for path in paths:
        shards = _shards(kernel_counts.get(os.path.abspath(path), 0) if kernel_counts else 0, jobs, settings)
        tasks.extend((path, (k, shards), False, (), []) for k in range(shards))
    # the largest files first: the many-kernel file's shards do not wait behind small files
    tasks.sort(key=lambda task: -(kernel_counts or {}).get(os.path.abspath(task[0]), 0) / task[1][1])
    waiting: Dict[str, List[FileResult]] = {}
    running: Dict[object, _Running] = {}  # connection -> the compile it reports on
    _active.append(running)
    timed_out: Dict[Tuple[str, Tuple[int, int]], List[Finding]] = {}  # each kernel past the limit
    while tasks or running:
        while tasks and len(running) < jobs:
            path, shard, local, skip, done = tasks.pop(0)
            arguments = (path, arch, (signatures or {}).get(os.path.abspath(path)), runnable, offload_arch,
                         settings, buffers(), reuse, shard, skip)
            job = _launch(path, shard, skip, arguments, timeout, local)
            job.done = done
            running[job.connection] = job
        next_deadline = min(job.deadline for job in running.values())
        # (a second at most: a Ctrl-C whose KeyboardInterrupt a finalizer swallowed still stops the run)
        ready = wait(list(running), timeout=min(1.0, max(0.0, next_deadline - time.monotonic())))
        if interrupted():
            raise KeyboardInterrupt
        finished: List[Tuple[str, Tuple[int, int], FileResult]] = []
        for connection in ready:
            job = running[connection]
            try:
                message = connection.recv()
            except (EOFError, OSError):
                message = None
            if isinstance(message, str) and message == ALIVE:  # a step done: an import, a kernel's signature
                job.deadline = time.monotonic() + (job.window or timeout)
                job.stage = None
                continue
            if isinstance(message, tuple) and message[0] == "pid":
                job.pid = message[1]
                job.deadline = time.monotonic() + timeout
                continue
            if isinstance(message, tuple) and message[0] == STARTING:
                job.compiling, job.size, job.stage = tuple(message[1]), message[2], None
                job.window = pass_allowance(timeout, job.size)
                job.deadline = time.monotonic() + job.window
                continue
            if isinstance(message, tuple) and message[0] == DONE:  # every signature of the kernel
                job.done.append((tuple(message[1]), message[2]))
                job.compiling, job.window, job.stage = None, 0.0, None
                job.deadline = time.monotonic() + timeout
                continue
            if isinstance(message, tuple) and message[0] == PASS:
                job.stage = message[1]
                job.deadline = time.monotonic() + (job.window or timeout)
                continue
            del running[connection]
            if message is None and job.process is None and job.pid is None:
                job.end()  # the server went away before it forked a worker: this run's forkserver does it
                tasks.insert(0, (job.path, job.shard, True, job.skip, job.done))
                continue
            if isinstance(message, FileResult):
                result = _with_done(message, job.done)
            else:
                if job.process is not None:
                    job.process.join(5)
                code = message[1] if isinstance(message, tuple) else (
                    job.process.exitcode if job.process is not None else None)
                result = FileResult(path=os.path.abspath(job.path), diagnostics=[_failure(job.path, _ended(code))])
            job.end()
            finished.append((job.path, job.shard, result))
        now = time.monotonic()
        for connection in [c for c, job in running.items() if job.deadline <= now]:
            job = running.pop(connection)
            job.kill()
            job.end()
            if job.compiling is not None:
                # one kernel's compile is stuck: it is reported, and a new worker compiles the
                # file's kernels that were neither done nor stuck
                qualname, line, column = job.compiling
                timed_out.setdefault((job.path, job.shard), []).append(compile_failed(
                    os.path.abspath(job.path), line, column, qualname.rsplit(".", 1)[-1], "",
                    _stuck(job, timeout)))
                done = tuple(place for place, _ in job.done)
                tasks.insert(0, (job.path, job.shard, job.local, job.skip + done + (job.compiling,), job.done))
                continue
            finished.append((job.path, job.shard, FileResult(
                path=os.path.abspath(job.path),
                diagnostics=[_failure(job.path, f"importing it or compiling one of its kernels took longer than "
                                                f"{timeout:g} s {TIMED_OUT}")],
            )))
        for path, shard, result in finished:
            result.diagnostics.extend(timed_out.pop((path, shard), []))
            shards = shard[1]
            parts = waiting.setdefault(path, [])
            parts.append(result)
            if len(parts) == shards:
                del waiting[path]
                yield _merged(parts)


# A compile is stuck, not long, when numba-cuda starts no new pass for this long: --timeout for
# a kernel of up to this compile size (compile_size: bytecode instructions, device functions
# numba inlines counted at each call site; fbpic's largest kernels measure 12,783 and 24,526,
# most kernels a few hundred), more for larger ones, growing as the square of the size as
# numba's inlining and SSA passes grow on unrolled kernels (benchmarks/compile_cost.py).
SIZE_PER_TIMEOUT = 4000


def pass_allowance(timeout: float, size: int) -> float:
    """The seconds one numba-cuda pass of a kernel of ``size`` may run before it counts as stuck."""
    return timeout * max(1.0, (size / SIZE_PER_TIMEOUT) ** 2)


def _stuck(job: _Running, timeout: float) -> str:
    """Why a kernel's compile was stopped: the pass it was stuck in and the limit it ran past."""
    window = job.window or timeout
    limit = f"{window:g} s {TIMED_OUT}"
    if window > timeout:
        limit += f", {timeout:g} s scaled to its compile size {job.size:,}"
    if job.stage is None:
        return f"it took longer than {limit}; raise it to check this kernel"
    name, _, function = job.stage.partition(" [")
    where = f" on `{function.rstrip(']')}`" if function else ""
    return f"numba-cuda's `{name}` pass{where} made no progress for {limit}; raise it to check this kernel"


def _with_done(result: FileResult, done: List[Tuple[tuple, FileResult]]) -> FileResult:
    """A worker's result with what its kernels gave as each was done (and what an earlier
    worker's did, for a file it took over), in the order they were compiled."""
    for _, part in done:
        result.diagnostics.extend(part.diagnostics)
        result.reused.extend(part.reused)
    result.kernels = [kernel for _, part in done for kernel in part.kernels] + result.kernels
    return result


_KERNELS_PER_SHARD = 16  # below this, a second worker's fork and reading cost more than they save


def _shards(kernels: int, jobs: int, settings) -> int:
    if getattr(settings, "import_modules", False):
        return 1  # importing the file runs it: once
    return max(1, min(jobs, kernels // _KERNELS_PER_SHARD))


def _merged(parts: List[FileResult]) -> FileResult:
    """One file's result from its shards' (each reported the file's own diagnostics once)."""
    if len(parts) == 1:
        return parts[0]
    merged = FileResult(path=parts[0].path)
    failed = [p for p in parts if any(f.code == "KL901" for f in p.diagnostics)]
    if failed:  # a shard that timed out or crashed: the file is not checked, as for one worker
        merged.diagnostics = list(failed[0].diagnostics)
        return merged
    for part in parts:
        merged.kernels.extend(part.kernels)
        merged.diagnostics.extend(part.diagnostics)
        merged.reused.extend(part.reused)
        merged.import_seconds = max(merged.import_seconds, part.import_seconds)
    merged.dependencies = sorted({d for part in parts for d in part.dependencies})
    merged.kernels.sort(key=lambda k: (k.info.line, k.info.signature))
    return merged
