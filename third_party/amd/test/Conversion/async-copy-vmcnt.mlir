// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx942" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx942" | kiln-translate --target=hip:gfx942 --emit=amdgcn - | FileCheck %s --check-prefix=ASM

// wait_group(1) after a 1-instruction group and a 4-instruction group: the
// awaited first group is done once at most 4 copy instructions are in
// flight, so s_waitcnt vmcnt(4) (0x0F74 = 3956: expcnt and lgkmcnt left at
// their maxima), then vmcnt(0) for wait_group(0).
// CHECK-LABEL: llvm.func @two_groups
// CHECK-COUNT-5: rocdl.global.load.lds
// CHECK: rocdl.s.waitcnt 3956
// CHECK: rocdl.s.waitcnt 3952
// In the final assembly LLVM still puts vmcnt(0) before the first ds_read:
// without alias scopes it cannot tell the LDS reads from the in-flight
// direct-to-LDS writes, and its conservative wait absorbs Kiln's vmcnt(4).
// Issue 10's alias annotation (tile-annotate-local-load-alias) is what
// removes it; this line then becomes vmcnt(4).
// ASM-LABEL: two_groups:
// ASM-COUNT-5: global_load_lds_dword
// ASM-NEXT: s_waitcnt vmcnt(0)
// ASM-NEXT: ds_read
#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @two_groups(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r1 = tile.arange 0, 256 : tensor<256xi32, #l>
    %s1 = tile.splat %x : tensor<256x!tile.ptr<f32>, #l>
    %p1 = tile.addptr %s1, %r1 : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    %r4 = tile.arange 0, 1024 : tensor<1024xi32, #l>
    %s4 = tile.splat %x : tensor<1024x!tile.ptr<f32>, #l>
    %p4 = tile.addptr %s4, %r4 : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
    %a = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %b = tile.local_alloc : () -> !tile.memdesc<1024xf32, #sh, mutable>
    %c0 = tile.async_copy_global_to_local %p1, %a : tensor<256x!tile.ptr<f32>, #l> -> !tile.memdesc<256xf32, #sh, mutable>
    %g0 = tile.async_commit_group tokens %c0
    %c1 = tile.async_copy_global_to_local %p4, %b : tensor<1024x!tile.ptr<f32>, #l> -> !tile.memdesc<1024xf32, #sh, mutable>
    %g1 = tile.async_commit_group tokens %c1
    %w = tile.async_wait {num = 1 : i32}
    %v = tile.local_load %a : !tile.memdesc<256xf32, #sh, mutable> -> tensor<256xf32, #l>
    %w0 = tile.async_wait {num = 0 : i32}
    %u = tile.local_load %b : !tile.memdesc<1024xf32, #sh, mutable> -> tensor<1024xf32, #l>
    %ys = tile.splat %y : tensor<256x!tile.ptr<f32>, #l>
    %q = tile.addptr %ys, %r1 : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    tile.store %q, %v : tensor<256x!tile.ptr<f32>, #l>
    %ys4 = tile.splat %y : tensor<1024x!tile.ptr<f32>, #l>
    %q4 = tile.addptr %ys4, %r4 : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
    tile.store %q4, %u : tensor<1024x!tile.ptr<f32>, #l>
    return
  }
}
