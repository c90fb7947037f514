// RUN: kiln-opt %s --split-input-file --tile-insert-wait-counts --tile-check-async-safety --verify-diagnostics

// tile-check-async-safety on async copies (cp.async, direct-to-LDS): a read
// or write of a copy's destination that no wait covering the copy's commit
// group precedes on some path. As in the kernel pipeline, the wait counts of
// token waits come from tile-insert-wait-counts first. The correct kernels
// (names starting with ok_) must pass without a word.

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!m = !tile.memdesc<128xf32, #sh, mutable>
!t = tensor<128xf32, #l>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  func.func @ok_straight(%p: !p) -> !t {
    %a = tile.local_alloc : () -> !m
    %c = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g = tile.async_commit_group tokens %c
    %w = tile.async_wait tokens %g
    %v = tile.local_load %a : !m -> !t
    return %v : !t
  }

  func.func @no_commit(%p: !p) -> !t {
    %a = tile.local_alloc : () -> !m
    // expected-note @+1 {{the async copy}}
    %c = tile.async_copy_global_to_local %p, %a : !p -> !m
    %w = tile.async_wait {num = 0 : i32}
    // expected-error @+1 {{'tile.local_load' reads shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing: its group is not committed (no commit_group after it) on some path, so no wait covers it}}
    %v = tile.local_load %a : !m -> !t
    return %v : !t
  }

  func.func @no_wait(%p: !p) -> !t {
    %a = tile.local_alloc : () -> !m
    // expected-note @+1 {{the async copy}}
    %c = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g = tile.async_commit_group tokens %c
    // expected-error @+1 {{'tile.local_load' reads shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing: no wait covering its commit group comes between them on some path (at least 0 groups are committed after it, and a wait must leave at most that many in flight)}}
    %v = tile.local_load %a : !m -> !t
    return %v : !t
  }

  func.func @wait_leaves_group(%p: !p) -> !t {
    %a = tile.local_alloc : () -> !m
    // expected-note @+1 {{the async copy}}
    %c = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g = tile.async_commit_group tokens %c
    %w = tile.async_wait {num = 1 : i32}
    // expected-error @+1 {{no wait covering its commit group comes between them on some path}}
    %v = tile.local_load %a : !m -> !t
    return %v : !t
  }

  func.func @wait_on_one_branch(%p: !p, %flag: i1) -> !t {
    %a = tile.local_alloc : () -> !m
    // expected-note @+1 {{the async copy}}
    %c = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g = tile.async_commit_group tokens %c
    scf.if %flag {
      %w = tile.async_wait {num = 0 : i32}
    }
    // expected-error @+1 {{no wait covering its commit group comes between them on some path}}
    %v = tile.local_load %a : !m -> !t
    return %v : !t
  }

  // A copy and its wait under ifs on the same condition (here recomputed:
  // the same comparison of the same values) are on one path; the read after
  // them is covered on both.
  func.func @ok_copy_and_wait_on_the_same_condition(%p: !p, %i: i32, %n: i32) -> !t {
    %a = tile.local_alloc : () -> !m
    %b = tile.local_alloc : () -> !m
    %c0 = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g0 = tile.async_commit_group tokens %c0
    %one = arith.constant 1 : i32
    %i1 = arith.addi %i, %one : i32
    %more = arith.cmpi slt, %i1, %n : i32
    scf.if %more {
      %c1 = tile.async_copy_global_to_local %p, %b : !p -> !m
      %g1 = tile.async_commit_group tokens %c1
    }
    %one2 = arith.constant 1 : i32
    %j1 = arith.addi %i, %one2 : i32
    %more2 = arith.cmpi slt, %j1, %n : i32
    scf.if %more2 {
      %w = tile.async_wait {num = 1 : i32}
    } else {
      %w = tile.async_wait {num = 0 : i32}
    }
    %v = tile.local_load %a : !m -> !t
    return %v : !t
  }

  // The same with the wait under another condition (i + 2 < n): a path may
  // issue no second copy and still wait for one group only (i + 1 < n false,
  // i + 2 < n true: i + 2 wraps), leaving the first copy in flight.
  func.func @copy_and_wait_on_different_conditions(%p: !p, %i: i32, %n: i32) -> !t {
    %a = tile.local_alloc : () -> !m
    %b = tile.local_alloc : () -> !m
    // expected-note @+1 {{the async copy}}
    %c0 = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g0 = tile.async_commit_group tokens %c0
    %one = arith.constant 1 : i32
    %i1 = arith.addi %i, %one : i32
    %more = arith.cmpi slt, %i1, %n : i32
    scf.if %more {
      %c1 = tile.async_copy_global_to_local %p, %b : !p -> !m
      %g1 = tile.async_commit_group tokens %c1
    }
    %two = arith.constant 2 : i32
    %j2 = arith.addi %i, %two : i32
    %more2 = arith.cmpi slt, %j2, %n : i32
    scf.if %more2 {
      %w = tile.async_wait {num = 1 : i32}
    } else {
      %w = tile.async_wait {num = 0 : i32}
    }
    // expected-error @+1 {{no wait covering its commit group comes between them on some path}}
    %v = tile.local_load %a : !m -> !t
    return %v : !t
  }

  func.func @ok_wait_on_both_branches(%p: !p, %flag: i1) -> !t {
    %a = tile.local_alloc : () -> !m
    %c = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g = tile.async_commit_group tokens %c
    scf.if %flag {
      %w = tile.async_wait {num = 0 : i32}
    } else {
      %w = tile.async_wait {num = 0 : i32}
    }
    %v = tile.local_load %a : !m -> !t
    return %v : !t
  }

  // Overwriting the destination while the copy may still write it.
  func.func @store_over_copy(%p: !p, %x: !t) -> !t {
    %a = tile.local_alloc : () -> !m
    // expected-note @+1 {{the async copy}}
    %c = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g = tile.async_commit_group tokens %c
    // expected-error @+1 {{'tile.local_store' writes shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing}}
    tile.local_store %x, %a : !t -> !m
    %w = tile.async_wait {num = 0 : i32}
    %v = tile.local_load %a : !m -> !t
    return %v : !t
  }

  // A wait for more groups than can be in flight waits for nothing.
  func.func @idle_wait(%p: !p) {
    %a = tile.local_alloc : () -> !m
    %c = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g = tile.async_commit_group tokens %c
    // expected-warning @+1 {{waits until at most 3 commit groups are in flight, but at most 1 can be here: it waits for nothing}}
    %w = tile.async_wait {num = 3 : i32}
    %w2 = tile.async_wait {num = 0 : i32}
    return
  }

  // A token wait chosen by a branch: the count covers both.
  func.func @ok_token_from_branch(%p: !p, %flag: i1) -> !t {
    %a = tile.local_alloc : () -> !m
    %b = tile.local_alloc : () -> !m
    %c0 = tile.async_copy_global_to_local %p, %a : !p -> !m
    %g0 = tile.async_commit_group tokens %c0
    %c1 = tile.async_copy_global_to_local %p, %b : !p -> !m
    %g1 = tile.async_commit_group tokens %c1
    %t = scf.if %flag -> !tile.async_token {
      scf.yield %g0 : !tile.async_token
    } else {
      scf.yield %g1 : !tile.async_token
    }
    %w = tile.async_wait tokens %t
    %v = tile.local_load %b : !m -> !t
    return %v : !t
  }

  // A copy issued only when n > 0, waited for in the first trip of a loop
  // over [0, n): on the path that issued it the loop cannot be skipped.
  func.func @ok_guard_makes_loop_run(%p: !p, %n: i32) -> !t {
    %a = tile.local_alloc : () -> !m
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %go = arith.cmpi sgt, %n, %c0 : i32
    scf.if %go {
      %c = tile.async_copy_global_to_local %p, %a : !p -> !m
      %g = tile.async_commit_group tokens %c
    }
    scf.for %i = %c0 to %n step %c1 : i32 {
      %w = tile.async_wait {num = 0 : i32}
    }
    %v = tile.local_load %a : !m -> !t
    return %v : !t
  }

  // Copies into two slots under `0 < k` and `64 < k`, a loop over
  // [0, cdiv(k, 64)) that waits for all but the newest group and commits an
  // empty one each trip, then a read of the second slot: `64 < k` makes the
  // loop run at least two trips, the second of which retires that copy (a
  // path leaving after one trip would read it in flight; no execution takes
  // it).
  func.func @ok_guards_imply_two_trips(%p: !p, %k: i32) -> !t {
    %ring = tile.local_alloc : () -> !tile.memdesc<2x128xf32, #sh, mutable>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c64 = arith.constant 64 : i32
    %s0 = tile.memdesc_index %ring[%c0] : !tile.memdesc<2x128xf32, #sh, mutable> -> !tile.memdesc<128xf32, #sh, mutable, 2x128>
    %s1 = tile.memdesc_index %ring[%c1] : !tile.memdesc<2x128xf32, #sh, mutable> -> !tile.memdesc<128xf32, #sh, mutable, 2x128>
    %g0 = arith.cmpi slt, %c0, %k : i32
    scf.if %g0 {
      %c = tile.async_copy_global_to_local %p, %s0 : !p -> !tile.memdesc<128xf32, #sh, mutable, 2x128>
      %g = tile.async_commit_group tokens %c
    }
    %g1 = arith.cmpi slt, %c64, %k : i32
    scf.if %g1 {
      %c = tile.async_copy_global_to_local %p, %s1 : !p -> !tile.memdesc<128xf32, #sh, mutable, 2x128>
      %g = tile.async_commit_group tokens %c
    }
    %k63 = arith.addi %k, %c64 : i32
    %k64 = arith.subi %k63, %c1 : i32
    %n = arith.divsi %k64, %c64 : i32
    scf.for %i = %c0 to %n step %c1 : i32 {
      %w = tile.async_wait {num = 1 : i32}
      %e = tile.async_commit_group
    }
    %v = tile.local_load %s1 : !tile.memdesc<128xf32, #sh, mutable, 2x128> -> !t
    %wend = tile.async_wait {num = 0 : i32}
    return %v : !t
  }

  // A copy into slot 1 of a ring before a loop of 16 trips whose waits keep
  // two groups in flight (there are only two), read after the loop: slot 1
  // is still slot 1 when the loop is left (a constant index keeps its slot
  // past a loop), so the race is certain on every path.
  func.func @copy_into_a_constant_slot_read_after_a_loop(%p: !p) -> !t {
    %ring = tile.local_alloc : () -> !tile.memdesc<2x128xf32, #sh, mutable>
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c16 = arith.constant 16 : i32
    %s0 = tile.memdesc_index %ring[%c0] : !tile.memdesc<2x128xf32, #sh, mutable> -> !tile.memdesc<128xf32, #sh, mutable, 2x128>
    %s1 = tile.memdesc_index %ring[%c1] : !tile.memdesc<2x128xf32, #sh, mutable> -> !tile.memdesc<128xf32, #sh, mutable, 2x128>
    %a = tile.async_copy_global_to_local %p, %s0 : !p -> !tile.memdesc<128xf32, #sh, mutable, 2x128>
    %ga = tile.async_commit_group tokens %a
    // expected-note @+1 {{the async copy}}
    %b = tile.async_copy_global_to_local %p, %s1 : !p -> !tile.memdesc<128xf32, #sh, mutable, 2x128>
    %gb = tile.async_commit_group tokens %b
    scf.for %i = %c0 to %c16 step %c1 : i32 {
      %w = tile.async_wait {num = 2 : i32}
    }
    // expected-error @+1 {{'tile.local_load' reads shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing: no wait covering its commit group comes between them on some path (at least 0 groups are committed after it, and a wait must leave at most that many in flight)}}
    %v = tile.local_load %s1 : !tile.memdesc<128xf32, #sh, mutable, 2x128> -> !t
    %wend = tile.async_wait {num = 0 : i32}
    return %v : !t
  }

  // A 3-slot ring refilled under `i + 3 < n` and waited for by wait(2)
  // under `i + 2 < n`, wait(0) otherwise. Such guards, once false, stay
  // false: a trip that refills follows two that did, and the one trip with
  // `i + 2 < n` but no refill is the last that waits for 2 (the loop's guard
  // segments; walked whole, the loop takes paths where it is not).
  func.func @ok_refill_under_guard(%p: !p, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %ring = tile.local_alloc : () -> !tile.memdesc<3x128xf32, #sh, mutable>
    %s0 = tile.memdesc_index %ring[%c0] : !tile.memdesc<3x128xf32, #sh, mutable> -> !tile.memdesc<128xf32, #sh, mutable, 3x128>
    %t0 = tile.async_copy_global_to_local %p, %s0 : !p -> !tile.memdesc<128xf32, #sh, mutable, 3x128>
    %g0 = tile.async_commit_group tokens %t0
    %s1 = tile.memdesc_index %ring[%c1] : !tile.memdesc<3x128xf32, #sh, mutable> -> !tile.memdesc<128xf32, #sh, mutable, 3x128>
    %t1 = tile.async_copy_global_to_local %p, %s1 : !p -> !tile.memdesc<128xf32, #sh, mutable, 3x128>
    %g1 = tile.async_commit_group tokens %t1
    %s2 = tile.memdesc_index %ring[%c2] : !tile.memdesc<3x128xf32, #sh, mutable> -> !tile.memdesc<128xf32, #sh, mutable, 3x128>
    %t2 = tile.async_copy_global_to_local %p, %s2 : !p -> !tile.memdesc<128xf32, #sh, mutable, 3x128>
    %g2 = tile.async_commit_group tokens %t2
    scf.for %i = %c0 to %n step %c1 : i32 {
      %k = arith.addi %i, %c2 : i32
      %late = arith.cmpi slt, %k, %n : i32
      scf.if %late {
        %w = tile.async_wait {num = 2 : i32}
      } else {
        %w = tile.async_wait {num = 0 : i32}
      }
      %y = arith.remsi %i, %c3 : i32
      %r = tile.memdesc_index %ring[%y] : !tile.memdesc<3x128xf32, #sh, mutable> -> !tile.memdesc<128xf32, #sh, mutable, 3x128>
      %v = tile.local_load %r : !tile.memdesc<128xf32, #sh, mutable, 3x128> -> !t
      %j = arith.addi %i, %c3 : i32
      %more = arith.cmpi slt, %j, %n : i32
      scf.if %more {
        %x = arith.remsi %j, %c3 : i32
        %s = tile.memdesc_index %ring[%x] : !tile.memdesc<3x128xf32, #sh, mutable> -> !tile.memdesc<128xf32, #sh, mutable, 3x128>
        %t = tile.async_copy_global_to_local %p, %s : !p -> !tile.memdesc<128xf32, #sh, mutable, 3x128>
        %g = tile.async_commit_group tokens %t
      }
    }
    return
  }

  // n >= 0 lets the loop over [0, n) run no trip at n = 0.
  func.func @guard_allows_no_trip(%p: !p, %n: i32) -> !t {
    %a = tile.local_alloc : () -> !m
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %go = arith.cmpi sge, %n, %c0 : i32
    scf.if %go {
      // expected-note @+1 {{the async copy}}
      %c = tile.async_copy_global_to_local %p, %a : !p -> !m
      %g = tile.async_commit_group tokens %c
    }
    scf.for %i = %c0 to %n step %c1 : i32 {
      %w = tile.async_wait {num = 0 : i32}
    }
    // expected-error @+1 {{no wait covering its commit group comes between them on some path}}
    %v = tile.local_load %a : !m -> !t
    return %v : !t
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
  // The triple-buffered ring: two groups ahead, wait_group(1) before the
  // read of slot k % 3.
  func.func @ok_ring(%p: !p, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %r = tile.local_alloc : () -> !ring
    %s0 = tile.memdesc_index %r[%c0] : !ring -> !slot
    %t0 = tile.async_copy_global_to_local %p, %s0 : !p -> !slot
    %g0 = tile.async_commit_group tokens %t0
    %s1 = tile.memdesc_index %r[%c1] : !ring -> !slot
    %t1 = tile.async_copy_global_to_local %p, %s1 : !p -> !slot
    %g1 = tile.async_commit_group tokens %t1
    scf.for %k = %c0 to %n step %c1 : i32 {
      %w = tile.async_wait {num = 1 : i32}
      %cur = arith.remsi %k, %c3 : i32
      %sc = tile.memdesc_index %r[%cur] : !ring -> !slot
      %v = tile.local_load %sc : !slot -> !t
      %k2 = arith.addi %k, %c2 : i32
      %nx = arith.remsi %k2, %c3 : i32
      %sn = tile.memdesc_index %r[%nx] : !ring -> !slot
      %t = tile.async_copy_global_to_local %p, %sn : !p -> !slot
      %g = tile.async_commit_group tokens %t
    }
    %wf = tile.async_wait {num = 0 : i32}
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
  // The same ring with wait_group(2): the group of slot k % 3, committed
  // two iterations earlier, may still be in flight.
  func.func @ring_wait_too_loose(%p: !p, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %r = tile.local_alloc : () -> !ring
    %s0 = tile.memdesc_index %r[%c0] : !ring -> !slot
    // expected-note @+1 {{the async copy}}
    %t0 = tile.async_copy_global_to_local %p, %s0 : !p -> !slot
    %g0 = tile.async_commit_group tokens %t0
    %s1 = tile.memdesc_index %r[%c1] : !ring -> !slot
    %t1 = tile.async_copy_global_to_local %p, %s1 : !p -> !slot
    %g1 = tile.async_commit_group tokens %t1
    scf.for %k = %c0 to %n step %c1 : i32 {
      %w = tile.async_wait {num = 2 : i32}
      %cur = arith.remsi %k, %c3 : i32
      %sc = tile.memdesc_index %r[%cur] : !ring -> !slot
      // expected-error @+1 {{'tile.local_load' reads shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing: no wait covering its commit group comes between them on some path (at least 1 group is committed after it, and a wait must leave at most that many in flight)}}
      %v = tile.local_load %sc : !slot -> !t
      %k2 = arith.addi %k, %c2 : i32
      %nx = arith.remsi %k2, %c3 : i32
      %sn = tile.memdesc_index %r[%nx] : !ring -> !slot
      %t = tile.async_copy_global_to_local %p, %sn : !p -> !slot
      %g = tile.async_commit_group tokens %t
    }
    %wf = tile.async_wait {num = 0 : i32}
    return
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!m = !tile.memdesc<128xf32, #sh, mutable>
!t = tensor<128xf32, #l>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // The copy is issued by the worker partition; the default partition's
  // wait covers only its own threads' copies.
  func.func @wait_in_other_partition(%p: !p) {
    %a = tile.local_alloc : () -> !m
    tile.warp_specialize partition_num_warps = [1] {
      %w = tile.async_wait {num = 0 : i32}
      // expected-error @+1 {{'tile.local_load' reads shared memory that the async copy of 'tile.async_copy_global_to_local' may still be writing: the copy is issued by another warp_specialize partition, and a wait covers only the copies of its own threads}}
      %v = tile.local_load %a : !m -> !t
      tile.warp_yield
    } partitions {
      // expected-note @+1 {{the async copy}}
      %c = tile.async_copy_global_to_local %p, %a : !p -> !m
      %g = tile.async_commit_group tokens %c
      tile.warp_yield
    }
    return
  }
}

// -----

#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [1], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p = tensor<128x!tile.ptr<f32>, #l>
!m = !tile.memdesc<128xf32, #sh, mutable>
!t = tensor<128xf32, #l>
module attributes {tile.num_warps = 1 : i32, tile.threads_per_warp = 32 : i32} {
  // The worker copies and waits for its copy, but the default partition
  // reads with nothing telling it the worker got that far.
  func.func @no_handoff(%p: !p) {
    %a = tile.local_alloc : () -> !m
    tile.warp_specialize partition_num_warps = [1] {
      // expected-error @+1 {{'tile.local_load' reads shared memory that another warp_specialize partition writes, with no barrier wait before it in this partition: the partitions run concurrently, and nothing orders the two (hand the buffer over with an mbarrier)}}
      %v = tile.local_load %a : !m -> !t
      tile.warp_yield
    } partitions {
      // expected-note @+1 {{the other partition's access}}
      %c = tile.async_copy_global_to_local %p, %a : !p -> !m
      %g = tile.async_commit_group tokens %c
      %w = tile.async_wait {num = 0 : i32}
      tile.warp_yield
    }
    return
  }

  // Both partitions only read: nothing to order.
  func.func @ok_both_read(%x: !t) {
    %a = tile.local_alloc : () -> !m
    tile.local_store %x, %a : !t -> !m
    tile.warp_specialize partition_num_warps = [1] {
      %v = tile.local_load %a : !m -> !t
      tile.warp_yield
    } partitions {
      %u = tile.local_load %a : !m -> !t
      tile.warp_yield
    }
    return
  }
}
