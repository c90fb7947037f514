// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx950" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx950" | kiln-translate --target=hip:gfx950 --emit=amdgcn - | FileCheck %s --check-prefix=ASM

// Warp-pipeline stage borders (Gluon's amd.warp_pipeline_stage): a
// scheduling barrier nothing crosses, and s_setprio where a priority is
// given (the stage's on entry, 0 after a stage that had one).
// CHECK-LABEL: llvm.func @stages
// CHECK: rocdl.sched.barrier 0
// CHECK-NEXT: rocdl.s.setprio 3
// CHECK: llvm.load
// CHECK: rocdl.sched.barrier 0
// CHECK-NEXT: rocdl.s.setprio 0
// CHECK-NEXT: rocdl.sched.barrier 0
// CHECK-NOT: rocdl.s.setprio
// CHECK: llvm.store
// CHECK: rocdl.sched.barrier 0
// CHECK-NOT: rocdl.s.setprio
// CHECK: llvm.return
// ASM-LABEL: stages:
// ASM: s_setprio 3
// ASM: s_setprio 0
// ASM: .size stages
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @stages(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %px = tile.splat %x : tensor<256x!tile.ptr<f32>, #l>
    %ax = tile.addptr %px, %r : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    tile_amd.warp_pipeline_border {priority = 3 : i32}
    %v = tile.load %ax : tensor<256x!tile.ptr<f32>, #l>
    tile_amd.warp_pipeline_border {priority = 0 : i32}
    tile_amd.warp_pipeline_border
    %py = tile.splat %y : tensor<256x!tile.ptr<f32>, #l>
    %ay = tile.addptr %py, %r : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    tile.store %ay, %v : tensor<256x!tile.ptr<f32>, #l>
    tile_amd.warp_pipeline_border
    return
  }
}
