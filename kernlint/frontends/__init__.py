"""Frontends: find kernels in a source file and compile them to LLVM IR."""

from __future__ import annotations

import os
from typing import Dict, List, Optional

SOURCE_SUFFIXES = (".py", ".ll", ".bc")


def compile_any(path: str, arch: str = "sm_90", extra_signatures: Optional[Dict[str, List[str]]] = None,
                runnable: bool = False):
    """Dispatch on the file's suffix (in a worker process)."""
    suffix = os.path.splitext(path)[1].lower()
    if suffix in (".ll", ".bc"):
        from .irfile import compile_ir_file

        return compile_ir_file(path)
    from .numba_cuda import compile_file

    return compile_file(path, arch=arch, extra_signatures=extra_signatures, runnable=runnable)
