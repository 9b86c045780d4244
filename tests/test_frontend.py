"""The numba.cuda frontend: signatures, options, and user modules that misbehave at import."""
import textwrap

import pytest

from kernlint.engine import Options, check_paths
from kernlint.frontends.numba_cuda import compile_file, parse_cc


@pytest.mark.parametrize("arch, cc", [("sm_90", (9, 0)), ("80", (8, 0)), ("sm_120", (12, 0)), ("8.6", (8, 6))])
def test_parse_cc(arch, cc):
    assert parse_cc(arch) == cc


def test_eager_signatures_compile_without_a_gpu_and_keep_user_options(tmp_path):
    source = tmp_path / "k.py"
    source.write_text(textwrap.dedent('''
        from numba import cuda

        @cuda.jit(["void(float32[::1])", "void(float64[::1])"], debug=True, opt=False)
        def twice(x):
            x[0] = x[0] * 2
    '''))
    result = compile_file(str(source))
    assert [k.info.signature for k in result.kernels] == ["void(float32[::1])", "void(float64[::1])"]
    kernel = result.kernels[0]
    assert kernel.info.options == {"debug": True, "opt": False, "lineinfo": False, "fastmath": False}
    assert kernel.info.option_lines["debug"] == (4, 57)
    assert "!DILocation" in kernel.modules[0]  # line info, whatever the user asked for
    assert kernel.entry in kernel.modules[0]


def test_misbehaving_modules_are_reported_and_the_run_goes_on(tmp_path):
    (tmp_path / "hangs.py").write_text("import time\nfrom numba import cuda\nwhile True:\n    time.sleep(1)\n")
    (tmp_path / "exits.py").write_text("import sys\nfrom numba import cuda\nsys.exit(3)\n")
    (tmp_path / "crashes.py").write_text("import os\nfrom numba import cuda\nos._exit(7)\n")
    (tmp_path / "good.py").write_text(textwrap.dedent('''
        from numba import cuda

        @cuda.jit("void(int64[::1])")
        def fine(y):
            y[0] = 1
    '''))
    report = check_paths([str(tmp_path)], Options(timeout=10, jobs=2))
    by_file = {f.path.rsplit("/", 1)[-1]: f for f in report.findings}
    assert set(by_file) == {"hangs.py", "exits.py", "crashes.py"}
    assert all(f.code == "KL901" for f in by_file.values())
    assert "longer than 10 s" in by_file["hangs.py"].message
    assert "SystemExit" in by_file["exits.py"].message and by_file["exits.py"].line == 3
    assert "exit code 7" in by_file["crashes.py"].message
    assert [s.kernel for s in report.stats] == ["fine"]


def test_the_time_limit_applies_to_each_step_not_to_the_whole_file(tmp_path):
    kernels = "".join(f'''

@cuda.jit("void(int64[::1], float64[::1])")
def k{n}(y, x):
    y[0] = int(x[0] * {n}.5)
''' for n in range(200))
    (tmp_path / "many.py").write_text("from numba import cuda\n" + kernels)
    report = check_paths([str(tmp_path)], Options(timeout=1, jobs=1))
    assert report.findings == []  # 200 compilations take longer than 1 s together, none alone
    assert len(report.stats) == 200
