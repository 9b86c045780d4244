"""Values the host reader follows to a launch without running anything: the side of an
``isinstance`` test a known array takes, the sizes an array's shape unpacks into, and the
command-line options ``argparse`` parses. Each launch's signature is pinned exactly: a launch
typed wrongly is worse than one left to inference."""
import textwrap

import pytest

from kernlint.python.host.reader import file_host_facts
from kernlint.python.project import Project

KERNELS = '''
    import argparse
    import math

    import numpy as np
    from numba import cuda
    from numba.cuda.cudadrv.devicearray import DeviceNDArray

    @cuda.jit
    def conv(img, out, channels):
        x, b = cuda.grid(2)
        if b < img.shape[0]:
            out[b, 0, 0, x] = img[b, channels - 1, 0, x]

    @cuda.jit
    def scale(out, x, factor):
        i = cuda.grid(1)
        if i < x.size:
            out[i] = x[i] * factor
'''


def signatures(tmp_path, host: str):
    """The signatures of the launches in a file holding KERNELS and ``host``: None for a
    launch whose arguments are not all known."""
    path = tmp_path / "host.py"
    path.write_text(textwrap.dedent(KERNELS) + textwrap.dedent(host))
    facts = file_host_facts(Project(), str(path))
    return sorted({launch.signature or "None" for launch in facts.launches + facts.passed_launches})


CONV_LAYER = '''
    def conv_layer(img, weight):
        batch, channels, height, width = img.shape
        d_img = cuda.to_device(img) if {test} else img
        out = cuda.device_array((batch, 1, height, width), dtype=img.dtype)
        conv[(math.ceil(height * width / 256), batch), (256,)](d_img, out, channels)
        return out.copy_to_host()

    img = {made}
    conv_layer(img, np.ones(4, dtype=np.float32))
'''


@pytest.mark.parametrize("test, made, expected", [
    # a NumPy array: moved to the device; the sizes of its shape are ints
    ("isinstance(img, np.ndarray)", "np.random.rand(4, 64, 32, 32).astype(np.float32)",
     ["void(float32[:, :, :, ::1], float32[:, :, :, ::1], int64)"]),
    ("not isinstance(img, DeviceNDArray)", "np.zeros((2, 3, 8, 8), dtype=np.int16)",
     ["void(int16[:, :, :, ::1], int16[:, :, :, ::1], int64)"]),
    # a numba device array is no NumPy array: passed as it is
    ("isinstance(img, np.ndarray)", "cuda.device_array((2, 3, 8, 8), dtype=np.float64, order='F')",
     ["void(float64[::1, :, :, :], float64[:, :, :, ::1], int64)"]),
    ("isinstance(img, (np.ndarray, DeviceNDArray))", "cuda.device_array((2, 3, 8, 8), dtype=np.float64)",
     ["void(float64[:, :, :, ::1], float64[:, :, :, ::1], int64)"]),
    # a mapped array is both a NumPy and a device array; an array of unknown library either: unknown
    ("isinstance(img, np.ndarray)", "cuda.mapped_array((2, 3, 8, 8), dtype=np.float32)", ["None"]),
    ("isinstance(img, np.ndarray)", "load_images().astype(np.float32)", ["None"]),
    # a class of the user's: the test says nothing the reader knows
    ("isinstance(img, ImageBatch)", "np.zeros((2, 3, 8, 8), dtype=np.float32)", ["None"]),
])
def test_a_conditional_expression_takes_the_side_the_arrays_class_picks(tmp_path, test, made, expected):
    assert signatures(tmp_path, CONV_LAYER.format(test=test, made=made)) == expected


def test_an_if_statement_on_the_arrays_class_binds_one_side(tmp_path):
    host = '''
    def to_gpu(img):
        if isinstance(img, np.ndarray):
            d_img = cuda.to_device(img)
        else:
            d_img = img.view()
        out = cuda.device_array_like(d_img)
        scale[4, 32](out, d_img, 2)
        return out

    to_gpu(np.arange(128, dtype=np.int32))
    '''
    assert signatures(tmp_path, host) == ["void(int32[::1], int32[::1], int64)"]


@pytest.mark.parametrize("made, expected", [
    # an array of unknown rank: its shape unpacks into Python ints (weak: float32 stays float32)
    ("np.load(path).astype(np.float32)", ["void(float32[::1], float32[::1], float32)"]),
    # the sizes of an array of known rank alike
    ("np.zeros((16, 8), dtype=np.float32)", ["void(float32[::1], float32[::1], float32)"]),
    # what reading cannot type, read for its shape: an array's, of Python ints
    ("load_frames(path)", ["void(float32[::1], float32[::1], float32)"]),
    # a project object's `shape` is not an array's: unknown
    ("Grid(path)", ["None"]),
])
def test_the_sizes_of_an_arrays_shape_are_python_ints(tmp_path, made, expected):
    host = f'''
    class Grid:
        def __init__(self, path):
            self.path = path
            self.shape = read_header(path)

    def normalise(path):
        data = {made}
        rows, cols = data.shape
        step = 2.0 / rows
        x = np.arange(cols, dtype=np.float32) * step + 1.0
        out = np.empty_like(x)
        factor = x.max()
        scale[1, cols](out, x, factor)
    '''
    assert signatures(tmp_path, host) == expected


def test_a_numpy_scalar_size_is_not_weak(tmp_path):
    """The neighbour of the shape's Python ints: a NumPy int64 promotes a float32 array."""
    host = '''
    def normalise(cols):
        rows = np.int64(16)
        step = 2.0 / rows
        x = np.arange(cols, dtype=np.float32) * step
        out = np.empty_like(x)
        scale[1, 32](out, x, x.max())
    '''
    assert signatures(tmp_path, host) == ["void(float64[::1], float64[::1], float64)"]


STEP_SCRIPT = '''
    def run(x, dt, steps):
        out = cuda.device_array_like(x)
        for _ in range(steps):
            scale[4, 32](out, x, dt)

    if __name__ == "__main__":
        parser = argparse.ArgumentParser(description="steps")
        OPTION
        parser.add_argument("-n", "--num-bodies", type=int, default=1000)
        args = parser.parse_args()
        x = cuda.to_device(np.ones(args.num_bodies, dtype=np.float32))
        run(x, args.ARG, args.num_bodies)
'''


@pytest.mark.parametrize("option, arg, expected", [
    # `type=float`: a Python float, whatever the default says as a string or a float
    ('parser.add_argument("-dt", "--dt", type=float, default=0.01, help="step")', "dt",
     ["void(float32[::1], float32[::1], float64)"]),
    ('parser.add_argument("--time-step", type=float, default="0.5")', "time_step",
     ["void(float32[::1], float32[::1], float64)"]),
    ('parser.add_argument("--step", dest="dt", type=int, required=True)', "dt",
     ["void(float32[::1], float32[::1], int64)"]),
    ('group = parser.add_argument_group("physics")\n        group.add_argument("factor", type=float)',
     "factor", ["void(float32[::1], float32[::1], float64)"]),
    ('parser.add_argument("--double", action="store_true")', "double",
     ["void(float32[::1], float32[::1], boolean)"]),
    # what argparse may leave None, a list, a string, or a converter of the user's: unknown
    ('parser.add_argument("--dt", type=float)', "dt", ["None"]),
    ('parser.add_argument("--dt", type=float, nargs=2)', "dt", ["None"]),
    ('parser.add_argument("--dt", default=0.01)', "dt", ["None"]),
    ('parser.add_argument("--dt", type=int, default=0.5)', "dt", ["None"]),
    ('parser.add_argument("--dt", type=parse_time, default=0.5)', "dt", ["None"]),
    ('parser.add_argument("--dt", type=float, default=0.5)\n        parser.set_defaults(dt=None)', "dt", ["None"]),
])
def test_command_line_options_are_typed_as_argparse_makes_them(tmp_path, option, arg, expected):
    assert signatures(tmp_path, STEP_SCRIPT.replace("OPTION", option).replace("ARG", arg)) == expected


def test_options_parsed_at_the_top_level_are_read_in_functions(tmp_path):
    host = '''
    parser = argparse.ArgumentParser()
    parser.add_argument("--alpha", "-a", type=float, default=0.1)
    parser.add_argument("--size", "-s", type=int, default=1 << 20)
    args = parser.parse_args()

    def update(x, out):
        scale[(args.size + 255) // 256, 256](out, x, args.alpha * 2)

    x = cuda.to_device(np.zeros(args.size, dtype=np.float64))
    update(x, cuda.device_array_like(x))
    '''
    assert signatures(tmp_path, host) == ["void(float64[::1], float64[::1], float64)"]


@pytest.mark.parametrize("made, expected", [
    # a new axis of length one: one more dimension, laid out as before (numba's typeof agrees)
    ("np.arange(n, dtype=np.float32)[..., None] * np.arange(12, dtype=np.float32)", "float32[:, ::1]"),
    ("np.arange(n, dtype=np.float32)[:, None]", "float32[:, ::1]"),
    ("np.zeros((n, 4), dtype=np.int16, order='F')[:, None]", "int16[::1, :, :]"),
    ("np.zeros((n, 4), dtype=np.int16)[None]", "int16[:, :, ::1]"),
    # a Python float from `float(...)`: the float32 array stays float32
    ("2 * np.pi * np.arange(n, dtype=np.float32)[..., None] / float(n)", "float32[:, ::1]"),
    ("np.arange(n, dtype=np.float32) / np.float64(n)", "float64[::1]"),
    # a new axis beside a bounded slice or an integer: not read
    ("np.arange(n, dtype=np.float32)[1:, None]", None),
    ("np.zeros((n, 4), dtype=np.int16)[0, None]", None),
])
def test_new_axes_and_python_numbers_in_array_arithmetic(tmp_path, made, expected):
    host = f'''
    def phases(n):
        table = {made}
        return cuda.to_device(table)

    def run(n):
        d_table = phases(n)
        conv[1, 32](d_table, d_table, n)

    run(64)
    '''
    found = signatures(tmp_path, host)
    assert found == ([f"void({expected}, {expected}, int64)"] if expected else ["None"])


def project_signatures(tmp_path, files: dict, launching: str):
    """The launch signatures of ``launching``, one file of a small project (``files``: name ->
    text), as the host reader reads it across the project's files."""
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    facts = file_host_facts(Project(), str(tmp_path / launching))
    return sorted({launch.signature or "None" for launch in facts.launches + facts.passed_launches})


STATE = '''
    import numpy as np


    def initial_state(counts, limits=(64, 64, 0)):
        total = int(sum(counts))
        pos = np.random.rand(3, total) * np.array(limits)[:, None]
        state = {
            "pos_x": pos[0],
            "pos_y": pos[1],
            "limits": limits,
            "counts": counts,
            "kinds": np.zeros(total, dtype=np.int16),
        }
        CHANGE
        return state
'''

SIMULATION = '''
    import numpy as np
    from numba import cuda

    from state import initial_state


    @cuda.jit
    def wrap(x, y, kinds, width, n):
        i = cuda.grid(1)
        if i < n:
            x[i] = x[i] % width + kinds[i]
            y[i] = y[i] % width


    class Swarm:
        def __init__(self, counts, limits=(64, 64, 0)):
            self.state = initial_state(np.array(counts, dtype=np.int32), limits=limits)
            self.limits = np.array(self.state["limits"])
            self.n = np.sum(self.state["counts"])
            self.d_x = cuda.to_device(self.state["pos_x"])
            self.d_y = cuda.to_device(self.state["pos_y"])
            self.d_kinds = cuda.to_device(self.state["kinds"])

        def step(self):
            wrap[(self.n + 127) // 128, 128](self.d_x, self.d_y, self.d_kinds, self.limits[0], self.n)
'''


@pytest.mark.parametrize("change, expected", [
    # each key of the literal its own type; a sum of int32 counts is an int64 (NumPy widens it)
    ("", ["void(float64[::1], float64[::1], int16[::1], int64, int64)"]),
    ('state["kinds"] = state["kinds"].astype(np.int8)', ["void(float64[::1], float64[::1], int8[::1], int64, int64)"]),
    # a key the code sets with a computed name, or a dict it updates: unknown from there on
    ('state[str(total)] = pos', ["None"]),
    ('state.update(extra_fields())', ["None"]),
])
def test_a_state_dict_returned_from_another_file_keeps_each_keys_type(tmp_path, change, expected):
    files = {"state.py": STATE.replace("CHANGE", change), "simulation.py": SIMULATION}
    assert project_signatures(tmp_path, files, "simulation.py") == expected


@pytest.mark.parametrize("reduced, expected", [
    ("np.sum(np.ones(8, dtype=np.int32))", "int64"),
    ("np.ones(8, dtype=np.uint16).sum()", "uint64"),
    ("np.max(np.ones(8, dtype=np.int16))", "int16"),
    ("np.ones(8, dtype=np.float32).mean()", "float32"),
    ("np.ones(8, dtype=np.int32).mean()", "float64"),
    ("np.ones((2, 3), dtype=np.float32).prod()", "float32"),
    ("np.array((3, 4, 5.5))[0]", "float64"),
    ("np.array((3, 4, 5))[0]", "int64"),
    ("np.sum(np.ones(8, dtype=np.int32), axis=0)", None),  # along an axis: not read
])
def test_reductions_and_arrays_of_tuples_have_numpys_dtypes(tmp_path, reduced, expected):
    host = f'''
    def run(x):
        factor = {reduced}
        scale[1, 32](x, x, factor)

    run(cuda.device_array(32, dtype=np.float32))
    '''
    assert signatures(tmp_path, host) == ([f"void(float32[::1], float32[::1], {expected})"] if expected else ["None"])


@pytest.mark.parametrize("passed, expected", [
    # every call passes None: the side of `is None` that computes the step is the one that runs
    (["None"], ["void(float64[::1], float64[::1], float64)"]),
    # a step given: the other side's float32
    (["np.float32(0.5)"], ["void(float64[::1], float64[::1], float32)"]),
    # either: no one type for the function read alone, each call's own for its variant
    (["None", "np.float32(0.5)"], ["None", "void(float64[::1], float64[::1], float32)",
                                   "void(float64[::1], float64[::1], float64)"]),
])
def test_a_parameter_every_call_passes_none_to(tmp_path, passed, expected):
    calls = "\n".join(f"            advance(self.x, self.out, timestep={p})" for p in passed)
    host = f'''
    def advance(x, out, timestep=None):
        if timestep is None:
            fastest = np.sqrt(x[-1])
            if fastest > 1e-6:
                timestep = 0.4 / fastest
            else:
                timestep = 0.1
        scale[4, 32](out, x, timestep)

    class Integrator:
        def __init__(self):
            self.x = cuda.to_device(np.ones(1024))
            self.out = cuda.device_array_like(self.x)

        def run(self):
{calls}
    '''
    assert signatures(tmp_path, host) == expected


ROTATION = '''
    class Rotation:
        def __init__(self):
            self.out = cuda.device_array(1024, dtype=np.float64)
            self.x = cuda.to_device(np.ones(1024, dtype=np.float64))

        def turn(self, angle):
            scale[math.ceil(self.out.size / 128), 128](self.out, self.x, {factor})
'''


@pytest.mark.parametrize("factor, expected", [
    # the math module gives Python numbers whatever it is given, an unknown parameter included
    ("math.cos(angle)", ["void(float64[::1], float64[::1], float64)"]),
    ("math.hypot(angle, 1.0)", ["void(float64[::1], float64[::1], float64)"]),
    ("math.floor(angle)", ["void(float64[::1], float64[::1], int64)"]),
    ("math.isnan(angle)", ["void(float64[::1], float64[::1], boolean)"]),
    # a pair (`frexp`), or the parameter itself: unknown, no signature
    ("math.frexp(angle)", ["None"]),
    ("angle", ["None"]),
])
def test_what_the_math_module_returns_is_a_python_number_whatever_it_is_given(tmp_path, factor, expected):
    """``cos_angle = math.cos(angle)`` of a parameter no caller types launches as a float64."""
    assert signatures(tmp_path, ROTATION.format(factor=factor)) == expected


@pytest.mark.parametrize("grown, expected", [
    # grown once, outside a loop: the items it holds then
    ("shape = (8,)\nshape += (4,)", ["void(float64[:, ::1], float64[:, ::1], float64)"]),
    # grown in a loop: as many items as the loop runs, not the empty tuple it started as
    ("shape = ()\nfor n in sizes:\n    shape += (n,)", ["None"]),
])
def test_a_tuple_grown_by_adding_is_the_shape_it_grows_to(tmp_path, grown, expected):
    host = "def run(sizes):\n" + textwrap.indent(grown, "    ") + '''
    out = np.zeros(shape)
    x = np.ones(shape)
    scale[1, 32](out, x, 0.5)

run([8, 4])
'''
    assert signatures(tmp_path, host) == expected


IMAGES = '''
    import numpy as np
    from imageio.v2 import imread
    from numpy import float32

    def load_image(path):
        """The flattened pixels, then the height and width."""
        img = imread(path).astype(float32) / 255.
        size = img.shape
        return [img.reshape(size[0] * size[1], size[2]), size[0], size[1]]
'''

CLUSTERS = '''
    import numpy as np
    from numba import cuda

    import images

    @cuda.jit
    def assign(pixels, out, centroids):
        i = cuda.grid(1)
        if i < pixels.shape[0]:
            out[i] = pixels[i, 0] - centroids[0, 0]

    def recolour(data, centroids):
        height, width = data[1], data[2]
        out = cuda.device_array_like(np.reshape(data[0], height * width * 3))
        assign[64, 64](cuda.to_device(data[0]), out, cuda.to_device(centroids))
        return out.copy_to_host()

    def run(path, k):
        data = images.load_image(path)
        CHANGE
        return recolour(data, np.random.rand(k, 3))
'''


@pytest.mark.parametrize("change, expected", [
    # each item of the list the loader returns keeps its type; handing the list on keeps them
    ("", ["void(float32[:, ::1], float32[::1], float64[:, ::1])"]),
    ("pixels, height, width = data", ["void(float32[:, ::1], float32[::1], float64[:, ::1])"]),
    # a list changed in place: what each index holds is unknown from then on
    ("data[0] = data[0][::2]", ["None"]),
    ("data.insert(0, None)", ["None"]),
])
def test_a_list_a_loader_returns_keeps_each_items_type(tmp_path, change, expected):
    files = {"images.py": IMAGES, "clusters.py": CLUSTERS.replace("CHANGE", change)}
    assert project_signatures(tmp_path, files, "clusters.py") == expected


HISTOGRAM = '''
    import numpy as np
    from numba import cuda

    @cuda.jit
    def clear(counts):
        i = cuda.grid(1)
        if i < counts.shape[0]:
            counts[i] = 0

    def make_clear(bins):
        return clear[(bins + 127) // 128, 128]

    class Histogram:
        """Counts positions into bins on every update, with kernels its factories configure."""

        def __init__(self, positions, bins):
            self.d_positions = cuda.to_device(positions.astype(np.float32))
            self.d_counts = cuda.to_device(np.zeros(bins, dtype=np.int32))
            self.update_kernel = self.make_updater(len(positions))
            self.clear_kernel = make_clear(bins)

        def make_updater(self, n):
            threads = 128
            blocks = (n + threads - 1) // threads

            def count(positions, counts):
                i = cuda.grid(1)
                if i < positions.shape[0]:
                    cuda.atomic.add(counts, min(int(positions[i] * counts.shape[0]), counts.shape[0] - 1), 1)

            return CONFIGURED

        def update(self):
            self.clear_kernel(self.d_counts)
            self.update_kernel(self.d_positions, self.d_counts)
            return self.d_counts.copy_to_host()

    histogram = Histogram(np.random.rand(1000), 16)
    for step in range(100):
        histogram.update()
'''


@pytest.mark.parametrize("configured, expected", [
    # a factory returning its kernel configured, the result held in an attribute and called
    ("cuda.jit(device=0)(count)[blocks, threads]", ["void(float32[::1], int32[::1])", "void(int32[::1])"]),
    ("cuda.jit(count)[blocks, (threads, 1)]", ["void(float32[::1], int32[::1])", "void(int32[::1])"]),
    # returned as a kernel, not configured: calling it launches nothing (numba asks for a configuration)
    ("cuda.jit(count)", ["void(int32[::1])"]),
])
def test_a_kernel_a_factory_returns_configured_is_launched_where_it_is_called(tmp_path, configured, expected):
    assert signatures(tmp_path, HISTOGRAM.replace("CONFIGURED", configured)) == expected


CONFIGURATION = '''
    import numpy as np
    from numba import cuda

    class Configuration:
        def __init__(self, n, dims=3):
            self.vectors = np.zeros((3, n, dims), dtype=np.float32)
            self.ptype = np.zeros(n, dtype=np.int32)
            self.copy_to_device()

        def copy_to_device(self):
            self.d_vectors = cuda.to_device(self.vectors)
            self.d_ptype = cuda.to_device(self.ptype)
'''

RADIAL = '''
    import numpy as np
    from numba import cuda

    class RadialDistribution:
        """Its only launch is a call of what its factory returns configured."""

        def __init__(self, configuration, bins=100):
            self.configuration = configuration
            self.d_bins = cuda.to_device(np.zeros((2, 2, bins), dtype=np.float64))
            self.update_kernel = self.make_updater(len(configuration.ptype))

        def make_updater(self, n):
            def histogram(vectors, ptype, bins):
                i = cuda.grid(1)
                if i < n:
                    cuda.atomic.add(bins, (ptype[i], 0, 0), vectors[0][i, 0])
            return cuda.jit(histogram)[(n + 63) // 64, 64]

        def update(self):
            self.update_kernel(self.configuration.d_vectors, self.configuration.d_ptype, self.d_bins)
'''

SIMULATE = '''
    from configuration import Configuration
    from radial import RadialDistribution

    configuration = Configuration(1000)
    rdf = RadialDistribution(configuration, bins=50)
    for step in range(100):
        rdf.update()
'''


def test_a_class_launching_only_through_a_factorys_configured_kernel_reads_its_callers(tmp_path):
    """The launch is the class's only one, and no `k[grid, block](` appears in its file: its
    constructor's callers in other files still say what the object it keeps holds."""
    files = {"configuration.py": CONFIGURATION, "radial.py": RADIAL, "simulate.py": SIMULATE}
    assert project_signatures(tmp_path, files, "radial.py") == ["void(float32[:, :, ::1], int32[::1], float64[:, :, ::1])"]
