"""kernlint: find the code paths that make GPU kernels allocate, call the host or carry
checked float-to-int conversions, and report them with exact source locations."""

__version__ = "0.1.0"

# The decorator and the numba intrinsics import numba-cuda: load them on first use, so that the CLI starts fast.
_LAZY = {
    "unchecked_int": "intrinsics",
    "saturating_int": "intrinsics",
    "no_hostcall": "decorator",
    "HostcallError": "decorator",
}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kernlint' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{module}"), name)
