"""Compiling in processes of their own, so that a user's module that crashes, hangs or calls
``os._exit`` ends a worker and not the run: ``job`` (what a worker does with one file),
``worker`` (this run's workers, their time limits and results) and ``daemon`` (the worker
server that outlives runs, ``python -m kernlint.workers.daemon``: numba-cuda imported and
warmed up once).

The top of the readers: may import ``compile``, ``hip``, ``python`` and the floors below;
only the engine and the commands import it.
"""
