"""Rewrite checked conversions into unchecked forms by editing the producer's own text.

NVVM rejects IR that went through llvmlite's LLVM 20, so the rewrite never
re-prints a module: it edits lines of the producer's text, minimally:

1. each guard branch whose condition tests nothing but the converted value becomes
   an unconditional branch to its passing side (``br i1 %c, label %bad, label %ok``
   -> ``br label %ok``, keeping ``!dbg``);
2. the blocks no longer reachable (the raise, print-and-return, boxed exception or
   trap) are deleted, and ``phi`` entries from deleted or cut edges dropped;
3. the conversion takes the target's unchecked form: plain ``fptosi``/``fptoui`` on
   NVPTX (NVVM rejects ``freeze``), ``fptosi`` + ``freeze`` on AMDGPU and generic
   LLVM, or ``llvm.fpto[su]i.sat.*`` in saturate mode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Sequence, Set

from ..ir.reader import LOCAL_RE, Function, Instruction, Module, parse_module, unquote
from ..analysis.conversions import CheckedConversion

MODES = ("unchecked", "saturate")
_LLVM_FLOAT = {"double": "f64", "float": "f32", "half": "f16"}
_LABEL_TOKEN = re.compile(r"label\s+(%(?:\"(?:[^\"\\]|\\.)*\"|[-a-zA-Z$._0-9]+))")
_PHI_ENTRY = re.compile(r"\[\s*([^\[\]]+?)\s*,\s*(%(?:\"(?:[^\"\\]|\\.)*\"|[-a-zA-Z$._0-9]+))\s*\]")
_DBG_ATTACHMENT = re.compile(r",\s*!dbg\s+!\d+")


def dialect_of(module_text: str) -> str:
    """``nvvm`` (NVPTX through NVVM), ``amdgpu`` or ``generic``."""
    head = module_text[:4000]
    if 'triple = "nvptx' in head:
        return "nvvm"
    if 'triple = "amdgcn' in head:
        return "amdgpu"
    return "generic"


@dataclass
class FunctionPlan:
    """What to change in one function of one module."""

    function: str
    guards: Dict[str, str] = field(default_factory=dict)  # guard block -> passing successor
    conversions: List[str] = field(default_factory=list)  # result names of conversions


@dataclass
class ModuleEdit:
    index: int  # which module of the compilation
    original: str
    rewritten: str
    removed_blocks: int
    rewritten_conversions: int


def plan(checked: Sequence[CheckedConversion]) -> Dict[Module, Dict[str, FunctionPlan]]:
    """Group the fixable conversions by the (analysed) module and function they live in."""
    plans: Dict[Module, Dict[str, FunctionPlan]] = {}
    for conversion in checked:
        if not conversion.fixable or conversion.instruction.result is None:
            continue
        function = conversion.reached.function
        by_function = plans.setdefault(function.module, {})
        fplan = by_function.setdefault(function.name, FunctionPlan(function.name))
        for guard in conversion.removable:
            fplan.guards[guard.guard.name] = guard.passing
        if conversion.instruction.result not in fplan.conversions:
            fplan.conversions.append(conversion.instruction.result)
    return plans


def rewrite_module(text: str, plans: Sequence[FunctionPlan], mode: str) -> ModuleEdit:
    if mode not in MODES:
        raise ValueError(f"unknown mode {mode!r}; expected one of {', '.join(MODES)}")
    module = parse_module(text)
    dialect = dialect_of(text)
    lines: List[Optional[str]] = list(module.lines)
    declarations: List[str] = []
    removed = converted = 0
    for fplan in plans:
        function = module.functions.get(fplan.function)
        if function is None:
            raise KeyError(f"function @{fplan.function} is not in the module to rewrite")
        removed += _cut_guards(function, fplan.guards, lines)
        for name in fplan.conversions:
            ins = function.defs.get(name)
            if ins is None:
                raise KeyError(f"conversion %{name} is not in @{fplan.function}")
            if lines[ins.lineno] is None:
                continue  # it sat on a deleted error path
            replacement, declaration = _unchecked_form(ins, dialect, mode)
            if replacement != [ins.text]:
                indent = _indent(module.lines[ins.lineno])
                lines[ins.lineno] = "\n".join(indent + line for line in replacement)
                converted += 1
            if declaration and declaration not in declarations and not _declared(module, declaration):
                declarations.append(declaration)
    out = [line for line in lines if line is not None]
    if declarations:
        out.extend([""] + declarations)
    rewritten = "\n".join(out) + ("\n" if text.endswith("\n") else "")
    return ModuleEdit(-1, text, rewritten, removed, converted)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip())]


def _cut_guards(function: Function, guards: Dict[str, str], lines: List[Optional[str]]) -> int:
    if not guards:
        return 0
    successors: Dict[str, List[str]] = {}
    for block in function.blocks:
        successors[block.name] = [guards[block.name]] if block.name in guards else list(block.successors)
    # the guard terminators become unconditional branches to the passing side
    for name, passing in guards.items():
        term = function.block_map[name].terminator
        token = next(t for t in _LABEL_TOKEN.findall(term.body) if unquote(t) == passing)
        dbg = _DBG_ATTACHMENT.search(_tail(term))
        lines[term.lineno] = f"{_indent(lines[term.lineno] or '  ')}br label {token}{dbg.group(0) if dbg else ''}"
    reachable: Set[str] = set()
    work = [function.entry.name]
    while work:
        name = work.pop()
        if name in reachable or name not in function.block_map:
            continue
        reachable.add(name)
        work.extend(successors[name])
    dead = [b for b in function.blocks if b.name not in reachable]
    for block in dead:
        for number in range(block.first_line, block.last_line + 1):
            lines[number] = None
    predecessors: Dict[str, Set[str]] = {name: set() for name in reachable}
    for name in reachable:
        for succ in successors[name]:
            if succ in predecessors:
                predecessors[succ].add(name)
    for name in reachable:
        for ins in function.block_map[name].instructions:
            if ins.opcode != "phi":
                break
            _drop_phi_entries(ins, predecessors[name], lines)
    return len(dead)


def _drop_phi_entries(phi: Instruction, live: Set[str], lines: List[Optional[str]]) -> None:
    text = lines[phi.lineno] or phi.text
    entries = list(_PHI_ENTRY.finditer(text))
    keep = [m for m in entries if unquote(m.group(2)) in live]
    if len(keep) == len(entries) or not keep:
        return
    start, end = entries[0].start(), entries[-1].end()
    lines[phi.lineno] = text[:start] + ", ".join(m.group(0) for m in keep) + text[end:]


def _tail(ins: Instruction) -> str:
    """The metadata attachments after an instruction's operands (``, !dbg !12``)."""
    return ins.text[ins.text.find(ins.body) + len(ins.body):]


def _unchecked_form(ins: Instruction, dialect: str, mode: str):
    """(new instruction lines, declaration to add or None)."""
    if ins.opcode not in ("fptosi", "fptoui"):
        return [ins.text], None  # a library conversion call (__nv_double2ll_rz) is unchecked already
    words = ins.body.split()
    source_type, target_type = words[1], words[-1]
    operand = LOCAL_RE.search(ins.body).group(0)
    result = LOCAL_RE.match(ins.text).group(0)
    tail = _tail(ins)
    if mode == "saturate" and dialect == "nvvm":
        return _nvvm_saturating(ins, source_type, target_type, operand, result, tail)
    if mode == "saturate":
        suffix = _LLVM_FLOAT.get(source_type, source_type)
        quote = '"' if dialect == "nvvm" else ""
        intrinsic = f"@{quote}llvm.{ins.opcode}.sat.{target_type}.{suffix}{quote}"
        return (
            [f"{result} = call {target_type} {intrinsic}({source_type} {operand}){tail}"],
            f"declare {target_type} {intrinsic}({source_type})",
        )
    if dialect == "nvvm":
        return [ins.text], None  # cvt.rzi saturates on NVPTX: plain fptosi is defined there
    # Julia's unsafe_trunc: the conversion, frozen so an out-of-range input gives some value
    raw = f'%"kernlint.unchecked.{unquote(result)}"'
    return [
        f"{raw} = {ins.opcode} {source_type} {operand} to {target_type}{tail}",
        f"{result} = freeze {target_type} {raw}",
    ], None


def _nvvm_saturating(ins, source_type, target_type, operand, result, tail):
    """NVVM (LLVM 7 inside) has no llvm.fpto[su]i.sat: libdevice's round-toward-zero
    conversions are cvt.rzi, which saturates and maps NaN to 0: the same semantics."""
    signed = ins.opcode == "fptosi"
    bits = int(target_type[1:])
    short = {"double": "double", "float": "float"}.get(source_type)
    if short is None:
        return [ins.text], None
    wide = "i64" if bits == 64 else "i32"
    kind = ("ll" if signed else "ull") if bits == 64 else ("int" if signed else "uint")
    function = f"__nv_{short}2{kind}_rz"
    declaration = f'declare {wide} @"{function}"({source_type})'
    base = unquote(result)
    if bits in (32, 64):
        return [f'{result} = call {wide} @"{function}"({source_type} {operand}){tail}'], declaration
    # 8 and 16 bits: convert to 32 bits (saturating), then clamp into the narrow range
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    wide_value = f'%"kernlint.sat.{base}.wide"'
    lines = [f'{wide_value} = call i32 @"{function}"({source_type} {operand}){tail}']
    current = wide_value
    for bound, predicate, tag in ((hi, "sgt" if signed else "ugt", "hi"), (lo, "slt", "lo")):
        if not signed and tag == "lo":
            continue
        test, clamped = f'%"kernlint.sat.{base}.{tag}.test"', f'%"kernlint.sat.{base}.{tag}"'
        lines.append(f"{test} = icmp {predicate} i32 {current}, {bound}")
        lines.append(f"{clamped} = select i1 {test}, i32 {bound}, i32 {current}")
        current = clamped
    lines.append(f"{result} = trunc i32 {current} to {target_type}")
    return lines, declaration


def _declared(module: Module, declaration: str) -> bool:
    name = declaration.split("@", 1)[1].split("(", 1)[0]
    return unquote("@" + name) in module.declarations or unquote("@" + name) in module.functions
