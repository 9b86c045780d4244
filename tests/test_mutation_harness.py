"""benchmarks/mutation_hooks.py: what the mutation run memoizes must be keyed by everything the
compile reads, and the findings cache must be per mutant."""
import importlib.util
import types

import pytest
from conftest import ROOT

spec = importlib.util.spec_from_file_location("mutation_hooks", ROOT / "benchmarks" / "mutation_hooks.py")
hooks = importlib.util.module_from_spec(spec)
spec.loader.exec_module(hooks)


class Result:
    def __init__(self, path, dependencies):
        self.path, self.dependencies = path, dependencies


def test_compiled_ir_is_reused_until_the_file_a_dependency_or_an_argument_changes(tmp_path, monkeypatch):
    monkeypatch.setenv(hooks.ENVIRONMENT, str(tmp_path / "memo"))
    source, helper = tmp_path / "kernels.py", tmp_path / "helper.py"
    source.write_text("x = 1\n")
    helper.write_text("y = 2\n")
    calls = []

    def compile_file(path, arch="sm_90", extra_signatures=None, progress=None, settings=None):
        calls.append(arch)
        return Result(path, [str(helper)])

    module = types.ModuleType("kernlint.compile.numba_cuda")
    compile_file.__module__ = module.__name__
    module.compile_file = compile_file
    hooks._patch(module)
    memo = module.compile_file
    assert memo is not compile_file
    first = memo(str(source), "sm_90", progress=lambda: None)
    assert memo(str(source), arch="sm_90", progress=print).path == first.path and calls == ["sm_90"]
    memo(str(source), "sm_80")  # another argument
    assert calls == ["sm_90", "sm_80"]
    helper.write_text("y = 3\n")  # a module the compile read
    memo(str(source), "sm_90")
    source.write_text("x = 2\n")  # the file itself
    memo(str(source), "sm_90")
    assert calls == ["sm_90", "sm_80", "sm_90", "sm_90"]
    memo(str(source), "sm_90")
    assert len(calls) == 4
    hooks._patch(module)  # installing twice wraps once
    assert module.compile_file is memo


def test_without_the_variable_nothing_is_memoized(tmp_path, monkeypatch):
    monkeypatch.delenv(hooks.ENVIRONMENT, raising=False)
    source = tmp_path / "kernels.py"
    source.write_text("x = 1\n")
    calls = []
    module = types.ModuleType("kernlint.compile.numba_cuda")

    def compile_file(path, arch="sm_90"):
        calls.append(path)
        return Result(path, [])

    compile_file.__module__ = module.__name__
    module.compile_file = compile_file
    hooks._patch(module)
    module.compile_file(str(source))
    module.compile_file(str(source))
    assert len(calls) == 2


def test_only_functions_a_module_defines_are_wrapped_and_identity_names_the_mutant(monkeypatch):
    module = types.ModuleType("kernlint.engine")

    def compile_file(path):
        return path

    compile_file.__module__ = "kernlint.compile.numba_cuda"  # imported from elsewhere
    module.compile_file = compile_file
    hooks._patch(module)
    assert module.compile_file is compile_file

    toolchain = types.ModuleType("kernlint.compile.toolchain")

    def identity():
        return {"kernlint-code": "abc"}

    identity.__module__ = toolchain.__name__
    toolchain.identity = identity
    hooks._patch(toolchain)
    monkeypatch.setenv("MUTANT_UNDER_TEST", "kernlint.fix.x_plan__mutmut_3")
    assert toolchain.identity() == {"kernlint-code": "abc", "mutant": "kernlint.fix.x_plan__mutmut_3"}


@pytest.mark.parametrize("value, text", [
    (frozenset({"b", "a"}), "{'a','b'}"),
    ({"k": [1, (2, 3)]}, "{'k':[1,[2,3]]}"),
])
def test_keys_do_not_depend_on_hash_seeds(value, text):
    assert hooks._stable(value) == text


mutation_spec = importlib.util.spec_from_file_location("mutation_benchmark", ROOT / "benchmarks" / "mutation.py")
mutation = importlib.util.module_from_spec(mutation_spec)
mutation_spec.loader.exec_module(mutation)


def test_every_module_the_run_knows_is_scored_in_exactly_one_group():
    grouped = [module for members in mutation.GROUPS.values() for module in members]
    assert sorted(grouped) == sorted(mutation.TESTS)


def test_only_the_source_fixs_own_functions_of_source_py_are_in_scope():
    assert mutation.in_scope("source.py", "kernlint.source.xǁSourceEditsǁdelete__mutmut_3")
    assert mutation.in_scope("source.py", "kernlint.source.x_apply_edits__mutmut_12")
    assert not mutation.in_scope("source.py", "kernlint.source.x_read_bytes__mutmut_1")
    assert not mutation.in_scope("source.py", "kernlint.source.xǁSourceFileǁcolumn__mutmut_2")
    assert mutation.in_scope("fix.py", "kernlint.fix.x_plan__mutmut_1")


def test_the_sample_is_drawn_per_module_and_a_larger_one_extends_a_smaller(tmp_path, monkeypatch):
    import json

    monkeypatch.setattr(mutation, "VERDICTS", tmp_path / "no-verdicts.toml")
    made = {"rules/kl201_error_path_allocates.py": 30, "rules/kl303_assert_hostcall.py": 4,
            "rules/kl903_no_signature.py": 0}
    for module, count in made.items():
        meta = tmp_path / "mutants" / "kernlint" / (module + ".meta")
        meta.parent.mkdir(parents=True, exist_ok=True)
        stem = "kernlint." + module[:-3].replace("/", ".")
        meta.write_text(json.dumps({"exit_code_by_key": {f"{stem}.x_check__mutmut_{n}": None
                                                         for n in range(1, count + 1)}}))
    small = mutation.sample(tmp_path, list(made), 3, seed=41)
    large = mutation.sample(tmp_path, list(made), 10, seed=41)
    per_module = lambda names, part: [n for n in names if part in n]  # noqa: E731
    assert len(per_module(small, "kl201")) == 3 and len(per_module(small, "kl303")) == 3
    assert len(per_module(large, "kl201")) == 10 and len(per_module(large, "kl303")) == 4  # all it has
    assert set(small) <= set(large)
    assert mutation.sample(tmp_path, list(made), 3, seed=41) == small
    assert mutation.sample(tmp_path, list(made), 3, seed=7) != small
