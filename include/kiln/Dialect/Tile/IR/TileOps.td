#ifndef KILN_TILE_OPS_TD
#define KILN_TILE_OPS_TD

include "kiln/Dialect/Tile/IR/TileBase.td"
include "kiln/Dialect/Tile/IR/TileTypes.td"
include "kiln/Dialect/Tile/IR/TileAttrs.td"
include "kiln/Dialect/Tile/IR/TileInterfaces.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonAttrConstraints.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/InferIntRangeInterface.td"

def Tile_AxisAttr : ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>;

//===----------------------------------------------------------------------===//
// Program ids
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = "Index of this program (CTA / workgroup) along a grid axis";
  let description = [{
    ```mlir
    %pid = tile.program_id 0
    ```
    `axis` is 0, 1 or 2. Integer range analysis takes it in
    [0, 2^31 - 2] (a grid axis holds at most 2^31 - 1 programs).
  }];
  let arguments = (ins Tile_AxisAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = "Number of programs along a grid axis";
  let description = [{
    ```mlir
    %n = tile.num_programs 1
    ```
  }];
  let arguments = (ins Tile_AxisAttr:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

//===----------------------------------------------------------------------===//
// Tensor creation and shape
//===----------------------------------------------------------------------===//

def Tile_ArangeOp : Tile_Op<"arange", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = "1-D range [start, end) in a given layout";
  let description = [{
    ```mlir
    %r = tile.arange 0, 128 : tensor<128xi32, #l>
    ```
    `end - start` must equal the result size, a power of two.
  }];
  let arguments = (ins I32Attr:$start, I32Attr:$end);
  let results = (outs RankedTensorOf<[I32]>:$result);
  let assemblyFormat = "$start `,` $end attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>,
    TypesMatchWith<"result element type matches the scalar", "result", "src",
                   "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "Fill a tensor with one scalar";
  let description = [{
    ```mlir
    %t = tile.splat %x : tensor<128xf32, #l>
    ```
  }];
  let arguments = (ins Tile_Scalar:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($result)";
}

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure, SameOperandsAndResultElementType,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>,
    Tile_SharesOneLayout]> {
  let summary = "Broadcast size-1 dimensions to a larger shape";
  let description = [{
    Source and result have the same rank and layout; each source dimension
    equals the result's or is 1.

    ```mlir
    %b = tile.broadcast %x : tensor<1x64xf32, #l> -> tensor<32x64xf32, #l>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ExpandDimsOp : Tile_Op<"expand_dims", [Pure, SameOperandsAndResultElementType,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = "Insert a size-1 dimension";
  let description = [{
    The source layout must be `#tile.slice<{dim = axis, parent = P}>` and the
    result layout `P`.

    ```mlir
    %e = tile.expand_dims %x {axis = 1 : i32}
        : tensor<64xi32, #tile.slice<{dim = 1, parent = #l}>> -> tensor<64x1xi32, #l>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_ReshapeOp : Tile_Op<"reshape", [Pure, SameOperandsAndResultElementType,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = "Reinterpret a tensor with another shape (row-major order)";
  let description = [{
    The element count must not change. Layouts may differ; a reshape whose
    layouts do not line up moves data like `tile.convert_layout`.

    ```mlir
    %r = tile.reshape %x : tensor<8x16xf32, #a> -> tensor<128xf32, #b>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_TransOp : Tile_Op<"trans", [Pure, SameOperandsAndResultElementType]> {
  let summary = "Permute a tensor's dimensions in registers";
  let description = [{
    Dimension `i` of the result is dimension `order[i]` of `src`. The result's
    layout must be `src`'s with each basis's coordinates permuted the same
    way, so every thread keeps its registers: the op moves no data (Gluon's
    `permute` of a distributed tensor).

    ```mlir
    %t = tile.trans %x {order = array<i32: 1, 0>}
        : tensor<16x64xf32, #a> -> tensor<64x16xf32, #a_transposed>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, DenseI32ArrayAttr:$order);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SplitOp : Tile_Op<"split", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "The two halves of a last dimension of size 2, from registers";
  let description = [{
    `lhs` is `src[..., 0]`, `rhs` is `src[..., 1]` (Gluon's `split`). Each
    thread holds both elements of every pair in its registers: `src`'s
    layout has a register basis that moves one step along the last
    dimension and no other basis moves along it, and the results' layout
    is `src`'s with that basis and the last dimension removed (as a linear
    layout; tile-resolve-layouts infers either side from the other). The op
    moves no data.

    ```mlir
    %lo, %hi = tile.split %x : tensor<128x2xi32, #pairs> -> tensor<128xi32, #l>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$lhs, Tile_Tensor:$rhs);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($lhs)";
  let hasVerifier = 1;
}

def Tile_JoinOp : Tile_Op<"join", [Pure, AllTypesMatch<["lhs", "rhs"]>]> {
  let summary = "A new last dimension of size 2 holding two tensors, in registers";
  let description = [{
    `result[..., 0]` is `lhs`, `result[..., 1]` is `rhs` (Gluon's `join`):
    `tile.split`'s inverse, with the same layouts (the result's layout has a
    register basis one step along its last dimension and is the operands'
    with it removed). The op moves no data.

    ```mlir
    %p = tile.join %lo, %hi : tensor<128xi32, #l> -> tensor<128x2xi32, #pairs>
    ```
  }];
  let arguments = (ins Tile_Tensor:$lhs, Tile_Tensor:$rhs);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($lhs) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_HintOp : Tile_Op<"hint", [Pure, AllTypesMatch<["src", "result"]>,
    DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = "The user's promise about a value's contiguity, divisibility or constancy";
  let description = [{
    The result is `src`; the attributes are what the user promises about it
    (Gluon's `multiple_of`, `max_contiguous`, `max_constancy`), one power of
    two per dimension (one for a scalar), with the axis analysis's meaning
    (include/kiln/Analysis/AxisInfo.h): `divisibility` divides the first
    element of each aligned contiguous group (bytes for pointers),
    `contiguity` elements in aligned groups are consecutive, `constancy`
    elements in aligned groups are equal. The axis analysis takes the larger
    of its own claim and the promise; a false promise is undefined behaviour,
    as in Triton.

    ```mlir
    %o = tile.hint %x {divisibility = array<i64: 16>, contiguity = array<i64: 128>}
        : tensor<128xi32, #l>
    ```
  }];
  let arguments = (ins AnyType:$src,
                       OptionalAttr<DenseI64ArrayAttr>:$divisibility,
                       OptionalAttr<DenseI64ArrayAttr>:$contiguity,
                       OptionalAttr<DenseI64ArrayAttr>:$constancy);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Tile_AssumeOp : Tile_Op<"assume", [MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "The user's promise that a condition holds (Gluon's assume)";
  let description = [{
    Every element of `cond` (an i1 scalar or tensor) is true; a false one
    is undefined behaviour. Lowered to `llvm.intr.assume` per register, for
    LLVM's optimizations. Kiln's integer ranges (kiln::IntRanges) read an
    i1 one at the top level of a function comparing a kernel argument with
    a constant (or a conjunction of such). It is kept like a memory write so
    that nothing deletes it.

    ```mlir
    tile.assume %c : i1
    ```
  }];
  let arguments = (ins AnyTypeOf<[I1, Tile_BoolTensor]>:$cond);
  let assemblyFormat = "$cond attr-dict `:` type($cond)";
}

def Tile_AssertOp : Tile_Op<"assert", [MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Stop the kernel where a condition is false (Gluon's device_assert)";
  let description = [{
    Every element of `cond` (an i1 scalar or tensor) must be true. A thread
    holding a false element reports `message` with the op's file, line and
    function and stops the kernel, as the target's device-side assert does
    (the driver prints the report and the launch fails); a target without
    one traps. The frontend emits it only in debug mode.

    ```mlir
    tile.assert %c, "x must be positive" : tensor<128xi1, #l>
    ```
  }];
  let arguments = (ins AnyTypeOf<[I1, Tile_BoolTensor]>:$cond, StrAttr:$message);
  let assemblyFormat = "$cond `,` $message attr-dict `:` type($cond)";
}

def Tile_SetAutoLayoutOp : Tile_Op<"set_auto_layout",
    [Pure, SameOperandsAndResultShape, SameOperandsAndResultElementType]> {
  let summary = "Fix the layout of a tensor whose layout is inferred";
  let description = [{
    The source has `#tile.auto`; the result has the layout the user chose
    (a distributed layout or `#tile.coalesced`). `tile-resolve-layouts`
    propagates it to the source and the values tied to it, then removes the
    op. Where the source must have another layout (another
    `set_auto_layout` fixed it first), the op becomes a
    `tile.convert_layout` and the pass says so in a remark.

    ```mlir
    %p = tile.set_auto_layout %q : tensor<64x!tile.ptr<f32>, #tile.auto>
        -> tensor<64x!tile.ptr<f32>, #l>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_DotFmaOp : Tile_Op<"dot_fma", [Pure, AllTypesMatch<["c", "result"]>]> {
  let summary = "Matrix product without matrix cores: d = a x b + c";
  let description = [{
    `a` is [batch,] M x K, `b` [batch,] K x N, `c` and the result
    [batch,] M x N. `c` has a blocked layout P; `a` and `b` have
    `#tile.dot_operand<{opIdx = 0 / 1, parent = P}>`, so every thread
    already holds the K elements of each product it computes: no data moves
    between threads. `a` and `b` share an element type; products are formed
    in `c`'s type (floats extended, fused multiply-add; integers extended by
    sign, multiply and add).

    ```mlir
    %d = tile.dot_fma %a, %b, %c : tensor<32x32xf32, #da>, tensor<32x32xf32, #db>
        -> tensor<32x32xf32, #p>
    ```
  }];
  let arguments = (ins Tile_Tensor:$a, Tile_Tensor:$b, Tile_Tensor:$c);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_ConvertLayoutOp : Tile_Op<"convert_layout",
    [Pure, SameOperandsAndResultShape, SameOperandsAndResultElementType,
     DeclareOpInterfaceMethods<InferIntRangeInterface, ["inferResultRanges"]>]> {
  let summary = "Move a tensor to another register layout";
  let description = [{
    ```mlir
    %y = tile.convert_layout %x : tensor<64x64xf32, #a> -> tensor<64x64xf32, #b>
    ```
    Lowered to a register permutation when only registers move, otherwise
    through shared memory with barriers.
  }];
  let arguments = (ins Tile_Tensor:$src);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

include "kiln/Dialect/Tile/IR/TileMemoryOps.td"

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

def Tile_ReduceOp : Tile_Op<"reduce", [SingleBlock,
                                       RecursiveMemoryEffects]> {
  let summary = "Reduce tensors along one axis with a combine region";
  let description = [{
    One or more tensors of one shape and layout are reduced together: the
    region combines two tuples of scalars, `(a0, .., aN-1)` then
    `(b0, .., bN-1)`, and returns one tuple; it must be associative and
    commutative. Each result has its source's shape without `axis` and the
    layout `#tile.slice<{dim = axis, parent = <source layout>}>`; reducing
    1-D tensors gives scalars.

    ```mlir
    %s = tile.reduce %x {axis = 1 : i32} : tensor<64x128xf32, #l> -> tensor<64xf32, #s> {
    ^bb0(%a: f32, %b: f32):
      %c = arith.addf %a, %b : f32
      tile.reduce_return %c : f32
    }
    %m, %i = tile.reduce %v, %idx {axis = 0 : i32} : tensor<128xf32, #l>, tensor<128xi32, #l> -> f32, i32 {
    ^bb0(%a: f32, %ai: i32, %b: f32, %bi: i32):
      ...
      tile.reduce_return %c, %ci : f32, i32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis);
  let results = (outs Variadic<Tile_Value>:$results);
  let regions = (region SizedRegion<1>:$combine);
  let assemblyFormat = "$srcs attr-dict `:` type($srcs) `->` type($results) $combine";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The first source (all share its shape and layout).
    mlir::TypedValue<mlir::RankedTensorType> getSrc() {
      return mlir::cast<mlir::TypedValue<mlir::RankedTensorType>>(getSrcs().front());
    }
  }];
}

def Tile_ReduceReturnOp : Tile_Op<"reduce_return",
    [HasParent<"ReduceOp">, Pure, Terminator, ReturnLike]> {
  let summary = "Terminator of a tile.reduce combine region";
  let description = [{
    ```mlir
    tile.reduce_return %c : f32
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$results);
  let assemblyFormat = "$results attr-dict `:` type($results)";
}

def Tile_ExtractSliceOp : Tile_Op<"extract_slice", [Pure, Tile_SharesOneLayout]> {
  let summary = "A block of a tensor held by the same threads (Gluon's register-only slice)";
  let description = [{
    The elements `offsets .. offsets + shape` of `src`, in `src`'s layout
    applied to the smaller shape: only registers are picked, no data moves
    between threads. So the layout must place the result's elements on the
    same lanes, warps and CTAs as the source's (the slice spans whole tiles
    of the layout's threads) and each offset must be a multiple of the
    result's size along its dimension.

    ```mlir
    %s = tile.extract_slice %x {offsets = array<i64: 0, 32>} : tensor<32x128xf32, #mma> -> tensor<32x32xf32, #mma>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, DenseI64ArrayAttr:$offsets);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = "$src attr-dict `:` type($src) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_GatherOp : Tile_Op<"gather", [Pure]> {
  let summary = "Gather along one axis within each warp (Gluon's gather)";
  let description = [{
    `result[I] = src[I with I[axis] replaced by indices[I]]`. The result has
    the shape and layout of `indices` and the element type of `src`; the two
    shapes agree except along `axis`. Lowered with warp shuffles: every
    element an output thread needs must live in its own warp (checked where
    it is lowered). An index outside `[0, src.shape[axis])` reads an
    unspecified element of the row.

    ```mlir
    %g = tile.gather %src[%idx] {axis = 0 : i32}
        : (tensor<32x16xf32, #a>, tensor<64x16xi32, #b>) -> tensor<64x16xf32, #b>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, Tile_Tensor:$indices, I32Attr:$axis);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src `[` $indices `]` attr-dict `:` `(` type($src) `,` type($indices) `)`
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_HistogramOp : Tile_Op<"histogram", [Pure]> {
  let summary = "Counts of the values 0 .. n-1 of a 1-D integer tensor (Gluon's histogram)";
  let description = [{
    Element b of the result is the number of elements of `src` equal to b
    (of those where `mask` holds, when given); values outside [0, n), n the
    result's size (a power of two), are not counted. An element several
    threads hold is counted once. The lowering counts into a shared-memory
    scratch of n i32 by atomic adds between barriers, so its cost grows with
    the elements, not with elements x bins.

    ```mlir
    %h = tile.histogram %x : tensor<256xi32, #l> -> tensor<64xi32, #r>
    %g = tile.histogram %x, %m : tensor<256xi32, #l>, tensor<256xi1, #l> -> tensor<4096xi32, #r>
    ```
  }];
  let arguments = (ins Tile_Tensor:$src, Optional<Tile_Tensor>:$mask);
  let results = (outs Tile_Tensor:$result);
  let assemblyFormat = [{
    $src (`,` $mask^)? attr-dict `:` type($src) (`,` type($mask)^)? `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_InlineAsmOp : Tile_Op<"inline_asm_elementwise",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Inline assembly over the elements of tensors (Gluon's inline_asm_elementwise)";
  let description = [{
    Every `pack` elements of the operands (all of one shape and layout) go
    through one `asm` statement with `constraints` (the target's syntax,
    outputs first); elements narrower than 32 bits are packed into 32-bit
    registers. Results have the operands' shape and layout. Without `pure`
    it may touch any memory (it stays in place, and is kept even when its
    results are unused); with `pure` it touches none.

    ```mlir
    %y = tile.inline_asm_elementwise "shl.b32 $0, $1, 3;", "=r,r", %x
        {pack = 1 : i32, pure = true} : (tensor<128xi32, #l>) -> tensor<128xi32, #l>
    ```
  }];
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints,
                       Variadic<Tile_Tensor>:$args, BoolAttr:$pure, I32Attr:$pack);
  let results = (outs Variadic<Tile_Tensor>:$results);
  let assemblyFormat = [{
    $asm_string `,` $constraints (`,` $args^)? attr-dict `:` functional-type($args, $results)
  }];
  let hasVerifier = 1;
}

def Tile_InlineAsmThreadOp : Tile_Op<"inline_asm",
    [DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Inline assembly run once per thread (Gluon's inline_asm)";
  let description = [{
    One `asm` statement per thread. A tensor operand contributes every
    register the thread holds of it, in the layout's register order
    (replicated ones included), each its own asm operand; a scalar is one
    operand; a shared-memory view is its 32-bit shared address (then the
    op may not be `pure`). A tensor result likewise takes one output
    operand per register; results come first in `constraints`. Elements
    narrower than 32 bits are not packed.

    ```mlir
    %y = tile.inline_asm "mov.b32 $0, $1;", "=r,r", %x
        {pure = true} : (tensor<128xi32, #l>) -> tensor<128xi32, #l>
    ```
  }];
  let arguments = (ins StrAttr:$asm_string, StrAttr:$constraints,
                       Variadic<AnyType>:$args, BoolAttr:$pure);
  let results = (outs Variadic<AnyType>:$results);
  let assemblyFormat = [{
    $asm_string `,` $constraints (`,` $args^)? attr-dict `:` functional-type($args, $results)
  }];
  let hasVerifier = 1;
}

def Tile_ExternElementwiseOp : Tile_Op<"extern_elementwise", [Pure, Tile_SharesOneLayout]> {
  let summary = "A function of a vendor library over the elements of tensors";
  let description = [{
    Calls `symbol`, a pure scalar function of a device library the backend
    links (Backend::linkLibraries), once per element the thread holds
    of the operands (tensors of one shape and layout, or scalars); the
    result has their shape and layout. Gluon's `extra.libdevice` functions.

    ```mlir
    %y = tile.extern_elementwise "__nv_erff", %x : (tensor<128xf32, #l>) -> tensor<128xf32, #l>
    ```
  }];
  let arguments = (ins StrAttr:$symbol, Variadic<AnyType>:$args);
  let results = (outs AnyType:$result);
  let assemblyFormat = [{
    $symbol (`,` $args^)? attr-dict `:` functional-type($args, $result)
  }];
  let hasVerifier = 1;
}

def Tile_PrintOp : Tile_Op<"print", [MemoryEffects<[MemWrite<DefaultResource>]>]> {
  let summary = "Print values from the device (Gluon's device_print)";
  let description = [{
    Each thread prints, for every element it holds of each operand (tensors
    of one shape, or scalars), a line `pid (x, y, z) idx (i, j) <prefix>
    [(operand n) ]<value>` through the target's device printf; `hex` prints
    integers in hexadecimal, `isSigned` says per operand whether an integer
    is signed. A thread prints the elements it repeats too.

    ```mlir
    tile.print " x: ", %x {hex = false, isSigned = array<i32: 1>} : tensor<128xi32, #l>
    ```
  }];
  let arguments = (ins StrAttr:$prefix, Variadic<AnyType>:$args, BoolAttr:$hex,
                       DenseI32ArrayAttr:$isSigned);
  let assemblyFormat = "$prefix (`,` $args^)? attr-dict (`:` type($args)^)?";
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan", [SingleBlock, RecursiveMemoryEffects,
    Tile_SharesOneLayout,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "Inclusive scan along one axis";
  let description = [{
    Element p of each result combines, in order, the elements of the sources
    at positions 0..p along `axis` (n-1..p with `reverse`). One or more
    tensors of one shape and layout are scanned together: the region takes
    the earlier partial result's tuple `(a0, .., aN-1)`, then the element's
    `(b0, .., bN-1)`, and returns one tuple; it must be associative. Any
    layout whose bases each move along the axis by a power of two or along
    other dimensions only: the lowering scans within registers, across lanes
    by shuffles and across warps through shared memory (scratch).

    ```mlir
    %s = tile.scan %x {axis = 1 : i32, reverse = false} : tensor<64x32xi32, #l> {
    ^bb0(%a: i32, %b: i32):
      %c = arith.addi %a, %b : i32
      tile.scan_return %c : i32
    }
    ```
  }];
  let arguments = (ins Variadic<Tile_Tensor>:$srcs, I32Attr:$axis,
                       BoolAttr:$reverse);
  let results = (outs Variadic<Tile_Tensor>:$results);
  let regions = (region SizedRegion<1>:$combine);
  let assemblyFormat = "$srcs attr-dict `:` type($srcs) $combine";
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The first source (all share its shape and layout).
    mlir::TypedValue<mlir::RankedTensorType> getSrc() {
      return mlir::cast<mlir::TypedValue<mlir::RankedTensorType>>(getSrcs().front());
    }
  }];
}

def Tile_ScanReturnOp : Tile_Op<"scan_return",
    [HasParent<"ScanOp">, Pure, Terminator, ReturnLike]> {
  let summary = "Terminator of a tile.scan combine region";
  let arguments = (ins Variadic<AnyType>:$results);
  let assemblyFormat = "$results attr-dict `:` type($results)";
}

//===----------------------------------------------------------------------===//
// Warp specialization
//===----------------------------------------------------------------------===//

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize",
    [RecursiveMemoryEffects]> {
  let summary = "Run partitions of the CTA's warps concurrently";
  let description = [{
    The kernel's own warps (its `tile.num_warps`) run the default region;
    each further region is a worker partition of `partitionNumWarps[k]`
    extra warps, launched with the kernel, that runs concurrently with it.
    The partitions share shared memory and synchronize through mbarriers;
    a CTA barrier inside a partition orders that partition's warps only.
    Everything before the op is ordered before every partition, and every
    partition ends before what follows it.

    Worker partitions are placed after the kernel's warps, largest first,
    each starting at a multiple of min(its warps, 4): a partition of 4 warps
    is one whole warp group (as wgmma needs). Inside worker partition k,
    thread and warp ids count from the partition's first warp and tensor layouts are over its
    `partitionNumWarps[k]` warps. A worker partition uses no value of the
    default warps: it may use the kernel's arguments and values the
    lowering can recompute from them (constants, program ids, integer
    arithmetic, shared-memory allocations and their views).

    `partitionNumRegs` (optional) is the register budget asked for each
    worker partition (Gluon's `worker_num_regs`).

    The op's results are the values the default region yields (Gluon's
    `warp_specialize` returns the default partition's return value): after
    the op they are in the kernel's warps, which computed them. Worker
    partitions yield nothing.

    The op sits at the top level of a kernel, at most once per kernel.

    ```mlir
    tile.warp_specialize partition_num_warps = [1] {
      ... default: the kernel's warps ...
      tile.warp_yield
    } partitions {
      ... worker 0: one warp ...
      tile.warp_yield
    }
    ```
  }];
  let arguments = (ins DenseI32ArrayAttr:$partitionNumWarps,
                       OptionalAttr<DenseI32ArrayAttr>:$partitionNumRegs);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region AnyRegion:$defaultRegion,
                        VariadicRegion<AnyRegion>:$partitionRegions);
  let assemblyFormat = [{
    `partition_num_warps` `=` $partitionNumWarps
    (`partition_num_regs` `=` $partitionNumRegs^)? attr-dict-with-keyword
    (`->` `(` type($results)^ `)`)?
    $defaultRegion `partitions` $partitionRegions
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The warps of region `index` (0 is the default region): the module's
    /// `numWarps` for the default, partitionNumWarps[index - 1] otherwise.
    int getRegionNumWarps(unsigned index, int numWarps);
    /// Warps a partition of 4 or more starts at a multiple of.
    static constexpr int kWarpGroupWarps = 4;
    /// The first warp of each worker partition in the CTA: after the
    /// kernel's warps, largest partition first, each at a multiple of
    /// min(its warps, kWarpGroupWarps) (padding warps in between run none).
    llvm::SmallVector<int> getPartitionFirstWarps(int numWarps);
    /// The first warp of region `index` in the CTA.
    int getRegionFirstWarp(unsigned index, int numWarps);
    /// Warps of the CTA: the default's, the partitions' and padding between.
    int getTotalNumWarps(int numWarps);
  }];
}

def Tile_WarpYieldOp : Tile_Op<"warp_yield",
    [HasParent<"WarpSpecializeOp">, Pure, Terminator, ReturnLike]> {
  let summary = "End of a tile.warp_specialize partition";
  let description = [{
    Ends a partition; in the default region its operands are the
    warp_specialize's results.
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

#endif
