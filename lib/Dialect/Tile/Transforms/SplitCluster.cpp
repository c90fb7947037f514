//===- SplitCluster.cpp - each CTA's part of cluster-split tensors --------===//
//
// A tensor whose layout is `#tile.cga<{bases, layout}>` (Gluon's cga_layout)
// has the whole shape of a program that runs as a cluster of CTAs, split
// among them. After this pass the module is the program of one CTA: every
// such tensor has the shape of one CTA's part and the inner layout, and each
// `tile.arange` whose result is split adds where this CTA's part starts,
// from the CTA's rank in its cluster (the launch puts a cluster's CTAs next
// to each other along x, so the rank is `program_id 0` modulo the CTA count).
// A reduction along a split dimension reduces each CTA's part and marks the
// reduce with the rank bits of the other parts (cluster_peers): its lowering
// combines the CTAs' partial results through distributed shared memory. What
// else would move data between the CTAs is an error at the op: a convert_layout
// that changes the split. A store or atomic of elements several CTAs hold is
// made by one of them.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace kiln::tile {
#define GEN_PASS_DEF_TILESPLITCLUSTERPASS
#include "kiln/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace kiln::tile

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

bool isSplit(Type t) {
  auto tt = dyn_cast<RankedTensorType>(t);
  return tt && stripCluster(tt.getEncoding()) != tt.getEncoding();
}

Type ctaType(Type t) {
  auto tt = dyn_cast<RankedTensorType>(t);
  if (!tt || !isSplit(t))
    return t;
  return RankedTensorType::get(getCtaShape(tt), tt.getElementType(),
                               stripCluster(tt.getEncoding()));
}

std::string basesText(ArrayRef<SmallVector<int64_t>> bases) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "[";
  llvm::interleaveComma(bases, os, [&](const SmallVector<int64_t> &v) {
    os << "[";
    llvm::interleaveComma(v, os);
    os << "]";
  });
  os << "]";
  return s;
}

/// The rank bits whose cga basis moves a CTA's part along `axis` of `type` (a
/// basis moves along one dimension at most, #tile.cga's verifier; one moving
/// past the tensor's CTA tiles repeats the part: not one).
int64_t axisPeerBits(RankedTensorType type, unsigned axis) {
  SmallVector<SmallVector<int64_t>> bases =
      getClusterBases(type.getEncoding(), type.getRank());
  SmallVector<int64_t> cta = getCtaShape(type);
  int64_t tiles = std::max<int64_t>(1, type.getDimSize(axis) / cta[axis]);
  int64_t peers = 0;
  for (auto [bit, v] : llvm::enumerate(bases))
    if (v[axis] & (tiles - 1))
      peers |= int64_t(1) << bit;
  return peers;
}

/// The checks: what would need data from another CTA of the cluster (other
/// than reductions, which cluster_peers marks).
LogicalResult checkNoCrossCta(ModuleOp module) {
  WalkResult r = module.walk([&](Operation *op) {
    if (auto cvt = dyn_cast<ConvertLayoutOp>(op)) {
      auto src = cvt.getSrc().getType(), dst = cvt.getType();
      auto a = getClusterBases(src.getEncoding(), src.getRank());
      auto b = getClusterBases(dst.getEncoding(), dst.getRank());
      if (a != b) {
        op->emitError() << "convert_layout between layouts that split the "
                           "tensor differently among the CTAs of a cluster ("
                        << basesText(a) << " -> " << basesText(b)
                        << ") would move data between CTAs, which Kiln does "
                           "not do yet";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  return failure(r.wasInterrupted());
}

/// `arange` (the whole range, split) becomes this CTA's part plus where it
/// starts.
void splitArange(ArangeOp op) {
  auto type = op.getType();
  SmallVector<SmallVector<int64_t>> bases =
      getClusterBases(type.getEncoding(), 1);
  int64_t n = type.getDimSize(0);
  int64_t parts = getClusterSplit(bases, 1)[0];
  int64_t local = std::max<int64_t>(1, n / parts);
  int32_t start = static_cast<int32_t>(op.getStart());
  OpBuilder b(op);
  b.setInsertionPointAfter(op);
  Location loc = op.getLoc();
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(v));
  };
  op.setEndAttr(b.getI32IntegerAttr(start + local));
  op.getResult().setType(cast<RankedTensorType>(ctaType(type)));
  if (parts == 1)
    return;
  // The CTA's rank: bits of program_id 0 below the CTA count.
  Value pid = ProgramIdOp::create(b, loc, i32, b.getI32IntegerAttr(0));
  Value rank = arith::AndIOp::create(b, loc, pid, cst((1 << bases.size()) - 1));
  Value tile;
  for (auto [bit, v] : llvm::enumerate(bases)) {
    if (!v[0])
      continue;
    Value set = arith::AndIOp::create(
        b, loc, arith::ShRUIOp::create(b, loc, rank, cst(bit)), cst(1));
    Value term = arith::MulIOp::create(b, loc, set, cst(v[0]));
    tile = tile ? Value(arith::OrIOp::create(b, loc, tile, term)) : term;
  }
  int64_t tiles = n / local; // fewer than parts where CTA tiles wrap
  if (tiles < parts)
    tile = arith::AndIOp::create(b, loc, tile, cst(tiles - 1));
  Value offset = arith::MulIOp::create(b, loc, tile, cst(local));
  Value splat = SplatOp::create(b, loc, op.getType(), offset);
  Value moved = arith::AddIOp::create(b, loc, op.getResult(), splat);
  op.getResult().replaceAllUsesExcept(moved, moved.getDefiningOp());
}

/// The bits of the CTA's rank that only repeat a split tensor's part: a zero
/// cga basis, or one moving past the tensor's CTA tiles.
int64_t redundantCtaBits(RankedTensorType type) {
  SmallVector<SmallVector<int64_t>> bases =
      getClusterBases(type.getEncoding(), type.getRank());
  SmallVector<int64_t> cta = getCtaShape(type);
  int64_t redundant = 0;
  for (auto [bit, v] : llvm::enumerate(bases)) {
    bool moves = false;
    for (auto [d, move] : llvm::enumerate(v)) {
      int64_t tiles = std::max<int64_t>(1, type.getDimSize(d) / cta[d]);
      moves |= (move & (tiles - 1)) != 0;
    }
    if (!moves)
      redundant |= int64_t(1) << bit;
  }
  return redundant;
}

/// A write of a tensor several CTAs of the cluster hold is made only by the
/// CTA whose rank has the redundant bits clear, as one thread of a CTA
/// writes an element its layout repeats (Ownership.cpp): `mask` (the op's
/// optional mask operand) gets that predicate.
void writeOncePerCluster(Operation *op, Value ptr, MutableOperandRange mask,
                         int64_t redundant) {
  auto type = cast<RankedTensorType>(ptr.getType());
  OpBuilder b(op);
  Location loc = op->getLoc();
  Type i32 = b.getI32Type();
  auto cst = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, i32, b.getI32IntegerAttr(v));
  };
  Value pid = ProgramIdOp::create(b, loc, i32, b.getI32IntegerAttr(0));
  Value bits = arith::AndIOp::create(b, loc, pid, cst(redundant));
  Value owner = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, bits,
                                      cst(0));
  auto maskType = RankedTensorType::get(type.getShape(), b.getI1Type(),
                                        type.getEncoding());
  Value pred = SplatOp::create(b, loc, maskType, owner);
  if (mask.size())
    pred = arith::AndIOp::create(b, loc, mask[0].get(), pred);
  mask.assign(pred);
}

/// Stores and atomics of elements several CTAs hold: one CTA acts. An
/// atomic whose old values are used would need them sent to the other CTAs,
/// which Kiln does not do: an error at the op.
LogicalResult writeOncePerCluster(ModuleOp module) {
  WalkResult r = module.walk([&](Operation *op) {
    Value ptr;
    if (auto store = dyn_cast<StoreOp>(op))
      ptr = store.getPtr();
    else if (auto rmw = dyn_cast<AtomicRMWOp>(op))
      ptr = rmw.getPtr();
    else if (auto cas = dyn_cast<AtomicCASOp>(op))
      ptr = cas.getPtr();
    if (!ptr || !isSplit(ptr.getType()))
      return WalkResult::advance();
    int64_t redundant = redundantCtaBits(cast<RankedTensorType>(ptr.getType()));
    if (!redundant)
      return WalkResult::advance();
    if (auto store = dyn_cast<StoreOp>(op)) {
      writeOncePerCluster(op, ptr, store.getMaskMutable(), redundant);
      return WalkResult::advance();
    }
    auto rmw = dyn_cast<AtomicRMWOp>(op);
    if (rmw && rmw->use_empty()) {
      writeOncePerCluster(op, ptr, rmw.getMaskMutable(), redundant);
      return WalkResult::advance();
    }
    op->emitError() << (rmw ? "uses the old values of elements"
                            : "compares and swaps elements")
                    << " several CTAs of the cluster hold (its layout's "
                       "cga_layout repeats them): "
                    << (rmw ? "only one CTA performs each atomic and Kiln "
                              "does not send its result to the others yet; "
                              "do not use the result, or"
                            : "each CTA would perform it;")
                    << " use a cga_layout that gives each element to one CTA";
    return WalkResult::interrupt();
  });
  return failure(r.wasInterrupted());
}

class SplitClusterPass
    : public kiln::tile::impl::TileSplitClusterPassBase<SplitClusterPass> {
public:
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    bool any = false;
    module.walk([&](Operation *op) {
      for (Type t : op->getResultTypes())
        any |= isSplit(t);
    });
    if (!any)
      return;
    if (failed(checkNoCrossCta(module)))
      return signalPassFailure();
    // Reductions across CTAs: each CTA reduces its part; the lowering
    // combines the parts' results (ReduceOpToLLVM).
    module.walk([&](ReduceOp op) {
      auto src = op.getSrc().getType();
      if (!isSplit(src))
        return;
      int64_t peers = axisPeerBits(src, op.getAxis());
      if (peers)
        TileDialect::ClusterPeersAttrHelper(op->getContext())
            .setAttr(op, IntegerAttr::get(IntegerType::get(op->getContext(), 32),
                                          peers));
    });
    SmallVector<ArangeOp> aranges;
    module.walk([&](ArangeOp op) {
      if (isSplit(op.getType()))
        aranges.push_back(op);
    });
    for (ArangeOp op : aranges)
      splitArange(op);
    if (failed(writeOncePerCluster(module)))
      return signalPassFailure();
    module.walk([&](Operation *op) {
      for (Value v : op->getResults()) {
        Type t = ctaType(v.getType());
        if (t == v.getType())
          continue;
        v.setType(t);
        if (auto c = dyn_cast<arith::ConstantOp>(op))
          if (auto dense = dyn_cast<SplatElementsAttr>(c.getValue()))
            c.setValueAttr(SplatElementsAttr::get(
                cast<ShapedType>(t), dense.getSplatValue<Attribute>()));
      }
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument arg : block.getArguments())
            arg.setType(ctaType(arg.getType()));
    });
    // What the split gives each CTA is checked like any layout.
    if (failed(verifyModuleLayouts(module, getNumWarps(module),
                                   getThreadsPerWarp(module))))
      return signalPassFailure();
  }
};

} // namespace
