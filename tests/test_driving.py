"""Which files drive kernels through their objects (``python.host.driving``): a call that can
reach a launch in the project's code, call by call, makes a file that launches nothing itself
read as GPU code; calls of host-only classes, or of a factory that returns a launching closure
without calling it, do not. What one file's search finds is kept for the run: the answers do
not depend on which file is asked first."""
import textwrap

import pytest

from kernlint.engine import Options, check_paths, host_checked
from kernlint.python.host.driving import calls_reach_launch
from kernlint.python.project import Project

FILES = {
    "pyproject.toml": "",
    "pkg/__init__.py": "",
    "pkg/kernels.py": """
        from numba import cuda


        @cuda.jit
        def scale(x, a):
            i = cuda.grid(1)
            if i < x.size:
                x[i] *= a
        """,
    "pkg/layers.py": """
        from .kernels import scale


        class Dense:
            def __init__(self, n):
                self.n = n

            def forward(self, x):
                scale[1, 32](x, 2.0)
                return x


        class Logger:
            def __init__(self):
                self.lines = []

            def log(self, value):
                self.lines.append(str(value))


        def make_step():
            def step(x):
                scale[1, 32](x, 2.0)
            return step
        """,
    "pkg/tools.py": """
        def run(net, x):
            return net.forward(x)
        """,
    "train.py": """
        import numpy as np
        from pkg.layers import Dense, Logger

        net = Dense(4)
        logger = Logger()
        x = np.zeros(4)
        for epoch in range(100):
            net.forward(x)
            logger.log(epoch)
        """,
    "loop.py": """
        import numpy as np
        from pkg.layers import Dense
        from pkg.tools import run

        net = Dense(4)
        x = np.zeros(4)
        for epoch in range(100):
            run(net, x)
        """,
    "report.py": """
        from pkg.layers import Logger, make_step

        logger = Logger()
        for epoch in range(10):
            logger.log(epoch)
        step = make_step()
        """,
}


@pytest.fixture
def project_dir(tmp_path):
    for name, text in FILES.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return tmp_path


@pytest.mark.parametrize("order", [("train.py", "loop.py", "report.py"), ("report.py", "loop.py", "train.py"),
                                   ("loop.py", "report.py", "train.py")])
def test_a_file_drives_kernels_where_its_calls_reach_a_launch_whatever_is_asked_first(project_dir, order):
    project = Project()
    answers = {name: calls_reach_launch(project, project.module(str(project_dir / name))) for name in order}
    # train.py calls a launching method; loop.py a helper that calls it; report.py only a
    # host-only class and a factory whose launching closure it never calls
    assert answers == {"train.py": True, "loop.py": True, "report.py": False}


def test_only_files_whose_calls_reach_a_launch_are_read_for_their_objects(project_dir):
    files = sorted(str(p) for p in project_dir.rglob("*.py"))
    checked = {p[len(str(project_dir)) + 1:] for p in host_checked(files, Project())}
    assert {"train.py", "loop.py"} <= checked
    assert "report.py" not in checked


def test_what_a_driving_script_launches_through_its_objects_is_reported_at_its_call(project_dir):
    report = check_paths([str(project_dir)], Options(select=["KL5"], preview=True))
    found = {(f.path[len(str(project_dir)) + 1:], f.line, f.code) for f in report.findings}
    assert ("train.py", 9, "KL502") in found  # `net.forward(x)`: a NumPy array launched on each step
    assert not any(path == "report.py" for path, _, _ in found)


def test_compiling_a_function_for_the_gpu_is_not_calling_it(tmp_path):
    """``cuda.jit(sig)(f)`` makes a kernel of ``f``: its body is device code, neither read as the
    host's nor a way to a launch; a def the module also calls as a Python function stays host code."""
    from kernlint.python.host.functions import jitted_only, names_called

    files = {
        "pyproject.toml": "",
        "launcher.py": """
            from numba import cuda


            @cuda.jit
            def scale(x, a):
                i = cuda.grid(1)
                if i < x.size:
                    x[i] *= a


            def push(x):
                scale[1, 32](x, 2.0)
            """,
        "relax.py": """
            import numpy as np
            from numba import cuda

            from launcher import push


            def relax(u, w):
                i = cuda.grid(1)
                if i < u.size:
                    u[i] = u[i] * w + (1.0 - w) * u[i]


            def smooth(u):
                return u


            def staged(u):
                push(u)


            class Relaxer:
                def __init__(self, var_type="float32"):
                    self.kernels = {"relax": cuda.jit("void(" + var_type + "[:], float64)")(relax),
                                    "smooth": cuda.jit("void(" + var_type + "[:])")(smooth),
                                    "staged": cuda.jit("void(" + var_type + "[:])")(staged)}


            warm = smooth(np.zeros(4))
            """,
    }
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text))
    project = Project()
    module = project.module(str(tmp_path / "relax.py"))
    defs = {node.name: node for node in module.tree.body if hasattr(node, "args")}
    called = names_called(module.tree)
    assert jitted_only(module, defs["relax"], called) and jitted_only(module, defs["staged"], called)
    assert not jitted_only(module, defs["smooth"], called)  # also run on the host (`smooth(np.zeros(4))`)
    # `staged` calls a launcher, but only compiled: nothing in relax.py runs it
    assert calls_reach_launch(project, module) is False
