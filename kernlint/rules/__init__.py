"""The rule catalog: one module per rule, its documentation in the module docstring.

A rule module sets ``PREVIEW = True`` while it has not yet shown 95% true findings on
projects it was not developed on. As in ruff, a preview rule runs only in preview mode
(``--preview``, ``preview = true``): there a selector that matches it (a prefix, the
default selection of every rule) enables it, unless ``explicit-preview-rules`` asks that
preview rules be named by their whole code. Without preview mode, selecting one does
nothing, and kernlint says so.
"""

from __future__ import annotations

from types import ModuleType
from typing import Dict, List, Optional, Sequence

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




def is_preview(code: str) -> bool:
    return bool(getattr(BY_CODE.get(code), "PREVIEW", False))


PREVIEW_CODES: List[str] = [rule.CODE for rule in ALL if is_preview(rule.CODE)]


def enabled(code: str, select: Optional[Sequence[str]], preview: bool, explicit_preview: bool = False) -> bool:
    """Whether a finding of ``code`` is reported under this selection (``select`` None: the
    default, every rule); ignores are applied by the caller."""
    if select and not any(code.startswith(selector) for selector in select):
        return False
    if not is_preview(code):
        return True
    if not preview:
        return False
    return not explicit_preview or code in (select or ())


def selection_warnings(select: Optional[Sequence[str]], preview: bool, explicit_preview: bool = False) -> List[str]:
    """What a selection asks for that it will not get: a selector that matches only preview
    rules without preview mode (ruff says the same), or only by prefix where preview rules
    must be named."""
    warnings = []
    for selector in select or ():
        matched = [code for code in BY_CODE if code.startswith(selector)]
        if not matched or not all(is_preview(code) for code in matched):
            continue
        if not preview:
            warnings.append(f"selection `{selector}` has no effect because preview is not enabled "
                            f"(--preview, or `preview = true` in the configuration)")
        elif explicit_preview and selector not in BY_CODE:
            warnings.append(f"selection `{selector}` has no effect because `explicit-preview-rules` asks that "
                            f"preview rules be selected by their whole code")
    return warnings


def documentation(code: str) -> str:
    rule = BY_CODE[code]
    text = (rule.__doc__ or "").strip()
    if is_preview(code):
        title, _, rest = text.partition("\n")
        note = ("This rule is in preview: it runs only with `--preview` (or `preview = true` in the "
                "configuration) until it has shown 95% true findings on projects it was not developed on.")
        text = f"{title}\n\n{note}\n{rest}"
    return text
