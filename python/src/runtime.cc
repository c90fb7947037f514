// kiln._runtime: the thin native layer under kiln.runtime.
//
// A dispatcher over the vendor drivers (python/src/runtime/Driver.h): the
// CUDA Driver API (third_party/nvidia/runtime) and the HIP runtime
// (third_party/amd/runtime), each loaded with dlopen on first use, so the
// extension builds with no CUDA or ROCm headers or libraries and imports on
// machines without a GPU. `import kiln` must stay cheap and must not fail
// where no driver exists.
//
// Handles (modules, functions, streams) cross into Python as plain ints.

#include "runtime/Driver.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

namespace py = pybind11;
using kiln::runtime::DeviceDriver;
using kiln::runtime::DriverError;

namespace {

DeviceDriver &driverFor(const std::string &b) {
  if (b == "cuda")
    return kiln::runtime::cudaDriver();
  if (b == "hip")
    return kiln::runtime::hipDriver();
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
  const std::string &e = driverFor(backend).loadError();
  if (e.empty())
    return py::none();
  return py::str(e);
}

int deviceCount(const std::string &backend) {
  return driverFor(backend).deviceCount();
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
  kiln::runtime::DeviceInfo info = driverFor(backend).deviceInfo();
  py::dict d;
  d["backend"] = backend;
  d["name"] = info.name;
  d["major"] = info.major;
  d["minor"] = info.minor;
  d["arch"] = info.arch;
  d["multiprocessor_count"] = info.multiprocessorCount;
  d["warp_size"] = info.warpSize;
  d["max_shared_per_block"] =
      static_cast<unsigned long long>(info.maxSharedPerBlock);
  d["max_shared_per_block_optin"] =
      static_cast<unsigned long long>(info.maxSharedPerBlockOptin);
  return d;
}

uint64_t loadModule(const std::string &backend, py::bytes image) {
  // Copied so the image is NUL-terminated (PTX text must be) and stays alive
  // for the call regardless of the bytes object.
  std::string owned = image;
  return fromHandle(driverFor(backend).loadModule(owned));
}

void unloadModule(const std::string &backend, uint64_t module) {
  driverFor(backend).unloadModule(asHandle<void>(module));
}

uint64_t getFunction(const std::string &backend, uint64_t module,
                     const std::string &name, long shared) {
  return fromHandle(
      driverFor(backend).getFunction(asHandle<void>(module), name, shared));
}

void launch(const std::string &backend, uint64_t func, Dim3 grid, Dim3 block,
            unsigned shared, uint64_t stream,
            const std::vector<std::string> &types, py::sequence args) {
  DeviceDriver &driver = driverFor(backend);
  std::vector<uint64_t> slots = packSlots(types, args);
  std::vector<void *> params(slots.size());
  for (size_t i = 0; i < slots.size(); ++i)
    params[i] = &slots[i];
  void **p = params.empty() ? nullptr : params.data();
  auto [gx, gy, gz] = grid;
  auto [bx, by, bz] = block;
  py::gil_scoped_release nogil; // launches are async but may block on queue
  driver.launch(asHandle<void>(func), gx, gy, gz, bx, by, bz, shared,
                asHandle<void>(stream), p);
}

void synchronize(const std::string &backend) {
  DeviceDriver &driver = driverFor(backend);
  py::gil_scoped_release nogil; // may wait long; let other threads run
  driver.synchronize();
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
