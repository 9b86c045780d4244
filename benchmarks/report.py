"""Turn the recorded results into benchmarks/results/RESULTS.md and a PNG chart.

    python benchmarks/report.py
"""
import json
import os

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def load(name):
    path = os.path.join(RESULTS, name)
    if not os.path.exists(path):
        return None
    with open(path) as handle:
        return json.load(handle)


def gpu_table(rows):
    lines = ["| kernel | original ms | rewritten ms | hand-written ms | rewritten / hand-written | "
             "original / rewritten | bandwidth / copy | equal in safe range |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in rows:
        lines.append(f"| {r['kernel']} | {r['original_ms']:.3f} | {r['rewritten_ms']:.3f} | {r['handwritten_ms']:.3f} | "
                     f"{r['rewritten_over_handwritten']:.3f} | {r['original_over_rewritten']:.3f} | "
                     f"{r['bandwidth_fraction_of_copy']:.2f} | {'yes' if r['equal_in_safe_range'] else 'NO'} |")
    return lines


def static_table(rows):
    lines = ["| kernel | target | original | rewritten | hand-written |", "| --- | --- | --- | --- | --- |"]
    for r in rows:
        def cell(x):
            if not x:
                return "n/a"
            if "registers" in x:
                return f"{x['registers']} reg, {x['stack_bytes']} B stack"
            return f"{x['vgpr']} VGPR, {x['sgpr']} SGPR, {x['scratch_bytes']} B scratch"
        lines.append(f"| {r['kernel']} | {r['target']} | {cell(r['original'])} | {cell(r['rewritten'])} | "
                     f"{cell(r['handwritten'])} |")
    return lines


def chart(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["kernel"] for r in rows]
    width = 0.27
    xs = range(len(rows))
    figure, axis = plt.subplots(figsize=(10, 4.2))
    for offset, key, label in ((-width, "original_ms", "original (checked)"), (0, "rewritten_ms", "kernlint rewrite"),
                               (width, "handwritten_ms", "hand-written unchecked")):
        axis.bar([x + offset for x in xs], [r[key] for r in rows], width, label=label)
    axis.set_xticks(list(xs))
    axis.set_xticklabels(names, rotation=20, ha="right")
    axis.set_ylabel("ms per launch (median)")
    axis.set_title(f"2^26 conversions on {rows[0]['device']}: checked vs rewritten vs hand-written")
    axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main():
    gpu = load("gpu_rewrite_h200.json")
    decorator = load("gpu_decorator_h200.json")
    static = load("static_resources.json")
    cost = load("linter_cost.json")
    signatures = load("signature_cost.json")
    out = ["# kernlint benchmark results", ""]
    if gpu:
        out += [f"## GPU: original, rewritten, hand-written ({gpu[0]['device']}, CUDA events, median of 30)", ""]
        out += gpu_table(gpu) + ["", "![GPU timings](gpu_rewrite_h200.png)", ""]
        chart(gpu, os.path.join(RESULTS, "gpu_rewrite_h200.png"))
    if static:
        out += ["## Static resources (ptxas -v sm_90; llvmlite AMDGPU backend gfx90a)", ""] + static_table(static) + [""]
    if cost:
        out += ["## What the linter costs", "",
                f"- kernlint analysis / numba IR generation, per kernel over the fixtures: median "
                f"{cost['median_ratio']:.3f}, max {cost['max_ratio']:.3f} (goal <= 0.10)",
                f"- a 20-kernel file: cold {cost['cache']['cold_s']:.2f} s, warm (cache) {cost['cache']['warm_s']:.3f} s"]
    if signatures:
        sources = ", ".join(f"{n} {s}" for s, n in sorted(signatures["sources"].items()))
        out += [f"- finding signatures: a {signatures['kernels']}-kernel repository without annotations "
                f"({sources}) checks in {signatures['inferred_s']:.2f} s against {signatures['annotated_s']:.2f} s "
                f"with the same signatures written out: {signatures['inferred_over_annotated']:.3f}x (goal <= 1.5; "
                f"same signatures and findings: {'yes' if signatures['same_signatures_and_findings'] else 'no'})"]
    if decorator:
        launch, first = decorator["launch"], decorator["first_compile"]
        out += [f"- `@no_hostcall` launch time, decorated / undecorated over {launch['launches']} launches: "
                f"{launch['ratio']:.4f} (goal <= 1.01; {decorator['device']})",
                f"- `@no_hostcall` first-compile overhead: {first['overhead']:+.1%} (goal <= 10%)", ""]
    with open(os.path.join(RESULTS, "RESULTS.md"), "w") as handle:
        handle.write("\n".join(out) + "\n")
    print("\n".join(out))


if __name__ == "__main__":
    main()
