"""`--timeout` guards against compiles that hang, not against large kernels: a kernel's compile
is stopped only when numba-cuda starts no new compiler pass for the limit (more for a kernel
of a large compile size), and the kernel is then reported at its definition, naming the pass."""
import os
import textwrap
import time

import pytest

from kernlint.compile.numba_cuda import compile_file, compile_size
from kernlint.engine import Options, check_paths
from kernlint.python.project import FrontendSettings
from kernlint.workers.worker import SIZE_PER_TIMEOUT, pass_allowance

IMPORTED = FrontendSettings(import_modules=True)  # the intrinsics below are the file's own code

HANGS = '''import os
import time

from numba import cuda
from numba.cuda.extending import intrinsic


@intrinsic
def settle(typingctx, x):
    time.sleep(3600)  # typing a call to it never returns: the kernel's compile hangs
'''

QUICK = '''

@cuda.jit("void(int64[::1], float64[::1])")
def {name}(y, x):
    y[0] = int(x[0])
'''

COUNTED = '''

@intrinsic
def counted(typingctx, x):
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "typed.log"), "a") as log:
        log.write("before\\n")  # each time a worker types it

    def codegen(context, builder, signature, args):
        return args[0]

    return x(x), codegen


@cuda.jit("void(int64[::1], float64[::1])")
def before(y, x):
    y[0] = int(counted(x[0]))
'''

STUCK = '''

@cuda.jit("void(float64[::1])")
def stuck(x):
    x[0] = settle(x[0])
'''


def _stuck_line(text: str) -> int:
    return text.splitlines().index("def stuck(x):") + 1


@pytest.mark.parametrize("server", ["1", "0"], ids=["worker server", "forkserver of the run"])
def test_a_compile_that_hangs_is_reported_at_the_kernel_naming_the_pass_and_the_files_other_kernels_are_checked(
        tmp_path, monkeypatch, server):
    monkeypatch.setenv("KERNLINT_SERVER", server)
    text = HANGS + COUNTED + STUCK + QUICK.format(name="after")
    (tmp_path / "mixed.py").write_text(text)
    report = check_paths([str(tmp_path)], Options(timeout=3, jobs=1, frontend=IMPORTED))
    assert [(f.code, f.kernel, f.line) for f in report.findings] == [("KL902", "stuck", _stuck_line(text))]
    assert report.findings[0].message == (
        "kernel `stuck` failed to compile: numba-cuda's `nopython_type_inference` pass on `stuck` made no "
        "progress for 3 s (--timeout); raise it to check this kernel")
    assert sorted(s.kernel for s in report.stats) == ["after", "before"]  # compiled and analysed
    # the worker stopped on `stuck` had compiled `before`: the next one took only `after`
    assert (tmp_path / "typed.log").read_text() == "before\n"


def test_a_kernel_whose_second_signature_hangs_is_the_one_reported(tmp_path):
    (tmp_path / "twice.py").write_text(textwrap.dedent('''
        import time

        from numba import cuda, types
        from numba.cuda.extending import intrinsic


        @intrinsic
        def settle(typingctx, x):
            if x == types.float32:
                time.sleep(3600)  # the float32 compile hangs, the float64 one does not

            def codegen(context, builder, signature, args):
                return args[0]

            return x(x), codegen


        @cuda.jit(["void(float64[::1])", "void(float32[::1])"])
        def twice(x):
            x[0] = settle(x[0])
    '''))
    report = check_paths([str(tmp_path)], Options(timeout=3, jobs=1, frontend=IMPORTED))
    assert [(f.code, f.kernel) for f in report.findings] == [("KL902", "twice")]
    assert "`nopython_type_inference` pass on `twice` made no progress for 3 s" in report.findings[0].message


def test_a_compile_that_hangs_is_cached_with_the_limit_it_ran_under(tmp_path, monkeypatch):
    import kernlint.workers.worker as worker

    (tmp_path / "mixed.py").write_text(HANGS + STUCK)
    compiled = []
    real = worker.compile_files

    def recording(paths, *args, **kwargs):
        compiled.extend(os.path.basename(p) for p in paths)
        return real(paths, *args, **kwargs)

    monkeypatch.setattr(worker, "compile_files", recording)
    options = Options(timeout=3, jobs=1, cache_root=str(tmp_path), frontend=IMPORTED)
    first = check_paths([str(tmp_path)], options)
    assert [(f.code, f.kernel) for f in first.findings] == [("KL902", "stuck")]
    (tmp_path / "other.py").write_text("x = 1\n")  # the run changed: each file's own entry decides
    again = check_paths([str(tmp_path)], options)
    assert compiled == ["mixed.py"] and [f.message for f in again.findings] == [f.message for f in first.findings]
    longer = check_paths([str(tmp_path)], Options(timeout=4, jobs=1, cache_root=str(tmp_path), frontend=IMPORTED))
    assert compiled == ["mixed.py", "mixed.py"]  # a longer limit compiles it again
    assert "no progress for 4 s (--timeout)" in longer.findings[0].message


def test_a_compile_longer_than_the_limit_that_moves_from_pass_to_pass_is_checked(tmp_path):
    # four device functions whose typing takes 1.2 s each (a slow step, then the compile goes
    # on): 5 s or more in all against a 3 s limit, no pass as long as the limit
    (tmp_path / "slow.py").write_text(textwrap.dedent('''
        import time

        from numba import cuda
        from numba.cuda.extending import intrinsic


        def pausing():
            @intrinsic
            def pause(typingctx, x):
                time.sleep(1.2)

                def codegen(context, builder, signature, args):
                    return args[0]

                return x(x), codegen
            return pause


        pause0, pause1, pause2, pause3 = pausing(), pausing(), pausing(), pausing()


        @cuda.jit(device=True)
        def step0(v):
            return pause0(v)


        @cuda.jit(device=True)
        def step1(v):
            return pause1(v)


        @cuda.jit(device=True)
        def step2(v):
            return pause2(v)


        @cuda.jit(device=True)
        def step3(v):
            return pause3(v)


        @cuda.jit("void(float64[::1], int64[::1])")
        def slow(x, y):
            y[0] = int(step3(step2(step1(step0(x[0])))))
    '''))
    started = time.monotonic()
    report = check_paths([str(tmp_path)], Options(timeout=3, jobs=1, frontend=IMPORTED))
    assert time.monotonic() - started > 4 * 1.2  # longer than the limit, in one kernel's compile
    assert report.findings == []
    assert "slow" in [s.kernel for s in report.stats]  # compiled and analysed


def test_a_device_function_numba_inlines_counts_at_each_call_site_in_the_compile_size(tmp_path):
    (tmp_path / "sizes.py").write_text(textwrap.dedent('''
        from numba import cuda


        @cuda.jit(device=True, inline="always")
        def inlined(u, k):
            s = 0.0
            if k == 0:
                s = (1.0 - u) ** 3
            elif k == 1:
                s = 3.0 * u ** 3 - 6.0 * u ** 2 + 4.0
            return s


        @cuda.jit(device=True)
        def called(u, k):
            s = 0.0
            if k == 0:
                s = (1.0 - u) ** 3
            elif k == 1:
                s = 3.0 * u ** 3 - 6.0 * u ** 2 + 4.0
            return s


        @cuda.jit("void(float64[::1])")
        def once(x):
            x[0] = inlined(x[0], 0)


        @cuda.jit("void(float64[::1])")
        def twice(x):
            x[0] = inlined(x[0], 0) + inlined(x[1], 1)


        @cuda.jit("void(float64[::1])")
        def calls(x):
            x[0] = called(x[0], 0) + called(x[1], 1)


        @cuda.jit("void(float64[::1])")
        def calls_once(x):
            x[0] = called(x[0], 0)
    '''))
    sizes = {}
    compile_file(str(tmp_path / "sizes.py"), starting=lambda place, size: sizes.setdefault(place[0], size))
    # the same bytecode but for the callee: each call site of the inlined function brings its
    # body, a call that stays a call brings nothing
    body = sizes["once"] - sizes["calls_once"]
    assert body == sizes["inlined"] == sizes["called"] > 10
    assert sizes["twice"] - sizes["calls"] == 2 * body


def test_a_compile_size_over_the_reference_gets_a_longer_allowance_per_pass():
    assert pass_allowance(60, 100) == pass_allowance(60, SIZE_PER_TIMEOUT) == 60
    assert pass_allowance(60, 2 * SIZE_PER_TIMEOUT) == 240
    assert pass_allowance(10, 3 * SIZE_PER_TIMEOUT) == 90


def test_the_compile_size_of_a_kernel_without_python_code_is_zero():
    class NotADispatcher:
        pass

    assert compile_size(NotADispatcher()) == 0
