"""Loops: a loop's facts (``analysis.host.Loop``) as its syntax gives them — what it binds and
rebinds, what decides when it ends — and its kind, where it is decided: whether it runs over
pieces of the work (GPUs, sizes of a sweep, a fixed set of cases, test cases) or repeats a
step. May import ``python.syntax`` and ``analysis.host``.
"""

from __future__ import annotations

import ast
import re
from typing import Dict, List, Set

from ...analysis.host import Loop
from ..syntax import PyModule
from .frames import Frame, place_of
from .launches import launch_target
from .library import ALLOCATIONS, SIZED
from .names import bare_names, names_read, rebinds, target_names, whole_targets

# a test function or class: `test_x`, `_test_x`, `TestSolver`
_TEST = re.compile(r"_*[Tt]est")
# a loop over GPUs: `for dev in cuda.gpus`, `range(n_gpus)`, `device_ids`, `devices`
_DEVICES = re.compile(r"\bgpus\b|\bn_?gpus?\b|\bnum_?gpus\b|\bdevices?\b|device_?ids|gpu_?ids|\bngpu", re.I)


class LoopReader:
    """Reads the loops of one file (``module``); a function's names bound to list literals are
    read once, for all its loops."""

    def __init__(self, module: PyModule):
        self.module = module
        self._literal_names: Dict[int, Set[str]] = {}  # id(function) -> its names bound to list literals

    def read(self, node: ast.AST, kind: str, frame: Frame, number: int) -> Loop:
        """The facts of loop ``number``, a ``for`` or ``while`` (``kind``) read in ``frame``."""
        parent = frame.loops[-1] if frame.loops else None
        loop = Loop(number, place_of(self.module.path, node), kind, frame.qualname, parent)
        inside = [sub for statement in getattr(node, "body", []) for sub in ast.walk(statement)]
        if isinstance(node, (ast.For, ast.AsyncFor)):
            loop.varying.update(target_names(node.target))
            loop.targets.update(target_names(node.target))
            loop.rebound.update(whole_targets(node.target))
        for sub in inside:
            loop.rebound |= rebinds(sub)
            if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                for target in targets:
                    loop.varying.update(target_names(target))
            elif isinstance(sub, (ast.For, ast.AsyncFor, ast.comprehension)):
                loop.varying.update(target_names(sub.target))
            elif isinstance(sub, ast.If) and any(isinstance(s, ast.Break) for s in sub.body):
                loop.deciding.update(names_read(sub.test))
        if isinstance(node, ast.While):
            loop.deciding.update(names_read(node.test))
        if any(_TEST.match(part) for part in frame.qualname.split(".")):
            loop.pieces = "cases"  # a loop in a test (a test function, a TestCase's helper) runs test cases
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            loop.pieces = self._pieces(node, inside, frame)
        return loop


    def _pieces(self, node: ast.For, inside: List[ast.AST], frame: Frame) -> str:
        """Why a ``for`` loop runs over pieces of the work rather than repeating a step (the
        nodes ``inside`` its body walked once by the caller): "devices" (it iterates over GPUs,
        or selects the device its variable names), "sizes" (its variable, bare, becomes an
        allocation's size, directly or through a function of this file it is passed to: a
        sweep), "parts" (a fixed list of cases, or launches on the piece its variable
        indexes); "" for a step loop."""
        variables = set(target_names(node.target))
        if _DEVICES.search(ast.unparse(node.iter)):
            return "devices"
        cases = self._literal_lists(frame)
        if isinstance(node.iter, (ast.List, ast.Tuple, ast.Set)) or isinstance(node.iter, ast.Name) and (
                node.iter.id in cases):
            return "parts"  # a fixed set of cases (`for q in [-1, 1]`, `for attr in [(self, "x"), ...]`)
        for sub in inside:
            if isinstance(sub, ast.Subscript) and isinstance(sub.value, ast.Name) and sub.value.id in cases \
                    and set(names_read(sub.slice)) & variables:
                return "parts"  # `for i in range(n): ... attr_list[i] ...` walks the same fixed cases
            if isinstance(sub, ast.Call):
                name = self.module.dotted(sub.func, frame.scope) or ""
                if name.rsplit(".", 1)[-1] in ("select_device", "set_device", "Device") and any(
                        set(names_read(a)) & variables for a in sub.args):
                    return "devices"
                if self._sizes_call(sub, variables, frame):
                    return "sizes"
            if isinstance(sub, ast.Subscript) and (self.module.dotted(sub.value, frame.scope) or "").endswith(
                    ".gpus") and set(names_read(sub.slice)) & variables:
                return "devices"
            if isinstance(sub, ast.Call) and launch_target(sub) is not None and any(
                    isinstance(part, ast.Subscript) and set(names_read(part.slice)) & variables
                    for arg in sub.args for part in ast.walk(arg)):
                return "parts"  # each iteration launches on another piece (`grid[m].rho`: modes, species)
        return ""

    def _literal_lists(self, frame: Frame) -> Set[str]:
        """The names the enclosing function binds to a list or tuple literal (read once per
        function)."""
        function = frame.function
        if function is None:
            return set()
        found = self._literal_names.get(id(function))
        if found is None:
            found = self._literal_names[id(function)] = {
                target.id for statement in function.body for sub in ast.walk(statement)
                if isinstance(sub, ast.Assign) and isinstance(sub.value, (ast.List, ast.Tuple))
                for target in sub.targets if isinstance(target, ast.Name)}
        return found

    def _sizes_call(self, call: ast.Call, variables, frame: Frame, depth: int = 0) -> bool:
        """Whether a call allocates with one of ``variables`` as its size, itself or in a
        function of this file it passes them to (bare: ``n``, ``2 * n``, ``(n, n)``)."""
        name = self.module.dotted(call.func, frame.scope) or ""
        module, _, function = name.rpartition(".")
        arguments = list(call.args) + [k.value for k in call.keywords if k.arg in ("shape", "size", "n")]
        if name in ALLOCATIONS or module in ("numpy", "cupy", "numpy.random", "cupy.random") and function in SIZED:
            # rand(n, k) takes each dimension as an argument; the others take a shape first
            shapes = call.args if function in ("rand", "randn") else call.args[:1]
            return any(bare_names(a) & variables for a in list(shapes) + arguments[len(call.args):])
        if depth >= 2 or not isinstance(call.func, ast.Name):
            return False
        binding, _ = frame.scope.lookup(call.func.id)
        if binding is None or binding.kind != "def" or self.module.kernel_for(binding.node) is not None:
            return False
        parameters = [a.arg for a in binding.node.args.posonlyargs + binding.node.args.args]
        passed = {parameters[i] for i, a in enumerate(call.args) if i < len(parameters) and bare_names(a) & variables}
        passed |= {k.arg for k in call.keywords if k.arg and bare_names(k.value) & variables}
        if not passed:
            return False
        inner = Frame(binding.node, call.func.id, frame.scope.inner(binding.node), {}, frame, frame.owner)
        return any(self._sizes_call(sub, passed, inner, depth + 1) for statement in binding.node.body
                   for sub in ast.walk(statement) if isinstance(sub, ast.Call))
