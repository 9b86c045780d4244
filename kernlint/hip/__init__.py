"""HIP C++: a ``.hip`` file's kernels compiled to AMDGPU IR by hipcc (``kernels``), and its
host code's facts read from the host-side IR (``host_reader``).

May import ``compile`` (the toolchain, the IR file reader), ``ir``, ``analysis`` and
``findings``; never ``python`` or ``workers``.
"""
