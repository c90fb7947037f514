#ifndef KILN_TILE_BASE_TD
#define KILN_TILE_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::kiln::tile";
  let summary = "Target-neutral tile IR with explicit register layouts";
  let description = [{
    The `tile` dialect is Kiln's kernel IR at the level of Gluon: every tensor
    carries an explicit distributed layout (`#tile.blocked`, `#tile.slice`,
    `#tile.linear`) that says which thread, warp and register holds each
    element. Arithmetic, math and control flow use the upstream `arith`,
    `math` and `scf` dialects; `tile` adds pointers, ranges, shape ops,
    masked memory access, layout conversion and reductions.

    A kernel module carries its compile context as module attributes:

    ```mlir
    module attributes {tile.target = "cuda:sm_90a", tile.num_warps = 4 : i32,
                       tile.threads_per_warp = 32 : i32} {
      func.func @k(%x: !tile.ptr<f32>) { return }
    }
    ```

    Layouts are checked against `tile.num_warps` and `tile.threads_per_warp`
    when the module is verified.

    What goes where: `tile` holds what every target has (layouts, pointers,
    global and shared memory, async copies expressed in commit groups,
    barriers, dot). `tile_nv` holds what only NVIDIA has (NVMMA layouts,
    mbarrier, TMA, wgmma, mma_v2); `tile_amd` what only AMD has (MFMA
    layouts, buffer resources and buffer ops, direct-to-LDS copies, mfma).
    An op moves to a vendor dialect when its operands or semantics name
    hardware only one vendor has; the lowering of `tile` never asks which
    vendor it runs for, only the target description and `TargetInfo`.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  // The dialect's discardable attributes: the compile context on the module,
  // results of passes, and hints on kernel arguments. ODS generates a typed
  // helper per attribute (TileDialect::TargetAttrHelper: getNameStr,
  // getAttr, setAttr, isAttrPresent); verifyOperationAttribute and
  // verifyRegionArgAttribute check their values.
  let discardableAttrs = (ins
    // On the module: the target name ("<runtime>:<chip>").
    "::mlir::StringAttr":$target,
    // On the module: warps per CTA.
    "::mlir::IntegerAttr":$num_warps,
    // On the module, set by tile-prepare-warp-specialize when
    // tile.warp_specialize adds worker warps: the warps launched per CTA
    // (num_warps plus theirs).
    "::mlir::IntegerAttr":$total_num_warps,
    // On the module: the most registers per thread the kernel may use (the
    // maxnreg launch option; NVIDIA's .maxnreg).
    "::mlir::IntegerAttr":$maxnreg,
    // On the module: lanes per warp (must match the target).
    "::mlir::IntegerAttr":$threads_per_warp,
    // On the module: false turns off multiply-add fusion in code generation
    // (Triton's enable_fp_fusion=False); absent or true, a multiply feeding
    // an add may become one fma.
    "::mlir::BoolAttr":$fp_fusion,
    // On the module, set by tile-allocate-shared-memory: bytes per CTA.
    "::mlir::IntegerAttr":$shared,
    // On the module, set by the lowering when the kernel writes to global
    // scratch (device-side TMA descriptors): bytes per CTA, passed as the
    // kernel's last (hidden) pointer argument.
    "::mlir::IntegerAttr":$global_scratch,
    // On ops that stage through shared memory: their byte offset.
    "::mlir::IntegerAttr":$scratch_offset,
    // On a reduce, set by tile-split-cluster where the reduced axis was split
    // among the CTAs of a cluster: the bits of the CTA's rank that name the
    // other parts of the axis (the CTAs whose partial results it combines).
    "::mlir::IntegerAttr":$cluster_peers,
    // On convert_layout and reshape, set by tile-allocate-shared-memory when
    // the whole tile does not fit: the move stages through shared memory in
    // this many rounds (a power of two), each holding 1/rounds of the tile.
    "::mlir::IntegerAttr":$scratch_rounds,
    // On loops: the software-pipelining depth asked for.
    "::mlir::IntegerAttr":$num_stages,
    // On the ops of a num_stages loop body, set by tile-pipeline-assign-stages:
    // the pipeline stage (0 .. num_stages-1) and the order group within the
    // body (ops run in (cluster, body order)); removed by tile-pipeline-expand.
    "::mlir::IntegerAttr":$stage,
    "::mlir::IntegerAttr":$cluster,
    // On a stage-0 barrier wait a pipeliner made: tile-pipeline-expand
    // leaves it unpredicated in the iterations past the loop's end (the
    // phase it waits for is one that earlier iterations always complete).
    "::mlir::UnitAttr":$unpredicated,
    // On barrier inits and invalidates, set by tile::markBarrierRuns before
    // the lowering: the op's CTA barrier is another's of its run (after the
    // run's last init, before its first invalidate), so it emits none.
    "::mlir::UnitAttr":$shares_barrier,
    // On the async copies, commits, waits and barrier ops the pipeliner
    // made: "prologue" or "kernel", the part of the expanded loop they
    // belong to.
    "::mlir::StringAttr":$pipeline_part,
    // On kernel arguments of type !tile.tensordesc, set by
    // tile-tag-tensor-desc-params: checked for the target, passed as it says.
    "::mlir::UnitAttr":$tensordesc,
    // On pointer and integer kernel arguments: a power-of-two divisor.
    "::mlir::IntegerAttr":$divisibility,
    // On pointer kernel arguments, only the value 32: every element the
    // kernel reads or writes through the argument lies at a byte offset in
    // [0, 2^31 - 2) from it (the launcher sets it for a tensor whose storage
    // is under that size; the signature marker ":range32"), so 32-bit
    // unsigned byte offsets from the argument address all of it.
    "::mlir::IntegerAttr":$pointer_range,
    // On local_load, set by tile-insert-barriers: no async copy into the
    // bytes it reads can be in flight there (so it may be declared not to
    // alias any in-flight copy).
    "::mlir::UnitAttr":$synced_via_wait,
    // On a relaxed local_load (synced_via_wait from the DSL), set by
    // tile-check-async-safety where its run on the copy of the function
    // with the buffers control flow chooses named found no async copy into
    // the load's bytes in flight there: tile-insert-barriers, which cannot
    // name them, then does not warn.
    "::mlir::UnitAttr":$relaxed_load_checked,
    // On warp_specialize, set by tile-prepare-warp-specialize: checked
    // against the target, its worker regions given their own copies of what
    // they use from above (convert-tile-to-llvm lowers only these).
    "::mlir::UnitAttr":$partitions_prepared,
    // On warp_specialize, set by convert-tile-to-llvm: its regions' blocks
    // are converted (tile-lower-warp-specialize inlines them next).
    "::mlir::UnitAttr":$regions_converted
  );
  let extraClassDeclaration = [{
    /// LLVM keeps address spaces in 24 bits.
    static constexpr int kMaxAddressSpace = 1 << 24;
  private:
    void registerTypes();
    void registerAttributes();
  public:
  }];
}

// Every op of the tile dialects sits inside a function (verifyInFunction).
def Tile_InFunction : NativeOpTrait<"InFunction"> {
  let cppNamespace = "::kiln::tile";
}

// The op's tensor operands and results all have one layout (layout
// inference propagates it through them; vendor ops declare it too).
def Tile_SharesOneLayout : NativeOpTrait<"SharesOneLayout"> {
  let cppNamespace = "::kiln::tile";
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, !listconcat(traits, [Tile_InFunction])>;

#endif
