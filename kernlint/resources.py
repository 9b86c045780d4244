"""What a finding costs: a kernel's registers, stack/scratch and code size as it is, and
with the finding's error path removed (the guard into it cut, as the rewrite does).

AMDGPU through llvmlite's AMDGPU backend (the amdhsa metadata's VGPR, SGPR and private
segment sizes, and the function's instruction count); NVPTX through NVVM and ``ptxas -v``
(registers, stack frame, spill stores and loads).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from typing import Dict, List, Optional, Sequence

from .analysis.program import KernelAnalysis, Program, Site
from .compile.numba_cuda import CompiledKernel
from .findings import Finding
from .ir.reader import parse_module
from .rewrite.edit import FunctionPlan, dialect_of, rewrite_module
from .rewrite.verify import VerificationError, amdgpu_assembly, nvvm_ptx
from .analysis.conversions import checked_conversions

Resources = Dict[str, int]


def amdgpu_resources(texts: Sequence[str], kernel: str, cpu: str) -> Resources:
    assembly = amdgpu_assembly(texts, cpu)
    block = re.search(rf"\.name:\s+{re.escape(kernel)}\s*\n(.*?)(?=\n\s+- |\n\.\.\.|\Z)", assembly, re.S)
    values = dict(re.findall(r"\.(vgpr_count|sgpr_count|private_segment_fixed_size):\s+(\d+)", block.group(1))) \
        if block else {}
    body = re.search(rf"^{re.escape(kernel)}:.*?$(.*?)^\.Lfunc_end", assembly, re.M | re.S)
    instructions = sum(1 for line in body.group(1).splitlines()
                       if line.startswith("\t") and not line.strip().startswith((".", ";"))) if body else 0
    return {"vgpr": int(values.get("vgpr_count", 0)), "sgpr": int(values.get("sgpr_count", 0)),
            "scratch_bytes": int(values.get("private_segment_fixed_size", 0)), "instructions": instructions}


def lower_ptx_version(ptx: str, version: str = "9.0") -> str:
    """NVVM 13.5 writes PTX ISA 9.5; drivers and ptxas of CUDA 13.0 read up to 9.0."""
    return re.sub(r"^\.version \d+\.\d+", f".version {version}", ptx, flags=re.M)


def ptxas_usage(ptx: str, arch: str) -> Optional[Resources]:
    """Registers, stack and spills from ``ptxas -v``; None when ptxas is not installed."""
    if shutil.which("ptxas") is None:
        return None
    with tempfile.TemporaryDirectory(prefix="kernlint-ptxas-") as scratch:
        source = os.path.join(scratch, "k.ptx")
        with open(source, "w") as out:
            out.write(lower_ptx_version(ptx))
        done = subprocess.run(["ptxas", f"-arch={arch}", "-v", source, "-o", os.path.join(scratch, "k.cubin")],
                              capture_output=True, text=True)
    if done.returncode != 0:
        raise VerificationError(f"ptxas: {done.stderr.strip()[-300:]}")

    def number(pattern: str) -> int:
        match = re.search(pattern, done.stderr)
        return int(match.group(1)) if match else 0

    return {"registers": number(r"Used (\d+) registers"), "stack_bytes": number(r"(\d+) bytes stack frame"),
            "spill_stores": number(r"(\d+) bytes spill stores"), "spill_loads": number(r"(\d+) bytes spill loads")}


def nvptx_resources(texts: Sequence[str], cc, options: Dict) -> Optional[Resources]:
    if shutil.which("ptxas") is None:
        return None
    return ptxas_usage(nvvm_ptx(texts, cc, options), f"sm_{cc[0]}{cc[1]}")


class KernelCosts:
    """Measures one compiled kernel, as it is and without chosen error paths."""

    def __init__(self, compiled: CompiledKernel, cc, offload_arch: str):
        self.compiled = compiled
        self.cc = cc
        self.offload_arch = offload_arch
        self.targets = list(compiled.target_modules)
        self.dialect = dialect_of(self.targets[0])
        self.program = Program([parse_module(text) for text in compiled.modules])
        self.analysis = KernelAnalysis(self.program, compiled.entry)
        self._cache: Dict[frozenset, Optional[Resources]] = {}

    @property
    def target(self) -> str:
        return self.offload_arch if self.dialect == "amdgpu" else f"sm_{self.cc[0]}{self.cc[1]}"

    def measure(self, texts: Sequence[str]) -> Optional[Resources]:
        if self.dialect == "amdgpu":
            return amdgpu_resources(texts, self.compiled.entry, self.offload_arch)
        if self.dialect == "nvvm":
            return nvptx_resources(texts, self.cc, self.compiled.options)
        return None

    def with_guards_cut(self, guards: Dict[tuple, str]) -> Optional[Resources]:
        """Resources with the given guard branches made unconditional: {(function, block): passing}."""
        key = frozenset(guards.items())
        if key not in self._cache:
            texts = list(self.targets)
            by_module: Dict[int, Dict[str, FunctionPlan]] = {}
            for (function, block), passing in guards.items():
                number = self._module_of(function)
                plan = by_module.setdefault(number, {}).setdefault(function, FunctionPlan(function))
                plan.guards[block] = passing
            for number, plans in by_module.items():
                texts[number] = rewrite_module(texts[number], list(plans.values()), "unchecked").rewritten
            self._cache[key] = self.measure(texts)
        return self._cache[key]

    def _module_of(self, function: str) -> int:
        target = self.program.functions[function].module
        return next(n for n, m in enumerate(self.program.modules) if m is target)

    def guards_into(self, finding: Finding) -> Dict[tuple, str]:
        """The branches whose failing side holds the finding (its error path)."""
        guards: Dict[tuple, str] = {}
        if finding.code == "KL101":
            for checked in checked_conversions(self.analysis):
                location = self.analysis.program.functions[checked.reached.function.name]
                if self._line_of(checked.instruction, location) == finding.line:
                    guards.update({(location.name, g.guard.name): g.passing for g in checked.removable})
            return guards
        sites = [site for site in self._candidates() if self._site_matches(site, finding)]
        if not sites or not all(site.on_error_path for site in sites):
            return guards  # (also) on the normal path: there is no error path to remove
        for site in sites:
            # the outermost call on an error path, or the site itself
            steps = list(site.chain) + [site.instruction]
            for instruction in steps:
                function = instruction.block.function
                facts = self.program.facts(function.name)
                if instruction.block.name not in facts.error_blocks:
                    continue
                for branch in facts.error_branches:
                    if instruction.block.name in facts.region(branch.failing, branch.guard.name):
                        guards[(function.name, branch.guard.name)] = branch.passing
                break
        return guards

    def _candidates(self):
        """Call sites, and the exception status returns KL401 reports."""
        yield from self.analysis.sites
        for reached in self.analysis.functions():
            facts = self.program.facts(reached.function.name)
            for name in facts.sink_blocks:
                term = facts.blocks[name].terminator
                if term is not None and term.opcode == "ret":
                    yield Site(reached.function, term, True, reached.chain)

    def _line_of(self, instruction, function) -> int:
        chain = function.module.location_chain(instruction.dbg)
        return chain[0].line if chain else 0

    def _site_matches(self, site, finding: Finding) -> bool:
        return any(frame.line == finding.line and os.path.abspath(frame.path) == os.path.abspath(finding.path)
                   for frame in site.frames())


def attach(findings: List[Finding], compiled: CompiledKernel, cc, offload_arch: str) -> None:
    """Add ``resources`` to each of a kernel's findings (the IR-based ones)."""
    if not findings:
        return
    try:
        costs = KernelCosts(compiled, cc, offload_arch)
        as_is = costs.measure(costs.targets)
    except (VerificationError, Exception) as exc:  # noqa: BLE001 - a cost we cannot measure is reported
        for finding in findings:
            finding.resources = {"error": str(exc)[:300]}
        return
    if as_is is None:
        return
    for finding in findings:
        if finding.code.startswith("KL9") or finding.code == "KL402":
            continue
        entry = {"target": costs.target, "as_is": as_is, "without": None}
        try:
            guards = costs.guards_into(finding)
            if guards:
                entry["without"] = costs.with_guards_cut(guards)
        except (VerificationError, Exception) as exc:  # noqa: BLE001
            entry["error"] = str(exc)[:300]
        finding.resources = entry
