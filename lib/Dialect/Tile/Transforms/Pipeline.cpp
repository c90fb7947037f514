//===- Pipeline.cpp - What the software-pipelining passes share -----------===//

#include "Pipeline.h"

#include "kiln/Dialect/Tile/IR/LinearLayout.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

SmallVector<LocalAllocOp> kiln::tile::pipeline::getFilledAllocs(LoadOp load,
                                                                Block *body) {
  SmallVector<LocalAllocOp> allocs;
  for (Operation *user : load->getUsers()) {
    auto alloc = dyn_cast<LocalAllocOp>(user);
    if (!alloc || alloc->getBlock() != body ||
        (!allocs.empty() && alloc.getType() != allocs.front().getType()))
      return {};
    allocs.push_back(alloc);
  }
  return allocs;
}

SharedLayoutAttr
kiln::tile::pipeline::getStagingLayout(RankedTensorType type) {
  unsigned rank = type.getRank();
  int fastest = rank - 1;
  if (FailureOr<LinearLayout> ll = getLinearLayout(type);
      succeeded(ll) && ll->getNumBits(LinearLayout::Register) > 0) {
    const auto &b0 = ll->getBases(LinearLayout::Register)[0];
    for (unsigned d = 0; d < b0.size(); ++d)
      if (b0[d] != 0) {
        fastest = d;
        break;
      }
  }
  SmallVector<unsigned> order{unsigned(fastest)};
  for (int d = rank - 1; d >= 0; --d)
    if (d != fastest)
      order.push_back(d);
  return cast<SharedLayoutAttr>(
      SwizzledSharedEncodingAttr::get(type.getContext(), 1, 1, 1, order));
}

MemDescType kiln::tile::pipeline::getRingType(LoadOp load, Block *body,
                                              int64_t numStages) {
  auto type = cast<RankedTensorType>(load.getType());
  SmallVector<LocalAllocOp> allocs = getFilledAllocs(load, body);
  Attribute layout = allocs.empty()
                         ? Attribute(getStagingLayout(type))
                         : allocs.front().getType().getEncoding();
  SmallVector<int64_t> shape{numStages};
  llvm::append_range(shape, type.getShape());
  return MemDescType::get(load.getContext(), shape, type.getElementType(),
                          layout, /*mutableMemory=*/true, shape);
}

static bool isSlotView(Operation *op) {
  return isa<MemDescPermuteOp, MemDescSubsliceOp>(op);
}

bool kiln::tile::pipeline::viewsFollowSlot(Value buffer) {
  for (Operation *user : buffer.getUsers()) {
    bool makesView = llvm::any_of(user->getResultTypes(), [](Type t) {
      return isa<MemDescType>(t);
    });
    if (!makesView)
      continue;
    if (!isSlotView(user) || !viewsFollowSlot(user->getResult(0)))
      return false;
  }
  return true;
}

void kiln::tile::pipeline::retypeViews(Value slot) {
  auto slotType = cast<MemDescType>(slot.getType());
  for (Operation *user : slot.getUsers()) {
    if (!isSlotView(user))
      continue;
    Value view = user->getResult(0);
    auto old = cast<MemDescType>(view.getType());
    // The slot's leading (ring) dimensions, then the view's own.
    SmallVector<int64_t> alloc(slotType.getAllocShape().take_front(
        slotType.getAllocShape().size() - slotType.getShape().size()));
    llvm::append_range(alloc, old.getAllocShape());
    view.setType(MemDescType::get(old.getContext(), old.getShape(),
                                  old.getElementType(), old.getEncoding(),
                                  old.getMutableMemory(), alloc));
    retypeViews(view);
  }
}
