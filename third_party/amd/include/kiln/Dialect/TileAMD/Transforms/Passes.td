//===- Passes.td - AMD's tile-level passes -----------------*- tablegen -*-===//
//
// Passes of the AMD backend. AMDBackend::addPasses puts each in its stage of
// kiln-to-llvm (kiln/Pipelines/Pipelines.h); each leaves modules of other
// vendors' targets alone.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_TILEAMD_TRANSFORMS_PASSES
#define KILN_DIALECT_TILEAMD_TRANSFORMS_PASSES

include "mlir/Pass/PassBase.td"

def TileAMDPipelineBufferCopiesPass
    : Pass<"tile-amd-pipeline-buffer-copies", "mlir::ModuleOp"> {
  let summary = "The pipeliner's direct-to-LDS copies through buffer resources, masked by address";
  let description = [{
    Stage: schedule, after core's pipelining passes. A masked
    `tile.async_copy_global_to_local` the pipeliner made (tagged
    `tile.pipeline_part`) lowers to a direct-to-LDS load that a wave whose
    lanes are all masked off branches around, so `tile-insert-wait-counts`
    cannot count it and the loop's wait becomes `vmcnt(0)`. Where its
    pointers are one scalar base plus i32 element offsets (splat, addptr,
    broadcast, expand_dims) and its `other` is zero, it becomes
    `tile_amd.buffer_load_to_local` of that base and those offsets: masked
    lanes read past the resource's end instead (zeros), every wave issues
    the instruction, and the counts are exact.

    The resource reads base + an unsigned 32-bit byte offset and returns
    zeros from 2^31 - 2 bytes on, where the copy reads base + the
    sign-extended offset; so a copy converts only where its offsets are
    proven within [0, 2^31 - 2) bytes: integer range analysis (upstream
    IntegerRangeAnalysis over arith, scf and the tile ops' ranges) bounds
    the sum of its offset terms in that interval for every lane, or the
    base is a kernel argument with `tile.pointer_range = 32` (the launcher
    specializes a tensor under 2 GiB so; the kernel's accesses through it
    stay inside the tensor). Other copies stay, each with a remark saying
    why.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target name (default: the module's tile.target)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "kiln::tile_amd::TileAMDDialect"];
}

#endif
