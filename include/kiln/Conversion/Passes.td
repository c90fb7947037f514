#ifndef KILN_CONVERSION_PASSES_TD
#define KILN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToLLVMPass : Pass<"convert-tile-to-llvm", "mlir::ModuleOp"> {
  let summary = "Lower tile, arith, math, cf and func to the LLVM dialect";
  let description = [{
    Distributes every tensor over registers according to its F2-linear
    layout (one LLVM struct of registers per thread) and lowers tile ops with
    the target's hooks (its backend's TargetInfo and LLVM-level dialect). Global loads and stores
    are vectorized up to the target's widest access where layout contiguity,
    pointer alignment and mask constancy allow. Layout conversions,
    non-trivial reshapes and cross-warp reductions go through shared memory;
    run `tile-allocate-shared-memory` first. Structured control flow must
    already be lowered to `cf` (`convert-scf-to-cf`).

    The target and warp count come from the options or, when those are
    empty, from the module's `tile.target` / `tile.num_warps`; both given and
    different is an error.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target name (one of the known targets)">,
    Option<"numWarps", "num-warps", "int", /*default=*/"0",
           "Warps per CTA (0: take tile.num_warps from the module)">,
  ];
  // The vendor's LLVM-level dialect is added by each built-in backend
  // (Backend::registerDialects), in the pass's getDependentDialects.
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TilePrepareWarpSpecializePass : Pass<"tile-prepare-warp-specialize", "mlir::ModuleOp"> {
  let summary = "Check tile.warp_specialize against the target and give "
                "each worker partition its own copies";
  let description = [{
    Before the lowering (the pre-lowering stage of kiln-to-llvm): checks each
    `tile.warp_specialize` against the target (named barriers, at most 1024
    threads and 14 worker partitions, a register plan for
    `partition_num_regs` within the kernel's pool, the `maxnreg` cap
    included), gives each worker region its own copy of the values it uses
    from above (or reports the one it cannot recompute), and records the
    warps the kernel launches in `tile.total_num_warps` when partitions add
    some. `convert-tile-to-llvm` lowers only prepared ops.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target name (one of the known targets)">,
    Option<"numWarps", "num-warps", "int", /*default=*/"0",
           "Warps per CTA (0: take tile.num_warps from the module)">,
  ];
  // Scalars passed to worker partitions are stored and loaded with LLVM ops
  // (and a barrier of the target's dialect, added in getDependentDialects).
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def TileTagTensorDescParamsPass
    : Pass<"tile-tag-tensor-desc-params", "mlir::ModuleOp"> {
  let summary = "Check and tag the kernel parameters that are tensor descriptors";
  let description = [{
    Before the lowering (the pre-lowering stage of kiln-to-llvm): every
    `!tile.tensordesc` argument must belong to a kernel (a public function
    returning nothing) on a target that has tensor descriptors; each gets
    the unit argument attribute `tile.tensordesc`, which
    `convert-tile-to-llvm` requires and hands to the target (as a 128-byte
    grid constant, say) when it marks the kernels.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target name (one of the known targets)">,
  ];
}

def TileLowerWarpSpecializePass : Pass<"tile-lower-warp-specialize", "mlir::ModuleOp"> {
  let summary = "Lower the converted tile.warp_specialize to one control-flow graph";
  let description = [{
    After `convert-tile-to-llvm` (the lowering stage of kiln-to-llvm): CTA
    barriers become named barriers of their partition (id 0 for the
    kernel's warps, 2 + k for worker k), worker threads count their ids from
    the partition's first warp, worker warp groups set their register counts
    (setmaxnreg) and the regions are inlined into one control-flow graph:
    warps past the kernel's own branch to the worker dispatch, and every
    warp meets at named barrier 1 before and after the partitions.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target name (one of the known targets)">,
    Option<"numWarps", "num-warps", "int", /*default=*/"0",
           "Warps per CTA (0: take tile.num_warps from the module)">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif
