// RUN: kiln-opt %s --tile-nv-check-wgmma-order -o /dev/null 2>&1 | FileCheck %s --implicit-check-not=warning:

// tile-nv-check-wgmma-order: a wgmma wait that retires a wgmma of the
// previous loop iteration while a newer one stays in flight, with the result
// read outside wgmma, is the order ptxas does not follow around a loop
// (remark C7514: every wgmma of the kernel serialized). Warnings only.
// test_wgmma_order_dsl.py compiles the same shapes and shows ptxas's remark
// for the warned ones and none for the others.

#mma = #tile_nv.nvmma<{versionMajor = 3, versionMinor = 0, warpsPerCTA = [4, 1], instrShape = [16, 64, 16]}>
#shared = #tile_nv.nvmma_shared<swizzle = 128, elementBitWidth = 16, layoutRank = 2, transposed = false>
!acc = tensor<64x64xf32, #mma>
!smem = !tile.memdesc<64x64xf16, #shared, mutable>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func @carried_for(%a: !smem, %b: !smem, %n: i32) -> !acc {
    %zero = arith.constant dense<0.000000e+00> : !acc
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %x0 = tile_nv.warpgroup_dot %a, %b, %zero {isAsync} : !smem, !smem -> !acc
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %x0, %t = %zero) -> (!acc, !acc) : i32 {
      // CHECK-DAG: :[[@LINE+1]]:{{[0-9]+}}: note: the wgmma in flight
      %y = tile_nv.warpgroup_dot %a, %b, %zero {isAsync} : !smem, !smem -> !acc
      // CHECK-DAG: :[[@LINE+1]]:{{[0-9]+}}: warning: this wait retires a wgmma of the previous loop iteration (its result comes around the loop) while the wgmma issued since stays in flight, and the result is read outside wgmma: ptxas does not follow wgmma order around a loop and serializes every wgmma of the kernel (remark C7514)
      %xw = tile_nv.warpgroup_dot_wait %x {pendings = 1 : i32} : (!acc) -> !acc
      // CHECK-DAG: :[[@LINE+1]]:{{[0-9]+}}: note: the read
      %t2 = arith.addf %t, %xw : !acc
      %yw = tile_nv.warpgroup_dot_wait %y {pendings = 0 : i32} : (!acc) -> !acc
      // CHECK-DAG: :[[@LINE+1]]:{{[0-9]+}}: note: the carried wgmma
      %x2 = tile_nv.warpgroup_dot %a, %b, %yw {isAsync} : !smem, !smem -> !acc
      scf.yield %x2, %t2 : !acc, !acc
    }
    %w = tile_nv.warpgroup_dot_wait %r#0 {pendings = 0 : i32} : (!acc) -> !acc
    %s = arith.addf %w, %r#1 : !acc
    return %s : !acc
  }

  // The same wgmmas issued in one iteration: ptxas sees the order.
  func.func @same_iteration(%a: !smem, %b: !smem, %n: i32) -> !acc {
    %zero = arith.constant dense<0.000000e+00> : !acc
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %zero, %t = %zero) -> (!acc, !acc) : i32 {
      %x1 = tile_nv.warpgroup_dot %a, %b, %x {isAsync} : !smem, !smem -> !acc
      %y = tile_nv.warpgroup_dot %a, %b, %zero {isAsync} : !smem, !smem -> !acc
      %xw = tile_nv.warpgroup_dot_wait %x1 {pendings = 1 : i32} : (!acc) -> !acc
      %t2 = arith.addf %t, %xw : !acc
      %yw = tile_nv.warpgroup_dot_wait %y {pendings = 0 : i32} : (!acc) -> !acc
      scf.yield %yw, %t2 : !acc, !acc
    }
    %s = arith.addf %r#0, %r#1 : !acc
    return %s : !acc
  }

  // Carried, but the retired result only feeds the next wgmma (the pipelined
  // GEMM's shape): nothing reads its registers outside wgmma.
  func.func @carried_no_read(%a: !smem, %b: !smem, %n: i32) -> !acc {
    %zero = arith.constant dense<0.000000e+00> : !acc
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %x0 = tile_nv.warpgroup_dot %a, %b, %zero {isAsync} : !smem, !smem -> !acc
    %r = scf.for %i = %c0 to %n step %c1 iter_args(%x = %x0) -> (!acc) : i32 {
      %y = tile_nv.warpgroup_dot %a, %b, %zero {isAsync} : !smem, !smem -> !acc
      %xw = tile_nv.warpgroup_dot_wait %x {pendings = 1 : i32} : (!acc) -> !acc
      %x2 = tile_nv.warpgroup_dot %a, %b, %xw {isAsync} : !smem, !smem -> !acc
      %yw:2 = tile_nv.warpgroup_dot_wait %y, %x2 {pendings = 0 : i32} : (!acc, !acc) -> (!acc, !acc)
      %x3 = tile_nv.warpgroup_dot %a, %b, %yw#1 {isAsync} : !smem, !smem -> !acc
      scf.yield %x3 : !acc
    }
    %w = tile_nv.warpgroup_dot_wait %r {pendings = 0 : i32} : (!acc) -> !acc
    return %w : !acc
  }

  // Carried and read, but with pendings 0 every wgmma is retired.
  func.func @carried_pendings_zero(%a: !smem, %b: !smem, %n: i32) -> !acc {
    %zero = arith.constant dense<0.000000e+00> : !acc
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %x0 = tile_nv.warpgroup_dot %a, %b, %zero {isAsync} : !smem, !smem -> !acc
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %x0, %t = %zero) -> (!acc, !acc) : i32 {
      %y = tile_nv.warpgroup_dot %a, %b, %zero {isAsync} : !smem, !smem -> !acc
      %w:2 = tile_nv.warpgroup_dot_wait %x, %y {pendings = 0 : i32} : (!acc, !acc) -> (!acc, !acc)
      %t2 = arith.addf %t, %w#0 : !acc
      %x2 = tile_nv.warpgroup_dot %a, %b, %w#1 {isAsync} : !smem, !smem -> !acc
      scf.yield %x2, %t2 : !acc, !acc
    }
    %w = tile_nv.warpgroup_dot_wait %r#0 {pendings = 0 : i32} : (!acc) -> !acc
    %s = arith.addf %w, %r#1 : !acc
    return %s : !acc
  }

  // An scf.while body: the carried value comes through the condition's
  // forwarded argument.
  func.func @carried_while(%a: !smem, %b: !smem, %n: i32) -> !acc {
    %zero = arith.constant dense<0.000000e+00> : !acc
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %x0 = tile_nv.warpgroup_dot %a, %b, %zero {isAsync} : !smem, !smem -> !acc
    %r:3 = scf.while (%i = %c0, %x = %x0, %t = %zero) : (i32, !acc, !acc) -> (i32, !acc, !acc) {
      %go = arith.cmpi slt, %i, %n : i32
      scf.condition(%go) %i, %x, %t : i32, !acc, !acc
    } do {
    ^bb0(%i: i32, %x: !acc, %t: !acc):
      // CHECK-DAG: :[[@LINE+1]]:{{[0-9]+}}: note: the wgmma in flight
      %y = tile_nv.warpgroup_dot %a, %b, %zero {isAsync} : !smem, !smem -> !acc
      // CHECK-DAG: :[[@LINE+1]]:{{[0-9]+}}: warning: this wait retires a wgmma of the previous loop iteration
      %xw = tile_nv.warpgroup_dot_wait %x {pendings = 1 : i32} : (!acc) -> !acc
      // CHECK-DAG: :[[@LINE+1]]:{{[0-9]+}}: note: the read
      %t2 = arith.mulf %t, %xw : !acc
      %yw = tile_nv.warpgroup_dot_wait %y {pendings = 0 : i32} : (!acc) -> !acc
      // CHECK-DAG: :[[@LINE+1]]:{{[0-9]+}}: note: the carried wgmma
      %x2 = tile_nv.warpgroup_dot %a, %b, %yw {isAsync} : !smem, !smem -> !acc
      %i2 = arith.addi %i, %c1 : i32
      scf.yield %i2, %x2, %t2 : i32, !acc, !acc
    }
    %w = tile_nv.warpgroup_dot_wait %r#1 {pendings = 0 : i32} : (!acc) -> !acc
    %s = arith.addf %w, %r#2 : !acc
    return %s : !acc
  }

  // The yielded wgmma is retired in the body (a wait for all after it): it
  // does not come around the loop in flight.
  func.func @retired_before_yield(%a: !smem, %b: !smem, %n: i32) -> !acc {
    %zero = arith.constant dense<0.000000e+00> : !acc
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %zero, %t = %zero) -> (!acc, !acc) : i32 {
      %y = tile_nv.warpgroup_dot %a, %b, %zero {isAsync} : !smem, !smem -> !acc
      %xw = tile_nv.warpgroup_dot_wait %x {pendings = 1 : i32} : (!acc) -> !acc
      %t2 = arith.addf %t, %xw : !acc
      %x2 = tile_nv.warpgroup_dot %a, %b, %xw {isAsync} : !smem, !smem -> !acc
      %w:2 = tile_nv.warpgroup_dot_wait %y, %x2 {pendings = 0 : i32} : (!acc, !acc) -> (!acc, !acc)
      scf.yield %x2, %t2 : !acc, !acc
    }
    %s = arith.addf %r#0, %r#1 : !acc
    return %s : !acc
  }

  // What came around the loop is retired before the wait by a synchronous
  // wgmma (@sync_first) or by an earlier wait (@earlier_wait): no warning.
  func.func @sync_first(%a: !smem, %b: !smem, %n: i32) -> !acc {
    %zero = arith.constant dense<0.000000e+00> : !acc
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %x0 = tile_nv.warpgroup_dot %a, %b, %zero {isAsync} : !smem, !smem -> !acc
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %x0, %t = %zero) -> (!acc, !acc) : i32 {
      %z = tile_nv.warpgroup_dot %a, %b, %zero : !smem, !smem -> !acc
      %y = tile_nv.warpgroup_dot %a, %b, %z {isAsync} : !smem, !smem -> !acc
      %xw = tile_nv.warpgroup_dot_wait %x {pendings = 1 : i32} : (!acc) -> !acc
      %t2 = arith.addf %t, %xw : !acc
      %yw = tile_nv.warpgroup_dot_wait %y {pendings = 0 : i32} : (!acc) -> !acc
      %x2 = tile_nv.warpgroup_dot %a, %b, %yw {isAsync} : !smem, !smem -> !acc
      scf.yield %x2, %t2 : !acc, !acc
    }
    %w = tile_nv.warpgroup_dot_wait %r#0 {pendings = 0 : i32} : (!acc) -> !acc
    %s = arith.addf %w, %r#1 : !acc
    return %s : !acc
  }

  func.func @earlier_wait(%a: !smem, %b: !smem, %n: i32) -> !acc {
    %zero = arith.constant dense<0.000000e+00> : !acc
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %x0 = tile_nv.warpgroup_dot %a, %b, %zero {isAsync} : !smem, !smem -> !acc
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%x = %x0, %t = %zero) -> (!acc, !acc) : i32 {
      %xr = tile_nv.warpgroup_dot_wait %x {pendings = 0 : i32} : (!acc) -> !acc
      %y = tile_nv.warpgroup_dot %a, %b, %zero {isAsync} : !smem, !smem -> !acc
      %xw = tile_nv.warpgroup_dot_wait %x {pendings = 1 : i32} : (!acc) -> !acc
      %t2 = arith.addf %t, %xw : !acc
      %yw = tile_nv.warpgroup_dot_wait %y {pendings = 0 : i32} : (!acc) -> !acc
      %x2 = tile_nv.warpgroup_dot %a, %b, %yw {isAsync} : !smem, !smem -> !acc
      scf.yield %x2, %t2 : !acc, !acc
    }
    %w = tile_nv.warpgroup_dot_wait %r#0 {pendings = 0 : i32} : (!acc) -> !acc
    %s = arith.addf %w, %r#1 : !acc
    return %s : !acc
  }
}
