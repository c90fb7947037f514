//===- DeviceLibs.h - Linking the ROCm device libraries --------------------===//

#ifndef KILN_AMD_TARGET_DEVICELIBS_H
#define KILN_AMD_TARGET_DEVICELIBS_H

#include "kiln/Target/Serialize.h"

#include "mlir/IR/BuiltinOps.h"

#include <optional>
#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace kiln {

/// The directory of the ROCm device libraries' bitcode (ocml.bc, ockl.bc):
/// the serialize option's "rocm-device-libs", else $KILN_ROCM_DEVICE_LIBS
/// (both must name an existing directory holding ocml.bc), else the first of
/// $ROCM_PATH/amdgcn/bitcode, /opt/rocm/amdgcn/bitcode and the distribution
/// paths (/usr/lib/<multiarch>/amdgcn/bitcode, /usr/lib/amdgcn/bitcode) that
/// holds ocml.bc. `tried` lists where it looked; `chosen` says whether the
/// user named the place (then the first entry of `tried` is it).
std::optional<std::string>
findRocmDeviceLibs(const SerializeOptions &opts,
                   llvm::SmallVectorImpl<std::string> &tried, bool &chosen);

/// Links the functions of the ROCm device libraries that `llvmModule`
/// declares (`__ocml_*` from ocml.bc, `__ockl_*` from ockl.bc; only those,
/// made internal) into it and defines the control constants the libraries
/// read (`__oclc_*`: the chip's ISA version, code object ABI 500, IEEE
/// denormals, correctly rounded f32 sqrt, no finite-only or unsafe math,
/// 64-lane wavefronts), as Triton's AMD backend sets them. Any other function
/// the module calls but does not define is an error naming it.
mlir::LogicalResult linkRocmDeviceLibs(mlir::ModuleOp module,
                                       llvm::Module &llvmModule,
                                       const SerializeOptions &opts);

} // namespace kiln

#endif
