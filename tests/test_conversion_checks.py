"""What counts as a conversion check (KL101) and what as the program's domain check.

A conversion check rejects only what the conversion cannot take: NaN, values past the target
integer's limits (with the slack people write), non-integral values where exactness is
tested. Anything that also rejects values the conversion handles well is a domain check: no
KL101, nothing removed. Each case is a guard in hand-written IR, read the way every producer's
IR is read (kernlint.analysis.conversions).
"""
import math

import pytest

from kernlint.analysis.conversions import fcmp, safe_range
from kernlint.engine import analyse_kernel
from kernlint.findings import KernelInfo
from kernlint.compile.numba_cuda import CompiledKernel
from kernlint.ir.reader import float_constant

KERNEL = """
target triple = "nvptx64-nvidia-cuda"

define ptx_kernel void @k(ptr addrspace(1) %y, ptr addrspace(1) %x, double %n) {{
entry:
  %v = load double, ptr addrspace(1) %x, align 8
{condition}
  br i1 %c, label %{true_side}, label %{false_side}

fail:
  call void @llvm.trap()
  unreachable

pass:
  %r = {convert} double %v to {int}
  store {int} %r, ptr addrspace(1) %y, align 8
  ret void
}}

declare void @llvm.trap()
declare double @llvm.fabs.f64(double)
declare double @llvm.trunc.f64(double)
declare i1 @llvm.is.fpclass.f64(double, i32)
"""


def kl101(condition, target="int64", fails_when="true"):
    """Is the conversion into ``target`` behind this guard a KL101? ``%c`` is the branch's
    condition; the error side is its true or its false successor."""
    sides = ("fail", "pass") if fails_when == "true" else ("pass", "fail")
    text = KERNEL.format(condition=condition, true_side=sides[0], false_side=sides[1],
                         convert="fptoui" if target.startswith("u") else "fptosi",
                         int="i" + target.lstrip("uint"))
    info = KernelInfo(name="k", path="/src/k.ll", line=1, column=1)
    found = analyse_kernel(CompiledKernel(info, [text], "k", 0.0), source=None)
    return any(f.code == "KL101" for f in found)


@pytest.mark.parametrize("condition, target, fails_when", [
    ("%c = fcmp uno double %v, 0.000000e+00", "int64", "true"),
    ("%c = fcmp une double %v, %v", "int64", "true"),
    ("%c = fcmp ord double %v, 0.000000e+00", "int64", "false"),
    ("%c = fcmp oge double %v, 9.200000e+18", "int64", "true"),
    ("%c = fcmp olt double %v, 9.200000e+18", "int64", "false"),
    ("%c = fcmp oge double %v, 0x43E0000000000000", "int64", "true"),  # 2**63, as LLVM prints it
    ("%c = fcmp oge double %v, 9.000000e+18", "int64", "true"),  # int64's limit as people round it
    ("%c = fcmp olt double %v, -9.200000e+18", "int64", "true"),
    ("%c = fcmp oge double %v, 2.100000e+09", "int32", "true"),
    ("%c = fcmp ogt double %v, 1.270000e+02", "int8", "true"),
    ("%c = fcmp oge double %v, 2.560000e+02", "uint8", "true"),
    ("%c = fcmp olt double %v, 0.000000e+00", "uint32", "true"),  # the sign is an unsigned target's limit
    ("%o = fcmp olt double %v, 9.200000e+18\n  %c = xor i1 %o, true", "int64", "true"),
    ("%a = fcmp uno double %v, 0.0\n  %b = fcmp oge double %v, 9.2e18\n  %c = or i1 %a, %b", "int64", "true"),
    ("%a = fcmp uno double %v, 0.0\n  %b = fcmp oge double %v, 9.2e18\n  %c = select i1 %a, i1 true, i1 %b",
     "int64", "true"),
    ("%a = fcmp ord double %v, 0.0\n  %b = fcmp olt double %v, 9.2e18\n  %c = and i1 %a, %b", "int64", "false"),
    ("%a = call double @llvm.fabs.f64(double %v)\n  %c = fcmp oge double %a, 9.2e18", "int64", "true"),
    ("%c = call i1 @llvm.is.fpclass.f64(double %v, i32 519)", "int64", "true"),  # NaN and infinities
    ("%t = call double @llvm.trunc.f64(double %v)\n  %c = fcmp une double %t, %v", "int64", "true"),
    ("%t = call double @llvm.trunc.f64(double %v)\n  %c = fcmp oeq double %t, %v", "int64", "false"),
])
def test_conversion_checks_are_kl101(condition, target, fails_when):
    assert kl101(condition, target, fails_when)


@pytest.mark.parametrize("condition, target, fails_when", [
    ("%c = fcmp oge double %v, 2.560000e+02", "int64", "true"),  # a histogram's bound
    ("%c = fcmp olt double %v, 0.000000e+00", "int64", "true"),  # a sign test before a signed conversion
    ("%c = fcmp oge double %v, %n", "int64", "true"),  # a bound known only at run time
    ("%c = fcmp oge double %v, 2.000000e+09", "int32", "true"),  # 7% inside int32: the program's bound
    ("%c = fcmp oge double %v, 2.500000e+02", "uint8", "true"),  # 250 bins
    ("%c = fcmp olt double %v, 9.200000e+18", "int64", "true"),  # rejects every ordinary value
    ("%c = fcmp ord double %v, 0.000000e+00", "int64", "true"),  # rejects every number
    ("%o = fcmp oge double %v, 9.200000e+18\n  %c = xor i1 %o, true", "int64", "true"),
    ("%a = fcmp uno double %v, 0.0\n  %b = fcmp oge double %v, 2.56e2\n  %c = or i1 %a, %b", "int64", "true"),
    ("%a = call double @llvm.fabs.f64(double %v)\n  %c = fcmp oge double %a, 2.56e2", "int64", "true"),
    ("%c = call i1 @llvm.is.fpclass.f64(double %v, i32 96)", "int64", "true"),  # zeros
    ("%t = call double @llvm.trunc.f64(double %v)\n  %c = fcmp oeq double %t, %v", "int64", "true"),
    # a test whose polarity cannot be read (a select between two tests) proves nothing
    ("%s = fcmp olt double %v, 1.0\n  %a = fcmp uno double %v, 0.0\n  %b = fcmp oge double %v, 9.2e18\n"
     "  %c = select i1 %s, i1 %a, i1 %b", "int64", "true"),
])
def test_domain_checks_are_not(condition, target, fails_when):
    assert not kl101(condition, target, fails_when)


def test_safe_range_is_the_integer_range_less_the_slack_people_write():
    assert safe_range("int64") == (-(2.0 ** 63) * (1 - 1 / 32), 2.0 ** 63 * (1 - 1 / 32))
    assert safe_range("uint32") == (0.0, 2.0 ** 32 * (1 - 1 / 32))
    assert safe_range("int8") == (-127.0, 127.0) and safe_range("uint16") == (0.0, 65535.0)
    with pytest.raises(ValueError):
        safe_range("float32")


@pytest.mark.parametrize("token, value", [
    ("9.200000e+18", 9.2e18), ("0x43E0000000000000", 2.0 ** 63), ("0x0", 0.0), ("-0.000000e+00", -0.0),
    ("0xH3C00", 1.0), ("0x7FF0000000000000", math.inf), ("undef", None), ("0xK4000C000000000000000", None),
])
def test_float_literals_as_llvm_prints_them(token, value):
    assert float_constant(token) == value


def test_fcmp_ordered_predicates_are_false_on_nan_and_unordered_true():
    nan = math.nan
    assert not fcmp("olt", nan, 1.0) and fcmp("ult", nan, 1.0)
    assert fcmp("une", nan, nan) and not fcmp("one", nan, nan) and fcmp("uno", nan, 0.0)
    assert fcmp("oge", 2.0, 2.0) and not fcmp("ogt", 2.0, 2.0) and fcmp("one", 1.0, 2.0)
    assert fcmp("true", nan, nan) and not fcmp("false", 1.0, 1.0)


def test_messages_say_what_to_do_in_the_kernels_language(tmp_path):
    from kernlint.engine import Options, check_paths

    source = tmp_path / "kernels.py"
    source.write_text(
        "from numba import cuda\n\n\n"
        '@cuda.jit("void(int64[::1], float64[::1])")\n'
        "def convert(y, x):\n"
        "    i = cuda.grid(1)\n"
        "    v = x[i]\n"
        "    if v != v:\n"
        "        raise ValueError('NaN')\n"
        "    y[i] = int(v)\n")
    found = [f for f in check_paths([str(source)], Options()).findings if f.code == "KL101"]
    assert len(found) == 1
    message = found[0].message
    assert "remove the guard at line 8 (`int(v)` is already unchecked in numba-cuda)" in message
    assert "--fix --unsafe-fixes" in message and "unchecked_int" not in message
    info = KernelInfo(name="k", path="/src/k.ll", line=1, column=1)
    text = KERNEL.format(condition="%c = fcmp uno double %v, 0.0", true_side="fail", false_side="pass",
                         convert="fptosi", int="i64")
    ir = next(f for f in analyse_kernel(CompiledKernel(info, [text], "k", 0.0), source=None) if f.code == "KL101")
    assert ir.message.endswith("convert unchecked (`kernlint rewrite`)")
