//===- CudaDriver.cpp - The CUDA Driver API behind kiln._runtime ----------===//
//
// libcuda through dlopen/dlsym: builds with no CUDA headers, loads on first
// use. Module and launch calls run in the caller's current context (torch's)
// or, when none is current, in device 0's primary context.
//
//===----------------------------------------------------------------------===//

#include "runtime/Driver.h"

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
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, unsigned, CUstream,
                             void **, void **);
  CUresult (*cuGetErrorName)(CUresult, const char **);
  CUresult (*cuGetErrorString)(CUresult, const char **);

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

  void launch(void *func, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
              unsigned by, unsigned bz, unsigned shared, void *stream,
              void **params) override {
    c.ensureContext();
    c.check(c.cuLaunchKernel(func, gx, gy, gz, bx, by, bz, shared, stream,
                             params, nullptr),
            "cuLaunchKernel");
  }

  void synchronize() override {
    c.ensureContext();
    c.check(c.cuCtxSynchronize(), "cuCtxSynchronize");
  }

private:
  Cuda c;
};

} // namespace

DeviceDriver &kiln::runtime::cudaDriver() {
  static CudaDriver driver;
  return driver;
}
