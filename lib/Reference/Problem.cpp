//===- Problem.cpp - Requests and input generation ------------------------===//

#include "fmha/Reference/Problem.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include "fmha/Reference/FloatCodec.h"
#include "fmha/Reference/Random.h"

#include "Parallel.h"

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <climits>
#include <initializer_list>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace fmha::ref {

namespace {
std::string lower(std::string_view s) {
  std::string l;
  for (char c : s)
    if (!std::isspace(static_cast<unsigned char>(c)))
      l.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  return l;
}

// Stream ids of the generator, one per tensor.
constexpr uint64_t kStreamQ = 0x51;
constexpr uint64_t kStreamK = 0x4B;
constexpr uint64_t kStreamV = 0x56;
// Spread data: the per-(page, head) magnitudes of K and of V.
constexpr uint64_t kStreamKSpread = 0x4B53;
constexpr uint64_t kStreamVSpread = 0x5653;

uint64_t pageStream(uint64_t tensor, int64_t page) {
  return (tensor << 40) ^ static_cast<uint64_t>(page);
}

/// 2^u in double from + and * only (no libm, whose exp2 may differ in the
/// last bit between platforms): 2^floor(u) times a Taylor series of
/// e^(f ln 2), f in [0, 1), to double precision.
double pow2(double u) {
  const double k = std::floor(u), f = u - k;
  const double x = f * 0.69314718055994530942;
  double term = 1.0, sum = 1.0;
  for (int n = 1; n < 24; ++n) {
    term = term * x / n;
    sum += term;
  }
  return std::ldexp(sum, static_cast<int>(k));
}

/// Spread data: one magnitude 2^u, u uniform in [-6, 6], per (page, head) of
/// the pool, page-major, from the tensor's own stream.
std::vector<float> spreadScales(uint64_t seed, uint64_t stream, int64_t nPages,
                                int64_t heads) {
  std::vector<float> s(static_cast<size_t>(nPages * heads));
  Rng rng(seed, stream);
  for (float &x : s)
    x = static_cast<float>(pow2(-6.0 + 12.0 * double(rng.uniform())));
  return s;
}
} // namespace

const char *dataModeName(DataMode m) {
  return m == DataMode::Spread ? "spread" : "uniform";
}

std::optional<DataMode> parseDataMode(std::string_view s) {
  std::string l = lower(s);
  if (l == "uniform")
    return DataMode::Uniform;
  if (l == "spread")
    return DataMode::Spread;
  return std::nullopt;
}

const char *quantModeName(QuantMode m) {
  switch (m) {
  case QuantMode::None:
    return "none";
  case QuantMode::PerTensor:
    return "per_tensor";
  case QuantMode::KVBlockscale:
    return "kv_blockscale";
  }
  return "?";
}

std::optional<QuantMode> parseQuantMode(std::string_view s) {
  std::string l = lower(s);
  std::replace(l.begin(), l.end(), '-', '_');
  if (l == "none")
    return QuantMode::None;
  if (l == "per_tensor" || l == "pertensor")
    return QuantMode::PerTensor;
  if (l == "kv_blockscale" || l == "blockscale" || l == "kvblockscale")
    return QuantMode::KVBlockscale;
  return std::nullopt;
}

void Mask::visibleRange(int64_t i, int64_t sq, int64_t sk, int64_t &lo,
                        int64_t &hi) const {
  const int64_t pos = i + sk - sq;
  lo = 0;
  hi = sk - 1;
  if (kind == MaskKind::Causal) {
    hi = std::min(hi, pos);
  } else if (kind == MaskKind::Window) {
    if (left >= 0)
      lo = std::max(lo, pos - left);
    if (right >= 0)
      hi = std::min(hi, pos + right);
  }
}

std::string Mask::str() const {
  switch (kind) {
  case MaskKind::None:
    return "none";
  case MaskKind::Causal:
    return "causal";
  case MaskKind::Window:
    return "window(" + std::to_string(left) + "," + std::to_string(right) + ")";
  }
  return "?";
}

std::optional<Mask> parseMask(std::string_view s) {
  std::string l = lower(s);
  if (l == "none")
    return Mask::none();
  if (l == "causal")
    return Mask::causal();
  if (l.rfind("window", 0) != 0)
    return std::nullopt;
  std::string rest = l.substr(6);
  if (rest.empty())
    return std::nullopt;
  if (rest.front() == '(') {
    if (rest.back() != ')')
      return std::nullopt;
    rest = rest.substr(1, rest.size() - 2);
  } else if (rest.front() == ':' || rest.front() == '=') {
    rest = rest.substr(1);
  } else {
    return std::nullopt;
  }
  size_t comma = rest.find(',');
  if (comma == std::string::npos)
    return std::nullopt;
  char *end = nullptr;
  std::string a = rest.substr(0, comma), b = rest.substr(comma + 1);
  long long left = std::strtoll(a.c_str(), &end, 10);
  if (a.empty() || *end)
    return std::nullopt;
  long long right = std::strtoll(b.c_str(), &end, 10);
  if (b.empty() || *end)
    return std::nullopt;
  if (left < -1 || right < -1)
    return std::nullopt;
  return Mask::window(left, right);
}

int64_t Request::totalQ() const {
  int64_t n = 0;
  for (int64_t l : qo_lens)
    n += l;
  return n;
}

double Request::smScale() const {
  return sm_scale > 0.0 ? sm_scale : 1.0 / std::sqrt(double(head_dim));
}

namespace {
/// a * b * ... with overflow checks; false when a product passes kMaxIndex
/// (or int64).
bool mulWithin(std::initializer_list<int64_t> xs, int64_t &out) {
  int64_t p = 1;
  for (int64_t x : xs)
    if (__builtin_mul_overflow(p, x, &p) || p > kMaxIndex)
      return false;
  out = p;
  return true;
}
} // namespace

std::string Request::validate() const {
  std::ostringstream os;
  if (qo_lens.size() != kv_lens.size()) {
    os << "qo_lens has " << qo_lens.size() << " sequences but kv_lens has "
       << kv_lens.size();
    return os.str();
  }
  if (batch() > kMaxBatch) {
    os << "batch must be <= " << kMaxBatch << " (grid z), got " << batch();
    return os.str();
  }
  if (num_qo_heads < 1 || num_kv_heads < 1) {
    os << "head counts must be >= 1 (Hq=" << num_qo_heads
       << ", Hkv=" << num_kv_heads << ")";
    return os.str();
  }
  if (num_qo_heads > kMaxHeads || num_kv_heads > kMaxHeads) {
    os << "head counts must be <= " << kMaxHeads << " (Hq=" << num_qo_heads
       << ", Hkv=" << num_kv_heads << ")";
    return os.str();
  }
  if (num_qo_heads % num_kv_heads != 0) {
    os << "Hq % Hkv != 0 (Hq=" << num_qo_heads << ", Hkv=" << num_kv_heads
       << ")";
    return os.str();
  }
  if (head_dim < 1 || head_dim_v < 0) {
    os << "head dims must be >= 1 (D=" << head_dim << ", Dv=" << head_dim_v
       << ")";
    return os.str();
  }
  if (head_dim > kMaxHeadDim || head_dim_v > kMaxHeadDim) {
    os << "head dims must be <= " << kMaxHeadDim << " (D=" << head_dim
       << ", Dv=" << head_dim_v << ")";
    return os.str();
  }
  if (page_size < 1 || page_size > kMaxPageSize) {
    os << "page size must be in [1, " << kMaxPageSize << "], got "
       << page_size;
    return os.str();
  }
  if (mask.kind == MaskKind::Window &&
      (mask.left < -1 || mask.right < -1 || mask.left > kMaxIndex ||
       mask.right > kMaxIndex)) {
    os << "window bounds must be in [-1, " << kMaxIndex << "] (left="
       << mask.left << ", right=" << mask.right << ")";
    return os.str();
  }
  const int64_t bound =
      mask.kind == MaskKind::Window ? std::max<int64_t>({0, mask.left, mask.right})
                                    : 0;
  int64_t sq = 0, maxSk = 0, pages = 0;
  for (size_t b = 0; b < qo_lens.size(); ++b) {
    const int64_t q = qo_lens[b], k = kv_lens[b];
    if (q < 0 || k < 0) {
      os << "sequence " << b << " has a negative length (Sq=" << q
         << ", Sk=" << k << ")";
      return os.str();
    }
    if (__builtin_add_overflow(sq, q, &sq) || sq > kMaxIndex) {
      os << "total_q (the sum of qo_lens) must be <= " << kMaxIndex
         << " (i32 qo_indptr and query rows); it passes at sequence " << b
         << " (Sq=" << q << ")";
      return os.str();
    }
    // The kernel's mask positions i + Sk - Sq -/+ the window bound, in i32.
    int64_t pos;
    if (__builtin_add_overflow(q, k, &pos) ||
        __builtin_add_overflow(pos, bound, &pos) || pos > kMaxIndex) {
      os << "sequence " << b << ": Sq + Sk";
      if (bound)
        os << " + window bound";
      os << " must be <= " << kMaxIndex << " (i32 key positions; Sq=" << q
         << ", Sk=" << k;
      if (bound)
        os << ", bound=" << bound;
      os << ")";
      return os.str();
    }
    if (k > kMaxKvLen) {
      os << "sequence " << b << ": Sk must be <= " << kMaxKvLen
         << " (the f32 softmax sums hold SPEC section 6 up to 2^23 keys), got "
         << k;
      return os.str();
    }
    maxSk = std::max(maxSk, k);
    // ceil(k / P) cannot overflow (k <= kMaxIndex, P >= 1).
    if (__builtin_add_overflow(pages, (k + page_size - 1) / page_size, &pages) ||
        pages > kMaxIndex) {
      os << "the pages needed (sum of ceil(Sk / P)) must be <= " << kMaxIndex
         << " (i32 page ids and kv_indptr); it passes at sequence " << b
         << " (Sk=" << k << ", P=" << page_size << ")";
      return os.str();
    }
  }
  if (n_pages < 0 || (n_pages > 0 && n_pages < pages)) {
    os << "n_pages = " << n_pages << " but the lengths need " << pages
       << " pages";
    return os.str();
  }
  int64_t pool = n_pages;
  if (pool == 0 && (__builtin_mul_overflow(pages, int64_t(2), &pool) ||
                    __builtin_add_overflow(pool, int64_t(3), &pool))) {
    pool = INT64_MAX;
  }
  if (pool > kMaxIndex) {
    os << "n_pages must be <= " << kMaxIndex << " (i32 page ids), got "
       << (n_pages ? "" : "the default 2 * needed + 3 = ") << pool
       << " for " << pages << " pages needed";
    return os.str();
  }
  // Elements of each tensor, all indexed with i32 offsets.
  struct Tensor {
    const char *name;
    std::initializer_list<int64_t> dims;
    const char *shape;
  };
  const int64_t dv = headDimV();
  const Tensor tensors[] = {
      {"q", {sq, num_qo_heads, head_dim}, "total_q * Hq * D"},
      {"out", {sq, num_qo_heads, dv}, "total_q * Hq * Dv"},
      {"lse", {sq, num_qo_heads}, "total_q * Hq"},
      {"k_cache", {pool, page_size, num_kv_heads, head_dim}, "N_pages * P * Hkv * D"},
      {"v_cache", {pool, page_size, num_kv_heads, dv}, "N_pages * P * Hkv * Dv"},
      {"kv_descale", {pool, num_kv_heads, 2}, "N_pages * Hkv * 2"},
  };
  for (const Tensor &t : tensors) {
    int64_t n;
    if (!mulWithin(t.dims, n)) {
      os << t.name << " has too many elements for i32 indexing: " << t.shape
         << " = ";
      const char *sep = "";
      for (int64_t d : t.dims)
        os << sep << d, sep = " * ";
      os << " > " << kMaxIndex;
      return os.str();
    }
  }
  if (!(q_dtype == DType::BF16 || q_dtype == DType::F16 ||
        q_dtype == DType::F8E4M3FN || q_dtype == DType::F8E4M3FNUZ)) {
    os << "q element type " << dtypeName(q_dtype)
       << " not allowed (bf16, f16, f8E4M3FN, f8E4M3FNUZ)";
    return os.str();
  }
  if (kv_dtype == DType::F32) {
    os << "k/v element type f32 not allowed (bf16, f16 or an fp8 type)";
    return os.str();
  }
  if (!(out_dtype == DType::BF16 || out_dtype == DType::F16 ||
        out_dtype == DType::F32)) {
    os << "out element type " << dtypeName(out_dtype)
       << " not allowed (bf16, f16, f32)";
    return os.str();
  }
  if (quant != QuantMode::None && !isFp8(kv_dtype)) {
    os << "quant mode " << quantModeName(quant)
       << " needs fp8 k/v, got kv element type " << dtypeName(kv_dtype);
    return os.str();
  }
  if (isFp8(q_dtype) && !isFp8(kv_dtype)) {
    os << "fp8 q (" << dtypeName(q_dtype) << ") needs fp8 k/v, got "
       << dtypeName(kv_dtype);
    return os.str();
  }
  // Both scales reach the kernel and the emulating reference as f32.
  if (sm_scale != 0.0 &&
      !(sm_scale > 0.0 && sm_scale <= FLT_MAX && float(sm_scale) > 0.0f)) {
    os << "sm_scale must be > 0 and finite in f32 (or 0 for 1/sqrt(D)), got "
       << sm_scale;
    return os.str();
  }
  if (!(soft_cap >= 0.0 && soft_cap <= FLT_MAX)) {
    os << "soft_cap must be >= 0 and finite (0: none), got " << soft_cap;
    return os.str();
  }
  return "";
}

std::string Request::str() const {
  std::ostringstream os;
  auto list = [&](const std::vector<int64_t> &v) {
    os << "[";
    for (size_t i = 0; i < v.size(); ++i)
      os << (i ? "," : "") << v[i];
    os << "]";
  };
  os << "B=" << batch() << " Sq=";
  list(qo_lens);
  os << " Sk=";
  list(kv_lens);
  os << " H=" << num_qo_heads << "/" << num_kv_heads << " D=" << head_dim << "/"
     << headDimV() << " P=" << page_size << " " << tableFormName(table) << " "
     << layoutName(layout) << " " << quantModeName(quant)
     << " q=" << dtypeName(q_dtype) << " kv=" << dtypeName(kv_dtype)
     << " out=" << dtypeName(out_dtype) << " mask=" << mask.str()
     << " sm_scale=" << smScale();
  if (soft_cap > 0)
    os << " soft_cap=" << soft_cap;
  if (runtime_scalars)
    os << " scalars=rt";
  if (kv_strided)
    os << " kv_strides=rt";
  if (data == DataMode::Spread)
    os << " data=spread";
  os << " seed=" << seed;
  return os.str();
}

std::string Request::kernelKey() const {
  std::ostringstream os;
  os.precision(17);
  os << "H=" << num_qo_heads << "/" << num_kv_heads << " D=" << head_dim << "/"
     << headDimV() << " P=" << page_size << " " << tableFormName(table) << " "
     << layoutName(layout) << " " << quantModeName(quant)
     << " q=" << dtypeName(q_dtype) << " kv=" << dtypeName(kv_dtype)
     << " out=" << dtypeName(out_dtype) << " mask=";
  if (runtime_scalars)
    os << (mask.kind == MaskKind::Window ? "window(rt)" : mask.str()) << " sm_scale=rt";
  else
    os << mask.str() << " sm_scale=" << smScale();
  if (soft_cap > 0)
  {
    os << " soft_cap=";
    if (runtime_scalars)
      os << "rt";
    else
      os << soft_cap;
  }
  if (kv_strided)
    os << " kv_strides=rt";
  os << " lse=" << (return_lse ? 1 : 0);
  return os.str();
}

namespace {
Request::KVView combinedView(const Request &r, int64_t offset, int64_t dim) {
  const int64_t P = r.page_size, H = r.num_kv_heads;
  const int64_t page = P * H * (r.head_dim + r.headDimV());
  if (r.layout == KVLayout::NHD)
    return {offset, {page, H * dim, dim, 1}};
  return {offset, {page, P * dim, dim, 1}};
}
} // namespace

std::string Request::checkKVStrides(const std::vector<int64_t> &sizes,
                                    const std::vector<int64_t> &strides,
                                    int64_t elemBytes) {
  auto text = [](const std::vector<int64_t> &v) {
    std::string r = "[";
    for (size_t i = 0; i < v.size(); ++i)
      r += (i ? ", " : "") + std::to_string(v[i]);
    return r + "]";
  };
  if (sizes.size() != 4 || strides.size() != 4)
    return "needs 4 sizes and 4 strides, has " + text(sizes) + " and " + text(strides);
  std::string where = " (sizes " + text(sizes) + ", strides " + text(strides) + ")";
  if (strides[3] != 1)
    return "the d dimension must be contiguous (stride 1)" + where;
  std::vector<std::pair<int64_t, int64_t>> dims; // (stride, size) of the outer three
  for (int i = 0; i < 3; ++i) {
    if (sizes[i] <= 1)
      continue; // a dimension of one index: its stride is never used
    if (strides[i] <= 0)
      return "strides must be > 0" + where;
    if ((strides[i] * elemBytes) % 16 != 0)
      return "strides must be multiples of 16 bytes (" + std::to_string(16 / elemBytes) +
             " elements)" + where;
    dims.push_back({strides[i], sizes[i]});
  }
  std::sort(dims.begin(), dims.end());
  int64_t extent = sizes[3]; // elements spanned by the dimensions below
  for (auto [stride, size] : dims) {
    if (stride < extent)
      return "the strides overlap: a stride of " + std::to_string(stride) +
             " is less than the " + std::to_string(extent) +
             " elements the dimensions below it span" + where;
    extent = stride * (size - 1) + extent;
  }
  return "";
}

Request::KVView Request::combinedKView() const { return combinedView(*this, 0, head_dim); }
Request::KVView Request::combinedVView() const {
  return combinedView(*this, page_size * num_kv_heads * head_dim, headDimV());
}
int64_t Request::combinedKVElems(int64_t nPages) const {
  return nPages * page_size * num_kv_heads * (head_dim + headDimV());
}

std::vector<uint8_t> Inputs::combinedKVCache() const {
  const int64_t esz = dtypeSize(req.kv_dtype), n = nPages();
  const int64_t kPage = req.page_size * req.num_kv_heads * req.head_dim;
  const int64_t vPage = req.page_size * req.num_kv_heads * req.headDimV();
  const Request::KVView k = req.combinedKView(), v = req.combinedVView();
  std::vector<uint8_t> kv(static_cast<size_t>(req.combinedKVElems(n) * esz));
  for (int64_t pg = 0; pg < n; ++pg) {
    std::memcpy(kv.data() + (pg * k.strides[0] + k.offset) * esz,
                k_cache.data() + pg * kPage * esz, kPage * esz);
    std::memcpy(kv.data() + (pg * v.strides[0] + v.offset) * esz,
                v_cache.data() + pg * vPage * esz, vPage * esz);
  }
  return kv;
}

std::array<int32_t, 4> Request::runtimeScalars() const {
  auto bitsOf = [](double v) {
    float f = static_cast<float>(v);
    int32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
  };
  bool w = mask.kind == MaskKind::Window;
  return {bitsOf(smScale()), static_cast<int32_t>(w ? mask.left : -1),
          static_cast<int32_t>(w ? mask.right : -1),
          soft_cap > 0 ? bitsOf(soft_cap) : 0};
}

int64_t visiblePairs(const Request &req) {
  int64_t pairs = 0;
  for (int64_t b = 0; b < req.batch(); ++b)
    for (int64_t i = 0; i < req.qo_lens[b]; ++i) {
      int64_t lo, hi;
      req.mask.visibleRange(i, req.qo_lens[b], req.kv_lens[b], lo, hi);
      pairs += std::max<int64_t>(0, hi - lo + 1);
    }
  return pairs;
}

double attentionFlops(const Request &req) {
  return 2.0 * double(visiblePairs(req)) * double(req.num_qo_heads) *
         double(req.head_dim + req.headDimV());
}

float Inputs::qStored(int64_t row, int64_t h, int64_t d) const {
  return loadElement(req.q_dtype, q.data(),
                     static_cast<size_t>((row * req.num_qo_heads + h) *
                                             req.head_dim + d));
}
float Inputs::kStored(int64_t page, int64_t slot, int64_t g, int64_t d) const {
  return loadElement(req.kv_dtype, k_cache.data(),
                     static_cast<size_t>(kvIndex(page, slot, g, d, req.head_dim)));
}
float Inputs::vStored(int64_t page, int64_t slot, int64_t g, int64_t d) const {
  return loadElement(
      req.kv_dtype, v_cache.data(),
      static_cast<size_t>(kvIndex(page, slot, g, d, req.headDimV())));
}

namespace {
// Fills one page of the pool: draws P*Hkv*dim values in NHD order from the
// page's own stream (so both layouts hold the same logical data) and places
// them in `layout` order.
void drawPage(uint64_t seed, uint64_t tensor, int64_t page, int64_t P,
              int64_t H, int64_t dim, KVLayout layout, float *out) {
  Rng rng(seed, pageStream(tensor, page));
  for (int64_t s = 0; s < P; ++s)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t d = 0; d < dim; ++d) {
        int64_t i = layout == KVLayout::NHD ? (s * H + h) * dim + d
                                            : (h * P + s) * dim + d;
        out[i] = rng.uniform();
      }
}

void makeCache(const Request &req, uint64_t tensor, uint64_t spreadStream,
               int64_t nPages, int64_t dim, std::vector<uint8_t> &cache,
               std::vector<float> &descales, int64_t descaleOffset) {
  const int64_t P = req.page_size, H = req.num_kv_heads;
  const int64_t pageElems = P * H * dim;
  const DType t = req.kv_dtype;
  const size_t esz = dtypeSize(t);
  cache.assign(static_cast<size_t>(nPages * pageElems) * esz, 0);
  // Spread data: each (page, head) of the draws scaled by its magnitude
  // before quantization, so its descale carries the magnitude.
  const std::vector<float> scales =
      req.data == DataMode::Spread ? spreadScales(req.seed, spreadStream, nPages, H)
                                   : std::vector<float>();
  auto fillPage = [&](int64_t pg, float *page) {
    drawPage(req.seed, tensor, pg, P, H, dim, req.layout, page);
    if (scales.empty())
      return;
    for (int64_t s = 0; s < P; ++s)
      for (int64_t h = 0; h < H; ++h) {
        const float m = scales[static_cast<size_t>(pg * H + h)];
        float *row = page + (req.layout == KVLayout::NHD ? (s * H + h) * dim
                                                         : (h * P + s) * dim);
        for (int64_t d = 0; d < dim; ++d)
          row[d] *= m;
      }
  };
  // Pages are independent streams, so they are generated in parallel and the
  // result does not depend on the thread count.
  const int threads = static_cast<int>(std::min<int64_t>(
      detail::resolveThreads(0), std::max<int64_t>(1, nPages * pageElems >> 20)));
  float tensorDescale = 1.0f;
  if (req.quant == QuantMode::PerTensor) {
    // Pass 1: the max over the whole pool (pages are regenerated in pass 2).
    std::vector<float> pageMax(static_cast<size_t>(nPages), 0.0f);
    detail::parallelFor(nPages, threads, [&](int64_t pg) {
      std::vector<float> page(static_cast<size_t>(pageElems));
      fillPage(pg, page.data());
      float amax = 0.0f;
      for (float x : page)
        amax = std::max(amax, std::fabs(x));
      pageMax[pg] = amax;
    });
    float amax = 0.0f;
    for (float m : pageMax)
      amax = std::max(amax, m);
    tensorDescale = descaleFromAbsMax(amax, t);
    descales[descaleOffset] = tensorDescale;
  } else if (req.quant == QuantMode::None) {
    descales[descaleOffset] = 1.0f;
  }
  const DescaleLayout dl{descaleOffset, 2 * H, 2};
  detail::parallelFor(nPages, threads, [&](int64_t pg) {
    std::vector<float> page(static_cast<size_t>(pageElems));
    fillPage(pg, page.data());
    uint8_t *dst = cache.data() + static_cast<size_t>(pg * pageElems) * esz;
    switch (req.quant) {
    case QuantMode::None:
      encodeBuffer(t, page.data(), page.size(), dst, Overflow::Saturate);
      break;
    case QuantMode::PerTensor:
      quantizeWithDescale(page.data(), page.size(), tensorDescale, t, dst);
      break;
    case QuantMode::KVBlockscale:
      quantizePerPageHead(page.data(), 1, P, H, dim, req.layout, t, dst,
                          descales.data() + pg * dl.page_stride, dl);
      break;
    }
  });
}
/// The slots of each sequence's last page from Sk_b on hold NaN codes, as a
/// serving cache may hold stale values there (SPEC section 1): a kernel
/// whose product reads them (0 x NaN) shows NaN. After quantization, so the
/// descales are those of the whole page's generated values.
void poisonPageTails(Inputs &in) {
  const Request &req = in.req;
  const int64_t P = req.page_size, H = req.num_kv_heads;
  const size_t esz = dtypeSize(req.kv_dtype);
  const bool fnuz = req.kv_dtype == DType::F8E4M3FNUZ || req.kv_dtype == DType::F8E5M2FNUZ;
  for (int64_t b = 0; b < req.batch(); ++b) {
    const int64_t len = in.table.seqLen(TableForm::CSR, b);
    const int64_t n = in.table.numPages(TableForm::CSR, b);
    if (n == 0 || len % P == 0)
      continue;
    const int32_t page = in.table.pages(TableForm::CSR, b)[n - 1];
    for (int64_t slot = len % P; slot < P; ++slot)
      for (int64_t h = 0; h < H; ++h)
        for (auto [cache, dim] : {std::pair{&in.k_cache, req.head_dim},
                                  std::pair{&in.v_cache, req.headDimV()}}) {
          uint8_t *at = cache->data() + in.kvIndex(page, slot, h, 0, dim) * esz;
          // 0x80: the FNUZ NaN; 0xFF bytes: a NaN of every other kv type.
          std::memset(at, fnuz ? 0x80 : 0xFF, static_cast<size_t>(dim) * esz);
        }
  }
}
} // namespace

Inputs makeInputs(const Request &req) {
  if (std::string err = req.validate(); !err.empty())
    throw std::invalid_argument("invalid request: " + err);
  Inputs in;
  in.req = req;
  const int64_t B = req.batch();
  in.qo_indptr.assign(B + 1, 0);
  for (int64_t b = 0; b < B; ++b)
    in.qo_indptr[b + 1] = in.qo_indptr[b] + static_cast<int32_t>(req.qo_lens[b]);
  in.table = buildPageTable(req.kv_lens, req.page_size, req.seed, req.n_pages);
  const int64_t nPages = in.table.n_pages;

  // Q: per-tensor quantization when q is fp8 under a quant mode.
  const size_t nq = static_cast<size_t>(req.totalQ() * req.num_qo_heads *
                                        req.head_dim);
  std::vector<float> qf(nq);
  Rng qrng(req.seed, kStreamQ);
  for (float &x : qf)
    x = qrng.uniform();
  in.q.assign(nq * dtypeSize(req.q_dtype), 0);
  if (isFp8(req.q_dtype) && req.quant != QuantMode::None)
    in.q_descale = quantizePerTensor(qf.data(), nq, req.q_dtype, in.q.data());
  else
    encodeBuffer(req.q_dtype, qf.data(), nq, in.q.data(), Overflow::Saturate);

  const int64_t H = req.num_kv_heads;
  if (req.quant == QuantMode::KVBlockscale) {
    in.kv_descale.assign(static_cast<size_t>(nPages * H * 2), 0.0f);
    in.k_descale = {0, 2 * H, 2};
    in.v_descale = {1, 2 * H, 2};
  } else {
    in.kv_descale.assign(2, 1.0f);
    in.k_descale = {0, 0, 0};
    in.v_descale = {1, 0, 0};
  }
  makeCache(req, kStreamK, kStreamKSpread, nPages, req.head_dim, in.k_cache,
            in.kv_descale, 0);
  makeCache(req, kStreamV, kStreamVSpread, nPages, req.headDimV(), in.v_cache,
            in.kv_descale, 1);
  poisonPageTails(in);
  return in;
}

} // namespace fmha::ref

uint64_t fmha::ref::Request::hostBytes() const {
  // validate() has bounded every count below kMaxIndex, so the sums of a
  // few of them fit 64 bits.
  int64_t pages = 0;
  for (int64_t k : kv_lens)
    pages += (k + page_size - 1) / page_size;
  const uint64_t pool = static_cast<uint64_t>(n_pages ? n_pages : 2 * pages + 3);
  const uint64_t sq = static_cast<uint64_t>(totalQ()),
                 hq = static_cast<uint64_t>(num_qo_heads),
                 hkv = static_cast<uint64_t>(num_kv_heads),
                 d = static_cast<uint64_t>(head_dim),
                 dv = static_cast<uint64_t>(headDimV()),
                 p = static_cast<uint64_t>(page_size),
                 b = static_cast<uint64_t>(batch());
  uint64_t bytes = sq * hq * d * dtypeSize(q_dtype);
  bytes += pool * p * hkv * (d + dv) * dtypeSize(kv_dtype);
  bytes += pool * hkv * 2 * 4;                 // descales
  bytes += (3 * b + 3 + 2 * pool + b * pool) * 4; // both page-table forms
  bytes += 4 * sq * hq * (dv + 1) * 4;         // out and lse, four copies
  return bytes;
}

uint64_t fmha::ref::availableHostBytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  uint64_t bytes = pages > 0 && size > 0
                       ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(size)
                       : UINT64_MAX;
  struct rlimit as;
  if (::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY)
    bytes = std::min<uint64_t>(bytes, as.rlim_cur);
  return bytes;
}

std::string fmha::ref::checkHostMemory(const Request &req, uint64_t available) {
  // Half the machine: the process, the JIT and the OS need the rest.
  const uint64_t budget = available / 2, need = req.hostBytes();
  if (need <= budget)
    return "";
  auto gib = [](uint64_t x) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f GiB", static_cast<double>(x) / (1ull << 30));
    return std::string(buf);
  };
  return "the run needs " + gib(need) + " of host memory, more than half of the " +
         gib(available) + " available";
}
