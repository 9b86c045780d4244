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
