"""Rules over IR shapes that numba.cuda kernels never produce (Julia, HIP)."""
from irtext import HIP_ASSERT_AND_HOSTCALL, JULIA_CHECKED_INT

from kernlint.engine import analyse_kernel
from kernlint.findings import KernelInfo
from kernlint.compile.numba_cuda import CompiledKernel


def findings(text, entry="convert_kernel"):
    info = KernelInfo(name=entry, path="/src/kernels.jl", line=9, column=1)
    compiled = CompiledKernel(info=info, modules=[text], entry=entry, compile_seconds=0.0)
    return sorted({(f.code, f.line) for f in analyse_kernel(compiled, source=None)})


def test_julia_int_boxes_an_inexact_error_through_a_hostcall():
    # Int(x): range check against ±2^63, exactness through llvm.trunc, InexactError boxed
    assert findings(JULIA_CHECKED_INT) == [("KL101", 12), ("KL201", 41), ("KL302", 41)]


def test_julia_finding_inside_inlined_code_carries_inlined_at():
    info = KernelInfo(name="convert_kernel", path="/src/kernels.jl", line=9, column=1)
    compiled = CompiledKernel(info, [JULIA_CHECKED_INT], "convert_kernel", 0.0)
    box = next(f for f in analyse_kernel(compiled, None) if f.code == "KL201")
    assert (box.path, box.line, box.column) == ("/src/kernels.jl", 41, 9)
    assert [(f.line, f.function) for f in box.inlined_at] == [(10, "convert_kernel")]


def test_hip_assert_and_hostcall():
    assert findings(HIP_ASSERT_AND_HOSTCALL) == [("KL302", 12), ("KL303", 10)]


def test_allocations_through_hostcalls_are_classified_with_the_other_runtime_names():
    from kernlint.analysis import runtime

    assert runtime.site_kind("load", None, "", ["__malloc_hostcall"]) is runtime.Kind.ALLOC
    assert runtime.site_kind("load", None, "", ["__free_hostcall"]) is runtime.Kind.FREE
    assert runtime.site_kind("load", None, "", ["__print_hostcall"]) is runtime.Kind.HOSTCALL
    devmem = "ptr %buffer, i32 3, i64 64, i64 0, i64 0, i64 0, i64 0, i64 0, i64 0"
    assert runtime.site_kind("call", "__ockl_hostcall_internal", devmem) is runtime.Kind.ALLOC
    printf = devmem.replace("i32 3", "i32 2")
    assert runtime.site_kind("call", "__ockl_hostcall_internal", printf) is runtime.Kind.HOSTCALL
