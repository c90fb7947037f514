// kiln-translate takes the target from the module's tile.target when --target is not
// given; without either it says what to pass (exit 1).
// REQUIRES: nvidia, amd
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a num-warps=1" | kiln-translate --emit=llvm | FileCheck %s --check-prefix=NV
// RUN: sed -e 's/cuda:sm_90a/hip:gfx942/; s/threads_per_warp = 32/threads_per_warp = 64/' %s | kiln-opt --kiln-to-llvm="target=hip:gfx942 num-warps=1" | kiln-translate --emit=llvm | FileCheck %s --check-prefix=AMD
// RUN: echo 'module {}' | not kiln-translate --emit=ptx 2>&1 | FileCheck %s --check-prefix=NONE
// NV: target triple = "nvptx64-nvidia-cuda"
// AMD: target triple = "amdgcn-amd-amdhsa"
// NONE: error: no --target given and the module has no tile.target attribute; pass --target=<runtime>:<chip> (known: {{.*}}cuda:sm_90a{{.*}})
module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func public @f(%a: f32) -> f32 {
    %s = arith.addf %a, %a : f32
    return %s : f32
  }
}
