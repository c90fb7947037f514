//===- BankConflicts.h - Bank conflicts of a shared access ------*- C++ -*-===//
//
// How many extra passes over the shared memory banks the element-wise
// accesses of local_load / local_store need. The accesses are the ones the
// lowering issues (planSharedAccess decides their vector width and
// addresses); the banks are a model of the hardware, stated in
// SharedBankModel.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_DIALECT_TILE_IR_BANKCONFLICTS_H
#define KILN_DIALECT_TILE_IR_BANKCONFLICTS_H

#include "kiln/Dialect/Tile/IR/Dialect.h"

namespace kiln::tile {

/// Shared memory as a row of banks: consecutive `bankBytes`-byte words
/// live in consecutive banks (word w in bank w % numBanks), and a bank
/// delivers one word per pass. One pass (a wavefront) serves the accesses
/// of as many consecutive lanes of a warp as fill the row of banks with
/// their vectors (numBanks * bankBytes bytes; a lane's access counts at
/// least one word): with 32 banks of 4 bytes, 8 lanes of 16-byte
/// vectors, 16 lanes of 8-byte ones, 32 lanes otherwise. Lanes that read
/// or write the same word share it.
struct SharedBankModel {
  unsigned numBanks = 32;
  unsigned bankBytes = 4;
  /// Where a 16-byte access's pass serves other lanes than consecutive
  /// ones: the lane-index bits that vary within one pass (TargetDesc::
  /// sharedLoad16LaneBits); 0 for consecutive lanes.
  unsigned laneBits16 = 0;
};

/// Bank conflicts of moving a tensor of `tensorType` to or from a buffer of
/// `memdesc` (whose first element is 16-byte aligned, as every allocation
/// is) with the vector loads / stores local_load and local_store issue
/// (the element-wise path, not the warp-wide matrix instructions some
/// targets use instead for 16-bit tensors): for each vector instruction of
/// each warp and each group of lanes one pass serves, the passes it needs
/// beyond the first (the most distinct words any bank holds, less one).
/// The result is the largest of these; without padding every group of
/// every instruction needs the same number. Fails when the types' shapes or
/// element types differ, or the lowering could not address the buffer with
/// the tensor's layout.
mlir::FailureOr<int64_t> countBankConflicts(mlir::RankedTensorType tensorType,
                                            MemDescType memdesc,
                                            SharedBankModel model = {});

} // namespace kiln::tile

#endif
