"""Hand-written IR in the shapes other producers emit (opaque pointers, real inlinedAt)."""

DEBUG_FOOTER = """
!llvm.dbg.cu = !{!0}
!0 = distinct !DICompileUnit(language: DW_LANG_Julia, file: !1, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "kernels.jl", directory: "/src")
!5 = distinct !DISubprogram(name: "convert_kernel", scope: !1, file: !1, line: 9, unit: !0)
!6 = distinct !DISubprogram(name: "Int64", scope: !1, file: !1, line: 40, unit: !0)
!10 = !DILocation(line: 10, column: 5, scope: !5)
!11 = !DILocation(line: 41, column: 9, scope: !6, inlinedAt: !10)
!12 = !DILocation(line: 12, column: 5, scope: !5)
!13 = !DILocation(line: 13, column: 7, scope: !5)
!llvm.module.flags = !{!100}
!100 = !{i32 2, !"Debug Info Version", i32 3}
"""

JULIA_CHECKED_INT = """
target triple = "amdgcn-amd-amdhsa"

@__malloc_hostcall = external addrspace(1) global ptr

define amdgpu_kernel void @convert_kernel(ptr addrspace(1) %y, ptr addrspace(1) %x) !dbg !5 {
entry:
  %v = load double, ptr addrspace(1) %x, align 8, !dbg !10
  %lo = fcmp oge double %v, 0xC3E0000000000000, !dbg !11
  %hi = fcmp olt double %v, 0x43E0000000000000, !dbg !11
  %inrange = and i1 %lo, %hi, !dbg !11
  %t = call double @llvm.trunc.f64(double %v), !dbg !11
  %exact = fcmp oeq double %t, %v, !dbg !11
  %ok = and i1 %inrange, %exact, !dbg !11
  br i1 %ok, label %pass, label %fail, !dbg !11

fail:                                             ; preds = %entry
  %hc = load ptr, ptr addrspace(1) @__malloc_hostcall, align 8, !dbg !11
  %box = call ptr @gpu_gc_pool_alloc(i64 16), !dbg !11
  store double %v, ptr %box, align 8, !dbg !11
  call void @gpu_report_exception(i64 0), !dbg !11
  call void @gpu_signal_exception(), !dbg !11
  call void @llvm.trap(), !dbg !11
  unreachable

pass:                                             ; preds = %entry
  %r = fptosi double %v to i64, !dbg !12
  store i64 %r, ptr addrspace(1) %y, align 8, !dbg !12
  ret void, !dbg !13
}

declare double @llvm.trunc.f64(double)
declare ptr @gpu_gc_pool_alloc(i64)
declare void @gpu_report_exception(i64)
declare void @gpu_signal_exception()
declare void @llvm.trap()
""" + DEBUG_FOOTER

HIP_ASSERT_AND_HOSTCALL = """
target triple = "amdgcn-amd-amdhsa"

@.str = private unnamed_addr addrspace(4) constant [6 x i8] c"x > 0\\00", align 1

define protected amdgpu_kernel void @convert_kernel(ptr addrspace(1) %0, ptr addrspace(1) %1) !dbg !5 {
  %3 = load double, ptr addrspace(1) %1, align 8, !dbg !10
  %4 = fcmp ogt double %3, 0.000000e+00, !dbg !10
  br i1 %4, label %6, label %5, !dbg !10

5:                                                ; preds = %2
  tail call void @__assert_fail(ptr addrspace(4) @.str, ptr addrspace(4) @.str, i32 10, ptr addrspace(4) @.str), !dbg !10
  unreachable, !dbg !10

6:                                                ; preds = %2
  %7 = tail call <2 x i64> @__ockl_hostcall_internal(ptr null, i32 1, i64 0, i64 0, i64 0, i64 0, i64 0, i64 0, i64 0, i64 0), !dbg !12
  switch i32 0, label %9 [
    i32 1, label %8
    i32 2, label %8
  ], !dbg !13

8:
  br label %9, !dbg !13

9:
  ret void, !dbg !13
}

declare void @__assert_fail(ptr addrspace(4), ptr addrspace(4), i32, ptr addrspace(4))
declare <2 x i64> @__ockl_hostcall_internal(ptr, i32, i64, i64, i64, i64, i64, i64, i64, i64)
""" + DEBUG_FOOTER
