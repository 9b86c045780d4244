"""HIP C++ kernels -> AMDGPU IR through the ROCm toolchain (Debian's hipcc, ROCm 5.2).

    HIP_PLATFORM=amd hipcc -x hip --offload-arch=gfx90a --cuda-device-only -emit-llvm -c -O2 -g

hipcc links ockl/ocml in and inlines them, so ``printf`` reaches the IR as
``__ockl_hostcall_internal`` calls, ``malloc`` as ``__ockl_dm_alloc`` and ``assert`` as
``__assert_fail``; ``-g`` keeps the HIP source lines through that inlining. The bitcode
is read like any other IR file (``irfile``). Without ``HIP_PLATFORM=amd`` hipcc would
pick nvcc.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import time
from typing import List

from ..compile.irfile import compile_ir_file
from ..compile.numba_cuda import FileResult
from ..compile.toolchain import hip_command, hipcc, run_hipcc
from ..findings import Finding, file_compile_failed, unreadable_file
from ..ir.reader import parse_module

HIP_SUFFIXES = (".hip",)
_CLANG_ERROR = re.compile(r"^(?P<path>[^:\n]+):(?P<line>\d+):(?P<column>\d+): (?:fatal )?error: (?P<message>.+)$", re.M)


def command(path: str, output: str, offload_arch: str) -> List[str]:
    return hip_command(path, output, offload_arch, "--cuda-device-only", "-O2")


def compile_hip_file(path: str, offload_arch: str = "gfx90a", timeout: float = 120.0) -> FileResult:
    """The device code's kernels (for the IR rules) and the host code's facts (for the host
    rules), each compiled by hipcc; either may fail without losing the other."""
    from .host_reader import compile_host, read_host

    path = os.path.abspath(path)
    if hipcc() is None:
        return FileResult(path=path, diagnostics=[unreadable_file(
            path, 1, 1, "hipcc not found: install Debian's hipcc, rocm-device-libs and "
                        "libamdhip64-dev (README: ROCm)")])
    result = _compile_device(path, offload_arch, timeout)
    module, problem, seconds = compile_host(path, offload_arch, timeout)
    result.host_seconds = seconds
    if module is not None:
        result.host_facts = read_host(module, path)
    elif not any(d.code == "KL902" for d in result.diagnostics):  # the same error is reported once
        finding = _compile_error(path, problem)
        finding.message = finding.message.replace("HIP file failed to compile",
                                                  "HIP host code failed to compile (host rules not run)")
        result.diagnostics.append(finding)
    return result


def _compile_device(path: str, offload_arch: str, timeout: float) -> FileResult:
    with tempfile.TemporaryDirectory(prefix="kernlint-hip-") as scratch:
        output = os.path.join(scratch, "kernels.bc")
        started = time.perf_counter()
        try:
            done = run_hipcc(command(path, output, offload_arch), path, scratch, timeout)
        except subprocess.TimeoutExpired:
            return FileResult(path=path, diagnostics=[file_compile_failed(
                path, 1, 1, f"hipcc took longer than {timeout:g} s")])
        if done.returncode != 0:
            return FileResult(path=path, diagnostics=[_compile_error(path, done.stderr)])
        result = compile_ir_file(output)
        seconds = time.perf_counter() - started
    result.path = path
    for compiled in result.kernels:  # hipcc compiles the file at once: share its time out
        compiled.compile_seconds = seconds / len(result.kernels)
    module = parse_module(result.kernels[0].modules[0]) if result.kernels else None
    for compiled in result.kernels:
        # the kernel's own line comes from its DISubprogram (the .bc has no text lines of its own)
        function = module.functions.get(compiled.entry)
        where = module.subprogram_location(function.dbg) if function is not None else None
        compiled.info.path, compiled.info.line = (where[0], where[1]) if where and where[0] else (path, 1)
    for diagnostic in result.diagnostics:
        diagnostic.path = path
    return result


def _compile_error(path: str, stderr: str) -> Finding:
    for match in _CLANG_ERROR.finditer(stderr):
        if os.path.abspath(match.group("path")) == path:
            return file_compile_failed(path, int(match.group("line")), int(match.group("column")),
                                       f"hipcc: {match.group('message').strip()}")
    first = next((line for line in stderr.splitlines() if "error" in line), stderr.strip()[:200])
    return file_compile_failed(path, 1, 1, f"hipcc: {first.strip()[:300]}")
