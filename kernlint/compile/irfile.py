"""LLVM IR from any producer: ``.ll`` text and ``.bc`` bitcode (numba-cuda dumps, numba-hip's
``compile_llvm_ir``, CUDA.jl/AMDGPU.jl ``@device_code_llvm``, hipcc ``-emit-llvm``).

llvmlite parses and verifies the input (a file it rejects is KL904, with llvmlite's line
and column). Text is analysed as its producer wrote it, so a rewrite edits the user's own
lines; bitcode is analysed as llvmlite prints it. The kernels are the functions marked as
entry points (``amdgpu_kernel``, ``ptx_kernel``, ``spir_kernel``, NVVM's ``"kernel"``
annotation); a module with none has every externally visible definition checked.
"""

from __future__ import annotations

import contextlib
import os
import re
from typing import List, Optional, Tuple

from ..findings import Finding, KernelInfo, invalid_ir
from ..source import read_bytes
from ..ir.reader import IRSyntaxError, Module, parse_module
from .numba_cuda import CompiledKernel, FileResult

IR_SUFFIXES = (".ll", ".bc")
_KERNEL_CC = re.compile(r"^define\b[^@]*\b(amdgpu_kernel|ptx_kernel|spir_kernel)\b")
_LOCAL_LINKAGE = re.compile(r"^define\s+(internal|private|linkonce|linkonce_odr|available_externally)\b")
_NVVM_KERNEL = re.compile(r'(?:ptr|\*)\s+@("?[^",\s]+"?)\s*,\s*!"kernel"')
_LLVM_ERROR = re.compile(r"<string>:(\d+):(\d+):\s*error:\s*(.*)")


def invalid(path: str, reason: str, line: int = 1, column: int = 1) -> Finding:
    return invalid_ir(path, line, column, reason)


@contextlib.contextmanager
def _quiet_stderr():
    """LLVM prints warnings (such as dropped debug info) straight to file descriptor 2."""
    try:
        saved = os.dup(2)
    except OSError:
        yield
        return
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)


def read_ir(path: str) -> Tuple[Optional[str], Optional[Finding]]:
    """The module's text, validated by llvmlite; or a KL904 diagnostic."""
    from llvmlite import binding as llvm

    try:
        data = read_bytes(path)
    except OSError as exc:
        return None, invalid(path, f"cannot read: {exc.strerror or exc}")
    if not data.strip():
        return None, invalid(path, "empty file")
    if path.endswith(".bc") or data[:4] in (b"BC\xc0\xde", b"\xde\xc0\x17\x0b"):
        try:
            with _quiet_stderr():
                module = llvm.parse_bitcode(data)
                module.verify()
        except RuntimeError as exc:
            return None, invalid(path, f"bitcode does not parse: {_one_line(exc)}")
        return str(module), None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        return None, invalid(path, "not UTF-8 text (binary data?)", line)
    try:
        with _quiet_stderr():
            llvm.parse_assembly(text).verify()
    except RuntimeError as exc:
        match = _LLVM_ERROR.search(str(exc))
        if match:
            return None, invalid(path, match.group(3).strip(), int(match.group(1)), int(match.group(2)))
        return None, invalid(path, _one_line(exc))
    return text, None


def _one_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    lines = [line for line in lines if not line.lower().startswith("llvm ir parsing error")] or lines
    return (lines[0] if lines else type(exc).__name__)[:300]


def entry_points(module: Module) -> List[str]:
    marked = [name for name, f in module.functions.items() if _KERNEL_CC.match(f.header)]
    for match in _NVVM_KERNEL.finditer(module.text):
        name = match.group(1).strip('"')
        if name in module.functions and name not in marked:
            marked.append(name)
    if marked:
        return marked
    return [name for name, f in module.functions.items() if not _LOCAL_LINKAGE.match(f.header) and f.blocks]


def compile_ir_file(path: str) -> FileResult:
    path = os.path.abspath(path)
    result = FileResult(path=path)
    text, problem = read_ir(path)
    if problem is not None:
        result.diagnostics.append(problem)
        return result
    try:
        module = parse_module(text)
    except IRSyntaxError as exc:
        result.diagnostics.append(invalid(path, str(exc), exc.lineno + 1))
        return result
    entries = entry_points(module)
    from ..demangle import demangle_all

    readable = demangle_all(entries)  # a HIP kernel's C++ name and parameter types, not `_Z...`
    for entry in entries:
        function = module.functions[entry]
        located = module.subprogram_location(function.dbg)
        shown = readable[entry]
        base, parenthesis, parameters = shown.partition("(")
        name = located[2] if located and located[2] else (base if parenthesis else entry)
        signature = parameters[:-1] if parenthesis and shown.endswith(")") else (entry if name != entry else "")
        info = KernelInfo(name=name, path=path, line=function.lineno + 1, column=1, kind="kernel",
                          signature=signature)
        result.kernels.append(CompiledKernel(info=info, modules=[text], entry=entry, compile_seconds=0.0))
    return result
