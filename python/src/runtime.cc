// kiln._runtime: the thin native layer under kiln.runtime.
//
// It talks to the CUDA Driver API (libcuda) or the HIP runtime (libamdhip64)
// through dlopen/dlsym, so the extension builds with no CUDA or ROCm headers or
// libraries and imports on machines without a GPU. Libraries are opened on
// first use, never at import: `import kiln` must stay cheap and must not fail
// where no driver exists.
//
// Handles (modules, functions, streams) cross into Python as plain ints.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <dlfcn.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace py = pybind11;

namespace {

// Raised for every driver failure; exported as kiln._runtime.DriverError
// (a RuntimeError subclass).
struct DriverError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Opens the first library of `names` that loads; on failure returns nullptr
// and the dlerror() text of every attempt in *why.
void *openFirst(const std::vector<const char *> &names, std::string *why) {
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

//===----------------------------------------------------------------------===//
// CUDA driver
//===----------------------------------------------------------------------===//

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
// Above this a kernel must opt in to more dynamic shared memory (CUDA rule).
constexpr long kDefaultSharedLimit = 48 * 1024;

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

//===----------------------------------------------------------------------===//
// HIP runtime
//===----------------------------------------------------------------------===//

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

Cuda &cuda() {
  static Cuda c;
  return c;
}
Hip &hip() {
  static Hip h;
  return h;
}

enum class Backend { Cuda, Hip };

Backend parseBackend(const std::string &b) {
  if (b == "cuda")
    return Backend::Cuda;
  if (b == "hip")
    return Backend::Hip;
  throw py::value_error("unknown backend '" + b + "' (expected 'cuda' or 'hip')");
}

template <typename T> T *asHandle(uint64_t v) {
  return reinterpret_cast<T *>(static_cast<uintptr_t>(v));
}
uint64_t fromHandle(const void *p) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
}

//===----------------------------------------------------------------------===//
// Argument packing
//===----------------------------------------------------------------------===//

// Every argument occupies one 8-byte slot, little-endian, value in the low
// bytes; the launch passes a pointer to each slot, which the driver reads with
// the parameter's own size. One layout serves all types and pack_args() can
// expose it for testing.

uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// IEEE binary16, round to nearest even, overflow to inf. Subnormals are
// rounded by letting the FPU add a magic constant whose exponent puts the
// half's last mantissa bit at the float's last mantissa bit.
uint16_t toHalf(float value) {
  uint32_t f = floatBits(value);
  uint32_t sign = (f >> 16) & 0x8000u;
  f &= 0x7fffffffu;
  if (f >= 0x47800000u) // >= 65536 (or inf/nan): inf, or a quiet nan
    return sign | (f > 0x7f800000u ? 0x7e00u : 0x7c00u);
  if (f < 0x38800000u) { // below 2^-14: half subnormal or zero
    const uint32_t magic = 126u << 23; // 0.5f
    return sign | (floatBits(bitsFloat(f) + bitsFloat(magic)) - magic);
  }
  uint32_t odd = (f >> 13) & 1u;
  f += 0xc8000fffu + odd; // rebias exponent (-112 << 23) and round
  return sign | (f >> 13);
}

// bfloat16 is the top half of a float; round to nearest even, keep nans nan.
uint16_t toBFloat16(float value) {
  uint32_t f = floatBits(value);
  if ((f & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((f >> 16) | 0x40u);
  f += 0x7fffu + ((f >> 16) & 1u);
  return static_cast<uint16_t>(f >> 16);
}

std::string argWhere(size_t i, const std::string &type) {
  return "argument " + std::to_string(i) + " (" + type + ")";
}

std::string pyTypeName(py::handle h) {
  return Py_TYPE(h.ptr())->tp_name;
}

// Integer in [lo, hi] (signed) as the raw two's complement bits.
uint64_t signedArg(py::handle h, size_t i, const std::string &type, int bits) {
  PyObject *idx = PyNumber_Index(h.ptr());
  if (!idx) {
    PyErr_Clear();
    throw py::type_error(argWhere(i, type) + " expects an int, got " +
                         pyTypeName(h));
  }
  int overflow = 0;
  long long v = PyLong_AsLongLongAndOverflow(idx, &overflow);
  Py_DECREF(idx);
  long long lo = bits == 64 ? INT64_MIN : -(1LL << (bits - 1));
  long long hi = bits == 64 ? INT64_MAX : (1LL << (bits - 1)) - 1;
  if (overflow || v < lo || v > hi)
    throw py::value_error(argWhere(i, type) + ": " + std::string(py::str(h)) +
                          " is out of range [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "]");
  return static_cast<uint64_t>(v);
}

uint64_t unsignedArg(py::handle h, size_t i, const std::string &type, int bits) {
  PyObject *idx = PyNumber_Index(h.ptr());
  if (!idx) {
    PyErr_Clear();
    throw py::type_error(argWhere(i, type) + " expects an int, got " +
                         pyTypeName(h));
  }
  unsigned long long v = PyLong_AsUnsignedLongLong(idx); // fails if < 0
  bool bad = PyErr_Occurred() != nullptr;
  PyErr_Clear();
  Py_DECREF(idx);
  unsigned long long hi = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
  if (bad || v > hi)
    throw py::value_error(argWhere(i, type) + ": " + std::string(py::str(h)) +
                          " is out of range [0, " + std::to_string(hi) + "]");
  return v;
}

double floatArg(py::handle h, size_t i, const std::string &type) {
  double d = PyFloat_AsDouble(h.ptr()); // accepts ints and __float__
  if (d == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    throw py::type_error(argWhere(i, type) + " expects a float, got " +
                         pyTypeName(h));
  }
  return d;
}

uint64_t packOne(py::handle h, size_t i, const std::string &type) {
  if (!type.empty() && type[0] == '*') {
    // Any pointee type: the kernel receives a 64-bit device address. None is
    // the null pointer, as in Triton.
    if (h.is_none())
      return 0;
    return unsignedArg(h, i, type, 64);
  }
  if (type == "i1") {
    uint64_t v = unsignedArg(h, i, type, 1);
    return v;
  }
  if (type == "i8")
    return signedArg(h, i, type, 8) & 0xffu;
  if (type == "i16")
    return signedArg(h, i, type, 16) & 0xffffu;
  if (type == "i32")
    return signedArg(h, i, type, 32) & 0xffffffffu;
  if (type == "i64")
    return signedArg(h, i, type, 64);
  if (type == "u8")
    return unsignedArg(h, i, type, 8);
  if (type == "u16")
    return unsignedArg(h, i, type, 16);
  if (type == "u32")
    return unsignedArg(h, i, type, 32);
  if (type == "u64")
    return unsignedArg(h, i, type, 64);
  if (type == "fp16")
    return toHalf(static_cast<float>(floatArg(h, i, type)));
  if (type == "bf16")
    return toBFloat16(static_cast<float>(floatArg(h, i, type)));
  if (type == "fp32")
    return floatBits(static_cast<float>(floatArg(h, i, type)));
  if (type == "fp64") {
    double d = floatArg(h, i, type);
    uint64_t u;
    std::memcpy(&u, &d, 8);
    return u;
  }
  throw py::type_error("argument " + std::to_string(i) + ": unknown type '" +
                       type + "'");
}

std::vector<uint64_t> packSlots(const std::vector<std::string> &types,
                                py::sequence args) {
  if (static_cast<size_t>(py::len(args)) != types.size())
    throw py::type_error("expected " + std::to_string(types.size()) +
                         " arguments, got " + std::to_string(py::len(args)));
  std::vector<uint64_t> slots(types.size());
  for (size_t i = 0; i < types.size(); ++i)
    slots[i] = packOne(args[i], i, types[i]);
  return slots;
}

using Dim3 = std::tuple<unsigned, unsigned, unsigned>;

//===----------------------------------------------------------------------===//
// Public functions
//===----------------------------------------------------------------------===//

// Library load failure text, or None when the library and its symbols load.
py::object loadError(const std::string &backend) {
  const std::string &e = parseBackend(backend) == Backend::Cuda
                             ? cuda().load()
                             : hip().load();
  if (e.empty())
    return py::none();
  return py::str(e);
}

int deviceCount(const std::string &backend) {
  int n = 0;
  if (parseBackend(backend) == Backend::Cuda) {
    cuda().ready();
    cuda().check(cuda().cuDeviceGetCount(&n), "cuDeviceGetCount");
  } else {
    hip().ready();
    hip().check(hip().hipGetDeviceCount(&n), "hipGetDeviceCount");
  }
  return n;
}

std::vector<std::string> availableBackends() {
  std::vector<std::string> out;
  for (const char *b : {"cuda", "hip"}) {
    try {
      if (deviceCount(b) > 0)
        out.push_back(b);
    } catch (const DriverError &) {
      // Absent or unusable driver: simply not available.
    }
  }
  return out;
}

py::dict deviceInfo(const std::string &backend) {
  py::dict d;
  d["backend"] = backend;
  if (parseBackend(backend) == Backend::Cuda) {
    Cuda &c = cuda();
    c.ready();
    CUdevice dev;
    c.check(c.cuDeviceGet(&dev, 0), "cuDeviceGet");
    char name[256] = {0};
    c.check(c.cuDeviceGetName(name, sizeof(name) - 1, dev), "cuDeviceGetName");
    d["name"] = std::string(name);
    d["major"] = c.attr(kCuAttrCCMajor, dev);
    d["minor"] = c.attr(kCuAttrCCMinor, dev);
    d["arch"] = "sm_" + std::to_string(c.attr(kCuAttrCCMajor, dev)) +
                std::to_string(c.attr(kCuAttrCCMinor, dev));
    d["multiprocessor_count"] = c.attr(kCuAttrMultiprocessorCount, dev);
    d["warp_size"] = c.attr(kCuAttrWarpSize, dev);
    d["max_shared_per_block"] = c.attr(kCuAttrMaxSharedPerBlock, dev);
    d["max_shared_per_block_optin"] = c.attr(kCuAttrMaxSharedPerBlockOptin, dev);
    return d;
  }
  Hip &h = hip();
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
  d["name"] = strAt(kHipPropName);
  d["major"] = intAt(kHipPropMajor);
  d["minor"] = intAt(kHipPropMinor);
  d["arch"] = strAt(kHipPropGcnArch); // e.g. "gfx942:sramecc+:xnack-"
  d["multiprocessor_count"] = intAt(kHipPropMPCount);
  d["warp_size"] = intAt(kHipPropWarpSize);
  d["max_shared_per_block"] = static_cast<unsigned long long>(optin);
  d["max_shared_per_block_optin"] = static_cast<unsigned long long>(optin);
  return d;
}

uint64_t loadModule(const std::string &backend, py::bytes image) {
  // Copied so the image is NUL-terminated (PTX text must be) and stays alive
  // for the call regardless of the bytes object.
  std::string owned = image;
  if (parseBackend(backend) == Backend::Cuda) {
    Cuda &c = cuda();
    c.ensureContext();
    CUmodule m = nullptr;
    c.check(c.cuModuleLoadData(&m, owned.c_str()), "cuModuleLoadData");
    return fromHandle(m);
  }
  Hip &h = hip();
  h.ready();
  void *m = nullptr;
  h.check(h.hipModuleLoadData(&m, owned.data()), "hipModuleLoadData");
  return fromHandle(m);
}

void unloadModule(const std::string &backend, uint64_t module) {
  if (parseBackend(backend) == Backend::Cuda) {
    cuda().ensureContext();
    cuda().check(cuda().cuModuleUnload(asHandle<void>(module)), "cuModuleUnload");
  } else {
    hip().ready();
    hip().check(hip().hipModuleUnload(asHandle<void>(module)), "hipModuleUnload");
  }
}

uint64_t getFunction(const std::string &backend, uint64_t module,
                     const std::string &name, long shared) {
  if (parseBackend(backend) == Backend::Cuda) {
    Cuda &c = cuda();
    c.ensureContext();
    CUfunction f = nullptr;
    c.check(c.cuModuleGetFunction(&f, asHandle<void>(module), name.c_str()),
            ("cuModuleGetFunction('" + name + "')").c_str());
    if (shared > kDefaultSharedLimit)
      c.check(c.cuFuncSetAttribute(f, kCuFuncAttrMaxDynamicShared,
                                   static_cast<int>(shared)),
              "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
    return fromHandle(f);
  }
  Hip &h = hip();
  h.ready();
  void *f = nullptr;
  h.check(h.hipModuleGetFunction(&f, asHandle<void>(module), name.c_str()),
          ("hipModuleGetFunction('" + name + "')").c_str());
  if (shared > kDefaultSharedLimit && h.hipFuncSetAttribute)
    h.check(h.hipFuncSetAttribute(f, kHipFuncAttrMaxDynamicShared,
                                  static_cast<int>(shared)),
            "hipFuncSetAttribute(MaxDynamicSharedMemorySize)");
  return fromHandle(f);
}

void launch(const std::string &backend, uint64_t func, Dim3 grid, Dim3 block,
            unsigned shared, uint64_t stream,
            const std::vector<std::string> &types, py::sequence args) {
  Backend b = parseBackend(backend);
  std::vector<uint64_t> slots = packSlots(types, args);
  std::vector<void *> params(slots.size());
  for (size_t i = 0; i < slots.size(); ++i)
    params[i] = &slots[i];
  void **p = params.empty() ? nullptr : params.data();
  auto [gx, gy, gz] = grid;
  auto [bx, by, bz] = block;
  if (b == Backend::Cuda) {
    Cuda &c = cuda();
    c.ensureContext();
    CUresult r;
    {
      py::gil_scoped_release nogil; // launches are async but may block on queue
      r = c.cuLaunchKernel(asHandle<void>(func), gx, gy, gz, bx, by, bz, shared,
                           asHandle<void>(stream), p, nullptr);
    }
    c.check(r, "cuLaunchKernel");
    return;
  }
  Hip &h = hip();
  h.ready();
  hipError_t r;
  {
    py::gil_scoped_release nogil;
    r = h.hipModuleLaunchKernel(asHandle<void>(func), gx, gy, gz, bx, by, bz,
                                shared, asHandle<void>(stream), p, nullptr);
  }
  h.check(r, "hipModuleLaunchKernel");
}

void synchronize(const std::string &backend) {
  if (parseBackend(backend) == Backend::Cuda) {
    cuda().ensureContext();
    CUresult r;
    {
      py::gil_scoped_release nogil; // may wait long; let other threads run
      r = cuda().cuCtxSynchronize();
    }
    cuda().check(r, "cuCtxSynchronize");
  } else {
    hip().ready();
    hipError_t r;
    {
      py::gil_scoped_release nogil;
      r = hip().hipDeviceSynchronize();
    }
    hip().check(r, "hipDeviceSynchronize");
  }
}

py::bytes packArgs(const std::vector<std::string> &types, py::sequence args) {
  std::vector<uint64_t> slots = packSlots(types, args);
  return py::bytes(reinterpret_cast<const char *>(slots.data()),
                   slots.size() * sizeof(uint64_t));
}

} // namespace

PYBIND11_MODULE(_runtime, m) {
  m.doc() = "Kiln GPU runtime: CUDA driver / HIP runtime loaded with dlopen.";
  py::register_exception<DriverError>(m, "DriverError", PyExc_RuntimeError);

  m.def("available_backends", &availableBackends,
        "Backends ('cuda', 'hip') whose driver loads, initializes and has a "
        "device.");
  m.def("load_error", &loadError, py::arg("backend"),
        "Why the backend's library cannot be loaded, or None if it loads.");
  m.def("device_count", &deviceCount, py::arg("backend"));
  m.def("device_info", &deviceInfo, py::arg("backend"),
        "Properties of device 0: name, major, minor, arch, "
        "multiprocessor_count, warp_size, max_shared_per_block(_optin).");
  m.def("load_module", &loadModule, py::arg("backend"), py::arg("image"));
  m.def("unload_module", &unloadModule, py::arg("backend"), py::arg("module"));
  m.def("get_function", &getFunction, py::arg("backend"), py::arg("module"),
        py::arg("name"), py::arg("shared_bytes") = 0);
  m.def("launch", &launch, py::arg("backend"), py::arg("func"),
        py::arg("grid"), py::arg("block"), py::arg("shared_bytes"),
        py::arg("stream"), py::arg("arg_types"), py::arg("args"));
  m.def("synchronize", &synchronize, py::arg("backend"));
  m.def("pack_args", &packArgs, py::arg("arg_types"), py::arg("args"),
        "The launch's argument slots (8 bytes each, little-endian) as bytes.");
}
