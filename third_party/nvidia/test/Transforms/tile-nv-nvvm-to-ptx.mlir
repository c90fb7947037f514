// RUN: kiln-opt %s --tile-allocate-shared-memory="target=cuda:sm_90a" --convert-tile-to-llvm="target=cuda:sm_90a" | FileCheck %s --check-prefix=BEFORE
// RUN: kiln-opt %s --tile-allocate-shared-memory="target=cuda:sm_90a" --convert-tile-to-llvm="target=cuda:sm_90a" --tile-nv-nvvm-to-ptx="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --tile-allocate-shared-memory="target=hip:gfx942" --tile-nv-nvvm-to-ptx="target=hip:gfx942" | FileCheck %s --check-prefix=AMD

// The NVIDIA backend's pass of the lowering stage: the NVVM ops the
// conversion emits that have no LLVM intrinsic (a predicated mbarrier init,
// arrive.expect_tx) become inline PTX; the wait is inline PTX from the
// conversion already (it spins inside one block) and passes through unchanged.
// On another vendor's module it does nothing.
// BEFORE: nvvm.mbarrier.init {{.*}}predicate
// BEFORE: nvvm.mbarrier.arrive.expect_tx
// BEFORE: mbarrier.try_wait.parity.shared.b64 complete
// CHECK-LABEL: llvm.func @phases
// CHECK-NOT: nvvm.mbarrier.init
// CHECK: llvm.inline_asm {{.*}}"@$2 mbarrier.init.shared.b64 [$0], $1;"
// CHECK-NOT: nvvm.mbarrier.arrive.expect_tx
// CHECK: llvm.inline_asm {{.*}}"@$2 mbarrier.arrive.expect_tx.shared.b64 _, [$0], $1;"
// CHECK: mbarrier.try_wait.parity.shared.b64 complete
// AMD: tile_nv.mbarrier_wait
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32} {
  func.func public @phases(%p: i32) {
    %bar = tile.local_alloc : () -> !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_init %bar, 1 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_expect %bar, 0 : !tile.memdesc<1xi64, #sh, mutable>
    tile_nv.mbarrier_wait %bar, %p : !tile.memdesc<1xi64, #sh, mutable>, i32
    return
  }
}
