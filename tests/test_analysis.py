"""Error paths: sinks, the fixed point, report paths, and alloca-aware value identity."""
from kernlint.analysis.program import KernelAnalysis, Program
from kernlint.ir.reader import parse_module


def facts_of(body, name="f", ret="void", params="double %x"):
    text = f"define {ret} @{name}({params}) {{\n{body}\n}}\n"
    program = Program([parse_module(text)])
    return program.facts(name)


def test_a_diamond_with_one_trapping_side_is_an_error_branch_not_an_error_path():
    facts = facts_of("""
entry:
  %c = fcmp uno double %x, %x
  br i1 %c, label %bad, label %good
bad:
  br label %trap
trap:
  call void @llvm.trap()
  unreachable
good:
  ret void""")
    assert facts.raising_blocks == {"bad", "trap"}
    assert [(b.failing, b.passing, b.kind) for b in facts.error_branches] == [("bad", "good", "raise")]


def test_a_loop_without_a_sink_is_not_an_error_path():
    facts = facts_of("""
entry:
  br label %loop
loop:
  br i1 true, label %loop, label %trap
trap:
  unreachable""")
    assert facts.raising_blocks == {"trap"}


def test_print_that_rejoins_is_a_warning_not_an_error_path():
    facts = facts_of("""
entry:
  %c = fcmp uno double %x, %x
  br i1 %c, label %warn, label %done
warn:
  %r = call i32 @vprintf(ptr null, ptr null)
  br label %done
done:
  store double %x, ptr addrspace(1) null
  ret void""")
    assert facts.error_branches == [] and facts.error_blocks == frozenset()


def test_print_and_return_that_skips_the_work_is_a_report_path():
    facts = facts_of("""
entry:
  %c = fcmp uno double %x, %x
  br i1 %c, label %warn, label %work
warn:
  %r = call i32 @vprintf(ptr null, ptr null)
  ret void
work:
  %i = fptosi double %x to i64
  store i64 %i, ptr addrspace(1) null
  ret void""")
    assert [(b.failing, b.kind) for b in facts.error_branches] == [("warn", "report")]
    assert facts.error_blocks == {"warn"}


def test_a_function_that_always_fails_makes_its_call_a_sink():
    text = """
define void @fail() {
entry:
  call void @llvm.trap()
  unreachable
}
define void @k(double %x) {
entry:
  %c = fcmp uno double %x, %x
  br i1 %c, label %bad, label %good
bad:
  call void @fail()
  ret void
good:
  ret void
}
"""
    program = Program([parse_module(text)])
    assert program.always_errors("fail")
    assert program.facts("k").raising_blocks == {"bad"}
    analysis = KernelAnalysis(program, "k")
    assert [(s.instruction.callee, s.on_error_path) for s in analysis.sites] == [
        ("fail", True), ("llvm.trap", True)]


def test_loads_of_one_alloca_are_one_value():
    facts = facts_of("""
entry:
  %v = alloca double
  store double 0.0, double* %v
  store double %x, double* %v
  %a = load double, double* %v
  %b = load double, double* %v
  %c = fcmp une double %a, %b
  ret void""")
    values = facts.values
    assert values.keys("a") & values.keys("b") == {("slot", "v")}
    assert ("slot", "v") in values.keys("x")  # the only non-constant value stored there
