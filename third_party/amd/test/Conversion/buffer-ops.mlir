// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx942" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=hip:gfx942" | kiln-translate --target=hip:gfx942 --emit=amdgcn - | FileCheck %s --check-prefix=ASM

// Buffer loads and stores: one resource from the scalar base (raw, stride 0,
// numRecords 0x7FFFFFFE, gfx9 flags 0x27000), byte offsets = element offsets
// x 4, masked lanes at offset 2^31 (out of range: the load returns 0, the
// store is dropped), `other` selected where the mask is false.
#l = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#l1 = #tile.blocked<{sizePerThread = [1], threadsPerWarp = [64], warpsPerCTA = [4], order = [0]}>
#sh = #tile.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.threads_per_warp = 64 : i32} {
  // CHECK-LABEL: llvm.func @masked
  // CHECK: %[[OOB:.*]] = llvm.mlir.constant(-2147483648 : i32)
  // CHECK: %[[R:.*]] = rocdl.make.buffer.rsrc %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : <1> to <8>
  // CHECK: %[[OFF:.*]] = llvm.select %{{.*}}, %{{.*}}, %[[OOB]] : i1, i32
  // CHECK: rocdl.raw.ptr.buffer.load %[[R]], %[[OFF]], %{{.*}}, %{{.*}} : i32
  // CHECK: llvm.select %{{.*}} : i1, f32
  // CHECK: rocdl.raw.ptr.buffer.store
  // ASM-LABEL: masked:
  // ASM-COUNT-4: buffer_load_dword v{{[0-9]+}}, v{{[0-9]+}}, s[{{[0-9]+}}:{{[0-9]+}}], 0 offen
  // ASM: buffer_store_dword
  func.func @masked(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %n: i32) {
    %r = tile.arange 0, 1024 : tensor<1024xi32, #l>
    %ns = tile.splat %n : tensor<1024xi32, #l>
    %m = arith.cmpi slt, %r, %ns : tensor<1024xi32, #l>
    %z = arith.constant dense<1.0> : tensor<1024xf32, #l>
    %v = tile_amd.buffer_load %x[%r], %m : tensor<1024xi1, #l> other %z : tensor<1024xf32, #l> : !tile.ptr<f32>, tensor<1024xi32, #l> -> tensor<1024xf32, #l>
    tile_amd.buffer_store %v, %y[%r], %m : tensor<1024xi1, #l> : tensor<1024xf32, #l>, !tile.ptr<f32>, tensor<1024xi32, #l>
    return
  }

  // An `other` of zero bits (+0.0, integer 0) is what the out-of-range read
  // returns: no select after the load. -0.0 is not: selected.
  // CHECK-LABEL: llvm.func @zero_other
  // CHECK: rocdl.raw.ptr.buffer.load
  // CHECK-NOT: llvm.select %{{.*}} : i1, f32
  // CHECK-NOT: llvm.select %{{.*}} : i1, i32
  // CHECK: rocdl.raw.ptr.buffer.store
  // CHECK: rocdl.raw.ptr.buffer.load
  // CHECK-NOT: llvm.select %{{.*}} : i1, f32
  // CHECK-NOT: llvm.select %{{.*}} : i1, i32
  // CHECK: rocdl.raw.ptr.buffer.store
  // CHECK: rocdl.raw.ptr.buffer.load
  // CHECK: llvm.select %{{.*}} : i1, f32
  // CHECK: llvm.return
  func.func @zero_other(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %xi: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %yi: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %n: i32) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l1>
    %ns = tile.splat %n : tensor<256xi32, #l1>
    %m = arith.cmpi slt, %r, %ns : tensor<256xi32, #l1>
    %z = arith.constant dense<0.0> : tensor<256xf32, #l1>
    %v = tile_amd.buffer_load %x[%r], %m : tensor<256xi1, #l1> other %z : tensor<256xf32, #l1> : !tile.ptr<f32>, tensor<256xi32, #l1> -> tensor<256xf32, #l1>
    tile_amd.buffer_store %v, %y[%r] : tensor<256xf32, #l1>, !tile.ptr<f32>, tensor<256xi32, #l1>
    %zi = arith.constant dense<0> : tensor<256xi32, #l1>
    %vi = tile_amd.buffer_load %xi[%r], %m : tensor<256xi1, #l1> other %zi : tensor<256xi32, #l1> : !tile.ptr<i32>, tensor<256xi32, #l1> -> tensor<256xi32, #l1>
    tile_amd.buffer_store %vi, %yi[%r] : tensor<256xi32, #l1>, !tile.ptr<i32>, tensor<256xi32, #l1>
    %nz = arith.constant dense<-0.0> : tensor<256xf32, #l1>
    %w = tile_amd.buffer_load %x[%r], %m : tensor<256xi1, #l1> other %nz : tensor<256xf32, #l1> : !tile.ptr<f32>, tensor<256xi32, #l1> -> tensor<256xf32, #l1>
    tile_amd.buffer_store %w, %y[%r] : tensor<256xf32, #l1>, !tile.ptr<f32>, tensor<256xi32, #l1>
    return
  }

  // Contiguous, 16-byte aligned offsets and no mask: one 16-byte access per
  // thread, cache policy bits from the modifier (.cg: sc0 = 1; .cs: nt = 2).
  // CHECK-LABEL: llvm.func @vectorized
  // CHECK: rocdl.raw.ptr.buffer.load %{{.*}} : vector<4xi32>
  // CHECK: rocdl.raw.ptr.buffer.store %{{.*}} : vector<4xi32>
  // ASM-LABEL: vectorized:
  // ASM: buffer_load_dwordx4 {{.*}} offen sc0
  // ASM: buffer_store_dwordx4 {{.*}} offen nt
  func.func @vectorized(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 1024 : tensor<1024xi32, #l>
    %v = tile_amd.buffer_load %x[%r] {cache = ".cg"} : !tile.ptr<f32>, tensor<1024xi32, #l> -> tensor<1024xf32, #l>
    tile_amd.buffer_store %v, %y[%r] {cache = ".cs"} : tensor<1024xf32, #l>, !tile.ptr<f32>, tensor<1024xi32, #l>
    return
  }

  // Direct-to-LDS through the resource: M0 = this wave's LDS base
  // (readfirstlane), the copy in the "direct-to-LDS copies" alias scope; the
  // wait counts the copy's one instruction, and the buffer store after the
  // read is not between copy and wait, so vmcnt(0).
  // CHECK-LABEL: llvm.func @to_lds
  // CHECK: rocdl.readfirstlane
  // CHECK: rocdl.raw.ptr.buffer.load.lds %{{.*}} {alias_scopes = [#{{.*}}]}
  // CHECK: rocdl.s.waitcnt 3952
  // ASM-LABEL: to_lds:
  // ASM: s_mov_b32 m0, s{{[0-9]+}}
  // ASM: buffer_load_dword v{{[0-9]+}}, s[{{[0-9]+}}:{{[0-9]+}}], 0 offen lds
  // ASM-NEXT: s_waitcnt vmcnt(0)
  // ASM-NEXT: ds_read_b32
  func.func @to_lds(%x: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %y: !tile.ptr<f32> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l1>
    %a = tile.local_alloc : () -> !tile.memdesc<256xf32, #sh, mutable>
    %t = tile_amd.buffer_load_to_local %x[%r], %a : !tile.ptr<f32>, tensor<256xi32, #l1> -> !tile.memdesc<256xf32, #sh, mutable>
    %g = tile.async_commit_group tokens %t
    %w = tile.async_wait tokens %g
    %v = tile.local_load %a : !tile.memdesc<256xf32, #sh, mutable> -> tensor<256xf32, #l1>
    tile_amd.buffer_store %v, %y[%r] : tensor<256xf32, #l1>, !tile.ptr<f32>, tensor<256xi32, #l1>
    return
  }
}
