# -*- Python -*-
"""Lit configuration of Kiln's test suite."""

import os
import shutil

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

# One configuration serves the core suite (test/) and each backend's suite
# (third_party/<vendor>/test); the site config says which.
config.name = config.kiln_suite_name
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)

# Only .mlir files are lit tests. test/gpu needs a GPU and test/Python is
# pytest's; both run outside lit.
config.suffixes = [".mlir", ".ll"]
config.excludes = ["gpu", "Python", "Inputs", "lit.cfg.py", "CMakeLists.txt"]

config.test_source_root = config.kiln_test_source_root
config.test_exec_root = config.kiln_test_exec_root

config.substitutions.append(("%PATH%", config.environment["PATH"]))
llvm_config.with_system_environment(["HOME", "TMP", "TEMP", "CUDA_HOME"])
llvm_config.use_default_substitutions()

# Kiln's tools first, then LLVM 22's, so a stray FileCheck on PATH is not used.
llvm_config.with_environment(
    "PATH", [config.kiln_tools_dir, config.llvm_tools_dir], append_path=True
)

# One feature per vendor backend built (KILN_BACKENDS): `REQUIRES: nvidia`.
for backend in config.kiln_backends:
    if backend:
        config.available_features.add(backend)

# ptxas: $KILN_PTXAS, then PATH, then the CUDA default; the same order
# kiln-translate uses. Exporting the choice keeps both in agreement.
ptxas = os.environ.get("KILN_PTXAS") or shutil.which("ptxas")
if not ptxas and os.access("/usr/local/cuda/bin/ptxas", os.X_OK):
    ptxas = "/usr/local/cuda/bin/ptxas"
if ptxas:
    config.available_features.add("ptxas")
    config.environment["KILN_PTXAS"] = ptxas
    config.substitutions.append(("%ptxas", ptxas))
# libdevice: $KILN_LIBDEVICE, else the CUDA toolkit's beside ptxas or under /usr/local/cuda
# (the order the NVIDIA backend searches).
libdevice = os.environ.get("KILN_LIBDEVICE")
for root in ([os.environ["CUDA_HOME"]] if os.environ.get("CUDA_HOME") else []) + (
        [os.path.dirname(os.path.dirname(os.path.realpath(ptxas)))] if ptxas else []) + [
        "/usr/local/cuda"]:
    candidate = os.path.join(root, "nvvm", "libdevice", "libdevice.10.bc")
    if not libdevice and os.path.exists(candidate):
        libdevice = candidate
if libdevice:
    config.available_features.add("libdevice")
    config.environment["KILN_LIBDEVICE"] = libdevice
# rocm-device-libs: the ROCm device libraries' bitcode (ocml.bc), found as the AMD backend
# finds it ($KILN_ROCM_DEVICE_LIBS, $ROCM_PATH, /opt/rocm, the distribution's paths).
rocm_libs = os.environ.get("KILN_ROCM_DEVICE_LIBS")
if not rocm_libs:
    for root in ([os.environ["ROCM_PATH"]] if os.environ.get("ROCM_PATH") else []) + [
            "/opt/rocm", "/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib"]:
        candidate = os.path.join(root, "amdgcn", "bitcode")
        if os.path.exists(os.path.join(candidate, "ocml.bc")):
            rocm_libs = candidate
            break
if rocm_libs and os.path.exists(os.path.join(rocm_libs, "ocml.bc")):
    config.available_features.add("rocm-device-libs")
    config.environment["KILN_ROCM_DEVICE_LIBS"] = rocm_libs
if "KILN_LLD" in os.environ:
    config.environment["KILN_LLD"] = os.environ["KILN_LLD"]

# %python runs Debian's interpreter with the checkout's python/ folder (the
# `kiln` package and its extensions) importable.
python_dir = os.path.join(config.kiln_src_root, "python")
config.environment["PYTHONPATH"] = python_dir
config.substitutions.append(("%python", config.python_executable))

tool_dirs = [config.kiln_tools_dir, config.llvm_tools_dir]
tools = [
    ToolSubst("kiln-opt", unresolved="ignore"),
    ToolSubst("kiln-translate", unresolved="ignore"),
    ToolSubst("kiln-llvm-passes", unresolved="ignore"),
    "lli",
    "llvm-readobj",
    "llvm-objdump",
]
llvm_config.add_tool_substitutions(tools, tool_dirs)
