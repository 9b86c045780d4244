"""Constants read through a project class or one of its objects, never running the class:
each attribute is the value of the one statement that sets it, read alone."""
import json
import os
import subprocess
import sys
import textwrap

from conftest import ROOT

CLASSES = '''
    from dataclasses import dataclass, field

    import numpy as np
    from numba import cuda


    class Physics:
        g = np.float32(9.8)
        nu = np.float(0.1)  # fails on NumPy 2: never read
        trace = g > 1


    class Run:
        def __init__(self, dt, verbose=False):
            self.dt = np.float32(dt)
            self.verbose = verbose


    @dataclass
    class Grid:
        nx: int
        debug: bool = True
        sizes: list = field(default_factory=list)


    quiet, loud = Run(0.1), Run(0.1, verbose=True)
'''


def check(tmp_path, body):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "classes"\n')
    (tmp_path / "sim.py").write_text(textwrap.dedent(CLASSES) + textwrap.dedent(body))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--output-format", "json", "sim.py"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    return [(f["code"], f["kernel"], f["message"]) for f in json.loads(run.stdout)]


def test_each_attribute_is_the_value_its_one_assignment_gives(tmp_path):
    """numba drops a branch on a False global: a print is reported exactly where the class
    body, ``__init__`` with the call's arguments and defaults, or the dataclass's call and
    defaults make the test true."""
    found = check(tmp_path, '''

        TRACE = Physics.trace
        QUIET, LOUD = quiet.verbose, loud.verbose
        DEBUG, NODEBUG = Grid(64).debug, Grid(64, False).debug
        g = np.float32(Physics.g)


        @cuda.jit("void(float32[::1])")
        def silent(u):
            u[0] = u[0] * g * quiet.dt
            if QUIET or NODEBUG:
                print(0)


        @cuda.jit("void(float32[::1])")
        def traced(u):
            if TRACE and LOUD and DEBUG:
                print(0)
        ''')
    assert [(code, kernel) for code, kernel, _ in found] == [("KL301", "traced")]


def test_an_attribute_changed_or_set_twice_is_not_read(tmp_path):
    found = check(tmp_path, '''

        class Twice:
            def __init__(self):
                self.n = 1

            def grow(self):
                self.n = 2


        twice = Twice()


        class Options:
            level = 1

            def __init__(self, **given):
                for key, value in given.items():
                    setattr(self, key, value)


        options = Options(level=3)
        quiet.dt = 0.5
        SIZES = Grid(3).sizes


        @cuda.jit("void(float32[::1])")
        def changed(u):
            u[0] = quiet.dt


        @cuda.jit("void(float32[::1])")
        def set_twice(u):
            u[0] = twice.n


        @cuda.jit("void(float32[::1])")
        def made_by_a_call(u):
            u[0] = len(SIZES)


        @cuda.jit("void(float32[::1])")
        def set_by_name(u):
            u[0] = options.level


        @cuda.jit("void(float32[::1])")
        def made_in_the_kernel(u):
            u[0] = Grid(3).nx
        ''')
    assert [(code, kernel) for code, kernel, _ in found] == [
        ("KL902", "changed"), ("KL902", "set_twice"), ("KL902", "made_by_a_call"), ("KL902", "set_by_name"),
        ("KL902", "made_in_the_kernel")]
    messages = [message for _, _, message in found]
    assert "`Run(...).dt` may be changed at line" in messages[0]
    assert "`Twice(...).n` is set more than once, conditionally or by a method other than `__init__`" in messages[1]
    assert "from `Grid.sizes`, which is a dataclass field made by a call" in messages[2]
    assert "`Options(...).level` may be set by name in `Options`" in messages[3]
    assert "`Grid` is a class, or an object of one, that the kernel uses whole" in messages[4]
