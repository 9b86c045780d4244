"""A loop's kind, from what its code does: ``step`` (the same work again, on evidence),
``search`` (a value computed in it, or an element of an array it writes, decides whether to go on,
and its launches keep nothing between tries; a convergence loop building on device state is a step), ``sweep`` (devices, files,
sizes, launch configurations, chunks, parts, runs of a whole step loop, test cases),
``setup``, ``few``, ``benchmark`` (timed, its subject a transfer), ``verify`` (each iteration
checks a result copied back against the host's) or ``unknown``."""

from __future__ import annotations

import ast
import re
from typing import Callable, Dict, Iterator, List, Mapping, Optional, Sequence, Set, Tuple

from .changes import Changes
from .facts import Context
from .places import catch_up, gated_nodes
from .syntax import (ARITHMETIC, CLOCKS, LOOPS, SCOPES, assigned_names, calls_in, capture_read, dotted_name, int_value,
                     is_range_call, is_true, names_read, names_read_in_order, own_nodes, short_text)
from ...syntax import child_nodes, walk_nodes

# a literal count up to this is a few pieces of one computation (layers, chunks), not steps
FEW = 16
# array attributes and methods: the loop's item used through them is still the item (data)
_ARRAY_ATTRIBUTES = {"size", "shape", "ndim", "dtype", "nbytes", "T", "ravel", "flatten", "reshape", "astype",
                     "copy", "view", "transpose", "squeeze", "item", "tolist", "sum", "mean", "max", "min"}
# allocations whose first argument (or `shape=`) is a size: a loop variable there sweeps sizes
_SIZED = {"device_array", "pinned_array", "mapped_array", "managed_array", "zeros", "ones", "empty", "full", "rand",
          "randn", "random", "random_sample", "standard_normal", "arange", "linspace", "eye", "identity"}
# allocations given a start and a stop: their size is the stop less the start
_RANGES = {"arange", "linspace"}
# calls that put data on a device or allocate there (a loop sending each item is a stream)
_TO_DEVICE = {"to_device", "asarray", "array", "copy_to_device", "device_array", "device_array_like", "empty",
              "zeros", "ones", "empty_like", "zeros_like", "from_numpy", "pinned_array", "mapped_array"}
# iterating these visits files
_FILES = {"glob", "iglob", "rglob", "listdir", "scandir", "walk", "iterdir"}
# what reads a file's records into arrays (NumPy, h5py, SciPy, pandas, imaging, pickle, JSON)
_READERS = {"load", "loadtxt", "genfromtxt", "fromfile", "loadmat", "memmap", "File", "read_csv", "read_hdf",
            "read_parquet", "read_pickle", "read_table", "read_excel", "imread", "open"}
# a file's name: no spaces, an extension
_FILE_NAME = re.compile(r"^[^\s{}]+\.[A-Za-z][A-Za-z0-9]{0,5}$")
# calls that split one array into pieces: `np.array_split(x, 8)`
_SPLITS = {"array_split", "split", "hsplit", "vsplit", "dsplit"}
# calls that select a GPU: a loop whose variable reaches one is a loop over devices
_SELECT_DEVICE = {"select_device", "set_device", "Device", "use_device"}
# the GPUs there are: `cuda.list_devices()`, CuPy's and PyTorch's device counts
_DEVICE_COUNTS = {"list_devices", "getDeviceCount", "device_count"}
# transfers and allocations: what a timed loop doing them measures
_MEASURED = _TO_DEVICE | {"copy_to_host", "asnumpy", "get", "managed_array", "pinned_array_like",
                          "mapped_array_like", "device_array_like", "to_host"}
# what stamps a time: clock reads, CUDA events
_STAMPS = CLOCKS | {"record", "elapsed_time", "event_elapsed_time", "timeit", "repeat"}
# the words of a name that says time steps (a tie-breaker only: what the code does decides first)
# what a method that advances an object by a step is called (`sim.step()`, `beam.advance(dt)`,
# a model trained on one more batch: `net.learn(batch)`)
_STEP_CALLS = {"step", "advance", "evolve", "integrate", "propagate", "timestep", "time_step", "update", "learn",
               "train_step"}
_STEP_WORDS = {"t", "step", "steps", "nstep", "nsteps", "timestep", "timesteps", "tstep", "nt", "it", "iter", "iters",
               "niter", "niters", "maxiter", "iteration", "iterations", "frame", "frames", "nframes", "epoch",
               "epochs", "generation", "generations", "cycle", "cycles", "kt", "istep", "itime"}
# what makes a list of frames into a video or an animated image (a frame rate given says so too)
_ANIMATION_WRITERS = {"ImageSequenceClip", "mimsave", "mimwrite", "ArtistAnimation", "write_gif", "write_apng"}
_FRAME_RATES = {"fps", "framerate", "frame_rate"}
# what copies a device result back to the host (numba, CuPy, PyTorch)
_COPIES_BACK = {"copy_to_host", "asnumpy", "get", "to_host", "numpy"}
# comparisons of two arrays: `np.allclose(cpu, gpu)` asserted checks one against the other
_COMPARISONS = {"allclose", "array_equal", "array_equiv", "isclose"}
# `from numpy.testing import assert_allclose`: numpy.testing's assertions called bare
_TESTING_ASSERTS = {"assert_allclose", "assert_array_equal", "assert_array_almost_equal", "assert_almost_equal",
                    "assert_equal", "assert_array_less", "assert_array_max_ulp", "assert_array_almost_equal_nulp"}
# what polls the keyboard between frames (OpenCV's windows): a key pressed ends a frame loop
_KEY_POLLS = {"waitKey", "waitKeyEx", "pollKey"}
# what only waits (a loop doing nothing else polls a flag, it does no work of its own)
_WAITS = {"synchronize", "sleep", "wait", "join", "pause"}
# what wraps an iterable in a progress bar (tqdm, rich, progressbar2, alive-progress)
# calls that end the program (`sys.exit()`, `os._exit(0)`, `quit()`)
_EXITS = {"exit", "_exit", "quit", "abort"}
# calls that hand back their first argument's data in another form
_CONVERSIONS = {"asarray", "array", "ascontiguousarray", "list", "tuple"}
_PROGRESS_BARS = {"tqdm", "trange", "tqdm_notebook", "track", "progressbar", "alive_it"}
# what reports progress: print, a logger's levels, a stream's write
_REPORTS = {"print", "info", "debug", "warning", "write", "set_description", "set_postfix"}
# how many statements before and after a loop a clock read times it
_TIMED_WITHIN = 3


def _work_statement(node: ast.AST) -> bool:
    """A call made for what it does, not for a value (``step()``, ``k[grid, block](u)``)."""
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)


class LoopKinds:
    """A loop's kind, from what its code does (in this order): a test's loop, set-up,
    devices, a value computed in it deciding whether to go on, files, sizes, chunks, a few
    literal iterations, a fixed list of values, parts (objects), launch configurations, a
    benchmark, the evidence of steps, runs of an inner step loop, and last a step-like name.
    A loop that verifies (each iteration checks what it copied back) is that first of all."""

    def __init__(self, node: ast.stmt, context: Context, constants: Mapping[str, int], changes: Changes,
                 lists: Callable[[], Set[str]] = set,
                 around: Tuple[Sequence[ast.stmt], Sequence[ast.stmt]] = ((), ())):
        """``around``: the statements of the loop's block before it and after it (a clock
        read there times the loop)."""
        self.node, self.context, self.constants, self.lists = node, context, constants, lists
        self.around = around
        self.facts = changes
        self.is_for = isinstance(node, (ast.For, ast.AsyncFor))
        self.variables = set(assigned_names(node.target)) if self.is_for else set()

    def decide(self) -> Tuple[str, str, Optional[int]]:
        trips = self._trips()
        if self.context.test:
            return "sweep", f"test cases: {self.context.test}", trips
        if self.context.setup:
            return "setup", self.context.setup, trips
        verified = self._verification()
        if verified:
            return "verify", verified, trips
        for check in (self._devices, self._search, self._files, self._sizes, self._chunks, self._consumed,
                      self._reduction, self._fixed_list, self._indexes_list):
            found = check()
            if found:
                return found[0], found[1], trips
        if self.is_for and self._few(trips) and not isinstance(self.node.iter, (ast.List, ast.Tuple, ast.Set)):
            return "few", f"{trips} iterations (`{short_text(self.node.iter)}`): a few, not steps", trips
        if self.is_for and isinstance(self.node.iter, (ast.List, ast.Tuple, ast.Set)):
            return "sweep", f"a fixed list of {len(self.node.iter.elts)} values", trips
        for check in (self._parts, self._configurations, self._measured, self._blocks, self._slots, self._steps,
                      self._runs,
                      self._records, self._named, self._launched_items, self._progress):
            found = check()
            if found:
                return found[0], found[1], trips
        return "unknown", self._unknown(), trips

    def _trips(self) -> Optional[int]:
        return _trips(self.node.iter, self.constants) if self.is_for else self._counted()

    def _counted(self) -> Optional[int]:
        """``counter = 0`` ... ``while counter < n: ...; counter += 1`` with ``n`` a constant (a
        parameter's default among them): at most ``n`` iterations. Only where the counter is set
        to a constant right before the loop, goes up by one in a statement of the body's own
        level and nowhere else, and no ``continue`` can skip that statement (a ``break`` only
        leaves earlier: the count stays an upper bound)."""
        test = self.node.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Lt, ast.LtE))
                and isinstance(test.left, ast.Name)):
            return None
        counter, bound = test.left.id, int_value(test.comparators[0], self.constants)
        if bound is None:
            return None
        steps = [s for s in self.node.body if _raises_by_one(s, counter)]
        written = [n for n in walk_nodes(self.node) if isinstance(n, ast.Name) and n.id == counter and isinstance(
            n.ctx, ast.Store)]
        if len(steps) != 1 or len(written) != 1 or any(isinstance(n, ast.Continue) for n in own_nodes(self.node.body)):
            return None
        start = None
        for statement in reversed(self.around[0]):
            if not any(isinstance(n, ast.Name) and n.id == counter and isinstance(n.ctx, ast.Store)
                       for n in walk_nodes(statement)):
                continue
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(
                    statement.targets[0], ast.Name):
                start = int_value(statement.value, self.constants)
            break
        if start is None:
            return None
        return max(0, bound - start + (1 if isinstance(test.ops[0], ast.LtE) else 0))

    def _few(self, trips: Optional[int]) -> bool:
        """A handful of iterations the code states; not a count that is a parameter's default of
        0 or 1 (``def simulate(self, time_steps=1)``): callers pass the count, one is its least."""
        if trips is None or trips > FEW:
            return False
        bound = self.node.iter if self.is_for else self.node.test
        return not (names_read(bound) & set(self.context.called_counts))

    def _devices(self):
        """A loop over GPUs, by what it does: it iterates ``cuda.gpus``/``list_devices()``,
        or selects the device its variable names."""
        if not self.is_for:
            return None
        for sub in walk_nodes(self.node.iter):
            if isinstance(sub, ast.Attribute) and dotted_name(sub).endswith("cuda.gpus") or isinstance(
                    sub, ast.Call) and dotted_name(sub.func).rsplit(".", 1)[-1] in _DEVICE_COUNTS:
                return "sweep", f"devices: iterates `{short_text(self.node.iter)}`"
        for sub in own_nodes(self.node.body):
            if isinstance(sub, ast.Call) and dotted_name(sub.func).rsplit(".", 1)[-1] in _SELECT_DEVICE and any(
                    names_read(a) & self.variables for a in sub.args):
                return "sweep", f"devices: selects `{short_text(sub)}` on each iteration"
            if isinstance(sub, ast.Subscript) and dotted_name(sub.value).endswith(".gpus") and (
                    names_read(sub.slice) & self.variables):
                return "sweep", f"devices: `{short_text(sub)}` on each iteration"
        return None

    def _verification(self) -> str:
        """Each iteration checks a device result against the host's own (``np.testing.
        assert_allclose(cpu, gpu)``, ``assert np.allclose(cpu, d_x.copy_to_host())``): a check
        on every iteration's path (not behind a branch) given a value the iteration copies back.
        The loop is the check, not the work whose speed matters: the per-step host rules
        (KL501, KL502, KL503, KL505) report nothing in it."""
        copies = {name for sub in own_nodes(self.node.body) if isinstance(sub, ast.Assign) and _copy_back(sub.value)
                  for target in sub.targets for name in assigned_names(target)}
        for sub in own_nodes(self.node.body):  # `d_x.copy_to_host(x)`: `x` holds the copy
            if isinstance(sub, ast.Call) and dotted_name(sub.func).rsplit(".", 1)[-1] == "copy_to_host":
                copies |= {dotted_name(a) for a in sub.args[:1]} | {
                    dotted_name(k.value) for k in sub.keywords if k.arg == "ary"}
        copies.discard("")
        for check in _checks(self.node.body):
            compared = check.args[:2]
            if any(_copy_back(a) or _loaded(a) & copies for a in compared):
                return (f"verification: each iteration checks a result it copied back (`{short_text(check)}`); "
                        f"the per-step host rules (KL501, KL502, KL503, KL505) report nothing in it")
        return ""

    def _deciding_tests(self) -> List[ast.AST]:
        """The tests that decide whether the loop goes on: a ``while``'s condition and the
        tests of branches that ``break`` out of it or ``return``."""
        tests: List[ast.AST] = []
        if isinstance(self.node, ast.While) and not is_true(self.node.test):
            tests.append(self.node.test)
        for sub in own_nodes(self.node.body):
            if isinstance(sub, ast.If) and any(_exits_loop(arm) for arm in (sub.body, sub.orelse)):
                tests.append(sub.test)
        return tests

    def _search(self):
        """A value the loop computes (not a counter, not a clock) decides whether it goes
        on: a retry, a convergence; a call in the deciding test counts the same."""
        facts = self.facts
        if self._generations():
            return None  # the same work again, with a way out: a step loop whose leaving branch decides
        if self._capped():
            return None  # a solver's iterations up to a count: the counter's test decides (`_steps`)
        fixed = self._fixed_point()
        if fixed:
            return "step", f"iterations to a fixed point: `{fixed}` goes on while a pass still changes something"
        requests, timing = self._stop_requests(), self._timing()
        for test in self._deciding_tests():
            for name in names_read_in_order(test):
                if name not in facts.changed:
                    continue
                if name in facts.counters or name in timing or name in self.variables or name in requests or \
                        name in self._input_flags():
                    continue
                return "search", f"`{name}`, computed in the loop, decides whether it goes on (`{short_text(test)}`)"
            for call in calls_in(test):
                callee = dotted_name(call.func).rsplit(".", 1)[-1]
                if callee not in CLOCKS and callee not in ARITHMETIC and callee != "ord" and \
                        not self._more_input(call, test):
                    return "search", f"`{short_text(call)}` decides whether it goes on"
            element = self._element_written(test)
            if element:
                return "search", element
        return None

    def _fixed_point(self) -> str:
        """The test of ``while n != last_n:`` with ``last_n = n`` before ``n`` is computed again
        ("" if none): an iteration to a fixed point, which goes on as long as each pass still
        changes something, not a retry that normally runs once."""
        if not isinstance(self.node, ast.While):
            return ""
        previous = {(sub.targets[0].id, sub.value.id) for sub in own_nodes(self.node.body)
                    if isinstance(sub, ast.Assign) and len(sub.targets) == 1 and isinstance(sub.targets[0], ast.Name)
                    and isinstance(sub.value, ast.Name)}
        for test in self._deciding_tests():
            for node in walk_nodes(test):
                if isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], ast.NotEq) and \
                        isinstance(node.left, ast.Name) and isinstance(node.comparators[0], ast.Name):
                    pair = {node.left.id, node.comparators[0].id}
                    if any({last, current} == pair for last, current in previous):
                        return short_text(node)
        return ""

    def _capped(self) -> bool:
        """``while (sum(over) > 1 or sum(under) > 1) and it != max_iter:`` with ``it += 1`` in the
        body: an iterative solver, as many iterations as its tolerance takes up to a count (a
        parameter, not a handful written out); a retry that normally runs once has no such count."""
        test = self.node.test if isinstance(self.node, ast.While) else None
        if not (isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And)):
            return False
        for part in test.values:
            if isinstance(part, ast.Compare) and len(part.ops) == 1 and isinstance(
                    part.ops[0], (ast.Lt, ast.LtE, ast.NotEq)):
                left, right = part.left, part.comparators[0]
                counted = [isinstance(side, ast.Name) and side.id in self.facts.counters for side in (left, right)]
                if sum(counted) == 1:
                    bound = int_value(right if counted[0] else left, self.constants)
                    if bound is None or bound > FEW:
                        return True
        return False

    def _more_input(self, call: ast.Call, test: ast.AST) -> bool:
        """A call in a ``while``'s own test that only says whether there is another item: a
        function of the module that returns True or False and nothing else (``while
        video.update():``, the frame's work done in it), or a capture's ``isOpened()``,
        ``grab()`` or ``read()[0]`` (OpenCV's success flag), on an object the loop does not
        rebind and given nothing the loop computes. A computed value it returns (``while not
        converged(d_x):``) still decides as a search."""
        func = call.func
        if dotted_name(func).rsplit(".", 1)[-1] in _KEY_POLLS and not (names_read(call) & self.facts.changed):
            return True  # `if cv2.waitKey(1) == ord("q"): break`: the user asks to stop
        if not isinstance(self.node, ast.While) or not any(c is call for c in calls_in(self.node.test)):
            return False
        owner = dotted_name(func.value) if isinstance(func, ast.Attribute) else ""
        if owner in self.facts.changed or any(names_read(a) & self.facts.changed
                                              for a in list(call.args) + [k.value for k in call.keywords]):
            return False
        name = dotted_name(func).rsplit(".", 1)[-1]
        if name in self.context.flag_returns:
            return True
        if not owner or call.args:
            return False
        flagged = name in ("isOpened", "grab") or name == "read" and any(
            isinstance(sub, ast.Subscript) and sub.value is call and int_value(sub.slice, {}) == 0 for sub in walk_nodes(test))
        return flagged

    def _input_flags(self) -> Set[str]:
        """Names the loop binds only to a capture's success flag (``ok, image = capture.read()``,
        ``ok = capture.grab()``, the capture neither rebound in the loop nor given anything):
        whether another frame came, not a value of the work; or only to the key the user
        pressed (``k = cv2.waitKey(1) & 0xFF``, then ``if k == 27: break``): the user asks to stop."""
        found: Dict[str, bool] = {}
        for sub in own_nodes(self.node.body):
            if not isinstance(sub, ast.Assign):
                continue
            value = sub.value
            if self._key_poll(value):
                for target in sub.targets:
                    if isinstance(target, ast.Name):
                        found[target.id] = found.get(target.id, True)
                continue
            capture = isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and not value.args \
                and not value.keywords and dotted_name(value.func.value) not in self.facts.changed | {""}
            for target in sub.targets:
                if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
                    found[target.elts[0].id] = found.get(target.elts[0].id, True) and capture and \
                        capture_read(target, value) is not None
                elif isinstance(target, ast.Name):
                    found[target.id] = found.get(target.id, True) and capture and value.func.attr == "grab"
        return {name for name, flag in found.items() if flag}

    def _key_poll(self, value: ast.AST) -> bool:
        """``cv2.waitKey(1)``, masked or not (``cv2.waitKey(1) & 0xFF``), given nothing the loop
        computes: which key the user pressed."""
        while isinstance(value, ast.BinOp) and isinstance(value.op, ast.BitAnd) and int_value(value.right, {}) is not None:
            value = value.left
        return isinstance(value, ast.Call) and dotted_name(value.func).rsplit(".", 1)[-1] in _KEY_POLLS and not (
            names_read(value) & self.facts.changed)

    def _more_input_test(self) -> str:
        """A ``while`` whose deciding tests read nothing the loop computes: calls that say whether
        there is another item (``_more_input``), a capture's success flag (``_input_flags``) and
        flags the loop never sets, or sets only when asked to stop (``while self.running:``,
        ``while video.update():``, ``while True: ok, image = capture.read(); if not ok: break``):
        a frame loop, one item each."""
        node = self.node
        if not isinstance(node, ast.While):
            return ""
        tests = self._deciding_tests()
        if not tests:
            return ""
        free = self._stop_requests() | self._input_flags()
        calls = [c for t in tests for c in calls_in(t)
                 if dotted_name(c.func).rsplit(".", 1)[-1] not in ("ord", "len")]
        if any(not self._more_input(c, node.test) for c in calls):
            return ""
        called = {dotted_name(c.func) for c in calls} | {
            dotted_name(c.func.value) for c in calls if isinstance(c.func, ast.Attribute)}
        read = {n for t in tests for n in names_read(t) if n not in called}
        if read & (self.facts.changed - free):
            return ""
        if not calls and not read:
            return ""
        if not [c for t in tests if t is node.test for c in calls_in(t)] and not any(
                isinstance(sub, ast.Call) and dotted_name(sub.func).rsplit(".", 1)[-1] not in _WAITS
                for sub in own_nodes(node.body)):
            return ""  # `while self.running: time.sleep(0.1)`: it waits for the flag, no work of its own
        return (f"a frame loop: `{short_text(tests[0])}` says whether there is another item, not what the loop "
                f"computes")

    def _generations(self) -> str:
        """A loop of many iterations (a ``for`` not over a handful; a ``while`` not counting up
        to one) whose launches share device arrays the loop keeps (``_shared_state``: the
        population, the field, the frontier), left when a value read on the host says so (a
        fitness target, a stall count, centres that stopped moving, an empty frontier): each
        iteration is a generation or a solver step that builds on the last, and the test only
        decides when to stop. A search or a retry redoes its work from scratch with what the host
        read (a larger buffer): it normally runs once."""
        if self._few(self._trips()):
            return ""
        assigned: Set[str] = set()  # (what the iteration has assigned before each statement)
        for statement in _simple_statements(self.node.body):
            for sub in walk_nodes(statement):
                if isinstance(sub, ast.Call) and dotted_name(sub.func).rsplit(".", 1)[-1] in _SIZED and any(
                        ((_size_names(a) | _attribute_sizes(a)) & self.facts.changed) - assigned for a in sub.args[:1]):
                    # a buffer sized by what an earlier iteration changed: a retry growing it (a size
                    # the iteration computes first, `np.zeros(rows * cols)`, is that iteration's own)
                    return ""
            assigned |= _reads_writes(statement)[1]
        if not self.is_for and not self._counted_up():
            # (a `while` that hands a value on walks a structure, `node = node.parent`, or retries
            # with it: only device arrays its launches keep, and a test of what the device computed,
            # show it steps; a host count going down, `while blocks > 1:`, is a reduction tree)
            return self._shared_state() if self._decided_by_device() else ""
        return self._shared_state() or self._state_handed_on() or self._grown_structure()

    def _counted_up(self) -> bool:
        """``while count <= generations:`` with ``count += 1`` in the body and a bound that is
        not a handful written out: a ``for`` over a range in another spelling, whatever
        ``break`` leaves it earlier."""
        test = self.node.test
        if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(
                test.ops[0], (ast.Lt, ast.LtE, ast.NotEq)) and isinstance(test.left, ast.Name)):
            return False
        counter = test.left.id
        if counter not in self.facts.counters or counter not in self.facts.incremented:
            return False
        bound = int_value(test.comparators[0], self.constants)
        return bound is None or bound > FEW

    def _decided_by_device(self) -> bool:
        """Whether a deciding test reads what the device computed: a copy back, in the test or
        in a value the loop assigns and the test reads (``difference = norm(old - new)`` of ``new =
        d_new.copy_to_host()``), or an element of an array a launch writes (``err[0] > tol``)."""
        assignments = self.facts.assignments
        for test in self._deciding_tests():
            if _copy_back(test) or self._element_written(test):
                return True
            names, seen = set(names_read(test)), set()
            while names - seen:
                name = sorted(names - seen)[0]
                seen.add(name)
                for value in assignments.get(name, ()):
                    if _copy_back(value):
                        return True
                    names |= set(names_read(value)) & set(assignments)
        return False

    def _element_written(self, test: ast.AST) -> str:
        """An element the test reads (``err[0] > tol``) of an array the loop writes: handed to
        a launch (numba-cuda copies a host array back after it; a device array's element is a
        copy back), filled by a copy back (``d_err.copy_to_host(err)``, ``out=err``) or stored into with a
        computed value. The array's name does not change, but its value is the iteration's."""
        arrays = {dotted_name(sub.value): sub for sub in walk_nodes(test) if isinstance(sub, ast.Subscript)}
        arrays.pop("", None)
        if not arrays:
            return ""
        written: Set[str] = set()
        for launch in _launches(self.node.body):
            written |= {dotted_name(a) for a in list(launch.args) + [k.value for k in launch.keywords]}
        for sub in own_nodes(self.node.body):
            if isinstance(sub, ast.Call):
                copy_back = dotted_name(sub.func).rsplit(".", 1)[-1] == "copy_to_host"
                written |= {dotted_name(a) for a in sub.args[:1] if copy_back}
                written |= {dotted_name(k.value) for k in sub.keywords if k.arg == "out" or copy_back and k.arg == "ary"}
            elif isinstance(sub, (ast.Assign, ast.AugAssign)) and not isinstance(sub.value, ast.Constant):
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                written |= {dotted_name(t.value) for t in targets if isinstance(t, ast.Subscript)}
        for name, element in arrays.items():
            if name in written:
                return (f"`{short_text(element)}`, an element of an array the loop writes, decides whether it goes "
                        f"on (`{short_text(test)}`)")
        return ""

    def _stop_requests(self) -> Set[str]:
        """Flags the loop only sets to a constant (``running = False``), each time in a branch
        whose test reads nothing but the items of an inner loop over a queue it fetches from
        outside (``for event in pygame.event.get(): if event.type == QUIT:``): the loop goes on
        until asked to stop (a window closed, a key pressed), and no value of its work decides
        that, so it is not a search. A flag set where a computed value says so (``if err <
        tol: done = True``) still decides like that value."""
        found: Set[str] = set()
        for name, values in self.facts.assignments.items():
            if "." in name or not values or not all(isinstance(v, ast.Constant) for v in values):
                continue
            guards = list(_guards(self.node.body, name, (), ()))
            if guards and all(self._outside_input(tests, queues) for tests, queues in guards):
                found.add(name)
        return found

    def _timing(self) -> Set[str]:
        """Clock reads and what the loop computes from them (``elapsed = time() - start``,
        ``left = max(0, limit - elapsed)``): a time limit, not a value of the work."""
        timing = set(self.facts.clocks)
        while True:
            grown = timing | {name for name, values in self.facts.assignments.items()
                              if values and all(_reads_clock(v, timing) for v in values)}
            if grown == timing:
                return timing
            timing = grown

    def _outside_input(self, tests: Sequence[ast.expr], queues: Dict[str, ast.expr]) -> bool:
        """Whether branch tests read only the items of queues fetched from outside (an inner
        ``for`` over a call that reads nothing the loop changes), a time limit, and names the
        loop leaves alone."""
        if not tests:
            return False  # set unconditionally: not a request
        timing = self._timing()
        for test in tests:
            if any(dotted_name(c.func).rsplit(".", 1)[-1] not in CLOCKS | ARITHMETIC for c in calls_in(test)):
                return False  # a call's result decides (`if converged(d_x) < tol:`), as in `_search`
            for name in names_read(test) - timing:
                queue = queues.get(name)
                if queue is not None:
                    if not isinstance(queue, ast.Call) or names_read(queue) & self.facts.changed:
                        return False
                elif name in self.facts.changed:
                    return False
        return True

    def _files(self):
        if self.is_for and any(isinstance(sub, ast.Call) and dotted_name(sub.func).rsplit(".", 1)[-1] in _FILES
                               for sub in walk_nodes(self.node.iter)):
            return "sweep", f"files: `{short_text(self.node.iter)}`"
        return None

    def _derived(self) -> Set[str]:
        """The loop's variables and the names the body computes from them by arithmetic
        (``blksz = warp * multiplier``, ``n = blksz * grid``): the iteration's parameters, not
        its data."""
        derived, assignments = set(self.variables), self.facts.assignments
        while True:
            grown = derived | {name for name, values in assignments.items()
                               if any(names_read(v) & derived and _arithmetic(v) for v in values)}
            if grown == derived:
                return derived
            derived = grown

    def _sizes(self):
        """Its variable (bare, or an item it indexes), or a name computed from it, becomes an
        allocation's size."""
        variables = self._derived() if self.is_for else self.facts.counters
        if not variables:
            return None
        for sub in own_nodes(self.node.body):
            if isinstance(sub, ast.Call) and dotted_name(sub.func).rsplit(".", 1)[-1] in _SIZED:
                shapes = list(sub.args[:2] if dotted_name(sub.func).endswith(("rand", "randn")) else sub.args[:1])
                if dotted_name(sub.func).rsplit(".", 1)[-1] in _RANGES and len(sub.args) >= 2:
                    # `np.arange(i, i + batch)`: a start and a stop; its size is what the stop adds
                    # to the start (`batch`), the same for every `i`
                    shapes = [ast.Tuple(elts=[ast.Name(id=n) for n in sorted(
                        _size_names(sub.args[1]) - _size_names(sub.args[0]))])]
                shapes += [k.value for k in sub.keywords if k.arg in ("shape", "size")]
                if any(_size_names(s) & variables for s in shapes):
                    return "sweep", f"sizes: `{short_text(sub)}` on each iteration"
        return None

    def _chunks(self):
        """Iterations work on slices of the same data bounded by the loop's own variable
        (a ``for``'s, or the counter a ``while`` tests). Not where a progress bar wraps the
        iterable: blocks streamed long enough to watch (``for f in tqdm(range(0, n, block))``)
        are the work's steps, not the pieces of one computation."""
        if self._watched():
            return None
        variables = self.variables | (self._deciding_counters() if not self.is_for else set())
        for sub in own_nodes(self.node.body):
            if isinstance(sub, ast.Slice) and any(
                    part is not None and names_read(part) & variables for part in (sub.lower, sub.upper)):
                return "sweep", f"chunks of one array: `{short_text(sub)}`"
        return None

    def _consumed(self):
        """A ``while`` that works through one job in batches: its deciding counter shrinks by
        what an offset it passes on grows by (``offset += batch * block`` beside ``remaining -=
        batch * block``): chunks of one computation, not steps."""
        if self.is_for:
            return None
        deciding = self._deciding_counters()
        shrinks: Dict[str, str] = {}
        grows: Dict[str, str] = {}
        for sub in own_nodes(self.node.body):
            if isinstance(sub, ast.AugAssign) and isinstance(sub.target, ast.Name):
                amount = ast.unparse(sub.value)
                if isinstance(sub.op, ast.Sub) and sub.target.id in deciding:
                    shrinks[amount] = sub.target.id
                elif isinstance(sub.op, ast.Add):
                    grows[amount] = sub.target.id
        for amount, remaining in shrinks.items():
            offset = grows.get(amount)
            if offset is not None and offset not in deciding and any(
                    isinstance(sub, ast.Call) and any(offset in names_read(a) for a in sub.args)
                    for sub in own_nodes(self.node.body)):
                return "sweep", (f"chunks of one job: `{offset}` advances by what `{remaining}` shrinks by "
                                 f"(`{amount}`)")
        return None

    def _indexes_list(self):
        """A ``range`` loop whose variable picks an item of a list the function spells out
        (``attr_list[i_attr]``, the list written as a literal and appended to): one iteration
        per item of a handful, whatever bound the ``range`` is given."""
        if not (self.is_for and is_range_call(self.node.iter)):
            return None
        for sub in own_nodes(self.node.body):
            if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name) and sub.value.id in self.lists() \
                    and _bare_index(sub.slice) & self.variables:
                return "few", (f"each iteration takes an item of the list the function spells out "
                               f"(`{short_text(sub)}`)")
        return None

    def _deciding_counters(self) -> Set[str]:
        tests = self._deciding_tests()
        return set().union(*(names_read(t) for t in tests)) & self.facts.counters if tests else set()

    def _reduction(self):
        """A ``while`` whose deciding counter is divided on each iteration (``blocks =
        ceil(blocks / threads)``, ``n //= 2``): a reduction tree, a few iterations."""
        if self.is_for:
            return None
        names, assignments = set(self._deciding_counters()), self.facts.assignments
        while True:  # the counters they are computed from
            grown = names | {n for name in names for v in assignments.get(name, ()) for n in names_read(v)
                             if n in self.facts.counters}
            if grown == names:
                break
            names = grown
        for name in sorted(names):
            for value in assignments.get(name, ()):
                if any(isinstance(sub, ast.BinOp) and isinstance(sub.op, (ast.Div, ast.FloorDiv, ast.RShift))
                       for sub in walk_nodes(value)):
                    return "few", f"`{name}` is divided on each iteration: a reduction, a few iterations"
        return None

    def _fixed_list(self):
        """A ``for`` over a list the function spells out (``attr_list = [(species, 'x'), ...]``),
        directly, by ``enumerate`` or by ``range(len(...))``."""
        if not self.is_for:
            return None
        iterable = self.node.iter
        while isinstance(iterable, ast.Call) and dotted_name(iterable.func) in ("enumerate", "range", "len",
                                                                            "reversed") and iterable.args:
            iterable = iterable.args[-1] if dotted_name(iterable.func) == "range" else iterable.args[0]
        if isinstance(iterable, ast.Name) and iterable.id in self.lists():
            return "sweep", f"a fixed list the function spells out (`{iterable.id}`)"
        return None

    def _parts(self):
        """A ``for`` over objects whose own attributes it works on (``part.d_state``), or
        over indices of objects whose arrays it launches on (``grid[m].Er``: modes, species)."""
        if not self.is_for:
            return None
        iterated = self.node.iter
        if isinstance(iterated, ast.Call) and dotted_name(iterated.func) == "reversed" and len(iterated.args) == 1:
            iterated = iterated.args[0]  # the same indices, last first
        if is_range_call(iterated):
            # names bound to the piece the variable indexes (`kernel = kernels[i]`)
            pieces = {name for sub in own_nodes(self.node.body) if isinstance(sub, ast.Assign)
                      and _indexed_by(_converted(sub.value), self.variables)
                      for t in sub.targets for name in assigned_names(t)}
            pieces |= _sent_pieces(self.node.body, pieces)
            # every launch on the piece: a time loop also launches on what stays (a source term's
            # `J_SRC[n]` beside the field updates)
            indexed = []
            for sub in own_nodes(self.node.body):
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Subscript):
                    parts = [sub.func.value] + list(sub.args)
                    bases = [p.value if isinstance(p, (ast.Starred, ast.Attribute)) else p for p in parts]
                    piece = next((part for part, base in zip(parts, bases) if _indexed_by(base, self.variables)
                                  or isinstance(base, ast.Name) and base.id in pieces), None)
                    if piece is None:
                        return None
                    indexed.append(piece)
            if indexed:
                return "sweep", f"parts: each iteration launches on another piece (`{short_text(indexed[0])}`)"
            # no launch of its own: a method of another object on each iteration (`layers[i].backward(g)`)
            for sub in own_nodes(self.node.body):
                if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and (
                        sub.func.attr not in _ARRAY_ATTRIBUTES and sub.func.attr not in _MEASURED) and (
                        _indexed_by(sub.func.value, self.variables) or isinstance(sub.func.value, ast.Name)
                        and sub.func.value.id in pieces):
                    return "sweep", f"parts: each iteration works on another object (`{short_text(sub.func)}`)"
            return None
        for sub in own_nodes(self.node.body):
            if isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name) and sub.value.id in self.variables \
                    and sub.attr not in _ARRAY_ATTRIBUTES:
                return "sweep", f"parts: each iteration works on another object (`{short_text(sub)}`)"
        return None

    def _configurations(self):
        """Its variable (or a name computed from it) sets a launch's grid or block: a sweep
        over launch configurations."""
        if not self.is_for:
            return None
        derived = self._derived()
        for launch in _launches(self.node.body):
            config = launch.func.slice if isinstance(launch.func, ast.Subscript) else None
            parts = config.elts[:2] if isinstance(config, ast.Tuple) else [config] if config is not None else []
            if any(_size_names(part) & derived for part in parts):  # `frame.size` is the item's, not a parameter
                return "sweep", f"launch configurations: `{short_text(launch.func)}` on each iteration"
        return None

    def _runs(self):
        """Each iteration runs a whole step loop of its own (events, shots, repetitions of a
        simulation): what the loop itself does is once per run, not per step. A step loop behind
        a modulo gate (an evaluation pass every N training batches) runs on a few iterations only:
        it says nothing of the others."""
        gated = gated_nodes(self.node.body)  # (an evaluation loop every 100 batches runs on some, not each)
        for sub in own_nodes(self.node.body):
            if isinstance(sub, LOOPS) and id(sub) not in gated and not (
                    isinstance(sub, ast.While) and catch_up(sub, self.facts)) and self._steps_alone(sub):
                return "sweep", f"runs: each iteration runs the whole step loop at line {sub.lineno}"
        return None

    def _measured(self):
        """A benchmark: a clock (or CUDA event) times the loop, from just before to just after
        it or around its body's work, the body transfers or allocates, and no state goes from
        one iteration to the next (no name carried, no launches sharing an array the loop
        keeps): the transfer is what the code measures."""
        before, after = self.around
        body = self.node.body
        around = _stamps(before[-_TIMED_WITHIN:]) and _stamps(after[:_TIMED_WITHIN])
        inside = len(body) >= 2 and _stamps(body[:1]) and _stamps(body[1:])
        if not (around or inside) or self._carried() or self._shared_state():
            return None  # a timed simulation: its state goes on from one iteration to the next
        for sub in own_nodes(body):
            if isinstance(sub, ast.Call) and dotted_name(sub.func).rsplit(".", 1)[-1] in _MEASURED:
                where = "around it" if around else "around its body"
                return "benchmark", f"timed {where}, it measures `{short_text(sub)}`: the cost is its subject"
        return None

    def _carried(self) -> str:
        """A name one iteration assigns and the next reads (``t += dt``, ``step += 1``, ``a, b =
        b, a``, ``d_last = d_paths`` after a launch on ``d_last``): state carried from one
        iteration to the next. Clock reads and what is computed from them (``elapsed += time()
        - t0``) are the timing's, not the work's."""
        assigned: Set[str] = set()
        timing = set(self.facts.clocks)
        for name, values in self.facts.assignments.items():
            if any(_reads_clock(v, timing) for v in values):
                timing.add(name)
        for statement in _simple_statements(self.node.body):
            reads, writes = _reads_writes(statement)
            reads -= _reshaped(statement)  # `d = cp.reshape(d, shape)`: the same data, not a new value
            # what the work reads (a call's or a launch's argument), a counter, a swap: not a
            # value only compared (`if best is None or t < best: best = t` keeps a record)
            used = _argument_reads(statement) | (self.facts.incremented & reads) | _swapped(statement)
            for name in sorted(reads & used):
                if name in self.facts.changed and name not in assigned and name not in self.variables and (
                        name not in timing):
                    return name
            assigned |= writes
        return ""

    def _state_handed_on(self) -> str:
        """A value the loop computes that the next iteration hands to a call before it assigns it
        again (``u = ctl.solve(x)`` ... ``x = x_next``; buffers it exchanges, ``p, p_new = p_new,
        p``, handed to its launches): the state of a simulation or of a
        controller going on from one step to the next, which a retry (redoing its work from
        scratch) does not have. Counters and clock reads are not that state."""
        timing = self._timing()
        # buffers the loop exchanges (`p, p_new = p_new, p`) are the state it ping-pongs, not counters
        swapped = set().union(*(_swapped(unit) for unit in _simple_statements(self.node.body)))
        assigned: Set[str] = set()
        for statement in _simple_statements(self.node.body):
            reads, writes = _reads_writes(statement)
            for name in sorted(reads & _argument_reads(statement)):
                if name in self.facts.changed and name not in assigned and name not in self.variables and (
                        name not in timing and (name not in self.facts.counters or name in swapped)
                        and name not in self.facts.incremented):
                    return name
            assigned |= writes
        return ""

    def _grown_structure(self) -> str:
        """An object made just before the loop (``tree = Tree()``) and never rebound in it that
        each iteration first asks (``near = tree.nearest(sample)``, the answer used) and later
        gives what the iteration computed (``tree.add_vertex(new)``): a tree, a population or a
        model growing one step at a time, each iteration building on the last, which a retry
        (redoing its work from scratch) does not."""
        made = {target.id for statement in self.around[0] if isinstance(statement, ast.Assign)
                and isinstance(statement.value, ast.Call) for target in statement.targets
                if isinstance(target, ast.Name)}
        asked: Set[str] = set()
        assigned: Set[str] = set()
        for statement in _simple_statements(self.node.body):
            owners = [(call, call.func.value.id) for call in calls_in(statement)
                      if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name)
                      and call.func.value.id in made and call.func.value.id not in self.facts.changed]
            for call, owner in owners:
                given = set().union(*(_loaded(a) for a in list(call.args) + [k.value for k in call.keywords]))
                if owner in asked and given & assigned:
                    return owner
            reads, writes = _reads_writes(statement)
            if writes:  # the answer kept: the iteration goes on from what the object said
                asked |= {owner for _, owner in owners}
            assigned |= writes - self.variables
        return ""

    def _shared_state(self) -> str:
        """Two launches of the body share an argument the loop does not rebind: what one
        launch writes, the next one (and the next iteration) reads; or the loop stores into an
        array a launch of it is given (``d_frontier[:n] = d_next[:n]``, ``d_size[0] = n``,
        ``d_field.copy_to_device(d_new)`` of another array its launches are given):
        the next iteration's launch reads what this one left."""
        seen: Dict[str, int] = {}
        # an inner loop's launches are its own state
        launches = _launches(self.node.body, inner_loops=False)
        for index, launch in enumerate(launches):
            for argument in launch.args:
                while isinstance(argument, (ast.Starred, ast.Subscript)):  # `*fields`, `d_u[0]`: the array
                    argument = argument.value
                name = dotted_name(argument)
                if not name or name in self.facts.changed or name in self.variables or name in self.constants:
                    continue
                if seen.setdefault(name, index) != index:
                    return name
        # (a constant resets it, `d_count[0] = 0`; an element of the loop's own item is that item's)
        stored = {dotted_name(target.value) for sub in _outside_loops(self.node.body) if isinstance(sub, ast.Assign)
                  and int_value(sub.value, self.constants) is None and not isinstance(sub.value, ast.Constant)
                  for target in sub.targets if isinstance(target, ast.Subscript)
                  and not names_read(target.slice) & self.variables}
        # `d_field.copy_to_device(d_new)`, `d_new` what a launch of the loop wrote: the next generation's
        # launch reads the device's own result (a host array copied in is that iteration's new input)
        stored |= {dotted_name(sub.func.value) for sub in _outside_loops(self.node.body) if isinstance(sub, ast.Call)
                   and isinstance(sub.func, ast.Attribute) and sub.func.attr == "copy_to_device"
                   and sub.args and dotted_name(sub.args[0]) in seen}
        return next((name for name in seen if name in stored), "")

    def _blocks(self):
        """Each iteration steps up to a target its own variable gives (``for t_out in outputs:
        while t < t_out: t += dt; step()``, then the output): a loop over blocks of steps, its
        own statements once per block, however much state the steps carry between blocks. The
        work is the inner loop's: the outer level launches nothing itself and calls nothing the
        inner loop calls to step."""
        if not self.is_for:
            return None
        inner_loops = [sub for sub in own_nodes(self.node.body) if isinstance(sub, LOOPS)]
        nested = {id(n) for loop in inner_loops for n in own_nodes(loop.body)}
        stepping = {dotted_name(n.value.func) for loop in inner_loops for n in own_nodes(loop.body)
                    if _work_statement(n)} - {""}
        for sub in own_nodes(self.node.body):
            if id(sub) not in nested and isinstance(sub, ast.Call) and (
                    isinstance(sub.func, ast.Subscript) or dotted_name(sub.func) in stepping):
                return None  # (the outer loop steps itself: its iterations are the steps)
        gated = gated_nodes(self.node.body)
        for sub in inner_loops:
            if isinstance(sub, ast.While) and id(sub) not in gated and names_read(sub.test) & self.variables \
                    and any(_work_statement(n) for n in own_nodes(sub.body)) and self._steps_alone(sub):
                target = sorted(names_read(sub.test) & self.variables)[0]
                return "sweep", (f"blocks of steps: each iteration steps up to `{target}` "
                                 f"(`{short_text(sub.test)}`, line {sub.lineno})")
        return None

    def _slots(self):
        """A ``for`` whose item is where its result goes or where its work runs: a copy back
        into the item (``d_out.copy_to_host(out)`` with ``out`` from ``zip(inputs, outputs)``)
        fills one slot of a result laid out before the loop, and an item passed as a launch's
        stream (``k[g, b, stream](...)`` over ``zip(streams, chunks)``) spreads one computation
        over streams: parts of one computation, however each item reaches the GPU."""
        if not self.is_for:
            return None
        for sub in own_nodes(self.node.body):
            if not isinstance(sub, ast.Call):
                continue
            if isinstance(sub.func, ast.Attribute) and sub.func.attr == "copy_to_host" and any(
                    isinstance(a, ast.Name) and a.id in self.variables
                    for a in list(sub.args[:1]) + [k.value for k in sub.keywords if k.arg == "ary"]):
                return "sweep", f"slots: each iteration copies its result into its own item (`{short_text(sub)}`)"
            config = sub.func.slice if isinstance(sub.func, ast.Subscript) else None
            if isinstance(config, ast.Tuple) and len(config.elts) >= 3 and isinstance(config.elts[2], ast.Name) \
                    and config.elts[2].id in self.variables:
                return "sweep", f"streams: each iteration launches on another stream (`{short_text(sub.func)}`)"
        return None

    def _steps_alone(self, inner: ast.stmt) -> bool:
        """Whether a loop nested in this one is a loop of steps by its own code."""
        kind = LoopKinds(inner, self.context, self.constants, Changes(inner.body, inner), self.lists).decide()[0]
        return kind == "step"

    def _steps(self):
        """The same work again, with evidence that it is: state carried from one iteration to
        the next, launches sharing arrays the loop keeps, a ``while`` ended by a counter or a
        clock, a stream of items each sent to the GPU. A ``while`` counting up to a small
        literal is a few iterations."""
        node, facts = self.node, self.facts
        if isinstance(node, ast.While):
            tests = self._deciding_tests()
            names = set().union(*(names_read(t) for t in tests)) if tests else set()
            if names & (facts.counters | self._timing()) or any(
                    dotted_name(c.func).rsplit(".", 1)[-1] in CLOCKS for t in tests for c in calls_in(t)):
                bound = _small_bound(node.test, facts.counters, self.constants)
                if bound is not None:
                    return "few", f"a counter up to {bound} ends it (`{short_text(node.test)}`)"
                constants = self._constants_before()
                # `while 1: ... if n == join_count: break`, `join_count = 10` before it
                exits = [(bound, test) for test in tests if test is not node.test  # (the tests that leave)
                         for bound in [_small_exit(test, facts.counters, constants)] if bound is not None]
                if exits:
                    bound, test = max(exits, key=lambda pair: pair[0])
                    return "few", f"a counter reaching {bound} leaves it (`{short_text(test)}`)"
                return "step", "a counter or a clock ends it"
            frames = self._more_input_test()
            if frames:
                return "step", frames
            if self._endless():
                return "step", "an endless loop (`while True:` with no way out): the program's main loop, each " \
                               "iteration a frame"
        carried = self._carried()
        if carried:
            return "step", f"`{carried}` is carried from one iteration to the next"
        shared = self._shared_state()
        if shared:
            return "step", f"its launches share `{shared}`, which the loop keeps: one launch's output is the next's input"
        if self.is_for:
            for sub in own_nodes(node.body):
                if isinstance(sub, ast.Call) and dotted_name(sub.func).rsplit(".", 1)[-1] in _TO_DEVICE and any(
                        _item_as_data(a, self.variables) for a in sub.args) and not self._host_made(sub):
                    return "step", f"a stream of items, each sent to the GPU (`{short_text(sub)}`)"
        return self._animation()

    def _endless(self) -> bool:
        """``while True:`` whose body never leaves it (no ``break``, ``return``, ``raise`` or exit
        call of its own) and that launches or calls something: a program that runs until it is
        stopped, a camera or display loop."""
        if not (isinstance(self.node, ast.While) and is_true(self.node.test)):
            return False
        calls = False
        for sub in own_nodes(self.node.body):
            if isinstance(sub, (ast.Break, ast.Return, ast.Raise)):
                return False
            if isinstance(sub, ast.Call):
                if dotted_name(sub.func).rsplit(".", 1)[-1] in _EXITS:
                    return False
                calls = True
        return calls

    def _constants_before(self) -> Mapping[str, int]:
        """The module's integer constants and the names the statements before the loop bind
        to an integer literal that the loop does not change (``join_count = 10``)."""
        found = dict(self.constants)
        for statement in self.around[0]:
            if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(
                    statement.targets[0], ast.Name) and statement.targets[0].id not in self.facts.changed:
                value = int_value(statement.value, self.constants)
                if value is not None:
                    found[statement.targets[0].id] = value
        return found

    def _host_made(self, call: ast.Call) -> bool:
        """A NumPy constructor (``np.array(case["q"])``): a host array, nothing sent to the GPU."""
        name = dotted_name(call.func)
        return "." in name and name.split(".", 1)[0] in self.context.numpy_names

    def _animation(self):
        """Frames of one animation: each iteration adds an item to a list (``frames.append(img)``,
        a frame's file name) that, after the loop, becomes a video or an animated image
        (``ImageSequenceClip(frames, fps=...)``, ``imageio.mimsave(path, frames)``, a call given
        the list and a frame rate)."""
        appended = {dotted_name(sub.func.value) for sub in own_nodes(self.node.body) if isinstance(sub, ast.Call)
                    and isinstance(sub.func, ast.Attribute) and sub.func.attr == "append"} - {""}
        if not appended:
            return None
        for sub in own_nodes(list(self.around[1])):
            if not isinstance(sub, ast.Call):
                continue
            given = {dotted_name(a) for a in list(sub.args) + [k.value for k in sub.keywords]} & appended
            if given and (dotted_name(sub.func).rsplit(".", 1)[-1] in _ANIMATION_WRITERS or any(
                    k.arg in _FRAME_RATES for k in sub.keywords)):
                return "step", (f"frames of one animation: each iteration adds to `{sorted(given)[0]}`, which "
                                f"`{short_text(sub.func)}` makes into a video after the loop")
        return None

    def _records(self):
        """Where nothing shows steps: a ``for`` over records read from a file (what it iterates
        comes, through the names bound before the loop, from a reader, ``np.load``, ``h5py.File``,
        or from a call given a file's name, ``TrajectoryIO("run.h5").read()``): a sweep over saved
        records (configurations, samples), each visited once."""
        if not self.is_for:
            return None
        before = list(own_nodes(self.around[0]))
        values: Dict[str, List[ast.expr]] = {}
        for node in before:
            if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
                for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
                    for name in assigned_names(target):
                        values.setdefault(name, []).append(node.value)
            elif isinstance(node, (ast.With, ast.AsyncWith)):  # `with h5py.File(path) as saved:`
                for item in node.items:
                    for name in assigned_names(item.optional_vars) if item.optional_vars is not None else ():
                        values.setdefault(name, []).append(item.context_expr)
        if _read_from_file(self.node.iter, values, set()):
            return "sweep", f"records read from a file: `{short_text(self.node.iter)}`"
        return None

    def _named(self):
        """A tie-breaker where the code shows neither steps nor pieces: the loop's variable or
        its bound named like time steps (``for it in range(n_iter)``), in a loop that calls or
        launches something."""
        names = set(self.variables)
        if self.is_for and is_range_call(self.node.iter):
            names |= {n.rsplit(".", 1)[-1] for a in self.node.iter.args for n in names_read(a)}
        calls = [sub for sub in own_nodes(self.node.body) if isinstance(sub, ast.Call)]
        for name in sorted(names):
            words = {w for w in re.split(r"[_\d]+", name.lower()) if w}
            words |= {w[len(p):] for w in words for p in ("max", "num", "n") if w.startswith(p)}  # `maxt`, `nsteps`
            if words & _STEP_WORDS and calls:
                return "step", f"nothing else says, and `{name}` is named like time steps"
        for call in calls:  # `beam.step(dt)`, `self.UpdateState(dt)` on an object the loop keeps
            owner = dotted_name(call.func.value) if isinstance(call.func, ast.Attribute) else ""
            if owner and _leading_word(call.func.attr) in _STEP_CALLS and owner not in self.facts.changed | self.variables:
                return "step", f"nothing else says, and `{short_text(call.func)}` advances an object the loop keeps"
        return None

    def _launched_items(self):
        """Where nothing else says: a ``for`` over the rows of an array the loop does not build
        (``for node in nodes[::-1]``, or ``node[0]`` read in the loop), every launch of its
        body given the row or an element of it (``k[g, b](d_state, node)``): each iteration
        launches for another piece of one computation (nodes, outputs, sources), as a loop of
        parts does. A scalar per iteration (``for a in amplitudes``) says nothing of the kind."""
        iterable = self.node.iter if self.is_for else None
        sliced = isinstance(iterable, ast.Subscript) and isinstance(iterable.slice, ast.Slice)
        if sliced:
            iterable = iterable.value
        if not isinstance(iterable, (ast.Name, ast.Attribute)) or dotted_name(iterable) in self.facts.changed:
            return None
        rows = sliced or any(isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name) and (
            sub.value.id in self.variables) for sub in own_nodes(self.node.body))
        launches = _launches(self.node.body)
        if rows and launches and all(any(_item_or_element(a, self.variables) for a in launch.args)
                                     for launch in launches):
            return "sweep", f"parts: each launch is for another row (`{short_text(launches[0].func)}`)"
        return None

    def _progress(self):
        """Last of all: a ``for`` whose author watches its progress, wrapping the iterable in a
        progress bar (``for t in tqdm(range(n))``) or reporting the loop's variable against its
        bound (``print(z, n_layers)``, ``print(f"{i}/{len(frames)}")``): iterations long and many
        enough to watch, the main loop of the work, not pieces of one computation. Not where a
        clock times the loop or its iterations: runs of a measurement, whose cost is its subject."""
        before, after = self.around
        if not self.is_for or _stamps(self.node.body) or (
                _stamps(before[-_TIMED_WITHIN:]) and _stamps(after[:_TIMED_WITHIN])):
            return None
        iterable = self.node.iter
        if self._watched():
            return "step", f"its progress is watched: `{short_text(iterable.func)}` wraps it"
        bounds = _bounds(iterable)
        if not bounds or not self.variables:
            return None
        for sub in own_nodes(self.node.body):
            if not (isinstance(sub, ast.Call) and dotted_name(sub.func).rsplit(".", 1)[-1] in _REPORTS):
                continue
            given = list(sub.args) + [k.value for k in sub.keywords]
            if set().union(*(names_read(a) for a in given)) & self.variables and any(
                    ast.dump(part) in bounds for a in given for part in walk_nodes(a)):
                return "step", f"it reports its progress (`{short_text(sub)}`): iterations long and many enough to watch"
        return None

    def _watched(self) -> bool:
        """A ``for`` over an iterable a progress bar wraps (``tqdm(...)``, ``trange(n)``)."""
        iterable = self.node.iter if self.is_for else None
        return isinstance(iterable, ast.Call) and dotted_name(iterable.func).rsplit(".", 1)[-1] in _PROGRESS_BARS

    def _unknown(self) -> str:
        if isinstance(self.node, ast.While):
            return f"nothing shows that `{short_text(self.node.test)}` repeats the same work"
        return f"nothing shows that `{short_text(self.node.iter)}` repeats the same work: no state carried"


def _bounds(iterable: ast.AST) -> Set[str]:
    """What says how far a ``for`` goes, as a progress report would name it: a range's stop (and
    the names it adds to, ``n + 1``), ``len(xs)`` of what it iterates (through ``enumerate``)."""
    if is_range_call(iterable) and iterable.args:
        stop = iterable.args[0] if len(iterable.args) == 1 else iterable.args[1]
        parts = [stop] + ([stop.left, stop.right] if isinstance(stop, ast.BinOp) else [])
        return {ast.dump(part) for part in parts if not isinstance(part, ast.Constant)}
    if isinstance(iterable, ast.Call) and dotted_name(iterable.func) == "enumerate" and iterable.args:
        iterable = iterable.args[0]
    if isinstance(iterable, (ast.Name, ast.Attribute)):
        return {ast.dump(ast.Call(func=ast.Name(id="len", ctx=ast.Load()), args=[iterable], keywords=[]))}
    return set()


def _read_from_file(data: ast.AST, values: Mapping[str, List[ast.expr]], seen: Set[str]) -> bool:
    """Whether ``data`` (what a loop iterates) is a file's records: a reader's result, a call
    given a file's name, or a piece, a view or a method's result of one, through the names
    ``values`` binds (a ``range`` over a count is not the records)."""
    if isinstance(data, (ast.Subscript, ast.Attribute, ast.Starred)):
        return _read_from_file(data.value, values, seen)
    if isinstance(data, ast.Name):
        if data.id in seen:
            return False
        seen.add(data.id)
        return any(_read_from_file(value, values, seen) for value in values.get(data.id, []))
    if not isinstance(data, ast.Call):
        return False
    name = dotted_name(data.func).rsplit(".", 1)[-1]
    if name in _READERS or any(_names_file(a, values) for a in list(data.args) + [k.value for k in data.keywords]):
        return True
    if name in ("enumerate", "zip", "reversed", "sorted", "list", "tuple", "iter"):
        return any(_read_from_file(a, values, seen) for a in data.args)
    return isinstance(data.func, ast.Attribute) and _read_from_file(data.func.value, values, seen)


def _names_file(argument: ast.AST, values: Mapping[str, List[ast.expr]]) -> bool:
    """A file's name: a string literal with an extension (``"run.h5"``, ``f"{out}/run.h5"``,
    ``os.path.join(folder, "run.h5")``), or a name bound to one."""
    if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
        return bool(_FILE_NAME.match(argument.value))
    if isinstance(argument, ast.JoinedStr) and argument.values:
        last = argument.values[-1]
        return isinstance(last, ast.Constant) and isinstance(last.value, str) and bool(
            _FILE_NAME.match(last.value.rsplit("/", 1)[-1]))
    if isinstance(argument, ast.Call) and dotted_name(argument.func).rsplit(".", 1)[-1] in ("join", "Path") and \
            argument.args:
        return _names_file(argument.args[-1], values)
    if isinstance(argument, ast.Name):
        bound = values.get(argument.id, [])
        return len(bound) == 1 and not isinstance(bound[0], ast.Name) and _names_file(bound[0], values)
    return False


def _leading_word(name: str) -> str:
    """A method name's first word, lower case: ``update`` of ``UpdateState`` and ``update_state``
    (the whole name where it is one word: ``time_step`` stays whole)."""
    if name.lower() in _STEP_CALLS:
        return name.lower()
    words = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name)
    return words[0].lower() if words else ""


def _guards(statements: Sequence[ast.stmt], name: str, tests: Tuple[ast.expr, ...],
            queues: Tuple[Tuple[str, ast.expr], ...]) -> Iterator[Tuple[Tuple[ast.expr, ...], Dict[str, ast.expr]]]:
    """For each assignment of ``name`` in these statements (nested functions and classes left
    out): the tests of the branches around it and the inner ``for`` loops' variables with what
    they iterate."""
    for statement in statements:
        if isinstance(statement, SCOPES):
            continue
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(name in assigned_names(t) for t in targets):
                yield tests, dict(queues)
        elif isinstance(statement, ast.If):
            yield from _guards(statement.body, name, tests + (statement.test,), queues)
            yield from _guards(statement.orelse, name, tests + (statement.test,), queues)
        elif isinstance(statement, (ast.For, ast.AsyncFor)):
            inner = queues + tuple((n, statement.iter) for n in assigned_names(statement.target))
            yield from _guards(statement.body + statement.orelse, name, tests, inner)
        elif isinstance(statement, ast.While):
            yield from _guards(statement.body + statement.orelse, name, tests + (statement.test,), queues)
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            yield from _guards(statement.body, name, tests, queues)
        elif isinstance(statement, ast.Try):
            for block in [statement.body, statement.orelse, statement.finalbody] + [h.body for h in statement.handlers]:
                yield from _guards(block, name, tests, queues)


def _checks(statements: Sequence[ast.stmt]) -> Iterator[ast.Call]:
    """The comparisons these statements assert on every pass through them: ``np.testing.
    assert_*`` calls and ``assert`` of ``np.allclose``/``np.array_equal`` (also under
    ``.all()``, ``not``, ``and``); those in branches, loops, handlers and nested bodies left out."""
    for statement in statements:
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            name = dotted_name(statement.value.func)
            parts = name.split(".")
            if parts[-1] in _TESTING_ASSERTS and (len(parts) == 1 or parts[-2] == "testing") or (
                    len(parts) >= 2 and parts[-2] == "testing" and parts[-1].startswith("assert_")):
                yield statement.value
        elif isinstance(statement, ast.Assert):
            for sub in walk_nodes(statement.test):
                if isinstance(sub, ast.Call) and dotted_name(sub.func).rsplit(".", 1)[-1] in _COMPARISONS:
                    yield sub
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            yield from _checks(statement.body)
        elif isinstance(statement, ast.Try):
            yield from _checks(statement.body + statement.finalbody)


def _copy_back(value: ast.AST) -> bool:
    """Whether an expression copies a device result to the host (``d_x.copy_to_host()``,
    ``cp.asnumpy(d_x)``, ``d_x.get()``, ``t.cpu().numpy()``), directly or inside it."""
    return any(isinstance(sub, ast.Call) and (sub.func.attr if isinstance(sub.func, ast.Attribute) else
                                              dotted_name(sub.func)) in _COPIES_BACK for sub in walk_nodes(value))


def _exits_loop(statements: Sequence[ast.stmt]) -> bool:
    """A ``break`` of this loop or a ``return`` in these statements (nested loops' own
    ``break`` left out)."""
    stack = list(statements)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Break, ast.Return)):
            return True
        if isinstance(node, LOOPS):
            stack.extend(s for s in walk_nodes(node) if isinstance(s, ast.Return))
            continue
        if isinstance(node, SCOPES):
            continue
        stack.extend(child for child in child_nodes(node) if isinstance(child, ast.stmt))
    return False



def _attribute_sizes(shape: ast.AST) -> Set[str]:
    """The attributes a shape reads (``np.zeros([self.ncell, self.nmax, 4])``): sizes an object
    keeps, grown where the loop assigns them."""
    return {dotted_name(sub) for sub in walk_nodes(shape) if isinstance(sub, ast.Attribute)} - {""}


def _size_names(shape: ast.AST) -> Set[str]:
    """Names a shape expression uses as a size: bare (``n``, ``2 * n``, ``(n, n)``) or
    indexing a table (``sizes[i]``), not through an attribute (``frame.size``)."""
    if isinstance(shape, ast.Name):
        return {shape.id}
    if isinstance(shape, (ast.Tuple, ast.List)):
        return set().union(*(_size_names(e) for e in shape.elts)) if shape.elts else set()
    if isinstance(shape, ast.BinOp):
        return _size_names(shape.left) | _size_names(shape.right)
    if isinstance(shape, ast.Subscript):
        return names_read(shape.slice)
    if isinstance(shape, ast.Call) and dotted_name(shape.func) in ARITHMETIC:
        return set().union(*(_size_names(a) for a in shape.args)) if shape.args else set()
    return set()



def _sent_pieces(body: Sequence[ast.stmt], pieces: Set[str]) -> Set[str]:
    """Names bound to a piece put on the device, or to a device buffer made like it
    (``d_row = cuda.to_device(row)``, ``d_out = cuda.device_array_like(row)``): the iteration
    still works on that piece, now on the device."""
    sent: Set[str] = set()
    for sub in own_nodes(body):
        if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Call) and sub.value.args and dotted_name(
                sub.value.func).rsplit(".", 1)[-1] in _TO_DEVICE | {"device_array_like"}:
            first = sub.value.args[0]
            if isinstance(first, ast.Name) and first.id in pieces:
                sent |= {name for t in sub.targets for name in assigned_names(t)}
    return sent



def _converted(value: ast.AST) -> ast.AST:
    """What a conversion reads its data from: ``X[i]`` for ``np.asarray(list(X[i].exterior.coords))``,
    through array constructors, ``list``/``tuple`` and attributes."""
    while True:
        if isinstance(value, ast.Call) and value.args and dotted_name(value.func).rsplit(".", 1)[-1] in _CONVERSIONS:
            value = value.args[0]
        elif isinstance(value, ast.Attribute):
            value = value.value
        else:
            return value


def _indexed_by(node: ast.AST, variables: Set[str]) -> bool:
    """``X[m]`` (or ``X[:, m]``) with ``m`` one of the variables, used whole."""
    return isinstance(node, ast.Subscript) and bool(_bare_index(node.slice) & variables)



def _bare_index(index: ast.AST) -> Set[str]:
    """Names used whole as an index (``m`` in ``grid[m]`` and ``d[:, m]``, not ``i % 2``)."""
    if isinstance(index, ast.Name):
        return {index.id}
    if isinstance(index, ast.Tuple):
        return {e.id for e in index.elts if isinstance(e, ast.Name)}
    return set()



def _item_as_data(argument: ast.AST, variables: Set[str]) -> bool:
    """The loop's item passed as data: bare, indexed, or through an array attribute."""
    node = argument
    while True:
        if isinstance(node, ast.Name):
            return node.id in variables
        if isinstance(node, ast.Subscript):
            if isinstance(node.value, ast.Name) and node.value.id not in variables and (
                    names_read(node.slice) & variables):
                return True  # `frames[i]`
            node = node.value
        elif isinstance(node, ast.Attribute) and node.attr in _ARRAY_ATTRIBUTES:
            node = node.value
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and (
                node.func.attr in _ARRAY_ATTRIBUTES):
            node = node.func.value
        else:
            return False



def trips(iterable: ast.AST, constants: Mapping[str, int]) -> Optional[int]:
    """How many items an iterable the code spells out has (None where it is not fixed)."""
    return _trips(iterable, constants)


def _trips(iterable: ast.AST, constants: Mapping[str, int]) -> Optional[int]:
    """How many items an iterable the code spells out has: a literal list, ``range`` of
    constants, ``np.array_split(x, 8)``; through ``enumerate`` and ``reversed``."""
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
        return len(iterable.elts)
    if isinstance(iterable, ast.Name):  # a comprehension the function binds once (`reading._comprehensions`)
        return constants.get(f"len({iterable.id})")
    if isinstance(iterable, (ast.GeneratorExp, ast.ListComp)) and len(iterable.generators) == 1 and not (
            iterable.generators[0].ifs):
        return _trips(iterable.generators[0].iter, constants)
    if not isinstance(iterable, ast.Call):
        return None
    name = dotted_name(iterable.func).rsplit(".", 1)[-1]
    if name == "range" and 1 <= len(iterable.args) <= 3:
        values = [int_value(a, constants) for a in iterable.args]
        if any(v is None for v in values):
            return None
        start, stop, step = (0, values[0], 1) if len(values) == 1 else tuple((values + [1])[:3])
        return len(range(start, stop, step)) if step else None  # type: ignore[arg-type]
    if name in _SPLITS and len(iterable.args) >= 2:
        return int_value(iterable.args[1], constants)
    if name in ("enumerate", "reversed") and iterable.args:
        return _trips(iterable.args[0], constants)
    return None



def _item_or_element(argument: ast.AST, variables: Set[str]) -> bool:
    """The loop's item itself, or an element of it (``node[0]``)."""
    if isinstance(argument, ast.Subscript):
        argument = argument.value
    return isinstance(argument, ast.Name) and argument.id in variables


def _raises_by_one(statement: ast.stmt, counter: str) -> bool:
    """``counter += 1`` or ``counter = counter + 1``."""
    if isinstance(statement, ast.AugAssign):
        target, operation, value = statement.target, statement.op, statement.value
    elif isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(
            statement.value, ast.BinOp) and isinstance(statement.value.left, ast.Name) and (
            statement.value.left.id == counter):
        target, operation, value = statement.targets[0], statement.value.op, statement.value.right
    else:
        return False
    return isinstance(target, ast.Name) and target.id == counter and isinstance(operation, ast.Add) and isinstance(
        value, ast.Constant) and value.value == 1 and not isinstance(value.value, bool)


def _launches(statements: Sequence[ast.stmt], inner_loops: bool = True) -> List[ast.Call]:
    """Kernel launches among these statements: ``k[grid, block](...)``, ``k.forall(n)(...)``;
    ``inner_loops`` False: those of loops inside them left out."""
    nodes = own_nodes(statements) if inner_loops else _outside_loops(statements)
    return [sub for sub in nodes if isinstance(sub, ast.Call) and (
        isinstance(sub.func, ast.Subscript) or isinstance(sub.func, ast.Call) and
        dotted_name(sub.func.func).endswith("forall"))]



def _stamps(statements: Sequence[ast.stmt]) -> bool:
    """Whether these statements read a clock or record a CUDA event."""
    return any(isinstance(sub, ast.Call) and dotted_name(sub.func).rsplit(".", 1)[-1] in _STAMPS
               for sub in own_nodes(statements))



def _reads_clock(value: ast.AST, timing: Set[str]) -> bool:
    return bool(names_read(value) & timing) or any(
        dotted_name(c.func).rsplit(".", 1)[-1] in CLOCKS for c in calls_in(value))



def _simple_statements(statements: Sequence[ast.stmt]) -> Iterator[ast.AST]:
    """The body in execution order, as units that read and then write: simple statements,
    and the tests and iterables of compound ones before their bodies."""
    for statement in statements:
        if isinstance(statement, SCOPES):
            continue
        if isinstance(statement, (ast.If, ast.While)):
            yield statement.test
            yield from _simple_statements(statement.body)
            yield from _simple_statements(statement.orelse)
        elif isinstance(statement, (ast.For, ast.AsyncFor)):
            yield ast.Assign([statement.target], statement.iter)  # it reads its iterable, then binds its target
            yield from _simple_statements(statement.body)
            yield from _simple_statements(statement.orelse)
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            for item in statement.items:
                yield item.context_expr if item.optional_vars is None else ast.Assign(
                    [item.optional_vars], item.context_expr)
            yield from _simple_statements(statement.body)
        elif isinstance(statement, ast.Try):
            yield from _simple_statements(statement.body)
            for handler in statement.handlers:
                yield from _simple_statements(handler.body)
            yield from _simple_statements(statement.orelse)
            yield from _simple_statements(statement.finalbody)
        else:
            yield statement



# what gives the same data seen in another shape: `x = cp.reshape(x, s)`, `x = x.ravel()`
_VIEWS = {"reshape", "ravel", "flatten", "squeeze", "transpose", "view"}


def _reshaped(statement: ast.AST) -> Set[str]:
    """The name a statement binds to a view of itself (``x = cp.reshape(x, (n, n))``,
    ``x = x.reshape(n)``): its data stays what it was, so the read carries nothing from the
    iteration before."""
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name) and isinstance(statement.value, ast.Call)):
        return set()
    name, call = statement.targets[0].id, statement.value
    if dotted_name(call.func).rsplit(".", 1)[-1] not in _VIEWS:
        return set()
    of = call.func.value if isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and (
        call.func.value.id == name) else (call.args[0] if call.args else None)
    return {name} if isinstance(of, ast.Name) and of.id == name else set()


def _reads_writes(unit: ast.AST) -> Tuple[Set[str], Set[str]]:
    """What a statement (or an expression) reads before it writes, and what it writes."""
    if isinstance(unit, ast.Assign):
        writes = {n for t in unit.targets for n in assigned_names(t)}
        reads = _loaded(unit.value) | {n for t in unit.targets if not isinstance(t, (ast.Name, ast.Attribute,
                                                                                     ast.Tuple, ast.List))
                                       for n in _loaded(t)}
        return reads, writes
    if isinstance(unit, ast.AugAssign):
        names = set(assigned_names(unit.target))
        return _loaded(unit.value) | names, names
    if isinstance(unit, ast.AnnAssign):
        names = set(assigned_names(unit.target))
        return (_loaded(unit.value) if unit.value is not None else set()), names
    return _loaded(unit), set()



def _loaded(node: ast.AST) -> Set[str]:
    """Names and ``self.x`` chains an expression reads (not what it only stores into, nor
    a comprehension's own variables)."""
    found: Set[str] = set()
    own = {n.id for sub in walk_nodes(node) if isinstance(sub, ast.comprehension) for n in walk_nodes(sub.target)
           if isinstance(n, ast.Name)}
    for sub in walk_nodes(node):
        if isinstance(sub, ast.Name) and sub.id in own:
            continue
        if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Load):
            found.add(sub.id)
        elif isinstance(sub, ast.Attribute) and isinstance(sub.ctx, ast.Load):
            dotted = dotted_name(sub)
            if dotted:
                found.add(dotted)
    return found



def _small_bound(test: ast.AST, counters: Set[str], constants: Mapping[str, int]) -> Optional[int]:
    """``k < 3``: a counter compared with a literal count up to :data:`FEW`."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Lt, ast.LtE)) and (
            isinstance(test.left, ast.Name) and test.left.id in counters):
        bound = int_value(test.comparators[0], constants)
        if bound is not None and bound <= FEW:
            return bound
    return None



def _small_exit(test: ast.AST, counters: Set[str], constants: Mapping[str, int]) -> Optional[int]:
    """``n == 10``, ``k >= 3`` in a test that leaves the loop: a counter reaching a literal
    count up to :data:`FEW` (either side)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (
            ast.Eq, ast.GtE, ast.Gt))):
        return None
    left, right = test.left, test.comparators[0]
    for counter, limit in ((left, right), (right, left)):
        if isinstance(counter, ast.Name) and counter.id in counters:
            bound = int_value(limit, constants)
            if bound is not None and 0 <= bound <= FEW:
                return bound
    return None


def _outside_loops(statements: Sequence[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of these statements, nested loops, functions and classes left out."""
    stack: List[ast.AST] = list(reversed(statements))
    while stack:
        node = stack.pop()
        if isinstance(node, LOOPS + SCOPES):
            continue
        yield node
        stack.extend(reversed(list(child_nodes(node))))



def _arithmetic(value: ast.AST) -> bool:
    """No call in it but arithmetic's (``int``, ``min``, ``math.ceil``, a helper of the
    file's given numbers), no subscript of data: a parameter, not an array. An item's length
    (``len(ts)``) is its size, as ``ts.size`` is: the data's, not the iteration's parameter."""
    return not any(isinstance(sub, ast.Call) and (dotted_name(sub.func).rsplit(".", 1)[-1] in _TO_DEVICE | _SIZED or (
        dotted_name(sub.func) == "len")) or isinstance(sub, ast.Attribute) and sub.attr in _ARRAY_ATTRIBUTES
                   for sub in walk_nodes(value))



def _argument_reads(unit: ast.AST) -> Set[str]:
    """What a statement passes to calls and launches."""
    found: Set[str] = set()
    for call in calls_in(unit):
        for argument in list(call.args) + [k.value for k in call.keywords]:
            found |= _loaded(argument)
    return found



def _swapped(unit: ast.AST) -> Set[str]:
    """``a, b = b, a``: the names a tuple assignment exchanges."""
    if isinstance(unit, ast.Assign) and len(unit.targets) == 1 and isinstance(unit.targets[0], ast.Tuple) and \
            isinstance(unit.value, ast.Tuple):
        return set(assigned_names(unit.targets[0])) & _loaded(unit.value)
    return set()
