"""The numba types of host-side values, read off the syntax tree.

What a kernel launch passes is known statically far more often than not:
``np.zeros(n, dtype=np.float32)``, ``cuda.to_device(a)``, ``a.astype(np.int32)``,
``cp.asarray(x)``, a literal. This package gives such expressions the type numba's
``typeof`` would give their values at run time (``float32[::1]``, ``int64``), and
``None`` wherever it cannot tell: a launch with one unknown argument gives no
signature rather than a guessed one.

Slicing gives layout ``A`` (numba's general layout; a slice may or may not be
contiguous). Arrays also remember where they live (host, device, mapped), which the
host rules use.

Its modules, lowest first: ``dtypes`` (dtype spellings and promotion), ``values`` (the type
values and their algebra), ``library`` (what the array libraries' calls make), ``reader``
(``TypeReader``: expressions into types). It imports nothing else of kernlint; numba only
inside ``evaluate_type_text``, which the compile workers call. The names below are its
interface.
"""

from .dtypes import XOROSHIRO, dtype_name, evaluate_type_text, numeric
from .reader import TypeReader, keyed_item, list_growth, loop_bindings, named_tuple_subclass
from .values import (MAX_ALTERNATIVES, MAX_STRINGS, MIXED, NONE, ArrayType, DictType, FunctionRef, Instances, ListType,
                     Maybe, NamedTupleClass, Namespace, OneOf, Opaque, ProjectClasses, ProjectFunctions, ScalarType,
                     StrType, TupleType, Type, appended, classes_of, either_code, either_string, held_code, instance,
                     instance_of, named_tuple_class, signature, strings, unpacked, unpacked_items)
# NumPy 2's result type of an array and an array or a number (the host evidence reader's arithmetic)
from .values import _array_arithmetic as array_arithmetic

__all__ = ["MAX_ALTERNATIVES", "MAX_STRINGS", "MIXED", "NONE", "XOROSHIRO", "ArrayType", "DictType", "FunctionRef",
           "Instances", "ListType", "Maybe", "NamedTupleClass", "Namespace", "OneOf", "Opaque", "ProjectClasses",
           "ProjectFunctions", "ScalarType", "StrType", "TupleType",
           "Type", "TypeReader", "appended", "array_arithmetic", "classes_of", "dtype_name", "either_code",
           "either_string", "held_code", "evaluate_type_text",
           "instance", "instance_of", "keyed_item", "list_growth", "loop_bindings", "named_tuple_class", "named_tuple_subclass",
           "numeric", "signature", "strings",
           "unpacked", "unpacked_items"]
