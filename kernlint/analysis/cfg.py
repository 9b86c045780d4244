"""Dominators and natural loops of one function's control-flow graph.

A natural loop is found from a back edge ``latch -> header`` where the header dominates the
latch: its body is the header and every block that reaches the latch without passing
through the header. Dominators use Cooper, Harvey and Kennedy's iterative algorithm over
the reverse postorder ("A Simple, Fast Dominance Algorithm"); the graphs are small.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, List, Optional, Set

from ..ir.reader import Function


@dataclass
class NaturalLoop:
    header: str
    latches: Set[str] = field(default_factory=set)
    body: Set[str] = field(default_factory=set)
    exits: Set[str] = field(default_factory=set)  # blocks of the body with a successor outside it

    @property
    def size(self) -> int:
        return len(self.body)


class ControlFlow:
    def __init__(self, function: Function):
        self.function = function
        self.names = [b.name for b in function.blocks]
        names = set(self.names)
        self.successors: Dict[str, List[str]] = {b.name: [s for s in b.successors if s in names]
                                                 for b in function.blocks}
        self.predecessors: Dict[str, List[str]] = {n: [] for n in self.names}
        for name, successors in self.successors.items():
            for successor in successors:
                self.predecessors[successor].append(name)
        self.order = self._reverse_postorder()
        self.idom = self._dominators()

    def _reverse_postorder(self) -> List[str]:
        if not self.names:
            return []
        seen: Set[str] = set()
        order: List[str] = []
        stack = [(self.names[0], iter(self.successors[self.names[0]]))]
        seen.add(self.names[0])
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                order.append(node)
                stack.pop()
            elif child not in seen:
                seen.add(child)
                stack.append((child, iter(self.successors[child])))
        return list(reversed(order))

    def _dominators(self) -> Dict[str, Optional[str]]:
        if not self.order:
            return {}
        index = {name: number for number, name in enumerate(self.order)}
        entry = self.order[0]
        idom: Dict[str, Optional[str]] = {entry: entry}

        def intersect(a: str, b: str) -> str:
            while a != b:
                while index[a] > index[b]:
                    a = idom[a]  # type: ignore[assignment]
                while index[b] > index[a]:
                    b = idom[b]  # type: ignore[assignment]
            return a

        changed = True
        while changed:
            changed = False
            for node in self.order[1:]:
                done = [p for p in self.predecessors[node] if p in idom]
                if not done:
                    continue
                new = done[0]
                for other in done[1:]:
                    new = intersect(other, new)
                if idom.get(node) != new:
                    idom[node] = new
                    changed = True
        idom[entry] = None
        return idom

    def dominates(self, a: str, b: str) -> bool:
        """Every path from the entry to ``b`` goes through ``a``."""
        if a not in self.idom or b not in self.idom:
            return False
        current: Optional[str] = b
        while current is not None:
            if current == a:
                return True
            current = self.idom.get(current)
        return False

    def loops(self) -> List[NaturalLoop]:
        """Natural loops, one per header (back edges to one header merged), largest first."""
        found: Dict[str, NaturalLoop] = {}
        for latch, successors in self.successors.items():
            for header in successors:
                if latch in self.idom and self.dominates(header, latch):
                    loop = found.setdefault(header, NaturalLoop(header))
                    loop.latches.add(latch)
                    loop.body.add(header)
                    stack = [latch]
                    while stack:
                        node = stack.pop()
                        if node not in loop.body:
                            loop.body.add(node)
                            stack.extend(self.predecessors[node])
        for loop in found.values():
            loop.exits = {b for b in loop.body if any(s not in loop.body for s in self.successors[b])}
        return sorted(found.values(), key=lambda l: -l.size)

    def exits(self) -> List[str]:
        return [name for name, successors in self.successors.items() if not successors]
