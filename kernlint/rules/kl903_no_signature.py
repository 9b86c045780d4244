"""KL903 no-signature

## What it does
Reports a lazily compiled kernel (``@cuda.jit`` with no signature) that kernlint
skipped, because it can only compile a kernel for concrete argument types.

## Why is this bad?
The kernel is not checked. A kernel is never dropped silently: give it a
signature so kernlint can compile it without launching anything.

## Example
```python
# kernlint: sig=void(int64[::1], float64[::1])
@cuda.jit
def convert(y, x):
    ...
```

One ``# kernlint: sig=...`` line per signature, directly above the decorator.

## Fix safety
Nothing to fix automatically.
"""

from ..findings import NO_SIGNATURE

CODE = NO_SIGNATURE

NAME = "no-signature"
FIXABLE = False
