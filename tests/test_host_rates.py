"""The host rules read how often a statement runs (``Event.rate``): what the Python reader
puts on each event, how a call composes it, and what KL504 makes of loop trip counts."""
import textwrap

import pytest

from kernlint.analysis.host import Level, Rate
from kernlint.engine import _host_rules
from kernlint.python.project import FrontendSettings, Project
from kernlint.python.host.reader import file_host_facts

KERNEL = '''
import time

import numpy as np
from numba import cuda


@cuda.jit
def bump(u):
    i = cuda.grid(1)
    if i < u.size:
        u[i] += 1.0
'''


def findings(tmp_path, body: str, name: str = "run.py", **files):
    for other, text in files.items():  # other modules of the package, by name
        (tmp_path / f"{other}.py").write_text(textwrap.dedent(text))
    path = tmp_path / name
    path.write_text(KERNEL + textwrap.dedent(body))
    project = Project(FrontendSettings(debug=True))
    facts = file_host_facts(project, str(path))
    return facts, [(f.code, f.line - KERNEL.count("\n"), f.message) for f in _host_rules(facts, True)]


def test_step_loop_walk_passes_pieces_and_stops_at_gates():
    step = Level("step", "every", 3, 100, 1)
    assert Rate((Level("body", "every", 1), step, Level("sweep", "every", 4))).step_loop == step
    assert Rate((Level("body", "every", 1), Level("step", "periodic", 3))).step_loop is None
    # a retry loop's body runs at least once on each step; a retry loop alone is no step
    assert Rate((Level("body", "every", 1), step, Level("search", "every", 4))).step_loop == step
    assert Rate((Level("body", "every", 1), Level("search", "every", 4))).step_loop is None
    assert Rate((Level("body", "every", 1), step, Level("unknown", "every", 4))).step_loop is None
    assert Rate((Level("body", "every", 1), Level("setup", "every", 3))).step_loop is None


def test_each_event_gets_its_rate_and_each_loop_its_kind(tmp_path):
    facts, _ = findings(tmp_path, '''
        def run(d_u, steps, every=10):
            for step in range(steps):
                bump[4, 256](d_u)
                if step % every == 0:
                    print(d_u.copy_to_host())
    ''')
    launch, copy = [e for e in facts.events if e.kind in ("launch", "copy-back")]
    assert [(level.kind, level.place) for level in launch.rate.levels] == [("body", "every"), ("step", "every")]
    assert copy.rate.levels[-1].place == "periodic" and not copy.rate.every_step
    assert [loop.frequency for loop in facts.loops.values()] == ["step"]


def test_a_call_into_another_file_counts_at_the_call_site(tmp_path):
    (tmp_path / "__init__.py").write_text("")
    facts, found = findings(tmp_path, '''
        from .helpers import peak


        def watch(steps):
            u = np.zeros(1024, dtype=np.float32)
            for _ in range(steps):
                peak(u)
    ''', helpers='''
        import numpy as np
        from numba import cuda

        from .run import bump


        def peak(u):
            bump[4, 256](u)
            return float(u.max())
    ''')
    through = [e for e in facts.expand(facts.of_function("watch")) if e.calls]
    assert [e.kind for e in through] == ["launch"]
    assert through[0].rate.every_step and through[0].place.path.endswith("helpers.py")
    codes = {(code, line) for code, line, _ in found}
    assert codes == {("KL502", 8), ("KL503", 8)}  # at the call, in this file
    assert any("`peak` launches `bump` on `u` (helpers.py:9)" in message for _, _, message in found)


def test_a_copy_whose_value_decides_the_step_is_left_alone_and_sum_over_a_device_array_is_not(tmp_path):
    _, found = findings(tmp_path, '''
        def run(steps):
            d_u = cuda.to_device(np.zeros(1024, dtype=np.float32))
            d_flags = cuda.to_device(np.zeros(64, dtype=np.int32))
            for step in range(steps):
                bump[4, 256](d_u)
                if d_flags.copy_to_host().sum() > 0:
                    raise FloatingPointError(step)
                worst = d_u.copy_to_host()
                if worst.max() > 1e3:
                    print("unstable at step", step)
                if sum(d_flags) > 0:
                    raise FloatingPointError(step)
    ''')
    assert [(code, line) for code, line, _ in found] == [("KL503", 12)]  # `sum(d_flags)`: one copy per element


def test_one_element_read_on_every_step_is_a_blocking_copy(tmp_path):
    _, found = findings(tmp_path, '''
        def run(steps):
            d_u = cuda.to_device(np.zeros(1024, dtype=np.float32))
            history = []
            for step in range(steps):
                bump[4, 256](d_u)
                history.append(float(d_u[0]))
                if step % 100 == 0:
                    print(float(d_u[1]))
            return history
    ''')
    assert [(code, line) for code, line, _ in found] == [("KL503", 7)]
    assert "`float(d_u[0])` is a blocking copy to the host" in found[0][2]


@pytest.mark.parametrize("gate, reported", [
    ("if step % every == 0:", True),  # the measurement every `every` steps is all that reads it
    ("if since >= every:\n                    since = 0", True),  # a counter gate: the same
    ("if True:", False),  # read on every step: the wait is for the value
])
def test_a_copy_read_only_behind_a_periodic_gate_waits_on_every_step_for_nothing(tmp_path, gate, reported):
    _, found = findings(tmp_path, f'''
        def run(steps, every=100):
            d_u = cuda.to_device(np.zeros(1024, dtype=np.float32))
            since = 0
            for step in range(steps):
                bump[4, 256](d_u)
                since += 1
                u = d_u.copy_to_host()
                {gate}
                    print(step, u.mean())
    ''')
    assert [(code, line) for code, line, _ in found] == ([("KL503", 8)] if reported else [])


def test_cupy_calls_are_launches_in_an_interval_and_what_sizes_its_result_waits(tmp_path):
    _, found = findings(tmp_path, '''
        import cupy as cp

        def simulate(n, steps):
            start = time.perf_counter()
            z = cp.random.standard_normal((n, steps), dtype=cp.float32)
            paths = cp.cumsum(z, axis=1)
            queued = time.perf_counter() - start
            hits = cp.flatnonzero(paths[:, -1] > 0)
            return queued, time.perf_counter() - start
    ''')
    assert [(code, line) for code, line, _ in found] == [("KL504", 8)]
    assert "at least 2 launches" in found[0][2] and "`cp.cumsum()`" in found[0][2]
    assert "cp.cuda.Stream.null.synchronize()" in found[0][2]


@pytest.mark.parametrize("work, queued", [
    ("residual = z - predicted", "`z - predicted`"),
    ("z *= 2.0", "`z *= 2.0`"),
    ("total = z.sum()", "`z.sum()`"),
    ("picked = z[cp.argsort(z)]", "`z[cp.argsort(z)]`"),
    ("out = cp.zeros_like(z)", "`cp.zeros_like()`"),
    ("out = cp.empty_like(z)", None),  # allocates, writes nothing
    ("flat = z.ravel()", None),  # a view
    ("ready = float(cp.mean(z))", None),  # the copy back waits
    ("kept = z[z > 0]", None),  # a boolean mask reads its count back first: it waits, gathers nothing after
])
def test_cupy_operators_methods_gathers_and_fills_are_queued_work(tmp_path, work, queued):
    _, found = findings(tmp_path, f'''
        import cupy as cp

        def step(z, predicted):
            z = cp.asarray(z, dtype=cp.float32)
            start = time.perf_counter()
            {work}
            return time.perf_counter() - start
    ''')
    if queued is None:
        assert found == []
    else:
        assert [(code, line) for code, line, _ in found] == [("KL504", 8)]
        assert f"the last at line {KERNEL.count(chr(10)) + 7}, {queued}, which returns before its kernels end" in found[0][2]


def test_a_test_on_a_cupy_array_waits_for_it(tmp_path):
    _, found = findings(tmp_path, '''
        import cupy as cp

        def solve(r, tolerance):
            r = cp.asarray(r)
            start = time.perf_counter()
            for _ in range(100):
                r = r * 0.5
                if (r * r).sum() < tolerance:  # a Python bool of a CuPy array: copied back
                    break
            return time.perf_counter() - start

        def solve_unsynchronized(r, tolerance):
            r = cp.asarray(r)
            start = time.perf_counter()
            for _ in range(100):
                r = r * 0.5
            return time.perf_counter() - start
    ''')
    assert [(code, line) for code, line, _ in found] == [("KL504", 18)]


@pytest.mark.parametrize("trips, expected", [
    (10, "a 0.43 ms kernel reads about 20x short"),
    (3000, "reads about 1.50x short"),
    (3 * 3000, "reads about 1.12x short"),  # two launches per iteration: 3 x 3,000 = 9,000
    (30_000, None),
])
def test_kl504_counts_the_launches_an_interval_holds(tmp_path, trips, expected):
    per_iteration = 1 if trips != 9000 else 3
    launches = "\n".join("        bump[4, 256](d_u)" for _ in range(per_iteration))
    _, found = findings(tmp_path, f'''
def bench(d_u):
    start = time.perf_counter()
    for _ in range({trips // per_iteration}):
{launches}
    return time.perf_counter() - start
''')
    messages = [message for code, _, message in found if code == "KL504"]
    if expected is None:
        assert messages == []
    else:
        assert len(messages) == 1 and expected in messages[0] and f"{trips:,} launches" in messages[0]


def test_kl504_is_silent_where_the_count_is_unknown(tmp_path):
    _, found = findings(tmp_path, '''
        def bench(d_u, data):
            steps = len(data)
            start = time.perf_counter()
            for _ in range(steps):
                bump[4, 256](d_u)
            return time.perf_counter() - start
    ''')
    assert [code for code, _, _ in found] == []


def test_kl504_reports_a_count_its_callers_choose(tmp_path):
    # a parameter count can be small: below 10,000 steps of two launches the interval holds
    # fewer than 20,000; a copy back every few steps keeps the queue short whatever the count
    _, found = findings(tmp_path, '''
        def bench(d_u, steps):
            start = time.perf_counter()
            for _ in range(steps):
                bump[4, 256](d_u)
                bump[4, 256](d_u)
            return time.perf_counter() - start

        def bench_shown(d_u, steps):
            start = time.perf_counter()
            for step in range(steps):
                bump[4, 256](d_u)
                if step % 10 == 0:
                    print(d_u.copy_to_host()[0])
            return time.perf_counter() - start
    ''')
    assert [(code, line) for code, line, _ in found] == [("KL504", 7)]
    message = found[0][2]
    assert "2 launches on each of the `steps` iterations of the loop at line" in message
    assert "below 10,000 iterations" in message


def test_a_call_through_a_table_of_functions_runs_them_and_is_no_launch(tmp_path):
    facts, found = findings(tmp_path, '''
        def on_host(u):
            u += 1.0


        def on_device(u):
            d_u = cuda.to_device(u)
            bump[4, 256](d_u)
            d_u.copy_to_host(u)


        MODES = {"host": on_host, "device": on_device}


        def timed(u, mode, count=100):
            start = time.perf_counter()
            for _ in range(count):
                MODES[mode](u)
            return time.perf_counter() - start
    ''')
    assert sorted(e.what for e in facts.events if e.kind == "call" and e.function == "timed") == [
        "on_device", "on_host"]
    assert not [e for e in facts.events if e.kind == "launch" and e.function == "timed"]
    assert not [code for code, _, _ in found if code == "KL504"]  # every mode ends waited for


ROUND_TRIP = '''
    def weigh(d_u, d_w, d_costs, steps, keep=None):
        for step in range(steps):
            bump[4, 256](d_u)
            bump[4, 256](d_costs)
            costs = d_costs.copy_to_host()
            weights = np.exp(-costs)
            if weights.sum() > 0:
                weights = weights / weights.sum()
            {tail}
            cuda.to_device(weights, to=d_w)
            bump[4, 256](d_w)
            bump[4, 256](d_u)
'''


@pytest.mark.parametrize("tail, reported", [
    ("pass", True),  # computed and uploaded again: a round trip
    ("print(weights.max())", False),  # shown on the host: read
    ("keep.append(weights)", False),  # handed to another call
    ("if weights.max() > 0.5: break", False),  # decides whether the loop goes on
])
def test_a_copy_only_uploaded_again_is_a_round_trip(tmp_path, tail, reported):
    facts, found = findings(tmp_path, ROUND_TRIP.replace("{tail}", tail))
    copy = next(e for e in facts.events if e.kind == "copy-back")
    assert bool(copy.detail.get("round_trip")) is reported
    assert [code for code, _, _ in found if code == "KL503"] == (["KL503"] if reported else [])


def test_a_round_trip_value_kept_for_the_next_iteration_is_carried(tmp_path):
    facts, _ = findings(tmp_path, '''
        def smooth(d_u, d_w, steps):
            last = np.zeros(4)
            for step in range(steps):
                bump[4, 256](d_u)
                blended = 0.5 * last
                fresh = d_u.copy_to_host()
                last = fresh[:4]
                cuda.to_device(last + blended, to=d_w)
                bump[4, 256](d_w)
    ''')
    copy = next(e for e in facts.events if e.kind == "copy-back")
    assert not copy.detail.get("round_trip")  # `last` is read by the next iteration before the copy


def test_a_gate_of_interval_one_runs_every_step_unless_a_caller_may_pass_another(tmp_path):
    facts, _ = findings(tmp_path, '''
        EVERY = 1


        def constant(d_u, steps):
            for step in range(steps):
                bump[4, 256](d_u)
                if step % EVERY == 0:
                    d_u.copy_to_host()


        def default(d_u, steps, every=1):
            for step in range(steps):
                bump[4, 256](d_u)
                if step % every == 0:
                    d_u.copy_to_host()
    ''')
    places = {e.function: e.rate.levels[-1].place for e in facts.events if e.kind == "copy-back"}
    assert places == {"constant": "every", "default": "periodic"}


def test_a_copy_kept_in_an_attribute_the_loop_reads_after_the_call_is_needed(tmp_path):
    """`fluid.step()` copies density and velocities back into `self.<field>`; the loop draws
    `fluid.density`: only the velocities' copies are waited for for nothing, in this file's
    class and in another file's alike. What the next step uploads is what the device copied
    back: the same data sent back again (KL501), not the host's own update."""
    classes = '''
        class Fluid:
            def __init__(self, n):
                self.density = np.zeros(n, dtype=np.float32)
                self.velocity = np.zeros(n, dtype=np.float32)

            def step(self):
                d_density = cuda.to_device(self.density)
                d_velocity = cuda.to_device(self.velocity)
                bump[4, 256](d_velocity)
                bump[4, 256](d_density)
                self.density = d_density.copy_to_host()
                self.velocity = d_velocity.copy_to_host()
    '''
    loop = '''
        fluid = Fluid(1024)
        for frame in range(1_000):
            fluid.step()
            draw(fluid.density)
    '''
    (tmp_path / "here").mkdir()
    (tmp_path / "split").mkdir()
    _, here = findings(tmp_path / "here", classes + loop)
    _, split = findings(tmp_path / "split", "from fluid import Fluid\n" + textwrap.dedent(loop),
                        fluid=KERNEL + textwrap.dedent(classes))
    for found in (here, split):
        assert [code for code, _, _ in found] == ["KL501", "KL503"]
        assert "`d_velocity.copy_to_host()`" in found[1][2] and "d_density" not in found[1][2]


def test_cupys_sparse_lu_factorizes_on_the_host_and_so_waits(tmp_path):
    _, found = findings(tmp_path, '''
        import cupy as cp
        from cupyx.scipy.sparse.linalg import splu

        def factorize(a):
            a = cp.asarray(a)
            start = time.perf_counter()
            shifted = a + a.T  # queued
            solver = splu(shifted)  # SciPy's LU on the host: copies the matrix back, waits
            return solver, time.perf_counter() - start

        def shift(a):
            a = cp.asarray(a)
            start = time.perf_counter()
            shifted = a + a.T
            return shifted, time.perf_counter() - start
    ''')
    assert [(code, line) for code, line, _ in found] == [("KL504", 16)]


def test_a_loop_read_again_for_other_types_leaves_the_events_at_their_own_loop(tmp_path):
    """A function read again for a mode's or a call's types reads its loops again, as loops of
    their own with no event in them (a class's mode worlds: `read_worlds`). Each event keeps the
    rate of the loop it is in, and the step loop's findings stay, whichever loop was read last."""
    import ast
    from dataclasses import replace

    from kernlint.python.host import rates

    facts, found = findings(tmp_path, '''
        def run(n, steps):
            u = np.ones(n)
            for step in range(steps):
                bump[4, 256](u)
    ''')
    assert [code for code, _, _ in found] == ["KL502", "KL503"]
    (loop,) = facts.loops.values()
    again = max(facts.loops) + 1
    facts.loops[again] = replace(loop, id=again)  # the same `for`, read again: no event is in it
    for event in facts.events:
        event.rate = None
    rates.attach(facts, ast.parse((tmp_path / "run.py").read_text()))
    launch = next(e for e in facts.events if e.kind == "launch")
    assert launch.rate.step_loop.loop == loop.id
    assert [code for code, _, _ in ((f.code, f.line, f.message) for f in _host_rules(facts, True))] == [
        "KL502", "KL503"]


def test_a_size_the_device_counted_is_marked_and_an_extent_is_not(tmp_path):
    """A size read from the values of a copy back (directly, or through names computed from it)
    is a count the device made this time; the shape of a copy is an extent, the same each call."""
    facts, _ = findings(tmp_path, '''
        def compact(d_img, d_count):
            bump[4, 256](d_count)
            found = int(d_count.copy_to_host()[0])
            limits = d_count.copy_to_host()
            largest = max(limits)
            d_points = cuda.device_array((found, 2))
            d_rest = cuda.device_array(largest + 1)
            d_same = cuda.device_array(limits.shape[0])
            d_fixed = cuda.device_array(d_img.shape)
            return d_points, d_rest, d_same, d_fixed
    ''')
    counted = {tuple(e.detail["assigned"]): e.detail["counted"] for e in facts.events if e.kind == "alloc"}
    assert counted == {("d_points",): True, ("d_rest",): True, ("d_same",): False, ("d_fixed",): False}
