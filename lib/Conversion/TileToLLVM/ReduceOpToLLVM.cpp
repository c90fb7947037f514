//===- ReduceOpToLLVM.cpp - tile.reduce -----------------------------------===//
//
// A reduction runs in three steps, each skipped when the layout needs none:
// combine the registers of a thread that share every other coordinate,
// combine across lanes with butterfly shuffles, and combine across warps
// through shared memory. The combine region is cloned at each step.
//
// A scan doubles the scanned block one position bit at a time: within
// registers, across lanes by shuffles and across warps through shared memory
// (ScanOpConversion).
//
// Several tensors reduced or scanned together are carried as a tuple of
// values per element; each step moves every member (its own shuffles, its
// own array of the scratch) and the combine region takes two tuples.
//
//===----------------------------------------------------------------------===//

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

#include "kiln/Dialect/Tile/IR/Utility.h"

#include "mlir/IR/IRMapping.h"
#include <algorithm>
#include <map>
#include <set>

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

namespace {

using Tuple = SmallVector<Value, 2>;

/// The combine region's body cloned at the insertion point for the tuples
/// `lhs` and `rhs`; its results (the terminator's operands).
Tuple cloneCombine(OpBuilder &b, Region &region, ArrayRef<Value> lhs,
                   ArrayRef<Value> rhs) {
  Block &body = region.front();
  IRMapping map;
  unsigned n = lhs.size();
  for (unsigned i = 0; i < n; ++i) {
    map.map(body.getArgument(i), lhs[i]);
    map.map(body.getArgument(n + i), rhs[i]);
  }
  for (Operation &o : body.without_terminator())
    b.clone(o, map);
  Tuple out;
  for (Value v : body.back().getOperands())
    out.push_back(map.lookupOrDefault(v));
  return out;
}

/// The registers of each source, as one tuple a register.
SmallVector<Tuple> unpackTuples(OpBuilder &b, Location loc, ValueRange srcs) {
  SmallVector<Tuple> out;
  for (auto [i, src] : llvm::enumerate(srcs)) {
    SmallVector<Value> regs = unpackStruct(b, loc, src);
    out.resize(regs.size());
    for (auto [r, v] : llvm::enumerate(regs))
      out[r].push_back(v);
  }
  return out;
}

/// Member `i` of every tuple.
SmallVector<Value> member(ArrayRef<Tuple> tuples, unsigned i) {
  SmallVector<Value> out;
  for (const Tuple &t : tuples)
    out.push_back(t[i]);
  return out;
}

/// Where each member's array of the scratch starts: (element pointer type in
/// memory, base pointer).
struct ScratchArrays {
  SmallVector<Type> regTypes, memTypes;
  SmallVector<Value> bases;
};

ScratchArrays getScratchArrays(OpBuilder &b, Location loc, Operation *op,
                               const TypeConverter &tc, ValueRange srcs,
                               int64_t count, int64_t at = 0) {
  ScratchArrays a;
  SmallVector<Type> elems;
  for (Value v : srcs)
    elems.push_back(cast<RankedTensorType>(v.getType()).getElementType());
  SmallVector<int64_t> offsets;
  getTupleScratchLayout(elems, count, &offsets);
  for (int64_t &o : offsets)
    o += at;
  Value base = getScratchBase(b, loc, op);
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 3);
  for (auto [elem, offset] : llvm::zip(elems, offsets)) {
    a.regTypes.push_back(tc.convertType(elem));
    a.memTypes.push_back(getMemoryType(a.regTypes.back()));
    a.bases.push_back(
        offset == 0 ? base
                    : LLVM::GEPOp::create(b, loc, ptrTy, b.getI8Type(), base,
                                          ArrayRef<LLVM::GEPArg>{
                                              int32_t(offset)})
                          .getResult());
  }
  return a;
}

/// Stores `t` at element `idx` of the arrays.
void storeTuple(OpBuilder &b, Location loc, const ScratchArrays &a,
                ArrayRef<Value> t, Value idx) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 3);
  for (auto [i, v] : llvm::enumerate(t)) {
    Value p = LLVM::GEPOp::create(b, loc, ptrTy, a.memTypes[i], a.bases[i],
                                  ValueRange{idx});
    LLVM::StoreOp::create(b, loc, toMemory(b, loc, v), p);
  }
}

/// Element `idx` of the arrays in the shared memory of the cluster's CTA of
/// rank `rank`.
Tuple loadTupleOfRank(OpBuilder &b, Location loc, const ScratchArrays &a,
                      Value idx, Value rank, const LoweringContext &ctx) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Tuple t;
  for (unsigned i = 0; i < a.bases.size(); ++i) {
    Value p = LLVM::GEPOp::create(b, loc, ptrTy, a.memTypes[i], a.bases[i],
                                  ValueRange{idx});
    t.push_back(fromMemory(
        b, loc, ctx.target.loadSharedOfRank(b, loc, a.memTypes[i], p, rank),
        a.regTypes[i]));
  }
  return t;
}

Tuple loadTuple(OpBuilder &b, Location loc, const ScratchArrays &a,
                Value idx) {
  auto ptrTy = LLVM::LLVMPointerType::get(b.getContext(), 3);
  Tuple t;
  for (unsigned i = 0; i < a.bases.size(); ++i) {
    Value p = LLVM::GEPOp::create(b, loc, ptrTy, a.memTypes[i], a.bases[i],
                                  ValueRange{idx});
    t.push_back(fromMemory(b, loc, LLVM::LoadOp::create(b, loc, a.memTypes[i], p),
                           a.regTypes[i]));
  }
  return t;
}

Tuple shuffleTupleXor(OpBuilder &b, Location loc, ArrayRef<Value> t,
                      unsigned mask, Value lane, const LoweringContext &ctx) {
  Tuple out;
  for (Value v : t)
    out.push_back(shuffleXor(b, loc, v, mask, lane, ctx));
  return out;
}

Tuple shuffleTupleIdx(OpBuilder &b, Location loc, ArrayRef<Value> t,
                      Value srcLane, const LoweringContext &ctx) {
  Tuple out;
  for (Value v : t)
    out.push_back(shuffleIdx(b, loc, v, srcLane, ctx));
  return out;
}

Tuple selectTuple(OpBuilder &b, Location loc, Value cond, ArrayRef<Value> x,
                  ArrayRef<Value> y) {
  Tuple out;
  for (auto [a, c] : llvm::zip(x, y))
    out.push_back(LLVM::SelectOp::create(b, loc, cond, a, c));
  return out;
}

/// Whether the combine region is one commutative op of its two operands
/// (add, max, ...): then the order of its operands does not matter.
bool isCommutativeCombine(Region &region) {
  Block &body = region.front();
  if (body.getNumArguments() != 2 || !llvm::hasSingleElement(
                                         body.without_terminator()))
    return false;
  Operation &op = body.front();
  if (!op.hasTrait<OpTrait::IsCommutative>() || op.getNumOperands() != 2)
    return false;
  Value a = body.getArgument(0), b = body.getArgument(1);
  return (op.getOperand(0) == a && op.getOperand(1) == b) ||
         (op.getOperand(0) == b && op.getOperand(1) == a);
}

struct ReduceOpConversion : public ConvertOpToLLVMPattern<ReduceOp> {
  ReduceOpConversion(const LLVMTypeConverter &tc, const LoweringContext &ctx)
      : ConvertOpToLLVMPattern(tc), ctx(ctx) {}

  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto srcTy = op.getSrc().getType();
    unsigned axis = op.getAxis();
    LinearLayout ll = *getLinearLayout(srcTy);
    FailureOr<unsigned> warpBits = getReduceWarpBits(ll, axis);
    if (failed(warpBits))
      return op.emitOpError()
             << "layout " << srcTy.getEncoding()
             << " mixes the reduction axis with other dimensions in a lane or "
                "warp basis; convert the operand to a blocked layout first";

    auto combine = [&](ArrayRef<Value> a, ArrayRef<Value> b) {
      return cloneCombine(rewriter, op.getCombine(), a, b);
    };
    auto dropAxis = [&](const LinearLayout::Basis &c) {
      SmallVector<int32_t> k(c.begin(), c.end());
      k.erase(k.begin() + axis);
      return k;
    };

    // Elements combine in their order along the axis (as Gluon's reduce:
    // the combine may not be commutative). Registers, lanes and warps
    // place ever higher positions in the layouts a reduce takes, so each
    // step keeps the order: registers by position, then the lower lane or
    // warp on the left.
    bool commutative = isCommutativeCombine(op.getCombine());

    // 1. Inside the thread.
    SmallVector<Tuple> regs = unpackTuples(rewriter, loc, adaptor.getSrcs());
    std::map<SmallVector<int32_t>, unsigned> groupOf;
    SmallVector<SmallVector<std::pair<int32_t, unsigned>>> members;
    SmallVector<unsigned> firstReg;
    for (unsigned r = 0; r < regs.size(); ++r) {
      auto coord = ll.applyOne(LinearLayout::Register, r);
      auto key = dropAxis(coord);
      auto it = groupOf.find(key);
      if (it == groupOf.end()) {
        it = groupOf.emplace(key, members.size()).first;
        members.emplace_back();
        firstReg.push_back(r);
      }
      members[it->second].push_back({coord[axis], r});
    }
    SmallVector<Tuple> acc;
    for (auto &group : members) {
      llvm::stable_sort(group, [](auto &x, auto &y) { return x.first < y.first; });
      Tuple a = regs[group.front().second];
      for (auto &[pos, r] : llvm::drop_begin(group))
        a = combine(a, regs[r]);
      acc.push_back(a);
    }

    // 2. Across lanes.
    ThreadIds ids = getThreadIds(rewriter, loc, ctx);
    for (auto [bit, basis] : llvm::enumerate(ll.getBases(LinearLayout::Lane))) {
      if (basis[axis] == 0)
        continue;
      Value upper;
      if (!commutative)
        upper = LLVM::ICmpOp::create(
            rewriter, loc, LLVM::ICmpPredicate::ne,
            LLVM::AndOp::create(rewriter, loc, ids.lane,
                                i32Const(rewriter, loc, 1u << bit)),
            i32Const(rewriter, loc, 0));
      for (Tuple &a : acc) {
        Tuple other =
            shuffleTupleXor(rewriter, loc, a, 1u << bit, ids.lane, ctx);
        if (commutative) {
          a = combine(a, other);
          continue;
        }
        // The lane with the bit set holds the later elements.
        a = combine(selectTuple(rewriter, loc, upper, other, a),
                    selectTuple(rewriter, loc, upper, a, other));
      }
    }

    // 3. Across warps.
    auto peersAttr =
        TileDialect::ClusterPeersAttrHelper(op->getContext()).getAttr(op);
    if ((*warpBits > 0 || peersAttr) &&
        !op->hasAttr(TileDialect::ScratchOffsetAttrHelper::getNameStr()))
      return op.emitOpError() << "needs shared memory but has none "
                                 "assigned; run tile-allocate-shared-memory "
                                 "first";
    SmallVector<int32_t> outSizes(ll.getOutSizes());
    outSizes.erase(outSizes.begin() + axis);
    int64_t numOut = 1;
    for (int32_t s : outSizes)
      numOut *= s;
    // Each group's index in the reduced shape (its result element).
    SmallVector<Value> outIdx;
    auto groupIndices = [&] {
      if (!outIdx.empty())
        return;
      auto coords = emitCoordinates(rewriter, loc, ll, ctx);
      for (unsigned g = 0; g < acc.size(); ++g) {
        SmallVector<Value> c(coords[firstReg[g]]);
        c.erase(c.begin() + axis);
        outIdx.push_back(emitLinearIndex(rewriter, loc, c, outSizes));
      }
    };
    if (*warpBits > 0) {
      // Index of this warp among the warps that split the axis.
      Value warpAxis = i32Const(rewriter, loc, 0);
      unsigned k = 0;
      for (auto [bit, basis] :
           llvm::enumerate(ll.getBases(LinearLayout::Warp))) {
        if (basis[axis] == 0)
          continue;
        Value set = LLVM::AndOp::create(
            rewriter, loc,
            LLVM::LShrOp::create(rewriter, loc, ids.warp,
                                 i32Const(rewriter, loc, bit)),
            i32Const(rewriter, loc, 1));
        warpAxis =
            LLVM::OrOp::create(rewriter, loc, warpAxis,
                               LLVM::ShlOp::create(rewriter, loc, set,
                                                   i32Const(rewriter, loc, k)));
        ++k;
      }
      groupIndices();
      ScratchArrays scratch = getScratchArrays(
          rewriter, loc, op, *getTypeConverter(), op.getSrcs(),
          (int64_t(1) << *warpBits) * numOut);
      ctx.target.barrier(rewriter, loc);
      for (auto [g, a] : llvm::enumerate(acc)) {
        Value idx = LLVM::AddOp::create(
            rewriter, loc,
            LLVM::MulOp::create(rewriter, loc, warpAxis,
                                i32Const(rewriter, loc, numOut)),
            outIdx[g]);
        storeTuple(rewriter, loc, scratch, a, idx);
      }
      ctx.target.barrier(rewriter, loc);
      for (auto [g, a] : llvm::enumerate(acc)) {
        for (int64_t w = 0; w < (int64_t(1) << *warpBits); ++w) {
          Value idx = LLVM::AddOp::create(rewriter, loc, outIdx[g],
                                          i32Const(rewriter, loc, w * numOut));
          Tuple v = loadTuple(rewriter, loc, scratch, idx);
          a = w == 0 ? v : combine(a, v);
        }
      }
    }

    // 3b. Across the CTAs of a cluster (tile-split-cluster's cluster_peers:
    // the rank bits of the CTAs holding the axis's other parts). Each CTA
    // writes its results into its scratch, the cluster waits, and each reads
    // every peer's in rank order (the same order in every CTA, so all hold
    // the same bits) and combines them; the cluster waits again before any
    // CTA reuses its scratch or exits.
    if (peersAttr) {
      if (!ctx.target.hasClusterSharedMemory())
        return op.emitOpError()
               << "reduces across the CTAs of a cluster, which needs "
                  "distributed shared memory this target lacks";
      int64_t clusterCount = 0, clusterOffset = 0;
      getReduceScratch(op, nullptr, &clusterCount, &clusterOffset);
      groupIndices();
      ScratchArrays scratch =
          getScratchArrays(rewriter, loc, op, *getTypeConverter(),
                           op.getSrcs(), clusterCount, clusterOffset);
      for (auto [g, a] : llvm::enumerate(acc))
        storeTuple(rewriter, loc, scratch, a, outIdx[g]);
      ctx.target.clusterBarrier(rewriter, loc);
      uint32_t peers = uint32_t(peersAttr.getInt());
      Value base = LLVM::AndOp::create(rewriter, loc,
                                       ctx.target.clusterRank(rewriter, loc),
                                       i32Const(rewriter, loc, ~peers));
      SmallVector<unsigned> bits;
      for (unsigned bit = 0; bit < 32; ++bit)
        if (peers & (1u << bit))
          bits.push_back(bit);
      for (auto [g, a] : llvm::enumerate(acc)) {
        for (uint32_t k = 0; k < (1u << bits.size()); ++k) {
          uint32_t spread = 0; // k's bits on the peer bits, in order
          for (auto [i, bit] : llvm::enumerate(bits))
            if (k & (1u << i))
              spread |= 1u << bit;
          Value rank = LLVM::OrOp::create(rewriter, loc, base,
                                          i32Const(rewriter, loc, spread));
          Tuple v = loadTupleOfRank(rewriter, loc, scratch, outIdx[g], rank,
                                    ctx);
          a = k == 0 ? v : combine(a, v);
        }
      }
      ctx.target.clusterBarrier(rewriter, loc);
    }

    // 4. Registers of the result layout.
    if (srcTy.getRank() == 1) {
      rewriter.replaceOp(op, acc.front());
      return success();
    }
    auto dstTy = cast<RankedTensorType>(op.getResult(0).getType());
    LinearLayout dstLL = *getLinearLayout(dstTy);
    SmallVector<Tuple> out;
    for (int32_t r = 0; r < dstLL.getInSize(LinearLayout::Register); ++r) {
      auto c = dstLL.applyOne(LinearLayout::Register, r);
      auto it = groupOf.find(SmallVector<int32_t>(c.begin(), c.end()));
      if (it == groupOf.end())
        return op.emitOpError() << "result layout " << dstTy.getEncoding()
                                << " does not match the reduced registers";
      out.push_back(acc[it->second]);
    }
    SmallVector<Value> results;
    for (auto [i, result] : llvm::enumerate(op.getResults()))
      results.push_back(packStruct(
          rewriter, loc, getTypeConverter()->convertType(result.getType()),
          member(out, i)));
    rewriter.replaceOp(op, results);
    return success();
  }

  const LoweringContext &ctx;
};

struct ScanOpConversion : public ConvertOpToLLVMPattern<ScanOp> {
  ScanOpConversion(const LLVMTypeConverter &tc, const LoweringContext &ctx)
      : ConvertOpToLLVMPattern(tc), ctx(ctx) {}

  // Within each thread, the registers that place the lowest position bits
  // are combined in order. Above them the scan doubles block by block: after
  // step j, every element holds the
  // combination of its aligned block of 2^(j+1) positions up to itself. At
  // step j an element whose position has bit j set combines, on its left,
  // the block prefix of the last element of the lower half (its position
  // with bit j cleared and the bits below set). A position bit is placed by
  // one register, lane or warp bit of the layout (getScanAxisBits): a step
  // whose bits below and at j are registers and lanes reads the source from
  // a register, through a shuffle when lanes differ; a step that reaches
  // across warps passes the sources through shared memory. A reverse scan
  // runs the same on mirrored positions (bit j clear combines the first
  // element of the upper half).
  LogicalResult
  matchAndRewrite(ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = op.getSrc().getType();
    unsigned axis = op.getAxis();
    FailureOr<LinearLayout> ll =
        getLinearLayout(type, [&] { return op.emitOpError(); });
    if (failed(ll))
      return failure();
    FailureOr<ScanAxisBits> axisBits = getScanAxisBits(*ll, axis);
    if (failed(axisBits))
      return op.emitOpError()
             << "layout " << type.getEncoding() << " moves along axis " << axis
             << " and another dimension with one basis; convert the operand "
                "to a blocked layout first";
    bool reverse = op.getReverse();
    auto combine = [&](ArrayRef<Value> a, ArrayRef<Value> b) {
      return cloneCombine(rewriter, op.getCombine(), a, b);
    };
    SmallVector<Tuple> x = unpackTuples(rewriter, loc, adaptor.getSrcs());
    unsigned numRegs = x.size();
    const auto &bits = axisBits->bits;
    unsigned k = bits.size();
    if (k == 0) {
      rewriter.replaceOp(op, adaptor.getSrcs());
      return success();
    }
    bool needsThreads = llvm::any_of(bits, [](auto o) {
      return o.first != LinearLayout::Register;
    });
    ThreadIds ids;
    SmallVector<SmallVector<Value>> coords;
    if (needsThreads) {
      ids = getThreadIds(rewriter, loc, ctx);
      coords = emitCoordinates(rewriter, loc, *ll, ctx);
    }
    Value one = i32Const(rewriter, loc, 1);
    auto bitOf = [&](Value v, unsigned b) {
      return LLVM::AndOp::create(
          rewriter, loc,
          LLVM::LShrOp::create(rewriter, loc, v, i32Const(rewriter, loc, b)),
          one);
    };
    auto isSet = [&](Value v, unsigned b) {
      return LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::ne,
                                  bitOf(v, b), i32Const(rewriter, loc, 0));
    };
    unsigned firstWarp = axisBits->firstWarpBit();
    // The lowest position bits that registers place: each thread combines
    // those runs of its registers in order (one combine an element), and the
    // doubling starts above them.
    unsigned inThread = 0;
    while (inThread < k && bits[inThread].first == LinearLayout::Register)
      ++inThread;
    if (inThread > 0) {
      unsigned runMask = 0;
      for (unsigned b = 0; b < inThread; ++b)
        runMask |= 1u << bits[b].second;
      std::map<unsigned, SmallVector<unsigned>> runs; // by the other bits
      for (unsigned r = 0; r < numRegs; ++r)
        runs[r & ~runMask].push_back(r);
      for (auto &[rest, regs] : runs) {
        // regs in position order (the run's bits, lowest position first).
        SmallVector<unsigned> byPos(regs.size());
        for (unsigned r : regs) {
          unsigned pos = 0;
          for (unsigned b = 0; b < inThread; ++b)
            pos |= ((r >> bits[b].second) & 1u) << b;
          byPos[pos] = r;
        }
        if (reverse)
          std::reverse(byPos.begin(), byPos.end());
        for (unsigned i = 1; i < byPos.size(); ++i)
          x[byPos[i]] = combine(x[byPos[i - 1]], x[byPos[i]]);
      }
    }
    for (unsigned j = inThread; j < k; ++j) {
      // The element at bit-j value `want` combines; its source has bit j
      // flipped and the bits below all `lowFill`.
      bool want = !reverse;
      bool lowFill = !reverse;
      if (j < firstWarp) {
        // Registers and lanes: the source register of register r, and the
        // source lane (the same for every register).
        int64_t laneClear = 0, laneSet = 0;
        auto moveReg = [&](unsigned r) {
          auto [in, idx] = bits[j];
          if (in == LinearLayout::Register)
            r = want ? (r & ~(1u << idx)) : (r | (1u << idx));
          for (unsigned b = 0; b < j; ++b)
            if (bits[b].first == LinearLayout::Register)
              r = lowFill ? (r | (1u << bits[b].second))
                          : (r & ~(1u << bits[b].second));
          return r;
        };
        auto setLane = [&](unsigned b, bool value) {
          (value ? laneSet : laneClear) |= int64_t(1) << bits[b].second;
        };
        if (bits[j].first == LinearLayout::Lane)
          setLane(j, !want);
        for (unsigned b = 0; b < j; ++b)
          if (bits[b].first == LinearLayout::Lane)
            setLane(b, lowFill);
        Value srcLane;
        if (laneClear || laneSet) {
          srcLane = ids.lane;
          if (laneClear)
            srcLane = LLVM::AndOp::create(rewriter, loc, srcLane,
                                          i32Const(rewriter, loc, ~laneClear));
          if (laneSet)
            srcLane = LLVM::OrOp::create(rewriter, loc, srcLane,
                                         i32Const(rewriter, loc, laneSet));
        }
        Value laneCond;
        if (bits[j].first == LinearLayout::Lane) {
          laneCond = isSet(ids.lane, bits[j].second);
          if (!want)
            laneCond = LLVM::XOrOp::create(
                rewriter, loc, laneCond,
                LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                         rewriter.getBoolAttr(true)));
        }
        SmallVector<Tuple> next(x);
        for (unsigned r = 0; r < numRegs; ++r) {
          if (bits[j].first == LinearLayout::Register &&
              bool(r & (1u << bits[j].second)) != want)
            continue; // this register's element is not combined at step j
          Tuple v = x[moveReg(r)];
          if (srcLane)
            v = shuffleTupleIdx(rewriter, loc, v, srcLane, ctx);
          Tuple c = combine(v, x[r]);
          next[r] = laneCond ? selectTuple(rewriter, loc, laneCond, c, x[r])
                             : c;
        }
        x = std::move(next);
        continue;
      }
      // A step across warps: the sources through shared memory, one slot
      // per (other coordinates, block of 2^(j+1) positions).
      if (!op->hasAttr(TileDialect::ScratchOffsetAttrHelper::getNameStr()))
        return op.emitOpError() << "needs shared memory but has none "
                                   "assigned; run tile-allocate-shared-memory "
                                   "first";
      if (!inControlFlowGraph(op))
        return op.emitOpError() << "a scan across warps must be lowered in a "
                                   "function's control-flow graph";
      SmallVector<int32_t> outSizes(ll->getOutSizes());
      outSizes.erase(outSizes.begin() + axis);
      int64_t slotsPerLine = int64_t(1) << (k - j - 1);
      int64_t lowMask = (int64_t(1) << j) - 1;
      int64_t blockMask = (int64_t(1) << (j + 1)) - 1;
      // Only one thread and register writes an element that several hold.
      int64_t dupLanes = 0, dupWarps = 0;
      for (auto [i, b] : llvm::enumerate(ll->getBases(LinearLayout::Lane)))
        if (llvm::all_of(b, [](int32_t c) { return c == 0; }))
          dupLanes |= int64_t(1) << i;
      for (auto [i, b] : llvm::enumerate(ll->getBases(LinearLayout::Warp)))
        if (llvm::all_of(b, [](int32_t c) { return c == 0; }))
          dupWarps |= int64_t(1) << i;
      Value zero = i32Const(rewriter, loc, 0);
      Value owner = LLVM::ConstantOp::create(
          rewriter, loc, rewriter.getI1Type(), rewriter.getBoolAttr(true));
      if (dupLanes)
        owner = LLVM::ICmpOp::create(
            rewriter, loc, LLVM::ICmpPredicate::eq,
            LLVM::AndOp::create(rewriter, loc, ids.lane,
                                i32Const(rewriter, loc, dupLanes)),
            zero);
      if (dupWarps)
        owner = LLVM::AndOp::create(
            rewriter, loc, owner,
            LLVM::ICmpOp::create(
                rewriter, loc, LLVM::ICmpPredicate::eq,
                LLVM::AndOp::create(rewriter, loc, ids.warp,
                                    i32Const(rewriter, loc, dupWarps)),
                zero));
      ScratchArrays scratch = getScratchArrays(
          rewriter, loc, op, *getTypeConverter(), op.getSrcs(),
          type.getNumElements() >> (firstWarp + 1));
      int64_t source = (want ? 0 : (int64_t(1) << j)) | (lowFill ? lowMask : 0);
      SmallVector<Value> slots;
      std::set<SmallVector<int32_t>> seen;
      ctx.target.barrier(rewriter, loc);
      for (unsigned r = 0; r < numRegs; ++r) {
        Value pos = coords[r][axis];
        SmallVector<Value> rest(coords[r]);
        rest.erase(rest.begin() + axis);
        Value line = outSizes.empty() ? zero
                                      : emitLinearIndex(rewriter, loc, rest,
                                                        outSizes);
        Value slot = LLVM::AddOp::create(
            rewriter, loc,
            LLVM::MulOp::create(rewriter, loc, line,
                                i32Const(rewriter, loc, slotsPerLine)),
            LLVM::LShrOp::create(rewriter, loc, pos,
                                 i32Const(rewriter, loc, j + 1)));
        slots.push_back(slot);
        auto c = ll->applyOne(LinearLayout::Register, r);
        if (!seen.insert(SmallVector<int32_t>(c.begin(), c.end())).second)
          continue; // a register repeating an earlier one's element
        Value isSource = LLVM::ICmpOp::create(
            rewriter, loc, LLVM::ICmpPredicate::eq,
            LLVM::AndOp::create(rewriter, loc, pos,
                                i32Const(rewriter, loc, blockMask)),
            i32Const(rewriter, loc, source));
        Value cond = LLVM::AndOp::create(rewriter, loc, isSource, owner);
        Tuple value = x[r];
        if (failed(emitIfElse(
                rewriter, op, cond,
                [&] { storeTuple(rewriter, loc, scratch, value, slot); },
                nullptr)))
          return failure();
      }
      ctx.target.barrier(rewriter, loc);
      for (unsigned r = 0; r < numRegs; ++r) {
        Tuple v = loadTuple(rewriter, loc, scratch, slots[r]);
        Value cond = isSet(coords[r][axis], j);
        if (!want)
          cond = LLVM::XOrOp::create(
              rewriter, loc, cond,
              LLVM::ConstantOp::create(rewriter, loc, rewriter.getI1Type(),
                                       rewriter.getBoolAttr(true)));
        x[r] = selectTuple(rewriter, loc, cond, combine(v, x[r]), x[r]);
      }
      if (j + 1 == k)
        ctx.target.barrier(rewriter, loc); // the scratch is free again
    }
    SmallVector<Value> results;
    for (auto [i, result] : llvm::enumerate(op.getResults()))
      results.push_back(packStruct(
          rewriter, loc, getTypeConverter()->convertType(result.getType()),
          member(x, i)));
    rewriter.replaceOp(op, results);
    return success();
  }

  const LoweringContext &ctx;
};

} // namespace

void kiln::populateReduceOpToLLVMPatterns(TileTypeConverter &converter,
                                          RewritePatternSet &patterns,
                                          const LoweringContext &ctx) {
  patterns.add<ReduceOpConversion>(converter, ctx);
  patterns.add<ScanOpConversion>(converter, ctx);
}
