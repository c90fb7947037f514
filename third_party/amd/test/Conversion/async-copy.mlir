// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx942" | kiln-translate --target=hip:gfx942 --emit=amdgcn - | FileCheck %s --check-prefix=ASM
// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx950" | kiln-translate --target=hip:gfx950 --emit=amdgcn - | FileCheck %s --check-prefix=ASM
// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx942" | FileCheck %s

// An async copy of one float per lane (4 bytes: legal on gfx942 and gfx950)
// into LDS, a wait, and a read back in the same layout. Each wave computes
// its LDS base once (readfirstlane: the M0 operand), issues one
// global_load_lds_dword per register, and the wait is s_waitcnt vmcnt(0)
// with the other counters unconstrained (0x0F70); commit groups emit nothing.
// CHECK-LABEL: llvm.func @copy_wait_read
// CHECK: %[[BASE:.*]] = rocdl.readfirstlane %{{.*}} : i32
// CHECK: %[[LDS:.*]] = llvm.inttoptr %[[BASE]] : i32 to !llvm.ptr<3>
// CHECK: rocdl.global.load.lds %{{.*}}, %[[LDS]], 4, 0, 0
// CHECK-NOT: rocdl.global.load.lds
// CHECK: rocdl.s.waitcnt 3952
// ASM-LABEL: copy_wait_read:
// ASM: global_load_lds_dword v
// ASM: s_waitcnt vmcnt(0)
// ASM: ds_read_b32
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @copy_wait_read(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %s = tile.splat %x : tensor<256x!tile.ptr<f32>, #l>
    %p = tile.addptr %s, %r : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %b = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %t = tile.async_copy_global_to_local %p, %b : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    %g = tile.async_commit_group tokens %t
    %w = tile.async_wait tokens %g {num = 0 : i32}
    %v = tile.local_load %b : !tile.memdesc<256xf32, #sh, mutable> -> tensor<256xf32, #l>
    %ys = tile.splat %y : tensor<256x!tile.ptr<f32>, #l>
    %q = tile.addptr %ys, %r : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    tile.store %q, %v : tensor<256x!tile.ptr<f32>, #l>
    return
  }
}
