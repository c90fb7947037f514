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

#include "runtime/Driver.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#define KILN_RT_EXPORT extern "C" __attribute__((visibility("default")))

using kiln::runtime::DeviceDriver;
using kiln::runtime::DriverError;

namespace {

thread_local std::string lastError;
thread_local std::string lastText;

DeviceDriver *driverFor(const char *backend) {
  std::string b = backend ? backend : "";
  if (b == "cuda")
    return &kiln::runtime::cudaDriver();
  if (b == "hip")
    return &kiln::runtime::hipDriver();
  throw DriverError("unknown backend '" + b + "' (expected 'cuda' or 'hip')");
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

} // namespace

KILN_RT_EXPORT int kiln_rt_api_version(void) { return 1; }

KILN_RT_EXPORT const char *kiln_rt_error(void) { return lastError.c_str(); }

/// Why the backend's library cannot be loaded ("" when it loads).
KILN_RT_EXPORT int kiln_rt_load_error(const char *backend, const char **why) {
  return guarded([&] {
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

/// Launches `func`; `slots` holds one 8-byte little-endian slot per argument
/// (value in the low bytes), which the driver reads with each parameter's
/// own size.
KILN_RT_EXPORT int kiln_rt_launch(const char *backend, uint64_t func,
                                  unsigned gx, unsigned gy, unsigned gz,
                                  unsigned bx, unsigned by, unsigned bz,
                                  unsigned shared, uint64_t stream,
                                  uint64_t *slots, size_t count) {
  return guarded([&] {
    DeviceDriver *driver = driverFor(backend);
    void *inline_params[32];
    std::vector<void *> heap;
    void **params = inline_params;
    if (count > 32) {
      heap.resize(count);
      params = heap.data();
    }
    for (size_t i = 0; i < count; ++i)
      params[i] = &slots[i];
    driver->launch(asHandle<void>(func), gx, gy, gz, bx, by, bz, shared,
                   asHandle<void>(stream), count ? params : nullptr);
  });
}

KILN_RT_EXPORT int kiln_rt_synchronize(const char *backend) {
  return guarded([&] { driverFor(backend)->synchronize(); });
}
