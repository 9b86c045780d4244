"""numba.cuda kernels -> LLVM IR, with no GPU and no driver, and without running the file.

The file is read, not imported: its kernels are found in the syntax tree
(``python.syntax``) and each is made from a slice of its module (``python.slicing``), as a lazy
numba-cuda dispatcher that remembers the signatures and options its decorator gave.
kernlint then compiles each signature itself through numba-cuda's ``compile_cuda``,
supplying the target's compute capability where numba-cuda would ask the driver for
one (typing a call to a device function does). ``--import-modules`` imports the file
whole instead, with ``numba.cuda.jit`` replaced by a recorder that makes every
dispatcher lazy (eager compilation needs a GPU).

The IR kept is numba's own, before the kernel fix-up that turns exception status
returns into plain ``ret void``: that is where a dropped ``raise`` is still visible.

This module imports numba; it runs in kernlint's worker processes, never in the
CLI's own process.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import json
import os
import re
import sys
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from ..analysis.host import HostFacts
from ..findings import (Finding, KernelInfo, compile_failed, internal_error, no_signature, raised_in, split_origin,
                        unreadable_file)
from ..python.project import FrontendSettings
from ..python.static_types import XOROSHIRO, evaluate_type_text
from ..source import SourceFile, decode_source, read_bytes, undecodable
from .toolchain import find_nvvm

SIG_COMMENT = re.compile(r"^#\s*kernlint:\s*sig\s*=\s*(.+?)\s*$")
CODEGEN_OPTIONS = ("debug", "opt", "lineinfo", "fastmath")


@dataclass
class CompiledKernel:
    info: KernelInfo
    modules: List[str]  # LLVM IR text of each module numba produced (analysed)
    entry: str  # the LLVM name of the kernel's function
    compile_seconds: float
    # The modules as NVVM gets them (after numba-cuda's kernel fix-up); what a rewrite edits.
    # Empty when not asked for, or when the same as ``modules`` (device functions, IR files).
    runnable: List[str] = field(default_factory=list)
    options: Dict[str, Any] = field(default_factory=dict)  # NVVM options: opt, fastmath
    cache_key: Optional[str] = None  # what its findings are cached under (None: not cacheable)

    @property
    def target_modules(self) -> List[str]:
        return self.runnable or self.modules


@dataclass
class FileResult:
    path: str
    kernels: List[CompiledKernel] = field(default_factory=list)
    diagnostics: List[Finding] = field(default_factory=list)
    import_seconds: float = 0.0
    dependencies: List[str] = field(default_factory=list)  # the user's own modules it read or imported
    host_facts: Optional[HostFacts] = None  # what the file's host code does (HIP: read from its host IR)
    host_seconds: float = 0.0  # compiling the host code (HIP)
    # kernels not compiled because findings for exactly this kernel are cached: (key, info)
    reused: List[Tuple[str, KernelInfo]] = field(default_factory=list)


@dataclass(frozen=True)
class KernelReuse:
    """What the worker needs to skip kernels whose findings the cache holds: a salt (the
    toolchain, kernlint's code and the run's options) and the keys already stored."""

    salt: str
    known: frozenset = frozenset()


def parse_cc(arch: str) -> Tuple[int, int]:
    """``sm_90`` / ``90`` / ``9.0`` -> (9, 0)."""
    match = re.fullmatch(r"(?:sm_|compute_)?(\d+)(?:\.(\d+))?a?", arch.strip())
    if not match:
        raise ValueError(f"not a CUDA architecture: {arch!r} (expected e.g. sm_90)")
    if match.group(2) is not None:
        return int(match.group(1)), int(match.group(2))
    digits = match.group(1)
    return int(digits[:-1]), int(digits[-1])


class _Device:
    def __init__(self, cc: Tuple[int, int]):
        self.compute_capability = cc
        self.name = f"kernlint offline sm_{cc[0]}{cc[1]}"


@contextlib.contextmanager
def offline_device(cc: Tuple[int, int]) -> Iterator[None]:
    """Answer numba-cuda's compute-capability questions without a driver."""
    from numba.cuda import compiler, dispatcher

    device = _Device(cc)
    saved = dispatcher.get_current_device, compiler.get_current_device
    dispatcher.get_current_device = compiler.get_current_device = lambda: device
    try:
        yield
    finally:
        dispatcher.get_current_device, compiler.get_current_device = saved


@contextlib.contextmanager
def recording_jit() -> Iterator[None]:
    """Make ``cuda.jit`` lazy and record signatures and the user's codegen options."""
    import numba.cuda
    from numba.core import sigutils
    from numba.cuda import decorators

    original = decorators.jit

    from ..python.slicing import remember

    def record(dispatcher, signatures, options):
        return remember(dispatcher, signatures, options)

    def jit(func_or_sig=None, **options):
        signatures = None
        if sigutils.is_signature(func_or_sig):
            signatures, func_or_sig = [func_or_sig], None
        elif isinstance(func_or_sig, list):
            signatures, func_or_sig = func_or_sig, None
        if func_or_sig is None:
            return lambda func: record(original(func, **options), signatures, options)
        return record(original(func_or_sig, **options), None, options)

    saved = numba.cuda.jit
    numba.cuda.jit = decorators.jit = jit
    try:
        yield
    finally:
        numba.cuda.jit = saved
        decorators.jit = original


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    text = re.sub(r"\x1b\[[0-9;]*m", "", text)
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    # numba prefixes typing errors with a banner: keep its first informative line
    for number, line in enumerate(lines):
        if not line.startswith(("Failed in", "During:", "File ", "^")):
            if line.endswith(":") and number + 1 < len(lines):
                line = f"{line} {lines[number + 1]}"  # "... found for signature:" names it on the next line
            return f"{type(exc).__name__}: {line}"[:300]
    return type(exc).__name__


def _user_line(exc: BaseException, path: str) -> int:
    line = 0
    for frame in traceback.extract_tb(exc.__traceback__):
        if os.path.abspath(frame.filename) == path:
            line = frame.lineno or line
    if isinstance(exc, SyntaxError) and exc.lineno:
        line = exc.lineno
    return line or 1


def _import(path: str, source: SourceFile):
    name = "_kernlint_user_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, os.path.dirname(path))
    code = compile(source.text, path, "exec")
    with recording_jit():
        exec(code, module.__dict__)
    return module


def _user_modules(names, path: str) -> List[str]:
    """Files of modules the import pulled in that belong to the user, not to Python or a package."""
    library = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    found = set()
    for name in names:
        filename = getattr(sys.modules.get(name), "__file__", None)
        if not filename or not filename.endswith(".py"):
            continue
        real = os.path.realpath(filename)
        if real == os.path.realpath(path) or "site-packages" in real or "dist-packages" in real:
            continue
        if any(real.startswith(prefix + os.sep) for prefix in library):
            continue
        found.add(real)
    return sorted(found)


def _def_node(tree: Optional[ast.AST], first_line: int):
    if tree is None:
        return None
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            if start == first_line or node.lineno == first_line:
                return node
    return None


def _option_lines(node) -> Dict[str, Tuple[int, int]]:
    found: Dict[str, Tuple[int, int]] = {}
    if node is None:
        return found
    for decorator in node.decorator_list:
        if isinstance(decorator, ast.Call):
            for keyword in decorator.keywords:
                if keyword.arg in CODEGEN_OPTIONS:
                    found[keyword.arg] = (keyword.lineno, keyword.col_offset + 1)
            for keyword in decorator.keywords:
                if keyword.arg is None:  # `**OPTIONS`: where an option not written out comes from
                    for option in CODEGEN_OPTIONS:
                        found.setdefault(option, (keyword.lineno, keyword.col_offset + 1))
    return found


def comment_signatures(source: SourceFile, first_line: int) -> List[str]:
    sigs = []
    for comment in source.comments_above(first_line):
        match = SIG_COMMENT.match(comment)
        if match:
            sigs.append(match.group(1))
    return sigs


# numba's SSA pass recurses once per block up a dominator chain: a long unrolled kernel
# (particle-in-cell deposition) needs a few thousand frames, more than Python's default 1000
_COMPILE_RECURSION_LIMIT = 20000


@contextlib.contextmanager
def _recursion_limit(limit: int) -> Iterator[None]:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


@contextlib.contextmanager
def pass_events(callback: Optional[Callable[[str], None]]) -> Iterator[None]:
    """Call ``callback`` with ``"pass [function]"`` as each of numba-cuda's compiler passes
    starts (its ``run_pass`` events; numba-cuda 0.2x broadcast numba's own): the steps a
    compile moves through, what tells a long compile from a stuck one."""
    if callback is None:
        yield
        return
    try:
        from numba.cuda.core import event
        kind = "numba-cuda:run_pass"
    except ImportError:
        from numba.core import event
        kind = "numba:run_pass"

    class Passes(event.Listener):
        def on_start(self, started):
            callback(str(started.data.get("name", "?")))

        def on_end(self, ended):
            pass

    with event.install_listener(kind, Passes()):
        yield


def compile_size(dispatcher) -> int:
    """How much code numba-cuda's passes work through to compile a kernel: its bytecode
    instructions, and those of each device function numba inlines into its IR
    (``inline="always"``), once per call site, as numba copies it there. Calls that stay calls
    are compiled on their own, pass by pass, and are not counted."""
    import dis

    sizes: Dict[int, int] = {}

    def inlined(value) -> bool:
        inline = getattr(value, "targetoptions", {}).get("inline", "never")
        return inline is True or inline == "always" or callable(inline)  # a cost model may inline

    def size(function, depth: int) -> int:
        code = getattr(function, "__code__", None)
        if code is None:
            return 0
        known = sizes.get(id(code))
        if known is not None:
            return known
        sizes[id(code)] = 0  # a recursive device function is not inlined into itself forever
        cells = dict(zip(code.co_freevars, function.__closure__ or ()))
        total = 0
        for instruction in dis.get_instructions(code):
            total += 1
            value = None
            if instruction.opname == "LOAD_GLOBAL":
                value = function.__globals__.get(instruction.argval)
            elif instruction.opname == "LOAD_DEREF" and instruction.argval in cells:
                try:
                    value = cells[instruction.argval].cell_contents
                except ValueError:  # an empty cell
                    value = None
            if value is not None and depth < 16 and inlined(value):
                total += size(getattr(value, "py_func", None), depth + 1)
        sizes[id(code)] = total
        return total

    return size(getattr(dispatcher, "py_func", None), 0)


@contextlib.contextmanager
def _hashed_once() -> Iterator[None]:
    """Hash each of llvmlite's debug-info nodes once, not on every lookup.

    Line info is what kernlint asks for that a user's compile does not (numba's default is
    none): numba-cuda attaches a ``!DILocation`` to every instruction, and llvmlite finds each
    one in its module's metadata cache by a hash that walks the location's scope, subprogram,
    file, compile unit and types, every time. Those nodes are immutable once made, so their
    hash is kept on them: the same lookups, the same IR, a quarter less CPU time for fbpic's
    deposit_J_gpu_linear_one_mode (1.30 s against 1.62-1.74 s)."""
    from llvmlite.ir import values

    original = values.DIValue.__hash__

    def __hash__(self):  # noqa: N807 - llvmlite's own method, kept per node
        cached = self.__dict__.get("_kernlint_hash")
        if cached is None:
            cached = self.__dict__["_kernlint_hash"] = original(self)
        return cached

    values.DIValue.__hash__ = __hash__
    try:
        yield
    finally:
        values.DIValue.__hash__ = original


@contextlib.contextmanager
def _tab_tolerant_def_lines() -> Iterator[None]:
    """numba-cuda finds a function's def line for line info by parsing its dedented source: a
    method whose continuation lines start with a tab (``\t and b < 4``) does not dedent, and
    the parse fails (IndentationError) where the user's own launch, without line info, never
    looks. Tabs expanded as Python's tokenizer reads them, the lookup succeeds."""
    import inspect
    import textwrap

    from numba.cuda import lowering

    original = getattr(lowering, "get_func_def_lineno", None)
    if original is None:  # (a numba-cuda that does not look the def line up)
        yield
        return
    from numba.cuda.misc import firstlinefinder

    def def_lineno(pyfunc):
        try:
            return original(pyfunc)
        except SyntaxError:
            lines, offset = inspect.getsourcelines(pyfunc)
            tree = ast.parse(textwrap.dedent("".join(line.expandtabs(8) for line in lines)))
            finder = firstlinefinder.FindDefFirstLine(pyfunc.__code__.co_name,
                                                      pyfunc.__code__.co_firstlineno - offset + 1)
            finder.visit(tree)
            return finder.def_lineno + offset - 1 if finder.def_lineno else None

    lowering.get_func_def_lineno = def_lineno
    try:
        yield
    finally:
        lowering.get_func_def_lineno = original


def compile_signature(dispatcher, signature, cc, runnable: bool = False):
    """Compile one signature of a dispatcher to numba's LLVM IR modules: (analysed
    modules, entry name, runnable modules or [])."""
    from numba.core import types
    from numba.cuda.compiler import compile_cuda

    argtypes, restype = parse_signature(signature)
    options = dispatcher.targetoptions
    device = bool(options.get("device"))
    debug = bool(options.get("debug"))
    codegen = dict(
        debug=debug,
        lineinfo=not debug,
        forceinline=bool(options.get("forceinline")),
        inline=options.get("inline", "never"),
        fastmath=bool(options.get("fastmath")),
        nvvm_options={"opt": 3 if options.get("opt", True) else 0,
                      "fastmath": bool(options.get("fastmath"))},
        cc=cc,
    )
    with offline_device(cc), _recursion_limit(_COMPILE_RECURSION_LIMIT), _hashed_once(), \
            _tab_tolerant_def_lines():
        cres = compile_cuda(dispatcher.py_func, restype if device else types.void, argtypes,
                            **_accepted(compile_cuda, codegen))
    modules = [str(module) for module in cres.library.modules]
    entry = cres.fndesc.llvm_func_name
    fixed: List[str] = []
    if runnable and not device:
        from numba.cuda.compiler import kernel_fixup

        kernel_fixup(cres.library.get_function(entry), debug)
        fixed = [str(module) for module in cres.library.modules]
    return modules, entry, fixed


def parse_signature(signature):
    """(argument types, return type) as numba's ``normalize_signature`` gives them; a text
    may also name ``xoroshiro128p`` (numba-cuda's random states' record type), which a
    launch site on ``create_xoroshiro128p_states(...)`` gives, and ``GridGroup`` (what
    ``cuda.cg.this_grid()`` is: a recorded device function's argument), and named tuples'
    classes (``namedtuple('Point', ('x', 'y'))``, one class per name and fields)."""
    from numba.core import sigutils

    if isinstance(signature, str) and (XOROSHIRO in signature or "GridGroup" in signature
                                       or "namedtuple(" in signature):
        signature = evaluate_type_text(signature)
    return sigutils.normalize_signature(signature)


def _accepted(function, options: dict) -> dict:
    """The options that this numba-cuda's ``function`` takes: older releases lack some
    (``inline`` came in 0.23), and what they lack they do not do."""
    import inspect

    accepted = inspect.signature(function).parameters
    return {name: value for name, value in options.items() if name in accepted}


def _dispatchers(module, path: str):
    from numba.cuda.dispatcher import CUDADispatcher

    found = []
    for value in vars(module).values():
        if isinstance(value, CUDADispatcher) and os.path.abspath(
            value.py_func.__code__.co_filename
        ) == path:
            if all(value is not seen for seen in found):
                found.append(value)
    return sorted(found, key=lambda d: d.py_func.__code__.co_firstlineno)


def signature_text(signature) -> str:
    """A signature as people write it: ``void(int64[::1], float64)``."""
    if isinstance(signature, str):
        return signature
    from numba.core import sigutils

    try:
        argtypes, restype = sigutils.normalize_signature(signature)
    except Exception:  # noqa: BLE001 - shown as numba prints it
        return str(signature)
    ret = "void" if restype is None else type_text(restype)
    return f"{ret}({', '.join(type_text(t) for t in argtypes)})"


def type_text(numba_type) -> str:
    """numba types as people write them in signatures: ``array(int64, 1d, C)`` -> ``int64[::1]``."""
    ndim = getattr(numba_type, "ndim", None)
    dtype = getattr(numba_type, "dtype", None)
    if ndim is None or dtype is None:
        return "void" if str(numba_type) == "none" else str(numba_type)
    dims = [":"] * ndim
    if getattr(numba_type, "layout", "A") == "C":
        dims[-1] = "::1"
    elif getattr(numba_type, "layout", "A") == "F":
        dims[0] = "::1"
    return f"{dtype}[{', '.join(dims)}]"


def _read(path: str, result: FileResult) -> Optional[SourceFile]:
    try:
        data = read_bytes(path)
    except OSError as exc:
        result.diagnostics.append(unreadable_file(path, 1, 1, f"cannot read: {exc.strerror or exc}"))
        return None
    try:
        return SourceFile(path, decode_source(data))
    except (UnicodeDecodeError, SyntaxError, LookupError):
        line, reason = undecodable(data)
        result.diagnostics.append(unreadable_file(path, line, 1, reason))
        return None


@dataclass
class _Candidate:
    """A kernel or device function to compile: what its signatures come from."""

    name: str
    qualname: str
    dispatcher: Any
    node: Optional[ast.AST]
    first_line: int  # the first decorator's line
    variant: str = ""
    standins: Tuple[str, ...] = ()  # library values its slice compiled as stand-ins
    # made from a recorded closure: the signatures the run launched it with there (others are
    # another closure's)
    recorded: Optional[Tuple[str, ...]] = None
    # the numbers of arguments the module's other defs of this qualified name take (a def
    # redefined further down, `def step(x, n)` then `def step(x, y, n)`; one per branch of a
    # factory): a launch that fits one of them and not this def is that def's launch
    sibling_arities: Tuple[Tuple[int, float], ...] = ()

    @property
    def place(self) -> Tuple[int, int]:
        """(line, column) of its def, where findings about it as a whole go."""
        if self.node is None:
            return self.first_line, 1
        return self.node.lineno, self.node.col_offset + 1


def compile_file(
    path: str,
    arch: str = "sm_90",
    extra_signatures: Optional[Dict[str, Sequence]] = None,
    runnable: bool = False,
    progress: Optional[Callable[[], None]] = None,
    settings: Optional[FrontendSettings] = None,
    reuse: Optional[KernelReuse] = None,
    shard: Tuple[int, int] = (0, 1),
    starting: Optional[Callable[[tuple, int], None]] = None,
    skip: Sequence[tuple] = (),
    passing: Optional[Callable[[str], None]] = None,
    finished: Optional[Callable[[tuple, "FileResult"], None]] = None,
) -> FileResult:
    """Compile every kernel and device function one Python file defines (with ``shard`` =
    (k, n): the k-th of every n of its kernels, and the file's own diagnostics only for k = 0;
    n workers then share a file of many kernels). ``starting`` is told each kernel's place
    and size (``compile_size``) before it compiles, ``passing`` each numba-cuda pass as it starts,
    and ``finished`` each kernel's place and what it gave (its compiled signatures, diagnostics
    and reused findings), which the returned result then leaves out.

    By default the file is read, not run: each kernel is made from a slice of its module
    (``slicing``). With ``settings.import_modules`` the file is imported whole, as the
    user's program would import it."""
    path = os.path.abspath(path)
    settings = settings or FrontendSettings()
    result = FileResult(path=path)
    source = _read(path, result)
    if source is None:
        return result
    started = time.perf_counter()
    cc = parse_cc(arch)
    # what the module makes eagerly (`@vectorize([...], target='cuda')` compiles its core as a
    # device function) asks for the device's compute capability too
    with offline_device(cc):
        if settings.import_modules:
            candidates = _imported_candidates(path, source, result)
        else:
            candidates = _sliced_candidates(path, source, result, settings, shard)
    if candidates is None:
        return result
    result.import_seconds = time.perf_counter() - started
    if progress:
        progress()
    skipped = {tuple(place) for place in skip}
    with pass_events(passing):
        for candidate in candidates:
            place = (candidate.qualname,) + candidate.place
            if place in skipped:
                continue  # an earlier worker finished it, or was stopped on it: the run has it
            if starting:
                starting(place, compile_size(candidate.dispatcher))
            before = len(result.kernels), len(result.diagnostics), len(result.reused)
            _compile_candidate(candidate, source, cc, extra_signatures or {}, runnable, progress, result, reuse)
            if finished:
                finished(place, _taken(result, *before))
    return result


def _taken(result: FileResult, kernels: int, diagnostics: int, reused: int) -> FileResult:
    """What ``result`` gained past these counts, taken out of it."""
    part = FileResult(path=result.path, kernels=result.kernels[kernels:],
                      diagnostics=result.diagnostics[diagnostics:], reused=result.reused[reused:])
    del result.kernels[kernels:], result.diagnostics[diagnostics:], result.reused[reused:]
    return part


def _sliced_candidates(path: str, source: SourceFile, result: FileResult,
                       settings: FrontendSettings, shard: Tuple[int, int] = (0, 1)) -> Optional[List[_Candidate]]:
    from ..python.project import Project
    from ..python.slicing import RECORDED, Slicer

    project = Project(settings)
    module = project.module(path)
    if module is None and project.failures:
        result.diagnostics.extend(project.failures)
        return None
    if module is None:
        problem = project.errors.get(path)
        if isinstance(problem, SyntaxError):
            result.diagnostics.append(unreadable_file(path, problem.lineno or 1, problem.offset or 1,
                                                      f"syntax error: {problem.msg}"))
        else:
            result.diagnostics.append(unreadable_file(path, 1, 1, f"cannot parse: {problem}"))
        return None
    slicer = Slicer(project)
    mine, shards = shard
    for problem in slicer.configure(module):
        if mine == 0:
            result.diagnostics.append(unreadable_file(
                path, problem.line or 1, 1, f"numba configuration not applied: {problem.text}"))
    candidates: List[_Candidate] = []
    for number, kernel in enumerate(module.kernels):
        if number % shards != mine:
            continue
        try:
            variants = slicer.variants(kernel)
        except Exception as exc:  # noqa: BLE001 - reported; the other kernels go on
            _not_made(kernel, exc, path, result, settings.debug, numba_may_raise=False)
            continue
        for label, env in variants:
            try:
                with slicer.collecting() as used:
                    dispatcher = slicer.dispatcher(kernel, env)
            except Exception as exc:  # noqa: BLE001 - numba.cuda.jit rejected the options, or kernlint failed
                _not_made(kernel, exc, path, result, settings.debug, numba_may_raise=True)
                continue
            # keys are (path, name, ...): a name may stand in differently in different functions
            standins = tuple(sorted(f"{key[1]} ({slicer.standins[key]})" for key in used))
            recorded = env.get(RECORDED)
            candidates.append(_Candidate(kernel.name, kernel.qualname, dispatcher, kernel.node,
                                         kernel.first_line, label, standins,
                                         tuple(recorded["signatures"]) if recorded is not None else None,
                                         tuple(_arity(k.node) for k in module.kernels
                                               if k.qualname == kernel.qualname and k is not kernel)))
    if mine == 0:
        result.diagnostics.extend(project.failures)
    result.dependencies = sorted(set(project.read) - {path})
    return candidates


def _not_made(kernel, exc: Exception, path: str, result: FileResult, debug: bool, numba_may_raise: bool) -> None:
    """Why a kernel's dispatcher could not be made: a value kernlint cannot read (KL902 where
    it is read), definitions nested too deep, numba refusing the options, or kernlint's own bug
    (KL905; raised again under --debug)."""
    from ..python.slicing import Unresolved  # as _sliced_candidates does: the slicer is loaded where it is used

    if isinstance(exc, Unresolved):
        result.diagnostics.append(_unresolved(kernel, exc, path))
    elif isinstance(exc, RecursionError):
        result.diagnostics.append(compile_failed(path, kernel.line, kernel.column, kernel.name, "",
                                                 "its definitions nest too deeply to read"))
    elif numba_may_raise and not raised_in(exc):
        result.diagnostics.append(compile_failed(path, kernel.line, kernel.column, kernel.name, "",
                                                 _first_line(exc)))
    elif debug:
        raise exc
    else:
        result.diagnostics.append(internal_error(path, kernel.line, kernel.column,
                                                 f"slicing the module for `{kernel.name}`", exc,
                                                 kernel=kernel.name))


def _unresolved(kernel, exc, path: str) -> Finding:
    """KL902 at the read that needed the value (the kernel's def line where that is elsewhere)."""
    line, column = kernel.line, kernel.column
    if exc.use is not None and exc.use[0] == path:
        line, column = exc.use[1], exc.use[2]
    what = "device function" if kernel.device else "kernel"
    finding = compile_failed(path, line, column, kernel.name, "", exc.text)
    finding.message = f"{what} `{kernel.name}` not compiled: {exc.text}"
    finding.kernel_line = kernel.line
    return finding


def _imported_candidates(path: str, source: SourceFile, result: FileResult) -> Optional[List[_Candidate]]:
    """--import-modules: import the file whole (its top level runs) and take its dispatchers."""
    before = set(sys.modules)
    try:
        module = _import(path, source)
    except SyntaxError as exc:
        result.diagnostics.append(unreadable_file(path, exc.lineno or 1, exc.offset or 1,
                                                  f"syntax error: {exc.msg}"))
        return None
    except BaseException as exc:  # noqa: BLE001 - user code may raise anything, SystemExit too
        result.diagnostics.append(unreadable_file(path, _user_line(exc, path), 1,
                                                  f"import failed: {_first_line(exc)}"))
        return None
    result.dependencies = _user_modules(set(sys.modules) - before, path)
    candidates = []
    for dispatcher in _dispatchers(module, path):
        func = dispatcher.py_func
        first_line = func.__code__.co_firstlineno
        candidates.append(_Candidate(func.__name__, func.__qualname__, dispatcher,
                                     _def_node(source.tree, first_line), first_line))
    return candidates


def _signatures_for(candidate: _Candidate, source: SourceFile, extra_signatures) -> Tuple[List, List]:
    """(signatures to compile, inferred ones to try in order) by the documented precedence: the
    decorator's alone where it gives any (numba-cuda compiles no others then); else comments,
    configuration, launch sites and recordings together; the body's inferences only where
    none of those gives one."""
    dispatcher = candidate.dispatcher
    # (spelled with a value kernlint stood in for: `stand-in`, not what the code writes)
    written = getattr(dispatcher, "_kernlint_signature_source", "eager")
    eager = [(s, written) for s in getattr(dispatcher, "_kernlint_signatures", [])]
    if eager:
        return eager, []
    explicit: List[Tuple[Any, str]] = [(s, "comment") for s in comment_signatures(source, candidate.first_line)]
    inferred: List[Tuple[Any, str]] = []
    for key in dict.fromkeys((candidate.qualname, candidate.name)):
        for entry in extra_signatures.get(key, ()):
            signature, origin = entry if isinstance(entry, tuple) else (entry, "config")
            if origin == "recorded" and candidate.recorded is not None:
                continue  # a recorded closure comes with its own launches' signatures
            (inferred if origin.startswith("inferred") else explicit).append((signature, origin))
    explicit += [(signature, "recorded") for signature in candidate.recorded or ()]
    # a launch of another def of this name (one that takes its number of arguments) is not this one's
    explicit = [(signature, origin) for signature, origin in explicit
                if not (_miscounted(candidate, signature, origin) and _fits_a_sibling(candidate, signature))]
    # a launch with another number of arguments than the def takes is reported, and gives no type
    fitting = [(signature, origin) for signature, origin in explicit if not _miscounted(candidate, signature, origin)]
    return explicit, ([] if fitting else inferred)


def _miscounted(candidate: _Candidate, signature, origin: str) -> bool:
    try:
        argtypes, _ = parse_signature(signature)
    except Exception:  # noqa: BLE001 - a signature that does not parse is reported where it compiles
        return False
    return bool(_arity_mismatch(candidate, len(argtypes), *split_origin(origin)))


def _compile_candidate(candidate: _Candidate, source: SourceFile, cc, extra_signatures, runnable: bool,
                       progress, result: FileResult, reuse: Optional[KernelReuse] = None) -> None:
    path = result.path
    line, column = candidate.place
    device = bool(candidate.dispatcher.targetoptions.get("device"))
    signatures, inferred = _signatures_for(candidate, source, extra_signatures)
    if not signatures and not inferred:
        if not device:
            star = getattr(getattr(candidate.node, "args", None), "vararg", None)
            # a star parameter's arity is what its launches spread: the body does not say it
            body = (f"and its body gives no arity for `*{star.arg}`" if star is not None else "and nothing to infer")
            result.diagnostics.append(no_signature(
                path, line, column, candidate.name,
                f"no launch site with known argument types, no recorded signature, {body}"))
        return
    seen = set()
    for signature, origin in signatures:
        text = signature_text(signature)
        if text not in seen:
            seen.add(text)
            _compile_one(candidate, signature, text, origin, cc, runnable, progress, result, reuse=reuse)
    tried: List[Tuple[str, str, str]] = []  # (signature, how it was inferred, why it failed), in order
    for signature, origin in inferred:
        # `inferred:<variant>@<host evidence>`: the evidence goes with the signature (where a
        # launch-site signature names its launch)
        how, _, evidence = origin.partition(":")[2].partition("@")
        failure = _compile_one(candidate, signature, signature, "inferred" + (f"@{evidence}" if evidence else ""),
                               cc, runnable, progress, result, report=False, reuse=reuse)
        if failure is None:
            return
        tried.append((str(signature), how + (f" from {evidence}" if evidence else ""), failure))
    if inferred:
        result.diagnostics.append(no_signature(
            path, line, column, candidate.name, "no launch site with known argument types, no recorded signature"
            + (_standins_said(candidate) if candidate.standins else ""), tried))


def _standins_said(candidate: _Candidate) -> str:
    return f" (compiled with stand-ins for {', '.join(candidate.standins)})"


def _compile_one(candidate: _Candidate, signature, text: str, origin: str, cc, runnable: bool, progress,
                 result: FileResult, report: bool = True, reuse: Optional[KernelReuse] = None) -> Optional[str]:
    """Compile one signature; None when it compiled, else why not (reported unless asked not to)."""
    path = result.path
    dispatcher = candidate.dispatcher
    node = candidate.node
    line, column = candidate.place
    device = bool(dispatcher.targetoptions.get("device"))
    user_options = getattr(dispatcher, "_kernlint_options", None) or {
        key: bool(dispatcher.targetoptions.get(key)) for key in CODEGEN_OPTIONS
    }
    origin, signature_from = split_origin(origin)
    info = KernelInfo(
        name=candidate.name,
        path=path,
        line=line,
        column=column,
        kind="device" if device else "kernel",
        signature=text,
        options=dict(user_options),
        option_lines=_option_lines(node),
        signature_source=origin,
        signature_from=signature_from,
        variant=candidate.variant,
        standins=candidate.standins,
    )

    def failed(reason: str) -> str:
        if report:
            finding = compile_failed(path, line, column, candidate.name, text, reason)
            finding.signature_source, finding.signature_from = origin, signature_from
            result.diagnostics.append(finding)
        return reason

    try:
        argtypes, _ = parse_signature(signature)
    except Exception as exc:  # noqa: BLE001 - eval of the user's string: any error
        return failed(f"the signature does not parse ({_first_line(exc)})")
    miscount = _arity_mismatch(candidate, len(argtypes), origin, signature_from, path)
    if miscount:
        return failed(miscount)
    key = None
    if reuse is not None:
        fingerprint = kernel_fingerprint(dispatcher)
        if fingerprint is not None:
            key = hashlib.sha256(json.dumps(
                [reuse.salt, fingerprint, text, list(cc), runnable, repr(sorted(user_options.items())),
                 _nrt_enabled(),
                 repr(sorted((k, repr(v)) for k, v in dispatcher.targetoptions.items())),
                 info.signature_source, info.variant, info.name, info.line, info.column]).encode()).hexdigest()
            if key in reuse.known:
                result.reused.append((key, info))
                if progress:
                    progress()
                return None
    started = time.process_time()  # CPU time: fair beside kernlint's own
    try:
        modules, entry, fixed = compile_signature(dispatcher, signature, cc, runnable)
    except RecursionError:
        return failed("recursion too deep to compile")
    except Exception as exc:  # noqa: BLE001 - numba raises many kinds of errors
        if raised_in(exc):  # kernlint's own code in numba's compile: its bug, not the kernel's
            if report:
                finding = internal_error(path, line, column, f"compiling `{candidate.name}` for {text}", exc,
                                         kernel=candidate.name)
                finding.signature = text
                result.diagnostics.append(finding)
            return _first_line(exc)
        reason = _first_line(exc)
        compiled = _compiled_with_nrt(candidate, signature, cc, runnable, str(exc))
        if compiled is not None:
            modules, entry, fixed = compiled
            info.options["nrt"] = True
            return _compiled(result, info, modules, entry, fixed, user_options, key, started, progress)
        nvvm = find_nvvm()
        if not nvvm.found:  # numba-cuda lowers with NVVM's data layout and IR version
            reason = nvvm.describe()
        elif candidate.standins and report:  # the candidates tried name them once (below)
            reason += _standins_said(candidate)
        return failed(reason)
    return _compiled(result, info, modules, entry, fixed, user_options, key, started, progress)


def _arity(node) -> Tuple[int, float]:
    """(required, most) positional arguments a def takes (``*args``: any number)."""
    arguments = getattr(node, "args", None)
    if arguments is None or arguments.vararg is not None:
        return 0, float("inf")
    positional = len(arguments.posonlyargs) + len(arguments.args)
    return positional - len(arguments.defaults), positional


def _fits_a_sibling(candidate: _Candidate, signature) -> bool:
    try:
        given = len(parse_signature(signature)[0])
    except Exception:  # noqa: BLE001 - a signature that does not parse is reported where it compiles
        return False
    return any(required <= given <= most for required, most in candidate.sibling_arities)


def _arity_mismatch(candidate: _Candidate, given: int, origin: str, signature_from: str,
                    candidate_path: str = "") -> str:
    """Why a signature cannot fit the kernel's parameters (numba would only say "Signature
    mismatch", or fail later on something else): the launch or the signature that gives another
    number of arguments than the def takes; '' where they agree or the def takes ``*args``."""
    required, positional = _arity(candidate.node)
    if required <= given <= positional:  # (no def read, or `*args`: any number)
        return ""
    takes = f"{positional}" if required == positional else f"{required} to {positional}"
    if origin == "launch-site" and signature_from:
        where, _, line = signature_from.rpartition(":")
        if os.path.abspath(where) == os.path.abspath(candidate_path):
            signature_from = f"line {line}"
        return (f"the launch at {signature_from} passes {given} arguments, but `{candidate.name}` takes {takes}: "
                f"Python raises TypeError there")
    written = "the signature its decorator gives" if origin == "eager" else f"its {origin} signature"
    return f"{written} has {given} argument types, but `{candidate.name}` takes {takes}"


def _compiled(result: FileResult, info: KernelInfo, modules, entry, fixed, user_options, key, started,
              progress) -> None:
    nvvm_options = {"opt": 3 if user_options.get("opt", True) else 0,
                    "fastmath": bool(user_options.get("fastmath"))}
    if user_options.get("debug"):
        nvvm_options["g"] = None
    if progress:
        progress()
    result.kernels.append(CompiledKernel(
        info, modules, entry, time.process_time() - started, fixed, nvvm_options, key))
    return None


# NumPy's allocating functions, which numba-cuda types in a kernel only with its runtime (NRT) on
_ALLOCATING = ("empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like", "array",
               "arange", "copy")
# what numba-cuda says, at any depth of its error, where only its runtime would type the code
# (NumPy's reductions allocate inside: `np.min(a)` fails with the last one, nested)
_NEEDS_NRT = re.compile(r"NRT required|Only accept returning of array passed into the function as argument|"
                        r"No implementation of function Function\(<(?:built-in )?function "
                        r"(?:" + "|".join(_ALLOCATING) + r")\b")


def _compiled_with_nrt(candidate: _Candidate, signature, cc, runnable: bool, error: str):
    """A kernel whose body calls ``np.empty`` (or its kin, or a NumPy reduction that allocates
    inside, ``np.min``) compiles only with numba-cuda's NRT on, so that is how it runs wherever
    it runs (``CUDA_ENABLE_NRT`` set in the environment or around the launch): compile it so,
    and KL202 reports the allocation. None where NRT is already on, is not what failed, or the
    body calls no NumPy function itself (a wrong inferred signature can ask for NRT too: `x[()]`
    on an array inferred one-dimensional)."""
    from numba.core import config

    if _nrt_enabled() or not _NEEDS_NRT.search(error) or not _calls_numpy(candidate):
        return None
    config.CUDA_ENABLE_NRT = True
    try:
        return compile_signature(candidate.dispatcher, signature, cc, runnable)
    except Exception:  # noqa: BLE001 - it fails with NRT too: the first reason is reported
        return None
    finally:
        config.CUDA_ENABLE_NRT = False


def _calls_numpy(candidate: _Candidate) -> bool:
    """Whether the body calls an allocating function by its name (``empty(n)``) or any function
    of a name its function's globals bind to NumPy (``np.min(a)``)."""
    import numpy

    node = candidate.node
    if node is None:
        return False
    names = getattr(getattr(candidate.dispatcher, "py_func", None), "__globals__", {})
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        if isinstance(func, ast.Name) and func.id in _ALLOCATING:
            return True
        if isinstance(func, ast.Attribute) and (func.attr in _ALLOCATING or (
                isinstance(func.value, ast.Name) and names.get(func.value.id) is numpy)):
            return True
    return False


def _nrt_enabled() -> bool:
    from numba.core import config

    return bool(getattr(config, "CUDA_ENABLE_NRT", False))


def kernel_fingerprint(dispatcher) -> Optional[str]:
    """A digest of everything a kernel's IR is made from: its code and that of every function
    it reaches (bytecode, file and lines, so findings' places too), the values of the globals
    and closure cells they read, and their jit options. None where a value is of a kind
    kernlint cannot digest faithfully: that kernel is always compiled."""
    import marshal
    import types as pytypes

    import numpy

    digest = hashlib.sha256()
    seen: set = set()

    def names_read(code) -> List[str]:
        names = list(code.co_names)
        for const in code.co_consts:
            if isinstance(const, pytypes.CodeType):
                names.extend(names_read(const))
        return names

    def add(value, depth: int = 0) -> bool:
        if depth > 40:
            return False
        if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
            digest.update(repr((type(value).__name__, value)).encode())
            return True
        if isinstance(value, (tuple, list)):
            digest.update(f"{type(value).__name__}{len(value)}".encode())
            return all(add(item, depth + 1) for item in value)
        if isinstance(value, numpy.ndarray):
            if value.dtype.hasobject:
                return False
            digest.update(f"ndarray{value.dtype.str}{value.shape}".encode() + value.tobytes())
            return True
        if isinstance(value, (numpy.generic, numpy.dtype)):
            digest.update(repr((type(value).__name__, value)).encode())
            return True
        if id(value) in seen:
            digest.update(b"seen")
            return True
        seen.add(id(value))
        if hasattr(value, "py_func") and hasattr(value, "targetoptions"):  # a numba.cuda dispatcher
            digest.update(repr(sorted((k, repr(v)) for k, v in value.targetoptions.items())).encode())
            digest.update(repr(getattr(value, "_kernlint_signatures", [])).encode())
            return add(value.py_func, depth + 1)
        if isinstance(value, pytypes.FunctionType):
            code = value.__code__
            digest.update(marshal.dumps(code))
            if not add(value.__defaults__, depth + 1):
                return False
            for cell in value.__closure__ or ():
                try:
                    contents = cell.cell_contents
                except ValueError:
                    contents = None
                if not add(contents, depth + 1):
                    return False
            for name in sorted(set(names_read(code))):
                if name in value.__globals__:
                    digest.update(name.encode())
                    if not add(value.__globals__[name], depth + 1):
                        return False
            return True
        if isinstance(value, pytypes.ModuleType):
            name = getattr(value, "__name__", "")
            if sys.modules.get(name) is value:  # imported for real: a library (read, don't run), in the salt
                digest.update(f"module {name}".encode())
                return True
            digest.update(f"user module {name}".encode())  # a slice of a user module: what it holds
            return all(add(item, depth + 1) for item in sorted(
                ((k, v) for k, v in vars(value).items() if not k.startswith("__")), key=lambda kv: kv[0]))
        module = getattr(value, "__module__", None) or getattr(type(value), "__module__", "")
        if module and module.split(".")[0] in ("numba", "numba_cuda", "numpy", "math", "cmath", "operator",
                                               "builtins", "llvmlite", "kernlint"):
            # library objects: functions, types, numba types (their repr names them exactly)
            digest.update(f"{module}:{getattr(value, '__qualname__', '')}:{value!r}".encode())
            return True
        return False

    return digest.hexdigest() if add(dispatcher) else None


def warm_up(arch: str = "sm_90") -> None:
    """Compile one trivial kernel so that forked workers start with numba warmed up."""
    import numba.cuda

    def _kernlint_warm_up(x):
        x[0] = 1

    compile_signature(numba.cuda.jit(_kernlint_warm_up), "void(int64[::1])", parse_cc(arch), True)


def environment() -> Dict[str, Any]:
    import llvmlite
    import numba
    import numba.cuda

    return {
        "numba": numba.__version__,
        "numba_cuda": getattr(numba.cuda, "__version__", "?"),
        "llvmlite": llvmlite.__version__,
    }
