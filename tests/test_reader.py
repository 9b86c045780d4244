"""The IR reader: structure, names and debug locations, from both LLVM printers."""
from irtext import HIP_ASSERT_AND_HOSTCALL, JULIA_CHECKED_INT

from kernlint.ir.reader import parse_module

NUMBA_STYLE = '''
define i32 @"_ZN4demo1kB2v1"(i8** %".ret", double %"x") !dbg !3
{
entry:
  %"v" = alloca double
  store double %"x", double* %"v"
  br label %"B0"
B0:
  %".5" = load double, double* %"v", !dbg !4
  %".6" = fcmp une double %".5", %".5" , !dbg !4
  br i1 %".6", label %"B1", label %"B2", !dbg !4
B1:
  ret i32 1, !dbg !5
B2:
  ret i32 0, !dbg !4
}
!1 = !DIFile(directory: "/w", filename: "demo.py")
!3 = distinct !DISubprogram(file: !1, line: 3, name: "k", scope: !1)
!4 = !DILocation(column: 1, line: 4, scope: !3)
!5 = !DILocation(column: 1, line: 5, scope: !3)
'''


def test_numba_quoted_names_blocks_and_successors():
    module = parse_module(NUMBA_STYLE)
    function = module.functions["_ZN4demo1kB2v1"]
    assert [b.name for b in function.blocks] == ["entry", "B0", "B1", "B2"]
    assert function.block_map["B0"].successors == ["B1", "B2"]
    assert function.params == [("i8**", ".ret"), ("double", "x")]
    assert function.return_type == "i32"
    fcmp = function.defs[".6"]
    assert fcmp.opcode == "fcmp" and fcmp.locals() == [".5", ".5"]


def test_numba_locations_resolve_file_line_and_function():
    module = parse_module(NUMBA_STYLE)
    ret = module.functions["_ZN4demo1kB2v1"].block_map["B1"].terminator
    location = module.location(ret.dbg)
    assert (location.path, location.line, location.function) == ("/w/demo.py", 5, "k")


def test_unnamed_entry_block_and_multi_line_switch():
    module = parse_module(HIP_ASSERT_AND_HOSTCALL)
    function = module.functions["convert_kernel"]
    assert [b.name for b in function.blocks] == ["2", "5", "6", "8", "9"]
    switch = function.block_map["6"].terminator
    assert switch.opcode == "switch"
    assert function.block_map["6"].successors == ["9", "8"]
    assert function.block_map["5"].instructions[0].callee == "__assert_fail"


def test_inlined_at_chain_innermost_first():
    module = parse_module(JULIA_CHECKED_INT)
    box = module.functions["convert_kernel"].block_map["fail"].instructions[1]
    assert box.callee == "gpu_gc_pool_alloc"
    chain = module.location_chain(box.dbg)
    assert [(loc.line, loc.function) for loc in chain] == [(41, "Int64"), (10, "convert_kernel")]
    assert chain[0].path == "/src/kernels.jl"
