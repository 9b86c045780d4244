"""A rewrite is written only after it parses and the producer's backend compiles it.

LLVM does not always report a broken module as an error: a module with debug info that
fails the verifier makes its parser call ``report_fatal_error`` ("Broken module found,
compilation aborted!"), which aborts the process. llvmlite's parsing and code generation
therefore run in a forked child: a broken rewrite ends the child, and the rewrite is refused
with LLVM's own words; the run (``kernlint rewrite``, ``@no_hostcall(fix=True)`` in the
user's program) goes on.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import signal
import tempfile
from typing import Any, Callable, Dict, List, Sequence, Tuple


class VerificationError(Exception):
    pass


def isolated(what: str, function: Callable[..., Any], *args: Any) -> Any:
    """``function(*args)`` in a forked child, its result sent back pickled. A
    ``VerificationError`` (or any exception) there is raised here as a VerificationError; a
    child that dies (LLVM's fatal errors abort) is one too, with what it printed."""
    with tempfile.TemporaryFile() as errors:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns into the caller's code
            os.close(read)
            os.dup2(errors.fileno(), 2)
            faulthandler.disable()  # a crash here is reported by the parent, in one line
            try:
                outcome = ("ok", function(*args))
            except VerificationError as exc:
                outcome = ("refused", str(exc))
            except BaseException as exc:  # noqa: BLE001 - everything goes back to the parent
                outcome = ("refused", f"{what} failed: {type(exc).__name__}: {exc}")
            try:
                with os.fdopen(write, "wb") as out:
                    pickle.dump(outcome, out)
            finally:
                os._exit(0)
        os.close(write)
        with os.fdopen(read, "rb") as inp:
            data = inp.read()
        _, status = os.waitpid(pid, 0)
        if data:
            kind, value = pickle.loads(data)
            if kind == "ok":
                return value
            raise VerificationError(value)
        errors.seek(0)
        said = [line.strip() for line in errors.read().decode(errors="replace").splitlines() if line.strip()]
        how = (f"killed by {signal.Signals(os.WTERMSIG(status)).name}" if os.WIFSIGNALED(status)
               else f"exit status {os.WEXITSTATUS(status)}")
        detail = "; ".join(said[-4:]) or "no message"
        raise VerificationError(f"{what}: LLVM stopped ({how}): {detail}")


def _parse_each(texts: Sequence[str]) -> None:
    from llvmlite import binding as llvm

    for number, text in enumerate(texts):
        try:
            module = llvm.parse_assembly(text)
            module.verify()
        except RuntimeError as exc:
            raise VerificationError(f"module {number} does not parse: {str(exc).strip()}") from None


def _parse(texts: Sequence[str]) -> None:
    isolated("parsing the rewritten modules", _parse_each, list(texts))


def nvvm_ptx(texts: Sequence[str], cc: Tuple[int, int], options: Dict) -> str:
    """Compile numba-cuda modules with NVVM, as numba-cuda does at launch."""
    from numba.cuda.cudadrv import nvrtc, nvvm

    from ..compile.toolchain import find_nvvm, say_once_nvvm_missing

    if not find_nvvm().found:
        say_once_nvvm_missing()
        raise VerificationError("no usable NVVM to compile with (the note above says what to install)")
    opts = {key: value for key, value in options.items()}
    opts["arch"] = nvrtc.get_arch_option(*cc)
    try:
        ptx = nvvm.compile_ir(list(texts), **opts)
    except Exception as exc:  # noqa: BLE001 - NVVM reports errors as NvvmError with its log
        raise VerificationError(f"NVVM rejected it: {str(exc).strip()[:500]}") from None
    text = ptx.decode().strip("\x00").strip() + "\n"
    # NVVM leaves intrinsics it does not know as external calls that no linker resolves
    unresolved = [line.split()[-1] for line in text.splitlines()
                  if line.startswith(".extern .func") and "llvm." in line]
    if unresolved:
        raise VerificationError(f"NVVM left unresolved intrinsics: {', '.join(unresolved)}")
    return text


def amdgpu_assembly(texts: Sequence[str], cpu: str = "gfx90a") -> str:
    """Compile with llvmlite's AMDGPU backend (in a child process: see the module's note)."""
    return isolated("the AMDGPU backend", _amdgpu_assembly, list(texts), cpu)


def _amdgpu_assembly(texts: Sequence[str], cpu: str) -> str:
    """Assembly, not an object: llvmlite's LLVM has no AMDGPU asm parser, and HIP's inline
    asm would abort an object emission."""
    from llvmlite import binding as llvm

    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    target = llvm.Target.from_triple("amdgcn-amd-amdhsa")
    machine = target.create_target_machine(cpu=cpu, opt=2)
    try:
        linked = llvm.parse_assembly(texts[0])
        for text in texts[1:]:
            linked.link_in(llvm.parse_assembly(text))
        return machine.emit_assembly(linked)
    except RuntimeError as exc:
        raise VerificationError(f"the AMDGPU backend rejected it: {exc}") from None


def verify(texts: List[str], dialect: str, cc: Tuple[int, int], options: Dict) -> str:
    """Parse every module, then compile with the producer's backend; return PTX for NVVM."""
    if dialect == "nvvm":
        _parse(texts)  # llvmlite reads NVVM's typed-pointer dialect; it catches broken edits early
        return nvvm_ptx(texts, cc, options)
    _parse(texts)
    if dialect == "amdgpu":
        amdgpu_assembly(texts)
    return ""
