//===- BankConflicts.cpp - Bank conflicts of a shared access --------------===//
//
// The count replays the lowering's plan rather than reasoning about the
// layouts' linear maps: padding makes addresses non-linear, and the plan
// already knows the vector width the lowering picks, which decides how many
// lanes share a pass. Every access of every warp is simulated; a tensor
// holds at most 2^11 registers a thread, so this stays small.
//
//===----------------------------------------------------------------------===//

#include "kiln/Dialect/Tile/IR/BankConflicts.h"
#include "kiln/Dialect/Tile/IR/SharedAccess.h"
#include "kiln/Dialect/Tile/IR/Utility.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/Sequence.h"
#include "llvm/ADT/bit.h"

using namespace mlir;
using namespace kiln;
using namespace kiln::tile;

/// XOR of the offsets of the set bits of `index`.
static int64_t offsetOfBits(ArrayRef<int64_t> bitOffsets, int64_t index) {
  int64_t offset = 0;
  for (auto [k, o] : llvm::enumerate(bitOffsets))
    if (index >> k & 1)
      offset ^= o;
  return offset;
}

FailureOr<int64_t> kiln::tile::countBankConflicts(RankedTensorType tensorType,
                                                  MemDescType memdesc,
                                                  SharedBankModel model) {
  // What local_load / local_store's verifiers ask of their types.
  if (tensorType.getShape() != memdesc.getShape() ||
      tensorType.getElementType() != memdesc.getElementType())
    return failure();
  // As the lowering: an integer narrower than its byte in memory is widened
  // register by register, one element per access; everything else moves in
  // vectors of up to 16 bytes.
  Type elementType = memdesc.getElementType();
  unsigned elemBytes = getElementBytes(elementType);
  unsigned maxVectorBytes = 16;
  if (auto integer = dyn_cast<IntegerType>(elementType);
      integer && integer.getWidth() != elemBytes * 8)
    maxVectorBytes = 1;
  FailureOr<SharedAccessPlan> plan =
      planSharedAccess(tensorType, memdesc, /*alignment=*/16, maxVectorBytes);
  if (failed(plan))
    return failure();

  int64_t accessBytes = int64_t(plan->vec) * elemBytes;
  int64_t lanes = int64_t(1) << plan->laneBitOffsets.size();
  int64_t warps = int64_t(1) << plan->warpBitOffsets.size();
  int64_t bankBytes = model.bankBytes;
  int64_t rowBytes = int64_t(model.numBanks) * bankBytes;
  int64_t groupLanes =
      std::min(lanes, rowBytes / std::max(accessBytes, bankBytes));
  // The lanes of each pass: consecutive ones, or those that differ only in
  // the model's lane bits (16-byte accesses of targets that pair them so).
  SmallVector<SmallVector<int64_t>> groups;
  unsigned passBits = accessBytes == 16 ? model.laneBits16 & unsigned(lanes - 1)
                                        : 0;
  if (passBits && int64_t(1) << llvm::popcount(passBits) == groupLanes) {
    unsigned others = unsigned(lanes - 1) & ~passBits;
    for (int64_t rest = 0; rest < lanes; ++rest) {
      if (rest & passBits)
        continue; // each group once, from its lanes with the pass bits 0
      SmallVector<int64_t> &group = groups.emplace_back();
      for (int64_t in = 0; in < lanes; ++in)
        if (!(in & others))
          group.push_back(rest | in);
    }
  } else {
    for (int64_t first = 0; first < lanes; first += groupLanes)
      groups.push_back(llvm::to_vector(llvm::seq(first, first + groupLanes)));
  }
  auto address = [&](int64_t offset) {
    int64_t element = offset;
    for (auto [log2Interval, padding] : plan->paddings)
      element += (offset >> log2Interval) * padding;
    return element * elemBytes;
  };

  int64_t worst = 0;
  SmallVector<std::pair<int64_t, int64_t>> words; // (bank, word)
  for (int64_t warp = 0; warp < warps; ++warp) {
    int64_t warpOffset = offsetOfBits(plan->warpBitOffsets, warp);
    for (size_t r = 0, e = plan->registerOffsets.size(); r < e;
         r += plan->vec) {
      for (ArrayRef<int64_t> group : groups) {
        words.clear();
        for (int64_t lane : group) {
          int64_t byte = address(plan->registerOffsets[r] ^ warpOffset ^
                                 offsetOfBits(plan->laneBitOffsets, lane));
          for (int64_t w = byte / bankBytes,
                       last = (byte + accessBytes - 1) / bankBytes;
               w <= last; ++w)
            words.push_back({w % model.numBanks, w});
        }
        llvm::sort(words);
        words.erase(llvm::unique(words), words.end());
        // Distinct words of one bank are adjacent after sorting.
        for (size_t i = 0; i < words.size();) {
          size_t j = i;
          while (j < words.size() && words[j].first == words[i].first)
            ++j;
          worst = std::max<int64_t>(worst, int64_t(j - i) - 1);
          i = j;
        }
      }
    }
  }
  return worst;
}
