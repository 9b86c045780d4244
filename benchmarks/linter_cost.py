"""What the linter costs: kernlint's analysis time over numba's IR generation per kernel
(over the fixtures, goal <= 0.10), and a cold against a warm (cached) run of a 20-kernel file.

    python benchmarks/linter_cost.py RESULT.json
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from kernlint.engine import Options, check_paths  # noqa: E402

TWENTY = "from numba import cuda\n" + "".join(f'''

@cuda.jit("void(int64[::1], float64[::1])")
def convert_{k}(y, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if v != v:
            print("NaN in kernel {k} at", i)
            return
        y[i] = int(v)
''' for k in range(20))


def analysis_ratios():
    report = check_paths([os.path.join(ROOT, "fixtures")], Options(target="cuda"))
    rows = [{"kernel": f"{os.path.basename(s.path)}::{s.kernel}", "signature": s.signature,
             "numba_ms": round(s.numba_seconds * 1e3, 2), "kernlint_ms": round(s.kernlint_seconds * 1e3, 3),
             "ratio": round(s.kernlint_seconds / s.numba_seconds, 4)}
            for s in report.stats if s.numba_seconds > 0]
    return rows


def cold_and_warm():
    with tempfile.TemporaryDirectory() as project:
        with open(os.path.join(project, "twenty.py"), "w") as out:
            out.write(TWENTY)
        env = {**os.environ, "PYTHONPATH": ROOT}
        command = [sys.executable, "-m", "kernlint", "check", "twenty.py"]

        def run():
            started = time.perf_counter()
            subprocess.run(command, cwd=project, env=env, capture_output=True)
            return time.perf_counter() - started

        cold = run()
        warm = statistics.median(run() for _ in range(5))
    return {"kernels": 20, "cold_s": round(cold, 3), "warm_s": round(warm, 3), "cold_over_warm": round(cold / warm, 1)}


def main():
    rows = analysis_ratios()
    ratios = [r["ratio"] for r in rows]
    cache = cold_and_warm()
    result = {"per_kernel": rows, "median_ratio": statistics.median(ratios), "max_ratio": max(ratios),
              "cache": cache}
    with open(sys.argv[1], "w") as out:
        json.dump(result, out, indent=2)
    print(f"analysis / numba IR generation over {len(rows)} kernels: median {result['median_ratio']:.3f}, "
          f"max {result['max_ratio']:.3f} (goal <= 0.10)")
    print(f"20-kernel file: cold {cache['cold_s']:.2f} s, warm {cache['warm_s']:.3f} s (cache)")


if __name__ == "__main__":
    main()
