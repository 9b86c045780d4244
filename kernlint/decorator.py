"""``@no_hostcall``: refuse (or fix) a numba.cuda kernel whose code could call the host.

Order: put it above ``@cuda.jit``; it takes the dispatcher and returns the same object::

    @no_hostcall                                   # or @no_hostcall(fix=True, allow=("KL301",))
    @cuda.jit("void(int64[::1], float64[::1])")
    def convert(y, x): ...

Below ``@cuda.jit`` it would get a plain function and raises a TypeError saying so.

Every specialization is checked before it first runs: eager signatures at definition,
lazy ones when numba-cuda compiles a new signature at its first launch (the check runs
inside numba's compile, before the kernel is registered; later launches take numba's
own dispatch path, so they cost what an undecorated kernel costs). A finding that is
not allowed raises ``HostcallError``; with ``fix=True`` checked conversions (KL101) are
rewritten in the code that runs on the GPU, and what the rewrite cannot fix still raises.

On a machine with no CUDA driver numba-cuda cannot compile eager signatures at
definition; importing this module then makes ``cuda.jit`` record them instead (nothing
could run there anyway), so ``@no_hostcall`` still checks them at definition. Under
the CUDA simulator there is no IR: the kernel passes through with a warning.
"""

from __future__ import annotations

import os
import sys
import threading
import warnings
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from .compile import numba_cuda
from .compile.numba_cuda import CompiledKernel, compile_signature, parse_cc, type_text
from .engine import analyse_kernel
from .findings import Finding, KernelInfo
from .rewrite.command import rewrite_kernel
from .rewrite.edit import MODES
from .source import SourceFile


class HostcallError(RuntimeError):
    """A kernel has a code path @no_hostcall forbids."""

    def __init__(self, kernel: str, signature: str, findings: Sequence[Finding]):
        self.kernel = kernel
        self.signature = signature
        self.findings = sorted(findings, key=lambda f: (f.path, f.line, f.code))
        lines = [f"kernel `{kernel}` ({signature}) has forbidden code paths:"]
        for finding in self.findings:
            lines.append(f"  {finding.path}:{finding.line}: {finding.code} {finding.message}")
            source_file = SourceFile.read_or_none(finding.path)
            source = source_file.line(finding.line) if source_file else ""
            if source:
                lines.append(f"      {source.strip()}")
        super().__init__("\n".join(lines))


# (py_func, argtypes) -> (pre-fix-up module texts, entry name), captured inside numba's compile
_captured: Dict[Tuple[object, tuple], Tuple[List[str], str]] = {}
_watched: set = set()
_lock = threading.Lock()


def _install_capture() -> None:
    """Keep the IR numba-cuda lowers for watched kernels, before its kernel fix-up."""
    from numba.cuda import dispatcher

    original = dispatcher.compile_cuda
    if getattr(original, "_kernlint_capture", False):
        return

    def compile_cuda(pyfunc, return_type, args, *rest, **options):
        cres = original(pyfunc, return_type, args, *rest, **options)
        if pyfunc in _watched:
            texts = [str(module) for module in cres.library.modules]
            with _lock:
                _captured[(pyfunc, tuple(args))] = (texts, cres.fndesc.llvm_func_name)
        return cres

    compile_cuda._kernlint_capture = True
    dispatcher.compile_cuda = compile_cuda


def _install_offline_eager_signatures() -> None:
    """Without a driver, record eager signatures instead of failing at definition."""
    import numba.cuda

    if numba.cuda.is_available():
        return
    global _offline_recording
    _offline_recording = numba_cuda.recording_jit()
    # entered for the life of the process (a live reference keeps it from being closed)
    _offline_recording.__enter__()


_offline_recording = None


def _simulated() -> bool:
    from numba import config

    return bool(getattr(config, "ENABLE_CUDASIM", False))


if not _simulated():
    _install_capture()
    _install_offline_eager_signatures()


class HostcallFixWarning(UserWarning):
    """``@no_hostcall(fix=True)`` changed the code a kernel runs: said once per kernel and
    signature, at the kernel's definition (``warnings.simplefilter("ignore", HostcallFixWarning)``
    silences it)."""


def _warn_at(function, message: str, category=UserWarning) -> None:
    """A warning located at a kernel's ``def`` line (the decorator's caller is numba's compile,
    or nothing at all: Python would say ``sys:1``)."""
    code = getattr(function, "__code__", None)
    if code is None:
        warnings.warn(message, category, stacklevel=2)
        return
    module = getattr(function, "__module__", None) or "__main__"
    registry = getattr(sys.modules.get(module), "__dict__", {}).setdefault("__warningregistry__", {})
    warnings.warn_explicit(message, category, code.co_filename, code.co_firstlineno, module=module,
                           registry=registry)


class _Guard:
    def __init__(self, dispatcher, fix: bool, allow: Iterable[str], mode: str, arch: Optional[str]):
        self.dispatcher = dispatcher
        self.fix = fix
        self.allow = tuple(code.upper() for code in allow)
        self.mode = mode
        self.arch = arch

    @property
    def cc(self) -> Tuple[int, int]:
        if self.arch:
            return parse_cc(self.arch)
        from numba import cuda

        if cuda.is_available():
            return tuple(cuda.get_current_device().compute_capability)
        return (9, 0)

    def info(self, signature: str) -> KernelInfo:
        func = self.dispatcher.py_func
        code = func.__code__
        options = getattr(self.dispatcher, "_kernlint_options", None) or {
            key: bool(self.dispatcher.targetoptions.get(key)) for key in numba_cuda.CODEGEN_OPTIONS}
        return KernelInfo(name=func.__name__, path=os.path.abspath(code.co_filename),
                          line=code.co_firstlineno, column=1, signature=signature, options=options)

    def forbidden(self, findings: Iterable[Finding]) -> List[Finding]:
        return [f for f in findings if not f.code.startswith(self.allow or ("\0",)) and f.code[:3] != "KL9"]

    def check(self, compiled: CompiledKernel, argtypes: Optional[tuple] = None) -> Optional[List[str]]:
        """Raise HostcallError for forbidden findings; return rewritten modules with fix=True."""
        rewritten, forbidden = self.evaluate(compiled)
        if not forbidden:
            return rewritten
        if "!DILocation" not in compiled.modules[0] and argtypes is not None:
            # numba compiled it without line info (which costs it ~45% more lowering time):
            # compile once more with it, only now that there is an error to point at
            _, forbidden = self.evaluate(self.compile_offline(compiled.info.signature, argtypes))
        raise HostcallError(compiled.info.name, compiled.info.signature, forbidden)

    def evaluate(self, compiled: CompiledKernel) -> Tuple[Optional[List[str]], List[Finding]]:
        """(rewritten modules when fix=True fixed everything, forbidden findings left)."""
        forbidden = self.forbidden(analyse_kernel(compiled, SourceFile.read_or_none(compiled.info.path)))
        if not forbidden:
            return None, []
        if self.fix and any(f.code == "KL101" and f.fixable for f in forbidden):
            rewrite = rewrite_kernel(compiled, self.mode, self.cc)
            if rewrite is not None and not rewrite.refused:
                left = self.remaining_after(compiled, rewrite.rewritten)
                if not left:
                    self.say_fixed(compiled, forbidden)
                    return rewrite.rewritten, []
                return None, left
        return None, forbidden

    def say_fixed(self, compiled: CompiledKernel, forbidden: List[Finding]) -> None:
        """Name the kernel and the guards the rewrite took out: the GPU runs other code than the source says."""
        guards = sorted({(f.path, f.line) for f in forbidden if f.code == "KL101"})
        where = ", ".join(f"{os.path.basename(path)}:{line}" for path, line in guards)
        _warn_at(self.dispatcher.py_func,
                 f"@no_hostcall(fix=True): `{compiled.info.name}({compiled.info.signature})` runs with its checked "
                 f"float-to-int conversion(s) at {where} rewritten to the {self.mode} form: "
                 f"the guard's error path no longer runs on the GPU", HostcallFixWarning)

    def remaining_after(self, compiled: CompiledKernel, rewritten: List[str]) -> List[Finding]:
        """Findings in the rewritten code (the error paths it deleted take theirs along)."""
        again = CompiledKernel(compiled.info, rewritten, compiled.entry, 0.0)
        return [f for f in self.forbidden(analyse_kernel(again, SourceFile.read_or_none(compiled.info.path)))
                if f.code != "KL101"]

    # -- lazy signatures: checked inside numba's compile, before the kernel is registered

    def add_overload(self, kernel, argtypes):
        key = (self.dispatcher.py_func, tuple(argtypes))
        with _lock:
            captured = _captured.pop(key, None)
        signature = _signature_text(argtypes)
        if captured is None:  # loaded from numba's disk cache: compile the IR ourselves
            compiled = self.compile_offline(signature, tuple(argtypes))
        else:
            texts, entry = captured
            compiled = CompiledKernel(self.info(signature), texts, entry, 0.0,
                                      list(kernel._codelibrary.llvm_strs), _nvvm_options(self.dispatcher))
        rewritten = self.check(compiled, tuple(argtypes))
        if rewritten is not None:
            _replace_code(kernel, compiled, rewritten)
        return self._original_add_overload(kernel, argtypes)

    def compile_offline(self, signature: str, argtypes: Optional[tuple] = None) -> CompiledKernel:
        """Compile a signature ourselves, with line info (``argtypes`` when the text is only
        for display)."""
        with numba_cuda.offline_device(self.cc):
            modules, entry, runnable = compile_signature(
                self.dispatcher, argtypes if argtypes is not None else signature, self.cc, runnable=True)
        return CompiledKernel(self.info(signature), modules, entry, 0.0, runnable, _nvvm_options(self.dispatcher))

    def install(self):
        dispatcher = self.dispatcher
        _watched.add(dispatcher.py_func)
        self._original_add_overload = dispatcher.add_overload
        dispatcher.add_overload = self.add_overload  # instance attribute: numba's compile calls it
        # eager signatures: compiled already (or recorded, without a driver): check them now
        for signature in getattr(dispatcher, "_kernlint_signatures", []):
            self.check(self.compile_offline(str(signature)))
        for argtypes, kernel in list(dispatcher.overloads.items()):
            compiled = self.compile_offline(_signature_text(argtypes), tuple(argtypes))
            rewritten = self.check(compiled)
            if rewritten is not None:
                _replace_code(kernel, compiled, rewritten)
        dispatcher._kernlint_guard = self
        return dispatcher


def _signature_text(argtypes) -> str:
    return f"void({', '.join(type_text(t) for t in argtypes)})"


def _nvvm_options(dispatcher) -> Dict:
    options = dispatcher.targetoptions
    return {"opt": 3 if options.get("opt", True) else 0, "fastmath": bool(options.get("fastmath"))}


def _replace_code(kernel, compiled: CompiledKernel, rewritten: List[str]) -> None:
    """Make the kernel run the rewritten IR: reset numba-cuda's code caches and bind again."""
    library = kernel._codelibrary
    library._llvm_strs = list(rewritten)
    library._entry_name = compiled.entry
    for cache in ("_ptx_cache", "_ltoir_cache", "_cubin_cache", "_linkerinfo_cache", "_cufunc_cache"):
        getattr(library, cache).clear()
    from numba import cuda

    if cuda.is_available():
        kernel.bind()


def no_hostcall(kernel=None, *, fix: bool = False, allow: Iterable[str] = (), mode: str = "unchecked",
                arch: Optional[str] = None):
    """Check a numba.cuda kernel for forbidden code paths before it ever runs."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")

    def decorate(target):
        from numba.cuda.dispatcher import CUDADispatcher

        if isinstance(target, CUDADispatcher):
            return _Guard(target, fix, allow, mode, arch).install()
        if type(target).__name__ == "FakeCUDAKernel":
            _warn_at(getattr(target, "py_func", None) or getattr(target, "fn", None),
                     f"@no_hostcall: `{getattr(target, '__name__', target)}` runs under the CUDA simulator, "
                     f"which has no IR to check; passing it through")
            return target
        if callable(target):
            raise TypeError(
                f"@no_hostcall must be applied above @cuda.jit (it checks the compiled kernel); "
                f"got the plain function `{getattr(target, '__name__', target)}`")
        raise TypeError(f"@no_hostcall expects a numba.cuda.jit kernel, got {type(target).__name__}")

    if kernel is not None:
        return decorate(kernel)
    return decorate
