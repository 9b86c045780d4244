"""KL901 unreadable-file

## What it does
Reports a file kernlint could not read, parse or import: a syntax error, bytes
that are not valid in the file's encoding, a missing module, an exception (or a
``sys.exit``, a hang past ``--timeout``, a crash) while importing it.

## Why is this bad?
Nothing in the file was checked. kernlint goes on with the other files; the run
exits with 1, as for any finding.

## Example
```
kernels.py:3:1: KL901 cannot import kernels.py: ModuleNotFoundError: No module named 'cupy'
```

## Fix safety
Nothing to fix automatically: make the file importable on a machine without a GPU.
"""

CODE = "KL901"
NAME = "unreadable-file"
FIXABLE = False


def message(reason: str) -> str:
    return f"file not checked: {reason}"
