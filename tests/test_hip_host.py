"""Host rules on HIP C++ host code: read from the host side's LLVM IR (hipcc --cuda-host-only)."""
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT
from kernlint.analysis.cfg import ControlFlow
from kernlint.ir.reader import parse_module

needs_hipcc = pytest.mark.skipif(shutil.which("hipcc") is None, reason="needs hipcc (scripts/setup.sh)")

KERNEL = """#include <hip/hip_runtime.h>
__global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"""


def check(tmp_path, source, *args):
    (tmp_path / "k.hip").write_text(KERNEL + textwrap.dedent(source))
    run = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--preview", "--output-format",
                          "json", *args, "k.hip"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode in (0, 1), run.stderr
    return [(f["code"], f["line"], f["message"]) for f in json.loads(run.stdout)]


@needs_hipcc
def test_a_launcher_that_allocates_and_frees_per_call(tmp_path):
    found = check(tmp_path, """
        void launch(const float *x, int n) {
            float *scratch;
            hipMalloc(&scratch, n * sizeof(float));
            scale<<<(n + 255) / 256, 256>>>(scratch, 2.0f, n);
            hipFree(scratch);
        }
    """)
    assert [(code, line) for code, line, _ in found] == [("KL501", 9)]
    assert "on every call of `launch`" in found[0][2] and "hipMallocAsync" in found[0][2]


@needs_hipcc
def test_suppressions_in_cpp_comments(tmp_path):
    found = check(tmp_path, """
        void steps(float *d, float *h, int n) {
            for (int s = 0; s < 10; ++s) {
                scale<<<1, 256>>>(d, 0.5f, n);
                hipDeviceSynchronize();  // noqa: KL503
                hipMemcpy(h, d, n * sizeof(float), hipMemcpyDeviceToHost);  // kernlint: ignore[KL503]
            }
        }
    """)
    assert found == []


@needs_hipcc
def test_host_code_that_does_not_compile_keeps_the_device_findings(tmp_path):
    found = check(tmp_path, """
        __global__ void noisy(float *x) { printf("thread %d\\n", (int)threadIdx.x); }
        #ifndef __HIP_DEVICE_COMPILE__
        void host_only() { undeclared_function(); }
        #endif
    """)
    codes = {(code, line) for code, line, _ in found}
    assert ("KL301", 7) in codes
    host = [m for code, line, m in found if code == "KL902"]
    assert ("KL902", 9) in codes and "host code failed to compile" in host[0]


@needs_hipcc
def test_statistics_show_the_host_compile_separately(tmp_path):
    (tmp_path / "k.hip").write_text(KERNEL)
    run = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--statistics", "k.hip"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600,
                         env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "k.hip::(host code)" in run.stdout and "All checks passed (1 kernel in 1 file)." in run.stdout


LOOPS = """
define void @f(i1 %c, i1 %d) {
entry:
  br label %outer
outer:
  br label %inner
inner:
  br i1 %c, label %inner, label %latch
latch:
  br i1 %d, label %outer, label %exit
exit:
  ret void
}
"""


def test_natural_loops_from_back_edges():
    flow = ControlFlow(parse_module(LOOPS).functions["f"])
    assert flow.dominates("outer", "latch") and flow.dominates("inner", "exit") and not flow.dominates("latch", "inner")
    loops = flow.loops()
    assert [(l.header, sorted(l.body), sorted(l.latches)) for l in loops] == [
        ("outer", ["inner", "latch", "outer"], ["latch"]), ("inner", ["inner"], ["inner"])]
    assert loops[0].exits == {"latch"}
