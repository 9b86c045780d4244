"""What a module binds is read as Python binds it: a kernel's default values where its def
statement runs (the module's globals they name are in the slice even when the body never reads
them), a list changed in place after its assignment not as that assignment alone."""
import json
import os
import subprocess
import sys
import textwrap

from conftest import ROOT


def check(tmp_path, source, target="edges.py"):
    """kernlint's findings on ``target`` in ``tmp_path``, ``source`` written there first (when given)."""
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "defaults"\n')
    if source is not None:
        (tmp_path / target).write_text(textwrap.dedent(source))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "kernlint", "check", "--no-cache", "--output-format", "json",
                          "--show-signatures", target],
                         cwd=tmp_path, capture_output=True, text=True, timeout=600, env=env)
    return [(f["code"], f["kernel"], f["message"]) for f in json.loads(run.stdout)]


def test_a_global_only_a_default_names_is_in_the_slice(tmp_path):
    found = check(tmp_path, '''
        import numpy as np
        from numba import cuda

        EDGE = 15


        @cuda.jit("void(float32[::1], int64, float32[::1])")
        def border(n, width=EDGE, alpha=np.float32([0.95, 0.5])):
            for i in range(width):
                n[i] *= alpha[0]
                print(i)
        ''')
    assert [(code, kernel) for code, kernel, _ in found] == [("KL301", "border")]


def test_a_default_naming_what_the_slice_cannot_give_names_it(tmp_path):
    found = check(tmp_path, '''
        import scipy.constants as sc
        from numba import cuda


        @cuda.jit("void(float64[::1], float64)")
        def scale(n, k=sc.k):
            n[0] *= k
        ''')
    assert [(code, kernel) for code, kernel, _ in found] == [("KL902", "scale")]
    assert "`sc` is the module `scipy.constants`, a library kernlint does not import" in found[0][2]


def test_a_list_filled_after_its_assignment_is_not_read_as_empty(tmp_path):
    """``fns = []`` then ``fns.append(...)`` in a loop: the value a kernel reads is not the
    empty list of the assignment; the KL902 says why, not "cannot type empty list"."""
    found = check(tmp_path, '''
        from numba import cuda

        SCALES = []
        for k in range(3):
            SCALES.append(k * 0.5)
        _WIDTHS = [1, 2]  # never changed: read as assigned
        WIDTHS = tuple(_WIDTHS)


        @cuda.jit("void(float64[::1])")
        def scaled(out):
            out[0] = SCALES[0]


        @cuda.jit("void(float64[::1])")
        def widths(out):
            out[0] = WIDTHS[1]
        ''')
    assert [(code, kernel) for code, kernel, _ in found] == [("KL902", "scaled")]
    assert "`SCALES` is changed in place after its assignment (`SCALES.append(...)` at line 6)" in found[0][2]


MUTATE = '''
    from numba import cuda
    import gacfg as cfg


    @cuda.jit("void(float32[::1], int32[::1])")
    def mutate(genes, config):
        i = cuda.grid(1)
        if i < config[cfg.POPULATION] * config[cfg.CHROMO]:
            genes[i] = -genes[i]
            print(i)
    '''


def _package_with_config(tmp_path):
    package = tmp_path / "evolve"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "gacfg.py").write_text("POPULATION = 0\nCHROMO = 1\n")
    return package


def test_a_bare_name_import_of_a_module_in_another_folder_stays_a_library(tmp_path):
    """Only the importer's own folder is added: `gacfg.py` inside `evolve/` is not what a
    script beside `evolve/` imports as `gacfg`."""
    _package_with_config(tmp_path)
    found = check(tmp_path, MUTATE)
    assert [(code, kernel) for code, kernel, _ in found] == [("KL902", "mutate")]


def test_a_sibling_module_imported_by_bare_name_is_read(tmp_path):
    """Modules of a package that import each other by bare name (`import gacfg as cfg`, run
    with the package folder on PYTHONPATH) read the sibling file, never take it for a library."""
    (_package_with_config(tmp_path) / "ops.py").write_text(textwrap.dedent(MUTATE))
    found = check(tmp_path, None, "evolve/ops.py")
    assert [(code, kernel) for code, kernel, _ in found] == [("KL301", "mutate")]
