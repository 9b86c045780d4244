"""The import graph goes one way (DESIGN.md, "Style"): lower floors never import higher
ones, frontends make KL9xx diagnostics without the rule catalog, and no two modules
import each other, directly or around a circle (imports inside functions count)."""
import ast
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = ROOT / "kernlint"


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports(path: Path):
    """Every kernlint module a file imports, wherever the import statement is."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("kernlint")}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if not target.startswith("kernlint"):
                continue
            for alias in node.names:  # `from . import rules` imports the submodule
                candidate = f"{target}.{alias.name}"
                found.add(candidate if candidate in GRAPH_NAMES else target)
    return {f for f in found if f != name}


GRAPH_NAMES = {module_name(p) for p in PACKAGE.rglob("*.py")}
GRAPH = {module_name(p): imports(p) for p in PACKAGE.rglob("*.py")}


def floor(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "kernlint"


FORBIDDEN = {
    # floor: the floors it must not import
    "findings": {"ir", "analysis", "rules", "frontends", "engine", "report", "rewrite", "cli", "decorator"},
    "source": {"ir", "analysis", "rules", "frontends", "engine", "report", "rewrite", "cli", "decorator"},
    "ir": {"analysis", "rules", "frontends", "engine", "report", "rewrite", "cli", "decorator"},
    # (python/: a language's readers, above the facts they fill)
    "analysis": {"rules", "frontends", "python", "engine", "report", "rewrite", "cli", "decorator"},
    "rules": {"frontends", "python", "engine", "report", "rewrite", "cli", "decorator", "cache", "config"},
    "frontends": {"rules", "engine", "report", "rewrite", "cli", "decorator"},
    "report": {"rewrite", "cli", "decorator"},
}


@pytest.mark.parametrize("module", sorted(GRAPH))
def test_lower_floors_do_not_import_higher_ones(module):
    forbidden = FORBIDDEN.get(floor(module), set())
    wrong = sorted(i for i in GRAPH[module] if floor(i) in forbidden)
    assert not wrong, f"{module} imports {wrong}"


def test_no_import_cycles():
    cycles = []
    state = {}

    def visit(module, stack):
        state[module] = "open"
        for target in sorted(GRAPH.get(module, ())):
            if target not in GRAPH or target == "kernlint":
                continue
            if state.get(target) == "open":
                cycles.append(stack[stack.index(target):] + [target])
            elif target not in state:
                visit(target, stack + [target])
        state[module] = "done"

    for module in sorted(GRAPH):
        if module not in state:
            visit(module, [module])
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles)


def test_only_the_command_line_starts_the_language_server():
    """``kernlint/lsp/`` is a front door, as the CLI is: it uses the pipeline's top (engine,
    config, report...), and nothing but ``kernlint server`` imports it."""
    wrong = sorted(m for m in GRAPH if floor(m) not in ("lsp", "cli")
                   and any(floor(i) == "lsp" for i in GRAPH[m]))
    assert not wrong, f"{wrong} import the language server"
