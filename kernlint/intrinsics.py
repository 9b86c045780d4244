"""``unchecked_int`` and ``saturating_int``: write the unchecked conversion in the kernel.

Julia's ``unsafe_trunc`` for numba.cuda, usable in kernels and device functions::

    from kernlint import unchecked_int, saturating_int
    y[i] = unchecked_int(x[i], numba.int64)     # fptosi / fptoui: NaN and overflow unchecked
    y[i] = saturating_int(x[i], numba.int32)    # clamps to the int32 range, NaN -> 0

On NVPTX ``fptosi`` becomes ``cvt.rzi``, which already saturates, so ``unchecked_int``
is defined for every input there. ``saturating_int`` calls libdevice's round-toward-zero
conversions (``__nv_double2int_rz`` and friends: the same ``cvt.rzi``): NVVM's LLVM
has no ``llvm.fpto[su]i.sat`` intrinsics, and leaves them as calls nothing resolves.
"""

from __future__ import annotations

from llvmlite import ir
from numba.cuda import types
from numba.cuda.extending import intrinsic


def _target(target_class):
    integer = getattr(target_class, "instance_type", None)
    if not isinstance(integer, types.Integer):
        return None
    return integer


def _float(value_type):
    return isinstance(value_type, types.Float) and value_type.bitwidth in (32, 64)


@intrinsic
def unchecked_int(typingctx, value, target_class):
    integer = _target(target_class)
    if integer is None or not _float(value):
        return None

    def codegen(context, builder, signature, args):
        lltype = context.get_value_type(integer)
        convert = builder.fptosi if integer.signed else builder.fptoui
        return convert(args[0], lltype)

    return integer(value, target_class), codegen


@intrinsic
def saturating_int(typingctx, value, target_class):
    integer = _target(target_class)
    if integer is None or not _float(value):
        return None

    def codegen(context, builder, signature, args):
        source = "double" if value.bitwidth == 64 else "float"
        bits = integer.bitwidth
        wide = ir.IntType(64 if bits == 64 else 32)
        kind = ("ll" if integer.signed else "ull") if bits == 64 else ("int" if integer.signed else "uint")
        module = builder.module
        name = f"__nv_{source}2{kind}_rz"
        function = module.globals.get(name) or ir.Function(
            module, ir.FunctionType(wide, [context.get_value_type(value)]), name
        )
        result = builder.call(function, [args[0]])
        if bits < 32:  # clamp the saturated 32-bit value into the narrow range
            if integer.signed:
                hi, lo = (1 << (bits - 1)) - 1, -(1 << (bits - 1))
                result = builder.select(builder.icmp_signed(">", result, wide(hi)), wide(hi), result)
                result = builder.select(builder.icmp_signed("<", result, wide(lo)), wide(lo), result)
            else:
                hi = (1 << bits) - 1
                result = builder.select(builder.icmp_unsigned(">", result, wide(hi)), wide(hi), result)
            result = builder.trunc(result, ir.IntType(bits))
        return result

    return integer(value, target_class), codegen
