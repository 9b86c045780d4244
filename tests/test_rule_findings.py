"""What each rule beyond KL101 says and where it points, on the fixtures: the callee it names,
which path it says the call is on, and the column of the call in the user's source (found by
mutation testing, benchmarks/mutation.py: the fixtures' inline expectations pin only code and
line)."""
import shutil

import pytest
from conftest import FIXTURES

needs_hipcc = pytest.mark.skipif(shutil.which("hipcc") is None, reason="needs hipcc (scripts/setup.sh)")
# the fixtures these tests read: checked once, not every fixture (mutation testing runs this file
# against each mutant)
CHECKED = ["allocation.py", "debug_kernel.py", "hip_kernels.hip", "ir/julia_hostcall_box.ll", "host"]


@pytest.fixture(scope="module")
def fixture_report():
    from kernlint.engine import Options, check_paths

    # preview on: the host rules are preview rules
    return check_paths([str(FIXTURES / name) for name in CHECKED], Options(timeout=120, preview=True))


def finding(report, name, code, line):
    path = str(FIXTURES / name)
    found = [f for f in report.findings if f.path == path and f.code == code and f.line == line]
    assert len(found) == 1, f"{code} at {name}:{line}: {found}"
    return found[0]


def column_of(name, line, text):
    """The 1-based column of ``text`` on a fixture's line: where a finding must point."""
    source = (FIXTURES / name).read_text().splitlines()[line - 1]
    assert text in source
    return source.index(text) + 1


def line_of(name, text):
    """The 1-based number of the fixture's line that starts with ``text``."""
    lines = (FIXTURES / name).read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if line.startswith(text))


def test_device_allocations_name_the_allocator_say_which_path_and_point_at_the_call(fixture_report):
    hot = finding(fixture_report, "allocation.py", "KL202", 14)
    assert hot.message.startswith("`NRT_MemInfo_alloc_aligned` allocates device memory on the kernel's "
                                  "normal path: every thread goes through the device heap")
    assert hot.column == column_of("allocation.py", 14, "np.zeros(")
    # a suppression on the kernel's def line covers the findings inside the kernel
    assert hot.kernel_line == line_of("allocation.py", "def hot_alloc(")
    cold = finding(fixture_report, "allocation.py", "KL201", 25)
    assert cold.message.startswith("`malloc` allocates device memory on an error path: the never-taken "
                                   "allocation still costs")
    assert cold.column == column_of("allocation.py", 25, "malloc(")


def test_print_says_which_path_it_is_on_and_names_the_host_call(fixture_report):
    cold = finding(fixture_report, "allocation.py", "KL301", 26)
    assert cold.message.startswith("print/printf on an error path becomes a host call (`vprintf`)")
    assert cold.column == column_of("allocation.py", 26, "print(")


@needs_hipcc
def test_hip_printf_on_the_normal_path(fixture_report):
    hot = finding(fixture_report, "hip_kernels.hip", "KL301", 54)
    assert hot.message.startswith("print/printf on the kernel's normal path becomes a host call "
                                  "(`__ockl_hostcall_internal`)")


def test_host_calls_in_ir_without_debug_info_point_at_the_instruction(fixture_report):
    name = "ir/julia_hostcall_box.ll"
    boxed = finding(fixture_report, name, "KL302", 13)
    assert boxed.message.startswith("host call `__malloc_hostcall` on an error path: the hostcall packet")
    released = finding(fixture_report, name, "KL302", 37)
    assert released.message.startswith("host call `__free_hostcall` on the kernel's normal path")
    # the line's first character: the instruction, after the IR's indentation
    assert boxed.column == released.column == column_of(name, 13, "%hc")


@needs_hipcc
def test_hip_device_assert_names_the_assert_call_and_points_at_the_assert(fixture_report):
    asserted = finding(fixture_report, "hip_kernels.hip", "KL303", 33)
    assert asserted.message.startswith("assertion `__assert_fail` reports through the host and traps")
    assert asserted.column == column_of("hip_kernels.hip", 33, "assert(")


def test_debug_true_is_reported_at_the_option_itself(fixture_report):
    debug = finding(fixture_report, "debug_kernel.py", "KL402", 5)
    assert debug.message.startswith("kernel compiled with debug=True: every launch blocks")
    assert debug.column == column_of("debug_kernel.py", 5, "debug=True")
    # cuda.jit(..., debug=True)(function): no keyword in a decorator, so the kernel's def line
    called = finding(fixture_report, "debug_kernel.py", "KL402", line_of("debug_kernel.py", "def doubled("))
    assert called.column == 1 and called.message == debug.message


# -- what a selection is told (tests/test_preview.py pins which rules run) ------------------------


def test_each_selector_that_only_matches_preview_rules_is_warned_about():
    from kernlint import rules

    # the stable selector first: it must not end the look at the ones after it
    warnings = rules.selection_warnings(["KL1", "KL5", "KL50"], preview=False)
    assert [w.split("`")[1] for w in warnings] == ["KL5", "KL50"]
    assert all("preview is not enabled" in w for w in warnings)
    assert rules.selection_warnings(["KL5"], preview=True) == []
    explicit = rules.selection_warnings(["KL1", "KL5", "KL501"], preview=True, explicit_preview=True)
    assert [w.split("`")[1] for w in explicit] == ["KL5"]
    assert "whole code" in explicit[0]


def test_a_preview_rules_page_says_so_right_under_its_title():
    from kernlint import rules

    stable = rules.documentation("KL101")
    assert stable == rules.BY_CODE["KL101"].__doc__.strip()  # a stable rule: its docstring as it is
    page = rules.documentation("KL501").split("\n")
    assert page[0] == rules.BY_CODE["KL501"].__doc__.strip().split("\n")[0]
    assert page[1] == "" and page[2].startswith("This rule is in preview: it runs only with `--preview`")
    assert "\n".join(page[3:]) == rules.BY_CODE["KL501"].__doc__.strip().partition("\n")[2]


# -- host rules: the advice names what the code does ---------------------------------------------


def message(report, name, code, line):
    return finding(report, name, code, line).message


def test_kl501_says_what_is_allocated_how_often_and_what_to_do_instead(fixture_report):
    direct = message(fixture_report, "host/allocation.py", "KL501", 13)
    assert direct == ("`cuda.device_array` allocates device memory (cudaMalloc and cudaFree: no pool allocator is "
                      "set) on every iteration of the loop at line 12, which launches kernels: allocate once before "
                      "the loop and reuse the buffer (6.5x faster on an H100), or use a pool allocator (numba-cuda "
                      "External Memory Management: RMM, CuPy's pool)")
    # a helper's allocation is the cost of its call in the loop: reported there, naming the line
    called = message(fixture_report, "host/allocation.py", "KL501", 20)
    assert called.startswith("`smooth_once` allocates device memory (cudaMalloc and cudaFree: no pool allocator is "
                             "set) on every call (`cuda.device_array_like` at allocation.py:24), and it is called "
                             "on every iteration of the loop at line 19, which launches kernels: allocate once")
    transfer = message(fixture_report, "host/allocation.py", "KL501", 14)
    assert transfer.startswith("`cuda.to_device` allocates device memory and copies host data into it on every "
                               "iteration of the loop at line 12, which launches kernels: transfer once before")
    pinned = message(fixture_report, "host/allocation.py", "KL501", 42)
    assert pinned.startswith("`cuda.pinned_array` allocates page-locked host memory (cudaHostAlloc, which "
                             "synchronizes) on every iteration")
    per_item = message(fixture_report, "host/allocation.py", "KL501", 91)
    assert "for each `frame` of the loop at line 90" in per_item and "where sizes differ" in per_item
    cupy = message(fixture_report, "host/pools.py", "KL501", 12)
    assert cupy.startswith("`cp.empty` allocates device memory (cudaMalloc: CuPy's pool is turned off by "
                           "`set_allocator(None)`)")


def test_kl502_names_each_host_array_once_and_says_it_or_them(fixture_report):
    one = message(fixture_report, "host/host_arrays.py", "KL502", 18)
    assert one == ("`staging` is a host (NumPy) array: numba-cuda copies it to the device and back and waits for "
                   "the kernel on every iteration of the loop at line 17; `cuda.to_device(staging)` once before "
                   "the loop and launch on the device array")
    lines = (FIXTURES / "host" / "host_arrays.py").read_text().splitlines()
    two = lines.index("        axpy[64, 256](out, np.float32(2.0), x, y)  # KL502, KL503") + 1
    both = message(fixture_report, "host/host_arrays.py", "KL502", two)
    assert both.startswith("`x`, `y` are host (NumPy) arrays: numba-cuda copies them to the device and back")
    twice = message(fixture_report, "host/host_arrays.py", "KL502", two + 1)  # `x, x`: x once
    assert twice.startswith("`x` is a host (NumPy) array: numba-cuda copies it to the device and back")
    called = message(fixture_report, "host/frequency/through_calls.py", "KL502", 16)
    assert called.startswith("`smoothed_peak` launches `advance` on `u` (helpers.py:11), a host (NumPy) array: "
                             "numba-cuda copies it")


def test_kl503_says_what_blocks_the_host_in_the_loop(fixture_report):
    sync = message(fixture_report, "host/syncs.py", "KL503", 15)
    assert sync == ("`stream.synchronize()` blocks: the host waits for the GPU on every iteration of the loop at "
                    "line 13, which launches kernels; synchronize once after the loop (async copies on a stream "
                    "into pinned memory where the host needs data each step)")
    copy = message(fixture_report, "host/syncs.py", "KL503", 17)
    assert copy.startswith("`d_x.copy_to_host()` is a blocking copy to the host: the host waits")
    launch = message(fixture_report, "host/host_arrays.py", "KL503", 18)
    assert launch.startswith("`scale` is launched on host arrays, so numba-cuda synchronizes after it: the host")
    called = message(fixture_report, "host/frequency/through_calls.py", "KL503", 16)
    assert called.startswith("`smoothed_peak` launches `advance` on host arrays (`u`, helpers.py:11), so "
                             "numba-cuda synchronizes after each call")


def test_kl504_counts_the_launches_the_interval_holds(fixture_report):
    one = message(fixture_report, "host/timing.py", "KL504", 14)
    assert one.startswith("the wall-clock interval that ends here starts at line 12 and holds one launch (the "
                          "last at line 13) with no synchronization before this stamp")
    many = message(fixture_report, "host/timing.py", "KL504", 18)
    assert many.startswith("the wall-clock interval that ends here starts at line 15 and holds 100 launches (the "
                           "last at line 17)")
    nested = message(fixture_report, "host/frequency/timing.py", "KL504", 47)
    assert "starts at line 44 and holds 10 launches (the last at line 46)" in nested


def test_kl505_names_the_foreign_arrays_and_the_view_to_make(fixture_report):
    cupy = message(fixture_report, "host/foreign_arrays.py", "KL505", 14)
    assert cupy.startswith("`u`, `v` are CuPy arrays bound before the loop at line 13: numba-cuda converts each "
                           "`__cuda_array_interface__` argument on every launch")
    assert "(`d_u = cuda.as_cuda_array(u)`)" in cupy and cupy.endswith("valid while they are not reallocated")
    torch = message(fixture_report, "host/foreign_arrays.py", "KL505", 23)
    assert torch.startswith("`field` is a PyTorch tensor bound before the loop at line 22:")
    assert torch.endswith("valid while it is not reallocated")
    called = message(fixture_report, "host/foreign_arrays.py", "KL505", 75)
    assert called.startswith("`Solver.relax` launches `axpy` (foreign_arrays.py:68) on CuPy arrays bound before the "
                             "loop at line 74 (`self.phi`, `self.rhs`), and it is called on every iteration of that "
                             "loop:")
    assert "(`d_phi = cuda.as_cuda_array(self.phi)`)" in called
    mixed_line = line_of("host/foreign_arrays.py", "        axpy[64, 256](out, np.float32(0.5), u, field)")
    mixed = message(fixture_report, "host/foreign_arrays.py", "KL505", mixed_line)
    assert mixed.startswith(f"`u`, `field` are CuPy arrays / PyTorch tensors bound before the loop at line "
                            f"{mixed_line - 1}:")


def test_kl503_through_a_parameters_default_names_the_parameter_and_what_it_runs(fixture_report):
    line = line_of("host/defaults.py", "        d_x = timestep(d_x)  # KL503")
    text = message(fixture_report, "host/defaults.py", "KL503", line)
    assert text.startswith("`timestep` (its default, `step_and_peek`) copies device data back (`float(d_x[0])`, "
                           "defaults.py:11): the host waits for the GPU on every iteration of the loop at line "
                           f"{line - 1}")


def test_a_launcher_launches_on_the_arrays_each_call_passes(fixture_report):
    line = line_of("host/passed_arrays/timed.py", "        over_items(scale_all, N, u, 0.99)  # KL502 KL503")
    text = message(fixture_report, "host/passed_arrays/timed.py", "KL502", line)
    assert text.startswith("`over_items` launches `scale_all` on `u` (launcher.py:25), a host (NumPy) array: "
                           "numba-cuda copies it to the device and back")
    timed = line_of("host/passed_arrays/timed.py", '    print("relax", time.time() - start)  # KL504')
    assert "holds one launch (the last at launcher.py:25)" in message(
        fixture_report, "host/passed_arrays/timed.py", "KL504", timed)


def test_kl504_timeit_of_cupy_work_counts_its_first_interval_and_names_the_helper(fixture_report):
    path = "host/frequency/timeit_work.py"
    direct = message(fixture_report, path, "KL504", line_of(path, "    unsynced = timeit.timeit(lambda: smooth("
                                                                  "signal, taps), number=20)  # KL504"))
    assert direct.startswith("`timeit.timeit` times at least 20 launches of `cp.convolve` (line 15) and the timed "
                             "code does not synchronize")
    growing = message(fixture_report, path, "KL504", line_of(path, "        if timer.timeit(number) >= 5e-4:  # KL504"))
    assert growing.startswith("`timeit.Timer(...).timeit` times at least one launch of `cp.convolve` (line 15) in "
                              "its first intervals and")
    line = line_of(path, "    unsynced = time_best(lambda: smooth(signal, taps))  # KL504")
    helper = message(fixture_report, path, "KL504", line)
    assert helper.startswith("`time_best(...)` times at least one launch of `cp.convolve` (line 15) in its first "
                             "intervals (`time_best` times the callable it is passed with `timeit.Timer(...).timeit`, "
                             f"timeit_work.py:{line_of(path, 'def time_best(') + 5})")


def test_an_operator_on_tensors_reports_what_its_method_does_at_the_operator(fixture_report):
    path = "host/operators/train.py"
    line = line_of(path, "        h = x * w + b  # KL501 KL502 KL503")
    launch = finding(fixture_report, path, "KL502", line)
    assert launch.column == column_of(path, line, "x * w")
    assert launch.message.startswith("`Tensor.__mul__` launches `zip_mul` on `self.shape` (tensor.py:")
    upload = finding(fixture_report, path, "KL501", line_of(path, "        w = w + -h * lr  # KL501 KL502 KL503"))
    assert upload.column == column_of(path, upload.line, "-h")
    assert upload.message.startswith("`Tensor.__neg__` allocates device memory and copies host data into it")


def test_a_class_method_reports_what_the_subclass_it_runs_through_does_at_the_call(fixture_report):
    # `Add.apply` is `Function.apply`, whose `cls.forward` runs `Add.forward`
    path = "host/autograd/train.py"
    line = line_of(path, "        w = Add.apply(w, x)  # KL501 KL502 KL503")
    launch = finding(fixture_report, path, "KL502", line)
    assert launch.column == column_of(path, line, "Add.apply")
    assert launch.message.startswith("`Add.forward` launches `add_kernel` on `shape` (functions.py:")
    upload = finding(fixture_report, path, "KL501", line)
    assert upload.message.startswith("`Add.forward` allocates device memory and copies host data into it")


def test_a_called_function_s_costs_are_one_finding_per_call_naming_each_line(fixture_report):
    # `backward` allocates twice and synchronizes twice: one KL501 and one KL503 at its call in
    # the training loop, each naming the callee's lines; nothing at the callee's own lines
    name = "host/frequency/call_sites.py"
    allocates = message(fixture_report, name, "KL501", 92)
    assert allocates.startswith("`backward` allocates device memory (cudaMalloc and cudaFree: no pool allocator is "
                                "set) on every call (`cuda.device_array` at call_sites.py:72, 75), and it is called "
                                "on every iteration of the loop at line 90")
    waits = message(fixture_report, name, "KL503", 92)
    assert waits.startswith("`backward` synchronizes (`cuda.synchronize()`, call_sites.py:74), and waits at 1 more "
                            "line on each call (call_sites.py:77)")
    # reached two calls deep (`one_batch` calls `backward`): at the call in the loop
    assert "`one_batch` allocates device memory" in message(fixture_report, name, "KL501", 117)
    path = str(FIXTURES / name)
    assert not [f for f in fixture_report.findings if f.path == path and 70 <= f.line <= 78]


def test_kl503_says_a_loop_reads_a_device_array_element_by_element(fixture_report):
    # counted where the outermost index loop starts; through a helper, at its call in the step loop
    name = "host/element_reads.py"
    called_at = line_of(name, "        running += cross_entropy(d_probs, onehot)")
    called = finding(fixture_report, name, "KL503", called_at)
    reads_at = line_of(name, "    for row in range(probs.shape[0]):")
    assert called.message.startswith(
        f"`cross_entropy` reads the device array `probs` element by element in Python (`probs[row][col] for row in "
        f"range(probs.shape[0])`, element_reads.py:{reads_at}): one blocking copy per element (copy it once with "
        f"`.copy_to_host()` and index the copy): the host waits for the GPU on every iteration of the loop at line "
        f"{called_at - 2}")
    assert called.column == column_of(name, called_at, "cross_entropy(")
    loop_at = line_of(name, "        for i in range(d_u.shape[0]):")
    direct = finding(fixture_report, name, "KL503", loop_at)
    assert direct.message.startswith("`d_u[i] for i in range(d_u.shape[0])` reads the device array `d_u` element "
                                     "by element in Python: one blocking copy to the host per element")
    assert direct.column == column_of(name, loop_at, "range(")
    path = str(FIXTURES / name)
    assert not [f for f in fixture_report.findings if f.path == path and f.line == reads_at]


def test_a_function_a_backend_holds_reports_what_the_class_it_was_given_makes_it_do(fixture_report):
    # `x * w` runs `Tensor.__mul__`, which calls `self.backend.mul_zip`: the function `zip`
    # returned for the class the backend was given (`Backend(DeviceOps)`, picked by a flag)
    path = "host/backends/train.py"
    line = line_of(path, "        h = x * w  # KL501 KL502 KL503")
    launch = finding(fixture_report, path, "KL502", line)
    assert launch.column == column_of(path, line, "x * w")
    assert launch.message.startswith("`Tensor.__mul__` launches `zip_kernel` on `a.dims` (ops.py:")
    upload = finding(fixture_report, path, "KL501", line)
    assert upload.message.startswith("`Tensor.__mul__` allocates device memory and copies host data into it")
    # a script whose backend is given the host class alone runs none of the device class's functions
    quiet = str(FIXTURES / "host/backends/host_train.py")
    assert not [f for f in fixture_report.findings if f.path == quiet]


def test_kl503_through_a_clock_callback_names_the_ufunc_and_not_the_copy_the_host_reads(fixture_report):
    text = message(fixture_report, "host/frequency/clock_callbacks.py", "KL503", 67)
    assert text.startswith("`Bodies.calc` launches `self.accel` on host arrays (`self.host.x`, `self.host.x.T`, "
                           "`self.host.m`, clock_callbacks.py:45), so numba-cuda synchronizes after each call:")
    assert "more line" not in text  # the kernel mode's copy back is read at once: not a wait of its own


def test_a_call_through_a_list_of_panels_names_every_override_it_runs(fixture_report):
    # `panel.show(image)` runs the base's `show`, which calls `self.render`: each panel class's
    # own `render` counts at the call, once per frame of the Tk loop `update` reschedules
    path = "host/frequency/screens.py"
    line = line_of(path, "            panel.show(image)  # KL501")
    text = message(fixture_report, path, "KL501", line)
    assert text.startswith("`BlurPanel.render` / `EdgePanel.render` allocates device memory (cudaMalloc and "
                           "cudaFree: no pool allocator is set) on every call (`cuda.device_array` at screens.py:22; "
                           "`cuda.to_device` at screens.py:29)")
    assert f"on every iteration of the loop at line {line_of(path, '    def update(self):')}" in text
    once = line_of(path, "            panel.show(image)  # a button's one picture")
    assert not [f for f in fixture_report.findings if f.path == str(FIXTURES / path) and f.line == once]


def test_a_numba_device_array_s_setitem_and_element_read_say_what_numba_cuda_does(fixture_report):
    path = "host/device_setitem.py"
    reset = line_of(path, "        d_drive[:] = 0.0  # KL501 KL503")
    upload = finding(fixture_report, path, "KL501", reset)
    assert upload.message.startswith("`d_drive[:] = ...` writes the host value `0.0` into the device array "
                                     "`d_drive`: numba-cuda uploads it into a new device array first")
    wait = finding(fixture_report, path, "KL503", reset)
    assert wait.message.startswith("`d_drive[:] = ...` writes into the device array `d_drive`, which has no "
                                   "stream of its own: numba-cuda launches an assignment kernel on the default "
                                   "stream and synchronizes it")
    kept = line_of(path, "        history.append(d_loss[0])  # KL503")
    read = finding(fixture_report, path, "KL503", kept)
    assert read.column == column_of(path, kept, "d_loss[0]")
    assert read.message.startswith("`d_loss[0]` is a blocking copy to the host: the host waits")


def test_a_buffer_written_into_a_result_array_is_not_kept(fixture_report):
    path = "host/batch_buffers.py"
    line = line_of(path, "        batch_out = cuda.device_array_like(np.zeros((batch.shape[0], FEATURES)))")
    text = finding(fixture_report, path, "KL501", line).message
    assert text.startswith("`cuda.device_array_like` allocates device memory (cudaMalloc and cudaFree: no pool "
                           "allocator is set) for each `batch` of the loop at line")
    assert "outlives the iteration" not in text
