"""What a worker process does with one file: compile its kernels and send the result over a
connection, with a message after each finished step. The same for a process of this run's
forkserver (``worker``) and one of the worker server that outlives runs (``daemon``)."""

from __future__ import annotations

import os
import signal
from typing import Callable, Dict, List, Optional

from ..compile.numba_cuda import FileResult
from ..findings import internal_error
from ..python.project import construct_line

ALIVE = "alive"  # sent after each step; the result comes last
STARTING = "starting"  # (STARTING, (qualname, line, column), size) before a kernel compiles
PASS = "pass"  # (PASS, "pass [function]") as each of numba-cuda's compiler passes starts
DONE = "done"  # (DONE, (qualname, line, column), FileResult) as each kernel is done: what it gave


def compile_one_file(path: str, arch: str, signatures, runnable: bool, offload_arch: str, settings, buffered,
                     reuse, shard, skip, connection) -> None:
    os.environ["NUMBA_ENABLE_CUDASIM"] = "0"
    # Ctrl-C reaches the terminal's whole process group: the run that started this worker ends
    # it, and a traceback from here would only bury the run's own "interrupted"
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if buffered:  # buffers stand for files on disk (an editor's, or a fix being verified)
        import linecache

        from ..source import use_buffer

        for name, data in buffered.items():
            use_buffer(name, data)
            text = data.decode("utf-8", "replace")
            linecache.cache[name] = (len(text), None, text.splitlines(True), name)

    def alive() -> None:  # each finished step (the import, one kernel) restarts the parent's clock
        connection.send(ALIVE)

    def starting(place, size) -> None:  # the kernel to blame if the clock runs out, and its allowance
        connection.send((STARTING, place, size))

    def passing(name) -> None:  # a compile that moves from pass to pass is not stuck
        connection.send((PASS, name))

    def finished(place, part) -> None:  # kept by the run: a worker stopped later is not asked again
        connection.send((DONE, place, part))

    try:
        result = compile_any(path, arch=arch, extra_signatures=signatures, runnable=runnable,
                             offload_arch=offload_arch, progress=alive, settings=settings, reuse=reuse,
                             shard=shard, starting=starting, skip=skip, passing=passing,
                             finished=finished)
    except BaseException as exc:  # noqa: BLE001 - report, never hang the parent
        if getattr(settings, "debug", False):
            import traceback

            traceback.print_exc()
        result = FileResult(path=os.path.abspath(path))
        result.diagnostics.append(internal_error(os.path.abspath(path), construct_line(exc), 1,
                                                 "compiling the file's kernels", exc))
    try:
        connection.send(result)
        connection.close()
    except OSError:
        pass  # the run went away (interrupted, or it killed this worker's file past its time limit)


def compile_any(path: str, arch: str = "sm_90", extra_signatures: Optional[Dict[str, List[str]]] = None,
                runnable: bool = False, offload_arch: str = "gfx90a",
                progress: Optional[Callable[[], None]] = None, settings=None, reuse=None, shard=(0, 1),
                starting: Optional[Callable[[tuple, int], None]] = None, skip=(),
                passing: Optional[Callable[[str], None]] = None, finished=None):
    """Dispatch on the file's suffix (in a worker process); ``progress`` is called after
    each step that may take long (an import, one kernel's compilation), ``starting`` with a
    Python kernel's (qualname, line, column) and size before it compiles, ``passing`` with
    each numba-cuda pass as it starts, ``finished`` with each kernel's place and what it gave
    (then left out of the result); kernels in ``skip`` (those places) are not compiled."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix == ".hip":
        from ..hip.kernels import compile_hip_file

        return compile_hip_file(path, offload_arch)
    if suffix in (".ll", ".bc"):
        from ..compile.irfile import compile_ir_file

        return compile_ir_file(path)
    from ..compile.numba_cuda import compile_file

    return compile_file(path, arch=arch, extra_signatures=extra_signatures, runnable=runnable, progress=progress,
                        settings=settings, reuse=reuse, shard=shard, starting=starting, skip=skip,
                        passing=passing, finished=finished)
