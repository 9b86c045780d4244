"""KL401 dropped-exception

## What it does
Finds a ``raise`` or ``assert`` in a numba.cuda kernel (or a device function it
calls) compiled without ``debug=True``.

## Why is this bad?
numba-cuda lowers the raise into an exception status that the kernel wrapper
throws away without ``debug=True`` (numba-cuda #388): the thread silently returns
and the caller never learns that anything failed. The check still runs, and if
it guards a conversion the kernel keeps the branch for nothing.

## Example
```python
@cuda.jit("void(int64[::1], float64[::1])")
def convert(y, x):
    i = cuda.grid(1)
    v = x[i]
    if v != v:
        raise ValueError("NaN")  # KL401
    y[i] = int(v)
```

Use instead: write an error flag into an output array and check it on the host,
or validate the input before the launch.

## Fix safety
Unsafe, in a kernel's own body: ``kernlint check --fix --unsafe-fixes`` replaces
``raise ...`` with ``return`` and ``assert c`` with ``if not (c): return``. On the GPU
without ``debug=True`` that is what numba-cuda compiles them to (the thread returns,
nothing is reported), and a guard left as ``if v != v: return`` is not an error path: it
costs nothing. But the fix changes what the rest of the kernel's life sees: under the
CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) and with ``debug=True`` the original raises
and the launch fails, where the fixed kernel returns silently — a test that expected the
error passes no more. The message's advice (an error flag in an output array, checked on
the host) keeps the error visible everywhere; the fix only makes the GPU's silence
explicit. Not offered in device functions, whose callers see an exception status that a
``return`` would not give them.
"""

from __future__ import annotations

import ast
from typing import Iterator, Optional

from ..analysis.program import Site
from ..findings import Finding, Fix
from ..source import is_raise
from .base import KernelContext

CODE = "KL401"
NAME = "dropped-exception"
FIXABLE = True


def check(ctx: KernelContext) -> Iterator[Finding]:
    if ctx.kernel.options.get("debug"):
        return  # the exception is reported (at a cost: see KL402)
    for reached in ctx.analysis.functions():
        facts = ctx.analysis.facts(reached.function)
        if not facts.numba_abi:
            continue
        for block in reached.function.blocks:
            term = block.terminator
            if term is None or term.opcode != "ret":
                continue
            status = term.body.split()[-1]
            if not status.lstrip("-").isdigit() or status == "0":
                continue  # a normal return, or a callee's status passed on
            site = Site(reached.function, term, True, reached.chain)
            frames = site.frames()
            if not frames or not ctx.is_user_path(frames[0].path):
                continue  # raised inside numba's own library code
            source = ctx.source_for(frames[0].path)
            if source is not None and not source.column_of(frames[0].line, is_raise):
                continue  # a check numba inserted (range() step, division), not the user's raise
            finding = ctx.finding(
                CODE,
                "exception raised in a kernel compiled without debug=True is silently "
                "dropped (the thread just returns): report errors through an output array",
                frames,
                point_at=(is_raise,),
            )
            finding.fix = source_fix(ctx, finding)
            finding.fixable = finding.fix is not None
            yield finding


def source_fix(ctx: KernelContext, finding: Finding) -> Optional[Fix]:
    """``raise ...`` -> ``return`` and ``assert c`` -> ``if not (c): return``: what numba-cuda
    does with them in a kernel without debug=True. Only in the kernel's own body: a device
    function's caller sees an exception status, which a ``return`` would not give it."""
    if (ctx.kernel.kind != "kernel" or finding.inlined_at or finding.path != ctx.kernel.path
            or not finding.path.endswith(".py")):
        return None
    source = ctx.source_for(finding.path)
    if source is None or source.tree is None:
        return None
    edits = source.edits
    statement = next((s for s in edits.statements_at(finding.line) if isinstance(s, (ast.Raise, ast.Assert))), None)
    if statement is None or not edits.owns_lines(statement):
        return None
    function = edits.function_of(statement)
    if function is None or function.lineno != ctx.kernel.line:
        return None  # in a function nested in the kernel
    if isinstance(statement, ast.Raise):
        return Fix("unsafe", "replace the raise with `return`, what numba-cuda does with it without "
                             "debug=True (the simulator and debug=True would have reported it)",
                   [edits.replace(statement, "return", finding.path)])
    test = statement.test
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        text = f"if {edits.segment(test.operand)}: return"  # assert not c -> if c: return
    else:
        text = f"if not ({edits.segment(test)}): return"
    return Fix("unsafe", "replace the assert with the `return` numba-cuda makes of it without debug=True "
                         "(the simulator and debug=True would have reported it)",
               [edits.replace(statement, text, finding.path)])
