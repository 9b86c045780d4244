"""KL902 compile-failed

## What it does
Reports a kernel (one of its signatures) that numba-cuda could not compile to
LLVM IR: a typing error, an unsupported construct, a signature that does not
parse, or compiler limits (such as unbounded recursion); a signature written in
a way numba-cuda refuses (several in a tuple, ``argtypes=``); a global the kernel
reads that kernlint cannot give without running code and that no stand-in fits (a
function of a library it does not import, a value only the run decides used as a
function or a dtype, a factory parameter no call gives), at the line that reads it,
with how to supply it; a compile that stopped making progress (one numba-cuda
compiler pass ran past ``--timeout``, scaled to the kernel's size: a hang), naming
the pass; and a HIP file that hipcc could not compile, at the line of hipcc's first
error. A value only the run decides that the kernel uses as a number, a flag or an
array (``int(sys.argv[1])``, ``params.dx`` of a module imported by a computed name,
a name star-imported from a module of the project's package that the project writes
before it runs) is no KL902: the kernel is compiled with a stand-in and its findings say so. A
name nothing in the program sets (no assignment, import, ``global`` statement or
star import that could bind it) is the kernel's own slip, and the message says
that numba stops on it too. A launch (or a written signature) that gives another
number of arguments than the kernel takes is named, with its line: Python raises
``TypeError`` there; the launch gives no types, and the kernel is still checked
with the others or with the types its body reads. NumPy's aliases of builtins
removed in NumPy 1.24 (``np.int``, ``np.float``) and the names NumPy 2.0 removed
(``np.Infinity``, ``np.NaN``, ``np.float_``, ``np.product``) are no KL902: the kernel is
checked with the value the name was, marked as a stand-in that says so and what to
write instead. A
signature spelled from a class's constructor parameter (``cuda.jit("void(" +
self.var_type + "[:])")(f)`` in ``__init__``) is no KL902 either: where every
construction of the class in the project passes a literal or nothing, it is each
signature those values spell (source ``eager``); where one passes what only the
run knows, or none is seen, the parameter's default stands in (source
``stand-in``, named with the construction that decides it). One without a default
that the run decides is a KL902 naming the parameter.

## Why is this bad?
That specialization was not checked. The other kernels of the file still are.
A slip (``stridez`` read where only two strides were unpacked) is a ``NameError``
at the kernel's first launch.

## Example
```
kernels.py:12:1: KL902 kernel `scale` failed to compile for void(float64[::1]): No implementation of function ...
kernels.py:31:20: KL902 kernel `initial` not compiled: `params.profile` comes from a module imported by a name
    computed at run time (`importlib.import_module(sys.argv[1])`) at line 8, which only the run decides;
    `initial` calls `params.profile`, and kernlint stands in only for numbers, flags and arrays: ...
kernels.py:27:40: KL902 kernel `copy_z` not compiled: `stridez` is not defined in this module or by its imports,
    and no code sets it at run time: numba stops on it too (NameError)
kernels.py:26:1: KL902 kernel `scaled` failed to compile for void(float64[::1], float64[::1], int64, float64): the launch
    at line 42 passes 4 arguments, but `scaled` takes 3: Python raises TypeError there
kernels.py:40:1: KL902 kernel `stuck` failed to compile: numba-cuda's `nopython_type_inference` pass on `stuck` made no progress for 60 s (--timeout); raise it to check this kernel
```

## Fix safety
Nothing to fix automatically.
"""

from ..findings import COMPILE_FAILED

CODE = COMPILE_FAILED

NAME = "compile-failed"
FIXABLE = False
