"""The benchmarks' own logic: the static-resources benchmark in its quick mode (CI has no GPU;
the GPU part is recorded), the real-world counts, the identical-output comparison."""
import importlib
import json
import subprocess
import sys

import pytest

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


def benchmark_module(name: str):
    """A script of benchmarks/ imported as a module (the folder is no package)."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        return importlib.import_module(name)
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))


def test_realworld_counts_a_kernel_launched_by_host_code_only(tmp_path):
    """A launch written inside a kernel's own body (an indentation slip) is no launch site:
    numba.cuda launches no kernel from the GPU; one in host code is, in any file that does not
    define a kernel of that name itself."""
    realworld = benchmark_module("realworld")
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


def test_realworld_a_true_pattern_is_reported_on_any_line_of_the_statement_it_names(tmp_path):
    """A label names a statement by its first line; a finding at the call inside it, lines
    further down, is that pattern. One on the next statement, or inside a loop whose header
    the label names, is not."""
    realworld = benchmark_module("realworld")
    (tmp_path / "run.py").write_text(
        "for g in range(10):\n"
        "    children, \\\n"
        "        best = reproduce(g,\n"
        "                         population)\n"
        "    population = children\n")
    ends = [realworld.statement_end(str(tmp_path), "run.py", line) for line in (1, 2, 5, 9)]
    assert ends == [1, 4, 5, 9]
    patterns = [{"code": "KL501", "path": "run.py", "line": 2, "end_line": 4},
                {"code": "KL501", "path": "run.py", "line": 1, "end_line": 1}]
    marked = realworld.mark_reported(patterns, {"run.py:3:KL501", "run.py:5:KL503"})
    assert [p["reported"] for p in marked] == [True, False]
    assert not realworld.mark_reported(patterns[:1], {"run.py:5:KL501"})[0]["reported"]


def test_realworld_counts_a_kernel_the_reader_follows_a_launch_to_under_another_name(tmp_path):
    """`self.kernel = scale` in a class, launched as `self.kernel[...]`; a kernel picked from a
    dict by a literal key: launched, by the facts the signatures are read from, though no launch
    names them. One never reached stays unlaunched."""
    realworld = benchmark_module("realworld")
    (tmp_path / "kernels.py").write_text(
        "from numba import cuda\n\n\n"
        "@cuda.jit\ndef scale(a):\n    a[0] *= 2\n\n\n"
        "@cuda.jit\ndef shift(a):\n    a[0] += 1\n\n\n"
        "@cuda.jit\ndef unused(a):\n    a[0] = 0\n")
    (tmp_path / "run.py").write_text(
        "import numpy as np\nfrom kernels import scale, shift\n\n"
        "TABLE = {\"shift\": shift}\n\n\n"
        "class Stepper:\n    def __init__(self):\n        self.kernel = scale\n\n"
        "    def step(self, a):\n        self.kernel[1, 1](a)\n        TABLE[\"shift\"][1, 1](a)\n")
    found, launched = realworld.kernels_present(str(tmp_path))
    kernels = str(tmp_path / "kernels.py")
    assert found == {kernels: [("scale", 5), ("shift", 10), ("unused", 15)]}
    assert launched == {(kernels, 5), (kernels, 10)}


STEP_SCRIPT = """\
import numpy as np
from numba import cuda


@cuda.jit
def advance(a):
    i = cuda.grid(1)
    if i < a.size:
        a[i] += 1.0


d_a = cuda.to_device(np.zeros(256))
for step in range(1000):
    advance[1, 256](d_a)
    if step % 100 == 0:
        snapshot = d_a.copy_to_host()
    total = d_a.copy_to_host().sum()
"""


def test_realworld_halves_precision_recall_and_shapes(tmp_path):
    """A held-out set runs only when asked; each rule gets its precision over the judged
    findings, its recall against the patterns read in the code, and its false findings by shape."""
    developed, held_out, fresh = tmp_path / "corpus", tmp_path / "heldout", tmp_path / "heldout2"
    third, fourth = tmp_path / "heldout3", tmp_path / "heldout4"
    for corpus, name in ((developed, "dev+steps"), (held_out, "new+steps"), (fresh, "fresh+steps"),
                         (third, "third+steps"), (fourth, "fourth+steps")):
        (corpus / name).mkdir(parents=True)
        (corpus / name / "run.py").write_text(STEP_SCRIPT)
    manifest = tmp_path / "corpus.toml"
    manifest.write_text('[project."dev+steps"]\nhalf = "developed"\n\n[project."new+steps"]\nhalf = "held-out"\n\n'
                        '[project."fresh+steps"]\nhalf = "held-out-2"\n\n[project."third+steps"]\nhalf = "held-out-3"\n\n'
                        '[project."fourth+steps"]\nhalf = "held-out-4"\n')
    verdicts = tmp_path / "verdicts.toml"
    verdicts.write_text(
        '["dev+steps"]\n'
        '"run.py:16:KL503" = "false [periodic]: a snapshot every 100 steps"\n'
        '"run.py:17:KL503" = "true: a blocking copy on every step"\n\n'
        '[["expected"."dev+steps"]]\ncode = "KL503"\npath = "run.py"\nline = 17\nreason = "a copy every step"\n\n'
        '[["expected"."dev+steps"]]\ncode = "KL501"\npath = "run.py"\nline = 14\nreason = "stands for one not reported"\n')

    def run(*extra):
        out = tmp_path / "out.json"
        done = subprocess.run([sys.executable, "benchmarks/realworld.py", str(developed), str(held_out), str(fresh),
                               str(third), str(fourth), str(out), "--select", "KL5", "--jobs", "1", "--manifest", str(manifest),
                               "--verdicts", str(verdicts), *extra],
                              cwd=ROOT, capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stdout, json.loads(out.read_text())

    stdout, result = run()
    assert "not run (not in the developed half): new+steps" in stdout
    assert [row["project"] for row in result["projects"]] == ["dev+steps"]
    (row,) = result["projects"]
    assert row["half"] == "developed"
    assert {e["line"]: e["reported"] for e in row["expected"]} == {17: True, 14: False}
    kl503 = result["summary"]["developed"]["rules"]["KL503"]
    assert kl503["expected"] == kl503["expected_reported"] == 1 and kl503["recall"] == 1.0
    periodic_reported = any(f["key"] == "run.py:16:KL503" for f in row["findings"])
    assert kl503["false_by_shape"] == ({"periodic": 1} if periodic_reported else {})
    assert kl503["precision"] == (0.5 if periodic_reported else 1.0)
    assert result["summary"]["developed"]["rules"]["KL501"]["recall"] == 0.0

    _, result = run("--half", "held-out")
    assert [(row["project"], row["half"]) for row in result["projects"]] == [("new+steps", "held-out")]
    # no verdicts there: every finding is unjudged, so no precision, and no pattern was listed
    assert all(f["verdict"] == "unjudged" for f in result["projects"][0]["findings"])
    assert all(p["precision"] is None and p["recall"] is None
               for p in result["summary"]["held-out"]["rules"].values())

    # the second held-out set is its own half: neither `held-out` nor `developed` runs it
    stdout, result = run("--half", "held-out-2")
    assert "not run (not in the held-out-2 half): dev+steps, new+steps, third+steps, fourth+steps" in stdout
    assert [(row["project"], row["half"]) for row in result["projects"]] == [("fresh+steps", "held-out-2")]
    assert list(result["summary"]) == ["held-out-2", "all"]

    # and so is the third: only `--half held-out-3` runs it
    stdout, result = run("--half", "held-out-3")
    assert "not run (not in the held-out-3 half): dev+steps, new+steps, fresh+steps, fourth+steps" in stdout
    assert [(row["project"], row["half"]) for row in result["projects"]] == [("third+steps", "held-out-3")]
    assert list(result["summary"]) == ["held-out-3", "all"]

    # and the fourth, the fresh one
    stdout, result = run("--half", "held-out-4")
    assert "not run (not in the held-out-4 half): dev+steps, new+steps, fresh+steps, third+steps" in stdout
    assert [(row["project"], row["half"]) for row in result["projects"]] == [("fourth+steps", "held-out-4")]


def _recording(folder, root, target_dir, outputs, check_options=()):
    """A recording as ``identical_output.py record`` leaves it: outputs and the manifest."""
    (folder / "t").mkdir(parents=True)
    for name, data in outputs.items():
        (folder / "t" / name).write_bytes(data)
    entry = {"commit": "c", "kernlint_changed_since_commit": False, "root": str(root), "prefix": str(root / ".venv"),
             "timeout": 60.0, "cwd": str(target_dir), "paths": ["."], "outputs": dict.fromkeys(outputs, "-"),
             "seconds": {"text": 1.0, "json": 1.0}, "check_options": list(check_options)}
    (folder / "manifest.json").write_text(json.dumps({"targets": {"t": entry}}))


def test_identical_output_compares_what_kernlint_says_not_where_it_ran(tmp_path):
    """Two recordings made in different checkouts compare alike where only the places and the
    addresses numba quotes differ; any other byte is a difference."""
    identical_output = benchmark_module("identical_output")

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
    # the same bytes from two different checks (all rules, the host rules alone) are no proof
    _recording(tmp_path / "host-only", two, two / "proj", {"json.stdout": output(two, "0x7f7b201dd8a0")},
               ["--select", "KL5", "--preview"])
    assert identical_output.compare(str(tmp_path / "before"), str(tmp_path / "host-only"), str(result)) == 1
    assert json.loads(result.read_text())["targets"]["t"]["differing"] == ["check_options"]


def test_compile_cost_measures_both_sides_of_one_kernel(tmp_path):
    """benchmarks/compile_cost.py on a small project: kernlint's compile and analysis against
    numba-cuda's first-launch compile (through NVVM to PTX) of the same kernel and signature."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "kernels.py").write_text(
        "import math\n\nfrom numba import cuda\n\n\n"
        "@cuda.jit(device=True, inline=True)\ndef shape(u):\n    return (1.0 - u) ** 3 + math.ceil(u)\n\n\n"
        "@cuda.jit\ndef deposit(x, out):\n    i = cuda.grid(1)\n    if i < x.size:\n"
        "        out[i] = int(shape(x[i]) + shape(x[i] + 1.0))\n")
    signatures = tmp_path / "signatures.toml"
    signatures.write_text('[signatures]\n"kernels.py::deposit" = ["void(float64[::1], int64[::1])"]\n')
    result = tmp_path / "cost.json"
    run = subprocess.run([sys.executable, "benchmarks/compile_cost.py", str(result), "kernels.py::deposit",
                          "--project", str(project), "--signatures", str(signatures)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    [row] = json.loads(result.read_text())["kernels"]
    kernlint, numba = row["runs"]["kernlint"][0], row["runs"]["numba"][0]
    assert numba["options"] == {"debug": False, "lineinfo": False, "opt": True}  # the user's, not kernlint's
    assert numba["ptx_chars"] > 0 and numba["phases"]["NVVM: libdevice, -O3, PTX"] > 0
    assert numba["phases"]["ptxas (nvJitLink): cubin"] > 0
    assert kernlint["ir_chars"] > 0 and kernlint["findings"] == []
    assert "inline_inlinables" in kernlint["passes"] and "inline_inlinables" in numba["passes"]
    assert row["ratio_kernlint_over_numba"] == row["kernlint_cpu_seconds"] / row["numba_cpu_seconds"]
    assert row["kernlint_cpu_seconds"] + row["kernlint_reading_cpu_seconds"] == pytest.approx(kernlint["cpu_seconds"])


def test_realworld_combine_judges_earlier_runs_again(tmp_path):
    """Runs made per half become one file, judged with the verdicts as they are now: a verdict
    written after the run counts, and each half keeps its own summary."""
    def row(name, half, keys):
        return {"project": name, "half": half, "findings": [{"key": k, "verdict": "unjudged"} for k in keys],
                "expected": [], "kernels_present": 1, "kernels_checked": 1}
    first, second, out = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "all.json"
    first.write_text(json.dumps({"projects": [row("dev+steps", "developed", ["run.py:17:KL503"])]}))
    second.write_text(json.dumps({"projects": [row("new+steps", "held-out", ["run.py:9:KL504", "run.py:16:KL503"])]}))
    manifest = tmp_path / "corpus.toml"
    manifest.write_text('[project."dev+steps"]\nhalf = "developed"\n\n[project."new+steps"]\nhalf = "held-out"\n')
    verdicts = tmp_path / "verdicts.toml"
    verdicts.write_text('["new+steps"]\n"run.py:16:KL503" = "false [periodic]: a snapshot every 100 steps"\n'
                        '"run.py:9:KL504" = "true: 50 launches timed unsynchronized"\n\n'
                        '[["expected"."new+steps"]]\ncode = "KL504"\npath = "run.py"\nline = 9\nreason = "r"\n\n'
                        '[["expected"."dev+steps"]]\ncode = "KL501"\npath = "run.py"\nline = 3\nreason = "r"\n')
    done = subprocess.run([sys.executable, "benchmarks/realworld.py", "--combine", str(first), str(second), str(out),
                           "--manifest", str(manifest), "--verdicts", str(verdicts)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(out.read_text())
    assert [(r["project"], r["half"]) for r in result["projects"]] == [("dev+steps", "developed"),
                                                                       ("new+steps", "held-out")]
    held_out = result["summary"]["held-out"]["rules"]
    assert held_out["KL503"]["precision"] == 0.0 and held_out["KL503"]["false_by_shape"] == {"periodic": 1}
    assert held_out["KL504"]["precision"] == 1.0 and held_out["KL504"]["recall"] == 1.0
    developed = result["summary"]["developed"]["rules"]
    assert developed["KL503"]["judged"] == 0 and developed["KL501"]["recall"] == 0.0
    assert result["summary"]["all"]["projects"] == ["dev+steps", "new+steps"]
