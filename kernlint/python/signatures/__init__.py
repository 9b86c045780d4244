"""Where a lazy kernel's signatures come from, besides its decorator: the configuration,
launch sites, a recorded run (``kernlint-signatures.toml``, with the values factory-made
kernels closed over: ``closures``), and the kernel body, tried last.

Reads syntax only. May import the rest of ``kernlint.python``, ``findings`` and ``fsutil``.
"""
