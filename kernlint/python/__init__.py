"""Reading Python without running it.

``project`` finds the user's modules and reads them (never imports them); ``syntax`` says
what a module's names mean and which of its functions are kernels; ``static_types/`` gives
host-side expressions the numba type their values would have (dtypes, the type values, what
library calls make, the reader); ``signatures`` finds where a
lazy kernel's signatures come from (launch sites, a recorded run, the kernel body); ``host``
reduces a file's host code to the facts the host rules read (``analysis.host``); ``slicing/``
builds each kernel from a slice of its module, for the compile workers (its parts: modules'
globals, the evaluator, functions and classes made from their defs, a nested kernel's
variants, wired together by ``Slicer``).

May import ``findings``, ``source``, ``fsutil`` and ``analysis`` (the host facts it makes),
and numba's types where a slice is evaluated; never ``compile``, ``hip`` or ``workers``
(reading never compiles, nor starts a process), the rules, or the floors above them.
"""
