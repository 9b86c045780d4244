"""Classes and functions of the project held as values: a backend given an operations class
itself (picked by a flag or out of a dict), the functions that class's factories return
stored in the backend's attributes, and what calls through them run."""
import textwrap

from kernlint.engine import _host_rules
from kernlint.python.host.branches import same_type
from kernlint.python.host.reader import file_host_facts
from kernlint.python.project import FrontendSettings, Project
from kernlint.python.static_types import ListType, ProjectClasses, ProjectFunctions, appended

OPS = '''
import numpy as np
from numba import cuda


@cuda.jit
def zip_kernel(out, a, b, shape):
    i = cuda.grid(1)
    if i < shape[0]:
        out[i] = a[i] * b[i]


class GPU:
    @staticmethod
    def zip(fn):
        def run(a, b):
            out = cuda.to_device(np.zeros(a.size))
            zip_kernel[(a.size + 127) // 128, 128](out, a, b, np.array([a.size]))
            return out

        return run


class CPU:
    @staticmethod
    def zip(fn):
        def run(a, b):
            return fn(a, b)

        return run


class Backend:
    def __init__(self, ops):
        self.mul = ops.zip(np.multiply)
'''


def host_findings(tmp_path, body: str):
    (tmp_path / "ops.py").write_text(textwrap.dedent(OPS))
    path = tmp_path / "run.py"
    path.write_text(textwrap.dedent(body))
    facts = file_host_facts(Project(FrontendSettings(debug=True)), str(path))
    return sorted((f.code, f.line) for f in _host_rules(facts, True))


def test_classes_and_functions_held_as_values_meet_as_either():
    gpu, cpu = ProjectClasses(frozenset({("ops.py", "GPU")})), ProjectClasses(frozenset({("ops.py", "CPU")}))
    assert same_type(gpu, cpu) == ProjectClasses(gpu.classes | cpu.classes)
    assert appended(ListType(gpu), cpu).item == ProjectClasses(gpu.classes | cpu.classes)  # {"gpu": GPU, ...}
    run = ProjectFunctions(frozenset({("ops.py", "GPU.zip.run")}))
    assert same_type(gpu, run) is None  # a class and a function: not one of either


def test_a_class_picked_out_of_a_dict_by_a_flag_runs_its_factory_s_function_in_the_loop(tmp_path):
    found = host_findings(tmp_path, '''
        import sys

        import numpy as np
        from numba import cuda

        from .ops import CPU, GPU, Backend


        def train(epochs, kind):
            backend = Backend({"gpu": GPU, "cpu": CPU}[kind])
            x = cuda.to_device(np.random.rand(4096))
            for epoch in range(epochs):
                x = backend.mul(x, x)
                print(epoch)


        train(100, sys.argv[1])
    ''')
    assert [code for code, line in found if line == 14] == ["KL501", "KL502", "KL503"]  # `backend.mul(x, x)`


def test_a_backend_given_only_the_host_class_here_runs_none_of_the_device_class_s_functions(tmp_path):
    (tmp_path / "gpu_script.py").write_text("from .ops import GPU, Backend\n\nBACKEND = Backend(GPU)\n")
    found = host_findings(tmp_path, '''
        import numpy as np

        from .ops import CPU, Backend


        def train(epochs):
            backend = Backend(CPU)
            x = np.random.rand(4096)
            for epoch in range(epochs):
                x = backend.mul(x, x)
                print(epoch)
    ''')
    assert found == []
