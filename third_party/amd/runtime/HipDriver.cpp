//===- HipDriver.cpp - The HIP runtime behind kiln._runtime ---------------===//
//
// libamdhip64 through dlopen/dlsym: builds with no ROCm headers, loads on
// first use. HIP has an implicit per-device context.
//
//===----------------------------------------------------------------------===//

#include "runtime/Driver.h"

#include <cstring>

using namespace kiln::runtime;

namespace {

using hipError_t = int;

// hipDeviceProp_tR0600 (ROCm 6 ABI, versioned by the R0600 suffix so these
// offsets are stable): read as raw bytes to avoid needing the HIP headers.
// Offsets computed from ROCm's hip_runtime_api.h with offsetof.
constexpr size_t kHipPropName = 0;          // char[256]
constexpr size_t kHipPropMajor = 360;       // int
constexpr size_t kHipPropMinor = 364;       // int
constexpr size_t kHipPropMPCount = 388;     // int multiProcessorCount
constexpr size_t kHipPropWarpSize = 308;    // int warpSize
constexpr size_t kHipPropSmemOptin = 696;   // size_t sharedMemPerBlockOptin
constexpr size_t kHipPropGcnArch = 1160;    // char[256] gcnArchName
constexpr size_t kHipPropBufferBytes = 8192; // struct is 1472 B; slack for growth
constexpr int kHipFuncAttrMaxDynamicShared = 8;

struct Hip {
  bool tried = false;
  bool initialized = false;
  std::string loadError;
  void *lib = nullptr;

  hipError_t (*hipInit)(unsigned);
  hipError_t (*hipGetDeviceCount)(int *);
  hipError_t (*hipGetDevicePropertiesR0600)(void *, int);
  hipError_t (*hipDeviceSynchronize)();
  hipError_t (*hipModuleLoadData)(void **, const void *);
  hipError_t (*hipModuleUnload)(void *);
  hipError_t (*hipModuleGetFunction)(void **, void *, const char *);
  hipError_t (*hipFuncSetAttribute)(const void *, int, int) = nullptr;
  hipError_t (*hipFuncGetAttribute)(int *, int, void *) = nullptr;
  hipError_t (*hipModuleLaunchKernel)(void *, unsigned, unsigned, unsigned,
                                      unsigned, unsigned, unsigned, unsigned,
                                      void *, void **, void **);
  const char *(*hipGetErrorName)(hipError_t);
  const char *(*hipGetErrorString)(hipError_t);

  const std::string &load() {
    if (tried)
      return loadError;
    tried = true;
    std::string why;
    lib = openFirst({"libamdhip64.so", "libamdhip64.so.6", "libamdhip64.so.5"},
                    &why);
    if (!lib) {
      loadError = "HIP runtime library libamdhip64.so not found: " + why;
      return loadError;
    }
#define KILN_BIND(sym)                                                         \
  if (!bind(lib, #sym, sym)) {                                                 \
    loadError = "HIP runtime library lacks " #sym " (Kiln needs ROCm 6+)";     \
    return loadError;                                                          \
  }
    KILN_BIND(hipInit)
    KILN_BIND(hipGetDeviceCount)
    KILN_BIND(hipGetDevicePropertiesR0600)
    KILN_BIND(hipDeviceSynchronize)
    KILN_BIND(hipModuleLoadData)
    KILN_BIND(hipModuleUnload)
    KILN_BIND(hipModuleGetFunction)
    KILN_BIND(hipModuleLaunchKernel)
    KILN_BIND(hipGetErrorName)
    KILN_BIND(hipGetErrorString)
#undef KILN_BIND
    // Optional: AMD kernels may use all LDS without opting in.
    bind(lib, "hipFuncSetAttribute", hipFuncSetAttribute);
    bind(lib, "hipFuncGetAttribute", hipFuncGetAttribute);
    return loadError;
  }

  void check(hipError_t r, const char *what) {
    if (r == 0)
      return;
    const char *name = hipGetErrorName(r);
    const char *text = hipGetErrorString(r);
    throw DriverError(std::string(what) + " failed: " +
                      (name ? name : "hipErrorUnknown") + " (" +
                      (text ? text : "unrecognized error code") + ", code " +
                      std::to_string(r) + ")");
  }

  // HIP has an implicit per-device context, so no context juggling is needed.
  void ready() {
    if (!load().empty())
      throw DriverError(loadError);
    if (!initialized) {
      check(hipInit(0), "hipInit");
      initialized = true;
    }
  }
};

class HipDriver : public DeviceDriver {
public:
  const char *name() const override { return "hip"; }
  const std::string &loadError() override { return h.load(); }

  int deviceCount() override {
    h.ready();
    int n = 0;
    h.check(h.hipGetDeviceCount(&n), "hipGetDeviceCount");
    return n;
  }

  DeviceInfo deviceInfo() override {
    h.ready();
    std::vector<unsigned char> prop(kHipPropBufferBytes, 0);
    h.check(h.hipGetDevicePropertiesR0600(prop.data(), 0),
            "hipGetDevicePropertiesR0600");
    auto intAt = [&](size_t off) {
      int v;
      std::memcpy(&v, prop.data() + off, sizeof(v));
      return v;
    };
    auto strAt = [&](size_t off) {
      const char *s = reinterpret_cast<const char *>(prop.data() + off);
      return std::string(s, strnlen(s, 256));
    };
    size_t optin;
    std::memcpy(&optin, prop.data() + kHipPropSmemOptin, sizeof(optin));
    DeviceInfo d;
    d.name = strAt(kHipPropName);
    d.major = intAt(kHipPropMajor);
    d.minor = intAt(kHipPropMinor);
    d.arch = strAt(kHipPropGcnArch); // e.g. "gfx942:sramecc+:xnack-"
    d.multiprocessorCount = intAt(kHipPropMPCount);
    d.warpSize = intAt(kHipPropWarpSize);
    d.maxSharedPerBlock = optin;
    d.maxSharedPerBlockOptin = optin;
    return d;
  }

  void *loadModule(const std::string &image) override {
    h.ready();
    void *m = nullptr;
    h.check(h.hipModuleLoadData(&m, image.data()), "hipModuleLoadData");
    return m;
  }

  void unloadModule(void *module) override {
    h.ready();
    h.check(h.hipModuleUnload(module), "hipModuleUnload");
  }

  void *getFunction(void *module, const std::string &name,
                    long shared) override {
    h.ready();
    void *f = nullptr;
    h.check(h.hipModuleGetFunction(&f, module, name.c_str()),
            ("hipModuleGetFunction('" + name + "')").c_str());
    if (shared > kDefaultSharedLimit && h.hipFuncSetAttribute)
      h.check(h.hipFuncSetAttribute(f, kHipFuncAttrMaxDynamicShared,
                                    static_cast<int>(shared)),
              "hipFuncSetAttribute(MaxDynamicSharedMemorySize)");
    return f;
  }

  // hipFunction_attribute numbers as CUDA's: LOCAL_SIZE_BYTES 3, NUM_REGS 4.
  std::pair<int, int> functionResources(void *func) override {
    if (!h.hipFuncGetAttribute)
      return {-1, -1};
    h.ready();
    int regs = -1, local = -1;
    h.check(h.hipFuncGetAttribute(&regs, 4, func), "hipFuncGetAttribute(NUM_REGS)");
    h.check(h.hipFuncGetAttribute(&local, 3, func),
            "hipFuncGetAttribute(LOCAL_SIZE_BYTES)");
    return {regs, local};
  }

  void launch(void *func, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
              unsigned by, unsigned bz, unsigned shared, void *stream,
              void **params, unsigned clusterX) override {
    if (clusterX > 1)
      throw DriverError("HIP has no thread-block clusters (asked for " +
                        std::to_string(clusterX) + " CTAs per cluster)");
    h.ready();
    h.check(h.hipModuleLaunchKernel(func, gx, gy, gz, bx, by, bz, shared,
                                    stream, params, nullptr),
            "hipModuleLaunchKernel");
  }

  void synchronize() override {
    h.ready();
    h.check(h.hipDeviceSynchronize(), "hipDeviceSynchronize");
  }

private:
  Hip h;
};

} // namespace

DeviceDriver &kiln::runtime::hipDriver() {
  static HipDriver driver;
  return driver;
}
