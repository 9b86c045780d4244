"""``Slicer``: the slice of one file's kernels, made of its parts and wired together.

Each part does one job and holds the others it calls (the calls go round: a global's value
is an expression, which may call a function, whose globals are resolved in turn):
``module_globals.GlobalResolver`` (modules' globals), ``evaluator.Evaluator`` (expressions),
``functions.FunctionMaker`` (functions and dispatchers), ``classes.ClassMaker`` (classes),
``variants.VariantReader`` (a nested kernel's closures). They share the slice namespaces
(``Namespaces``) and the stand-ins' record (``Standins``)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

from ..project import FrontendSettings, Project
from ..syntax import KernelDef, PyModule, Scope
from .classes import ClassMaker
from .evaluator import Evaluator
from .functions import FunctionMaker
from .module_globals import GlobalResolver
from .namespaces import Namespaces
from .standins import Standins
from .unresolved import Unresolved
from .variants import VariantReader


class Slicer:
    """Per-worker: the slice namespaces of the modules one file's kernels need."""

    def __init__(self, project: Project, settings: Optional[FrontendSettings] = None):
        self.project = project
        self.settings = settings or project.settings
        self.ledger = Standins()
        self.standins = self.ledger.described  # (path, name) -> what it stands for
        self.namespaces = Namespaces()
        self.globals = GlobalResolver(project, self.settings, self.namespaces, self.ledger)
        self.evaluator = Evaluator(project, self.settings, self.ledger)
        self.functions = FunctionMaker(self.settings, self.namespaces, self.ledger)
        self.classes = ClassMaker(self.namespaces)
        self.variant_reader = VariantReader(project, self.settings, self.ledger)
        globals_, evaluator, functions, classes = self.globals, self.evaluator, self.functions, self.classes
        globals_.evaluator, globals_.functions, globals_.classes = evaluator, functions, classes
        evaluator.globals, evaluator.functions, evaluator.classes = globals_, functions, classes
        functions.globals, functions.evaluator, functions.classes = globals_, evaluator, classes
        classes.evaluator, classes.functions = evaluator, functions
        self.variant_reader.globals, self.variant_reader.evaluator, self.variant_reader.functions = \
            globals_, evaluator, functions

    def namespace(self, module: PyModule) -> Dict[str, Any]:
        return self.namespaces.of(module)

    def configure(self, module: PyModule) -> List[Unresolved]:
        """Apply the module's settings of numba's configuration (this worker process is the
        file's own); what cannot be evaluated is returned."""
        from numba.core import config

        problems = []
        for attribute, expr, line in module.numba_configuration():
            try:
                setattr(config, attribute, self.evaluator.evaluate(expr, Scope(module), {}))
            except Unresolved as exc:
                problems.append(exc)
        return problems

    def collecting(self):
        """The keys of the stand-ins what runs inside rests on (``Standins.collecting``)."""
        return self.ledger.collecting()

    def dispatcher(self, kernel: KernelDef, env: Dict[str, Any]):
        """The numba-cuda dispatcher of a kernel or device function (lazy; signatures recorded)."""
        return self.functions.dispatcher(kernel, env)

    def variants(self, kernel: KernelDef) -> List[Tuple[str, Dict[str, Any]]]:
        """The closures a kernel is made with (``VariantReader.variants``)."""
        return self.variant_reader.variants(kernel)
