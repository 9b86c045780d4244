"""The rewrite's shape: what it edits, what it keeps, how it is verified, what it writes."""
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import FIXTURES, ROOT
from irtext import JULIA_CHECKED_INT
from kernlint.findings import KernelInfo
from kernlint.compile.numba_cuda import CompiledKernel, compile_file
from kernlint.rewrite.command import rewrite_kernel
from kernlint.rewrite.verify import amdgpu_assembly


def compiled(path, name):
    result = compile_file(str(path), runnable=True)
    return next(k for k in result.kernels if k.info.name == name)


def ptxas_resources(ptx, tmp_path):
    """(registers, stack bytes) from ptxas -v for sm_90 (PTX version lowered to ptxas's)."""
    source = tmp_path / "k.ptx"
    source.write_text(re.sub(r"^\.version \d+\.\d+", ".version 9.0", ptx, flags=re.M))
    out = subprocess.run(["ptxas", "-arch=sm_90", "-v", str(source), "-o", str(tmp_path / "k.cubin")],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    registers = int(re.search(r"Used (\d+) registers", out.stderr).group(1))
    stack = int(re.search(r"(\d+) bytes stack frame", out.stderr).group(1))
    return registers, stack


def test_print_guard_is_cut_and_its_error_path_deleted():
    kernel = compiled(FIXTURES / "print_guard.py", "print_guarded")
    rewrite = rewrite_kernel(kernel, "unchecked", (9, 0))
    assert not rewrite.refused
    text = rewrite.rewritten[0]
    assert "vprintf(" not in text.split("declare")[0]  # the print block is gone
    assert "freeze" not in text  # NVVM rejects freeze: plain fptosi is the unchecked form
    assert re.search(r"fptosi double %\"[^\"]+\" to i64", text)
    assert rewrite.removed_blocks == 1 and rewrite.unguarded == 1
    assert ".entry" in rewrite.ptx  # NVVM compiled it
    # minimal edits: every line left is one of the producer's own lines, but the cut branches
    original = set(kernel.runnable[0].splitlines())
    added = [line for line in text.splitlines() if line not in original]
    assert added and all(line.strip().startswith("br label") for line in added)


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="needs ptxas")
@pytest.mark.parametrize("fixture, kernel", [
    ("print_guard.py", "print_guarded"), ("raise_guard.py", "raise_guarded")])
def test_rewritten_kernel_costs_what_a_hand_written_unchecked_one_costs(tmp_path, fixture, kernel):
    rewrite = rewrite_kernel(compiled(FIXTURES / fixture, kernel), "unchecked", (9, 0))
    hand = tmp_path / "hand.py"
    hand.write_text(textwrap.dedent('''
        from numba import cuda

        @cuda.jit("void(int64[::1], float64[::1])")
        def plain(y, x):
            i = cuda.grid(1)
            if i < x.size:
                y[i] = int(x[i])
    '''))
    from kernlint.rewrite.verify import nvvm_ptx

    plain = compiled(hand, "plain")
    assert ptxas_resources(rewrite.ptx, tmp_path) == ptxas_resources(
        nvvm_ptx(plain.runnable, (9, 0), plain.options), tmp_path)


def test_saturate_mode_on_nvvm_uses_libdevice_round_toward_zero():
    rewrite = rewrite_kernel(compiled(FIXTURES / "assert_kernel.py", "asserted"), "saturate", (9, 0))
    assert not rewrite.refused
    assert '@"__nv_float2int_rz"' in rewrite.rewritten[0]
    assert "cvt.rzi.s32.f32" in rewrite.ptx


def test_guards_that_protect_other_things_stay(tmp_path):
    source = tmp_path / "mixed.py"
    source.write_text(textwrap.dedent('''
        from numba import cuda

        @cuda.jit("void(int64[::1], float64[::1], int64)")
        def mixed(y, x, n):
            i = cuda.grid(1)
            v = x[i]
            if v != v or i >= n:
                raise ValueError("bad")
            y[i] = int(v)
    '''))
    kernel = compiled(source, "mixed")
    rewrite = rewrite_kernel(kernel, "unchecked", (9, 0))
    assert not rewrite.refused and rewrite.unguarded == 1
    text = rewrite.rewritten[0]
    assert text.count("br i1") == kernel.runnable[0].count("br i1") - 1  # only the NaN test went
    assert "icmp sge i64" in text  # the bound check on i is kept, with its error path


def test_generic_llvm_gets_fptosi_and_freeze_verified_by_the_amdgpu_backend():
    info = KernelInfo(name="convert_kernel", path="/src/kernels.jl", line=9, column=1)
    kernel = CompiledKernel(info, [JULIA_CHECKED_INT], "convert_kernel", 0.0)
    rewrite = rewrite_kernel(kernel, "unchecked", (9, 0))
    assert not rewrite.refused, rewrite.refused
    text = rewrite.rewritten[0]
    assert '%"kernlint.unchecked.r" = fptosi double %v to i64' in text
    assert '%r = freeze i64 %"kernlint.unchecked.r"' in text
    assert "gpu_gc_pool_alloc(" not in text.split("declare")[0] and "fail:" not in text
    assert amdgpu_assembly(rewrite.rewritten)  # the object the backend made
    saturated = rewrite_kernel(kernel, "saturate", (9, 0)).rewritten[0]
    assert "call i64 @llvm.fptosi.sat.i64.f64(double %v)" in saturated
    assert "declare i64 @llvm.fptosi.sat.i64.f64(double)" in saturated


def test_a_rewrite_that_does_not_verify_is_refused_and_the_original_kept():
    kernel = compiled(FIXTURES / "print_guard.py", "print_guarded")
    label = re.findall(r"^(B\d+):", kernel.runnable[0], re.M)[-1]  # a block some branch targets
    broken = CompiledKernel(kernel.info, kernel.modules, kernel.entry, 0.0,
                            [kernel.runnable[0].replace(f"{label}:", f"{label}x:")], kernel.options)
    rewrite = rewrite_kernel(broken, "unchecked", (9, 0))
    assert rewrite.refused and "does not parse" in rewrite.refused
    assert rewrite.rewritten == broken.runnable


def test_intrinsics_compile_to_the_unchecked_forms(tmp_path):
    source = tmp_path / "intrinsics.py"
    source.write_text(textwrap.dedent('''
        import numba
        from numba import cuda
        from kernlint import saturating_int, unchecked_int

        @cuda.jit("void(uint64[::1], float64[::1], int8[::1])")
        def both(y, x, z):
            i = cuda.grid(1)
            y[i] = unchecked_int(x[i], numba.uint64)
            z[i] = saturating_int(x[i], numba.int8)
    '''))
    kernel = compiled(source, "both")
    text = kernel.modules[0]
    assert re.search(r"fptoui double %\"?[.\w]+\"? to i64", text)
    assert '@"__nv_double2int_rz"' in text and "select" in text


def kernlint(*args):
    return subprocess.run([sys.executable, "-m", "kernlint", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=600)


def test_cli_writes_ir_and_ptx_and_prints_diffs(tmp_path):
    run = kernlint("rewrite", "fixtures/print_guard.py", "fixtures/clean.py", "-o", str(tmp_path))
    assert run.returncode == 0, run.stderr
    written = sorted(p.name for p in (tmp_path / "print_guard").iterdir())
    assert written == ["print_guarded-void_int64_1_float64_1.ll", "print_guarded-void_int64_1_float64_1.ptx"]
    assert "Rewrote 1 of 1 kernel(s)" in run.stderr
    diff = kernlint("rewrite", "--diff", "fixtures/raise_guard.py")
    assert diff.returncode == 0
    assert re.search(r"^-  br i1 .*label %\"B\d+\"", diff.stdout, re.M)
    assert re.search(r"^\+  br label %\"B\d+\"", diff.stdout, re.M)
    assert kernlint("rewrite", "fixtures/print_guard.py").returncode == 2  # no -o, no --diff


# -- the conditions that keep a rewrite safe ---------------------------------------------------

def test_a_nan_test_and_an_index_test_in_one_branch_stay(tmp_path):
    """`(v != v) | (i >= n)` is one branch: cutting it would drop the index test with the NaN test."""
    kernel = compiled(FIXTURES / "domain_checks.py", "nan_or_index")
    assert "or i1" in kernel.runnable[0] or " or i8" in kernel.runnable[0]  # one branch, both tests
    rewrite = rewrite_kernel(kernel, "unchecked", (9, 0))
    assert rewrite is not None and rewrite.unfixable == 1 and rewrite.unguarded == 0
    assert rewrite.removed_blocks == 0 and rewrite.rewritten == list(kernel.runnable)


@pytest.mark.parametrize("kernel", ["histogram_bins", "grid_cell", "non_negative", "nan_or_bins",
                                    "rejects_the_range", "checked_on_another_path"])
def test_domain_checks_are_not_rewritten(kernel):
    assert rewrite_kernel(compiled(FIXTURES / "domain_checks.py", kernel), "unchecked", (9, 0)) is None


def test_a_broken_rewrite_is_refused_with_llvms_words_and_the_process_lives(monkeypatch):
    """LLVM aborts the process on a module with debug info that fails its verifier
    ("Broken module found"): the check runs where that abort cannot take this run down."""
    from kernlint.rewrite import command

    original = command.rewrite_module

    def breaking(text, plans, mode):
        edit = original(text, plans, mode)
        converted = re.search(r'(%"?[.\w]+"?) = fptosi double', edit.rewritten).group(1)
        # a use of the conversion before it is defined: the verifier's "does not dominate"
        edit.rewritten = edit.rewritten.replace("\nentry:\n", f"\nentry:\n  %\"kl.bad\" = add i64 {converted}, 0\n", 1)
        return edit

    monkeypatch.setattr(command, "rewrite_module", breaking)
    kernel = compiled(FIXTURES / "print_guard.py", "print_guarded")
    rewrite = rewrite_kernel(kernel, "unchecked", (9, 0))
    assert "Instruction does not dominate all uses" in rewrite.refused
    assert "Broken module found" in rewrite.refused and "SIGABRT" in rewrite.refused
    assert rewrite.rewritten == list(kernel.runnable)


def test_nvvm_leaving_an_intrinsic_unresolved_refuses_the_rewrite():
    from kernlint.rewrite.verify import VerificationError, nvvm_ptx

    kernel = compiled(FIXTURES / "print_guard.py", "print_guarded")
    text = kernel.runnable[0]
    conversion = re.search(r'(%"?[.\w]+"?) = fptosi double (%"?[.\w]+"?) to i64', text)
    call = f'%"kl.r" = call double @"llvm.roundeven.f64"(double {conversion.group(2)})'
    text = text.replace(conversion.group(0), call + "\n  " + conversion.group(0))
    text += '\ndeclare double @"llvm.roundeven.f64"(double)\n'
    assert ".entry" in nvvm_ptx(kernel.runnable, (9, 0), kernel.options)
    with pytest.raises(VerificationError, match="unresolved intrinsics: llvm.roundeven.f64"):
        nvvm_ptx([text], (9, 0), kernel.options)


def test_the_amdgpu_backend_refusing_a_rewrite_is_reported_not_fatal():
    """LLVM's backends stop the process on what they cannot compile (a crash, a fatal error):
    the rewrite is refused with what happened, and this run goes on."""
    from kernlint.rewrite.verify import VerificationError, verify

    info = KernelInfo(name="convert_kernel", path="/src/kernels.jl", line=9, column=1)
    rewritten = rewrite_kernel(CompiledKernel(info, [JULIA_CHECKED_INT], "convert_kernel", 0.0),
                               "unchecked", (9, 0)).rewritten[0]
    assert verify([rewritten], "amdgpu", (9, 0), {}) == ""
    nvptx_only = rewritten.replace(
        "%r = freeze i64 %\"kernlint.unchecked.r\"",
        "%tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n  %r = sext i32 %tid to i64",
    ) + "\ndeclare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    assert nvptx_only != rewritten + "\ndeclare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    with pytest.raises(VerificationError, match="AMDGPU backend"):
        verify([nvptx_only], "amdgpu", (9, 0), {})
    with pytest.raises(VerificationError, match="AMDGPU backend"):
        verify([JULIA_CHECKED_INT], "amdgpu", (9, 0), {})  # llvmlite's backend crashes on the original
