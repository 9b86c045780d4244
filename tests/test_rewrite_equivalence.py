"""The rewrite changes no result inside the safe range: original and rewritten IR are
executed side by side (llvmlite's JIT on the CPU) on Hypothesis-drawn inputs.

Every pattern is a device function ``int(float)`` guarded by a raise: float32 and float64
sources; int8..int64 and uint8..uint64 targets; NaN, range and exactness guards. Inside
the safe range both must return status 0 and the same bytes in the return slot; just
outside it the original must fail, which pins the boundary. Kernels with arrays (print and
raise guards, a grid-stride loop) are run thread by thread and compared on their outputs
and on how often they printed.

The safe range is the conversion's (where it is defined, and exact if the check tests
exactness: ``analysis.conversions.safe_range``), never "where the guard passes": drawn
from there, a rewrite that removed a domain check (a histogram's bounds) differs, and the
last test shows that it is caught.
"""

import ctypes
import math
import textwrap

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from conftest import FIXTURES
from hostjit import ARRAY_ARGTYPES, CTYPE_OF, HostModule, array_args
from kernlint.analysis.conversions import conversion, safe_range
from kernlint.analysis.program import KernelAnalysis, Program
from kernlint.compile.numba_cuda import compile_file
from kernlint.ir.reader import parse_module
from kernlint.rewrite.command import rewrite_kernel
from kernlint.rewrite.edit import FunctionPlan, rewrite_module

FLOATS = {"float32": 32, "float64": 64}
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
GUARDS = {
    # the failing condition of each guard kind; LO <= v < HI is the target's range
    "nan": "v != v or not ({lo!r} <= v < {hi!r})",
    "range": "not ({lo!r} <= v < {hi!r})",
    "exact": "math.floor(v) != v or not ({lo!r} <= v < {hi!r})",
}
MODES = ["unchecked", "saturate"]


def bounds(target):
    bits = int(target.lstrip("uint"))
    if target.startswith("u"):
        return 0.0, float(2 ** bits)
    return -float(2 ** (bits - 1)), float(2 ** (bits - 1))


PATTERNS = [(f, t, g) for f in FLOATS for t in INTS for g in GUARDS]


def pattern_name(source, target, guard):
    return f"{guard}_{source}_{target}"


def pattern_source():
    chunks = ["import math", "import numba", "from numba import cuda", ""]
    for source, target, guard in PATTERNS:
        lo, hi = bounds(target)
        chunks.append(textwrap.dedent(f'''
            @cuda.jit("{target}({source})", device=True)
            def {pattern_name(source, target, guard)}(v):
                if {GUARDS[guard].format(lo=lo, hi=hi)}:
                    raise ValueError("outside the safe range")
                return numba.{target}(v)
        '''))
    return "\n".join(chunks)


@pytest.fixture(scope="module")
def compiled_patterns(tmp_path_factory):
    path = tmp_path_factory.mktemp("patterns") / "patterns.py"
    path.write_text(pattern_source())
    result = compile_file(str(path))
    assert not result.diagnostics, result.diagnostics
    return {k.info.name: k for k in result.kernels}


@pytest.fixture(scope="module")
def jitted(compiled_patterns):
    """name -> (original, {mode: rewritten}) host functions."""
    table = {}
    for source, target, guard in PATTERNS:
        name = pattern_name(source, target, guard)
        compiled = compiled_patterns[name]
        ctype = CTYPE_OF[target]
        argtype = ctypes.c_float if source == "float32" else ctypes.c_double

        def load(texts):
            module = HostModule(texts)
            return module, module.function(compiled.entry, ctypes.c_int32, ctypes.POINTER(ctype), argtype)

        rewritten = {}
        for mode in MODES:
            rewrite = rewrite_kernel(compiled, mode, (9, 0))
            assert rewrite is not None and not rewrite.refused, (name, mode, rewrite and rewrite.refused)
            assert rewrite.removed_blocks >= 1
            rewritten[mode] = load(rewrite.rewritten)
        table[name] = (load(compiled.modules), rewritten, ctype)
    return table


def call(loaded, ctype, value):
    """(status, bytes of the return slot), the slot pre-filled with a canary."""
    _, function = loaded
    slot = ctype(0x5A5A5A5A5A5A5A5A & ((1 << (8 * ctypes.sizeof(ctype))) - 1))
    status = function(ctypes.byref(slot), value)
    return status, bytes(slot)


def representable(value, source):
    return float(np.float32(value)) if source == "float32" else float(value)


def boundaries(source, target, guard):
    """Inputs at the edges of the safe range: (inside, outside)."""
    lo, hi = bounds(target)
    width = np.float32 if source == "float32" else np.float64
    below_hi = float(np.nextafter(width(hi), width(lo)))
    tiny = float(np.finfo(width).smallest_subnormal)
    inside = [0.0, -0.0, lo, 1.0, float(np.floor(below_hi))]
    if guard != "exact":
        inside += [below_hi, tiny, 0.5, below_hi / 2, lo / 3 if lo else tiny]
    outside = [hi, float(np.nextafter(width(lo), width(-np.inf))), float("nan"), float("inf"), -float("inf")]
    if guard == "exact":
        outside += [0.5, tiny]
    return ([representable(v, source) for v in inside if lo <= v < hi],
            [representable(v, source) for v in outside])


def safe_values(source, target, guard):
    lo, hi = bounds(target)
    width = 32 if source == "float32" else 64
    if guard == "exact":
        return st.integers(int(lo), int(hi) - 1).map(lambda n: representable(float(n), source)).filter(
            lambda v: lo <= v < hi and v == math.floor(v))
    return st.floats(lo, hi, exclude_max=True, width=width, allow_nan=False)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("source, target, guard", PATTERNS,
                         ids=[pattern_name(*p) for p in PATTERNS])
def test_boundaries(jitted, source, target, guard, mode):
    original, rewritten, ctype = jitted[pattern_name(source, target, guard)]
    inside, outside = boundaries(source, target, guard)
    for value in inside:
        expected = call(original, ctype, value)
        assert expected[0] == 0, value
        assert call(rewritten[mode], ctype, value) == expected, value
    for value in outside:
        assert call(original, ctype, value)[0] != 0, f"{value} should fail the original's check"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("source, target, guard", PATTERNS,
                         ids=[pattern_name(*p) for p in PATTERNS])
def test_equal_in_safe_range(jitted, source, target, guard, mode):
    original, rewritten, ctype = jitted[pattern_name(source, target, guard)]

    @given(safe_values(source, target, guard))
    @example(0.0)
    def check(value):
        expected = call(original, ctype, value)
        assert expected[0] == 0
        assert call(rewritten[mode], ctype, value) == expected

    check()


# -- whole kernels with arrays -------------------------------------------------------

KERNELS = [  # file, kernel, output and input types; inputs come from the conversion's safe range
    ("print_guard.py", "print_guarded", np.int64, np.float64),
    ("raise_guard.py", "raise_guarded", np.int64, np.float64),
    ("grid_stride.py", "grid_stride_report", np.int64, np.float64),
    ("unsigned.py", "to_uint32", np.uint32, np.float32),
]


@pytest.fixture(scope="module")
def jitted_kernels():
    table = {}
    for filename, kernel, *_ in KERNELS:
        result = compile_file(str(FIXTURES / filename), runnable=True)
        compiled = next(k for k in result.kernels if k.info.name == kernel)
        rewrite = rewrite_kernel(compiled, "unchecked", (9, 0))
        assert not rewrite.refused
        table[kernel] = (HostModule(compiled.runnable), HostModule(rewrite.rewritten), compiled.entry)
    return table


def run_kernel(module, entry, out, inp):
    """One launch: a thread per element (the grid-stride loop then runs once per thread)."""
    function = module.function(entry, None, *(ARRAY_ARGTYPES * 2))
    before = module.vprintf_calls
    for thread in range(out.size):
        module.set_thread(tid=thread, ntid=1, ctaid=0, nctaid=1)
        function(*array_args(out), *array_args(inp))
    return module.vprintf_calls - before


def conversion_inputs(out_type, in_type):
    """Lists of inputs from the whole safe range of the conversion into ``out_type``."""
    lo, hi = safe_range(np.dtype(out_type).name)
    width = 32 if in_type == np.float32 else 64
    return st.lists(st.floats(lo, hi, exclude_max=True, width=width, allow_nan=False), min_size=1, max_size=16)


def outcomes(module, entry, out_type, values):
    """(the output's bytes, how often it printed) of one launch over ``values``."""
    out = np.full(len(values), 7, out_type)
    prints = run_kernel(module, entry, out, values)
    return out.tobytes(), prints


@pytest.mark.parametrize("filename, kernel, out_type, in_type", KERNELS, ids=[k[1] for k in KERNELS])
def test_kernels_equal_in_safe_range(jitted_kernels, filename, kernel, out_type, in_type):
    original, rewritten, entry = jitted_kernels[kernel]

    @given(conversion_inputs(out_type, in_type))
    def check(values):
        inp = np.array(values, dtype=in_type)
        assert outcomes(original, entry, out_type, inp) == outcomes(rewritten, entry, out_type, inp)

    check()


def test_a_rewrite_that_dropped_a_domain_check_is_caught():
    """What a rewrite would make of a histogram's bounds if it took them for a conversion check
    (its branches cut, the conversion unchecked) differs inside the conversion's safe range:
    the property above finds it. kernlint itself leaves that guard alone."""
    from hypothesis import find

    result = compile_file(str(FIXTURES / "domain_checks.py"), runnable=True)
    compiled = next(k for k in result.kernels if k.info.name == "histogram_bins")
    assert rewrite_kernel(compiled, "unchecked", (9, 0)) is None
    program = Program([parse_module(text) for text in compiled.modules])
    analysis = KernelAnalysis(program, compiled.entry)
    reached = next(r for r in analysis.functions() if analysis.facts(r.function).error_branches)
    facts = analysis.facts(reached.function)
    converted = [i.result for i in reached.function.instructions() if conversion(i)]
    guards = {branch.guard.name: branch.passing for branch in facts.error_branches}
    assert len(guards) == 2 and converted  # v < 0.0, v >= 256.0
    number = next(n for n, m in enumerate(program.modules) if m is reached.function.module)
    targets = list(compiled.target_modules)
    edit = rewrite_module(targets[number], [FunctionPlan(reached.function.name, guards, converted)], "unchecked")
    assert edit.removed_blocks >= 1
    targets[number] = edit.rewritten
    original, dropped = HostModule(compiled.runnable), HostModule(targets)

    def differs(values):
        inp = np.array(values, dtype=np.float64)
        return (outcomes(original, compiled.entry, np.int64, inp)
                != outcomes(dropped, compiled.entry, np.int64, inp))

    found = find(conversion_inputs(np.int64, np.float64), differs)
    assert any(v < 0.0 or v >= 256.0 for v in found)


def test_original_kernel_still_reports_outside_the_safe_range(jitted_kernels):
    original, rewritten, entry = jitted_kernels["print_guarded"]
    inp = np.array([1.0, float("nan"), 3.0])
    assert run_kernel(original, entry, np.zeros(3, np.int64), inp) == 1
    assert run_kernel(rewritten, entry, np.zeros(3, np.int64), inp) == 0
