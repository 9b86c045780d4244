"""The rule catalog: one module per rule, its documentation in the module docstring."""

from __future__ import annotations

from types import ModuleType
from typing import Dict, List

from . import (
    kl101_checked_float_to_int,
    kl201_error_path_allocates,
    kl202_hot_path_allocates,
    kl301_printf_hostcall,
    kl302_hostcall,
    kl303_assert_hostcall,
    kl401_dropped_exception,
    kl402_debug_exception_sync,
    kl501_device_alloc_in_loop,
    kl502_host_array_launch,
    kl503_sync_in_loop,
    kl504_unsynchronized_timing,
    kl505_foreign_array_launch,
    kl901_unreadable_file,
    kl902_compile_failed,
    kl903_no_signature,
    kl904_invalid_ir,
    kl905_internal_error,
)

ALL: List[ModuleType] = [
    kl101_checked_float_to_int,
    kl201_error_path_allocates,
    kl202_hot_path_allocates,
    kl301_printf_hostcall,
    kl302_hostcall,
    kl303_assert_hostcall,
    kl401_dropped_exception,
    kl402_debug_exception_sync,
    kl501_device_alloc_in_loop,
    kl502_host_array_launch,
    kl503_sync_in_loop,
    kl504_unsynchronized_timing,
    kl505_foreign_array_launch,
    kl901_unreadable_file,
    kl902_compile_failed,
    kl903_no_signature,
    kl904_invalid_ir,
    kl905_internal_error,
]

# Rules that look at a compiled kernel's IR (the KL9xx diagnostics come from the readers and compilers).
IR_RULES: List[ModuleType] = [rule for rule in ALL if hasattr(rule, "check")]
# Rules over a file's host facts (analysis.host): the code around the kernels.
HOST_RULES: List[ModuleType] = [rule for rule in ALL if hasattr(rule, "check_host")]

BY_CODE: Dict[str, ModuleType] = {rule.CODE: rule for rule in ALL}


def documentation(code: str) -> str:
    rule = BY_CODE[code]
    return (rule.__doc__ or "").strip()
