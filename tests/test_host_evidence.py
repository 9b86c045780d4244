"""What the host code says of a kernel's arguments where no launch types them: annotations,
dtype checks, validation calls, docstrings, astype and allocations at its launches (through
callers), the widths its package allocates with, and the kernels written with it."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import FIXTURES
from kernlint.python.host.docstrings import documented_elements
from kernlint.python.project import Project
from kernlint.python.signatures.allocations import package_widths
from kernlint.python.signatures.evidence import kernel_evidence
from kernlint.python.signatures.inference import inferred_by_kernel, inferred_signatures

HEADER = "import numpy as np\nimport numpy.typing as npt\nfrom numba import cuda\n\nDTYPE = np.float32\n\n\n" \
         "@cuda.jit\ndef k(out, x):\n    i = cuda.grid(1)\n    if i < x.size:\n        out[i] = x[i]\n\n\n"


def evidence(tmp_path, host):
    path = tmp_path / "k.py"
    path.write_text(HEADER + textwrap.dedent(host))
    kernel = Project().module(str(path)).kernels[0]
    return [(e.dtype, e.array, e.kind) if e is not None else None for e in kernel_evidence(Project(), kernel)]


F32 = ("float32", True)


@pytest.mark.parametrize("host, expected", [
    # annotations
    ("def run(out: npt.NDArray[np.float32], x: 'np.ndarray[Any, np.dtype[np.int16]]'):\n    k[1, 32](out, x)",
     [F32 + ("annotation",), ("int16", True, "annotation")]),
    # checks of the dtype that raise, or assert
    ("def run(out, x):\n    assert x.dtype == np.float32\n    if out.dtype != 'float64':\n"
     "        raise TypeError(out.dtype)\n    k[1, 32](out, x)",
     [("float64", True, "dtype check"), F32 + ("dtype check",)]),
    # a test that does not raise demands nothing
    ("def run(out, x):\n    if x.dtype != np.float32:\n        print('slow')\n    k[1, 32](out, x)", [None, None]),
    # a validation call naming the one dtype accepted; two accepted say nothing
    ("def run(out, x):\n    check_dtype(x, (np.float32,))\n    validate(out, [np.float32, np.float64])\n"
     "    k[1, 32](out, x)", [None, F32 + ("validation call",)]),
    # conversions and allocations on the way, the module's dtype constant
    ("def run(n):\n    x = np.asarray(range(n), dtype=DTYPE)\n    k[1, 32](np.zeros(n, dtype=np.int32), x)",
     [("int32", True, "allocation"), F32 + ("allocation",)]),
    ("def run(x):\n    k[1, 32](cuda.device_array(x.size), x.astype(DTYPE))",
     [("float64", True, "allocation"), F32 + ("astype",)]),
    # through a call, and a view keeps the elements
    ("def run(out, x):\n    k[1, 32](out, x[1:])\n\ndef main(n):\n    run(np.zeros(n, np.float32), "
     "np.ones(n).astype(np.float32))", [F32 + ("allocation",), F32 + ("astype",)]),
    # a function a factory returns is called where the factory's result is bound
    ("def make(scale):\n    def run(out, x):\n        k[1, 32](out, x)\n    return run\n\n"
     "def main(n):\n    run = make(2)\n    run(np.zeros(n, np.float32), np.arange(n, dtype=np.int16))",
     [F32 + ("allocation",), ("int16", True, "allocation")]),
    # callers that disagree say nothing
    ("def run(out, x):\n    k[1, 32](out, x)\n\ndef main(n):\n    run(np.zeros(n, np.float32), np.zeros(n))\n"
     "    run(np.zeros(n, np.float32), np.arange(n, dtype=np.int64))", [F32 + ("allocation",), None]),
    # an FFT's result is complex of its input's width, an inverse real FFT's real; whatever
    # module it is called on (`xp = get_array_module(x)`)
    ("def run(x, xp):\n    k[1, 32](xp.fft.rfft(x), np.fft.irfft(x.astype(np.float32)))",
     [("complex128", True, "fft"), F32 + ("fft",)]),
    # arithmetic: NumPy 2's promotion, a Python number taking an array's type where of one kind
    ("def run(n):\n    k[1, 32](np.zeros(n, np.float32) * 2.0, np.arange(n) * 0.5)",
     [F32 + ("allocation",), ("float64", True, "allocation")]),
    ("def run(n):\n    k[1, 32](np.zeros(n, np.int32) / 2, -np.arange(n, dtype=np.int16) + 1)",
     [("float64", True, "allocation"), ("int16", True, "allocation")]),
    # `dt, dh = 0.005, 1` pairs its items; `np.arange(count)` of a count no reading says is a
    # float holds integers, `np.arange` of a float step floats
    ("def run(par):\n    dt, dh = 0.005, 1\n    k[1, 32](np.arange(par['n']) * dh, np.arange(0, par['n'], dt))",
     [("int64", True, "allocation"), ("float64", True, "allocation")]),
    # a local's branches: the allocator's unstated default yields to the dtype the other states;
    # two stated dtypes, or two unstated ones, say nothing
    ("def run(x, n, exact):\n    if exact:\n        a = x.astype(np.float32).reshape(-1)\n"
     "        c = np.arange(n)\n    else:\n        a = np.zeros(n)\n        c = np.zeros(n)\n    k[1, 32](a, c)",
     [F32 + ("astype",), None]),
    ("def run(x, n, exact):\n    if exact:\n        b = x.astype(np.int32)\n    else:\n"
     "        b = x.astype(np.int64)\n    k[1, 32](b, np.zeros(n))",
     [None, ("float64", True, "allocation")]),
])
def test_host_evidence_at_a_launch(tmp_path, host, expected):
    assert evidence(tmp_path, host) == expected


def test_an_attribute_is_what_every_assignment_in_its_class_agrees_on(tmp_path):
    host = """
        class Grid:
            def __init__(self, n, exact, dtype=DTYPE):
                self.dtype = dtype
                self.values = cuda.to_device(np.zeros(n, dtype=self.dtype))
                if exact:
                    self.offsets = np.arange(n)
                else:
                    self.offsets = np.zeros(n)

            def step(self):
                k[1, 32](self.values, self.offsets)
        """
    assert evidence(tmp_path, host) == [F32 + ("allocation",), None]


@pytest.mark.parametrize("entry, expected", [
    ("data : np.ndarray of float32", ("float32", True)),
    ("data : ndarray, dtype float32", ("float32", True)),
    ("data : :obj:`numpy.ndarray` with dtype int32", ("int32", True)),
    ("data : float32 ndarray", ("float32", True)),
    ("data : 2darray of complex", ("complex128", True)),
    ("data : float", ("float64", False)),
    ("data : ndarray of float32 or float64", None),
    ("data : array_like", None),
    ("data : ndarray", None),
])
def test_docstring_element_types(entry, expected):
    import ast

    source = f'def f(data):\n    """Does it.\n\n    Parameters\n    ----------\n    {entry}\n        The data.\n    """\n'
    assert documented_elements(ast.parse(source).body[0]).get("data") == expected


def test_host_evidence_types_the_arguments_of_the_inferred_signature(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(HEADER + "def run(out: npt.NDArray[np.float32], x: npt.NDArray[np.float32]):\n"
                    "    k[1, 32](out, x)\n")
    project = Project()
    kernel = project.module(str(path)).kernels[0]
    [(signature, variant), *_] = inferred_signatures(kernel, (), kernel_evidence(project, kernel))
    assert signature == "void(float32[::1], float32[::1])"
    assert variant == (f"as read, 2 of 2 argument types from the host code@out: annotation at {path}:15; "
                       f"x: annotation at {path}:15")


def _package(tmp_path, files):
    for name, text in files.items():
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text))
    return Project()


def test_the_widths_a_package_allocates_with(tmp_path):
    project = _package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/state.py": """
            import numpy as np
            a = np.zeros(3, dtype=np.float32)
            b = np.ones((3, 3), np.float32)
            c = np.zeros(3).astype('float32')
            d = np.zeros(3, dtype=np.int32)
            e = np.full(3, -1, dtype=np.int64)
            """,
        "pkg/kernels.py": "from numba import cuda\n",
        # a test's allocations are no sign
        "pkg/tests/test_state.py": "import numpy as np\nx = [np.zeros(3, dtype=np.float64) for _ in range(9)]\n",
    })
    found = package_widths(project, project.module(str(tmp_path / "pkg" / "kernels.py")))
    assert found == {"float": ("float32", "3 of 3 float allocations in pkg are float32")}  # ints: 1 of 2


def test_code_generic_in_its_dtype_names_no_width(tmp_path):
    project = _package(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/ops.py": """
            import numpy as np
            class Op:
                def __init__(self, n, dtype):
                    self.a = np.zeros(n, dtype=np.float32)
                    self.b = np.zeros(n, dtype=np.float32)
                    self.c = np.zeros(n, dtype=np.float32)
                    self.d = np.zeros(n, dtype=dtype)
            """,
    })
    assert package_widths(project, project.module(str(tmp_path / "pkg" / "ops.py"))) == {}  # 3 of 4


def test_a_parameter_the_body_only_passes_on_is_typed_as_the_kernels_written_with_it_use_it(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(textwrap.dedent("""
        from numba import cuda

        def make(n, helper):
            @cuda.jit
            def first(x, flag):
                i = cuda.grid(1)
                if i < n:
                    helper(x, flag)

            @cuda.jit
            def second(x, flag):
                i = cuda.grid(1)
                if i < n and x[i] < 0:
                    flag[0] = 1

            @cuda.jit
            def third(x, flag):
                i = cuda.grid(1)
                if flag:
                    x[i] = 0.5
            return first, second, third
        """))
    kernels = {k.name: k for k in Project().module(str(path)).kernels}
    [(signature, variant), *_] = inferred_signatures(kernels["first"])
    # `second` and `third` disagree on `flag` (an array of integers, a truth value): nothing said;
    # `x` is an array both index, of floats where `third` stores one
    assert signature == "void(float64[::1], float64)"
    assert variant.endswith(f"@x: use in `third` at {path}:18")
    del kernels
    path.write_text(path.read_text().replace("if flag:", "if flag[0]:"))
    kernels = {k.name: k for k in Project().module(str(path)).kernels}
    [(signature, variant), *_] = inferred_signatures(kernels["first"])
    assert signature == "void(float64[::1], int64[::1])"
    assert variant.endswith(f"; flag: use in `second` at {path}:12")


def test_show_signatures_names_the_evidence(tmp_path):
    shutil.copytree(FIXTURES / "shapes" / "hostdtypes", tmp_path / "hostdtypes")
    run = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--show-signatures", "hostdtypes"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600)
    rows = {line.split()[0]: line for line in run.stdout.splitlines() if "::" in line}
    assert rows["hostdtypes/kernels.py::take"].endswith(
        "inferred: out: dtype check at hostdtypes/kernels.py:34; table: dtype check at hostdtypes/kernels.py:33; "
        "rows: validation call at hostdtypes/kernels.py:32")
    assert "inferred: out: docstring at hostdtypes/kernels.py:46" in rows["hostdtypes/kernels.py::smooth"]
    # an allocator's unstated default yields to the dtype another branch states
    assert rows["hostdtypes/kernels.py::shift"].endswith("inferred: x: astype at hostdtypes/kernels.py:90")
    # so too where the package's attributes are read by name (`iz`: two stated dtypes, nothing said)
    assert rows["hostdtypes/kernels.py::aperture"].endswith(
        "inferred: ix: allocated as `ix` at hostdtypes/kernels.py:133; iy: allocated as `iy` at "
        "hostdtypes/kernels.py:134")
    # `axis` is typed by its launch (the launch reader follows it), the FFT's results by the host code
    assert rows["hostdtypes/kernels.py::weigh"].endswith(
        "inferred: out: fft at hostdtypes/kernels.py:108; spectrum: fft at hostdtypes/kernels.py:108")


def test_an_array_whose_rows_are_passed_on_takes_the_rank_its_namesakes_index(tmp_path):
    path = tmp_path / "k.py"
    path.write_text(textwrap.dedent("""
        from numba import cuda

        def make(n, distance):
            @cuda.jit
            def near(r, box, out):
                i = cuda.grid(1)
                if i < n:
                    out[i] = distance(r[i], r[0], box)

            @cuda.jit
            def bounce(r, box, out):
                i = cuda.grid(1)
                if i < n:
                    r[i, 0] = r[i, 0] % box[0]
                    out[i] = r[i, 1]
            return near, bounce
        """))
    kernels = {k.name: k for k in Project().module(str(path)).kernels}
    [(signature, _), *_] = inferred_signatures(kernels["near"])
    assert signature == "void(float64[:, ::1], float64[::1], float64[::1])"
    # a row only read, not passed on: its rank is what its own body says
    path.write_text(path.read_text().replace("distance(r[i], r[0], box)", "r[i] * box[0]"))
    kernels = {k.name: k for k in Project().module(str(path)).kernels}
    [(signature, _), *_] = inferred_signatures(kernels["near"])
    assert signature == "void(float64[::1], float64[::1], float64[::1])"


def test_a_file_added_to_the_package_is_read_by_the_next_cached_run(tmp_path):
    """The widths a package allocates with come from files the kernel's file does not import:
    a run that keeps what it read (the cache) reads them again when the package's files change."""
    from kernlint.engine import Options, check_paths

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "kernels.py").write_text(
        "from numba import cuda\n\n\n@cuda.jit\ndef scale(x):\n    i = cuda.grid(1)\n    x[i] *= 0.5\n")

    def checked():
        report = check_paths([str(tmp_path / "pkg")], Options(cache_root=str(tmp_path)))
        return [s.signature for s in report.stats if s.kernel == "scale"]

    assert checked() == ["void(float64[::1])"]
    (tmp_path / "pkg" / "state.py").write_text(
        "import numpy as np\na = np.zeros(3, np.float32)\nb = np.ones(3, np.float32)\nc = np.empty(3, np.float32)\n")
    assert checked() == ["void(float32[::1])"]


def test_a_factory_s_kernel_is_launched_in_that_factory(tmp_path):
    """Two factories of a file make a kernel of one name: a launch in one is not the other's."""
    path = tmp_path / "k.py"
    path.write_text(textwrap.dedent("""
        import numpy as np
        from numba import cuda

        def make_a(n):
            @cuda.jit
            def kernel(x):
                x[cuda.grid(1)] = 0.5

            def run(x):
                kernel[1, 32](x.astype(np.float32))
            return run

        def make_b(n):
            @cuda.jit
            def kernel(x):
                x[cuda.grid(1)] = 0.5
            return kernel
        """))
    project = Project()
    found = {k.qualname: kernel_evidence(project, k) for k in project.module(str(path)).kernels}
    assert [e.dtype if e else None for e in found["make_a.kernel"]] == ["float32"]
    assert found["make_b.kernel"] == [None]


def test_a_class_s_arrays_come_from_its_constructor_s_callers_the_package_s_first(tmp_path):
    """``self.h`` set from ``__init__``'s parameter: what ``Op(...)`` is called with, found
    through the package's star re-export; the package's own calls before its tests' and
    examples', and an update of itself by an integer keeps its elements."""
    project = _package(tmp_path, {
        "pyproject.toml": "",
        "pkg/__init__.py": "from .op import *\n",
        "pkg/op.py": """
            import numpy as np
            from numba import cuda

            __all__ = ["Op"]

            @cuda.jit
            def k(t, h):
                i = cuda.grid(1)
                t[i] = h[i]

            class Op:
                def __init__(self, t, h, squared=False):
                    self.t, self.h = t, h
                    if squared:
                        self.h = self.h ** 2

                def apply(self):
                    k[1, 32](self.t, self.h)
            """,
        "tests/test_op.py": """
            import numpy as np
            import pkg

            def test_op():
                dt, dh = 0.5, 1
                pkg.Op(np.arange(8) * dt, np.arange(8) * dh).apply()
            """,
        "examples/plot_op.py": "import numpy as np\nfrom pkg import Op\nOp(np.zeros(3), np.linspace(0, 1, 3))\n",
    })
    kernel = project.module(str(tmp_path / "pkg" / "op.py")).kernels[0]
    # the test and the example agree on `t`, disagree on `h` (then it says nothing)
    assert [e.dtype if e else None for e in kernel_evidence(project, kernel)] == ["float64", None]
    (tmp_path / "pkg" / "grid.py").write_text(
        "import numpy as np\nfrom .op import Op\n\ndef grid(n):\n    return Op(np.zeros(n, np.float32), "
        "np.arange(n, dtype=np.int32))\n")
    project = Project()
    kernel = project.module(str(tmp_path / "pkg" / "op.py")).kernels[0]
    found = kernel_evidence(project, kernel)
    assert [(e.dtype, e.path) for e in found] == [("float32", str(tmp_path / "pkg" / "grid.py")),
                                                  ("int32", str(tmp_path / "pkg" / "grid.py"))]
    # without the example, the test's `np.arange(8) * dh` (an integer step): int64
    (tmp_path / "pkg" / "grid.py").unlink()
    (tmp_path / "examples" / "plot_op.py").unlink()
    project = Project()
    kernel = project.module(str(tmp_path / "pkg" / "op.py")).kernels[0]
    assert [e.dtype for e in kernel_evidence(project, kernel)] == ["float64", "int64"]


def test_what_the_body_does_not_say_comes_from_the_package_s_attributes_and_kernels(tmp_path):
    """A kernel a factory makes, whose body passes ``r_im`` on to a function it is given and
    never reads ``grid``, ``mass`` or ``box``: ``r_im`` and ``mass`` are the arrays the package
    keeps in attributes of those names (their elements and rank), ``box`` the array the
    package's other kernels index (two of them: one alone does not decide), and ``grid``, a
    grid group in the package's device functions, a placeholder's int64 (a host cannot pass
    a grid group)."""
    project = _package(tmp_path, {
        "pyproject.toml": "",
        "pkg/__init__.py": "",
        "pkg/state.py": """
            import numpy as np
            from numba import cuda

            class State:
                def __init__(self, n, itype=np.int32):
                    self.itype = itype
                    shape = (n, 3)
                    self.r_im = np.zeros(shape, dtype=self.itype)
                    self.mass = np.ones(n, np.float32)
                    self.d_mass = cuda.to_device(self.mass)

                def load(self, saved):
                    self.r_im = saved["r_im"]  # not known: the known ones decide
            """,
        "pkg/walls.py": """
            from numba import cuda

            @cuda.jit
            def wrap(r, box):
                i = cuda.grid(1)
                r[i, 0] = r[i, 0] % box[0]

            @cuda.jit
            def volume(box, out):
                out[0] = box[0] * box[1]

            @cuda.jit(device=True)
            def settle(grid, r):
                grid.sync()
            """,
        "pkg/step.py": """
            from numba import cuda

            def make(n, fold):
                def step(grid, r, r_im, mass, box):
                    i = cuda.grid(1)
                    if i < n:
                        r[i, 0] = r[i, 1] * 0.5
                        fold(r[i], r_im[i])
                return cuda.jit(step)
            """,
    })
    module = project.module(str(tmp_path / "pkg" / "step.py"))
    [(signature, variant), *_] = inferred_by_kernel(project, module, {})["make.step"]
    assert signature == "void(int64, float64[:, ::1], int32[:, ::1], float32[::1], float64[::1])"
    state, walls = tmp_path / "pkg" / "state.py", tmp_path / "pkg" / "walls.py"
    assert variant.endswith(f"@r_im: allocated as `r_im` at {state}:9; mass: allocated as `mass` at {state}:10; "
                            f"box: use in `wrap` at {walls}:5; grid: never read, a grid group in `settle` at "
                            f"{walls}:14: a placeholder")
    # one kernel alone does not decide `box`, nor a grid group `grid`: the body's scalars
    walls.write_text(walls.read_text().partition("@cuda.jit\ndef volume")[0])
    project = Project()
    module = project.module(str(tmp_path / "pkg" / "step.py"))
    [(signature, _), *_] = inferred_by_kernel(project, module, {})["make.step"]
    assert signature == "void(float64, float64[:, ::1], int32[:, ::1], float32[::1], float64)"


def test_a_kept_reading_is_read_again_when_the_attribute_s_allocation_changes(tmp_path):
    """An inferred signature that took a package attribute's allocation is kept between runs
    (the cache) only while the file that allocates it is the same."""
    from kernlint.engine import Options, check_paths

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "state.py").write_text(
        "import numpy as np\n\n\nclass State:\n    def __init__(self, n):\n        self.mass = np.ones(n, np.float32)\n")
    (tmp_path / "pkg" / "kernels.py").write_text(
        "from numba import cuda\n\n\n@cuda.jit\ndef clear(out, mass):\n    out[cuda.grid(1)] = 0.5\n")

    def checked():
        report = check_paths([str(tmp_path / "pkg" / "kernels.py")], Options(cache_root=str(tmp_path)))
        return [s.signature for s in report.stats if s.kernel == "clear"]

    assert checked() == ["void(float64[::1], float32[::1])"]
    (tmp_path / "pkg" / "state.py").write_text(
        (tmp_path / "pkg" / "state.py").read_text().replace("np.float32", "np.int16"))
    assert checked() == ["void(float64[::1], int16[::1])"]


def test_a_kernel_s_own_annotations_say_what_launches_leave_unsaid(tmp_path):
    """A tensor library's kernels are annotated with its type aliases (here and imported) and
    launched with ``*out.tuple()`` (nothing the reader types): the aliases give the elements.
    A launch that says the type wins over the annotation; an alias of no dtype says nothing."""
    project = _package(tmp_path, {
        "pyproject.toml": "",
        "pkg/__init__.py": "",
        "pkg/tensor_data.py": """
            from typing import Sequence
            import numpy as np
            import numpy.typing as npt
            from typing_extensions import TypeAlias

            Storage: TypeAlias = npt.NDArray[np.float32]
            Index = npt.NDArray[np.int32]
            UserShape: TypeAlias = Sequence[int]
            """,
        "pkg/ops.py": """
            import numpy as np
            from numba import cuda
            from .tensor_data import Storage, Index, UserShape

            Count = int

            def tensor_map(fn):
                @cuda.jit
                def _map(out: Storage, out_shape: Index, size: Count, in_storage: Storage, extra: UserShape):
                    i = cuda.grid(1)
                    if i < size:
                        out[i] = fn(in_storage[i]) + out_shape[0] + extra

                def run(out, a):
                    _map[1, 32](*out.tuple(), out.size, *a.tuple())
                return run

            @cuda.jit
            def scale(x: Storage, n: int):
                i = cuda.grid(1)
                if i < n:
                    x[i] *= 2.0

            def rescale(n):
                scale[1, 32](np.zeros(n), n)
            """,
    })
    module = project.module(str(tmp_path / "pkg" / "ops.py"))
    found = {k.qualname: kernel_evidence(project, k) for k in module.kernels}
    assert [(e.type, e.kind, e.line) if e else None for e in found["tensor_map._map"]] == [
        ("float32[?]", "kernel annotation", 10), ("int32[?]", "kernel annotation", 10),
        ("int64", "kernel annotation", 10), ("float32[?]", "kernel annotation", 10), None]
    # the launch's `np.zeros(n)` is what runs: float64, not the annotation's float32
    assert [(e.type, e.kind) for e in found["scale"]] == [("float64[?]", "allocation"),
                                                          ("int64", "kernel annotation")]
    inferred = inferred_by_kernel(project, module, {})
    signature, said = inferred["tensor_map._map"][0]
    assert signature == "void(float32[::1], int32[::1], int64, float32[::1], float64)"
    assert "out: kernel annotation at" in said and "ops.py:10" in said


def test_a_script_s_constants_come_from_the_module_it_star_imports(tmp_path):
    """A lattice-Boltzmann script star-imports its parameters and maps them to the device: the
    lattice's velocities are the integers written out, its weights floats, the relaxation
    rate a float however many constants it is computed through; a constant copied with
    ``cuda.const.array_like`` is indexed as the copy is. A name no module assigns says nothing."""
    project = _package(tmp_path, {
        "utils/__init__.py": "",
        "utils/params.py": """
            import numpy as np

            nx, ny = 400, 20 * 10
            Re = 150.0
            r = ny // 9
            uLB = 0.04
            nulb = uLB * r / Re
            omega = 1 / (3 * nulb + 0.5)
            c = np.array([[1, 1], [1, 0], [0, 0], [-1, 0], [-1, -1]])
            w = np.array([1 / 36, 1 / 9, 4 / 9, 1 / 9, 1 / 36])
            """,
        "utils/kernels.py": """
            from numba import cuda

            @cuda.jit
            def equilibrium(rho, v, t, feq, rate, nx):
                cv = cuda.const.array_like(v)
                ct = cuda.const.array_like(t)
                i, j = cuda.grid(2)
                if i < nx:
                    for k in range(5):
                        feq[k, i, j] = rho[i, j] * ct[k] * (1 + 3 * (cv[k, 0] + cv[k, 1])) * rate
            """,
        "flow.py": """
            import numpy as np
            from numba import cuda
            from utils.kernels import *
            from utils.params import *

            def main():
                rho = np.full((nx, ny), 1.0)
                d_rho, d_v, d_t = map(cuda.to_device, (rho, c, w))
                d_feq = cuda.device_array((5, nx, ny))
                equilibrium[(16, 16), (8, 8)](d_rho, d_v, d_t, d_feq, omega, unknown_width)
            """,
    })
    module = project.module(str(tmp_path / "utils" / "kernels.py"))
    kernel = module.kernels[0]
    assert [(e.type, e.kind) if e else None for e in kernel_evidence(project, kernel)] == [
        ("float64[?]", "allocation"), ("int64[?]", "allocation"), ("float64[?]", "allocation"),
        ("float64[?]", "allocation"), ("float64", "literal"), None]
    signature, said = inferred_by_kernel(project, module, {})["equilibrium"][0]
    assert signature == "void(float64[:, ::1], int64[:, ::1], float64[::1], float64[:, :, ::1], float64, int64)"
    assert "v: allocation at" in said and "params.py:10" in said


def test_a_number_sent_to_the_device_is_an_array_of_its_type(tmp_path):
    """``cuda.to_device(stokes)`` of ``stokes = 10000`` and ``np.asarray(dt)`` of a float: arrays
    (NumPy makes one of a number), of the number's type; the number itself stays a scalar."""
    assert evidence(tmp_path, """
        def step(dt):
            stokes = 10000
            k[1, 32](cuda.to_device(stokes), np.asarray(dt))
            k[1, 32](cuda.to_device(stokes), np.asarray(dt))

        def main():
            step(0.5)
        """) == [("int64", True, "literal"), ("float64", True, "literal")]
    assert evidence(tmp_path, """
        def step(n):
            k[1, 32](np.zeros(n), 7)
        """) == [("float64", True, "allocation"), ("int64", False, "literal")]


def test_a_layer_s_buffers_reach_its_kernel_through_re_exports_and_aliases(tmp_path):
    """A layer makes its output buffer in ``__init__`` (``None`` until then) and calls a package
    function re-exported by ``gpu/__init__.py`` (``gpu.relu(...)``), which calls the kernel's
    launcher imported under another name: the buffer's elements reach the kernel. A function of
    the same name that is another def is not a call of it."""
    project = _package(tmp_path, {
        "net/__init__.py": "",
        "net/gpu/__init__.py": "from .relu import relu\n",
        "net/gpu/kernel/__init__.py": "from .relu import relu\n",
        "net/gpu/kernel/relu.py": """
            from numba import cuda

            @cuda.jit
            def perform(buffer, signals):
                b, x = cuda.grid(2)
                if b < buffer.shape[0] and x < buffer.shape[2]:
                    buffer[b, 0, x] = max(signals[b, 0, x], 0.0)

            def relu(buffer, signals):
                perform[(4, 4), (32, 32)](buffer, signals)
            """,
        "net/gpu/relu.py": """
            from .kernel import relu as kernel_relu

            def relu(signals, buffer):
                kernel_relu(buffer=buffer, signals=signals)
                return buffer
            """,
        "net/layer.py": """
            import numpy as np
            from numba import cuda
            from . import gpu

            class ReLU:
                def __init__(self, shape):
                    self._out = None
                    arr = cuda.device_array(shape, dtype=np.float32)
                    self._out = cuda.to_device(arr)

                def send(self, signals):
                    return gpu.relu(signals=signals, buffer=self._out)
            """,
        "net/other.py": """
            import numpy as np

            def relu(buffer, signals):
                return np.maximum(signals, 0)

            def run():
                relu(np.zeros(3, np.int8), np.zeros(3, np.int8))
            """,
    })
    kernel = project.module(str(tmp_path / "net" / "gpu" / "kernel" / "relu.py")).kernels[0]
    assert [(e.dtype, e.kind, os.path.basename(e.path)) if e else None
            for e in kernel_evidence(project, kernel)] == [("float32", "allocation", "layer.py"), None]


def test_a_simulation_s_fields_held_by_its_state_object_reach_the_kernel(tmp_path):
    """A solver sets its fields to ``None`` in ``__init__`` and makes them in ``initialize``:
    a state object holding device arrays (``self.state = State(...)``, launched as
    ``self.state.ex``), a material array filled with a constant of ``np.pi``, a shape of
    ``len``s. A field held by objects of two classes says nothing."""
    project = _package(tmp_path, {
        "solver.py": """
            import numpy as np
            from numba import cuda

            @cuda.jit
            def update(shape, ex, eps, scratch):
                i, j, k = cuda.grid(3)
                if i < shape[0] and j < shape[1] and k < shape[2]:
                    ex[i, j, k] += eps[i, j, k] * scratch[i, j, k]

            class State:
                def __init__(self, ex, scratch):
                    self.ex = ex
                    self.scratch = scratch

            class Other:
                def __init__(self, scratch):
                    self.scratch = scratch

            class Solver:
                def __init__(self, x, y, z):
                    self.x, self.y, self.z = x, y, z
                    self.shape = np.array([len(self.x), len(self.y), len(self.z)])
                    self.state = None
                    self.eps = None
                    self.initialize()

                def initialize(self):
                    self.state = State(cuda.to_device(np.zeros(self.shape)), cuda.device_array(3, np.float32))
                    self.eps = cuda.to_device(np.full(self.shape, 1 / (4e-7 * np.pi)))

                def swap(self, big):
                    if big:
                        self.other = Other(cuda.device_array(3, np.float32))
                    else:
                        self.other = State(None, cuda.device_array(3, np.float32))

                def step(self):
                    update[(8, 8, 8), (4, 4, 4)](self.shape, self.state.ex, self.eps, self.other.scratch)
            """,
    })
    kernel = project.module(str(tmp_path / "solver.py")).kernels[0]
    assert [(e.type, e.kind) if e else None for e in kernel_evidence(project, kernel)] == [
        ("int64[?]", "allocation"), ("float64[?]", "allocation"), ("float64[?]", "allocation"), None]
