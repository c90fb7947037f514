//===- Driver.h - One GPU driver behind kiln._runtime ------------*- C++ -*-===//
//
// kiln._runtime (python/src/runtime.cc) dispatches every call to a
// DeviceDriver by backend name. Each vendor's driver lives with its vendor
// (third_party/nvidia/runtime/CudaDriver.cpp: the CUDA Driver API;
// third_party/amd/runtime/HipDriver.cpp: the HIP runtime), loads its library
// with dlopen on first use and needs no vendor headers. No Python here: the
// dispatcher owns the GIL and the argument packing.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_RUNTIME_DRIVER_H
#define KILN_RUNTIME_DRIVER_H

#include <dlfcn.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kiln::runtime {

// Raised for every driver failure; exported as kiln._runtime.DriverError
// (a RuntimeError subclass).
struct DriverError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct DeviceInfo {
  std::string name, arch;
  int major = 0, minor = 0, multiprocessorCount = 0, warpSize = 0;
  uint64_t maxSharedPerBlock = 0, maxSharedPerBlockOptin = 0;
};

// Above this a kernel must opt in to more dynamic shared memory (CUDA rule;
// HIP follows it).
constexpr long kDefaultSharedLimit = 48 * 1024;

// A TMA tensor map (CUDA's CUtensorMap): an opaque 128-byte value that a
// kernel takes by value (a `__grid_constant__` byval parameter, 64-byte
// aligned).
constexpr size_t kTensorMapBytes = 128;
constexpr size_t kTensorMapAlign = 64;
constexpr unsigned kTensorMapMaxRank = 5;

// Element types a tiled tensor map can describe, by size and kind: TMA copies
// bits, so signedness matters only where the hardware has both (32/64-bit
// ints) and 8-bit floats travel as U8.
// TF32: fp32 in memory, each element rounded to tf32 as TMA loads it.
enum class TensorMapElement { U8, U16, U32, I32, U64, I64, F16, BF16, F32, F64, TF32 };

// What cuTensorMapEncodeTiled takes, in its order: dimension 0 is the
// innermost (contiguous) one. Interleave is always none.
struct TiledTensorMap {
  TensorMapElement element = TensorMapElement::U8;
  unsigned rank = 0;                    // 1..kTensorMapMaxRank
  uint64_t globalAddress = 0;           // 16-byte aligned device address
  const uint64_t *dims = nullptr;       // rank entries, elements
  const uint64_t *stridesBytes = nullptr; // rank-1 entries: dims 1..rank-1
  const uint32_t *box = nullptr;        // rank entries, elements
  const uint32_t *elementStrides = nullptr; // rank entries
  int swizzleBytes = 0;                 // 0, 32, 64 or 128
  bool oobNan = false; // out-of-bounds elements read as NaN (floats), not 0
};

// What cuTensorMapEncodeIm2col takes, in its order (dimension 0 innermost,
// the channels; then W, H, D and N): rank 3 to 5, one pixel-box corner
// offset per spatial dimension (rank - 2, W first), and a box of
// `pixelsPerColumn` pixels of `channelsPerPixel` channels.
struct Im2colTensorMap {
  TensorMapElement element = TensorMapElement::U8;
  unsigned rank = 0;                    // 3..kTensorMapMaxRank
  uint64_t globalAddress = 0;           // 16-byte aligned device address
  const uint64_t *dims = nullptr;       // rank entries, elements
  const uint64_t *stridesBytes = nullptr; // rank-1 entries: dims 1..rank-1
  const int32_t *lowerCorner = nullptr; // rank-2 entries
  const int32_t *upperCorner = nullptr; // rank-2 entries
  uint32_t channelsPerPixel = 0;
  uint32_t pixelsPerColumn = 0;
  const uint32_t *elementStrides = nullptr; // rank entries
  int swizzleBytes = 0;                 // 0, 32, 64 or 128
  bool oobNan = false;
};

class DeviceDriver {
public:
  virtual ~DeviceDriver() = default;
  // "" when the library and its symbols load, else why not. Cached: a
  // missing library does not appear while the process runs.
  virtual const std::string &loadError() = 0;
  virtual int deviceCount() = 0;
  // Properties of device 0.
  virtual DeviceInfo deviceInfo() = 0;
  // `image` is NUL-terminated (PTX text must be).
  virtual void *loadModule(const std::string &image) = 0;
  virtual void unloadModule(void *module) = 0;
  virtual void *getFunction(void *module, const std::string &name,
                            long sharedBytes) = 0;
  // `clusterX` > 1: CTAs x .. x + clusterX - 1 form one hardware cluster
  // (co-scheduled, one cluster rank each); gx is a multiple of it.
  virtual void launch(void *func, unsigned gx, unsigned gy, unsigned gz,
                      unsigned bx, unsigned by, unsigned bz, unsigned shared,
                      void *stream, void **params, unsigned clusterX) = 0;
  virtual void synchronize() = 0;
  // Registers per thread and local (spill) bytes per thread the loaded code
  // of `func` uses; -1 where the driver cannot tell.
  virtual std::pair<int, int> functionResources(void *func) {
    (void)func;
    return {-1, -1};
  }
  // Encodes `map` into kTensorMapBytes bytes at `out` (any alignment). Only
  // backends with TMA implement it.
  virtual void encodeTiledTensorMap(const TiledTensorMap &map, uint8_t *out) {
    (void)map;
    (void)out;
    throw DriverError(std::string("the ") + name() +
                      " backend has no tensor maps (TMA descriptors are a "
                      "CUDA sm_90+ feature)");
  }
  // The same for an im2col tensor map.
  virtual void encodeIm2colTensorMap(const Im2colTensorMap &map,
                                     uint8_t *out) {
    (void)map;
    (void)out;
    throw DriverError(std::string("the ") + name() +
                      " backend has no tensor maps (TMA descriptors are a "
                      "CUDA sm_90+ feature)");
  }
  // "cuda" or "hip", for messages.
  virtual const char *name() const = 0;
};

DeviceDriver &cudaDriver();
DeviceDriver &hipDriver();

// Opens the first library of `names` that loads; on failure returns nullptr
// and the dlerror() text of every attempt in *why.
inline void *openFirst(const std::vector<const char *> &names,
                       std::string *why) {
  for (const char *n : names) {
    if (void *h = dlopen(n, RTLD_NOW | RTLD_LOCAL))
      return h;
    const char *e = dlerror();
    if (!why->empty())
      *why += "; ";
    *why += e ? e : n;
  }
  return nullptr;
}

template <typename F> bool bind(void *lib, const char *sym, F *&out) {
  out = reinterpret_cast<F *>(dlsym(lib, sym));
  return out != nullptr;
}

} // namespace kiln::runtime

#endif
