"""A rewrite is written only after it parses and the producer's backend compiles it."""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple


class VerificationError(Exception):
    pass


def _parse(texts: Sequence[str]) -> None:
    from llvmlite import binding as llvm

    for number, text in enumerate(texts):
        try:
            module = llvm.parse_assembly(text)
            module.verify()
        except RuntimeError as exc:
            raise VerificationError(f"module {number} does not parse: {str(exc).strip()}") from None


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
    """Compile with llvmlite's AMDGPU backend. Assembly, not an object: llvmlite's LLVM has
    no AMDGPU asm parser, and HIP's inline asm would abort an object emission."""
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
