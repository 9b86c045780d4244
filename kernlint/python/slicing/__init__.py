"""Build each kernel from a slice of its module, without running the module.

A kernel needs, to be compiled, the values of the globals it reads. They are found
statically (``syntax``) and evaluated here by a small evaluator that runs nothing of
the user's: literals and constant expressions, numba and numpy type objects, calls of
functions that belong to the safe modules (numba, numpy, math, cmath, operator and
what the configuration adds; never their file I/O, never numba.cuda's device
operations), device functions and kernels (from their ``def``, made into numba-cuda
dispatchers here), user modules (read through the project, never imported).

What cannot be evaluated raises ``Unresolved``, which names the global, the line and
how to supply it. Two exceptions, by design: a name imported from a library kernlint
does not import (``from scipy.constants import c``) that a kernel only uses as a number
in arithmetic or comparisons compiles as a float64 stand-in (1.0): the IR's structure,
and so every finding, does not depend on its value; and a value only the run decides
(``sys.argv``, ``os.environ``, a module imported by a computed name, a file read at run
time: ``runtime``) compiles as a stand-in of the type each function's use asks for, read
so that numba cannot prune branches by it.

Its modules, by job: ``slicer`` (``Slicer``, the parts wired together), ``module_globals``
(globals and imports), ``evaluator`` (constant expressions), ``functions`` (functions and
dispatchers made from defs), ``classes`` (classes made without running their bodies),
``variants`` (a nested kernel's closures), ``user_modules``, ``device_arrays`` (device-array
stand-ins), ``runtime`` (values only the run decides, and how a function reads their stand-ins), ``dispatchers`` (what may be called; numba-cuda dispatchers), ``uses`` (what a
function's syntax says about a name), ``standins``, ``namespaces`` and ``unresolved`` (what
the parts share). It imports ``project``, ``syntax`` and ``signatures.closures`` of
``kernlint.python``, and numba: it runs in the compile workers.
"""

from .device_arrays import DeviceArrayStandin
from .dispatchers import make_dispatcher, remember
from .slicer import Slicer
from .unresolved import RECORDED, Unresolved

__all__ = ["RECORDED", "DeviceArrayStandin", "Slicer", "Unresolved", "make_dispatcher", "remember"]
