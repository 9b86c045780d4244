"""`from module import *` in a kernel's module: the names it binds, as Python binds them."""
import json
import os
import subprocess
import sys

from conftest import ROOT


def check(project, *files):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--output-format", "json", *files],
                         cwd=project, capture_output=True, text=True, timeout=600, env=env)
    return json.loads(run.stdout)


def package(tmp_path, kernel_reads):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "starred"\n')
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "constants.py").write_text('__all__ = ["NX"]\n\nNX = 64\nLEAKED = 3\n_PRIVATE = 2\n')
    (pkg / "solver.py").write_text(
        "from numba import cuda\n\nfrom .constants import *\n\n\n"
        "@cuda.jit('void(float64[::1])')\n"
        "def fill(out):\n"
        "    i = cuda.grid(1)\n"
        f"    if i < NX:\n        out[i] = {kernel_reads}\n")
    return tmp_path


def test_a_name_the_star_import_binds_is_its_value(tmp_path):
    assert check(package(tmp_path, "NX * 2.0"), "pkg/solver.py") == []


def test_names_outside_all_or_private_are_not_bound_by_a_star_import(tmp_path):
    for name in ("LEAKED", "_PRIVATE"):
        root = tmp_path / name
        root.mkdir()
        findings = check(package(root, f"{name} * 2.0"), "pkg/solver.py")
        assert [f["code"] for f in findings] == ["KL902"], findings
        assert f"`{name}` is not defined in this module or by its imports" in findings[0]["message"]


def jit_through_a_star_import(tmp_path, common_all):
    """`cuda` bound only by `from .common import *`, common.py importing it from numba."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "layers"\n')
    pkg = tmp_path / "layers"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "common.py").write_text(f"{common_all}from numba import cuda\nimport numpy as np\n")
    (pkg / "relu.py").write_text(
        "from .common import *\n\n\n"
        "@cuda.jit('void(float32[::1])')\n"
        "def relu(x):\n"
        "    i = cuda.grid(1)\n"
        "    if i < x.shape[0]:\n"
        "        x[i] = max(x[i], 0.0)\n"
        "        print(i)\n")
    return tmp_path


def test_a_kernel_whose_cuda_comes_from_a_star_import_is_checked(tmp_path):
    findings = check(jit_through_a_star_import(tmp_path, ""), "layers/relu.py")
    assert [(f["code"], f["line"]) for f in findings] == [("KL301", 9)], findings


def test_a_cuda_the_star_import_does_not_export_makes_no_kernel(tmp_path):
    # `__all__` leaves `cuda` out: Python binds no `cuda`, so there is no kernel to check
    findings = check(jit_through_a_star_import(tmp_path, '__all__ = ["np"]\n'), "layers/relu.py")
    assert [f["code"] for f in findings if f["code"] == "KL301"] == [], findings


def test_a_star_import_of_a_namespace_package_above_the_file_is_read(tmp_path):
    """`from model.layers.common import *` in model/layers/relu.py, no `__init__.py` anywhere:
    the script that imports it runs from the folder holding `model`."""
    layers = tmp_path / "model" / "layers"
    layers.mkdir(parents=True)
    (layers / "common.py").write_text("from numba import cuda\n\nLIMIT = 6.0\n")
    (layers / "relu.py").write_text(
        "from model.layers.common import *\n\n\n"
        "@cuda.jit('void(float32[::1])')\n"
        "def relu6(x):\n"
        "    i = cuda.grid(1)\n"
        "    if i < x.shape[0]:\n"
        "        x[i] = min(max(x[i], 0.0), LIMIT)\n"
        "        print(i)\n")
    findings = check(tmp_path, "model/layers/relu.py")
    assert [(f["code"], f["line"]) for f in findings] == [("KL301", 9)], findings


NOWHERE = "numba stops on it too (NameError)"


def slip(tmp_path, header, setter=""):
    """A kernel that reads `stridez` after unpacking only two strides (a slip), in a module that
    starts with ``header`` and ends with ``setter``."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "slips"\n')
    (tmp_path / "common.py").write_text("NY = 8\n")
    (tmp_path / "bc.py").write_text(
        f"from numba import cuda\n{header}\n\n\n"
        "@cuda.jit('void(float64[:, ::1])')\n"
        "def copy_z(f):\n"
        "    startx, starty = cuda.grid(2)\n"
        "    stridex, stridey = cuda.gridsize(2)\n"
        "    for k in range(startx, f.shape[0], stridez):\n"
        "        f[k, 0] = f[k, 1]\n" + setter)
    return check(tmp_path, "bc.py")


def test_a_name_nothing_sets_is_the_kernel_s_own_slip(tmp_path):
    for number, header in enumerate(["", "from common import *", "from math import *"]):
        root = tmp_path / str(number)
        root.mkdir()
        (finding,) = slip(root, header)
        assert finding["code"] == "KL902" and "`stridez`" in finding["message"] and NOWHERE in finding["message"]


def test_a_name_the_run_may_set_is_not_called_a_slip(tmp_path):
    for number, (header, setter) in enumerate([
            ("from plugins import *", ""),  # a star import kernlint cannot read may bind it
            ("import sys", "\n\nsetattr(sys.modules[__name__], 'stridez', 4)\n")]):
        root = tmp_path / str(number)
        root.mkdir()
        (finding,) = slip(root, header, setter)
        assert finding["code"] == "KL902" and "`stridez`" in finding["message"], finding
        assert NOWHERE not in finding["message"]


def test_a_name_a_function_sets_at_run_time_is_a_stand_in(tmp_path):
    """`global stridez; stridez = n` in a set-up function (and a literal in another): what the
    run gives it, so the kernel is checked with a stand-in of the type its use asks for (a
    range's step: an integer), not reported as a slip or as unknown."""
    setter = ("\n\ndef configure(n):\n    global stridez\n    stridez = n\n\n\ndef again():\n"
              "    global stridez\n    stridez = 2\n")
    assert slip(tmp_path, "", setter) == []


def test_a_device_function_imported_from_a_module_that_star_imports_it_is_compiled(tmp_path):
    """`from sim.kernels.base import index_of` in sim/kernels/forces.py, where base.py has
    `index_of` only from `from sim.kernels.util import *`: Python binds it there, so it is
    the util module's device function; a name util does not export stays a library's."""
    (tmp_path / "settings.py").write_text("RADIUS = 0.5\n")
    kernels = tmp_path / "sim" / "kernels"
    kernels.mkdir(parents=True)
    for folder in (tmp_path / "sim", kernels):
        (folder / "__init__.py").write_text("")
    (kernels / "util.py").write_text(
        "from numba import cuda\n\n\n"
        "@cuda.jit(device=True)\n"
        "def index_of():\n"
        "    return cuda.grid(1)\n\n\n"
        "@cuda.jit(device=True)\n"
        "def _hidden():\n"
        "    return 0\n")
    (kernels / "base.py").write_text("from settings import RADIUS\nfrom sim.kernels.util import *\n")
    (kernels / "forces.py").write_text(
        "from numba import cuda\n\n"
        "from settings import RADIUS\n"
        "from sim.kernels.base import index_of, _hidden\n\n\n"
        "@cuda.jit('void(float64[::1])')\n"
        "def push(x):\n"
        "    i = index_of()\n"
        "    if i < x.shape[0]:\n"
        "        x[i] += RADIUS\n"
        "        print(i)\n\n\n"
        "@cuda.jit('void(float64[::1])')\n"
        "def hidden(x):\n"
        "    x[_hidden()] = 0.0\n")
    findings = check(tmp_path, "sim/kernels/forces.py")
    assert [(f["code"], f["line"]) for f in findings if f["code"] == "KL301"] == [("KL301", 12)], findings
    (missing,) = [f for f in findings if f["code"] == "KL902"]
    assert missing["line"] == 17 and "`_hidden`" in missing["message"], missing
