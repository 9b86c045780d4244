"""The user's project, read statically: where its modules are and what they define.

Absolute imports are looked up the way Python would find them when the project runs,
without running it: from the directory above the file's top package (or the script's
own directory), the project root (the nearest directory with ``pyproject.toml``,
``setup.py``, ``setup.cfg`` or ``.git``), its ``src/``, the directories a file adds
with a literal ``sys.path.insert(...)``/``sys.path.append(...)``, the importing file's own
directory (modules of a package that import each other by bare name), and last a package
one or two folders up from a script outside a package (``samples/run.py`` importing the
``lbm`` package beside ``samples/``), and the folders near a script outside a package that
the project's own code shows on the path when it runs (``_run_path_bases``). A module found
there is the user's: it is read, never imported. Anything else is a library.
"""

from __future__ import annotations

import ast
import functools
import itertools
import os
import re
import sys
import tomllib
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Dict, FrozenSet, Iterator, List, Optional, Set, Tuple

from ..findings import Finding, internal_error
from ..source import SourceFile, read_bytes, walk
from .mangling import as_written
from .syntax import PyModule, Wrapper, find_wrapper, tree_nodes, walk_nodes

# Imported (really imported) to give kernels the types and constants they read.
SAFE_MODULES = ("numba", "numpy", "math", "cmath", "operator", "itertools", "functools", "collections", "enum",
                "kernlint",  # kernlint: unchecked_int & co.
                "cuda.bindings")  # NVIDIA's CUDA bindings, which numba-cuda depends on: enums such as cudaRoundMode
_ROOT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")
# what a reading looked at: ("file", path), ("absent", path) or ("naming", path, identifier)
Looked = Tuple[str, ...]


@dataclass
class FrontendSettings:
    """What the configuration tells the Python frontend (picklable: it goes to the workers)."""

    safe_imports: Tuple[str, ...] = ()  # modules imported in addition to SAFE_MODULES
    jit_decorators: Tuple[str, ...] = ()  # qualified names of the project's own jit wrappers
    constants: Dict[str, object] = field(default_factory=dict)  # "NAME" / "path.py::NAME" -> value
    import_modules: bool = False  # import each file whole, running its top level (opt-in)
    root: Optional[str] = None  # the configuration's directory: paths in it are relative to this
    debug: bool = False  # --debug: an internal error stops the run with its traceback (else a KL905)
    # what factory-made kernels closed over in a recorded run (closures.Closures, from the signatures file)
    closures: Dict[str, Dict[str, List[Dict[str, object]]]] = field(default_factory=dict)

    @property
    def safe(self) -> Tuple[str, ...]:
        return SAFE_MODULES + tuple(self.safe_imports)

    def is_safe(self, module: str) -> bool:
        return any(module == m or module.startswith(m + ".") for m in self.safe)


def project_root(path: str) -> str:
    """The nearest directory above ``path`` holding a project marker; else the directory
    above the file's top package."""
    directory = os.path.dirname(os.path.abspath(path))
    found = _marked_root(directory)
    return found if found is not None else package_base(path)


@functools.lru_cache(maxsize=4096)
def _marked_root(directory: str) -> Optional[str]:
    """The nearest directory from ``directory`` up holding a project marker (asked once per
    directory and run: every file of a package asks the same)."""
    probe = directory
    while True:
        if any(os.path.exists(os.path.join(probe, marker)) for marker in _ROOT_MARKERS):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return None
        probe = parent


def package_base(path: str) -> str:
    """The directory above the top package that holds ``path`` (its own directory if none)."""
    directory = os.path.dirname(os.path.abspath(path))
    while os.path.isfile(os.path.join(directory, "__init__.py")):
        parent = os.path.dirname(directory)
        if parent == directory:
            break
        directory = parent
    return directory


def module_name(path: str) -> Tuple[str, str]:
    """(dotted module name, package) of a file, from the packages above it."""
    path = os.path.abspath(path)
    base = package_base(path)
    base = _namespace_portion_base(base) or base  # `acc/components/samples/x.py`: `acc.components.samples.x`
    relative = os.path.relpath(os.path.splitext(path)[0], base)
    parts = [p for p in relative.split(os.sep) if p]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
        return ".".join(parts), ".".join(parts)
    return ".".join(parts), ".".join(parts[:-1])


class Project:
    """Parsed user modules, by file, and how to find them by name."""

    def __init__(self, settings: Optional[FrontendSettings] = None):
        self.settings = settings or FrontendSettings()
        _marked_root.cache_clear()  # the file system as this run finds it
        self.jit_decorators = tuple(self.settings.jit_decorators)
        self._modules: Dict[str, Optional[PyModule]] = {}
        self._wrappers: Dict[str, Optional[Wrapper]] = {}
        self.read: List[str] = []  # the user modules read (besides the checked files): cache dependencies
        self.errors: Dict[str, BaseException] = {}  # why a file could not be parsed
        self.host_facts: Dict[Tuple[str, int], object] = {}  # (file, level) -> its host facts (python.host)
        self.host_consulted: Dict[Tuple[str, int], frozenset] = {}  # (file, level) -> the files that read consulted
        self.host_uses: Dict[Tuple[str, int], dict] = {}  # (file, level) -> what that read took from them
        self.returns: Dict[tuple, tuple] = {}  # what functions return, where reading no one file (python.host)
        self._search_paths: Dict[str, List[str]] = {}
        self._searching: Set[str] = set()  # the files whose search path is being computed
        self.failures: List[Finding] = []  # KL905: where kernlint's own readers failed, once each
        self.absent: set = set()  # where an import looked for a user module and found none: a cache dependency
        self._names: Dict[str, Dict[str, List[str]]] = {}  # project root -> identifier -> files naming it
        self._words: Dict[str, Set[str]] = {}  # file -> the identifiers its text has
        self._roots: Dict[str, str] = {}  # a file's directory -> its project root
        # what the readings under way looked at, and the keys of what `note_again` added (``recording``)
        self._recorders: List[Tuple[Set[Looked], Set[tuple]]] = []
        self.host_reads: Dict[int, Set[Looked]] = {}  # id(host facts) -> what reading them looked at
        self._imports: Dict[str, Tuple[Set[str], Set[str]]] = {}  # a file -> (modules it imports, absent places)
        self._found: Dict[Tuple[str, str], Tuple[Optional[str], List[str]]] = {}  # (dotted, importer) -> `find`
        self._closures: Dict[str, Set[str]] = {}  # a file -> the user modules it imports at any depth
        self._memo: Dict[Tuple[str, int], Tuple[ast.AST, object]] = {}  # (kind, id(node)) -> (node, derived)
        self._absolute: Dict[str, str] = {}  # an absolute path as given -> normalized (``module``)
        self._derived: Dict[tuple, Tuple[object, Set[Looked]]] = {}  # key -> (derived, what deriving it looked at)

    def memo(self, kind: str, node: ast.AST, compute):
        """What ``compute`` derives from a syntax tree node of a module this project holds,
        derived once (host reading asks again at each level and pass)."""
        key = (kind, id(node))
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = (node, compute())  # the node kept: its id stays its own
        return found[1]

    def derived(self, key: tuple, compute):
        """What ``compute`` derives from the project's files alone (not from any reading's
        state), derived once per key; a later ask notes for the readings under way what the
        first derivation looked at, as if it had looked again."""
        found = self._derived.get(key)
        if found is None:
            with self.recording() as looked:
                value = compute()
            found = self._derived[key] = (value, looked)
        elif self._recorders:
            self.note_again(("derived",) + key, found[1])
        return found[0]

    @contextmanager
    def recording(self) -> Iterator[Set["Looked"]]:
        """Collect what the reading inside looks at: the files it parses, the places where an
        import found no module, the project-wide name searches. What is derived from one file
        is cached by those (``cache.FileFacts``)."""
        looked: Set[Looked] = set()
        self._recorders.append((looked, set()))
        try:
            yield looked
        finally:
            self._recorders.pop()

    def note(self, *looked: "Looked") -> None:
        for recorder, _ in self._recorders:
            recorder.update(looked)

    def note_again(self, key, looked: Set["Looked"]) -> None:
        """Note what an earlier reading looked at, kept under ``key``: once per reading under
        way (a file's host facts are asked for again and again while others are read)."""
        key = (key, len(looked))  # a set that grew is noted again
        for recorder, merged in self._recorders:
            if key not in merged:
                merged.add(key)
                recorder.update(looked)

    def failed(self, path: str, line: int, column: int, doing: str, exc: BaseException, kernel: str = "") -> None:
        """Record an internal error as a KL905 at the construct (or re-raise it under --debug)."""
        if self.settings.debug:
            raise exc
        failure = internal_error(path, line, column, doing, exc, kernel)
        if failure not in self.failures:  # a file read at several levels (python.host) fails once
            self.failures.append(failure)

    def module(self, path: str) -> Optional[PyModule]:
        """The file, read and parsed; None where it cannot be (its diagnostic comes elsewhere)."""
        absolute = self._absolute.get(path)
        if absolute is None:  # (asked millions of times while host code is read, mostly by absolute path)
            absolute = os.path.abspath(path)
            if os.path.isabs(path):  # a relative path's meaning follows the working directory
                self._absolute[path] = absolute
        path = absolute
        if self._recorders:
            self.note(("file", path))
        if path not in self._modules:
            source = SourceFile.read_or_none(path)
            module = None
            if source is not None:
                name, package = module_name(path)
                try:
                    module = PyModule(path, source.text, name, package, self)
                except (SyntaxError, ValueError, RecursionError) as exc:
                    self.errors[path] = exc
                except Exception as exc:  # noqa: BLE001 - kernlint's own failure: a KL905, the run goes on
                    self.failed(path, construct_line(exc), 1, "reading the file's definitions and imports", exc)
            self._modules[path] = module
        return self._modules[path]

    def search_path(self, importer: PyModule) -> List[str]:
        """Where absolute imports of ``importer`` are looked up, first first (computed once per
        file: its ``sys.path`` lines are read from the whole tree)."""
        found = self._search_paths.get(importer.path)
        if found is None:
            if importer.path in self._searching:
                # reading its own sys.path lines names an import (`filters.insert(...)`, `filters`
                # imported): that lookup sees the places every file has
                return self._search_path(importer, with_inserts=False)
            self._searching.add(importer.path)
            try:
                found = self._search_paths[importer.path] = self._search_path(importer)
            finally:
                self._searching.discard(importer.path)
        return found

    def _search_path(self, importer: PyModule, with_inserts: bool = True) -> List[str]:
        candidates = [package_base(importer.path), project_root(importer.path)]
        candidates += [os.path.join(candidates[-1], "src"), _namespace_portion_base(package_base(importer.path))]
        if self.settings.root:
            candidates += [self.settings.root, os.path.join(self.settings.root, "src")]
        if with_inserts:
            candidates += path_inserts(importer)
        return list(dict.fromkeys(os.path.abspath(c) for c in candidates if os.path.isdir(c)))

    def find(self, dotted: str, importer: PyModule) -> Optional[str]:
        """The file (or package directory) of a user module; None for libraries."""
        if not dotted or self.settings.is_safe(dotted):
            return None
        key = (dotted, importer.path)
        known = self._found.get(key)
        if known is None:
            known = self._found[key] = self._find(dotted, importer)
        found, absent = known
        if self._recorders:  # what an earlier search found nothing at, for a reading under way
            self.note(*(("absent", candidate) for candidate in absent))
        return found

    def _find(self, dotted: str, importer: PyModule) -> Tuple[Optional[str], List[str]]:
        """(the file or package directory of a user module, the places it was looked for and
        not found)."""
        parts = dotted.split(".")
        absent: List[str] = []
        # last, the importer's own folder: a package whose modules import each other by bare name
        # (`import cfg` beside cfg.py) runs with that folder on PYTHONPATH (or under Python 2's
        # implicit relative imports); a file there of that name can only be the project's own
        own = [os.path.dirname(os.path.abspath(importer.path))]
        # a standard-library name is the project's only where the project puts it: its own
        # folders, never a folder near it that the project's code only seems to run from (a
        # copy of the standard library beside it, whose modules import each other by bare name)
        guessed = [] if parts[0] in sys.stdlib_module_names else _enclosing_bases(importer.path, parts[0])
        nearby = [] if parts[0] in sys.stdlib_module_names else _beside_bases(importer.path, parts[0]) + \
            _run_path_bases(importer.path, parts[0])
        stems = [os.path.join(base, *parts) for base in self.search_path(importer) + guessed + own + nearby]
        root = _marked_root(os.path.dirname(os.path.abspath(importer.path)))
        stems += _mapped_stems(root, parts) if root is not None else []
        for stem in stems:
            for candidate in (stem + ".py", os.path.join(stem, "__init__.py")):
                if os.path.isfile(candidate):
                    return candidate, absent
                self.absent.add(candidate)
                absent.append(candidate)
            if os.path.isdir(stem) and _is_namespace_package(stem):
                return stem, absent
        return None, absent

    def names_any(self, path: str, names) -> bool:
        """Whether the Python file's text has one of ``names`` as a word."""
        words = self._words.get(path)
        if words is None:
            try:
                words = self._words[path] = {w.decode("ascii") for w in _WORD.findall(read_bytes(path))}
            except OSError:
                words = self._words[path] = set()
        return not words.isdisjoint(names)

    def files_naming(self, path: str, name: str) -> List[str]:
        """The Python files of ``path``'s project whose text has ``name`` as a word (one scan
        of the project, however many names are asked for)."""
        if self._recorders:
            self.note(("naming", path, name))
        directory = os.path.dirname(path)
        root = self._roots.get(directory)
        if root is None:
            root = self._roots[directory] = project_root(path)
        index = self._names.get(root)
        if index is None:
            index = self._names[root] = {}
            for count, found in enumerate(walk(root, (".py",))):
                if count >= MAX_PROJECT_FILES:
                    break
                try:
                    data = read_bytes(found)
                except OSError:
                    continue
                absolute = os.path.abspath(found)
                for word in set(_WORD.findall(data)):
                    index.setdefault(word.decode("ascii"), []).append(absolute)
        return index.get(name, [])

    def imported_closure(self, paths) -> Tuple[Set[str], Set[str]]:
        """(the user modules the files import, directly or through each other, by any import
        statement at any depth; the places where one of those imports found no module): what
        reading the files may have looked at through a result kept from before this run."""
        found: Set[str] = set().union(*(self.imports_of_file(p) for p in paths))
        absent: Set[str] = set()
        for path in found | {os.path.abspath(p) for p in paths}:
            absent |= self._imports_of(path)[1]
        return found, absent

    def imports_of_file(self, path: str) -> FrozenSet[str]:
        """The user modules one file imports, directly or through each other (once per run)."""
        found = self._closures.get(path)
        if found is None:
            self._close_imports(os.path.abspath(path))
            found = self._closures[path] = self._closures[os.path.abspath(path)]
        return found

    def _close_imports(self, root: str) -> None:
        """``imports_of_file`` for ``root`` and every module it reaches, in one walk of the import
        graph: Tarjan's strongly connected components, each component's closure made from those
        of the components it imports (closing each file alone walked a large package's graph once
        per file)."""
        closures = self._closures
        index: Dict[str, int] = {}
        low: Dict[str, int] = {}
        stack: List[str] = []
        on_stack: Set[str] = set()

        def targets(path: str) -> List[str]:
            return sorted(self._imports_of(path)[0])

        def enter(path: str) -> None:
            index[path] = low[path] = len(index)
            stack.append(path)
            on_stack.add(path)
            work.append((path, iter(targets(path))))

        work: List[Tuple[str, Iterator[str]]] = []
        enter(root)
        while work:
            path, following = work[-1]
            for target in following:
                if target in closures:
                    continue
                if target not in index:
                    enter(target)
                    break
                if target in on_stack:
                    low[path] = min(low[path], index[target])
            else:
                work.pop()
                if work:
                    caller = work[-1][0]
                    low[caller] = min(low[caller], low[path])
                if low[path] == index[path]:
                    component = set()
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.add(member)
                        if member == path:
                            break
                    closure: Set[str] = set()
                    for member in component:
                        for target in self._imports_of(member)[0]:
                            closure.add(target)  # a member only where a cycle leads back to it
                            if target not in component:
                                closure |= closures[target]
                    frozen = frozenset(closure)
                    for member in component:
                        closures[member] = frozen

    def direct_imports(self, path: str) -> Set[str]:
        """The user modules a file's own import statements name."""
        return self._imports_of(os.path.abspath(path))[0]

    def _imports_of(self, path: str) -> Tuple[Set[str], Set[str]]:
        """(the user modules a file's import statements name, where they found none): once per run."""
        known = self._imports.get(path)
        if known is not None:
            return known
        module = self.module(path)
        targets: Set[str] = set()
        with self.recording() as looked:
            for node in _statements(module.tree.body) if module is not None else ():
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    base = module.absolute_module(node.module or "", node.level)
                    names = [base] + [f"{base}.{alias.name}" if base else alias.name for alias in node.names]
                else:
                    continue
                for name in names:
                    target = self.find(name, module) if name else None
                    if target is not None and target.endswith(".py"):
                        targets.add(target)
        known = self._imports[path] = (targets, {entry[1] for entry in looked if entry[0] == "absent"})
        return known

    def modules_read(self) -> List[str]:
        """Every file this run parsed (the checked ones and those their imports reached)."""
        return [path for path in self._modules]

    def as_written(self, message: str, path: str, line: int) -> str:
        """``message``, of a finding at ``path:line``, naming private attributes as the code
        writes them (``self.__d``), not as they were read (``self._Sim__d``)."""
        if "__" not in message:
            return message
        renamed = {new: name for module in self._modules.values() if module is not None
                   for new, name in module.private_names.items()}
        module = self._modules.get(path)
        lines = module.text.splitlines() if module is not None else []
        return as_written(message, renamed, lines[line - 1] if 0 < line <= len(lines) else "")

    def module_named(self, dotted: str, importer: PyModule) -> Optional[PyModule]:
        found = self.find(dotted, importer)
        if found is None or os.path.isdir(found):
            return None
        module = self.module(found)
        if module is not None and found not in self.read and found != importer.path:
            self.read.append(found)
        return module

    def definition(self, qualified: str, importer: PyModule, depth: int = 0, stars: bool = False):
        """(module, binding) where ``pkg.mod.name`` is defined in the user's code, following
        re-exports (``from .impl import name`` in a package's ``__init__``, and with ``stars``
        ``from .impl import *``); None for libraries."""
        module_part, _, name = qualified.rpartition(".")
        if depth > 10 or not module_part:
            return None
        module = importer if module_part == importer.name else self.module_named(module_part, importer)
        if module is None:
            return None
        binding = module.bindings.get(name)
        if binding is None and stars:  # `from .tensor_ops import *` in a package's `__init__`: the module it comes from
            owner = module.star_source(name)
            binding = owner.bindings.get(name) if owner is not None else None
            if binding is None:
                return None
            module = owner
        if binding is not None and binding.kind == "import" and binding.attr and binding.module:
            return self.definition(binding.imported, module, depth + 1, stars) or (module, binding)
        return (module, binding) if binding is not None else None

    def numba_cuda_class(self, qualified: str):
        """(module, binding) of a class of numba-cuda's own Python source (``numba.cuda.testing.
        ForeignArray``), read as syntax where numba-cuda is installed (kernlint compiles with it);
        None for any other name."""
        source = _numba_cuda_source()
        module_part, _, name = qualified.rpartition(".")
        if source is None or not module_part.startswith("numba.cuda"):
            return None
        path = os.path.join(source, *module_part.split("."))
        path = path + ".py" if os.path.isfile(path + ".py") else os.path.join(path, "__init__.py")
        module = self.module(path) if os.path.isfile(path) else None
        binding = module.bindings.get(name) if module is not None else None
        return (module, binding) if binding is not None and binding.kind == "class" else None

    def wrapper(self, qualified: str, importer: PyModule) -> Optional[Wrapper]:
        """A user function ``pkg.mod.name`` that wraps numba.cuda.jit, or None."""
        if qualified not in self._wrappers:
            self._wrappers[qualified] = None  # recursion guard
            found = self.definition(qualified, importer)
            if found is not None and found[1].kind in ("def", "class"):
                self._wrappers[qualified] = find_wrapper(found[0], found[1].name)
        return self._wrappers[qualified]


@functools.lru_cache(maxsize=1)
def _numba_cuda_source() -> Optional[str]:
    """The directory holding numba-cuda's ``numba/cuda`` (its import redirector maps
    ``numba.cuda`` there); found without importing it. None where it is not installed."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("numba_cuda")
    except (ImportError, ValueError):
        return None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        if os.path.isdir(os.path.join(location, "numba", "cuda")):
            return location
    return None


def _statements(body) -> Iterator[ast.stmt]:
    """Every statement, at any depth (function bodies, branches, handlers), no expressions."""
    for statement in body:
        yield statement
        for field_name in ("body", "orelse", "finalbody", "handlers", "cases"):
            inner = getattr(statement, field_name, None)
            if isinstance(inner, list):
                yield from _statements(inner)


MAX_PROJECT_FILES = 5000  # a project's files read to find what names a kernel or a function
_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")


def _is_namespace_package(directory: str) -> bool:
    try:
        return any(entry.endswith(".py") or os.path.isdir(os.path.join(directory, entry))
                   for entry in os.listdir(directory))
    except OSError:
        return False


def path_inserts(module: PyModule) -> List[str]:
    """Directories a file adds with ``sys.path.insert(i, <literal path>)`` or ``append``,
    evaluated without running anything (``__file__``, ``os.path`` and ``pathlib`` only)."""
    found: List[str] = []
    if "path" not in module.text or not ("insert" in module.text or "append" in module.text):
        return found  # (most files: no whole-tree walk)
    for node in tree_nodes(module.tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("insert", "append") and module.dotted(node.func.value) == "sys.path"):
            continue
        argument = node.args[-1] if node.args else None
        if argument is None:
            continue
        value = _path_value(argument, module)
        if isinstance(value, str):
            found.append(value if os.path.isabs(value) else os.path.join(os.path.dirname(module.path), value))
    return found


def _path_value(expr: ast.expr, module: PyModule, depth: int = 0):
    """A tiny evaluator for path expressions: strings, ``__file__``, os.path and pathlib calls."""
    if depth > 20:
        return None
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value
    if isinstance(expr, ast.Name):
        if expr.id == "__file__":
            return module.path
        binding = module.bindings.get(expr.id)
        if binding is not None and binding.kind == "assign" and not binding.path:
            return _path_value(binding.value, module, depth + 1)
        return None
    if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.Div):  # Path / "x"
        left, right = _path_value(expr.left, module, depth + 1), _path_value(expr.right, module, depth + 1)
        return os.path.join(left, right) if isinstance(left, str) and isinstance(right, str) else None
    if isinstance(expr, ast.Attribute) and expr.attr == "parent":
        inner = _path_value(expr.value, module, depth + 1)
        return os.path.dirname(inner) if isinstance(inner, str) else None
    if isinstance(expr, ast.Call):
        name = module.dotted(expr.func) or ""
        args = [_path_value(a, module, depth + 1) for a in expr.args]
        if any(not isinstance(a, str) for a in args):
            if isinstance(expr.func, ast.Attribute) and expr.func.attr == "resolve" and not expr.args:
                inner = _path_value(expr.func.value, module, depth + 1)
                return os.path.abspath(inner) if isinstance(inner, str) else None
            return None
        functions = {
            "os.path.join": lambda *a: os.path.join(*a),
            "os.path.dirname": os.path.dirname,
            "os.path.abspath": os.path.abspath,
            "os.path.realpath": os.path.realpath,
            "os.path.normpath": os.path.normpath,
            "os.path.expanduser": lambda p: p,
            "pathlib.Path": lambda *a: os.path.join(*a) if a else ".",
            "builtins.str": lambda a: a,
        }
        if name in functions and args:
            try:
                return functions[name](*args)
            except TypeError:
                return None
        if isinstance(expr.func, ast.Attribute) and expr.func.attr == "resolve" and not expr.args:
            inner = _path_value(expr.func.value, module, depth + 1)
            return os.path.abspath(inner) if isinstance(inner, str) else None
    return None



def construct_line(exc: BaseException) -> int:
    """The line of the construct being read when ``exc`` was raised: the innermost frame
    whose locals hold a syntax node (1 if none does)."""
    import traceback as _traceback

    line = 1
    for frame, _ in _traceback.walk_tb(exc.__traceback__):
        for value in frame.f_locals.values():
            if isinstance(value, ast.AST) and hasattr(value, "lineno") and not isinstance(value, ast.Module):
                line = value.lineno
                break
    return line


MAX_BESIDE_LEVELS = 2  # folders up from a script to the one holding the package it imports
MAX_NAMESPACE_LEVELS = 3  # folders without __init__.py between a file and the regular package above it


def _namespace_portion_base(directory: str) -> str:
    """For a folder of files in folders without ``__init__.py`` inside a regular package
    (``gmm_mask/gpu/blur.py`` with ``gmm_mask/__init__.py``; ``acc/components/monitors/psd.py``
    with ``acc/__init__.py``): the folder above that package. Such a file is imported only as a
    namespace portion of the package (``gmm_mask.gpu.blur``), so that folder is on ``sys.path``
    when it runs and its relative imports start from there; "" elsewhere. At most
    ``MAX_NAMESPACE_LEVELS`` such folders, never above the project's marked root."""
    top_root = _marked_root(directory)
    for _ in range(MAX_NAMESPACE_LEVELS):
        if os.path.isfile(os.path.join(directory, "__init__.py")) or not os.path.basename(directory).isidentifier() \
                or directory == top_root:
            return ""
        parent = os.path.dirname(directory)
        if parent == directory:
            return ""
        if os.path.isfile(os.path.join(parent, "__init__.py")):
            return package_base(os.path.join(parent, "__init__.py"))
        directory = parent
    return ""


def _mapped_stems(root: str, parts: List[str]) -> List[str]:
    """Where the project's packaging puts a dotted module: setuptools' ``package_dir``
    (``{"mcvine.acc": "acc"}``: ``mcvine.acc.config`` is ``acc/config.py``), longest prefix first."""
    stems = []
    for prefix, folder in _package_dirs(root):
        named = prefix.split(".") if prefix else []
        if parts[:len(named)] == named:
            stems.append(os.path.join(root, folder, *parts[len(named):]))
    return stems


@functools.lru_cache(maxsize=256)
def _package_dirs(root: str) -> Tuple[Tuple[str, str], ...]:
    """(package, folder) pairs a project's ``setup.py`` (a literal ``package_dir=`` of
    ``setup(...)``) or ``pyproject.toml`` (``[tool.setuptools.package-dir]``) declares, the
    longest package first; read, never run."""
    found: Dict[str, str] = {}
    try:
        with open(os.path.join(root, "pyproject.toml"), "rb") as handle:
            table = tomllib.load(handle).get("tool", {}).get("setuptools", {}).get("package-dir", {})
        found.update({k: v for k, v in table.items() if isinstance(k, str) and isinstance(v, str)})
    except (OSError, tomllib.TOMLDecodeError, AttributeError):
        pass
    try:
        tree = ast.parse(read_bytes(os.path.join(root, "setup.py")))
    except (OSError, SyntaxError, ValueError):
        tree = None
    for node in walk_nodes(tree) if tree is not None else ():
        if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) == "setup":
            for keyword in node.keywords:
                if keyword.arg == "package_dir" and isinstance(keyword.value, ast.Dict):
                    for key, value in zip(keyword.value.keys, keyword.value.values):
                        if isinstance(key, ast.Constant) and isinstance(key.value, str) and isinstance(
                                value, ast.Constant) and isinstance(value.value, str):
                            found.setdefault(key.value, value.value)
    return tuple(sorted(((k, v.strip("/")) for k, v in found.items()), key=lambda kv: -len(kv[0])))


def _script_levels(path: str) -> Iterator[str]:
    """The folder of a script outside a package, then the folders above it, up to
    ``MAX_BESIDE_LEVELS``, never above the project's marked root; nothing for a package's
    module (a package's modules run with its parent on the path)."""
    directory = os.path.dirname(os.path.abspath(path))
    if os.path.isfile(os.path.join(directory, "__init__.py")):
        return
    top_root = _marked_root(directory)
    yield directory
    for _ in range(MAX_BESIDE_LEVELS):
        if top_root is not None and directory == top_root:
            return
        parent = os.path.dirname(directory)
        if parent == directory:
            return
        directory = parent
        yield directory


def _beside_bases(path: str, top: str) -> List[str]:
    """The folder, one or two up from a script's own, that holds the package ``top`` the
    script imports (``samples/run.py`` importing ``solver.grid`` beside ``samples/``): such
    scripts run from the repository's top (``python -m samples.run``, ``PYTHONPATH=.``), and
    a package of that name there is the project's own. A module ``top.py`` there is too where
    the script imports a package of that folder as well (``import sim_base`` beside ``import
    filter.particle``, both at the top: the folder the project puts on ``PYTHONPATH``). Only for
    scripts outside a package (a package's modules run with its parent on the path), never above
    the project's marked root."""
    packages: Optional[Set[str]] = None
    for level in itertools.islice(_script_levels(path), 1, None):
        if os.path.isfile(os.path.join(level, top, "__init__.py")):
            return [level]
        if os.path.isfile(os.path.join(level, top + ".py")):
            if packages is None:
                packages = _imported_tops(path) - {top} - set(sys.stdlib_module_names)
            if any(os.path.isfile(os.path.join(level, name, "__init__.py")) for name in packages):
                return [level]
    return []


def _imported_tops(path: str) -> Set[str]:
    """The top-level names a file imports by an absolute name (``import a.b``, ``from a import b``)."""
    statement = re.compile(rb"^[ \t]*(?:import|from)[ \t]+(\w+)", re.MULTILINE)
    try:
        return {match.decode() for match in statement.findall(read_bytes(path))}
    except OSError:
        return set()


def _run_path_bases(path: str, top: str) -> List[str]:
    """The folders near a script outside a package that its project runs on ``sys.path``, as
    the project's own code shows, where one holds the module ``top`` the script imports by bare
    name: a folder whose other modules import ``top`` by bare name too (``cfg.py`` beside
    ``ops.py`` doing ``import cfg``: that folder is on the path whenever they run), found beside
    the script or beside a folder above it; and a folder above the script holding ``top.py``
    and a file that imports the script by its dotted path from there (``main.py`` doing
    ``from src.model import run`` runs with its own folder on the path, where ``import rule``
    in ``src/model.py`` finds ``rule.py``). The nearest level that holds a module of that name
    decides; where it holds two (``codes/QoIs.py`` and ``codes/DNS/QoIs.py``), or one that
    nothing shows on the path, the name stays a library. Never above the project's marked root."""
    directory = os.path.dirname(os.path.abspath(path))
    script = os.path.splitext(os.path.abspath(path))[0]
    for depth, level in enumerate(_script_levels(path)):
        holders: List[Tuple[str, str]] = []  # (folder, the import that shows it on the path)
        if depth and _holds_module(level, top):
            holders.append((level, os.path.relpath(script, level).replace(os.sep, ".")))
        holders += [(folder, top) for folder in _subfolders(level) if folder != directory and _holds_module(folder, top)]
        if holders:
            folder, shown_by = holders[0]
            return [folder] if len(holders) == 1 and _imports_in(folder, re.escape(shown_by), top) else []
    return []


def _holds_module(folder: str, top: str) -> bool:
    return os.path.isfile(os.path.join(folder, top + ".py")) or os.path.isfile(os.path.join(folder, top, "__init__.py"))


def _subfolders(directory: str) -> List[str]:
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return []
    return [os.path.join(directory, n) for n in names if not n.startswith(".") and os.path.isdir(os.path.join(directory, n))]


def _imports_in(folder: str, module: str, top: str) -> bool:
    """Does a Python file directly in ``folder`` (not ``top`` itself) import ``module`` (a
    pattern) by an absolute name: ``import module``, ``from module import ...``?"""
    statement = re.compile(rb"^[ \t]*(?:import|from)[ \t]+" + module.encode() + rb"(?![.\w])", re.MULTILINE)
    try:
        names = os.listdir(folder)
    except OSError:
        return False
    for name in names:
        if not name.endswith(".py") or name == top + ".py":
            continue
        try:
            if statement.search(read_bytes(os.path.join(folder, name))):
                return True
        except OSError:
            continue
    return False


def _enclosing_bases(path: str, top: str) -> List[str]:
    """The directories above a file that hold a folder named ``top`` among the file's own
    ancestors: ``app/model/layers/relu.py`` importing ``model.layers.common`` (folders without
    ``__init__.py``) runs with ``app`` on ``sys.path``, the script that imports it being there."""
    bases = []
    directory = os.path.dirname(os.path.abspath(path))
    while True:
        parent = os.path.dirname(directory)
        if parent == directory:
            return bases
        if os.path.basename(directory) == top:
            bases.append(parent)
        directory = parent
