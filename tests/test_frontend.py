"""The numba.cuda frontend: signatures, options, and user modules that misbehave at import."""
import json
import os
import re
import textwrap

import pytest

from kernlint.engine import Options, check_paths
from kernlint.compile.numba_cuda import compile_file, parse_cc
from kernlint.python.project import FrontendSettings


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


@pytest.mark.parametrize("server", ["1", "0"], ids=["worker server", "forkserver of the run"])
def test_misbehaving_modules_are_reported_and_the_run_goes_on_with_import_modules(tmp_path, monkeypatch, server):
    monkeypatch.setenv("KERNLINT_SERVER", server)
    (tmp_path / "hangs.py").write_text("import time\nfrom numba import cuda\nwhile True:\n    time.sleep(1)\n")
    (tmp_path / "exits.py").write_text("import sys\nfrom numba import cuda\nsys.exit(3)\n")
    (tmp_path / "crashes.py").write_text("import os\nfrom numba import cuda\nos._exit(7)\n")
    (tmp_path / "good.py").write_text(textwrap.dedent('''
        from numba import cuda

        @cuda.jit("void(int64[::1])")
        def fine(y):
            y[0] = 1
    '''))
    imported = Options(timeout=5, jobs=2, frontend=FrontendSettings(import_modules=True))
    report = check_paths([str(tmp_path)], imported)
    by_file = {f.path.rsplit("/", 1)[-1]: f for f in report.findings}
    assert set(by_file) == {"hangs.py", "exits.py", "crashes.py"}
    assert all(f.code == "KL901" for f in by_file.values())
    assert "longer than 5 s" in by_file["hangs.py"].message
    assert "SystemExit" in by_file["exits.py"].message and by_file["exits.py"].line == 3
    assert "exit code 7" in by_file["crashes.py"].message
    assert [s.kernel for s in report.stats] == ["fine"]
    read = check_paths([str(tmp_path)], Options(timeout=5, jobs=2))  # read, not run: nothing misbehaves
    assert read.findings == [] and [s.kernel for s in read.stats] == ["fine"]


def test_the_time_limit_applies_to_each_step_not_to_the_whole_file(tmp_path):
    kernels = "".join(f'''

@cuda.jit("void(int64[::1], float64[::1])")
def k{n}(y, x):
    y[0] = int(x[0] * {n}.5)
''' for n in range(300))
    (tmp_path / "many.py").write_text("from numba import cuda\n" + kernels)
    # (3 s: on a loaded machine reading the file alone can take more than 1 s)
    report = check_paths([str(tmp_path)], Options(timeout=3, jobs=1))
    assert report.findings == []
    assert len(report.stats) == 300
    # none alone takes 3 s, all together do: the limit is per step
    assert sum(s.numba_seconds + s.kernlint_seconds for s in report.stats) > 3


def _long_kernel(name: str, branches: int) -> str:
    """A kernel whose `v` is read below many branches: numba's SSA pass walks up the dominator
    chain by recursion, and takes long (a particle-in-cell deposition kernel unrolls like this)."""
    body = "".join(f"    if x[i] > {k}.0:\n        t += {k}.5\n" for k in range(branches))
    return (f'\n\n@cuda.jit("void(float64[::1], float64[::1])")\n'
            f"def {name}(x, out):\n    i = cuda.grid(1)\n    v = 0.0\n    t = 0.0\n"
            f"    if x[i] > 0.5:\n        v = 2.0\n{body}    out[i] = v + t\n")


def test_a_long_unrolled_kernel_compiles_past_numbas_recursion_in_its_ssa_pass(tmp_path):
    (tmp_path / "deep.py").write_text("from numba import cuda\n" + _long_kernel("chain", 500))
    result = compile_file(str(tmp_path / "deep.py"))
    assert result.diagnostics == []
    assert [k.info.signature for k in result.kernels] == ["void(float64[::1], float64[::1])"]


TOP_LEVEL_EFFECTS = '''
import os
import sys

import numpy as np
import kernlint_not_installed_anywhere
from numba import cuda

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "MARKER"), "w") as out:
    out.write("the top level ran")


@cuda.jit("void(int64[::1], float64[::1])")
def convert(y, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if v != v:
            print("NaN at", i)
            return
        y[i] = int(v)


x = np.ones(16)
y = np.zeros(16, dtype=np.int64)
convert[1, 16](y, x)
sys.exit(3)
'''


def test_a_file_is_read_never_run(tmp_path):
    """Writing a file, importing what is not installed, launching, sys.exit: none of it
    happens, and the kernel's findings are reported as before."""
    source = tmp_path / "script.py"
    source.write_text(TOP_LEVEL_EFFECTS)
    report = check_paths([str(tmp_path)], Options(timeout=60))
    assert not (tmp_path / "MARKER").exists()
    # the one launch on host arrays at line 26 is no KL502: its data has to reach the device once anyway
    assert sorted((f.code, f.line) for f in report.findings) == [("KL101", 21), ("KL301", 19)]
    assert [s.kernel for s in report.stats] == ["convert"]


def test_library_functions_never_run_the_users_functions(tmp_path):
    """A constant computed by handing one of the file's functions to a safe library
    (`functools.reduce`, `sorted(key=...)`) would run that function: it is a KL902 instead."""
    source = tmp_path / "sizes.py"
    source.write_text(textwrap.dedent('''
        import functools
        import numpy as np
        from numba import cuda


        def product(a, b):
            open(__file__ + ".MARKER", "w").close()
            return a * b


        N = functools.reduce(product, (2, 3, 4))
        FIRST = sorted((3, 1, 2), key=lambda v: product(v, 1))[0]


        @cuda.jit
        def fill(out):
            i = cuda.grid(1)
            if i < N + FIRST:
                out[i] = 1.0
        '''))
    report = check_paths([str(tmp_path)], Options(timeout=60))
    assert not (tmp_path / "sizes.py.MARKER").exists()
    assert [(f.code, "which kernlint does not run" in f.message) for f in report.findings] == [("KL902", True)]


def test_only_a_one_return_helper_is_read_and_only_by_the_evaluator(tmp_path):
    """``TABLE = table([...])`` reads ``table``'s one return expression with its parameter
    bound; a helper that does anything before returning is not run (KL902 names it)."""
    source = tmp_path / "tables.py"
    source.write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda


        def table(values):
            return cuda.to_device(np.asarray(values, dtype=np.float32))


        def logged_table(values):
            open(__file__ + ".MARKER", "w").close()
            return cuda.to_device(np.asarray(values, dtype=np.float32))


        TABLE = table([1.0, 2.0, 3.0])
        LOGGED = logged_table([1.0, 2.0])


        @cuda.jit
        def lookup(out, idx):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = TABLE[idx[i] % 3]


        @cuda.jit
        def lookup_logged(out):
            out[0] = LOGGED[0]


        idx = np.arange(8, dtype=np.int32)
        out = np.zeros(8, dtype=np.float32)
        lookup[1, 8](out, idx)
        lookup_logged[1, 1](out)
        '''))
    report = check_paths([str(tmp_path)], Options(timeout=60))
    assert not (tmp_path / "tables.py.MARKER").exists()
    assert [(s.kernel, s.signature) for s in report.stats] == [("lookup", "void(float32[::1], int32[::1])")]
    assert [(f.kernel, f.code) for f in report.findings] == [("lookup_logged", "KL902")]
    assert "from `logged_table`, which is called at import time" in report.findings[0].message


def test_a_package_installed_under_another_name_is_read_through_its_packaging(tmp_path):
    """``setup(package_dir={"simlab.gpu": "gpu"})`` installs ``gpu/`` as ``simlab.gpu``; its
    modules in folders without ``__init__.py`` (namespace portions) import relatively, and a
    width chosen by ``getattr(numba, floattype)`` in a helper is read, not run."""
    files = {
        "setup.py": 'from setuptools import setup\nsetup(name="simlab.gpu", package_dir={"simlab.gpu": "gpu"})\n',
        "gpu/__init__.py": "",
        "gpu/config.py": textwrap.dedent('''
            floattype = "float32"


            def get_numba_floattype():
                import numba
                return getattr(numba, floattype)
            '''),
        "gpu/components/monitors/counts.py": textwrap.dedent('''
            from numba import cuda
            from ...config import get_numba_floattype

            NB_FLOAT = get_numba_floattype()


            @cuda.jit(device=True)
            def weight(x):
                return NB_FLOAT(x) * NB_FLOAT(0.5)
            '''),
        "tests/test_counts.py": textwrap.dedent('''
            import numpy as np
            from numba import cuda
            from simlab.gpu.components.monitors.counts import weight


            @cuda.jit
            def tally(out, x):
                i = cuda.grid(1)
                if i < x.size:
                    out[i] = weight(x[i])


            def test_tally():
                x = np.ones(8, dtype=np.float32)
                out = np.zeros_like(x)
                tally[1, 8](out, x)
            '''),
    }
    for relative, text in files.items():
        (tmp_path / relative).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / relative).write_text(text)
    report = check_paths([str(tmp_path)], Options(timeout=60))
    assert [f.message for f in report.findings if f.code.startswith("KL9")] == []
    assert [(s.kernel, s.signature) for s in report.stats if s.kernel == "tally"] == [
        ("tally", "void(float32[::1], float32[::1])")]


def test_an_overload_made_from_a_factory_parameter_gets_its_stand_in(tmp_path):
    """Registrations beside a function (``@overload(f)``) are applied for the kernels that
    call it; one made from a factory's parameter no call gives reads it as the number it
    multiplies (a stand-in), so the kernel calling it is checked."""
    source = tmp_path / "ext.py"
    source.write_text(textwrap.dedent('''
        from numba import cuda
        from numba.cuda.extending import overload


        def make(scale):
            def scaled(x):
                return x * scale

            @overload(scaled, target="cuda")
            def scaled_cuda(x):
                def impl(x):
                    return x * scale
                return impl

            @cuda.jit("void(float64[::1])")
            def apply(out):
                out[0] = scaled(out[0])

            return apply
        '''))
    report = check_paths([str(tmp_path)], Options(timeout=60))
    assert report.findings == []
    assert [(s.kernel, s.signature) for s in report.stats] == [("apply", "void(float64[::1])")]


def test_only_extension_classes_of_methods_and_constants_are_made(tmp_path):
    """A class is made only for numba's extension API (a numba type, a class it types) and
    only from methods, a docstring and constants, and a numba type is instantiated only where
    its constructor just names it; a body or constructor that does anything else is a KL902.
    A plain class's object made at import time is read, not made: ``SETTINGS.n`` is what
    ``__init__``'s one assignment gives. Nothing of any of them runs."""
    source = tmp_path / "types_here.py"
    source.write_text(textwrap.dedent('''
        from numba import cuda
        from numba.cuda import types


        class Loud(types.Type):
            open(__file__ + ".MARKER", "w").close()

            def __init__(self):
                super().__init__(name="Loud")


        class Settings:
            def __init__(self):
                open(__file__ + ".MARKER", "w").close()
                self.n = 4


        class Writer(types.Type):
            def __init__(self):
                open(__file__ + ".MARKER", "w").close()
                super().__init__(name="Writer")


        LOUD = Loud()
        SETTINGS = Settings()
        WRITER = Writer()


        @cuda.jit("void(float64[::1])")
        def uses_loud(out):
            out[0] = LOUD is None


        @cuda.jit("void(float64[::1])")
        def uses_settings(out):
            out[0] = SETTINGS.n


        @cuda.jit("void(float64[::1])")
        def uses_writer(out):
            out[0] = WRITER is None
        '''))
    report = check_paths([str(tmp_path)], Options(timeout=60))
    assert not (tmp_path / "types_here.py.MARKER").exists()
    messages = {f.kernel: f.message for f in report.findings}
    assert set(messages) == {"uses_loud", "uses_writer"}
    assert "constructor does more than name it" in messages["uses_writer"]
    assert "`Loud`, which is a class, whose body kernlint does not run" in messages["uses_loud"]
    assert [s.kernel for s in report.stats] == ["uses_settings"]


def test_an_attribute_of_self_is_read_only_where_nothing_changes_it(tmp_path):
    """``self.width = 4`` in ``__init__``, read in a method that makes a kernel: its value.
    ``self.ids = {"x": 0}`` changed later (``self.ids["x"] = 1``): not read, whatever the
    first assignment says; the kernel indexes with what it holds, an int stand-in. Called,
    what it holds has none (a KL902 naming it)."""
    source = tmp_path / "saver.py"
    source.write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda


        class Saver:
            def __init__(self):
                self.width = 4
                self.ids = {"x": 0}
                self.ids["x"] = 1

            def make(self):
                width = self.width
                x_id = self.ids["x"]

                @cuda.jit
                def fill(out):
                    i = cuda.grid(1)
                    if i < width:
                        out[i] = 1.0

                @cuda.jit
                def pick(out, table):
                    out[0] = table[x_id]

                convert = self.ids["convert"]

                @cuda.jit
                def apply(out):
                    out[0] = convert(out[0]).real

                out = np.zeros(width)
                fill[1, width](out)
                pick[1, 1](out, out)
                apply[1, 1](out)
        '''))
    report = check_paths([str(tmp_path)], Options(timeout=60))
    assert [(s.kernel, s.signature) for s in report.stats] == [
        ("fill", "void(float64[::1])"), ("pick", "void(float64[::1], float64[::1])")]
    assert [(f.kernel, f.code) for f in report.findings] == [("apply", "KL902")]
    assert ("`convert` is computed from `self.ids`, which is changed after its assignment in `Saver`'s methods; "
            "the kernel calls it and uses what it returns as no number") in report.findings[0].message


def test_a_factory_kernel_stands_in_for_what_it_reads_of_parameters_no_call_gives(tmp_path):
    """`make(table, flags, box)` is called from other files: each closure variable computed
    from its parameters stands in by the kernel's use of it (an index int 1, a tested flag
    True, an indexed array zeros of its rank and kind, a number float64 1.0, a function called
    for its effects one doing nothing, one whose result is a number or a condition one
    returning 1.0, one whose result it indexes a tuple of 1.0 as long as its indices need); a
    parameter with a default takes it; the rebindings `norm = numba.njit(norm)`
    and `pair = numba.njit(pair)` read the one before them (`pair`, a def of the factory, is
    compiled). The finding lists every stand-in of its kernel."""
    source = tmp_path / "factory.py"
    source.write_text(textwrap.dedent('''
        import numba
        from numba import cuda


        def make(table, flags, box, scale=2):
            ids = {key: table.index[key] for key in ("r", "v")}
            r_id = ids["r"]
            check, weights = flags["check"], table.weights
            lengths = box.lengths
            wrap, norm, moved, hook = box.wrap, box.norm, box.moved, box.hook
            params_of = numba.njit(table.params_of)
            norm = numba.njit(norm)

            def pair(r):
                return r * scale

            pair = numba.njit(pair)

            @cuda.jit("void(float64[:, ::1], int64[::1])")
            def kernel(x, out):
                i = cuda.grid(1)
                wrap(x[r_id])
                v = pair(norm(x[r_id])) * lengths * weights[i, 0]
                if check:
                    print("checking", i)  # KL301
                p = params_of(i, r_id)
                if moved(x[r_id]) and v < p[2] * p[-1]:
                    out[i] = int(v)
                if hook is not None:
                    hook(x[r_id])
            return kernel
        '''))
    report = check_paths([str(tmp_path)], Options(timeout=60))
    [finding] = report.findings
    assert finding.code == "KL301"
    assert finding.standins == [
        "check (True for `make`'s `flags`)",
        "hook (a device function that does nothing for `make`'s `box`)",
        "lengths (float64 1.0 for `make`'s `box`)",
        "moved (a device function returning float64 1.0 for `make`'s `box`)",
        "norm (a device function returning float64 1.0 for `make`'s `box`)",
        "params_of (a device function returning a tuple of 3 float64 1.0 for `make`'s `table`)",
        "r_id (int 1 for `make`'s `table`)",
        "weights (zeros of float64, 2-dimensional for `make`'s `table`)",
        "wrap (a device function that does nothing for `make`'s `box`)",
    ]


def test_a_chain_of_rebindings_each_reading_the_one_before_is_followed(tmp_path):
    """`c = c * scale` then `c = c + 1.0` in a factory: each right-hand side reads the binding
    before it, all the way to the first (it used to read its own binding again, without end)."""
    (tmp_path / "factory.py").write_text(textwrap.dedent('''
        from numba import cuda


        def make(offset=0.5):
            c = 2.0
            c = c * 3.0
            c = c + offset

            @cuda.jit("void(float64[::1])")
            def kernel(out):
                out[0] = c
                if out[0] != 6.5:
                    print("not the value the factory made")  # KL301
            return kernel
    '''))
    report = check_paths([str(tmp_path)], Options(timeout=60))
    assert [f.code for f in report.findings] == ["KL301"]
    assert [s.kernel for s in report.stats if not s.host] == ["kernel"]


def test_what_a_method_returns_and_attributes_set_elsewhere_stand_in(tmp_path):
    """`self.make_update()` is a method kernlint does not run, `self.offset` is set outside
    the class: run-time values, each stood in for by the kernel's use of it."""
    source = tmp_path / "integrator.py"
    source.write_text(textwrap.dedent('''
        from numba import cuda


        class Integrator:
            def make_update(self):
                @cuda.jit(device=True)
                def update(x):
                    x[0] += 1.0
                return update

            def get_kernel(self):
                update = self.make_update()
                offset = self.offset

                @cuda.jit("void(float64[::1])")
                def step(x):
                    update(x)
                    if x[offset] != x[offset]:
                        print("not a number")  # KL301
                return step
        '''))
    report = check_paths([str(tmp_path)], Options(timeout=60))
    [finding] = report.findings
    assert finding.code == "KL301"
    assert finding.standins == ["offset (int 1 for `Integrator`'s `self.offset`)",
                                "update (a device function that does nothing for `Integrator`'s `self.make_update`)"]


def test_annotations_in_a_kernel_are_not_read(tmp_path):
    """Python never evaluates a local's annotation (`row: CudaArray = ...`); numba ignores a
    parameter's. A name read only there is no global the kernel needs."""
    source = tmp_path / "annotated.py"
    source.write_text(textwrap.dedent('''
        from typing import Any

        import numpy.typing as npt
        from numba import cuda

        CudaArray = npt.NDArray[Any]


        @cuda.jit("void(float32[::1], int32)")
        def fill(out: CudaArray, n: int) -> None:
            row: CudaArray = cuda.local.array(4, dtype=out.dtype)
            total: float
            row[0] = out[0]
            out[0] = row[0] * n
        '''))
    report = check_paths([str(tmp_path)], Options(timeout=60))
    assert report.findings == []
    assert [(s.kernel, s.signature) for s in report.stats] == [("fill", "void(float32[::1], int32)")]


def test_a_failure_names_the_stand_ins_of_its_own_kernel_only(tmp_path):
    """``from scipy.constants import c`` compiles as a stand-in where a kernel uses it; a kernel
    that fails to compile says so only where its slice used one."""
    source = tmp_path / "light.py"
    source.write_text(textwrap.dedent('''
        from numba import cuda
        from scipy.constants import c

        C2 = c ** 2


        @cuda.jit("void(float64[::1])")
        def energy(out):
            out[0] = out[0] * C2


        @cuda.jit("void(float64[::1])")
        def broken_with(out):
            out[0] = C2 * out.nope


        @cuda.jit("void(float64[::1])")
        def broken_without(out):
            out[0] = out.nope


        @cuda.jit
        def lazy_broken(out, n):
            out[0] = C2 * out.nope + n
        '''))
    report = check_paths([str(tmp_path)], Options(timeout=60))
    messages = {f.kernel: f.message for f in report.findings if f.code == "KL902"}
    assert set(messages) == {"broken_with", "broken_without"}
    assert "stand-ins for c" in messages["broken_with"]
    assert "stand-in" not in messages["broken_without"]
    [skipped] = [f for f in report.findings if f.code == "KL903"]
    assert skipped.message.count("stand-ins for c") == 1  # said once
    # the line names the first candidate and points to the others; the finding lists them all
    assert "`void(float64[::1], float64)` failed: TypingError: Unknown attribute 'nope' of type " \
           "array(float64, 1d, C)" in skipped.message
    assert f"; {len(skipped.tried) - 1} more tried (`--show-signatures`" in skipped.message
    assert skipped.message.count("of type array(float64, 1d, C)") == 1 and len(skipped.message) < 450
    tried = [(t["signature"], t["inferred"]) for t in skipped.tried]
    assert tried[0] == ("void(float64[::1], float64)", "as read")
    assert ("void(float64[::1], int64)", "other scalars as int64") in tried
    assert all("Unknown attribute 'nope'" in t["error"] for t in skipped.tried)


def test_an_import_that_fails_here_takes_its_except_import_error_branch(tmp_path):
    """``try: from numba.cuda.newer import X`` / ``except ImportError: from older import X``:
    where the first import fails here, the handler's bindings are the values, also of the names
    the try body binds after it (they never happen), as in Python; where it succeeds, the
    handler is not read."""
    source = tmp_path / "compat.py"
    source.write_text(textwrap.dedent('''
        from numba import cuda

        try:
            from numba.cuda.kernlint_no_such_module import HALF_TURN
            from math import e as SCALES  # never runs here: the import above raises
        except ImportError:
            from math import pi as HALF_TURN
            SCALES = (1.0, 2.0)

        try:
            from math import tau as TURN
        except ImportError:
            TURN = undefined_name_never_read


        @cuda.jit("void(float64[::1])")
        def turns(out):
            out[0] = HALF_TURN + TURN + SCALES[1]
        '''))
    report = check_paths([str(tmp_path)], Options(timeout=60))
    assert report.findings == []
    assert [s.kernel for s in report.stats] == ["turns"]


def test_a_finding_says_which_stand_ins_its_kernel_was_compiled_with(tmp_path):
    """A kernel that reads `c` from scipy.constants compiles with a float64 stand-in for it;
    its findings say so (text and JSON), the findings of a kernel that reads none do not."""
    from kernlint.report.text import format_finding

    source = tmp_path / "guards.py"
    source.write_text(textwrap.dedent('''
        from numba import cuda
        from scipy.constants import c


        @cuda.jit("void(float64[::1])")
        def scaled(x):
            i = cuda.grid(1)
            if x[i] * c > 1.0:
                print("too fast", i)


        @cuda.jit("void(float64[::1])")
        def plain(x):
            i = cuda.grid(1)
            if x[i] > 1.0:
                print("too big", i)
        '''))
    report = check_paths([str(tmp_path)], Options(timeout=60))
    by_kernel = {f.kernel: f for f in report.findings}
    assert set(by_kernel) == {"scaled", "plain"}
    assert by_kernel["scaled"].standins == ["c (scipy.constants.c)"]
    assert "stand-ins for c (scipy.constants.c)" in format_finding(by_kernel["scaled"])
    assert by_kernel["scaled"].to_dict()["standins"] == ["c (scipy.constants.c)"]
    assert by_kernel["plain"].standins == [] and "stand-in" not in format_finding(by_kernel["plain"])


def test_the_fixture_script_did_not_run(fixture_report):
    from conftest import FIXTURES

    assert any(f.path.endswith("run_push.py") for f in fixture_report.findings)
    assert not (FIXTURES / "project" / "scripts" / "SCRIPT_RAN").exists()


def test_import_modules_keeps_the_old_way(tmp_path):
    source = tmp_path / "script.py"
    source.write_text(TOP_LEVEL_EFFECTS.replace("import kernlint_not_installed_anywhere\n", "")
                      .replace("convert[1, 16](y, x)\n", ""))
    report = check_paths([str(tmp_path)], Options(timeout=60, frontend=FrontendSettings(import_modules=True)))
    assert (tmp_path / "MARKER").exists()  # it was imported: its top level ran
    assert [(f.code, f.line) for f in report.findings] == [("KL901", 25)]  # and its sys.exit ended it


def run_cli(*args, cwd):
    import os
    import subprocess
    import sys

    from conftest import ROOT

    return subprocess.run([sys.executable, "-m", "kernlint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_configuration_names_jit_wrappers_safe_imports_and_constants(tmp_path):
    """What the slice cannot see, the configuration supplies."""
    (tmp_path / "gpu").mkdir()
    (tmp_path / "gpu" / "__init__.py").write_text("")
    (tmp_path / "gpu" / "tools.py").write_text(textwrap.dedent('''
        import importlib.util

        def compile_cupy(signature, **options):
            """Picks a backend at run time: not a shape kernlint recognises by itself."""
            if importlib.util.find_spec("cupy") is None:
                raise RuntimeError("needs cupy")
            from numba import cuda
            return cuda.jit(signature, **options)
    '''))
    (tmp_path / "kernels.py").write_text(textwrap.dedent('''
        import os
        from errno import EDOM
        from numba import cuda, float64
        from gpu.tools import compile_cupy

        STEPS = int(os.environ["STEPS"])

        @compile_cupy("void(int64[::1], float64[::1])")
        def convert(y, x):
            i = cuda.grid(1)
            if i < x.size:
                v = x[i]
                if v != v:
                    print("NaN", i)
                    return
                y[i] = int(v)

        @cuda.jit("void(float64[::1])")
        def local_table(x):
            table = cuda.local.array(EDOM, float64)
            for k in range(STEPS):
                table[k % EDOM] = x[k]
            x[0] = table[0]
    '''))
    bare = run_cli("check", "--no-cache", "--output-format", "json", ".", cwd=tmp_path)
    found = json.loads(bare.stdout)
    assert [(f["code"], f["kernel"]) for f in found] == [("KL902", "local_table")]
    assert "EDOM" in found[0]["message"] and "safe-imports" in found[0]["message"]
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent('''
        [tool.kernlint]
        jit-decorators = ["gpu.tools.compile_cupy"]
        safe-imports = ["errno"]
    '''))
    run = run_cli("check", "--no-cache", "--output-format", "json", "--show-signatures", ".", cwd=tmp_path)
    configured = json.loads(run.stdout)
    # STEPS is the environment's: local_table is checked with a stand-in for it, and says so
    assert [(f["code"], f["kernel"]) for f in configured] == [("KL301", "convert"), ("KL101", "convert")]
    assert re.search(r"::local_table +STEPS +stand-in: int 1 for `os.environ`", run.stderr)
    with open(tmp_path / "pyproject.toml", "a") as config:
        config.write('constants = { "kernels.py::STEPS" = 8 }\n')
    run = run_cli("check", "--no-cache", "--output-format", "json", "--show-signatures", ".", cwd=tmp_path)
    complete = json.loads(run.stdout)
    assert [(f["code"], f["kernel"]) for f in complete] == [("KL301", "convert"), ("KL101", "convert")]
    assert "stand-in" not in run.stderr  # the configured value is no stand-in


def test_a_typing_failure_says_which_signature_had_no_implementation(tmp_path):
    """numba puts the call it could not type on the line after "found for signature:"."""
    source = tmp_path / "kernels.py"
    source.write_text(textwrap.dedent("""\
        import numpy as np
        from numba import cuda


        @cuda.jit("void(float64[::1])")
        def root(out):
            out[0] = np.sqrt(out, 1, 2)
        """))
    report = check_paths([str(source)], Options())
    [finding] = [f for f in report.findings if f.code == "KL902"]
    assert "found for signature: >>> sqrt(array(float64, 1d, C), Literal[int](1), Literal[int](2))" in finding.message


def test_a_numpy_reduction_that_allocates_inside_compiles_with_nrt(tmp_path):
    """`np.min` of an array types only with numba-cuda's runtime on (it allocates inside, and
    the error says so only deep in numba's message): the kernel is compiled so, where it is
    launched, instead of failing to compile."""
    source = tmp_path / "test_reductions.py"
    source.write_text(textwrap.dedent("""\
        import numpy as np
        from numba import cuda


        def test_smallest_sample():
            samples = np.float64([1.0, -2.0, 0.5, 4.0])

            @cuda.jit
            def smallest(out):
                out[0] = np.min(samples)

            out = np.zeros(1)
            smallest[1, 1](out)
        """))
    report = check_paths([str(source)], Options())
    assert [f.message for f in report.findings if f.code.startswith("KL9")] == []
    [stat] = [s for s in report.stats if s.kernel == "smallest"]
    assert stat.signature_source.startswith("launch-site")


@pytest.mark.parametrize("binder, kernel_checked", [
    ("def setup():\n    global scale\n    scale = cuda.jit('float64(float64)', device=True)(half)\n", True),
    # declared in a function nested in another: still the one assignment
    ("def outer():\n    def setup():\n        global scale\n        scale = cuda.jit('float64(float64)', device=True)(half)\n"
     "    setup()\n", True),
    # two assignments: which one the kernel sees depends on the run
    ("def setup():\n    global scale\n    scale = cuda.jit('float64(float64)', device=True)(half)\n"
     "def reset():\n    global scale\n    scale = None\n", False),
])
def test_a_global_only_a_function_binds_is_that_binding(tmp_path, binder, kernel_checked):
    source = tmp_path / "kernels.py"
    source.write_text("import numpy as np\nfrom numba import cuda\n\n\ndef half(x):\n    return x / 2\n\n\n"
                      "@cuda.jit('void(float64[::1])')\ndef halve(a):\n    a[0] = scale(a[0])\n\n\n" + binder)
    report = check_paths([str(source)], Options())
    assert any(s.kernel == "halve" for s in report.stats) == kernel_checked
    assert any(f.code == "KL902" and "scale" in f.message for f in report.findings) != kernel_checked


PROJECT_WRAPPER = """
class Wrapped:
    def __init__(self, arr):
        self._arr = arr

    @property
    def __cuda_array_interface__(self):
        return self._arr.__cuda_array_interface__
"""


@pytest.mark.parametrize("wrapper", ["project", "ForeignArray"])
def test_a_captured_device_array_is_writable_and_lowered_by_its_pointer(tmp_path, wrapper):
    """`HITS = cuda.to_device(...)` at import time: numba-cuda types a captured device array
    as a writable array and embeds its pointer; the stand-in (an object with that interface,
    made without a GPU) gives the same IR: no constant copy of the data, an `inttoptr`. An
    object that hands on such an array's interface (a class of the project, or numba-cuda's
    testing `ForeignArray`, read as syntax) is that array."""
    from kernlint.python.slicing import device_arrays

    if not device_arrays._captures_device_arrays():
        pytest.skip("this numba-cuda refuses captured device arrays")
    if wrapper == "ForeignArray":
        pytest.importorskip("filecheck")  # numba.cuda.testing imports it
        made, defined = "ForeignArray", "from numba.cuda.testing import ForeignArray\n"
    else:
        made, defined = "Wrapped", PROJECT_WRAPPER
    (tmp_path / "counts.py").write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda
        ''') + defined + textwrap.dedent(f'''

        HITS = cuda.to_device(np.zeros(4, dtype=np.int32))
        WRAPPED = {made}(cuda.to_device(np.zeros(8, dtype=np.float32)))


        @cuda.jit("void(float64[::1])")
        def count_hits(x):
            i = cuda.grid(1)
            if i < x.size and x[i] > 0.5:
                cuda.atomic.add(HITS, 0, 1)
                WRAPPED[i % 8] = x[i]
        '''))
    result = compile_file(str(tmp_path / "counts.py"))
    assert [f.code for f in result.diagnostics] == []
    [kernel] = result.kernels
    ir = "\n".join(kernel.modules)
    assert "inttoptr" in ir and "[4 x i32]" not in ir  # the pointer, not a copy of the data
    assert "device array of its dtype and shape for `cuda.to_device`" in json.dumps(kernel.info.standins)


def test_a_kernel_reading_a_device_array_stand_in_is_cached_by_the_arrays_data():
    """The kernel digest reads the stand-in's dtype, shape and data, never its pointer: two
    runs give the same key (the kernel is reused from the cache), other data another one."""
    import numpy as np
    from numba import cuda

    from kernlint.compile.numba_cuda import kernel_fingerprint
    from kernlint.python.slicing import DeviceArrayStandin

    def digest(data):
        namespace = {"TABLE": DeviceArrayStandin(np.array(data, dtype=np.float32)), "cuda": cuda}
        exec("def scale(out):\n    out[0] *= TABLE[0]\n", namespace)
        return kernel_fingerprint(cuda.jit(namespace["scale"]))

    assert digest([1.0, 2.0]) is not None
    assert digest([1.0, 2.0]) == digest([1.0, 2.0])
    assert digest([1.0, 2.0]) != digest([1.0, 3.0])
