// libkiln_runtime.so: the thin native layer under kiln.runtime, as a C API.
//
// A dispatcher over the vendor drivers (python/src/runtime/Driver.h): the
// CUDA Driver API (third_party/nvidia/runtime) and the HIP runtime
// (third_party/amd/runtime), each loaded with dlopen on first use, so the
// library builds with no CUDA or ROCm headers or libraries and loads on
// machines without a GPU. Python calls it with ctypes (kiln/_runtime.py), so
// one build serves every Python version, like libkiln.so.
//
// Every function returns 0 on success and 1 on a driver error, whose text
// kiln_rt_error() gives (per thread, until the next failing call). Handles
// (modules, functions, streams) are plain 64-bit integers.
//
// API version 2: kiln_rt_launch takes one argument buffer plus each
// argument's offset in it (arguments have their own sizes: a tensor map is
// 128 bytes at a 64-byte-aligned offset), and kiln_rt_encode_tensor_map
// encodes TMA tensor maps. Version 3 adds kiln_rt_function_resources.
// Version 4: kiln_rt_launch takes the CTAs per cluster (1: no cluster).
// Version 5 adds kiln_rt_encode_im2col_tensor_map.

#include "runtime/Driver.h"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#define KILN_RT_EXPORT extern "C" __attribute__((visibility("default")))

using kiln::runtime::DeviceDriver;
using kiln::runtime::DriverError;
using kiln::runtime::TensorMapElement;

namespace {

thread_local std::string lastError;
thread_local std::string lastText;

/// Whether this build has the backend's driver (CMake compiles the drivers
/// of KILN_BACKENDS: KILN_RUNTIME_CUDA, KILN_RUNTIME_HIP).
bool isBuilt(const std::string &b) {
#ifdef KILN_RUNTIME_CUDA
  if (b == "cuda")
    return true;
#endif
#ifdef KILN_RUNTIME_HIP
  if (b == "hip")
    return true;
#endif
  return false;
}

DeviceDriver *driverFor(const char *backend) {
  std::string b = backend ? backend : "";
  if (b != "cuda" && b != "hip")
    throw DriverError("unknown backend '" + b + "' (expected 'cuda' or 'hip')");
  if (!isBuilt(b))
    throw DriverError("backend '" + b + "' is not in this build of Kiln (its "
                      "vendor is not in KILN_BACKENDS)");
#ifdef KILN_RUNTIME_CUDA
  if (b == "cuda")
    return &kiln::runtime::cudaDriver();
#endif
#ifdef KILN_RUNTIME_HIP
  if (b == "hip")
    return &kiln::runtime::hipDriver();
#endif
  throw DriverError("unreachable backend '" + b + "'");
}

template <typename T> T *asHandle(uint64_t v) {
  return reinterpret_cast<T *>(static_cast<uintptr_t>(v));
}
uint64_t fromHandle(const void *p) {
  return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
}

/// Runs `fn`, turning any exception into 1 and its text into lastError.
template <typename F> int guarded(F &&fn) {
  try {
    fn();
    return 0;
  } catch (const std::exception &e) {
    lastError = e.what();
  } catch (...) {
    lastError = "unknown error in the Kiln runtime";
  }
  return 1;
}

std::string jsonString(const std::string &s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += char(c);
    }
  }
  return out + "\"";
}

/// Kiln's signature spelling of an element type (kiln.compiler.type_name) as
/// a tensor map element: TMA copies bits, so 8-bit floats travel as u8 and
/// i16 as u16.
TensorMapElement tensorMapElement(const char *dtype) {
  struct Entry {
    const char *name;
    TensorMapElement element;
  };
  static const Entry table[] = {
      {"i8", TensorMapElement::U8},      {"u8", TensorMapElement::U8},
      {"fp8e4nv", TensorMapElement::U8}, {"fp8e5", TensorMapElement::U8},
      {"i16", TensorMapElement::U16},    {"u16", TensorMapElement::U16},
      {"fp16", TensorMapElement::F16},   {"bf16", TensorMapElement::BF16},
      {"i32", TensorMapElement::I32},    {"u32", TensorMapElement::U32},
      {"fp32", TensorMapElement::F32},   {"i64", TensorMapElement::I64},
      {"u64", TensorMapElement::U64},    {"fp64", TensorMapElement::F64},
      {"tf32", TensorMapElement::TF32},
  };
  std::string d = dtype ? dtype : "";
  for (const Entry &e : table)
    if (d == e.name)
      return e.element;
  throw DriverError("tensor map: unsupported element type '" + d + "'");
}

bool isFloat(TensorMapElement e) {
  return e == TensorMapElement::F16 || e == TensorMapElement::BF16 ||
         e == TensorMapElement::F32 || e == TensorMapElement::F64 ||
         e == TensorMapElement::TF32;
}

} // namespace

KILN_RT_EXPORT int kiln_rt_api_version(void) { return 5; }

KILN_RT_EXPORT const char *kiln_rt_error(void) { return lastError.c_str(); }

/// Why the backend's library cannot be loaded ("" when it loads).
KILN_RT_EXPORT int kiln_rt_load_error(const char *backend, const char **why) {
  return guarded([&] {
    std::string b = backend ? backend : "";
    if ((b == "cuda" || b == "hip") && !isBuilt(b)) {
      lastText = "not in this build of Kiln (KILN_BACKENDS)";
      *why = lastText.c_str();
      return;
    }
    lastText = driverFor(backend)->loadError();
    *why = lastText.c_str();
  });
}

KILN_RT_EXPORT int kiln_rt_device_count(const char *backend, int *count) {
  return guarded([&] { *count = driverFor(backend)->deviceCount(); });
}

/// Properties of device 0 as a JSON object.
KILN_RT_EXPORT int kiln_rt_device_info(const char *backend, const char **json) {
  return guarded([&] {
    kiln::runtime::DeviceInfo info = driverFor(backend)->deviceInfo();
    lastText = "{\"backend\": " + jsonString(backend) +
               ", \"name\": " + jsonString(info.name) +
               ", \"major\": " + std::to_string(info.major) +
               ", \"minor\": " + std::to_string(info.minor) +
               ", \"arch\": " + jsonString(info.arch) +
               ", \"multiprocessor_count\": " +
               std::to_string(info.multiprocessorCount) +
               ", \"warp_size\": " + std::to_string(info.warpSize) +
               ", \"max_shared_per_block\": " +
               std::to_string(info.maxSharedPerBlock) +
               ", \"max_shared_per_block_optin\": " +
               std::to_string(info.maxSharedPerBlockOptin) + "}";
    *json = lastText.c_str();
  });
}

KILN_RT_EXPORT int kiln_rt_load_module(const char *backend, const char *image,
                                       size_t size, uint64_t *module) {
  return guarded([&] {
    // Copied so the image is NUL-terminated (PTX text must be).
    std::string owned(image, size);
    *module = fromHandle(driverFor(backend)->loadModule(owned));
  });
}

KILN_RT_EXPORT int kiln_rt_unload_module(const char *backend, uint64_t module) {
  return guarded(
      [&] { driverFor(backend)->unloadModule(asHandle<void>(module)); });
}

KILN_RT_EXPORT int kiln_rt_get_function(const char *backend, uint64_t module,
                                        const char *name, long shared,
                                        uint64_t *func) {
  return guarded([&] {
    *func = fromHandle(
        driverFor(backend)->getFunction(asHandle<void>(module), name, shared));
  });
}

/// Registers per thread and local (spill) bytes per thread of `func` (-1
/// where the driver cannot tell). API version 3.
KILN_RT_EXPORT int kiln_rt_function_resources(const char *backend,
                                              uint64_t func, int *regs,
                                              int *localBytes) {
  return guarded([&] {
    auto [r, l] = driverFor(backend)->functionResources(asHandle<void>(func));
    *regs = r;
    *localBytes = l;
  });
}

/// Launches `func`. Argument i is at `args + offsets[i]` (`size` bytes in
/// all); the driver reads each with its parameter's own size. Scalars and
/// pointers take 8-byte little-endian slots (value in the low bytes), tensor
/// maps 128 bytes at 64-byte-aligned offsets. The buffer is copied to a
/// 64-byte-aligned one first, so aligned offsets are aligned addresses.
KILN_RT_EXPORT int kiln_rt_launch(const char *backend, uint64_t func,
                                  unsigned gx, unsigned gy, unsigned gz,
                                  unsigned bx, unsigned by, unsigned bz,
                                  unsigned cluster, unsigned shared,
                                  uint64_t stream, const void *args,
                                  size_t size, const uint32_t *offsets,
                                  size_t count) {
  return guarded([&] {
    DeviceDriver *driver = driverFor(backend);
    if (cluster == 0 || gx % cluster != 0)
      throw DriverError("kiln_rt_launch: grid x " + std::to_string(gx) +
                        " is not a multiple of the " +
                        std::to_string(cluster) + " CTAs per cluster");
    if (count && (!args || !offsets))
      throw DriverError("kiln_rt_launch: " + std::to_string(count) +
                        " arguments but no argument buffer");
    constexpr size_t kInlineBytes = 1024, kInlineArgs = 32;
    alignas(kiln::runtime::kTensorMapAlign) unsigned char inlineBuf[kInlineBytes];
    void *inlineParams[kInlineArgs];
    std::vector<unsigned char> heapBuf;
    std::vector<void *> heapParams;
    unsigned char *buf = inlineBuf;
    if (size > kInlineBytes) {
      constexpr size_t a = kiln::runtime::kTensorMapAlign;
      heapBuf.resize(size + a);
      uintptr_t p = reinterpret_cast<uintptr_t>(heapBuf.data());
      buf = heapBuf.data() + ((a - p % a) % a);
    }
    if (size)
      std::memcpy(buf, args, size);
    void **params = inlineParams;
    if (count > kInlineArgs) {
      heapParams.resize(count);
      params = heapParams.data();
    }
    for (size_t i = 0; i < count; ++i) {
      if (offsets[i] >= size)
        throw DriverError("kiln_rt_launch: argument " + std::to_string(i) +
                          " at offset " + std::to_string(offsets[i]) +
                          " lies outside the " + std::to_string(size) +
                          "-byte argument buffer");
      params[i] = buf + offsets[i];
    }
    driver->launch(asHandle<void>(func), gx, gy, gz, bx, by, bz, shared,
                   asHandle<void>(stream), count ? params : nullptr, cluster);
  });
}

/// Encodes a tiled TMA tensor map (cuTensorMapEncodeTiled) into the 128
/// bytes at `out128`. `dtype` is Kiln's signature spelling ("bf16", "i8",
/// "fp32", ...). Dimension 0 is the innermost: `dims`, `box` and
/// `element_strides` have `rank` entries, `strides_bytes` rank-1 (the byte
/// strides of dims 1..rank-1). `swizzle_bytes` is 0, 32, 64 or 128;
/// `oob_nan` fills out-of-bounds elements with NaN instead of 0 (float
/// element types only). Interleave is none, L2 promotion 128 bytes.
KILN_RT_EXPORT int kiln_rt_encode_tensor_map(
    const char *backend, const char *dtype, unsigned rank,
    uint64_t global_address, const uint64_t *dims,
    const uint64_t *strides_bytes, const uint32_t *box,
    const uint32_t *element_strides, int swizzle_bytes, int oob_nan,
    uint8_t *out128) {
  return guarded([&] {
    DeviceDriver *driver = driverFor(backend);
    kiln::runtime::TiledTensorMap m;
    m.element = tensorMapElement(dtype);
    if (rank < 1 || rank > kiln::runtime::kTensorMapMaxRank)
      throw DriverError("tensor map: rank must be 1 to " +
                        std::to_string(kiln::runtime::kTensorMapMaxRank) +
                        ", got " + std::to_string(rank));
    if (!dims || !box || !element_strides || !out128 ||
        (rank > 1 && !strides_bytes))
      throw DriverError("tensor map: null array argument");
    if (swizzle_bytes != 0 && swizzle_bytes != 32 && swizzle_bytes != 64 &&
        swizzle_bytes != 128)
      throw DriverError("tensor map: swizzle must be 0, 32, 64 or 128 bytes, "
                        "got " + std::to_string(swizzle_bytes));
    if (oob_nan && !isFloat(m.element))
      throw DriverError(std::string("tensor map: NaN padding needs a 16, 32 "
                                    "or 64-bit float element type, got '") +
                        dtype + "'");
    m.rank = rank;
    m.globalAddress = global_address;
    m.dims = dims;
    m.stridesBytes = strides_bytes;
    m.box = box;
    m.elementStrides = element_strides;
    m.swizzleBytes = swizzle_bytes;
    m.oobNan = oob_nan != 0;
    driver->encodeTiledTensorMap(m, out128);
  });
}

KILN_RT_EXPORT int kiln_rt_encode_im2col_tensor_map(
    const char *backend, const char *dtype, unsigned rank,
    uint64_t global_address, const uint64_t *dims,
    const uint64_t *strides_bytes, const int32_t *lower_corner,
    const int32_t *upper_corner, uint32_t channels_per_pixel,
    uint32_t pixels_per_column, const uint32_t *element_strides,
    int swizzle_bytes, int oob_nan, uint8_t *out128) {
  return guarded([&] {
    DeviceDriver *driver = driverFor(backend);
    kiln::runtime::Im2colTensorMap m;
    m.element = tensorMapElement(dtype);
    if (rank < 3 || rank > kiln::runtime::kTensorMapMaxRank)
      throw DriverError("im2col tensor map: rank must be 3 to " +
                        std::to_string(kiln::runtime::kTensorMapMaxRank) +
                        ", got " + std::to_string(rank));
    if (!dims || !strides_bytes || !lower_corner || !upper_corner ||
        !element_strides || !out128)
      throw DriverError("im2col tensor map: null array argument");
    if (swizzle_bytes != 0 && swizzle_bytes != 32 && swizzle_bytes != 64 &&
        swizzle_bytes != 128)
      throw DriverError("im2col tensor map: swizzle must be 0, 32, 64 or 128 "
                        "bytes, got " + std::to_string(swizzle_bytes));
    if (oob_nan && !isFloat(m.element))
      throw DriverError(std::string("im2col tensor map: NaN padding needs a "
                                    "16, 32 or 64-bit float element type, "
                                    "got '") +
                        dtype + "'");
    m.rank = rank;
    m.globalAddress = global_address;
    m.dims = dims;
    m.stridesBytes = strides_bytes;
    m.lowerCorner = lower_corner;
    m.upperCorner = upper_corner;
    m.channelsPerPixel = channels_per_pixel;
    m.pixelsPerColumn = pixels_per_column;
    m.elementStrides = element_strides;
    m.swizzleBytes = swizzle_bytes;
    m.oobNan = oob_nan != 0;
    driver->encodeIm2colTensorMap(m, out128);
  });
}

KILN_RT_EXPORT int kiln_rt_synchronize(const char *backend) {
  return guarded([&] { driverFor(backend)->synchronize(); });
}
