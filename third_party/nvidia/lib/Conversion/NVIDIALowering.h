//===- NVIDIALowering.h - The tile_nv lowering patterns ---------*- C++ -*-===//
#ifndef KILN_NVIDIA_LIB_CONVERSION_NVIDIALOWERING_H
#define KILN_NVIDIA_LIB_CONVERSION_NVIDIALOWERING_H

#include "kiln/Conversion/TileToLLVM/PatternTileToLLVM.h"

namespace kiln {

/// tile_nv.mbarrier_init / invalidate / expect / arrive / wait.
void populateMBarrierOpToLLVMPatterns(TileTypeConverter &converter,
                                      mlir::RewritePatternSet &patterns,
                                      const LoweringContext &ctx);

} // namespace kiln

#endif
