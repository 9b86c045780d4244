"""Sources to LLVM IR, with no GPU: numba.cuda kernels through numba-cuda (``numba_cuda``, in
the worker processes: it imports numba), IR files from any producer (``irfile``), and the
toolchains found on this machine (``toolchain``: NVVM, hipcc, and the identity caches and
the worker daemon are keyed on).

May import ``python`` (a kernel is compiled from a slice of its module), ``ir``,
``analysis`` and ``findings``; never ``hip`` or ``workers``.
"""
