"""KL905 internal-error

## What it does
Reports a construct on which kernlint itself failed: an unexpected shape in a file's
host code, a kernel's slice or its IR that one of kernlint's readers or rules did not
handle. The message names what kernlint was doing, the exception's one line, and the
kernlint and numba-cuda versions.

## Why is this bad?
It is kernlint's bug, not yours: whatever depended on that construct (a launch site's
types, a host finding, one kernel's findings) is missing. The rest of the run goes on
(other statements, kernels and files are still checked and reported), and the exit
code is 2 so that CI notices that the check was incomplete.

## Example
```
sim/run.py:41:5: KL905 kernlint failed on this construct while reading host code (AttributeError: ...; kernlint 0.2.0, numba-cuda 0.30.4): the rest was checked; please report it ...
```

Report it with the line, the construct and `kernlint check --debug`'s traceback
(`--debug` stops at the first internal error and shows where it happened).

## Fix safety
Nothing to fix in your code. ``# noqa: KL905`` hides it, like any other code.
"""

from ..findings import INTERNAL_ERROR

CODE = INTERNAL_ERROR

NAME = "internal-error"
FIXABLE = False
