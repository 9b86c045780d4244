"""The command line: ``kernlint check``, ``rewrite``, ``record``, ``rule`` and ``clean``.

Exit codes: 0 clean, 1 findings, 2 kernlint itself could not do its job, 130 interrupted.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from typing import List, Optional

from . import __version__, rules
from .report import FORMATS

def _paragraphs(*texts: str) -> str:
    """Plain text for --help, wrapped as argparse wraps the rest (its raw formatter keeps the breaks)."""
    import textwrap

    return "\n\n".join(textwrap.fill(text, 79) for text in texts)


DESCRIPTION = _paragraphs("Find the code paths that make GPU kernels slow (hostcalls, allocations, checked "
                          "float-to-int conversions) in numba.cuda, HIP and LLVM IR files, without running them.")
EPILOG = _paragraphs(
    "Exit status: 0 nothing found, 1 findings, 2 kernlint could not do its job, 130 interrupted.",
    "The worker daemon: the first check that compiles leaves a background process that keeps numba-cuda "
    "loaded (220 MB resident here after one file), so that the next checks start at once. It ends after 5 idle minutes or with "
    "`kernlint clean`; it does not start when CI is set, with KERNLINT_WORKERS=0, or with `workers = false` "
    "in [tool.kernlint].")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse's own exit code is 2 too; keep the text short
        self.print_usage(sys.stderr)
        self.exit(2, f"kernlint: error: {message}\n")


def _codes(text: str) -> List[str]:
    codes = [c.strip().upper() for c in text.split(",") if c.strip()]
    for code in codes:
        if not any(known.startswith(code) for known in rules.BY_CODE):
            raise argparse.ArgumentTypeError(f"unknown rule code or prefix: {code}")
    return codes


def _positive(text: str) -> float:
    value = float(text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--arch", default=None, help="CUDA target architecture (default sm_90)")
    parser.add_argument("--offload-arch", default=None, help="AMDGPU target for HIP files (default gfx90a)")
    parser.add_argument("--target", choices=("auto", "cuda", "rocm"), default=None,
                        help="which sources: numba.cuda Python, HIP and IR files, or both (default auto)")
    parser.add_argument("--timeout", type=_positive, default=None,
                        help="a guard against hangs: seconds allowed to read (or import) a file, or for "
                             "one numba-cuda compiler pass of a kernel, more for large kernels (default 60)")
    parser.add_argument("--jobs", type=int, default=None, help="files compiled in parallel")
    parser.add_argument("--config", default=None,
                        help="pyproject.toml or setup.cfg to read (default: the nearest one)")
    parser.add_argument("--import-modules", action="store_true", default=None,
                        help="import each Python file whole, running its top level (default: read it, "
                             "run nothing; see README)")
    parser.add_argument("--debug", action="store_true", help="show tracebacks of internal errors")
    found = parser.add_argument_group("file discovery (as ruff's)")
    found.add_argument("--exclude", type=_patterns, default=None, metavar="PATTERNS",
                       help="comma-separated globs to leave out, instead of the configured or default list")
    found.add_argument("--extend-exclude", type=_patterns, default=None, metavar="PATTERNS",
                       help="globs to leave out besides those")
    found.add_argument("--respect-gitignore", dest="respect_gitignore", action="store_true", default=None,
                       help="leave out what git ignores (the default)")
    found.add_argument("--no-respect-gitignore", dest="respect_gitignore", action="store_false",
                       help="check files git ignores too")
    found.add_argument("--force-exclude", action="store_true", default=None,
                       help="apply the excludes to files named on the command line too (for pre-commit)")


def _patterns(text: str) -> List[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


class _Version(argparse.Action):
    """``kernlint --version``: the first line as tools parse it, then the stack a kernel is
    compiled with (numba-cuda and NVVM are only imported here, after the arguments are read)."""

    def __call__(self, parser, namespace, values, option_string=None):
        import platform
        from importlib import metadata

        from .compile.toolchain import find_nvvm

        def version(package: str) -> str:
            try:
                return metadata.version(package)
            except metadata.PackageNotFoundError:
                return "not installed"

        print(f"kernlint {__version__}")
        print(f"numba-cuda {version('numba-cuda')} (numba {version('numba')}, llvmlite {version('llvmlite')})")
        print(find_nvvm().describe())
        print(f"Python {platform.python_version()} on {platform.system()} {platform.machine()}")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="kernlint", description=DESCRIPTION, epilog=EPILOG,
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="kernlint's, numba-cuda's and NVVM's versions (what a bug report needs)")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    check = sub.add_parser("check", help="report findings in kernels (exit 1 if any)", epilog=EPILOG,
                           formatter_class=argparse.RawDescriptionHelpFormatter)
    check.add_argument("paths", nargs="*", metavar="PATH",
                       help="files or directories (default: the current directory); - reads one file from "
                            "standard input (with --stdin-filename)")
    check.add_argument("--stdin-filename", metavar="PATH", default=None,
                       help="the file standard input stands for: findings are reported at it, and its "
                            "configuration, suppressions and kind (.py, .hip, .ll, .bc) apply")
    check.add_argument("--output-format", choices=sorted(FORMATS), default="text")
    check.add_argument("--statistics", action="store_true",
                       help="time spent compiling (numba) and analysing (kernlint), per kernel")
    check.add_argument("--show-signatures", action="store_true",
                       help="list each kernel with the signatures it was checked with and where they came "
                            "from, and the values it was compiled with stand-ins for")
    _common(check)
    check.add_argument("--select", type=_codes, default=None, help="only these codes (e.g. KL1,KL301)")
    check.add_argument("--ignore", type=_codes, default=None, help="leave out these codes")
    check.add_argument("--preview", dest="preview", action="store_true", default=None,
                       help="also run the rules still in preview (`kernlint rule --all` lists them)")
    check.add_argument("--no-preview", dest="preview", action="store_false", help="only stable rules (the default)")
    check.add_argument("--no-cache", action="store_true", help="re-check every file (.kernlint_cache/)")
    check.add_argument("--fix", action="store_true", default=None,
                       help="apply the safe source fixes (each verified by compiling and checking again)")
    check.add_argument("--unsafe-fixes", action="store_true", default=None,
                       help="also apply the unsafe ones (they change behaviour outside the safe range)")
    check.add_argument("--diff", action="store_true",
                       help="print the fixes as a unified diff and write nothing (exit 1 if any)")
    check.add_argument("--resources", action="store_true",
                       help="each kernel finding's cost (KL101, KL2xx, KL3xx, KL4xx): registers and stack "
                            "as it is and without its error path, from the backends (compiles again: no cache)")

    rewrite = sub.add_parser("rewrite", help="rewrite checked conversions (KL101) into unchecked forms")
    rewrite.add_argument("paths", nargs="+", metavar="PATH", help="files or directories")
    rewrite.add_argument("-o", "--output", metavar="OUTDIR", help="where to write the IR and PTX")
    rewrite.add_argument("--mode", choices=("unchecked", "saturate"), default=None,
                         help="unchecked (default): fptosi, + freeze off NVPTX; saturate: clamp, NaN -> 0")
    rewrite.add_argument("--diff", action="store_true", help="print a unified diff of the IR instead")
    _common(rewrite)

    record = sub.add_parser(
        "record", help="run a program or test suite and record every kernel launch's signature",
        description="Runs COMMAND (for example `python -m pytest tests`) with numba.cuda launches observed "
                    "(under numba's CUDA simulator where there is no GPU) and merges the argument types of each "
                    "launched kernel into the signatures file that `kernlint check` reads.")
    record.add_argument("program", nargs=argparse.REMAINDER, metavar="-- COMMAND...")
    record.add_argument("-o", "--output", default=None,
                        help="the signatures file (default: kernlint-signatures.toml beside the configuration)")
    mode = record.add_mutually_exclusive_group()
    mode.add_argument("--simulator", dest="simulator", action="store_true", default=None,
                      help="run under numba's CUDA simulator (default where no CUDA driver is found)")
    mode.add_argument("--gpu", dest="simulator", action="store_false", help="run on the GPU")
    record.add_argument("--config", default=None, help="pyproject.toml or setup.cfg to read")

    sub.add_parser("server", help="the language server for editors (LSP over standard input and output)",
                   description="Findings and fixes in the editor as you type: speaks the Language Server "
                               "Protocol on standard input and output (needs the `server` extra: pygls).")

    rule = sub.add_parser("rule", help="print a rule's documentation")
    group = rule.add_mutually_exclusive_group(required=True)
    group.add_argument("code", nargs="?", help="e.g. KL101")
    group.add_argument("--all", action="store_true", help="list every rule")

    sub.add_parser("clean", help="end the worker daemons and remove the caches under the current directory",
                   description="Ends this user's kernlint worker daemons (and removes their files) and removes "
                               "every .kernlint_cache folder under the current directory, as `ruff clean`.")
    return parser


def _rule(args) -> int:
    if args.all:
        for module in rules.ALL:
            marks = ["fixable"] * bool(module.FIXABLE) + ["preview"] * rules.is_preview(module.CODE)
            print(f"{module.CODE}  {module.NAME:<24} {' '.join(marks)}".rstrip())
        return 0
    code = args.code.upper()
    if code not in rules.BY_CODE:
        print(f"kernlint: unknown rule {args.code!r}; `kernlint rule --all` lists them", file=sys.stderr)
        return 2
    print(rules.documentation(code))
    return 0


def _settings(args):
    """Configuration file, then the command line over it; errors exit 2 before any work."""
    from . import config as configuration
    from .engine import Options
    from .compile.numba_cuda import parse_cc
    from .python.project import FrontendSettings
    from .python.signatures.recorded import signatures_file

    missing = [p for p in args.paths if not os.path.exists(p) and p != getattr(args, "stdin_filename", None)]
    if missing:
        raise configuration.ConfigError(f"no such file or directory: {', '.join(missing)}")
    path = args.config or configuration.find(args.paths[0])
    if args.config and not os.path.isfile(args.config):
        raise configuration.ConfigError(f"no such configuration file: {args.config}")
    config = configuration.load(path)
    if not config.workers and "KERNLINT_WORKERS" not in os.environ:
        os.environ["KERNLINT_WORKERS"] = "0"  # read by every process this run starts, the daemon's check too
    arch = args.arch or config.arch
    try:
        parse_cc(arch)
    except ValueError as exc:
        raise configuration.ConfigError(str(exc)) from None
    options = Options(
        arch=arch,
        timeout=args.timeout or config.timeout,
        jobs=args.jobs,
        select=configuration.merged_codes(config.select, getattr(args, "select", None)),
        ignore=configuration.merged_codes(config.ignore, getattr(args, "ignore", None)) or [],
        preview=bool(config.preview if getattr(args, "preview", None) is None else args.preview),
        explicit_preview_rules=config.explicit_preview_rules,
        per_file_ignores=config.ignored_for,
        signatures=config.signatures,
        target=args.target or config.target,
        offload_arch=args.offload_arch or config.offload_arch,
        signatures_file=signatures_file(config.root, config.signatures_file),
        frontend=FrontendSettings(
            safe_imports=tuple(config.safe_imports),
            jit_decorators=tuple(config.jit_decorators),
            constants=dict(config.constants),
            import_modules=bool(args.import_modules or config.import_modules),
            root=config.root if config.path else None,
            debug=bool(getattr(args, "debug", False)),
        ),
        discovery=_discovery(args, config),
    )
    return config, options


def _discovery(args, config):
    """The configuration's exclude rules, with the command line's over them."""
    from dataclasses import replace

    rules_ = config.discovery_rules()
    if args.exclude is not None:
        rules_ = replace(rules_, exclude=tuple(args.exclude))
    if args.extend_exclude is not None:
        rules_ = replace(rules_, extend_exclude=tuple(rules_.extend_exclude) + tuple(args.extend_exclude))
    if args.respect_gitignore is not None:
        rules_ = replace(rules_, respect_gitignore=args.respect_gitignore)
    if args.force_exclude:
        rules_ = replace(rules_, force_exclude=True)
    return rules_


def _progress(args):
    """A one-line counter on a terminal; nothing in CI logs or machine-readable output."""
    if args.output_format != "text" or not sys.stderr.isatty() or os.environ.get("CI"):
        return None

    def show(done: int, total: int, path: str) -> None:
        from .report.text import display_path

        line = f"[{done}/{total}] {display_path(path)}"
        sys.stderr.write("\r\x1b[2K" + line[:120])
        if done == total:
            sys.stderr.write("\r\x1b[2K")
        sys.stderr.flush()

    return show


def _stdin(args) -> bool:
    """``check -``: read the buffer an editor pipes in, as the file --stdin-filename names."""
    from . import config as configuration
    from .source import use_buffer

    if "-" not in args.paths:
        if args.stdin_filename:
            raise configuration.ConfigError("--stdin-filename is given but no path is `-`")
        return False
    if args.paths != ["-"]:
        raise configuration.ConfigError("`-` (standard input) cannot be checked together with other paths")
    if not args.stdin_filename:
        raise configuration.ConfigError("reading standard input needs --stdin-filename PATH (the file it "
                                        "stands for: its kind, configuration and suppressions)")
    use_buffer(args.stdin_filename, sys.stdin.buffer.read())
    args.paths = [args.stdin_filename]
    return True


def _check(args) -> int:
    from .engine import check_paths

    if not args.paths:
        args.paths = ["."]  # as ruff: the current directory
    from_stdin = _stdin(args)
    config, options = _settings(args)
    for warning in rules.selection_warnings(options.select, options.preview, options.explicit_preview_rules):
        print(f"kernlint: warning: {warning}", file=sys.stderr)
    options.resources = args.resources
    if not args.no_cache and not from_stdin:
        options.cache_root = config.root
    report = check_paths(args.paths, options, progress=_progress(args))
    args.exit_code = exit_code(report)  # what a closed pipe still exits with
    if not report.discovered:
        from .discovery import Discovery, nothing_found

        print(nothing_found(args.paths, Discovery([], report.excluded)), file=sys.stderr)
    if args.resources:
        print(resources_note(report), file=sys.stderr)
    unsafe = bool(args.unsafe_fixes if args.unsafe_fixes is not None else config.unsafe_fixes)
    fixing = bool(args.fix if args.fix is not None else config.fix)
    if args.diff or fixing:
        if from_stdin:
            raise configuration_error("--fix and --diff edit files: they do not take standard input")
        return _fix(args, options, report, unsafe)
    reporter = FORMATS[args.output_format]
    if args.output_format == "text":
        reporter.write(report, sys.stdout, stats=args.statistics, show_signatures=args.show_signatures)
        from .report.text import inferred_note

        note = inferred_note(report)
        if note:
            print(note, file=sys.stderr)
    elif args.output_format == "sarif":
        reporter.write(report, sys.stdout, stats=args.statistics, help_uri=config.help_uri)
    else:
        reporter.write(report, sys.stdout, stats=args.statistics)
    if args.output_format != "text" and (args.statistics or args.show_signatures):
        from .report.text import signatures, statistics

        wrap = sys.stderr.isatty()
        if args.statistics:
            print("\n".join(statistics(report, wrap)), file=sys.stderr)
        if args.show_signatures:
            print("\n".join(signatures(report, wrap)), file=sys.stderr)
    return exit_code(report)


def resources_note(report) -> str:
    """What --resources did, so that a run without resource lines is not a mystery."""
    measured = sum(1 for f in report.findings if f.resources)
    return (f"--resources: {measured} finding(s) measured with the backends (registers and stack as compiled "
            f"and without the error path); host findings (KL5xx) and tool diagnostics (KL9xx) have no kernel "
            f"cost to measure; the cache was not used")


def exit_code(report) -> int:
    """0 clean, 1 findings, 2 where kernlint failed on something (a KL905 among them)."""
    return 2 if report.incomplete else 1 if report.findings else 0


def configuration_error(message: str):
    from .config import ConfigError

    return ConfigError(message)


def _fix(args, options, report, unsafe: bool) -> int:
    """--diff: show what the fixes would change; --fix: apply them, then report what is left."""
    from . import fix
    from .engine import check_paths

    outcome = fix.plan(report, args.paths, options, unsafe)
    hidden = fix.hidden(report.findings, unsafe)
    if args.diff:
        sys.stdout.write(outcome.diff())
        for line in fix.summary(outcome, hidden, 0, diff=True):
            print(line, file=sys.stderr)
        return 1 if outcome.texts else 0
    fix.write(outcome)
    remaining = check_paths(args.paths, options) if outcome.texts else report
    reporter = FORMATS[args.output_format]
    reporter.write(remaining, sys.stdout, stats=args.statistics)
    for line in fix.summary(outcome, fix.hidden(remaining.findings, unsafe), len(remaining.findings), diff=False):
        print(line, file=sys.stderr)
    return exit_code(remaining)


def _rewrite(args) -> int:
    from .report.text import display_path
    from .rewrite.command import rewrite_paths, unified_diff, write_outputs

    if not args.diff and not args.output:
        print("kernlint: error: rewrite needs -o OUTDIR (or --diff)", file=sys.stderr)
        return 2
    config, options = _settings(args)
    mode = args.mode or config.mode
    rewrites, failures = rewrite_paths(args.paths, options, mode)
    incomplete = any(f.code != "KL903" for f in failures)  # a kernel with no signature is said, not a failure
    for failure in failures:  # kernels not compiled are not rewritten: say which and why
        print(f"{display_path(failure.path)}:{failure.line}:{failure.column}: {failure.code} {failure.message}",
              file=sys.stderr)
    for rewrite in rewrites:
        where = f"{display_path(rewrite.path)}::{rewrite.kernel}({rewrite.signature})"
        if rewrite.refused:
            incomplete = True
            print(f"{where}: rewrite refused, original kept: {rewrite.refused}", file=sys.stderr)
            continue
        if rewrite.unfixable:
            incomplete = True
            print(f"{where}: {rewrite.unfixable} checked conversion(s) left as they are: their "
                  f"guards test more than the converted value", file=sys.stderr)
        if args.diff:
            sys.stdout.write(unified_diff(rewrite))
        else:
            written = write_outputs(args.output, rewrite)
            print(f"{where}: {rewrite.unguarded} conversion(s) unguarded, "
                  f"{rewrite.removed_blocks} error-path block(s) removed -> "
                  f"{', '.join(display_path(p) for p in written)}", file=sys.stderr)
    done = sum(1 for r in rewrites if not r.refused)
    skipped = sum(1 for f in failures if f.code == "KL903")
    failed = sum(1 for f in failures if f.code != "KL903")
    left = [f"{skipped} kernel(s) skipped for want of a signature" if skipped else "",
            f"{failed} file(s) or kernel(s) not compiled" if failed else ""]
    said = "; ".join(part for part in left if part)
    print(f"Rewrote {done} of {len(rewrites)} kernel(s) with checked conversions ({mode})"
          + (f"; {said} (listed above)." if said else "."), file=sys.stderr)
    if any(f.code == "KL905" for f in failures):
        return 2
    return 1 if incomplete else 0


def _record(args) -> int:
    from . import config as configuration
    from .python.signatures.recorded import signatures_file
    from .record import main as record_main

    command = list(args.program)
    if command and command[0] == "--":
        command = command[1:]
    path = args.config or configuration.find(os.getcwd())
    config = configuration.load(path)
    output = args.output or signatures_file(config.root, config.signatures_file)
    return record_main(command, output, args.simulator)


def _clean(args) -> int:
    from .clean import clean

    done = clean(os.getcwd())
    for line in done or ["Nothing to clean: no worker daemon running, no .kernlint_cache here"]:
        print(line, file=sys.stderr)
    return 0


def _quiet_broken_pipe() -> None:
    """The reader went away (`kernlint check . | head`): say nothing more, as ruff and cat do;
    point the streams at /dev/null so that Python's flush at exit does not complain either."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(devnull, stream.fileno())
        except (OSError, ValueError):
            pass
    os.close(devnull)


def main(argv: Optional[List[str]] = None) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        _quiet_broken_pipe()
        return 0


def _main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from .config import ConfigError
    from .interrupts import install, interrupted

    install()

    try:
        if args.command == "clean":
            return _clean(args)
        if args.command == "rule":
            return _rule(args)
        if args.command == "rewrite":
            return _rewrite(args)
        if args.command == "record":
            return _record(args)
        if args.command == "server":
            from .lsp import main as serve

            return serve()
        status = _check(args)
        if interrupted():  # a KeyboardInterrupt a finalizer swallowed: the run was still interrupted
            raise KeyboardInterrupt
        return status
    except ConfigError as exc:
        print(f"kernlint: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        if "kernlint.workers.worker" in sys.modules:  # its workers would compile on for nobody
            sys.modules["kernlint.workers.worker"].end_running()
        print("kernlint: interrupted", file=sys.stderr)
        return 130  # 128 + SIGINT, as shells report a program Ctrl-C ended
    except BrokenPipeError:
        _quiet_broken_pipe()
        return getattr(args, "exit_code", 0)
    except Exception as exc:  # noqa: BLE001 - exit 2 with one line, never a traceback
        if getattr(args, "debug", False):
            traceback.print_exc()
        else:
            print(f"kernlint: internal error: {type(exc).__name__}: {exc} (run with --debug for details)",
                  file=sys.stderr)
        return 2
