"""Launches the reader follows without running anything: which kernels a launch may start when
the code picks one (attributes, branches, literal dicts and lists), and the signature a launch
gives when it knows every element type but the body says the ranks."""
import ast
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import FIXTURES, ROOT
from kernlint.python.host.reader import file_host_facts
from kernlint.python.project import Project
from kernlint.python.signatures.launch_sites import _ranks_indexed, with_body_ranks

LATTICE = FIXTURES / "shapes" / "lattice"

KERNELS = '''
    from numba import cuda

    @cuda.jit
    def scale(out, x):
        i = cuda.grid(1)
        out[i] = x[i] * 2

    @cuda.jit
    def shift(out, x):
        i = cuda.grid(1)
        out[i] = x[i] + 1

    @cuda.jit
    def fill(out, x):
        i = cuda.grid(1)
        out[i] = x[0]
'''


def launched(tmp_path, host: str):
    """{launch line: [kernels it may start, in order]} of a file holding KERNELS and ``host``
    (lines counted from the ``def`` or statement that opens ``host`` as line 1)."""
    path = tmp_path / "host.py"
    path.write_text(textwrap.dedent(KERNELS) + textwrap.dedent(host))
    facts = file_host_facts(Project(), str(path))
    found = {}
    for launch in facts.launches + facts.passed_launches:
        kernels = found.setdefault(launch.place.line, [])
        name = launch.kernel.qualname if launch.kernel else None
        if name not in kernels:
            kernels.append(name)
    first = len(textwrap.dedent(KERNELS).splitlines()) + 1  # `host` opens with a blank line
    return {line - first: kernels for line, kernels in sorted(found.items())}


@pytest.mark.parametrize("host, expected", [
    # a conditional expression: both kernels
    ('''
    def run(flag, out, x):
        k = scale if flag else shift
        k[1, 32](out, x)
    ''', {3: ["scale", "shift"]}),
    # both sides of an `if`
    ('''
    def run(flag, out, x):
        if flag:
            k = scale
        else:
            k = shift
        k[1, 32](out, x)
    ''', {6: ["scale", "shift"]}),
    # a name bound again: each launch starts the kernel bound before it
    ('''
    def run(out, x):
        k = scale
        k[1, 32](out, x)
        k = shift
        k[1, 32](out, x)
    ''', {3: ["scale"], 5: ["shift"]}),
    # a launch on one side of an `if` does not see the binding on the other side
    ('''
    def run(flag, out, x):
        if flag:
            k = scale
            k[1, 32](out, x)
        else:
            k = shift
            k[1, 32](out, x)
    ''', {4: ["scale"], 7: ["shift"]}),
    # literal dicts and lists, with literal keys; a computed key is not followed
    ('''
    KERNELS = {"scale": scale, "shift": shift}
    ORDER = [fill, scale]
    TABLE = dict(up=shift)

    def run(out, x, name):
        KERNELS["shift"][1, 32](out, x)
        ORDER[-1][1, 32](out, x)
        TABLE["up"][1, 32](out, x)
        KERNELS[name][1, 32](out, x)
    ''', {6: ["shift"], 7: ["scale"], 8: ["shift"], 9: [None]}),
    # getattr with a literal name; a computed name is not followed
    ('''
    import host as here

    def run(out, x, name):
        getattr(here, "fill")[1, 32](out, x)
        k = getattr(here, "scale")
        k[1, 32](out, x)
        getattr(here, name)[1, 32](out, x)
    ''', {4: ["fill"], 6: ["scale"], 7: [None]}),
    # a registry filled item by item, at module level, in a function, in an object; setattr
    ('''
    REGISTRY = {}
    REGISTRY["scale"] = scale

    def run(out, x):
        local = {}
        local[0] = shift
        REGISTRY["scale"][1, 32](out, x)
        local[0][1, 32](out, x)
        REGISTRY["other"][1, 32](out, x)

    class Holder:
        def __init__(self):
            self.kernels = {}
            self.kernels["fill"] = fill
            setattr(self, "picked", shift)

        def go(self, out, x):
            self.kernels["fill"][1, 32](out, x)
            self.picked[1, 32](out, x)
    ''', {7: ["scale"], 8: ["shift"], 9: [None], 18: ["fill"], 19: ["shift"]}),
    # a loop over a literal tuple of kernels: each of them
    ('''
    def run(out, x):
        for kernel in (scale, shift):
            kernel[1, 32](out, x)
    ''', {3: ["scale", "shift"]}),
    # an attribute a base class sets, to a kernel or to a factory's result; a dict attribute
    ('''
    def make(n):
        def body(out, x):
            out[0] = x[0] * n
        return cuda.jit(body)

    class Base:
        def __init__(self, gpu):
            self.made = make(3)
            self.table = {"fill": fill}
            if gpu:
                self.kernel = scale
            else:
                self.kernel = shift

    class Child(Base):
        def run(self, out, x):
            self.kernel[1, 32, 0](out, x)
            self.made[1, 32](out, x)
            self.table["fill"][1, 32](out, x)
    ''', {17: ["scale", "shift"], 18: ["make.body"], 19: ["fill"]}),
    # a parameter's default: the kernel a call that leaves it out launches; none: not known
    ('''
    class Runner:
        def __init__(self, kernel=shift):
            self.kernel = kernel

        def run(self, out, x):
            self.kernel[1, 32](out, x)

    def launch(out, x, k=scale, other=None):
        k[1, 32](out, x)
        other[1, 32](out, x)
    ''', {6: ["shift"], 9: ["scale"], 10: [None]}),
])
def test_a_launch_starts_each_kernel_the_code_may_pick(tmp_path, host, expected):
    assert launched(tmp_path, host) == expected


def test_a_base_class_launches_what_each_subclass_stores(tmp_path):
    """``Operator.apply`` launches ``self.kernel``; the subclasses, here and in another file of
    the package, store their own kernels in it."""
    package = tmp_path / "ops"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "base.py").write_text(textwrap.dedent(KERNELS) + textwrap.dedent('''
        class Operator:
            def apply(self, out, x):
                self.kernel[1, 32](out, x)

        class Scaling(Operator):
            def __init__(self):
                self.kernel = scale
    '''))
    (package / "more.py").write_text(textwrap.dedent('''
        from .base import Operator, shift

        class Shifting(Operator):
            def __init__(self):
                self.kernel = shift
    '''))
    facts = file_host_facts(Project(), str(package / "base.py"))
    assert sorted(launch.kernel.qualname for launch in facts.launches + facts.passed_launches) == ["scale", "shift"]


def test_a_launch_picking_between_kernels_gives_each_its_argument_types(tmp_path):
    path = tmp_path / "host.py"
    path.write_text(textwrap.dedent(KERNELS) + textwrap.dedent('''
        import numpy as np

        def run(flag):
            out = cuda.device_array(64, dtype=np.float32)
            x = cuda.to_device(np.ones(64, dtype=np.float32))
            k = scale if flag else shift
            k[1, 64](out, x)
    '''))
    facts = file_host_facts(Project(), str(path))
    signatures = {(launch.kernel.qualname, launch.signature) for launch in facts.launches + facts.passed_launches}
    assert signatures == {("scale", "void(float32[::1], float32[::1])"),
                          ("shift", "void(float32[::1], float32[::1])")}
    assert len(facts.launches) == 1  # one launch for the host rules, whichever kernel it starts


def _kernel(tmp_path, source):
    path = tmp_path / "kernels.py"
    path.write_text(textwrap.dedent(source))
    return Project().module(str(path)).kernels[0]


@pytest.mark.parametrize("body, types, expected", [
    ("out[i, j] = grid[i, j] * a", ["float32[?]", "float32[?]", "float32"],
     "void(float32[:, ::1], float32[:, ::1], float32)"),
    ("out[i, j] = grid[i] * a", ["float32[?]", "float64[:, ::1]", "float32"],
     "void(float32[:, ::1], float64[:, ::1], float32)"),
    # indexed with two numbers of subscripts: the body does not say one rank
    ("out[i, j] = grid[i, j] + grid[i]", ["float32[?]", "float32[?]", "float32"], None),
    # never indexed (`a` is a scalar the launch knows; `grid` only passed on)
    ("out[i, j] = a", ["float32[?]", "float32[?]", "float32"], None),
    # an argument the launch does not type
    ("out[i, j] = grid[i, j] * a", ["float32[?]", "float32[?]", None], None),
    # chained subscripts index as many dimensions as they hold together
    ("out[i][j] = grid[0][i][j] * a", ["float32[?]", "float64[?]", "float32"],
     "void(float32[:, ::1], float64[:, :, ::1], float32)"),
    # a row taken whole and the array indexed in full: two ranks, the body does not say one
    ("out[i][j] = grid[0][i][j] + grid[0][i]", ["float32[?]", "float32[?]", "float32"], None),
])
def test_a_launch_of_known_elements_takes_the_ranks_the_body_indexes_with(tmp_path, body, types, expected):
    kernel = _kernel(tmp_path, f'''
        from numba import cuda

        @cuda.jit
        def k(out, grid, a):
            i, j = cuda.grid(2)
            {body}
    ''')
    assert with_body_ranks(kernel, types) == expected


@pytest.mark.parametrize("stored, expected", [
    # stored by a helper the class's method hands `self` to: the launch's types
    ("sim.d_fields = cuda.to_device(fields)", "void(float64[:, :, ::1])"),
    # arrays of different element types, on either side of an `if`: not known
    ("if len(sim.dims) == 3:\n        sim.d_fields = cuda.to_device(fields.astype(np.float32))\n"
     "    else:\n        sim.d_fields = cuda.to_device(fields)", None),
])
def test_attributes_a_helper_stores_in_the_object_it_is_given_type_its_launches(tmp_path, stored, expected):
    """`def send_to_gpu(sim): sim.d_fields = cuda.to_device(...)`, called as `send_to_gpu(self)`
    from the class's method: the attribute holds that array where another helper launches
    with it, though the class itself only sets it to None; the array of a list of arrays
    (`np.array(fields)`) has their element type, its rank the kernel's indexing says."""
    (tmp_path / "gpu.py").write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda


        @cuda.jit
        def periodic(fields):
            i, j = cuda.grid(2)
            fields[0][i][j] = fields[1][i][j]


        def apply_bc(sim):
            periodic[sim.blocks, sim.threads](sim.d_fields)


        def send_to_gpu(sim):
            fields = []
            for field in sim.fields:
                fields.append(field)
            fields = np.array(fields)
            STORED


        class Simulation:
            def __init__(self, dims):
                self.dims = dims
                self.fields = []
                self.d_fields = None
                self.blocks = (16, 16)
                self.threads = (16, 16)

            def add_field(self):
                self.fields.append(np.zeros(list(self.dims)))

            def to_gpu(self):
                send_to_gpu(self)

            def step(self):
                apply_bc(self)
    ''').replace("STORED", stored))
    project = Project()
    from kernlint.python.signatures.launch_sites import launch_signatures
    found = launch_signatures(project, [str(tmp_path / "gpu.py")])
    signatures = [signature for signature, _ in found.get(str(tmp_path / "gpu.py"), {}).get("periodic", [])]
    assert signatures == ([expected] if expected else [])


def test_a_subclass_launches_with_what_its_base_hands_a_helper_module_to_store(tmp_path):
    """The base class's file imports a helper module and calls ``gpu.send_to_gpu(self)``, which
    stores the device arrays in the object (its parameter: the one class having the attributes
    it reads and sets); a subclass in a third file launches with them and with an item its own
    method stores at a literal key of a dict of values of many kinds."""
    package = tmp_path / "pf"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "gpu.py").write_text(textwrap.dedent('''
        from numba import cuda


        def send_to_gpu(sim):
            sim.d_u = cuda.to_device(sim.u)
            sim.d_v = cuda.to_device(sim.v)
    '''))
    (package / "simulation.py").write_text(textwrap.dedent('''
        import numpy as np
        from . import gpu


        class Simulation:
            def __init__(self, n):
                self.u = np.zeros((n, n), dtype=np.float32)
                self.v = np.zeros(n)
                self.d_u = None
                self.d_v = None
                self.user_data = {"label": "run", "scale": 2.0}

            def to_gpu(self):
                gpu.send_to_gpu(self)
    '''))
    (package / "engine.py").write_text(textwrap.dedent('''
        from numba import cuda
        from numba.cuda.random import create_xoroshiro128p_states
        from .simulation import Simulation


        @cuda.jit
        def noise(u, states):
            i, j = cuda.grid(2)
            u[i, j] += states.shape[0]


        class Engine(Simulation):
            def setup(self):
                self.user_data["states"] = create_xoroshiro128p_states(256, seed=1)

            def step(self):
                noise[(16, 16), (16, 16)](self.d_u, self.user_data["states"])
    '''))
    from kernlint.python.signatures.launch_sites import launch_signatures
    found = launch_signatures(Project(), [str(package / "engine.py")])
    assert [s for s, _ in found[str(package / "engine.py")]["noise"]] == ["void(float32[:, ::1], xoroshiro128p[::1])"]


@pytest.mark.parametrize("loop, expected", [
    # a walked array's items are numbers: it has one dimension
    ("for v in grid:\n    if v == a or math.isnan(v):\n        out[i, j] = v * 2.0",
     "void(float32[:, ::1], float32[::1], float32)"),
    # an item passed to the user's function, or bound to another name, may be taken whole
    ("for v in grid:\n    out[i, j] = helper(v)", None),
    ("for v in grid:\n    w = v\n    out[i, j] = w[0]", None),
    # a loop variable rebound in the body says nothing of the array
    ("for v in grid:\n    v = a\n    out[i, j] = v", None),
])
def test_a_walked_array_has_one_more_dimension_than_its_items(tmp_path, loop, expected):
    body = textwrap.indent(loop, " " * 4)
    kernel = _kernel(tmp_path, "import math\nfrom numba import cuda\n\n\n"
                               "@cuda.jit(device=True)\ndef helper(x):\n    return 0.0\n\n\n"
                               "@cuda.jit\ndef k(out, grid, a):\n    i, j = cuda.grid(2)\n" + body + "\n")
    kernel = next(k for k in kernel.module.kernels if k.name == "k")
    assert with_body_ranks(kernel, ["float32[?]", "float32[?]", "float32"]) == expected


def test_a_walked_array_whose_items_are_indexed_has_their_rank_plus_one():
    function = ast.parse("def k(out, grid, a):\n    for row in grid:\n        out[0, 1] += row[1] * a\n").body[0]
    assert _ranks_indexed(function) == {"out": {2}, "row": {1}, "grid": {2}}


def test_an_array_a_helper_returns_keeps_the_dtype_its_file_imports(tmp_path):
    """`def make(n): return cuda.to_device(np.zeros(n, dtype=DTYPE))` with `from .config import
    DTYPE`: the launch with what it returns (and a `device_array_like` of it) is float32."""
    package = tmp_path / "pk"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "config.py").write_text("import numpy as np\n\nDTYPE = np.float32\n")
    (package / "run.py").write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda
        from .config import DTYPE


        @cuda.jit
        def scale(a, s):
            i = cuda.grid(1)
            if i < a.shape[0]:
                a[i] *= s


        def make(n):
            return cuda.to_device(np.zeros(n, dtype=DTYPE))


        def run(n):
            b = make(n)
            scale[1, 32](b, np.float32(2))
            scale[1, 32](cuda.device_array_like(b), np.int16(2))
    '''))
    from kernlint.python.signatures.launch_sites import launch_signatures
    found = launch_signatures(Project(), [str(package / "run.py")])
    assert sorted(s for s, _ in found[str(package / "run.py")]["scale"]) == [
        "void(float32[::1], float32)", "void(float32[::1], int16)"]


def _shown_signatures(package, tmp_path):
    """``kernlint check --show-signatures`` on a copy of a fixture package, run as a user runs it
    (from the folder holding it, in a fresh process): what it prints."""
    shutil.copytree(package, tmp_path / package.name)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_ENABLE_CUDASIM", None)
    run = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--show-signatures", package.name],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    return run.stdout


def test_the_lattice_package_shows_each_kernel_typed_from_its_launch(tmp_path):
    """The fixture package as a user runs it: every kernel's row in ``--show-signatures`` says
    the launch that gave its types."""
    shown = _shown_signatures(LATTICE, tmp_path)
    rows = {}
    for line in shown.splitlines():
        match = re.match(r"lattice/kernels\.py::(\w+)(?:\[[^\]]*\])?\s+(void\(.*\))\s+(\S+) \((\S+)\)$", line.strip())
        if match:
            rows[match.group(1)] = (match.group(2), match.group(3), match.group(4))

    def line_of(file, text):
        lines = (LATTICE / file).read_text().splitlines()
        return f"lattice/{file}:{next(n for n, line in enumerate(lines, 1) if text in line)}"

    assert rows["sharpen"] == ("void(float32[:, ::1], float32[:, ::1])", "launch-site",
                               line_of("dispatch.py", "kernel[griddim, blockdim](grid, out)"))
    assert rows["smooth"] == rows["sharpen"]
    assert rows["stream_mrt"] == ("void(float32[:, ::1], int32[::1])", "launch-site",
                                  line_of("dispatch.py", "kernel[launch_config(n)](f, shifts)"))
    assert rows["stream_bgk"][:2] == rows["stream_mrt"][:2]  # that launch's, or the dict's: the same types
    assert rows["collide"] == ("void(float32[:, ::1], float32[:, ::1], float32)", "launch-site",
                               line_of("solver.py", "self.collide_kernel["))
    assert rows["relax_populations"] == ("void(float64[:, ::1], float64)", "launch-site",
                                         line_of("solver.py", "self.relax_kernel["))
    assert rows["velocity"] == ("void(float32[::1], float32[::1])", "launch-site",
                                line_of("dispatch.py", "MOMENTS[1][cfg]"))
    assert rows["to_cells"] == ("void(float64[::1], int64[::1])", "launch-site", line_of("dispatch.py", ".forall("))
    assert {kernel for kernel, (_, source, _) in rows.items() if source == "launch-site"} == {
        node.name for node in _kernel_defs(LATTICE / "kernels.py")}
    assert "lattice/kernels.py:" in shown and "KL301" in shown  # density's print, checked as launched


def _kernel_defs(path):
    import ast

    return [node for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.FunctionDef)
            and node.decorator_list]


def test_objects_with_an_array_interface_launch_as_the_array_it_describes(tmp_path):
    path = tmp_path / "held.py"
    path.write_text(textwrap.dedent('''
        import cupy as cp
        from numba import cuda

        @cuda.jit
        def add(out, x):
            i = cuda.grid(1)
            out[i] += x[i]

        class Buffer:
            def __init__(self, n):
                self.data = cp.zeros(n, dtype=cp.float32)

            @property
            def __cuda_array_interface__(self):
                return self.data.__cuda_array_interface__

        class Raw:
            def __init__(self, ptr, n):
                self.ptr, self.n = ptr, n

            @property
            def __cuda_array_interface__(self):
                return {"shape": (self.n, 3), "typestr": "<i4", "data": (self.ptr, False), "version": 3}

        class Strided(Raw):
            @property
            def __cuda_array_interface__(self):
                return {"shape": (self.n,), "typestr": "<f8", "strides": (16,), "data": (self.ptr, False)}

        class Opaque:
            @property
            def __cuda_array_interface__(self):
                return make_interface()

        def run():
            b, r, s = Buffer(100), Raw(0, 100), Strided(0, 100)
            add[1, 128](b, b)
            add[1, 128](r, r)
            add[1, 128](s, s)
            add[1, 128](Opaque(), b)
    '''))
    facts = file_host_facts(Project(), str(path))
    assert [[a.type for a in launch.args] for launch in facts.launches] == [
        ["float32[::1]", "float32[::1]"], ["int32[:, ::1]", "int32[:, ::1]"], ["float64[:]", "float64[:]"],
        [None, "float32[::1]"]]
    assert {a.where for a in facts.launches[0].args} == {"device"}


@pytest.mark.parametrize("imports, expected", [
    # the project's own `tools` has no `gpu`: the module moved, the one kernel of that name is it
    ("from tools.gpu import step", "step"),
    ("from tools import gpu\nstep = gpu.step", None),  # not an import of the name: left alone
    ("from physics.gpu import step", None),  # no project module `physics`: a library, left alone
])
def test_a_kernel_imported_from_a_module_that_moved_is_the_one_the_project_defines(tmp_path, imports, expected):
    (tmp_path / "tools.py").write_text("def cfl(c, dx):\n    return c * dx\n")
    (tmp_path / "tools_gpu.py").write_text(textwrap.dedent('''
        from numba import cuda

        @cuda.jit
        def step(u, c):
            i = cuda.grid(1)
            if i < u.shape[0]:
                u[i] *= c
    '''))
    (tmp_path / "run.py").write_text(imports + textwrap.dedent('''
        import cupy as cp

        u = cp.zeros(1000, dtype=cp.float32)
        step[8, 128](u, cp.float32(0.5))
    '''))
    facts = file_host_facts(Project(), str(tmp_path / "run.py"))
    (launch,) = facts.launches
    assert (launch.kernel.qualname if launch.kernel else None) == expected
    if expected:
        assert launch.signature == "void(float32[::1], float32)"


def test_a_moved_kernel_two_modules_define_is_not_guessed(tmp_path):
    kernel = "from numba import cuda\n\n@cuda.jit\ndef step(u):\n    u[0] = 1.0\n"
    (tmp_path / "tools.py").write_text("X = 1\n")
    (tmp_path / "old_gpu.py").write_text(kernel)
    (tmp_path / "new_gpu.py").write_text(kernel)
    (tmp_path / "run.py").write_text("from tools.gpu import step\nimport cupy as cp\n\n"
                                     "step[1, 1](cp.zeros(1, dtype=cp.float32))\n")
    (launch,) = file_host_facts(Project(), str(tmp_path / "run.py")).launches
    assert launch.kernel is None
def test_arrays_mapped_to_the_device_and_unpacked_launch_as_each_item(tmp_path):
    """``d_a, d_b = map(cuda.to_device, (a, b))`` binds each name to the call on its item; a
    map over what is not written out (a name) leaves the names unknown."""
    path = tmp_path / "flow.py"
    path.write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda


        @cuda.jit
        def relax(f, w, flags):
            i = cuda.grid(1)
            if i < f.shape[0] and flags[i]:
                f[i] *= w[i]


        def main(n, arrays):
            f = np.ones(n, dtype=np.float32)
            w = np.full(n, 0.5, dtype=np.float32)
            d_f, d_w, d_flags = map(cuda.to_device, (f, w, np.zeros(n, dtype=np.bool_)))
            relax[1, 32](d_f, d_w, d_flags)
            d_g, d_v = list(map(cuda.to_device, [f.astype(np.float64), w]))
            relax[1, 32](d_g, d_v, d_flags)
            d_x, d_y = map(cuda.to_device, arrays)
            relax[1, 32](d_x, d_y, d_flags)
    '''))
    facts = file_host_facts(Project(), str(path))
    assert [[a.dtype for a in launch.args] for launch in facts.launches] == [
        ["float32", "float32", "boolean"], ["float64", "float32", "boolean"], ["", "", "boolean"]]
    from kernlint.python.signatures.launch_sites import launch_signatures
    found = launch_signatures(Project(), [str(path)])[str(path)]["relax"]
    # the ranks from the body (`n` may be a shape); the third launch gives no signature
    assert sorted((s, origin.rpartition(":")[2]) for s, origin in found) == [
        ("void(float32[::1], float32[::1], boolean[::1])", "17"), ("void(float64[::1], float32[::1], boolean[::1])", "19")]


def test_a_script_s_launches_are_typed_from_the_parameters_it_star_imports(tmp_path):
    """``from params import *`` brings the script's lattice constants: arrays mapped to the
    device from them, and ``numba.int64(nx)`` sizes, type each launch whole. A name the
    module does not export (``_private``) and a number made from a type (a signature, not
    a value) are not taken."""
    (tmp_path / "params.py").write_text(textwrap.dedent('''
        import numpy as np

        nx, ny = 64, 32
        omega = 1 / (3 * 0.04 + 0.5)
        c = np.array([[1, 0], [0, 1], [-1, 0], [0, -1]])
        _private = np.zeros(4, dtype=np.float32)
    '''))
    path = tmp_path / "flow.py"
    path.write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda, int64, float32
        from params import *

        NX = int64(nx)
        SIG = float32(float32[:])


        @cuda.jit
        def relax(f, cv, rate, n):
            i = cuda.grid(1)
            if i < n:
                f[i, 0] *= rate * cv[i % 4, 0]


        def main():
            d_f, d_c = map(cuda.to_device, (np.full((nx, ny), omega), c))
            relax[1, 32](d_f, d_c, omega, NX)
            relax[1, 32](d_f, cuda.to_device(_private), omega, NX)
            relax[1, 32](d_f, d_c, omega, SIG)
    '''))
    facts = file_host_facts(Project(), str(path))
    assert [launch.signature for launch in facts.launches] == [
        "void(float64[:, ::1], int64[:, ::1], float64, int64)", None, None]


def test_a_kernel_a_star_import_brings_is_the_one_launched(tmp_path):
    """``from kernels import *`` then ``relax[...](...)``: the launch starts the kernel that
    module defines and types it; a name the module keeps private is not brought."""
    (tmp_path / "kernels.py").write_text(textwrap.dedent('''
        from numba import cuda

        __all__ = ["relax"]


        @cuda.jit
        def relax(f, rate):
            i = cuda.grid(1)
            if i < f.shape[0]:
                f[i] *= rate


        @cuda.jit
        def hidden(f, rate):
            f[cuda.grid(1)] = rate
    '''))
    path = tmp_path / "flow.py"
    path.write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda
        from kernels import *


        def main(n):
            d_f = cuda.to_device(np.zeros(n, dtype=np.float32))
            relax[1, 32](d_f, np.float32(0.5))
            hidden[1, 32](d_f, np.float32(0.5))
    '''))
    facts = file_host_facts(Project(), str(path))
    assert [(launch.kernel.qualname if launch.kernel else None) for launch in facts.launches] == ["relax", None]
    from kernlint.python.signatures.launch_sites import launch_signatures
    found = launch_signatures(Project(), [str(tmp_path / "kernels.py")])[str(tmp_path / "kernels.py")]
    assert [s for s, _ in found["relax"]] == ["void(float32[::1], float32)"] and "hidden" not in found


LAYEROPS = FIXTURES / "shapes" / "layerops"


def test_wrappers_in_other_files_are_typed_from_each_chain_of_calls_that_types_them(tmp_path):
    """A kernel launched by a wrapper of its own module, called through a package's re-exports
    by operations that a check script (arrays it allocates) and layers (what they are handed)
    call: each chain of calls the script starts is one launch's types (float32 and float64
    alike), and the layers' chain, typing nothing, adds none; a wrapper only the layers reach
    stays inferred."""
    rows = {}
    for line in _shown_signatures(LAYEROPS, tmp_path).splitlines():
        match = re.match(r"layerops/kernels/(\w+)\.py::perform\s+(void\(.*\))\s+([\w-]+):? ?(.*)$", line.strip())
        if match:
            rows.setdefault(match.group(1), set()).add((match.group(2), match.group(3), match.group(4)))

    def launched_at(module, text):
        lines = (LAYEROPS / "kernels" / f"{module}.py").read_text().splitlines()
        return f"(layerops/kernels/{module}.py:{next(n for n, line in enumerate(lines, 1) if text in line)})"

    assert rows["row_sum"] == {  # keywords, through `from .kernels import row_sum`
        ("void(float32[::1], float32[:, ::1])", "launch-site", launched_at("row_sum", "perform[")),
        ("void(float64[::1], float64[:, ::1])", "launch-site", launched_at("row_sum", "perform["))}
    assert rows["scale_rows"] == {
        ("void(float32[:, ::1], float32[:, ::1], float32[::1])", "launch-site", launched_at("scale_rows", "perform[")),
        ("void(float64[:, ::1], float64[:, ::1], float64[::1])", "launch-site", launched_at("scale_rows", "perform["))}
    # its grid indexes a shape: `perform[(buffer.shape[0] + 63) // 64, 64](buffer)`
    assert {(s, source) for s, source, _ in rows["clear"]} == {
        ("void(float32[::1])", "launch-site"), ("void(float64[::1])", "launch-site")}
    # only the layers call `rectify`: nothing says what `values` is
    assert [source for _, source, _ in rows["relu"]] == ["inferred"]


LAYER = '''
    import numpy as np
    from numba import cuda

    @cuda.jit
    def pool(x, out):
        i = cuda.grid(1)
        out[i, 0] = x[i, 0]

    @cuda.jit
    def add_bias(out, bias):
        i = cuda.grid(1)
        if bias is not None:
            out[i, 0] += bias[i]

    @cuda.jit
    def pick(out, index):
        i = cuda.grid(1)
        out[index, i] = 0.0

    @cuda.jit
    def copy(x, out):
        i = cuda.grid(1)
        out[i, 0] = x[i, 0]

    class Layer:
        def __init__(self, n):
            self.x = None
            self.out = None
            self.bias = None
            self.rows = None
            self.mixed = None

        def build(self, n):
            self.bias = np.zeros((n,), dtype=np.float32)
            self.rows = np.arange(n, dtype=np.int32)
            self.mixed = np.zeros((n, 4), dtype=np.float32)

        def rebuild(self, n):
            self.mixed = np.zeros((n, 4), dtype=np.float64)

        def forward(self, n):
            self.x = np.ones((n, 4), dtype=np.float32)
            self.out = np.zeros((n, 4), dtype=np.float32)
            pool[1, 32](self.x, self.out)
            add_bias[1, 32](self.out, self.bias)
            for row in self.rows:
                pick[1, 32](self.out, row)
            copy[1, 32](self.x, self.mixed)
'''


def test_attributes_set_to_none_first_launch_as_the_arrays_assigned_later(tmp_path):
    """``self.out = None`` in ``__init__`` and an array in the method that launches: the launch
    runs with the array (numba cannot index None), and a loop over such an attribute walks the
    array. A kernel that tests the parameter against None also runs with None: its launch
    gives no signature; nor does an attribute later assigned arrays of two dtypes."""
    from kernlint.python.signatures.launch_sites import launch_signatures
    path = tmp_path / "layer.py"
    path.write_text(textwrap.dedent(LAYER))
    found = launch_signatures(Project(), [str(path)])[str(path)]
    assert {name: sorted(s for s, _ in entries) for name, entries in found.items()} == {
        "pool": ["void(float32[:, ::1], float32[:, ::1])"],
        "pick": ["void(float32[:, ::1], int32)"],
    }


def test_a_property_handing_out_an_attribute_reads_as_the_attribute(tmp_path):
    """``mesh.offsets`` of an object of another file's class whose read-only property returns
    ``self._offsets`` (set in a private method ``__init__`` calls) reads as that attribute, on
    an object a parameter's annotation names as on one its callers pass; a property that
    computes something gives what it returns (an int16 array times 0.5: float64), and one
    that computes from what reading does not know stays unknown."""
    from kernlint.python.signatures.launch_sites import launch_signatures
    (tmp_path / "mesh.py").write_text(textwrap.dedent('''
        import numpy as np


        class Mesh:
            def __init__(self, d: int, cells: int):
                self._cells = cells
                self._offsets = None
                self.__layout()

            @property
            def cells(self):
                """How many cells."""
                return self._cells

            @property
            def offsets(self):
                return self._offsets

            @property
            def spacing(self):
                return self._offsets * 0.5

            @property
            def measured(self):
                return self._offsets * np.load("scale.npy")

            def __layout(self):
                self._offsets = np.array([[0, 1], [1, 0]], dtype=np.int16)
    '''))
    (tmp_path / "solver.py").write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda
        from mesh import Mesh


        @cuda.jit
        def gather(offsets, cells, out):
            i = cuda.grid(1)
            if i < cells:
                out[i] = offsets[i, 0]


        @cuda.jit
        def spread(spacing, out):
            i = cuda.grid(1)
            out[i] = spacing[i, 0]


        @cuda.jit
        def scaled(measured, out):
            i = cuda.grid(1)
            out[i] = measured[i, 0]


        class Solver:
            def __init__(self, mesh: Mesh):
                self.mesh = mesh
                self.d_offsets = cuda.to_device(mesh.offsets)
                self.d_spacing = cuda.to_device(mesh.spacing)
                self.d_measured = cuda.to_device(mesh.measured)
                self.out = cuda.device_array(64, dtype=np.float32)

            def step(self):
                gather[1, 64](self.d_offsets, self.mesh.cells, self.out)
                spread[1, 64](self.d_spacing, self.out)
                scaled[1, 64](self.d_measured, self.out)
    '''))
    (tmp_path / "run.py").write_text(textwrap.dedent('''
        from mesh import Mesh
        from solver import Solver

        solver = Solver(Mesh(2, 64))
        for _ in range(10):
            solver.step()
    '''))
    path = str(tmp_path / "solver.py")
    found = launch_signatures(Project(), [path])[path]
    assert {name: sorted(s for s, _ in entries) for name, entries in found.items()} == {
        "gather": ["void(int16[:, ::1], int64, float32[::1])"],
        "spread": ["void(float64[:, ::1], float32[::1])"]}


GATES = '''
from numba import cuda


@cuda.jit
def flip(state, target):
    i = cuda.grid(1)
    if i < state.shape[0] and (i >> target) & 1 == 0:
        j = i | (1 << target)
        state[i], state[j] = state[j], state[i]


@cuda.jit
def phase(state, target):
    i = cuda.grid(1)
    if i < state.shape[0] and (i >> target) & 1:
        state[i] = -state[i]


@cuda.jit
def clear(state):
    i = cuda.grid(1)
    if i < state.shape[0]:
        state[i] = 0


@cuda.jit
def unused(state):
    state[0] = 1
'''

SIMULATOR = '''
import numpy as np
from numba import cuda

from . import gates

KERNEL_OF = {"X": "flip", "Z": "phase"}


class Simulator:
    def __init__(self, qubits):
        self.state = cuda.device_array(2 ** qubits, dtype=np.complex128)

    def apply(self, op, target):
        kernel = getattr(gates, KERNEL_OF[op])
        kernel[64, 128](self.state, np.int32(target))

    def reset(self):
        for name in ("clear",):
            getattr(gates, name)[64, 128](self.state)

    def anything(self, chosen):
        getattr(gates, chosen)[64, 128](self.state)
'''


def test_a_kernel_getattr_picks_from_literal_names_is_each_one_they_name(tmp_path):
    """``getattr(module, TABLE[op])`` over a literal dict of names, and ``getattr`` of a loop
    variable over literals: every kernel named there, launched with that call's arguments; a
    name the caller passes in names no kernel kernlint can know."""
    package = tmp_path / "qsim"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "gates.py").write_text(textwrap.dedent(GATES))
    (package / "simulator.py").write_text(textwrap.dedent(SIMULATOR))
    facts = file_host_facts(Project(), str(package / "simulator.py"))
    lines = (package / "simulator.py").read_text().splitlines()

    def line(text):
        return next(n for n, row in enumerate(lines, 1) if text in row)

    found = {}
    for launch in facts.launches + facts.passed_launches:
        found.setdefault(launch.place.line, set()).add(
            (launch.kernel.qualname, launch.signature) if launch.kernel else None)
    assert found == {
        line("kernel[64"): {("flip", "void(complex128[::1], int32)"), ("phase", "void(complex128[::1], int32)")},
        line("getattr(gates, name)"): {("clear", "void(complex128[::1])")},
        line("getattr(gates, chosen)"): {None},
    }, found


LAUNCHER_UTILS = '''
import math

from numba import cuda


def launcher(kernel, n, block=128):
    """The kernel configured to cover ``n`` items."""
    blocks = math.ceil(n / block)
    return kernel[blocks, block]


def streamed(kernel, n, stream):
    if n > 1024:
        return kernel[math.ceil(n / 256), 256, stream]
    return kernel[math.ceil(n / 256), 256, stream]


def each(kernel, n):
    return kernel.forall(n)


def described(kernel, n):
    return f"{kernel} over {n}"


def cropped(image, border):
    return image[border:-border, border:-border]
'''

LAUNCHER_KERNELS = '''
from numba import cuda


@cuda.jit
def threshold(image, out, level):
    i = cuda.grid(1)
    if i < image.shape[0]:
        out[i] = 255 if image[i] > level else 0


@cuda.jit
def invert(mask):
    i = cuda.grid(1)
    if i < mask.shape[0]:
        mask[i] = 255 - mask[i]


@cuda.jit
def scale(image, factor):
    i = cuda.grid(1)
    if i < image.shape[0]:
        image[i] *= factor


@cuda.jit
def blend(a, b, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        out[i] = (a[i] + b[i]) / 2
'''

LAUNCHER_OPS = '''
import numpy as np
from numba import cuda

from . import utils
from .kernels import blend, invert, scale, threshold
from .utils import launcher


def segment(n):
    image = np.zeros(n, dtype=np.float32)
    mask = np.zeros(n, dtype=np.uint8)
    launcher(threshold, n)(image, mask, np.float32(0.5))
    utils.launcher(invert, mask.size, block=256)(mask)
    stream = cuda.stream()
    utils.streamed(scale, n, stream)(image, np.float32(2))
    utils.each(blend, n)(image, image, np.empty_like(image))
    print(utils.described(scale, n))
    print(utils.cropped(scale, 1)(image))
    return mask


def clear(mask):
    run = launcher(invert, mask.size)
    run(mask)


def either(mask, fast):
    run = print
    if fast:
        run = launcher(invert, mask.size)
    run(mask)
'''


def test_a_kernel_a_helper_returns_configured_is_launched_where_its_result_is_called(tmp_path):
    """``launcher(k, n)(x)``, where a project function returns the kernel it is given configured
    (``kernel[blocks, threads]``, with a stream, ``kernel.forall(n)``), or a name bound to such a
    call then called: a launch of ``k`` at that line with those arguments' types; a helper that
    returns something else launches nothing."""
    package = tmp_path / "raster"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "utils.py").write_text(textwrap.dedent(LAUNCHER_UTILS))
    (package / "kernels.py").write_text(textwrap.dedent(LAUNCHER_KERNELS))
    (package / "ops.py").write_text(textwrap.dedent(LAUNCHER_OPS))
    lines = (package / "ops.py").read_text().splitlines()

    def line(text):
        return next(n for n, row in enumerate(lines, 1) if text in row)

    facts = file_host_facts(Project(), str(package / "ops.py"))
    events = {(e.place.line, e.kernel.qualname, e.stream, e.detail.get("stream", ""))
              for e in facts.launches if e.kernel is not None}
    assert events == {(line("launcher(threshold"), "threshold", False, ""),
                      (line("launcher(invert"), "invert", False, ""),
                      (line("streamed(scale"), "scale", True, "stream"),
                      (line("each(blend"), "blend", False, ""),
                      (line("run(mask)"), "invert", False, "")}, events

    out = tmp_path / "shown"
    out.mkdir()
    shown = _shown_signatures(package, out)
    rows = {}
    for row in shown.splitlines():
        match = re.match(r"raster/kernels\.py::(\w+)\s+(void\(.*\))\s+(\S+) \((\S+)\)$", row.strip())
        if match:
            rows[match.group(1)] = (match.group(2), match.group(3), match.group(4))
    assert rows == {
        "threshold": ("void(float32[::1], uint8[::1], float32)", "launch-site", f"raster/ops.py:{line('launcher(threshold')}"),
        "invert": ("void(uint8[::1])", "launch-site", f"raster/ops.py:{line('launcher(invert')}"),
        "scale": ("void(float32[::1], float32)", "launch-site", f"raster/ops.py:{line('streamed(scale')}"),
        "blend": ("void(float32[::1], float32[::1], float32[::1])", "launch-site", f"raster/ops.py:{line('each(blend')}"),
    }, shown


LATTICE_SOLVER = '''
import numpy as np
from numba import cuda


@cuda.jit
def density_2d(f, rho, nx, ny, q):
    i, j = cuda.grid(2)
    if i < nx and j < ny:
        total = 0.0
        for k in range(q):
            total += f[i, j, k]
        rho[i, j] = total


@cuda.jit
def density_3d(f, rho, nx, ny, nz, q):
    i, j, k = cuda.grid(3)
    if i < nx and j < ny and k < nz:
        total = 0.0
        for m in range(q):
            total += f[i, j, k, m]
        rho[i, j, k] = total


@cuda.jit
def corner(rho, n0):
    rho[0, 0] = n0


class Lattice:
    def __init__(self, n, q):
        self.shape = n
        self.q = q
        self.dims = len(n)
        self.f = cuda.to_device(np.zeros(n + (q,), dtype=np.float32))
        self.rho = cuda.device_array(n, dtype=np.float32)

    def density(self):
        if self.dims == 2:
            nx, ny = self.shape
            density_2d[(8, 8), (16, 16)](self.f, self.rho, nx, ny, self.q)
        else:
            nx, ny, nz = self.shape
            density_3d[(8, 8, 8), (8, 8, 8)](self.f, self.rho, nx, ny, nz, self.q)

    def first(self):
        corner[1, 1](self.rho, self.shape[2])
'''


def test_a_shape_callers_pass_with_two_or_three_sizes_unpacks_into_the_one_that_fits(tmp_path):
    """Scripts in a folder beside the package (``samples/``, run from the repository's top)
    construct the solver with a 2-D shape and a 3-D one: ``nx, ny = self.shape`` takes the
    sizes of the 2-tuple, ``nx, ny, nz = self.shape`` those of the 3-tuple (unpacking the
    other raises), and each kernel is typed from its launch. ``self.shape[2]``, which only the
    3-tuple has, stays unknown: no alternative is dropped for an index."""
    from kernlint.python.signatures.launch_sites import launch_signatures
    package = tmp_path / "lbm"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "lattice.py").write_text(LATTICE_SOLVER)
    samples = tmp_path / "samples"
    samples.mkdir()
    (samples / "vortex.py").write_text(textwrap.dedent('''
        from lbm.lattice import Lattice

        def main():
            nx = 400
            ny = 200
            lattice = Lattice((nx, ny), 9)
            for _ in range(1000):
                lattice.density()
    '''))
    (samples / "cube.py").write_text(textwrap.dedent('''
        from lbm.lattice import Lattice

        def main():
            n = 64
            lattice = Lattice((n, n, n), 19)
            for _ in range(1000):
                lattice.density()
            lattice.first()
    '''))
    path = str(package / "lattice.py")
    found = launch_signatures(Project(), [path])[path]
    assert {name: sorted(s for s, _ in entries) for name, entries in found.items()} == {
        "density_2d": ["void(float32[:, :, ::1], float32[:, ::1], int64, int64, int64)"],
        "density_3d": ["void(float32[:, :, :, ::1], float32[:, :, ::1], int64, int64, int64, int64)"]}
    assert {origin for entries in found.values() for _, origin in entries} == {
        f"launch-site@{path}:{line}" for line in (42, 45)}


def test_a_package_beside_a_scripts_folder_is_the_projects_own_only_where_it_is_a_package(tmp_path):
    """``import lbm`` from ``samples/run.py`` finds ``lbm/`` one folder up when it is a package
    (``__init__.py``); a plain folder of that name is not one, nor is anything above a marked
    project root, nor is it looked for from a module inside a package."""
    from kernlint.python.syntax import PyModule
    (tmp_path / "lbm").mkdir()
    (tmp_path / "lbm" / "__init__.py").write_text("")
    (tmp_path / "lbm" / "lattice.py").write_text("X = 1\n")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "grid.py").write_text("Y = 1\n")
    (tmp_path / "samples").mkdir()
    script = tmp_path / "samples" / "run.py"
    script.write_text("import lbm.lattice\nimport data.grid\n")
    project = Project()
    module = project.module(str(script))
    assert project.find("lbm.lattice", module) == str(tmp_path / "lbm" / "lattice.py")
    assert project.find("data.grid", module) is None
    inner = tmp_path / "samples" / "app"
    inner.mkdir()
    (inner / "pyproject.toml").write_text("")
    (inner / "run.py").write_text("import lbm.lattice\n")
    assert project.find("lbm.lattice", project.module(str(inner / "run.py"))) is None
    # a module of a package imports by the package's own path, not by its neighbours'
    tools = tmp_path / "samples" / "tools"
    tools.mkdir()
    (tools / "__init__.py").write_text("")
    (tools / "plot.py").write_text("import lbm.lattice\n")
    assert project.find("lbm.lattice", project.module(str(tools / "plot.py"))) is None


def test_a_helper_s_lists_become_the_arrays_its_last_unconditional_binding_makes(tmp_path):
    """A helper that grows lists (``append``, ``extend`` with an array's elements) and then
    binds each name to ``np.array(xs, dtype=...)`` in its own body returns those arrays; a
    rebinding inside a loop or an ``if`` may not run, so the name holds either type, and a
    list extended by what the reader cannot type has unknown items."""
    (tmp_path / "helpers.py").write_text(textwrap.dedent('''
        import numpy as np

        def grown(n):
            idx = []
            for _ in range(n):
                idx.extend(np.random.choice(n, 3, replace=False))
            idx = np.array(idx, dtype=np.int16)
            return idx

        def maybe(n, flag):
            idx = [0]
            for _ in range(n):
                idx = np.array(idx, dtype=np.int16)
            return idx

        def unknown(n, source):
            idx = []
            idx.extend(source.items())
            idx = np.array(idx, dtype=np.int16)
            return idx
    '''))
    path = tmp_path / "host.py"
    path.write_text(textwrap.dedent(KERNELS) + textwrap.dedent('''
        import helpers

        def run(source):
            a = helpers.grown(100)
            b = helpers.maybe(100, True)
            c = helpers.unknown(100, source)
            scale[1, 32](a, b)
            shift[1, 32](c, a)
    '''))
    facts = file_host_facts(Project(), str(path))
    types = {launch.kernel.qualname: [arg.type for arg in launch.args] for launch in facts.launches}
    assert types == {"scale": ["int16[::1]", None], "shift": [None, "int16[::1]"]}


DENOISE = FIXTURES / "shapes" / "denoise"


def test_timed_stages_and_dtype_attributes_type_their_launches(tmp_path):
    """A stage run through a wrapper that hands it back (``timed(stage, on)``, returning the
    stage or a function calling it, picked by a condition) returns what the stage returns; an
    array made with ``dtype=self.dtype`` takes the one dtype the class stores in that attribute
    (in ``__init__``, or a class-level default no method changes). A dtype a setter picks at run
    time types no launch."""
    from kernlint.python.signatures.launch_sites import launch_signatures

    package = tmp_path / "denoise"
    shutil.copytree(DENOISE, package)
    found = launch_signatures(Project(), [str(package / "kernels.py")])[str(package / "kernels.py")]

    def line(file, text):
        return next(n for n, row in enumerate((package / file).read_text().splitlines(), 1) if text in row)

    def launched(file, text):
        return f"launch-site@{package / file}:{line(file, text)}"

    assert found == {
        "difference": [("void(float32[:, ::1], float32[:, ::1], float32[:, ::1])",
                        launched("stages.py", "difference[blocks("))],
        "scale": [("void(float32[:, ::1], float32[:, ::1], float64)", launched("stages.py", "scale[blocks("))],
        "relax": [("void(float32[:, ::1], float32[::1])", launched("solvers.py", "relax[("))],
        "blend": [("void(float64[:, ::1], float64[::1])", launched("solvers.py", "blend[("))],
    }, found  # `smooth`: float32 or float64, as `use_single` decides when the program runs


def test_an_objects_size_attribute_is_what_its_class_stores_not_an_arrays_count(tmp_path):
    """`self.size = np.array([n, m])`, then `cp.zeros(self.size, ...)` in a method whose result
    is launched: the shape is the stored array (its rank unknown, so the body's rank), not the
    count `.size` is on an array (which made the launch 1-D and numba refused `f[i, j]`)."""
    path = tmp_path / "solver.py"
    path.write_text(textwrap.dedent('''
        import numpy as np
        import cupy as cp
        from numba import cuda


        @cuda.jit
        def scale(out, f):
            i, j = cuda.grid(2)
            if i < out.shape[0] and j < out.shape[1]:
                out[i, j] = f[i, j] * 2.0


        class Solver:
            def __init__(self, n, m):
                self.size = np.array([n, m])
                self.out = cuda.to_device(np.zeros((n, m), dtype=np.float32))

            def source(self):
                return cp.zeros(self.size, dtype=cp.float32)

            def run(self, steps):
                for _ in range(steps):
                    scale[(8, 8), (16, 16)](self.out, self.source())
    '''))
    from kernlint.python.signatures.launch_sites import launch_signatures
    found = launch_signatures(Project(), [str(path)])
    assert [s for s, _ in found[str(path)]["scale"]] == ["void(float32[:, ::1], float32[:, ::1])"]


AUTOMATON = '''
    import numpy as np
    from numba import cuda


    @cuda.jit
    def step(grid, out, neighbours):
        i, j = cuda.grid(2)
        if i < grid.shape[0] and j < grid.shape[1]:
            out[i, j] = grid[i, j] + neighbours[0, 0]


    def run(iterations: int = 100, size: int = 256, {parameter}):
        if {test}:
            {given}
        else:
            {made}
        out = np.zeros_like(grid)
        moore = [(-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1)]
        d_moore = cuda.to_device(moore)
        for _ in range(iterations):
            d_grid, d_out = cuda.to_device(grid), cuda.to_device(out)
            step[(16, 16), (16, 16)](d_grid, d_out, d_moore)
            d_out.copy_to_host(out)
            grid, out = out, grid
'''
MADE = "grid = np.random.randint(2, size=(size, size)).astype(np.int8)"


@pytest.mark.parametrize("parameter, test, given, made, expected", [
    # an initial state callers may leave out: the state made when they do
    ("initial=None", "initial is not None", "grid = initial", MADE, "void(int8[:, ::1], int8[:, ::1], int64[:, ::1])"),
    ("initial: np.ndarray = None", "initial is not None", "grid = initial", MADE,
     "void(int8[:, ::1], int8[:, ::1], int64[:, ::1])"),
    ("initial=None", "initial is None", MADE, "grid = initial", "void(int8[:, ::1], int8[:, ::1], int64[:, ::1])"),
    # an annotation that says its elements: either side may run, and they differ
    ("initial: npt.NDArray[np.float32] = None", "initial is not None", "grid = initial", MADE, None),
    # no default of None: no side is the one a call leaving it out runs
    ("initial=0", "initial is not None", "grid = initial", MADE, None),
    # a test of another name: what each side binds stays unknown where one is
    ("initial=None", "size > 64", "grid = initial", MADE, None),
])
def test_an_optional_input_launches_as_the_array_made_when_it_is_left_out(tmp_path, parameter, test, given, made,
                                                                           expected):
    from kernlint.python.signatures.launch_sites import launch_signatures

    path = tmp_path / "automaton.py"
    source = textwrap.dedent(AUTOMATON).replace("{parameter}", parameter).replace("{test}", test).replace(
        "{given}", given).replace("{made}", made)
    if "npt." in parameter:
        source = "import numpy.typing as npt\n" + source
    path.write_text(source)
    found = launch_signatures(Project(), [str(path)]).get(str(path), {})
    assert [s for s, _ in found.get("step", [])] == ([expected] if expected else []), found


@pytest.mark.parametrize("imports, expected", [
    # a script's parameters imported inside the function that runs it: their values' types
    ("from diffusion_params import D, dx, steps", "void(float64[:, ::1], float64[:, ::1], float64, float64, int64)"),
    ("from diffusion_params import D as diffusivity, dx, steps\n    D = diffusivity",
     "void(float64[:, ::1], float64[:, ::1], float64, float64, int64)"),
    # a module the project does not have: unknown, and no launch types the kernel
    ("from elsewhere import D, dx, steps", None),
])
def test_names_a_function_imports_from_the_project_have_their_values_types(tmp_path, imports, expected):
    from kernlint.python.signatures.launch_sites import launch_signatures

    (tmp_path / "diffusion_params.py").write_text("D = 1.0\ndx = 0.075\nsteps = 400\n")
    path = tmp_path / "diffusion.py"
    path.write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda


        @cuda.jit
        def update(u, u_next, D, dx, steps):
            i, j = cuda.grid(2)
            if 0 < i < u.shape[0] - 1 and 0 < j < u.shape[1] - 1:
                u_next[i, j] = u[i, j] + D / (dx * dx) * (u[i + 1, j] + u[i - 1, j] - 2.0 * u[i, j]) / steps


        def main():
            {imports}
            u = cuda.to_device(np.zeros((256, 256)))
            u_next = cuda.device_array_like(u)
            for _ in range(steps):
                update[(16, 16), (16, 16)](u, u_next, D, dx, steps)
                u, u_next = u_next, u
    ''').replace("{imports}", imports))
    found = launch_signatures(Project(), [str(path)]).get(str(path), {})
    assert [s for s, _ in found.get("update", [])] == ([expected] if expected else []), found


def test_a_dict_filled_key_by_key_launches_as_what_it_holds(tmp_path):
    """`model = dict()` (or `{}`), then `model[name] = np.fromfile(...)` for each name read: a dict
    of float32 arrays; a value read back and what is computed from it launch with their types."""
    from kernlint.python.signatures.launch_sites import launch_signatures

    path = tmp_path / "model.py"
    path.write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda


        @cuda.jit
        def spread(field, x, dx):
            i = cuda.grid(1)
            if i < x.shape[0]:
                field[i] = x[i] / dx


        def import_model(model_dir, names):
            model = dict()
            for name in names:
                model[name] = np.fromfile(model_dir + name + ".bin", dtype="float32")
            x = model["x"]
            lx = x.max() - x.min()
            nx = int(np.rint(np.sqrt(x.shape[0])))
            dx = lx / (nx - 1)
            field = cuda.device_array_like(x)
            spread[(x.shape[0] + 255) // 256, 256](field, cuda.to_device(x), dx)
    '''))
    found = launch_signatures(Project(), [str(path)]).get(str(path), {})
    assert [s for s, _ in found.get("spread", [])] == ["void(float32[::1], float32[::1], float32)"], found


def test_a_script_beside_a_folder_of_kernels_types_them_without_a_project_marker(tmp_path):
    """A checkout with no pyproject.toml, setup.py or .git (a downloaded archive): the kernels
    live in a folder of modules with no ``__init__.py``, and the script at the top launches them.
    Checking the whole checkout reads the script's launches too, so the kernel is typed from
    its launch; checking only the folder still finds the kernel, typed from its body."""
    (tmp_path / "filters").mkdir()
    (tmp_path / "filters" / "blur.py").write_text(textwrap.dedent('''
        from numba import cuda


        @cuda.jit
        def box_blur(image, out):
            i, j = cuda.grid(2)
            if 0 < i < image.shape[0] - 1 and 0 < j < image.shape[1] - 1:
                out[i, j] = (image[i - 1, j] + image[i + 1, j] + image[i, j - 1] + image[i, j + 1]) / 4
    '''))
    (tmp_path / "player.py").write_text(textwrap.dedent('''
        import matplotlib.pyplot as plt
        import numpy as np
        from numba import cuda

        from filters.blur import box_blur

        frame = np.random.rand(480, 640).astype(np.float32)
        d_frame = cuda.to_device(frame)
        d_out = cuda.device_array_like(d_frame)
        box_blur[(30, 40), (16, 16)](d_frame, d_out)
        plt.imshow(d_out.copy_to_host())
        plt.show()
    '''))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("NUMBA_ENABLE_CUDASIM", None)

    def shown(target):
        run = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--show-signatures", target],
                             cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
        return [" ".join(line.split()) for line in run.stdout.splitlines() if "box_blur" in line]

    assert shown(".") == ["filters/blur.py::box_blur void(float32[:, ::1], float32[:, ::1]) launch-site (player.py:11)"]
    assert "launch-site" not in shown("filters")[0]


def test_a_script_s_globals_bound_below_its_functions_type_their_launches(tmp_path):
    """A script binds its options in its ``__main__`` block, below the functions that launch
    with them: a function runs once the module has, so each name bound once there types the
    launch. A name bound twice, or rebound through ``global`` in a function, says nothing."""
    path = tmp_path / "zoom.py"
    path.write_text(textwrap.dedent('''
        import argparse

        import numpy as np
        from numba import cuda


        @cuda.jit
        def render(scale, iters, out):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = scale * iters


        def draw():
            d_out = cuda.device_array(1024, dtype=np.float32)
            render[4, 256](scale, iters, d_out)


        def redraw():
            d_out = cuda.device_array(1024, dtype=np.float32)
            render[4, 256](zoom, iters, d_out)


        def zoom_in():
            global zoom
            zoom = zoom * 0.5
            redraw()


        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.add_argument("--scale", type=float, default=1.0)
            parser.add_argument("--iters", type=int, default=100)
            args = parser.parse_args()
            scale = args.scale
            iters = args.iters
            zoom = 2
            draw()
            zoom_in()
    '''))
    facts = file_host_facts(Project(), str(path))
    assert [launch.signature for launch in facts.launches] == ["void(float64, int64, float32[::1])", None]
