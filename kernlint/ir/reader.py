"""Read LLVM IR text into functions, blocks, instructions and debug locations.

Hand-written because llvmlite's binding layer exposes neither debug metadata (the
``!dbg`` source locations every finding needs) nor the producer's own text (which
the minimal-edit rewriter must keep: NVVM rejects IR that went through LLVM 20).
Validation of untrusted IR stays with llvmlite (see ``kernlint.ir.validate``).

The reader is line-oriented, as every LLVM printer (LLVM's, llvmlite.ir's) is:
one instruction per line, except ``switch``/``indirectbr`` whose bracketed
target lists are joined back into one instruction.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

_NAME = r'(?:"(?:[^"\\]|\\.)*"|[-a-zA-Z$._0-9]+)'
LOCAL_RE = re.compile(r"%" + _NAME)
GLOBAL_RE = re.compile(r"@" + _NAME)
_DEFINE_RE = re.compile(r"^define\b[^@]*?(@" + _NAME + r")\s*\(")
_DECLARE_RE = re.compile(r"^declare\b[^@]*?(@" + _NAME + r")\s*\(")
_LABEL_RE = re.compile(r'^("(?:[^"\\]|\\.)*"|[-a-zA-Z$._0-9]+):')
_ASSIGN_RE = re.compile(r"^(%" + _NAME + r")\s*=\s*(.*)$")
_DBG_RE = re.compile(r"!dbg\s+!(\d+)")
_CALLEE_RE = re.compile(r"(@" + _NAME + r")\s*\(")
_LABEL_REF_RE = re.compile(r"label\s+(%" + _NAME + r")")
_META_DEF_RE = re.compile(r"^!(\d+)\s*=\s*(?:distinct\s+)?(.*)$")
_FIELD_RE = re.compile(r"(\w+):\s*(\"(?:[^\"\\]|\\.)*\"|![0-9]+|[-\w.]+)")

_CAST_OPS = frozenset(
    "trunc zext sext fptrunc fpext fptoui fptosi uitofp sitofp ptrtoint inttoptr "
    "bitcast addrspacecast".split()
)


def float_constant(token: str) -> Optional[float]:
    """An LLVM float literal (``9.200000e+18``, ``0x43E0000000000000``, ``0x0``), or None."""
    token = token.strip()
    if token.startswith("0x"):
        digits = token[2:]
        if digits[:1] in ("H", "K", "L", "M", "R"):  # half, x86_fp80, fp128, ppc_fp128, bfloat
            if digits[0] == "H":
                return float(struct.unpack("<e", int(digits[1:], 16).to_bytes(2, "little"))[0])
            return None
        try:
            return struct.unpack("<d", int(digits, 16).to_bytes(8, "little"))[0]
        except (ValueError, OverflowError):
            return None
    try:
        return float(token)
    except ValueError:
        return None


def unquote(name: str) -> str:
    """``%"x.1"`` / ``@foo`` / ``%12`` -> ``x.1`` / ``foo`` / ``12``."""
    body = name[1:] if name[:1] in "%@" else name
    if body.startswith('"') and body.endswith('"'):
        body = body[1:-1]
    return body


@dataclass(eq=False, slots=True)
class Instruction:
    text: str  # the instruction as the producer printed it (multi-line joined)
    lineno: int  # index of its first line in the module text (0-based)
    result: Optional[str]  # unquoted result name, or None
    opcode: str
    dbg: Optional[int]  # metadata id of its !dbg location
    body: str  # text without the result assignment and trailing metadata attachments
    block: "Block" = field(repr=False, default=None)  # type: ignore[assignment]

    def locals(self) -> List[str]:
        """Unquoted names of the local values this instruction reads, in order."""
        return [unquote(m) for m in LOCAL_RE.findall(self.body[len(self.opcode):])]

    @property
    def callee(self) -> Optional[str]:
        if self.opcode not in ("call", "invoke", "callbr"):
            return None
        match = _CALLEE_RE.search(self.body)
        return unquote(match.group(1)) if match else None

    def call_args(self) -> str:
        """The text between the call's parentheses."""
        body = self.body
        match = _CALLEE_RE.search(body)
        if not match:
            return ""
        start = match.end()
        depth = 1
        for i in range(start, len(body)):
            ch = body[i]
            if ch in "([{<":
                depth += 1
            elif ch in ")]}>":
                depth -= 1
                if depth == 0:
                    return body[start:i]
        return body[start:]

    def globals(self) -> List[str]:
        if "@" not in self.body:
            return []
        return [unquote(m) for m in GLOBAL_RE.findall(self.body)]

    @property
    def is_cast(self) -> bool:
        return self.opcode in _CAST_OPS


@dataclass(eq=False, slots=True)
class Block:
    name: str
    function: "Function" = field(repr=False)
    instructions: List[Instruction] = field(default_factory=list)
    successors: List[str] = field(default_factory=list)
    first_line: int = 0  # its label line (or first instruction) in the module text
    last_line: int = 0  # the line before the next block or the closing brace

    @property
    def terminator(self) -> Optional[Instruction]:
        return self.instructions[-1] if self.instructions else None


@dataclass(eq=False)
class Function:
    name: str
    header: str
    lineno: int
    module: "Module" = field(repr=False)
    params: List[Tuple[str, Optional[str]]] = field(default_factory=list)  # (type, name)
    return_type: str = ""
    blocks: List[Block] = field(default_factory=list)
    dbg: Optional[int] = None
    last_line: int = 0  # the closing brace
    _defs: Optional[Dict[str, Instruction]] = field(default=None, repr=False)
    _block_map: Optional[Dict[str, Block]] = field(default=None, repr=False)

    @property
    def entry(self) -> Block:
        return self.blocks[0]

    @property
    def block_map(self) -> Dict[str, Block]:
        if self._block_map is None:
            self._block_map = {b.name: b for b in self.blocks}
        return self._block_map

    @property
    def defs(self) -> Dict[str, Instruction]:
        """Result name -> defining instruction."""
        if self._defs is None:
            self._defs = {
                ins.result: ins for b in self.blocks for ins in b.instructions if ins.result
            }
        return self._defs

    def instructions(self):
        for block in self.blocks:
            yield from block.instructions


@dataclass(frozen=True)
class SourceLocation:
    path: str
    line: int
    column: int
    function: str  # the source-level name of the enclosing subprogram
    inlined_at: Optional[int]  # metadata id of the inlinedAt location


@dataclass(eq=False)
class Module:
    text: str
    lines: List[str]
    functions: Dict[str, Function]
    declarations: Dict[str, str]  # name -> declare line
    triple: str
    metadata: Dict[int, str]
    _locations: Dict[int, Optional[SourceLocation]] = field(default_factory=dict, repr=False)

    def location(self, dbg: Optional[int]) -> Optional[SourceLocation]:
        """Resolve a ``!DILocation`` id into a file, line, column and function."""
        if dbg is None:
            return None
        if dbg in self._locations:
            return self._locations[dbg]
        loc = None
        node = self.metadata.get(dbg, "")
        if node.startswith("!DILocation("):
            fields = _fields(node)
            scope = _meta_id(fields.get("scope"))
            path, function = self._scope_file(scope)
            loc = SourceLocation(
                path=path,
                line=_number(fields.get("line")),
                column=_number(fields.get("column")),
                function=function,
                inlined_at=_meta_id(fields.get("inlinedAt")),
            )
        self._locations[dbg] = loc
        return loc

    def location_chain(self, dbg: Optional[int]) -> List[SourceLocation]:
        """The location and its inlinedAt callers, innermost first."""
        chain: List[SourceLocation] = []
        seen = set()
        while dbg is not None and dbg not in seen:
            seen.add(dbg)
            loc = self.location(dbg)
            if loc is None:
                break
            chain.append(loc)
            dbg = loc.inlined_at
        return chain

    def subprogram_location(self, dbg: Optional[int]) -> Optional[Tuple[str, int, str]]:
        node = self.metadata.get(dbg, "") if dbg is not None else ""
        if "DISubprogram(" not in node:
            return None
        fields = _fields(node)
        path = self._file_path(_meta_id(fields.get("file")))
        return path, _number(fields.get("line")), _unstring(fields.get("name", ""))

    def _scope_file(self, scope: Optional[int]) -> Tuple[str, str]:
        path, function = "", ""
        seen = set()
        while scope is not None and scope not in seen:
            seen.add(scope)
            node = self.metadata.get(scope, "")
            fields = _fields(node)
            if not path and "file" in fields:
                path = self._file_path(_meta_id(fields.get("file")))
            if "DISubprogram(" in node:
                function = _unstring(fields.get("name", ""))
                break
            if "DIFile(" in node:
                path = path or self._file_path(scope)
                break
            scope = _meta_id(fields.get("scope"))
        return path, function

    def _file_path(self, file_id: Optional[int]) -> str:
        node = self.metadata.get(file_id, "") if file_id is not None else ""
        if "DIFile(" not in node:
            return ""
        fields = _fields(node)
        filename = _unstring(fields.get("filename", ""))
        directory = _unstring(fields.get("directory", ""))
        if filename.startswith("/") or not directory:
            return filename
        return directory.rstrip("/") + "/" + filename


def _fields(node: str) -> Dict[str, str]:
    return dict(_FIELD_RE.findall(node))


def _number(value: Optional[str]) -> int:
    return int(value) if value and value.isdigit() else 0


def _meta_id(ref: Optional[str]) -> Optional[int]:
    if ref and ref.startswith("!") and ref[1:].isdigit():
        return int(ref[1:])
    return None


def _unstring(value: str) -> str:
    if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
        return value[1:-1]
    return value


def _split_params(header: str) -> Tuple[str, List[Tuple[str, Optional[str]]]]:
    """Return type and (type, name) parameters of a ``define`` line."""
    match = _DEFINE_RE.match(header)
    if not match:
        raise IRSyntaxError("cannot read function header", 0)
    before = header[: match.start(1)]
    words = before.split()
    return_type = words[-1] if words else ""
    start = match.end()
    depth, parts, current = 1, [], []
    for ch in header[start:]:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
            if depth == 0:
                break
        if ch == "," and depth == 1:
            parts.append("".join(current))
            current = []
        else:
            current.append(ch)
    if "".join(current).strip():
        parts.append("".join(current))
    params = []
    for part in parts:
        names = LOCAL_RE.findall(part)
        name = unquote(names[-1]) if names else None
        ptype = part.split("%")[0].strip() if names else part.strip()
        params.append((ptype, name))
    return return_type, params


class IRSyntaxError(ValueError):
    def __init__(self, message: str, lineno: int):
        super().__init__(message)
        self.lineno = lineno


def parse_module(text: str) -> Module:
    """Parse one module's text. Raises IRSyntaxError on text this reader cannot follow."""
    lines = text.splitlines()
    functions: Dict[str, Function] = {}
    declarations: Dict[str, str] = {}
    metadata: Dict[int, str] = {}
    triple = ""
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if line.startswith("define"):
            i = _parse_function(lines, i, functions)
            continue
        if line.startswith("!"):
            match = _META_DEF_RE.match(line)
            if match:
                metadata[int(match.group(1))] = match.group(2)
        elif line.startswith("declare"):
            match = _DECLARE_RE.match(line)
            if match:
                declarations[unquote(match.group(1))] = line
        elif line.startswith("target triple"):
            triple = line.partition("=")[2].strip().strip('"')
        i += 1
    module = Module(
        text=text,
        lines=lines,
        functions=functions,
        declarations=declarations,
        triple=triple,
        metadata=metadata,
    )
    for function in functions.values():
        function.module = module
    return module


def _parse_function(lines, i, functions) -> int:
    header_lines = [lines[i]]
    start = i
    # A define's header may span lines until the opening brace.
    while "{" not in header_lines[-1]:
        i += 1
        if i >= len(lines):
            raise IRSyntaxError("unterminated function header", start)
        header_lines.append(lines[i])
    header = " ".join(s.strip() for s in header_lines)
    match = _DEFINE_RE.match(header)
    if not match:
        raise IRSyntaxError("cannot read function header", start)
    name = unquote(match.group(1))
    return_type, params = _split_params(header)
    dbg_match = _DBG_RE.search(header[header.rfind(")") :])
    function = Function(
        name=name,
        header=header,
        lineno=start,
        module=None,  # type: ignore[arg-type]
        params=params,
        return_type=return_type,
        dbg=int(dbg_match.group(1)) if dbg_match else None,
    )
    # LLVM numbers unnamed arguments first, then an unnamed entry block.
    unnamed = sum(1 for _, pname in params if pname is None or pname.isdigit())
    block: Optional[Block] = None
    i += 1
    n = len(lines)
    while i < n:
        raw = lines[i]
        stripped = raw.strip()
        if stripped == "}":
            break
        if not stripped or stripped.startswith(";"):
            i += 1
            continue
        label = _LABEL_RE.match(stripped) if not raw[:1].isspace() else None
        if label:
            block = Block(name=unquote(label.group(1)), function=function, first_line=i)
            function.blocks.append(block)
            i += 1
            continue
        if block is None:
            block = Block(name=str(unnamed), function=function, first_line=i)
            function.blocks.append(block)
        if "@llvm.dbg." in stripped or '@"llvm.dbg.' in stripped:
            i += 1  # debug-info intrinsics carry no behaviour
            continue
        first = i
        text = _without_comment(stripped) if ";" in stripped else stripped
        if _opens_target_list(text):
            parts = [text]
            while i + 1 < n and "]" not in lines[i]:
                i += 1
                parts.append(lines[i].strip())
            text = " ".join(parts)
        block.instructions.append(_instruction(text, first, block))
        i += 1
    if i >= n:
        raise IRSyntaxError(f"function @{name} is not closed", start)
    if not function.blocks:
        raise IRSyntaxError(f"function @{name} has no body", start)
    function.last_line = i
    for blk, following in zip(function.blocks, function.blocks[1:] + [None]):
        blk.last_line = (following.first_line if following is not None else i) - 1
        term = blk.terminator
        if term is not None:
            blk.successors = _successors(term)
    functions[name] = function
    return i + 1


def _without_comment(text: str) -> str:
    """An instruction without its trailing ``; comment`` (a ``;`` inside quotes is text)."""
    quoted = False
    for index, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif ch == ";" and not quoted:
            return text[:index].rstrip()
    return text


def _opens_target_list(text: str) -> bool:
    """A ``switch``/``indirectbr`` whose ``[ ... ]`` target list continues below."""
    if "[" not in text or ("switch " not in text and "indirectbr " not in text):
        return False
    body = _ASSIGN_RE.sub(r"\2", text)
    opcode = body.split(None, 1)[0] if body else ""
    return opcode in ("switch", "indirectbr") and body.rfind("[") > body.rfind("]")


def _instruction(text: str, lineno: int, block: Block) -> Instruction:
    result = None
    body = text
    if text[0] == "%":
        match = _ASSIGN_RE.match(text)
        if match:
            result = unquote(match.group(1))
            body = match.group(2)
    space = body.find(" ")
    opcode = body[:space] if space > 0 else body
    if opcode in ("tail", "musttail", "notail"):
        words = body.split(None, 2)
        opcode = words[1] if len(words) > 1 else opcode
    dbg = None
    cut = body.find(", !")
    if cut >= 0:
        at = body.find("!dbg !", cut)
        if at >= 0:
            end = at + 6
            while end < len(body) and body[end].isdigit():
                end += 1
            dbg = int(body[at + 6 : end]) if end > at + 6 else None
        body = body[:cut]
    return Instruction(
        text=text, lineno=lineno, result=result, opcode=opcode, dbg=dbg, body=body, block=block
    )


def _successors(term: Instruction) -> List[str]:
    if term.opcode in ("br", "switch", "indirectbr", "invoke", "callbr"):
        seen: List[str] = []
        for ref in _LABEL_REF_RE.findall(term.body):
            name = unquote(ref)
            if name not in seen:
                seen.append(name)
        return seen
    return []


def parse_modules(texts: List[str]) -> List[Module]:
    return [parse_module(t) for t in texts]
