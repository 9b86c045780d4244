"""What finding signatures costs: checking a 50-kernel repository whose kernels carry no
signatures (launch sites, a class, kernels only their bodies describe) against the same
repository with those signatures written out as `# kernlint: sig=` comments. Both are
checked cold (no cache), interleaved, in one run; the goal is a ratio <= 1.5.

    python benchmarks/signature_cost.py RESULT.json
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

MODULES = 5
PER_MODULE = 10  # 8 launched from main() or a class, 2 described only by their bodies
RUNS = 3

_DTYPES = [("float32", "np.float32", "int32", "np.int32"), ("float64", "np.float64", "int64", "np.int64")]


def kernel_source(module: int, number: int, annotated: bool) -> str:
    real, _, integer, _ = _DTYPES[(module + number) % 2]
    body_only = number >= 8
    if body_only:
        signature = "void(int64[::1], float64[::1])"
    else:
        signature = f"void({integer}[::1], {real}[::1], {real})"
    comment = f"# kernlint: sig={signature}\n" if annotated else ""
    scale = "" if body_only else " * scale"
    params = "y, x" if body_only else "y, x, scale"
    return f'''

{comment}@cuda.jit
def convert_{module}_{number}({params}):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]{scale}
        if v != v:
            print("NaN in kernel {module}.{number} at", i)
            return
        y[i] = int(v)
'''


def module_source(module: int, annotated: bool) -> str:
    kernels = "".join(kernel_source(module, k, annotated) for k in range(PER_MODULE))
    launches = []
    for number in range(8):
        real, real_np, integer, integer_np = _DTYPES[(module + number) % 2]
        if number % 2:
            launches.append(f"    convert_{module}_{number}[blocks, 256](ys_{integer}, xs_{real}, {real_np}(0.5))")
        else:
            launches.append(f"        convert_{module}_{number}[self.blocks, 256, self.stream]"
                            f"(self.y_{integer}, self.x_{real}, {real_np}(2.0))")
    in_main = "\n".join(line for line in launches if not line.startswith("        "))
    in_class = "\n".join(line for line in launches if line.startswith("        "))
    return f'''"""Module {module}: kernels, a solver class, and a main() that launches them."""
import numpy as np
from numba import cuda
{kernels}

class Solver{module}:
    def __init__(self, n):
        self.blocks = (n + 255) // 256
        self.stream = cuda.stream()
        self.x_float32 = cuda.to_device(np.random.rand(n).astype(np.float32))
        self.x_float64 = cuda.to_device(np.random.rand(n))
        self.y_int32 = cuda.device_array(n, dtype=np.int32)
        self.y_int64 = cuda.device_array(n, dtype=np.int64)

    def step(self):
{in_class}


def main():
    n = 1 << 20
    blocks = (n + 255) // 256
    xs_float32 = np.linspace(0, 1, n).astype(np.float32)
    xs_float64 = np.linspace(0, 1, n)
    ys_int32 = np.zeros(n, dtype=np.int32)
    ys_int64 = np.zeros(n, dtype=np.int64)
{in_main}
    Solver{module}(n).step()
'''


def write_repository(directory: str, annotated: bool) -> None:
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, "pyproject.toml"), "w") as out:
        out.write('[project]\nname = "bench"\n')
    for module in range(MODULES):
        with open(os.path.join(directory, f"kernels_{module}.py"), "w") as out:
            out.write(module_source(module, annotated))


def check(directory: str):
    command = [sys.executable, "-m", "kernlint", "check", "--no-cache", "--output-format", "json",
               "--show-signatures", "."]
    started = time.perf_counter()
    run = subprocess.run(command, cwd=directory, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": ROOT})
    seconds = time.perf_counter() - started
    if run.returncode not in (0, 1):
        raise SystemExit(run.stderr)
    # `path::kernel  signature  source`, a launch-site source followed by its launch `(path:line)`
    rows = [re.match(r"(\S+)\s+(.*\))\s+([\w-]+)(?:\s+\(\S+\))?\s*$", line.strip())
            for line in run.stderr.splitlines() if "::convert_" in line]
    return seconds, len(json.loads(run.stdout)), sorted(r.groups() for r in rows)


def main():
    output = sys.argv[1] if len(sys.argv) > 1 else None
    with tempfile.TemporaryDirectory() as scratch:
        inferred, annotated = os.path.join(scratch, "inferred"), os.path.join(scratch, "annotated")
        write_repository(inferred, annotated=False)
        write_repository(annotated, annotated=True)
        times = {"inferred": [], "annotated": []}
        results = {}
        for _ in range(RUNS):
            for name, directory in (("inferred", inferred), ("annotated", annotated)):
                seconds, findings, signatures = check(directory)
                times[name].append(seconds)
                results[name] = (findings, signatures)
    findings_i, signatures_i = results["inferred"]
    findings_a, signatures_a = results["annotated"]
    same = [(k, s) for k, s, _ in signatures_i] == [(k, s) for k, s, _ in signatures_a]
    sources = {}
    for _, _, source in signatures_i:
        sources[source] = sources.get(source, 0) + 1
    median_i, median_a = statistics.median(times["inferred"]), statistics.median(times["annotated"])
    result = {
        "kernels": MODULES * PER_MODULE,
        "signatures_checked": len(signatures_i),
        "sources": sources,
        "same_signatures_and_findings": same and findings_i == findings_a,
        "inferred_s": round(median_i, 2),
        "annotated_s": round(median_a, 2),
        "inferred_over_annotated": round(median_i / median_a, 3),
        "goal": "<= 1.5",
        "runs": RUNS,
    }
    print(json.dumps(result, indent=2))
    if output:
        with open(output, "w") as out:
            json.dump(result, out, indent=2)
            out.write("\n")


if __name__ == "__main__":
    main()
