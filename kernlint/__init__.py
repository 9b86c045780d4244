"""kernlint: find the code paths that make GPU kernels allocate, call the host or carry
checked float-to-int conversions, and report them with exact source locations."""

__version__ = "0.1.0"
