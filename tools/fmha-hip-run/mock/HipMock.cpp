//===- HipMock.cpp - a stand-in libamdhip64 for fmha-hip-run's tests ------===//
//
// Exports the HIP entry points fmha-hip-run uses, with host memory standing in
// for device memory, so the launch path runs on a machine without an AMD GPU:
//   fmha-hip-run NAME.json --hip-library lib/libfmha-hip-mock.so
// hipModuleLaunchKernel runs nothing. It prints the grid, the block and the
// kernarg buffer (8-byte slots, pointers named by the allocation they point
// to, buffers of at most 16 bytes shown as i32 words) on stderr, so a test
// sees every argument, and the output stays poisoned.
// Copies are checked against the allocations and the copy direction.
// FMHA_HIP_MOCK_DEVICES sets the device count (default 1); 0 answers like a
// runtime on a machine without a GPU.
//
//===----------------------------------------------------------------------===//
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#define MOCK_API extern "C" __attribute__((visibility("default")))

namespace {

enum : int {
  kSuccess = 0,
  kInvalidValue = 1,
  kInvalidDevicePointer = 17,
  kInvalidMemcpyDirection = 21,
  kNoDevice = 100,
  kInvalidDevice = 101,
  kInvalidImage = 200,
  kNotFound = 500,
};

struct Allocation {
  size_t bytes;
  int index; ///< order of hipMalloc calls
};
std::map<uintptr_t, Allocation> &allocations() {
  static std::map<uintptr_t, Allocation> a;
  return a;
}
int nextIndex = 0;
std::string kernelName;

int devices() {
  const char *e = std::getenv("FMHA_HIP_MOCK_DEVICES");
  return e ? std::atoi(e) : 1;
}

/// The allocation holding [p, p + n), or null.
const Allocation *find(const void *p, size_t n) {
  auto &a = allocations();
  uintptr_t x = reinterpret_cast<uintptr_t>(p);
  auto it = a.upper_bound(x);
  if (it == a.begin())
    return nullptr;
  --it;
  return x + n <= it->first + it->second.bytes ? &it->second : nullptr;
}

} // namespace

MOCK_API int hipInit(unsigned flags) {
  return flags ? kInvalidValue : kSuccess;
}

MOCK_API int hipGetDeviceCount(int *count) {
  *count = devices();
  return *count ? kSuccess : kNoDevice;
}

MOCK_API int hipSetDevice(int d) {
  return d >= 0 && d < devices() ? kSuccess : kInvalidDevice;
}

MOCK_API int hipModuleLoadData(void **module, const void *image) {
  if (!image || std::memcmp(image,
                            "\x7f"
                            "ELF",
                            4))
    return kInvalidImage;
  *module = const_cast<void *>(image);
  return kSuccess;
}

MOCK_API int hipModuleUnload(void *) { return kSuccess; }

MOCK_API int hipModuleGetFunction(void **fn, void *module, const char *name) {
  if (!module || !name || !*name)
    return kNotFound;
  kernelName = name;
  *fn = &kernelName;
  return kSuccess;
}

MOCK_API int hipMalloc(void **p, size_t bytes) {
  *p = std::calloc(bytes ? bytes : 1, 1);
  if (!*p)
    return kInvalidValue;
  allocations()[reinterpret_cast<uintptr_t>(*p)] = {bytes, nextIndex++};
  return kSuccess;
}

MOCK_API int hipFree(void *p) {
  if (!allocations().erase(reinterpret_cast<uintptr_t>(p)))
    return kInvalidDevicePointer;
  std::free(p);
  return kSuccess;
}

MOCK_API int hipMemcpy(void *dst, const void *src, size_t n, int kind) {
  if (kind != 1 && kind != 2)
    return kInvalidMemcpyDirection;
  const void *dev = kind == 1 ? dst : src;
  const void *host = kind == 1 ? src : dst;
  if (!find(dev, n) || find(host, n)) {
    std::fprintf(stderr,
                 "mock: hipMemcpy(%s) of %zu bytes outside the allocations\n",
                 kind == 1 ? "HtoD" : "DtoH", n);
    return kInvalidValue;
  }
  std::memcpy(dst, src, n);
  return kSuccess;
}

MOCK_API int hipModuleLaunchKernel(void *fn, unsigned gx, unsigned gy,
                                   unsigned gz, unsigned bx, unsigned by,
                                   unsigned bz, unsigned shared, void *stream,
                                   void **params, void **extra) {
  if (fn != &kernelName || params || !extra)
    return kInvalidValue;
  // {BUFFER_POINTER, buf, BUFFER_SIZE, &size, END}
  const uint8_t *buf = nullptr;
  size_t size = 0;
  for (size_t i = 0;; i += 2) {
    uintptr_t key = reinterpret_cast<uintptr_t>(extra[i]);
    if (key == 3)
      break;
    if (key == 1)
      buf = static_cast<const uint8_t *>(extra[i + 1]);
    else if (key == 2)
      size = *static_cast<const size_t *>(extra[i + 1]);
    else
      return kInvalidValue;
  }
  if (!buf)
    return kInvalidValue;
  std::fprintf(stderr,
               "mock: launch %s grid=[%u,%u,%u] block=[%u,%u,%u] shared=%u "
               "stream=%p kernarg_bytes=%zu\n",
               kernelName.c_str(), gx, gy, gz, bx, by, bz, shared, stream,
               size);
  for (size_t at = 0; at + 8 <= size; at += 8) {
    uint64_t v;
    std::memcpy(&v, buf + at, 8);
    auto it = allocations().find(uintptr_t(v));
    if (it != allocations().end()) {
      std::fprintf(stderr, "mock: kernarg +%zu: buffer #%d of %zu bytes", at,
                   it->second.index, it->second.bytes);
      // Small buffers (index arrays, descales) as i32 words.
      if (it->second.bytes <= 16 && it->second.bytes % 4 == 0)
        for (size_t w = 0; w < it->second.bytes / 4; ++w) {
          int32_t x;
          std::memcpy(&x, reinterpret_cast<const char *>(v) + 4 * w, 4);
          std::fprintf(stderr, "%s%d", w ? ", " : ": i32 [", x);
        }
      std::fprintf(stderr, "%s\n",
                   it->second.bytes <= 16 && it->second.bytes % 4 == 0 ? "]"
                                                                       : "");
    } else
      std::fprintf(stderr, "mock: kernarg +%zu: %lld\n", at,
                   static_cast<long long>(v));
  }
  return kSuccess;
}

MOCK_API int hipDeviceSynchronize() { return kSuccess; }

MOCK_API const char *hipGetErrorString(int e) {
  switch (e) {
  case kSuccess:
    return "hipSuccess";
  case kInvalidValue:
    return "hipErrorInvalidValue";
  case kInvalidDevicePointer:
    return "hipErrorInvalidDevicePointer";
  case kInvalidMemcpyDirection:
    return "hipErrorInvalidMemcpyDirection";
  case kNoDevice:
    return "hipErrorNoDevice";
  case kInvalidDevice:
    return "hipErrorInvalidDevice";
  case kInvalidImage:
    return "hipErrorInvalidImage";
  case kNotFound:
    return "hipErrorNotFound";
  }
  return "hipErrorUnknown";
}
