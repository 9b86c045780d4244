"""Values only the run decides (the command line, the environment, a module imported by a computed
name, a file read at run time): kernels that read them are checked with stand-ins of the types
their use asks for, and say which names stood in."""
import json
import os
import re
import subprocess
import sys
import textwrap

import pytest

from conftest import FIXTURES, ROOT
from kernlint.engine import Options, check_paths
from kernlint.python.slicing.runtime import expression_source, run_source, written_kind
from kernlint.python.syntax import PyModule
from kernlint.report.text import format_finding, signatures

PHASEFIELD = FIXTURES / "phasefield" / "allen_cahn.py"


def _module(source: str) -> PyModule:
    return PyModule("/project/script.py", textwrap.dedent(source), "", "")


HEADER = """\
    import argparse, configparser, importlib, json, os, pathlib, pickle, sys
    from os import environ
    from sys import argv
    import numpy as np
    ini = configparser.ConfigParser()
"""


@pytest.mark.parametrize("assignment, what", [
    ("N = int(sys.argv[1])", "the command line"),
    ("N = int(argv[1])", "the command line"),
    ("N = 256 if len(sys.argv) < 2 else int(sys.argv[1])", "the command line"),
    ("N = int(os.environ['N'])", "the environment"),
    ("N = int(environ.get('N', '256'))", "the environment"),
    ("N = int(os.getenv('N', '256'))", "the environment"),
    ("p = importlib.import_module(sys.argv[1])", "a module imported by a name computed at run time"),
    ("p = __import__(os.environ['PARAMS'])", "a module imported by a name computed at run time"),
    ("N = int(open('n.txt').read())", "a file read at run time"),
    ("N = int(pathlib.Path('n.txt').read_text())", "a file read at run time"),
    ("t = np.load('table.npy')", "a file read at run time"),
    ("t = np.loadtxt('table.txt')", "a file read at run time"),
    ("t = pickle.load(open('t.pkl', 'rb'))", "a file read at run time"),
])
def test_where_a_value_only_the_run_decides_comes_from(assignment, what):
    module = _module(HEADER + "    " + assignment + "\n")
    name = assignment.split(" = ")[0]
    found = run_source(module, module.bindings[name])
    assert found is not None and found.what == what
    assert found.module == assignment.startswith("p = ")


def test_the_source_is_followed_through_the_modules_own_names():
    module = _module(HEADER + """\
    parser = argparse.ArgumentParser()
    args = parser.parse_args()
    NX = args.nx
    HALF = NX // 2
    with open(sys.argv[2]) as f:
        config = json.load(f)
    MOBILITY = config["mobility"]
    ini = configparser.ConfigParser()
    ini.read("run.ini")
    DT = ini.getfloat("time", "dt")
    STEPS = 10
    STEPS *= int(os.environ["SCALE"])
""")
    said = {name: run_source(module, module.history[name][-1]) for name in ("HALF", "MOBILITY", "DT", "STEPS")}
    assert said["HALF"].text == "parser.parse_args()" and said["HALF"].what == "the command line"
    assert said["MOBILITY"].text == "json.load(f)"
    assert said["DT"].text == "configparser.ConfigParser()"
    assert said["STEPS"].what == "the environment"


@pytest.mark.parametrize("assignment", [
    "N = 4 * 64",
    "dtype = np.float32",
    "lib = importlib.import_module('numpy')",  # a constant name: an import like any other
    "here = os.path.dirname(__file__)",
    "N = len(np.arange(8))",
])
def test_values_the_code_itself_gives_are_not_the_runs(assignment):
    module = _module(HEADER + "    " + assignment + "\n")
    name = assignment.split(" = ")[0]
    assert run_source(module, module.bindings[name]) is None


@pytest.mark.parametrize("expression, kind", [
    ("int(sys.argv[1])", "int"),
    ("int(sys.argv[1]) * 2", "int"),
    ("int(sys.argv[1]) / 2", "float"),
    ("float(os.environ['DT'])", "float"),
    ("np.float32(os.environ['DT'])", "float32"),
    ("'-v' in sys.argv", "bool"),
    ("ini.getint('grid', 'nx')", "int"),
    ("256 if len(sys.argv) < 2 else int(sys.argv[1])", "int"),
    ("json.load(f)['mobility']", None),  # nothing written says: its use decides
])
def test_a_conversion_written_around_the_value_gives_its_type(expression, kind):
    module = _module(HEADER + "    value = " + expression + "\n")
    assert written_kind(module, module.bindings["value"].value) == kind
    assert expression_source(module, module.bindings["value"].value) is not None


@pytest.fixture(scope="module")
def phasefield():
    return check_paths([str(PHASEFIELD)], Options(timeout=120))


def test_a_phase_field_script_is_checked_with_stand_ins_for_its_parameters(phasefield):
    checked = {s.kernel: s for s in phasefield.stats}
    assert set(checked) == {"allen_cahn", "add_noise", "smooth"}
    allen_cahn = checked["allen_cahn"]
    assert allen_cahn.signature_source == "launch-site"
    # the device function's parameter (params.dx) counts for the kernel that calls it
    assert [s.partition(" (")[0] for s in allen_cahn.standins] == [
        "NX", "W", "anisotropy", "delta", "params.dt", "params.dx", "params.kappa", "params.mobility",
        "params.verbose"]
    # unpacked from what a function of the parameter module returns, then cast with numba's float64
    assert "delta (float64 1.0 for `importlib.import_module(sys.argv[1])`, known only at run time)" in \
        allen_cahn.standins
    assert "NX (int 1 for `sys.argv`, known only at run time)" in allen_cahn.standins
    assert "W (float64 1.0 for `json.load(f)`, known only at run time)" in allen_cahn.standins
    noise = next(s for s in checked["add_noise"].standins if s.startswith("noise"))
    assert "zeros of float64, 1-dimensional" in noise and "np.load('noise.npy')" in noise
    # the shared array's shape reads TPB: a constant numba can read (int 1)
    assert "TPB (int 1 for `os.environ`, known only at run time)" in checked["smooth"].standins


def _line_of(text: str) -> int:
    return next(n for n, line in enumerate(PHASEFIELD.read_text().splitlines(), start=1) if text in line)


def test_the_print_in_a_kernel_reading_run_time_parameters_is_reported(phasefield):
    printed = [f for f in phasefield.findings if f.code == "KL301"]
    assert [(f.kernel, f.line) for f in printed] == [("allen_cahn", _line_of('print("phi"')),
                                                     ("smooth", _line_of('print("tile"'))]
    finding = printed[0]
    assert "params.verbose (int 1 for `importlib.import_module(sys.argv[1])`" in " ".join(finding.standins)
    assert "compiled with stand-ins for NX (int 1 for `sys.argv`" in format_finding(finding, color=False)
    assert finding.to_dict()["standins"] == finding.standins  # the JSON output says it too


def test_a_value_no_stand_in_fits_is_a_kl902_naming_it(phasefield):
    failed = [f for f in phasefield.findings if f.code == "KL902"]
    assert [(f.kernel, f.line) for f in failed] == [("initial", _line_of("params.initial_profile("))]
    message = failed[0].message
    assert "`params.initial_profile` comes from a module imported by a name computed at run time" in message
    assert "`initial` calls `params.initial_profile`" in message
    assert '"allen_cahn.py::params.initial_profile"' in message


def test_show_signatures_lists_each_stand_in_with_source_stand_in(phasefield):
    rows = signatures(phasefield)
    smooth = [re.split(r"\s{2,}", row.strip()) for row in rows if "::smooth" in row]
    assert smooth == [
        [smooth[0][0], "void(float64[:, ::1], float64[:, ::1])", smooth[0][2]],
        [smooth[0][0], "DEBUG", "stand-in: True for `os.getenv('PF_DEBUG')`, known only at run time"],
        [smooth[0][0], "NX", "stand-in: int 1 for `sys.argv`, known only at run time"],
        [smooth[0][0], "TPB", "stand-in: int 1 for `os.environ`, known only at run time"],
    ]
    assert smooth[0][2].startswith("launch-site")


def _check(tmp_path, source, *options, output="json"):
    (tmp_path / "kernels.py").write_text(textwrap.dedent(source))
    return subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--output-format", output,
                           *options, "kernels.py"], cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})


LEVELS = """\
    import os
    from numba import cuda

    LEVEL = {level}


    @cuda.jit("void(float32[::1])")
    def relax(x):
        i = cuda.grid(1)
        x[i] *= 0.5
        if LEVEL > 1:
            print("relaxed", i)
"""


def test_numba_does_not_prune_a_branch_by_a_stand_ins_value(tmp_path):
    """numba drops the branch a constant global decides (`LEVEL = 1`: `LEVEL > 1` is never
    true, rightly); a stand-in's 1 is no value the run gives, so both branches stay checked."""
    known = json.loads(_check(tmp_path, LEVELS.format(level="1")).stdout)
    assert known == []
    standing = json.loads(_check(tmp_path, LEVELS.format(level='int(os.environ["LEVEL"])')).stdout)
    assert [(f["code"], f["line"]) for f in standing] == [("KL301", 12)]
    assert standing[0]["standins"] == ["LEVEL (int 1 for `os.environ`, known only at run time)"]
    sarif = json.loads(_check(tmp_path, LEVELS.format(level='int(os.environ["LEVEL"])'), output="sarif").stdout)
    assert [r["properties"]["standins"] for r in sarif["runs"][0]["results"]] == [standing[0]["standins"]]


def test_a_configured_value_overrides_the_stand_in(tmp_path):
    (tmp_path / "pyproject.toml").write_text(textwrap.dedent("""\
        [tool.kernlint]
        constants = { "params.dx" = 0.25, "kernels.py::NX" = 64 }
    """))
    run = _check(tmp_path, """\
        import importlib
        import sys
        from numba import cuda

        params = importlib.import_module(sys.argv[1])
        NX = int(sys.argv[2])


        @cuda.jit("void(float64[::1])")
        def scale(x):
            i = cuda.grid(1)
            if i < NX:
                x[i] = x[i] / params.dx * params.dt
                print(i)
    """, "--show-signatures")
    found = json.loads(run.stdout)
    assert [(f["code"], f["standins"]) for f in found] == [
        ("KL301", ["params.dt (float64 1.0 for `importlib.import_module(sys.argv[1])`, known only at run time)"])]
    assert "params.dx" not in run.stderr and "NX" not in run.stderr


def test_a_device_function_and_its_kernel_may_each_take_their_own_stand_in(tmp_path):
    """The same global read as a range bound in one function and as a number in another: each
    compiles with the type its use asks for, and the kernel lists both."""
    run = _check(tmp_path, """\
        import json
        from numba import cuda

        config = json.load(open("run.json"))
        SCALE = config["scale"]


        @cuda.jit(device=True)
        def scaled(v):
            return v * SCALE


        @cuda.jit("void(float64[::1])")
        def repeat(x):
            i = cuda.grid(1)
            for _ in range(SCALE):
                x[i] = scaled(x[i])
            print(i)
    """)
    found = json.loads(run.stdout)
    assert [f["code"] for f in found] == ["KL301"]
    assert found[0]["standins"] == [
        "SCALE (float64 1.0 for `json.load(open('run.json'))`, known only at run time)",  # in `scaled`
        "SCALE (int 1 for `json.load(open('run.json'))`, known only at run time)"]  # in `repeat`


def test_sizes_from_the_command_line_are_integers_and_a_shape_read_by_its_items_a_tuple(tmp_path):
    run = _check(tmp_path, """\
        import sys
        from numba import cuda

        NX, NY = int(sys.argv[1]), int(sys.argv[2])
        SHAPE = tuple(map(int, sys.argv[3:5]))


        @cuda.jit("void(float64[:, ::1])")
        def fill(a):
            for i in range(SHAPE[0]):
                for j in range(SHAPE[1]):
                    a[i, j] = NX * NY
            print(NX)
    """)
    found = json.loads(run.stdout)
    assert [f["code"] for f in found] == ["KL301"]
    assert found[0]["standins"] == [
        "NX (int 1 for `sys.argv`, known only at run time)",
        "NY (int 1 for `sys.argv`, known only at run time)",
        "SHAPE (a tuple (int 1, int 1) for `sys.argv`, known only at run time)"]


def test_what_numba_refuses_even_with_the_stand_in_is_a_kl902_naming_it(tmp_path):
    """numba reads a module's attribute as no constant: as an array's shape it refuses it, at
    run time as here; the KL902 says which values stood in. A global name is a constant there."""
    run = _check(tmp_path, """\
        import importlib
        import os
        import sys
        from numba import cuda, float64

        params = importlib.import_module(sys.argv[1])
        N = int(os.environ["N"])


        @cuda.jit("void(float64[::1])")
        def by_name(x):
            t = cuda.local.array(N, float64)
            t[0] = x[0]
            x[0] = t[0]


        @cuda.jit("void(float64[::1])")
        def by_attribute(x):
            t = cuda.local.array(params.n, float64)
            t[0] = x[0]
            x[0] = t[0]
    """)
    found = json.loads(run.stdout)
    assert [(f["code"], f["kernel"]) for f in found] == [("KL902", "by_attribute")]
    assert "local.array" in found[0]["message"]
    assert found[0]["message"].endswith(
        "(compiled with stand-ins for params.n (int 1 for `importlib.import_module(sys.argv[1])`, known only at "
        "run time))")


def test_a_librarys_number_does_not_prune_a_branch_either(tmp_path):
    """`from physics import C` (a library kernlint does not import) stands in as float64 1.0;
    `if C > 2.0e8:` must not be decided by that 1.0."""
    run = _check(tmp_path, """\
        from kernlint_fixture_missing_physics import C
        from numba import cuda


        @cuda.jit("void(float64[::1])")
        def scale(x):
            if C > 2.0e8:
                print("relativistic")
            x[0] = x[0] * C
    """)
    found = json.loads(run.stdout)
    assert [(f["code"], f["line"], f["standins"]) for f in found] == [
        ("KL301", 8, ["C (kernlint_fixture_missing_physics.C)"])]


def test_a_librarys_namespace_of_numbers_stands_in_per_function(tmp_path):
    """`from units_lib.utils import conversion` (a library kernlint does not import), read only
    as `conversion.VS2E`-style numbers: each function is checked with stand-ins for the
    attributes it reads, and says those alone. A function that uses the name otherwise is a
    KL902 naming it."""
    run = _check(tmp_path, """\
        from kernlint_fixture_missing_units.utils import conversion
        from numba import cuda, float64


        @cuda.jit(float64(float64), device=True)
        def v2e(v):
            return v * v * conversion.VS2E


        @cuda.jit(float64(float64), device=True)
        def v2k(v):
            return v * conversion.V2K


        @cuda.jit("void(float64[::1])")
        def energies(x):
            i = cuda.grid(1)
            if i < x.size:
                print("energy", v2e(x[i]))
                x[i] = v2k(x[i])


        @cuda.jit("void(float64[::1])")
        def converted(x):
            x[0] = conversion.convert(x[0])
    """)
    found = json.loads(run.stdout)
    assert [(f["code"], f["kernel"]) for f in found] == [("KL301", "energies"), ("KL902", "converted")]
    assert found[0]["standins"] == [
        "conversion.V2K (kernlint_fixture_missing_units.utils.conversion.V2K)",
        "conversion.VS2E (kernlint_fixture_missing_units.utils.conversion.VS2E)"]
    assert "a library kernlint does not import" in found[1]["message"]


def test_a_method_whose_continuation_lines_start_with_a_tab_is_checked(tmp_path):
    """numba-cuda looks a function's def line up (for line info) by parsing its dedented source; a
    method whose continuation line starts with a tab does not dedent. The user's launch does not
    look; kernlint's check, compiled with line info, must not fail on it either."""
    run = _check(tmp_path, "from numba import cuda, float64, void\n\n\nclass Monitor:\n"
                           "    @cuda.jit(void(float64[:], float64, float64), device=True)\n"
                           "    def record(out, a, b):\n"
                           "        if a < b \\\n"
                           "\t   and b < 4.0:\n"
                           "            print(\"in range\")\n"
                           "            out[0] = a\n")
    found = json.loads(run.stdout)
    assert [(f["code"], f["line"]) for f in found] == [("KL301", 9)], run.stdout + run.stderr


@pytest.mark.parametrize("imported", [
    'importlib.import_module("models." + KIND.lower())',
    'importlib.import_module(".cubic", package="models")',
    'importlib.import_module(name="models.cubic")',
])
def test_a_module_named_by_constants_is_read_as_its_import(tmp_path, imported):
    """``importlib.import_module`` of a name the code computes from its own constants imports the
    module of that name, whatever the run: read as an import statement naming it, not a stand-in."""
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "__init__.py").write_text("")
    (tmp_path / "models" / "cubic.py").write_text(textwrap.dedent("""\
        from numba import cuda

        GAIN = 3.0


        @cuda.jit(device=True)
        def response(v):
            return GAIN * v * v * v
    """))
    run = _check(tmp_path, f"""\
        import importlib
        from numba import cuda

        KIND = "Cubic"
        model = {imported}
        response = getattr(model, "response")


        @cuda.jit("void(float64[::1])")
        def apply(x):
            i = cuda.grid(1)
            if i < x.size:
                x[i] = response(x[i]) * model.GAIN
                print(i)
    """, "--show-signatures")
    found = json.loads(run.stdout)
    assert [(f["code"], f["standins"]) for f in found] == [("KL301", [])], run.stderr


REBOUND = """\
    import numpy as np
    from numba import cuda, float64

    BANDS = 0
    SCALE = 1.0


    def setup(image):
        global BANDS, SCALE
        BANDS = image.shape[-1]
        SCALE = 1.0


    @cuda.jit("void(float64[::1], float64[:, ::1])")
    def classify(out, img):
        i = cuda.grid(1)
        if i < out.shape[0]:
            pixel = cuda.local.array(shape=BANDS, dtype=float64)
            for b in range(BANDS):
                pixel[b] = img[i, b] * SCALE
            out[i] = pixel[0]
"""


def test_a_global_a_set_up_function_rebinds_is_a_stand_in_not_its_placeholder(tmp_path):
    """`BANDS = 0` at module level, `global BANDS; BANDS = image.shape[-1]` in a set-up
    function: numba reads the global at the first launch, after the set-up, so the 0 is a
    placeholder (with it, `cuda.local.array(0)` fails); the kernel is checked with a stand-in
    that says so. `SCALE`, rebound to a literal, keeps its value."""
    run = _check(tmp_path, REBOUND, "--show-signatures")
    assert json.loads(run.stdout) == [], run.stdout
    assert "BANDS" in run.stderr and "stand-in: int 1 for `setup(): global BANDS`, known only at run time" in run.stderr
    assert "SCALE" not in run.stderr


def test_a_rebound_global_configured_in_pyproject_is_its_configured_value(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.kernlint]\nconstants = { "kernels.py::BANDS" = 4 }\n')
    run = _check(tmp_path, REBOUND, "--show-signatures")
    assert json.loads(run.stdout) == [] and "BANDS" not in run.stderr
