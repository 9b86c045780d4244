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
           reuse, connection) -> None:
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
                             offload_arch=offload_arch, progress=alive, settings=settings, reuse=reuse)
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
) -> Iterator[FileResult]:
    """Yield one FileResult per path (in completion order). ``reuse`` (a KernelReuse): kernels
    whose findings are cached are not compiled."""
    if not paths:
        return
    context = _context()
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(paths)))
    pending = list(paths)
    running: Dict[object, Tuple[str, object, float]] = {}  # reader -> (path, process, deadline)
    while pending or running:
        while pending and len(running) < jobs:
            path = pending.pop(0)
            reader, writer = context.Pipe(duplex=False)
            process = context.Process(
                target=_child,
                args=(path, arch, (signatures or {}).get(os.path.abspath(path)), runnable, offload_arch, settings,
                      buffers(), reuse, writer),
                daemon=True,
            )
            process.start()
            writer.close()
            running[reader] = (path, process, time.monotonic() + timeout)
        now = time.monotonic()
        next_deadline = min(deadline for _, _, deadline in running.values())
        ready = wait(list(running), timeout=max(0.0, next_deadline - now))
        for reader in ready:
            path, process, _ = running[reader]
            try:
                result = reader.recv()
                if isinstance(result, str) and result == _ALIVE:
                    running[reader] = (path, process, time.monotonic() + timeout)
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
            yield result
        now = time.monotonic()
        for reader in [r for r, (_, _, d) in running.items() if d <= now]:
            path, process, _ = running.pop(reader)
            process.kill()
            process.join()
            reader.close()
            yield FileResult(
                path=os.path.abspath(path),
                diagnostics=[_failure(path, f"importing it or compiling one of its kernels took longer than "
                                            f"{timeout:g} s (--timeout)")],
            )
