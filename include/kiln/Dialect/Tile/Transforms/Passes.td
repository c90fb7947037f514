#ifndef KILN_TILE_PASSES_TD
#define KILN_TILE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileAllocateSharedMemoryPass : Pass<"tile-allocate-shared-memory", "mlir::ModuleOp"> {
  let summary = "Assign shared memory to ops that need it and check the total";
  let description = [{
    Ops that stage data through shared memory (layout conversions that cross
    threads, non-trivial reshapes, reductions across warps) get a scratch
    buffer. Each such op brackets its use with barriers and releases it when
    it finishes, so scratch buffers share offset 0 and the total is the
    largest one; each op gets `tile.scratch_offset`. The module gets
    `tile.shared` (bytes), and the pass fails with a clear error when the
    total exceeds the target's per-CTA limit.
  }];
  let options = [
    Option<"target", "target", "std::string", /*default=*/"\"\"",
           "Target whose shared-memory limit applies (default: tile.target)">,
  ];
}

#endif
