"""Whether a file's calls can reach a kernel launch in the project's code, read from the syntax
alone: a call graph over the project's functions, methods and classes where a call of a name
goes where its scope binds it (a function of the file, an imported one, a class's constructor),
a call of ``obj.method(...)`` to every project method of that name (the object's class is not
known here) and to what an attribute of that name is set to hold (a factory's closure), a call
of an object (a local name, or an attribute no method is named after) to every ``__call__``, an
operator to the project's operator methods, and a function passed to a call
(``map(step, xs)``, ``timer(step)``) to that function. A function launches where its own body
does (``k[grid, block](...)``, ``k.forall(n)(...)``, a call of a kernel configured where it is
bound, a PyCUDA call on ``drv.In``/``drv.Out``), or where it is a CUDA ufunc; a nested function
counts where it is called, not where it is defined (a factory returning a launching closure
launches nothing itself).

The host reader follows a file's calls through objects, across the project, only where this
says a launch can be reached (``sites.drives_kernels``): more than the reading finds, never less.
May import the rest of ``kernlint.python``; reads no host facts.
"""

from __future__ import annotations

import ast
import os
import re
import weakref
from collections import deque
from typing import Dict, List, Optional, Set, Tuple

from ...source import read_bytes
from ..project import Project
from ..static_types.operators import OperatorNode
from ..syntax import PyModule, Scope, child_nodes, tree_nodes, walk_nodes
from .functions import bound_methods, jitted_only, names_called, returned_closure
from .launches import configured_attributes, gpu_compiled, launch_target
from .operator_calls import OPERATOR_METHODS

_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
# what a class held as a value runs of its own (`ops.zip(fn)`, `ops` the class itself)
_CLASS_LEVEL = {"staticmethod", "classmethod"}
# what calling a class runs: its constructor's methods
_CONSTRUCTORS = ("__init__", "__new__", "__post_init__")
# PyCUDA's argument handlers: a call passing one is a launch (``operations.pycuda_launch``)
_PYCUDA_HANDLERS = ("In", "Out", "InOut")

Unit = Tuple[PyModule, ast.AST]  # a function, method or class of a module


class LaunchGraph:
    """The project's call graph as ``drives_kernels`` reads it, for one run: each unit's
    callees and whether it launches, derived once; each file's answer found once."""

    def __init__(self, project: Project):
        self.project = project
        self._reaches: Dict[int, bool] = {}  # id(unit node) -> a launch is reachable from it
        self._looked: Dict[int, frozenset] = {}  # id(unit node) -> what the search deciding it looked at
        # (method name, its project's files naming it) -> the project's methods of that name
        self._methods: Dict[Tuple[str, int], List[Unit]] = {}
        self._files: Dict[str, Tuple[bool, frozenset]] = {}  # file -> (its answer, what finding it looked at)
        self._texts: Dict[str, bytes] = {}  # a file's bytes, read once
        # (attribute name, its project's files naming it) -> the functions an attribute of that name may hold
        self._held: Dict[Tuple[str, int], List[Unit]] = {}

    def file_reaches(self, module: PyModule) -> bool:
        """Whether a call anywhere in ``module`` (its top level, its functions and methods) can
        reach a launch. Asked again, it notes what the first answer looked at (the cache)."""
        known = self._files.get(module.path)
        if known is None:
            with self.project.recording() as looked:
                found = self._search(self._callees(module, [module.tree], Scope(module), nested=True))
            known = self._files[module.path] = (found, frozenset(looked))
        self.project.note_again(("launch graph", module.path), known[1])
        return known[0]

    def _search(self, start: List[Unit]) -> bool:
        """Breadth-first over callees: True at a unit that launches (and the units on the way
        to it); else every unit seen reaches no launch (all they call was seen)."""
        parent: Dict[int, Optional[Unit]] = {}
        queue: deque = deque()
        for unit in start:
            if id(unit[1]) not in parent:
                parent[id(unit[1])] = None
                queue.append(unit)
        seen: Dict[int, Unit] = {id(u[1]): u for u in queue}
        with self.project.recording() as looked:
            hit = self._walk(queue, parent, seen)
        decided = frozenset(looked)
        if hit is None:
            for key in seen:
                self._reaches[key], self._looked[key] = False, decided
            return False
        on_way: Optional[Unit] = hit
        while on_way is not None:
            self._reaches[id(on_way[1])], self._looked[id(on_way[1])] = True, decided
            on_way = parent[id(on_way[1])]
        return True

    def _walk(self, queue: deque, parent: Dict[int, Optional[Unit]], seen: Dict[int, Unit]) -> Optional[Unit]:
        """The first unit from ``queue`` on that launches or is known to reach a launch."""
        while queue:
            unit = queue.popleft()
            known = self._reaches.get(id(unit[1]))
            if known is not None:
                self.project.note_again(("launch graph", id(unit[1])), self._looked[id(unit[1])])
            if known is False:
                continue
            if known or self._launches(unit):
                return unit
            for callee in self._unit_callees(unit):
                if id(callee[1]) not in parent:
                    parent[id(callee[1])] = unit
                    seen[id(callee[1])] = callee
                    queue.append(callee)
        return None

    def _launches(self, unit: Unit) -> bool:
        module, node = unit
        return self.project.memo("launches itself", node, lambda: _launches_itself(module, node))

    def _unit_callees(self, unit: Unit) -> List[Unit]:
        """A unit's callees, found once: what finding them looked at (the files of the methods
        of a name) is noted again for each reading that asks (the cache of a file's findings)."""
        module, node = unit

        def found():
            with self.project.recording() as looked:
                callees = self._callees_of(module, node)
            return callees, frozenset(looked)

        callees, looked = self.project.memo("callees", node, found)
        self.project.note_again(("callees", id(node)), looked)
        return callees

    def _callees_of(self, module: PyModule, node: ast.AST) -> List[Unit]:
        if isinstance(node, ast.ClassDef):
            scope = Scope(module)
            parts = [s for s in node.body if not isinstance(s, (*_FUNCTIONS, ast.ClassDef))]
            found = self._callees(module, parts + node.bases, scope)
            found += [(module, s) for s in node.body if isinstance(s, _FUNCTIONS) and s.name in _CONSTRUCTORS]
            for base in node.bases:  # an inherited constructor
                target = self._resolved(module, base, scope)
                if target is not None:
                    found.append(target)
            return found
        enclosing = self.project.memo("enclosing functions", module.tree, lambda: _enclosing(module.tree))
        scope = Scope(module)
        for outer in enclosing.get(id(node), ()):
            scope = scope.inner(outer)
        return self._callees(module, [node], scope.inner(node))

    def _callees(self, module: PyModule, parts: List[ast.AST], scope: Scope, nested: bool = False) -> List[Unit]:
        """The units calls in ``parts`` (read in ``scope``) may run; ``nested``: nested
        functions' calls too (read in their own scope), else those functions where called."""
        found: List[Unit] = []
        operators = False
        def device(function: ast.AST) -> bool:  # what only `cuda.jit(sig)(f)` compiles: run on the GPU
            return self.project.memo("jitted only", function, lambda: jitted_only(module, function, self.project.memo(
                "names called", module.tree, lambda: names_called(module.tree))))

        for part in parts:
            for node, inner in _calls_within(part, scope, nested, device):
                if isinstance(node, OperatorNode):
                    operators = True
                    continue
                func = node.func
                if isinstance(func, ast.Attribute):
                    target = self._resolved(module, func, inner)
                    named = [target] if target is not None else (
                        self._methods_named(func.attr) + self._held_named(func.attr))
                    # `self.step(x)` where no method is named `step`: an object held there, called
                    found.extend(named or self._methods_named("__call__"))
                elif isinstance(func, ast.Name):
                    target = self._resolved(module, func, inner)
                    if target is not None:
                        found.append(target)
                    elif inner.lookup(func.id)[1] is not None:  # a local name: an object called runs `__call__`
                        found.extend(self._methods_named("__call__"))
                if module.applied_kernel(node) is not None:
                    continue  # `cuda.jit(sig)(f)`: `f` is compiled for the GPU, not run here
                for arg in list(node.args) + [k.value for k in node.keywords]:
                    if isinstance(arg, ast.Starred):
                        arg = arg.value
                    if isinstance(arg, (ast.Name, ast.Attribute)):  # `map(step, xs)`, `Thread(target=self.run)`
                        target = self._resolved(module, arg, inner)
                        if target is not None:
                            found.append(target)
                        elif isinstance(arg, ast.Attribute):
                            found.extend(self._methods_named(arg.attr))
        if operators:
            for name in sorted(OPERATOR_METHODS):
                found.extend(self._methods_named(name))
        if any(isinstance(sub, (ast.For, ast.AsyncFor)) and isinstance(sub.iter, (ast.Name, ast.Attribute, ast.Call))
               for part in parts for sub in walk_nodes(part)):
            found.extend(self._methods_named("__next__"))  # `for state in generator:` runs its `__next__`
        return found

    def _resolved(self, module: PyModule, expr: ast.expr, scope: Scope) -> Optional[Unit]:
        """The project function or class an expression names in ``scope``: a def of the file
        (nested ones where visible), an import of one, a module's attribute."""
        if isinstance(expr, ast.Name):
            binding, function = scope.lookup(expr.id)
            if binding is not None and binding.kind in ("def", "class") and binding.node is not None:
                return module, binding.node
            if function is not None:
                return None  # a local name: what it holds is not read here
        dotted = module.dotted(expr, scope)
        found = self.project.definition(dotted, module) if dotted else None
        if found is not None and found[1].kind in ("def", "class") and found[1].node is not None:
            return found[0], found[1].node
        return None

    def _methods_named(self, name: str) -> List[Unit]:
        """Every project method of that name (in a class of a file of the project)."""
        files = self.project.files_naming(self.project_anchor, name)
        if not files:
            return []
        found = self._methods.get((name, id(files)))
        if found is None:
            found = self._methods[(name, id(files))] = []
            defining = re.compile(rb"\bdef\s+" + name.encode() + rb"\b")
            # `self.update = self.update_grid`: an attribute holding one of the class's own methods
            holding = re.compile(rb"\bself\." + name.encode() + rb"\s*=\s*self\.")
            for path in files:
                # (the text first: a name called everywhere is defined in few files, parsed alone)
                self.project.note(("file", os.path.abspath(path)))
                text = self._bytes(path)
                defines, holds = defining.search(text), holding.search(text)
                if not (defines or holds):
                    continue
                module = self.project.module(path)
                if module is None:
                    continue
                for klass in self.project.memo("classes", module.tree, lambda m=module: [
                        n for n in walk_nodes(m.tree) if isinstance(n, ast.ClassDef)]):
                    found.extend((module, s) for s in klass.body if isinstance(s, _FUNCTIONS) and s.name == name)
                    held = bound_methods(klass).get(name) if holds else None
                    found.extend((module, s) for s in klass.body if isinstance(s, _FUNCTIONS) and s.name == held)
        return found

    def _held_named(self, name: str) -> List[Unit]:
        """What a call of an attribute that holds a function may run: for each ``obj.name =
        value`` in the project that calls or names a static or class method through a value (a
        class held as one: ``self.mul_zip = ops.zip(mul)``, ``self.matmul =
        ops.matrix_multiply``), the closure each such factory returns, or the method named."""
        files = self.project.files_naming(self.project_anchor, name)
        if not files:
            return []
        found = self._held.get((name, id(files)))
        if found is not None:
            return found
        found = self._held[(name, id(files))] = []
        storing = re.compile(rb"\.\s*" + name.encode() + rb"\s*=[^=]")
        for path in files:
            self.project.note(("file", os.path.abspath(path)))
            if not storing.search(self._bytes(path)):
                continue
            module = self.project.module(path)
            if module is None:
                continue
            for node in tree_nodes(module.tree):
                if not isinstance(node, ast.Assign) or not any(
                        isinstance(t, ast.Attribute) and t.attr == name for t in node.targets):
                    continue
                value = node.value
                named = value.func if isinstance(value, ast.Call) else value
                if not isinstance(named, ast.Attribute) or self._resolved(module, named, Scope(module)) is not None:
                    continue  # (a class held as a value, `ops.zip`: not one the module names)
                for owner, function in self._methods_named(named.attr):
                    if not isinstance(function, _FUNCTIONS) or not {
                            d.id for d in function.decorator_list if isinstance(d, ast.Name)} & _CLASS_LEVEL:
                        continue  # only what a class itself runs: its static and class methods
                    if not isinstance(value, ast.Call):
                        found.append((owner, function))
                    else:
                        nested = returned_closure(function, owner)
                        found.extend((owner, n) for n in function.body
                                     if isinstance(n, _FUNCTIONS) and n.name == nested)
        return found

    def _bytes(self, path: str) -> bytes:
        data = self._texts.get(path)
        if data is None:
            try:
                data = read_bytes(path)
            except OSError:
                data = b""
            self._texts[path] = data
        return data

    project_anchor = ""  # the file being asked about (its project's files are the ones searched)


def _enclosing(tree: ast.AST) -> Dict[int, Tuple[ast.AST, ...]]:
    """id(function) -> the functions around it, outermost first (none for a module's own or a
    class's methods)."""
    found: Dict[int, Tuple[ast.AST, ...]] = {}
    stack: List[Tuple[ast.AST, Tuple[ast.AST, ...]]] = [(tree, ())]
    while stack:
        node, around = stack.pop()
        for child in child_nodes(node):
            if isinstance(child, _FUNCTIONS):
                found[id(child)] = around
                stack.append((child, around + (child,)))
            else:
                stack.append((child, around))
    return found


def _calls_within(node: ast.AST, scope: Scope, nested: bool, device=lambda function: False):
    """The calls and operator expressions in ``node`` with the scope each is read in; with
    ``nested``, nested functions' too (in their own scope), less those ``device`` says are GPU
    code only; lambdas read in the scope around them."""
    stack = [(node, scope)]
    while stack:
        current, inner = stack.pop()
        for child in child_nodes(current):
            if isinstance(child, _FUNCTIONS):
                if nested and not device(child):
                    stack.append((child, inner.inner(child)))
                continue
            if isinstance(child, (ast.Call, OperatorNode)):
                yield child, inner
            stack.append((child, inner))


def _launches_itself(module: PyModule, node: ast.AST) -> bool:
    """A CUDA ufunc, or a function whose own body (not its nested functions') launches."""
    if isinstance(node, ast.ClassDef):
        return False
    if node.decorator_list and gpu_compiled(node, module, Scope(module)) == "ufunc":
        return True
    configured = _configured_names(node)
    stack = list(child_nodes(node))
    held: Optional[Set[str]] = None
    while stack:
        sub = stack.pop()
        if isinstance(sub, _FUNCTIONS):
            continue
        if isinstance(sub, ast.Call) and (launch_target(sub) is not None or isinstance(
                sub.func, ast.Name) and sub.func.id in configured or any(
                isinstance(a, ast.Call) and _last_name(a.func) in _PYCUDA_HANDLERS for a in sub.args)):
            return True
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and isinstance(
                sub.func.value, ast.Name) and sub.func.value.id == "self":
            if held is None:
                klass = next((c for c in walk_nodes(module.tree) if isinstance(c, ast.ClassDef) and any(
                    item is node for item in c.body)), None)
                held = configured_attributes(klass, module) if klass is not None else set()
            if sub.func.attr in held:
                return True  # `self.update(d_x)`, the attribute a factory's configured kernel
        stack.extend(child_nodes(sub))
    return False


def _configured_names(node: ast.AST) -> Set[str]:
    """Names bound to a kernel configured for launch (``run = step[grid, block]``), or to a
    list of them, and the loop variables taking them: a call of one is a launch."""
    found: Set[str] = set()
    for sub in walk_nodes(node):
        if isinstance(sub, ast.Assign) and _configured(sub.value):
            found.update(t.id for t in sub.targets if isinstance(t, ast.Name))
        elif isinstance(sub, (ast.For, ast.AsyncFor, ast.comprehension)) and (_configured(sub.iter) or any(
                isinstance(n, ast.Name) and n.id in found for n in walk_nodes(sub.iter))):
            found.update(n.id for n in walk_nodes(sub.target) if isinstance(n, ast.Name))
    return found


def _configured(value: ast.expr) -> bool:
    if isinstance(value, ast.Subscript):
        return True
    if isinstance(value, (ast.List, ast.Tuple)):
        return any(isinstance(item, ast.Subscript) for item in value.elts)
    return isinstance(value, (ast.ListComp, ast.GeneratorExp)) and isinstance(value.elt, ast.Subscript)


def _last_name(func: ast.expr) -> str:
    return func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""


_GRAPHS: "weakref.WeakKeyDictionary[Project, LaunchGraph]" = weakref.WeakKeyDictionary()


def calls_reach_launch(project: Project, module: PyModule) -> bool:
    """Whether a call in ``module`` can reach a launch in the project's code (``LaunchGraph``,
    one per run's project)."""
    graph = _GRAPHS.get(project)
    if graph is None:
        graph = _GRAPHS[project] = LaunchGraph(project)
    graph.project_anchor = module.path
    return graph.file_reaches(module)
