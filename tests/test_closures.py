"""Factory-made kernels checked with what a recorded run saw them close over (``kernlint record``)."""
import json
import math
import os
import shutil
import subprocess
import sys
import tomllib

import numpy as np
import pytest

from conftest import RECORDED_FIXTURES, ROOT, expected_findings
from kernlint.frontends.closures import EMPTY, Unrebuildable, read_closures, rebuild, toml_value
from kernlint.frontends.signatures import read_recorded

MDLITE = RECORDED_FIXTURES / "mdlite"


def kernlint(*args, cwd, timeout=600):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    return subprocess.run([sys.executable, "-m", "kernlint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env=env)


@pytest.fixture
def mdlite(tmp_path):
    project = tmp_path / "mdlite"
    shutil.copytree(MDLITE, project, ignore=shutil.ignore_patterns("__pycache__"))
    return project


def test_factory_kernels_are_checked_with_each_recorded_closure(mdlite):
    run = kernlint("check", "--no-cache", "--output-format", "json", ".", cwd=mdlite)
    found = {(f["code"], os.path.relpath(f["path"], mdlite), f["line"]) for f in json.loads(run.stdout)}
    expected = {(code, os.path.relpath(path, mdlite), line)
                for path in mdlite.rglob("*.py") for code, line in expected_findings(path)}
    assert found == expected and expected, run.stderr
    shown = kernlint("check", "--no-cache", "--show-signatures", ".", cwd=mdlite).stdout
    rows = [line.split("  ")[0] for line in shown.splitlines() if line.startswith("mdlite/integrators.py::step[")]
    # one variant per closure the run launched it with: a 2-D run with, a 3-D run without kinetic energy
    assert rows == ["mdlite/integrators.py::step[recorded #1: D=2, compute_k=True, f_id=2, k_id=1]",
                    "mdlite/integrators.py::step[recorded #2: D=3, compute_k=False, f_id=2, m_id=0]"]
    assert all(line.rstrip().endswith("recorded") for line in shown.splitlines() if "::step[" in line)


def test_without_the_record_the_factory_parameter_is_named_with_the_remedy(mdlite):
    (mdlite / "kernlint-signatures.toml").unlink()
    run = kernlint("check", "--no-cache", ".", cwd=mdlite)
    assert "KL902 kernel `step` not compiled: `system` is a parameter of `get_kernel`" in run.stdout
    assert "kernlint record -- python -m pytest" in run.stdout


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
    assert run.stdout.count("KL101") == 1


def test_a_malformed_closure_table_stops_kernlint_with_the_file_named(mdlite):
    path = mdlite / "kernlint-signatures.toml"
    path.write_text(path.read_text() + '\n[[closures]]\nkernel = "no separator"\nvalues = {}\n')
    run = kernlint("check", "--no-cache", ".", cwd=mdlite)
    assert run.returncode == 2
    assert "kernlint-signatures.toml: [[closures]] table 3: expected kernel" in run.stderr


def test_a_run_stopped_midway_keeps_what_it_launched(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "stopped"\n')
    (tmp_path / "run.py").write_text(
        "import math, os, signal\nimport numpy as np\nfrom numba import cuda\n\n"
        "def make(scale, op):\n    @cuda.jit\n    def scaled(x):\n        x[0] = op(x[0]) * scale\n"
        "    return scaled\n\n"
        "make(np.float32(2), math.sqrt)[1, 1](np.ones(1, np.float32))\n"
        "os.kill(os.getpid(), signal.SIGKILL)  # no atexit: the hook wrote at the launch\n")
    run = kernlint("record", "--simulator", "--", sys.executable, "run.py", cwd=tmp_path)
    assert run.returncode != 0
    closures = read_closures(str(tmp_path / "kernlint-signatures.toml"))
    assert closures == {str(tmp_path / "run.py"): {"make.scaled": [
        {"values": {"scale": {"scalar": 2.0, "dtype": "float32"}, "op": {"named": "math.sqrt"}},
         "options": {"fastmath": False}, "signatures": ["void(float32[::1])"], "line": 6}]}}
    shown = kernlint("check", "--no-cache", "--show-signatures", "run.py", cwd=tmp_path).stdout
    assert "run.py::scaled[recorded]" in shown and shown.rstrip().endswith("recorded"), shown


def test_defs_of_one_name_in_a_factory_each_get_the_closures_they_were_launched_with(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "branches"\n')
    (tmp_path / "run.py").write_text(
        "import numpy as np\nfrom numba import cuda\n\n\n"
        "def make(arity, scale):\n"
        "    if arity == 1:\n"
        "        @cuda.jit\n        def kernel(out, a):\n            out[0] = a[0] * scale\n"
        "    else:\n"
        "        @cuda.jit\n        def kernel(out, a, b):\n            out[0] = a[0] * b[0] * scale\n"
        "    return kernel\n\n\n"
        "x = np.ones(1)\nmake(1, 2.0)[1, 1](x, x)\nmake(2, 3)[1, 1](x, x, x)\n")
    run = kernlint("record", "--simulator", "--", sys.executable, "run.py", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    shown = kernlint("check", "--no-cache", "--show-signatures", "run.py", cwd=tmp_path)
    rows = sorted(" ".join(line.split()) for line in shown.stdout.splitlines() if "::kernel[" in line)
    assert rows == ["run.py::kernel[recorded: scale=2.0] void(float64[::1], float64[::1]) recorded",
                    "run.py::kernel[recorded: scale=3] void(float64[::1], float64[::1], float64[::1]) recorded"], \
        shown.stdout + shown.stderr


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
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "fused"\n')
    (tmp_path / "fused.py").write_text(
        "from numba import cuda\n\n\n"
        "def make_step(scale, fuse):\n"
        "    def step(x, i):\n"
        "        if i < x.size:\n"
        "            x[i] = int(x[i] * scale)\n"
        "    step = cuda.jit(device=fuse)(step)\n"
        "    return step\n\n\n"
        "def make_loop(step):\n"
        "    @cuda.jit\n"
        "    def loop(x):\n"
        "        step(x, cuda.grid(1))\n"
        "    return loop\n")
    step = ('{ function = "make_step.step", path = "fused.py", line = 5, closure = { scale = 0.5 }, '
            'jit = "numba.cuda.jit", options = { device = true }, signatures = ["none(float64[::1], int64)"] }')
    (tmp_path / "kernlint-signatures.toml").write_text(
        '[signatures]\n"fused.py::make_loop.loop" = ["void(float64[::1])"]\n\n'
        '[[closures]]\nkernel = "fused.py::make_loop.loop"\nline = 13\nsignatures = ["void(float64[::1])"]\n'
        f'options = {{}}\nvalues = {{ step = {step} }}\n')
    shown = kernlint("check", "--no-cache", "--show-signatures", "fused.py", cwd=tmp_path).stdout
    rows = sorted(" ".join(line.split()) for line in shown.splitlines() if "fused.py::" in line)
    assert rows == ["fused.py::loop[recorded] void(float64[::1]) recorded",
                    "fused.py::step[recorded: scale=0.5] none(float64[::1], int64) recorded"], shown


def test_a_recorded_function_of_an_installed_package_is_found_by_its_module(tmp_path):
    """A run elsewhere (another machine's site-packages) records the path it had; the module
    name finds the same function in the package installed here."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "usecases"\n')
    (tmp_path / "wrap.py").write_text(
        "from numba import cuda\n\n\n"
        "def wrap(pyfunc):\n"
        "    device = cuda.jit(device=True)(pyfunc)\n\n"
        "    @cuda.jit\n"
        "    def kernel(out, x, y):\n"
        "        out[0] = device(x[0], y[0])\n"
        "    return kernel\n")
    usecase = ('{ function = "div_usecase", module = "numba.cuda.tests.cudapy.complex_usecases", '
               'path = "/elsewhere/site-packages/numba_cuda/numba/cuda/tests/cudapy/complex_usecases.py", line = 7, '
               'closure = {}, jit = "numba.cuda.jit", options = { device = true } }')
    (tmp_path / "kernlint-signatures.toml").write_text(
        '[[closures]]\nkernel = "wrap.py::wrap.kernel"\nline = 7\n'
        'signatures = ["void(float64[::1], float64[::1], float64[::1])"]\n'
        f'options = {{}}\nvalues = {{ device = {usecase} }}\n')
    shown = kernlint("check", "--no-cache", "--show-signatures", "wrap.py", cwd=tmp_path).stdout
    assert "wrap.py::kernel[recorded] void(float64[::1], float64[::1], float64[::1]) recorded" in \
        " ".join(shown.split()), shown


def test_a_new_record_of_the_calling_kernel_is_not_hidden_by_the_cache(tmp_path):
    """A device function of one file made from the recorded closure of a kernel in another:
    recording again must check it again, though neither file changed."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "split"\n')
    (tmp_path / "steps.py").write_text(
        "from numba import cuda\n\n\n"
        "def make_step(scale, fuse):\n"
        "    def step(x, i):\n"
        "        x[i] = x[i] * scale\n"
        "    step = cuda.jit(device=fuse)(step)\n"
        "    return step\n")
    (tmp_path / "loops.py").write_text(
        "from numba import cuda\n\n\n"
        "def make_loop(step):\n"
        "    @cuda.jit\n"
        "    def loop(x):\n"
        "        step(x, cuda.grid(1))\n"
        "    return loop\n")

    def record(scale):
        step = (f'{{ function = "make_step.step", path = "steps.py", line = 5, closure = {{ scale = {scale} }}, '
                'options = { device = true }, signatures = ["none(float64[::1], int64)"] }')
        (tmp_path / "kernlint-signatures.toml").write_text(
            '[[closures]]\nkernel = "loops.py::make_loop.loop"\nline = 5\nsignatures = ["void(float64[::1])"]\n'
            f'options = {{}}\nvalues = {{ step = {step} }}\n')

    record(0.5)
    first = kernlint("check", "--show-signatures", ".", cwd=tmp_path).stdout
    assert "scale=0.5" in first and (tmp_path / ".kernlint_cache").exists()
    record(2.0)
    again = kernlint("check", "--show-signatures", ".", cwd=tmp_path).stdout
    assert "scale=2.0" in again and "scale=0.5" not in again, again
