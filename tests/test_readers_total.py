"""The readers are total: generated host code around launches never makes them raise, and
an internal error is one located KL905 while the rest of the run goes on (exit 2)."""
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import warnings

from hypothesis import HealthCheck, assume, given, settings, strategies as st

from conftest import ROOT

from kernlint.engine import host_findings
from kernlint.python.project import FrontendSettings, Project
from kernlint.python.signatures.gather import gather

NAMES = ["x", "y", "n", "d_x", "frames", "sizes", "self.a", "self.E", "cls.b", "stream", "rng", "k"]
DTYPES = ["np.float32", "'complex'", "'f8'", "np.int32", "cp.float64", "x.dtype", "self.a.dtype", "None", "dt"]
CONSTANTS = ["0", "1", "2.5", "1j", "'s'", "b'b'", "None", "True", "...", "(1, 2)", "[1, -2.0]", "{}", "()"]


def expressions():
    atoms = st.sampled_from(NAMES + CONSTANTS + DTYPES)

    def extend(inner):
        two = st.tuples(inner, inner)
        return st.one_of(
            st.builds(lambda f, e, d: f"np.{f}({e}, dtype={d})",
                      st.sampled_from(["zeros", "empty", "ones", "array", "asarray", "arange", "full", "zeros_like",
                                       "empty_like", "linspace", "eye", "copy", "require"]), inner, st.sampled_from(DTYPES)),
            st.builds(lambda f, e: f"cp.{f}({e})", st.sampled_from(["asarray", "empty", "zeros_like", "array"]), inner),
            st.builds(lambda f, e: f"np.random.{f}({e})", st.sampled_from(["rand", "randn", "random", "randint"]), inner),
            st.builds(lambda f, e: f"cuda.{f}({e})", st.sampled_from(
                ["to_device", "device_array", "device_array_like", "pinned_array", "as_cuda_array", "stream",
                 "mapped_array_like", "event"]), inner),
            st.builds(lambda e, a: f"{e}.{a}", inner, st.sampled_from(
                ["real", "imag", "T", "shape", "dtype", "size", "ndim", "copy()", "get()", "copy_to_host()", "sum()",
                 "mean()", "ravel()", "reshape(-1)", "reshape(2, 3)", "astype(np.float32)", "transpose()", "item()",
                 "tolist()", "synchronize()"])),
            st.builds(lambda e, i: f"{e}[{i}]", inner, inner),
            st.builds(lambda e, i: f"{e}[{i}:, ..., None]", inner, inner),
            st.builds(lambda p, op: f"({p[0]} {op} {p[1]})", two,
                      st.sampled_from(["+", "-", "*", "/", "//", "**", "%", "@", "&", "<<", "<", "==", "and", "or",
                                       "in", "is not"])),
            st.builds(lambda op, e: f"({op}{e})", st.sampled_from(["-", "not ", "~", "+"]), inner),
            st.builds(lambda p, c: f"({p[0]} if {c} else {p[1]})", two, inner),
            st.builds(lambda e: f"[{e} for i in range(3) if i]", inner),
            st.builds(lambda e: f"{{q: {e} for q in x}}", inner),
            st.builds(lambda e: f"(lambda q, *r, **s: {e})", inner),
            st.builds(lambda e: f"f'{{{e}!r:>10}}'", inner),
            st.builds(lambda p: f"{p[0]}({p[1]}, *x, key={p[0]}, **y)", two),
            st.builds(lambda e: f"(*{e}, 1)", inner),
            st.builds(lambda e: f"np.array(0, dtype={e}).real.dtype", inner),
            st.builds(lambda e: f"np.dtype({e})", inner),
            st.builds(lambda e: f"getattr(self, 'E', {e})", inner),
            st.builds(lambda e: f"(await {e})", inner),
            st.builds(lambda e: f"(yield {e})", inner),
        )

    return st.recursive(atoms, extend, max_leaves=6)


TARGETS = ["x", "y", "n", "self.a", "self.E", "(x, y)", "x, *y", "x[0]", "x[1:]", "self.a[0, 1]", "d_x", "[x, y]", "k"]


def statements(expr):
    simple = st.one_of(
        st.builds(lambda t, e: f"{t} = {e}", st.sampled_from(TARGETS), expr),
        st.builds(lambda t, e: f"{t} = {t} = {e}", st.sampled_from(["x", "y", "self.a"]), expr),
        st.builds(lambda t, op, e: f"{t} {op}= {e}", st.sampled_from(["x", "self.a", "x[0]"]),
                  st.sampled_from(["+", "*", "|"]), expr),
        st.builds(lambda e: f"x: 'np.ndarray' = {e}", expr),
        st.builds(lambda g, b, a: f"kernel[{g}, {b}]({a})", expr, expr, st.lists(expr, max_size=4).map(", ".join)),
        st.builds(lambda g, s, a: f"kernel[{g}, 32, {s}, 0]({a}, *x)", expr, expr, expr),
        st.builds(lambda a: f"self.kernel[1, 1]({a})", expr),
        st.builds(lambda e: f"kernel.forall({e})(x, y)", expr),
        st.builds(lambda e: f"kernel[1, 2](x=x, y={e})", expr),
        st.builds(lambda e: f"setattr(self, 'E', {e})", expr),
        st.builds(lambda e: f"t0 = time.perf_counter() - {e}", expr),
        st.sampled_from(["cuda.synchronize()", "stream.synchronize()", "cp.cuda.set_allocator(None)",
                         "cuda.set_memory_manager(Manager)", "del x", "pass", "return", "return x", "break",
                         "continue", "global n", "nonlocal y", "raise ValueError(x)", "assert x, y",
                         "import numpy as np", "from numba import cuda as nc", "from . import core",
                         "x = core.helper(x)", "t1 = time.time(); print(t1 - t0)"]),
    )

    def extend(inner):
        block = st.lists(inner, min_size=1, max_size=3).map(lambda b: textwrap.indent("\n".join(b), "    "))
        return st.one_of(
            st.builds(lambda c, b, o: f"if {c}:\n{b}\nelse:\n{o}", expr, block, block),
            st.builds(lambda t, i, b: f"for {t} in {i}:\n{b}", st.sampled_from(["x", "i", "(i, j)", "self.a", "dev"]),
                      st.sampled_from(["range(10)", "frames", "sizes", "cuda.gpus", "enumerate(x)", "zip(x, y)",
                                       "range(n)", "device_ids", "x"]), block),
            st.builds(lambda c, b: f"while {c}:\n{b}", expr, block),
            st.builds(lambda c, b: f"with {c} as (x, y):\n{b}", expr, block),
            st.builds(lambda b, h: f"try:\n{b}\nexcept (ValueError, e) as err:\n{h}\nfinally:\n{h}", block, block),
            st.builds(lambda n, b: f"def {n}(self, x, y=np.zeros(3), *a, k=2, **kw):\n{b}",
                      st.sampled_from(["run", "step", "__init__", "send_to_gpu", "kernel"]), block),
            st.builds(lambda b: f"async def run(x):\n{b}", block),
            st.builds(lambda b: f"class Sim(Base, metaclass=Meta):\n{b}", block),
            st.builds(lambda e, b: f"match {e}:\n    case [x, *y] if x:\n{textwrap.indent(b, '    ')}\n    case _:\n        pass",
                      expr, block),
        )

    return st.recursive(simple, extend, max_leaves=8)


HEADER = """import time
import numpy as np
import cupy as cp
from numba import cuda
from .helpers import alloc


@cuda.jit
def kernel(x, y):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = x[i] * 2.0
"""


def read_everything(directory, source: str):
    """Every reader over one generated module, with --debug: an internal error raises."""
    package = os.path.join(directory, "pkg")
    os.makedirs(package, exist_ok=True)
    for name, text in (("__init__.py", ""), ("helpers.py", "import cupy as cp\ndef alloc(n):\n    return cp.empty(n)\n"),
                       ("gen.py", source)):
        with open(os.path.join(package, name), "w") as handle:
            handle.write(text)
    path = os.path.join(package, "gen.py")
    project = Project(FrontendSettings(debug=True))
    host_findings(project, path)
    gather(project, [path], {})
    assert not project.failures


@given(st.lists(statements(expressions()), min_size=1, max_size=6))
@settings(suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])  # most draws do not parse
def test_generated_host_code_never_makes_the_readers_raise(body):
    source = HEADER + "\n\n" + "\n".join(body) + "\n"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # `1[x]` and the like: valid syntax, nonsense on purpose
            compile(source, "gen.py", "exec", dont_inherit=True, flags=0x2000)  # PyCF_ALLOW_TOP_LEVEL_AWAIT
    except SyntaxError:
        assume(False)
    with tempfile.TemporaryDirectory() as directory:
        read_everything(directory, source)


def test_the_construct_that_crashed_real_code(tmp_path):
    """A library's host code (`np.array(0, dtype=self.Op.dtype).real.dtype`) ended the run."""
    (tmp_path / "op.py").write_text(textwrap.dedent("""\
        import numpy as np
        from numba import cuda

        class Op:
            def __init__(self, op):
                self.Op = op
                self.rdtype = np.array(0, dtype=self.Op.dtype).real.dtype
                self.total = np.empty(3, dtype=self.Op.dtype).sum()
        """))
    project = Project(FrontendSettings(debug=True))
    host_findings(project, str(tmp_path / "op.py"))
    assert not project.failures


def test_an_internal_error_is_one_located_diagnostic_and_the_run_goes_on(tmp_path):
    """A construct kernlint fails on gives a KL905 at its statement; the other statements,
    files and kernels are still checked, and the exit code is 2. --debug re-raises."""
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / "a.py").write_text(textwrap.dedent("""\
        import numpy as np
        from numba import cuda
        from settings import SURPRISE  # bound: the script runs past line 10
        @cuda.jit
        def scale(x):
            i = cuda.grid(1)
            x[i] = x[i] * 2.0

        x = np.zeros(100, dtype=np.float32)
        y = SURPRISE
        for step in range(100):
            scale[1, 100](x)
        """))
    (tmp_path / "b.py").write_text(textwrap.dedent("""\
        import numpy as np
        from numba import cuda

        @cuda.jit
        def fill(y):
            i = cuda.grid(1)
            y[i] = 1.0

        y = np.zeros(10)
        for step in range(100):
            fill[1, 10](y)
        """))
    # a stand-in for any bug in a reader: the type reader fails on the name SURPRISE
    hook = tmp_path / "sitecustomize.py"
    hook.write_text(textwrap.dedent("""\
        from kernlint.python import static_types
        original = static_types.TypeReader.type_of
        def type_of(self, expr):
            if getattr(expr, "id", None) == "SURPRISE":
                raise AttributeError("'NoneType' object has no attribute 'startswith'")
            return original(self, expr)
        static_types.TypeReader.type_of = type_of
        """))
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    command = [sys.executable, "-m", "kernlint", "check", "--no-cache", "--preview", "--output-format", "json",
               str(tmp_path)]
    run = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert run.returncode == 2, run.stderr
    findings = json.loads(run.stdout)
    internal = [f for f in findings if f["code"] == "KL905"]
    assert [(os.path.basename(f["path"]), f["line"]) for f in internal] == [("a.py", 10)]
    assert "AttributeError" in internal[0]["message"] and "numba-cuda" in internal[0]["message"]
    # the rest was checked: both launches on host arrays, the one after the failing statement too
    assert {(os.path.basename(f["path"]), f["line"]) for f in findings if f["code"] == "KL502"} == {
        ("a.py", 12), ("b.py", 11)}
    debug = subprocess.run(command[:4] + ["--debug", "--no-cache", str(tmp_path)], capture_output=True, text=True,
                           env=env, cwd=tmp_path, timeout=300)
    assert debug.returncode == 2 and "Traceback" in debug.stderr and "startswith" in debug.stderr


def test_robustness_corpus_smoke(tmp_path):
    """CI's subset of benchmarks/robustness.py: numba-cuda's own test suite and every 20th
    file of the standard library through every reader, with no internal error."""
    out = tmp_path / "robustness.json"
    run = subprocess.run([sys.executable, "benchmarks/robustness.py", str(out), "--quick"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    summary = json.loads(out.read_text())
    assert summary["internal_errors"] == 0 and summary["files"] > 250
    assert sum(row["kernels_found"] for row in summary["corpora"]) > 500  # the test suite's kernels were read


def test_a_list_imported_from_the_project_and_inserted_into_is_read(tmp_path):
    """`from _state import filters` then `filters.insert(0, f)`: deciding whether that call
    edits `sys.path` looks `filters` up, which needs the file's own search path, being
    computed. Every file of the standard library's `warnings.py` shape recursed forever."""
    (tmp_path / "_state.py").write_text("filters = []\n")
    source = tmp_path / "warn.py"
    source.write_text(textwrap.dedent('''
        import sys
        from _state import filters

        def add(f):
            filters.insert(0, f)
            sys.path.insert(0, "lib")
        '''))
    project = Project(FrontendSettings())
    assert [f for f in host_findings(project, str(source)) if f.code == "KL905"] == []
    gather(project, [str(source)], {})
    assert project.failures == []
