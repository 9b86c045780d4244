#!/usr/bin/env bash
# The other ends of the supported range, each in its own virtual environment (.venvs/): the
# fixture test, @no_hostcall's tests and the examples on the oldest supported numba-cuda (with
# the numba it was released beside) and on the newest with CUDA 12's NVVM. The examples must give
# exactly what they give in .venv (the newest numba-cuda, cu13). Run by .ci/run after the suite.
#   scripts/compat.sh            install both environments, then check in each
#   scripts/compat.sh install    install only (.ci/run does it beside the set-up's own install)
#   scripts/compat.sh check      check only, in environments installed before
set -euo pipefail
cd "$(dirname "$0")/.."
step=${1:-all}

install() {  # name, extra, pins...
  local name=$1 extra=$2; shift 2
  local venv=.venvs/$name
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  # the pins say which numba-cuda this environment is for (pip would keep one already there)
  "$venv/bin/pip" install -q --disable-pip-version-check -e ".[$extra]" "$@" "pytest>=8" "pytest-xdist>=3" "hypothesis>=6.100"
}

smoke() {
  local name=$1 venv=.venvs/$1 started=$SECONDS got rc
  echo "compat[$name]: $("$venv/bin/python" -m kernlint --version | sed -n '2p;3p' | paste -sd ';' -)"
  "$venv/bin/python" -m pytest -q -p no:cacheprovider -n auto --dist loadfile tests/test_fixtures.py tests/test_decorator.py
  got=$("$venv/bin/kernlint" check --no-cache examples/ 2>&1) && rc=0 || rc=$?
  if [ "$got" != "$expected" ] || [ "$rc" != "$status" ]; then
    echo "compat[$name]: examples differ from .venv's (exit $rc, expected $status):" >&2
    diff <(echo "$expected") <(echo "$got") >&2 || true
    exit 1
  fi
  echo "compat[$name]: examples as in .venv ($((SECONDS - started)) s)"
}

if [ "$step" != check ]; then
  # Downloads overlap; the smoke runs, which use both cores, do not.
  install oldest cu12 "numba-cuda==0.20.1" "numba==0.62.1" & oldest=$!
  install cu12 cu12 & cu12=$!
  wait $oldest
  wait $cu12
fi
[ "$step" != install ] || exit 0
[ -x .venv/bin/kernlint ] || { echo "compat: run scripts/setup.sh test first" >&2; exit 2; }
expected=$(.venv/bin/kernlint check --no-cache examples/ 2>&1) && status=0 || status=$?
smoke oldest
smoke cu12
