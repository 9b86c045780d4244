"""HIP through hipcc, the AMDGPU rewrite, and --resources against what the backends say."""
import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import FIXTURES, ROOT

needs_hipcc = pytest.mark.skipif(shutil.which("hipcc") is None, reason="needs hipcc (scripts/setup.sh)")
needs_ptxas = pytest.mark.skipif(shutil.which("ptxas") is None, reason="needs ptxas")


def kernlint(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "kernlint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=900, env={**os.environ, "PYTHONPATH": str(ROOT)})


def resources_by_line(path, *extra):
    run = kernlint("check", "--no-cache", "--resources", "--output-format", "json", *extra, str(path))
    assert run.returncode == 1, run.stderr
    return {(d["code"], d["line"]): d.get("resources") for d in json.loads(run.stdout)}


def amdgpu_metadata(assembly, kernel):
    block = re.search(rf"\.name:\s+{re.escape(kernel)}\s*\n(.*?)(?=\n\s+- |\n\.\.\.)", assembly, re.S).group(1)
    values = dict(re.findall(r"\.(vgpr_count|sgpr_count|private_segment_fixed_size):\s+(\d+)", block))
    return int(values["vgpr_count"]), int(values["sgpr_count"]), int(values["private_segment_fixed_size"])


@needs_hipcc
def test_hip_resources_match_the_amdgpu_backend(tmp_path):
    from llvmlite import binding as llvm

    found = resources_by_line(FIXTURES / "hip_kernels.hip")
    printf = found[("KL301", 11)]
    assert printf["target"] == "gfx90a"
    # the same numbers straight from hipcc's bitcode through llvmlite's AMDGPU backend
    bitcode = tmp_path / "k.bc"
    subprocess.run(["hipcc", "-x", "hip", "--offload-arch=gfx90a", "--cuda-device-only", "-emit-llvm", "-c",
                    "-O2", "-g", str(FIXTURES / "hip_kernels.hip"), "-o", str(bitcode)], check=True,
                   env={**os.environ, "HIP_PLATFORM": "amd"})
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    machine = llvm.Target.from_triple("amdgcn-amd-amdhsa").create_target_machine(cpu="gfx90a", opt=2)
    assembly = machine.emit_assembly(llvm.parse_bitcode(bitcode.read_bytes()))
    vgpr, sgpr, scratch = amdgpu_metadata(assembly, "_Z11print_guardPlPKdi")
    assert (printf["as_is"]["vgpr"], printf["as_is"]["sgpr"], printf["as_is"]["scratch_bytes"]) == (vgpr, sgpr, scratch)
    plain = amdgpu_metadata(assembly, "_Z5plainPlPKdi")
    without = printf["without"]
    # without its printf path the print-guarded kernel costs what the plain conversion costs
    assert scratch > 0 and without["scratch_bytes"] == plain[2] == 0
    assert without["vgpr"] < vgpr and without["sgpr"] < sgpr
    assert found[("KL202", 25)]["without"] is None  # a normal-path allocation has no path to remove


@needs_ptxas
def test_nvptx_resources_match_ptxas(tmp_path):
    from kernlint.compile.numba_cuda import compile_file
    from kernlint.rewrite.verify import nvvm_ptx

    found = resources_by_line(FIXTURES / "print_guard.py")
    kernel = compile_file(str(FIXTURES / "print_guard.py"), runnable=True).kernels[0]
    source = tmp_path / "k.ptx"
    source.write_text(re.sub(r"^\.version \d+\.\d+", ".version 9.0", nvvm_ptx(kernel.runnable, (9, 0), kernel.options),
                             flags=re.M))
    report = subprocess.run(["ptxas", "-arch=sm_90", "-v", str(source), "-o", str(tmp_path / "k.cubin")],
                            capture_output=True, text=True).stderr
    registers = int(re.search(r"Used (\d+) registers", report).group(1))
    stack = int(re.search(r"(\d+) bytes stack frame", report).group(1))
    kl101 = found[("KL101", 13)]
    assert kl101["target"] == "sm_90"
    assert (kl101["as_is"]["registers"], kl101["as_is"]["stack_bytes"]) == (registers, stack) == (24, 24)
    assert (kl101["without"]["registers"], kl101["without"]["stack_bytes"]) == (14, 0)
    text = kernlint("check", "--no-cache", "--resources", str(FIXTURES / "print_guard.py")).stdout
    assert "resources (sm_90, as is -> without this path): 24 -> 14 registers, 24 -> 0 B stack" in text


@needs_hipcc
def test_amdgpu_rewrite_is_fptosi_and_freeze_verified_by_the_backend(tmp_path):
    from llvmlite import binding as llvm

    run = kernlint("rewrite", str(FIXTURES / "hip_kernels.hip"), "-o", str(tmp_path))
    assert run.returncode == 0, run.stderr
    written = sorted(p.name for p in (tmp_path / "hip_kernels").iterdir())
    # named by the kernels' C++ names and parameter types, demangled
    assert written == ["asserted-long_p_double_const_p_int.ll", "print_guard-long_p_double_const_p_int.ll",
                       "trapped-int_p_float_const_p_int.ll"]
    assert "hip_kernels.hip::print_guard(long*, double const*, int): 1 conversion(s) unguarded" in run.stderr
    text = (tmp_path / "hip_kernels" / "print_guard-long_p_double_const_p_int.ll").read_text()
    assert re.search(r'%"kernlint\.unchecked\.\d+" = fptosi double %\d+ to i64', text)
    assert re.search(r'%\d+ = freeze i64 %"kernlint\.unchecked\.\d+"', text)
    assert "__ockl_hostcall_internal(" not in text.split("define protected amdgpu_kernel")[1].split("\n}\n")[0]
    llvm.initialize_all_targets()
    llvm.initialize_all_asmprinters()
    machine = llvm.Target.from_triple("amdgcn-amd-amdhsa").create_target_machine(cpu="gfx90a", opt=2)
    assembly = machine.emit_assembly(llvm.parse_assembly(text))
    assert amdgpu_metadata(assembly, "_Z11print_guardPlPKdi")[2] == 0  # no scratch left
    saturated = kernlint("rewrite", "--mode", "saturate", "--diff", str(FIXTURES / "hip_kernels.hip")).stdout
    assert "@llvm.fptosi.sat.i64.f64(double" in saturated


@needs_hipcc
def test_hip_compile_errors_are_located(tmp_path):
    (tmp_path / "bad.hip").write_text("#include <hip/hip_runtime.h>\n__global__ void k(int *y) {\n"
                                      "  y[0] = undefined_thing;\n}\n")
    run = kernlint("check", "--no-cache", "--output-format", "json", str(tmp_path / "bad.hip"))
    [finding] = json.loads(run.stdout)
    assert (finding["code"], finding["line"], finding["column"]) == ("KL902", 3, 10)
    assert "undeclared identifier 'undefined_thing'" in finding["message"]
