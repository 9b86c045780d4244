"""Configuration: ``pyproject.toml [tool.kernlint]`` or ``setup.cfg [kernlint]``.

    [tool.kernlint]
    select = ["KL1", "KL3"]              # codes or prefixes (default: all)
    ignore = ["KL402"]
    per-file-ignores = { "tests/*" = ["KL301"] }
    target = "auto"                      # auto | cuda | rocm: which sources are checked
    arch = "sm_90"                       # numba-cuda's compute capability
    offload-arch = "gfx90a"              # HIP's --offload-arch
    mode = "unchecked"                   # kernlint rewrite: unchecked | saturate
    timeout = 60                         # seconds to read a file, or for one numba-cuda pass of a kernel
    signatures = { "kernels.py::scale" = ["void(float64[::1], float64)"] }
    safe-imports = ["scipy.special"]     # imported to type kernels, besides numba, numpy and the stdlib's math &co.
    jit-decorators = ["pkg.utils.compile_cupy"]   # the project's own wrappers around numba.cuda.jit
    constants = { "c" = 299792458.0, "kernels.py::make.factor" = 2.0 }   # values kernlint cannot read
    import-modules = false               # true: import each file whole (runs its top level)
    signatures-file = "kernlint-signatures.toml"   # what `kernlint record` writes and check reads
    fix = false                          # apply safe source fixes (as --fix)
    unsafe-fixes = false                 # and unsafe ones (as --unsafe-fixes)
    exclude = ["build", "dist", ...]     # paths left out (default: ruff's list); replaces the default
    extend-exclude = ["tests/data/*"]    # left out besides the default
    respect-gitignore = true             # leave out what git ignores
    force-exclude = false                # exclude files named on the command line too (pre-commit)
    workers = true                       # false: no background worker daemon (as KERNLINT_WORKERS=0)
    help-uri = "https://.../docs/rules.md"   # where SARIF's helpUri points (default: docs/rules.md)
    preview = false                      # also the rules still in preview (as --preview)
    explicit-preview-rules = false       # preview rules only where selected by their whole code

The command line overrides the file. Unknown keys and bad values stop kernlint with a
message naming the file and the key (exit code 2).
"""

from __future__ import annotations

import ast
import configparser
import fnmatch
import os
import re
import tomllib
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

from . import rules
from .rewrite.edit import MODES

TARGETS = ("auto", "cuda", "rocm")
KEYS = ("select", "ignore", "per-file-ignores", "target", "arch", "offload-arch", "mode", "timeout",
        "signatures", "signatures-file", "safe-imports", "jit-decorators", "constants", "import-modules", "fix",
        "unsafe-fixes", "exclude", "extend-exclude", "respect-gitignore", "force-exclude", "workers", "help-uri",
        "preview", "explicit-preview-rules")
# keys whose value is true or false
_FLAGS = ("import-modules", "fix", "unsafe-fixes", "preview", "explicit-preview-rules", "respect-gitignore",
          "force-exclude", "workers")


class ConfigError(ValueError):
    """A configuration file kernlint cannot use; the message names file and key."""


@dataclass
class Config:
    path: Optional[str] = None  # the file it came from
    root: str = field(default_factory=os.getcwd)  # paths in the file are relative to this
    select: Optional[List[str]] = None
    ignore: List[str] = field(default_factory=list)
    per_file_ignores: Dict[str, List[str]] = field(default_factory=dict)
    target: str = "auto"
    arch: str = "sm_90"
    offload_arch: str = "gfx90a"
    mode: str = "unchecked"
    timeout: float = 60.0
    signatures: Dict[str, Dict[str, List[str]]] = field(default_factory=dict)  # abs path -> kernel -> sigs
    safe_imports: List[str] = field(default_factory=list)
    jit_decorators: List[str] = field(default_factory=list)
    constants: Dict[str, Any] = field(default_factory=dict)
    import_modules: bool = False
    fix: bool = False  # kernlint check applies safe fixes (as --fix)
    unsafe_fixes: bool = False  # and unsafe ones (as --unsafe-fixes)
    preview: bool = False  # also the rules still in preview (as --preview)
    explicit_preview_rules: bool = False  # preview rules only where selected by their whole code
    signatures_file: Optional[str] = None  # default: kernlint-signatures.toml beside the configuration
    exclude: Optional[List[str]] = None  # None: discovery.DEFAULT_EXCLUDE
    extend_exclude: List[str] = field(default_factory=list)
    respect_gitignore: bool = True
    force_exclude: bool = False
    workers: bool = True  # the background worker daemon
    help_uri: Optional[str] = None  # SARIF helpUri base; None: the rules page in the repository

    def discovery_rules(self):
        from .discovery import DEFAULT_EXCLUDE, Rules

        return Rules(root=self.root, exclude=tuple(DEFAULT_EXCLUDE if self.exclude is None else self.exclude),
                     extend_exclude=tuple(self.extend_exclude), respect_gitignore=self.respect_gitignore,
                     force_exclude=self.force_exclude)

    def ignored_for(self, path: str) -> List[str]:
        relative = os.path.relpath(path, self.root)
        codes: List[str] = []
        for pattern, ignored in self.per_file_ignores.items():
            if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(os.path.basename(path), pattern):
                codes.extend(ignored)
        return codes


def find(start: str) -> Optional[str]:
    """The nearest pyproject.toml with [tool.kernlint] or setup.cfg with [kernlint]."""
    directory = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        pyproject = os.path.join(directory, "pyproject.toml")
        if os.path.isfile(pyproject) and _has_kernlint_table(pyproject):
            return pyproject
        setup_cfg = os.path.join(directory, "setup.cfg")
        if os.path.isfile(setup_cfg) and _has_kernlint_section(setup_cfg):
            return setup_cfg
        parent = os.path.dirname(directory)
        if parent == directory:
            return None
        directory = parent


def _has_kernlint_table(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return "kernlint" in tomllib.load(handle).get("tool", {})
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None


def _has_kernlint_section(path: str) -> bool:
    parser = configparser.ConfigParser()
    try:
        parser.read(path)
    except configparser.Error as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    return parser.has_section("kernlint")


def load(path: Optional[str]) -> Config:
    if path is None:
        return Config()
    if path.endswith(".toml"):
        with open(path, "rb") as handle:
            try:
                table = tomllib.load(handle).get("tool", {}).get("kernlint", {})
            except tomllib.TOMLDecodeError as exc:
                raise ConfigError(f"{path}: cannot read: {exc}") from None
        where = "[tool.kernlint]"
    else:
        parser = configparser.ConfigParser()
        parser.read(path)
        table = {key: _ini_value(key, value) for key, value in parser.items("kernlint")}
        where = "[kernlint]"
    return validate(table, path, where)


def _ini_value(key: str, value: str) -> Any:
    """setup.cfg values: lists are comma or newline separated; tables are ``key = a, b`` lines."""
    if key in ("exclude", "extend-exclude"):
        return [v.strip() for v in re.split(r"[,\n]+", value) if v.strip()]
    if key in ("select", "ignore", "safe-imports", "jit-decorators"):
        return [v.strip() for v in re.split(r"[,\s]+", value) if v.strip()]
    if key in _FLAGS:
        lowered = value.strip().lower()
        return {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}.get(lowered, value)
    if key == "constants":
        table: Dict[str, Any] = {}
        for line in value.strip().splitlines():
            if line.strip():
                name, _, rest = line.partition("=")
                try:
                    table[name.strip()] = ast.literal_eval(rest.strip())
                except (ValueError, SyntaxError):
                    table[name.strip()] = _Unparsed(rest.strip())
        return table
    if key in ("per-file-ignores", "signatures"):
        table: Dict[str, List[str]] = {}
        for line in value.strip().splitlines():
            if not line.strip():
                continue
            name, _, rest = line.partition("=")
            separator = ";" if key == "signatures" else ","
            table[name.strip()] = [v.strip() for v in rest.split(separator) if v.strip()]
        return table
    return value.strip()


def validate(table: Dict[str, Any], path: str, where: str = "[tool.kernlint]") -> Config:
    def fail(key: str, message: str):
        raise ConfigError(f"{path}: {where} {key}: {message}")

    unknown = sorted(set(table) - set(KEYS))
    if unknown:
        raise ConfigError(f"{path}: {where} unknown key{'s' if len(unknown) > 1 else ''}: "
                          f"{', '.join(unknown)} (known: {', '.join(KEYS)})")
    config = Config(path=path, root=os.path.dirname(os.path.abspath(path)))

    def codes(key: str, value: Any) -> List[str]:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            fail(key, "expected a list of rule codes")
        result = [v.strip().upper() for v in value]
        for code in result:
            if not re.fullmatch(r"KL\d{0,3}", code) or not any(k.startswith(code) for k in rules.BY_CODE):
                fail(key, f"unknown rule code or prefix {code!r}")
        return result

    if "select" in table:
        config.select = codes("select", table["select"])
    if "ignore" in table:
        config.ignore = codes("ignore", table["ignore"])
    if "per-file-ignores" in table:
        value = table["per-file-ignores"]
        if not isinstance(value, dict):
            fail("per-file-ignores", 'expected a table of glob = [codes], e.g. { "tests/*" = ["KL301"] }')
        config.per_file_ignores = {pattern: codes(f"per-file-ignores.{pattern}", v) for pattern, v in value.items()}
    for key, choices in (("target", TARGETS), ("mode", MODES)):
        if key in table:
            if table[key] not in choices:
                fail(key, f"expected one of {', '.join(choices)}, got {table[key]!r}")
            setattr(config, key, table[key])
    if "arch" in table:
        from .compile.numba_cuda import parse_cc

        try:
            parse_cc(str(table["arch"]))
        except ValueError as exc:
            fail("arch", str(exc))
        config.arch = str(table["arch"])
    if "offload-arch" in table:
        if not re.fullmatch(r"gfx[0-9a-f]+(:[a-z+-:]+)?", str(table["offload-arch"])):
            fail("offload-arch", f"expected an AMDGPU target such as gfx90a, got {table['offload-arch']!r}")
        config.offload_arch = str(table["offload-arch"])
    if "timeout" in table:
        try:
            config.timeout = float(table["timeout"])
        except (TypeError, ValueError):
            fail("timeout", f"expected seconds, got {table['timeout']!r}")
        if config.timeout <= 0:
            fail("timeout", "must be positive")
    if "signatures" in table:
        value = table["signatures"]
        if not isinstance(value, dict):
            fail("signatures", 'expected a table of "path.py::kernel" = ["void(...)", ...]')
        for name, sigs in value.items():
            if "::" not in name:
                fail("signatures", f"{name!r}: expected path.py::kernel")
            if isinstance(sigs, str):
                sigs = [sigs]
            if not isinstance(sigs, list) or not all(isinstance(s, str) for s in sigs):
                fail(f"signatures.{name}", "expected a list of signature strings")
            file_part, kernel = name.rsplit("::", 1)
            absolute = os.path.abspath(os.path.join(config.root, file_part))
            config.signatures.setdefault(absolute, {}).setdefault(kernel, []).extend(sigs)
    for key in ("safe-imports", "jit-decorators"):
        if key in table:
            value = table[key]
            if not isinstance(value, list) or not all(isinstance(v, str) and _DOTTED.fullmatch(v) for v in value):
                fail(key, "expected a list of dotted names, e.g. [\"scipy.special\"]")
            setattr(config, key.replace("-", "_"), list(value))
    if "constants" in table:
        value = table["constants"]
        if not isinstance(value, dict):
            fail("constants", 'expected a table of "NAME" (or "path.py::NAME") = value')
        for name, constant in value.items():
            if isinstance(constant, _Unparsed) or not _is_plain(constant):
                fail(f"constants.{name}", "expected a number, string, boolean or a list of them")
        config.constants = dict(value)
    if "signatures-file" in table:
        if not isinstance(table["signatures-file"], str) or not table["signatures-file"].strip():
            fail("signatures-file", "expected a path relative to this file")
        config.signatures_file = table["signatures-file"].strip()
    for key in ("exclude", "extend-exclude"):
        if key in table:
            value = table[key]
            if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
                fail(key, 'expected a list of glob patterns, e.g. ["build", "tests/data/*"]')
            setattr(config, key.replace("-", "_"), [v.strip() for v in value])
    if "help-uri" in table:
        if not isinstance(table["help-uri"], str) or not table["help-uri"].strip():
            fail("help-uri", "expected a URL, e.g. \"https://example.org/kernlint/docs/rules.md\"")
        config.help_uri = table["help-uri"].strip()
    for key in _FLAGS:
        if key in table:
            if not isinstance(table[key], bool):
                fail(key, f"expected true or false, got {table[key]!r}")
            setattr(config, key.replace("-", "_"), table[key])
    return config


class _Unparsed(str):
    """A setup.cfg value that is not a Python literal."""


_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*")


def _is_plain(value: Any) -> bool:
    if isinstance(value, (bool, int, float, str)):
        return True
    return isinstance(value, (list, tuple)) and all(_is_plain(v) for v in value)


def merged_codes(config_value: Optional[Sequence[str]], cli_value: Optional[Sequence[str]]):
    """The command line wins where it says something."""
    return list(cli_value) if cli_value is not None else config_value
