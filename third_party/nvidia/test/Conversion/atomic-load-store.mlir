// REQUIRES: ptxas
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | FileCheck %s
// RUN: kiln-opt %s --kiln-to-llvm="target=cuda:sm_90a" | kiln-translate --target=cuda:sm_90a --emit=ptx - -o %t.ptx
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90a %t.ptx -o %t.cubin

// Four consecutive, 16-byte aligned i32 a thread: one relaxed v4 load, then
// the acquire's fence; the release's fence, then one relaxed v4 store by the
// owning thread.
// CHECK-LABEL: llvm.func @words
// CHECK: llvm.inline_asm has_side_effects "ld.relaxed.gpu.global.v4.b32 {$0, $1, $2, $3}, [$4];", "=&r,=&r,=&r,=&r,l"
// CHECK: llvm.inline_asm has_side_effects "fence.acq_rel.gpu;", ""
// CHECK: llvm.inline_asm has_side_effects "fence.acq_rel.gpu;", ""
// CHECK: llvm.inline_asm has_side_effects "st.relaxed.gpu.global.v4.b32 [$0], {$1, $2, $3, $4};", "l,r,r,r,r"
// PTX-LABEL: .entry words
// PTX: ld.relaxed.gpu.global.v4.b32
// PTX: fence.acq_rel.gpu
// PTX: fence.acq_rel.gpu
// PTX: st.relaxed.gpu.global.v4.b32
#l2 = #tile.blocked<{sizePerThread = [2], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
#l4 = #tile.blocked<{sizePerThread = [4], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @words(%src: !tile.ptr<i32> {tile.divisibility = 16 : i32}, %dst: !tile.ptr<i32> {tile.divisibility = 16 : i32}) {
    %r = tile.arange 0, 512 : tensor<512xi32, #l4>
    %ps = tile.splat %src : tensor<512x!tile.ptr<i32>, #l4>
    %p = tile.addptr %ps, %r : tensor<512x!tile.ptr<i32>, #l4>, tensor<512xi32, #l4>
    %v = tile_nv.atomic_load %p {sem = "acquire", scope = "gpu"} : (tensor<512x!tile.ptr<i32>, #l4>) -> tensor<512xi32, #l4>
    %qs = tile.splat %dst : tensor<512x!tile.ptr<i32>, #l4>
    %q = tile.addptr %qs, %r : tensor<512x!tile.ptr<i32>, #l4>, tensor<512xi32, #l4>
    tile_nv.atomic_store %q, %v {sem = "release", scope = "gpu"} : (tensor<512x!tile.ptr<i32>, #l4>, tensor<512xi32, #l4>) -> ()
    return
  }


// Bytes: two i8 a thread travel as one b16 word (a 16-bit register, the
// bytes packed); a mask constant over the pair is the access's predicate,
// the masked-off load 0.
// CHECK-LABEL: llvm.func @bytes
// CHECK: llvm.inline_asm has_side_effects "mov.b16 $0, 0;\0A@$2 ld.relaxed.cta.global.b16 $0, [$1];", "=&h,l,b"
// CHECK-NOT: fence
// CHECK: llvm.inline_asm has_side_effects "@$2 st.relaxed.cta.global.b16 [$0], $1;", "l,h,b"
// PTX-LABEL: .entry bytes
// PTX: ld.relaxed.cta.global.b16
// PTX: st.relaxed.cta.global.b16
  func.func public @bytes(%src: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %dst: !tile.ptr<i8> {tile.divisibility = 16 : i32}, %n: i32) {
    %r = tile.arange 0, 256 : tensor<256xi32, #l2>
    %ns = tile.splat %n : tensor<256xi32, #l2>
    %c2 = arith.constant dense<2> : tensor<256xi32, #l2>
    %h = arith.divsi %r, %c2 : tensor<256xi32, #l2>
    %m = arith.cmpi slt, %h, %ns : tensor<256xi32, #l2>
    %ps = tile.splat %src : tensor<256x!tile.ptr<i8>, #l2>
    %p = tile.addptr %ps, %r : tensor<256x!tile.ptr<i8>, #l2>, tensor<256xi32, #l2>
    %v = tile_nv.atomic_load %p, %m {sem = "relaxed", scope = "cta"} : (tensor<256x!tile.ptr<i8>, #l2>, tensor<256xi1, #l2>) -> tensor<256xi8, #l2>
    %qs = tile.splat %dst : tensor<256x!tile.ptr<i8>, #l2>
    %q = tile.addptr %qs, %r : tensor<256x!tile.ptr<i8>, #l2>, tensor<256xi32, #l2>
    tile_nv.atomic_store %q, %v, %m {sem = "relaxed", scope = "cta"} : (tensor<256x!tile.ptr<i8>, #l2>, tensor<256xi8, #l2>, tensor<256xi1, #l2>) -> ()
    return
  }
}
