"""A bare import from a script outside a package finds the project's module in a folder the
project's own code shows on ``sys.path``; a folder nothing shows there, or two folders that
hold the name, leave it a library."""
from kernlint.python.project import Project


def _write(root, files):
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _find(root, importer, dotted):
    project = Project()
    return project.find(dotted, project.module(str(root / importer)))


def test_a_folder_whose_modules_import_each_other_by_bare_name_is_on_the_path(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    _write(tmp_path, {"lib/settings.py": "POPULATION = 0\n", "lib/breed.py": "import settings\n",
                      "examples/evolve.py": "import settings\n"})
    assert _find(tmp_path, "examples/evolve.py", "settings") == str(tmp_path / "lib" / "settings.py")


def test_a_folder_no_module_of_which_imports_the_name_is_not(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    _write(tmp_path, {"lib/settings.py": "POPULATION = 0\n", "lib/breed.py": "import numpy\n",
                      "examples/evolve.py": "import settings\n"})
    assert _find(tmp_path, "examples/evolve.py", "settings") is None


def test_two_folders_holding_the_name_leave_it_a_library(tmp_path):
    """``codes/QoIs.py`` and ``codes/DNS/QoIs.py``: which one a script in ``codes/bench/`` runs
    with depends on how it is run."""
    _write(tmp_path, {"codes/QoIs.py": "A = 1\n", "codes/DNS/QoIs.py": "A = 2\n", "codes/DNS/run.py": "from QoIs import *\n",
                      "codes/bench/optm.py": "from QoIs import *\n"})
    assert _find(tmp_path / "codes", "bench/optm.py", "QoIs") is None


def test_a_script_imported_by_its_dotted_path_runs_with_the_importer_s_folder_on_the_path(tmp_path):
    (tmp_path / "pyproject.toml").write_text("")
    _write(tmp_path, {"app/main.py": "from src.automaton import run\n", "app/rule.py": "def rule(a, n): return a\n",
                      "app/src/automaton.py": "from rule import rule\n", "app/src/rows.py": "from rule import rule\n"})
    assert _find(tmp_path, "app/src/automaton.py", "rule") == str(tmp_path / "app" / "rule.py")
    # nothing there imports `src.rows`: how it is run is not shown
    assert _find(tmp_path, "app/src/rows.py", "rule") is None


def test_a_folder_without_init_inside_a_package_runs_with_the_package_s_base_on_the_path(tmp_path):
    """``app/gpu/blur.py`` (no ``__init__.py`` in ``gpu/``, one in ``app/``) is imported only as
    the namespace portion ``app.gpu.blur``, so ``settings.py`` beside ``app/`` is on the path."""
    _write(tmp_path, {"settings.py": "KSIZE = 15\n", "main.py": "from app.gpu import blur\n",
                      "app/__init__.py": "", "app/gpu/blur.py": "from settings import KSIZE\n",
                      "tools/gpu/probe.py": "from settings import KSIZE\n"})
    assert _find(tmp_path, "app/gpu/blur.py", "settings") == str(tmp_path / "settings.py")
    assert _find(tmp_path, "tools/gpu/probe.py", "settings") is None  # `tools/` is no package: nothing says so


def test_a_copy_of_the_standard_library_beside_a_project_is_not_the_project_s(tmp_path):
    """A folder beside the project (no marker above it) holding copies of standard-library
    modules that import each other by bare name (a vendored or extracted ``Lib/``) does not put
    ``datetime`` on the project's path: reading it as the project's code read the whole standard
    library (minutes, gigabytes). The script's own folder still can."""
    _write(tmp_path, {"stdlib_copy/datetime.py": "import time\n", "stdlib_copy/calendar.py": "import datetime\n",
                      "stdlib_copy/time.py": "X = 1\n", "automaton/main.py": "from datetime import datetime\n",
                      "automaton/rules.py": "import datetime\nimport rules_helper\n",
                      "helpers/rules_helper.py": "A = 1\n", "helpers/other.py": "import rules_helper\n"})
    assert _find(tmp_path, "automaton/main.py", "datetime") is None
    assert _find(tmp_path, "automaton/rules.py", "rules_helper") == str(tmp_path / "helpers" / "rules_helper.py")
    _write(tmp_path, {"automaton/datetime.py": "A = 1\n"})  # the script's own folder: Python's first place
    assert _find(tmp_path, "automaton/main.py", "datetime") == str(tmp_path / "automaton" / "datetime.py")


def test_a_module_beside_a_package_the_script_imports_from_the_top_is_the_project_s(tmp_path):
    """``results/openloop/run.py`` doing ``import sim_base`` and ``import filter.particle``, both
    at the top of a repository without packaging: the folder its users put on ``PYTHONPATH``
    holds both."""
    _write(tmp_path, {"sim_base.py": "import filter.particle\n", "filter/__init__.py": "", "filter/particle.py": "",
                      "results/openloop/run.py": "import sim_base\nimport filter.particle\n"})
    assert _find(tmp_path, "results/openloop/run.py", "sim_base") == str(tmp_path / "sim_base.py")


def test_a_module_beside_nothing_else_the_script_imports_stays_a_library(tmp_path):
    _write(tmp_path, {"sim_base.py": "", "results/openloop/run.py": "import sim_base\nimport numpy\n"})
    assert _find(tmp_path, "results/openloop/run.py", "sim_base") is None
