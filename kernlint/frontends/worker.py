"""Compile user files in isolated child processes, with a time limit each.

Importing user code runs it: it may hang, call ``sys.exit``, crash the
interpreter or change numba's global configuration. Each file is therefore
imported in its own process, forked from a server that has imported and warmed
up numba-cuda once (``multiprocessing``'s forkserver with a preload), so a file
costs a fork, not a numba start-up. The CLI's own process never imports numba.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from multiprocessing.connection import wait
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from ..findings import Finding, internal_error, unreadable_file
from ..source import buffers
from .numba_cuda import FileResult
from .project import construct_line

_PRELOAD = "kernlint.frontends._preload"
_ALIVE = "alive"  # sent after each step; the result comes last


def _child(path: str, arch: str, signatures, runnable: bool, offload_arch: str, settings, buffered,
           reuse, shard, connection) -> None:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
    from . import compile_any

    if buffered:  # buffers stand for files on disk (an editor's, or a fix being verified)
        import linecache

        from ..source import use_buffer

        for name, data in buffered.items():
            use_buffer(name, data)
            text = data.decode("utf-8", "replace")
            linecache.cache[name] = (len(text), None, text.splitlines(True), name)

    def alive() -> None:  # each finished step (the import, one kernel) restarts the parent's clock
        connection.send(_ALIVE)

    try:
        result = compile_any(path, arch=arch, extra_signatures=signatures, runnable=runnable,
                             offload_arch=offload_arch, progress=alive, settings=settings, reuse=reuse,
                             shard=shard)
    except BaseException as exc:  # noqa: BLE001 - report, never hang the parent
        if getattr(settings, "debug", False):
            import traceback

            traceback.print_exc()
        result = FileResult(path=os.path.abspath(path))
        result.diagnostics.append(internal_error(os.path.abspath(path), construct_line(exc), 1,
                                                 "compiling the file's kernels", exc))
    connection.send(result)
    connection.close()


def _failure(path: str, reason: str) -> Finding:
    return unreadable_file(os.path.abspath(path), 1, 1, reason)


def _context():
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([_PRELOAD])
    return context


def start_early() -> None:
    """Start the worker server (numba-cuda's import and warm-up, about a second) now, while
    the caller still reads the project; ``stop_unused`` ends it if no file needed it."""
    from multiprocessing import forkserver

    _context()
    forkserver.ensure_running()


def stop_unused() -> None:
    """End a server ``start_early`` started that forked nothing: it holds the caller's
    standard streams, and a caller reading them would wait for its import to finish."""
    import signal
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
    context = _context()
    jobs = max(1, jobs or os.cpu_count() or 1)
    tasks: List[Tuple[str, Tuple[int, int]]] = []
    for path in paths:
        shards = _shards(kernel_counts.get(os.path.abspath(path), 0) if kernel_counts else 0, jobs, settings)
        tasks.extend((path, (k, shards)) for k in range(shards))
    # the largest files first: the many-kernel file's shards do not wait behind small files
    tasks.sort(key=lambda task: -(kernel_counts or {}).get(os.path.abspath(task[0]), 0) / task[1][1])
    waiting: Dict[str, List[FileResult]] = {}
    running: Dict[object, Tuple[str, Tuple[int, int], object, float]] = {}  # reader -> (path, shard, process, deadline)
    while tasks or running:
        while tasks and len(running) < jobs:
            path, shard = tasks.pop(0)
            reader, writer = context.Pipe(duplex=False)
            process = context.Process(
                target=_child,
                args=(path, arch, (signatures or {}).get(os.path.abspath(path)), runnable, offload_arch, settings,
                      buffers(), reuse, shard, writer),
                daemon=True,
            )
            process.start()
            writer.close()
            running[reader] = (path, shard, process, time.monotonic() + timeout)
        now = time.monotonic()
        next_deadline = min(deadline for _, _, _, deadline in running.values())
        ready = wait(list(running), timeout=max(0.0, next_deadline - now))
        finished: List[Tuple[str, Tuple[int, int], FileResult]] = []
        for reader in ready:
            path, shard, process, _ = running[reader]
            try:
                result = reader.recv()
                if isinstance(result, str) and result == _ALIVE:
                    running[reader] = (path, shard, process, time.monotonic() + timeout)
                    continue
            except (EOFError, OSError):
                process.join(5)
                code = process.exitcode
                reason = (
                    f"the interpreter crashed while importing it (signal {-code})"
                    if code is not None and code < 0
                    else f"the import ended the process (exit code {code})"
                )
                result = FileResult(path=os.path.abspath(path), diagnostics=[_failure(path, reason)])
            del running[reader]
            reader.close()
            process.join(5)
            if process.is_alive():
                process.kill()
            finished.append((path, shard, result))
        now = time.monotonic()
        for reader in [r for r, (_, _, _, d) in running.items() if d <= now]:
            path, shard, process, _ = running.pop(reader)
            process.kill()
            process.join()
            reader.close()
            finished.append((path, shard, FileResult(
                path=os.path.abspath(path),
                diagnostics=[_failure(path, f"importing it or compiling one of its kernels took longer than "
                                            f"{timeout:g} s (--timeout)")],
            )))
        for path, (_, shards), result in finished:
            parts = waiting.setdefault(path, [])
            parts.append(result)
            if len(parts) == shards:
                del waiting[path]
                yield _merged(parts)


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
    merged.standins = sorted({s for part in parts for s in part.standins})
    merged.kernels.sort(key=lambda k: (k.info.line, k.info.signature))
    return merged
