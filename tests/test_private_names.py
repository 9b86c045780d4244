"""Private names as Python mangles them, and the launches that depend on it: ``self.__x``
written in class ``Model`` is ``self._Model__x``, which a subclass reads under that name; a
subclass's own ``self.__x`` is another attribute."""
import ast
import textwrap

import pytest

from kernlint.python.host.reader import file_host_facts
from kernlint.python.mangling import mangle_private_names, mangled
from kernlint.python.project import Project
from kernlint.python.signatures.gather import gather


@pytest.mark.parametrize("name, klass, expected", [
    ("__x", "Model", "_Model__x"),
    ("__x", "_Model", "_Model__x"),  # the class's leading underscores are dropped
    ("__x", "___", "__x"),  # a class of underscores only: nothing is mangled
    ("__init__", "Model", "__init__"),  # a dunder is not private
    ("_x", "Model", "_x"),
    ("__x", None, "__x"),  # outside any class
])
def test_a_name_is_mangled_as_python_mangles_it(name, klass, expected):
    assert mangled(name, klass) == expected


def test_the_tree_reads_as_python_compiles_it():
    """The names the mangled tree holds are the ones Python stores when it runs the class."""
    source = textwrap.dedent('''
        class Model:
            def __init__(self):
                self.__d = 1
                self.__helper()

            def __helper(self):
                return self.__d

            class __Inner:
                def get(self, other):
                    return other.__d

        def outside(obj):
            return obj.__d
    ''')
    tree = mangle_private_names(ast.parse(source))
    attributes = sorted(node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute))
    functions = sorted(node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef))
    assert attributes == ["_Inner__d", "_Model__d", "_Model__d", "_Model__helper", "__d"]
    assert functions == ["_Model__helper", "__init__", "get", "outside"]
    namespace = {}
    exec(compile(source, "<model>", "exec"), namespace)
    model = namespace["Model"]()
    assert "_Model__helper" in vars(namespace["Model"]) and vars(model) == {"_Model__d": 1}


BASE = '''
import numpy as np
from numba import cuda

from .kernels import step


class Market:
    def __init__(self, n):
        self.__n = n
        self.__threads = 128
        self.__blocks = (n + 127) // 128
        self.__d_wealth = cuda.device_array(n, dtype=np.float32)
        self.__d_links = cuda.device_array(n, dtype=np.int32)
'''

KERNELS = '''
from numba import cuda


@cuda.jit
def step(wealth, links, n, rate):
    i = cuda.grid(1)
    if i < n:
        wealth[i] += rate * wealth[links[i]]


@cuda.jit
def scale(wealth, factor, n):
    i = cuda.grid(1)
    if i < n:
        wealth[i] *= factor[0]
'''

SUBCLASS = '''
import numpy as np
from numba import cuda

from .base import Market
from .kernels import scale, step


class Taxed(Market):
    def __init__(self, n, rate=0.05):
        Market.__init__(self, n)
        self.__rate = rate
        self.__d_factor = cuda.to_device(np.ones(1, dtype=np.float32))

    def run(self):
        step[self._Market__blocks, self._Market__threads](
            self._Market__d_wealth, self._Market__d_links, self._Market__n, self.__rate)

    def shrink(self):
        scale[self._Market__blocks, self._Market__threads](self._Market__d_wealth, self.__d_factor, self._Market__n)


class Confused(Market):
    def run(self):
        # its own `__d_wealth` (`_Confused__d_wealth`) is never written: not the base's array
        step[1, 128](self.__d_wealth, self._Market__d_links, 4, 0.5)
'''


def market(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "market"\n')
    package = tmp_path / "market"
    package.mkdir()
    (package / "__init__.py").write_text("")
    for name, text in (("base.py", BASE), ("kernels.py", KERNELS), ("models.py", SUBCLASS)):
        (package / name).write_text(textwrap.dedent(text).lstrip())
    return package


def line_of(package, text):
    lines = (package / "models.py").read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if text in line)


def test_a_subclass_launches_on_its_base_s_private_attributes_with_their_types(tmp_path):
    package = market(tmp_path)
    facts = file_host_facts(Project(), str(package / "models.py"))
    launched = {(launch.kernel.qualname, launch.place.line, launch.signature)
                for launch in facts.launches + facts.passed_launches}
    assert launched == {
        ("step", line_of(package, "step[self._Market"), "void(float32[::1], int32[::1], int64, float64)"),
        ("scale", line_of(package, "scale[self._Market"), "void(float32[::1], float32[::1], int64)"),
        ("step", line_of(package, "step[1, 128]"), None),  # `self.__d_wealth` of Confused is not Market's
    }


def test_the_kernels_are_checked_with_the_launch_s_types(tmp_path):
    package = market(tmp_path)
    found = gather(Project(), [str(package / "kernels.py")], {})[str(package / "kernels.py")]
    models = str(package / "models.py")
    launched = {kernel: [(signature, source) for signature, source in entries if source.startswith("launch-site")]
                for kernel, entries in found.items()}
    assert launched == {
        "step": [("void(float32[::1], int32[::1], int64, float64)",
                  f"launch-site@{models}:{line_of(package, 'step[self._Market')}")],
        "scale": [("void(float32[::1], float32[::1], int64)",
                   f"launch-site@{models}:{line_of(package, 'scale[self._Market')}")]}


SIMULATION = '''
import numpy as np
from numba import cuda


@cuda.jit
def relax(field):
    i = cuda.grid(1)
    if i < field.size:
        field[i] *= 0.5


class Simulation:
    def __init__(self, n):
        self.__host = np.zeros(n, dtype=np.float32)

    def run(self, steps):
        for _ in range(steps):
            self.__field = cuda.to_device(self.__host)
            relax[64, 64](self.__field)
            self.__host = self.__field.copy_to_host()


class Logged(Simulation):
    def report(self, steps):
        for _ in range(steps):
            relax[64, 64](self._Simulation__field)
            self._Simulation__field.copy_to_host()


Simulation(4096).run(100)
Logged(4096).report(100)
'''


def test_messages_name_private_attributes_as_the_code_writes_them(tmp_path):
    """A finding quotes the code: `self.__field` where the class writes it so, and the mangled
    name only where the code itself spells it out (a subclass reading its base's attribute)."""
    from kernlint.engine import host_findings

    path = tmp_path / "simulation.py"
    path.write_text(SIMULATION)
    project = Project()
    project.settings.preview = True
    messages = {f.line: f.message for f in host_findings(project, str(path)) if f.code == "KL503"}
    line = SIMULATION.splitlines().index
    inside = line("            self.__host = self.__field.copy_to_host()") + 1
    spelled = line("            self._Simulation__field.copy_to_host()") + 1
    assert set(messages) == {inside, spelled}, messages
    assert "`self.__field.copy_to_host()`" in messages[inside]
    assert "`self._Simulation__field.copy_to_host()`" in messages[spelled]
