// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx942" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx942" | kiln-translate --target=hip:gfx942 --emit=amdgcn - | FileCheck %s --check-prefix=ASM
// The control: the same LLVM IR with the alias scopes stripped.
// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx942" | sed -E 's/ \{alias_scopes = \[#alias_scope1?\](, noalias_scopes = \[#alias_scope\])?\}//' | kiln-translate --target=hip:gfx942 --emit=amdgcn - | FileCheck %s --check-prefix=NOSCOPES

// wait_group(1) after a 1-instruction group and a 4-instruction group: the
// awaited first group is done once at most 4 copy instructions are in
// flight, so s_waitcnt vmcnt(4) (0x0F74 = 3956: expcnt and lgkmcnt left at
// their maxima), then vmcnt(0) for wait_group(0).
// CHECK-LABEL: llvm.func @two_groups
// CHECK-COUNT-5: rocdl.global.load.lds %{{.*}}, %{{.*}}, 4, 0, 0 {alias_scopes = [#{{.*}}]}
// CHECK: rocdl.s.waitcnt 3956
// The first local_load reads a buffer no in-flight copy writes
// (tile.synced_via_wait, from the barrier pass's dataflow), so its LDS reads
// carry an alias scope declared not to alias the copies' scope. LLVM then
// keeps Kiln's vmcnt(4) before the ds_read; without the scopes (the control)
// its own conservative wait turns it into vmcnt(0).
// CHECK: llvm.load %{{.*}} {alias_scopes = [#{{.*}}], noalias_scopes = [#{{.*}}]} : !llvm.ptr<3> -> f32
// ASM-LABEL: two_groups:
// ASM-COUNT-5: global_load_lds_dword
// ASM-NEXT: s_waitcnt vmcnt(4)
// ASM-NEXT: ds_read_b32
// NOSCOPES-LABEL: two_groups:
// NOSCOPES-COUNT-5: global_load_lds_dword
// NOSCOPES-NEXT: s_waitcnt vmcnt(0)
// NOSCOPES-NEXT: ds_read_b32
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
    %ys = tile.splat %y : tensor<256x!tile.ptr<f32>, #l>
    %q = tile.addptr %ys, %r1 : tensor<256x!tile.ptr<f32>, #l>, tensor<256xi32, #l>
    tile.store %q, %v : tensor<256x!tile.ptr<f32>, #l>
    %w0 = tile.async_wait {num = 0 : i32}
    %u = tile.local_load %b : !tile.memdesc<1024xf32, #sh, mutable> -> tensor<1024xf32, #l>
    %ys4 = tile.splat %y : tensor<1024x!tile.ptr<f32>, #l>
    %q4 = tile.addptr %ys4, %r4 : tensor<1024x!tile.ptr<f32>, #l>, tensor<1024xi32, #l>
    tile.store %q4, %u : tensor<1024x!tile.ptr<f32>, #l>
    return
  }
}
