"""KL901 unreadable-file

## What it does
Reports a file kernlint could not read or parse: a syntax error, bytes that are
not valid in the file's encoding, a hang past ``--timeout`` or a crash while
reading it. With ``--import-modules`` (the file imported whole, its top level
run): a missing module, an exception, a ``sys.exit`` while importing it.

## Why is this bad?
Nothing in the file was checked. kernlint goes on with the other files; the run
exits with 1, as for any finding.

## Example
```
kernels.py:6:16: KL901 file not checked: syntax error: expected ':'
```

## Fix safety
Nothing to fix automatically.
"""

from ..findings import UNREADABLE_FILE

CODE = UNREADABLE_FILE

NAME = "unreadable-file"
FIXABLE = False
