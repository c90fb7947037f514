// REQUIRES: ptxas
// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=cuda:sm_90a" -verify-diagnostics | FileCheck %s
// RUN: kiln-opt %s -split-input-file --kiln-to-llvm="target=cuda:sm_90a" -verify-diagnostics | kiln-translate --target=cuda:sm_90a --emit=ptx - | FileCheck %s --check-prefix=PTX

// Id k is the hardware's barrier 15 - k, with the thread count given; inside
// a warp_specialize partition it stays as written (Kiln renames only its own
// CTA barriers there, to the partition's barrier).
// CHECK-LABEL: llvm.func @ping_pong
// CHECK-DAG: %[[C15:.*]] = llvm.mlir.constant(15 : i32)
// CHECK-DAG: %[[C14:.*]] = llvm.mlir.constant(14 : i32)
// CHECK-DAG: %[[C256:.*]] = llvm.mlir.constant(256 : i32)
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.count"(%[[C15]], %[[C256]])
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"(%[[C14]], %[[C256]])
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.sync.aligned.count"(%[[C14]], %[[C256]])
// CHECK: llvm.call_intrinsic "llvm.nvvm.barrier.cta.arrive.aligned.count"(%[[C15]], %[[C256]])
// PTX-LABEL: .entry ping_pong
// PTX-DAG: bar.sync {{.*}}15, 256;
// PTX-DAG: bar.arrive {{.*}}14, 256;
// PTX-DAG: bar.sync {{.*}}14, 256;
// PTX-DAG: bar.arrive {{.*}}15, 256;
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @ping_pong() {
    tile.warp_specialize partition_num_warps = [4] partition_num_regs = [232] {
      tile_nv.named_barrier_sync 0, 256
      tile_nv.named_barrier_arrive 1, 256
      tile.warp_yield
    } partitions {
      tile_nv.named_barrier_sync 1, 256
      tile_nv.named_barrier_arrive 0, 256
      tile.warp_yield
    }
    return
  }
}

// -----

// With 13 worker partitions Kiln uses barriers 0 to 14: id 0 (barrier 15) is
// free, id 1 (barrier 14) is not.
module attributes {tile.num_warps = 4 : i32, tile.target = "cuda:sm_90a", tile.threads_per_warp = 32 : i32} {
  func.func public @collision() {
    tile_nv.named_barrier_sync 0, 128
    // expected-error @+1 {{'tile_nv.named_barrier_arrive' op uses barrier id 1 (the hardware's barrier 14), which this kernel's warp_specialize needs for 13 worker partition(s): use ids below 1}}
    tile_nv.named_barrier_arrive 1, 128
    tile.warp_specialize partition_num_warps = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] partition_num_regs = [24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24, 24] {
      tile.warp_yield
    } partitions {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }, {
      tile.warp_yield
    }
    return
  }
}
