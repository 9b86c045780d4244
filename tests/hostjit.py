"""Run numba-cuda's NVPTX IR on the CPU through llvmlite's JIT (MCJIT).

The IR is retargeted by text: the host triple and data layout replace NVPTX's, the
special registers (threadIdx...) become reads of globals the test sets, ``vprintf``
counts its calls in a global (a memory effect the tests compare), and the libdevice
functions numba calls get host definitions with the same semantics.
"""

from __future__ import annotations

import ctypes
import re
from typing import Dict, List, Sequence

from llvmlite import binding as llvm

llvm.initialize_native_target()
llvm.initialize_native_asmprinter()

_SREG = re.compile(r'@"?llvm\.nvvm\.read\.ptx\.sreg\.(\w+)\.(\w)"?')

# libdevice functions numba-cuda calls, defined with the host's LLVM intrinsics
_LIBDEVICE = {
    "__nv_floor": "define double @__nv_floor(double %x) {\n  %r = call double @llvm.floor.f64(double %x)\n  ret double %r\n}",
    "__nv_floorf": "define float @__nv_floorf(float %x) {\n  %r = call float @llvm.floor.f32(float %x)\n  ret float %r\n}",
    "__nv_trunc": "define double @__nv_trunc(double %x) {\n  %r = call double @llvm.trunc.f64(double %x)\n  ret double %r\n}",
    "__nv_truncf": "define float @__nv_truncf(float %x) {\n  %r = call float @llvm.trunc.f32(float %x)\n  ret float %r\n}",
    "__nv_fabs": "define double @__nv_fabs(double %x) {\n  %r = call double @llvm.fabs.f64(double %x)\n  ret double %r\n}",
    "__nv_fabsf": "define float @__nv_fabsf(float %x) {\n  %r = call float @llvm.fabs.f32(float %x)\n  ret float %r\n}",
    "__nv_isnand": "define i32 @__nv_isnand(double %x) {\n  %c = fcmp uno double %x, %x\n  %r = zext i1 %c to i32\n  ret i32 %r\n}",
    "__nv_isnanf": "define i32 @__nv_isnanf(float %x) {\n  %c = fcmp uno float %x, %x\n  %r = zext i1 %c to i32\n  ret i32 %r\n}",
}
for _src, _ty in (("double", "f64"), ("float", "f32")):
    for _kind, _int, _op in (("int", "i32", "fptosi"), ("uint", "i32", "fptoui"),
                             ("ll", "i64", "fptosi"), ("ull", "i64", "fptoui")):
        _name = f"__nv_{_src}2{_kind}_rz"
        _LIBDEVICE[_name] = (
            f"define {_int} @{_name}({_src} %x) {{\n"
            f"  %r = call {_int} @llvm.{_op}.sat.{_int}.{_ty}({_src} %x)\n  ret {_int} %r\n}}"
        )


def host_text(text: str) -> str:
    machine = llvm.Target.from_default_triple().create_target_machine()
    text = re.sub(r'^target triple = ".*"$', f'target triple = "{llvm.get_default_triple()}"', text, flags=re.M)
    text = re.sub(r'^target datalayout = ".*"$', f'target datalayout = "{machine.target_data}"', text, flags=re.M)
    text = _SREG.sub(lambda m: f'@"kernlint_sreg_{m.group(1)}_{m.group(2)}"', text)
    # numba's print puts format strings in the constant address space: flatten it for the host
    text = text.replace(" addrspace(4)", "").replace("addrspacecast", "bitcast")
    for name, body in _LIBDEVICE.items():
        text = re.sub(rf'^declare [^@]*@"?{name}"?\(.*\)\s*$', body, text, flags=re.M)
    return text


_SUPPORT = """
@"kernlint_vprintf_calls" = global i64 0
define i32 @"vprintf"(i8* %f, i8* %a) {
  %n = load i64, i64* @"kernlint_vprintf_calls"
  %m = add i64 %n, 1
  store i64 %m, i64* @"kernlint_vprintf_calls"
  ret i32 0
}
""" + "".join(
    f'@"kernlint_sreg_value_{reg}_{axis}" = global i32 {default}\n'
    f'define i32 @"kernlint_sreg_{reg}_{axis}"() {{\n'
    f'  %v = load i32, i32* @"kernlint_sreg_value_{reg}_{axis}"\n  ret i32 %v\n}}\n'
    for reg, default in (("tid", 0), ("ntid", 1), ("ctaid", 0), ("nctaid", 1))
    for axis in "xyz"
)


class HostModule:
    """All modules of one compilation, linked and JIT-compiled for the host."""

    def __init__(self, texts: Sequence[str]):
        machine = llvm.Target.from_default_triple().create_target_machine()
        linked = None
        for text in list(texts):
            module = llvm.parse_assembly(host_text(text))
            if linked is None:
                linked = module
            else:
                linked.link_in(module)
        support = llvm.parse_assembly(
            f'target triple = "{llvm.get_default_triple()}"\n'
            f'target datalayout = "{machine.target_data}"\n' + _SUPPORT
        )
        linked.link_in(support)
        linked.verify()
        self.engine = llvm.create_mcjit_compiler(linked, machine)
        self.engine.finalize_object()

    def function(self, name: str, restype, *argtypes):
        return ctypes.CFUNCTYPE(restype, *argtypes)(self.engine.get_function_address(name))

    def global_int(self, name: str, ctype=ctypes.c_int64):
        return ctype.from_address(self.engine.get_global_value_address(name))

    def set_thread(self, tid: int, ntid: int = 1, ctaid: int = 0, nctaid: int = 1) -> None:
        for reg, value in (("tid", tid), ("ntid", ntid), ("ctaid", ctaid), ("nctaid", nctaid)):
            self.global_int(f"kernlint_sreg_value_{reg}_x", ctypes.c_int32).value = value

    @property
    def vprintf_calls(self) -> int:
        return self.global_int("kernlint_vprintf_calls").value


def array_args(array) -> List:
    """numba's expanded argument list for a 1-D C-contiguous numpy array."""
    return [
        ctypes.c_void_p(0), ctypes.c_void_p(0), ctypes.c_int64(array.size),
        ctypes.c_int64(array.itemsize), ctypes.c_void_p(array.ctypes.data),
        ctypes.c_int64(array.shape[0]), ctypes.c_int64(array.strides[0]),
    ]


ARRAY_ARGTYPES = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64,
                  ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64]

CTYPE_OF: Dict[str, type] = {
    "int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32, "int64": ctypes.c_int64,
    "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64,
}
