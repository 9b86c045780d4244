"""KL902 names what stops a kernel, not what numba trips over later: a launch or a written
signature with another number of arguments than the def takes, and a module that makes a CUDA
ufunc (`@vectorize(..., target='cuda')`, compiled eagerly) needs no driver to be read."""
import textwrap

from conftest import FIXTURES
from kernlint.engine import Options, check_paths

BAD = FIXTURES / "bad_kernels.py"


def _kl902(report, kernel):
    return [f.message for f in report.findings + report.skipped if f.code in ("KL902", "KL903")
            and f.kernel == kernel]


def test_a_launch_with_one_argument_too_many_is_named():
    report = check_paths([str(BAD)], Options(timeout=120))
    lines = BAD.read_text().splitlines()
    launch = next(n for n, text in enumerate(lines, start=1) if "scaled[1, 32](out, x, 2, 0.5)" in text)
    [message] = _kl902(report, "scaled")
    assert f"the launch at line {launch} passes 4 arguments, but `scaled` takes 3" in message
    [message] = _kl902(report, "one_type_short")
    assert "the signature its decorator gives has 1 argument types, but `one_type_short` takes 2" in message
    assert [s.signature for s in report.stats if s.kernel == "shifted"] == ["void(float64[::1], float64[::1], int64)"]
    # the miscounted launch gives no type: the kernel is still checked as its body reads
    assert [s.signature_source for s in report.stats if s.kernel == "scaled"] == ["inferred"]


def test_a_cuda_ufunc_beside_the_kernels_is_made_without_a_driver(tmp_path):
    (tmp_path / "kernels.py").write_text(textwrap.dedent("""\
        import math
        from numba import cuda, vectorize


        @vectorize(["float32(float32)"], target="cuda")
        def logistic(x):
            return 1.0 / (1.0 + math.exp(-x))


        @cuda.jit("void(float32[::1], float32[::1])")
        def through_ufunc(out, x):
            i = cuda.grid(1)
            out[i] = logistic(x[i])


        @cuda.jit("void(float32[::1], float32[::1])")
        def inline(out, x):
            i = cuda.grid(1)
            out[i] = 1.0 / (1.0 + math.exp(-x[i]))
    """))
    report = check_paths([str(tmp_path / "kernels.py")], Options(timeout=120))
    [message] = _kl902(report, "through_ufunc")
    # numba-cuda's own word: a CUDA ufunc is called from the host, never from a kernel
    assert "Untyped global name 'logistic'" in message and "CUDAUFuncDispatcher" in message
    assert "driver" not in message
    assert [s.kernel for s in report.stats] == ["inline"]


def test_a_star_parameter_kernel_no_launch_types_says_why(tmp_path):
    (tmp_path / "kernels.py").write_text(textwrap.dedent("""\
        from numba import cuda


        @cuda.jit
        def extend(xs, ys, *aggs):
            i = cuda.grid(1)
            if i < xs.shape[0]:
                aggs[0][i] = xs[i] + ys[i]


        @cuda.jit
        def add(xs, ys, out):
            i = cuda.grid(1)
            if i < xs.shape[0]:
                out[i] = xs[i] + ys[i]
    """))
    report = check_paths([str(tmp_path / "kernels.py")], Options(timeout=120))
    [message] = {m for m in _kl902(report, "extend")}  # KL903 is in both lists
    assert "its body gives no arity for `*aggs`" in message
    assert [s.kernel for s in report.stats] == ["add"]


def test_a_def_redefined_further_down_is_not_blamed_for_the_launches_of_the_one_that_replaced_it(tmp_path):
    """Python rebinds the name at the second def: the script's three-argument launch runs the
    second `step`. The first one is not told it was launched with one argument too many; it is
    checked as its body reads, and the second with the launch's types. A launch that fits no def
    of the name is still named."""
    (tmp_path / "kernels.py").write_text(textwrap.dedent("""\
        from numba import cuda


        @cuda.jit
        def step(x, n):
            i = cuda.grid(1)
            if i < n:
                x[i] += 1.0


        @cuda.jit
        def step(x, y, n):
            i = cuda.grid(1)
            if i < n:
                x[i] += y[i]
    """))
    (tmp_path / "run.py").write_text(textwrap.dedent("""\
        import numpy as np
        from numba import cuda

        from kernels import step

        x = cuda.to_device(np.zeros(64, dtype=np.float32))
        y = cuda.to_device(np.ones(64, dtype=np.float32))
        step[1, 64](x, y, 64)
    """))
    report = check_paths([str(tmp_path)], Options(timeout=120))
    assert _kl902(report, "step") == []
    checked = sorted((s.line, s.signature, s.signature_source) for s in report.stats if s.kernel == "step")
    assert checked == [(5, "void(float64[::1], int64)", "inferred"),
                       (12, "void(float32[::1], float32[::1], int64)", "launch-site")]
    (tmp_path / "run.py").write_text((tmp_path / "run.py").read_text() + "step[1, 64](x, y, y, 64)\n")
    report = check_paths([str(tmp_path)], Options(timeout=120))
    assert len(_kl902(report, "step")) == 2  # four arguments: neither def takes them
