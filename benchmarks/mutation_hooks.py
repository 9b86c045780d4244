"""What benchmarks/mutation.py installs in every Python process of a mutation run: mutmut's
own process, the pytest it runs, and the processes the tests start (``python -m kernlint``, a
script using ``@no_hostcall``, kernlint's worker server and forkserver workers).

mutation.py copies this file next to the mutated tree as ``_kernlint_mutation_hooks.py`` with
a ``sitecustomize.py`` that calls :func:`install`; the tests put that tree on ``PYTHONPATH``
for their subprocesses, so each of them loads it too. Nothing happens unless
``KERNLINT_MUTATION_IR`` (a directory) is set, which only mutation.py does.

- Compiled IR is reused across mutants: the function that compiles a Python file's kernels
  (``compile_file``, wherever kernlint defines it) is memoized on disk, keyed by the file's
  text, the other files it read, and its arguments. No mutated module is involved in
  compiling: numba-cuda's lowering is the same for every mutant, and it is most of the time.
- Cached findings are per mutant: kernlint's toolchain ``identity`` (the key of
  ``.kernlint_cache`` and of the worker server) gets the mutant's name, so one mutant never
  reads findings another mutant's rules produced (all mutants live in one copy of the code,
  whose digest is the same).
- mutmut learns which test reaches which function from a hook in the process it runs the
  tests in; a call in a subprocess would be lost (and mutmut's recorder reads its
  configuration from the current directory, which a test's subprocess may not have). In a
  subprocess the hits are written to ``$KERNLINT_MUTATION_IR/hits`` and the pytest plugin
  below adds them to the test that started the subprocess.
"""

from __future__ import annotations

import atexit
import hashlib
import importlib.abc
import os
import pickle
import sys
import tempfile
import uuid

ENVIRONMENT = "KERNLINT_MUTATION_IR"


def _directory() -> str | None:
    return os.environ.get(ENVIRONMENT) or None


# --- compiled IR, memoized -------------------------------------------------------------------


def _digest(path: str) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.sha256(handle.read()).hexdigest()
    except OSError:
        return None


def _stable(value) -> str:
    """A repr that does not depend on hash seeds (frozensets of strings are unordered)."""
    if isinstance(value, (set, frozenset)):
        return "{" + ",".join(sorted(_stable(v) for v in value)) + "}"
    if isinstance(value, dict):
        return "{" + ",".join(f"{_stable(k)}:{_stable(v)}" for k, v in sorted(value.items(), key=repr)) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(_stable(v) for v in value) + "]"
    if hasattr(value, "__dataclass_fields__"):
        return type(value).__name__ + _stable({k: getattr(value, k) for k in value.__dataclass_fields__})
    return repr(value)


def _memoized(compile_file, module):
    import functools
    import inspect

    signature = inspect.signature(compile_file)
    read_bytes = getattr(module, "read_bytes", None)  # the reader the compile itself uses (buffers too)

    @functools.wraps(compile_file)
    def memoized(*args, **kwargs):
        directory = _directory()
        bound = signature.bind(*args, **kwargs)
        path = os.path.abspath(bound.arguments.get("path", args[0] if args else ""))
        try:
            text = read_bytes(path) if read_bytes is not None else open(path, "rb").read()
        except OSError:
            text = None
        if directory is None or text is None:
            return compile_file(*args, **kwargs)
        # callbacks only report progress; they do not change what is compiled
        arguments = {k: v for k, v in bound.arguments.items() if not callable(v) and k != "path"}
        key = hashlib.sha256(_stable([path, hashlib.sha256(text).hexdigest(), arguments]).encode()).hexdigest()
        entry = os.path.join(directory, "ir", key[:40] + ".pickle")
        try:
            with open(entry, "rb") as handle:
                dependencies, result = pickle.load(handle)
            if all(_digest(p) == d for p, d in dependencies.items()):
                return result
        except (OSError, EOFError, pickle.UnpicklingError, ValueError, AttributeError, ImportError):
            pass
        result = compile_file(*args, **kwargs)
        dependencies = {p: _digest(p) for p in getattr(result, "dependencies", ()) or ()}
        try:
            os.makedirs(os.path.dirname(entry), exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=os.path.dirname(entry))
            with os.fdopen(handle, "wb") as out:
                pickle.dump((dependencies, result), out)
            os.replace(temporary, entry)
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            pass  # a result that does not pickle is compiled again next time
        return result

    memoized.__kernlint_mutation_memoized__ = True
    return memoized


def _per_mutant(identity):
    import functools

    @functools.wraps(identity)
    def with_mutant(*args, **kwargs):
        versions = dict(identity(*args, **kwargs))
        versions["mutant"] = os.environ.get("MUTANT_UNDER_TEST", "")
        return versions

    return with_mutant


def _patch(module) -> None:
    """Wrap the functions this module defines (not those it imports from elsewhere)."""
    for name, wrap in (("compile_file", _memoized), ("identity", _per_mutant)):
        function = module.__dict__.get(name)
        if callable(function) and getattr(function, "__module__", None) == module.__name__ \
                and not getattr(function, "__kernlint_mutation_memoized__", False):
            wrapped = wrap(function, module) if wrap is _memoized else wrap(function)
            wrapped.__kernlint_mutation_memoized__ = True
            setattr(module, name, wrapped)


class _AfterImport(importlib.abc.MetaPathFinder):
    """Runs :func:`_patch` on each kernlint module as soon as it is executed, before any other
    module can take a reference to its functions."""

    def find_spec(self, name, path, target=None):
        if name != "kernlint" and not name.startswith("kernlint."):
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        execute = getattr(loader, "exec_module", None)
        if execute is None:
            return spec

        def exec_module(module):
            execute(module)
            _patch(module)

        try:
            loader.exec_module = exec_module  # each module has its own loader object
        except AttributeError:
            pass
        return spec


# --- mutmut's test-to-function map, across processes -------------------------------------------


def _relay_hits() -> None:
    """In a test's subprocess: keep the functions reached, and write them out at exit."""
    try:
        from mutmut.mutation import trampoline
    except ImportError:
        return
    hits = set()

    def record_trampoline_hit(name, caller=None):
        hits.add(name)

    trampoline.record_trampoline_hit = record_trampoline_hit

    def write():
        if not hits:
            return
        folder = os.path.join(_directory(), "hits")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{os.getpid()}-{uuid.uuid4().hex}.txt"), "w") as out:
            out.write("\n".join(sorted(hits)))

    atexit.register(write)


def collect_relayed_hits() -> set:
    """The functions the subprocesses started since the last call reached (and forget them)."""
    folder = os.path.join(_directory() or "", "hits")
    found = set()
    try:
        names = os.listdir(folder)
    except OSError:
        return found
    for name in names:
        try:
            with open(os.path.join(folder, name)) as handle:
                found.update(line for line in handle.read().splitlines() if line)
            os.unlink(os.path.join(folder, name))
        except OSError:
            pass
    return found


def install() -> None:
    if _directory() is None:
        return
    if not any(isinstance(finder, _AfterImport) for finder in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport())
    # mutmut's own process starts without a mutant and sets "stats" later: only a process
    # started while stats are collected is a test's subprocess
    if os.environ.get("MUTANT_UNDER_TEST") == "stats":
        _relay_hits()


# --- the pytest plugin (``-p _kernlint_mutation_hooks``) --------------------------------------

try:
    import pytest
except ImportError:  # a subprocess without pytest: only install() matters there
    pytest = None

if pytest is not None:
    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_teardown(item, nextitem):
        # before mutmut's own teardown hook reads the hits of this test
        if os.environ.get("MUTANT_UNDER_TEST") != "stats":
            return
        hits = collect_relayed_hits()
        if hits:
            from mutmut.state import state

            state()._stats.update(hits)
