//===- CudaDriver.cpp - The CUDA Driver API behind kiln._runtime ----------===//
//
// libcuda through dlopen/dlsym: builds with no CUDA headers, loads on first
// use. Module and launch calls run in the caller's current context (torch's)
// or, when none is current, in device 0's primary context.
//
//===----------------------------------------------------------------------===//

#include "runtime/Driver.h"

#include <cstdio>
#include <cstring>

using namespace kiln::runtime;

namespace {

// Minimal driver-API types: CUresult and CUdevice are ints, every other
// handle is an opaque pointer, device pointers are 64-bit.
using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;

constexpr int kCuAttrMaxSharedPerBlock = 8;
constexpr int kCuAttrWarpSize = 10;
constexpr int kCuAttrMultiprocessorCount = 16;
constexpr int kCuAttrCCMajor = 75;
constexpr int kCuAttrCCMinor = 76;
constexpr int kCuAttrMaxSharedPerBlockOptin = 97;
constexpr int kCuFuncAttrMaxDynamicShared = 8;
// CUfunction_attribute: CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, _NUM_REGS.
constexpr int kCuFuncAttrLocalSizeBytes = 3;
constexpr int kCuFuncAttrNumRegs = 4;
// CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED.
constexpr int kCuFuncAttrNonPortableClusterSizeAllowed = 14;
// CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION.
constexpr int kCuLaunchAttributeClusterDimension = 4;

// cuLaunchKernelEx's CUlaunchAttribute and CUlaunchConfig (cuda.h, CUDA 12):
// an attribute is its id, padding to 8 bytes, and a 64-byte value union.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    unsigned clusterDim[3];
  } value;
};
static_assert(sizeof(LaunchAttribute) == 72, "CUlaunchAttribute is 72 bytes");
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
      sharedMemBytes;
  CUstream hStream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};

// cuTensorMapEncodeTiled's enums (cuda.h, CUDA 12): CUtensorMapDataType,
// CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
// CUtensorMapFloatOOBfill.
constexpr int kCuTensorMapDataTypeUInt8 = 0;
constexpr int kCuTensorMapDataTypeUInt16 = 1;
constexpr int kCuTensorMapDataTypeUInt32 = 2;
constexpr int kCuTensorMapDataTypeInt32 = 3;
constexpr int kCuTensorMapDataTypeUInt64 = 4;
constexpr int kCuTensorMapDataTypeInt64 = 5;
constexpr int kCuTensorMapDataTypeFloat16 = 6;
constexpr int kCuTensorMapDataTypeFloat32 = 7;
constexpr int kCuTensorMapDataTypeFloat64 = 8;
constexpr int kCuTensorMapDataTypeBFloat16 = 9;
constexpr int kCuTensorMapDataTypeTFloat32 = 11;
constexpr int kCuTensorMapInterleaveNone = 0;
constexpr int kCuTensorMapSwizzleNone = 0;
constexpr int kCuTensorMapSwizzle32B = 1;
constexpr int kCuTensorMapSwizzle64B = 2;
constexpr int kCuTensorMapSwizzle128B = 3;
// 128-byte L2 sectors: a swizzled TMA box row is at most 128 bytes.
constexpr int kCuTensorMapL2Promotion128B = 2;
constexpr int kCuTensorMapFloatOOBFillNone = 0;
constexpr int kCuTensorMapFloatOOBFillNanRequestZeroFma = 1;

// CUtensorMap: 16 64-bit words. cuTensorMapEncodeTiled wants it 64-byte
// aligned; CUDA 13's cuda.h declares it alignas(128), so this does too.
struct alignas(128) CUtensorMap {
  uint64_t opaque[kTensorMapBytes / 8];
};
static_assert(sizeof(CUtensorMap) == kTensorMapBytes, "CUtensorMap is 128 B");

int cuTensorMapDataType(TensorMapElement e) {
  switch (e) {
  case TensorMapElement::U8:
    return kCuTensorMapDataTypeUInt8;
  case TensorMapElement::U16:
    return kCuTensorMapDataTypeUInt16;
  case TensorMapElement::U32:
    return kCuTensorMapDataTypeUInt32;
  case TensorMapElement::I32:
    return kCuTensorMapDataTypeInt32;
  case TensorMapElement::U64:
    return kCuTensorMapDataTypeUInt64;
  case TensorMapElement::I64:
    return kCuTensorMapDataTypeInt64;
  case TensorMapElement::F16:
    return kCuTensorMapDataTypeFloat16;
  case TensorMapElement::BF16:
    return kCuTensorMapDataTypeBFloat16;
  case TensorMapElement::F32:
    return kCuTensorMapDataTypeFloat32;
  case TensorMapElement::F64:
    return kCuTensorMapDataTypeFloat64;
  case TensorMapElement::TF32:
    return kCuTensorMapDataTypeTFloat32;
  }
  throw DriverError("unknown tensor map element type");
}

int cuTensorMapSwizzle(int bytes) {
  switch (bytes) {
  case 0:
    return kCuTensorMapSwizzleNone;
  case 32:
    return kCuTensorMapSwizzle32B;
  case 64:
    return kCuTensorMapSwizzle64B;
  case 128:
    return kCuTensorMapSwizzle128B;
  }
  throw DriverError("tensor map swizzle must be 0, 32, 64 or 128 bytes, got " +
                    std::to_string(bytes));
}

// "[a, b, c]". Plain strings, no iostreams: this library may share a process
// with another copy of libstdc++ (torch's), whose locale state iostreams would
// touch.
template <typename T> std::string list(const T *v, unsigned n) {
  std::string out = "[";
  for (unsigned i = 0; i < n; ++i)
    out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}

struct Cuda {
  bool tried = false;
  bool initialized = false;
  std::string loadError;
  void *lib = nullptr;
  CUcontext primary = nullptr; // retained once when no context was current

  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)();
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction) = nullptr;
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  // Optional (CUDA 12+): only cluster launches need it.
  CUresult (*cuLaunchKernelEx)(const LaunchConfig *, CUfunction, void **,
                               void **) = nullptr;
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  // Optional (CUDA 12+): a driver without it still loads; encoding a tensor
  // map then fails naming it.
  CUresult (*cuTensorMapEncodeTiled)(CUtensorMap *, int, unsigned, void *,
                                     const uint64_t *, const uint64_t *,
                                     const uint32_t *, const uint32_t *, int,
                                     int, int, int) = nullptr;
  CUresult (*cuTensorMapEncodeIm2col)(CUtensorMap *, int, unsigned, void *,
                                      const uint64_t *, const uint64_t *,
                                      const int *, const int *, unsigned,
                                      unsigned, const uint32_t *, int, int,
                                      int, int) = nullptr;

  // dlopen + dlsym; returns "" on success or why it failed. Cached: a missing
  // library does not appear while the process runs.
  const std::string &load() {
    if (tried)
      return loadError;
    tried = true;
    std::string why;
    lib = openFirst({"libcuda.so.1", "libcuda.so"}, &why);
    if (!lib) {
      loadError = "CUDA driver library libcuda.so.1 not found: " + why;
      return loadError;
    }
#define KILN_BIND(sym)                                                         \
  if (!bind(lib, #sym, sym)) {                                                 \
    loadError = "CUDA driver library lacks " #sym;                             \
    return loadError;                                                          \
  }
    KILN_BIND(cuInit)
    KILN_BIND(cuDeviceGetCount)
    KILN_BIND(cuDeviceGet)
    KILN_BIND(cuDeviceGetName)
    KILN_BIND(cuDeviceGetAttribute)
    KILN_BIND(cuCtxGetCurrent)
    KILN_BIND(cuCtxSetCurrent)
    KILN_BIND(cuCtxSynchronize)
    KILN_BIND(cuDevicePrimaryCtxRetain)
    KILN_BIND(cuModuleLoadData)
    KILN_BIND(cuModuleUnload)
    KILN_BIND(cuModuleGetFunction)
    KILN_BIND(cuFuncSetAttribute)
    KILN_BIND(cuLaunchKernel)
    KILN_BIND(cuGetErrorName)
    KILN_BIND(cuGetErrorString)
#undef KILN_BIND
    bind(lib, "cuTensorMapEncodeTiled", cuTensorMapEncodeTiled);
    bind(lib, "cuTensorMapEncodeIm2col", cuTensorMapEncodeIm2col);
    bind(lib, "cuFuncGetAttribute", cuFuncGetAttribute);
    bind(lib, "cuLaunchKernelEx", cuLaunchKernelEx);
    return loadError;
  }

  void check(CUresult r, const char *what) {
    if (r == 0)
      return;
    const char *name = nullptr, *text = nullptr;
    if (cuGetErrorName(r, &name) != 0 || !name)
      name = "CUDA_ERROR_UNKNOWN";
    if (cuGetErrorString(r, &text) != 0 || !text)
      text = "unrecognized error code";
    throw DriverError(std::string(what) + " failed: " + name + " (" + text +
                      ", code " + std::to_string(r) + ")");
  }

  // Loaded library + cuInit done; the entry point of every public function.
  void ready() {
    if (!load().empty())
      throw DriverError(loadError);
    if (!initialized) {
      check(cuInit(0), "cuInit");
      initialized = true;
    }
  }

  // Module and launch calls need a current context. Reuse whatever the caller
  // (e.g. torch) made current; otherwise make device 0's primary context
  // current, which is the same context torch would use, so they coexist.
  void ensureContext() {
    ready();
    CUcontext cur = nullptr;
    check(cuCtxGetCurrent(&cur), "cuCtxGetCurrent");
    if (cur)
      return;
    if (!primary) {
      CUdevice dev;
      check(cuDeviceGet(&dev, 0), "cuDeviceGet");
      check(cuDevicePrimaryCtxRetain(&primary, dev), "cuDevicePrimaryCtxRetain");
    }
    check(cuCtxSetCurrent(primary), "cuCtxSetCurrent");
  }

  int attr(int which, CUdevice dev) {
    int v = 0;
    check(cuDeviceGetAttribute(&v, which, dev), "cuDeviceGetAttribute");
    return v;
  }
};

class CudaDriver : public DeviceDriver {
public:
  const char *name() const override { return "cuda"; }
  const std::string &loadError() override { return c.load(); }

  int deviceCount() override {
    c.ready();
    int n = 0;
    c.check(c.cuDeviceGetCount(&n), "cuDeviceGetCount");
    return n;
  }

  DeviceInfo deviceInfo() override {
    c.ready();
    CUdevice dev;
    c.check(c.cuDeviceGet(&dev, 0), "cuDeviceGet");
    char name[256] = {0};
    c.check(c.cuDeviceGetName(name, sizeof(name) - 1, dev), "cuDeviceGetName");
    DeviceInfo d;
    d.name = name;
    d.major = c.attr(kCuAttrCCMajor, dev);
    d.minor = c.attr(kCuAttrCCMinor, dev);
    d.arch = "sm_" + std::to_string(d.major) + std::to_string(d.minor);
    d.multiprocessorCount = c.attr(kCuAttrMultiprocessorCount, dev);
    d.warpSize = c.attr(kCuAttrWarpSize, dev);
    d.maxSharedPerBlock = c.attr(kCuAttrMaxSharedPerBlock, dev);
    d.maxSharedPerBlockOptin = c.attr(kCuAttrMaxSharedPerBlockOptin, dev);
    return d;
  }

  void *loadModule(const std::string &image) override {
    c.ensureContext();
    CUmodule m = nullptr;
    c.check(c.cuModuleLoadData(&m, image.c_str()), "cuModuleLoadData");
    return m;
  }

  void unloadModule(void *module) override {
    c.ensureContext();
    c.check(c.cuModuleUnload(module), "cuModuleUnload");
  }

  void *getFunction(void *module, const std::string &name,
                    long shared) override {
    c.ensureContext();
    CUfunction f = nullptr;
    c.check(c.cuModuleGetFunction(&f, module, name.c_str()),
            ("cuModuleGetFunction('" + name + "')").c_str());
    if (shared > kDefaultSharedLimit)
      c.check(c.cuFuncSetAttribute(f, kCuFuncAttrMaxDynamicShared,
                                   static_cast<int>(shared)),
              "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    return f;
  }

  std::pair<int, int> functionResources(void *func) override {
    if (!c.cuFuncGetAttribute)
      return {-1, -1};
    c.ensureContext();
    int regs = -1, local = -1;
    CUfunction f = static_cast<CUfunction>(func);
    c.check(c.cuFuncGetAttribute(&regs, kCuFuncAttrNumRegs, f),
            "cuFuncGetAttribute(NUM_REGS)");
    c.check(c.cuFuncGetAttribute(&local, kCuFuncAttrLocalSizeBytes, f),
            "cuFuncGetAttribute(LOCAL_SIZE_BYTES)");
    return {regs, local};
  }

  void launch(void *func, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
              unsigned by, unsigned bz, unsigned shared, void *stream,
              void **params, unsigned clusterX) override {
    c.ensureContext();
    if (clusterX <= 1) {
      c.check(c.cuLaunchKernel(func, gx, gy, gz, bx, by, bz, shared, stream,
                               params, nullptr),
              "cuLaunchKernel");
      return;
    }
    if (!c.cuLaunchKernelEx)
      throw DriverError("the CUDA driver lacks cuLaunchKernelEx (CUDA 12+), "
                        "which launches thread-block clusters");
    // More than 8 CTAs per cluster is a non-portable size the function
    // must allow.
    if (clusterX > 8)
      c.check(c.cuFuncSetAttribute(static_cast<CUfunction>(func),
                                   kCuFuncAttrNonPortableClusterSizeAllowed,
                                   1),
              "cuFuncSetAttribute(NON_PORTABLE_CLUSTER_SIZE_ALLOWED)");
    LaunchAttribute attr{};
    attr.id = kCuLaunchAttributeClusterDimension;
    attr.value.clusterDim[0] = clusterX;
    attr.value.clusterDim[1] = 1;
    attr.value.clusterDim[2] = 1;
    LaunchConfig config{gx, gy, gz, bx, by, bz, shared, stream, &attr, 1};
    c.check(c.cuLaunchKernelEx(&config, static_cast<CUfunction>(func), params,
                               nullptr),
            "cuLaunchKernelEx");
  }

  void synchronize() override {
    c.ensureContext();
    c.check(c.cuCtxSynchronize(), "cuCtxSynchronize");
  }

  void encodeTiledTensorMap(const TiledTensorMap &m, uint8_t *out) override {
    // Encoding needs a current context (CUDA_ERROR_INVALID_CONTEXT without).
    c.ensureContext();
    if (!c.cuTensorMapEncodeTiled)
      throw DriverError("CUDA driver library lacks cuTensorMapEncodeTiled "
                        "(tensor maps need a CUDA 12 driver)");
    int swizzle = cuTensorMapSwizzle(m.swizzleBytes);
    CUtensorMap map;
    std::memset(&map, 0, sizeof map);
    CUresult r = c.cuTensorMapEncodeTiled(
        &map, cuTensorMapDataType(m.element), m.rank,
        reinterpret_cast<void *>(static_cast<uintptr_t>(m.globalAddress)),
        m.dims, m.stridesBytes, m.box, m.elementStrides,
        kCuTensorMapInterleaveNone, swizzle, kCuTensorMapL2Promotion128B,
        m.oobNan ? kCuTensorMapFloatOOBFillNanRequestZeroFma
                 : kCuTensorMapFloatOOBFillNone);
    if (r != 0) {
      // Say what was asked: the driver's INVALID_VALUE does not say which.
      char address[32];
      std::snprintf(address, sizeof address, "0x%llx",
                    static_cast<unsigned long long>(m.globalAddress));
      std::string what = "cuTensorMapEncodeTiled(rank " +
                         std::to_string(m.rank) + ", address " + address +
                         ", dims " + list(m.dims, m.rank) + ", byte strides " +
                         list(m.stridesBytes, m.rank - 1) + ", box " +
                         list(m.box, m.rank) + ", swizzle " +
                         std::to_string(m.swizzleBytes) + "B)";
      c.check(r, what.c_str());
    }
    std::memcpy(out, &map, sizeof map);
  }

  void encodeIm2colTensorMap(const Im2colTensorMap &m,
                             uint8_t *out) override {
    c.ensureContext();
    if (!c.cuTensorMapEncodeIm2col)
      throw DriverError("CUDA driver library lacks cuTensorMapEncodeIm2col "
                        "(tensor maps need a CUDA 12 driver)");
    int swizzle = cuTensorMapSwizzle(m.swizzleBytes);
    CUtensorMap map;
    std::memset(&map, 0, sizeof map);
    CUresult r = c.cuTensorMapEncodeIm2col(
        &map, cuTensorMapDataType(m.element), m.rank,
        reinterpret_cast<void *>(static_cast<uintptr_t>(m.globalAddress)),
        m.dims, m.stridesBytes, m.lowerCorner, m.upperCorner,
        m.channelsPerPixel, m.pixelsPerColumn, m.elementStrides,
        kCuTensorMapInterleaveNone, swizzle, kCuTensorMapL2Promotion128B,
        m.oobNan ? kCuTensorMapFloatOOBFillNanRequestZeroFma
                 : kCuTensorMapFloatOOBFillNone);
    if (r != 0) {
      char address[32];
      std::snprintf(address, sizeof address, "0x%llx",
                    static_cast<unsigned long long>(m.globalAddress));
      std::string what =
          "cuTensorMapEncodeIm2col(rank " + std::to_string(m.rank) +
          ", address " + address + ", dims " + list(m.dims, m.rank) +
          ", byte strides " + list(m.stridesBytes, m.rank - 1) +
          ", lower corner " + list(m.lowerCorner, m.rank - 2) +
          ", upper corner " + list(m.upperCorner, m.rank - 2) + ", " +
          std::to_string(m.channelsPerPixel) + " channels x " +
          std::to_string(m.pixelsPerColumn) + " pixels, element strides " +
          list(m.elementStrides, m.rank) + ", swizzle " +
          std::to_string(m.swizzleBytes) + "B)";
      c.check(r, what.c_str());
    }
    std::memcpy(out, &map, sizeof map);
  }

private:
  Cuda c;
};

} // namespace

DeviceDriver &kiln::runtime::cudaDriver() {
  static CudaDriver driver;
  return driver;
}
