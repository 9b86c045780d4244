#!/usr/bin/env bash
# Set up kernlint on a fresh Debian machine: ROCm's hipcc from Debian's packages (for HIP
# sources), then a virtual environment with kernlint and the NVVM that matches the driver:
# kernlint[cu12] where nvidia-smi reports a CUDA 12 driver, kernlint[cu13] otherwise (with no
# GPU either works: checking compiles to IR, never runs). KERNLINT_CUDA=12 or 13 decides instead.
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

cuda="${KERNLINT_CUDA:-}"
if [ -z "$cuda" ] && command -v nvidia-smi >/dev/null 2>&1; then
  cuda=$(nvidia-smi 2>/dev/null | sed -n 's/.*CUDA Version: *\([0-9]*\).*/\1/p' | head -n 1)
fi
case "$cuda" in
  12) extra=cu12 ;;
  13|"") extra=cu13 ;;
  *) echo "setup: CUDA $cuda driver: kernlint supports CUDA 12 and 13 (KERNLINT_CUDA=12 or 13 to choose)" >&2
     extra=cu13 ;;
esac
echo "setup: kernlint[$extra]"

[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
if [ "${1:-}" = "test" ]; then
  .venv/bin/pip install -q -e ".[$extra,test]"
else
  .venv/bin/pip install -q ".[$extra]"
fi
