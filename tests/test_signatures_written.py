"""Signatures written in the code, in every spelling numba takes, are checked as written
(source ``eager``), never guessed from the body or overridden by a launch."""
import json
import os
import re
import subprocess
import sys
import textwrap

from conftest import FIXTURES, ROOT

WRITTEN = FIXTURES / "written_signatures.py"


def _kernlint(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})


def _rows(table: str):
    """(kernel, signature, source) of each row of --show-signatures."""
    rows = [re.split(r"\s{2,}", line.strip()) for line in table.splitlines() if "::" in line]
    return [(row[0].split("::")[1], row[1], row[2]) for row in rows]


def test_show_signatures_says_every_written_spelling_is_eager():
    run = _kernlint("--show-signatures", str(WRITTEN))
    rows = _rows(run.stdout)
    assert {source for _, _, source in rows} == {"eager"}
    assert ("a_list_bound_to_a_name", "void(float32[:])", "eager") in rows  # a list of a Signature
    assert ("a_list_bound_to_a_name", "void(float64[:])", "eager") in rows  # and a string
    assert ("argument_types_only", "void(float32[:], int16)", "eager") in rows  # a tuple: its argument types
    # a string is shown as numba reads it: f4 is float32, i4 int32
    assert ("a_string_bound_to_a_name", "void(float32[:, :], int32)", "eager") in rows
    assert ("types_through_the_package", "void(float32[:, ::1], int16[::1])", "eager") in rows
    assert ("scaled", "float32(float32, int16)", "eager") in rows  # device=True with a signature
    assert "inferred" not in run.stderr  # no note about kernels typed from their bodies


def test_the_spellings_numba_cuda_refuses_are_refused_with_its_reason():
    found = json.loads(_kernlint("--output-format", "json", str(WRITTEN)).stdout)
    by_kernel = {f["kernel"]: f["message"] for f in found}
    assert set(by_kernel) == {"a_tuple_of_signatures", "the_old_keyword"}
    assert "is a tuple of signatures, which numba-cuda refuses" in by_kernel["a_tuple_of_signatures"]
    assert "write the signatures in a list" in by_kernel["a_tuple_of_signatures"]
    assert "Deprecated keyword argument `argtypes`" in by_kernel["the_old_keyword"]


def test_a_written_signature_is_the_one_checked_whatever_the_file_launches(tmp_path):
    """numba-cuda compiles only the signatures written (a launch with other types fails at run
    time): a launch site in the file types nothing, and a finding says where its types came from."""
    (tmp_path / "kernels.py").write_text(textwrap.dedent("""\
        import numpy as np
        from numba import cuda, void
        from numba import float32 as f4
        from numba.cuda import jit

        SIG = void(f4[::1], f4)


        @jit(SIG)
        def clamp(x, top):
            i = cuda.grid(1)
            if x[i] > top:
                print("clamped", i)
                x[i] = top


        data = cuda.to_device(np.zeros(1024, dtype=np.float64))
        clamp[4, 256](data, 2.0)
    """))
    run = _kernlint("--output-format", "json", "--show-signatures", "kernels.py", cwd=tmp_path)
    found = json.loads(run.stdout)
    assert [(f["code"], f["signature"], f["signature_source"]) for f in found] == [
        ("KL301", "void(float32[::1], float32)", "eager")]
    assert _rows(run.stderr) == [("clamp", "void(float32[::1], float32)", "eager")]


def test_kernels_a_method_compiles_into_a_dict_are_found_with_their_built_signatures(tmp_path):
    """``cuda.jit("void(" + self.dtype_name + "[:], ...)")(axpy)`` in a method, as dict values, a
    list item or an attribute, of plain module functions: each call is a kernel checked with the
    signature the string spells once its pieces are read (an ``__init__`` constant, a module
    constant, an f-string of them)."""
    (tmp_path / "solver.py").write_text(textwrap.dedent("""\
        from numba import cuda

        INDEX = "int32"


        def axpy(x, y):
            i = cuda.grid(1)
            if i < x.size:
                y[i] = y[i] + 2 * x[i]


        def scale(idx, y):
            i = cuda.grid(1)
            if i < y.size:
                print("scaling", i)
                y[i] = idx[i] * 3


        class Solver:
            WIDE = "float64"

            def __init__(self):
                self.dtype_name = "float32"
                self.kernels = {
                    "axpy": cuda.jit("void(" + self.dtype_name + "[:], " + self.dtype_name + "[:])")(axpy),
                    "axpy_wide": cuda.jit("void(" + self.WIDE + "[:], " + Solver.WIDE + "[:])", fastmath=True)(axpy),
                }
                self.steps = [cuda.jit(f"void({INDEX}[:], {self.dtype_name}[:])")(scale)]
                self.fill = cuda.jit("void(" + INDEX + "[::1], float32[::1])")(scale)
    """))
    run = _kernlint("--output-format", "json", "--show-signatures", "solver.py", cwd=tmp_path)
    assert sorted(_rows(run.stderr)) == [
        ("axpy", "void(float32[:], float32[:])", "eager"),
        ("axpy", "void(float64[:], float64[:])", "eager"),
        ("scale", "void(int32[::1], float32[::1])", "eager"),
        ("scale", "void(int32[:], float32[:])", "eager")]
    found = json.loads(run.stdout)
    # one finding for the print both compilations of `scale` hold
    assert [(f["code"], f["line"], f["kernel"], f["signature_source"]) for f in found] == [
        ("KL301", 15, "scale", "eager")]
    assert found[0]["signature"] in ("void(int32[::1], float32[::1])", "void(int32[:], float32[:])")


def test_a_signature_piece_only_the_run_decides_is_named_not_guessed(tmp_path):
    """``self.dtype_name = precision`` from the caller: the kernel is not compiled with a guess,
    and the finding names the piece; a sibling written whole is still checked as written."""
    (tmp_path / "solver.py").write_text(textwrap.dedent("""\
        from numba import cuda


        def axpy(x, y):
            i = cuda.grid(1)
            if i < x.size:
                y[i] = y[i] + 2 * x[i]


        class Solver:
            def __init__(self, precision):
                self.dtype_name = precision
                self.kernels = {"axpy": cuda.jit("void(" + self.dtype_name + "[:], float32[:])")(axpy),
                                "axpy64": cuda.jit("void(float64[:], float64[:])")(axpy)}
    """))
    run = _kernlint("--output-format", "json", "--show-signatures", "solver.py", cwd=tmp_path)
    assert _rows(run.stderr) == [("axpy", "void(float64[:], float64[:])", "eager")]
    found = json.loads(run.stdout)
    assert [f["code"] for f in found] == ["KL902"]
    assert "`precision` is a parameter of `Solver.__init__`" in found[0]["message"]


def test_a_constructor_parameter_is_each_literal_the_project_builds_with_else_a_named_stand_in():
    """``cuda.jit("void(" + self.VarType + "[:], int64)")(f)`` in ``__init__``, ``self.VarType``
    a parameter with a default: built with literals (or nothing) everywhere, each value spells a
    written signature (eager); built from ``sys.argv``, the default only stands in, and the
    signature and the finding say so."""
    run = _kernlint("--output-format", "json", "--preview", "--show-signatures", "fixtures/constructed")
    rows = _rows(run.stderr)
    assert sorted(r for r in rows if r[0] != "probe_sum") == [
        ("clamp_field", "void(float32[:], int64)", "eager"), ("clamp_field", "void(float64[:], int64)", "eager"),
        ("scale_field", "void(float32[:], int64)", "eager"), ("scale_field", "void(float64[:], int64)", "eager")]
    probe = [r for r in rows if r[0] == "probe_sum"]
    assert ("probe_sum", "void(float32[:], float32[:])", "stand-in") in probe
    named = next(source for _, signature, source in probe if signature == "dtype_name")
    assert named.startswith("stand-in: the default `'float32'` of `ProbeSet.__init__`'s `dtype_name`")
    assert "passes `sys.argv[1]`" in named
    found = {f["path"].rpartition("/")[2]: f for f in json.loads(run.stdout)}
    assert found["fields.py"]["signature_source"] == "eager" and found["fields.py"]["standins"] == []
    assert found["probes.py"]["signature_source"] == "stand-in"
    assert [s.partition(" (")[0] for s in found["probes.py"]["standins"]] == ["dtype_name"]


def test_a_class_handed_on_or_never_built_gives_its_default_as_a_stand_in(tmp_path):
    """Only constructions the reader sees make a value certain: a class passed to a factory, or
    built nowhere, may be built with anything."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'kinds'\n")
    (tmp_path / "kinds.py").write_text(textwrap.dedent("""\
        from numba import cuda


        def fill(out, value):
            i = cuda.grid(1)
            if i < out.size:
                out[i] = value


        class Filler:
            def __init__(self, var_type="float32"):
                self.var_type = var_type
                self.fill = cuda.jit("void(" + self.var_type + "[:], float64)")(fill)


        class Lone:
            def __init__(self, var_type="int32"):
                self.fill = cuda.jit("void(" + var_type + "[:], float64)")(fill)
                self.var_type = var_type
                self.again = cuda.jit("void(" + self.var_type + "[::1], float64)")(fill)


        def build(kind, *args):
            return kind(*args)


        filler = build(Filler, "float64")
        plain = Filler()
    """))
    run = _kernlint("--show-signatures", "kinds.py", cwd=tmp_path)
    rows = _rows(run.stdout)
    assert ("fill", "void(float32[:], float64)", "stand-in") in rows
    assert any(sig == "var_type" and "`Filler` is used as a value at kinds.py:27" in source
               for _, sig, source in rows)
    assert ("fill", "void(int32[::1], float64)", "stand-in") in rows
    # the parameter read as itself: the variant it makes is made with the stand-in too
    assert ("fill[var_type='int32']", "void(int32[:], float64)", "stand-in") in rows
    assert any(sig == "var_type" and "no construction of `Lone` is in the project" in source for _, sig, source in rows)
