"""@no_hostcall on eager signatures, on a machine without a GPU (each case in its own
interpreter: without a driver the decorator's import makes cuda.jit record signatures)."""
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

PRINT_GUARD = '''
    def convert(y, x):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            if v != v:
                print("NaN at", i)
                return
            y[i] = int(v)
'''


def run(tmp_path, decorators, body=PRINT_GUARD, env=None):
    source = tmp_path / "kernels.py"
    source.write_text(textwrap.dedent('''
        import warnings
        from numba import cuda
        from kernlint import HostcallError, no_hostcall
        try:
    ''') + textwrap.indent(textwrap.dedent(decorators) + textwrap.dedent(body), "    ") + textwrap.dedent('''
        except HostcallError as error:
            print("HostcallError")
            print(error)
        else:
            print("defined", type(convert).__name__)
    '''))
    environment = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    done = subprocess.run([sys.executable, str(source)], capture_output=True, text=True, env=environment,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr, source


def line_of(source, text):
    return next(n for n, line in enumerate(source.read_text().splitlines(), 1) if text in line)


def test_forbidden_paths_raise_at_definition_with_file_line_code_and_source(tmp_path):
    out, _, source = run(tmp_path, '''
        @no_hostcall
        @cuda.jit("void(int64[::1], float64[::1])")
    ''')
    assert out.startswith("HostcallError")
    assert "kernel `convert` (void(int64[::1], float64[::1])) has forbidden code paths:" in out
    assert f"{source}:{line_of(source, 'print(')}: KL301 " in out and 'print("NaN at", i)' in out
    assert f"{source}:{line_of(source, 'int(v)')}: KL101 " in out and "y[i] = int(v)" in out


@pytest.mark.parametrize("options", ['fix=True', 'allow=("KL301", "KL101")', 'allow=("KL1", "KL3")'])
def test_allowed_or_fixed_kernels_are_defined(tmp_path, options):
    out, _, _ = run(tmp_path, f'''
        @no_hostcall({options})
        @cuda.jit("void(int64[::1], float64[::1])")
    ''')
    assert out.strip() == "defined CUDADispatcher"


def test_fix_cannot_remove_a_print_on_the_normal_path(tmp_path):
    out, _, source = run(tmp_path, '''
        @no_hostcall(fix=True)
        @cuda.jit("void(int64[::1], float64[::1])")
    ''', body='''
    def convert(y, x):
        i = cuda.grid(1)
        print("thread", i)
        y[i] = int(x[i])
    ''')
    assert out.startswith("HostcallError") and f"{source}:{line_of(source, 'print(')}: KL301" in out
    assert "KL101" not in out


def test_decorator_order_is_explained(tmp_path):
    source = tmp_path / "wrong.py"
    source.write_text(textwrap.dedent('''
        from numba import cuda
        from kernlint import no_hostcall

        @cuda.jit("void(int64[::1])")
        @no_hostcall
        def convert(y):
            y[0] = 1
    '''))
    done = subprocess.run([sys.executable, str(source)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert done.returncode == 1
    assert "TypeError: @no_hostcall must be applied above @cuda.jit" in done.stderr


@pytest.mark.parametrize("decorator", ["@no_hostcall", "@no_hostcall(fix=True)"])
def test_simulator_passes_the_kernel_through_with_a_warning_at_the_kernel(tmp_path, decorator):
    out, err, source = run(tmp_path, f'''
        {decorator}
        @cuda.jit("void(int64[::1], float64[::1])")
    ''', env={"NUMBA_ENABLE_CUDASIM": "1"})
    assert out.strip() == "defined FakeCUDAKernel"
    assert "CUDA simulator, which has no IR to check" in err
    # at the decorated kernel (its first decorator's line, as Python numbers a def), not `sys:1`
    assert f"{source}:{line_of(source, '@no_hostcall')}: UserWarning: @no_hostcall" in err, err


def test_fix_says_what_it_rewrote_naming_the_kernel_and_the_guard(tmp_path):
    out, err, source = run(tmp_path, '''
        @no_hostcall(fix=True)
        @cuda.jit("void(int64[::1], float64[::1])")
    ''')
    assert out.strip() == "defined CUDADispatcher"
    [warning] = [line for line in err.splitlines() if "HostcallFixWarning" in line]
    assert warning.startswith(f"{source}:{line_of(source, '@no_hostcall')}: HostcallFixWarning: ")
    assert "`convert(void(int64[::1], float64[::1]))`" in warning
    assert f"kernels.py:{line_of(source, 'int(v)')} rewritten to the unchecked form" in warning


# -- fix=True and lazy signatures, without a GPU ----------------------------------------------
# A lazy kernel compiles at its first launch; here numba-cuda's own compile is driven the same
# way (Dispatcher.compile, which calls the decorator's add_overload), with the two steps that
# need a driver left out: binding the cubin, and asking the device for its compute capability.

LAZY_RUNNER = '''
import re
from numba import cuda, types
from numba.cuda import codegen, dispatcher
from kernlint import HostcallError, no_hostcall
from kernlint.compile import numba_cuda

codegen.CUDACodeLibrary._ensure_cc = lambda self, cc: cc or (9, 0)
dispatcher._Kernel.bind = lambda self: None
ARGS = (types.Array(types.int64, 1, "C"), types.Array(types.float64, 1, "C"))
'''


def run_lazy(tmp_path, decorators, body):
    source = tmp_path / "lazy_kernels.py"
    source.write_text(LAZY_RUNNER + textwrap.dedent(decorators) + textwrap.dedent(body) + textwrap.dedent('''
        try:
            with numba_cuda.offline_device((9, 0)):
                convert.compile(ARGS)
        except HostcallError as error:
            print("HostcallError")
            print(error)
        else:
            code = convert.overloads[ARGS]._codelibrary.llvm_strs
            defined = "".join(re.findall(r"^define .*?^}", "\\n".join(code), re.M | re.S))
            print("compiled", "prints" if re.search(r'@"?vprintf"?\\(', defined) else "no print",
                  "converts" if "fptosi" in defined else "no conversion")
    '''))
    done = subprocess.run([sys.executable, str(source)], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout, source


def test_a_lazy_signature_is_checked_at_its_first_compile(tmp_path):
    out, source = run_lazy(tmp_path, "@no_hostcall\n@cuda.jit\n", PRINT_GUARD)
    assert out.startswith("HostcallError") and "(void(int64[::1], float64[::1]))" in out
    assert f"{source}:{line_of(source, 'print(')}: KL301 " in out
    assert f"{source}:{line_of(source, 'int(v)')}: KL101 " in out


def test_fix_installs_the_rewritten_code_for_a_lazy_signature(tmp_path):
    out, _ = run_lazy(tmp_path, "@no_hostcall(fix=True)\n@cuda.jit\n", PRINT_GUARD)
    assert out.strip() == "compiled no print converts"  # the code numba will run is the rewrite


def test_fix_checks_the_rewritten_kernel_again(tmp_path):
    """The guard's print goes with the rewrite; a print on the normal path stays and refuses it."""
    body = '''
    def convert(y, x):
        i = cuda.grid(1)
        print("thread", i)
        if i < x.size:
            v = x[i]
            if v != v:
                print("NaN at", i)
                return
            y[i] = int(v)
    '''
    out, source = run_lazy(tmp_path, "@no_hostcall(fix=True)\n@cuda.jit\n", body)
    assert out.startswith("HostcallError"), out
    assert f"{source}:{line_of(source, 'thread')}: KL301 " in out
    assert "NaN at" not in out.split("forbidden code paths:")[1]  # that one the rewrite removed
    eager, _, source = run(tmp_path, '''
        @no_hostcall(fix=True)
        @cuda.jit("void(int64[::1], float64[::1])")
    ''', body=body)
    assert eager.startswith("HostcallError") and f"{source}:{line_of(source, 'thread')}: KL301 " in eager


def test_fix_leaves_a_domain_check_and_refuses_its_print(tmp_path):
    """A histogram's bounds are the program's: fix=True must not remove them."""
    body = '''
    def convert(y, x):
        i = cuda.grid(1)
        if i < x.size:
            v = x[i]
            if v < 0.0 or v >= 256.0:
                print("out of range", i)
                return
            y[i] = int(v)
    '''
    out, source = run_lazy(tmp_path, "@no_hostcall(fix=True)\n@cuda.jit\n", body)
    assert out.startswith("HostcallError") and "KL101" not in out
    assert f"{source}:{line_of(source, 'print(')}: KL301 " in out
    allowed, _ = run_lazy(tmp_path, '@no_hostcall(fix=True, allow=("KL301",))\n@cuda.jit\n', body)
    assert allowed.strip() == "compiled prints converts"  # the bounds and their print kept
