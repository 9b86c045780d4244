#!/usr/bin/env bash
# Set up kernlint on a fresh Debian machine: ROCm's hipcc from Debian's packages (for HIP
# sources), then a virtual environment with kernlint (NVVM comes with numba-cuda[cu13]).
#   scripts/setup.sh        kernlint itself
#   scripts/setup.sh test   kernlint and its test tools
set -euo pipefail
cd "$(dirname "$0")/.."

packages="hipcc rocm-device-libs libamdhip64-dev"
missing=""
for package in $packages; do
  dpkg -s "$package" >/dev/null 2>&1 || missing="$missing $package"
done
if [ -n "$missing" ]; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  echo "setup: installing Debian packages:$missing"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $missing >/dev/null
fi

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
if [ "${1:-}" = "test" ]; then
  .venv/bin/pip install -q -e ".[test]"
else
  .venv/bin/pip install -q .
fi
