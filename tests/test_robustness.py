"""Bad input never crashes kernlint: each gives a KL9xx diagnostic with a location and a
one-line reason, and the run goes on with everything else."""
import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT
from kernlint.fsutil import write_atomic

GOOD = '''
from numba import cuda


@cuda.jit("void(int64[::1], float64[::1])")
def good(y, x):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = int(x[i])
'''

BAD_INPUTS = {
    # file name -> (contents, expected code, expected line, words in the reason)
    "syntax.py": ("from numba import cuda\ndef broken(:\n    pass\n", "KL901", 2, "syntax error"),
    "missing.py": ('from numba import cuda\nimport kernlint_missing_module as m\n\n\n@cuda.jit("void(float64[::1])")\n'
                   'def k(x):\n    x[0] = m.table(x[0])\n', "KL902", 7, "kernlint_missing_module"),
    "latin1.py": (b"from numba import cuda\nname = 'caf\xe9'\n", "KL901", 2, "UTF-8"),
    "junk.py": (bytes(range(256)) * 4 + b"cuda", "KL901", 1, "cannot read"),
    "untyped.py": ('from numba import cuda\n\n\n@cuda.jit("void(float64[::1])")\ndef k(x):\n'
                   '    x[0] = undefined_name\n', "KL902", 6, "undefined_name"),
    "badsig.py": ('from numba import cuda\n\n\n@cuda.jit("void(float64[::1)")\ndef k(x):\n    x[0] = 1\n',
                  "KL902", 5, "signature"),
    "malformed.ll": ("define void @k() {\nentry:\n  ret i32 0\n}\n", "KL904", 3, "value doesn't match"),
    "truncated.ll": ("define void @k() {\nentry:\n  br label %", "KL904", 3, ""),
    "junk.bc": (b"BC\xc0\xde" + bytes(range(200)), "KL904", 1, "bitcode does not parse"),
    "empty.ll": ("", "KL904", 1, "empty file"),
}


def kernlint(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "kernlint", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=900, env={**os.environ, "PYTHONPATH": str(ROOT)})


@pytest.fixture(scope="module")
def bad_run(tmp_path_factory):
    directory = tmp_path_factory.mktemp("bad")
    for name, (contents, *_) in BAD_INPUTS.items():
        path = directory / name
        path.write_bytes(contents) if isinstance(contents, bytes) else path.write_text(contents)
    (directory / "empty.py").write_text("")
    (directory / "good.py").write_text(GOOD)
    run = kernlint("check", "--no-cache", "--output-format", "json", str(directory))
    return directory, run


def test_bad_inputs_are_diagnostics_not_crashes(bad_run):
    directory, run = bad_run
    assert run.returncode == 1, run.stderr  # findings, not a kernlint failure
    assert "Traceback" not in run.stderr
    found = {os.path.basename(d["path"]): d for d in json.loads(run.stdout)}
    for name, (_, code, line, words) in BAD_INPUTS.items():
        finding = found.get(name)
        assert finding is not None, f"{name}: no diagnostic"
        assert (finding["code"], finding["line"]) == (code, line), (name, finding)
        assert words in finding["message"], (name, finding["message"])
        assert "\n" not in finding["message"]
    assert "empty.py" not in found and "good.py" not in found


# With --import-modules the file's top level runs: what it does at import is reported.
IMPORT_FAILURES = {
    "missing.py": ("from numba import cuda\nimport kernlint_missing_module\n", 2, "ModuleNotFoundError"),
    "raises.py": ("from numba import cuda\n\n\nraise RuntimeError('boom at import')\n", 4, "boom at import"),
}


def test_import_failures_are_diagnostics_with_import_modules_and_nothing_without(tmp_path):
    for name, (contents, *_) in IMPORT_FAILURES.items():
        (tmp_path / name).write_text(contents)
    (tmp_path / "good.py").write_text(GOOD)
    imported = kernlint("check", "--no-cache", "--import-modules", "--output-format", "json", str(tmp_path))
    assert imported.returncode == 1, imported.stderr
    found = {os.path.basename(d["path"]): d for d in json.loads(imported.stdout)}
    for name, (_, line, words) in IMPORT_FAILURES.items():
        assert (found[name]["code"], found[name]["line"]) == ("KL901", line) and words in found[name]["message"]
    read = kernlint("check", "--no-cache", "--output-format", "json", str(tmp_path))
    assert read.returncode == 0 and json.loads(read.stdout) == [], read.stdout  # nothing of theirs ran


def test_the_run_goes_on_with_the_good_file(bad_run):
    directory, _ = bad_run
    run = kernlint("check", "--no-cache", "--statistics", str(directory / "good.py"), str(directory / "junk.bc"))
    assert "good.py::good" in run.stdout


def test_a_directory_of_thousands_of_files(tmp_path):
    for number in range(3000):
        (tmp_path / f"module_{number}.py").write_text(f"VALUE = {number}\n")
    (tmp_path / "kernels.py").write_text(GOOD)
    run = kernlint("check", "--no-cache", str(tmp_path))
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip() == "All checks passed (1 kernel in 1 file)."


def test_a_ten_thousand_line_kernel_file(tmp_path):
    lines = ["from numba import cuda", ""]
    kernel = 0
    while len(lines) < 10_000:
        lines += ["", '@cuda.jit("void(int64[::1], float64[::1])")', f"def k{kernel}(y, x):",
                  "    i = cuda.grid(1)", "    if i < x.size:", "        v = x[i]"]
        lines += [f"        v = v * 1.0001 + {n}.0" for n in range(90)]
        lines += ["        if v != v:", f'            print("NaN in k{kernel}")', "            return",
                  "        y[i] = int(v)"]
        kernel += 1
    (tmp_path / "big.py").write_text("\n".join(lines) + "\n")
    run = kernlint("check", "--no-cache", "--output-format", "json", str(tmp_path / "big.py"))
    codes = [d["code"] for d in json.loads(run.stdout)]
    assert len(lines) >= 10_000
    assert codes.count("KL101") == kernel and codes.count("KL301") == kernel


def test_recursive_device_functions(tmp_path):
    (tmp_path / "recursive.py").write_text(textwrap.dedent('''
        from numba import cuda


        @cuda.jit("int64(int64)", device=True)
        def fact(n):
            if n <= 1:
                return 1
            return n * fact(n - 1)


        @cuda.jit("void(int64[::1])")
        def uses_fact(y):
            y[0] = fact(y[0])
    '''))
    run = kernlint("check", "--no-cache", "--output-format", "json", str(tmp_path / "recursive.py"))
    assert run.returncode in (0, 1) and "Traceback" not in run.stderr
    for finding in json.loads(run.stdout):  # if numba cannot compile it, that is a diagnostic
        assert finding["code"] == "KL902" and finding["line"] in (6, 13)


def test_internal_errors_show_no_traceback_unless_debug(tmp_path, monkeypatch):
    (tmp_path / "kernels.py").write_text(GOOD)
    script = ("import kernlint.engine as e, sys\n"
              "def boom(*a, **k): raise RuntimeError('planted')\n"
              "e.check_paths = boom\n"
              "from kernlint.cli import main\n"
              "sys.exit(main(sys.argv[1:]))\n")
    for extra, traceback in (([], False), (["--debug"], True)):
        run = subprocess.run([sys.executable, "-c", script, "check", *extra, str(tmp_path)], capture_output=True,
                             text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert run.returncode == 2
        assert "planted" in run.stderr
        assert ("Traceback" in run.stderr) is traceback


def test_kill_during_a_write_leaves_the_previous_file_intact(tmp_path):
    target = tmp_path / "kernel.ll"
    write_atomic(str(target), "previous contents\n")
    # a writer killed after writing its data, before the rename: the worst moment
    script = textwrap.dedent(f'''
        import os, signal
        import kernlint.fsutil as fsutil
        real_fsync = os.fsync
        def die(fd):
            real_fsync(fd)
            os.kill(os.getpid(), signal.SIGKILL)
        fsutil.os.fsync = die
        fsutil.write_atomic({str(target)!r}, "new contents" * 100000)
    ''')
    run = subprocess.run([sys.executable, "-c", script], env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == -signal.SIGKILL
    assert target.read_text() == "previous contents\n"
    write_atomic(str(target), "next contents\n")
    assert target.read_text() == "next contents\n"


def test_a_file_of_many_kernels_is_shared_among_workers_with_the_same_findings(tmp_path):
    """A file with more kernels than one worker should take is split among the workers
    (each compiles every n-th kernel); what it reports is what one worker reports."""
    lines = ["from numba import cuda", "import missing_library", ""]
    for k in range(34):
        lines += ["", '@cuda.jit("void(int64[::1], float64[::1])")' if k % 3 else "@cuda.jit", f"def k{k}(y, x):",
                  "    i = cuda.grid(1)", "    if i < x.size:",
                  "        v = missing_library.scale(x[i])" if k == 7 else "        v = x[i]",
                  "        if v != v:", f'            print("NaN in k{k}")', "            return",
                  "        y[i] = int(v)"]
    (tmp_path / "many.py").write_text("\n".join(lines) + "\n")
    one = kernlint("check", "--no-cache", "--jobs", "1", "--output-format", "json", "many.py", cwd=tmp_path)
    two = kernlint("check", "--no-cache", "--jobs", "2", "--output-format", "json", "many.py", cwd=tmp_path)
    assert one.returncode == two.returncode == 1
    assert json.loads(one.stdout) == json.loads(two.stdout)
    codes = [d["code"] for d in json.loads(two.stdout)]
    assert codes.count("KL902") == 1 and codes.count("KL101") == 33  # k7 reads a library it cannot import
