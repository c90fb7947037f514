#!/usr/bin/env bash
# Builds kiln._runtime (python/src/runtime.cc) standalone with g++, next to the
# Python package: python/kiln/_runtime<EXT_SUFFIX>. Needs no LLVM/MLIR, CUDA or
# ROCm (the driver is opened with dlopen at run time), so it works on the lent
# GPU machine and while the full CMake tree does not configure.
#
# Usage (from anywhere):   [PYTHON=python3.12] [CXX=g++] bash scripts/build-runtime.sh
# PYTHON picks the interpreter whose headers/ABI the module is built for
# (default python3); pybind11 comes from that interpreter's pybind11 package,
# else from /usr/include/pybind11.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
CXX=${CXX:-g++}

if ! INCLUDES=$("$PYTHON" -m pybind11 --includes 2>/dev/null); then
  INCLUDES="-I/usr/include/pybind11 -I$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["include"])')"
fi
# sysconfig rather than python3-config: venvs often lack a *-config script.
SUFFIX=$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
OUT=python/kiln/_runtime$SUFFIX

# Build to a temp name and rename, so a running interpreter never sees a
# half-written module.
# shellcheck disable=SC2086  # INCLUDES is a list of flags
"$CXX" -O2 -shared -fPIC -std=c++17 -fvisibility=hidden $INCLUDES \
  -Ipython/src python/src/runtime.cc third_party/nvidia/runtime/CudaDriver.cpp \
  third_party/amd/runtime/HipDriver.cpp -o "$OUT.tmp" -ldl
mv -f "$OUT.tmp" "$OUT"
echo "built $OUT"
