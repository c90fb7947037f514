// REQUIRES: amd
// The independent vmcnt checker (third_party/amd/tools/amdgcn_waits.py) on the final
// gfx942 assembly: it simulates the wave's vector-memory counter, the direct-to-LDS
// bytes and the LDS reads per lane, and judges every s_waitcnt vmcnt.
// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx942" | kiln-translate --target=hip:gfx942 --emit=amdgcn - > %t.s
// RUN: %python %S/../../tools/amdgcn_waits.py -v %t.s | FileCheck %s
// The same on gfx950.
// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx950" | kiln-translate --target=hip:gfx950 --emit=amdgcn - | %python %S/../../tools/amdgcn_waits.py - | FileCheck %s --check-prefix=GFX950
// Negative controls: one copy more allowed in flight before the first local_load of
// two_groups, and every wait of the ring relaxed to vmcnt(3), must fail.
// RUN: sed 's/vmcnt(4)/vmcnt(5)/' %t.s | not %python %S/../../tools/amdgcn_waits.py --kernel two_groups - | FileCheck %s --check-prefix=BAD
// RUN: sed -E 's/vmcnt\([0-9]+\)/vmcnt(3)/' %t.s | not %python %S/../../tools/amdgcn_waits.py --kernel ring - | FileCheck %s --check-prefix=BADRING
// ... and xring without the s_barrier after its wait: other waves' bytes are read.
// RUN: sed '/vmcnt(/{n;/s_barrier/d;}' %t.s | not %python %S/../../tools/amdgcn_waits.py --kernel xring - | FileCheck %s --check-prefix=NOBAR

// two_groups: a 1-instruction group (256 floats, one per lane) and a
// 4-instruction group (1024 floats); wait_group(1) is vmcnt(4), exact (slack
// 0). wait_group(0) is vmcnt(1): the unmasked global_store issued after the
// copies counts (gfx9's vmcnt counts stores), and no LDS read needs it.
// CHECK-LABEL: kernel two_groups: 4 waves, 1 paths
// CHECK-NOT: error:
// CHECK: `s_waitcnt vmcnt(4)`: slack 0: vmcnt(4) would still be safe (4 of 4 visits guard a copy)
// CHECK: `s_waitcnt vmcnt(1)`: slack 0: vmcnt(1) would still be safe
// CHECK: vmcnt-check: kernel two_groups: 2 waits, 0 violations, max slack 0

// ring: 3 slots, the copy into slot (i+2)%3, wait_group(2), the local_load of
// slot i%3; the trip count is unknown, so 0 to 3 trips are explored (4 paths,
// 6 visits of the wait per wave). Kiln's vmcnt(2) is exact.
// CHECK-LABEL: kernel ring: 4 waves, 4 paths
// CHECK-NOT: error:
// CHECK: `s_waitcnt vmcnt(2)`: slack 0: vmcnt(2) would still be safe (24 of 24 visits guard a copy)
// CHECK: vmcnt-check: kernel ring: {{[0-9]+}} waits, 0 violations

// xring: 2 slots copied in one layout and read in another (each wave reads
// bytes the other waves copied): the wait, then a barrier, then the read.
// CHECK-LABEL: kernel xring: 4 waves, 4 paths
// CHECK-NOT: error:
// CHECK: `s_waitcnt vmcnt(1){{.*}}`: slack 0: vmcnt(1) would still be safe (24 of 24 visits guard a copy)
// CHECK: vmcnt-check: kernel xring: 1 waits, 0 violations, max slack 0

// masked_fill: a masked global_load_lds and a masked buffer copy with a
// non-zero `other`, each branched around by masked lanes, which store 2.0
// themselves; each buffer is read back in a layout whose waves 1 and 2 are
// swapped (a barrier after each wait). The copies of masked waves may be
// skipped, so the second group counts 0 and the first wait is vmcnt(0),
// which the check finds exact.
// CHECK-LABEL: kernel masked_fill: 4 waves
// CHECK-NOT: error:
// CHECK: vmcnt-check: kernel masked_fill: 2 waits, 0 violations, max slack 0

// GFX950: vmcnt-check: kernel two_groups: 2 waits, 0 violations, max slack 0
// GFX950: vmcnt-check: kernel ring: {{[0-9]+}} waits, 0 violations
// GFX950: vmcnt-check: kernel xring: 1 waits, 0 violations

// BAD: error: line {{[0-9]+}}: `ds_read_b32 v{{[0-9]+}}, v{{[0-9]+}} offset:4096` accesses LDS bytes [0x1000, 0x1100) written by line {{[0-9]+}} `global_load_lds_dword {{.*}}`, still in flight (wave 0); vmcnt(5) in force
// BAD: vmcnt-check: kernel two_groups: 2 waits, 1 violations

// NOBAR: error: line {{[0-9]+}}: `ds_read_b32 {{.*}}` (wave 1) accesses LDS bytes {{.*}} written by line {{[0-9]+}} `global_load_lds_dword {{.*}}` of wave 0, retired at line {{[0-9]+}} with no barrier between that and the access
// NOBAR: vmcnt-check: kernel xring: 1 waits, {{[1-9]}} violations

// BADRING: error: line {{[0-9]+}}: `ds_read_b32 {{.*}}` accesses LDS bytes [0x0, 0x100) written by line {{[0-9]+}} `global_load_lds_dword {{.*}}`, still in flight (wave 0); vmcnt(3) in force
// BADRING: vmcnt-check: kernel ring: {{[0-9]+}} waits, {{[1-9][0-9]*}} violations

#l = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
!p1 = tensor<256x!tile.ptr<f32>, #l>
!p4 = tensor<1024x!tile.ptr<f32>, #l>
!m1 = !tile.memdesc<256xf32, #sh, mutable>
// Waves 1 and 2 swapped: each reads bytes another wave copied or filled.
#swap = #tile.linear<{register = [], lane = [[1], [2], [4], [8], [16], [32]], warp = [[128], [64]]}>
!m4 = !tile.memdesc<1024xf32, #sh, mutable>
!slot = !tile.memdesc<256xf32, #sh, mutable, 3x256>
!ring = !tile.memdesc<3x256xf32, #sh, mutable>
#c2 = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [4, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#r2 = #tile.blocked<{sizePerThread = [1, 1], threadsPerWarp = [16, 4], warpsPerCTA = [1, 4], order = [0, 1]}>
#sh2 = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>
!pc = tensor<16x16x!tile.ptr<f32>, #c2>
!pr = tensor<16x16x!tile.ptr<f32>, #r2>
!xslot = !tile.memdesc<16x16xf32, #sh2, mutable, 2x16x16>
!xring = !tile.memdesc<2x16x16xf32, #sh2, mutable>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  func.func @two_groups(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r1 = tile.arange 0, 256 : tensor<256xi32, #l>
    %s1 = tile.splat %x : !p1
    %p1 = tile.addptr %s1, %r1 : !p1, tensor<256xi32, #l>
    %r4 = tile.arange 0, 1024 : tensor<1024xi32, #l>
    %s4 = tile.splat %x : !p4
    %p4 = tile.addptr %s4, %r4 : !p4, tensor<1024xi32, #l>
    %a = tile.local_alloc : () -> !m1
    %b = tile.local_alloc : () -> !m4
    %c0 = tile.async_copy_global_to_local %p1, %a : !p1 -> !m1
    %g0 = tile.async_commit_group tokens %c0
    %c1 = tile.async_copy_global_to_local %p4, %b : !p4 -> !m4
    %g1 = tile.async_commit_group tokens %c1
    %w = tile.async_wait {num = 1 : i32}
    %v = tile.local_load %a : !m1 -> tensor<256xf32, #l>
    %ys = tile.splat %y : !p1
    %q = tile.addptr %ys, %r1 : !p1, tensor<256xi32, #l>
    tile.store %q, %v : !p1
    %w0 = tile.async_wait {num = 0 : i32}
    %u = tile.local_load %b : !m4 -> tensor<1024xf32, #l>
    %ys4 = tile.splat %y : !p4
    %q4 = tile.addptr %ys4, %r4 : !p4, tensor<1024xi32, #l>
    tile.store %q4, %u : !p4
    return
  }

  func.func @ring(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %c3 = arith.constant 3 : i32
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %s = tile.splat %x : !p1
    %p = tile.addptr %s, %r : !p1, tensor<256xi32, #l>
    %ring = tile.local_alloc : () -> !ring
    %s0 = tile.memdesc_index %ring[%c0] : !ring -> !slot
    %t0 = tile.async_copy_global_to_local %p, %s0 : !p1 -> !slot
    %g0 = tile.async_commit_group tokens %t0
    %s1 = tile.memdesc_index %ring[%c1] : !ring -> !slot
    %t1 = tile.async_copy_global_to_local %p, %s1 : !p1 -> !slot
    %g1 = tile.async_commit_group tokens %t1
    %z = arith.constant dense<0.0> : tensor<256xf32, #l>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (tensor<256xf32, #l>) : i32 {
      %ip2 = arith.addi %i, %c2 : i32
      %nx = arith.remsi %ip2, %c3 : i32
      %sn = tile.memdesc_index %ring[%nx] : !ring -> !slot
      %t = tile.async_copy_global_to_local %p, %sn : !p1 -> !slot
      %g = tile.async_commit_group tokens %t
      %w = tile.async_wait {num = 2 : i32}
      %cu = arith.remsi %i, %c3 : i32
      %sc = tile.memdesc_index %ring[%cu] : !ring -> !slot
      %v = tile.local_load %sc : !slot -> tensor<256xf32, #l>
      %b = arith.addf %a, %v : tensor<256xf32, #l>
      scf.yield %b : tensor<256xf32, #l>
    }
    %ys = tile.splat %y : !p1
    %q = tile.addptr %ys, %r : !p1, tensor<256xi32, #l>
    tile.store %q, %acc : !p1
    return
  }

  func.func @xring(%p: !pc, %q: !pr, %n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %c2 = arith.constant 2 : i32
    %ring = tile.local_alloc : () -> !xring
    %s0 = tile.memdesc_index %ring[%c0] : !xring -> !xslot
    %t0 = tile.async_copy_global_to_local %p, %s0 : !pc -> !xslot
    %g0 = tile.async_commit_group tokens %t0
    %z = arith.constant dense<0.0> : tensor<16x16xf32, #r2>
    %acc = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z) -> (tensor<16x16xf32, #r2>) : i32 {
      %ip1 = arith.addi %i, %c1 : i32
      %nx = arith.remsi %ip1, %c2 : i32
      %sn = tile.memdesc_index %ring[%nx] : !xring -> !xslot
      %t = tile.async_copy_global_to_local %p, %sn : !pc -> !xslot
      %g = tile.async_commit_group tokens %t
      %w = tile.async_wait tokens %g {num = 1 : i32}
      %cu = arith.remsi %i, %c2 : i32
      %sc = tile.memdesc_index %ring[%cu] : !xring -> !xslot
      %v = tile.local_load %sc : !xslot -> tensor<16x16xf32, #r2>
      %b = arith.addf %a, %v : tensor<16x16xf32, #r2>
      scf.yield %b : tensor<16x16xf32, #r2>
    }
    tile.store %q, %acc : !pr
    return
  }

  func.func @masked_fill(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l>
    %ns = tile.splat %n : tensor<256xi32, #l>
    %m = arith.cmpi slt, %r, %ns : tensor<256xi32, #l>
    %xs = tile.splat %x : !p1
    %p = tile.addptr %xs, %r : !p1, tensor<256xi32, #l>
    %two = arith.constant dense<2.0> : tensor<256xf32, #l>
    %a = tile.local_alloc : () -> !m1
    %b = tile.local_alloc : () -> !m1
    %t0 = tile.async_copy_global_to_local %p, %a, %m, %two : !p1 -> !m1
    %g0 = tile.async_commit_group tokens %t0
    %t1 = tile_amd.buffer_load_to_local %x[%r], %b, %m : tensor<256xi1, #l> other %two : tensor<256xf32, #l> : !tile.ptr<f32>, tensor<256xi32, #l> -> !m1
    %g1 = tile.async_commit_group tokens %t1
    %w0 = tile.async_wait tokens %g0
    %va = tile.local_load %a : !m1 -> tensor<256xf32, #swap>
    %w1 = tile.async_wait tokens %g1
    %vb = tile.local_load %b : !m1 -> tensor<256xf32, #swap>
    %v = arith.addf %va, %vb : tensor<256xf32, #swap>
    %rs = tile.arange 0, 256 : tensor<256xi32, #swap>
    %ys = tile.splat %y : tensor<256x!tile.ptr<f32>, #swap>
    %q = tile.addptr %ys, %rs : tensor<256x!tile.ptr<f32>, #swap>, tensor<256xi32, #swap>
    tile.store %q, %v : tensor<256x!tile.ptr<f32>, #swap>
    return
  }
}
