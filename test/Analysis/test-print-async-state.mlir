// RUN: kiln-opt %s -split-input-file --test-print-async-state -verify-diagnostics -o /dev/null

// What kiln's AsyncState analysis holds in flight before each async or
// shared-memory op (include/kiln/Analysis/AsyncState.h): the copies with the
// fewest commit groups closed after theirs (+N; -1: not committed), the
// bytes the threads wrote that no async-proxy fence ordered (unfenced), and
// the most groups that may be in flight. tile-check-async-safety,
// tile-insert-wait-counts and this pass read the same state.

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!m = !tile.memdesc<128xf32, #sh, mutable>
!t = tensor<128xf32, #l>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // A copy in flight until its group is committed and waited for; from the
  // wait on its bytes are the threads' writes (unfenced).
  func.func @straight(%p: !p, %x: !t) -> !t {
    %a = tile.local_alloc : () -> !m
    // expected-remark @below {{in flight: groups <= 0}}
    %c = tile.async_copy_global_to_local %p, %a : !p -> !m
    // expected-remark @below {{in flight: groups <= 0; copy +-1 by tile.async_copy_global_to_local#0 of alloc0}}
    %g = tile.async_commit_group tokens %c
    // expected-remark @below {{in flight: groups <= 1; copy +0 by tile.async_copy_global_to_local#0 of alloc0}}
    %w = tile.async_wait {num = 0 : i32}
    // expected-remark @below {{in flight: groups <= 0; unfenced by tile.async_copy_global_to_local#0 of alloc0}}
    %v = tile.local_load %a : !m -> !t
    // expected-remark @below {{in flight: groups <= 0; unfenced by tile.async_copy_global_to_local#0 of alloc0}}
    tile.local_store %x, %a : !t -> !m
    // expected-remark @below {{in flight: groups <= 0; unfenced by tile.async_copy_global_to_local#0 of alloc0; unfenced by tile.local_store#0 of alloc0}}
    return %v : !t
  }

  // scf.if joins its branches: the copy waited for on one branch only is
  // still in flight after it.
  func.func @one_branch(%p: !p, %flag: i1) -> !t {
    %a = tile.local_alloc : () -> !m
    // expected-remark @below {{in flight: groups <= 0}}
    %c = tile.async_copy_global_to_local %p, %a : !p -> !m
    // expected-remark @below {{in flight: groups <= 0; copy +-1}}
    %g = tile.async_commit_group tokens %c
    scf.if %flag {
      // expected-remark @below {{in flight: groups <= 1; copy +0 by tile.async_copy_global_to_local#0 of alloc0}}
      %w = tile.async_wait {num = 0 : i32}
    }
    // expected-remark @below {{in flight: groups <= 1; unfenced by tile.async_copy_global_to_local#0 of alloc0; copy +0 by tile.async_copy_global_to_local#0 of alloc0}}
    %v = tile.local_load %a : !m -> !t
    // expected-remark @below {{in flight: groups <= 1; unfenced}}
    return %v : !t
  }

  // A copy another partition issued is foreign: no wait of this partition
  // retires it.
  func.func @partitions(%p: !p) {
    %a = tile.local_alloc : () -> !m
    tile.warp_specialize partition_num_warps = [1] {
      // expected-remark @below {{in flight: groups <= 0; copy +0 foreign by tile.async_copy_global_to_local#0 of alloc0}}
      %w = tile.async_wait {num = 0 : i32}
      // expected-remark @below {{in flight: groups <= 0; copy +0 foreign by tile.async_copy_global_to_local#0 of alloc0}}
      %v = tile.local_load %a : !m -> !t
      tile.warp_yield
    } partitions {
      // expected-remark @below {{in flight: groups <= 0}}
      %c = tile.async_copy_global_to_local %p, %a : !p -> !m
      // expected-remark @below {{in flight: groups <= 0; copy +-1 by tile.async_copy_global_to_local#0 of alloc0}}
      %g = tile.async_commit_group tokens %c
      tile.warp_yield
    }
    // expected-remark @below {{in flight: groups <= 1; copy +0 by tile.async_copy_global_to_local#0 of alloc0}}
    return
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!ring = !tile.memdesc<3x128xf32, #sh, mutable>
!slot = !tile.memdesc<128xf32, #sh, mutable, 3x128>
!t = tensor<128xf32, #l>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // A triple-buffered ring: slots are kept as (iv + c) % 3, and work from
  // earlier iterations carries its generation (back edges since it was
  // issued). At the read of slot iv % 3 only copies into slot (iv + 1) % 3
  // are in flight: this iteration's prologue copy and the last iteration's.
  func.func @ring(%p: !p, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %r = tile.local_alloc : () -> !ring
    %s0 = tile.memdesc_index %r[%c0] : !ring -> !slot
    // expected-remark @below {{in flight: groups <= 0}}
    %t0 = tile.async_copy_global_to_local %p, %s0 : !p -> !slot
    // expected-remark @below {{in flight: groups <= 0; copy +-1 by tile.async_copy_global_to_local#0 of alloc0[0]}}
    %g0 = tile.async_commit_group tokens %t0
    %s1 = tile.memdesc_index %r[%c1] : !ring -> !slot
    // expected-remark @below {{in flight: groups <= 1; copy +0 by tile.async_copy_global_to_local#0 of alloc0[0]}}
    %t1 = tile.async_copy_global_to_local %p, %s1 : !p -> !slot
    // expected-remark @below {{copy +-1 by tile.async_copy_global_to_local#1 of alloc0[1]}}
    %g1 = tile.async_commit_group tokens %t1
    scf.for %k = %c0 to %n step %c1 : i32 {
      // expected-remark @below {{copy +1 by tile.async_copy_global_to_local#0 of alloc0[(iv + 0) % 3]; copy +0 by tile.async_copy_global_to_local#1 of alloc0[(iv + 1) % 3]}}
      %w = tile.async_wait {num = 1 : i32}
      %cur = arith.remsi %k, %c3 : i32
      %sc = tile.memdesc_index %r[%cur] : !ring -> !slot
      // expected-remark @below {{in flight: groups <= 1; copy +0 by tile.async_copy_global_to_local#1 of alloc0[(iv + 1) % 3];}}
      %v = tile.local_load %sc : !slot -> !t
      %k2 = arith.addi %k, %c2 : i32
      %nx = arith.remsi %k2, %c3 : i32
      %sn = tile.memdesc_index %r[%nx] : !ring -> !slot
      // expected-remark @below {{copy +0 by tile.async_copy_global_to_local#2 gen 1 of alloc0[(iv + 1) % 3]}}
      %t = tile.async_copy_global_to_local %p, %sn : !p -> !slot
      // expected-remark @below {{copy +-1 by tile.async_copy_global_to_local#2 of alloc0[(iv + 2) % 3]}}
      %g = tile.async_commit_group tokens %t
    }
    // expected-remark @below {{copy +0 by tile.async_copy_global_to_local#2 of alloc0}}
    %wf = tile.async_wait {num = 0 : i32}
    // expected-remark @below {{in flight: groups <= 0; unfenced}}
    return
  }
}
