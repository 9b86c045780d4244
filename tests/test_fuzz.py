"""Mutated real IR never makes the reader or the rules raise anything but IRSyntaxError."""
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from irtext import HIP_ASSERT_AND_HOSTCALL, JULIA_CHECKED_INT
from kernlint.engine import run_rules
from kernlint.findings import KernelInfo
from kernlint.compile.numba_cuda import CompiledKernel, compile_file
from kernlint.ir.reader import IRSyntaxError, parse_module

EXAMPLES = 5000 if os.environ.get("HYPOTHESIS_PROFILE") == "thorough" else 300


@pytest.fixture(scope="module")
def corpus():
    texts = [JULIA_CHECKED_INT, HIP_ASSERT_AND_HOSTCALL]
    for name in ("print_guard.py", "grid_stride.py", "device_print.py", "allocation.py"):
        for kernel in compile_file(str(FIXTURES / name)).kernels:
            texts.append("\n".join(kernel.modules))
    return texts


TOKENS = ["br", "label", "%", "@", "!", "{", "}", "[", "]", "(", ")", ",", "=", "ret", "unreachable",
          "call", "phi", "switch", "fptosi", "define", "declare", "!dbg !1", '"', "\\", "i1", ";"]


@st.composite
def mutated(draw, corpus):
    lines = draw(st.sampled_from(corpus)).splitlines()
    for _ in range(draw(st.integers(1, 6))):
        if not lines:
            break
        kind = draw(st.sampled_from(["delete", "duplicate", "swap", "token", "truncate", "insert", "label"]))
        i = draw(st.integers(0, len(lines) - 1))
        if kind == "delete":
            del lines[i]
        elif kind == "duplicate":
            lines.insert(i, lines[i])
        elif kind == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif kind == "token":
            words = lines[i].split(" ")
            k = draw(st.integers(0, len(words) - 1))
            words[k] = draw(st.sampled_from(TOKENS))
            lines[i] = " ".join(words)
        elif kind == "truncate":
            lines[i] = lines[i][: draw(st.integers(0, len(lines[i])))]
        elif kind == "insert":
            lines.insert(i, " ".join(draw(st.lists(st.sampled_from(TOKENS + ["a", "0"]), max_size=8))))
        else:
            lines.insert(i, draw(st.sampled_from(["B0:", "entry:", "1:", '"weird block":'])))
    return "\n".join(lines)


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_reader_and_rules_never_crash(corpus, data):
    text = data.draw(mutated(corpus))
    try:
        module = parse_module(text)
    except IRSyntaxError:
        return
    for entry in list(module.functions)[:4]:
        info = KernelInfo(name=entry, path="/fuzz/k.ll", line=1, column=1)
        try:
            run_rules(CompiledKernel(info, [text], entry, 0.0), source=None)
        except IRSyntaxError:
            pass
