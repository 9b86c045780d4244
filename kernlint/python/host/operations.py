"""Host operations: the calls of host code that allocate device memory, wait for the device,
copy an array back to the host, read a clock, record a CUDA event, meet other processes at a
barrier or set the allocator, as ``analysis.host``
events; and what costs without a call of its own: indexing device arrays with host data or
a boolean mask (``subscript_events``), Python iterating a device array (``iterated``) or reading its
elements in a loop over their indices (``element_loop``), a
PyCUDA call's ``drv.In``/``drv.Out`` arguments (``pycuda_launch``), ``timeit`` timing
code that launches (``timed_statement``) and what CuPy queues for operators, in-place
updates, stores and gathers on its arrays (``cupy_operator``, ``cupy_statement_events``). May import ``python.static_types``,
``analysis.host`` and the host reader's syntax-only parts (``frequency``, ``launches``).
"""

from __future__ import annotations

import ast
import re
import textwrap
from typing import Callable, Dict, List, Optional, Set

from ...analysis.host import Arg, Event, Launch
from ..static_types import ArrayType, Opaque, ProjectFunctions, ScalarType, TypeReader, held_code
from ..syntax import FunctionNode, PyModule, Scope, child_nodes, own_nodes, tree_nodes, walk_nodes
from .frames import Frame, place_of
from .frequency import constant_int
from .frequency.syntax import dotted_name, int_value
from .launches import gpu_compiled, launch_arg, launch_target
from .library import ALLOCATIONS, CLOCKS, MPI_BUFFER_CALLS, PAGE_LOCKED, PAUSES, SYNCS
from .names import bare_names, element_reads, names_in, names_read, shaped_like, target_names


def mpi_transfer(call: ast.Call, frame: Frame, module: PyModule, reader: TypeReader, uses_mpi: bool
                 ) -> Optional[Event]:
    """An mpi4py buffer call (``comm.Isend(d_buf, dest=1)``, ``comm.Allreduce(d_a, d_b)``) whose
    buffer may be device memory (a device array or one of unknown type: CUDA-aware MPI reads it
    as it is), as a ``mpi`` event, or None. ``uses_mpi``: the file or one it imports names
    mpi4py (a communicator kept in an attribute: ``self.mpi_comm.Isend(...)``)."""
    if not isinstance(call.func, ast.Attribute) or call.func.attr not in MPI_BUFFER_CALLS:
        return None
    name = module.dotted(call.func, frame.scope) or ""
    if not (name.startswith("mpi4py.") or uses_mpi):
        return None
    buffer = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in (
        "buf", "sendbuf")), None)
    kind = reader.type_of(buffer.elts[0] if isinstance(buffer, (ast.List, ast.Tuple)) and buffer.elts else
                          buffer) if buffer is not None else None
    if isinstance(kind, ArrayType) and kind.where != "device":
        return None  # a host buffer: what the kernels wrote was copied out already
    return Event("mpi", place_of(module.path, call), frame.qualname, frame.loops, what=f"{call.func.attr}()",
                 detail={"buffer": ast.unparse(buffer) if buffer is not None else ""})


def host_operation(call: ast.Call, frame: Frame, module: PyModule, reader: TypeReader, targets: List[ast.expr],
                   minus: Dict[int, str], pools: Set[str]) -> Optional[Event]:
    """An allocation, a blocking operation, a copy back to the host or a clock read, or None:
    ``call``, read in ``frame`` of ``module`` with ``reader``, in a statement that assigns to
    ``targets``; ``minus``: id(call) -> the name subtracted from it (``clock() - t0``). A call
    that sets the allocator says so in ``pools``."""
    name = module.dotted(call.func, frame.scope) or ""
    place = place_of(module.path, call)
    assigned = sorted({n for t in targets for n in target_names(t)})
    if name == "numba.cuda.set_memory_manager":
        pools.add("numba")  # an EMM plugin (RMM, CuPy's pool): numba allocates from a pool
    if name == "cupy.cuda.set_allocator" and call.args and isinstance(call.args[0], ast.Constant) \
            and call.args[0].value is None:
        pools.add("cupy-off")  # CuPy's pool turned off: each allocation is a cudaMalloc

    def event(kind: str, what: str, **detail) -> Event:
        return Event(kind, place, frame.qualname, frame.loops, what=what,
                     detail={"assigned": assigned, **detail})

    if name in ALLOCATIONS:
        if name == "numba.cuda.to_device" and call.args and not any(k.arg == "to" for k in call.keywords) or (
                name == "cupy.asarray" and len(call.args) == 1 and not call.keywords):
            handed = reader.type_of(call.args[0])
            # numba's to_device and CuPy's asarray return device memory they are handed as it is (or
            # a view of it): nothing is allocated or copied
            if isinstance(handed, ArrayType) and handed.where == "device":
                return None
            # `cp.asarray(x)` is how code makes sure it holds a CuPy array, mostly where it already
            # does: it copies only what is known to be on the host
            if name == "cupy.asarray" and (handed is None or isinstance(handed, Opaque) or (
                    isinstance(handed, ArrayType) and handed.where != "host")):
                return None
        given = list(call.args) + [k.value for k in call.keywords]
        if name == "numba.cuda.random.create_xoroshiro128p_states":
            # the count sizes it; the seed only sets what it holds
            given = call.args[:1] or [k.value for k in call.keywords if k.arg == "n"]
        reads = sorted({n for a in given for n in names_read(a)})
        # to_device / asarray copy data in: they allocate per step whatever the data; the
        # constructors allocate a shape, which may change with the loop
        copies = name.rsplit(".", 1)[-1] in ("to_device", "asarray", "array", "copy", "ascontiguousarray")
        size = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in (
            "shape", "size", "n")), None)
        bare = sorted(bare_names(size)) if size is not None else []
        # `cuda.to_device(x, to=buf)`: a transfer into a buffer the code already has, no allocation
        into = next((ast.unparse(k.value) for k in call.keywords if k.arg == "to"), "") \
            if name == "numba.cuda.to_device" else ""
        return event("alloc", name, reads=reads, bare=bare, elements=sorted(element_reads(size)),
                     shape_based=not copies, kept=kept(targets, frame, module, reader), into=into,
                     shaped_like=shaped_like(call), fills=name in _CUPY_FILLS,
                     counted=not copies and size is not None and counted_on_device(size, frame, module, call.lineno))
    if name in SYNCS:
        return event("sync", f"{name}()")
    if _reduce_read_back(call, module):
        # numba's Reduce returns `partials[0]`: it reads one element of the device array back, and waits
        return event("copy-back", f"{ast.unparse(call.func)}()", reduce=True, reason=(
            "is a `cuda.reduce` call that returns its result: it reads it back from the device, a blocking "
            "copy (and allocates its partial sums on each call); pass `res=` a device array to keep it there, "
            "or reduce the whole array once"))
    if name.startswith("mpi4py.") and name.rsplit(".", 1)[-1] in ("barrier", "Barrier") or name == (
            "torch.distributed.barrier"):
        return event("barrier", f"{name}()")  # the processes meet: each waits for the others
    if name in CLOCKS:
        return event("clock", f"{name}()", minus=minus.get(id(call), ""))
    if name in PAUSES:
        return event("pause", f"{name}()")
    handed = pycuda_launch(call, frame, module)
    if handed is not None:
        return handed
    timed = timed_statement(call, name, frame, module, reader)
    if timed is not None:
        return event("timed", str(timed.pop("what")), **timed)
    if name == "cupy.asnumpy" and not any(k.arg == "stream" for k in call.keywords):
        return event("copy-back", f"{name}()")
    if name in _CUPYX_ON_THE_HOST:
        # CuPy's sparse LU factorizes with SciPy: it copies the matrix to the host and waits for it
        return event("copy-back", f"{name.replace('cupyx.scipy.sparse.linalg.', '')}()")
    if isinstance(call.func, ast.Attribute):
        method = call.func.attr
        receiver = reader.type_of(call.func.value)
        receiver_name = module.dotted(call.func.value, frame.scope) or ""
        if not receiver_name and isinstance(call.func.value, ast.Call):
            # `cp.cuda.Device(0).synchronize()`, `cp.cuda.get_current_stream().synchronize()`: made where it is used
            receiver_name = module.dotted(call.func.value.func, frame.scope) or ""
        if method in ("synchronize", "auto_synchronize") and (
                isinstance(receiver, Opaque) and receiver.kind in ("stream", "event")
                or receiver_name.startswith(("numba.cuda", "cupy.cuda"))):
            # `with stream.auto_synchronize():` synchronizes when the block is left (the reader moves it there)
            return event("sync", f"{ast.unparse(call.func)}()", on_exit=method == "auto_synchronize")
        if method == "record" and isinstance(receiver, Opaque) and receiver.kind == "event":
            # `evt.record()`: the program times this stretch with CUDA events as well
            return event("record", f"{ast.unparse(call.func)}()")
        if method == "copy_to_host":
            if isinstance(receiver, ArrayType) and receiver.where != "device":
                return None
            stream = copy_stream(call)
            if stream is None:
                return event("copy-back", f"{ast.unparse(call.func)}()", array=dotted_name(call.func.value))
            if pageable_destination(call, frame, module):
                # CUDA returns from a device-to-pageable copy only once it is done: it waits for its stream
                return event("copy-back", f"{ast.unparse(call.func)}()", stream=stream)
            return None  # on a stream into pinned (or unknown) memory: asynchronous
        if method == "copy_to_device" and len(call.args) == 1 and isinstance(receiver, ArrayType) and \
                receiver.where == "device" and receiver.library in ("numba", ""):
            source = reader.type_of(call.args[0])  # `d.copy_to_device(host)`: a transfer into `d`
            if isinstance(source, ArrayType) and source.where == "host":
                return event("alloc", f"{ast.unparse(call.func)}", reads=sorted(names_read(call.args[0])), bare=[],
                             elements=[], shape_based=False, kept="", into=ast.unparse(call.func.value))
        if method in ("get", "item", "tolist") and (isinstance(receiver, ArrayType) and receiver.where == "device"
                                                   or _cupy_result(call.func.value, frame, module)):
            return event("copy-back", f"{ast.unparse(call.func)}()")
        if _cupy_array(receiver) and method not in _CUPY_QUIET_METHODS and not method.startswith("__"):
            # `x.sum()`, `x.astype(np.float32)`, `x.dot(y)`: CuPy queues the kernels and returns
            return event("queue", f"{ast.unparse(call.func)}()", waits=method == "nonzero")
    if name.startswith("numpy.") or name in ("builtins.float", "builtins.int", "builtins.bool") or (
            _cupy_scalar_type(name)):
        for arg in call.args:
            kind = reader.type_of(arg)
            if isinstance(kind, ArrayType) and kind.where == "device" or _cupy_result(arg, frame, module):
                return event("copy-back", f"{ast.unparse(call.func)}({ast.unparse(arg)})")
            # `float(d[0])`: indexing a numba device array copies that element back, blocking
            whole = reader.type_of(arg.value) if isinstance(arg, ast.Subscript) else None
            if isinstance(whole, ArrayType) and whole.where == "device":
                return event("copy-back", f"{ast.unparse(call.func)}({ast.unparse(arg)})", element=True)
    if name in _ITERATING and call.args:
        kind = reader.type_of(call.args[0])  # `sum(d)`: Python iterates it, one blocking copy per element
        if isinstance(kind, ArrayType) and kind.where == "device" and kind.library in ("numba", ""):
            return event("copy-back", f"{ast.unparse(call.func)}({ast.unparse(call.args[0])})", per_element=True)
    if _gpu_call(call, frame, module):
        # a CuPy function queues its kernels and returns (a wall-clock interval's launches); one
        # that sizes its result from the data reads a count back first, and waits
        return event("queue", f"{name}()", waits=_sized(call, name))
    return None


def iterated(loop: ast.For, frame: Frame, module: PyModule, reader: TypeReader) -> Optional[Event]:
    """``for v in d`` over a numba device array: Python iterates it, each item a blocking copy
    of one element to the host (an event of the frame the loop is in: it runs where the loop
    starts), or None."""
    kind = reader.type_of(loop.iter)
    if not (isinstance(kind, ArrayType) and kind.where == "device" and kind.library in ("numba", "")):
        return None
    what = f"for {ast.unparse(loop.target)} in {ast.unparse(loop.iter)}"
    return Event("copy-back", place_of(module.path, loop.iter), frame.qualname, frame.loops, what=what,
                 detail={"assigned": [], "per_element": True})


def element_loop(loop: ast.For, frame: Frame, module: PyModule, reader: TypeReader, rebound: Set[str],
                 parameters: Set[str]) -> Optional[Event]:
    """``for i in range(n)`` whose body (or a ``range`` loop nested in it) reads a numba device
    array's element by those indices from Python (``d[i]``, ``d[i][j]``), or reduces its rows
    one by one with a ``cuda.reduce`` (``sum_reduce(d[i, :n])``): each read copies one
    element to the host and waits, so the loop costs one blocking copy per element, an event of
    the frame the loop is in (where it starts), as ``iterated``'s; or None. A loop that launches
    kernels itself is left out: it is a step loop reading a value per step, not a read-out of
    an array. ``rebound``: names the body rebinds (their type before the loop says nothing);
    ``parameters``: the function's, an array of unknown type among them read as its callers
    bind it (``via``: ``HostFacts.expand`` keeps the event only through a call passing a device
    array)."""
    if not _range_loop(loop, frame, module):
        return None
    indices = set(target_names(loop.target))
    nodes = list(own_nodes(loop))
    for node in nodes:
        if isinstance(node, ast.For) and _range_loop(node, frame, module):
            indices |= set(target_names(node.target))
        elif isinstance(node, ast.Call) and launch_target(node) is not None:
            return None
    for node in nodes:
        if isinstance(node, ast.Call) and _reduce_read_back(node, module) and node.args and (
                names_in(node.args[0]) & indices):
            # `for row in range(m): error += sum_reduce(d[row, :n])`: a cuda.reduce per row, each
            # reading its result back
            what = f"{ast.unparse(node)} for {ast.unparse(loop.target)} in {ast.unparse(loop.iter)}"
            return Event("copy-back", place_of(module.path, loop.iter), frame.qualname, frame.loops, what=what,
                         detail={"assigned": [], "per_element": True, "reduced": ast.unparse(node.func)})
    inner = {id(n.value) for n in nodes if isinstance(n, ast.Subscript)}
    for node in nodes:
        if not isinstance(node, ast.Subscript) or not isinstance(node.ctx, ast.Load) or id(node) in inner:
            continue
        base, used = node, set()
        while isinstance(base, ast.Subscript):  # `d[i][j]`: the chain's array and every index it uses
            used |= names_in(base.slice)
            base = base.value
        if not isinstance(base, (ast.Name, ast.Attribute)) or not used & indices or ast.unparse(base) in rebound:
            continue
        if any(isinstance(part, ast.Slice) for sub in walk_nodes(node) if isinstance(sub, ast.Subscript)
               for part in (sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice])):
            continue  # `d[row:]`, `d[i, :]`: a view of the device array, nothing copied
        kind = reader.type_of(base)
        device = isinstance(kind, ArrayType) and kind.where == "device" and kind.library in ("numba", "")
        # a parameter its callers pass different things to: a device array where a call passes one
        via = base.id if kind is None and isinstance(base, ast.Name) and base.id in parameters else ""
        if device or via:
            what = f"{ast.unparse(node)} for {ast.unparse(loop.target)} in {ast.unparse(loop.iter)}"
            return Event("copy-back", place_of(module.path, loop.iter), frame.qualname, frame.loops, what=what,
                         detail={"assigned": [], "per_element": True, "indexed": ast.unparse(base), "via": via})
    return None


def _range_loop(loop: ast.AST, frame: Frame, module: PyModule) -> bool:
    return isinstance(loop, ast.For) and isinstance(loop.iter, ast.Call) and \
        module.dotted(loop.iter.func, frame.scope) == "builtins.range"


def subscript_events(statement: ast.stmt, frame: Frame, module: PyModule, reader: TypeReader,
                     element_reads: bool = True) -> List[Event]:
    """What indexing device arrays with host data, or by a boolean mask, costs in a statement
    (its test, for an ``if``/``while``), in the order Python runs it (what is read before
    what is stored):

    - ``d[0]`` read from a numba device array, one element: numba-cuda copies it to the host
      and the host waits for it (``element_reads``: False inside a loop over the indices that
      ``element_loop`` counts whole; ``float(d[0])`` is ``host_operation``'s);
    - ``d[idx] = vals`` with ``vals`` a NumPy array, into a CuPy or numba device array: a
      copy of ``vals`` to the device (a transfer, as ``cp.asarray(vals)``);
    - ``d[idx] = value`` into a numba device array that has no stream of its own: numba-cuda's
      setitem uploads a host value (a number, an array) into a new device array, launches an
      assignment kernel on the default stream and synchronizes that stream before it returns
      (the upload a transfer, the wait a blocking operation); CuPy's setitem does not wait;
    - ``d[idx]`` of a CuPy array with ``idx`` a NumPy array (fancy or boolean): the index is
      copied to the device first;
    - ``d[mask]`` read from a CuPy array with a boolean mask on the device (``d[d > 0]``):
      CuPy reads the number of selected elements back to size the result, a blocking wait
      (left to ``cp.asnumpy``/``.get()`` where the selection is copied back at once)."""
    parts = [statement.test] if isinstance(statement, (ast.If, ast.While)) else [
        child for child in child_nodes(statement) if isinstance(child, ast.expr)]
    copied_back = set()  # subscripts a copy back takes whole: that copy is the event
    converted = set()  # `float(d[0])`, `np.sqrt(d[0])`: the call is the event (``host_operation``)
    read: List[Event] = []  # what the statement reads (Python evaluates it first)
    found: List[Event] = []
    place = lambda node: place_of(module.path, node)  # noqa: E731 - one line, three uses
    assigned = sorted({n for t in getattr(statement, "targets", [getattr(statement, "target", None)])
                       if t is not None for n in target_names(t)})
    for part in parts:
        nodes = list(_own_expressions(part))
        # an array is indexed through its name or attribute (`d[i]`, `self.d[i]`)
        subscripts = [n for n in nodes if isinstance(n, ast.Subscript) and isinstance(n.value, (ast.Name, ast.Attribute))]
        if not subscripts:
            continue
        for sub in nodes:
            if isinstance(sub, ast.Call) and sub.args and _last_name(sub.func) == "asnumpy" and \
                    module.dotted(sub.func, frame.scope) == "cupy.asnumpy":
                copied_back.add(id(sub.args[0]))
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr == "get":
                copied_back.add(id(sub.func.value))
            if isinstance(sub, ast.Call) and any(isinstance(a, ast.Subscript) for a in sub.args):
                name = module.dotted(sub.func, frame.scope) or ""
                if name.startswith("numpy.") or name in ("builtins.float", "builtins.int", "builtins.bool"):
                    converted.update(id(a) for a in sub.args)
        for sub in subscripts:
            whole = reader.type_of(sub.value)
            if not (isinstance(whole, ArrayType) and whole.where == "device"):
                continue
            text = ast.unparse(sub)
            # numba-cuda's own device array, without a stream of its own: its setitem and element
            # reads run on the default stream and wait for it
            synchronous = whole.library in ("numba", "") and not whole.stream
            if isinstance(sub.ctx, ast.Store) and isinstance(statement, (ast.Assign, ast.AugAssign)):
                value = reader.type_of(statement.value)
                if isinstance(value, ArrayType) and value.where == "host":
                    found.append(Event("alloc", place(sub), frame.qualname, frame.loops, what=f"{text} = ...",
                                       detail={"assigned": [], "reads": [], "bare": [], "elements": [],
                                               "shape_based": False, "kept": "",
                                               "implicit": f"copies the host array `{ast.unparse(statement.value)}` "
                                                           f"into the device array `{ast.unparse(sub.value)}`"}))
                elif isinstance(value, ScalarType) and synchronous and isinstance(statement, ast.Assign):
                    found.append(Event("alloc", place(sub), frame.qualname, frame.loops, what=f"{text} = ...",
                                       detail={"assigned": [], "reads": [], "bare": [], "elements": [],
                                               "shape_based": False, "kept": "",
                                               "implicit": f"writes the host value `{ast.unparse(statement.value)}` "
                                                           f"into the device array `{ast.unparse(sub.value)}`: "
                                                           f"numba-cuda uploads it into a new device array first"}))
                if synchronous and isinstance(statement, ast.Assign):
                    # (what it stores, where a host number: the host knows that element's value)
                    known = ast.unparse(sub.slice) if isinstance(value, ScalarType) else ""
                    found.append(Event("sync", place(sub), frame.qualname, frame.loops, what=f"{text} = ...",
                                       detail={"assigned": [], "setitem": True, "array": dotted_name(sub.value),
                                               "host_element": known,
                                               "reason": f"writes into the device array `{ast.unparse(sub.value)}`, "
                                                         f"which has no stream of its own: numba-cuda launches an "
                                                         f"assignment kernel on the default stream and synchronizes "
                                                         f"it before returning"}))
                continue
            if isinstance(sub.ctx, ast.Load) and synchronous and element_reads and id(sub) not in converted and \
                    isinstance(reader.type_of(sub), ScalarType):
                # one element, read into Python: copied to the host, the host waiting for it
                read.append(Event("copy-back", place(sub), frame.qualname, frame.loops, what=text,
                                  detail={"assigned": assigned, "element": True}))
                continue
            if whole.library != "cupy":
                continue
            indices = sub.slice.elts if isinstance(sub.slice, ast.Tuple) else [sub.slice]
            hosts = [i for i in indices if isinstance(reader.type_of(i), ArrayType)
                     and reader.type_of(i).where == "host"]
            if hosts:
                named = " and ".join(f"`{ast.unparse(h)}`" for h in hosts)
                arrays = "arrays" if len(hosts) > 1 else "array"
                found.append(Event("alloc", place(sub), frame.qualname, frame.loops, what=text,
                                   detail={"assigned": [], "reads": [], "bare": [], "elements": [],
                                           "shape_based": False, "kept": "",
                                           "implicit": f"copies the host index {arrays} {named} to the device "
                                                       f"to index `{ast.unparse(sub.value)}`"}))
                continue
            if isinstance(sub.ctx, ast.Load) and id(sub) not in copied_back and any(
                    _device_mask(i, reader) for i in indices):
                found.append(Event("sync", place(sub), frame.qualname, frame.loops, what=text,
                                   detail={"assigned": [], "reason": "selects by a boolean mask: CuPy reads the "
                                                                     "number of selected elements back to the host "
                                                                     "to size the result, a blocking wait"}))
    return read + found


def _own_expressions(node: ast.AST):
    """The expressions of ``node``, lambdas' bodies left out (they run when called)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(child for child in child_nodes(current) if not isinstance(child, ast.Lambda))


def _device_mask(index: ast.expr, reader: TypeReader) -> bool:
    """A boolean mask on the device: a comparison of a device array (``d > 0``, ``(d > 0) &
    (d < 1)``), or a device array of booleans."""
    kind = reader.type_of(index)
    if isinstance(kind, ArrayType):
        return kind.where == "device" and kind.dtype in ("bool", "bool_", "boolean")
    if isinstance(index, ast.BinOp) and isinstance(index.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _device_mask(index.left, reader) or _device_mask(index.right, reader)
    if isinstance(index, ast.UnaryOp) and isinstance(index.op, ast.Invert):
        return _device_mask(index.operand, reader)
    if isinstance(index, ast.Compare):
        return any(isinstance(reader.type_of(side), ArrayType) and reader.type_of(side).where == "device"
                   for side in [index.left] + list(index.comparators))
    return False


# PyCUDA's argument handlers: each wraps a host array that the call copies in, out, or both
_PYCUDA_HANDLERS = {"pycuda.driver.In": "in", "pycuda.driver.Out": "out", "pycuda.driver.InOut": "in and out"}


_HANDLER_NAMES = {name.rsplit(".", 1)[-1] for name in _PYCUDA_HANDLERS}


def _last_name(node: ast.expr) -> str:
    return node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else ""


def pycuda_launch(call: ast.Call, frame: Frame, module: PyModule) -> Optional[Launch]:
    """A PyCUDA kernel call with ``drv.In(x)``/``drv.Out(y)``/``drv.InOut(z)`` arguments
    (``func(drv.Out(dest), drv.In(a), block=..., grid=...)``): on every call PyCUDA allocates
    device memory for each, copies ``In`` arrays to the device before the launch and ``Out``
    arrays back after it (a blocking copy that waits for the kernel). A launch on host arrays,
    whose wait is marked ``waits``; None for other calls (and where the file does not import
    PyCUDA: the names resolve only through its import)."""
    if not any(isinstance(arg, ast.Call) and _last_name(arg.func) in _HANDLER_NAMES for arg in call.args):
        return None  # (most calls: no name resolved)
    args, copies = [], []
    for arg in call.args:
        handler = module.dotted(arg.func, frame.scope) if isinstance(arg, ast.Call) else None
        direction = _PYCUDA_HANDLERS.get(handler or "")
        if direction is not None and len(arg.args) == 1:
            args.append(Arg(None, "host", ast.unparse(arg.args[0]), array=True, library="numpy"))
            copies.append(direction)
        else:
            args.append(Arg(None, "", ast.unparse(arg)))
    if not copies:
        return None
    return Launch("launch", place_of(module.path, call), frame.qualname, frame.loops, what=ast.unparse(call.func),
                  detail={"pycuda": True, "waits": any("out" in c for c in copies)}, args=tuple(args))


def _gpu_function(expr: ast.expr, frame: Frame, module: PyModule) -> Optional[str]:
    """What numba builds for the GPU from the function ``expr`` names (``launches.gpu_compiled``),
    the function found in the project by its imports; None otherwise. Asked of every call the
    host reader reads, on each of its passes: kept per call site."""
    memo = getattr(module.project, "memo", None)
    if memo is None:
        return _gpu_function_named(expr, frame, module)
    return memo("gpu function", expr, lambda: _gpu_function_named(expr, frame, module))


def _gpu_function_named(expr: ast.expr, frame: Frame, module: PyModule) -> Optional[str]:
    if not isinstance(expr, (ast.Name, ast.Attribute)):
        return None
    own = _class_member(expr, frame, module)
    if own is not None:  # `self.accel(x, y)`: a ufunc (or kernel) the method's own class body defines
        return gpu_compiled(own, module, Scope(module))
    qualified = module.dotted(expr, frame.scope)
    if not qualified:
        return None
    if "." not in qualified:  # a module without a package name: its own definitions
        binding, defined = module.bindings.get(qualified), module
    else:
        # the reader's project resolves imports across files (`PyModule.project` is typed by
        # what the syntax layer needs of it)
        definition = getattr(module.project, "definition", None)
        found = definition(qualified, module) if definition is not None else None
        defined, binding = found if found is not None else (None, None)
    if binding is None or binding.kind != "def":
        return None
    return gpu_compiled(binding.node, defined, Scope(defined))


def _class_member(expr: ast.expr, frame: Frame, module: PyModule) -> Optional[ast.AST]:
    """The function a module-level class's body defines that ``self.<name>`` / ``cls.<name>``
    names in one of its methods; None otherwise."""
    if not (isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name) and expr.value.id in (
            "self", "cls") and frame.qualname.count(".") == 1):
        return None
    owner = frame.qualname.split(".")[0]
    for klass in module.tree.body:
        if isinstance(klass, ast.ClassDef) and klass.name == owner:
            return next((node for node in klass.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                         and node.name == expr.attr), None)
    return None


def _held_ufunc(expr: ast.expr, module: PyModule, reader: TypeReader) -> bool:
    """A value holding a CUDA ufunc a factory made (``step = make_step()``, ``self.f =
    self.__f_vec()`` returning the ``@guvectorize(..., target='cuda')`` function nested in it):
    every function it may be is one."""
    kind = reader.type_of(expr) if isinstance(expr, (ast.Name, ast.Attribute)) else None
    if not isinstance(kind, ProjectFunctions) or not kind.functions:
        return False
    for path, qualname in held_code(kind):
        owner = module.project.module(path) if path != module.path else module
        node = owner.function_named(qualname) if owner is not None else None
        if node is None or gpu_compiled(node, owner, Scope(owner)) != "ufunc":
            return False
    return True


def ufunc_launch(call: ast.Call, frame: Frame, module: PyModule, reader: TypeReader) -> Optional[Launch]:
    """A call of a CUDA ufunc (``@vectorize([...], target='cuda')``, ``@guvectorize``): a launch,
    on its array arguments and ``out=``. numba copies host arrays to the device, the result back
    and waits for the kernel, as for a kernel launched on them; None for other calls."""
    if any(isinstance(a, ast.Starred) for a in call.args) or (
            _gpu_function(call.func, frame, module) != "ufunc" and not _held_ufunc(call.func, module, reader)):
        return None
    given = list(call.args) + [k.value for k in call.keywords if k.arg == "out"]
    return Launch("launch", place_of(module.path, call), frame.qualname, frame.loops, what=ast.unparse(call.func),
                  args=tuple(launch_arg(reader.type_of(a), ast.unparse(a), made=isinstance(a, ast.Call)) for a in given),
                  stream=any(k.arg == "stream" for k in call.keywords), detail={"ufunc": True})


def configured_gpu_kernel(call: ast.Call, frame: Frame, module: PyModule, is_kernel: Callable[[ast.expr], bool]):
    """A call of a kernel configured for launch where it was bound: ``run = step[grid, block,
    stream]`` then ``run(...)``, or a loop over a list of them (``runs = [k[g, b, s] for s in
    streams]`` then ``for run, a in zip(runs, arrays): run(a)``), with ``step`` made by
    ``@jit(..., target='gpu')`` or a kernel by ``is_kernel``: a launch, as ``launch_target``
    gives it; None otherwise."""
    if not isinstance(call.func, ast.Name):
        return None
    binding, _ = frame.scope.lookup(call.func.id)
    if binding is None:
        return None
    if binding.kind == "assign" and not binding.path and isinstance(binding.value, ast.Subscript):
        configured = launch_target(ast.Call(func=binding.value, args=[], keywords=[]))
    elif binding.kind == "loop":
        configured = _listed_configuration(binding.value, binding.path, frame)
    else:
        return None
    if configured is None or not (is_kernel(configured[0]) or _gpu_function(configured[0], frame, module) == "kernel"):
        return None
    return configured


def _listed_configuration(iterable: ast.expr, path, frame: Frame):
    """What ``launch_target`` gives for the configured kernels a loop variable takes from a list
    written out (``[k[g, b, s] for s in streams]``, ``[k[g, b, s1], k[g, b, s2]]``), directly
    or as one of ``zip``'s sequences; None otherwise."""
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "zip" \
            and path and 0 <= path[0] < len(iterable.args):
        iterable, path = iterable.args[path[0]], path[1:]
    if path:
        return None
    if isinstance(iterable, ast.Name):
        binding, _ = frame.scope.lookup(iterable.id)
        iterable = binding.value if binding is not None and binding.kind == "assign" and not binding.path else None
    if isinstance(iterable, ast.ListComp):
        items = [iterable.elt]
    elif isinstance(iterable, (ast.List, ast.Tuple)) and iterable.elts:
        items = list(iterable.elts)
    else:
        return None
    found = [launch_target(ast.Call(func=item, args=[], keywords=[])) if isinstance(item, ast.Subscript) else None
             for item in items]
    if any(f is None for f in found) or len({ast.unparse(f[0]) for f in found}) != 1:
        return None  # one kernel, configured for each element
    return found[0]


# timeit's own defaults: `timeit.timeit(stmt, setup, timer, number)`, number=1,000,000
_TIMEIT_DEFAULT = 1_000_000
_TIMEIT_NUMBER = {"timeit": 3, "repeat": 4}  # where `number` sits among the positional arguments


def timed_statement(call: ast.Call, name: str, frame: Frame, module: PyModule,
                    reader: TypeReader) -> Optional[Dict[str, object]]:
    """``timeit.timeit(lambda: k[g, b](x), number=100)``, ``timeit.repeat(...)`` and
    ``timeit.Timer(stmt).timeit(number=...)`` timing a callable that launches kernels: how many
    launches one interval holds (``number`` times the launches in the callable; None where the
    number is not fixed), the first launch's text and line, and whether the callable waits for
    the GPU (a synchronization, a blocking copy, a launch on host arrays) after its last launch."""
    timing = _timing(call, name, frame, module)
    if timing is None:
        return None
    timer, method, stmt = timing
    body = _callable_body(stmt, module) if stmt is not None else None
    if body is None:
        return None
    found = timed_work(body, frame, module, reader)
    if found is None:
        return None
    return _timed(found, call, timer, method, frame, module)


def _timing(call: ast.Call, name: str, frame: Frame, module: PyModule):
    """(the call that makes the timer, the method, the timed statement) of a timeit timing, or None."""
    method = name.rsplit(".", 1)[-1] if name.startswith("timeit.") else ""
    timer = None
    if name in ("timeit.timeit", "timeit.repeat"):
        timer = call
    elif isinstance(call.func, ast.Attribute) and call.func.attr in ("timeit", "repeat", "autorange"):
        made = call.func.value
        if isinstance(made, ast.Name):
            made = _bound_timer(made.id, frame, module)  # `timer = timeit.Timer(stmt)` ... `timer.timeit(n)`
        if isinstance(made, ast.Call) and module.dotted(made.func, frame.scope) == "timeit.Timer":
            timer, method = made, call.func.attr
    if timer is None:
        return None
    stmt = timer.args[0] if timer.args else next((k.value for k in timer.keywords if k.arg == "stmt"), None)
    return timer, method, stmt


def timed_through(call: ast.Call, helper: FunctionNode, owner: PyModule, frame: Frame, module: PyModule,
                  reader: TypeReader) -> Optional[Dict[str, object]]:
    """``_timeit_fast(lambda: convolve(a, b))``: a call of a project function ``helper`` (of
    ``owner``) that times, with timeit, the callable one of its parameters holds; what it times
    is what this call passes (read where the call is). The timing of it that holds the fewest
    launches, as ``timed_statement`` gives it, with where the helper times it."""
    parameters = [a.arg for a in helper.args.posonlyargs + helper.args.args]
    if parameters[:1] == ["self"] and isinstance(call.func, ast.Attribute):
        parameters = parameters[1:]  # a method called on its object
    passed = dict(zip(parameters, call.args))
    passed.update({k.arg: k.value for k in call.keywords if k.arg})
    inside = Frame(helper, helper.name, Scope(owner).inner(helper))
    best: Optional[Dict[str, object]] = None
    for node in walk_nodes(helper):
        if not isinstance(node, ast.Call):
            continue
        timing = _timing(node, owner.dotted(node.func, inside.scope) or "", inside, owner)
        if timing is None or not isinstance(timing[2], ast.Name) or timing[2].id not in passed:
            continue
        body = _callable_body(passed[timing[2].id], module)
        found = timed_work(body, frame, module, reader) if body is not None else None
        if found is None:
            continue
        timed = _timed(found, node, timing[0], timing[1], inside, owner)
        if not isinstance(timed["launches"], int) or best is not None and best["launches"] <= timed["launches"]:
            continue
        best = {**timed, "through": f"{helper.name}", "timed_at": node.lineno,
                "timed_in": owner.path, "what": f"{helper.name}(...)", "how": timed["what"]}
    return best


def _timed(found, call: ast.Call, timer: ast.Call, method: str, frame: Frame, module: PyModule) -> Dict[str, object]:
    count, first, waits_after, cupy = found
    given = given_number(call, timer, method)
    growing = method == "autorange" or not (given is None or constant_int(given, module.tree) is not None)
    if method == "autorange":
        number: Optional[int] = 1  # it times 1, 2, 5, 10, ... calls until 0.2 s: the first interval holds one
    else:
        number = _TIMEIT_DEFAULT if given is None else _first_number(given, call, frame, module)
    return {"what": f"timeit.{method}" if timer is call else f"timeit.Timer(...).{method}",
            "launches": None if number is None else number * count, "synced": waits_after,
            "at_least": cupy, "first": growing,
            "launched": ast.unparse(first.func.value if isinstance(first.func, ast.Subscript) else first.func),
            "launch_line": first.lineno}


def given_number(call: ast.Call, timer: ast.Call, method: str) -> Optional[ast.expr]:
    """The ``number`` a timeit call passes (None: timeit's default)."""
    given = next((k.value for k in call.keywords if k.arg == "number"), None)
    # `timeit.timeit(stmt, setup, timer, number)`, `Timer(...).timeit(number)`, `.repeat(repeat, number)`
    position = _TIMEIT_NUMBER[method] if timer is call else (0 if method == "timeit" else 1)
    if given is None and len(call.args) > position:
        given = call.args[position]
    return given


# CuPy calls that queue no GPU work, or wait for it
# (`cp.asarray(x)` of a device array is x; of a host array, a blocking copy in); those that make
# a kernel or a generator to launch later, or describe types and the installation
_CUPY_QUIET = {"cupy.asnumpy", "cupy.asarray", "cupy.array", "cupy.ascontiguousarray", "cupy.issubdtype",
               "cupy.iscomplexobj", "cupy.isrealobj", "cupy.get_array_module", "cupy.dtype", "cupy.result_type", "cupy.ndim",
               "cupy.shape", "cupy.size", "cupy.isscalar", "cupy.get_default_memory_pool",
               "cupy.get_default_pinned_memory_pool", "cupy.ElementwiseKernel", "cupy.ReductionKernel",
               "cupy.RawKernel", "cupy.RawModule", "cupy.fuse", "cupy.memoize", "cupy.finfo", "cupy.iinfo",
               "cupy.can_cast", "cupy.promote_types", "cupy.is_available", "cupy.show_config",
               "cupy.random.RandomState", "cupy.random.default_rng", "cupy.random.Generator",
               "cupy.random.get_random_state", "cupy.random.seed", "cupy.fft.config.get_plan_cache",
               "cupy.random.XORWOW", "cupy.random.MRG32k3a", "cupy.random.Philox4x3210",
               "cupy.fromDlpack", "cupy.from_dlpack", "cupy.ndarray"}  # (views of memory another library holds)
# CuPy's scalar types are NumPy's (`cp.float64 is np.float64`): a conversion, not a kernel
_CUPY_SCALARS = re.compile(r"cupy\.(?:u?int(?:8|16|32|64|c|p)?|float(?:16|32|64)|complex(?:64|128)|bool_|half|single|"
                           r"double|longlong|ulonglong|csingle|cdouble|number|generic|integer|floating)")
# CuPy constructors that write every element they make (`cp.zeros` a memset, `cp.full` and
# `cp.arange` a kernel): GPU work queued like any CuPy call (`cp.empty` writes nothing)
_CUPY_FILLS = {"cupy.zeros", "cupy.ones", "cupy.full", "cupy.zeros_like", "cupy.ones_like", "cupy.full_like",
               "cupy.arange", "cupy.linspace", "cupy.copy", "cupy.ascontiguousarray"}
# methods of a CuPy array that make a view of it, describe it or hand it on: no kernel (`get`,
# `item`, `tolist` copy it back; `set` copies host data in)
_CUPY_QUIET_METHODS = {"reshape", "view", "ravel", "transpose", "swapaxes", "squeeze", "toDlpack", "get", "item",
                       "tolist", "set"}
# cupyx functions that do their work with SciPy on the host (CuPy's documentation says so)
_CUPYX_ON_THE_HOST = {"cupyx.scipy.sparse.linalg.splu", "cupyx.scipy.sparse.linalg.spilu",
                      "cupyx.scipy.sparse.linalg.factorized"}
# CuPy functions that size their result from the data: they read a count back, so they wait
_CUPY_SIZED = {"cupy.nonzero", "cupy.flatnonzero", "cupy.argwhere", "cupy.unique", "cupy.extract",
               "cupy.compress"}


_REDUCE_MAKERS = ("numba.cuda.reduce", "numba.cuda.Reduce")


def _reduce_read_back(call: ast.Call, module: PyModule) -> bool:
    """Whether ``call`` calls a module-level ``cuda.reduce`` object (``@cuda.reduce`` on a def,
    or ``total = cuda.Reduce(lambda a, b: a + b)``) for its result: not given ``res`` (the
    third argument, a device array it writes into), it reads the result back."""
    if not isinstance(call.func, ast.Name) or len(call.args) > 2 or any(k.arg == "res" for k in call.keywords):
        return False
    scope = Scope(module)
    for binding in module.history.get(call.func.id, []):
        if binding.kind == "def" and any(module.dotted(d.func if isinstance(d, ast.Call) else d, scope) in (
                _REDUCE_MAKERS) for d in getattr(binding.node, "decorator_list", [])):
            return True
        if binding.kind == "assign" and isinstance(binding.value, ast.Call) and not binding.path and (
                module.dotted(binding.value.func, scope) in _REDUCE_MAKERS):
            return True
    return False


def _cupy_scalar_type(name: str) -> bool:
    return bool(_CUPY_SCALARS.fullmatch(name))


def _cupy_array(kind) -> bool:
    return isinstance(kind, ArrayType) and kind.where == "device" and kind.library == "cupy"


def cupy_operator(node: ast.AST, frame: Frame, module: PyModule, reader: TypeReader) -> Optional[Event]:
    """An operator on a CuPy array (``z - ys``, ``-x``, ``a < b``), as the ``queue`` event of
    the elementwise kernel CuPy launches for it; None for anything else."""
    if isinstance(node, ast.BinOp):
        operands = [node.left, node.right]
    elif isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        operands = [node.operand]
    elif isinstance(node, ast.Compare):
        operands = [node.left, *node.comparators]
    else:
        return None
    if not any(_cupy_array(reader.type_of(operand)) for operand in operands):
        return None
    return Event("queue", place_of(module.path, node), frame.qualname, frame.loops, what=_short(node),
                 detail={"assigned": [], "waits": False})


def cupy_statement_events(statement: ast.stmt, frame: Frame, module: PyModule, reader: TypeReader) -> List[Event]:
    """What a statement makes CuPy do beyond its calls and operators, read after them (Python
    runs them first): an augmented assignment on a CuPy array (``x *= w``), a store into one
    (``out[a:b] = v``) and a gather by a device index array (``x[idx]``) each queue a kernel
    (a boolean mask's, ``x[x > 0]``, reads its count back first: it waits);
    an ``if``/``while`` test that is a CuPy array (``if (err > tol).any():``) converts it to a
    Python bool, a copy back that waits for the GPU."""
    found: List[Event] = []

    def queued(node: ast.AST, waits: bool = False) -> None:
        found.append(Event("queue", place_of(module.path, node), frame.qualname, frame.loops, what=_short(node),
                           detail={"assigned": [], "waits": waits}))

    if isinstance(statement, (ast.If, ast.While)):
        test = statement.test
        parts = test.values if isinstance(test, ast.BoolOp) else [test]
        decided = [part for part in parts if _cupy_array(reader.type_of(part)) or (
            isinstance(part, ast.Compare) and cupy_operator(part, frame, module, reader) is not None)]
        if decided:
            found.append(Event("copy-back", place_of(module.path, decided[0]), frame.qualname, frame.loops,
                               what=f"bool({_short(decided[0])})", detail={"assigned": [], "test": True}))
        return found
    if isinstance(statement, ast.AugAssign) and (
            _cupy_array(reader.type_of(statement.target)) or _cupy_array(reader.type_of(statement.value))):
        queued(statement)
    parts = [child for child in child_nodes(statement) if isinstance(child, ast.expr)]
    for node in (n for part in parts for n in _own_expressions(part)):
        if not isinstance(node, ast.Subscript) or not _cupy_array(reader.type_of(node.value)):
            continue
        if isinstance(node.ctx, ast.Store) and isinstance(statement, ast.Assign):
            queued(node)  # `out[a:b] = v`: a copy (or fill) kernel
            continue
        indices = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if not isinstance(node.ctx, ast.Load):
            continue
        if any(_device_mask(i, reader) for i in indices):
            queued(node, waits=True)  # `x[x > 0]`: CuPy counts the mask's hits on the host first, so it waits
        elif any(isinstance(kind, ArrayType) and kind.where == "device" and kind.dtype is not None
                 for kind in map(reader.type_of, indices)):
            queued(node)  # `x[idx]` by an integer array on the device: a gather kernel
    return found


def _short(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


def _gpu_call(call: ast.Call, frame: Frame, module: PyModule) -> bool:
    """A CuPy function's call (``cp.fft.fft(x)``, ``cp.convolve(a, b)``): it queues at least one
    kernel and returns before it ends."""
    name = module.dotted(call.func, frame.scope) or ""
    return name.startswith("cupy.") and not name.startswith(("cupy.cuda.", "cupy.testing.")) and (
        name not in _CUPY_QUIET) and not _cupy_scalar_type(name)


def _cupy_result(expr: ast.expr, frame: Frame, module: PyModule) -> bool:
    """What a CuPy function returns (``cp.mean(x)``, ``cp.sum(x)[0]``): an array on the device,
    so ``float(...)`` of it copies it back and waits."""
    while isinstance(expr, ast.Subscript):
        expr = expr.value
    return isinstance(expr, ast.Call) and _gpu_call(expr, frame, module)


def _sized(call: ast.Call, name: str) -> bool:
    """A CuPy call whose result's size is the data's (``cp.nonzero(x)``, ``cp.where(mask)``):
    it copies a count back and waits for the GPU."""
    return name in _CUPY_SIZED or name == "cupy.where" and len(call.args) == 1 and not call.keywords


def timed_work(body: List[ast.AST], frame: Frame, module: PyModule, reader: TypeReader):
    """What timed code queues on the GPU: (the launches one run of it makes, at least one per
    CuPy call; the first of them; whether it waits for the GPU after its last; whether a CuPy
    call makes the count a lower bound), or None where it launches nothing."""
    launches, waits_after, cupy = [], False, False
    # the function the timing is in is not run again by what it times (`convolve` calling the
    # `choose_method` that times it on another branch)
    for sub in _calls_run(body, module, within=(frame.function,) if frame.function is not None else ()):
        if launch_target(sub) is not None:
            launches.append(sub)
            host = any(isinstance(reader.type_of(a), ArrayType) and reader.type_of(a).where == "host"
                       for a in sub.args)
            waits_after = host  # numba-cuda copies host arrays back and waits
        elif _waits(sub, frame, module, reader):
            waits_after = True
        elif _gpu_call(sub, frame, module):
            launches.append(sub)
            waits_after, cupy = False, True
    if not launches:
        return None
    return len(launches), launches[0], waits_after, cupy


def _bound_timer(name: str, frame: Frame, module: PyModule) -> Optional[ast.expr]:
    """The value of the one assignment to ``name`` in the function (or module) being read."""
    body = frame.function if frame.function is not None else module.tree
    values = [node.value for node in own_nodes(body)
              if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)) and any(
                  isinstance(t, ast.Name) and t.id == name
                  for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))]
    return values[0] if len(values) == 1 and isinstance(values[0], ast.Call) else None


def _first_number(given: ast.expr, call: ast.Call, frame: Frame, module: PyModule) -> Optional[int]:
    """How many calls the first interval times: a fixed ``number``, or one the loop around the
    timing sets from its variable before it (``for p in range(10): number = 10 ** p;
    timer.timeit(number)``: 1 in the first iteration, whatever makes it stop)."""
    fixed = constant_int(given, module.tree)
    if fixed is not None or not isinstance(given, ast.Name):
        return fixed
    body = frame.function if frame.function is not None else module.tree
    for loop in (n for n in own_nodes(body) if isinstance(n, ast.For)):
        if not (isinstance(loop.target, ast.Name) and isinstance(loop.iter, ast.Call)
                and isinstance(loop.iter.func, ast.Name) and loop.iter.func.id == "range"
                and 1 <= len(loop.iter.args) <= 3):
            continue
        here = next((i for i, s in enumerate(loop.body) if any(n is call for n in walk_nodes(s))), None)
        if here is None:
            continue
        start = constant_int(loop.iter.args[0], module.tree) if len(loop.iter.args) > 1 else 0
        stop = constant_int(loop.iter.args[1 if len(loop.iter.args) > 1 else 0], module.tree)
        if start is None or stop is None or stop <= start:
            return None
        for statement in reversed(loop.body[:here]):
            if given.id in {n.id for t in getattr(statement, "targets", [getattr(statement, "target", None)])
                            if t is not None for n in walk_nodes(t) if isinstance(n, ast.Name)}:
                if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                    return int_value(statement.value, {loop.target.id: start})
                return None
            if any(isinstance(n, ast.Name) and n.id == given.id and isinstance(n.ctx, ast.Store)
                   for n in walk_nodes(statement)):
                return None  # set some other way (in a nested block): not read here
        return None
    return None


def _callable_body(stmt: ast.expr, module: PyModule) -> Optional[List[ast.AST]]:
    """What a callable given to timeit runs: a lambda's expression, or the body of a function
    of the module it names."""
    if isinstance(stmt, ast.Lambda):
        return [stmt.body]
    if isinstance(stmt, ast.Constant) and isinstance(stmt.value, str):
        # `timeit.timeit("k[g, b](x); cuda.synchronize()", globals=globals(), number=100)`
        try:
            parsed = ast.parse(textwrap.dedent(stmt.value))
        except SyntaxError:
            return None
        for node in walk_nodes(parsed):  # where the string is, for what the message names
            if hasattr(node, "lineno"):
                node.lineno = node.end_lineno = stmt.lineno  # type: ignore[attr-defined]
        return list(parsed.body)
    if isinstance(stmt, ast.Name):
        found = _module_function(stmt.id, module)
        return list(found.body) if found is not None else None
    return None


def _module_function(name: str, module: PyModule):
    """The module's one function definition of that name (None: none, or several)."""
    found = [n for n in tree_nodes(module.tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
             and n.name == name]
    return found[0] if len(found) == 1 and module.kernel_for(found[0]) is None else None


def _calls_run(body: List[ast.AST], module: PyModule, depth: int = 2, within: tuple = ()) -> List[ast.Call]:
    """The calls a timed callable makes, in the order written, with those of the module's
    functions it calls (``lambda: step(d_u)``) in their place, ``depth`` calls deep."""
    found: List[ast.Call] = []
    for node in body:
        calls = sorted((sub for sub in walk_nodes(node) if isinstance(sub, ast.Call)),
                       key=lambda c: (c.end_lineno or c.lineno, c.end_col_offset or 0))  # a call runs after its arguments
        for sub in calls:
            found.append(sub)
            callee = _module_function(sub.func.id, module) if isinstance(sub.func, ast.Name) and depth else None
            if callee is not None and callee not in within:  # not back into a function that called it
                found.extend(_calls_run(list(callee.body), module, depth - 1, within + (callee,)))
    return found


def _waits(call: ast.Call, frame: Frame, module: PyModule, reader: TypeReader) -> bool:
    """A call that makes the host wait for the GPU: a synchronization or a copy to the host."""
    name = module.dotted(call.func, frame.scope) or ""
    if name in SYNCS or name == "cupy.asnumpy" or name.startswith("cupy.") and _sized(call, name):
        return True
    if isinstance(call.func, ast.Attribute) and call.func.attr == "copy_to_host":
        return copy_stream(call) is None or pageable_destination(call, frame, module)
    return isinstance(call.func, ast.Attribute) and call.func.attr in (
        "synchronize", "get", "item", "tolist")


def copy_stream(call: ast.Call) -> Optional[str]:
    """The stream ``d.copy_to_host(ary, stream)`` is queued on, as written; None: none (the
    legacy default stream, a blocking copy)."""
    given = call.args[1] if len(call.args) >= 2 else next((k.value for k in call.keywords if k.arg == "stream"), None)
    if given is None or isinstance(given, ast.Constant) and given.value in (0, None):
        return None
    return ast.unparse(given)


_PINNING = {"numba.cuda.pinned", "numba.cuda.mapped"}  # `with cuda.pinned(h):` page-locks `h` for the block


def pageable_destination(call: ast.Call, frame: Frame, module: PyModule) -> bool:
    """Does ``d.copy_to_host(ary, stream=s)`` copy into pageable host memory? With no ``ary``
    numba allocates a NumPy array; otherwise ``ary`` (a name or ``self.<attr>``) must be made by
    NumPy at every assignment the code shows, and never page-locked (``cuda.pinned(ary)``).
    Unknown is False: the copy may stay asynchronous."""
    destination = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "ary"), None)
    if destination is None or isinstance(destination, ast.Constant) and destination.value is None:
        return True
    if isinstance(destination, ast.Name):
        body = frame.function if frame.function is not None else module.tree
    elif isinstance(destination, ast.Attribute) and isinstance(destination.value, ast.Name) and \
            destination.value.id == "self":
        body = module.tree  # a method's attribute: every assignment to it in the file
    else:
        return False
    text = ast.unparse(destination)
    values = []
    for node in walk_nodes(body):
        if isinstance(node, ast.withitem) and isinstance(node.context_expr, ast.Call) and \
                module.dotted(node.context_expr.func, frame.scope) in _PINNING and \
                any(ast.unparse(a) == text for a in node.context_expr.args):
            return False
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(ast.unparse(t) == text for t in targets):
                values.append(node.value)
    return bool(values) and all(_pageable_value(v, frame, module) for v in values)


def _pageable_value(value: ast.expr, frame: Frame, module: PyModule) -> bool:
    """An expression that makes a new NumPy array in pageable memory (``np.empty(n)``,
    ``np.zeros_like(x)``, ``d.copy_to_host()``)."""
    if not isinstance(value, ast.Call):
        return False
    name = module.dotted(value.func, frame.scope) or ""
    if name in PAGE_LOCKED:
        return False
    if name.startswith("numpy."):
        return True
    return isinstance(value.func, ast.Attribute) and value.func.attr == "copy_to_host" and copy_stream(value) is None \
        and not value.args and not value.keywords


# builtins that iterate their argument in Python
_ITERATING = {f"builtins.{name}" for name in ("sum", "list", "tuple", "max", "min", "any", "all", "sorted", "set")}


# what copies device data back to the host (numba, CuPy)
_COPIED_BACK = {"copy_to_host", "asnumpy", "get"}
# what reads an array's extent, not its values: a size through these is a shape, not a count
_EXTENTS = {"shape", "size", "ndim", "nbytes"}


def counted_on_device(size: ast.expr, frame: Frame, module: PyModule, line: int) -> bool:
    """Whether an allocation's size is a count the device computed: read, through the names the
    function binds before ``line``, from the values of a copy back (``found = int(d_n.copy_to_host()[0])``,
    ``n = max(d_limits.copy_to_host())``), not from an extent (``h.shape``: the same every call) --
    a compaction's output, as large as what the kernels found this time."""
    if not any(isinstance(sub, ast.Name) for sub in _value_reads(size)):
        return False  # a literal size, or only extents: nothing to follow through the function
    values: Dict[str, List[ast.expr]] = {}
    for node in own_nodes(frame.function if frame.function is not None else module.tree):
        if isinstance(node, ast.Assign) and node.lineno < line:
            for target in node.targets:
                for name in target_names(target):
                    values.setdefault(name, []).append(node.value)
    seen: Set[str] = set()
    pending = [size]
    while pending:
        expr = pending.pop()
        for sub in _value_reads(expr):
            if isinstance(sub, ast.Call):
                if isinstance(sub.func, ast.Attribute) and sub.func.attr in _COPIED_BACK:
                    return True
            elif isinstance(sub, ast.Name) and sub.id not in seen:
                seen.add(sub.id)
                pending.extend(values.get(sub.id, ()))
    return False


def _value_reads(expr: ast.AST):
    """The nodes of an expression whose values it reads: not below an extent (``x.shape``,
    ``len(x)``), where only the size of what is there is read."""
    stack = [expr]
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.Attribute) and node.attr in _EXTENTS:
            continue
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "len":
            continue
        stack.extend(child_nodes(node))


def kept(targets: List[ast.expr], frame: Frame, module: PyModule, reader: Optional[TypeReader] = None) -> str:
    """Where the array a statement (assigning to ``targets``) allocates outlives the
    iteration, as the code writes it (``self.buf``, ``frames.append(out)``, ``return out``), or "".
    Written into an array (``out[i, :] = buf``, ``reader`` telling that ``out`` is one), its
    data is copied and the buffer itself is not kept."""
    for target in targets:
        if isinstance(target, (ast.Attribute, ast.Subscript)):
            return ast.unparse(target)
    names = {t.id for t in targets if isinstance(t, ast.Name)}
    if not names:
        return ""
    body = frame.function.body if frame.function is not None else module.tree.body
    for statement in body:
        for node in walk_nodes(statement):
            if isinstance(node, ast.Return) and node.value is not None and names_in(node.value) & names:
                return ast.unparse(node)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                    "append", "extend", "insert", "add", "put") and any(
                    isinstance(a, ast.Name) and a.id in names for a in node.args):
                return ast.unparse(node)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                    and any(isinstance(a, ast.Name) and a.id in names for a in node.args[2:]):
                return ast.unparse(node)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in names \
                    and any(isinstance(t, ast.Attribute) or isinstance(t, ast.Subscript) and not (
                        reader is not None and isinstance(reader.type_of(t.value), ArrayType)) for t in node.targets):
                return ast.unparse(node)
    return ""
