"""The benchmarks' own logic: the static-resources benchmark in its quick mode (CI has no GPU;
the GPU part is recorded), the real-world counts, the identical-output comparison."""
import json
import subprocess
import sys

from conftest import ROOT


def test_static_resources_quick(tmp_path):
    result = tmp_path / "static.json"
    run = subprocess.run([sys.executable, "benchmarks/static_resources.py", str(result), "--quick"], cwd=ROOT,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr
    rows = json.loads(result.read_text())
    nvptx = [r for r in rows if r["target"] == "sm_90"]
    assert {r["kernel"] for r in nvptx} == {"print_guard_f64", "raise_guard_f64", "exact_guard_f64", "grid_stride_f64"}
    for row in nvptx:
        if row["original"] is None:  # no ptxas on this machine
            continue
        assert row["rewritten"] == row["handwritten"], row
    print_guard = next(r for r in nvptx if r["kernel"] == "print_guard_f64")
    if print_guard["original"]:
        assert print_guard["original"]["stack_bytes"] > 0 == print_guard["rewritten"]["stack_bytes"]
    for row in (r for r in rows if r["target"] == "gfx90a"):
        assert row["original"]["scratch_bytes"] > 0 == row["rewritten"]["scratch_bytes"]


def test_realworld_counts_a_kernel_launched_by_host_code_only(tmp_path):
    """A launch written inside a kernel's own body (an indentation slip) is no launch site:
    numba.cuda launches no kernel from the GPU; one in host code is, in any file that does not
    define a kernel of that name itself."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import realworld
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    (tmp_path / "kernels.py").write_text(
        "from numba import cuda\n\n\n"
        "@cuda.jit\ndef doubled(a):\n    a[0] *= 2\n    doubled[1, 1](a)\n\n\n"
        "@cuda.jit\ndef halved(a):\n    a[0] /= 2\n")
    (tmp_path / "run.py").write_text("import numpy as np\nfrom kernels import halved\n\nhalved[1, 1](np.ones(4))\n")
    # a script that defines and launches its own `doubled` launches that one, not the other
    (tmp_path / "script.py").write_text(
        "import numpy as np\nfrom numba import cuda\n\n\n"
        "@cuda.jit\ndef doubled(a):\n    a[0] *= 2\n\n\ndoubled[1, 1](np.ones(4))\n")
    found, launched = realworld.kernels_present(str(tmp_path))
    kernels, script = str(tmp_path / "kernels.py"), str(tmp_path / "script.py")
    assert found == {kernels: [("doubled", 5), ("halved", 11)], script: [("doubled", 6)]}
    assert launched == {(kernels, 11), (script, 6)}


def _recording(folder, root, target_dir, outputs):
    """A recording as ``identical_output.py record`` leaves it: outputs and the manifest."""
    (folder / "t").mkdir(parents=True)
    for name, data in outputs.items():
        (folder / "t" / name).write_bytes(data)
    entry = {"commit": "c", "kernlint_changed_since_commit": False, "root": str(root), "prefix": str(root / ".venv"),
             "timeout": 60.0, "cwd": str(target_dir), "paths": ["."], "outputs": dict.fromkeys(outputs, "-"),
             "seconds": {"text": 1.0, "json": 1.0}}
    (folder / "manifest.json").write_text(json.dumps({"targets": {"t": entry}}))


def test_identical_output_compares_what_kernlint_says_not_where_it_ran(tmp_path):
    """Two recordings made in different checkouts compare alike where only the places and the
    addresses numba quotes differ; any other byte is a difference."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import identical_output
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))

    def output(root, address, line=12):
        return (f'[{{"code": "KL903", "path": "{root}/proj/k.py", "line": {line}, "message": '
                f'"tried: <function ones at {address}>"}}]\n').encode()

    one, two = tmp_path / "a" / "checkout", tmp_path / "elsewhere"
    _recording(tmp_path / "before", one, one / "proj", {"json.stdout": output(one, "0x7f5d5b4399e0")})
    _recording(tmp_path / "after", two, two / "proj", {"json.stdout": output(two, "0x7f7b201dd8a0")})
    _recording(tmp_path / "changed", two, two / "proj", {"json.stdout": output(two, "0x7f7b201dd8a0", line=13)})
    result = tmp_path / "result.json"
    assert identical_output.compare(str(tmp_path / "before"), str(tmp_path / "after"), str(result)) == 0
    assert json.loads(result.read_text())["targets"]["t"]["identical"]
    assert identical_output.compare(str(tmp_path / "before"), str(tmp_path / "changed"), str(result)) == 1
    assert json.loads(result.read_text())["targets"]["t"]["differing"] == ["json.stdout"]
