"""The conditions that keep KL101 and its fixes safe, each pinned by a test that fails when the
condition is dropped or bent (found by mutation testing: benchmarks/mutation.py).

Most kernels here are hand-written IR with one guard in front of one conversion: the guard's
comparisons are exactly the ones under test, and nothing needs compiling.
"""

import math
import os

import pytest
from conftest import FIXTURES as ROOT_FIXTURES
from irtext import DEBUG_FOOTER

from kernlint.analysis import conversions
from kernlint.engine import analyse_kernel
from kernlint.findings import KernelInfo
from kernlint.compile.numba_cuda import CompiledKernel

# one guard (`%bad` true: the error side) in front of one conversion of the loaded %v
GUARDED = """
target triple = "amdgcn-amd-amdhsa"

define amdgpu_kernel void @convert_kernel(ptr addrspace(1) %y, ptr addrspace(1) %x, i64 %i, double %n) !dbg !5 {
entry:
  %v = load double, ptr addrspace(1) %x, align 8, !dbg !10
{tests}
  br i1 %bad, label %fail, label %pass, !dbg !11

fail:
  call void @llvm.trap(), !dbg !11
  unreachable

pass:
  %r = {conversion} double %v to {type}, !dbg !12
  store {type} %r, ptr addrspace(1) %y, align 8, !dbg !12
  ret void, !dbg !13
}

declare void @llvm.trap()
declare double @llvm.trunc.f64(double)
declare double @llvm.floor.f64(double)
declare i1 @llvm.is.fpclass.f64(double, i32)
declare i32 @__nv_isnand(double)
declare i32 @__nv_isinfd(double)
declare i32 @__nv_isfinited(double)
""" + DEBUG_FOOTER


def kl101(tests, conversion="fptosi", type="i64"):
    """The KL101 finding on the conversion (line 12), or None: ``tests`` computes ``%bad``."""
    text = GUARDED.replace("{tests}", tests).replace("{conversion}", conversion).replace("{type}", type)
    info = KernelInfo(name="convert_kernel", path="/src/kernels.jl", line=9, column=1)
    compiled = CompiledKernel(info=info, modules=[text], entry="convert_kernel", compile_seconds=0.0)
    found = [f for f in analyse_kernel(compiled, source=None) if f.code == "KL101"]
    assert all(f.line == 12 for f in found)
    return found[0] if found else None


def bad(test):
    return f"  %bad = {test}, !dbg !11"


# -- the safe range -----------------------------------------------------------------------------


def test_safe_range_is_the_targets_limits_less_the_rounding_slack_people_write():
    assert conversions.safe_range("int64") == (-(2.0 ** 63 - 2.0 ** 58), 2.0 ** 63 - 2.0 ** 58)
    assert conversions.safe_range("int32") == (-(2.0 ** 31 - 2.0 ** 26), 2.0 ** 31 - 2.0 ** 26)
    assert conversions.safe_range("uint32") == (0.0, 2.0 ** 32 - 2.0 ** 27)
    # 8- and 16-bit targets: one unit, since their bounds are written exactly
    assert conversions.safe_range("uint8") == (0.0, 255.0)
    assert conversions.safe_range("int16") == (-32767.0, 32767.0)
    with pytest.raises(ValueError):
        conversions.safe_range("float32")


def test_llvm_fcmp_is_false_on_nan_when_ordered_and_true_when_unordered():
    nan = math.nan
    for predicate, (on_numbers, on_nan) in {
        "oeq": ((2.0, 2.0, True), False), "ogt": ((3.0, 2.0, True), False), "oge": ((2.0, 2.0, True), False),
        "olt": ((1.0, 2.0, True), False), "ole": ((2.0, 2.0, True), False), "one": ((1.0, 2.0, True), False),
        "ord": ((1.0, 2.0, True), False), "ueq": ((2.0, 2.0, True), True), "ugt": ((3.0, 2.0, True), True),
        "uge": ((2.0, 2.0, True), True), "ult": ((1.0, 2.0, True), True), "ule": ((2.0, 2.0, True), True),
        "une": ((1.0, 2.0, True), True), "uno": ((1.0, 2.0, False), True),
    }.items():
        a, b, expected = on_numbers
        assert conversions.fcmp(predicate, a, b) is expected, predicate
        assert conversions.fcmp(predicate, nan, b) is on_nan, predicate
        assert conversions.fcmp(predicate, b, nan) is on_nan, predicate
    # the strict and the equal cases of each ordering
    assert not conversions.fcmp("ogt", 2.0, 2.0) and not conversions.fcmp("olt", 2.0, 2.0)
    assert not conversions.fcmp("one", 2.0, 2.0) and not conversions.fcmp("oeq", 1.0, 2.0)
    assert not conversions.fcmp("oge", 1.0, 2.0) and not conversions.fcmp("ole", 3.0, 2.0)
    assert not conversions.fcmp("ule", 3.0, 2.0) and not conversions.fcmp("ugt", 2.0, 2.0)
    assert conversions.fcmp("true", nan, nan) and not conversions.fcmp("false", 1.0, 1.0)


def test_probes_are_the_points_inside_the_safe_range_where_a_comparison_can_change():
    lo, hi = conversions.safe_range("int32")
    points = conversions._probes(lo, hi, [256.0, math.inf])
    assert lo in points and math.nextafter(hi, -math.inf) in points and hi not in points
    for c in (256.0, -256.0):
        assert {c, math.nextafter(c, math.inf), math.nextafter(c, -math.inf)} <= set(points)
    assert {0.0, 5e-324, 1.0, -1.0} <= set(points)
    assert all(lo <= p < hi for p in points)
    # a bound outside the range adds no probe outside it
    assert all(lo <= p < hi for p in conversions._probes(lo, hi, [1e30]))


# -- conversion checks and domain checks, from the IR's comparisons -----------------------------


@pytest.mark.parametrize("test, kind", [
    ("fcmp uno double %v, 0.000000e+00", "NaN"),
    ("fcmp une double %v, %v", "NaN"),
    ("fcmp oge double %v, 0x43E0000000000000", "range"),  # 2**63
    ("fcmp oge double %v, 9.200000e+18", "range"),
    ("fcmp ole double 9.200000e+18, %v", "range"),  # the constant first
    ("fcmp ult double %v, -9.200000e+18", "range"),
    ("fcmp fast oge double %v, 9.000000e+18", "range"),  # fast-math flags are not the predicate
])
def test_conversion_checks_into_int64_are_kl101(test, kind):
    finding = kl101(bad(test))
    assert finding is not None and f"checked for {kind}" in finding.message
    assert finding.rewritable


@pytest.mark.parametrize("test", [
    "fcmp oge double %v, 2.560000e+02",  # a histogram's bound
    "fcmp ole double 2.560000e+02, %v",
    "fcmp olt double %v, 0.000000e+00",  # a sign test before a signed conversion
    "fcmp oge double %v, %n",  # a bound known only at run time
    "fcmp oge double %v, 8.900000e+18",  # 3.5% inside the limit: more than people round by
    "fcmp oeq double %v, 1.000000e+00",
])
def test_domain_checks_before_an_int64_conversion_are_not_kl101(test):
    assert kl101(bad(test)) is None


@pytest.mark.parametrize("test, conversion, type, reported", [
    ("fcmp oge double %v, 0x41E0000000000000", "fptosi", "i32", True),  # 2**31
    ("fcmp oge double %v, 2.100000e+09", "fptosi", "i32", True),
    ("fcmp oge double %v, 2.000000e+09", "fptosi", "i32", False),  # 7% inside: a domain bound
    ("fcmp olt double %v, 0.000000e+00", "fptoui", "i64", True),  # below an unsigned target's range
    ("fcmp olt double %v, -1.000000e+00", "fptoui", "i64", True),
    ("fcmp olt double %v, 1.000000e+00", "fptoui", "i64", False),  # rejects 0.5, which converts to 0
    ("fcmp oge double %v, 2.560000e+02", "fptoui", "i8", True),
    ("fcmp ogt double %v, 2.550000e+02", "fptoui", "i8", True),
    ("fcmp oge double %v, 2.500000e+02", "fptoui", "i8", False),  # a 250-bin histogram
    ("fcmp ogt double %v, 1.270000e+02", "fptosi", "i8", True),
    ("fcmp olt double %v, -1.270000e+02", "fptosi", "i8", True),
    ("fcmp olt double %v, -1.260000e+02", "fptosi", "i8", False),
])
def test_the_limits_of_each_target_type(test, conversion, type, reported):
    assert (kl101(bad(test), conversion, type) is not None) is reported


def test_polarity_is_read_through_negations_and_unknown_polarity_is_never_a_conversion_check():
    # `not (v < 9.2e18)`: true on the error side for large values and NaN
    negated = "  %ok = fcmp olt double %v, 9.200000e+18, !dbg !11\n  %bad = xor i1 %ok, true, !dbg !11"
    assert kl101(negated) is not None
    # a test that *rejects* the safe range's values (error when v < 9.2e18): a domain check
    assert kl101(bad("fcmp olt double %v, 9.200000e+18")) is None
    # an xor of two tests: each test's being true may push either way
    two = ("  %nan = fcmp uno double %v, 0.000000e+00, !dbg !11\n"
           "  %big = fcmp oge double %v, 9.200000e+18, !dbg !11\n"
           "  %bad = xor i1 %nan, %big, !dbg !11")
    assert kl101(two) is None


def test_one_domain_term_makes_the_whole_guard_a_domain_check():
    nan_or_range = ("  %nan = fcmp uno double %v, 0.000000e+00, !dbg !11\n"
                    "  %big = fcmp oge double %v, 9.200000e+18, !dbg !11\n"
                    "  %bad = or i1 %nan, %big, !dbg !11")
    finding = kl101(nan_or_range)
    assert finding is not None and "checked for NaN and range" in finding.message and finding.rewritable
    assert kl101(nan_or_range.replace("9.200000e+18", "2.560000e+02")) is None


def test_a_guard_that_also_tests_an_index_is_reported_but_not_cut_from_the_ir():
    # (v != v) | (i >= n): cutting the branch would lose `i >= n`
    guard = ("  %nan = fcmp uno double %v, 0.000000e+00, !dbg !11\n"
             "  %out = icmp sge i64 %i, 100, !dbg !11\n"
             "  %bad = or i1 %nan, %out, !dbg !11")
    finding = kl101(guard)
    assert finding is not None and not finding.rewritable


def test_exactness_is_a_conversion_check_only_against_the_values_own_rounding():
    exact = ("  %t = call double @llvm.trunc.f64(double %v), !dbg !11\n"
             "  %bad = fcmp une double %t, %v, !dbg !11")
    finding = kl101(exact)
    assert finding is not None and "checked for exactness" in finding.message
    # equal to its rounding passes integers; *unequal* passing would reject every integer
    assert kl101(exact.replace("une", "oeq")) is None
    assert kl101(exact.replace("%t, %v", "%v, %t")) is not None


@pytest.mark.parametrize("tests, reported", [
    ("  %bad = call i1 @llvm.is.fpclass.f64(double %v, i32 3), !dbg !11", True),  # NaN
    ("  %bad = call i1 @llvm.is.fpclass.f64(double %v, i32 516), !dbg !11", True),  # +-inf
    ("  %bad = call i1 @llvm.is.fpclass.f64(double %v, i32 519), !dbg !11", True),  # NaN or inf
    ("  %bad = call i1 @llvm.is.fpclass.f64(double %v, i32 256), !dbg !11", False),  # +normal: 1.0
    ("  %bad = call i1 @llvm.is.fpclass.f64(double %v, i32 96), !dbg !11", False),  # +-zero
    ("  %bad = call i1 @llvm.is.fpclass.f64(double %v, i32 8), !dbg !11", False),  # -normal: -1.0
    ("  %c = call i32 @__nv_isnand(double %v), !dbg !11\n  %bad = icmp ne i32 %c, 0, !dbg !11", True),
    ("  %c = call i32 @__nv_isinfd(double %v), !dbg !11\n  %bad = icmp ne i32 %c, 0, !dbg !11", True),
    ("  %c = call i32 @__nv_isfinited(double %v), !dbg !11\n  %bad = icmp eq i32 %c, 0, !dbg !11", True),
    ("  %c = call i32 @__nv_isfinited(double %v), !dbg !11\n  %bad = icmp ne i32 %c, 0, !dbg !11", False),
])
def test_library_float_class_predicates(tests, reported):
    assert (kl101(tests) is not None) is reported


def test_fp_class_of_each_kind_of_value():
    assert conversions._fp_class(math.nan) == "qnan"
    assert conversions._fp_class(-math.inf) == "-inf" and conversions._fp_class(math.inf) == "+inf"
    assert conversions._fp_class(-0.0) == "-zero" and conversions._fp_class(0.0) == "+zero"
    assert conversions._fp_class(5e-324) == "+subnormal" and conversions._fp_class(-1e-310) == "-subnormal"
    assert conversions._fp_class(2.2250738585072014e-308) == "+normal"
    assert conversions._fp_class(-1.0) == "-normal"


# -- verification: a broken rewrite is refused, the process lives --------------------------------


def _abort_after_saying(words):
    import os

    os.write(2, (words + "\n").encode())  # as LLVM does: to file descriptor 2
    os.abort()


def _raise_value_error():
    raise ValueError("not a module")


def _refuse():
    from kernlint.rewrite.verify import VerificationError

    raise VerificationError("module 3 does not parse: expected type")


def test_isolated_returns_the_childs_result_and_reports_its_failures_as_refusals():
    from kernlint.rewrite.verify import VerificationError, isolated

    assert isolated("adding", lambda a, b: [a + b], 2, 3) == [5]
    with pytest.raises(VerificationError, match=r"^parsing failed: ValueError: not a module$"):
        isolated("parsing", _raise_value_error)
    with pytest.raises(VerificationError, match=r"^module 3 does not parse: expected type$"):
        isolated("parsing", _refuse)
    # LLVM's fatal errors abort: the child dies, the caller gets what it printed
    with pytest.raises(VerificationError,
                       match=r"^the backend: LLVM stopped \(killed by SIGABRT\): Broken module found$"):
        isolated("the backend", _abort_after_saying, "Broken module found")


def test_each_module_is_parsed_and_verified_and_the_broken_one_named():
    from kernlint.rewrite.verify import VerificationError, _parse_each

    good = "define void @f() {\nentry:\n  ret void\n}\n"
    _parse_each([good, good])
    with pytest.raises(VerificationError, match=r"(?s)^module 1 does not parse: .*doesn't match function result type"):
        _parse_each([good, good.replace("ret void", "ret i32 0")])  # LLVM's own words
    # parses, but the verifier rejects it: a use before its definition in one block
    unverified = "define i32 @g() {\nentry:\n  %a = add i32 %b, 1\n  %b = add i32 %a, 1\n  ret i32 %a\n}\n"
    with pytest.raises(VerificationError, match=r"^module 0 does not parse: "):
        _parse_each([unverified])


# -- the rewrite's edits, line by line ------------------------------------------------------------

# a report path (printf, then the work skipped) joining the passing side at a phi
REPORTED = """target triple = "{triple}"

define void @convert_kernel(ptr %y, ptr %x) !dbg !5 {
entry:
  %v = load double, ptr %x, align 8, !dbg !10
  %nan = fcmp uno double %v, 0.000000e+00, !dbg !11
  br i1 %nan, label %report, label %pass, !dbg !11

report:
  %p = call i32 @printf(ptr null), !dbg !11
  br label %done, !dbg !11

pass:
  %r = {conversion} double %v to {type}, !dbg !12
  %big = fcmp ogt double %v, 1.000000e+00, !dbg !12
  br i1 %big, label %done, label %small, !dbg !12

small:
  br label %done, !dbg !12

done:
  %out = phi {type} [ -1, %report ], [ %r, %pass ], [ 0, %small ]
  store {type} %out, ptr %y, align 8, !dbg !12
  ret void, !dbg !13
}

declare i32 @printf(ptr)
"""


def rewritten_body(triple, mode, conversion="fptosi", type="i64"):
    """The edited text from the passing block on (the edit alone: NVVM would need its own
    dialect to verify it), and how many conversions changed form."""
    from kernlint.analysis.conversions import checked_conversions
    from kernlint.analysis.program import KernelAnalysis, Program
    from kernlint.ir.reader import parse_module
    from kernlint.rewrite.edit import plan, rewrite_module

    text = REPORTED.replace("{triple}", triple).replace("{conversion}", conversion).replace("{type}", type)
    program = Program([parse_module(text)])
    plans = plan(list(checked_conversions(KernelAnalysis(program, "convert_kernel"))))
    assert len(plans) == 1
    edit = rewrite_module(text, list(next(iter(plans.values())).values()), mode)
    assert edit.removed_blocks == 1
    assert edit.rewritten.startswith(text.split("pass:")[0].replace("br i1 %nan, label %report, label %pass",
                                                                     "br label %pass").split("report:")[0])
    return edit.rewritten.split("pass:\n", 1)[1].rstrip(), edit.rewritten_conversions


def test_the_cut_guard_branches_to_its_passing_side_and_the_error_path_and_its_phi_entry_go():
    from kernlint.rewrite.command import rewrite_kernel

    text = REPORTED.replace("{triple}", "amdgcn-amd-amdhsa").replace("{conversion}", "fptosi")
    text = text.replace("{type}", "i64")
    kernel = CompiledKernel(KernelInfo(name="convert_kernel", path="/src/kernels.jl", line=9, column=1),
                            [text + DEBUG_FOOTER], "convert_kernel", 0.0)
    rewritten = rewrite_kernel(kernel, "unchecked", (9, 0)).rewritten[0]
    assert "  br label %pass, !dbg !11\n\npass:" in rewritten  # indent and !dbg kept
    assert "report:" not in rewritten and "@printf(ptr null)" not in rewritten
    assert "  %out = phi i64 [ %r, %pass ], [ 0, %small ]\n" in rewritten  # the other entries stay
    assert "br i1 %big, label %done, label %small" in rewritten  # a branch that is no guard stays
    assert rewritten.endswith(DEBUG_FOOTER.lstrip("\n")) or rewritten.endswith(DEBUG_FOOTER)


@pytest.mark.parametrize("triple, mode, conversion, type, lines", [
    # AMDGPU and generic LLVM: the conversion, frozen (an out-of-range input gives some value)
    ("amdgcn-amd-amdhsa", "unchecked", "fptosi", "i64",
     ['%"kernlint.unchecked.r" = fptosi double %v to i64, !dbg !12', '%r = freeze i64 %"kernlint.unchecked.r"']),
    ("x86_64-unknown-linux-gnu", "unchecked", "fptoui", "i32",
     ['%"kernlint.unchecked.r" = fptoui double %v to i32, !dbg !12', '%r = freeze i32 %"kernlint.unchecked.r"']),
    ("amdgcn-amd-amdhsa", "saturate", "fptoui", "i16",
     ["%r = call i16 @llvm.fptoui.sat.i16.f64(double %v), !dbg !12"]),
    # NVVM: plain fptosi is defined (cvt.rzi saturates); saturate through libdevice
    ("nvptx64-nvidia-cuda", "unchecked", "fptosi", "i64", ["%r = fptosi double %v to i64, !dbg !12"]),
    ("nvptx64-nvidia-cuda", "saturate", "fptosi", "i64", ['%r = call i64 @"__nv_double2ll_rz"(double %v), !dbg !12']),
    ("nvptx64-nvidia-cuda", "saturate", "fptoui", "i64", ['%r = call i64 @"__nv_double2ull_rz"(double %v), !dbg !12']),
    ("nvptx64-nvidia-cuda", "saturate", "fptosi", "i32", ['%r = call i32 @"__nv_double2int_rz"(double %v), !dbg !12']),
    ("nvptx64-nvidia-cuda", "saturate", "fptoui", "i32", ['%r = call i32 @"__nv_double2uint_rz"(double %v), !dbg !12']),
    # 8 and 16 bits: saturate to 32, then clamp into the narrow range
    ("nvptx64-nvidia-cuda", "saturate", "fptosi", "i8", [
        '%"kernlint.sat.r.wide" = call i32 @"__nv_double2int_rz"(double %v), !dbg !12',
        '%"kernlint.sat.r.hi.test" = icmp sgt i32 %"kernlint.sat.r.wide", 127',
        '%"kernlint.sat.r.hi" = select i1 %"kernlint.sat.r.hi.test", i32 127, i32 %"kernlint.sat.r.wide"',
        '%"kernlint.sat.r.lo.test" = icmp slt i32 %"kernlint.sat.r.hi", -128',
        '%"kernlint.sat.r.lo" = select i1 %"kernlint.sat.r.lo.test", i32 -128, i32 %"kernlint.sat.r.hi"',
        '%r = trunc i32 %"kernlint.sat.r.lo" to i8']),
    ("nvptx64-nvidia-cuda", "saturate", "fptoui", "i16", [
        '%"kernlint.sat.r.wide" = call i32 @"__nv_double2uint_rz"(double %v), !dbg !12',
        '%"kernlint.sat.r.hi.test" = icmp ugt i32 %"kernlint.sat.r.wide", 65535',
        '%"kernlint.sat.r.hi" = select i1 %"kernlint.sat.r.hi.test", i32 65535, i32 %"kernlint.sat.r.wide"',
        '%r = trunc i32 %"kernlint.sat.r.hi" to i16']),
])
def test_each_target_gets_its_unchecked_form(triple, mode, conversion, type, lines):
    body, converted = rewritten_body(triple, mode, conversion, type)
    assert body.splitlines()[:len(lines)] == ["  " + line for line in lines]
    assert body.splitlines()[len(lines)] == "  %big = fcmp ogt double %v, 1.000000e+00, !dbg !12"
    # a form that is not the original counts as a rewritten conversion
    assert converted == (0 if (triple.startswith("nvptx") and mode == "unchecked") else 1)
    declared = [line for line in body.splitlines() if line.startswith("declare") and "printf" not in line]
    if mode == "saturate":
        callee = lines[0].split("@", 1)[1].split("(", 1)[0]
        assert len(declared) == 1 and f"@{callee}(double)" in declared[0]
    else:
        assert declared == []


# -- KL101's source fix and advice, on a Python kernel whose IR is written out -------------------

KERNEL_IR = """target triple = "nvptx64-nvidia-cuda"

define void @convert_kernel(double* %y0, double* %x, i64 %i) !dbg !5 {
entry:
  %v = load double, double* %x, align 8, !dbg !10
  %nan = fcmp uno double %v, 0.000000e+00, !dbg !11
  br i1 %nan, label %fail, label %next, !dbg !11

next:
  %second = {second}, !dbg !11
  br i1 %second, label %fail, label %pass, !dbg !11

fail:
  call void @llvm.trap(), !dbg !12
  unreachable

pass:
  %r = fptosi double %v to i64, !dbg !13
  ret void, !dbg !13
}

declare void @llvm.trap()

!llvm.dbg.cu = !{!0}
!0 = distinct !DICompileUnit(language: DW_LANG_Python, file: !1, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "{name}", directory: "{directory}")
!5 = distinct !DISubprogram(name: "convert_kernel", scope: !1, file: !1, line: 6, unit: !0)
!10 = !DILocation(line: 7, column: 5, scope: !5)
!11 = !DILocation(line: 8, column: 5, scope: !5)
!12 = !DILocation(line: 9, column: 9, scope: !5)
!13 = !DILocation(line: {conversion_line}, column: 5, scope: !5)
!llvm.module.flags = !{!100}
!100 = !{i32 2, !"Debug Info Version", i32 3}
"""
RANGE = "fcmp oge double %v, 9.200000e+18"
INDEX = "icmp eq i64 %i, 7"


def source_finding(tmp_path, guard, second=RANGE, name="kernels.py", first="    v = x[0]"):
    """KL101 on ``int(v)`` after ``guard`` (from line 8, the IR's two branches)."""
    from kernlint.source import SourceFile

    conversion_line = 9 + guard.rstrip("\n").count("\n")
    path = tmp_path / name
    path.write_text("import math\nfrom numba import cuda\n\n\n"
                    '@cuda.jit("void(int64[::1], float64[::1], int64)")\n'
                    "def convert_kernel(y, x, i):\n"
                    + first + "\n" + guard.rstrip("\n") + "\n    y[0] = int(v)\n")
    ir = (KERNEL_IR.replace("{second}", second).replace("{name}", name).replace("{directory}", str(tmp_path))
          .replace("{conversion_line}", str(conversion_line)))
    info = KernelInfo(name="convert_kernel", path=str(path), line=6, column=1)
    compiled = CompiledKernel(info=info, modules=[ir], entry="convert_kernel", compile_seconds=0.0)
    found = [f for f in analyse_kernel(compiled, source=SourceFile.read_or_none(str(path))) if f.code == "KL101"]
    assert len(found) == 1 and found[0].line == conversion_line
    return found[0]


def fixed_text(finding):
    from kernlint.source import apply_edits

    with open(finding.fix.edits[0].path) as handle:
        return apply_edits(handle.read(), finding.fix.edits)


def test_a_guard_of_the_value_alone_is_deleted_and_the_advice_says_where(tmp_path):
    finding = source_finding(tmp_path, "    if v != v or v >= 9.2e18:\n        raise ValueError('bad value')")
    assert finding.fix.applicability == "unsafe" and finding.fixable and finding.rewritable
    assert finding.fix.description == ("remove the guard of `int(v)` (outside the safe range the error "
                                       "path no longer runs)")
    assert fixed_text(finding).endswith("    v = x[0]\n    y[0] = int(v)\n")
    assert finding.message.endswith("checked for NaN and range, and the failing branch raises: the never-taken "
                                    "error path costs registers, stack and occupancy on every launch; remove the "
                                    "guard at line 8 (`int(v)` is already unchecked in numba-cuda): "
                                    "`--fix --unsafe-fixes` does it")


@pytest.mark.parametrize("body", [
    "        print('bad value', v)\n        return",
    "        return 0",
    "        assert False",
])
def test_pure_error_paths_are_deleted(tmp_path, body):
    finding = source_finding(tmp_path, "    if math.isnan(v) or v >= 9.2e18:\n" + body.split("\n")[0]
                             + ("\n" + body.split("\n")[1] if "\n" in body else ""))
    assert finding.fix is not None
    assert "if math.isnan" not in fixed_text(finding)


@pytest.mark.parametrize("guard", [
    "    if v != v or v >= 9.2e18:\n        y[0] = -1; return",  # the error side does work
    "    if v != v or v >= 9.2e18:\n        return v",  # returns a value it computes
    "    if v != v or v >= 9.2e18:\n        raise ValueError\n    else:\n        pass",
    "    if (v != v) | (v >= 9.2e18):\n        print('x')",  # a print that does not end the path
])
def test_guards_whose_source_shows_more_than_a_conversion_check_get_no_source_fix(tmp_path, guard):
    finding = source_finding(tmp_path, guard)
    assert finding.fix is None
    assert "--fix" not in finding.message and "remove the guard" in finding.message


def test_from_a_guard_that_also_tests_an_index_only_the_values_terms_go(tmp_path):
    finding = source_finding(tmp_path, "    if v != v or i == 7:\n        raise ValueError('bad')", second=INDEX)
    assert finding.rewritable  # the NaN test branches alone: its branch is cut, `i == 7`'s stays
    assert finding.fix.description == ("remove the value's tests of `int(v)` from its guard (outside the safe "
                                       "range the error path no longer runs)")
    assert "    if i == 7:\n        raise ValueError('bad')\n" in fixed_text(finding)


def test_outside_python_the_advice_is_the_ir_rewrite(tmp_path):
    finding = source_finding(tmp_path, "    if v != v or v >= 9.2e18:\n        raise ValueError", name="kernels.hip")
    assert finding.fix is None and finding.message.endswith("convert unchecked (`kernlint rewrite`)")


def test_a_local_predicate_is_not_read_as_the_values_test_and_stays(tmp_path):
    finding = source_finding(tmp_path, "    if isbad(v) or v >= 9.2e18:\n        raise ValueError",
                             first="    v = x[0]; isbad = math.isnan")
    assert "    if isbad(v):\n        raise ValueError\n" in fixed_text(finding)
    global_predicate = source_finding(tmp_path, "    if math.isnan(v) or v >= 9.2e18:\n        raise ValueError")
    assert "raise" not in fixed_text(global_predicate)


# -- @no_hostcall's decisions, on IR (the compile itself is tests/test_decorator.py's) -------------

# a NaN check before the conversion, and (PRINTED) a printf on the path that does the work
CHECKED_AMDGPU = GUARDED.replace("{tests}", "  %bad = fcmp uno double %v, 0.000000e+00, !dbg !11")
CHECKED_AMDGPU = CHECKED_AMDGPU.replace("{conversion}", "fptosi").replace("{type}", "i64")
PRINTED = CHECKED_AMDGPU.replace("  store i64 %r", "  %p = call i32 @printf(ptr null), !dbg !13\n  store i64 %r")
PRINTED = PRINTED.replace("declare void @llvm.trap()", "declare void @llvm.trap()\ndeclare i32 @printf(ptr)")


def _kernel_function():
    """What the guard's dispatcher would wrap: where its warnings point."""


def guard(fix=False, allow=()):
    import types

    from kernlint.decorator import _Guard

    return _Guard(types.SimpleNamespace(py_func=_kernel_function), fix, allow, "unchecked", "sm_90")


def kernel(text):
    info = KernelInfo(name="convert_kernel", path="/src/kernels.jl", line=9, column=1, signature="void(f8)")
    return CompiledKernel(info=info, modules=[text], entry="convert_kernel", compile_seconds=0.0)


def test_allow_takes_codes_and_prefixes_in_any_case_and_kl9_never_forbids():
    from kernlint.findings import Finding

    found = [Finding(code, "/src/k.py", 1, 1, "") for code in ("KL101", "KL301", "KL302", "KL902")]
    assert [f.code for f in guard().forbidden(found)] == ["KL101", "KL301", "KL302"]
    assert [f.code for f in guard(allow=("kl301",)).forbidden(found)] == ["KL101", "KL302"]
    assert [f.code for f in guard(allow=("KL3",)).forbidden(found)] == ["KL101"]


def test_fix_true_returns_the_rewritten_ir_only_when_nothing_forbidden_is_left():
    rewritten, forbidden = guard(fix=True).evaluate(kernel(CHECKED_AMDGPU))
    assert forbidden == [] and "fcmp uno" in rewritten[0] and "br i1 %bad" not in rewritten[0]
    assert "freeze i64" in rewritten[0]
    # without fix=True the checked conversion is forbidden, and nothing is rewritten
    rewritten, forbidden = guard().evaluate(kernel(CHECKED_AMDGPU))
    assert rewritten is None and [f.code for f in forbidden] == ["KL101"]
    # allowed, it passes as it is
    assert guard(allow=("KL101",)).evaluate(kernel(CHECKED_AMDGPU)) == (None, [])


def test_fix_true_checks_the_rewritten_kernel_again():
    # the rewrite removes the guard; the printf on the working path is still there
    rewritten, forbidden = guard(fix=True).evaluate(kernel(PRINTED))
    assert rewritten is None and [f.code for f in forbidden] == ["KL301"]
    assert [f.code for f in guard(fix=True).remaining_after(kernel(PRINTED), [PRINTED])] == ["KL301"]
    assert guard(fix=True, allow=("KL301",)).evaluate(kernel(PRINTED))[1] == []


def test_check_raises_a_hostcall_error_naming_each_forbidden_finding():
    from kernlint.decorator import HostcallError

    with pytest.raises(HostcallError) as raised:
        guard().check(kernel(CHECKED_AMDGPU))
    error = raised.value
    assert (error.kernel, error.signature, [f.code for f in error.findings]) == ("convert_kernel", "void(f8)",
                                                                                ["KL101"])
    assert str(error).startswith("kernel `convert_kernel` (void(f8)) has forbidden code paths:\n"
                                 "  /src/kernels.jl:12: KL101 float64 -> int64 conversion is checked for NaN")
    assert guard(fix=True).check(kernel(CHECKED_AMDGPU)) is not None


def test_no_hostcall_refuses_what_it_cannot_check():
    from kernlint.decorator import no_hostcall

    with pytest.raises(ValueError, match="mode must be one of unchecked, saturate, not 'wrap'"):
        no_hostcall(mode="wrap")

    def plain(y, x):
        pass

    with pytest.raises(TypeError, match="must be applied above @cuda.jit .* the plain function `plain`"):
        no_hostcall(plain)
    with pytest.raises(TypeError, match="expects a numba.cuda.jit kernel, got int"):
        no_hostcall(fix=True)(3)


# -- kernlint rewrite's outputs -------------------------------------------------------------------


def test_rewrite_outputs_are_named_after_the_file_kernel_and_signature(tmp_path):
    from kernlint.rewrite import command

    assert command.slug("void(int64[::1], float64[::1])") == "void_int64_1_float64_1"
    assert command.slug("") == command.slug("()") == "nosig"
    rewrite = command.rewrite_kernel(kernel(CHECKED_AMDGPU), "unchecked", (9, 0))
    assert (rewrite.unguarded, rewrite.unfixable, rewrite.conversions, rewrite.removed_blocks) == (1, 0, 1, 1)
    assert command.output_base(str(tmp_path), rewrite) == str(tmp_path / "kernels" / "convert_kernel-void_f8")
    rewrite.rewritten = rewrite.rewritten + ["; a second module\n"]
    rewrite.ptx = "// ptx\n"
    written = command.write_outputs(str(tmp_path), rewrite)
    base = tmp_path / "kernels" / "convert_kernel-void_f8"
    assert written == [f"{base}.ll", f"{base}.m1.ll", f"{base}.ptx"]
    assert [open(p).read() for p in written] == rewrite.rewritten + ["// ptx\n"]
    rewrite.ptx = ""
    assert command.write_outputs(str(tmp_path / "again"), rewrite)[-1].endswith(".m1.ll")


def test_rewrite_diff_is_labelled_by_kernel_and_module():
    from kernlint.rewrite import command

    rewrite = command.rewrite_kernel(kernel(CHECKED_AMDGPU), "unchecked", (9, 0))
    diff = command.unified_diff(rewrite)
    assert diff.startswith("--- a/kernels.jl::convert_kernel(void(f8))/module0.ll\n"
                           "+++ b/kernels.jl::convert_kernel(void(f8))/module0.ll\n@@ ")
    assert "\n-  br i1 %bad, label %fail, label %pass, !dbg !11\n" in diff
    assert "\n+  br label %pass, !dbg !11\n" in diff and "\n-fail:\n" in diff


def test_a_kernel_without_checked_conversions_is_not_rewritten_and_a_domain_check_stays():
    from kernlint.rewrite import command

    domain = GUARDED.replace("{tests}", "  %bad = fcmp oge double %v, 2.560000e+02, !dbg !11")
    domain = domain.replace("{conversion}", "fptosi").replace("{type}", "i64")
    assert command.rewrite_kernel(kernel(domain), "unchecked", (9, 0)) is None
    both = kernel(GUARDED.replace("{tests}", "  %nan = fcmp uno double %v, 0.000000e+00, !dbg !11\n"
                                             "  %out = icmp sge i64 %i, 100, !dbg !11\n"
                                             "  %bad = or i1 %nan, %out, !dbg !11")
                  .replace("{conversion}", "fptosi").replace("{type}", "i64"))
    rewrite = command.rewrite_kernel(both, "unchecked", (9, 0))
    assert (rewrite.unguarded, rewrite.unfixable, rewrite.edits) == (0, 1, [])
    assert rewrite.rewritten == rewrite.original


# -- kernlint check --fix: what is applied, what is rechecked, what is said --------------------------


def _finding(path, line, code="KL101", applicability="unsafe", kernel="k", kernels=()):
    from kernlint.findings import Edit, Finding, Fix

    fix = Fix(applicability, "delete it", [Edit(path, line, 0, line + 1, 0, "")]) if applicability else None
    return Finding(code, path, line, 1, "", kernel=kernel, kernels=list(kernels), fix=fix)


def test_unsafe_fixes_apply_only_with_unsafe_fixes_and_are_counted_as_hidden():
    from kernlint import fix

    safe, unsafe, none = _finding("/a.py", 1, applicability="safe"), _finding("/a.py", 2), _finding("/a.py", 3, applicability=None)
    assert [fix.applicable(f, False) for f in (safe, unsafe, none)] == [True, False, False]
    assert [fix.applicable(f, True) for f in (safe, unsafe, none)] == [True, True, False]
    assert fix.hidden([safe, unsafe, none], False) == 1 and fix.hidden([safe, unsafe, none], True) == 0


def test_the_files_rechecked_are_the_edited_ones_and_those_of_kernels_whose_findings_land_there():
    from kernlint import fix
    from kernlint.engine import KernelStats, Report

    report = Report(findings=[_finding("/lib/helpers.py", 4, kernel="", kernels=["convert", "scale"]),
                              _finding("/other.py", 9, kernel="unrelated")],
                    stats=[KernelStats("/app/kernels.py", "convert", "", 0.0, 0.0),
                           KernelStats("/app/more.py", "scale", "", 0.0, 0.0),
                           KernelStats("/app/data.hip", "convert", "", 0.0, 0.0),
                           KernelStats("/other.py", "unrelated", "", 0.0, 0.0)])
    assert fix._files_to_recheck({"/lib/helpers.py": ""}, report, []) == [
        "/app/kernels.py", "/app/more.py", "/lib/helpers.py"]


def test_the_summary_says_what_was_fixed_refused_and_left(tmp_path):
    from kernlint import fix

    refused = _finding(str(tmp_path / "k.py"), 7)
    outcome = fix.FixOutcome(applied=[_finding("/a.py", 1)], refused=[(refused, "it does not parse")],
                             texts={"/a.py": ("x\ny\n", "y\n")})
    lines = fix.summary(outcome, hidden_unsafe=2, remaining=3, diff=False)
    assert lines[0].endswith("k.py:7: KL101 fix not applied: it does not parse")
    assert lines[1] == "Fixed 1 finding in 1 file; 3 remaining (2 more fixable with --unsafe-fixes)."
    two = fix.FixOutcome(applied=[_finding("/a.py", 1), _finding("/b.py", 1)],
                         texts={"/a.py": ("", ""), "/b.py": ("", "")})
    assert fix.summary(two, 0, 0, diff=True) == ["Would fix 2 findings in 2 files."]
    assert fix.summary(fix.FixOutcome(), 0, 1, diff=False) == ["Fixed 0 findings in 0 files; 1 remaining."]
    assert outcome.diff() == f"--- a/{os.path.relpath('/a.py')}\n+++ b/{os.path.relpath('/a.py')}\n@@ -1,2 +1 @@\n-x\n y\n"


def test_fixes_that_fail_together_are_tried_file_by_file_then_one_by_one(tmp_path, monkeypatch):
    from kernlint import fix
    from kernlint.engine import Options, Report

    a, b = tmp_path / "a.py", tmp_path / "b.py"
    a.write_text("one\ntwo\nthree\n")
    b.write_text("four\nfive\n")
    a1, a2, b1 = _finding(str(a), 1), _finding(str(a), 2), _finding(str(b), 2)
    safe_only = _finding(str(b), 1, applicability="safe")
    tried = []

    def verified(fixes, originals, report, paths, options):  # a2's edit breaks the file
        tried.append([(f.path[-4:], f.line) for f in fixes])
        return ([], "a2 breaks it") if a2 in fixes else (fixes, "")

    monkeypatch.setattr(fix, "_verified", verified)
    outcome = fix.plan(Report(findings=[a1, a2, b1, safe_only]), [], Options(), unsafe=True)
    assert tried == [[("a.py", 1), ("a.py", 2), ("b.py", 2), ("b.py", 1)],
                     [("a.py", 1), ("a.py", 2)], [("a.py", 1)], [("a.py", 1), ("a.py", 2)],
                     [("b.py", 2), ("b.py", 1)]]
    assert outcome.applied == [a1, b1, safe_only] and outcome.refused == [(a2, "a2 breaks it")]
    assert outcome.texts == {str(a): ("one\ntwo\nthree\n", "two\nthree\n"), str(b): ("four\nfive\n", "")}
    # without --unsafe-fixes only the safe fix is tried, and it verifies at once
    tried.clear()
    outcome = fix.plan(Report(findings=[a1, a2, b1, safe_only]), [], Options(), unsafe=False)
    assert tried == [[("b.py", 1)]] and outcome.applied == [safe_only]
    assert outcome.texts == {str(b): ("four\nfive\n", "five\n")}
    fix.write(outcome)
    assert b.read_text() == "five\n" and a.read_text() == "one\ntwo\nthree\n"


# -- KL401: a raise in a kernel without debug=True, and its (unsafe) fix -------------------------------

RAISING_IR = """target triple = "nvptx64-nvidia-cuda"

define i32 @convert_kernel(i8** %.ret, double* %x) !dbg !5 {
entry:
  %v = load double, double* %x, align 8, !dbg !10
  %neg = fcmp olt double %v, 0.000000e+00, !dbg !11
  br i1 %neg, label %raise, label %pass, !dbg !11

raise:
  ret i32 {status}, !dbg !12

pass:
  ret i32 0, !dbg !13
}

!llvm.dbg.cu = !{!0}
!0 = distinct !DICompileUnit(language: DW_LANG_Python, file: !1, emissionKind: LineTablesOnly)
!1 = !DIFile(filename: "{name}", directory: "{directory}")
!5 = distinct !DISubprogram(name: "convert_kernel", scope: !1, file: !1, line: 6, unit: !0)
!10 = !DILocation(line: 7, column: 5, scope: !5)
!11 = !DILocation(line: 8, column: 5, scope: !5)
!12 = !DILocation(line: {line}, column: 9, scope: !5)
!13 = !DILocation(line: 10, column: 5, scope: !5)
!llvm.module.flags = !{!100}
!100 = !{i32 2, !"Debug Info Version", i32 3}
"""


def kl401(tmp_path, check, status="1", line=9, name="raising.py", options=None, kind="kernel"):
    """KL401 findings of a kernel whose lines 8-9 are ``check``; the status return is at ``line``."""
    from kernlint.source import SourceFile

    path = tmp_path / name
    path.write_text("import math\nfrom numba import cuda\n\n\n"
                    '@cuda.jit("void(float64[::1])")\ndef convert_kernel(x):\n    v = x[0]\n'
                    + check.rstrip("\n") + "\n    x[0] = math.sqrt(v)\n")
    ir = (RAISING_IR.replace("{status}", status).replace("{line}", str(line)).replace("{name}", name)
          .replace("{directory}", str(tmp_path)))
    info = KernelInfo(name="convert_kernel", path=str(path), line=6, column=1, options=options or {}, kind=kind)
    compiled = CompiledKernel(info=info, modules=[ir], entry="convert_kernel", compile_seconds=0.0)
    return [f for f in analyse_kernel(compiled, source=SourceFile.read_or_none(str(path))) if f.code == "KL401"]


def test_kl401_on_a_raise_says_to_report_through_an_array_and_offers_the_unsafe_return(tmp_path):
    [finding] = kl401(tmp_path, "    if v < 0:\n        raise ValueError('negative')")
    assert (finding.line, finding.column) == (9, 9)
    assert finding.message == ("exception raised in a kernel compiled without debug=True is silently dropped "
                               "(the thread just returns): report errors through an output array")
    assert finding.fix.applicability == "unsafe" and finding.fixable
    assert finding.fix.description == ("replace the raise with `return`, what numba-cuda does with it without "
                                       "debug=True (the simulator and debug=True would have reported it)")
    assert fixed_text(finding).endswith("    if v < 0:\n        return\n    x[0] = math.sqrt(v)\n")


@pytest.mark.parametrize("statement, replaced", [
    ("assert v >= 0, 'negative'", "if not (v >= 0): return"),
    ("assert not v < 0", "if v < 0: return"),
])
def test_kl401_turns_an_assert_into_the_return_numba_makes_of_it(tmp_path, statement, replaced):
    [finding] = kl401(tmp_path, "    " + statement + "\n    pass", line=8)
    assert fixed_text(finding).splitlines()[7] == "    " + replaced
    assert finding.fix.description == ("replace the assert with the `return` numba-cuda makes of it without "
                                       "debug=True (the simulator and debug=True would have reported it)")


def test_kl401_not_for_debug_a_passed_on_status_numbas_own_checks_or_a_normal_return(tmp_path):
    check = "    if v < 0:\n        raise ValueError('negative')"
    assert kl401(tmp_path, check, options={"debug": True}) == []
    assert kl401(tmp_path, check, status="%status") == []  # a callee's status, passed on
    assert kl401(tmp_path, check, status="0") == []
    assert kl401(tmp_path, check, line=10) == []  # math.sqrt's domain check, numba's own


def test_kl401_offers_no_fix_outside_a_python_kernels_own_body(tmp_path):
    check = "    if v < 0:\n        raise ValueError('negative')"
    [device] = kl401(tmp_path, check, kind="device")
    assert device.fix is None and not device.fixable  # its caller sees the status a return would hide
    [hip] = kl401(tmp_path, check, name="raising.hip")
    assert hip.fix is None


# -- conversions that are calls, and guards side by side -----------------------------------------------


@pytest.mark.parametrize("callee, type, conversion", [
    ("__nv_double2ll_rz", "i64", "float64 -> int64"),
    ("__nv_double2ull_rz", "i64", "float64 -> uint64"),
    ("__nv_double2uint_rn", "i32", "float64 -> uint32"),
    ("llvm.fptosi.sat.i32.f64", "i32", "float64 -> int32"),
    ("llvm.fptoui.sat.i8.f64", "i8", "float64 -> uint8"),
])
def test_library_conversion_calls_are_conversions_with_their_own_target(callee, type, conversion):
    text = GUARDED.replace("{tests}", "  %bad = fcmp uno double %v, 0.000000e+00, !dbg !11")
    text = text.replace("  %r = {conversion} double %v to {type}, !dbg !12",
                        f"  %r = call {type} @{callee}(double %v), !dbg !12").replace("{type}", type)
    text = text.replace("declare void @llvm.trap()", f"declare void @llvm.trap()\ndeclare {type} @{callee}(double)")
    found = [f for f in analyse_kernel(kernel(text), None) if f.code == "KL101"]
    assert [f.message.split(" conversion")[0] for f in found] == [conversion]


def test_a_domain_check_before_a_conversion_check_stays_when_the_conversion_check_is_cut():
    from kernlint.rewrite.command import rewrite_kernel

    text = GUARDED.replace("{tests}", "  %dom = fcmp oge double %v, 2.560000e+02, !dbg !10\n"
                                      "  br i1 %dom, label %range, label %check, !dbg !10\n\n"
                                      "range:\n  call void @llvm.trap(), !dbg !10\n  unreachable\n\n"
                                      "check:\n  %bad = fcmp uno double %v, 0.000000e+00, !dbg !11")
    text = text.replace("{conversion}", "fptosi").replace("{type}", "i64")
    [finding] = [f for f in analyse_kernel(kernel(text), None) if f.code == "KL101"]
    assert "checked for NaN," in finding.message and finding.rewritable
    rewrite = rewrite_kernel(kernel(text), "unchecked", (9, 0))
    assert (rewrite.unguarded, rewrite.unfixable, rewrite.removed_blocks) == (1, 0, 1)
    assert "br i1 %dom, label %range, label %check" in rewrite.rewritten[0] and "\nrange:\n" in rewrite.rewritten[0]
    assert "\nfail:\n" not in rewrite.rewritten[0]


def test_the_message_says_what_the_failing_branch_does():
    reported = REPORTED.replace("{triple}", "amdgcn-amd-amdhsa").replace("{conversion}", "fptosi")
    reported = reported.replace("{type}", "i64") + DEBUG_FOOTER
    [finding] = [f for f in analyse_kernel(kernel(reported), None) if f.code == "KL101"]
    assert "checked for NaN, and the failing branch prints and skips the work:" in finding.message
    both = reported.replace("  br i1 %big, label %done, label %small, !dbg !12",
                            "  %huge = fcmp oge double %v, 9.200000e+18, !dbg !12\n"
                            "  br i1 %huge, label %trap, label %next, !dbg !12\n\n"
                            "trap:\n  call void @llvm.trap(), !dbg !12\n  unreachable\n\n"
                            "next:\n  br i1 %big, label %done, label %small, !dbg !12")
    both = both.replace("declare i32 @printf(ptr)", "declare i32 @printf(ptr)\ndeclare void @llvm.trap()")
    both = both.replace("  %r = fptosi double %v to i64, !dbg !12\n", "").replace(
        "  %out = phi", "  %r = fptosi double %v to i64, !dbg !12\n  %out = phi").replace("[ %r, %pass ]", "[ 1, %next ]")
    found = [f for f in analyse_kernel(kernel(both), None) if f.code == "KL101"]
    assert len(found) == 1 and "checked for NaN and range, and the failing branch raises or prints:" in found[0].message


def test_the_amdgpu_backend_compiles_for_the_asked_processor_and_its_refusal_is_a_verification_error():
    from kernlint.rewrite.verify import VerificationError, _amdgpu_assembly

    text = CHECKED_AMDGPU.split("!llvm.dbg.cu")[0].replace(", !dbg !10", "").replace(", !dbg !11", "")
    text = text.replace(", !dbg !12", "").replace(", !dbg !13", "").replace(" !dbg !5", "")
    for cpu in ("gfx90a", "gfx1030"):
        assembly = _amdgpu_assembly([text], cpu)
        assert f"amdgcn-amd-amdhsa--{cpu}" in assembly and "convert_kernel:" in assembly
    with pytest.raises(VerificationError, match="^the AMDGPU backend rejected it: "):
        _amdgpu_assembly([text, "define void @f( {"], "gfx90a")


def _verify_against(monkeypatch, tmp_path, again):
    """fix._verified of one KL101 fix in k.py, with the recheck answering ``again``'s findings."""
    from kernlint import fix
    from kernlint.engine import Options, Report

    path = tmp_path / "k.py"
    path.write_text("guard\nconvert\n")
    finding = _finding(str(path), 1)
    rechecked = []

    def check_paths(paths, options):
        rechecked.append((list(paths), options.cache_root))
        from kernlint.source import read_bytes

        assert read_bytes(str(path)) == b"convert\n"  # the edited text, as a buffer
        return Report(findings=[f(str(path)) for f in again])

    monkeypatch.setattr(fix, "check_paths", check_paths)
    report = Report(findings=[finding, _finding(str(path), 2, code="KL301", applicability=None)])
    result = fix._verified([finding], {str(path): "guard\nconvert\n"}, report, [], Options(cache_root="/x"))
    assert rechecked == [([str(path)], None)]  # never from the cache
    assert path.read_text() == "guard\nconvert\n"  # nothing written
    return result


def test_a_fix_is_kept_only_when_its_finding_is_gone_and_nothing_new_appears(monkeypatch, tmp_path):
    from kernlint.findings import Finding

    def kl301(path):
        return Finding("KL301", path, 1, 1, "print")

    def kl101(path):
        return Finding("KL101", path, 1, 1, "still checked")

    def kl902(path):
        return Finding("KL902", path, 1, 1, "the kernel no longer compiles")

    def elsewhere(path):
        return Finding("KL902", path + ".other.py", 1, 1, "another file's failure")

    fixes, why = _verify_against(monkeypatch, tmp_path, [kl301])
    assert len(fixes) == 1 and why == ""
    assert _verify_against(monkeypatch, tmp_path, [kl301, kl101]) == (
        [], "after the fix 1 KL101 finding(s) remain where 1 were")
    assert _verify_against(monkeypatch, tmp_path, [kl301, kl301]) == (
        [], "after the fix 2 KL301 finding(s) remain where 1 were")
    assert _verify_against(monkeypatch, tmp_path, [elsewhere, kl902]) == (
        [], "the fixed file does not compile: the kernel no longer compiles")


def test_a_fix_whose_edit_does_not_parse_is_refused_before_anything_is_compiled(monkeypatch, tmp_path):
    from kernlint import fix
    from kernlint.engine import Options, Report
    from kernlint.findings import Edit, Finding, Fix

    monkeypatch.setattr(fix, "check_paths", lambda paths, options: pytest.fail("compiled a broken file"))
    path = str(tmp_path / "k.py")
    broken = Finding("KL101", path, 1, 1, "", fix=Fix("unsafe", "", [Edit(path, 1, 0, 1, 0, "if:\n")]))
    assert fix._verified([broken], {path: "x = 1\n"}, Report(findings=[broken]), [], Options()) == (
        [], "the edited file does not parse (line 1: invalid syntax)")


COUNT_OFFLINE_COMPILES = '''
import atexit
from kernlint import decorator

compile_offline = decorator._Guard.compile_offline
compiles = []
decorator._Guard.compile_offline = lambda self, *args: compiles.append(args) or compile_offline(self, *args)
atexit.register(lambda: print("compiled again", len(compiles), "captured left", len(decorator._captured)))
'''


def test_a_lazy_signature_is_checked_from_the_ir_numbas_compile_made_not_compiled_again(tmp_path):
    from test_decorator import run_lazy

    clean = '''
    def convert(y, x):
        i = cuda.grid(1)
        if i < x.size:
            y[i] = int(x[i])
    '''
    out, _ = run_lazy(tmp_path, COUNT_OFFLINE_COMPILES + "@no_hostcall\n@cuda.jit\n", clean)
    assert out.split() == "compiled no print converts compiled again 0 captured left 0".split()


@pytest.mark.parametrize("check", [
    "    if v < 0: raise ValueError('negative')\n    pass",  # the raise shares its line with the if
    "    def fail(v):\n        raise ValueError('negative')",  # in a function nested in the kernel
])
def test_kl401_offers_no_fix_for_a_raise_it_cannot_replace_alone_in_the_kernels_body(tmp_path, check):
    [finding] = kl401(tmp_path, check, line=8 if check.startswith("    if") else 9)
    assert finding.fix is None and not finding.fixable


# -- kernlint rewrite over files: what is compiled for it ------------------------------------------

LAUNCHED = '''
import numpy as np
from numba import cuda


@cuda.jit
def convert(y, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if v != v:
            raise ValueError("NaN")
        y[i] = int(v)


x = np.zeros(16)
y = np.zeros(16, dtype=np.int64)
convert[1, 16](y, x)
'''


def test_rewrite_paths_rewrites_the_code_numba_runs_with_the_launch_sites_signature(tmp_path):
    from kernlint.engine import Options
    from kernlint.rewrite.command import rewrite_paths

    source = tmp_path / "launched.py"
    source.write_text(LAUNCHED)
    [rewrite], failures = rewrite_paths([str(source)], Options(timeout=300), "unchecked")
    assert failures == [] and not rewrite.refused and rewrite.unguarded == 1
    assert rewrite.signature == "void(int64[::1], float64[::1])"  # from the launch, the kernel is lazy
    # the modules numba links and runs, with its kernel fix-up (NVVM's kernel annotation), not the
    # ones it lowered first
    assert '!"kernel", i32 1' in rewrite.original[0] and '!"kernel", i32 1' in rewrite.rewritten[0]


def test_rewrite_paths_compiles_hip_for_the_asked_processor(tmp_path):
    import shutil

    from kernlint.engine import Options
    from kernlint.rewrite.command import rewrite_paths

    if shutil.which("hipcc") is None:
        pytest.skip("needs hipcc")
    rewrites, failures = rewrite_paths([str(ROOT_FIXTURES / "hip_kernels.hip")],
                                       Options(timeout=300, offload_arch="gfx1030"), "unchecked")
    assert failures == [] and rewrites
    assert all('"target-cpu"="gfx1030"' in rewrite.original[0] for rewrite in rewrites)


def test_rewrite_paths_names_the_files_it_could_not_read(tmp_path):
    from kernlint.engine import Options
    from kernlint.rewrite.command import rewrite_paths

    unreadable = [tmp_path / "b_latin1.py", tmp_path / "a_latin1.py"]
    for number, path in enumerate(unreadable):
        path.write_bytes(b"from numba import cuda\n" * number + b"# caf\xe9\n")
    rewrites, failures = rewrite_paths([str(p) for p in unreadable], Options(timeout=300), "unchecked")
    assert rewrites == []
    assert [(f.code, f.path, f.line) for f in failures] == [("KL901", str(unreadable[1]), 2),
                                                            ("KL901", str(unreadable[0]), 1)]


def test_an_intrinsic_the_module_declares_already_is_not_declared_again():
    from kernlint.analysis.conversions import checked_conversions
    from kernlint.analysis.program import KernelAnalysis, Program
    from kernlint.ir.reader import parse_module
    from kernlint.rewrite.edit import plan, rewrite_module

    declared = "declare i64 @llvm.fptosi.sat.i64.f64(double)"
    text = REPORTED.replace("{triple}", "amdgcn-amd-amdhsa").replace("{conversion}", "fptosi")
    text = text.replace("{type}", "i64") + declared + "\n"
    plans = plan(list(checked_conversions(KernelAnalysis(Program([parse_module(text)]), "convert_kernel"))))
    edit = rewrite_module(text, list(next(iter(plans.values())).values()), "saturate")
    assert "call i64 @llvm.fptosi.sat.i64.f64(double %v)" in edit.rewritten
    assert edit.rewritten.count(declared) == 1  # a second declaration would not parse


def test_a_method_of_a_local_object_is_not_read_as_the_values_test_either(tmp_path):
    finding = source_finding(tmp_path, "    if helper.isnan(v) or v >= 9.2e18:\n        raise ValueError",
                             first="    v = x[0]; helper = math")
    assert "    if helper.isnan(v):\n        raise ValueError\n" in fixed_text(finding)
