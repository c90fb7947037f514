// RUN: kiln-opt --help | FileCheck %s
// RUN: kiln-opt --help-hidden | FileCheck %s --check-prefix=HIDDEN

// --help leads with kiln-opt's own options, Kiln's passes and its pipeline; the code
// generators' flags LLVM registers (hundreds) are behind --help-hidden, still usable.
// CHECK: USAGE: kiln-opt [options] <input file>
// CHECK-NOT: --amdgpu-
// CHECK: --tile-check-async-safety
// CHECK: --tile-insert-wait-counts
// CHECK: Pass Pipelines:
// CHECK: --kiln-to-llvm
// CHECK-NOT: --nvptx-
// CHECK-NOT: --amdgpu-
// HIDDEN: --amdgpu-
