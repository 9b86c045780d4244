"""Frontends: find kernels in a source file and compile them to LLVM IR."""

from __future__ import annotations

import os
from typing import Callable, Dict, List, Optional

SUFFIXES = {"cuda": (".py",), "rocm": (".hip", ".ll", ".bc")}
SOURCE_SUFFIXES = (".py", ".hip", ".ll", ".bc")


def suffixes(target: str = "auto"):
    """The sources a target covers: numba.cuda Python, or ROCm's HIP and IR; auto: all."""
    return SUFFIXES.get(target, SOURCE_SUFFIXES)


def compile_any(path: str, arch: str = "sm_90", extra_signatures: Optional[Dict[str, List[str]]] = None,
                runnable: bool = False, offload_arch: str = "gfx90a",
                progress: Optional[Callable[[], None]] = None, settings=None, reuse=None, shard=(0, 1),
                starting: Optional[Callable[[tuple], None]] = None, skip=()):
    """Dispatch on the file's suffix (in a worker process); ``progress`` is called after
    each step that may take long (an import, one kernel's compilation), ``starting`` with a
    Python kernel's (qualname, line, column) before it compiles; kernels in ``skip`` (those
    places) are not compiled."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix == ".hip":
        from .hip import compile_hip_file

        return compile_hip_file(path, offload_arch)
    if suffix in (".ll", ".bc"):
        from .irfile import compile_ir_file

        return compile_ir_file(path)
    from .numba_cuda import compile_file

    return compile_file(path, arch=arch, extra_signatures=extra_signatures, runnable=runnable, progress=progress,
                        settings=settings, reuse=reuse, shard=shard, starting=starting, skip=skip)
