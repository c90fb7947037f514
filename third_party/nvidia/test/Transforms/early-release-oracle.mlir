// RUN: kiln-opt %s --tile-insert-wait-counts --tile-check-async-safety --verify-diagnostics
// RUN: kiln-opt %s --tile-insert-wait-counts --test-barrier-oracle -o /dev/null --mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=ORACLE

// tile-check-async-safety's early-release rule judged by the independent
// barrier oracle (every execution and warp schedule, the hardware's mbarrier
// phases; an asynchronous read counted at its issue and at the wait that
// retires it). A consumer releases a ring slot (its "empty" barrier, which
// the loader waits on before it refills the slot) while its asynchronous
// wgmma of the slot is in flight: the check refuses it at the arrival and the
// oracle sees the refill land under the read. Released after the wgmma's
// wait, or (one wgmma left in flight) the previous step's slot from the
// second step on, both accept and the oracle sees no race; the same with the
// loader's refill under an `if` after its wait (the wait before the `if`
// guards it). Released early, the oracle also sees a slow warp hang at its
// wait (the loader, let go too soon, completes the slot's barrier a second
// time before that warp polls it). Without the predicate on the
// previous slot's release, the first
// step would release a slot never filled, and the oracle sees the loader
// refill the other slot under its read: a mistake of another kind, which the
// check does not see.

#nv = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
#nvt = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = true>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#acc = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
!desc = !tile.tensordesc<tensor<64x64xbf16, #nv>>
!ring = !tile.memdesc<2x64x64xbf16, #nv, mutable>
!slot = !tile.memdesc<64x64xbf16, #nv, mutable, 2x64x64>
!slotT = !tile.memdesc<64x64xbf16, #nvt, mutable, 2x64x64>
!bars = !tile.memdesc<2x1xi64, #sh, mutable>
!bar = !tile.memdesc<1xi64, #sh, mutable, 2x1>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 32 : i32, tile.target = "cuda:sm_90a"} {
  // The wgmma waited for, then its slot released.
  // ORACLE-NOT: witnessed
  // ORACLE: :[[#@LINE+1]]:3: remark: barrier oracle: {{[0-9]+}} executions
  func.func @ok_release_after_the_wgmma_wait(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %a = tile.local_alloc : () -> !ring
    %b = tile.local_alloc : () -> !ring
    %ready = tile.local_alloc : () -> !bars
    %empty = tile.local_alloc : () -> !bars
    %r0 = tile.memdesc_index %ready[%c0] : !bars -> !bar
    %r1 = tile.memdesc_index %ready[%c1] : !bars -> !bar
    %e0 = tile.memdesc_index %empty[%c0] : !bars -> !bar
    %e1 = tile.memdesc_index %empty[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %r0, 1 : !bar
    tile_nv.mbarrier_init %r1, 1 : !bar
    tile_nv.mbarrier_init %e0, 1 : !bar
    tile_nv.mbarrier_init %e1, 1 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %z) -> (tensor<64x64xf32, #acc>) : i32 {
        %s = arith.remsi %i, %c2 : i32
        %ph = arith.divsi %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        %as = tile.memdesc_index %a[%s] : !ring -> !slot
        %bs = tile.memdesc_index %b[%s] : !ring -> !slot
        %bt = tile.memdesc_permute %bs {order = array<i32: 1, 0>} : !slot -> !slotT
        tile_nv.mbarrier_wait %r, %p : !bar, i32
        %dot = tile_nv.warpgroup_dot %as, %bt, %c {isAsync} : !slot, !slotT -> tensor<64x64xf32, #acc>
        %w = tile_nv.warpgroup_dot_wait %dot {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
        tile_nv.mbarrier_arrive %e, 1 : !bar
        scf.yield %w : tensor<64x64xf32, #acc>
      }
      %fin = tile_nv.warpgroup_dot_wait %acc {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      tile.warp_yield
    } partitions {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %s = arith.remsi %i, %c2 : i32
        %ph = arith.divsi %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %q = arith.xori %p, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        %as = tile.memdesc_index %a[%s] : !ring -> !slot
        %bs = tile.memdesc_index %b[%s] : !ring -> !slot
        tile_nv.mbarrier_wait %e, %q : !bar, i32
        tile_nv.mbarrier_expect %r, 16384 : !bar
        tile_nv.async_tma_copy_global_to_local %d[%i, %c0], %r, %as : !desc, !bar, !slot
        tile_nv.async_tma_copy_global_to_local %d[%c0, %i], %r, %bs : !desc, !bar, !slot
      }
      tile.warp_yield
    }
    return
  }

  // One wgmma left in flight (this step's); the previous step's slot,
  // (i + 1) % 2 of a ring of 2, released from the second step on: not the
  // slot being read.
  // ORACLE-NOT: witnessed
  // ORACLE: :[[#@LINE+1]]:3: remark: barrier oracle: {{[0-9]+}} executions
  func.func @ok_release_of_the_previous_slot(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %a = tile.local_alloc : () -> !ring
    %b = tile.local_alloc : () -> !ring
    %ready = tile.local_alloc : () -> !bars
    %empty = tile.local_alloc : () -> !bars
    %r0 = tile.memdesc_index %ready[%c0] : !bars -> !bar
    %r1 = tile.memdesc_index %ready[%c1] : !bars -> !bar
    %e0 = tile.memdesc_index %empty[%c0] : !bars -> !bar
    %e1 = tile.memdesc_index %empty[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %r0, 1 : !bar
    tile_nv.mbarrier_init %r1, 1 : !bar
    tile_nv.mbarrier_init %e0, 1 : !bar
    tile_nv.mbarrier_init %e1, 1 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %z) -> (tensor<64x64xf32, #acc>) : i32 {
        %s = arith.remsi %i, %c2 : i32
        %ph = arith.divsi %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        %as = tile.memdesc_index %a[%s] : !ring -> !slot
        %bs = tile.memdesc_index %b[%s] : !ring -> !slot
        %bt = tile.memdesc_permute %bs {order = array<i32: 1, 0>} : !slot -> !slotT
        tile_nv.mbarrier_wait %r, %p : !bar, i32
        %dot = tile_nv.warpgroup_dot %as, %bt, %c {isAsync} : !slot, !slotT -> tensor<64x64xf32, #acc>
        %w = tile_nv.warpgroup_dot_wait %dot {pendings = 1 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
        %prev = arith.addi %i, %c1 : i32
        %ps = arith.remsi %prev, %c2 : i32
        %pe = tile.memdesc_index %empty[%ps] : !bars -> !bar
        %pos = arith.cmpi sgt, %i, %c0 : i32
        tile_nv.mbarrier_arrive %pe, 1, %pos : !bar
        scf.yield %w : tensor<64x64xf32, #acc>
      }
      %fin = tile_nv.warpgroup_dot_wait %acc {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      tile.warp_yield
    } partitions {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %s = arith.remsi %i, %c2 : i32
        %ph = arith.divsi %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %q = arith.xori %p, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        %as = tile.memdesc_index %a[%s] : !ring -> !slot
        %bs = tile.memdesc_index %b[%s] : !ring -> !slot
        tile_nv.mbarrier_wait %e, %q : !bar, i32
        tile_nv.mbarrier_expect %r, 16384 : !bar
        tile_nv.async_tma_copy_global_to_local %d[%i, %c0], %r, %as : !desc, !bar, !slot
        tile_nv.async_tma_copy_global_to_local %d[%c0, %i], %r, %bs : !desc, !bar, !slot
      }
      tile.warp_yield
    }
    return
  }

  // The slot released before its wgmma is waited for.
  func.func @release_under_the_wgmma(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %a = tile.local_alloc : () -> !ring
    %b = tile.local_alloc : () -> !ring
    %ready = tile.local_alloc : () -> !bars
    %empty = tile.local_alloc : () -> !bars
    %r0 = tile.memdesc_index %ready[%c0] : !bars -> !bar
    %r1 = tile.memdesc_index %ready[%c1] : !bars -> !bar
    %e0 = tile.memdesc_index %empty[%c0] : !bars -> !bar
    %e1 = tile.memdesc_index %empty[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %r0, 1 : !bar
    tile_nv.mbarrier_init %r1, 1 : !bar
    tile_nv.mbarrier_init %e0, 1 : !bar
    tile_nv.mbarrier_init %e1, 1 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %z) -> (tensor<64x64xf32, #acc>) : i32 {
        %s = arith.remsi %i, %c2 : i32
        %ph = arith.divsi %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        %as = tile.memdesc_index %a[%s] : !ring -> !slot
        %bs = tile.memdesc_index %b[%s] : !ring -> !slot
        %bt = tile.memdesc_permute %bs {order = array<i32: 1, 0>} : !slot -> !slotT
        tile_nv.mbarrier_wait %r, %p : !bar, i32
        // ORACLE-DAG: :[[#@LINE-1]]:9: remark: barrier oracle: witnessed (hang)
        // ORACLE-DAG: :[[#@LINE+2]]:16: remark: barrier oracle: witnessed (read-before-landing)
        // expected-note @+1 {{the asynchronous read}}
        %dot = tile_nv.warpgroup_dot %as, %bt, %c {isAsync} : !slot, !slotT -> tensor<64x64xf32, #acc>
        // expected-error @+1 {{'tile_nv.mbarrier_arrive' releases a ring slot that the asynchronous read of 'tile_nv.warpgroup_dot' may still be reading: the refill that waits on this barrier can land under the read (no wait on the 'wgmma' counter with at most 0 pending comes before the arrival)}}
        tile_nv.mbarrier_arrive %e, 1 : !bar
        %w = tile_nv.warpgroup_dot_wait %dot {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
        scf.yield %w : tensor<64x64xf32, #acc>
      }
      %fin = tile_nv.warpgroup_dot_wait %acc {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      tile.warp_yield
    } partitions {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %s = arith.remsi %i, %c2 : i32
        %ph = arith.divsi %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %q = arith.xori %p, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        %as = tile.memdesc_index %a[%s] : !ring -> !slot
        %bs = tile.memdesc_index %b[%s] : !ring -> !slot
        tile_nv.mbarrier_wait %e, %q : !bar, i32
        tile_nv.mbarrier_expect %r, 16384 : !bar
        // ORACLE-DAG: :[[#@LINE+2]]:9: remark: barrier oracle: witnessed (write-after-read)
        // expected-note @+1 {{the refill, after a wait on the same slot's barrier}}
        tile_nv.async_tma_copy_global_to_local %d[%i, %c0], %r, %as : !desc, !bar, !slot
        // ORACLE-DAG: :[[#@LINE+1]]:9: remark: barrier oracle: witnessed (write-after-read)
        tile_nv.async_tma_copy_global_to_local %d[%c0, %i], %r, %bs : !desc, !bar, !slot
      }
      tile.warp_yield
    }
    return
  }

  // The refill (its expect and copies) under an `if` in the loader, after the wait on
  // "empty": the wait before the `if` guards it; the release after the wgmma's wait.
  // ORACLE-NOT: witnessed
  // ORACLE: :[[#@LINE+1]]:3: remark: barrier oracle: {{[0-9]+}} executions
  func.func @ok_release_after_the_wgmma_wait_refill_under_if(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %a = tile.local_alloc : () -> !ring
    %b = tile.local_alloc : () -> !ring
    %ready = tile.local_alloc : () -> !bars
    %empty = tile.local_alloc : () -> !bars
    %r0 = tile.memdesc_index %ready[%c0] : !bars -> !bar
    %r1 = tile.memdesc_index %ready[%c1] : !bars -> !bar
    %e0 = tile.memdesc_index %empty[%c0] : !bars -> !bar
    %e1 = tile.memdesc_index %empty[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %r0, 1 : !bar
    tile_nv.mbarrier_init %r1, 1 : !bar
    tile_nv.mbarrier_init %e0, 1 : !bar
    tile_nv.mbarrier_init %e1, 1 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %z) -> (tensor<64x64xf32, #acc>) : i32 {
        %s = arith.remsi %i, %c2 : i32
        %ph = arith.divsi %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        %as = tile.memdesc_index %a[%s] : !ring -> !slot
        %bs = tile.memdesc_index %b[%s] : !ring -> !slot
        %bt = tile.memdesc_permute %bs {order = array<i32: 1, 0>} : !slot -> !slotT
        tile_nv.mbarrier_wait %r, %p : !bar, i32
        %dot = tile_nv.warpgroup_dot %as, %bt, %c {isAsync} : !slot, !slotT -> tensor<64x64xf32, #acc>
        %w = tile_nv.warpgroup_dot_wait %dot {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
        tile_nv.mbarrier_arrive %e, 1 : !bar
        scf.yield %w : tensor<64x64xf32, #acc>
      }
      %fin = tile_nv.warpgroup_dot_wait %acc {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      tile.warp_yield
    } partitions {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %s = arith.remsi %i, %c2 : i32
        %ph = arith.divsi %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %q = arith.xori %p, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        %as = tile.memdesc_index %a[%s] : !ring -> !slot
        %bs = tile.memdesc_index %b[%s] : !ring -> !slot
        tile_nv.mbarrier_wait %e, %q : !bar, i32
        %go = arith.cmpi sgt, %n, %c0 : i32
        scf.if %go {
          tile_nv.mbarrier_expect %r, 16384 : !bar
          tile_nv.async_tma_copy_global_to_local %d[%i, %c0], %r, %as : !desc, !bar, !slot
          tile_nv.async_tma_copy_global_to_local %d[%c0, %i], %r, %bs : !desc, !bar, !slot
        }
      }
      tile.warp_yield
    }
    return
  }

  // The same refill under an `if`; the slot released before its wgmma is waited for.
  func.func @release_under_the_wgmma_refill_under_if(%d: !desc, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %a = tile.local_alloc : () -> !ring
    %b = tile.local_alloc : () -> !ring
    %ready = tile.local_alloc : () -> !bars
    %empty = tile.local_alloc : () -> !bars
    %r0 = tile.memdesc_index %ready[%c0] : !bars -> !bar
    %r1 = tile.memdesc_index %ready[%c1] : !bars -> !bar
    %e0 = tile.memdesc_index %empty[%c0] : !bars -> !bar
    %e1 = tile.memdesc_index %empty[%c1] : !bars -> !bar
    tile_nv.mbarrier_init %r0, 1 : !bar
    tile_nv.mbarrier_init %r1, 1 : !bar
    tile_nv.mbarrier_init %e0, 1 : !bar
    tile_nv.mbarrier_init %e1, 1 : !bar
    tile.warp_specialize partition_num_warps = [1] {
      %z = arith.constant dense<0.0> : tensor<64x64xf32, #acc>
      %acc = scf.for %i = %c0 to %n step %c1 iter_args(%c = %z) -> (tensor<64x64xf32, #acc>) : i32 {
        %s = arith.remsi %i, %c2 : i32
        %ph = arith.divsi %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        %as = tile.memdesc_index %a[%s] : !ring -> !slot
        %bs = tile.memdesc_index %b[%s] : !ring -> !slot
        %bt = tile.memdesc_permute %bs {order = array<i32: 1, 0>} : !slot -> !slotT
        tile_nv.mbarrier_wait %r, %p : !bar, i32
        // ORACLE-DAG: :[[#@LINE-1]]:9: remark: barrier oracle: witnessed (hang)
        // ORACLE-DAG: :[[#@LINE+2]]:16: remark: barrier oracle: witnessed (read-before-landing)
        // expected-note @+1 {{the asynchronous read}}
        %dot = tile_nv.warpgroup_dot %as, %bt, %c {isAsync} : !slot, !slotT -> tensor<64x64xf32, #acc>
        // expected-error @+1 {{'tile_nv.mbarrier_arrive' releases a ring slot that the asynchronous read of 'tile_nv.warpgroup_dot' may still be reading: the refill that waits on this barrier can land under the read (no wait on the 'wgmma' counter with at most 0 pending comes before the arrival)}}
        tile_nv.mbarrier_arrive %e, 1 : !bar
        %w = tile_nv.warpgroup_dot_wait %dot {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
        scf.yield %w : tensor<64x64xf32, #acc>
      }
      %fin = tile_nv.warpgroup_dot_wait %acc {pendings = 0 : i32} : (tensor<64x64xf32, #acc>) -> tensor<64x64xf32, #acc>
      tile.warp_yield
    } partitions {
      scf.for %i = %c0 to %n step %c1 : i32 {
        %s = arith.remsi %i, %c2 : i32
        %ph = arith.divsi %i, %c2 : i32
        %p = arith.andi %ph, %c1 : i32
        %q = arith.xori %p, %c1 : i32
        %r = tile.memdesc_index %ready[%s] : !bars -> !bar
        %e = tile.memdesc_index %empty[%s] : !bars -> !bar
        %as = tile.memdesc_index %a[%s] : !ring -> !slot
        %bs = tile.memdesc_index %b[%s] : !ring -> !slot
        tile_nv.mbarrier_wait %e, %q : !bar, i32
        %go = arith.cmpi sgt, %n, %c0 : i32
        scf.if %go {
          tile_nv.mbarrier_expect %r, 16384 : !bar
          // ORACLE-DAG: :[[#@LINE+2]]:11: remark: barrier oracle: witnessed (write-after-read)
          // expected-note @+1 {{the refill, after a wait on the same slot's barrier}}
          tile_nv.async_tma_copy_global_to_local %d[%i, %c0], %r, %as : !desc, !bar, !slot
          // ORACLE-DAG: :[[#@LINE+1]]:11: remark: barrier oracle: witnessed (write-after-read)
          tile_nv.async_tma_copy_global_to_local %d[%c0, %i], %r, %bs : !desc, !bar, !slot
        }
      }
      tile.warp_yield
    }
    return
  }
}
