"""Frontends: find kernels in a source file and compile them to LLVM IR."""
