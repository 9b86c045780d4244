"""KL902 compile-failed

## What it does
Reports a kernel (one of its signatures) that numba-cuda could not compile to
LLVM IR: a typing error, an unsupported construct, a signature that does not
parse, or compiler limits (such as unbounded recursion); and a HIP file that
hipcc could not compile, at the line of hipcc's first error.

## Why is this bad?
That specialization was not checked. The other kernels of the file still are.

## Example
```
kernels.py:12:1: KL902 kernel `scale` failed to compile for void(float64[::1]): No implementation of function ...
```

## Fix safety
Nothing to fix automatically.
"""

CODE = "KL902"
NAME = "compile-failed"
FIXABLE = False


def message(kernel: str, signature: str, reason: str) -> str:
    target = f" for {signature}" if signature else ""
    return f"kernel `{kernel}` failed to compile{target}: {reason}"


def file_message(reason: str) -> str:
    return f"HIP file failed to compile: {reason}"
