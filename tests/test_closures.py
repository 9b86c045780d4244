"""Factory-made kernels checked with what a recorded run saw them close over (``kernlint record``)."""
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tomllib

import numpy as np
import pytest

from conftest import RECORDED_FIXTURES, ROOT, expected_findings
from kernlint.python.signatures.closures import EMPTY, Unrebuildable, read_closures, rebuild, toml_value
from kernlint.python.signatures.recorded import read_recorded

MDLITE = RECORDED_FIXTURES / "mdlite"


def kernlint(*args, cwd, timeout=600):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    return subprocess.run([sys.executable, "-m", "kernlint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


def project(root, name, **files):
    """A project at ``root``: its pyproject.toml and files (``run_py`` is ``run.py``)."""
    (root / "pyproject.toml").write_text(f'[project]\nname = "{name}"\n')
    for key, text in files.items():
        (root / key.replace("_py", ".py")).write_text(text)


def checked(cwd, target, *options):
    """``--show-signatures`` rows of the kernels checked, spaces collapsed:
    ``path::kernel[variant] signature source``."""
    shown = kernlint("check", *options, "--show-signatures", target, cwd=cwd).stdout
    return sorted(" ".join(line.split()) for line in shown.splitlines() if re.match(r"\S+\.py::\w+\[", line))


def closure_table(kernel, line, signature, **values):
    """A [[closures]] table as kernlint record writes it (values in TOML)."""
    written = ", ".join(f"{name} = {value}" for name, value in values.items())
    return (f'[[closures]]\nkernel = "{kernel}"\nline = {line}\nsignatures = ["{signature}"]\n'
            f'options = {{}}\nvalues = {{ {written} }}\n')


# a factory of a device function (a kernel where `fuse` is false), and one of a kernel calling it
MAKE_STEP = ("from numba import cuda\n\n\n"
             "def make_step(scale, fuse):\n"
             "    def step(x, i):\n"
             "        x[i] = x[i] * scale\n"
             "    step = cuda.jit(device=fuse)(step)\n"
             "    return step\n")
MAKE_LOOP = ("def make_loop(step):\n"
             "    @cuda.jit\n"
             "    def loop(x):\n"
             "        step(x, cuda.grid(1))\n"
             "    return loop\n")


@pytest.fixture
def mdlite(tmp_path):
    project = tmp_path / "mdlite"
    shutil.copytree(MDLITE, project, ignore=shutil.ignore_patterns("__pycache__"))
    return project


def test_factory_kernels_are_checked_with_each_recorded_closure(mdlite):
    run = kernlint("check", "--no-cache", "--output-format", "json", ".", cwd=mdlite)
    found = {(f["code"], f["path"], f["line"]) for f in json.loads(run.stdout)}  # relative to the run's folder
    expected = {(code, os.path.relpath(path, mdlite), line)
                for path in mdlite.rglob("*.py") for code, line in expected_findings(path)}
    assert found == expected and expected, run.stderr
    shown = kernlint("check", "--no-cache", "--show-signatures", ".", cwd=mdlite).stdout
    rows = [line.split("  ")[0] for line in shown.splitlines() if line.startswith("mdlite/integrators.py::step[")]
    # one variant per closure the run launched it with: a 2-D run with, a 3-D run without kinetic energy
    assert rows == ["mdlite/integrators.py::step[recorded #1: D=2, compute_k=True, f_id=2, k_id=1]",
                    "mdlite/integrators.py::step[recorded #2: D=3, compute_k=False, f_id=2, m_id=0]"]
    assert all(line.rstrip().endswith("recorded") for line in shown.splitlines() if "::step[" in line)


def test_without_the_record_the_factory_kernel_is_checked_with_stand_ins_it_names(mdlite):
    """`get_kernel(system, plan, flags)` is called from another file with objects made at run
    time: what `step` reads of them stands in by its use (counts and indices int 1, the flag
    True, numbers float64 1.0, the boundary function a call that does nothing), and the
    findings that do not depend on those values are there, each listing the stand-ins."""
    (mdlite / "kernlint-signatures.toml").unlink()
    run = kernlint("check", "--no-cache", "--output-format", "json", ".", cwd=mdlite)
    found = json.loads(run.stdout)
    # the findings the recorded closures give (both inline in the file)
    assert {(f["code"], f["line"]) for f in found} == expected_findings(mdlite / "mdlite" / "integrators.py")
    standins = found[0]["standins"]
    assert "D (int 1 for `get_kernel`'s `system`)" in standins
    assert "compute_k (True for `get_kernel`'s `flags`)" in standins
    assert "half (float64 1.0 for `get_kernel`'s `system`)" in standins
    assert "wrap (a device function that does nothing for `get_kernel`'s `system`)" in standins
    assert "device= (numba's default for `get_kernel`'s `plan`)" in standins
    text = kernlint("check", "--no-cache", ".", cwd=mdlite).stdout
    assert "compiled with stand-ins for D (int 1 for `get_kernel`'s `system`)" in text
    shown = kernlint("check", "--no-cache", "--show-signatures", ".", cwd=mdlite).stdout
    assert "mdlite/integrators.py::step[system=?, flags=?, plan=?]" in shown


def test_the_committed_record_is_what_kernlint_record_writes(mdlite):
    committed = MDLITE / "kernlint-signatures.toml"
    (mdlite / "kernlint-signatures.toml").unlink()
    run = kernlint("record", "--simulator", "--", sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                   "tests", cwd=mdlite)
    assert run.returncode == 0, run.stdout + run.stderr
    written = mdlite / "kernlint-signatures.toml"
    assert str(mdlite) not in written.read_text()  # paths relative to the file: it can be committed

    def moved(closures, root):
        return json.loads(json.dumps(closures).replace(str(root), "<root>"))

    assert moved(read_closures(str(written)), mdlite) == moved(read_closures(str(committed)), MDLITE)
    assert moved(read_recorded(str(written)), mdlite) == moved(read_recorded(str(committed)), MDLITE)


def test_a_value_kernlint_cannot_make_again_is_a_located_kl902(mdlite):
    path = mdlite / "kernlint-signatures.toml"
    text = path.read_text()
    assert "n_cells = 4," in text
    path.write_text(text.replace("n_cells = 4,", 'n_cells = { unsupported = "mdlite.grid.CellList" },'))
    run = kernlint("check", "--no-cache", "mdlite/integrators.py", cwd=mdlite)
    assert ("mdlite/integrators.py:36:44: KL902 kernel `step` not compiled: `n_cells` was recorded as a "
            "`mdlite.grid.CellList`, which kernlint cannot make again") in run.stdout, run.stdout
    assert "step[recorded" not in run.stdout  # the other closure is still checked: its findings are there
    assert run.stdout.count("KL301") == 1  # the print of its domain check (`x >= n_cells`: no KL101)


def test_a_malformed_closure_table_stops_kernlint_with_the_file_named(mdlite):
    path = mdlite / "kernlint-signatures.toml"
    path.write_text(path.read_text() + '\n[[closures]]\nkernel = "no separator"\nvalues = {}\n')
    run = kernlint("check", "--no-cache", ".", cwd=mdlite)
    assert run.returncode == 2
    assert "kernlint-signatures.toml: [[closures]] table 3: expected kernel" in run.stderr


def test_a_run_stopped_midway_keeps_what_it_launched(tmp_path):
    project(tmp_path, "stopped", run_py=(
        "import math, os, signal\nimport numpy as np\nfrom numba import cuda\n\n"
        "def make(scale, op):\n    @cuda.jit\n    def scaled(x):\n        x[0] = op(x[0]) * scale\n"
        "    return scaled\n\n"
        "make(np.float32(2), math.sqrt)[1, 1](np.ones(1, np.float32))\n"
        "os.kill(os.getpid(), signal.SIGKILL)  # no atexit: the hook wrote at the launch\n"))
    run = kernlint("record", "--simulator", "--", sys.executable, "run.py", cwd=tmp_path)
    assert run.returncode != 0
    closures = read_closures(str(tmp_path / "kernlint-signatures.toml"))
    assert closures == {str(tmp_path / "run.py"): {"make.scaled": [
        {"values": {"scale": {"scalar": 2.0, "dtype": "float32"}, "op": {"named": "math.sqrt"}},
         "options": {"fastmath": False}, "signatures": ["void(float32[::1])"], "line": 6}]}}
    assert checked(tmp_path, "run.py", "--no-cache") == ["run.py::scaled[recorded] void(float32[::1]) recorded"]


def test_defs_of_one_name_in_a_factory_each_get_the_closures_they_were_launched_with(tmp_path):
    project(tmp_path, "branches", run_py=(
        "import numpy as np\nfrom numba import cuda\n\n\n"
        "def make(arity, scale):\n"
        "    if arity == 1:\n"
        "        @cuda.jit\n        def kernel(out, a):\n            out[0] = a[0] * scale\n"
        "    else:\n"
        "        @cuda.jit\n        def kernel(out, a, b):\n            out[0] = a[0] * b[0] * scale\n"
        "    return kernel\n\n\n"
        "x = np.ones(1)\nmake(1, 2.0)[1, 1](x, x)\nmake(2, 3)[1, 1](x, x, x)\n"
        "open('ran.marker', 'w').close()\n"))
    run = kernlint("record", "--simulator", "--", sys.executable, "run.py", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    (tmp_path / "ran.marker").unlink()  # the run wrote it; check reads the script and never runs it
    assert checked(tmp_path, "run.py", "--no-cache") == [
        "run.py::kernel[recorded: scale=2.0] void(float64[::1], float64[::1]) recorded",
        "run.py::kernel[recorded: scale=3] void(float64[::1], float64[::1], float64[::1]) recorded"]
    assert not (tmp_path / "ran.marker").exists()


def test_closure_values_are_written_as_toml_that_reads_back():
    values = {"n": 3, "flag": False, "x": -0.5, "big": math.inf, "name": 'say "hi"\n', "empty": {},
              "nested": {"tuple": [1, {"scalar": 2.5, "dtype": "float32"}]}, "odd key": [math.nan]}
    read = tomllib.loads(f"values = {toml_value(values)}")["values"]
    assert math.isnan(read.pop("odd key")[0]) and read == {k: v for k, v in values.items() if k != "odd key"}


def test_recorded_values_are_made_again_as_they_were():
    told = []
    made = rebuild({"tuple": [1, {"scalar": 0.5, "dtype": "float32"}, {"none": True}, {"empty": True},
                              {"array": [1, 2, 3, 4], "dtype": "int16", "shape": [2, 2], "order": "F"},
                              {"numpy": "float64"}, {"numba_type": "int32"}, {"complex": [1.0, -2.0]}]},
                   function=None, standin=told.append)
    assert made[0] == 1 and type(made[1]) is np.float32 and made[1] == 0.5
    assert made[2] is None and made[3] is EMPTY
    assert made[4].dtype == np.int16 and made[4].flags.f_contiguous and made[4].tolist() == [[1, 3], [2, 4]]
    from numba.core import types

    assert made[5] is np.float64 and made[6] == types.int32 and made[7] == complex(1, -2)
    assert told == []
    zeros = rebuild({"dtype": "float64", "shape": [5000], "order": "C"}, function=None, standin=told.append)
    assert zeros.shape == (5000,) and not zeros.any()
    assert told == ["zeros of float64[5000] (the run's array was too large to record)"]
    with pytest.raises(Unrebuildable, match="a `pkg.Box`"):
        rebuild({"unsupported": "pkg.Box"}, function=None, standin=told.append)


def test_a_device_function_a_recorded_kernel_called_is_checked_with_what_the_gpu_compiled_it_for(tmp_path):
    """On a GPU the record also keeps the signatures each device function in a closure was
    compiled for: a factory's `cuda.jit(device=flag)(step)` is then checked on its own, with
    its own recorded closure (written here by hand: CI has no GPU to record it)."""
    project(tmp_path, "fused", fused_py=MAKE_STEP + "\n\n" + MAKE_LOOP)
    step = ('{ function = "make_step.step", path = "fused.py", line = 5, closure = { scale = 0.5 }, '
            'jit = "numba.cuda.jit", options = { device = true }, signatures = ["none(float64[::1], int64)"] }')
    (tmp_path / "kernlint-signatures.toml").write_text(
        closure_table("fused.py::make_loop.loop", 12, "void(float64[::1])", step=step))
    assert checked(tmp_path, "fused.py", "--no-cache") == [
        "fused.py::loop[recorded] void(float64[::1]) recorded",
        "fused.py::step[recorded: scale=0.5] none(float64[::1], int64) recorded"]


def test_a_recorded_function_of_an_installed_package_is_found_by_its_module(tmp_path):
    """A run elsewhere (another machine's site-packages) records the path it had; the module
    name finds the same function in the package installed here."""
    project(tmp_path, "usecases", wrap_py=(
        "from numba import cuda\n\n\n"
        "def wrap(pyfunc):\n"
        "    device = cuda.jit(device=True)(pyfunc)\n\n"
        "    @cuda.jit\n"
        "    def kernel(out, x, y):\n"
        "        out[0] = device(x[0], y[0])\n"
        "    return kernel\n"))
    usecase = ('{ function = "div_usecase", module = "numba.cuda.tests.cudapy.complex_usecases", '
               'path = "/elsewhere/site-packages/numba_cuda/numba/cuda/tests/cudapy/complex_usecases.py", line = 7, '
               'closure = {}, jit = "numba.cuda.jit", options = { device = true } }')
    (tmp_path / "kernlint-signatures.toml").write_text(closure_table(
        "wrap.py::wrap.kernel", 7, "void(float64[::1], float64[::1], float64[::1])", device=usecase))
    assert checked(tmp_path, "wrap.py", "--no-cache") == [
        "wrap.py::kernel[recorded] void(float64[::1], float64[::1], float64[::1]) recorded"]


def test_a_new_record_of_the_calling_kernel_is_not_hidden_by_the_cache(tmp_path):
    """A device function of one file made from the recorded closure of a kernel in another:
    recording again must check it again, though neither file changed."""
    project(tmp_path, "split", steps_py=MAKE_STEP, loops_py="from numba import cuda\n\n\n" + MAKE_LOOP)

    def record(scale):
        step = (f'{{ function = "make_step.step", path = "steps.py", line = 5, closure = {{ scale = {scale} }}, '
                'options = { device = true }, signatures = ["none(float64[::1], int64)"] }')
        (tmp_path / "kernlint-signatures.toml").write_text(
            closure_table("loops.py::make_loop.loop", 5, "void(float64[::1])", step=step))

    def steps_checked():
        return [row for row in checked(tmp_path, ".") if row.startswith("steps.py::")]

    record(0.5)
    assert steps_checked() == ["steps.py::step[recorded: scale=0.5] none(float64[::1], int64) recorded"]
    assert (tmp_path / ".kernlint_cache").exists()
    record(2.0)
    assert steps_checked() == ["steps.py::step[recorded: scale=2.0] none(float64[::1], int64) recorded"]


def test_a_library_function_held_as_it_is_is_that_function_not_its_def(tmp_path):
    """numba.cuda's cache-hint loads are empty defs that numba types through an @overload: a
    closure holding one (`operator = cuda.ldca`) must call the library's function, as the run did."""
    project(tmp_path, "hints", loads_py=(
        "from numba import cuda\n\n\n"
        "def make_load(operator):\n"
        "    @cuda.jit\n"
        "    def load(r, x):\n"
        "        for i in range(len(r)):\n"
        "            r[i] = operator(x, i)\n"
        "    return load\n"))
    ldca = ('{ function = "ldca", module = "numba.cuda.cache_hints", '
            'path = "/elsewhere/site-packages/numba_cuda/numba/cuda/cache_hints.py", line = 16, closure = {} }')
    (tmp_path / "kernlint-signatures.toml").write_text(
        closure_table("loads.py::make_load.load", 5, "void(int8[::1], int8[::1])", operator=ldca))
    assert checked(tmp_path, "loads.py", "--no-cache") == [
        "loads.py::load[recorded] void(int8[::1], int8[::1]) recorded"]


def test_a_device_function_decorated_by_a_factory_parameter_is_a_located_finding_not_a_crash(tmp_path):
    """A factory that wraps its device function with a decorator it is given (a parameter no
    call in the file passes): kernlint does not run it; the kernel is checked with the device
    function stood in, and the stand-in is named."""
    project(tmp_path, "wrapped", glyphs_py=(
        "from numba import cuda, jit\n\n\n"
        "def build(expand):\n"
        "    @jit(nopython=True)\n"
        "    @expand\n"
        "    def segment(i, xs, out):\n"
        "        out[i] = xs[i]\n\n"
        "    @cuda.jit\n"
        "    def extend_cuda(xs, out):\n"
        "        i = cuda.grid(1)\n"
        "        if i < xs.shape[0]:\n"
        "            segment(i, xs, out)\n\n"
        "    return extend_cuda\n"))
    run = kernlint("check", "--no-cache", "--output-format", "json", "glyphs.py", cwd=tmp_path)
    assert json.loads(run.stdout) == [], run.stdout + run.stderr  # no KL905
    assert checked(tmp_path, "glyphs.py", "--no-cache") == [
        "glyphs.py::extend_cuda[expand=?] segment stand-in: a device function that does nothing for `build`'s `expand`",
        "glyphs.py::extend_cuda[expand=?] void(float64[::1], float64[::1]) inferred"]
