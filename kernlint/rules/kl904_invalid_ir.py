"""KL904 invalid-ir

## What it does
Reports an LLVM IR input (``.ll`` text or ``.bc`` bitcode) that does not parse
or verify, or whose structure kernlint cannot follow.

## Why is this bad?
Nothing in the file was checked.

## Example
```
dump.ll:17:1: KL904 invalid IR: expected instruction opcode
```

## Fix safety
Nothing to fix automatically.
"""

from ..findings import INVALID_IR

CODE = INVALID_IR

NAME = "invalid-ir"
FIXABLE = False
